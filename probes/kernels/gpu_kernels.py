"""NVIDIA GPU micro-benchmarks with numba-cuda (``pip install 'accelgui[cuda]'``).

Imported by the benchmark child only after :func:`accelgui.probes.kernels.gpu_skip_reason`
found a usable NVIDIA device; importing this module imports ``numba.cuda``.

Per device index (as CUDA numbers them):
  triad_gbps        device-memory STREAM triad a = b + s*c (float64, 3 x 8 bytes per
                    element), grid-stride kernel, best of N timed with CUDA events
  fp32_gflops       FP32 FMA throughput: every thread runs NACC independent FMA chains
  h2d_gbps/d2h_gbps host<->device copies from/to pinned (page-locked) host memory
  memory_peak_gbps  from NVML: 2 (double data rate) x max memory clock x bus width / 8
  triad_efficiency  triad_gbps / memory_peak_gbps
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float32

#: independent FMA chains per thread (latency 4 cycles x 4 schedulers: 8 is plenty)
NACC = 8
THREADS_PER_BLOCK = 256


@cuda.jit(cache=True, fastmath=True)
def triad_kernel(a, b, c, s):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0], stride):
        a[i] = b[i] + s * c[i]


@cuda.jit(cache=True, fastmath=True)
def init_kernel(a, b, c):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0], stride):
        a[i] = 1.0
        b[i] = 2.0
        c[i] = 0.5


@cuda.jit(cache=True, fastmath=True)
def fma_kernel(out, iters, m, c):
    """8 independent chains acc = acc * m + c per thread; 16 FLOP per iteration."""
    i = cuda.grid(1)
    x = float32(i & 1023) * float32(1e-4)
    a0 = x + float32(0.1)
    a1 = x + float32(0.2)
    a2 = x + float32(0.3)
    a3 = x + float32(0.4)
    a4 = x + float32(0.5)
    a5 = x + float32(0.6)
    a6 = x + float32(0.7)
    a7 = x + float32(0.8)
    for _ in range(iters):
        a0 = a0 * m + c
        a1 = a1 * m + c
        a2 = a2 * m + c
        a3 = a3 * m + c
        a4 = a4 * m + c
        a5 = a5 * m + c
        a6 = a6 * m + c
        a7 = a7 * m + c
    if i < out.shape[0]:
        out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7


def _r(x, nd=2):
    return None if x is None or not math.isfinite(x) else round(float(x), nd)


def _event_ms(fn) -> float:
    """Milliseconds between CUDA events recorded around ``fn()`` on the default stream."""
    start, end = cuda.event(), cuda.event()  # timing=True is the default
    start.record()
    fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end))


def _rate(amount: float, ms: float) -> float | None:
    """amount / seconds, in units of 1e9 (None when the time is not usable)."""
    return amount / (ms / 1e3) / 1e9 if ms and ms > 0 else None


def _repeats(fn, amount: float, reps: int, nd: int = 1) -> tuple[float | None, dict | None]:
    """(best rate, spread entry) of ``reps`` timed calls of ``fn`` moving ``amount`` units
    (bytes or flops; rates in units of 1e9 per second)."""
    from accelgui.probes.kernels.peaks import repeat_spread

    rates = [r for r in (_rate(amount, _event_ms(fn)) for _ in range(reps)) if r]
    return (_r(max(rates), nd), repeat_spread(rates)) if rates else (None, None)


def _device(index: int):
    """(name, multiprocessors, compute capability, free bytes, total bytes, device)."""
    try:
        dev = cuda.get_current_device()
    except AttributeError:  # the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) used by the tests
        return "CUDA simulator", 1, (5, 2), 1 << 30, 1 << 30, None
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    free, total = cuda.current_context().get_memory_info()
    return name, int(dev.MULTIPROCESSOR_COUNT), tuple(dev.compute_capability), int(free), int(total), dev


def _nvml_info(dev) -> dict:
    """Memory peak and names from NVML for a numba CUDA device (matched by PCI bus id)."""
    out = {"memory_peak_gbps": None, "memory_clock_mhz": None, "memory_bus_bits": None,
           "pci_bus_id": None}
    if dev is None:
        return out
    try:
        import pynvml
    except ImportError:
        return out
    try:
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001
        return out
    try:
        bus = f"{dev.PCI_DOMAIN_ID:08x}:{dev.PCI_BUS_ID:02x}:{dev.PCI_DEVICE_ID:02x}.0"
        out["pci_bus_id"] = bus
        try:
            h = pynvml.nvmlDeviceGetHandleByPciBusId(bus.encode())
        except Exception:  # noqa: BLE001
            h = pynvml.nvmlDeviceGetHandleByIndex(int(dev.id))
        clk = pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_MEM)
        width = pynvml.nvmlDeviceGetMemoryBusWidth(h)
        out["memory_clock_mhz"] = clk
        out["memory_bus_bits"] = width
        if clk and width:
            out["memory_peak_gbps"] = _r(2.0 * clk * 1e6 * width / 8 / 1e9, 1)
    except Exception:  # noqa: BLE001 - older drivers lack some calls
        pass
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass
    return out


def bench_device(index: int, scale: float = 1.0, on_progress=None, tiny: bool = False,
                 host_cap_bytes: int | None = None) -> dict:
    """All GPU figures for one device. ``scale`` (0..1] shrinks sizes and repetitions;
    ``tiny`` uses toy sizes (tests under the CUDA simulator)."""
    cuda.select_device(index)
    name, sms, cc, free, total, dev = _device(index)
    tpb = 32 if tiny else THREADS_PER_BLOCK
    out = {"name": name, "compute_capability": ".".join(map(str, cc)),
           "multiprocessors": sms, "memory_total_bytes": total}
    out.update(_nvml_info(dev))
    reps = 1 if tiny else max(3, int(round(10 * scale)))
    spread = out["spread"] = {}

    # -- device-memory triad ---------------------------------------------------------
    if tiny:
        n = 256
    else:
        # 1-2 GiB per array: a kernel long enough (>= 0.3 ms at 5 TB/s) that the launch
        # overhead stays below 2 %
        per_array = min(int(2 * (1 << 30) * max(scale, 0.5)), int(free * 0.2))
        n = max(1 << 20, per_array // 8 // (1 << 20) * (1 << 20))
    a = cuda.device_array(n, np.float64)
    b = cuda.device_array(n, np.float64)
    c = cuda.device_array(n, np.float64)
    blocks = min((n + tpb - 1) // tpb, sms * 32)
    init_kernel[blocks, tpb](a, b, c)
    triad_kernel[blocks, tpb](a, b, c, 3.0)  # compile + warm-up
    cuda.synchronize()
    out["triad_gbps"], spread["triad_gbps"] = _repeats(
        lambda: triad_kernel[blocks, tpb](a, b, c, 3.0), 3 * 8 * n, reps)
    out["triad_array_bytes"] = int(8 * n)
    host = a.copy_to_host()
    out["triad_check_ok"] = bool(np.allclose(host, 2.0 + 3.0 * 0.5))
    peak = out.get("memory_peak_gbps")
    out["triad_efficiency"] = _r(out["triad_gbps"] / peak, 3) if peak and out["triad_gbps"] else None
    for key in [k for k, v in spread.items() if v is None]:
        del spread[key]
    a = b = c = None  # free the device arrays now
    if on_progress:
        on_progress(0.4, f"GPU {index} triad {out['triad_gbps']} GB/s")

    # -- FP32 FMA ------------------------------------------------------------------------
    fblocks = 1 if tiny else sms * 8  # 8 x 256 = 2048 resident threads per SM
    nthreads = fblocks * tpb
    res = cuda.device_array(nthreads, np.float32)
    m, cf = np.float32(0.9999999), np.float32(1e-7)
    iters = 4 if tiny else 1024
    fma_kernel[fblocks, tpb](res, 4, m, cf)  # compile
    cuda.synchronize()
    if not tiny:
        t = _event_ms(lambda: fma_kernel[fblocks, tpb](res, iters, m, cf))
        target_ms = 50.0 * max(scale, 0.2)
        iters = max(1024, int(iters * target_ms / max(t, 1e-3)))
    out["fp32_gflops"], spread["fp32_gflops"] = _repeats(
        lambda: fma_kernel[fblocks, tpb](res, iters, m, cf), 2.0 * NACC * iters * nthreads, reps)
    out["fma_accumulators_per_thread"] = NACC
    out["fma_check_ok"] = bool(np.all(np.isfinite(res.copy_to_host())))
    res = None
    if on_progress:
        on_progress(0.7, f"GPU {index} FP32 {out['fp32_gflops']} GFLOP/s")

    # -- host <-> device, pinned --------------------------------------------------------------
    nbytes = 1 << 16 if tiny else max(1 << 24, int((1 << 30) * scale))
    if host_cap_bytes:  # the pinned host buffer counts against the memory cap
        nbytes = max(1 << 16, min(nbytes, int(host_cap_bytes)) // 4096 * 4096)
    h = cuda.pinned_array(nbytes // 4, dtype=np.float32)
    h[:] = 1.0
    d = cuda.device_array(nbytes // 4, dtype=np.float32)
    d.copy_to_device(h)  # warm-up
    cuda.synchronize()
    out["h2d_gbps"], spread["h2d_gbps"] = _repeats(lambda: d.copy_to_device(h), nbytes, reps)
    out["d2h_gbps"], spread["d2h_gbps"] = _repeats(lambda: d.copy_to_host(h), nbytes, reps)
    out["transfer_bytes"] = int(nbytes)
    d = h = None
    if on_progress:
        on_progress(1.0, f"GPU {index} H2D {out['h2d_gbps']} / D2H {out['d2h_gbps']} GB/s")
    return out


def run(scale: float = 1.0, on_progress=None, tiny: bool = False,
        host_cap_bytes: int | None = None) -> dict:
    """{"0": {...}, "1": {...}} for every CUDA device, or {"skipped": why}."""
    try:
        if not cuda.is_available():
            return {"skipped": "CUDA is not available to numba-cuda (driver or libraries missing)"}
        devices = list(cuda.list_devices())
    except Exception as exc:  # noqa: BLE001 - CudaSupportError and friends
        return {"skipped": f"CUDA unusable: {exc}"}
    if not devices:
        return {"skipped": "no CUDA device"}
    out: dict = {}
    count = len(devices)
    for k, dev in enumerate(devices):
        idx = int(dev.id)

        def prog(within, msg, k=k):
            if on_progress:
                on_progress((k + within) / count, msg)
        try:
            out[str(idx)] = bench_device(idx, scale=scale, on_progress=prog, tiny=tiny,
                                         host_cap_bytes=host_cap_bytes)
        except Exception as exc:  # noqa: BLE001 - one failing GPU must not lose the others
            out[str(idx)] = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            try:
                cuda.close()  # one context per thread: release it before the next device
            except Exception:  # noqa: BLE001
                pass
    return out
