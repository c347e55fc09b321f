"""The software probe: packages without importing them, toolkits from files, back ends."""

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


def test_live_probe_does_not_present_accelguis_own_dependencies_as_the_users(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    fragment = software.probe(ProbeContext(root="/", env={"HOME": str(home), "PATH": ""}))
    sw = fragment["software"]
    own = [e for e in sw["environments"] if e.get("accelgui")]
    for env in own:
        assert not set(env["packages"]) & software.ACCELGUI_DEPENDENCIES
    assert all(isinstance(v, str) and v for v in sw["packages"].values())


# --------------------------------------------------------------------------- environments

def _env(prefix: Path, packages: dict, py="3.12", cfg=False):
    site = prefix / "lib" / f"python{py}" / "site-packages"
    site.mkdir(parents=True)
    for name, version in packages.items():
        (site / f"{name.replace('-', '_')}-{version}.dist-info").mkdir()
    if cfg:
        (prefix / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {py}.4\n")
    return prefix


def _fresh_home(home: Path):
    _env(home / "miniconda3", {"numpy": "2.1.0"}).joinpath("conda-meta").mkdir()
    _env(home / "miniconda3" / "envs" / "ml", {"torch": "2.5.1", "numpy": "1.26.4"})
    _env(home / ".conda" / "envs" / "jaxenv", {"jax": "0.4.35", "jaxlib": "0.4.35"})
    _env(home / ".virtualenvs" / "ov", {"openvino": "2025.3.0"}, cfg=True)
    _env(home / ".venvs" / "serve", {"vllm": "0.11.0"}, py="3.11")
    _env(home / ".pyenv" / "versions" / "3.11.9", {"onnxruntime": "1.20.1"}, py="3.11")
    user = home / ".local" / "lib" / "python3.12" / "site-packages"
    user.mkdir(parents=True)
    (user / "cupy_cuda12x-13.3.0.dist-info").mkdir()


def test_environments_of_a_fresh_home_are_found_with_versions(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _fresh_home(home)
    active = _env(tmp_path / "proj" / ".venv", {"tensorflow": "2.18.0"}, cfg=True)
    monkeypatch.chdir(tmp_path)
    ctx = ProbeContext(root="/", env={"HOME": str(home), "VIRTUAL_ENV": str(active), "PATH": ""})
    envs = {(e["kind"], e["name"]): e for e in software.environments(ctx)}
    assert envs[("venv", ".venv")]["packages"] == {"tensorflow": "2.18.0"}
    assert envs[("venv", ".venv")]["python_version"] == "3.12.4"          # from pyvenv.cfg
    assert envs[("conda", "ml")]["packages"] == {"numpy": "1.26.4", "torch": "2.5.1"}
    assert envs[("conda", "ml")]["path"] == str(home / "miniconda3" / "envs" / "ml")
    assert envs[("conda", "base")]["packages"] == {"numpy": "2.1.0"}
    assert envs[("conda", "jaxenv")]["packages"]["jax"] == "0.4.35"
    assert envs[("venv", "ov")]["packages"] == {"openvino": "2025.3.0"}
    assert envs[("venv", "serve")]["python_version"] == "3.11"
    assert envs[("pyenv", "3.11.9")]["packages"] == {"onnxruntime": "1.20.1"}
    assert envs[("user", "python3.12")]["packages"] == {"cupy-cuda12x": "13.3.0"}
    assert list(envs)[0] == ("venv", ".venv")                               # the active one first
    union = software._union(list(envs.values()))
    assert union["torch"] == "2.5.1" and union["tensorflow"] == "2.18.0"


def test_environments_inside_a_sysroot_tree(tmp_path):
    _fresh_home(tmp_path / "home" / "ana")
    _env(tmp_path / "root" / "miniforge3", {"torch-npu": "2.1.0"}).joinpath("conda-meta").mkdir()
    _env(tmp_path / "opt" / "conda", {"deepspeed": "0.15.0"}).joinpath("conda-meta").mkdir()
    fragment = software.probe(ProbeContext(root=str(tmp_path)))
    envs = fragment["software"]["environments"]
    paths = {e["path"]: e for e in envs}
    assert "/home/ana/miniconda3/envs/ml" in paths                      # paths as on that machine
    assert paths["/root/miniforge3"]["packages"] == {"torch-npu": "2.1.0"}
    assert paths["/opt/conda"]["packages"] == {"deepspeed": "0.15.0"}
    assert fragment["software"]["packages"]["torch"] == "2.5.1"


def test_accelguis_own_environment_does_not_count_its_dependencies(tmp_path, monkeypatch):
    env = _env(tmp_path / "app", {"accelgui": "0.2.0", "numba": "0.61.0", "numpy": "2.2.0",
                                  "torch": "2.6.0"})
    monkeypatch.chdir(tmp_path)
    ctx = ProbeContext(root="/", env={"HOME": str(tmp_path / "nohome"), "VIRTUAL_ENV": str(env)})
    (found,) = [e for e in software.environments(ctx) if e["path"] == str(env)]
    assert found["accelgui"] is True and found["packages"] == {"torch": "2.6.0"}


def test_python_option_adds_an_interpreter(tmp_path, monkeypatch):
    prefix = _env(tmp_path / "custom", {"jax": "0.5.0"})
    (prefix / "bin").mkdir()
    exe = prefix / "bin" / "python3"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    ctx = ProbeContext(root="/", env={"HOME": str(tmp_path / "h"),
                                      software.EXTRA_PYTHONS_VAR: str(exe)})
    (found,) = [e for e in software.environments(ctx) if e["kind"] == "python"]
    assert found["packages"] == {"jax": "0.5.0"} and found["path"] == str(prefix)


def test_deep_confirms_back_ends_with_each_environments_interpreter(tmp_path):
    prefix = _env(tmp_path / "ml", {"torch": "2.5.1"})
    (prefix / "bin").mkdir()
    exe = prefix / "bin" / "python3"                 # a stand-in interpreter for the child
    exe.write_text("#!/bin/sh\necho '[\"torch:cuda\", \"onnxruntime-listed:CPUExecutionProvider\"]'\n")
    exe.chmod(0o755)
    envs = [{"name": "ml", "kind": "conda", "path": str(prefix), "packages": {"torch": "2.5.1"}},
            {"name": "np", "kind": "venv", "path": str(tmp_path / "none"), "packages": {"numpy": "2"}}]
    assert software.confirm_environments(envs) == ["torch:cuda@conda:ml"]
    assert envs[0]["backends"] == ["torch:cuda"]
    assert envs[0]["providers_listed"] == ["CPUExecutionProvider"]
    assert "backends" not in envs[1]
    slow = tmp_path / "slow" / "bin"
    slow.mkdir(parents=True)
    (slow / "python3").write_text("#!/bin/sh\nsleep 5\n")
    (slow / "python3").chmod(0o755)
    hung = [{"name": "s", "kind": "venv", "path": str(slow.parent), "packages": {"jax": "1"}}]
    assert software.confirm_environments(hung, timeout_s=0.5) == []     # a child that hangs is cut off
