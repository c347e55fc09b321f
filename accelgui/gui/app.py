"""Start the desktop app: ``run_app(argv)``.

The window is shown before anything slow happens; probing starts from the event loop in a
worker, and pyqtgraph (only the Benchmarks page needs it) is imported in the background
after the first paint.

Options (for tests, screenshots and replaying a recorded machine)::

    python -m accelgui.gui.app [--sysroot DIR] [--report FILE] [--lang en|zh_CN]
                               [--theme system|light|dark] [--page NAME] [--knowledge DIR]

Language, theme and page default to the last ones chosen (accelgui.gui.settings).
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib.resources import files

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QApplication

from accelgui import __version__
from accelgui.desktop import APP_ID  # desktop file id, AppStream id and icon name
from accelgui.gui import i18n

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
THEMES = ("system", "light", "dark")
#: the interpreter's thread switch interval in the app (Python's default: 5 ms). A worker
#: thread running Python (probing, the advisor, an import) hands the GIL to the GUI thread
#: within this time; every call from Qt into Python (a slot, a paint of a plot item) may wait
#: that long. With the advisor running in a worker while the Monitor page drew, the longest
#: stall was 55-90 ms at 5 ms and 45-50 ms at 1 ms, the worker's throughput the same.
GIL_SWITCH_S = 0.001


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="accelgui", description="accelgui desktop app")
    p.add_argument("--sysroot", default="/", metavar="DIR",
                   help="probe a recorded machine tree instead of this machine")
    p.add_argument("--report", metavar="FILE", help="show a saved JSON report instead of probing")
    p.add_argument("--knowledge", metavar="DIR", help="extra or replacement route files")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="per-probe timeout")
    p.add_argument("--lang", default=None, help="en or zh_CN (default: from the locale)")
    p.add_argument("--theme", choices=THEMES, default=None,
                   help="colour theme (default: the last one chosen, else the desktop's)")
    p.add_argument("--page", default=None, metavar="NAME",
                   help="page to open first: overview, hardware, benchmarks, routes, reports... "
                        "(default: the last one shown)")
    p.add_argument("--goal", default=None, metavar="GOAL",
                   help="learning goal to rank the next steps for (saved with your progress); "
                        "'none' clears the saved goal")
    return p


def apply_goal(goal: str | None) -> str | None:
    """``--goal``: save the goal (``none`` clears it) as the picker would, and say so on stderr.
    Returns an error text for an unknown goal (None: done)."""
    if goal is None:
        return None
    from accelgui import advisor, l10n
    from accelgui.progress import set_goal

    goal = None if goal.strip().lower() in ("none", "") else goal
    try:
        advisor.check_goal(goal)
    except ValueError as exc:
        return str(exc)
    before = set_goal(goal)
    lang = l10n.lang_code(os.environ.get("LC_ALL") or os.environ.get("LANG"))
    if goal:
        text = l10n.tr("advice.goal.set", lang, goal=advisor.goal_label(goal, lang))
    elif before:
        text = l10n.tr("advice.goal.cleared", lang, goal=advisor.goal_label(before, lang)
                       if before in advisor.GOALS else before)
    else:
        text = l10n.tr("advice.goal.none_saved", lang)
    sys.stderr.write(f"accelgui: {text}\n")
    return None


def app_icon() -> QIcon:
    icon = QIcon()
    base = files("accelgui.resources").joinpath("icons")
    for size in ICON_SIZES:
        try:
            data = base.joinpath(f"accelgui-{size}.png").read_bytes()
        except OSError:
            continue
        pixmap = QPixmap()
        if pixmap.loadFromData(data, "PNG"):
            icon.addPixmap(pixmap)
    return icon


def create_app(qt_argv: list[str] | None = None, theme: str = "system") -> QApplication:
    sys.setswitchinterval(GIL_SWITCH_S)
    app = QApplication.instance()
    if app is None:
        # Qt 6 always scales by the screen's DPI; PassThrough (its default) keeps fractional
        # factors such as 1.25 / 1.5 instead of rounding them; set before the app exists.
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
            Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0] if sys.argv and sys.argv[0] else "accelgui", *(qt_argv or [])])
    QCoreApplication.setOrganizationName("accelgui")
    QCoreApplication.setApplicationName("accelgui")
    QCoreApplication.setApplicationVersion(__version__)
    QGuiApplication.setApplicationDisplayName("accelgui")
    QGuiApplication.setDesktopFileName(APP_ID)  # matches APP_ID.desktop: docks find its icon
    app.setWindowIcon(app_icon())
    apply_theme(app, theme)
    return app


def apply_theme(app: QApplication, theme: str) -> None:
    """"system" follows the desktop's light/dark setting; "light"/"dark" force one.

    Views use palette roles only, so a palette is all a theme needs."""
    if theme == "system":
        return
    hints = app.styleHints()
    scheme = Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light
    if hasattr(hints, "setColorScheme"):
        hints.setColorScheme(scheme)
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")  # the style that redraws itself from any palette
    is_dark = app.palette().color(QPalette.ColorRole.Window).lightness() < 128
    if (theme == "dark") != is_dark:  # the platform ignored the request (e.g. no desktop theme)
        app.setPalette(dark_palette() if theme == "dark" else app.style().standardPalette())


def dark_palette() -> QPalette:
    p = QPalette()
    roles = QPalette.ColorRole
    for role, colour in ((roles.Window, "#2b2b2b"), (roles.WindowText, "#e6e6e6"),
                         (roles.Base, "#1f1f1f"), (roles.AlternateBase, "#303030"),
                         (roles.ToolTipBase, "#3a3a3a"), (roles.ToolTipText, "#e6e6e6"),
                         (roles.Text, "#e6e6e6"), (roles.Button, "#353535"),
                         (roles.ButtonText, "#e6e6e6"), (roles.BrightText, "#ff6b6b"),
                         (roles.Link, "#6ab0ff"), (roles.LinkVisited, "#b89cff"),
                         (roles.Highlight, "#2f6fb5"), (roles.HighlightedText, "#ffffff"),
                         (roles.PlaceholderText, "#9a9a9a"), (roles.Mid, "#4a4a4a"),
                         (roles.Midlight, "#3c3c3c"), (roles.Dark, "#1a1a1a"),
                         (roles.Shadow, "#000000"), (roles.Light, "#505050")):
        p.setColor(role, QColor(colour))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return p


def run_app(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, qt_args = parser.parse_known_args(list(argv or []))
    if args.sysroot != "/" and not os.path.isdir(args.sysroot):
        sys.stderr.write(f"accelgui: --sysroot {args.sysroot}: not a directory\n")
        return 2
    if args.report and not os.path.isfile(args.report):
        sys.stderr.write(f"accelgui: --report {args.report}: no such file\n")
        return 2
    problem = apply_goal(args.goal)
    if problem:
        sys.stderr.write(f"accelgui: --goal: {problem}\n")
        return 2
    from accelgui.gui import settings
    from accelgui.gui.main_window import PAGES, AppOptions, MainWindow

    if args.page and args.page not in PAGES:
        sys.stderr.write(f"accelgui: --page {args.page}: not a page ({', '.join(PAGES)})\n")
        return 2
    theme = args.theme or settings.value("ui/theme", "system")
    theme = theme if theme in THEMES else "system"
    if args.theme:
        settings.remember("ui/theme", args.theme)
    app = create_app(qt_args, theme)
    lang = args.lang or settings.value("ui/language") or i18n.system_language()
    lang = i18n.normalize(lang)
    i18n.install(lang, app)
    page = args.page or settings.value("ui/page", "overview")
    page = page if page in PAGES else PAGES[0]

    options = AppOptions(sysroot=os.path.abspath(args.sysroot) if args.sysroot != "/" else "/",
                         report=args.report, knowledge=args.knowledge, timeout=args.timeout,
                         lang=lang)
    window = MainWindow(options)
    window.show_page(page)
    window.show()
    app.processEvents()     # the window painted first: probing threads must not hold it back
    QTimer.singleShot(0, window.start)      # probing, then pyqtgraph in the background
    return app.exec()


if __name__ == "__main__":
    sys.exit(run_app(sys.argv[1:]))
