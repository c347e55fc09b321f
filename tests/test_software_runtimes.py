"""Runtimes as data (probes/data/runtimes.json): the schema, the interpreter's recognisers, and
the names the Windows/macOS backends read from the same table."""

import json
from pathlib import Path

import jsonschema

from accelgui.probes import families, software
from accelgui.probes.context import ProbeContext

DATA = Path(software.__file__).parent / "data"


def test_runtime_table_matches_its_schema_and_names_every_family_toolkit():
    table = json.loads((DATA / "runtimes.json").read_text(encoding="utf-8"))
    schema = json.loads((DATA / "runtimes.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(table)
    # a family's runtime names toolkits the table (or another probe) recognises
    others = {"cuda_driver"}            # from NVML (probes/gpu_nvidia.py)
    for fid, entry in families.load_families().items():
        for kit in (entry.get("runtime") or {}).get("toolkits") or ():
            assert kit in table["runtimes"] or kit in others, (fid, kit)


def test_version_of_is_only_used_after_the_runtime_it_names():
    order = list(json.loads((DATA / "runtimes.json").read_text(encoding="utf-8"))["runtimes"])
    table = software.runtime_table()["runtimes"]
    for rid, spec in table.items():
        for rec in spec["detect"]:
            if "version_of" in rec:
                assert order.index(rec["version_of"]) < order.index(rid), rid


def test_library_names_per_os():
    assert software.library_runtimes(["nvcuda.dll", "DirectML.dll", "QnnHtp.dll", "kernel32.dll"],
                                     "windows") == {"cuda_driver_lib": None, "directml": None, "qnn": None}
    assert software.library_runtimes(["libcuda.so.1", "libcuda.so.550.54.15", "libcudnn.so.9"]) == \
        {"cuda_driver_lib": "550.54.15", "cudnn": None}
    assert software.library_runtimes(["nvcuda.dll"]) == {}          # a Windows name on Linux
    assert "metal" in software.library_runtimes(["Metal.framework"], "macos")


def _kits(tmp_path, files: dict[str, str]) -> dict:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_text(text)
    return software.toolkits(ProbeContext(root=str(tmp_path)))[0]


def test_file_recognisers_read_versions(tmp_path):
    kits = _kits(tmp_path, {
        "opt/rocm-6.2.0/.info/version": "6.2.0-66\n",
        "usr/local/Ascend/driver/version.info": "Version=24.1.rc2\nascendhal_version=7.35.19\n",
        "etc/nv_tegra_release": "# R35 (release), REVISION: 5.0, GCID: 35550185, BOARD: t186ref\n",
        "proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                      "550.54.15  Release Build\n",
        "opt/intel/oneapi/compiler/2024.2/": "", "opt/intel/oneapi/compiler/2025.0/": "",
        "opt/intel/oneapi/compiler/latest/": "",
    })
    assert kits["rocm"] == "6.2.0" and kits["ascend_driver"] == "24.1.rc2"
    assert kits["l4t"] == "35.5.0" and kits["nvidia_driver"] == "550.54.15"
    assert kits["oneapi"] == "2025.0"


def test_a_found_runtime_without_a_version_takes_a_later_recognisers(tmp_path):
    kits = _kits(tmp_path, {"opt/intel/openvino/": "", "usr/lib/libopenvino.so.2024.4.0": ""})
    assert kits["openvino"] == "2024.4.0"
    kits = _kits(tmp_path, {"opt/intel/openvino_2025.1.0/": ""})
    assert kits["openvino"] == "2025.1.0"


def test_require_version_falls_through_to_the_next_recogniser(tmp_path):
    kits = _kits(tmp_path, {"proc/driver/nvidia/version": "garbage\n",
                            "sys/module/nvidia/version": "535.183.01\n"})
    assert kits["nvidia_driver"] == "535.183.01"


def test_runtimes_families_name_are_recognised_from_files(tmp_path):
    kits = _kits(tmp_path, {"usr/share/vulkan/icd.d/asahi_icd.aarch64.json": "{}",
                            "usr/local/bin/tt-smi": ""})
    assert "mesa_asahi" in kits and "tenstorrent" in kits
