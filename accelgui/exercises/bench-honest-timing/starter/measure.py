"""Time a function honestly: warm it up, repeat it, report robust statistics."""

import time  # noqa: F401


def measure(fn, warmup=3, repeats=20):
    """Call ``fn()`` ``warmup`` times untimed, then ``repeats`` times timed with
    time.perf_counter. Return {"runs_s": [each timed run, in seconds], "median_s": ...,
    "p90_s": ... (the 90th percentile of the runs)}.

    TODO: the first calls of real code are slow (compilation, caches, lazy loading); the
    median is not moved by a few outliers, the mean is.
    """
    raise NotImplementedError("write measure")
