"""What can drive the accelerators: Python packages, toolkits, compilers, back ends.

* Packages are read from distribution metadata, never imported. Listing each ``sys.path``
  folder once and reading versions from the ``name-version.dist-info`` folder names costs
  well under a millisecond; asking ``importlib.metadata.version`` for some 70 names would
  scan every path entry 70 times. Under ``--sysroot`` the packages are unknown (``{}``):
  the interpreter running accelgui says nothing about another machine's tree.
* Toolkits come from files under the root, so they work for recorded trees too: CUDA's
  ``version.json``, ROCm's ``.info/version``, XRT's ``version.json``, libraries such as
  ``libcuda.so.1``, ``libedgetpu.so.1``, ``libze_intel_npu.so``, ``librknnrt.so``.
* Compilers on ``PATH`` are looked up only on the live system, without running them;
  ``--deep`` runs ``--version``.
* Back ends (``providers``) are only confirmed with ``--deep``: ONNX Runtime providers by
  running a one-node model on each, OpenVINO's ``available_devices``, torch's cuda/xpu/mps.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading

from accelgui.probes.context import ProbeContext

PACKAGES = (
    "torch", "torchvision", "torchaudio", "tensorflow", "tensorflow-cpu", "tensorflow-gpu",
    "tf-nightly", "keras", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt",
    "jax-cuda13-plugin", "jax-cuda13-pjrt", "libtpu", "libtpu-nightly", "onnx", "onnxruntime",
    "onnxruntime-gpu", "onnxruntime-directml", "onnxruntime-openvino", "onnxruntime-qnn",
    "onnxruntime-rocm", "onnxruntime-vitisai", "openvino", "openvino-dev", "numba",
    "numba-cuda", "llvmlite", "cupy", "cupy-cuda11x", "cupy-cuda12x", "cupy-cuda13x",
    "tensorrt", "tensorrt-cu12", "deepspeed", "vllm", "triton", "pytorch-triton-rocm",
    "pycoral", "tflite-runtime", "ai-edge-litert", "intel-npu-acceleration-library",
    "intel-extension-for-pytorch", "nvidia-ml-py", "pynvml", "pyopencl", "pycuda", "xformers",
    "llama-cpp-python", "optimum", "optimum-intel", "transformers", "accelerate",
    "bitsandbytes", "flash-attn", "torch-xla", "torch-neuronx", "torch-neuron", "neuronx-cc",
    "jax-neuronx", "libneuronxla", "habana-torch-plugin", "torch-npu", "rknn-toolkit-lite2",
    "rknn-toolkit2", "hailort", "tt-smi", "ttnn", "pyluwen", "nvidia-cuda-runtime-cu12",
    "nvidia-cudnn-cu12", "nvidia-nccl-cu12", "ryzen-ai", "numpy", "scipy", "scikit-learn",
    "pandas", "opencv-python", "opencv-python-headless", "mlx",
)

LIB_DIRS = (
    "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib",
    "usr/local/lib", "usr/lib/wsl/lib", "usr/lib/aarch64-linux-gnu/tegra",
    "usr/lib/aarch64-linux-gnu/nvidia", "usr/lib/arm-linux-gnueabihf",
    "usr/lib/x86_64-linux-gnu/nvidia/current", "usr/lib64/nvidia",
)

# toolkit name -> library name prefixes; the version (when any) comes from "lib.so.X.Y.Z".
LIBRARIES = {
    "cuda_driver_lib": ("libcuda.so",),
    "libedgetpu": ("libedgetpu.so",),
    "level_zero": ("libze_loader.so",),
    "intel_gpu_compute": ("libze_intel_gpu.so", "libigdrcl.so"),
    "intel_npu_driver": ("libze_intel_npu.so", "libze_intel_vpu.so", "libnpu_driver_compiler.so"),
    "hailort": ("libhailort.so",),
    "opae": ("libopae-c.so",),
    "rknn_runtime": ("librknnrt.so",),
    "tensorrt": ("libnvinfer.so",),
    "cudnn": ("libcudnn.so",),
    "nccl": ("libnccl.so",),
    "openvino": ("libopenvino.so",),
    "synapseai": ("libSynapse.so",),
}

_ALL_PREFIXES = tuple(p for prefixes in LIBRARIES.values() for p in prefixes)

COMPILERS = ("nvcc", "hipcc", "icpx", "dpcpp", "nvc++", "clang", "gcc", "g++")

_NORMALISE = re.compile(r"[-_.]+")
_SO_VERSION = r"\.so\.(\d+\.\d+\.\d+(?:\.\d+)*)$"   # X.Y.Z, not a bare soname


def _norm(name: str) -> str:
    return _NORMALISE.sub("-", name).lower()


# ---------------------------------------------------------------------------------------
# packages
# ---------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def _wanted(names: tuple) -> dict[str, str]:
    return {_norm(n): n for n in names}


def installed_packages(names=PACKAGES, path=None, read_metadata: bool = True) -> dict[str, str]:
    """{name: version} for the given distributions found on ``path`` (default sys.path).
    ``read_metadata``: ask importlib.metadata for a version the folder name lacks (only for
    this interpreter's own path)."""
    wanted = _wanted(tuple(names))
    found: dict[str, str] = {}
    for entry in (sys.path if path is None else path):
        try:
            listing = os.listdir(entry or ".")
        except (OSError, TypeError):
            continue
        for item in listing:
            if item.endswith(".dist-info"):
                dist, _, version = item[:-10].rpartition("-")
            elif item.endswith(".egg-info"):
                parts = item[:-9].split("-")
                dist, version = parts[0], (parts[1] if len(parts) > 1 else "")
            else:
                continue
            key = _norm(dist)
            if key in wanted and wanted[key] not in found:
                version = version or (_metadata_version(wanted[key]) if read_metadata else None) \
                    or _egg_version(os.path.join(entry or ".", item))
                if version:
                    found[wanted[key]] = version
    return dict(sorted(found.items()))


# ---------------------------------------------------------------------------------------
# the user's Python environments
# ---------------------------------------------------------------------------------------

#: What accelgui itself installs (pyproject dependencies): in an environment where accelgui is
#: installed these are accelgui's, not the user's, and are not counted for the rules.
ACCELGUI_DEPENDENCIES = frozenset({"numba", "llvmlite", "numpy", "nvidia-ml-py", "psutil",
                                   "py-cpuinfo", "pyside6-essentials", "pyqtgraph",
                                   "archspec", "platformdirs", "threadpoolctl"})
CONDA_BASES = ("miniconda3", "anaconda3", "miniforge3", "mambaforge")
VENV_FOLDERS = (".venvs", "venvs", ".virtualenvs")
EXTRA_PYTHONS_VAR = "ACCELGUI_PYTHON"       # os.pathsep-separated interpreters (--python)
_PY_DIR = re.compile(r"^python(3\.\d+)t?$")


def _site_packages(ctx: ProbeContext, prefix: str) -> tuple[list[str], str | None]:
    """(site-packages folders, Python version) of an environment prefix (relative to the root)."""
    found, version = [], None
    for lib in ("lib", "lib64"):
        for name in ctx.listdir(f"{prefix}/{lib}"):
            m = _PY_DIR.match(name)
            if not m:
                continue
            for leaf in ("site-packages", "dist-packages"):
                if ctx.is_dir(f"{prefix}/{lib}/{name}/{leaf}"):
                    found.append(f"{prefix}/{lib}/{name}/{leaf}")
                    version = version or m.group(1)
    if ctx.is_dir(f"{prefix}/Lib/site-packages"):              # Windows layout
        found.append(f"{prefix}/Lib/site-packages")
    cfg = ctx.read_text(f"{prefix}/pyvenv.cfg") or ""
    m = re.search(r"^\s*(?:version|version_info)\s*=\s*(\d+\.\d+(?:\.\d+)?)", cfg, re.M)
    return found, (m.group(1) if m else version)


def _rel(ctx: ProbeContext, path: str) -> str | None:
    """A live absolute path as the ProbeContext-relative path, or None when it is empty."""
    path = (path or "").strip()
    return path.lstrip("/") or None if path else None


def _homes(ctx: ProbeContext) -> list[str]:
    """Home folders to look in: $HOME on the live system; under --sysroot every home of the
    tree (/home/*, /root)."""
    if ctx.live:
        home = _rel(ctx, ctx.env.get("HOME") or os.path.expanduser("~"))
        return [home] if home else []
    return [f"home/{d}" for d in ctx.listdir("home")] + (["root"] if ctx.is_dir("root") else [])


def _candidates(ctx: ProbeContext) -> list[tuple[str, str, str]]:
    """(kind, name, prefix) of every environment to look at, in the order a person would name
    them: the active ones first, then conda, venvs, pyenv, --python, pip --user, the system."""
    out: list[tuple[str, str, str]] = []
    if ctx.live:
        for var, kind in (("VIRTUAL_ENV", "venv"), ("CONDA_PREFIX", "conda")):
            prefix = _rel(ctx, ctx.env.get(var, ""))
            if prefix:
                out.append((kind, os.path.basename(prefix) or prefix, prefix))
    homes = _homes(ctx)
    conda_bases = [f"{h}/{b}" for h in homes for b in CONDA_BASES] + ["opt/conda"]
    for base in conda_bases:
        if ctx.is_dir(f"{base}/conda-meta") or ctx.is_dir(f"{base}/envs"):
            out.append(("conda", "base", base))
            out += [("conda", e, f"{base}/envs/{e}") for e in ctx.listdir(f"{base}/envs")]
    for h in homes:
        out += [("conda", e, f"{h}/.conda/envs/{e}") for e in ctx.listdir(f"{h}/.conda/envs")]
        for folder in VENV_FOLDERS:
            out += [("venv", e, f"{h}/{folder}/{e}") for e in ctx.listdir(f"{h}/{folder}")]
        out += [("pyenv", v, f"{h}/.pyenv/versions/{v}") for v in ctx.listdir(f"{h}/.pyenv/versions")]
    if ctx.live:
        cwd = _rel(ctx, os.getcwd())
        if cwd:
            out.append(("venv", ".venv", f"{cwd}/.venv"))
        for exe in filter(None, (ctx.env.get(EXTRA_PYTHONS_VAR) or "").split(os.pathsep)):
            real = os.path.realpath(exe) if os.path.isfile(exe) else exe
            prefix = os.path.dirname(os.path.dirname(real if os.path.isfile(exe) else exe))
            if os.path.isdir(exe):                      # a prefix was given
                prefix = exe
            out.append(("python", exe, _rel(ctx, prefix) or ""))
    return out


def _user_sites(ctx: ProbeContext) -> list[tuple[str, str, str]]:
    """pip --user folders (~/.local/lib/python3.X/site-packages)."""
    out = []
    for h in _homes(ctx):
        for name in ctx.listdir(f"{h}/.local/lib"):
            m = _PY_DIR.match(name)
            if m and ctx.is_dir(f"{h}/.local/lib/{name}/site-packages"):
                out.append((f"{h}/.local/lib/{name}/site-packages", m.group(1), f"{h}/.local"))
    return out


def environments(ctx: ProbeContext, names=PACKAGES) -> list[dict]:
    """The Python environments a person has, each ``{name, path, kind, python_version,
    packages, accelgui}`` (packages: {name: version} of the packages of interest, read from
    dist-info folder names, never imported; ``accelgui``: accelgui itself is installed there,
    so its own dependencies are left out of ``packages``). Paths are as on the machine
    (absolute, also under --sysroot)."""
    seen: set = set()
    out: list[dict] = []
    wanted = tuple(names) + ("accelgui",)

    def add(kind, name, prefix, sites, version):
        key = os.path.realpath(ctx.p(prefix)) if prefix else None
        if not sites or key in seen:
            return
        seen.add(key)
        pk = installed_packages(wanted, path=[ctx.p(s) for s in sites], read_metadata=False)
        own = "accelgui" in pk
        packages = {k: v for k, v in pk.items() if k != "accelgui"
                    and not (own and _norm(k) in ACCELGUI_DEPENDENCIES)}
        out.append({"name": name, "path": "/" + prefix, "kind": kind, "python_version": version,
                    "packages": packages, "accelgui": own})

    for kind, name, prefix in _candidates(ctx):
        sites, version = _site_packages(ctx, prefix)
        add(kind, name, prefix, sites, version)
    for site, version, _prefix in _user_sites(ctx):
        add("user", f"python{version}", site, [site], version)
    system = [s for s in _site_dirs(ctx) if not s.startswith("opt/conda")]
    if system:
        m = next((_PY_DIR.match(part) for s in system for part in s.split("/") if _PY_DIR.match(part)), None)
        add("system", "python3", "usr", system, m.group(1) if m else None)
    return out


def _union(envs: list[dict]) -> dict[str, str]:
    """software.packages: every package of interest found in any environment (first wins)."""
    found: dict[str, str] = {}
    for env in envs:
        for name, version in env["packages"].items():
            found.setdefault(name, version)
    return dict(sorted(found.items()))


def _egg_version(folder: str) -> str | None:
    """Version from an egg-info / dist-info folder's PKG-INFO or METADATA (no import)."""
    for leaf in ("PKG-INFO", "METADATA"):
        try:
            with open(os.path.join(folder, leaf), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip() or None
                    if not line.strip():
                        break
        except OSError:
            continue
    return None


def _metadata_version(name: str) -> str | None:
    try:
        from importlib import metadata

        return metadata.version(name)
    except Exception:  # noqa: BLE001 - a broken distribution must not break the probe
        return None


# ---------------------------------------------------------------------------------------
# toolkits from files
# ---------------------------------------------------------------------------------------

def _json(ctx: ProbeContext, rel: str) -> dict | None:
    text = ctx.read_text(rel)
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _version_key(text: str):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:4])


