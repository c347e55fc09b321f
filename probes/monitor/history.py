"""Bounded sample history and what happened during each benchmark stage.

:class:`History` is a ring buffer of samples (oldest dropped) with stage marks;
:func:`stage_telemetry` summarises the samples of each stage into the report's
``benchmarks.telemetry`` shape and says when a clock fell or a throttle reason appeared.
:class:`StageWatch` samples in a thread of its own while a benchmark runs (or is handed the
samples of a sampler its caller runs anyway, as the app's monitor does) and is fed the
child's progress events (the client's ``on_progress``), so any caller (CLI, app) gets it.
"""

from __future__ import annotations

import collections
import json
import threading
import time
import zlib

from accelgui.l10n import msg
from accelgui.probes.monitor.telemetry import DEVICE_FIELDS

#: a stage whose clock fell below this fraction of its highest reading is reported
CLOCK_DROP = 0.9


class History:
    """The last ``capacity`` samples, each kept as zlib-compressed compact JSON (about 1 KB
    for a machine with 8 GPUs instead of ~14 KB of Python objects), and the stage marks."""

    def __init__(self, capacity: int = 3600, marks: int = 256):
        self.samples: collections.deque = collections.deque(maxlen=capacity)
        self.marks: collections.deque = collections.deque(maxlen=marks)
        self.lock = threading.Lock()

    def add(self, sample: dict) -> None:
        packed = zlib.compress(json.dumps(sample, separators=(",", ":")).encode("utf-8"), 1)
        with self.lock:
            self.samples.append(packed)

    def __len__(self) -> int:
        return len(self.samples)

    def mark(self, name: str, mono_s: float | None = None) -> None:
        """A stage starts now (``mono_s``); the previous one ends."""
        now = time.monotonic() if mono_s is None else mono_s
        with self.lock:
            if self.marks and self.marks[-1]["end_mono_s"] is None:
                self.marks[-1]["end_mono_s"] = now
            if name:
                self.marks.append({"name": name, "start_mono_s": now, "end_mono_s": None})

    def end_marks(self, mono_s: float | None = None) -> None:
        self.mark("", mono_s)

    def snapshot(self) -> tuple[list, list]:
        """(samples, marks), decoded copies."""
        with self.lock:
            packed, marks = list(self.samples), [dict(m) for m in self.marks]
        return [json.loads(zlib.decompress(p)) for p in packed], marks

    def clear(self) -> None:
        with self.lock:
            self.samples.clear()
            self.marks.clear()


def _stats(values) -> list | None:
    values = [v for v in values if v is not None]
    return values or None


def stage_telemetry(samples: list[dict], marks: list[dict], origin_s: float | None = None) -> dict:
    """``{"stages": [...], "notices": [messages]}`` for the stages in ``marks`` (times are
    seconds from ``origin_s``, the first mark's start by default)."""
    if not marks:
        return {"stages": [], "notices": []}
    origin = marks[0]["start_mono_s"] if origin_s is None else origin_s
    stages, notices = [], []
    for mark in marks:
        end = mark["end_mono_s"] if mark["end_mono_s"] is not None else float("inf")
        inside = [s for s in samples if mark["start_mono_s"] <= s["mono_s"] <= end]
        freqs = _stats(s["cpu"].get("freq_mhz_mean") for s in inside)
        temps = _stats(s["cpu"].get("temp_c_max") for s in inside)     # the CPU package, as power
        power = _stats(s["cpu"].get("package_power_w") for s in inside)
        throttle = _throttle(inside)
        stage = {"name": mark["name"],
                 "start_s": round(mark["start_mono_s"] - origin, 3),
                 "end_s": None if mark["end_mono_s"] is None else round(mark["end_mono_s"] - origin, 3),
                 "cpu_mhz_min": min(freqs) if freqs else None,
                 "cpu_mhz_max": max(freqs) if freqs else None,
                 "cpu_mhz_mean": round(sum(freqs) / len(freqs), 1) if freqs else None,
                 "temp_c_max": max(temps) if temps else None,
                 "power_w_mean": round(sum(power) / len(power), 1) if power else None,
                 "throttle": throttle}
        stages.append(stage)
        notice = _notice(stage, freqs, throttle)
        if notice:
            notices.append(notice)
    return {"stages": stages, "notices": notices}


def _throttle(inside: list[dict]) -> list[str]:
    """Throttle reasons seen during a stage: the CPU's thermal throttle counter rising, and
    each device's reasons (benign ones such as idle left out, per the family data)."""
    from accelgui.probes.monitor.telemetry import family_telemetry

    benign = set((family_telemetry("nvidia-gpu") or {}).get("benign_throttle", []))
    reasons = []
    counts = [s["cpu"].get("thermal_throttle_total") for s in inside]
    counts = [c for c in counts if c is not None]
    if len(counts) > 1 and counts[-1] > counts[0]:
        reasons.append("cpu_thermal")
    for s in inside:
        for dev in s["devices"]:
            for reason in dev.get("throttle") or []:
                name = f"{dev['family']}:{reason}"
                if reason not in benign and name not in reasons:
                    reasons.append(name)
    return reasons


