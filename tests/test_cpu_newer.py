"""CPUs newer than archspec's data: the dated family/model table of ``cpu_parts.json``.

archspec names a Granite Rapids Xeon ``sapphirerapids`` and a Lunar Lake laptop ``alderlake``
(its targets stop there); the CPU probe asks ``x86_models`` first and keeps archspec's answer
only where it is the same target, a descendant of it, or a generic level (a VM hiding flags).
The recorded trees ``x86-granite-rapids`` and ``x86-lunar-lake`` are checked through what a
user sees: ``accelgui --probe --sysroot TREE --format json --no-advice``.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui.probes import cpu
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"
DATA = Path(cpu.__file__).parent / "data" / "cpu_parts.json"


def _cli(tree: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot",
                          str(MACHINES / tree), "--format", "json", "--no-advice"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def reports():
    return {t: _cli(t) for t in ("x86-granite-rapids", "x86-lunar-lake")}


def _table() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))["x86_models"]


def _models(specs) -> set[int]:
    out = set()
    for spec in specs:
        lo, sep, hi = spec.partition("-")
        out.update(range(int(lo, 16), int(hi if sep else lo, 16) + 1))
    return out


# ------------------------------------------------------------------ the table

def test_the_table_is_dated_and_every_row_sourced():
    table = _table()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table["as_of"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table["review_by"]) and table["source"]
    for row in table["rows"]:
        assert row["vendor"] in ("GenuineIntel", "AuthenticAMD"), row
        assert isinstance(row["family"], int) and row["models"], row
        assert all(re.fullmatch(r"0x[0-9a-f]{2}(-0x[0-9a-f]{2})?", m) for m in row["models"]), row
        assert re.fullmatch(r"[a-z][a-z0-9_]*", row["uarch"]), row       # archspec-style ids
        sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
        assert sources and all(s.startswith("https://") for s in sources), row
        assert "codename" in row                                          # null when unsourced


def test_no_model_is_in_two_rows():
    seen: dict[tuple, int] = {}
    for i, row in enumerate(_table()["rows"]):
        for model in _models(row["models"]):
            key = (row["vendor"], row["family"], model, tuple(row.get("steppings") or ()))
            assert key not in seen, (key, seen.get(key), i)
            seen[key] = i


@pytest.mark.parametrize("vendor,family,model,uarch", [
    ("GenuineIntel", 6, 0x8F, "sapphirerapids"), ("GenuineIntel", 6, 0xCF, "emeraldrapids"),
    ("GenuineIntel", 6, 0xAD, "graniterapids"), ("GenuineIntel", 6, 0xAE, "graniterapids"),
    ("GenuineIntel", 6, 0xAF, "sierraforest"), ("GenuineIntel", 6, 0xDD, "clearwaterforest"),
    ("GenuineIntel", 6, 0x97, "alderlake"), ("GenuineIntel", 6, 0x9A, "alderlake"),
    ("GenuineIntel", 6, 0xBE, "alderlake"), ("GenuineIntel", 6, 0xB7, "raptorlake"),
    ("GenuineIntel", 6, 0xBA, "raptorlake"), ("GenuineIntel", 6, 0xBF, "raptorlake"),
    ("GenuineIntel", 6, 0xAA, "meteorlake"), ("GenuineIntel", 6, 0xAC, "meteorlake"),
    ("GenuineIntel", 6, 0xC5, "arrowlake"), ("GenuineIntel", 6, 0xC6, "arrowlake"),
    ("GenuineIntel", 6, 0xB5, "arrowlake"), ("GenuineIntel", 6, 0xBD, "lunarlake"),
    ("GenuineIntel", 6, 0xCC, "pantherlake"),
    ("AuthenticAMD", 0x19, 0x01, "zen3"), ("AuthenticAMD", 0x19, 0x21, "zen3"),
    ("AuthenticAMD", 0x19, 0x11, "zen4"), ("AuthenticAMD", 0x19, 0x61, "zen4"),
    ("AuthenticAMD", 0x19, 0x74, "zen4"), ("AuthenticAMD", 0x19, 0xA0, "zen4"),
    ("AuthenticAMD", 0x1A, 0x02, "zen5"), ("AuthenticAMD", 0x1A, 0x24, "zen5"),
    ("AuthenticAMD", 0x1A, 0x44, "zen5"), ("AuthenticAMD", 0x1A, 0x60, "zen5"),
    ("AuthenticAMD", 0x1A, 0x70, "zen5"), ("AuthenticAMD", 0x1A, 0x50, "zen6"),
])
def test_the_parts_the_kernel_names(vendor, family, model, uarch):
    """Intel: intel-family.h; AMD: amd.c bsp_init_amd's Zen generations."""
    row = cpu.x86_model_row(vendor, str(family), str(model))
    assert row is not None and row["uarch"] == uarch


@pytest.mark.parametrize("family,model,codename", [
    (6, 0xAD, "Granite Rapids"), (6, 0xCF, "Emerald Rapids"), (6, 0xBD, "Lunar Lake"),
    (0x1A, 0x02, "Turin"), (0x1A, 0x44, "Granite Ridge"), (0x1A, 0x24, "Strix Point"),
    (0x1A, 0x70, "Strix Halo"), (0x1A, 0x60, "Krackan"),
])
def test_codenames(family, model, codename):
    vendor = "GenuineIntel" if family == 6 else "AuthenticAMD"
    assert codename in (cpu.x86_model_row(vendor, family, model)["codename"] or "")