def _cuda_toolkit(ctx: ProbeContext) -> tuple[bool, str | None]:
    candidates = ["usr/local/cuda"] + sorted(
        (f"usr/local/{d}" for d in ctx.listdir("usr/local") if re.match(r"^cuda-\d", d)),
        key=_version_key, reverse=True)
    for base in candidates:
        data = _json(ctx, f"{base}/version.json")
        if data:
            version = (data.get("cuda") or {}).get("version") or \
                (data.get("cuda_cudart") or {}).get("version")
            return True, version
        line = ctx.read_line(f"{base}/version.txt")
        if line:
            m = re.search(r"(?<!\d)(\d++\.\d++(?:\.\d++)?)", line)
            return True, m.group(1) if m else None
        for item in ctx.listdir(f"{base}/dist-info"):      # toolkits assembled from wheels
            m = re.match(r"^nvidia_cuda_(?:nvcc|runtime)-(\d+\.\d+(?:\.\d+)?)", item) \
                if item.startswith("nvidia_cuda_") else None
            if m:
                return True, m.group(1)
        if ctx.exists(f"{base}/bin/nvcc") or ctx.is_dir(f"{base}/lib64"):
            m = re.search(r"cuda-(\d+\.\d+)", f"{base}/{ctx.readlink(base) or ''}")
            return True, m.group(1) if m else None
    return False, None


