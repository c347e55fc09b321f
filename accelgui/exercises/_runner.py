"""Grades one exercise in the learner's chosen Python (standalone: imports nothing of accelgui).

Usage: python _runner.py GRADER WORKSPACE RESULT SEED PACKAGES_JSON

``GRADER`` is an exercise's ``grade.py``: it defines ``grade(g)`` and uses :class:`Grade` to
import the learner's code from ``WORKSPACE``, check it on fresh random inputs (``SEED``, chosen
by accelgui for every run), time it itself and record figures. The outcome is written as JSON to
``RESULT``, a file opened before any of the learner's code runs and never printed: whatever the
learner's code prints (say "PASS") is output, not a verdict. accelgui compares the figures with
the exercise's targets and this machine's own measurements.

Exit status 3 (and ``missing`` in the result) when a package the exercise needs is absent.
"""

import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback


class Grade:
    """What a grader sees: the workspace, a seed, a scratch folder; what it records: checks
    (name, passed, detail) and figures (name -> number)."""

    def __init__(self, workspace, seed, scratch):
        self.workspace = os.path.abspath(workspace)
        self.seed = int(seed)
        self.scratch = scratch
        self.checks = []
        self.figures = {}

    def check(self, name, ok, detail=""):
        self.checks.append({"name": str(name), "ok": bool(ok), "detail": str(detail)[:500]})
        return bool(ok)

    def figure(self, name, value):
        self.figures[str(name)] = None if value is None else float(value)

    @property
    def failed(self):
        return any(not c["ok"] for c in self.checks)

    def path(self, name):
        return os.path.join(self.workspace, name)

    def learner(self, module):
        """The learner's ``module``.py from the workspace, imported afresh under a private name."""
        path = self.path(module + ".py")
        spec = importlib.util.spec_from_file_location(f"learner_{module}_{self.seed}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, self.workspace)
        try:
            spec.loader.exec_module(mod)
        finally:
            sys.path.remove(self.workspace)
        return mod

    def read(self, name):
        with open(self.path(name), encoding="utf-8") as fh:
            return fh.read()

    @staticmethod
    def best_time(fn, repeats=5, budget_s=5.0):
        """The fastest of ``repeats`` timed calls of ``fn()`` (fewer when a call is slow: the
        calls stop once ``budget_s`` has passed)."""
        best = None
        end = time.perf_counter() + budget_s
        for _ in range(max(1, repeats)):
            t0 = time.perf_counter()
            fn()
            took = time.perf_counter() - t0
            best = took if best is None else min(best, took)
            if time.perf_counter() > end:
                break
        return best


def _versions(packages):
    import importlib.metadata as md

    out = {"python": sys.version.split()[0]}
    for name in packages:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def main(argv):
    grader, workspace, result_path, seed, packages = argv[1:6]
    out = open(result_path, "w", encoding="utf-8")     # before any learner code runs
    sys.argv = [grader]
    versions = _versions(json.loads(packages))
    missing = sorted(k for k, v in versions.items() if v is None)
    doc = {"versions": versions, "missing": missing, "checks": [], "figures": {}}
    code = 0
    if missing:
        code = 3
    else:
        with tempfile.TemporaryDirectory(prefix="accelgui-grade-") as scratch:
            g = Grade(workspace, seed, scratch)
            try:
                spec = importlib.util.spec_from_file_location("accelgui_grader", grader)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                mod.grade(g)
            except NotImplementedError as exc:
                g.check("implemented", False, f"not written yet: {exc or 'a TODO is left'}")
            except SystemExit as exc:
                g.check("runs", False, f"the code called exit ({exc.code!r}) before the grading finished")
            except Exception as exc:  # noqa: BLE001 - the learner's error is the result
                tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
                g.check("runs", False, "".join(tb[-3:]).strip())
            doc["checks"], doc["figures"] = g.checks, g.figures
    json.dump(doc, out)
    out.close()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
