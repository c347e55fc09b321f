"""Benchmarks: run quick or full, follow the progress, cancel; plots of what was measured.

Every figure comes through :mod:`accelgui.benchmarks` (the one reader of the benchmark
contract): headline figures with their repeat spread, peak and class reference, and the notices
of a disturbed or noisy run, shown in a banner with a re-run button.

The plots live in a scrolling page: the wheel scrolls the page, zooming and panning need the
plot's Zoom mode (a visible toggle with a Reset beside it), and the view never leaves the
data's range (ViewBox limits). pyqtgraph is imported only when the first plot is drawn.
"""

from __future__ import annotations

import inspect
import math
import os

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QPalette, QWheelEvent
from PySide6.QtWidgets import (QAbstractScrollArea, QApplication, QCheckBox, QComboBox, QFrame,
                               QGridLayout, QHBoxLayout, QHeaderView, QLabel, QProgressBar,
                               QPushButton, QSizePolicy, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from accelgui.l10n import render as render_message
from accelgui.l10n import tr as l10n_tr

from accelgui import benchmarks as bench_model
from accelgui.export import benchmarks as bench_export
from accelgui.export.common import dig, num
from accelgui.gui.views.common import (READINESS_COLOURS, Card, ViewState,
                                       fmt_bytes, fmt_num, heading, muted, scroll_page)

MEASURED = "#1e88e5"
THEORETICAL = "#9e9e9e"
PLOT_HEIGHT = 290
# Pause between two build steps (a plot, then showing its card). With a zero timer the steps
# and the repaints they cause run back to back, and Qt's GLib dispatcher holds every other timer
# (the monitor's, any animation) back until the loop goes idle; a step that then falls due
# together with such a timer runs first. 10 ms lets the loop go idle and the timers due in the
# meantime run before the next step.
BUILD_STEP_MS = 10
CACHE_LINE_COLOURS = {"l1d": "#43a047", "l2": "#fb8c00", "l3": "#8e24aa"}
CARDS = 5                 # cache sweep, roofline, measured vs theoretical, history, all figures
FIGURES_CARD = 4          # the full-width card under the plots
TABLE_HEIGHT = 420
TABLE_CHUNK = 12          # rows of the All figures table filled per event-loop turn
HISTORY_COLOURS = ("#1e88e5", "#e53935", "#43a047", "#8e24aa")

def cache_sweep(bench: dict) -> list[tuple[float, float]]:
    points = dig(bench, "cpu", "cache_sweep") or []
    out = []
    for p in points if isinstance(points, list) else []:
        if isinstance(p, dict) and num(p.get("bytes")) and num(p.get("gbps")) is not None:
            out.append((float(p["bytes"]), float(p["gbps"])))
    return sorted(out)


def cache_sizes(report) -> dict[str, float]:
    """Per-instance size of each data cache level (what one core's sweep runs into)."""
    sizes = {}
    for level in ("l1d", "l2", "l3"):
        entry = (report.cpu.caches or {}).get(level) if report is not None else None
        if isinstance(entry, dict) and num(entry.get("size_bytes")):
            instances = entry.get("instances") or 1
            sizes[level] = float(entry["size_bytes"]) / max(1, int(instances))
    return sizes


def gpu_results(bench: dict) -> list[dict]:
    """Per-device GPU figures of an upgraded section (accelgui.benchmarks), failed ones left out."""
    return [e for e in bench_model.gpu_devices(bench) if not e.get("error")]


def log_ticks(low: float, high: float) -> list[tuple[float, str]]:
    """Ticks of a log10 axis from ``low`` to ``high`` (in log10 units) at 1, 2 and 5 times the
    powers of ten (more steps over a short range), labelled as plain numbers ("20", "500"),
    not as powers."""
    ticks = []
    steps = (1, 2, 5) if high - low > 1.2 else (1, 1.5, 2, 3, 4, 5, 7)    # a short range: more
    for exp in range(math.floor(low), math.ceil(high) + 1):
        for mult in steps:
            value = mult * 10.0 ** exp
            if low <= math.log10(value) <= high:
                ticks.append((math.log10(value), fmt_num(value)))
    return ticks


_PLOT_CLASS = None


def page_plot_class(pg):
    """A PlotWidget that behaves inside a scrolling page: the wheel goes to the page unless the
    plot is in zoom mode; drag-to-pan likewise only in zoom mode (see :meth:`set_zoom_mode`)."""
    global _PLOT_CLASS
    if _PLOT_CLASS is None:
        class PagePlot(pg.PlotWidget):
            zoom_mode = False

            def set_zoom_mode(self, on: bool) -> None:
                self.zoom_mode = bool(on)
                self.setMouseEnabled(x=self.zoom_mode and self.zoom_x, y=self.zoom_mode and self.zoom_y)

            def wheelEvent(self, ev):
                if self.zoom_mode:
                    super().wheelEvent(ev)
                    return
                # to the scrolling page around the plot (Qt does not hand an ignored wheel
                # event on from a graphics view's viewport to the scroll area above it)
                area = self.parentWidget()
                while area is not None and not isinstance(area, QAbstractScrollArea):
                    area = area.parentWidget()
                if area is None:
                    ev.ignore()
                    return
                port = area.viewport()
                pos = QPointF(port.mapFromGlobal(ev.globalPosition().toPoint()))
                QApplication.sendEvent(port, QWheelEvent(
                    pos, ev.globalPosition(), ev.pixelDelta(), ev.angleDelta(), ev.buttons(),
                    ev.modifiers(), ev.phase(), ev.inverted()))
                ev.accept()

        PagePlot.zoom_x = PagePlot.zoom_y = True
        _PLOT_CLASS = PagePlot
    return _PLOT_CLASS


class BenchmarksView(QWidget):
    run_requested = Signal(str)     # "quick" | "full"
    cancel_requested = Signal()
    plots_ready = Signal()          # the plots of the last render are all built

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self._pg = None
        self._running = False
        self._phase: tuple[str, object] = ("idle", None)   # what the run line shows, see _show_phase
        self._rendered = None
        self._build_gen = 0
        self.building = False           # True while the plots are being built
        self._read_cache = None         # (benchmarks section, bench_model.read of it): see _read
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self._area, self._inner, body = scroll_page(self)
        outer.addWidget(self._area)
        self.title = heading("", 6)
        body.addWidget(self.title)
        self.intro = muted("")
        body.addWidget(self.intro)

        controls = Card()
        row = QHBoxLayout()
        self.mode = QComboBox()
        self.mode.addItem("", "quick")
        self.mode.addItem("", "full")
        row.addWidget(self.mode)
        self.run_button = QPushButton()
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.selected_mode()))
        row.addWidget(self.run_button)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        row.addWidget(self.cancel_button)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        row.addWidget(self.progress, 1)
        controls.body.addLayout(row)
        self.stage = QLabel("")
        self.stage.setWordWrap(True)
        self.stage.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        controls.body.addWidget(self.stage)
        self.stage.hide()
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet(
            f"QLabel {{ border: 1px solid {READINESS_COLOURS['driver-missing']}; border-radius: 6px;"
            f" padding: 8px; }}")
        self.error.hide()
        controls.body.addWidget(self.error)
        body.addWidget(controls)

        self.results = QWidget()
        self.results_layout = QVBoxLayout(self.results)
        self.results_layout.setContentsMargins(0, 0, 0, 0)
        self.message = muted("")
        self.results_layout.addWidget(self.message)
        # notices of a disturbed / noisy / throttled run, with a re-run action
        self.banner = QFrame()
        self.banner.setObjectName("benchNotices")
        self.banner.setStyleSheet(
            f"QFrame#benchNotices {{ border: 2px solid {READINESS_COLOURS['runtime-missing']};"
            f" border-radius: 6px; padding: 6px; }}")
        banner_row = QHBoxLayout(self.banner)
        self.banner_text = QLabel("")
        self.banner_text.setWordWrap(True)
        self.banner_text.setTextFormat(Qt.TextFormat.PlainText)
        self.banner_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner_row.addWidget(self.banner_text, 1)
        self.rerun_button = QPushButton()
        self.rerun_button.clicked.connect(lambda: self.run_requested.emit(self.selected_mode()))
        banner_row.addWidget(self.rerun_button, 0, Qt.AlignmentFlag.AlignTop)
        self.banner.hide()
        self.results_layout.addWidget(self.banner)
        self.grid_box = QWidget()
        grid = QGridLayout(self.grid_box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(12)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        self.card_titles, self._slots, self._note_slots, self._slot_widgets = [], [], [], []
        # Each card keeps room for a plot with its button row from the start, and its notes
        # go under that room: once the notes of all cards are in (one layout pass), showing a
        # plot moves (and repaints) nothing else; a resized page repainted every plot on it.
        plot_room = PLOT_HEIGHT + QPushButton("Zoom").sizeHint().height() + 6
        for i in range(CARDS):
            card = Card()
            title = heading("", 1)
            card.body.addWidget(title)
            if i == FIGURES_CARD:
                self.raw_toggle = QCheckBox()
                self.raw_toggle.toggled.connect(lambda _on: self._fill_table())
                card.body.addWidget(self.raw_toggle)
            holder = QWidget()
            holder.setMinimumHeight(TABLE_HEIGHT if i == FIGURES_CARD else plot_room)
            slot = QVBoxLayout(holder)
            slot.setContentsMargins(0, 0, 0, 0)
            card.body.addWidget(holder)
            notes = QVBoxLayout()
            card.body.addLayout(notes)
            card.body.addStretch(1)
            if i == FIGURES_CARD:
                grid.addWidget(card, i // 2, 0, 1, 2)
            else:
                grid.addWidget(card, i // 2, i % 2)
            self.card_titles.append(title)
            self._slots.append(slot)
            self._note_slots.append(notes)
            self._slot_widgets.append([])
        self.results_layout.addWidget(self.grid_box)
        self.grid_box.hide()
        self.results_layout.addStretch(1)
        self._plots: dict = {}          # persistent PlotWidgets, created once
        self._frames: dict = {}         # each plot with its Zoom / Reset buttons
        self._table: QTableWidget | None = None
        self._table_source = None       # (report, section) the table shows
        self._history_cache = None      # (history_stamp, trend): see history_runs
        self._key_cache = None          # (report, its machine key): see history_stamp
        self._source = None             # accelgui.appstate.Source of the machine shown
        body.addWidget(self.results, 1)
        body.addStretch(0)
        self.set_running(False)
        self.retranslate()

    def _t(self, key: str, **params) -> str:
        """Text of the bench catalogue (accelgui/l10n/*/bench.json) in the page's language."""
        return l10n_tr(f"bench.ui.{key}", self.state.lang, **params)

    def selected_mode(self) -> str:
        return self.mode.currentData() or "quick"

    def set_source(self, source) -> None:
        """Which machine the page shows (accelgui.appstate.Source): an opened report or a
        replayed folder says "Measured on <machine>", and the run buttons say they would
        measure this computer."""
        self._source = source
        self._source_texts()

    def shows_this_computer(self) -> bool:
        """True when the figures shown are of this computer (a live session)."""
        if self._source is not None:
            return bool(getattr(self._source, "is_live", False))
        return bool(self.state.live)

    def _source_texts(self) -> None:
        lang = self.state.lang
        if self.shows_this_computer():
            self.intro.setText(self.tr(
                "Measured on this machine in a separate process: memory bandwidth (STREAM), "
                "floating-point throughput (FMA), cache behaviour. Quick takes a few seconds; full "
                "takes longer and is more precise. The window stays usable while it runs."))
            self.run_button.setText(self.tr("Run benchmark"))
            self.run_button.setToolTip("")
            return
        name = getattr(self._source, "name", None) or self._report_machine()
        tree = getattr(self._source, "kind", None) == "sysroot"
        self.intro.setText(l10n_tr("figures.ui.recorded_tree" if tree else "figures.ui.measured_on", lang,
                                   machine=name))
        self.run_button.setText(l10n_tr("figures.ui.run_here", lang))
        self.run_button.setToolTip(l10n_tr("figures.ui.run_here_tip", lang))

    def _report_machine(self) -> str:
        """A name of the machine in the shown report (its host, else its CPU), for a page that
        was given no Source."""
        report = self.state.report
        plat = getattr(report, "platform", None)
        cpu = getattr(report, "cpu", None)
        return (getattr(plat, "hostname", None) or getattr(cpu, "model_name", None)
                or l10n_tr("figures.ui.other_machine", self.state.lang))

    def retranslate(self) -> None:
        self.title.setText(self.tr("Benchmarks"))
        self._source_texts()
        self.mode.setItemText(0, self.tr("Quick"))
        self.mode.setItemText(1, self.tr("Full"))
        self.cancel_button.setText(self.tr("Cancel"))
        for label, text in zip(self.card_titles, (self.tr("Cache sweep"), self.tr("Roofline"),
                                                  self.tr("Measured vs theoretical"), None,
                                                  self.tr("All figures"))):
            if text is not None:          # the history's title is the catalogue's (render)
                label.setText(text)
        self._show_phase()
        self.render(self.state)

    def _catalogue_texts(self) -> None:
        """Texts from the bench catalogue, in the language of the rendered state."""
        self.rerun_button.setText(self._t("rerun"))
        self.card_titles[3].setText(l10n_tr("figures.ui.history", self.state.lang))
        self.raw_toggle.setText(l10n_tr("figures.ui.show_raw", self.state.lang))
        for frame in self._frames.values():
            frame.zoom.setText(self._t("zoom"))
            frame.zoom.setToolTip(self._t("zoom_tip"))
            frame.reset.setText(self._t("reset"))

    # -- run state, driven by the main window ------------------------------------------------
    def _set_stage(self, text: str) -> None:
        self.stage.setText(text)
        self.stage.setVisible(bool(text))

    def _show_phase(self) -> None:
        """The progress bar's text, the stage line and the error box for the run state, in the
        current language (called again by retranslate, so a language switch leaves no English)."""
        phase, data = self._phase
        formats = {"idle": self.tr("idle"), "running": "%p%", "finished": "%p%",
                   "cancelled": self.tr("cancelled"), "failed": self.tr("failed")}
        self.progress.setFormat(formats[phase])
        if phase == "running" and isinstance(data, dict):
            message = str(data.get("message") or "")
            self._set_stage(self.tr("Stage: {stage}").format(stage=str(data.get("stage") or ""))
                            + (f" — {message}" if message else ""))
        elif phase == "running":
            self._set_stage(self.tr("Starting the benchmark process…"))
        elif phase == "finished":
            self._set_stage(self.tr("Finished. The results below are part of the report now."))
        elif phase == "cancelled":
            self._set_stage(self.tr("Benchmark cancelled."))
        else:
            self._set_stage("")
        if phase == "failed":
            self.error.setText(self.tr("The benchmark did not complete: {message}\nThe rest of the "
                                       "app is unaffected; you can run it again.").format(message=data))
        self.error.setVisible(phase == "failed")

    def set_running(self, running: bool, mode: str | None = None) -> None:
        self._running = running
        if mode is not None and self.mode.findData(mode) >= 0:
            self.mode.setCurrentIndex(self.mode.findData(mode))
        self.run_button.setEnabled(not running)
        self.rerun_button.setEnabled(not running)
        if running:
            self.banner.hide()          # the previous run's notices are not this run's
        else:                           # the notices of the results shown, if any
            self.banner.setVisible(bool(self.banner_text.text()))
        self.mode.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setValue(0)
            self._phase = ("running", None)
            self._show_phase()
            if not (self.state.report is not None and self.state.report.benchmarks):
                self.render(self.state)

    def show_progress(self, event: dict) -> None:
        fraction = event.get("fraction")
        if isinstance(fraction, (int, float)):
            self.progress.setValue(int(max(0.0, min(1.0, float(fraction))) * 1000))
        self._phase = ("running", event)
        self._show_phase()

    def show_finished(self) -> None:
        self.progress.setValue(1000)
        self._phase = ("finished", None)
        self._show_phase()

    def show_cancelled(self) -> None:
        self.progress.setValue(0)
        self._phase = ("cancelled", None)
        self._show_phase()

    def show_error(self, message: str) -> None:
        self.progress.setValue(0)
        self._phase = ("failed", message)
        self._show_phase()

    # -- results -----------------------------------------------------------------------------
    def render(self, state: ViewState) -> None:
        old_bench = self.state.report.benchmarks if self.state.report is not None else None
        self.state = state
        self._catalogue_texts()
        self._source_texts()
        report = state.report
        raw = report.benchmarks if report is not None else None
        try:
            bench = self._read(report) if report is not None else None
        except bench_model.BenchmarkError as exc:
            bench = {"error": str(exc)}
        self.run_button.setEnabled(not self._running)
        self._show_notices(report if isinstance(bench, dict) and "contract" in bench else None, state.lang)
        if not isinstance(bench, dict) or not bench or (bench.get("error") and not bench.get("cpu")):
            self._build_gen += 1
            self.building = False
            self._rendered = None
            self.grid_box.hide()
            if isinstance(bench, dict) and bench.get("error"):
                text = self.tr("The benchmark recorded in this report failed: {error}").format(
                    error=bench["error"])
            elif self._running:
                text = self.tr("Measuring… the plots appear here when the run finishes.")
            elif state.live:
                text = self.tr("No measurements yet. Press Run benchmark (Ctrl+B) to measure this machine.")
            else:
                text = self.tr("This report carries no benchmark results.")
            self.message.setText(text)
            self.message.show()
            return
        key = (id(raw), id(report.cpu), state.lang, self.palette().color(QPalette.ColorRole.Base).name(),
               self.history_stamp(report))     # a run recorded since: the history card changes
        if key == self._rendered and raw is old_bench:
            return  # same figures (e.g. only the routes changed): nothing to redraw
        self._rendered = key
        self.message.hide()
        self.grid_box.show()
        # One plot per event-loop turn (a builder that is a generator: one part of its plot per
        # turn, up to each ``yield``), and its card shown in the next one (where it is painted):
        # the window keeps answering while results arrive.
        builders = (self._cache_plot, self._roofline_plot, self._bars_plot, self._history_plot,
                    self._figures_part)
        self._build_gen += 1
        gen = self._build_gen

        built: list = []               # (main widget, notes) of each card

        def build(i=0, steps=None):
            if gen != self._build_gen:
                return
            if steps is None:
                steps = builders[i](self._pyqtgraph(), report, bench)
            if inspect.isgenerator(steps):
                try:
                    next(steps)
                except StopIteration as end:
                    steps = end.value
                else:
                    QTimer.singleShot(BUILD_STEP_MS, self, lambda: build(i, steps))
                    return
            built.append(steps)
            QTimer.singleShot(BUILD_STEP_MS, self, lambda: build(i + 1) if i + 1 < len(builders) else notes())

        def notes():                    # every card's notes in one turn: the page's final size
            if gen != self._build_gen:
                return
            for i, (main, texts) in enumerate(built):
                self._set_notes(i, main, texts)
            QTimer.singleShot(BUILD_STEP_MS, self, fill)

        def fill(i=0):                  # then each card's plot, in a turn of its own
            if gen != self._build_gen:
                return
            if i >= len(built):
                self.building = False
                self.plots_ready.emit()
                return
            self._set_main(i, built[i][0])
            QTimer.singleShot(BUILD_STEP_MS, self, lambda: fill(i + 1))

        self.building = True
        QTimer.singleShot(BUILD_STEP_MS, self, build)

    def _read(self, report) -> dict | None:
        """``bench_model.read(report)``, validated once per benchmark section: the plots, the bars, the
        table and the notices of one render all need it, and reading costs ~10 ms."""
        raw = bench_model._section(report)
        cached = self._read_cache
        if cached is not None and cached[0] is raw:
            return cached[1]
        bench = bench_model.read(report)
        self._read_cache = (raw, bench)     # keeps ``raw`` alive, so its id is not reused
        return bench

    def _show_notices(self, report, lang: str) -> None:
        notes = bench_model.notices(report, self._read(report)) if report is not None else []
        self.banner_text.setText("\n".join("⚠ " + bench_export.notice_text(m, lang) for m in notes))
        self.banner.setVisible(bool(notes) and not self._running)   # a new run: old notices go
        self.rerun_button.setEnabled(not self._running)

    def notices_text(self) -> str:
        """The banner's text (empty when the run had nothing to say)."""
        return self.banner_text.text() if self.banner.isVisibleTo(self) else ""

    def prepare_plots(self, done=None) -> None:
        """Create the plot widgets ahead of time, once pyqtgraph is imported, so that the first
        results do not pay for them: each plot's item, then its widget and frame, every step
        in an event-loop turn of its own, BUILD_STEP_MS apart (a plot made in one go held the
        loop for 40-100 ms while a benchmark ran). ``done()`` is called after the last step."""
        keys = [k for k in ("cache", "roofline", "bars", "history") if k not in self._plots]
        items: dict = {}

        def step(i=0):
            if i >= 2 * len(keys):
                if done is not None:
                    done()
                return
            key = keys[i // 2]
            if key not in self._plots:       # a render may have made it meanwhile
                if i % 2 == 0:
                    items[key] = self._pyqtgraph().PlotItem(enableMenu=False)
                else:
                    self._create_plot(self._pyqtgraph(), key, items.pop(key))
                    self._frames[key].hide()
            QTimer.singleShot(BUILD_STEP_MS, self, lambda: step(i + 1))
        step()

    def _set_notes(self, i: int, main: QWidget, notes: list) -> None:
        """Card ``i``'s notes; what it showed before, other than ``main``, goes (the persistent
        plot frames and table are only hidden)."""
        for widget in self._slot_widgets[i]:
            if widget is main:
                continue
            widget.hide()
            if widget not in self._frames.values() and widget is not self._table:
                widget.setParent(None)
                widget.deleteLater()
        labels = [muted(text) for text in notes]
        for label in labels:
            self._note_slots[i].addWidget(label)
        self._slot_widgets[i] = [main] + labels

    def _set_main(self, i: int, main: QWidget) -> None:
        """Show card ``i``'s plot (or table, or message) in the room kept for it."""
        if self._slots[i].indexOf(main) < 0:
            if isinstance(main, QLabel):       # a message in place of a plot: at the top
                main.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            self._slots[i].addWidget(main, 1)
        main.show()

    def _figures_part(self, pg, report, bench):
        table = yield from self._figures_table(report, bench)
        return table, []

    def _pyqtgraph(self):
        if self._pg is None:
            import pyqtgraph as pg

            pg.setConfigOptions(antialias=True)
            self._pg = pg
        return self._pg

    def _new_plot(self, pg, key: str, x_label: str, y_label: str, logx=False, logy=False):
        """The persistent plot ``key``, cleared and set up (created on first use)."""
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.Text)
        widget = self._plots.get(key)
        if widget is None:
            widget = self._create_plot(pg, key)
        else:
            widget.setBackground(pal.color(QPalette.ColorRole.Base))
        item = widget.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(text))
            axis.setTextPen(pg.mkPen(text))
            axis.enableAutoSIPrefix(False)
            axis.setTicks(None)
        item.setLabel("bottom", x_label)
        item.setLabel("left", y_label)
        item.setLogMode(x=logx, y=logy)
        item.showGrid(x=True, y=True, alpha=0.2)
        item.getViewBox().setLimits(xMin=-1e307, xMax=1e307, yMin=-1e307, yMax=1e307,
                                    maxXRange=None, maxYRange=None)   # pyqtgraph's defaults
        item.enableAutoRange()
        widget.zoom_x = widget.zoom_y = True
        self._frames[key].zoom.setChecked(False)
        self._frames[key].zoom.show()
        self._frames[key].reset.show()
        widget.set_zoom_mode(False)
        widget.setToolTip("")
        return widget

    def _create_plot(self, pg, key: str, item=None):
        """The persistent plot ``key`` and its frame, around ``item`` (a PlotItem) if given.
        No context menus: the plots have none (their items would cost a third of the plot)."""
        widget = page_plot_class(pg)(background=self.palette().color(QPalette.ColorRole.Base),
                                     plotItem=item or pg.PlotItem(enableMenu=False))
        # a fixed height: a plot that changes does not resize (and repaint) its neighbours
        widget.setFixedHeight(PLOT_HEIGHT)
        widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        widget.setMenuEnabled(False)
        widget.hideButtons()        # pyqtgraph's own auto-range "A": our Reset replaces it
        self._plots[key] = widget
        self._frames[key] = self._plot_frame(widget)
        return widget

    def _plot_frame(self, plot) -> QWidget:
        """The plot with a Zoom toggle and a Reset view button under it."""
        frame = QWidget()
        lay = QVBoxLayout(frame)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(plot)
        row = QHBoxLayout()
        frame.zoom = QPushButton(self._t("zoom"))
        frame.zoom.setToolTip(self._t("zoom_tip"))
        frame.zoom.setCheckable(True)
        frame.zoom.toggled.connect(plot.set_zoom_mode)
        frame.reset = QPushButton(self._t("reset"))
        frame.reset.clicked.connect(lambda: self.reset_view(plot))
        row.addStretch(1)
        row.addWidget(frame.zoom)
        row.addWidget(frame.reset)
        lay.addLayout(row)
        frame.plot = plot
        return frame

    @staticmethod
    def reset_view(plot) -> None:
        plot.getPlotItem().enableAutoRange()
        plot.getPlotItem().autoRange()

    @staticmethod
    def limit_to(plot, xs, ys, pad: float = 0.08) -> None:
        """Keep the view inside the data's range (in view coordinates: log10 on log axes)."""
        def bounds(vals):
            lo, hi = min(vals), max(vals)
            span = (hi - lo) or abs(hi) or 1.0
            return lo - pad * span, hi + pad * span
        (x0, x1), (y0, y1) = bounds(xs), bounds(ys)
        plot.getPlotItem().getViewBox().setLimits(xMin=x0, xMax=x1, yMin=y0, yMax=y1,
                                                  maxXRange=x1 - x0, maxYRange=y1 - y0)

    def _cache_plot(self, pg, report, bench) -> QWidget:
        points = cache_sweep(bench)
        if not points:
            return muted(self.tr("No cache sweep in these results (the full benchmark measures it).")), []
        plot = self._new_plot(pg, "cache", self.tr("working set"), self.tr("bandwidth (GB/s)"), logx=True)
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        plot.plot(xs, ys, pen=pg.mkPen(MEASURED, width=2), symbol="o", symbolSize=5,
                  symbolBrush=MEASURED, symbolPen=None, name=self.tr("measured"))
        ticks = []
        size = 1024
        while size <= xs[-1] * 2:
            if size >= xs[0] / 2:
                ticks.append((math.log10(size), fmt_bytes(size)))
            size *= 16
        plot.getPlotItem().getAxis("bottom").setTicks([ticks, []])
        text = self.palette().color(QPalette.ColorRole.Text)
        for i, (level, size) in enumerate(cache_sizes(report).items()):
            colour = CACHE_LINE_COLOURS[level]
            line = pg.InfiniteLine(pos=math.log10(size), angle=90,
                                   pen=pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine),
                                   label=f"{level.upper()} {fmt_bytes(size)}",
                                   labelOpts={"position": 0.95 - 0.08 * i, "color": text,
                                              "anchors": [(0, 0.5), (0, 0.5)]})
            plot.addItem(line)
        self.limit_to(plot, [math.log10(x) for x in xs], [0.0] + ys)
        plot.setToolTip(self.tr("Bandwidth of one core as the working set grows: it steps down "
                                "where the data stops fitting in each cache level (dashed lines)."))
        return self._frames["cache"], []

    def _roofline_plot(self, pg, report, bench) -> QWidget:
        data = bench_export.roofline_data(bench, self.state.lang)
        if data is None:
            return muted(self.tr("Not enough figures for a roofline.")), []
        roof, theo, points = data["roof"], data["theoretical"], data["points"]
        bw = (roof or theo)["gbps"]
        top = (theo or roof)["gflops"]
        plot = self._new_plot(pg, "roofline", self.tr("arithmetic intensity (flop/byte)"),
                              self.tr("performance (GFLOP/s)"), logx=True, logy=True)
        yield               # each curve and point with its legend entry costs ~8 ms: one a turn
        plot.addLegend(offset=(10, 10), labelTextColor=self.palette().color(QPalette.ColorRole.Text))
        hi = max([64.0] + [p["flops_per_byte"] * 2 for p in points if p["flops_per_byte"]])
        steps = int(math.ceil(math.log2(hi) * 4))
        xs = [2 ** (k / 4) for k in range(-28, steps + 1)]  # 1/128 flop/byte .. beyond the points
        if theo:
            plot.plot(xs, [min(theo["gflops"], x * theo["gbps"]) for x in xs],
                      pen=pg.mkPen(THEORETICAL, width=2, style=Qt.PenStyle.DashLine), name=theo["label"])
            yield
        if roof:
            plot.plot(xs, [min(roof["gflops"], x * roof["gbps"]) for x in xs],
                      pen=pg.mkPen(MEASURED, width=2), name=roof["label"])
            yield
        colours = ("#e53935", "#fb8c00", "#43a047", "#8e24aa")
        ys = [min(top, xs[0] * bw), top, (roof or theo)["gflops"]]
        for point, colour in zip(points, colours * 3):
            x = point["flops_per_byte"] or xs[-1] / 1.5   # compute-only kernels sit at the right edge
            ys.append(point["gflops"])
            plot.plot([x], [point["gflops"]], pen=None, symbol="o", symbolSize=11, symbolBrush=colour,
                      symbolPen=pg.mkPen("#ffffff"), name=bench_export.point_text(point, self.state.lang))
            yield
        self.limit_to(plot, [math.log10(xs[0]), math.log10(xs[-1])],
                      [math.log10(y) for y in ys if y and y > 0])
        plot.setToolTip(self.tr("Measured kernels (dots) under the roofs: memory-bound on the "
                                "sloped part, compute-bound on the flat part.") + "\n"
                        + l10n_tr("figures.stat.explain", self.state.lang))
        return self._frames["roofline"], []

    # the figures followed across runs: (dotted path, catalogue id, unit); {} = the first GPU
    HISTORY_FIGURES = (("cpu.stream.triad_gbps", "figures.q.triad_mt", "GB/s"),
                       ("cpu.fma.fp64_gflops_mt", "figures.q.fp64_mt", "GFLOP/s"),
                       ("gpu.0.triad_gbps", "figures.q.gpu_triad", "GB/s"))

    def history_stamp(self, report):
        """(machine key, file, inode, mtime, size) of the stored trend of the machine shown
        (else of its full history), or None when nothing is stored: what tells a redraw that
        a run was recorded since."""
        from accelgui import history

        if report is None:
            return None
        if self._key_cache is None or self._key_cache[0] is not report:
            try:
                self._key_cache = (report, history.machine_key(report.to_dict()))
            except (ValueError, AttributeError):
                self._key_cache = (report, None)
        key = self._key_cache[1]
        for path in (history.trend_path(key), history.history_path(key)) if key else ():
            try:                                  # the trend, else the runs it comes from
                st = os.stat(path)
                return (key, path, st.st_ino, st.st_mtime_ns, st.st_size)
            except OSError:
                continue
        return None

    def history_runs(self, report) -> list[dict]:
        """The trend of the machine shown (``accelgui.history.trend``: each stored run's date,
        mode and headline medians), read again only when its file changed: the one file this
        page reads itself (a few KiB; the full history stays unread)."""
        from accelgui import history

        stamp = self.history_stamp(report)
        if stamp is None:
            return []
        if self._history_cache is None or self._history_cache[0] != stamp:
            self._history_cache = (stamp, history.trend(stamp[0]))
        return self._history_cache[1]

    def history_lines(self, runs: list[dict]) -> list[str]:
        """One line per stored run, newest five: date, mode, the followed figures (medians)."""
        lang = self.state.lang
        lines = []
        for run in runs[-5:]:
            figs = []
            for path, label_id, unit in self.HISTORY_FIGURES:
                value = run["figures"].get(path)
                if isinstance(value, (int, float)):
                    figs.append(f"{l10n_tr(label_id, lang)} {fmt_num(value)} {unit}")
            mode = run.get("mode") if run.get("mode") in ("quick", "full") else "unknown"
            when = str(run.get("when") or "?")[:16].replace("T", " ")
            lines.append(l10n_tr("figures.history.run_line", lang, date=when,
                                 mode=l10n_tr(f"figures.mode.{mode}", lang), figures=" · ".join(figs)))
        return lines

    def comparison_lines(self, bench, limit: int = 4) -> list[str]:
        """This run's medians beside the published figures nearest to them (within a factor
        of ten; the nearest one when none is)."""
        from urllib.parse import urlsplit

        from accelgui import reference_machines

        lang = self.state.lang
        rows = sorted(reference_machines.comparison(bench), key=lambda c: abs(math.log(c["share"])))
        near = [c for c in rows if 0.1 <= c["share"] <= 10.0] or rows[:1]   # within 10x, else the nearest
        lines = []
        for c in near[:limit]:
            ref = c["reference"]
            lines.append(l10n_tr("figures.history.compare_line", lang, name=ref["name"],
                                 ref=fmt_num(c["reference_value"]), unit=c["unit"],
                                 how=l10n_tr(f"figures.how.{ref['figure']}", lang),
                                 source=urlsplit(ref["source"]).hostname or ref["source"],
                                 date=ref["as_of"], value=fmt_num(c["value"]),
                                 pct=fmt_num(round(100.0 * c["share"], 1))))
        return lines

    def _history_plot(self, pg, report, bench):
        lang = self.state.lang
        runs = self.history_runs(report)
        notes = []
        compare = self.comparison_lines(bench)
        if compare:
            notes = [l10n_tr("figures.history.compare_head", lang)] + compare
        series = []
        for path, label_id, unit in self.HISTORY_FIGURES:
            points = [(i + 1, float(v)) for i, run in enumerate(runs)
                      if isinstance(v := run["figures"].get(path), (int, float)) and v > 0]
            if points:
                series.append((f"{l10n_tr(label_id, lang)} ({unit})", points))
        if not series:
            return muted(l10n_tr("figures.history.none", lang)), notes
        plot = self._new_plot(pg, "history", l10n_tr("figures.history.axis_run", lang),
                              l10n_tr("figures.history.axis_value", lang), logy=True)
        yield
        plot.addLegend(offset=(10, 10), labelTextColor=self.palette().color(QPalette.ColorRole.Text))
        for (name, points), colour in zip(series, HISTORY_COLOURS):
            plot.plot([x for x, _ in points], [y for _, y in points], pen=pg.mkPen(colour, width=2),
                      symbol="o", symbolSize=7, symbolBrush=colour, symbolPen=None, name=name)
            yield
        step = max(1, len(runs) // 6)
        ticks = [(i + 1, str(run.get("when") or "")[5:10]) for i, run in enumerate(runs) if i % step == 0]
        plot.getPlotItem().getAxis("bottom").setTicks([ticks, []])
        ys = [math.log10(y) for _, points in series for _, y in points]
        low, high = min(ys) - 0.3, max(ys) + 0.5
        plot.getPlotItem().getAxis("left").setTicks([log_ticks(low, high), []])
        self.limit_to(plot, [0.5, len(runs) + 0.5], ys + [low, high])
        plot.setToolTip(l10n_tr("figures.history.tip", lang))
        notes = [l10n_tr("figures.history.count", lang, n=len(runs))] + self.history_lines(runs) + notes
        return self._frames["history"], notes

    def bar_rows(self, report, bench) -> list[tuple[str, float, float | None, str, dict]]:
        """[(label, median, theoretical or None, unit, headline row)] for the bar chart, from
        the reader's headline figures (the first GPU stands for all of them)."""
        labels = {"cpu.fma.fp64_gflops_mt": self.tr("CPU FP64\nall cores"),
                  "cpu.fma.fp64_gflops_1t": self.tr("CPU FP64\none core"),
                  "cpu.fma.fp32_gflops_mt": self.tr("CPU FP32\nall cores"),
                  "cpu.stream.triad_gbps": self.tr("Memory\n(STREAM triad)")}
        gpus = gpu_results(bench)
        if gpus:
            idx = gpus[0].get("index")
            suffix = f" ×{len(gpus)}" if len(gpus) > 1 else ""
            labels[f"gpu.{idx}.triad_gbps"] = self.tr("GPU memory") + "\n" + self.tr("(one device)") + suffix
            labels[f"gpu.{idx}.fp32_gflops"] = self.tr("GPU FP32") + "\n" + self.tr("(one device)") + suffix
        rows = {r["key"]: r for r in bench_model.headline(report, self._read(report))}
        out = []
        for key, label in labels.items():
            row = rows.get(key)
            if row is None or (key == "cpu.fma.fp32_gflops_mt" and not row["peak"]):
                continue
            out.append((label, row["value"], row["peak"], row["unit"], row))
        return out

    def _bars_plot(self, pg, report, bench):
        all_rows = self.bar_rows(report, bench)
        rows = [r for r in all_rows if r[2]]
        notes = []
        if not all_rows:
            return muted(self.tr("No throughput figures in these results.")), []
        if rows:
            notes.append(l10n_tr("figures.legend.bars", self.state.lang))
        for label, measured, _ref, unit, row in all_rows:
            if not _ref:
                note = self.tr("{what}: {value} {unit} measured (no theoretical peak known)").format(
                    what=label.replace("\n", " "), value=fmt_num(measured), unit=unit)
                ref = row.get("reference")
                if ref:
                    note += self._t("typical_note", klass=ref["label"], low=fmt_num(ref["typical_low"]),
                                    high=fmt_num(ref["typical_high"]), unit=ref["unit"])
                notes.append(note)
        if not rows:
            return muted(notes.pop(0)), notes
        plot = self._new_plot(pg, "bars", "", self.tr("% of theoretical peak"))
        text = self.palette().color(QPalette.ColorRole.Text)
        measured_x, measured_h, ticks, low, high = [], [], [], [], []
        for i, (label, measured, ref, unit, row) in enumerate(rows):
            x = i * 3.0
            ticks.append((x + 0.5, label))
            pct = 100.0 * measured / ref
            measured_x.append(x)
            measured_h.append(pct)
            s = row["spread"]
            low.append(pct - 100.0 * s["min"] / ref if s.get("min") is not None else 0.0)
            high.append(100.0 * s["max"] / ref - pct if s.get("max") is not None else 0.0)
            item = pg.TextItem(f"{pct:.0f}%\n{fmt_num(measured)}\n{unit}", color=text, anchor=(0.5, 1.0))
            item.setPos(x + 0.5, max(pct, 100.0) + 2)
            plot.addItem(item)
        plot.addItem(pg.BarGraphItem(x=measured_x, height=measured_h, width=0.9, brush=MEASURED))
        if any(low) or any(high):   # whiskers: the slowest and fastest repeat
            import numpy as np

            plot.addItem(pg.ErrorBarItem(x=np.array(measured_x), y=np.array(measured_h),
                                         bottom=np.array(low), top=np.array(high), beam=0.3,
                                         pen=pg.mkPen(text, width=1.5)))
        plot.addItem(pg.BarGraphItem(x=[x + 1 for x in measured_x], height=[100.0] * len(rows),
                                     width=0.9, brush=THEORETICAL))
        axis = plot.getPlotItem().getAxis("bottom")
        axis.setTicks([ticks])
        axis.setHeight(44)
        top = max([h + t for h, t in zip(measured_h, high)] + [100.0]) * 1.45
        plot.getPlotItem().setYRange(0, top)
        plot.getPlotItem().setXRange(-1, len(rows) * 3 - 1, padding=0)
        plot.zoom_x = plot.zoom_y = False     # nothing to zoom in a bar chart
        self._frames["bars"].zoom.hide()
        self._frames["bars"].reset.hide()
        plot.getPlotItem().getViewBox().setLimits(xMin=-1, xMax=len(rows) * 3 - 1, yMin=0, yMax=top)
        plot.setToolTip(self.tr("Blue: measured, as a percentage of the theoretical peak (grey).")
                        + " " + self._t("whiskers"))
        return self._frames["bars"], notes

    def headline_rows(self, report) -> list[tuple[str, str, str, str, str]]:
        """(figure, median, range of the repeats, repeats, % of peak and class range) of each
        headline figure."""
        lang = self.state.lang
        out = []
        for row in bench_model.headline(report, self._read(report)):
            s = row["spread"]
            spread = ""
            if s.get("min") is not None and s.get("max") is not None:   # as in the groups below
                spread = f"{fmt_num(s['min'])} {row['unit']} – {fmt_num(s['max'])} {row['unit']}"
            context = []
            if row["pct_of_peak"] is not None:
                context.append(self._t("pct_of_peak", pct=fmt_num(row["pct_of_peak"])))
            ref = row.get("reference")
            if ref:
                context.append(self._t("typical", low=fmt_num(ref["typical_low"]), high=fmt_num(ref["typical_high"]))
                               + f" ({render_message(ref['label'], lang)})")
            name = render_message(row["label"], lang) + (" ⚠" if row["noisy"] else "")
            out.append((name, f"{fmt_num(row['value'])} {row['unit']}", spread,
                        str(s["n"]) if s.get("n") and spread else "", " · ".join(context)))
        return out

    def figure_table_rows(self, report, bench, raw: bool = False) -> list[tuple]:
        """The rows of the All figures table: group titles as 1-tuples, then (quantity, median,
        range, repeats, context) rows; with ``raw`` the (key, value) of every leaf instead."""
        if raw:
            return [(key, value) for key, value in bench_export.raw_rows(bench)]
        lang = self.state.lang
        rows: list[tuple] = []
        head = self.headline_rows(report)
        if head:
            rows.append((l10n_tr("figures.ui.headline", lang),))
            rows.extend(head)
        for title, group in bench_export.figure_groups(bench, lang):
            rows.append((title,))
            rows.extend((r["quantity"], r["value"], r["range"], r["runs"], "") for r in group)
        return rows

    def _figures_table(self, report, bench):
        """The All figures table, filled TABLE_CHUNK rows per event-loop turn (a builder with
        steps, see render)."""
        table = self._table
        if table is None:
            table = QTableWidget(0, 5)
            table.verticalHeader().setVisible(False)
            table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
            table.setAlternatingRowColors(True)
            table.setFrameShape(QFrame.Shape.NoFrame)
            table.setWordWrap(False)
            table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
            table.setFixedHeight(TABLE_HEIGHT)
            self._table = table
        self._table_source = (report, bench)
        for _ in self._fill_steps():
            yield
        return table

    def _fill_table(self) -> None:
        """Fill the All figures table at once (the raw-keys toggle)."""
        for _ in self._fill_steps():
            pass

    def _fill_steps(self):
        """Fill the All figures table: the grouped figures in words, or the raw keys; yields
        after every TABLE_CHUNK rows. Column widths come from the texts' advance once at the
        end (a column sized to its contents re-measured itself on every cell set)."""
        table, source = self._table, self._table_source
        if table is None or source is None:
            return
        raw = self.raw_toggle.isChecked()
        lang = self.state.lang
        rows = self.figure_table_rows(*source, raw=raw)
        heads = ([l10n_tr("figures.col.key", lang), l10n_tr("figures.col.raw_value", lang)] if raw else
                 [l10n_tr(f"figures.col.{c}", lang) for c in ("quantity", "value", "range", "runs")]
                 + [self._t("col_context")])
        table.clearSpans()
        table.setColumnCount(len(heads))
        table.setHorizontalHeaderLabels(heads)
        table.setRowCount(len(rows))
        bold = table.font()
        bold.setBold(True)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        metrics = self.fontMetrics()
        widths = [metrics.horizontalAdvance(h) + 24 for h in heads]
        for i, texts in enumerate(rows):
            group = len(texts) == 1
            for col in range(len(heads)):
                text = texts[col] if col < len(texts) else ""
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if group:
                    item.setFont(bold)
                elif col in (1, 3) and not raw:
                    item.setTextAlignment(right)
                table.setItem(i, col, item)
                if not group:
                    widths[col] = max(widths[col], metrics.horizontalAdvance(text) + 16)
            if group:
                table.setSpan(i, 0, 1, len(heads))
            if (i + 1) % TABLE_CHUNK == 0:
                yield
        header = table.horizontalHeader()
        for col in range(len(heads) - 1):
            table.setColumnWidth(col, min(widths[col], metrics.horizontalAdvance("M") * 40))
        header.setStretchLastSection(True)