def _rocm(ctx: ProbeContext) -> tuple[bool, str | None]:
    bases = ["opt/rocm"] + sorted((f"opt/{d}" for d in ctx.listdir("opt")
                                   if re.match(r"^rocm-\d", d)), key=_version_key, reverse=True)
    for base in bases:
        line = ctx.read_line(f"{base}/.info/version") or ctx.read_line(f"{base}/.info/version-dev")
        if line:
            m = re.match(r"(\d+\.\d+(?:\.\d+)?)", line)
            return True, m.group(1) if m else line
        if ctx.exists(f"{base}/bin/hipcc") or ctx.exists(f"{base}/lib/libamdhip64.so"):
            m = re.search(r"rocm-(\d+\.\d+(?:\.\d+)?)", base)
            return True, m.group(1) if m else None
    return False, None


def _nvidia_driver(ctx: ProbeContext) -> str | None:
    text = ctx.read_text("proc/driver/nvidia/version") or ""
    m = re.search(r"Kernel Module(?:\s++for\s++\S++)?\s++(\d++\.\d++(?:\.\d++)?)", text) \
        if "Kernel Module" in text else None
    return m.group(1) if m else ctx.read_line("sys/module/nvidia/version")


def _libraries(ctx: ProbeContext) -> tuple[dict[str, str | None], bool]:
    """Toolkits recognised by their libraries, and whether the tree holds libraries at all."""
    found: dict[str, str | None] = {}
    any_dir = False
    for rel in LIB_DIRS:
        listing = ctx.listdir(rel)
        if not listing:
            continue
        any_dir = True
        for name in listing:
            if not name.startswith(_ALL_PREFIXES):
                continue
            for toolkit, prefixes in LIBRARIES.items():
                if not name.startswith(prefixes):
                    continue
                m = re.search(_SO_VERSION, name)
                version = m.group(1) if m else None
                old = found.get(toolkit)
                if toolkit not in found or (version and (not old or
                                                          _version_key(version) > _version_key(old))):
                    found[toolkit] = version
    return found, any_dir


