"""The software probe: packages without importing them, toolkits from files, back ends."""

import os
import stat
import sys
import types
from pathlib import Path

import pytest

from accelgui.probes import software
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"


def test_packages_are_read_from_metadata_without_importing(tmp_path):
    site = tmp_path / "site"
    (site / "torch-2.5.1+cu124.dist-info").mkdir(parents=True)
    (site / "onnxruntime_gpu-1.20.1.dist-info").mkdir()
    (site / "Jax-0.4.35.dist-info").mkdir()
    (site / "pycoral-2.0.0-py3.9.egg-info").mkdir()
    (site / "requests-2.32.3.dist-info").mkdir()               # not on the list
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text("raise RuntimeError('imported!')\n")
    found = software.installed_packages(path=[str(site)])
    assert found == {"jax": "0.4.35", "onnxruntime-gpu": "1.20.1", "pycoral": "2.0.0",
                     "torch": "2.5.1+cu124"}
    imported = [m for m in list(sys.modules.values())
                if str(getattr(m, "__file__", "") or "").startswith(str(site))]
    assert imported == []


def test_first_path_entry_wins(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    (first / "numpy-2.1.0.dist-info").mkdir(parents=True)
    (second / "numpy-1.26.4.dist-info").mkdir(parents=True)
    assert software.installed_packages(names=("numpy",), path=[str(first), str(second)]) == \
        {"numpy": "2.1.0"}


def test_sysroot_reports_the_trees_toolkits_and_no_host_packages():
    fragment = software.probe(ProbeContext(root=str(MACHINES / "acc-dgx-h100")))
    sw = fragment["software"]
    assert sw["packages"] == {} and sw["compilers"] == {} and sw["providers"] == []
    assert sw["toolkits"]["cuda_toolkit"] == "12.4.1"
    assert sw["toolkits"]["nvidia_driver"] == "550.54.15"
    assert sw["toolkits"]["cuda_driver_lib"] == "550.54.15"
    assert fragment["software_meta"] == {"live": False, "libs_recorded": True,
                                         "packages_known": False}


@pytest.mark.parametrize("tree,expected", [
    ("acc-amd-mi300x", {"rocm": "6.2.0"}),
    ("acc-xilinx-u250", {"xrt": "2.16.204"}),
    ("acc-amd-xdna-laptop", {"xrt": "2.19.0", "xrt_xdna_plugin": "2.19.0"}),
    ("acc-intel-npu-laptop", {"openvino": "2024.4.0", "intel_npu_driver": "1.10.0",
                              "level_zero": "1.17.6"}),
    ("acc-coral-pcie", {"libedgetpu": None}),
    ("acc-jetson-orin", {"l4t": "36.3.0", "cuda_toolkit": "12.6.68", "cuda_driver_lib": None}),
    ("acc-hailo8", {"hailort": "4.18.0"}),
    ("acc-intel-fpga", {"opae": "2.12.0"}),
    ("acc-gcp-tpu-v5e", {"libtpu": None}),
    ("acc-office-pc", {}),
])
def test_toolkits_from_files(tree, expected):
    kits, recorded = software.toolkits(ProbeContext(root=str(MACHINES / tree)))
    assert recorded
    for key, value in expected.items():
        assert key in kits and kits[key] == value, (key, kits)
    if not expected:
        assert kits == {}


def test_a_tree_without_libraries_says_so(tmp_path):
    (tmp_path / "sys").mkdir()
    kits, recorded = software.toolkits(ProbeContext(root=str(tmp_path)))
    assert kits == {} and recorded is False


def test_cuda_toolkit_from_versioned_folder_and_version_txt(tmp_path):
    (tmp_path / "usr/local/cuda-11.8").mkdir(parents=True)
    (tmp_path / "usr/local/cuda-11.8/version.txt").write_text("CUDA Version 11.8.89\n")
    (tmp_path / "usr/local/cuda-12.1/bin").mkdir(parents=True)
    (tmp_path / "usr/local/cuda-12.1/bin/nvcc").write_text("")
    kits, _ = software.toolkits(ProbeContext(root=str(tmp_path)))
    assert kits["cuda_toolkit"] == "12.1"


def test_compilers_are_found_without_running_them(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    for name in ("gcc", "clang"):
        exe = bindir / name
        exe.write_text(f"#!/bin/sh\ntouch {marker}\necho '{name} version 13.2.0'\n")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    ctx = ProbeContext(root="/", env={"PATH": str(bindir)})
    found = software.compilers(ctx, {})
    assert found == {"clang": None, "gcc": None}
    assert not marker.exists()
    deep = software.compilers(ProbeContext(root="/", deep=True, env={"PATH": str(bindir)}), {})
    assert deep["gcc"] == "13.2.0"


def _decode(data: bytes) -> list:
    """Minimal protobuf reader: [(field, value)] with nested bytes left raw."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            length, i = _varint(data, i)
            value, i = data[i:i + length], i + length
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((field, value))
    return out


def _varint(data, i):
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def test_identity_model_is_a_valid_onnx_message():
    model = dict(_decode(software.identity_onnx_model()))
    assert model[1] == 7                                        # ir_version
    opset = dict(_decode(model[8]))
    assert opset[2] == 13
    graph = _decode(model[7])
    node = dict(_decode(dict(graph)[1]))
    assert node == {1: b"x", 2: b"y", 4: b"Identity"}
    assert [f for f, _ in graph].count(11) == 1 and [f for f, _ in graph].count(12) == 1
    try:
        import onnx
    except ImportError:
        return
    onnx.checker.check_model(onnx.load_from_string(software.identity_onnx_model()))


def test_deep_providers_keep_only_the_ones_that_run(monkeypatch):
    ort = types.ModuleType("onnxruntime")
    ort.get_available_providers = lambda: ["BrokenExecutionProvider", "CPUExecutionProvider"]

    class SessionOptions:
        log_severity_level = 0

    class InferenceSession:
        def __init__(self, model, options, providers):
            assert isinstance(model, bytes)
            if providers[0] == "BrokenExecutionProvider":
                self._providers = ["CPUExecutionProvider"]        # silent fall-back to CPU
            else:
                self._providers = providers

        def get_providers(self):
            return self._providers

        def run(self, outputs, feeds):
            return [feeds["x"]]

    ort.SessionOptions, ort.InferenceSession = SessionOptions, InferenceSession
    monkeypatch.setitem(sys.modules, "onnxruntime", ort)
    pytest.importorskip("numpy")
    found, notes = software.providers({"onnxruntime": "1.20.1"})
    assert found == ["onnxruntime:CPUExecutionProvider"]


def test_default_probe_confirms_no_back_ends(monkeypatch):
    # Back ends are listed as installed, so a probe that checked them would have something
    # to check; the checks run in a worker thread whose errors never reach the test, so
    # calls are recorded rather than raised.
    asked = []
    trap = types.ModuleType("onnxruntime")
    trap.get_available_providers = lambda: asked.append("onnxruntime") or []
    monkeypatch.setitem(sys.modules, "onnxruntime", trap)
    monkeypatch.setattr(software, "installed_packages", lambda *a, **k: {
        "onnxruntime": "1.20.1", "openvino": "2024.4.0", "torch": "2.5.1"})
    real_providers = software.providers
    monkeypatch.setattr(software, "providers",
                        lambda packages, *a, **k: asked.append("providers") or real_providers({}))
    fragment = software.probe(ProbeContext(root="/"))
    assert fragment["software"]["providers"] == []
    assert asked == [], "back ends were checked without --deep"
    # the same probe with --deep does check them (so the trap above can spring)
    software.probe(ProbeContext(root="/", deep=True))
    assert "providers" in asked


def test_live_probe_lists_this_environments_packages():
    fragment = software.probe(ProbeContext(root="/"))
    packages = fragment["software"]["packages"]
    from importlib import metadata

    assert packages.get("numpy") == metadata.version("numpy")
    assert all(isinstance(v, str) and v for v in packages.values())
    assert os.path.sep not in "".join(packages)
