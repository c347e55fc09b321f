"""The main window: sidebar, pages, toolbar, status bar; runs the workers.

State flows one way: workers produce Reports, the window passes them to its Qt-free
application state (:class:`accelgui.appstate.AppState`: which report is shown and from which
machine, the run states) and hands an immutable :class:`ViewState` to the views, which only
draw it. Views that act on this computer get the shown machine through ``set_source``.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from importlib import metadata

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal, qVersion
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QFileDialog, QFrame, QHBoxLayout, QLabel,
                               QListWidget, QListWidgetItem, QMainWindow, QMenu, QMessageBox,
                               QProgressBar, QSizePolicy, QStackedWidget, QStyle, QToolBar,
                               QToolButton, QVBoxLayout, QWidget)

from accelgui import __version__
from accelgui.appstate import AppState
from accelgui.gui import i18n, settings
from accelgui.gui.export_dialog import FORMATS as EXPORT_FORMATS
from accelgui.gui.export_dialog import ExportDialog
from accelgui.gui.views.benchmarks import BenchmarksView
from accelgui.gui.views.monitor import MonitorView
from accelgui.gui.views.common import (READINESS_COLOURS, STATUS_COLOURS, STYLE, ViewState,
                                       html_escape, source_text)
from accelgui.gui.views.reports import ReportsView
from accelgui.gui.views.fleet import FleetView
from accelgui.gui.views.hardware import HardwareView
from accelgui.gui.views.overview import OverviewView
from accelgui.gui.views.reference import ReferenceView
from accelgui.l10n import tr as l10n_tr
from accelgui.options import PAGES  # the pages, which --page names too
from accelgui.gui.views.routes import RoutesView
from accelgui.gui.workers import (BenchmarkProcess, Task, advise_report, load_knowledge_base,
                                  open_report, preload_plotting, probe_machine, settle_heap)

LICENCE = "MIT"                                       # pyproject.toml's licence
PROJECT_URL = "https://github.com/accelgui/accelgui"  # the metainfo's homepage


@dataclass
class AppOptions:
    sysroot: str = "/"
    report: str | None = None
    knowledge: str | None = None
    timeout: float = 5.0
    lang: str = "en"
    probe: bool = True          # probe this machine at start (False: wait, e.g. in tests)
    monitor_sampler: object = None  # tests: callable() -> a monitor Sampler (fake tree, fake NVML)


class _StateField:
    """An attribute of the window kept in its application state (accelgui.appstate)."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, window, owner=None):
        return self if window is None else getattr(window.state, self.name)

    def __set__(self, window, value) -> None:
        setattr(window.state, self.name, value)


def _probe_job(sysroot: str, timeout: float):
    """Worker job: (the probed report, the newest benchmark section stored for this computer
    or None). The history is read for the computer the app runs on only, never a recorded tree."""
    report = probe_machine(sysroot, timeout)
    if sysroot not in ("", "/") or report.benchmarks:
        return report, None
    try:
        from accelgui import history

        return report, history.latest(history.machine_key(report.to_dict()))
    except (OSError, ValueError):      # an unreadable history costs the figure, not the report
        return report, None


def _check_job(benchmarks: dict) -> bool:
    """Worker job: check a finished run against the benchmark contract, so that the pages'
    reads of it find it checked (accelgui.benchmarks remembers a section it checked); a
    section off the contract is told by the page that reads it."""
    from accelgui import benchmarks as bench_model

    try:
        bench_model.check(benchmarks)
    except bench_model.BenchmarkError:
        return False
    return True


def _record_job(report, benchmarks: dict):
    """Worker job: keep a finished run in this computer's benchmark history."""
    from accelgui import history

    return history.record(report.to_dict(), benchmarks)


def _history_date(section: dict) -> str:
    """The date accelgui.history.latest marked a stored section with ("?" when none)."""
    for notice in section.get("notices") or []:
        if isinstance(notice, dict) and notice.get("id") == "figures.notice.from_history":
            return str((notice.get("params") or {}).get("date") or "?")
    return "?"


def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _advise_job(report, knowledge_dir, lang="en"):
    """Worker job: (advised report or the same, kb, done, error or None)."""
    error = None
    try:
        report = advise_report(report, knowledge_dir, lang)
    except Exception as exc:  # noqa: BLE001 - shown in place, the report stays usable
        error = f"{type(exc).__name__}: {exc}"
    try:
        kb, done = load_knowledge_base(knowledge_dir)
    except Exception as exc:  # noqa: BLE001
        kb, done = None, frozenset()
        error = error or f"{type(exc).__name__}: {exc}"
    return report, kb, frozenset(done), error


