"""The dated x86 family/model table names older parts too, for the OSes that do not show every
flag archspec needs (a Mac's sysctl lists no XSAVEOPT, Windows shows no flags at all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelgui.probes.cpu import x86_model_row

MACHINES = Path(__file__).parent / "fixtures" / "machines"


@pytest.mark.parametrize("vendor, family, model, stepping, uarch, codename", [
    ("GenuineIntel", 6, 0x9E, 13, "skylake", "Coffee Lake"),      # i9-9880H
    ("GenuineIntel", 6, 0x9E, 9, "skylake", "Kaby Lake"),
    ("GenuineIntel", 6, 0x55, 4, "skylake_avx512", "Skylake-SP"),
    ("GenuineIntel", 6, 0x55, 7, "cascadelake", "Cascade Lake"),
    ("GenuineIntel", 6, 0x8C, 1, "icelake", "Tiger Lake"),
    ("GenuineIntel", 6, 0x3F, 2, "haswell", "Haswell"),
    ("AuthenticAMD", 23, 0x31, 0, "zen2", "Rome / Castle Peak"),    # EPYC 7V12 (Azure NCasT4_v3)
    ("AuthenticAMD", 23, 0x08, 2, "zen", "Pinnacle Ridge"),
    ("AuthenticAMD", 23, 0x47, 0, "zen2", None),
])
def test_rows_by_family_model_and_stepping(vendor, family, model, stepping, uarch, codename):
    row = x86_model_row(vendor, family, model, stepping)
    assert row and (row["uarch"], row["codename"]) == (uarch, codename)


def test_a_model_the_table_does_not_know_is_left_to_archspec():
    assert x86_model_row("GenuineIntel", 6, 0x01, 0) is None
    assert x86_model_row("GenuineIntel", 6, 0x55, 8) is None        # a stepping no source names


@pytest.mark.parametrize("tree, uarch", [("mac-intel-radeon", "skylake"), ("win-azure-vm-rdp", "zen2")])
def test_recorded_macs_and_windows_pcs_get_their_microarchitecture(tree, uarch, capsys):
    from accelgui import cli

    assert cli.main(["--probe", "--no-advice", "--sysroot", str(MACHINES / tree)]) == 0
    assert json.loads(capsys.readouterr().out)["cpu"]["microarchitecture"] == uarch
