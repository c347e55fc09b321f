"""Responsiveness of the desktop app.

    python tests/benchmarks/bench_gui.py [--mode quick|full|test] [--runs 3] [--skip-stall]

1. Time to first window: from starting the Python process to the first paint of the main
   window, through ``accelgui.gui.app.run_app`` (median of --runs runs, each a fresh process).
   Target: <= 0.6 s.
2. Longest event-loop stall during a benchmark run: a 5 ms QTimer records the gaps between its
   ticks while the app runs the benchmark child (``--mode``, default full) with progress, and
   renders the plots when the results arrive (after the app has probed this machine). Each
   gap is filed under the phase it ended in ("benchmark:<stage>" from the child's progress,
   "results" once the result is in); the longest ones are listed with their phase and time.
   Target: <= 50 ms.

Runs on Qt's offscreen platform unless a display is set (DISPLAY / WAYLAND_DISPLAY); under
Xvfb: xvfb-run -s '-screen 0 1280x800x24' python tests/benchmarks/bench_gui.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIRST_PAINT = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and type(obj).__name__ == "MainWindow":
            sys.stdout.write("painted %f\n" % time.monotonic()); sys.stdout.flush()
            QTimer.singleShot(0, app.quit)
        return False

watcher = FirstPaint()
app.installEventFilter(watcher)
from accelgui.gui.app import run_app
run_app(["--lang", "en"])
os._exit(0)   # do not wait for the probes of this run
"""


def time_to_first_window(runs: int) -> list[float]:
    times = []
    env = dict(os.environ, ACCELGUI_DATA_DIR=os.environ.get("ACCELGUI_DATA_DIR", "/tmp/accelgui-bench"))
    for _ in range(runs):
        start = time.monotonic()
        out = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True,
                             timeout=120, env=env)
        line = next((ln for ln in out.stdout.splitlines() if ln.startswith("painted ")), None)
        if line is None:
            raise SystemExit(f"no first paint: {out.stderr[-2000:]}")
        times.append(float(line.split()[1]) - start)  # CLOCK_MONOTONIC is system-wide
    return times


def event_loop_stalls(mode: str) -> dict:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from accelgui.gui.app import create_app
    from accelgui.gui.main_window import AppOptions, MainWindow

    app = create_app([])
    window = MainWindow(AppOptions(lang="en"))
    window.show()
    clock = StallClock("probing")
    clock.timer.start()
    window.start()
    wait_until_idle(app, window, settle=30)
    done = {}

    def finished(result):
        clock.phase = "results"
        done["ok"] = True
        QTimer.singleShot(1500, app.quit)   # time for rendering the plots and re-advising

    def failed(message):
        done["error"] = message
        QTimer.singleShot(200, app.quit)

    def progress(event):
        clock.phase = f"benchmark:{event.get('stage')}"

    window.bench.finished.connect(finished)
    window.bench.failed.connect(failed)
    window.bench.progress.connect(progress)
    if mode != "full":
        from accelgui.probes.kernels.client import benchmark_command

        window.benchmark_command = lambda _m: benchmark_command(mode)
    # started from the event loop, as a click would: its own cost is part of the first gap
    QTimer.singleShot(0, lambda: window.run_benchmark("full"))
    clock.restart("benchmark:start")
    app.exec()
    elapsed = time.perf_counter() - clock.started
    clock.timer.stop()
    window.close()
    QApplication.processEvents()
    return dict({"mode": mode, "benchmark_s": round(elapsed, 1)}, **stall_summary(clock.gaps),
                result="ok" if done.get("ok") else done.get("error", "no result"))


class StallClock:
    """A QTimer every ``interval_ms`` recording each tick as (ms late, the phase then, seconds
    since ``restart``): the gaps of the event loop (also used by bench_monitor)."""

    def __init__(self, phase: str, interval_ms: int = 5):
        from PySide6.QtCore import QTimer

        self.phase, self.interval_ms = phase, interval_ms
        self.gaps: list[tuple[float, str, float]] = []
        self.started = self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(((now - self.last) * 1000.0 - self.interval_ms, self.phase, now - self.started))
        self.last = now

    def restart(self, phase: str) -> None:
        self.phase = phase
        self.gaps.clear()
        self.started = self.last = time.perf_counter()


def wait_until_idle(app, window, settle: int = 30, timeout_s: float = 60.0) -> None:
    """Run the event loop until the window has probed this machine and is idle (plots made),
    then ``settle`` turns of 10 ms more (also used by bench_monitor)."""
    deadline = time.monotonic() + timeout_s
    while (window.live_report is None or not window.idle) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.001)
    if window.live_report is None:
        raise SystemExit(f"probing did not finish: {window.probe_error}")
    for _ in range(settle):
        app.processEvents()
        time.sleep(0.01)


def stall_summary(gaps: list[tuple[float, str, float]], top: int = 5) -> dict:
    """Longest gap, its phase, p99 and median of ``gaps`` ((ms late, phase, s)), and the
    ``top`` longest as [ms, phase, s since the start] (also used by bench_monitor)."""
    values = sorted(g for g, _, _ in gaps)
    worst = sorted(gaps, reverse=True)[:top]
    return {"ticks": len(gaps),
            "max_stall_ms": round(worst[0][0], 1) if worst else None,
            "max_stall_phase": worst[0][1] if worst else None,
            "p99_stall_ms": round(values[int(0.99 * (len(values) - 1))], 1) if values else None,
            "median_stall_ms": round(statistics.median(values), 2) if values else None,
            "longest_stalls": [[round(g, 1), p, round(t, 2)] for g, p, t in worst]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", default="full", choices=("test", "quick", "full"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--skip-stall", action="store_true")
    p.add_argument("--skip-first-window", action="store_true")
    args = p.parse_args(argv)
    out = {"platform": os.environ.get("QT_QPA_PLATFORM") or "display",
           "python": sys.version.split()[0]}
    if not args.skip_first_window:
        times = time_to_first_window(args.runs)
        out["first_window_s"] = {"median": round(statistics.median(times), 3),
                                 "runs": [round(t, 3) for t in times], "target": 0.6}
    if not args.skip_stall:
        out["event_loop"] = event_loop_stalls(args.mode)
        out["event_loop"]["target_ms"] = 50
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
