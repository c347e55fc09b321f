"""Run a learning step's machine check and keep the evidence (``accelgui --verify STEP``).

A step may carry ``check`` (format: knowledge/schema.json ``check``)::

    {"kind": "python", "code": "...", "packages": ["numpy"], "expect": {"regex": "ok"}}
    {"kind": "command", "argv": ["lscpu"], "expect": {"regex": "Architecture"}}
    {"kind": "file", "paths": ["~/.cache/**/model.onnx"]}
    ... plus "hardware": {"kind": "gpu", "vendor": ["nvidia", "amd"]}, "tools": ["gcc"]
    (executables the check needs on PATH) and "timeout_s": 60

A check is code: it runs on this machine with the user's rights. Which file it came from is
part of every result (``check_file``; ``check_override`` is true when that file is in an
override folder, not the shipped knowledge).

The check runs in a child process, contained:

- its own session and process group (``start_new_session``), under a small reaper process
  (``PR_SET_CHILD_SUBREAPER``) that adopts whatever the check leaves behind, ``setsid``
  children and double forks included; when the check ends or times out, everything below the
  reaper is killed (SIGTERM to the group, SIGKILL after :data:`KILL_GRACE_S`), so neither a
  background child, nor a child in a new session, nor one that ignores SIGTERM lives on. Without
  the reaper (not Linux, or a frozen build) the process group is still killed, but a child that
  called ``setsid`` escapes it; on Windows only the check's own process is killed;
- its output read incrementally from the pipes: the first and last :data:`HEAD_BYTES` /
  :data:`TAIL_BYTES` of each stream are kept, the rest is counted and discarded
  (``output_cut``, ``output_bytes``), so a check that prints gigabytes costs no memory;
- an environment reduced to :data:`ENV_ALLOW` (and ``LC_*``), plus ``VIRTUAL_ENV`` /
  ``CONDA_PREFIX`` of the chosen interpreter: tokens and cloud keys never reach it;
- its own temporary working directory, stdin closed, a timeout, no proxies, and no network
  (``unshare -n`` when the kernel allows it; the evidence records whether isolation was in force).

``python`` checks run in the interpreter chosen (``--verify-python``, else the one running
accelgui) and report the versions of the packages they name. A check needs hardware this machine
lacks -> status ``needs-hardware`` (nothing is run); a package or tool that is missing ->
``needs-software``.

Results are redacted as ``--redact`` redacts a report (host names, user names and home paths,
serials, UUIDs, addresses; accelgui.redact) and scrubbed of anything shaped like a token or key
(:data:`_TOKENS`, and the values of secret-named variables of accelgui's own environment) before
they are shown or stored.

A check says what a pass proves (``proves``, :func:`proves`): ``environment`` (the default: the
tools of the step work here) or ``work`` (the learner's own artefact passed). :func:`run_check`
returns ``verified`` for a pass; :func:`verify_step` turns it into ``ready`` ("ready to start")
or ``done`` ("done: your work passed"), and grades the step's exercise instead when it has one
and the learner's workspace exists (accelgui.exercises.verify_step, through :func:`run_program`:
the same containment). Other status values: failed, timeout, needs-hardware, needs-software, no-check,
no-workspace, error. Evidence of ``ready`` and ``done`` is stored with the learner progress
(accelgui.progress.record_verified); only ``done`` marks the step done (docs/exercises.md).
Running as root is the caller's decision (the CLI refuses without --allow-root, the app asks).
"""

from __future__ import annotations

import glob
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

from accelgui.l10n import msg

__all__ = ["STATUSES", "DEFAULT_TIMEOUT_S", "ENV_ALLOW", "PROVES", "has_check", "hardware_missing", "run_check",
           "run_program", "excerpt", "proves", "verify_step", "keep_evidence", "check_source", "is_root", "redacted"]

