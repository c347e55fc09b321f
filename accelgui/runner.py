"""Run probes with a timeout each and their failures captured.

Every probe runs in its own daemon thread, all at once. A probe that raises becomes an
``error`` entry; one that has not finished by its deadline becomes ``timeout`` and is
abandoned (a daemon thread cannot keep the process alive), so the total wall time is
bounded by the longest timeout, whatever the probes do.
"""

from __future__ import annotations

import threading
import time

from accelgui.probes import PROBES, Probe, finalize, merge
from accelgui.probes.context import ProbeContext
from accelgui.report import ProbeResult, Report, assemble

DEFAULT_TIMEOUT_S = 5.0


def _describe(exc: BaseException) -> str:
    import traceback

    frame = traceback.extract_tb(exc.__traceback__)[-1:] or None
    where = f" ({frame[0].filename.rsplit('/', 1)[-1]}:{frame[0].lineno})" if frame else ""
    return f"{type(exc).__name__}: {exc}{where}"


class _Run(threading.Thread):
    def __init__(self, probe: Probe, ctx: ProbeContext):
        super().__init__(name=f"probe-{probe.name}", daemon=True)
        self.probe, self.ctx = probe, ctx
        self.fragment: dict | None = None
        self.error: str | None = None
        self.elapsed_ms: float | None = None
        # Import the probe's module here, in the caller's thread: ten threads importing at
        # once contend for the import locks and the GIL (a third of the probes' wall time).
        # Probe modules import native libraries inside the probe, never at import time.
        try:
            self.func = probe.load()
        except Exception as exc:  # noqa: BLE001 - reported as this probe's error
            self.func, self.error = None, _describe(exc)

    def run(self):
        if self.func is None:
            return
        start = time.perf_counter()
        try:
            result = self.func(self.ctx)
            if not isinstance(result, dict):
                raise TypeError(f"probe returned {type(result).__name__}, not a fragment dict")
            self.fragment = result
        except BaseException as exc:  # noqa: BLE001 - a probe must never stop the report
            self.error = _describe(exc)
        finally:
            self.elapsed_ms = round((time.perf_counter() - start) * 1000, 2)


def _validated(fragment: dict) -> str | None:
    """Why a fragment cannot be merged, or None. Guards against a probe returning garbage."""
    shapes = {"platform": dict, "cpu": dict, "memory": dict, "software": dict, "devices": list}
    for key, kind in shapes.items():
        if key in fragment and fragment[key] is not None and not isinstance(fragment[key], kind):
            return f"probe returned {key} as {type(fragment[key]).__name__}, expected {kind.__name__}"
    for dev in fragment.get("devices") or []:
        if not isinstance(dev, dict):
            return "probe returned a device that is not an object"
    return None


def run_probes(ctx: ProbeContext, timeout_s: float = DEFAULT_TIMEOUT_S,
               probes: list[Probe] | None = None) -> Report:
    runs = [_Run(p, ctx) for p in (PROBES if probes is None else probes)]
    started = time.monotonic()
    for run in runs:
        run.start()
    fragments: dict[str, dict] = {}
    results: list[ProbeResult] = []
    for run in runs:
        limit = run.probe.timeout_s or timeout_s
        run.join(max(0.0, started + limit - time.monotonic()))
        name = run.probe.name
        if run.is_alive():
            results.append(ProbeResult(name, "timeout", round(limit * 1000, 2),
                                       f"no answer within {limit:g} s"))
            continue
        if run.error is None and run.fragment is not None:
            run.error = _validated(run.fragment)
        if run.error is not None:
            results.append(ProbeResult(name, "error", run.elapsed_ms, run.error))
            continue
        fragment = run.fragment
        fragments[name] = fragment
        status = fragment.get("_status", "ok")
        reason = fragment.get("_reason") if status != "ok" else None
        results.append(ProbeResult(name, status if status in ("ok", "absent") else "ok",
                                   run.elapsed_ms, reason))
    try:
        sections = finalize(fragments)
    except Exception as exc:  # noqa: BLE001 - keep what the probes found, without devices
        sections = merge(fragments)
        sections["devices"] = []        # raw fragments: not yet classified or deduplicated
        results.append(ProbeResult("finalize", "error", None, f"{type(exc).__name__}: {exc}"))
    return assemble(sections, results, sysroot=ctx.root)
