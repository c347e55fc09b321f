"""Every recorded Mac and Windows machine read as a user reads its report: the OS, the CPU,
the memory, each GPU/NPU with the memory it computes in, no virtual adapter among them, and
readiness and fixes in English and Chinese that say something."""

from __future__ import annotations

import os
import re

import pytest

from accelgui.export.text import render as render_text
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")
FOLDERS = sorted(d for d in os.listdir(MACHINES) if d.startswith(("mac-", "win-")))
GIB = 1 << 30


def _report(name: str):
    return run_probes(ProbeContext(os.path.join(MACHINES, name)), timeout_s=20)


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_recorded_machine_reads_right_in_both_languages(folder):
    report = _report(folder)
    r = report.to_dict()
    assert r["platform"]["os"] == ("macOS" if folder.startswith("mac-") else "Windows")
    for dev in r["devices"]:
        d = dev["details"]
        assert not re.search(r"Remote Display|Basic Render|Hyper-V Video|Parsec|Virtual Display",
                             dev["name"], re.I), dev["name"]
        assert dev["readiness"] != "unknown" or dev["kind"] not in ("gpu", "npu"), (dev["name"], dev["readiness_reason"])
        if dev["kind"] == "gpu" and dev["integrated"]:
            # an integrated GPU computes in the machine's memory: no carve-out passed off as VRAM
            assert d.get("memory_bytes") in (None, r["memory"]["total_bytes"]) or d.get("memory_source", "").startswith(
                "unified"), (dev["name"], d.get("memory_bytes"), d.get("memory_source"))
        if dev["vendor"] == "apple" and dev["kind"] == "gpu":
            assert d["gpu_cores"] and d["memory_source"].startswith("unified memory")
    for lang in ("en", "zh"):
        text = render_text(report, lang)
        assert "None" not in text and "{" not in text.split("Probes")[0], folder
        if lang == "zh":
            assert "\u52a0\u901f\u5668" in text                            # the accelerators section
        for dev in r["devices"]:
            if dev["readiness"] != "ready":
                assert dev["fix"], dev["name"]


def test_a_cache_size_cut_short_by_a_truncated_paste_is_no_cache():
    # the M4 Pro capture ends in "hw.perflevel1.l1icachesize: 1310" (131072 cut short)
    caches = _report("mac-m4pro-partial").to_dict()["cpu"]["caches"]
    assert "l1i" not in caches
    assert caches["l1d"] == {"size_bytes": 10 * 128 * 1024 + 4 * 64 * 1024, "instances": 14}


def test_an_integrated_gpu_on_windows_keeps_its_carve_out_as_dedicated_memory_only():
    r = _report("win-lunarlake-copilot-pc").to_dict()
    arc = next(d for d in r["devices"] if d["kind"] == "gpu")
    assert arc["integrated"] is True and arc["details"]["memory_shared"] is True
    assert arc["details"]["dedicated_memory_bytes"] == 2 * GIB
    assert arc["details"]["dedicated_memory_source"] == "WMI AdapterRAM (32-bit)"
    assert arc["details"].get("memory_bytes") is None
    # a discrete card keeps its own memory
    laptop = _report("win-laptop-meteorlake-rtx4060").to_dict()
    rtx = next(d for d in laptop["devices"] if d["vendor"] == "nvidia")
    assert rtx["integrated"] is False and rtx["details"]["memory_bytes"] == 8188 << 20


def test_an_npu_windows_names_by_its_class_is_named_by_its_id():
    r = _report("win-ryzen-ai-laptop").to_dict()
    npu = next(d for d in r["devices"] if d["kind"] == "npu")
    assert npu["name"] != "NPU Compute Accelerator Device" and "XDNA" in npu["name"]


def test_a_generation_archspec_lacks_gets_the_instruction_set_its_cores_share():
    meteor = _report("win-laptop-meteorlake-rtx4060").to_dict()["cpu"]
    lunar = _report("win-lunarlake-copilot-pc").to_dict()["cpu"]
    assert meteor["microarchitecture"] == "meteorlake" and lunar["microarchitecture"] == "lunarlake"
    assert {"avx2", "avx_vnni", "fma"} <= set(meteor["features"]) and "avx512f" not in meteor["features"]
    assert {"avx2", "avx_vnni", "avx_vnni_int8"} <= set(lunar["features"]) and "avx512f" not in lunar["features"]
