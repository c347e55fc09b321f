"""Grades one exercise in the learner's chosen Python (standalone: imports nothing of accelgui).

Usage: python _runner.py GRADER WORKSPACE RESULT SEED PACKAGES_JSON [NONCE]

``GRADER`` is an exercise's ``grade.py``: it defines ``grade(g)`` and uses :class:`Grade` to
import the learner's code from ``WORKSPACE``, check it on fresh random inputs (``SEED``, chosen
by accelgui for every run), time it itself and record figures. The outcome is written as JSON to
``RESULT``, a file opened before any of the learner's code runs and never printed: whatever the
learner's code prints (say "PASS") is output, not a verdict. accelgui compares the figures with
the exercise's targets and this machine's own measurements, and takes the result only when it
carries ``NONCE`` (chosen by accelgui for every run): a result written by the learner's code,
which then ends the process before the grading finishes, does not.

Exit status 3 (and ``missing`` in the result) when a package the exercise needs is absent.

The learner's code runs in this process, so the runner guards the verdict against code that
tries to write it instead of earning it:

- the result is written last, over whatever the file holds, by the runner's own descriptor,
  and the process ends at once (``os._exit``: no ``atexit`` handler of the learner's runs);
  the working directory is a scratch folder apart from the result's; ``sys.argv`` and
  ``sys.orig_argv`` no longer name the result or the nonce;
- once the learner's module loads, an audit hook (PEP 578) refuses new processes, threads
  started by the learner's own code (Python 3.12 and later audit thread starts), the garbage
  collector's object lists, trace functions, reads of ``/proc/*/{fd,mem,cmdline,environ}`` and
  of any exercise's ``grade.py`` (its reference computations are not the learner's to import);
- every public function or class of the modules the grading relies on (``time.perf_counter``,
  ``numpy.allclose``, the builtins, each module the grader imports: :meth:`_Guard._functions`)
  and of the grader's ``g`` is compared with what it was: one replaced fails ``grader-intact``;
  the grader's clock is taken before any learner code runs.

This stops a learner's shortcut, not a determined attack on the interpreter: code that edits
the grader's lists through its stack frames, or compiled code loaded with ctypes, can still
forge a pass.
"""

import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback

_CLOCK = time.perf_counter        # taken before any learner code: the grader's own clock
_BLOCKED = frozenset((
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace",
    "sys.setprofile", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "os.startfile", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill",
))
_PROC = re.compile(r"^/proc/(?:self|thread-self|\d+)/(?:task/\d+/)?(?:fd|fdinfo|map_files|mem|cmdline|environ)\b")


class _Guard:
    """The audit hook (armed once the learner's module loads) and the snapshot of every loaded
    module's functions and classes, taken before any learner code runs."""

    def __init__(self, protected):
        self.armed = False
        self.workspace = ""
        self.exercises_dir = ""
        self.trusted = False
        self.refused = []
        self.protected = tuple(protected)
        self.snapshot = []

    @staticmethod
    def _functions(grader):
        """[(module, name, value)] of the public functions and classes the grading relies on:
        those of the builtins, time, os, sys, json, math, random, statistics, of every module the
        grader imported and of their submodules (numpy.random...), and the grader's own.
        (Private names are left out: libraries patch each other's, typing_extensions typing's.)"""
        import builtins
        import math
        import random
        import statistics

        modules = [builtins, time, os, sys, json, math, random, statistics]
        modules += [v for v in vars(grader).values() if isinstance(v, type(os))]
        for parent in list(modules):
            prefix = parent.__name__ + "."
            modules += [v for v in vars(parent).values()
                        if isinstance(v, type(os)) and v.__name__.startswith(prefix)]
        out, seen = [], set()
        for module in modules + [grader]:
            if id(module) in seen:
                continue
            seen.add(id(module))
            out += [(module, key, value) for key, value in list(vars(module).items())
                    if callable(value) and (not key.startswith("_") or module is grader)]
        return out

    def replaced(self):
        """'module.name' of each function or class that is no longer what it was."""
        out = [f"{getattr(m, '__name__', '?')}.{k}" for m, k, v in self.snapshot if vars(m).get(k, v) is not v]
        for cls, attrs in self.protected:
            out += [f"{cls.__name__}.{k}" for k, v in attrs.items() if cls.__dict__.get(k) is not v]
        return sorted(set(out))

    def _is_grader(self, path):
        """Whether ``path`` is an exercise's grader (shipped, or its copy in a workspace's .grader/):
        the learner's code may not import the grader's own reference computations."""
        name = os.path.basename(path)
        real = os.path.realpath(path)
        folder = os.path.dirname(real)
        if name.startswith("grade.") and name.endswith(".pyc") and os.path.basename(folder) == "__pycache__":
            folder = os.path.dirname(folder)          # its compiled form (installed packages have one)
        elif name != "grade.py":
            return False
        return os.path.basename(folder) == ".grader" or os.path.dirname(folder) == self.exercises_dir

    def _from_learner(self):
        """Whether the code starting a thread is the learner's own (the first caller outside
        threading lies in the workspace; a library the learner uses may start its own)."""
        frame = sys._getframe(2)      # 0 this, 1 the hook, 2 the caller of the audited call
        while frame is not None and frame.f_code.co_filename == threading.__file__:
            frame = frame.f_back
        return frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(self.workspace + os.sep)

    def hook(self, event, args):
        if not self.armed or self.trusted:
            return
        refused = event in _BLOCKED
        if event == "open" and args and isinstance(args[0], (str, bytes)):
            refused = refused or bool(_PROC.match(os.fsdecode(args[0]))) or self._is_grader(os.fsdecode(args[0]))
        if event == "_thread.start_new_thread":      # audited from Python 3.12
            refused = self._from_learner()
        if refused:
            self.refused.append(event)
            raise PermissionError(f"the grader does not allow {event} while it grades your code")