def checkbox_style() -> str:
    """Check boxes drawn from the palette, visible on light and dark backgrounds alike (the
    default Fusion box almost disappears on a dark card)."""
    from importlib.resources import files

    try:
        check = str(files("accelgui.resources").joinpath("icons", "check.svg")).replace("\\", "/")
    except (ModuleNotFoundError, TypeError):
        return ""
    return (
        "\nQCheckBox::indicator { width: 15px; height: 15px; border: 1px solid palette(text);"
        " border-radius: 3px; background-color: palette(base); }"
        "\nQCheckBox::indicator:hover { border-color: palette(highlight); }"
        "\nQCheckBox::indicator:checked { background-color: palette(highlight);"
        f" border-color: palette(highlight); image: url({check}); }}")


class Notice(QFrame):
    """A dismissible one-line message above the pages (instead of a storm of dialogs)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("notice")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)   # paths and errors are data, not markup
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        layout.addWidget(self.close_button)
        self.hide()

    def show_message(self, text: str, error: bool = False) -> None:
        colour = READINESS_COLOURS["driver-missing"] if error else STATUS_COLOURS["ready"]
        self.setStyleSheet(f"QFrame#notice {{ border: 1px solid {colour}; border-left: 5px solid {colour};"
                           f" border-radius: 6px; background-color: palette(base); }}")
        self.label.setText(text)
        self.show()


class MainWindow(QMainWindow):
    report_changed = Signal()
    live_report = _StateField()
    opened_report = _StateField()
    opened_path = _StateField()
    showing_live = _StateField()
    kb = _StateField()
    done = _StateField()
    busy = _StateField()
    probe_error = _StateField()
    advice_error = _StateField()
    benchmark_at = _StateField()

    def __init__(self, options: AppOptions | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.options = options or AppOptions()
        self.ui_lang = i18n.normalize(self.options.lang)
        self.state = AppState(sysroot=self.options.sysroot, lang=i18n.knowledge_lang(self.ui_lang))
        self.state.subscribe(self._state_changed)
        self.benchmark_command = None          # tests: callable(mode) -> argv of a fake child
        #: asked before an opened report is replaced by this computer (tests replace it)
        self.confirm_replace = self._ask_replace
        self._tasks: set[Task] = set()
        self._dirty: set[str] = set(PAGES)
        self._closing = False
        self._shown_source = None
        self._advise_after_plots = False
        self._unrecorded: dict | None = None      # a run finished before the first probe
        self._preload_started = False
        self._preload_done = False      # pyqtgraph imported and the plots made (or given up)
        self.redact_shared = settings.value("export/redact", True, bool)  # Export's and Copy's choice

        self.setObjectName("main")
        self.resize(1280, 800)
        geometry = settings.settings().value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.fit_to_screen()
        self.bench = BenchmarkProcess(self)
        self._build_views()
        self._build_actions()
        self._build_menus_and_toolbar()
        self._build_status_bar()
        self._connect()
        self.retranslate()
        self.sidebar.setCurrentRow(0)
        self._clock = QTimer(self)
        self._clock.setInterval(30_000)
        self._clock.timeout.connect(self._update_status)
        self._clock.start()

    def fit_to_screen(self) -> None:
        """Never larger than the screen's free area (a scale factor of 2 makes 1280x800 twice
        the size of a laptop screen): the size, the minimum size and the position are clamped."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        self.setMinimumSize(QSize(min(800, free.width()), min(560, free.height())))
        width, height = min(self.width(), free.width()), min(self.height(), free.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        if not free.contains(self.frameGeometry().topLeft()):
            self.move(free.topLeft())

    # == building ======================================================================
    def _build_views(self) -> None:
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setFixedWidth(190)
        self.sidebar.setIconSize(QSize(20, 20))
        self.sidebar.setFrameShape(QFrame.Shape.NoFrame)
        self.setStyleSheet(STYLE + checkbox_style() + (
            "\nQListWidget#sidebar { background-color: palette(alternate-base);"
            " border-right: 1px solid palette(mid); padding-top: 8px; }"
            "\nQListWidget#sidebar::item { padding: 9px 10px; border-radius: 6px; margin: 1px 6px; }"
            "\nQListWidget#sidebar::item:selected { background-color: palette(highlight);"
            " color: palette(highlighted-text); }"))
        icons = {
            "overview": QStyle.StandardPixmap.SP_ComputerIcon,
            "hardware": QStyle.StandardPixmap.SP_DriveHDIcon,
            "benchmarks": QStyle.StandardPixmap.SP_MediaPlay,
            "monitor": QStyle.StandardPixmap.SP_MediaSeekForward,
            "routes": QStyle.StandardPixmap.SP_DirLinkIcon,
            "reference": QStyle.StandardPixmap.SP_FileDialogInfoView,
            "reports": QStyle.StandardPixmap.SP_FileDialogDetailedView,
            "fleet": QStyle.StandardPixmap.SP_DriveNetIcon,
        }
        for page in PAGES:
            item = QListWidgetItem(self.style().standardIcon(icons[page]), page)
            item.setData(Qt.ItemDataRole.UserRole, page)
            self.sidebar.addItem(item)
        layout.addWidget(self.sidebar)
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.setSpacing(0)
        self.notice = Notice()
        notice_box = QWidget()
        nb = QVBoxLayout(notice_box)
        nb.setContentsMargins(16, 8, 16, 0)
        # which machine the pages show ("This computer", "Report: gpu-node-3", "Recorded: …")
        self.source_label = QLabel()
        self.source_label.setObjectName("sourceLabel")
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)   # a report's hostname is data
        self.source_label.setStyleSheet("QLabel#sourceLabel { font-weight: 600; }")
        nb.addWidget(self.source_label)
        nb.addWidget(self.notice)
        notice_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        right.addWidget(notice_box)
        self.stack = QStackedWidget()
        self.overview = OverviewView()
        self.hardware = HardwareView()
        self.benchmarks = BenchmarksView()
        self.routes = RoutesView()
        self.reports = ReportsView()
        self.monitor = MonitorView(self.options.monitor_sampler)
        self.reference = ReferenceView()
        self.fleet = FleetView()
        self.hardware.redact_choice = lambda: self.redact_shared
        self.views = {"overview": self.overview, "hardware": self.hardware,
                      "benchmarks": self.benchmarks, "routes": self.routes, "reports": self.reports,
                      "monitor": self.monitor, "reference": self.reference, "fleet": self.fleet}
        for page in PAGES:
            self.stack.addWidget(self.views[page])
        right.addWidget(self.stack, 1)
        layout.addLayout(right, 1)
        self.setCentralWidget(central)

    def _action(self, shortcut=None, slot=None, checkable=False) -> QAction:
        action = QAction(self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if slot is not None:
            action.triggered.connect(slot)
        action.setCheckable(checkable)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        style = self.style()
        self.act_quick = self._action("Ctrl+B", lambda: self.run_benchmark("quick"))
        self.act_quick.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.act_full = self._action("Ctrl+Shift+B", lambda: self.run_benchmark("full"))
        self.act_cancel = self._action("Esc", self.cancel_benchmark)
        self.act_cancel.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaStop))
        self.act_cancel.setEnabled(False)
        self.act_export = self._action("Ctrl+E", lambda: self.export_dialog())
        self.act_export.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton))
        self.act_open = self._action("Ctrl+O", self.choose_report)
        self.act_open.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton))
        self.act_reprobe = self._action("F5", self.show_live_and_reprobe)
        self.act_reprobe.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_BrowserReload))
        self.act_about = self._action("F1", self.show_about)
        self.act_quit = self._action(QKeySequence.StandardKey.Quit, self.close)
        self.lang_group = QActionGroup(self)
        self.lang_group.setExclusive(True)
        self.act_lang = {}
        for lang in i18n.UI_LANGUAGES:
            act = self._action(None, lambda _=False, code=lang: self.set_language(code), checkable=True)
            act.setText(i18n.LANGUAGE_NAMES[lang])
            act.setChecked(lang == self.ui_lang)
            self.lang_group.addAction(act)
            self.act_lang[lang] = act
        self.act_pages = []
        for i, page in enumerate(PAGES):
            self.act_pages.append(self._action(f"Ctrl+{i + 1}", lambda _=False, p=page: self.show_page(p)))
        self.export_formats = {}
        for fmt in EXPORT_FORMATS:
            act = QAction(self)
            act.triggered.connect(lambda _=False, f=fmt: self.export_dialog(f))
            self.export_formats[fmt] = act

    def _build_menus_and_toolbar(self) -> None:
        bar = self.menuBar()
        self.menu_file = bar.addMenu("")
        self.menu_file.addAction(self.act_open)
        self.menu_file.addAction(self.act_export)
        self.menu_file.addAction(self.act_reprobe)
        self.menu_file.addSeparator()
        self.menu_file.addAction(self.act_quit)
        self.menu_bench = bar.addMenu("")
        self.menu_bench.addAction(self.act_quick)
        self.menu_bench.addAction(self.act_full)
        self.menu_bench.addAction(self.act_cancel)
        self.menu_view = bar.addMenu("")
        for act in self.act_pages:
            self.menu_view.addAction(act)
        self.menu_view.addSeparator()
        for act in self.act_lang.values():
            self.menu_view.addAction(act)
        self.menu_help = bar.addMenu("")
        self.menu_help.addAction(self.act_about)

        tb = QToolBar()
        tb.setObjectName("toolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setIconSize(QSize(18, 18))
        self.addToolBar(tb)
        self.toolbar = tb
        self.bench_menu = QMenu(self)
        self.bench_menu.addAction(self.act_quick)
        self.bench_menu.addAction(self.act_full)
        self.bench_button = QToolButton()
        self.bench_button.setDefaultAction(self.act_quick)
        self.bench_button.setMenu(self.bench_menu)
        self.bench_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.bench_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addWidget(self.bench_button)
        tb.addAction(self.act_cancel)
        tb.addSeparator()
        self.export_menu = QMenu(self)
        for act in self.export_formats.values():
            self.export_menu.addAction(act)
        self.export_button = QToolButton()
        self.export_button.setDefaultAction(self.act_export)
        self.export_button.setMenu(self.export_menu)
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.export_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addWidget(self.export_button)
        tb.addAction(self.act_open)
        tb.addAction(self.act_reprobe)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        for act in self.act_lang.values():
            tb.addAction(act)
        tb.addSeparator()
        tb.addAction(self.act_about)
        for button in tb.findChildren(QToolButton):    # every toolbar button is a Tab stop
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        sb.addWidget(self.status_label, 1)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(140)
        self.busy_bar.setMaximumHeight(14)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        sb.addPermanentWidget(self.busy_bar)

    def _connect(self) -> None:
        self.sidebar.currentRowChanged.connect(self._page_changed)
        self.overview.open_route.connect(self.open_route)
        self.overview.open_page.connect(self.show_page)
        self.overview.goal_chosen.connect(self.set_goal)
        self.routes.step_toggled.connect(self.set_step_done)
        self.routes.step_verified.connect(self._step_verified)
        self.benchmarks.run_requested.connect(self.run_benchmark)
        self.benchmarks.cancel_requested.connect(self.cancel_benchmark)
        self.reports.open_requested.connect(self.choose_report)
        self.reports.show_live_requested.connect(self.show_live)
        self.bench.progress.connect(self._bench_progress)
        self.bench.finished.connect(self._bench_finished)
        self.bench.failed.connect(self._bench_failed)
        self.bench.cancelled.connect(self._bench_cancelled)
        self.bench.running_changed.connect(self._bench_running)
        self.benchmarks.plots_ready.connect(self._plots_ready)

    # == texts ===========================================================================
    def retranslate(self) -> None:
        names = {"overview": self.tr("Overview"), "hardware": self.tr("Hardware"),
                 "benchmarks": self.tr("Benchmarks"), "routes": self.tr("Routes"), "monitor": self.tr("Monitor"),
                 "reports": self.tr("Reports"),
                 "reference": l10n_tr("knowledge.reference.page", i18n.knowledge_lang(self.ui_lang)),
                 "fleet": l10n_tr("fleet.page.title", i18n.knowledge_lang(self.ui_lang))}
        for i, page in enumerate(PAGES):
            self.sidebar.item(i).setText(names[page])
            self.act_pages[i].setText(names[page])
        self.act_quick.setText(self.tr("&Run benchmark (quick)"))
        self.act_quick.setToolTip(self.tr("Measure this machine: memory bandwidth, FLOPS, caches (Ctrl+B)"))
        self.act_full.setText(self.tr("Run &full benchmark"))
        self.act_full.setToolTip(self.tr("A longer, more precise run with the cache sweep (Ctrl+Shift+B)"))
        if self.recorded():
            for act in (self.act_quick, self.act_full):
                act.setEnabled(False)
                act.setToolTip(self.benchmark_refusal())
        self.act_cancel.setText(self.tr("&Cancel"))
        self.act_cancel.setToolTip(self.tr("Stop the running benchmark (Esc)"))
        self.act_export.setText(self.tr("&Export…"))
        self.act_export.setToolTip(self.tr("Save the report as JSON, Markdown, HTML, PDF… (Ctrl+E)"))
        self.act_open.setText(self.tr("&Open report…"))
        self.act_open.setToolTip(self.tr("Show a saved report, e.g. from another machine (Ctrl+O)"))
        self.act_reprobe.setText(self.tr("&Probe again"))
        self.act_reprobe.setToolTip(self.tr("Probe this machine again (F5)"))
        self.act_about.setText(self.tr("&About"))
        self.act_quit.setText(self.tr("&Quit"))
        self.menu_file.setTitle(self.tr("&File"))
        self.menu_bench.setTitle(self.tr("&Benchmark"))
        self.menu_view.setTitle(self.tr("&View"))
        self.menu_help.setTitle(self.tr("&Help"))
        labels = {"json": "JSON", "markdown": "Markdown", "html": "HTML", "pdf": "PDF",
                  "text": self.tr("Plain text"), "prometheus": "Prometheus", "nfd": self.tr("Kubernetes NFD")}
        for fmt, act in self.export_formats.items():
            act.setText(labels.get(fmt, fmt))
        self.sidebar.setAccessibleName(self.tr("Pages"))
        self.notice.close_button.setToolTip(self.tr("Dismiss"))
        self.notice.close_button.setAccessibleName(self.tr("Dismiss"))
        for view in self.views.values():
            view.retranslate()
        self._update_title()
        self._update_status()

    def set_language(self, lang: str) -> None:
        """Switch UI and knowledge language; every view is rebuilt in the new language."""
        lang = i18n.normalize(lang)
        if not i18n.install(lang):
            self.notice.show_message(self.tr("The translation for {lang} could not be loaded.")
                                     .format(lang=lang), error=True)
        self.ui_lang = lang
        self.state.set_language(i18n.knowledge_lang(lang))
        settings.remember("ui/language", lang)
        self.act_lang[lang].setChecked(True)
        self._dirty = set(PAGES)
        self.retranslate()
        self._render_current()
        for which in ("live", "opened"):     # route reasons come from the advisor, in a language
            self.advise(which)

    # == state -> views ===================================================================
    @property
    def report(self):
        """The report the views show now."""
        return self.live_report if self.showing_live else self.opened_report

    def view_state(self) -> ViewState:
        return ViewState(
            report=self.report, kb=self.kb, lang=i18n.knowledge_lang(self.ui_lang), done=self.done,
            live=self.showing_live, source=None if self.showing_live else self.opened_path,
            busy=self.busy if self.showing_live else None,
            error=self.probe_error if self.showing_live else None,
            advice_error=self.advice_error, benchmark_at=self.benchmark_at)

    def refresh(self) -> None:
        """The state changed: redraw the page on screen now, the others when they are shown."""
        self._dirty = set(PAGES)
        self._render_current()
        self._update_title()
        self._update_status()
        self.report_changed.emit()

    def render_page(self, page: str) -> None:
        self.views[page].render(self.view_state())
        self._dirty.discard(page)

    def _render_current(self) -> None:
        page = self.current_page()
        if page in self._dirty:
            self.render_page(page)

    def current_page(self) -> str:
        return PAGES[max(0, self.stack.currentIndex())]

    def show_page(self, page: str) -> None:
        self.sidebar.setCurrentRow(PAGES.index(page))

    def _page_changed(self, row: int) -> None:
        if row < 0:
            return
        self.stack.setCurrentIndex(row)
        self._render_current()

    def open_route(self, route_id: str) -> None:
        self.show_page("routes")
        self.routes.open_route(route_id)

    def machine_label(self) -> str:
        """Which machine the pages show: this one, "Recorded: <tree>" or "Opened report: <file>"."""
        report = self.report
        if report is None and self.options.sysroot != "/":
            from accelgui.report import Report

            report = Report(sysroot=self.options.sysroot)
        return source_text(report, self.knowledge_lang(), self.opened_path, self.showing_live)

    def recorded(self) -> bool:
        """The live view shows a recorded tree (--sysroot), not the machine the app runs on."""
        return self.state.recorded

    def _shows_recorded(self) -> bool:
        """The report shown describes a recorded tree (the app's --sysroot or the report's own)."""
        report = self.report
        return self.recorded() or (report is not None and report.sysroot not in (None, "", "/"))

    def _update_title(self) -> None:
        """The title and the label above the pages name the machine shown; views that act on
        this computer hear of a change through ``set_source``."""
        # Qt adds the application display name ("… — accelgui"): the title names the machine only
        title = self.state.title()
        self.setWindowTitle(title)
        self.source_label.setText(title)
        source = self.state.source
        if source != self._shown_source:
            self._shown_source = source
            for view in self.views.values():
                if hasattr(view, "set_source"):
                    view.set_source(source)

    def status_text(self) -> str:
        report = self.report
        parts = []
        if self.busy == "probing" and self.showing_live:
            parts.append(self.tr("probing this machine…"))
        elif report is None:
            parts.append(self.probe_error and self.tr("probing failed") or self.tr("no report yet"))
        else:
            n = len(report.probes)
            ok = sum(1 for p in report.probes if p.status in ("ok", "partial", "absent"))
            parts.append(self.tr("probes {ok}/{n} ok").format(ok=ok, n=n))
            if self.busy == "advising" and self.showing_live:
                parts.append(self.tr("assessing routes…"))
        if self.bench.is_running():
            parts.append(self.tr("benchmark running"))
        elif self.showing_live:
            if self.benchmark_at is not None:
                minutes = int((time.time() - self.benchmark_at) // 60)
                parts.append(self.tr("last benchmark just now") if minutes < 1 else
                             self.tr("last benchmark {n} min ago").format(n=minutes))
            elif self.state.history_entry is not None:
                parts.append(self.tr("last benchmark on {date} (kept from an earlier run)").format(
                    date=_history_date(self.state.history_entry)))
            elif report is not None and report.benchmarks:
                parts.append(self.tr("benchmark results included"))
            else:
                parts.append(self.tr("no benchmark yet"))
        else:
            parts.append(self.tr("showing {file}").format(file=os.path.basename(self.opened_path or "")))
        if self._shows_recorded() or not self.showing_live:
            parts.insert(0, self.machine_label())
        return " · ".join(parts)

    def _state_changed(self, changed: frozenset) -> None:
        """What the status bar shows of the state itself: "Opening …" while a report is read."""
        if "opening" in changed:
            if self.state.opening:
                self.statusBar().showMessage(self.tr("Opening {path}…").format(path=self.state.opening))
            else:
                self.statusBar().clearMessage()

    def _update_status(self) -> None:
        self.status_label.setText(self.status_text())
        self.busy_bar.setVisible(bool(self.busy) or self.bench.is_running())

    # == workers ========================================================================
    @property
    def idle(self) -> bool:
        """Started up, nothing in flight: no probing, advising or loading, pyqtgraph imported
        and the plots made in the background (benchmark scripts wait for it)."""
        return not self._tasks and not self.busy and self._preload_done

    def _run_task(self, fn, *args, done=None, failed=None) -> Task:
        task = Task(fn, *args)
        self._tasks.add(task)

        def finish(result, cb=done):
            self._tasks.discard(task)
            if cb is not None and not self._closing:
                cb(result)

        def fail(message, cb=failed):
            self._tasks.discard(task)
            if cb is not None and not self._closing:
                cb(message)

        task.done.connect(finish)
        task.failed.connect(fail)
        return task.start()

    def start(self) -> None:
        """Begin filling the window (called once it is on screen)."""
        # pyqtgraph is imported in the background once the first results are on screen (or
        # after a few seconds), so that the import does not compete with the first fill
        QTimer.singleShot(4000, self, self._preload_plotting)
        if self.options.report:
            self.open_report_file(self.options.report)
        elif self.options.probe:
            self.probe()
        self._load_knowledge()

    def _preload_plotting(self) -> None:
        if self._preload_started:
            return
        self._preload_started = True
        loaded = preload_plotting()
        waited = [0]

        def when_plotting_ready():
            waited[0] += 1
            if loaded.is_set():
                self.benchmarks.prepare_plots(done=self._started_up)
            elif waited[0] < 120 and not self._closing:
                QTimer.singleShot(250, self, when_plotting_ready)
            else:
                self._started_up()

        QTimer.singleShot(250, self, when_plotting_ready)

    def _started_up(self) -> None:
        """pyqtgraph is imported and the plots are made (or that was given up): what the app
        holds now is left out of the garbage collector's full collections (workers.settle_heap)."""
        self._preload_done = True
        settle_heap()

    def _load_knowledge(self) -> None:
        def loaded(result):
            # the advisor may have brought both already: redrawing the page for nothing new
            # held the loop for ~100 ms (the overview is rebuilt whole)
            if self.state.knowledge_loaded(*result):
                self.refresh()

        def failed(message):
            self.advice_error = message
            self.refresh()

        self._run_task(load_knowledge_base, self.options.knowledge, done=loaded, failed=failed)

    def probe(self) -> None:
        gen = self.state.probe_started()
        self.refresh()

        def probed(result):
            report, stored = result
            if not self.state.probed(gen, report):
                return
            self.state.attach_history(stored)     # a restart keeps the last measured figures
            self.refresh()
            if self._unrecorded is not None:      # a run finished before this report came
                benchmarks, self._unrecorded = self._unrecorded, None
                self._keep_run(benchmarks)
            self.advise("live")

        def failed(message):
            self.state.probe_failed(gen, self.tr("Probing this machine failed: {error}").format(error=message))
            self.refresh()

        self._run_task(_probe_job, self.options.sysroot, self.options.timeout, done=probed,
                       failed=failed)

    def advise(self, which: str | None = None) -> None:
        """Re-run the advisor (after probing, a benchmark, a ticked step, a language switch).

        ``which``: "live" (this machine) or "opened" (a saved report); default: the one shown.
        """
        which = which or ("live" if self.showing_live else "opened")
        report = self.live_report if which == "live" else self.opened_report
        if report is None:
            return
        gen = self.state.advise_started(which)
        self._update_status()

        def advised(result):
            new_report, kb, done, error = result
            if self.state.advised(which, gen, new_report, kb, done, error):
                self.refresh()
                QTimer.singleShot(300, self, self._preload_plotting)

        def failed(message):
            self.state.advise_failed(which, gen, message)
            self.refresh()

        self._run_task(_advise_job, report, self.options.knowledge, self.knowledge_lang(),
                       done=advised, failed=failed)

    def knowledge_lang(self) -> str:
        return i18n.knowledge_lang(self.ui_lang)

    # == reports =========================================================================
    def choose_report(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a saved report"),
                                              os.path.expanduser("~"),
                                              self.tr("accelgui reports (*.json);;All files (*)"))
        if path:
            self.open_report_file(path)

    def open_report_file(self, path: str) -> None:
        """Load a saved report in a worker, then show it in every view."""
        self.state.opening_started(path)
        lang = self.knowledge_lang()

        def opened(report):
            self.state.report_opened(path, report)
            self.notice.hide()
            self.routes.show_list()
            self.refresh()
            if lang != self.knowledge_lang():   # the language changed while it was loading
                self.advise("opened")

        def failed(message):
            self.state.opening_failed(path)
            self.notice.show_message(self.tr("Could not open {path}: {error}").format(
                path=path, error=message), error=True)

        self._run_task(open_report, path, self.options.knowledge, self.knowledge_lang(),
                       done=opened, failed=failed)

    def show_live(self) -> None:
        self.state.show_live()
        self.routes.show_list()
        if self.live_report is None and self.busy != "probing":
            self.probe()
        else:
            self.refresh()

    def show_live_and_reprobe(self) -> None:
        """F5: probe this computer again (an opened report on screen is replaced: asked first)."""
        if self.state.replacing_needs_consent() and not self.confirm_replace():
            return
        self.state.show_live()
        self.probe()

    def _ask_replace(self) -> bool:
        """Whether the person agrees to replace the opened report on screen by this computer."""
        answer = QMessageBox.question(
            self, self.tr("Show this computer?"),
            self.tr("The window shows {machine}. Show this computer instead? The report stays "
                    "open under Reports.").format(machine=self.state.source.title(self.knowledge_lang())),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    # == progress =========================================================================
    def _step_verified(self, step_id: str) -> None:
        """A step's check ran (accelgui.verify): a passed check also counts the step as done."""
        from accelgui.progress import load_done

        done = load_done()
        if done != self.done:
            self.done = done
            self.refresh()
            self.advise()

    def set_step_done(self, step_id: str, done: bool) -> None:
        try:
            from accelgui.progress import mark_done, unmark

            (mark_done if done else unmark)(step_id)
        except Exception as exc:  # noqa: BLE001 - e.g. a read-only data directory
            self.notice.show_message(self.tr("Could not save your progress: {error}").format(error=exc),
                                     error=True)
            return
        self.done = (self.done | {step_id}) if done else (self.done - {step_id})
        self.refresh()
        self.advise()

    def set_goal(self, goal: str) -> None:
        """The learner picked a goal ("" for none): remember it with the progress (the file
        ``accelgui --goal`` writes) and re-rank the advice of both reports, without probing."""
        try:
            from accelgui.progress import set_goal

            set_goal(goal or None)
        except Exception as exc:  # noqa: BLE001 - e.g. a read-only data directory
            self.notice.show_message(self.tr("Could not save your goal: {error}").format(error=exc),
                                     error=True)
            return
        for which in ("live", "opened"):
            self.advise(which)

    # == benchmarks ========================================================================
    def benchmark_refusal(self) -> str | None:
        """Why a benchmark cannot run now (None: it can): a recorded tree describes another
        machine, and the figures measured here would be filed under its hardware."""
        if self.recorded():
            return self.tr("{machine}: a benchmark measures the computer the app runs on, not a "
                           "recorded tree, so it is not run (its figures would be filed under "
                           "the recorded hardware). Start accelgui without --sysroot to measure "
                           "this computer.").format(machine=self.machine_label())
        return None

    def run_benchmark(self, mode: str = "quick") -> None:
        if self.bench.is_running():
            return
        refusal = self.benchmark_refusal()
        if refusal:
            self.notice.show_message(refusal, error=True)
            return
        if not self.showing_live:
            if self.state.replacing_needs_consent() and not self.confirm_replace():
                return
            self.show_live()
        # the toolbar's button runs what was run last (its menu has both)
        self.bench_button.setDefaultAction(self.act_full if mode == "full" else self.act_quick)
        argv = self.benchmark_command(mode) if self.benchmark_command else None
        self.bench.start(mode, argv)
        # the page is shown in the next turn: starting the child and drawing the page in one
        # turn held the loop for 25-40 ms on a 2-core machine
        QTimer.singleShot(0, self, lambda: self.show_page("benchmarks"))

    def cancel_benchmark(self) -> None:
        if self.bench.is_running():
            self.bench.cancel()
            self.statusBar().showMessage(self.tr("Stopping the benchmark…"), 2000)

    def _bench_running(self, running: bool) -> None:
        if running:
            self.state.benchmark_started(self.bench.mode if self.bench.mode in ("quick", "full") else "quick")
            self.monitor.bench_started()
        self.act_quick.setEnabled(not running and not self.recorded())
        self.act_full.setEnabled(not running and not self.recorded())
        self.act_cancel.setEnabled(running)
        self.benchmarks.set_running(running, self.bench.mode)
        self._update_status()

    def _bench_progress(self, event: dict) -> None:
        self.benchmarks.show_progress(event)
        self.monitor.bench_progress(event)
        fraction = event.get("fraction")
        if isinstance(fraction, (int, float)):
            self.statusBar().showMessage(self.tr("Benchmark {pct}% · {stage}").format(
                pct=int(fraction * 100), stage=event.get("stage") or ""))

    def _bench_finished(self, benchmarks: dict) -> None:
        telemetry = self.monitor.bench_finished()
        if telemetry is not None and "telemetry" not in benchmarks:
            benchmarks = dict(benchmarks, telemetry=telemetry)
        self.statusBar().clearMessage()
        self.benchmarks.show_finished()
        # the section is checked against the benchmark contract in a worker (tens of ms of
        # jsonschema that stalled the event loop); the page then reads the checked copy
        ended = time.time()
        self._run_task(_check_job, benchmarks, done=lambda _ok: self._bench_checked(benchmarks, ended),
                       failed=lambda _message: self._bench_checked(benchmarks, ended))

    def _bench_checked(self, benchmarks: dict, ended: float) -> None:
        if not self.state.benchmark_finished(benchmarks, ended):
            self._unrecorded = benchmarks       # no report yet: kept once this computer is probed
            return
        self._keep_run(benchmarks)              # at once: the page's history plot reads it
        self.refresh()
        # measured figures feed the advisor and the estimates; run it once the plots are
        # drawn, so that its thread does not compete with them for the interpreter
        if self.benchmarks.building:
            self._advise_after_plots = True
        else:
            self.advise("live")

    def _plots_ready(self) -> None:
        if self._advise_after_plots:
            self._advise_after_plots = False
            self.advise("live")

    def _keep_run(self, benchmarks: dict) -> None:
        """Record the finished run in this computer's history, in a worker."""
        self._run_task(_record_job, self.live_report, benchmarks,
                       failed=lambda message: self.notice.show_message(self.tr(
                           "The benchmark history was not updated: {error}").format(error=message), error=True))

    def _bench_failed(self, message: str) -> None:
        self.state.benchmark_stopped()
        self.monitor.bench_finished()
        self.statusBar().showMessage(self.tr("The benchmark failed."), 5000)
        self.benchmarks.show_error(message)

    def _bench_cancelled(self) -> None:
        self.state.benchmark_stopped()
        self.monitor.bench_finished()
        self.statusBar().showMessage(self.tr("Benchmark cancelled."), 3000)
        self.benchmarks.show_cancelled()

    # == export / about =====================================================================
    def export_dialog(self, fmt: str = "json") -> str | None:
        """Ask where and how to export the report shown now; returns the file written."""
        if self.report is None:
            self.notice.show_message(self.tr("Nothing to export yet: the machine is still being probed."))
            return None
        dialog = ExportDialog(self.report, lang=i18n.knowledge_lang(self.ui_lang), fmt=fmt, parent=self)
        dialog.redact.setChecked(self.redact_shared)
        written = dialog.written if dialog.exec() else None
        if written:                         # the choice made here is also Copy's
            self.redact_shared = dialog.redact.isChecked()
            settings.remember("export/redact", self.redact_shared)
            self.hardware.render(self.view_state())
        dialog.deleteLater()                # one dialog per export, not one kept per export
        if written:
            self.notice.show_message(self.tr("Exported to {path}").format(path=written))
        return written

    def about_text(self) -> str:
        rows = [
            ("accelgui", __version__),
            ("Qt", qVersion()),
            ("PySide6", _dist_version("PySide6-Essentials") or _dist_version("PySide6") or "?"),
            ("pyqtgraph", _dist_version("pyqtgraph") or self.tr("not installed")),
            ("numba", _dist_version("numba") or self.tr("not installed")),
            ("Python", platform.python_version()),
        ]
        table = "".join(f"<tr><td><b>{name}</b></td><td>&nbsp;{value}</td></tr>" for name, value in rows)

        def key(act: QAction) -> str:
            return act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

        shortcuts = [self.tr("{key}: {action}").format(key=key(act), action=act.text().replace("&", ""))
                     for act in (
            self.act_quick, self.act_full, self.act_cancel, self.act_open, self.act_export,
            self.act_reprobe, self.act_about)]
        shortcuts.append(self.tr("{first} … {last}: go to a page").format(
            first=key(self.act_pages[0]), last=key(self.act_pages[-1])))
        shortcuts.append(self.tr("Alt+Left: from a learning path back to all routes"))
        links = ("<p>" + html_escape(self.tr("Licence: {licence}").format(licence=LICENCE)) + "<br>"
                 + self.tr("Project: {url}").format(url=f'<a href="{PROJECT_URL}">{PROJECT_URL}</a>') + "</p>")
        return ("<h3>accelgui</h3><p>" + self.tr(
            "What this machine can do for accelerated computing: probes, measured throughput "
            "and learning routes. Nothing leaves this computer unless you export it.")
            + "</p>" + links + f"<table>{table}</table><p><b>" + self.tr("Keyboard shortcuts") + "</b><br>"
            + "<br>".join(html_escape(line) for line in shortcuts) + "</p>")

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About accelgui"), self.about_text())

    def changeEvent(self, event) -> None:
        # the desktop switched between light and dark: redraw with the new palette
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and hasattr(self, "views"):
            self._dirty = set(PAGES)
            QTimer.singleShot(0, self, self._render_current)
        super().changeEvent(event)

    # == closing ============================================================================
    def closeEvent(self, event) -> None:
        self._closing = True
        settings.remember("window/geometry", self.saveGeometry())
        settings.remember("ui/page", self.current_page())   # here, not on every page switch
        self.bench.stop_and_wait()
        self.monitor.shutdown()
        super().closeEvent(event)