#: run_check: "verified" when the check passed; verify_step turns it into "ready" (an environment
#: check) or "done" (a work check, or an exercise graded: accelgui.exercises).
STATUSES = ("verified", "ready", "done", "failed", "timeout", "needs-hardware", "needs-software",
            "no-check", "no-workspace", "error")
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 600.0
EXCERPT_CHARS = 1200
_MARK = "ACCELGUI-VERSIONS "
#: Seconds a check (and what it started) gets between SIGTERM and SIGKILL.
KILL_GRACE_S = 2.0
#: Bytes kept of each output stream: its start and its end; the middle is counted and dropped.
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024
_READ_BYTES = 64 * 1024
#: The environment a check gets: these names (when set), every ``LC_*``, and the chosen
#: interpreter's VIRTUAL_ENV / CONDA_PREFIX. Nothing else: no tokens, keys, proxies.
ENV_ALLOW = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
    "LD_LIBRARY_PATH", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
    # which accelerator a check may use, and where its toolkit lives
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCM_PATH",
    "ONEAPI_DEVICE_SELECTOR", "ZE_AFFINITY_MASK",
)
_ENV_ALLOW_PREFIXES = ("LC_",)
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|"
                          r"AUTH|SESSION_KEY|COOKIE", re.I)
_TOKENS = [
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
     "<private-key>"),
    # NAME=value / NAME: value where the name says secret (GITHUB_TOKEN=..., "password": "...")
    (re.compile(r"(?i)([\w.-]*(?:token|secret|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|"
                r"private[_-]?key|credential|auth)[\w.-]*[\"']?\s*[:=]\s*[\"']?)([^\s\"',;]{4,})"),
     r"\1<token>"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 <token>"),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|"
                r"xox[abposr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|"
                r"(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})\b"), "<token>"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "<token>"),
    (re.compile(r"(?i)(://[^/\s:@]+:)[^/\s@]+@"), r"\1<token>@"),
    # long runs of key-like characters mixing capitals, small letters and digits (not paths,
    # not hex digests)
    (re.compile(r"(?<![A-Za-z0-9+/_=-])(?=[A-Za-z0-9+_=-]*[0-9])(?=[A-Za-z0-9+_=-]*[a-z])"
                r"(?=[A-Za-z0-9+_=-]*[A-Z])[A-Za-z0-9+_=-]{32,}(?![A-Za-z0-9+/_=-])"), "<token>"),
]
_PROXY_VARS = ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy")
_unshare_ok: bool | None = None

# The reaper: the session leader of a check. It becomes a child subreaper (orphans of the
# check are re-parented to it, setsid ones included), runs the check, and when the check exits
# or the reaper gets SIGTERM (timeout), kills everything below it: SIGTERM, then SIGKILL after
# the grace period. PR_SET_PDEATHSIG: if accelgui dies, the reaper gets SIGTERM and cleans up.
_REAPER = r"""
import os, signal, sys, time
class Term(Exception):
    pass
def on_term(*_):
    raise Term()
def below():
    me, kids = os.getpid(), {}
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name, 'rb') as fh:
                    fields = fh.read().rpartition(b')')[2].split()
            except OSError:
                continue
            kids.setdefault(int(fields[1]), []).append((int(name), fields[0]))
    out, todo = [], [me]
    while todo:
        for pid, state in kids.get(todo.pop(), ()):
            todo.append(pid)
            if state not in (b'Z', b'X'):
                out.append(pid)
    return out
def reap(main, codes):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == main:
            codes.append(status)
def sweep(sig, main, codes, until):
    while True:
        pids = below()
        if not pids:
            reap(main, codes)
            return
        if time.monotonic() >= until:
            sig = signal.SIGKILL
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        time.sleep(0.02)
        reap(main, codes)
def main():
    grace, argv = float(sys.argv[1]), sys.argv[2:]
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)
    except Exception:
        pass
    for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGPIPE, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)   # an ignored SIGCHLD is inherited: reaping would fail
    signal.signal(signal.SIGTERM, on_term)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execv(argv[0], argv)
        except OSError as exc:
            os.write(2, ('cannot run %s: %s\n' % (argv[0], exc)).encode())
        os._exit(127)
    codes = []
    try:
        while not codes:
            try:
                got, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if got == pid:
                codes.append(status)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sweep(signal.SIGKILL, pid, codes, 0)
    except Term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sweep(signal.SIGTERM, pid, codes, time.monotonic() + grace)
        os._exit(143)
    code = os.waitstatus_to_exitcode(codes[0]) if codes else 127
    os._exit(code if code >= 0 else 128 - code)
main()
"""


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


