"""The Monitor page: live utilisation, memory, temperature, power and clocks of the CPU and
every accelerator, from :mod:`accelgui.probes.monitor`.

A compact row per device (with a sparkline of its utilisation) and larger plots of the last
five minutes for the selected one (pyqtgraph, imported when the page is first shown, peak
downsampling). Sampling runs in a QThread; it stops when the page is hidden, so a hidden page
costs nothing. The history is a ring buffer (an hour at 1 s). Benchmark stages are marked on
the plots' timeline; :meth:`MonitorView.bench_started` / ``bench_progress`` /
``bench_finished`` also record the telemetry that goes into ``benchmarks.telemetry``.
"""

from __future__ import annotations

import collections
import time

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import (QAbstractItemView, QDoubleSpinBox, QFileDialog, QGraphicsItem, QHBoxLayout,
                               QHeaderView,
                               QLabel, QMenu, QPushButton, QSplitter, QTableWidget, QTableWidgetItem,
                               QToolButton, QVBoxLayout, QWidget)

from accelgui.probes.monitor.history import History, StageWatch, flat_rows, to_csv, to_json

WINDOW_S = 300.0
SPARK_POINTS = 60
BENCH_PLOT_EVERY = 5
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
        self._timer.start(int(interval_s * 1000))
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

    def _tick(self) -> None:
        try:
            sample = self._sampler.sample()
        except Exception:  # noqa: BLE001 - a failed sample skips one tick, the page stays alive
            return
        self.sampled.emit(sample)


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
        self._bench_sampler = make_sampler     # benchmarks measure this machine: live unless injected
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
        self._recent: collections.deque = collections.deque()     # (mono_s, {id: row}), last WINDOW_S
        self._names: dict[str, str] = {}
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
        if not self._thread.isRunning():     # started when first shown: a page never opened costs nothing
            app = QCoreApplication.instance()
            if app is not None:
                app.aboutToQuit.connect(self.shutdown)
            self._thread.start()
        if not self.paused:
            self._start.emit(self.interval_s)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._stop.emit()

    @property
    def sampling(self) -> bool:
        return self.isVisible() and not self.paused

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)
        if self.pause_button.isChecked() != self.paused:
            self.pause_button.setChecked(self.paused)
        if self.sampling:
            self._start.emit(self.interval_s)
        else:
            self._stop.emit()
        self.retranslate()

    def set_interval(self, seconds: float) -> None:
        self.interval_s = max(0.5, float(seconds))
        if self.sampling:
            self._start.emit(self.interval_s)

    def shutdown(self) -> None:
        if not self._thread.isRunning():
            return
        self._close.emit()
        self._thread.quit()
        self._thread.wait(3000)
        if self._watch is not None:
            self._watch.finish()
            self._watch = None

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    @Slot(dict)
    def _on_sample(self, sample: dict) -> None:
        if self.paused:
            return
        self.history.add(sample)
        self.samples_seen += 1
        rows = flat_rows(sample)
        self._recent.append((sample["mono_s"], {r["id"]: r for r in rows}))
        while self._recent and self._recent[0][0] < sample["mono_s"] - WINDOW_S:
            self._recent.popleft()
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
            self._sparks[r["id"]].push(r["util_pct"])
        self.cpu_bars.set_values(sample["cpu"]["per_cpu_util_pct"])
        # while a benchmark runs the plots are redrawn every BENCH_PLOT_EVERY samples: painting
        # them competes with the measurement for the CPU (and stalled the event loop)
        if self._watch is None or self.samples_seen % BENCH_PLOT_EVERY == 0:
            self._update_plots()

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
            self._plots[field] = (plot, curve, [])
        self.plot_box.layout().addWidget(widget)
        self._pg = pg

    def _plot_titles(self) -> dict:
        return {"util_pct": self.tr("Utilisation"), "temp_c": self.tr("Temperature"),
                "power_w": self.tr("Power"), "clock_mhz": self.tr("Clock")}

    def _update_plots(self) -> None:
        if self._plots is None or not self.isVisible():
            return
        if not self._recent:
            return
        now = self._recent[-1][0]
        xs = [t - now for t, _ in self._recent]
        rows = [by_id.get(self._selected, {}) for _, by_id in self._recent]
        with self.history.lock:
            marks = [dict(m) for m in self.history.marks]
        shown = tuple((m["name"], m["start_mono_s"]) for m in marks if m["start_mono_s"] >= now - WINDOW_S)
        for field, (plot, curve, lines) in self._plots.items():
            pairs = [(x, r.get(field)) for x, r in zip(xs, rows) if r.get(field) is not None]
            curve.setData([p[0] for p in pairs], [p[1] for p in pairs])
            if shown or lines:               # stage marks: made once, moved with the time axis
                if [ln.stage_key for ln in lines] != list(shown):
                    for line in lines:
                        plot.removeItem(line)
                    lines[:] = [self._pg.InfiniteLine(angle=90, label=name, labelOpts={"position": 0.9})
                                for name, _ in shown]
                    for line, key in zip(lines, shown):
                        line.stage_key = key
                        plot.addItem(line)
                for line, (_, start) in zip(lines, shown):
                    line.setValue(start - now)

    # == benchmark ties =================================================================
    def bench_started(self) -> None:
        """A benchmark starts: record clocks, temperature and power during its stages."""
        if self._watch is not None:
            self._watch.finish()
        self._watch = StageWatch(self._bench_sampler() if self._bench_sampler else None).start()

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
