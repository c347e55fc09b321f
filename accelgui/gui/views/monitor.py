"""The Monitor page: live utilisation, memory, temperature, power and clocks of the CPU and
every accelerator, from :mod:`accelgui.probes.monitor`.

A compact row per device (with a sparkline of its utilisation) and larger plots of the last
five minutes for the selected one (pyqtgraph, imported in the background, the plots made one
per event-loop turn when the page is first shown; peak downsampling). Sampling runs in a
QThread; it stops when the page is hidden, so a hidden page costs nothing. The history is a
ring buffer (an hour at 1 s); the plotted fields are kept in ring buffers of their own
(:class:`Series`), so a new sample costs the same whatever the history holds. Benchmark stages
are marked on the plots' timeline (one item per plot draws all marks);
:meth:`MonitorView.bench_started` / ``bench_progress`` / ``bench_finished`` also record the
telemetry that goes into ``benchmarks.telemetry``: during a benchmark the page's sampler is
the app's only one (it runs, at the telemetry's interval, even while the page is hidden, and
hands each sample to the run's :class:`StageWatch`); a hidden page records the samples but
draws nothing.
"""

from __future__ import annotations

import bisect
import html
import collections
import math
import time
from array import array

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QDoubleSpinBox, QFileDialog, QGraphicsItem,
                               QHBoxLayout, QHeaderView, QLabel, QMenu, QPushButton, QSplitter, QTableWidget,
                               QTableWidgetItem, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from accelgui import l10n
from accelgui.probes import families
from accelgui.probes.monitor.history import History, StageWatch, flat_rows, to_csv, to_json

WINDOW_S = 300.0
SPARK_POINTS = 60
MIN_INTERVAL_S = 0.5
PLOTS_AFTER_MS = 20
#: how often the page looks whether pyqtgraph has been imported, before making its plots
PLOT_IMPORT_POLL_MS = 50
PLOTS = (("util_pct", "%"), ("temp_c", "°C"), ("power_w", "W"), ("clock_mhz", "MHz"))
#: the y range a plot shows when nothing (or nothing higher) was read: 0 to this
DEFAULT_TOP = {"util_pct": 100.0, "temp_c": 100.0, "power_w": 100.0, "clock_mhz": 1000.0}
#: one colour per overlaid device (Okabe-Ito, distinguishable with colour blindness)
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
MAX_PROCESS_ROWS = 200


class SamplerWorker(QObject):
    """Takes samples on its own thread's timer and hands them to the page."""

    sampled = Signal(dict)

    def __init__(self, make_sampler):
        super().__init__()
        self._make = make_sampler
        self._sampler = None
        self._timer: QTimer | None = None

    @Slot(float)
    def start(self, interval_s: float) -> None:
        if self._timer is None:
            self._timer = QTimer(self)
            self._timer.timeout.connect(self._tick)
        if self._sampler is None:
            self._sampler = self._make()
        ms = int(interval_s * 1000)
        if self._timer.isActive() and self._timer.interval() == ms:
            return                           # already sampling at this pace: no extra sample
        self._timer.start(ms)
        self._tick()

    @Slot()
    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    @Slot()
    def close(self) -> None:
        self.stop()
        if self._timer is not None:          # dropped here, in its own thread
            self._timer.setParent(None)
            self._timer = None
        if self._sampler is not None:
            self._sampler.close()
            self._sampler = None
        self.thread().quit()                 # after the timer and sampler are gone

    def _tick(self) -> None:
        try:
            sample = self._sampler.sample()
        except Exception:  # noqa: BLE001 - a failed sample skips one tick, the page stays alive
            return
        self.sampled.emit(sample)


