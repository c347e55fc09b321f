"""Benchmark history: every completed benchmark run kept per machine, across restarts.

Qt-free and Numba-free. One JSON file per machine under the data dir that holds the other
state files of accelgui (``accelgui.progress.data_dir()``, ``$ACCELGUI_DATA_DIR`` overrides)::

    <data dir>/benchmark-history/<machine key>.json
        {"version": 1, "machine": "<key>",
         "runs": [{"when": "2026-12-02T00:40:00+00:00", "mode": "quick" | "full" | null,
                   "benchmarks": {... the report's benchmark section ...}}, ...]}   oldest first

* :func:`machine_key` names a machine by a hash of what describes its hardware (DMI vendor,
  product and board names, architecture, CPU model and topology, memory size class, the PCI
  ids of its devices). Those fields survive ``--redact``, so a shared report and the machine's
  own give the same key; host names, serial numbers, UUIDs and machine ids are never used
  and nothing but the hash is stored.
* :func:`record` appends one run (checked against the benchmark contract first) under an
  exclusive lock, keeps the last :data:`MAX_RUNS` runs, and stays below the state-file cap of
  :mod:`accelgui.atomic` by slimming the oldest runs (their cache sweep, telemetry and run
  environment go; the figures and their spreads stay). Build paths (``jit``) and the LLVM
  feature list are not stored.
* ``<key>.trend.json`` beside it keeps each run's headline medians (:func:`trend`): what the
  Benchmarks page plots, a few KiB where the full history may be a MiB; ``<key>.latest.json``
  the newest run alone (:func:`latest`, read at start). Both are rewritten by every record
  and removed rather than left stale when they cannot be; their readers fall back to the
  full history.
* :func:`runs`, :func:`latest_run` and :func:`latest` read it back; none ever raises for a
  bad file. :func:`latest` adds a notice with the run's date, so a face showing its figures
  after a restart says where they come from.

Files are read and written as the app's own state (``read_state_file`` /
``write_state_file``: never through a link, mode 0600, written whole). A file that cannot be
read as history gives no runs and one warning on stderr; the next :func:`record` first keeps
it beside itself as ``<key>.json.corrupt`` (or ``.corrupt.N``), so nothing is lost silently;
when no such name is free, the record is refused and the file left as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import stat
import sys

VERSION = 1
MAX_RUNS = 200
FOLDER = "benchmark-history"
#: the run parts dropped from older runs when a machine's file would pass the cap
SLIM_PARTS = ("environment", "telemetry", "memory_cap_limits", "stderr_tail")
SLIM_CPU_PARTS = ("cache_sweep",)
_BACKUP_NAMES = 10          # <key>.json.corrupt, then .corrupt.1 .. .corrupt.9
#: the figures kept in the trend file (their medians), GPUs per index
TREND_FIGURES = ("cpu.stream.triad_gbps", "cpu.fma.fp64_gflops_mt", "cpu.fma.fp64_gflops_1t",
                 "cpu.gemm.dgemm_gflops")
TREND_GPU_FIGURES = ("triad_gbps", "fp32_gflops")


class HistoryError(ValueError):
    """A history file that cannot be read as history (the message says why)."""


# --------------------------------------------------------------------------- machine key

def _part(report: dict, name: str) -> dict:
    value = report.get(name) if isinstance(report, dict) else None
    return value if isinstance(value, dict) else {}


def _memory_class(total) -> float | None:
    """The memory size in half-octaves (32 GiB and the 31.3 GiB a kernel reports alike)."""
    if not isinstance(total, (int, float)) or isinstance(total, bool) or total <= 0:
        return None
    return round(math.log2(total / 2 ** 30) * 2) / 2


def _pci_ids(report: dict) -> list[str]:
    devices = report.get("devices") if isinstance(report, dict) else None
    ids = [f"{d.get('kind')}:{d.get('pci_id')}" for d in devices or []
           if isinstance(d, dict) and isinstance(d.get("pci_id"), str) and d.get("pci_id")]
    return sorted(ids)


def machine_facts(report: dict) -> dict:
    """What :func:`machine_key` hashes: hardware descriptions only, all kept by ``--redact``."""
    plat, cpu = _part(report, "platform"), _part(report, "cpu")
    dmi = plat.get("dmi") if isinstance(plat.get("dmi"), dict) else {}
    return {
        "dmi": [dmi.get(k) for k in ("sys_vendor", "product_name", "board_vendor", "board_name")],
        "arch": plat.get("machine") or cpu.get("arch"),
        "cpu": [cpu.get(k) for k in ("vendor_id", "model_name", "sockets", "cores_per_socket",
                                     "threads_per_core", "logical_cpus")],
        "memory": _memory_class(_part(report, "memory").get("total_bytes")),
        "pci": _pci_ids(report),
    }


def machine_key(report: dict) -> str:
    """A stable id of the machine ``report`` describes: 16 hex digits of a SHA-256 over
    :func:`machine_facts`. The same for a report and its ``--redact`` copy."""
    from accelgui.report import report_dict

    report = report_dict(report)
    text = json.dumps(machine_facts(report), sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- files

def history_dir() -> str:
    from accelgui.progress import data_dir

    return os.path.join(data_dir(), FOLDER)


def history_path(key: str, path: str | None = None) -> str:
    """The file of machine ``key``: ``path`` itself when given (tests, other stores)."""
    if path is not None:
        return os.path.abspath(os.path.expanduser(path))
    if not isinstance(key, str) or not key.isalnum():
        raise ValueError(f"not a machine key: {key!r}")
    return os.path.join(history_dir(), f"{key}.json")


def _parse(raw: bytes, key: str) -> list[dict]:
    """The runs in ``raw``; HistoryError naming what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HistoryError(f"not UTF-8 text ({exc.reason})") from exc
    data = _parse_lines(text)
    if data is None:                    # another layout (an older file, one edited by hand)
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise HistoryError(f"not valid JSON ({getattr(exc, 'msg', 'nested too deep')})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise HistoryError("expected an object with a list of runs")
    if data.get("machine") not in (None, key):
        raise HistoryError(f"it holds the runs of machine {data.get('machine')!r}, not {key!r}")
    return [r for r in data["runs"] if isinstance(r, dict) and isinstance(r.get("benchmarks"), dict)]


def _parse_lines(text: str) -> dict | None:
    """The document :func:`_payload` writes (its head, one run per line, the close), decoded a
    run at a time; None when ``text`` is not laid out so. One ``json.loads`` of a 2 MiB file
    holds the interpreter for 10-20 ms, and the app's event loop waits that long for it."""
    lines = text.split("\n")
    if len(lines) < 3 or lines[-1] != "" or lines[-2] != "]}" or not lines[0].endswith('"runs":['):
        return None
    try:
        data = json.loads(lines[0] + "]}")
        body = lines[1:-2]
        runs = [json.loads(line[:-1] if i < len(body) - 1 else line) for i, line in enumerate(body)]
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("runs") != [] \
            or any(not line.endswith(",") for line in body[:-1]):
        return None
    data["runs"] = runs
    return data


def _load(path: str, key: str) -> list[dict]:
    """The runs stored at ``path`` ([] when there is no file). UnsafeFileError for a file never
    to touch; HistoryError (with ``raw``, the bytes, when they could be read) for one that is
    not history."""
    from accelgui.atomic import UnsafeFileError, read_state_file

    raw = None
    try:
        raw = read_state_file(path)
        return _parse(raw, key) if raw is not None else []
    except UnsafeFileError:
        raise
    except HistoryError as exc:
        exc.raw = raw
        raise
    except OSError as exc:
        raise HistoryError(f"cannot read: {exc.strerror or exc}") from exc


def _warn(path: str, why: str) -> None:
    sys.stderr.write(f"accelgui: warning: ignoring the benchmark history in {path}: {why}; the "
                     "next recorded run keeps it beside itself as .corrupt (or .corrupt.N)\n")


def runs(key: str, *, path: str | None = None) -> list[dict]:
    """Every stored run of machine ``key``, oldest first: {when, mode, benchmarks}. No runs
    (and one warning on stderr) for a file that cannot be read as history."""
    file = history_path(key, path)
    try:
        found = _load(file, key)
    except (HistoryError, OSError) as exc:
        _warn(file, str(exc))
        return []
    return found


def latest_path(key: str, path: str | None = None) -> str:
    """The small file beside the history with its newest run alone (what the app reads at
    start: a JSON parse of the whole history holds the interpreter for up to 0.1 s)."""
    full = history_path(key, path)
    return (full[:-5] if full.endswith(".json") else full) + ".latest.json"


def latest_run(key: str, *, path: str | None = None) -> dict | None:
    """The newest stored run of machine ``key`` ({when, mode, benchmarks}), or None: from
    the latest-run file, else from the full history."""
    from accelgui.atomic import read_state_file

    try:
        raw = read_state_file(latest_path(key, path))
        data = json.loads(raw.decode("utf-8")) if raw is not None else None
    except (OSError, ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and data.get("machine") == key and isinstance(data.get("run"), dict) \
            and isinstance(data["run"].get("benchmarks"), dict):
        return data["run"]
    found = runs(key, path=path)
    return found[-1] if found else None


def latest(key: str, *, path: str | None = None) -> dict | None:
    """The newest stored benchmark section of machine ``key``, or None when none is stored.

    It carries one more notice (``figures.notice.from_history``, with the run's date and
    mode), so every face that shows its figures says they come from an earlier run."""
    newest = latest_run(key, path=path)
    if newest is None:
        return None
    from accelgui.l10n import msg

    section = dict(newest["benchmarks"])
    mode = newest.get("mode") if newest.get("mode") in ("quick", "full") else "unknown"
    note = msg("figures.notice.from_history", date=str(newest.get("when") or "?")[:10],
               mode=msg(f"figures.mode.{mode}"))
    section["notices"] = [n for n in section.get("notices") or [] if n != note] + [note]
    return section


# --------------------------------------------------------------------------- trend

def trend_path(key: str, path: str | None = None) -> str:
    """The small file beside the history with each run's headline figures (what the app's
    trend plot reads: a page redrawn after a run must not parse 200 full runs)."""
    full = history_path(key, path)
    return (full[:-5] if full.endswith(".json") else full) + ".trend.json"


def trend_entry(run: dict) -> dict:
    """{when, mode, figures: {dotted path: median}} of one stored run: the medians
    (``benchmarks.quantity``) of :data:`TREND_FIGURES` and of each GPU's
    :data:`TREND_GPU_FIGURES`."""
    from accelgui import benchmarks

    b = run["benchmarks"]              # stored after its check: read as it is, not checked again
    paths = list(TREND_FIGURES) + [f"gpu.{e.get('index')}.{fig}" for e in benchmarks.checked_gpu_devices(b)
                                   for fig in TREND_GPU_FIGURES]
    figures = {}
    for p in paths:
        q = benchmarks.quantity(b, p)
        if q:
            figures[p] = q["value"]
    return {"when": run.get("when"), "mode": run.get("mode"), "figures": figures}


def trend(key: str, *, path: str | None = None) -> list[dict]:
    """Each stored run's headline figures (:func:`trend_entry`), oldest first, from the trend
    file; rebuilt from the full history (and written again) when that file is missing or
    unreadable."""
    from accelgui.atomic import read_state_file

    try:
        raw = read_state_file(trend_path(key, path))
        data = json.loads(raw.decode("utf-8")) if raw is not None else None
    except (OSError, ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and data.get("machine") == key and isinstance(data.get("runs"), list):
        return [r for r in data["runs"] if isinstance(r, dict) and isinstance(r.get("figures"), dict)]
    stored = runs(key, path=path)
    entries = [trend_entry(r) for r in stored]
    if stored and data is None:      # no file: written once, unless a record wrote it meanwhile
        from accelgui.atomic import create_new_file

        body = {"version": VERSION, "machine": key, "runs": entries}
        with contextlib.suppress(OSError):
            create_new_file(trend_path(key, path), (json.dumps(body, separators=(",", ":")) + "\n").encode())
    return entries


def _trend_body(key: str, kept: list[dict]) -> dict:
    return {"version": VERSION, "machine": key, "runs": [trend_entry(r) for r in kept]}


def _write_beside(file: str, body) -> None:
    """Write ``body()`` (a shortcut derived from the history) to ``file``; when it cannot be
    written it is removed, never left stale (its reader falls back to the full history)."""
    from accelgui.atomic import write_state_file

    try:
        write_state_file(file, json.dumps(body(), ensure_ascii=False, separators=(",", ":")) + "\n")
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(file)


# --------------------------------------------------------------------------- record

def _stored_section(section: dict) -> dict:
    """The section as stored: checked against the contract (BenchmarkError otherwise), the
    build paths (``jit``) and the LLVM feature list left out."""
    from accelgui import benchmarks

    checked = benchmarks.check(section)
    checked.pop("jit", None)
    checked["notices"] = [n for n in checked.get("notices") or []
                          if not (isinstance(n, dict) and n.get("id") == "figures.notice.from_history")]
    env = checked.get("environment")
    if isinstance(env, dict):
        env.pop("llvm_cpu_features", None)
    return checked


def _slim(run: dict) -> dict:
    """``run`` without the parts people do not compare across runs (see SLIM_PARTS)."""
    b = {k: v for k, v in run["benchmarks"].items() if k not in SLIM_PARTS}
    if isinstance(b.get("cpu"), dict):
        b["cpu"] = {k: v for k, v in b["cpu"].items() if k not in SLIM_CPU_PARTS}
    return dict(run, benchmarks=b, slim=True)


def _payload(key: str, kept: list[dict]) -> bytes:
    """The history file: one JSON document with one run per line (:func:`_parse_lines`), each
    run encoded by a call of its own, so that no single call holds the interpreter long."""
    head = json.dumps({"version": VERSION, "machine": key, "runs": []}, ensure_ascii=False,
                      separators=(",", ":"))[:-2] + "\n"
    runs = ",\n".join(json.dumps(run, ensure_ascii=False, separators=(",", ":")) for run in kept)
    return (head + runs + ("\n" if kept else "") + "]}\n").encode("utf-8")


def _fit(key: str, kept: list[dict], cap: int) -> bytes:
    """The file's bytes for ``kept`` below ``cap``: the oldest runs slimmed first, then the
    oldest dropped (the newest run always stays)."""
    data = _payload(key, kept)
    i = 0
    while len(data) > cap and i < len(kept) - 1:
        if not kept[i].get("slim"):
            kept[i] = _slim(kept[i])
        i += 1
        if i % 10 == 0 or i == len(kept) - 1:
            data = _payload(key, kept)
    while len(data) > cap and len(kept) > 1:
        del kept[: max(1, len(kept) // 10)]
        data = _payload(key, kept)
    return data


def _keep_aside(path: str, raw: bytes | None) -> None:
    """Save an unreadable history beside itself under a new name (never overwriting)."""
    from accelgui.atomic import UnsafeFileError, create_new_file

    if raw is None:
        raise UnsafeFileError(f"{path} cannot be read, so no copy of it can be kept; the run "
                              "was not recorded. Fix its permissions or move it away")
    for n in range(_BACKUP_NAMES):
        name = f"{path}.corrupt" + (f".{n}" if n else "")
        try:
            create_new_file(name, raw)
            return
        except FileExistsError:
            continue
    raise UnsafeFileError(f"{path} is not readable as history and {path}.corrupt .. .corrupt."
                          f"{_BACKUP_NAMES - 1} are all taken; the run was not recorded. Remove "
                          "the copies you do not need")


def _lock(path: str):
    """An open file holding an exclusive lock on ``path``.lock (None where there is no flock)."""
    try:
        import fcntl
    except ImportError:
        return None
    from accelgui.atomic import UnsafeFileError, check_state_target

    lock = path + ".lock"
    check_state_target(lock)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0), 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):      # swapped in after the check
        os.close(fd)
        raise UnsafeFileError(f"{lock} is not a regular file; the run was not recorded")
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def record(report: dict, benchmarks: dict, *, path: str | None = None, when: str | None = None) -> dict:
    """Append one run of ``benchmarks`` (the report's benchmark section) to the history of
    the machine ``report`` describes; returns the stored entry {when, mode, benchmarks}.

    ``when``: the run's date (ISO 8601; now, in UTC, by default). Raises BenchmarkError (a
    ValueError) for a section off the contract, UnsafeFileError / WriteError (OSError) when
    the file cannot be written; the stored history is unchanged then."""
    from accelgui.atomic import STATE_FILE_MAX_BYTES, write_state_file
    from accelgui.model import iso_now

    key = machine_key(report)
    section = _stored_section(benchmarks)
    mode = section.get("mode") if section.get("mode") in ("quick", "full") else None
    entry = {"when": when or iso_now(utc=True), "mode": mode, "benchmarks": section}
    file = history_path(key, path)
    os.makedirs(os.path.dirname(file), mode=0o700, exist_ok=True)
    fd = _lock(file)
    try:
        try:
            kept = _load(file, key)
        except HistoryError as exc:
            _warn(file, str(exc))
            _keep_aside(file, getattr(exc, "raw", None))
            kept = []
        kept = (kept + [entry])[-MAX_RUNS:]
        data = _fit(key, kept, STATE_FILE_MAX_BYTES)
        write_state_file(file, data)
        _write_beside(trend_path(key, path), lambda: _trend_body(key, kept))   # kept as _fit left it
        _write_beside(latest_path(key, path), lambda: {"version": VERSION, "machine": key, "run": entry})
    finally:
        if fd is not None:
            os.close(fd)
    return entry