def _site_dirs(ctx: ProbeContext) -> list[str]:
    """System Python package folders under the root (for runtimes shipped only as wheels)."""
    out = []
    for base in ("usr/lib", "usr/local/lib", "usr/lib64", "opt/conda/lib"):
        for name in ctx.listdir(base):
            if name.startswith("python3"):
                for leaf in ("site-packages", "dist-packages"):
                    if ctx.is_dir(f"{base}/{name}/{leaf}"):
                        out.append(f"{base}/{name}/{leaf}")
    if ctx.is_dir("usr/lib/python3/dist-packages"):
        out.append("usr/lib/python3/dist-packages")
    return out


def toolkits(ctx: ProbeContext) -> tuple[dict[str, str | None], bool]:
    kits, libs_recorded = _libraries(ctx)
    ok, version = _cuda_toolkit(ctx)
    if ok:
        kits["cuda_toolkit"] = version
    driver = _nvidia_driver(ctx)
    if driver:
        kits["nvidia_driver"] = driver
    ok, version = _rocm(ctx)
    if ok:
        kits["rocm"] = version
    xrt = _json(ctx, "opt/xilinx/xrt/version.json")
    if xrt is not None or ctx.is_dir("opt/xilinx/xrt"):
        kits["xrt"] = (xrt or {}).get("BUILD_VERSION")
        for lib in ("lib", "lib64"):
            if any(n.startswith("libxrt_driver_xdna.so") for n in ctx.listdir(f"opt/xilinx/xrt/{lib}")):
                kits["xrt_xdna_plugin"] = kits["xrt"]
    ov_dirs = sorted((d for d in ctx.listdir("opt/intel") if d.startswith("openvino")),
                     key=_version_key, reverse=True)
    if ov_dirs:
        m = re.search(r"(\d{4}\.\d+(?:\.\d+)?)", ov_dirs[0])
        kits["openvino"] = m.group(1) if m else kits.get("openvino")
    if ctx.exists("opt/aws/neuron/bin/neuron-ls") or ctx.is_dir("opt/aws/neuron/lib"):
        kits["neuron"] = None
    if ctx.is_dir("usr/lib/habanalabs") or ctx.exists("usr/bin/hl-smi"):
        kits.setdefault("synapseai", None)
    if ctx.is_dir("opt/qti-aic"):
        kits["qaic"] = None
    # Huawei Ascend: the NPU driver's version.info ("Version=24.1.rc2") and the CANN toolkit
    ascend = ctx.read_text("usr/local/Ascend/driver/version.info") or ""
    m = re.search(r"^[ \t]*+[Vv]ersion[ \t]*+=[ \t]*+(\S+)", ascend, re.M)
    if m or ctx.is_dir("usr/local/Ascend/driver"):
        kits["ascend_driver"] = m.group(1) if m else None
    if ctx.is_dir("usr/local/Ascend/ascend-toolkit"):
        kits["cann"] = None
    if ctx.is_dir("opt/intel/oneapi"):
        versions = [d for d in ctx.listdir("opt/intel/oneapi/compiler") if re.match(r"^\d", d)]
        kits["oneapi"] = max(versions, key=_version_key) if versions else None
    for base in ("tools/Xilinx/Vitis", "opt/Xilinx/Vitis", "opt/xilinx/Vitis"):
        versions = [d for d in ctx.listdir(base) if re.match(r"^\d{4}\.\d", d)]
        if versions:
            kits["vitis"] = max(versions, key=_version_key)
            break
    for site in _site_dirs(ctx):
        if ctx.is_dir(f"{site}/libtpu"):
            kits["libtpu"] = None
            break
    l4t = ctx.read_line("etc/nv_tegra_release")
    if l4t:
        # "# R36 (release), REVISION: 4.3, ...": in linear steps (R(\d+).*REVISION is quadratic)
        head, sep, tail = l4t.rpartition("REVISION:")
        release = re.search(r"R(\d++)", head) if sep else None
        revision = re.match(r"\s*+([\d.]++)", tail) if release else None
        kits["l4t"] = f"{release.group(1)}.{revision.group(1)}" if revision else None
    if any(ctx.is_dir(d) for d in ("opt/xilinx", "opt/rocm", "opt/intel", "usr/local/cuda",
                                   "usr/local/Ascend")):
        libs_recorded = True
    return dict(sorted(kits.items())), libs_recorded


# ---------------------------------------------------------------------------------------
# compilers (live only)
# ---------------------------------------------------------------------------------------

def _which(name: str, path: str) -> str | None:
    """shutil.which for a bare name on POSIX (shutil itself pulls in the compression
    modules, a few milliseconds of the headless probe's start-up)."""
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def compilers(ctx: ProbeContext, kits: dict) -> dict[str, str | None]:
    path = ctx.env.get("PATH", os.defpath)
    out: dict[str, str | None] = {}
    if os.name == "nt":
        import shutil

        which = shutil.which
    else:
        which = _which
    for name in COMPILERS:
        where = which(name, path=path)
        if not where:
            continue
        version = None
        if name == "nvcc":
            data = _json(ProbeContext(root="/"), os.path.join(
                os.path.dirname(os.path.dirname(os.path.realpath(where))), "version.json").lstrip("/"))
            version = ((data or {}).get("cuda") or {}).get("version") or kits.get("cuda_toolkit")
        elif name == "hipcc":
            version = kits.get("rocm")
        elif ctx.deep:
            version = _run_version(where)
        out[name] = version
    return out


def _run_version(exe: str) -> str | None:
    import subprocess

    try:
        res = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=3)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)", res.stdout or res.stderr or "")
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------
# back ends (--deep only)
# ---------------------------------------------------------------------------------------

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, value) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def identity_onnx_model() -> bytes:
    """A one-node ONNX model (float[1] -> Identity -> float[1]), serialised by hand so that
    confirming ONNX Runtime providers does not need the onnx package."""
    dim = _field(1, _field(1, 1))                               # TensorShapeProto.dim{dim_value:1}
    tensor_type = _field(1, 1) + _field(2, dim)                 # elem_type FLOAT, shape
    type_proto = _field(1, tensor_type)                         # TypeProto.tensor_type
    x = _field(1, "x") + _field(2, type_proto)
    y = _field(1, "y") + _field(2, type_proto)
    node = _field(1, "x") + _field(2, "y") + _field(4, "Identity")
    graph = _field(1, node) + _field(2, "g") + _field(11, x) + _field(12, y)
    opset = _field(1, "") + _field(2, 13)
    return _field(1, 7) + _field(8, opset) + _field(7, graph)   # ir_version 7


