"""The Monitor page: live utilisation, memory, temperature, power and clocks of the CPU and
every accelerator, from :mod:`accelgui.probes.monitor`.

A compact row per device (with a sparkline of its utilisation) and larger plots of the last
five minutes for the selected one (pyqtgraph, imported when the page is first shown, peak
downsampling). Sampling runs in a QThread; it stops when the page is hidden, so a hidden page
costs nothing. The history is a ring buffer (an hour at 1 s); the plotted fields are kept in
ring buffers of their own (:class:`Series`), so a new sample costs the same whatever the
history holds. Benchmark stages are marked on the plots' timeline (one item per plot draws
all marks); :meth:`MonitorView.bench_started` / ``bench_progress`` / ``bench_finished`` also
record the telemetry that goes into ``benchmarks.telemetry``: during a benchmark the page's
sampler is the app's only one (it runs, at the telemetry's interval, even while the page is
hidden, and hands each sample to the run's :class:`StageWatch`); a hidden page records the
samples but draws nothing.
"""

from __future__ import annotations

import bisect
import collections
import math
import time
from array import array

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import (QAbstractItemView, QDoubleSpinBox, QFileDialog, QGraphicsItem, QHBoxLayout,
                               QHeaderView,
                               QLabel, QMenu, QPushButton, QSplitter, QTableWidget, QTableWidgetItem,
                               QToolButton, QVBoxLayout, QWidget)

from accelgui.probes.monitor.history import History, StageWatch, flat_rows, to_csv, to_json