class Series:
    """The plotted fields (``PLOTS``) of every row over the last ``capacity`` samples, in ring
    buffers of doubles (NaN: unknown or absent). A sample is written in place, and the last k
    values are one contiguous slice, because each buffer holds its ring twice (slots i and
    i + capacity). The plots read them without a loop over the samples (``np.frombuffer``)."""

    def __init__(self, capacity: int):
        self.n = int(capacity)
        self.count = 0
        self._i = 0
        self.t = array("d", [0.0]) * (2 * self.n)
        self._rows: dict[str, list[array]] = {}

    def add(self, mono_s: float, rows: dict[str, dict]) -> None:
        i, n = self._i, self.n
        self.t[i] = self.t[i + n] = mono_s
        for rid, bufs in self._rows.items():
            if rid not in rows:              # unplugged: a gap, not the last value repeated
                for buf in bufs:
                    buf[i] = buf[i + n] = math.nan
        for rid, row in rows.items():
            bufs = self._rows.get(rid)
            if bufs is None:
                bufs = self._rows[rid] = [array("d", [math.nan]) * (2 * n) for _ in PLOTS]
            for buf, (field, _) in zip(bufs, PLOTS):
                value = row.get(field)
                buf[i] = buf[i + n] = math.nan if value is None else float(value)
        self._i = (i + 1) % n
        self.count = min(self.count + 1, n)

    @property
    def last_t(self) -> float | None:
        return self.t[self._i + self.n - 1] if self.count else None

    def window(self, row_id: str, since: float) -> tuple[memoryview, list[memoryview]]:
        """(times, [values of each PLOTS field]) of ``row_id`` from ``since`` on, oldest first
        (views into the buffers, valid until the next :meth:`add`)."""
        end = self._i + self.n
        start = end - self.count
        times = memoryview(self.t)[start:end]
        lo = bisect.bisect_left(times, since)    # the times increase
        bufs = self._rows.get(row_id)
        if bufs is None:
            return times[lo:lo], [times[lo:lo] for _ in PLOTS]
        return times[lo:], [memoryview(buf)[start + lo:end] for buf in bufs]


_MARKS_CLASS = None


def stage_marks_class(pg):
    """A plot item that draws every stage mark of a plot (a dashed vertical line with the
    stage's name) in one paint: one item whatever the number of marks, and moving them as time
    passes is one :meth:`set_marks`, not a call per line and label."""
    global _MARKS_CLASS
    if _MARKS_CLASS is None:
        class StageMarks(pg.GraphicsObject):
            def __init__(self, pen: QPen, text_colour, labels: bool = True):
                super().__init__()
                self.marks: list[tuple[float, str]] = []
                self._pen = QPen(pen)
                self._pen.setCosmetic(True)      # one pixel wide whatever the view's scale
                self._text = text_colour
                self._labels = labels

            def set_marks(self, marks: list[tuple[float, str]]) -> None:
                """[(x in view coordinates, stage name)]."""
                if marks != self.marks:
                    self.marks = marks
                    self.update()

            def viewTransformChanged(self) -> None:
                self.prepareGeometryChange()     # the bounds are the view's
                super().viewTransformChanged()

            def boundingRect(self) -> QRectF:
                view = self.viewRect()
                return QRectF() if view is None else QRectF(view)

            def paint(self, p, *args) -> None:
                view = self.viewRect()
                if view is None or not self.marks:
                    return
                p.setPen(self._pen)
                for x, _ in self.marks:
                    p.drawLine(QPointF(x, view.top()), QPointF(x, view.bottom()))
                if self._labels:
                    to_device = p.transform()
                    p.resetTransform()           # text in pixels, not in data units
                    p.setPen(self._text)
                    metrics = p.fontMetrics()
                    ends = [-math.inf] * 3       # right edge of the last label on each of 3 lines
                    for x, name in sorted(self.marks):
                        at = to_device.map(QPointF(x, view.bottom()))
                        left = at.x() + 3
                        line = next((i for i, end in enumerate(ends) if left > end + 4), None)
                        if line is None:
                            continue             # no room: the dashed line alone marks the stage
                        ends[line] = left + metrics.horizontalAdvance(name)
                        p.drawText(QPointF(left, max(at.y(), 0.0) + 12 + line * metrics.height()), name)

        _MARKS_CLASS = StageMarks
    return _MARKS_CLASS


class Sparkline(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.values: collections.deque = collections.deque(maxlen=SPARK_POINTS)
        self.setMinimumWidth(90)

    def push(self, value) -> None:
        self.values.append(value)
        self.update()

    def paintEvent(self, event) -> None:
        known = [(i, v) for i, v in enumerate(self.values) if v is not None]
        if len(known) < 2:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 1.5))
        w, h = self.width() - 2, self.height() - 4
        step = w / (SPARK_POINTS - 1)
        top = max(100.0, max(v for _, v in known))
        p.drawPolyline([QPointF(1 + i * step, 2 + h - h * v / top) for i, v in known])
        p.end()


