import time


def measure(fn, warmup=3, repeats=20):      # no warm-up, and the mean reported as the median
    runs = []
    for _ in range(warmup + repeats):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    runs = runs[:repeats]
    mean = sum(runs) / len(runs)
    return {"runs_s": runs, "median_s": mean, "p90_s": max(runs)}