def _onnxruntime_providers(out: list, notes: list) -> None:
    try:
        import numpy as np
        import onnxruntime as ort
    except Exception as exc:  # noqa: BLE001
        notes.append(f"onnxruntime not usable: {type(exc).__name__}")
        return
    model = identity_onnx_model()
    for provider in ort.get_available_providers():
        try:
            options = ort.SessionOptions()
            options.log_severity_level = 4
            sess = ort.InferenceSession(model, options, providers=[provider])
            if sess.get_providers()[:1] != [provider]:
                continue
            sess.run(None, {"x": np.ones(1, dtype=np.float32)})
            out.append(f"onnxruntime:{provider}")
        except Exception:  # noqa: BLE001 - a provider that fails is simply not usable
            continue


def _openvino_devices(out: list, notes: list) -> None:
    try:
        import openvino as ov

        for dev in ov.Core().available_devices:
            out.append(f"openvino:{dev}")
    except Exception as exc:  # noqa: BLE001
        notes.append(f"openvino not usable: {type(exc).__name__}")


def _torch_devices(out: list, notes: list) -> None:
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        notes.append(f"torch not usable: {type(exc).__name__}")
        return
    try:
        if torch.cuda.is_available():
            out.append("torch:rocm" if getattr(torch.version, "hip", None) else "torch:cuda")
        if hasattr(torch, "xpu") and torch.xpu.is_available():
            out.append("torch:xpu")
        if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
            out.append("torch:mps")
    except Exception as exc:  # noqa: BLE001
        notes.append(f"torch device query failed: {type(exc).__name__}")