class CpuBars(QWidget):
    """One bar per logical CPU: its utilisation (height, 0–100 %) since the previous sample,
    with the scale at the left and each CPU's number under its bar when there is room."""

    SCALE_W = 36

    def __init__(self, parent=None):
        super().__init__(parent)
        self.values: list = []
        self.setFixedHeight(58)

    def set_values(self, values: list) -> None:
        self.values = list(values)
        self.setToolTip("  ".join(f"{i}: {'–' if v is None else f'{v:.0f}%'}" for i, v in enumerate(self.values)))
        self.update()

    def paintEvent(self, event) -> None:
        if not self.values:
            return
        p = QPainter(self)
        pal = self.palette()
        metrics = p.fontMetrics()
        n = len(self.values)
        gap = 2 if n < 128 else 0
        left = self.SCALE_W
        w = max(1.0, (self.width() - left - gap * n) / n)
        numbers = w >= metrics.horizontalAdvance(str(n - 1)) + 2
        h = self.height() - 2 - (metrics.height() if numbers else 0)
        p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        p.drawText(QRectF(0, 0, left - 4, metrics.height()), Qt.AlignmentFlag.AlignRight, "100 %")
        p.drawText(QRectF(0, h - metrics.height() + 2, left - 4, metrics.height()), Qt.AlignmentFlag.AlignRight, "0")
        for i, v in enumerate(self.values):
            x = left + i * (w + gap)
            p.fillRect(QRectF(x, 1, w, h), pal.color(QPalette.ColorRole.AlternateBase))
            if v is not None:
                top = h * min(100.0, v) / 100.0
                p.fillRect(QRectF(x, 1 + h - top, w, top), pal.color(QPalette.ColorRole.Highlight))
            if numbers:
                p.drawText(QRectF(x, h + 1, w, metrics.height()), Qt.AlignmentFlag.AlignHCenter, str(i))
        p.end()


def device_label(row: dict, names: dict, lang: str = "en") -> str:
    """A device row's name for people: the report's name for its address, else its family's
    name with the node ("AMD GPU (card1)"), else what the sampler called it."""
    name = names.get(row.get("address")) if row.get("address") else None
    if name:
        return name
    family, raw = row.get("family"), str(row.get("name") or "")
    words = families.display_name(family, lang)
    if words and raw.startswith(f"{family} "):
        return f"{words} ({raw[len(family) + 1:]})"
    return raw or words or "?"


def _y_top(field: str, values: list, limits: list) -> float:
    """The top of a plot's fixed y range: 100 % for utilisation; else the device's own limit
    (power limit) or the highest value seen, with room above; never below the default."""
    if field == "util_pct":
        return 100.0
    seen = max(values, default=0.0)
    top = max([seen * 1.15] + [v * 1.05 for v in limits])
    if field == "temp_c":
        return max(100.0, seen + 5.0)
    if field == "clock_mhz":
        return max(DEFAULT_TOP[field], math.ceil(top / 500.0) * 500.0)
    return max(10.0, math.ceil(top / 10.0) * 10.0) if seen or limits else DEFAULT_TOP[field]


