"""The live monitor's sampler: one cheap sample of the CPU, memory and every accelerator.

    sampler = Sampler(ProbeContext())          # or a recorded tree, or nvml=<fake module>
    sample = sampler.sample()                  # a plain dict, units in the names, null = unknown
    sampler.close()

A sample is ``{"t": unix s, "mono_s": monotonic s, "interval_s", "cpu": {...},
"memory": {...}, "devices": [{"id", "family", "name", "address", "pci_bus_id" (DCGM's form, null when not
PCI), "index" and "uuid" (NVML's, null elsewhere), <DEVICE_FIELDS>..., "throttle",
"processes", "engines_pct"}]}``; ``cpu["per_cpu_seconds"]`` is each CPU's time in each mode of
/proc/stat since boot (seconds, counters). Rates (utilisation from /proc/stat, power from
energy counters, busy counters, DRM engine ns) are computed between consecutive samples of
one sampler, so the first sample has them null. Devices are discovered on every sample: one
unplugged between two samples is simply absent from the next; a counter that went backwards
(driver reload) gives null once, then rates again. Qt-free and Numba-free.

Each source (``cpu``, ``memory``, ``nvml``, ``sysfs``, ``fdinfo``) is sampled in a worker
thread of its own under a deadline (``deadline_s``, wall clock) and guarded: a source that
raises or runs past the deadline is reported in ``sample["sources"][name]`` (``ok`` false, the
``error``, the consecutive ``failures``), its last good values are kept for the next
``DROP_AFTER - 1`` samples and dropped from the ``DROP_AFTER``-th failed sample on (null /
empty, as on a machine without that source), while the other sources keep coming. A source
still running from an earlier sample (NVML on a wedged GPU) is not called a second time until
that call returns. No value in a sample is NaN or infinite (null instead), so
``json.dumps(sample, allow_nan=False)`` always works.
"""

from __future__ import annotations

import copy
import math
import threading
import time

from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor import fdinfo, host, telemetry
from accelgui.probes.monitor.nvidia import NvmlSource, dcgm_bus_id
from accelgui.probes.monitor.telemetry import DEVICE_FIELDS, family_telemetry

__all__ = ["DEFAULT_DEADLINE_S", "DEVICE_FIELDS", "DROP_AFTER", "Sampler", "family_telemetry"]

#: how often the open files of every process are listed again to find DRM/accel clients
#: (between listings only the fdinfo of the files already found is read again)
FD_RESCAN_S = 5.0
#: how long one source may take in one sample (seconds) before it is reported as timed out
DEFAULT_DEADLINE_S = 2.0
#: consecutive failed samples of a source after which its series are dropped (before that its
#: last good values are repeated, marked failed in ``sample["sources"]``)
DROP_AFTER = 3


def empty_cpu() -> dict:
    """The CPU record of a sample when its source is dropped: every value unknown."""
    return {"util_pct": None, "per_cpu_util_pct": [], "per_cpu_freq_mhz": [], "per_cpu_seconds": [],
            "freq_mhz_mean": None, "freq_mhz_max": None, "load_1m": None, "load_5m": None, "load_15m": None,
            "ctx_switches_total": None, "ctx_switches_per_s": None, "thermal_throttle_total": None,
            "temp_c_max": None, "package_power_w": None, "rapl": [], "temps": [], "fans": []}


def empty_memory() -> dict:
    return {"total_bytes": None, "available_bytes": None, "used_bytes": None, "swap_total_bytes": None,
            "swap_used_bytes": None, "numa_nodes": None}


_EMPTY = {"cpu": empty_cpu, "memory": empty_memory, "nvml": list, "sysfs": list, "fdinfo": dict}


