"""The live monitor's sampler: one cheap sample of the CPU, memory and every accelerator.

    sampler = Sampler(ProbeContext())          # or a recorded tree, or nvml=<fake module>
    sample = sampler.sample()                  # a plain dict, units in the names, null = unknown
    sampler.close()

A sample is ``{"t": unix s, "mono_s": monotonic s, "interval_s", "cpu": {...},
"memory": {...}, "devices": [{"id", "family", "name", "address", <DEVICE_FIELDS>...,
"throttle", "processes", "engines_pct"}]}``. Rates (utilisation from /proc/stat, power from
energy counters, busy counters, DRM engine ns) are computed between consecutive samples of
one sampler, so the first sample has them null. Devices are discovered on every sample: one
unplugged between two samples is simply absent from the next; a counter that went backwards
(driver reload) gives null once, then rates again. Qt-free and Numba-free.
"""

from __future__ import annotations

import time

from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor import fdinfo, host, telemetry
from accelgui.probes.monitor.nvidia import NvmlSource
from accelgui.probes.monitor.telemetry import DEVICE_FIELDS, family_telemetry

__all__ = ["DEVICE_FIELDS", "Sampler", "family_telemetry"]

#: how often the open files of every process are listed again to find DRM/accel clients
#: (between listings only the fdinfo of the files already found is read again)
FD_RESCAN_S = 5.0


class Sampler:
    def __init__(self, ctx: ProbeContext | None = None, nvml=None, processes: bool = True,
                 clock=time.monotonic):
        """``nvml``: a pynvml-shaped module (tests pass a fake); by default pynvml is used on
        the running system when the NVIDIA driver is there, never under a sysroot.
        ``processes``: read per-process use (DRM fdinfo, NVML processes). ``clock``: the
        monotonic clock rates are computed with (tests move it by hand)."""
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

    def close(self) -> None:
        if self.nvml is not None:
            self.nvml.close()

    def sample(self) -> dict:
        now = self.clock()
        dt = None if self._last is None else now - self._last
        self._last = now
        ctx = self.ctx
        devices = []
        if self.nvml is not None:
            devices += self.nvml.sample()
            for d in devices:
                if not self.processes:
                    d["processes"] = None
                for proc in d["processes"] or []:
                    proc["name"] = ctx.read_line(f"proc/{proc['pid']}/comm")
        sysfs = self._sysfs_devices(now)
        devices += sysfs
        if self.processes and sysfs:        # fdinfo usage is only attributed to these devices
            self._drm_usage(devices, dt)
        for dev in devices:
            for field in DEVICE_FIELDS:
                dev.setdefault(field, None)
            dev.setdefault("throttle", None)
            dev.setdefault("processes", None)
        return {"t": round(time.time(), 3), "mono_s": round(now, 4),
                "interval_s": None if dt is None else round(dt, 4),
                "cpu": host.sample_cpu(ctx, self.state, now),
                "memory": host.sample_memory(ctx),
                "devices": devices}

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

    def _drm_usage(self, devices: list[dict], dt: float | None) -> None:
        now = self.clock()
        if self._fds is None or now - self._fds[0] >= FD_RESCAN_S:      # new processes, new files
            self._fds = (now, fdinfo.drm_fds(self.ctx))
        clients = fdinfo.read_clients(self.ctx, self._fds[1])
        usage = fdinfo.usage(clients, self._clients, dt or 0.0)
        self._clients = clients
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