def _prefix_of(interpreter: str | None) -> tuple[str | None, str | None]:
    """(VIRTUAL_ENV, CONDA_PREFIX) of the environment ``interpreter`` belongs to."""
    if not interpreter:
        return None, None
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(interpreter)))
    if os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        return prefix, None
    if os.path.isdir(os.path.join(prefix, "conda-meta")):
        return None, prefix
    return None, None


def _child_env(interpreter: str | None = None, on_path: bool = False) -> dict:
    """The environment of a check: :data:`ENV_ALLOW` and ``LC_*`` only, no proxies; the
    chosen interpreter's environment (its ``bin`` first on PATH when ``on_path``)."""
    env = {k: v for k, v in os.environ.items()
           if k in ENV_ALLOW or k.startswith(_ENV_ALLOW_PREFIXES)}
    env["no_proxy"] = env["NO_PROXY"] = "*"
    env.setdefault("LC_ALL", "C.UTF-8")
    env.setdefault("PATH", os.defpath)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    venv, conda = _prefix_of(interpreter)
    for name, value in (("VIRTUAL_ENV", venv), ("CONDA_PREFIX", conda)):
        if value:
            env[name] = value
            if on_path:
                env["PATH"] = os.path.join(value, "bin") + os.pathsep + env["PATH"]
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


class _Bounded:
    """The first ``head`` and last ``tail`` bytes of a stream; the rest counted, not kept."""

    def __init__(self, head: int | None = None, tail: int | None = None):
        self.head_cap = HEAD_BYTES if head is None else head
        self.tail_cap = TAIL_BYTES if tail is None else tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            extra = len(self.tail) - self.tail_cap
            if extra > 0:
                del self.tail[:extra]

    @property
    def cut(self) -> int:
        """Bytes dropped between the head and the tail."""
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.cut:
            return head + tail
        return f"{head}\n[... {self.cut} bytes of output cut ...]\n{tail}"


def _reaper_argv() -> list[str]:
    """The reaper's command line (empty where it cannot run: not Linux, or a frozen build
    whose executable is not a Python interpreter)."""
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False) or not sys.executable:
        return []
    return [sys.executable, "-I", "-S", "-c", _REAPER, f"{KILL_GRACE_S:g}"]


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _run_plain(argv: list[str], cwd: str, env: dict, limit: float) -> tuple[int | None, _Bounded, _Bounded]:
    """Not POSIX (Windows): pipes read by two threads into bounded buffers; on timeout only
    the check's own process is killed (a job object would be needed for its children)."""
    import threading

    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = _Bounded(), _Bounded()

    def pump(stream, buf):
        for chunk in iter(lambda: stream.read1(_READ_BYTES), b""):
            buf.add(chunk)

    pumps = [threading.Thread(target=pump, args=pair, daemon=True)
             for pair in ((proc.stdout, out), (proc.stderr, err))]
    for t in pumps:
        t.start()
    try:
        proc.wait(timeout=limit)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for t in pumps:
        t.join(1.0)
    return (None if timed_out else proc.returncode), out, err


def _run_contained(argv: list[str], cwd: str, env: dict, limit: float) -> tuple[int | None, _Bounded, _Bounded]:
    """Run ``argv`` in its own session under the reaper; (returncode or None on timeout,
    stdout, stderr). Everything the check started is gone when this returns."""
    if os.name != "posix":
        return _run_plain(argv, cwd, env, limit)
    proc = subprocess.Popen(_reaper_argv() + argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    out, err = _Bounded(), _Bounded()
    sel = selectors.DefaultSelector()
    for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ, buf)
    deadline = time.monotonic() + limit
    drain_until = None         # the check exited but something still holds its pipes
    timed_out = False
    finished = False
    try:
        while sel.get_map():
            now = time.monotonic()
            if drain_until is None and proc.poll() is not None:
                _signal_group(proc.pid, signal.SIGKILL)      # leftovers of the group
                drain_until = now + 1.0
            stop = drain_until if drain_until is not None else deadline
            if now >= stop:
                timed_out = drain_until is None
                break
            for key, _ in sel.select(min(stop - now, 0.2)):
                try:
                    chunk = os.read(key.fd, _READ_BYTES)
                except BlockingIOError:
                    continue
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fileobj)
        if not timed_out:       # pipes closed: the check exits now, or closed them and runs on
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out:
            _signal_group(proc.pid, signal.SIGTERM)
            try:            # the reaper itself sends SIGKILL after the grace period
                proc.wait(timeout=KILL_GRACE_S + 1.0)
            except subprocess.TimeoutExpired:
                pass
        _signal_group(proc.pid, signal.SIGKILL)
        proc.wait()
        finished = True
    finally:
        if not finished:        # Ctrl-C or an error here: the check does not outlive us
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=KILL_GRACE_S + 1.0)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
    return (None if timed_out else proc.returncode), out, err


