"""Run probes with a timeout each and their failures captured.

Every probe runs in its own daemon thread, all at once. A probe that raises becomes an
``error`` entry; one that has not finished by its deadline becomes ``timeout`` and is
abandoned (a daemon thread cannot keep the process alive), so the total wall time is
bounded by the longest timeout, whatever the probes do. The probes' work is bounded too:
every read goes through the ProbeContext, which caps file sizes and line lengths (every
pattern the probes apply is linear in its input), and a probe thread that reads past its
deadline is stopped at that read (``ProbeDeadline``), so an abandoned probe does not keep
spinning next to the ones still running.

Inputs a probe could not use (the context's faults: unreadable, not a regular file, a link
out of the tree, a loop, not parseable, out of range, truncated) become the probe's
``warnings``, and its status ``partial`` (docs/probe-warnings.md). Every fragment is cleaned
before it is merged (:func:`clean`): text without control characters or undecodable bytes,
bounded strings and lists, no NaN.
"""

from __future__ import annotations

import math
import re
import threading
import time

from accelgui.probes import Probe, finalize, merge
from accelgui.probes.context import ProbeContext, ProbeDeadline
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
        self.deadline: float | None = None
        self.timed_out = False
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
            with self.ctx.bound(self.probe.name, self.deadline):
                result = self.func(self.ctx)
            if not isinstance(result, dict):
                raise TypeError(f"probe returned {type(result).__name__}, not a fragment dict")
            self.fragment = result
        except ProbeDeadline:           # the runner reports it as timed out
            self.timed_out = True
        except BaseException as exc:  # noqa: BLE001 - a probe must never stop the report
            self.error = _describe(exc)
        finally:
            self.elapsed_ms = round((time.perf_counter() - start) * 1000, 2)


MAX_TEXT = 4096         # characters of one string taken from a probe
MAX_ITEMS = 10000       # entries of one list or object taken from a probe
_CONTROL = {c: None for c in (*range(0x20), *range(0x7f, 0xa0))}
_CONTROL.update({0x09: " ", 0x0a: " ", 0x0d: " "})


def clean_text(text: str) -> str:
    """Text fit for a report: undecodable bytes (surrogate escapes from non-UTF-8 file
    names) become U+FFFD, control characters go (tabs and newlines become spaces), and at
    most MAX_TEXT characters are kept."""
    if not text.isprintable():
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace") \
            if any("\ud800" <= ch <= "\udfff" for ch in text) else text
        text = text.translate(_CONTROL)
    return text[:MAX_TEXT]


def clean(value, depth: int = 0):
    """A fragment value made safe for the report (see clean_text); floats that are not
    finite become None, nesting deeper than 32 levels is cut."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth > 32:
        return None
    if isinstance(value, dict):
        return {clean_text(str(k)): clean(v, depth + 1)
                for k, v in list(value.items())[:MAX_ITEMS]}
    if isinstance(value, (list, tuple)):
        return [clean(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
    return clean_text(str(value))


def warnings_of(ctx: ProbeContext, name: str) -> list[dict]:
    """The probe's faults as report warnings: {path, reason, reason_msg}."""
    out = []
    for path, reason in ctx.faults(name):
        from accelgui.l10n import msg       # only when there is something to say
        path = clean_text(path)
        out.append({"path": path, "reason": reason,
                    "reason_msg": msg(f"safety.reason.{reason}", path=path)})
    return out


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
    if probes is None:
        from accelgui.probes.platforms import probes_for

        probes = probes_for(ctx)
    runs = [_Run(p, ctx) for p in probes]
    started = time.monotonic()
    for run in runs:
        run.deadline = started + (run.probe.timeout_s or timeout_s)
        run.start()
    fragments: dict[str, dict] = {}
    results: list[ProbeResult] = []
    for run in runs:
        limit = run.probe.timeout_s or timeout_s
        run.join(max(0.0, started + limit - time.monotonic()))
        name = run.probe.name
        if run.is_alive() or run.timed_out:
            results.append(ProbeResult(name, "timeout", round(limit * 1000, 2),
                                       f"no answer within {limit:g} s",
                                       warnings=warnings_of(ctx, name)))
            continue
        if run.error is None and run.fragment is not None:
            run.error = _validated(run.fragment)
        warnings = warnings_of(ctx, name)
        if run.error is not None:
            results.append(ProbeResult(name, "error", run.elapsed_ms, run.error, warnings=warnings))
            continue
        fragment = {k: v if k.startswith("_") else clean(v) for k, v in run.fragment.items()}
        fragments[name] = fragment
        status = fragment.get("_status", "ok")
        reason = fragment.get("_reason") if status != "ok" else None
        status = status if status in ("ok", "absent") else "ok"
        if warnings:            # found what it could, but some inputs could not be used
            status = "partial"
        results.append(ProbeResult(name, status, run.elapsed_ms,
                                   clean_text(reason) if isinstance(reason, str) else None,
                                   warnings=warnings))
    try:
        sections = finalize(fragments)
    except Exception as exc:  # noqa: BLE001 - keep what the probes found, without devices
        sections = merge(fragments)
        sections["devices"] = []        # raw fragments: not yet classified or deduplicated
        results.append(ProbeResult("finalize", "error", None, f"{type(exc).__name__}: {exc}"))
    # names looked up while finalizing (id databases) are cleaned too
    sections = {k: v if k.startswith("_") else clean(v) for k, v in sections.items()}
    results = _check_devices(sections.get("devices") or [], results)
    return assemble(sections, results, sysroot=ctx.root)


# patterns as strings: compiled (and cached by re) the first time a report has devices
_HEX_ID = r"[0-9a-f]{4}:[0-9a-f]{4}"
_VENDOR = r"[a-z0-9-]+"


def _check_devices(devices: list, results: list[ProbeResult]) -> list[ProbeResult]:
    """The last guard before the report: a device id or vendor that is not of the contract's
    form (ids read from a broken tree) becomes null, recorded against the device's bus probe."""
    extra: dict[str, list[dict]] = {}
    for i, dev in enumerate(devices):
        if not isinstance(dev, dict):
            continue
        for key, pattern in (("pci_id", _HEX_ID), ("usb_id", _HEX_ID), ("vendor", _VENDOR)):
            value = dev.get(key)
            if value is not None and not (isinstance(value, str) and re.fullmatch(pattern, value)):
                dev[key] = None
                path = f"devices[{i}].{key}"
                extra.setdefault(str(dev.get("bus") or ""), []).append(
                    {"path": path, "reason": "out-of-range",
                     "reason_msg": _msg("safety.reason.out-of-range", path=path)})
        if not (isinstance(dev.get("name"), str) and dev["name"].strip()):
            dev["name"] = "unknown device"
    if not extra:
        return results
    out = []
    for r in results:
        more = extra.pop(r.name, None)
        if more:
            r = r.replace(warnings=[*r.warnings, *more],
                          status="partial" if r.status in ("ok", "absent") else r.status)
        out.append(r)
    return out


def _msg(id_: str, **params) -> dict:
    from accelgui.l10n import msg

    return msg(id_, **params)