def test_unknown_parts_and_vendors_have_no_row():
    assert cpu.x86_model_row("GenuineIntel", "6", "1") is None           # a model no row names
    assert cpu.x86_model_row("HygonGenuine", "24", "1") is None
    assert cpu.x86_model_row("GenuineIntel", None, "173") is None
    assert cpu.x86_model_row(None, "6", "173") is None
    assert cpu.x86_model_row("GenuineIntel", "6", "garbage") is None


def test_names_match_what_the_rest_of_the_code_expects():
    """Every table name is archspec's, the peak table's or the memory classes' spelling (the
    last three are parts nothing else names yet)."""
    import archspec

    peaks = json.loads((Path(cpu.__file__).parent / "kernels" / "uarch_peaks.json").read_text())
    arch = json.loads((Path(archspec.__file__).parent / "json" / "cpu" /
                       "microarchitectures.json").read_text())["microarchitectures"]
    from accelgui import benchmarks

    known = set(arch) | set(peaks["uarch"]) | set(benchmarks._DDR5_UARCHES) | \
        {"clearwaterforest", "pantherlake", "zen6"}
    assert {r["uarch"] for r in _table()["rows"]} <= known


# ------------------------------------------------------------------ archspec's answer and the table

def test_archspec_alone_lags_these_parts():
    """The reason for the table: archspec's own answer for the two recorded trees."""
    for tree, lagging in (("x86-granite-rapids", "sapphirerapids"), ("x86-lunar-lake", "alderlake")):
        info = cpu.parse_cpuinfo((MACHINES / tree / "proc" / "cpuinfo").read_text())
        got = cpu.microarchitecture("x86_64", info.type["vendor"], info.type["flags"].split())
        assert got == lagging, tree


def test_a_generic_level_stands():
    """A VM that hides AVX-512/AMX flags gets x86_64_v3/v4 from archspec: naming the part's
    target would claim instructions it does not show. The codename is still the part's."""
    ct = {"family": "6", "model": "143", "stepping": "8"}
    assert cpu._x86_uarch("GenuineIntel", ct, "x86_64_v4") == ("x86_64_v4", "Sapphire Rapids")


def test_a_more_specific_archspec_target_stands():
    ct = {"family": "6", "model": str(0xC6)}
    assert cpu._x86_uarch("GenuineIntel", ct, "arrowlake_s")[0] == "arrowlake_s"
    assert cpu._x86_uarch("GenuineIntel", ct, "alderlake")[0] == "arrowlake"


def test_without_a_row_archspec_answers():
    assert cpu._x86_uarch("GenuineIntel", {"family": "6", "model": "1"}, "pentium4") == \
        ("pentium4", None)
    # an older part's row is a fallback: archspec's answer from the flags stands, the codename is added
    assert cpu._x86_uarch("GenuineIntel", {"family": "6", "model": "60"}, "x86_64_v2") == \
        ("x86_64_v2", "Haswell")
    assert cpu._x86_uarch("GenuineIntel", {"family": "6", "model": "60"}, None) == ("haswell", "Haswell")
    assert cpu._x86_uarch("GenuineIntel", {}, "haswell") == ("haswell", None)


# ------------------------------------------------------------------ what a user sees

def test_granite_rapids_tree(reports):
    c = reports["x86-granite-rapids"]["cpu"]
    assert (c["vendor"], c["model_name"], c["microarchitecture"]) == \
        ("intel", "Intel(R) Xeon(R) 6972P", "graniterapids")
    assert (c["logical_cpus"], c["threads_per_core"], c["sockets"]) == (8, 2, 1)
    assert {"avx512f", "amx_tile", "amx_fp16"} <= set(c["features"])


def test_lunar_lake_tree(reports):
    c = reports["x86-lunar-lake"]["cpu"]
    assert (c["vendor"], c["model_name"], c["microarchitecture"]) == \
        ("intel", "Intel(R) Core(TM) Ultra 7 258V", "lunarlake")
    assert "avx512f" not in c["features"] and "avx_vnni" in c["features"]


def test_the_probe_gives_the_codename():
    got = cpu.probe(ProbeContext(root=str(MACHINES / "x86-granite-rapids")))["cpu"]
    assert got["codename"] == "Granite Rapids"
    got = cpu.probe(ProbeContext(root=str(MACHINES / "x86-lunar-lake")))["cpu"]
    assert got["codename"] == "Lunar Lake"


def test_a_broken_table_falls_back_to_archspec(monkeypatch):
    monkeypatch.setattr(cpu, "_tables", lambda: {"arm": {}, "vendor_ids": {},
                                                 "x86_models": {"rows": [None, {"vendor": 1}]}})
    got = cpu.probe(ProbeContext(root=str(MACHINES / "x86-granite-rapids")))["cpu"]
    assert got["microarchitecture"] == "sapphirerapids" and "codename" not in got


@pytest.mark.parametrize("tree,peak_key", [("x86-granite-rapids", "graniterapids"),
                                           ("x86-lunar-lake", "arrowlake")])
def test_the_peak_table_names_new_parts_through_the_same_dated_table(tree, peak_key):
    """The benchmark's theoretical peaks find a part the same way the CPU probe names it
    (one family/model table for the last generations); Lunar Lake's P-cores are Lion Cove,
    the Arrow Lake entry's cores."""
    from accelgui.probes.kernels import peaks

    name, how = peaks.detect_uarch(ProbeContext(root=str(MACHINES / tree)))
    assert (name, how) == (peak_key, "cpuid family/model")