def _notice(stage: dict, freqs, throttle: list[str]):
    from accelgui.probes.monitor.telemetry import family_telemetry

    thermal = set((family_telemetry("nvidia-gpu") or {}).get("thermal_throttle", []))
    is_thermal = any(r == "cpu_thermal" or r.split(":")[-1] in thermal for r in throttle)
    reason = msg("monitor.reason.thermal") if is_thermal else (
        msg("monitor.reason.power") if any("power" in r for r in throttle) else msg("monitor.reason.unknown"))
    if freqs and len(freqs) > 1:
        peak = max(freqs)
        low = min(freqs[freqs.index(peak):])
        if low < CLOCK_DROP * peak:
            return msg("monitor.notice.clock_fell", stage=stage["name"], from_ghz=f"{peak / 1000:.1f}",
                       to_ghz=f"{low / 1000:.1f}", reason=reason)
    if throttle:
        return msg("monitor.notice.throttled", stage=stage["name"], reasons=", ".join(throttle), reason=reason)
    return None


class StageWatch:
    """Samples every ``interval_s`` in a background thread while a benchmark runs.

        watch = StageWatch()
        run_benchmarks(mode, on_progress=watch.wrap(on_progress))
        result["telemetry"] = watch.finish()
    """

    def __init__(self, sampler=None, interval_s: float = 0.5, capacity: int = 7200):
        self._sampler = sampler
        self.interval_s = interval_s
        self.history = History(capacity=capacity)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._current: str | None = None
        self._origin = time.monotonic()

    def start(self, sampling: bool = True) -> StageWatch:
        """Begin recording. With ``sampling`` a thread of its own samples every ``interval_s``;
        without, the caller hands it the samples it takes anyway (:meth:`add`), so that a
        process that already samples (the app's monitor) does not sample twice."""
        if not sampling:
            return self
        if self._sampler is None:
            from accelgui.probes.monitor import Sampler

            self._sampler = Sampler(processes=False)
        self._thread = threading.Thread(target=self._run, daemon=True, name="bench-telemetry")
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.history.add(self._sampler.sample())
            except Exception:  # noqa: BLE001 - telemetry must never disturb the benchmark
                return
            self._stop.wait(self.interval_s)

    def add(self, sample: dict) -> None:
        """A sample taken by the caller (see :meth:`start`)."""
        self.history.add(sample)

    @property
    def stage(self) -> str | None:
        return self._current

    def progress(self, event: dict) -> None:
        stage = str(event.get("stage") or "")
        if stage and stage != self._current and stage != "done":
            self._current = stage
            self.history.mark(stage)

    def wrap(self, on_progress):
        """``on_progress`` with the stage marks taken first (a callback that raises is
        dropped, as the client drops a broken one)."""
        user = [on_progress]

        def both(event):
            self.progress(event)
            if user[0] is not None:
                try:
                    user[0](event)
                except Exception:  # noqa: BLE001 - a broken progress view must not stop the run
                    user[0] = None
        return both

    def finish(self) -> dict:
        self.history.end_marks()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        if self._sampler is not None:
            self._sampler.close()
        samples, marks = self.history.snapshot()
        return stage_telemetry(samples, marks, origin_s=self._origin)


#: the columns of a flattened sample (one row per CPU / memory / device)
#: the columns of a flat row (CSV export, the page's table): who, then the sampler's device
#: fields (telemetry.DEVICE_FIELDS) but the device's clock ceiling, a constant, not a reading
ROW_FIELDS = ("t", "id", "family", "name", "address") + tuple(f for f in DEVICE_FIELDS if f != "max_clock_mhz")


def flat_rows(sample: dict) -> list[dict]:
    """A sample as rows with the same columns (``ROW_FIELDS``): the CPU (its mean clock,
    hottest package sensor, package power), memory, then each device."""
    cpu, mem = sample["cpu"], sample["memory"]
    rows = [{"id": "cpu", "family": "cpu", "name": "cpu", "util_pct": cpu.get("util_pct"),
             "temp_c": cpu.get("temp_c_max"), "power_w": cpu.get("package_power_w"),
             "clock_mhz": cpu.get("freq_mhz_mean")},
            {"id": "memory", "family": "memory", "name": "memory", "memory_used_bytes": mem.get("used_bytes"),
             "memory_total_bytes": mem.get("total_bytes"),
             "util_pct": None if not mem.get("total_bytes") or mem.get("used_bytes") is None
             else round(100.0 * mem["used_bytes"] / mem["total_bytes"], 1)}]
    rows += sample["devices"]
    return [{k: (sample["t"] if k == "t" else row.get(k)) for k in ROW_FIELDS} for row in rows]


def to_csv(samples: list[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=ROW_FIELDS, lineterminator="\n")
    writer.writeheader()
    for s in samples:
        writer.writerows(flat_rows(s))
    return buf.getvalue()


def to_json(samples: list[dict], marks: list[dict]) -> str:
    return json.dumps({"samples": samples, "stages": marks}, indent=1) + "\n"
