"""What the app shows and is doing, without Qt: the application state the window renders.

napari's ``ViewerModel`` is the pattern: the window (accelgui.gui.main_window) keeps one
:class:`AppState`, sends it intents (a probe started or finished, a report opened, a benchmark
run...) through its plain methods, and redraws what :meth:`AppState.subscribe` says changed.
Workers stay in the GUI layer; every transition here is tested without Qt
(tests/test_appstate.py).

Which machine is shown is a :class:`Source` (the contract the views' ``set_source`` receive):
this computer ("live"), an opened report file ("report"), or a recorded tree replayed
("sysroot", the app started with ``--sysroot DIR``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from accelgui import l10n

KINDS = ("live", "report", "sysroot")
BENCH_MODES = ("quick", "full")
BUSY = ("probing", "advising")
#: longest machine name shown in a title (a report's hostname is data from another machine)
NAME_MAX = 64


@dataclass(frozen=True)
class Source:
    """Which machine the window shows. ``kind``: "live" (this computer), "report" (an opened
    report file, ``path``), "sysroot" (a recorded tree, ``path``); ``name``: a human name of
    that machine (never empty)."""

    kind: str
    name: str
    path: str | None = None

    @property
    def is_live(self) -> bool:
        """True only for this computer: what a benchmark, the monitor or Verify act on."""
        return self.kind == "live"

    def title(self, lang: str = "en") -> str:
        """The label above the pages and the window title: "This computer", "Report: <name>",
        "Recorded: <folder>"."""
        return self.name if self.is_live else l10n.tr(f"appstate.title.{self.kind}", lang, name=self.name)


def _readable(value) -> str | None:
    """``value`` as a short name, or None: empty, a redaction mark ("<redacted>", "<host>")
    and control characters or terminal escapes do not name a machine."""
    if not isinstance(value, str):
        return None
    from accelgui.export.sanitize import clean   # escape sequences, bidi overrides, the cut

    text = clean(value, limit=NAME_MAX).strip()
    if not text or (text.startswith("<") and text.endswith(">")):
        return None
    return text


def machine_name(report) -> str | None:
    """The name a report gives its machine: the host name, else the DMI vendor and product
    ("LENOVO 21CB"), else None (a redacted report without DMI). Never raises on odd data."""
    platform = getattr(report, "platform", None)
    if platform is None and isinstance(report, dict):
        platform = report.get("platform")
    get = platform.get if isinstance(platform, dict) else lambda key, default=None: getattr(platform, key, default)
    host = _readable(get("hostname"))
    if host:
        return host
    dmi = get("dmi") or {}
    if not isinstance(dmi, dict):
        return None
    parts = [_readable(dmi.get(key)) for key in ("sys_vendor", "product_name")]
    return _readable(" ".join(p for p in parts if p)) or None


def source_of(kind: str, report=None, path: str | None = None, lang: str = "en") -> Source:
    """The :class:`Source` of what is shown: for "live", "This computer"; for a report, its
    machine's name (else its file name); for a recorded tree, the tree's folder name."""
    if kind not in KINDS:
        raise ValueError(f"not a kind of source: {kind!r} (one of {', '.join(KINDS)})")
    if kind == "live":
        return Source("live", l10n.tr("appstate.this_computer", lang))
    folder = os.path.basename(str(path or "").rstrip("/")) or None
    if kind == "sysroot":
        return Source("sysroot", _readable(folder) or str(path or "/"), path)
    name = machine_name(report) or _readable(folder) or l10n.tr("appstate.unnamed_report", lang)
    return Source("report", name, path)


class AppState:
    """The report shown and where it came from, the knowledge and advice, the language, the
    benchmark run, a report being opened (the status line says so). Plain attributes, changed
    only through the methods below; each method tells the subscribers which attributes changed.

    Two reports are kept: ``live_report`` (this computer, or the recorded tree of
    ``sysroot``) and ``opened_report`` (a file); ``showing_live`` says which one is shown.
    Probing and advising are numbered: a result of an older run is dropped."""

    def __init__(self, sysroot: str = "/", lang: str = "en"):
        self.sysroot = sysroot or "/"
        self.lang = l10n.lang_code(lang)
        self.live_report = None
        self.opened_report = None
        self.opened_path: str | None = None
        self.showing_live = True
        self.kb = None
        self.done: frozenset = frozenset()
        self.busy: str | None = None                 # "probing" / "advising"
        self.probe_error: str | None = None
        self.advice_error: str | None = None
        self.opening: str | None = None              # the path of a report being opened
        self.bench_mode: str | None = None           # the running benchmark: "quick" / "full"
        self.bench_warnings: list = []               # the last finished run's warnings
        self.benchmark_at: float | None = None       # time.time() of the last finished run
        self.history_entry: dict | None = None       # benchmarks taken from the history
        self._pending_benchmarks: dict | None = None
        self._probe_gen = 0
        self._advise_gen = {"live": 0, "opened": 0}
        self._listeners: list[Callable[[frozenset], None]] = []

    # -- observing ----------------------------------------------------------------------
    def subscribe(self, listener: Callable[[frozenset], None]) -> None:
        """``listener(changed)`` after every transition, ``changed`` the attribute names."""
        self._listeners.append(listener)

    def _changed(self, *names: str) -> None:
        changed = frozenset(names)
        for listener in list(self._listeners):
            listener(changed)

    # -- what is shown ------------------------------------------------------------------
    @property
    def report(self):
        """The report shown now (None while this computer is still being probed)."""
        return self.live_report if self.showing_live else self.opened_report

    @property
    def recorded(self) -> bool:
        """The live side is a recorded tree (--sysroot), not the computer the app runs on."""
        return self.sysroot not in ("", "/")

    @property
    def source(self) -> Source:
        if not self.showing_live:
            return source_of("report", self.opened_report, self.opened_path, self.lang)
        if self.recorded:
            return source_of("sysroot", self.live_report, self.sysroot, self.lang)
        return source_of("live", lang=self.lang)

    def title(self) -> str:
        """What the window title says: the source's title, with this computer's host name."""
        source = self.source
        host = machine_name(self.live_report) if source.is_live else None
        return l10n.tr("appstate.title.live", self.lang, name=host) if host else source.title(self.lang)

    def replacing_needs_consent(self) -> bool:
        """Whether showing this computer now (a benchmark, probing again) would replace an
        opened report on screen: the window asks first."""
        return not self.showing_live and self.opened_report is not None

    def can_benchmark(self) -> bool:
        """A benchmark measures the computer the app runs on: never for a recorded tree."""
        return not self.recorded and self.bench_mode is None

    # -- probing and advising ------------------------------------------------------------
    def probe_started(self) -> int:
        """This computer is probed (again): returns the run's number for :meth:`probed`."""
        self._probe_gen += 1
        self.busy, self.probe_error = "probing", None
        self._changed("busy", "probe_error")
        return self._probe_gen

    def probed(self, gen: int, report) -> bool:
        """A probe run finished; False (dropped) when a newer one was started. Benchmark
        figures survive a new probe: those finished meanwhile, else the shown report's."""
        if gen != self._probe_gen:
            return False
        if self._pending_benchmarks is not None:
            report = report.replace(benchmarks=self._pending_benchmarks)
            self._pending_benchmarks = None
        elif self.live_report is not None and self.live_report.benchmarks and not report.benchmarks:
            report = report.replace(benchmarks=self.live_report.benchmarks)
        self.live_report, self.busy = report, "advising"
        self._changed("live_report", "busy")
        return True

    def probe_failed(self, gen: int, message: str) -> None:
        if gen != self._probe_gen:
            return
        self.busy, self.probe_error = None, message
        self._changed("busy", "probe_error")

    def advise_started(self, which: str) -> int:
        """The advisor runs for "live" or "opened": returns the run's number."""
        self._advise_gen[which] += 1
        if which == "live":
            self.busy = "advising"
            self._changed("busy")
        return self._advise_gen[which]

    def advised(self, which: str, gen: int, report, kb=None, done=None, error: str | None = None) -> bool:
        """The advisor's result; False (dropped) when a newer run of ``which`` was started."""
        if gen != self._advise_gen[which]:
            return False
        if which == "live":
            self.live_report, self.busy = report, None
        else:
            self.opened_report = report
        if kb is not None:
            self.kb = kb
        if done is not None:
            self.done = frozenset(done)
        self.advice_error = error
        self._changed("live_report" if which == "live" else "opened_report", "busy", "kb", "done",
                      "advice_error")
        return True

    def advise_failed(self, which: str, gen: int, message: str) -> None:
        if gen != self._advise_gen[which]:
            return
        if which == "live":
            self.busy = None
        self.advice_error = message
        self._changed("busy", "advice_error")

    def knowledge_loaded(self, kb, done) -> bool:
        """The knowledge base and the ticked steps; True when something new came."""
        changed = (self.kb is None and kb is not None) or frozenset(done) != self.done
        if self.kb is None:
            self.kb = kb
        self.done = frozenset(done)
        if changed:
            self._changed("kb", "done")
        return changed

    def set_done(self, done) -> None:
        self.done = frozenset(done)
        self._changed("done")

    def set_language(self, lang: str) -> None:
        self.lang = l10n.lang_code(lang)
        self._changed("lang")

    # -- reports ---------------------------------------------------------------------------
    def opening_started(self, path: str) -> None:
        """A report file is being read: the status line says so until it is open or failed."""
        self.opening = path
        self._changed("opening")

    def report_opened(self, path: str, report) -> None:
        self.opening = None
        self.opened_report, self.opened_path = report, os.path.abspath(path)
        self.showing_live = False
        self._changed("opening", "opened_report", "showing_live")

    def opening_failed(self, path: str) -> None:
        if self.opening == path:
            self.opening = None
            self._changed("opening")

    def show_live(self) -> None:
        self.showing_live = True
        self._changed("showing_live")

    # -- benchmarks ------------------------------------------------------------------------
    def benchmark_started(self, mode: str) -> None:
        """A run began: the previous run's warnings are no longer this run's."""
        if mode not in BENCH_MODES:
            raise ValueError(f"not a benchmark mode: {mode!r}")
        self.bench_mode, self.bench_warnings = mode, []
        self._changed("bench_mode", "bench_warnings")

    def benchmark_finished(self, benchmarks: dict, at: float) -> bool:
        """A run's section arrived: it replaces the live report's (a figure from the history
        included). False when there is no live report yet: the next probe takes it."""
        self.bench_mode, self.benchmark_at, self.history_entry = None, at, None
        warnings = benchmarks.get("warnings") if isinstance(benchmarks, dict) else None
        self.bench_warnings = list(warnings) if isinstance(warnings, list) else []
        if self.live_report is None:
            self._pending_benchmarks = benchmarks
            self._changed("bench_mode", "benchmark_at", "bench_warnings")
            return False
        self.live_report = self.live_report.replace(benchmarks=benchmarks)
        self._changed("bench_mode", "benchmark_at", "bench_warnings", "live_report", "history_entry")
        return True

    def benchmark_stopped(self) -> None:
        """The run failed or was cancelled: nothing new to show."""
        self.bench_mode = None
        self._changed("bench_mode")

    def attach_history(self, section: dict | None) -> bool:
        """At the start of a live session: a report without benchmark figures gets the newest
        stored section (accelgui.history.latest, which marks its date). True when attached."""
        report = self.live_report
        if section is None or report is None or report.benchmarks or self.recorded:
            return False
        self.live_report, self.history_entry = report.replace(benchmarks=section), section
        self._changed("live_report", "history_entry")
        return True