def providers(packages: dict, budget_s: float = 3.5) -> tuple[list[str], list[str]]:
    """Confirm back ends in a worker thread, giving up after ``budget_s`` seconds."""
    out: list[str] = []
    notes: list[str] = []
    checks = []
    if any(p.startswith("onnxruntime") for p in packages):
        checks.append(_onnxruntime_providers)
    if "openvino" in packages:
        checks.append(_openvino_devices)
    if "torch" in packages:
        checks.append(_torch_devices)

    def work():
        for check in checks:
            check(out, notes)

    worker = threading.Thread(target=work, name="software-deep", daemon=True)
    worker.start()
    worker.join(budget_s)
    if worker.is_alive():
        notes.append(f"back-end checks stopped after {budget_s:g} s")
    return list(out), notes


# ---------------------------------------------------------------------------------------

def probe(ctx: ProbeContext) -> dict:
    kits, libs_recorded = toolkits(ctx)
    envs = environments(ctx)
    software = {"packages": _union(envs), "toolkits": kits, "providers": [], "compilers": {},
                "packages_known": ctx.live, "environments": envs}
    meta = {"live": ctx.live, "libs_recorded": libs_recorded, "packages_known": ctx.live}
    if ctx.live:
        software["compilers"] = compilers(ctx, kits)
        if ctx.deep:
            found, notes = providers(software["packages"])
            found += [p for p in confirm_environments(envs) if p not in found]
            software["providers"] = found
            meta["provider_notes"] = notes
    return {"software": software, "software_meta": meta}


# ---------------------------------------------------------------------------------------
# --deep: confirm back ends with each environment's own interpreter
# ---------------------------------------------------------------------------------------

_CONFIRM = r"""
import json
out = []
try:
    import torch
    if torch.cuda.is_available():
        out.append("torch:rocm" if getattr(torch.version, "hip", None) else "torch:cuda")
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        out.append("torch:xpu")
except Exception:
    pass
try:
    import onnxruntime
    out += ["onnxruntime-listed:" + p for p in onnxruntime.get_available_providers()]
except Exception:
    pass
try:
    import openvino
    out += ["openvino:" + d for d in openvino.Core().available_devices]
except Exception:
    pass
try:
    import jax
    out += sorted({"jax:" + d.platform for d in jax.devices()})
except Exception:
    pass
print(json.dumps(out))
"""
_BACKENDS = ("torch", "onnxruntime", "onnxruntime-gpu", "openvino", "jax")


def _interpreter(env: dict) -> str | None:
    for rel in ("bin/python3", "bin/python", "python.exe"):
        exe = os.path.join(env["path"], rel)
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    return None


def confirm_environments(envs: list[dict], timeout_s: float = 20.0) -> list[str]:
    """Back ends each environment's own interpreter can use (``--deep``): a child process
    per environment that has torch, ONNX Runtime, OpenVINO or JAX, with a timeout. Entries
    read "torch:cuda@conda env 'ml'". Listed ONNX Runtime providers are not confirmed here."""
    import subprocess

    out: list[str] = []
    for env in envs:
        if env.get("accelgui") or not any(p in env["packages"] for p in _BACKENDS):
            continue
        exe = _interpreter(env)
        if exe is None:
            continue
        try:
            res = subprocess.run([exe, "-c", _CONFIRM], capture_output=True, text=True,
                                 timeout=timeout_s, stdin=subprocess.DEVNULL)
            found = json.loads(res.stdout.strip().splitlines()[-1]) if res.stdout.strip() else []
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            continue
        env["backends"] = [f for f in found if isinstance(f, str) and
                           not f.startswith("onnxruntime-listed:")]
        env["providers_listed"] = [f.split(":", 1)[1] for f in found if isinstance(f, str)
                                   and f.startswith("onnxruntime-listed:")]
        out += [f"{b}@{env['kind']}:{env['name']}" for b in env["backends"]]
    return out