def _joined(out: _Bounded, err: _Bounded) -> str:
    stderr = err.text()
    return out.text() + (("\n" + stderr) if stderr.strip() else "")


def _contained(argv: list[str], cwd: str, limit: float, interpreter: str | None,
               on_path: bool = True) -> tuple[int | None, _Bounded, _Bounded, bool]:
    """Run ``argv`` contained (see the module's docstring) in ``cwd``: (returncode or None on
    timeout, stdout, stderr, whether network isolation was in force)."""
    prefix = _isolation_prefix()
    env = _child_env(interpreter, on_path=on_path)
    returncode, out, err = _run_contained(prefix + argv, cwd, env, limit)
    return returncode, out, err, bool(prefix)


def run_program(argv: list[str], cwd: str, limit: float, interpreter: str | None = None
                ) -> tuple[int | None, str, bool]:
    """Run ``argv`` as a check runs (contained, bounded, reduced environment, no network):
    (returncode or None on timeout, its output scrubbed of tokens, network isolated). For
    exercise graders (accelgui.exercises), whose verdict comes back in a file, not the output."""
    returncode, out, err, isolated = _contained(argv, cwd, _timeout({}, limit), interpreter)
    return returncode, _scrub_tokens(_joined(out, err)), isolated


def excerpt(text: str) -> str:
    """The tail of a program's output, as a check's result quotes it."""
    return _excerpt(text)


def _secret_values() -> list[str]:
    """Values of accelgui's own secret-named environment variables (scrubbed from output,
    though the check never receives them: it may read them from elsewhere)."""
    return sorted({v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8},
                  key=len, reverse=True)


def _scrub_tokens(text: str) -> str:
    for value in _secret_values():
        text = text.replace(value, "<token>")
    for pattern, repl in _TOKENS:
        text = pattern.sub(repl, text)
    return text


def redacted(result: dict, report: dict | None, fields=("excerpt", "interpreter", "command")) -> dict:
    """``result`` with ``fields`` and ``versions`` scrubbed of tokens and redacted as
    ``--redact`` redacts a report."""
    from accelgui import redact

    hostname = ((report or {}).get("platform") or {}).get("hostname") or socket.gethostname()
    users = redact._local_users()
    part = {k: _scrub_tokens(result[k]) for k in fields if isinstance(result.get(k), str)}
    if result.get("versions"):
        part["packages"] = {str(k): _scrub_tokens(str(v)) if v is not None else None
                            for k, v in result["versions"].items()}
    for key in ("reason_msg", "checks", "targets"):     # nested: scrubbed as JSON text
        if isinstance(result.get(key), (dict, list)):
            part[key] = json.loads(_scrub_tokens(json.dumps(result[key], ensure_ascii=False)))
    clean = redact.redact_data(part, hostname=hostname, users=users)
    out = dict(result)
    out.update({k: v for k, v in clean.items() if k != "packages"})
    if "packages" in clean:
        out["versions"] = clean["packages"]
    return out