class Grade:
    """What a grader sees: the workspace, a seed, a scratch folder; what it records: checks
    (name, passed, detail) and figures (name -> number)."""

    def __init__(self, workspace, seed, scratch, on_learner=None):
        self._on_learner = on_learner
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
        if self._on_learner is not None:
            self._on_learner()
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
    def clock():
        """The grader's clock (time.perf_counter as it was before any learner code ran)."""
        return _CLOCK()

    @staticmethod
    def best_time(fn, repeats=5, budget_s=5.0):
        """The fastest of ``repeats`` timed calls of ``fn()`` (fewer when a call is slow: the
        calls stop once ``budget_s`` has passed)."""
        best = None
        end = _CLOCK() + budget_s
        for _ in range(max(1, repeats)):
            t0 = _CLOCK()
            fn()
            took = _CLOCK() - t0
            best = took if best is None else min(best, took)
            if _CLOCK() > end:
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


def _run_grader(grader, g, guard):
    """Load the grader, snapshot what is loaded, arm the guard at the learner's import, grade."""
    try:
        spec = importlib.util.spec_from_file_location("accelgui_grader", grader)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        guard.snapshot = guard._functions(mod)
        g._on_learner = guard.arm
        mod.grade(g)
    except NotImplementedError as exc:
        guard.trusted = True
        g.check("implemented", False, f"not written yet: {exc or 'a TODO is left'}")
    except SystemExit as exc:
        guard.trusted = True
        g.check("runs", False, f"the code called exit ({exc.code!r}) before the grading finished")
    except Exception as exc:  # noqa: BLE001 - the learner's error is the result
        guard.trusted = True
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        g.check("runs", False, "".join(tb[-3:]).strip())
    guard.trusted = True


def _tampering(g, guard):
    """The checks that fail because the learner's code changed the grading (recorded here, not
    through ``g.check``, which the learner's code may have replaced)."""
    changed = guard.replaced() + [f"Grade.{k}" for k, v in vars(g).items() if callable(v) and k != "_on_learner"]
    out = []
    if changed:
        out.append({"name": "grader-intact", "ok": False,
                    "detail": "your code replaced what the grader uses: " + ", ".join(changed[:8])})
    if guard.refused:
        out.append({"name": "grader-intact", "ok": False, "detail": "your code tried what grading does not "
                    "allow: " + ", ".join(sorted(set(guard.refused)))})
    return out


def main(argv):
    grader, workspace, result_path, seed, packages = argv[1:6]
    nonce = argv[6] if len(argv) > 6 else ""
    fd = os.open(result_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)    # before any learner code
    sys.argv = sys.orig_argv = [grader]                 # the result's path and the nonce: not for the learner
    versions = _versions(json.loads(packages))
    missing = sorted(k for k, v in versions.items() if v is None)
    doc = {"versions": versions, "missing": missing, "checks": [], "figures": {}, "nonce": nonce}
    code = 3 if missing else 0
    scratch = tempfile.mkdtemp(prefix="accelgui-grade-")       # not beside the result
    if not missing:
        os.chdir(scratch)                       # not the folder of the result
        g = Grade(workspace, seed, scratch)
        guard = _Guard([(Grade, dict(vars(Grade))), (_Guard, dict(vars(_Guard)))])
        guard.arm = lambda: setattr(guard, "armed", True)
        guard.workspace = g.workspace
        guard.exercises_dir = os.path.dirname(os.path.dirname(os.path.realpath(grader)))
        sys.addaudithook(guard.hook)
        _run_grader(grader, g, guard)
        doc["checks"], doc["figures"] = list(g.checks) + _tampering(g, guard), dict(g.figures)
    data = json.dumps(doc).encode()
    os.ftruncate(fd, 0)                         # over whatever the learner's code wrote there
    os.lseek(fd, 0, os.SEEK_SET)
    while data:
        data = data[os.write(fd, data):]
    os.close(fd)
    shutil.rmtree(scratch, ignore_errors=True)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)                              # no atexit handler or thread of the learner's after this


if __name__ == "__main__":
    sys.exit(main(sys.argv))
