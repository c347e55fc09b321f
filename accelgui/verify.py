"""Run a learning step's machine check and keep the evidence (``accelgui --verify STEP``).

A step may carry ``check`` (format: knowledge/schema.json ``check``)::

    {"kind": "python", "code": "...", "packages": ["numpy"], "expect": {"regex": "ok"}}
    {"kind": "command", "argv": ["lscpu"], "expect": {"regex": "Architecture"}}
    {"kind": "file", "paths": ["~/.cache/**/model.onnx"]}
    ... plus "hardware": {"kind": "gpu", "vendor": ["nvidia", "amd"]}, "tools": ["gcc"]
    (executables the check needs on PATH) and "timeout_s": 60

The check runs in a child process: its own temporary working directory, stdin closed, a
timeout, an environment without proxy variables, and no network (``unshare -n`` when the kernel
allows it; the evidence records whether isolation was in force). ``python`` checks run in the
interpreter chosen (``--verify-python``, else the one running accelgui) and report the versions
of the packages they name. A check needs hardware this machine lacks -> status
``needs-hardware`` (nothing is run); a package or tool that is missing -> ``needs-software``.

Status values: verified, failed, timeout, needs-hardware, needs-software, no-check, error.
Verified evidence is stored with the learner progress (accelgui.progress.record_verified).
Running as root is the caller's decision (the CLI refuses without --allow-root, the app asks).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

from accelgui.l10n import msg

__all__ = ["STATUSES", "DEFAULT_TIMEOUT_S", "has_check", "hardware_missing", "run_check",
           "verify_step", "is_root"]

STATUSES = ("verified", "failed", "timeout", "needs-hardware", "needs-software", "no-check", "error")
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 600.0
EXCERPT_CHARS = 1200
_MARK = "ACCELGUI-VERSIONS "
_PROXY_VARS = ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy")
_unshare_ok: bool | None = None


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def has_check(step: dict | None) -> bool:
    return isinstance(step, dict) and isinstance(step.get("check"), dict)


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def hardware_missing(check: dict, report: dict | None) -> dict | None:
    """The hardware filter of ``check`` when no device of ``report`` matches it, else None.

    The filter names ``kind`` and optionally ``vendor`` / ``bus`` (one value or a list), read
    from the report's devices as the probe wrote them."""
    want = check.get("hardware")
    if not isinstance(want, dict) or not want:
        return None
    devices = [d for d in (report or {}).get("devices") or [] if isinstance(d, dict)]
    for dev in devices:
        if all(dev.get(key) in _as_list(val) for key, val in want.items()
               if key in ("kind", "vendor", "bus", "family")):
            return None
    return want


def _child_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k.lower() not in _PROXY_VARS and not k.startswith("ACCELGUI_")}
    env["no_proxy"] = env["NO_PROXY"] = "*"
    env.setdefault("LC_ALL", "C.UTF-8")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _isolation_prefix() -> list[str]:
    """["unshare", "-n"] (root) or ["unshare", "-rn"] (user namespace) when that works here."""
    global _unshare_ok
    tool = shutil.which("unshare")
    if not tool or not sys.platform.startswith("linux"):
        return []
    prefix = [tool, "-n"] if is_root() else [tool, "-rn"]
    if _unshare_ok is None:
        try:
            _unshare_ok = subprocess.run(prefix + ["true"], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         timeout=5).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _unshare_ok = False
    return prefix if _unshare_ok else []


def _python_program(check: dict) -> str:
    packages = [str(p) for p in _as_list(check.get("packages"))]
    return (
        "import sys, json\n"
        "import importlib.metadata as _md\n"
        "_v = {'python': sys.version.split()[0]}\n"
        f"for _p in {packages!r}:\n"
        "    try:\n"
        "        _v[_p] = _md.version(_p)\n"
        "    except _md.PackageNotFoundError:\n"
        "        _v[_p] = None\n"
        f"print({_MARK!r} + json.dumps(_v), flush=True)\n"
        "if None in _v.values():\n"
        "    sys.exit(3)\n"
        "del _v, _md\n"
        + str(check.get("code") or "")
    )


def _timeout(check: dict, override: float | None) -> float:
    value = override if override is not None else check.get("timeout_s", DEFAULT_TIMEOUT_S)
    try:
        value = float(value)
    except (TypeError, ValueError):
        value = DEFAULT_TIMEOUT_S
    return max(1.0, min(MAX_TIMEOUT_S, value))