def _result(status: str, reason, **extra) -> dict:
    out = {"status": status, "reason_msg": reason,
           "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out.update(extra)
    return out


def run_check(check: dict, python: str | None = None, timeout_s: float | None = None,
              report: dict | None = None) -> dict:
    """Run one check. Returns {"status", "reason_msg", "date", "excerpt", "versions",
    "output_cut", "output_bytes", ...}, redacted (see the module's docstring)."""
    return redacted(_run_check(check, python, timeout_s, report), report)


def _run_check(check: dict, python: str | None, timeout_s: float | None, report: dict | None) -> dict:
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
    limit = _timeout(check, timeout_s)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accelgui-verify-") as cwd:
        try:
            returncode, out, err, isolated = _contained(argv, cwd, limit, python or sys.executable,
                                                        on_path=kind == "python")
        except OSError as exc:
            return _result("error", msg("knowledge.verify.cannot_run", error=str(exc)))
    elapsed = round(time.monotonic() - started, 3)
    output = _joined(out, err)
    cut = {"output_cut": bool(out.cut or err.cut), "output_bytes": out.total + err.total}
    if returncode is None:
        return _result("timeout", msg("knowledge.verify.timeout", seconds=f"{limit:g}"),
                       excerpt=_excerpt(output), network_isolated=isolated, **cut)
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
    common = {"excerpt": _excerpt(output, pattern), "versions": versions, "returncode": returncode,
              "duration_s": elapsed, "network_isolated": isolated, **cut,
              "interpreter": argv[0] if kind == "python" else None,
              "command": argv[0] if kind == "command" else None}
    absent = sorted(k for k, v in versions.items() if v is None)
    if kind == "python" and absent:
        return _result("needs-software", msg("knowledge.verify.no_package", packages=", ".join(absent)),
                       **common)
    want_rc = expect.get("returncode", 0)
    if returncode != want_rc:
        return _result("failed", msg("knowledge.verify.exit_code", code=returncode,
                                     expected=want_rc), **common)
    if pattern and not re.search(pattern, output, re.MULTILINE):
        return _result("failed", msg("knowledge.verify.no_match", pattern=pattern), **common)
    return _result("verified", msg("knowledge.verify.passed"), **common)


def check_source(kb, step_id: str) -> dict:
    """Where the check of ``step_id`` comes from: {"check_file": path, "check_override": bool}.
    A route of an override folder (``--knowledge DIR``) is ``check_override: true``."""
    step = kb.step(step_id) or {}
    route = step.get("route") or step_id.split(".", 1)[0]
    origin = (getattr(kb, "origins", None) or {}).get(route, "shipped")
    if origin != "shipped":
        return {"check_file": os.fspath(origin), "check_override": True}
    try:
        from importlib.resources import files

        path = str(files("accelgui.knowledge").joinpath("routes", f"{route}.json"))
    except (ImportError, OSError, TypeError, ValueError):
        path = f"accelgui/knowledge/routes/{route}.json"
    return {"check_file": path, "check_override": False}


PROVES = ("environment", "work")


def proves(check: dict | None) -> str:
    """What a passed ``check`` proves: ``"work"`` (the learner's own artefact passed) or
    ``"environment"`` (the tools this step needs work here; the default)."""
    value = (check or {}).get("proves")
    return value if value in PROVES else "environment"


def verify_step(step_id: str, kb=None, python: str | None = None, timeout_s: float | None = None,
                report: dict | None = None, record: bool = True) -> dict:
    """Run the check of ``step_id``: status ``ready`` for an environment check that passed,
    ``done`` for a work check (accelgui.exercises.verify_step grades a step's exercise first,
    when the learner has one). Evidence of a pass is stored with the progress (:func:`keep_evidence`)."""
    if kb is None:
        from accelgui.knowledge import load_knowledge

        kb = load_knowledge()
    step = kb.step(step_id)
    if step is None:
        raise KeyError(step_id)
    source = check_source(kb, step_id)
    if not has_check(step):
        return dict(_result("no-check", msg("knowledge.verify.no_check")), step=step_id, **source)
    result = run_check(step["check"], python=python, timeout_s=timeout_s, report=report)
    result.update(source, step=step_id, proves=proves(step["check"]))
    if result["status"] == "verified":
        result["status"] = "done" if result["proves"] == "work" else "ready"
    if record:
        keep_evidence(step_id, result, report)
    return result


def keep_evidence(step_id: str, result: dict, report: dict | None = None) -> None:
    """Store ``result`` with the learner progress when it is ``ready`` or ``done`` (redacted,
    the check's file too; only ``done`` marks the step done)."""
    if result.get("status") not in ("ready", "done"):
        return
    from accelgui.progress import record_verified

    evidence = redacted(result, report, fields=("check_file",))
    record_verified(step_id, {k: v for k, v in evidence.items() if k not in ("step", "reason_msg")})
