"""Slow work off the GUI thread.

* :class:`Task` runs a plain function (probing, the advisor, loading a report) in a daemon
  thread and delivers its result with a queued Qt signal. A daemon thread, rather than a
  QThread, because a probe can hang until its timeout: closing the window must never wait for
  it, and a daemon thread cannot keep the process alive nor be "destroyed while running".
* :func:`settle_heap` takes what the app keeps for good out of the cyclic garbage collector's
  view, once it has started up.
* :class:`BenchmarkProcess` runs the benchmark child (``python -m accelgui.probes.kernels``)
  through QProcess and turns its JSON lines into signals. The child can crash, be cancelled
  or be killed without touching the window.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from accelgui.probes.kernels import client

KILL_AFTER_MS = 1000
STDERR_KEEP = 4000
#: how much nicer than the window the benchmark child runs. On a machine with few cores the child's threads share the
#: cores with the window's; at 10 the scheduler gives the window ~90% of a core it shares with
#: one of them (at 5: ~75%), so a repaint during a multi-threaded stage is not stretched. On an
#: idle machine the figures are unchanged (nice only orders who runs when both want a core).
CHILD_NICENESS = 10
_log = logging.getLogger(__name__)


def user_message(exc: BaseException) -> str:
    """What a person reads when work failed: the error's own text for the errors that explain
    themselves (a report or file that cannot be read), else its kind and text; never where in
    the code it happened."""
    text = str(exc).strip()
    if isinstance(exc, (OSError, ValueError)) and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Task(QObject):
    """Run ``fn(*args)`` in a daemon thread; emit ``done(result)`` or ``failed(message)``.

    Keep a reference to the Task until one of its signals arrives (the main window keeps
    them in a set). The signals are emitted from the worker thread and delivered, queued, to
    receivers living in the GUI thread.
    """

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, fn: Callable[..., Any], *args, name: str = "accelgui-task"):
        super().__init__()
        self._fn, self._args, self._name = fn, args, name
        self.thread: threading.Thread | None = None

    def start(self) -> "Task":
        self.thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            result = self._fn(*self._args)
        except BaseException as exc:  # noqa: BLE001 - a worker must report, never crash the app
            # the user reads what went wrong; where in the code it happened goes to the log
            _log.debug("worker %s failed:\n%s", self._name, "".join(traceback.format_exception(exc)))
            try:
                self.failed.emit(user_message(exc))
            except RuntimeError:  # the app is gone
                pass
            return
        try:
            self.done.emit(result)
        except RuntimeError:
            pass


# -- the work the tasks do (plain functions, no Qt) ----------------------------------------

def probe_machine(sysroot: str = "/", timeout_s: float = 5.0, deep: bool = False):
    """Run every probe against ``sysroot``; returns a Report without advice."""
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    ctx = ProbeContext(root=sysroot, deep=deep)
    return run_probes(ctx, timeout_s=timeout_s)


def advise_report(report, knowledge_dir: str | None = None, lang: str = "en"):
    """The advisor's routes and estimates (texts in ``lang``), with this user's progress and
    goal (both read from the progress file, the one the CLI's ``--done`` and ``--goal`` write).

    Same as accelgui.cli.advise, plus the language of the reasons: the advice ("Start here"
    and the goal, accelgui.export.advice) is built here, once, and every view reads it.
    """
    from accelgui import advisor
    from accelgui.export.advice import build
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge(knowledge_dir)
    done = load_done_steps()
    goal = load_goal()
    routes = advisor.assess(report, kb, done, lang=lang, goal=goal)
    return report.replace(routes=routes, estimates=advisor.estimates(report, lang=lang),
                          advice=build(routes, kb, lang=lang, goal_source="saved" if goal else None))


def load_knowledge_base(knowledge_dir: str | None = None):
    """(KnowledgeBase or None, set of done step ids). Never raises for a missing module."""
    kb = None
    try:
        from accelgui.knowledge import load_knowledge

        kb = load_knowledge(knowledge_dir)
    except ImportError:
        kb = None
    return kb, load_done_steps()


def load_done_steps() -> set:
    try:
        from accelgui.progress import load_done
    except ImportError:
        return set()
    try:
        return set(load_done())
    except Exception:  # noqa: BLE001 - a broken progress file must not stop the app
        return set()


def load_goal() -> str | None:
    """The learner's goal (an advisor.GOALS id) remembered with the progress, or None. A
    hand-edited id the advisor does not know counts as no goal rather than stopping the advice."""
    try:
        from accelgui import advisor
        from accelgui.progress import load_goal as remembered
    except ImportError:
        return None
    try:
        goal = remembered()
    except Exception:  # noqa: BLE001 - a broken progress file must not stop the app
        return None
    return goal if goal in advisor.GOALS else None


def open_report(path: str, knowledge_dir: str | None = None, lang: str = "en"):
    """Load a saved report and assess it with this knowledge base, language and progress.

    The facts are the saved ones; routes are re-assessed so that they match the learner's
    progress and language (the saved routes are kept when the advisor cannot run).
    """
    from accelgui.report import load_report

    report = load_report(path)
    try:
        report = advise_report(report, knowledge_dir, lang)
    except Exception:  # noqa: BLE001 - keep the report's own assessment
        pass
    return report


_settled = threading.Event()


def settle_heap() -> bool:
    """Once per process, when the app has started up (modules imported, pages and plots made):
    collect, then freeze what is alive out of the cyclic collector's view (``gc.freeze``).

    Python's full collection walks every tracked object while holding the interpreter. In the
    app that is ~100,000 objects (PySide6, pyqtgraph, numpy, the knowledge base): 45-80 ms,
    started by whichever thread happened to allocate (a monitor source, a worker), so the
    event loop stalled that long at random moments of a benchmark. After the freeze a
    collection looks only at objects made since (well under 1 ms at startup). The frozen
    objects are still freed by reference counting; only a cycle among them that later
    becomes garbage is kept, hence once per process and not again. True when it froze now."""
    if _settled.is_set():
        return False
    _settled.set()
    gc.collect()
    gc.freeze()
    return True


# -- the benchmark child -----------------------------------------------------------------------

_preloaded = threading.Event()


#: imported in the background after the first window, before anything on the GUI thread
#: needs them: pyqtgraph (the Benchmarks page), jsonschema and accelgui.validation (a
#: benchmark section that arrives is checked against its schema while the page renders:
#: ~0.4 s to import), accelgui.history (read by the page while a worker writes the run: one
#: import, not two threads waiting on each other's import lock)
PRELOADED = ("pyqtgraph", "jsonschema", "accelgui.validation", "accelgui.history")


def preload_plotting() -> threading.Event:
    """Import :data:`PRELOADED` in the background so that the Benchmarks page opens, and a
    finished benchmark is shown, without a stall.

    Returns an Event set once the imports have finished (successfully or not)."""
    def work():
        import importlib

        try:
            for name in PRELOADED:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - what needs it reports it when it does
                    pass
        finally:
            _preloaded.set()

    if not _preloaded.is_set():
        threading.Thread(target=work, name="accelgui-preload", daemon=True).start()
    return _preloaded


def benchmark_command(mode: str) -> list[str]:
    """argv of the real child; ``--watch-stdin`` ends it if the app dies without stopping it
    (QProcess keeps the child's stdin open until then)."""
    return client.benchmark_command(mode, watch_stdin=True)


class BenchmarkProcess(QObject):
    """The benchmark child process, driven by QProcess.

    Signals: ``progress(dict)`` for each progress line, ``finished(dict)`` with the
    contract's ``benchmarks`` object, ``failed(str)`` when the child crashed, reported an error
    or could not start, ``cancelled()`` after :meth:`cancel`, and ``running_changed(bool)``.
    Exactly one of finished / failed / cancelled ends a run.
    """

    progress = Signal(dict)
    finished = Signal(dict)
    failed = Signal(str)
    cancelled = Signal()
    running_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._proc: QProcess | None = None
        self._buffer = b""
        self._stderr = b""
        self._result: dict | None = None
        self._error: str | None = None
        self._cancelling = False
        self._ended = True
        self.mode: str | None = None
        self.last_progress: dict | None = None

    # -- control --------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning

    def start(self, mode: str = "quick", argv: list[str] | None = None) -> bool:
        """Start a run; ``argv`` replaces the real child (tests use a fake one)."""
        if self.is_running():
            return False
        argv = list(argv) if argv else benchmark_command(mode)
        self.mode = mode
        self._buffer, self._stderr = b"", b""
        self._result, self._error, self._cancelling, self._ended = None, None, False, False
        self.last_progress = None
        if self._proc is not None:          # the finished child of the previous run
            self._proc.deleteLater()
        proc = QProcess(self)
        proc.setProgram(argv[0])
        proc.setArguments(argv[1:])
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONIOENCODING", "utf-8")
        proc.setProcessEnvironment(env)
        proc.readyReadStandardOutput.connect(self._read_stdout)
        proc.readyReadStandardError.connect(self._read_stderr)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        proc.started.connect(self._on_started)
        self._proc = proc
        proc.start()
        self.running_changed.emit(True)
        return True

    def cancel(self) -> None:
        """Ask the child to stop (SIGTERM); kill it if it is still there after a second."""
        proc = self._proc
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            return
        self._cancelling = True
        proc.terminate()
        QTimer.singleShot(KILL_AFTER_MS, self, self._kill_if_running)

    def stop_and_wait(self, timeout_ms: int = KILL_AFTER_MS) -> None:
        """Stop the child now and wait for it (used when the window closes)."""
        proc = self._proc
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            return
        self._cancelling = True
        proc.terminate()
        if not proc.waitForFinished(timeout_ms):
            proc.kill()
            proc.waitForFinished(500)

    def _kill_if_running(self) -> None:
        proc = self._proc
        if proc is not None and proc.state() != QProcess.ProcessState.NotRunning:
            proc.kill()

    # -- child output ---------------------------------------------------------------------
    def _on_started(self) -> None:
        # Run the child "nicer" than the window (CHILD_NICENESS), so that on a machine with
        # few cores the event loop keeps getting the CPU. The child's threads, made later,
        # inherit it.
        pid = self._proc.processId() if self._proc else 0
        if pid and hasattr(os, "setpriority"):
            try:
                own = os.getpriority(os.PRIO_PROCESS, 0)
                os.setpriority(os.PRIO_PROCESS, pid, min(19, own + CHILD_NICENESS))
            except OSError:
                pass

    def _read_stdout(self) -> None:
        if self._proc is None:
            return
        self._buffer += bytes(self._proc.readAllStandardOutput())
        *lines, self._buffer = self._buffer.split(b"\n")
        for raw in lines:
            self._handle_line(raw.decode("utf-8", "replace"))

    def _read_stderr(self) -> None:
        if self._proc is None:
            return
        self._stderr = (self._stderr + bytes(self._proc.readAllStandardError()))[-STDERR_KEEP:]

    def _handle_line(self, line: str) -> None:
        event = client.parse_line(line)
        if not event:
            return
        kind = event.get("type")
        if kind == "progress":
            self.last_progress = event
            self.progress.emit(event)
        elif kind == "result":
            benchmarks = event.get("benchmarks")
            self._result = benchmarks if isinstance(benchmarks, dict) else {}
        elif kind == "error":
            self._error = str(event.get("message") or self.tr("the benchmark reported an error"))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            program = self._proc.program() if self._proc else "?"
            self._end("failed", self.tr("could not start the benchmark process ({program}): {error}")
                      .format(program=program, error=self._proc.errorString() if self._proc else ""))

    def _on_finished(self, exit_code: int, status: QProcess.ExitStatus) -> None:
        self._read_stdout()
        if self._buffer.strip():
            self._handle_line(self._buffer.decode("utf-8", "replace"))
            self._buffer = b""
        self._read_stderr()
        if self._cancelling:
            self._end("cancelled")
        elif self._result is not None and not self._error:
            self._end("finished", self._result)
        elif self._error:
            self._end("failed", self._error)
        else:
            tail = self._stderr_tail()
            if status == QProcess.ExitStatus.CrashExit:
                message = self.tr("the benchmark process crashed")
            else:
                message = self.tr("the benchmark process stopped (exit code {code}) without a "
                                  "result").format(code=exit_code)
            self._end("failed", f"{message}{': ' + tail if tail else ''}")

    def _stderr_tail(self) -> str:
        text = self._stderr.decode("utf-8", "replace").strip()
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return "\n".join(lines[-6:])

    def _end(self, how: str, payload: Any = None) -> None:
        if self._ended:
            return
        self._ended = True
        self.running_changed.emit(False)
        if how == "finished":
            self.finished.emit(payload)
        elif how == "failed":
            self.failed.emit(payload)
        else:
            self.cancelled.emit()
