"""What can drive the accelerators: Python packages, toolkits, compilers, back ends.

* Packages are read from distribution metadata, never imported. Listing each ``sys.path``
  folder once and reading versions from the ``name-version.dist-info`` folder names costs
  well under a millisecond; asking ``importlib.metadata.version`` for some 70 names would
  scan every path entry 70 times. Under ``--sysroot`` the packages are unknown (``{}``):
  the interpreter running accelgui says nothing about another machine's tree.
* Toolkits (runtimes) come from files under the root, so they work for recorded trees too,
  recognised as ``data/runtimes.json`` says (this module interprets it; adding a runtime is
  adding an entry): CUDA's ``version.json``, ROCm's ``.info/version``, XRT's
  ``version.json``, libraries such as ``libcuda.so.1``, ``libedgetpu.so.1``,
  ``libze_intel_npu.so``, ``librknnrt.so``; the Windows and macOS names are in the same
  table. The Python distributions of interest are its ``python_packages``.
* Compilers on ``PATH`` are looked up only on the live system, without running them;
  ``--deep`` runs ``--version``.
* Back ends (``providers``) are only confirmed with ``--deep``: ONNX Runtime providers by
  running a one-node model on each, OpenVINO's ``available_devices``, torch's cuda/xpu/mps.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import sys
import threading

from accelgui.probes.context import ProbeContext

def runtime_table() -> dict:
    """The runtime recognisers (data/runtimes.json and the sites', ACCELGUI_DATA_DIRS)."""
    from accelgui.probes import datafiles

    return datafiles.load("runtimes.json")


def runtime_name(runtime_id: str) -> str | None:
    """The runtime table's name of a runtime ("cuda_toolkit" -> "the CUDA toolkit"), or None."""
    entry = (runtime_table().get("runtimes") or {}).get(runtime_id)
    name = entry.get("name") if isinstance(entry, dict) else None
    return str(name) if name else None


def python_packages() -> tuple[str, ...]:
    """The Python distributions of interest (runtimes.json ``python_packages``)."""
    return tuple(runtime_table().get("python_packages") or ())


_NORMALISE = re.compile(r"[-_.]+")
_SO_VERSION = re.compile(r"\.so\.(\d+\.\d+\.\d+(?:\.\d+)*)$")   # X.Y.Z, not a bare soname


def _norm(name: str) -> str:
    return _NORMALISE.sub("-", name).lower()


# ---------------------------------------------------------------------------------------
# packages
# ---------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def _wanted(names: tuple) -> dict[str, str]:
    return {_norm(n): n for n in names}


def installed_packages(names=None, path=None, read_metadata: bool = True) -> dict[str, str]:
    """{name: version} for the given distributions found on ``path`` (default sys.path).
    ``read_metadata``: ask importlib.metadata for a version the folder name lacks (only for
    this interpreter's own path). ``names`` default: :func:`python_packages`."""
    wanted = _wanted(tuple(python_packages() if names is None else names))
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


def environments(ctx: ProbeContext, names=None) -> list[dict]:
    """The Python environments a person has, each ``{name, path, kind, python_version,
    packages, accelgui}`` (packages: {name: version} of the packages of interest, read from
    dist-info folder names, never imported; ``accelgui``: accelgui itself is installed there,
    so its own dependencies are left out of ``packages``). Paths are as on the machine
    (absolute, also under --sysroot)."""
    seen: set = set()
    out: list[dict] = []
    wanted = tuple(python_packages() if names is None else names) + ("accelgui",)

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


def library_runtimes(names, os_name: str = "linux") -> dict[str, str | None]:
    """{runtime id: version or None} of the runtimes whose shared libraries (``libraries``
    recognisers of runtimes.json for ``os_name``) are among the file ``names``; the version
    from ``lib.so.X.Y.Z`` (the highest when several). A pure function: the Windows and macOS
    backends pass the names their listings hold."""
    prefixes: dict[str, list[str]] = {}
    for rid, spec in (runtime_table().get("runtimes") or {}).items():
        for rec in spec.get("detect") or ():
            for prefix in (rec.get("libraries") or {}).get(os_name) or ():
                prefixes.setdefault(prefix, []).append(rid)
    every = tuple(prefixes)
    found: dict[str, str | None] = {}
    for name in names:
        if not name.startswith(every):
            continue
        m = _SO_VERSION.search(name)
        version = m.group(1) if m else None
        for prefix in every:
            if not name.startswith(prefix):
                continue
            for rid in prefixes[prefix]:
                old = found.get(rid)
                if rid not in found or (version and (not old or _version_key(version) > _version_key(old))):
                    found[rid] = version
    return found


def _libraries(ctx: ProbeContext, os_name: str) -> tuple[dict[str, str | None], bool]:
    """Runtimes recognised by their libraries, and whether the tree holds libraries at all."""
    names: list[str] = []
    any_dir = False
    for rel in (runtime_table().get("lib_dirs") or {}).get(os_name) or ():
        listing = ctx.listdir(rel)
        if listing:
            any_dir = True
            names.extend(listing)
    return library_runtimes(names, os_name), any_dir


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


def _expand_bases(ctx: ProbeContext, patterns: list[str]) -> list[str]:
    """Base folders of a runtime: each pattern as written, or (a glob in its last part) the
    matching folders, the highest version first."""
    out: list[str] = []
    for pattern in patterns:
        parent, _, leaf = pattern.rpartition("/")
        if not any(c in leaf for c in "*?["):
            out.append(pattern)
            continue
        matches = (f"{parent}/{d}" for d in ctx.listdir(parent) if fnmatch.fnmatchcase(d, leaf))
        out.extend(sorted(matches, key=_version_key, reverse=True))
    return out


def _version_in(text: str, rec: dict) -> str | None:
    """The version ``rec["version_regex"]`` finds in ``text`` (its groups joined by dots, or
    the whole match); without a pattern the text itself; ``version_else: "line"`` keeps the
    text when the pattern finds nothing."""
    pattern = rec.get("version_regex")
    if pattern is None:
        return text.strip() or None
    m = re.search(pattern, text)
    if m is None:
        return (text.strip() or None) if rec.get("version_else") == "line" else None
    groups = [g for g in m.groups() if g is not None]
    return ".".join(groups) if groups else m.group(0)


def _json_version(data: dict, paths: list[str]):
    for path in paths:
        value = data
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if value:
            return value
    return None


def _listing_hit(ctx: ProbeContext, rec: dict, folder: str) -> tuple[bool, str | None]:
    listing = ctx.listdir(folder)
    if not listing:                 # no folder: no pattern to compile
        return False, None
    pattern = re.compile(rec["match"])
    hits = [(name, m) for name in listing for m in [pattern.search(name)] if m]
    if not hits:
        return False, None
    name, m = max(hits, key=lambda h: _version_key(h[0])) if rec.get("pick") == "max" else hits[0]
    if rec.get("version_regex"):
        return True, _version_in(name, rec)
    groups = [g for g in m.groups() if g is not None]
    return True, ".".join(groups) if groups else name


def _path_hit(ctx: ProbeContext, rec: dict, base: str, sub) -> tuple[bool, str | None]:
    if not (any(ctx.exists(sub(p)) for p in rec.get("exists") or ())
            or any(ctx.is_dir(sub(p)) for p in rec.get("dir") or ())):
        return False, None
    if not rec.get("version_regex"):
        return True, None
    where = base
    if rec.get("version_in") == "path_and_link":
        where = f"{base}/{ctx.readlink(base) or ''}"
    return True, _version_in(where, rec)


def _file_hit(ctx: ProbeContext, rec: dict, sub) -> tuple[bool, str | None]:
    if "json" in rec:
        data = _json(ctx, sub(rec["json"]))
        return (True, _json_version(data, rec.get("version") or [])) if data is not None else (False, None)
    text = ctx.read_line(sub(rec["line"])) if "line" in rec else ctx.read_text(sub(rec["text"]))
    if not text:
        return False, None
    return True, _version_in(text, rec)


def _recognise(ctx: ProbeContext, rec: dict, base: str, state: dict) -> tuple[bool, str | None]:
    """(found, version) of one recogniser of runtimes.json."""
    def sub(path: str) -> str:
        return path.replace("{base}", base)

    if "libraries" in rec:
        hit = state["rid"] in state["libs"] and any((rec["libraries"].get(state["os"]) or ()))
        found, version = hit, (state["libs"].get(state["rid"]) if hit else None)
    elif "json" in rec or "line" in rec or "text" in rec:
        found, version = _file_hit(ctx, rec, sub)
    elif "listing" in rec:
        found, version = _listing_hit(ctx, rec, sub(rec["listing"]))
    elif "site_dir" in rec:
        if state.get("sites") is None:
            state["sites"] = _site_dirs(ctx)
        found, version = any(ctx.is_dir(f"{s}/{rec['site_dir']}") for s in state["sites"]), None
    else:
        found, version = _path_hit(ctx, rec, base, sub)
    if found and "version_of" in rec:
        version = state["kits"].get(rec["version_of"])
    if rec.get("require_version") and not version:
        return False, None
    return found, version


def _runtime(ctx: ProbeContext, rid: str, spec: dict, state: dict) -> tuple[bool, str | None]:
    """Whether runtime ``rid`` is found, and its version: the first version a finding
    recogniser gives, over its bases in order."""
    state["rid"] = rid
    bases = _expand_bases(ctx, (spec.get("bases") or {}).get(state["os"]) or []) \
        if spec.get("bases") else [""]
    found = False
    for base in bases:
        for rec in spec.get("detect") or ():
            hit, version = _recognise(ctx, rec, base, state)
            if hit and version is not None:
                return True, version
            found = found or hit
    return found, None


def toolkits(ctx: ProbeContext, os_name: str = "linux") -> tuple[dict[str, str | None], bool]:
    """({runtime id: version or None} of every runtime of runtimes.json found under the root,
    whether the tree holds the folders runtimes live in at all)."""
    table = runtime_table()
    libs, libs_recorded = _libraries(ctx, os_name)
    state: dict = {"libs": libs, "os": os_name, "kits": {}, "sites": None}
    for rid, spec in (table.get("runtimes") or {}).items():
        found, version = _runtime(ctx, rid, spec, state)
        if found:
            state["kits"][rid] = version
    if any(ctx.is_dir(d) for d in table.get("recorded_dirs") or ()):
        libs_recorded = True
    return dict(sorted(state["kits"].items())), libs_recorded


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
    """{compiler: version or None} of the compilers of runtimes.json on PATH (live only, none
    run: a version from the toolkit beside it, or the runtime it belongs to; ``--deep`` runs
    ``--version`` of the others)."""
    path = ctx.env.get("PATH", os.defpath)
    out: dict[str, str | None] = {}
    if os.name == "nt":
        import shutil

        which = shutil.which
    else:
        which = _which
    for name, spec in (runtime_table().get("compilers") or {}).items():
        where = which(name, path=path)
        if not where:
            continue
        version = None
        if "version_json" in spec:          # beside the install: <prefix>/version.json
            prefix = os.path.dirname(os.path.dirname(os.path.realpath(where)))
            data = _json(ProbeContext(root="/"), os.path.join(prefix, spec["version_json"]).lstrip("/"))
            version = _json_version(data or {}, spec.get("version") or [])
        if not version and "version_of" in spec:
            version = kits.get(spec["version_of"])
        elif not version and ctx.deep:
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
    from accelgui.probes import datafiles

    datafiles.report_problems(ctx, "runtimes.json")
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
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        out.append("torch:mps")
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