def _excerpt(text: str, pattern: str | None = None) -> str:
    """The output's tail; with ``pattern``, the lines that matched it come first."""
    text = text.strip()
    if pattern:
        try:
            hits = [ln for ln in text.splitlines() if re.search(pattern, ln)][:10]
        except re.error:
            hits = []
        if hits and len(text) > EXCERPT_CHARS // 2:
            head = "\n".join(hits)
            return head + "\n...\n" + text[-(EXCERPT_CHARS // 2):]
    return text if len(text) <= EXCERPT_CHARS else "..." + text[-EXCERPT_CHARS:]


def _result(status: str, reason, **extra) -> dict:
    out = {"status": status, "reason_msg": reason,
           "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out.update(extra)
    return out


def run_check(check: dict, python: str | None = None, timeout_s: float | None = None,
              report: dict | None = None) -> dict:
    """Run one check. Returns {"status", "reason_msg", "date", "excerpt", "versions", ...}."""
    kind = check.get("kind")
    absent_tools = [str(x) for x in _as_list(check.get("tools")) if not shutil.which(str(x))]
    missing = hardware_missing(check, report)
    if missing is not None:
        return _result("needs-hardware", msg("knowledge.verify.needs_hardware",
                                             hardware=", ".join(f"{k}={'/'.join(map(str, _as_list(v)))}"
                                                                for k, v in missing.items())),
                       hardware=missing)
    if absent_tools:
        return _result("needs-software", msg("knowledge.verify.no_tool", tool=", ".join(absent_tools)))
    if kind == "file":
        found = []
        for pattern in _as_list(check.get("paths")):
            found += sorted(glob.glob(os.path.expanduser(str(pattern)), recursive=True))
        if found:
            return _result("verified", msg("knowledge.verify.file_found", path=found[0]),
                           excerpt="\n".join(found[:20]))
        return _result("failed", msg("knowledge.verify.file_missing",
                                     paths=", ".join(map(str, _as_list(check.get("paths"))))))
    if kind == "python":
        interpreter = python or sys.executable
        if not (os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)):
            return _result("error", msg("knowledge.verify.no_interpreter", path=interpreter))
        argv = [interpreter, "-c", _python_program(check)]
    elif kind == "command":
        argv = [str(a) for a in _as_list(check.get("argv"))]
        tool = shutil.which(argv[0]) if argv else None
        if not tool:
            return _result("needs-software", msg("knowledge.verify.no_tool",
                                                 tool=argv[0] if argv else "?"))
        argv[0] = tool
    else:
        return _result("error", msg("knowledge.verify.bad_check", kind=str(kind)))
    prefix = _isolation_prefix()
    limit = _timeout(check, timeout_s)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accelgui-verify-") as cwd:
        try:
            proc = subprocess.run(prefix + argv, cwd=cwd, env=_child_env(), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, encoding="utf-8",
                                  errors="replace", timeout=limit)
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
            return _result("timeout", msg("knowledge.verify.timeout", seconds=f"{limit:g}"),
                           excerpt=_excerpt(out), network_isolated=bool(prefix))
        except OSError as exc:
            return _result("error", msg("knowledge.verify.cannot_run", error=str(exc)))
    elapsed = round(time.monotonic() - started, 3)
    output = proc.stdout + (("\n" + proc.stderr) if proc.stderr.strip() else "")
    versions = {}
    lines = []
    for line in output.splitlines():
        if line.startswith(_MARK):
            try:
                versions = json.loads(line[len(_MARK):])
            except ValueError:
                pass
        else:
            lines.append(line)
    output = "\n".join(lines)
    expect = check.get("expect") if isinstance(check.get("expect"), dict) else {}
    pattern = expect.get("regex")
    common = {"excerpt": _excerpt(output, pattern), "versions": versions, "returncode": proc.returncode,
              "duration_s": elapsed, "network_isolated": bool(prefix),
              "interpreter": argv[0] if kind == "python" else None,
              "command": argv[0] if kind == "command" else None}
    absent = sorted(k for k, v in versions.items() if v is None)
    if kind == "python" and absent:
        return _result("needs-software", msg("knowledge.verify.no_package", packages=", ".join(absent)),
                       **common)
    want_rc = expect.get("returncode", 0)
    if proc.returncode != want_rc:
        return _result("failed", msg("knowledge.verify.exit_code", code=proc.returncode,
                                     expected=want_rc), **common)
    if pattern and not re.search(pattern, output, re.MULTILINE):
        return _result("failed", msg("knowledge.verify.no_match", pattern=pattern), **common)
    return _result("verified", msg("knowledge.verify.passed"), **common)


def verify_step(step_id: str, kb=None, python: str | None = None, timeout_s: float | None = None,
                report: dict | None = None, record: bool = True) -> dict:
    """Run the check of ``step_id``; store the evidence with the progress when verified."""
    if kb is None:
        from accelgui.knowledge import load_knowledge

        kb = load_knowledge()
    step = kb.step(step_id)
    if step is None:
        raise KeyError(step_id)
    if not has_check(step):
        return dict(_result("no-check", msg("knowledge.verify.no_check")), step=step_id)
    result = run_check(step["check"], python=python, timeout_s=timeout_s, report=report)
    result["step"] = step_id
    if record and result["status"] == "verified":
        from accelgui.progress import record_verified

        record_verified(step_id, {k: v for k, v in result.items() if k not in ("step", "reason_msg")})
    return result