def finite(value):
    """``value`` with every NaN, infinity and float-overflowing integer replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, bool) or not isinstance(value, (int, dict, list, tuple)):
        return value
    if isinstance(value, int):
        return value if -(1 << 1000) < value < (1 << 1000) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    return [finite(v) for v in value]


class Source:
    """One source of a sample, called in a worker thread under a deadline (see the module
    docstring). ``status()`` is what ``sample["sources"][name]`` shows."""

    def __init__(self, name: str, ctx: ProbeContext):
        self.name, self.ctx = name, ctx
        self.thread: threading.Thread | None = None
        self.box: dict = {}
        self.started = 0.0
        self.failures = 0
        self.last = None
        self.error: str | None = None
        self.seconds: float | None = None
        self.fresh = False

    @property
    def busy(self) -> bool:
        """A call from an earlier sample is still running (hung)."""
        return self.thread is not None and self.thread.is_alive()

    def start(self, func, deadline: float) -> bool:
        """Begin ``func()`` in a worker thread; False (nothing started) while the previous
        call is still running."""
        self.fresh = not self.busy
        if not self.fresh:
            return False
        box = self.box = {}
        ctx, probe = self.ctx, f"monitor.{self.name}"

        def run():
            begun = time.perf_counter()
            try:
                with ctx.bound(probe, deadline):        # file reads past the deadline stop the source
                    box["value"] = func()
            except BaseException as exc:  # noqa: BLE001 - reported, never raised into the schedule
                box["error"] = exc
            box["seconds"] = time.perf_counter() - begun

        self.started = time.monotonic()
        self.thread = threading.Thread(target=run, daemon=True, name=f"monitor-{self.name}")
        self.thread.start()
        return True

    def result(self, deadline: float):
        """Wait until ``deadline`` (time.monotonic()) for the call started last; the value,
        or the last good one (failed fewer than DROP_AFTER times in a row), or empty."""
        if self.thread is not None and self.fresh:    # a call still stuck from before is not waited for
            self.thread.join(max(0.0, deadline - time.monotonic()))
        box = self.box
        if self.busy:
            self.error = f"timed out: running for {time.monotonic() - self.started:.1f} s"
            self.seconds = None
        elif "error" in box:
            exc = box["error"]
            self.error = f"{type(exc).__name__}: {exc}"[:200]
            self.seconds = box.get("seconds")
        elif "value" in box:
            self.failures, self.error, self.seconds = 0, None, box.get("seconds")
            self.last = box["value"]
            self.box = {}                       # taken: a later sample does not take it again
            return self.last
        else:                                   # nothing was started for this sample
            self.error = self.error or "not run"
        self.failures += 1
        if self.last is not None and self.failures < DROP_AFTER:
            return copy.deepcopy(self.last)
        return _EMPTY[self.name]()

    def status(self) -> dict:
        return {"ok": self.error is None, "error": self.error, "failures": self.failures,
                "seconds": None if self.seconds is None else round(self.seconds, 4)}


class Sampler:
    def __init__(self, ctx: ProbeContext | None = None, nvml=None, processes: bool = True,
                 clock=time.monotonic, deadline_s: float = DEFAULT_DEADLINE_S):
        """``nvml``: a pynvml-shaped module (tests pass a fake); by default pynvml is used on
        the running system when the NVIDIA driver is there, never under a sysroot.
        ``processes``: read per-process use (DRM fdinfo, NVML processes). ``clock``: the
        monotonic clock rates are computed with (tests move it by hand). ``deadline_s``: how
        long one source may take in one sample (wall clock)."""
        self.clock = clock
        self.ctx = ctx or ProbeContext()
        use_nvml = nvml is not None or (self.ctx.live and (self.ctx.exists("dev/nvidiactl")
                                                           or self.ctx.exists("proc/driver/nvidia")))
        self.nvml = NvmlSource(nvml) if use_nvml else None
        self.processes = processes
        self.state: dict = {"counters": {}}
        self._clients: dict | None = None
        self._fds: tuple[float, list] | None = None
        self._last: float | None = None
        self.deadline_s = deadline_s
        self.sources = {name: Source(name, self.ctx) for name in ("cpu", "memory", "nvml", "sysfs", "fdinfo")}

    def close(self) -> None:
        if self.nvml is not None:
            guard = self.sources["nvml"]
            if not guard.busy:                  # never shut NVML down under a call still stuck in it
                closer = threading.Thread(target=self.nvml.close, daemon=True, name="monitor-nvml-close")
                closer.start()
                closer.join(self.deadline_s)

    def sample(self) -> dict:
        now = self.clock()
        dt = None if self._last is None else now - self._last
        self._last = now
        ctx, src = self.ctx, self.sources
        deadline = time.monotonic() + self.deadline_s
        used = ["cpu", "memory", "sysfs"]
        src["cpu"].start(lambda: host.sample_cpu(ctx, self.state, now), deadline)
        src["memory"].start(lambda: host.sample_memory(ctx), deadline)
        src["sysfs"].start(lambda: self._sysfs_devices(now), deadline)
        if self.nvml is not None:
            used.insert(2, "nvml")
            src["nvml"].start(self._nvml_devices, deadline)
        devices = list(src["nvml"].result(deadline)) if self.nvml is not None else []
        sysfs = src["sysfs"].result(deadline)
        cpu, memory = src["cpu"].result(deadline), src["memory"].result(deadline)
        devices += sysfs
        if self.processes and sysfs:        # fdinfo usage is only attributed to these devices
            used.append("fdinfo")
            late = time.monotonic() + self.deadline_s        # its own deadline: it needs sysfs first
            src["fdinfo"].start(lambda: self._drm_usage(dt), late)
            self._attribute(devices, src["fdinfo"].result(late))
        for dev in devices:
            for field in DEVICE_FIELDS:
                dev.setdefault(field, None)
            dev.setdefault("throttle", None)
            dev.setdefault("processes", None)
            if dev.get("pci_bus_id") is None:
                dev["pci_bus_id"] = dcgm_bus_id(dev.get("address"))
            dev.setdefault("index", None)
            dev.setdefault("uuid", None)
        return finite({"t": round(time.time(), 3), "mono_s": round(now, 4),
                       "interval_s": None if dt is None else round(dt, 4),
                       "cpu": cpu, "memory": memory, "devices": devices,
                       "sources": {name: src[name].status() for name in used}})

    def _nvml_devices(self) -> list[dict]:
        devices = self.nvml.sample()
        for d in devices:
            if not self.processes:
                d["processes"] = None
            for proc in d["processes"] or []:
                proc["name"] = self.ctx.read_line(f"proc/{proc['pid']}/comm")
        return devices

    def _sysfs_devices(self, now: float) -> list[dict]:
        out = []
        counters = self.state["counters"]
        for node in telemetry.discover(self.ctx):
            entry = family_telemetry(node["family"]) or {}
            dev = {"id": f"{node['family']}:{node['address']}", "family": node["family"],
                   "name": f"{node['family']} {node['node']}", "address": node["address"],
                   "node": node["node"]}
            dev.update(telemetry.read_fields(self.ctx, node["base"], entry.get("fields", {}),
                                             counters, dev["id"], now))
            out.append(dev)
        return out

    def _drm_usage(self, dt: float | None) -> dict:
        now = self.clock()
        if self._fds is None or now - self._fds[0] >= FD_RESCAN_S:      # new processes, new files
            self._fds = (now, fdinfo.drm_fds(self.ctx))
        clients = fdinfo.read_clients(self.ctx, self._fds[1])
        usage = fdinfo.usage(clients, self._clients, dt or 0.0)
        self._clients = clients
        return usage

    @staticmethod
    def _attribute(devices: list[dict], usage: dict) -> None:
        by_address = {d["address"]: d for d in devices if d.get("address")}
        for key, use in usage.items():
            dev = by_address.get(key)
            if dev is None:
                continue
            dev["engines_pct"] = use["engines_pct"]
            if dev.get("util_pct") is None:
                dev["util_pct"] = use["util_pct"]
            if dev.get("processes") is None:
                dev["processes"] = use["processes"]
