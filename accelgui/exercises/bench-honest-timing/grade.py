"""Grades measure() with a function whose cost the grader controls: slow first calls, outliers."""

import random
import statistics
import time


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class Workload:
    """Cold for its first 3 calls (20 ms), then 2 ms with a 12 ms outlier every 6th call."""

    def __init__(self, rng):
        self.calls = 0
        self.steady = rng.uniform(0.0015, 0.0025)
        self.phase = rng.randrange(6)
        self.inside = []          # how long each call took, timed inside the call

    def __call__(self):
        t0 = time.perf_counter()
        self.calls += 1
        if self.calls <= 3:
            _spin(0.020)
        elif (self.calls + self.phase) % 6 == 0:
            _spin(0.012)
        else:
            _spin(self.steady)
        self.inside.append(time.perf_counter() - t0)


def grade(g):
    fn = g.learner("measure").measure
    rng = random.Random(g.seed)
    work = Workload(rng)
    warmup, repeats = 3 + rng.randrange(2), 15 + rng.randrange(6)
    def call():                 # the learner gets a plain function: the grader's own timings stay out of sight
        work()

    out = fn(call, warmup=warmup, repeats=repeats)
    if not g.check("returns-a-dict", isinstance(out, dict) and {"runs_s", "median_s", "p90_s"} <= set(out),
                   "return a dict with runs_s, median_s and p90_s"):
        return
    runs = [float(x) for x in out["runs_s"]]
    g.check("calls", work.calls == warmup + repeats,
            f"fn was called {work.calls} times; warmup + repeats = {warmup + repeats}")
    g.check("runs", len(runs) == repeats, f"{len(runs)} timed runs, expected {repeats}")
    g.check("median-of-runs", runs and abs(float(out["median_s"]) - statistics.median(runs)) <= 1e-9,
            "median_s is not the median of runs_s")
    p90 = float(out["p90_s"])
    g.check("p90", runs and statistics.median(runs) <= p90 <= max(runs),
            "p90_s must lie between the median and the slowest run")
    g.check("warm-up-excluded", sum(r >= 0.018 for r in runs[:3]) < 2,
            "the first timed runs took as long as cold calls: the warm-up calls were timed")
    # the steady-state cost of the very calls the learner timed, as timed inside each call (so
    # a busy machine moves both alike): the median of the calls after the warm-up
    truth = statistics.median(work.inside[warmup:] or [float("nan")])
    g.check("timed-around-each-call", len(work.inside) == len(runs) + warmup
            and all(r >= i - 1e-4 for r, i in zip(runs, work.inside[warmup:])),
            "each timed run must span one call of fn")
    g.figure("median_ms", float(out["median_s"]) * 1e3)
    g.figure("steady_ms_measured_by_grader", truth * 1e3)
    g.figure("median_error_pct", 100 * abs(float(out["median_s"]) - truth) / truth)
