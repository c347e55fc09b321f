"""Cost of the live monitor.

    python tests/benchmarks/bench_monitor.py [--samples 200] [--loop-s 10] [--mode full|quick|test] [--skip-stall]

1. One sample with the fake 8-GPU NVML (tests/monitor_support.py) on this machine's CPU and
   memory: wall time per sample (median, p95) of the whole sample and of the NVML part alone.
   Target: <= 10 ms.
2. Sampling cost at a 1 s interval: CPU time (user + system, of this process) over --loop-s
   seconds of sampling every second, as a share of one core. Target: <= 1 %.
3. Memory of the sample history (History, one hour at 1 s = 3600 samples of 8 GPUs): traced
   bytes after 1 h and after 2 h of simulated samples (bounded: the same).
4. Longest event-loop stall of the app with the Monitor page open (8 fake GPUs plus this
   machine) during a benchmark run (--mode, default full), beside the same run with the page
   hidden: measured as bench_gui.py does (a 5 ms timer), with the phase of each gap
   ("benchmark:<stage>", then "results") and the longest ones listed. Target: <= 50 ms.
   After the run: what one full garbage collection costs (the interpreter is held meanwhile)
   and over how many objects, beside how many the app froze out of it once started up.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import statistics
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench_gui import StallClock, stall_summary, wait_until_idle  # noqa: E402
from monitor_support import gpu, monitor_nvml  # noqa: E402

from accelgui.probes.context import ProbeContext  # noqa: E402
from accelgui.probes.monitor import Sampler, fdinfo  # noqa: E402
from accelgui.probes.monitor.history import History  # noqa: E402


def eight_gpu_sampler() -> Sampler:
    nv = monitor_nvml([gpu(i) for i in range(8)])
    nv.calls = collections.deque(maxlen=1)      # the fake's call log would grow without bound
    return Sampler(ProbeContext(), nvml=nv)


def sample_time(n: int) -> dict:
    s = eight_gpu_sampler()
    s.sample()
    whole, nvml = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        s.sample()
        whole.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        s.nvml.sample()
        nvml.append((time.perf_counter() - t0) * 1000)
    s.close()
    scan, known = [], []    # the DRM fdinfo scan, done when a DRM/accel device is present
    for _ in range(max(10, n // 10)):
        t0 = time.perf_counter()
        fds = fdinfo.drm_fds(ProbeContext())
        scan.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        fdinfo.read_clients(ProbeContext(), fds)
        known.append((time.perf_counter() - t0) * 1000)

    def stats(v):
        v = sorted(v)
        return {"median_ms": round(statistics.median(v), 3), "p95_ms": round(v[int(0.95 * (len(v) - 1))], 3)}
    return {"whole_sample": stats(whole), "nvml_8_gpus": stats(nvml), "fd_listing_every_5s": stats(scan),
            "fdinfo_of_known_clients": stats(known),
            "processes": sum(1 for p in os.listdir("/proc") if p.isdigit()), "target_ms": 10}


def loop_cost(seconds: float) -> dict:
    s = eight_gpu_sampler()
    s.sample()
    t_cpu, t_wall = os.times(), time.monotonic()
    n = 0
    next_at = time.monotonic()
    while time.monotonic() - t_wall < seconds:
        s.sample()
        n += 1
        next_at += 1.0
        time.sleep(max(0.0, next_at - time.monotonic()))
    end = os.times()
    wall = time.monotonic() - t_wall
    cpu = (end.user - t_cpu.user) + (end.system - t_cpu.system)
    s.close()
    return {"samples": n, "wall_s": round(wall, 2), "cpu_s": round(cpu, 3),
            "share_of_one_core_pct": round(100 * cpu / wall, 3), "target_pct": 1.0}


def history_memory() -> dict:
    s = eight_gpu_sampler()
    history = History(capacity=3600)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = {}
    for hour in (1, 2):
        for _ in range(3600):
            history.add(s.sample())
        out[f"after_{hour}h_mib"] = round((tracemalloc.get_traced_memory()[0] - base) / 2 ** 20, 1)
    tracemalloc.stop()
    s.close()
    out["samples_kept"] = len(history.samples)
    return out


def event_loop_stalls(mode: str, monitor_open: bool) -> dict:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from accelgui.gui.app import create_app
    from accelgui.gui.main_window import AppOptions, MainWindow
    from accelgui.probes.kernels.client import benchmark_command

    app = create_app([])
    window = MainWindow(AppOptions(lang="en", monitor_sampler=eight_gpu_sampler))
    window.show()
    window.start()
    wait_until_idle(app, window, settle=0)
    window.show_page("monitor" if monitor_open else "overview")
    wait_until_idle(app, window, settle=50)
    clock = StallClock("benchmark:start")
    done = {}
    window.bench.finished.connect(lambda _r: (setattr(clock, "phase", "results"), done.setdefault("ok", True),
                                              QTimer.singleShot(1500, app.quit)))
    window.bench.failed.connect(lambda m: (done.setdefault("error", m), QTimer.singleShot(200, app.quit)))
    window.bench.progress.connect(lambda e: setattr(clock, "phase", f"benchmark:{e.get('stage')}"))
    window.benchmark_command = lambda _m: benchmark_command(mode)
    page = "monitor" if monitor_open else "overview"
    # started from the event loop, as a click would; starting a run shows the Benchmarks
    # page, so the page under test is shown again by a second click, a quarter second later
    QTimer.singleShot(0, lambda: (window.run_benchmark("full"),
                                  QTimer.singleShot(250, lambda: window.show_page(page))))
    clock.restart("benchmark:start")
    clock.timer.start()
    app.exec()
    clock.timer.stop()
    gaps, started = clock.gaps, clock.started
    samples = window.monitor.samples_seen
    telemetry = (window.live_report.benchmarks or {}).get("telemetry") if window.live_report else None
    tracked = len(gc.get_objects())
    t0 = time.perf_counter()
    gc.collect()                    # what one full collection costs the app now (the interpreter held)
    collection_ms = (time.perf_counter() - t0) * 1000
    window.close()
    QApplication.processEvents()
    during = sorted(g for g, p, _ in gaps if p != "results")
    after = sorted(g for g, p, _ in gaps if p == "results")
    return dict({"monitor_open": monitor_open, "mode": mode,
                 "benchmark_s": round(time.perf_counter() - started, 1)}, **stall_summary(gaps),
                max_stall_during_benchmark_ms=round(during[-1], 1) if during else None,
                max_stall_rendering_results_ms=round(after[-1], 1) if after else None,
                full_collection_ms=round(collection_ms, 1), objects_collected_over=tracked,
                objects_frozen=gc.get_freeze_count(), monitor_samples=samples, stages_recorded=len((telemetry or {}).get("stages", [])),
                result="ok" if done.get("ok") else done.get("error", "no result"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--loop-s", type=float, default=10.0)
    p.add_argument("--mode", default="full", choices=("test", "quick", "full"))
    p.add_argument("--skip-stall", action="store_true")
    args = p.parse_args(argv)
    out = {"python": sys.version.split()[0], "cpus": os.cpu_count(),
           "one_sample": sample_time(args.samples), "loop_1s": loop_cost(args.loop_s),
           "history": history_memory()}
    if not args.skip_stall:
        out["event_loop"] = [event_loop_stalls(args.mode, True), event_loop_stalls(args.mode, False)]
        out["event_loop_target_ms"] = 50
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