WINDOW_S = 300.0
SPARK_POINTS = 60
MIN_INTERVAL_S = 0.5
PLOTS_AFTER_MS = 20
PLOTS = (("util_pct", "%"), ("temp_c", "°C"), ("power_w", "W"), ("clock_mhz", "MHz"))


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
                    for x, name in self.marks:
                        at = to_device.map(QPointF(x, view.bottom()))
                        p.drawText(QPointF(at.x() + 3, max(at.y(), 0.0) + 12), name)

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
    """One bar per logical CPU: its utilisation (height) since the previous sample."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.values: list = []
        self.setFixedHeight(46)

    def set_values(self, values: list) -> None:
        self.values = list(values)
        self.setToolTip("  ".join(f"{i}: {'–' if v is None else f'{v:.0f}%'}" for i, v in enumerate(self.values)))
        self.update()

    def paintEvent(self, event) -> None:
        if not self.values:
            return
        p = QPainter(self)
        pal = self.palette()
        n = len(self.values)
        gap = 2 if n < 128 else 0
        w = max(1.0, (self.width() - gap * n) / n)
        h = self.height() - 2
        for i, v in enumerate(self.values):
            x = i * (w + gap)
            p.fillRect(QRectF(x, 1, w, h), pal.color(QPalette.ColorRole.AlternateBase))
            if v is not None:
                top = h * min(100.0, v) / 100.0
                p.fillRect(QRectF(x, 1 + h - top, w, top), pal.color(QPalette.ColorRole.Highlight))
        p.end()


class MonitorView(QWidget):
    _start = Signal(float)
    _stop = Signal()
    _close = Signal()

    def __init__(self, make_sampler=None, sysroot: str = "/", capacity: int = 3600,
                 parent: QWidget | None = None):
        super().__init__(parent)
        if make_sampler is None:
            def make_sampler():
                from accelgui.probes.context import ProbeContext
                from accelgui.probes.monitor import Sampler

                return Sampler(ProbeContext(root=sysroot))
        self.history = History(capacity=capacity)
        self.interval_s = 1.0
        self.paused = False
        self.samples_seen = 0
        self._rows: dict[str, int] = {}
        self._sparks: dict[str, Sparkline] = {}
        self._selected = "cpu"
        self._plots = None
        self._watch: StageWatch | None = None
        self._series = Series(int(WINDOW_S / MIN_INTERVAL_S) + 1)   # the plots' last WINDOW_S
        self._last: tuple[dict, list] | None = None     # the last sample and its rows
        self._drawn_at = -math.inf      # mono_s of the last sample drawn
        self._drawn = True              # the widgets show the last sample
        self._names: dict[str, str] = {}
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
        QVBoxLayout(self.plot_box).setContentsMargins(0, 0, 0, 0)
        self.split.addWidget(self.plot_box)
        self.split.setSizes([260, 420])
        layout.addWidget(self.split, 1)
        self.status = QLabel()
        layout.addWidget(self.status)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Live monitor"))
        self.pause_button.setText(self.tr("Resume") if self.paused else self.tr("Pause"))
        self.interval_label.setText(self.tr("Interval (s)"))
        self.export_button.setText(self.tr("Export samples"))
        self.table.setHorizontalHeaderLabels([self.tr("Device"), self.tr("Utilisation %"), self.tr("Memory"),
                                              self.tr("Temp °C"), self.tr("Power W"), self.tr("Clock MHz"),
                                              self.tr("History")])
        if self._plots is not None:
            titles = self._plot_titles()
            for field, (plot, _, _) in self._plots.items():
                plot.setTitle(titles[field])
        if self._last is not None:           # the CPU row's label
            self._rows = {}
            self._drawn = False
            if self.isVisible():
                self._draw()

    def render(self, state) -> None:
        """The report names the devices (rows are keyed by PCI address)."""
        report = getattr(state, "report", None)
        names = {d.address: d.name for d in (report.devices if report is not None else []) if d.address and d.name}
        if names != self._names:
            self._names = names
            self._rows = {}                  # relabel on the next sample

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
        # the plots are painted in a later turn than the rows: two short paints, not one long
        # one (on a busy machine, during a benchmark, one paint of the whole page took ~40 ms)
        self._plots_due.start(PLOTS_AFTER_MS)

    def _rebuild_rows(self, rows: list[dict], sample: dict) -> None:
        self.table.setRowCount(len(rows))
        self._rows = {r["id"]: i for i, r in enumerate(rows)}
        old = self._sparks
        self._sparks = {}
        for i, r in enumerate(rows):
            label = self._names.get(r.get("address"), r["name"]) if r["id"] not in ("cpu", "memory") else (
                self.tr("CPU ({n} logical)").format(n=len(sample["cpu"]["per_cpu_util_pct"]))
                if r["id"] == "cpu" else self.tr("Memory"))
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
        if self._plots is not None:
            return
        import numpy as np
        import pyqtgraph as pg

        widget = pg.GraphicsLayoutWidget()
        widget.setBackground(self.palette().color(QPalette.ColorRole.Base))
        self._plots = {}
        for i, (field, unit) in enumerate(PLOTS):
            plot = widget.addPlot(row=i // 2, col=i % 2)
            plot.setTitle(self._plot_titles()[field])
            plot.setLabel("left", unit)
            plot.setLabel("bottom", "s")
            plot.setXRange(-WINDOW_S, 0, padding=0)
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            plot.showGrid(x=True, y=True, alpha=0.2)
            for axis in plot.axes.values():      # repainting the axes was most of a frame: cache them
                axis["item"].setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            curve = plot.plot([], [], pen=pg.mkPen(self.palette().color(QPalette.ColorRole.Highlight), width=2))
            if field == "util_pct":                 # a percentage: always the whole scale
                plot.getViewBox().setLimits(yMin=-2, yMax=102)
                plot.setYRange(0, 100, padding=0.02)
                plot.getViewBox().disableAutoRange()
            marks = stage_marks_class(pg)(pg.mkPen(self.palette().color(QPalette.ColorRole.Text),
                                                   style=Qt.PenStyle.DashLine),
                                          self.palette().color(QPalette.ColorRole.Text))
            plot.addItem(marks, ignoreBounds=True)  # the marks never widen the autorange
            self._plots[field] = (plot, curve, marks)
        self.plot_box.layout().addWidget(widget)
        self._np = np

    def _plot_titles(self) -> dict:
        return {"util_pct": self.tr("Utilisation"), "temp_c": self.tr("Temperature"),
                "power_w": self.tr("Power"), "clock_mhz": self.tr("Clock")}

    def _update_plots(self) -> None:
        """The selected row's last WINDOW_S on the plots, and the stage marks in that window:
        numpy views of the ring buffers, one setData per plot."""
        now = self._series.last_t
        if self._plots is None or not self.isVisible() or now is None:
            return
        np = self._np
        times, columns = self._series.window(self._selected, now - WINDOW_S)
        x = np.frombuffer(times, dtype=float) - now
        with self.history.lock:
            marks = [(m["start_mono_s"] - now, m["name"]) for m in self.history.marks
                     if m["start_mono_s"] >= now - WINDOW_S]
        for (field, _), column in zip(PLOTS, columns):
            plot, curve, stage_marks = self._plots[field]
            y = np.frombuffer(column, dtype=float)
            known = np.isfinite(y)
            curve.setData(x[known], y[known])
            stage_marks.set_marks(marks)

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


def _num(value, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _gib(used, total) -> str:
    if used is None and total is None:
        return "–"
    gib = [_num(None if v is None else v / 2 ** 30, 1) for v in (used, total)]
    return f"{gib[0]} / {gib[1]} GiB"
