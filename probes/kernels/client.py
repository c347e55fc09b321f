"""Parent side of the benchmark runner: start the child, read its JSON lines, cancel it.

Never imports Numba: the child (``python -m accelgui.probes.kernels``) does, so JIT
compilation, a crash or a cancel cannot take the caller (CLI or GUI) down.

    run_benchmarks("quick", on_progress=print, cancel=threading.Event(), timeout_s=120)
      -> the report's "benchmarks" dict, or {"error": "..."} when the child crashed,
         was cancelled ({"error": ..., "cancelled": True}) or timed out.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Callable

from accelgui.probes.kernels import MODES

#: how long a child may run before it is stopped, per mode (generous: cold JIT cache,
#: a busy machine)
DEFAULT_TIMEOUT_S = {"test": 120.0, "quick": 120.0, "full": 900.0}
#: after SIGTERM, how long to wait before SIGKILL
KILL_GRACE_S = 1.0
STDERR_TAIL_LINES = 12


def benchmark_command(mode: str, mem_cap_bytes: int | None = None, gpu: bool = True,
                      watch_stdin: bool = False) -> list[str]:
    """argv of the benchmark child for ``mode`` ("quick", "full" or "test")."""
    if mode not in MODES:
        raise ValueError(f"unknown benchmark mode {mode!r} (one of {', '.join(MODES)})")
    if getattr(sys, "frozen", False):   # a PyInstaller bundle: the executable runs the child
        argv = [sys.executable, "--bench-child", "--mode", mode]
    else:
        argv = [sys.executable, "-m", "accelgui.probes.kernels", "--mode", mode]
    if mem_cap_bytes is not None:
        argv += ["--mem-cap-bytes", str(int(mem_cap_bytes))]
    if not gpu:
        argv.append("--no-gpu")
    if watch_stdin:
        argv.append("--watch-stdin")
    return argv


def parse_line(line: str | bytes) -> dict | None:
    """One protocol line -> dict with a known "type", or None for anything else."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("type") not in ("progress", "result", "error"):
        return None
    if obj["type"] == "progress":
        try:
            obj["fraction"] = max(0.0, min(1.0, float(obj.get("fraction") or 0.0)))
        except (TypeError, ValueError):
            obj["fraction"] = 0.0
        obj.setdefault("stage", "")
        obj.setdefault("message", "")
        if not isinstance(obj.get("partial"), dict):
            obj["partial"] = {}
    elif obj["type"] == "result" and not isinstance(obj.get("benchmarks"), dict):
        return None
    return obj


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "did not exit"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def run_benchmarks(mode: str, on_progress: Callable[[dict], None] | None = None,
                   cancel: threading.Event | None = None, timeout_s: float | None = None,
                   mem_cap_bytes: int | None = None, gpu: bool = True,
                   env: dict | None = None) -> dict:
    """Run the benchmark child and return the report's ``benchmarks`` object.

    ``on_progress`` is called from this thread with each progress event (``stage``,
    ``fraction`` in 0..1, never decreasing, ``message``, ``partial``). Setting ``cancel``
    stops the child (SIGTERM, then SIGKILL after 1 s). Failures never raise: they come
    back as ``{"error": "..."}``.
    """
    argv = benchmark_command(mode, mem_cap_bytes=mem_cap_bytes, gpu=gpu, watch_stdin=True)
    limit = DEFAULT_TIMEOUT_S.get(mode, 300.0) if timeout_s is None else float(timeout_s)
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=child_env, close_fds=True,
                                start_new_session=True)
    except OSError as exc:
        return {"error": f"benchmark process could not start: {exc}"}

    lines: queue.Queue = queue.Queue()
    tail: collections.deque = collections.deque(maxlen=200)

    def pump_stdout():
        try:
            for raw in proc.stdout:
                lines.put(raw)
        finally:
            lines.put(None)

    def pump_stderr():
        for raw in proc.stderr:
            tail.append(raw.decode("utf-8", errors="replace").rstrip())

    readers = [threading.Thread(target=pump_stdout, daemon=True, name="bench-stdout"),
               threading.Thread(target=pump_stderr, daemon=True, name="bench-stderr")]
    for t in readers:
        t.start()

    # clocks, temperature and power during each stage -> benchmarks.telemetry (the monitor's)
    from accelgui.probes.monitor.history import StageWatch

    watch = StageWatch().start()
    try:
        result = _collect(proc, lines, tail, readers, watch.wrap(on_progress), cancel, started, limit)
    except BaseException:  # KeyboardInterrupt in the caller: never leave the child running
        _stop(proc)
        raise
    finally:
        telemetry = watch.finish()
    if "error" not in result:
        result.setdefault("telemetry", telemetry)
    return result


def _collect(proc, lines, tail, readers, on_progress, cancel, started, limit) -> dict:
    result = error = None
    last_fraction = 0.0
    stopped_why = None
    eof = False
    while not eof:
        if cancel is not None and cancel.is_set():
            stopped_why = "cancelled"
            break
        if time.monotonic() - started > limit:
            stopped_why = "timeout"
            break
        try:
            raw = lines.get(timeout=0.05)
        except queue.Empty:
            continue
        if raw is None:
            eof = True
            break
        msg = parse_line(raw)
        if msg is None:
            continue
        if msg["type"] == "progress":
            msg["fraction"] = last_fraction = max(last_fraction, msg["fraction"])
            if on_progress is not None:
                try:
                    on_progress(msg)
                except Exception:  # noqa: BLE001 - a broken progress view must not stop the run
                    on_progress = None
        elif msg["type"] == "result":
            result = msg["benchmarks"]
        else:
            error = str(msg.get("message") or "benchmark failed")

    if stopped_why:
        _stop(proc)
    else:
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            _stop(proc)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            stream.close()
        except Exception:  # noqa: BLE001
            pass
    for t in readers:
        t.join(timeout=1.0)
    elapsed = round(time.monotonic() - started, 3)

    if stopped_why == "cancelled":
        return {"error": "benchmark cancelled", "cancelled": True, "elapsed_s": elapsed}
    if stopped_why == "timeout":
        return {"error": f"benchmark timed out after {limit:g} s", "timed_out": True,
                "elapsed_s": elapsed}
    if result is not None:
        if on_progress is not None and last_fraction < 1.0:
            try:
                on_progress({"type": "progress", "stage": "done", "fraction": 1.0,
                             "message": "done", "partial": {}})
            except Exception:  # noqa: BLE001
                pass
        return result
    stderr_tail = [ln for ln in tail if ln.strip()][-STDERR_TAIL_LINES:]
    if error is not None:
        return {"error": f"benchmark failed: {error}", "stderr_tail": stderr_tail}
    detail = "; ".join(stderr_tail[-4:]) or "no output"
    return {"error": f"benchmark process crashed ({_describe_exit(proc.returncode)}): {detail}",
            "stderr_tail": stderr_tail}


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after KILL_GRACE_S; waits for the child to be gone."""
    if proc.poll() is not None:
        return
    try:
        proc.terminate()
    except OSError:
        return
    try:
        proc.wait(timeout=KILL_GRACE_S)
        return
    except subprocess.TimeoutExpired:
        pass
    try:
        proc.kill()
    except OSError:
        return
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass
