import statistics
import time


def measure(fn, warmup=3, repeats=20):
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    ordered = sorted(runs)
    return {"runs_s": runs, "median_s": statistics.median(runs),
            "p90_s": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]}