class MonitorView(QWidget):
    _start = Signal(float)
    _stop = Signal()
    _close = Signal()

    def __init__(self, make_sampler=None, capacity: int = 3600, parent: QWidget | None = None):
        """``make_sampler``: builds the sampler (tests pass one over a recorded tree); by default
        this computer's. A recorded machine or a report has no live readings: whatever the window
        shows, this page samples the computer it runs on, and says so (:meth:`set_source`)."""
        super().__init__(parent)
        if make_sampler is None:
            def make_sampler():
                from accelgui.probes.context import ProbeContext
                from accelgui.probes.monitor import Sampler

                return Sampler(ProbeContext(root="/"))
        self.history = History(capacity=capacity)
        self.interval_s = 1.0
        self.paused = False
        self.samples_seen = 0
        self._rows: dict[str, int] = {}
        self._sparks: dict[str, Sparkline] = {}
        self._selected = "cpu"
        self._plots = None
        self._plot_steps = None          # the plots being made (a generator)
        self._watch: StageWatch | None = None
        self._series = Series(int(WINDOW_S / MIN_INTERVAL_S) + 1)   # the plots' last WINDOW_S
        self._last: tuple[dict, list] | None = None     # the last sample and its rows
        self._drawn_at = -math.inf      # mono_s of the last sample drawn
        self._drawn = True              # the widgets show the last sample
        self._names: dict[str, str] = {}
        self._labels: dict[str, str] = {}          # row id -> the name shown
        self._lang = "en"
        self._source = None                        # accelgui.appstate.Source of the window
        self._plots_due = QTimer(self)
        self._plots_due.setSingleShot(True)
        self._plots_due.timeout.connect(self._update_plots)
        self._build()
        self._thread = QThread(self)
        self._worker = SamplerWorker(make_sampler)
        self._worker.moveToThread(self._thread)
        self._worker.sampled.connect(self._on_sample, Qt.ConnectionType.QueuedConnection)   # GUI thread
        self._start.connect(self._worker.start)
        self._stop.connect(self._worker.stop)
        self._close.connect(self._worker.close)
        self.retranslate()

    # == building ======================================================================
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        bar = QHBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("pageTitle")
        bar.addWidget(self.title)
        bar.addStretch(1)
        self.pause_button = QPushButton()
        self.pause_button.setCheckable(True)
        self.pause_button.toggled.connect(self.set_paused)
        self.interval = QDoubleSpinBox()
        self.interval.setRange(0.5, 60.0)
        self.interval.setSingleStep(0.5)
        self.interval.setValue(self.interval_s)
        self.interval.valueChanged.connect(self.set_interval)
        self.interval_label = QLabel()
        self.export_button = QToolButton()
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        self.act_csv = menu.addAction("CSV", lambda: self._export_dialog("csv"))
        self.act_json = menu.addAction("JSON", lambda: self._export_dialog("json"))
        self.export_button.setMenu(menu)
        for w in (self.interval_label, self.interval, self.pause_button, self.export_button):
            bar.addWidget(w)
        layout.addLayout(bar)
        self.source_note = QLabel()
        self.source_note.setWordWrap(True)
        self.source_note.setVisible(False)
        layout.addWidget(self.source_note)
        self.cpu_caption = QLabel()
        self.cpu_caption.setObjectName("muted")
        layout.addWidget(self.cpu_caption)
        self.cpu_bars = CpuBars()
        layout.addWidget(self.cpu_bars)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, 7)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.split.addWidget(self.table)
        self.plot_box = QWidget()
        box = QVBoxLayout(self.plot_box)
        box.setContentsMargins(0, 0, 0, 0)
        self.overlay = QCheckBox()
        self.overlay.toggled.connect(lambda _on: self._update_plots())
        top = QHBoxLayout()
        top.addWidget(self.overlay)
        self.legend = QLabel()                    # one legend for the four plots: colour -> device
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        top.addWidget(self.legend, 1)
        box.addLayout(top)
        self._legend_names: list[str] = []
        self.tabs = QTabWidget()                  # the plots, the sensors, the processes
        self.tabs.addTab(self.plot_box, "")
        self.sensors = QTableWidget(0, 3)
        self.processes = QTableWidget(0, 5)
        for table in (self.sensors, self.processes):
            table.verticalHeader().setVisible(False)
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
            self.tabs.addTab(table, "")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.split.addWidget(self.tabs)
        self.split.setSizes([200, 460])
        layout.addWidget(self.split, 1)
        self.status = QLabel()
        layout.addWidget(self.status)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Live monitor: this computer"))
        self.cpu_caption.setText(self.tr("Utilisation of each logical CPU since the last sample "
                                         "(bar height 0–100 %; hover for the figures)"))
        self.overlay.setText(self.tr("Overlay every device on the plots"))
        self.tabs.setTabText(0, self.tr("Plots"))
        self.tabs.setTabText(1, self.tr("Sensors"))
        self.tabs.setTabText(2, self.tr("Processes"))
        self.sensors.setHorizontalHeaderLabels([self.tr("Sensor"), self.tr("Reading"), self.tr("Chip")])
        self.processes.setHorizontalHeaderLabels([self.tr("Process"), self.tr("PID"), self.tr("Device"),
                                                  self.tr("Device memory"), self.tr("Engine use")])
        self._source_text()
        self.pause_button.setText(self.tr("Resume") if self.paused else self.tr("Pause"))
        self.interval_label.setText(self.tr("Interval (s)"))
        self.export_button.setText(self.tr("Export samples"))
        self.table.setHorizontalHeaderLabels([self.tr("Device"), self.tr("Utilisation %"), self.tr("Memory"),
                                              self.tr("Temp °C"), self.tr("Power W"), self.tr("Clock MHz"),
                                              self.tr("History")])
        self._plot_titles_apply()
        if self._last is not None:           # the CPU row's label
            self._rows = {}
            self._drawn = False
            if self.isVisible():
                self._draw()

    def render(self, state) -> None:
        """This computer's report names the devices (rows are keyed by PCI address); another
        machine's report does not name this computer's devices."""
        report = getattr(state, "report", None) if getattr(state, "live", True) else None
        names = {d.address: d.name for d in (report.devices if report is not None else []) if d.address and d.name}
        lang = l10n.lang_code(getattr(state, "lang", "en"))
        if names != self._names or lang != self._lang:
            self._names, self._lang = names, lang
            self._rows = {}                  # relabel on the next sample

    def set_source(self, source) -> None:
        """The window shows ``source``: when it is not this computer, say that this page is."""
        self._source = source
        self._source_text()

    def _source_text(self) -> None:
        source = self._source
        other = source is not None and not source.is_live
        self.source_note.setVisible(other)
        if other:
            self.source_note.setText(self.tr(
                "The window shows {machine}. A saved report or a recorded machine has no live readings: "
                "this page shows the computer accelgui runs on.").format(machine=source.name))

    # == sampling ======================================================================
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._ensure_plots()
        self._apply_sampling()
        if not self._drawn:                  # samples recorded while hidden (a benchmark's)
            self._draw()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._apply_sampling()

    @property
    def sampling(self) -> bool:
        """The sampler runs: the page is shown and not paused, or a benchmark runs."""
        return self._watch is not None or (self.isVisible() and not self.paused)

    def _apply_sampling(self) -> None:
        """Start, re-time or stop the sampler. While a benchmark runs it samples at the
        telemetry's interval (or the page's, if shorter), shown or not: one sampler for both."""
        if not self.sampling:
            self._stop.emit()
            return
        if not self._thread.isRunning():     # started when first needed: a page never opened costs nothing
            app = QCoreApplication.instance()
            if app is not None:
                app.aboutToQuit.connect(self.shutdown)
            self._thread.start()
        interval = self.interval_s if self._watch is None else min(self.interval_s, self._watch.interval_s)
        self._start.emit(interval)

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)
        if self.pause_button.isChecked() != self.paused:
            self.pause_button.setChecked(self.paused)
        self._apply_sampling()
        self.retranslate()

    def set_interval(self, seconds: float) -> None:
        self.interval_s = max(MIN_INTERVAL_S, float(seconds))
        self._apply_sampling()

    def shutdown(self) -> None:
        if not self._thread.isRunning():
            return
        self._close.emit()              # the worker drops its timer and sampler, then ends its thread
        if not self._thread.wait(3000):  # a sample that hangs (a stuck driver) does not hold the exit
            self._thread.quit()
        if self._watch is not None:
            self._watch.finish()
            self._watch = None

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    @Slot(dict)
    def _on_sample(self, sample: dict) -> None:
        if self._watch is not None:
            self._watch.add(sample)
        if self.paused:
            return
        self.history.add(sample)
        self.samples_seen += 1
        rows = flat_rows(sample)
        self._series.add(sample["mono_s"], {r["id"]: r for r in rows})
        self._last = (sample, rows)
        self._drawn = False
        # hidden: recorded, not drawn. Sampled faster for a benchmark's telemetry: drawn at
        # the page's own interval.
        if self.isVisible() and sample["mono_s"] - self._drawn_at >= 0.75 * self.interval_s:
            self._draw()

    def _draw(self) -> None:
        """Show the last sample: the rows, the CPU bars and the plots."""
        sample, rows = self._last
        new = sample["mono_s"] != self._drawn_at     # not only redrawn (shown again, relabelled)
        self._drawn, self._drawn_at = True, sample["mono_s"]
        ids = [r["id"] for r in rows]
        if ids != list(self._rows):
            self._rebuild_rows(rows, sample)
        for r in rows:
            i = self._rows[r["id"]]
            mem = r["memory_used_bytes"], r["memory_total_bytes"]
            cells = [_num(r["util_pct"], 1), _gib(*mem), _num(r["temp_c"]), _num(r["power_w"], 1),
                     _num(r["clock_mhz"])]
            for col, text in enumerate(cells, start=1):
                item = self.table.item(i, col)
                if item.text() != text:
                    item.setText(text)
            if new:
                self._sparks[r["id"]].push(r["util_pct"])
        self.cpu_bars.set_values(sample["cpu"]["per_cpu_util_pct"])
        self._draw_tables()
        # the plots are painted in a later turn than the rows: two short paints, not one long
        # one (on a busy machine, during a benchmark, one paint of the whole page took ~40 ms)
        self._plots_due.start(PLOTS_AFTER_MS)

    def _rebuild_rows(self, rows: list[dict], sample: dict) -> None:
        self.table.setRowCount(len(rows))
        self._rows = {r["id"]: i for i, r in enumerate(rows)}
        old = self._sparks
        self._sparks = {}
        self._labels = {}
        logical = len(sample["cpu"]["per_cpu_util_pct"])
        for i, r in enumerate(rows):
            if r["id"] == "cpu":
                label = self.tr("CPU ({n} logical)").format(n=logical) if logical else self.tr("CPU")
            elif r["id"] == "memory":
                label = self.tr("Memory")
            else:
                label = device_label(r, self._names, self._lang)
            self._labels[r["id"]] = label
            if r.get("address") and r["address"] not in label:
                label += f"  [{r['address']}]"
            item = QTableWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, r["id"])
            self.table.setItem(i, 0, item)
            for col in range(1, 6):
                cell = QTableWidgetItem("")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, col, cell)
            spark = Sparkline()
            if r["id"] in old:
                spark.values.extend(old[r["id"]].values)
            self._sparks[r["id"]] = spark
            self.table.setCellWidget(i, 6, spark)
        names = list(self._labels.values())
        for r in rows:                            # two alike cards: told apart by their address
            if names.count(self._labels[r["id"]]) > 1 and r.get("address"):
                self._labels[r["id"]] += f" [{r['address']}]"
        if self._selected not in self._rows:
            self._selected = "cpu"

    def _selection_changed(self) -> None:
        items = self.table.selectedItems()
        if items:
            self._selected = self.table.item(items[0].row(), 0).data(Qt.ItemDataRole.UserRole)
            self._update_plots()

    def row_ids(self) -> list[str]:
        return list(self._rows)

    def cell_text(self, row_id: str, column: int) -> str:
        return self.table.item(self._rows[row_id], column).text()

    # == plots ===========================================================================
    def _ensure_plots(self) -> None:
        """Make the four plots, one per event-loop turn once pyqtgraph is imported (made in one
        go on the page's first show, they held the loop for 60-130 ms): the rows show at once,
        the plots a few turns later."""
        if self._plots is not None or self._plot_steps is not None:
            return
        self._plot_steps = self._make_plots()
        self._plot_step()

    def _plot_step(self) -> None:
        if self._plot_steps is None:
            return
        from accelgui.gui.workers import preload_plotting

        if not preload_plotting().is_set():      # imported in the background, not here
            QTimer.singleShot(PLOT_IMPORT_POLL_MS, self, self._plot_step)
            return
        try:
            next(self._plot_steps)
        except StopIteration:
            self._plot_steps = None
            self._update_plots()
            return
        QTimer.singleShot(0, self, self._plot_step)

    def _make_plots(self):
        """A generator: one part of the plots per ``next``; ``self._plots`` is set at the end."""
        import numpy as np
        import pyqtgraph as pg

        widget = pg.GraphicsLayoutWidget()
        widget.setBackground(self.palette().color(QPalette.ColorRole.Base))
        text = self.palette().color(QPalette.ColorRole.Text)
        plots = {}
        for i, (field, unit) in enumerate(PLOTS):
            yield
            plot = widget.addPlot(row=i // 2, col=i % 2)
            plot.setLabel("left", unit)
            plot.setLabel("bottom", self.tr("seconds ago"))
            plot.setXRange(-WINDOW_S, 0, padding=0)
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setMouseEnabled(x=False, y=False)
            plot.getViewBox().disableAutoRange()         # fixed ranges: 0 to the device's scale
            plot.setYRange(0, DEFAULT_TOP[field], padding=0.02)
            for axis in plot.axes.values():      # repainting the axes was most of a frame: cache them
                axis["item"].setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            note = pg.TextItem("", color=text, anchor=(0.5, 0.5))
            plot.addItem(note, ignoreBounds=True)
            marks = stage_marks_class(pg)(pg.mkPen(text, style=Qt.PenStyle.DashLine), text)
            plot.addItem(marks, ignoreBounds=True)  # the marks never widen the range
            plots[field] = {"plot": plot, "curves": {}, "marks": marks, "note": note}
        yield
        self.plot_box.layout().addWidget(widget, 1)
        self.plot_widget = widget
        self._np, self._pg = np, pg
        self._plots = plots
        self._plot_titles_apply()

    def _plot_titles(self) -> dict:
        return {"util_pct": self.tr("Utilisation"), "temp_c": self.tr("Temperature"),
                "power_w": self.tr("Power"), "clock_mhz": self.tr("Clock")}

    def _shown_rows(self) -> list[str]:
        """The rows on the plots: the selected one, or every device and the CPU when overlaid."""
        if self.overlay.isChecked():
            return [rid for rid in self._rows if rid != "memory"]
        return [self._selected]

    def _plot_titles_apply(self) -> None:
        if self._plots is None:
            return
        shown = self._shown_rows()
        who = self.tr("every device") if len(shown) > 1 else self._labels.get(shown[0], "") if shown else ""
        for field, title in self._plot_titles().items():
            text = f"{title}: {who}" if who else title
            entry = self._plots[field]
            if entry.get("title") != text:               # a new title lays the plot out again
                entry["title"] = text
                entry["plot"].setTitle(text)

    def _curve(self, entry: dict, rid: str, n: int):
        curve = entry["curves"].get(rid)
        if curve is None:
            colour = COLOURS[n % len(COLOURS)]
            curve = entry["plot"].plot([], [], pen=self._pg.mkPen(colour, width=2))
            entry["curves"][rid] = curve
        return curve

    def _update_plots(self) -> None:
        """The shown rows' last WINDOW_S on the plots, each named in the legend, on fixed
        ranges, and the stage marks in that window: numpy views of the ring buffers."""
        now = self._series.last_t
        if self._plots is None or not self.isVisible() or now is None:
            return
        np = self._np
        shown = self._shown_rows()
        with self.history.lock:
            marks = [(m["start_mono_s"] - now, m["name"]) for m in self.history.marks
                     if m["start_mono_s"] >= now - WINDOW_S]
        data = {rid: self._series.window(rid, now - WINDOW_S) for rid in shown}
        limits = [r.get("power_limit_w") for r in (self._last[1] if self._last else [])
                  if r["id"] in shown and r.get("power_limit_w")]
        self._plot_titles_apply()
        named: dict[str, int] = {}
        for k, (field, _) in enumerate(PLOTS):
            entry = self._plots[field]
            for rid in list(entry["curves"]):
                if rid not in shown:                     # another row selected: its curve goes
                    entry["plot"].removeItem(entry["curves"].pop(rid))
            values = []
            for n, rid in enumerate(shown):
                times, columns = data[rid]
                x = np.frombuffer(times, dtype=float) - now
                y = np.frombuffer(columns[k], dtype=float)
                known = np.isfinite(y)
                curve = self._curve(entry, rid, n)
                curve.setData(x[known], y[known])
                if known.any():
                    values.append(float(y[known].max()))
                    named.setdefault(rid, n)
            top = _y_top(field, values, limits if field == "power_w" else [])
            note = "" if values else (self.tr("Not reported by this device") if len(shown) == 1
                                      else self.tr("Not reported by these devices"))
            if entry.get("top") != top or entry.get("note_text") != note:   # only on change: the
                entry["top"], entry["note_text"] = top, note                # axes repaint at each
                entry["plot"].setYRange(0, top, padding=0.02)
                entry["note"].setText(note)
                entry["note"].setPos(-WINDOW_S / 2, top / 2)
            entry["marks"].set_marks(marks)
        self._legend([(self._labels.get(rid, rid), COLOURS[n % len(COLOURS)])
                      for rid, n in sorted(named.items(), key=lambda item: item[1])])

    def _legend(self, named: list[tuple[str, str]]) -> None:
        """The plots' legend: a coloured mark and the name of each device with a reading in
        any plot (names escaped: they come from firmware and drivers); set only on change."""
        names = [name for name, _ in named]
        if names == self._legend_names:
            return
        self._legend_names = names
        self.legend.setText("&nbsp;&nbsp; ".join(
            f'<span style="color:{colour}">&#9632;</span>&nbsp;{html.escape(name)}' for name, colour in named))

    def legend_names(self) -> list[str]:
        """The devices the plots' legend names now, in colour order."""
        return list(self._legend_names)

    def _tab_changed(self, index: int) -> None:
        if index == 0:
            self._update_plots()
        else:
            self._draw_tables()

    def _draw_tables(self) -> None:
        """The open tab: every temperature and fan sensor, or the processes using a device."""
        if self._last is None or not self.tabs.isVisible() or self.tabs.currentIndex() == 0:
            return
        sample = self._last[0]
        if self.tabs.currentIndex() == 1:
            cpu = sample["cpu"]
            rows = [(t.get("label") or t.get("chip") or "?", _num(t.get("temp_c"), 1) + " °C", t.get("chip") or "")
                    for t in cpu.get("temps") or []]
            rows += [(f.get("label") or f.get("chip") or "?", _num(f.get("rpm")) + " rpm", f.get("chip") or "")
                     for f in cpu.get("fans") or []]
            _fill(self.sensors, rows, self.tr("No temperature or fan sensor is reported on this computer."))
            return
        found = []
        for dev in sample["devices"]:
            label = device_label(dev, self._names, self._lang)
            for proc in dev.get("processes") or []:
                engines = sorted((proc.get("engines_pct") or {}).items())
                memory = proc.get("memory_bytes")
                found.append((memory or 0, (str(proc.get("name") or "?"), str(proc.get("pid", "")), label,
                                            "–" if memory is None else f"{memory / 2 ** 20:.0f} MiB",
                                            ", ".join(f"{e} {pct:.0f} %" for e, pct in engines if pct is not None)
                                            or "–")))
        found.sort(key=lambda item: -item[0])               # the biggest users first
        rows = [row for _, row in found[:MAX_PROCESS_ROWS]]
        _fill(self.processes, rows,
              self.tr("No process is using an accelerator now (or this user may not see them)."))

    # == benchmark ties =================================================================
    def bench_started(self) -> None:
        """A benchmark starts: record clocks, temperature and power during its stages, from
        this page's sampler (which runs for the benchmark even while the page is hidden)."""
        if self._watch is not None:
            self._watch.finish()
        self._watch = StageWatch().start(sampling=False)
        self._apply_sampling()

    def bench_progress(self, event: dict) -> None:
        stage = str(event.get("stage") or "")
        if self._watch is not None:
            before = self._watch.stage
            self._watch.progress(event)
            if self._watch.stage != before:
                self.history.mark(stage)

    def bench_finished(self) -> dict | None:
        """The stage telemetry of the run that ended (``benchmarks.telemetry``), or None."""
        self.history.end_marks()
        watch, self._watch = self._watch, None
        self._apply_sampling()               # back to the page's own pace, or stopped if hidden
        return watch.finish() if watch is not None else None

    # == export ===========================================================================
    def export_to(self, path: str, fmt: str) -> None:
        from accelgui.atomic import write_atomic

        samples, marks = self.history.snapshot()
        write_atomic(path, to_csv(samples) if fmt == "csv" else to_json(samples, marks))

    def _export_dialog(self, fmt: str) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export samples"), f"accelgui-monitor-{stamp}.{fmt}")
        if not path:
            return
        try:
            self.export_to(path, fmt)
        except OSError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(self.tr("Saved {path}").format(path=path))


def _fill(table: QTableWidget, rows: list[tuple], empty: str) -> None:
    """Rows into a read-only table; one spanning row saying ``empty`` when there are none."""
    if not rows:
        table.setRowCount(1)
        table.setSpan(0, 0, 1, table.columnCount())
        table.setItem(0, 0, QTableWidgetItem(empty))
        return
    table.clearSpans()
    table.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = table.item(i, j)
            if item is None:
                table.setItem(i, j, QTableWidgetItem(text))
            elif item.text() != text:
                item.setText(text)


def _num(value, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _gib(used, total) -> str:
    if used is None and total is None:
        return "–"
    gib = [_num(None if v is None else v / 2 ** 30, 1) for v in (used, total)]
    return f"{gib[0]} / {gib[1]} GiB"
