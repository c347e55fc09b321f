"""Start the desktop app: ``run_app(argv)``.

The window is shown before anything slow happens; probing starts from the event loop in a
worker, and pyqtgraph (only the Benchmarks page needs it) is imported in the background
after the first paint.

The options are ``accelgui``'s own (accelgui.options: one parser), so ``accelgui --timeout 20``
and ``python -m accelgui.gui.app --timeout 20`` open the same app::

    python -m accelgui.gui.app [--sysroot DIR] [--report FILE] [--lang en|zh] [--timeout S]
                               [--theme system|light|dark] [--page NAME] [--knowledge DIR]
                               [--goal GOAL]

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

from accelgui import __version__, options
from accelgui.desktop import APP_ID  # desktop file id, AppStream id and icon name
from accelgui.gui import i18n
from accelgui.gui.assets import apply_ui_font

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
THEMES = options.THEMES
#: the interpreter's thread switch interval in the app (Python's default: 5 ms). A worker
#: thread running Python (probing, the advisor, an import) hands the GIL to the GUI thread
#: within this time; every call from Qt into Python (a slot, a paint of a plot item) may wait
#: that long. With the advisor running in a worker while the Monitor page drew, the longest
#: stall was 55-90 ms at 5 ms and 45-50 ms at 1 ms, the worker's throughput the same.
GIL_SWITCH_S = 0.001


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
    apply_ui_font(app)
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


def _parse(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """``accelgui``'s options from ``argv``; what they do not know is left for Qt."""
    return options.build_parser().parse_known_args(list(argv or []))


def _refusal(args: argparse.Namespace) -> tuple[str, int] | None:
    """(what is wrong, exit code) before a window opens, with the codes of ``accelgui``'s
    commands (2: a usage error, 1: an input that cannot be read)."""
    if args.sysroot != "/" and not os.path.isdir(args.sysroot):
        return f"--sysroot {args.sysroot}: not a directory", options.EXIT_USAGE
    if args.report and not os.path.isfile(args.report):
        return f"--report {args.report}: no such file", options.EXIT_FAIL
    if args.page and args.page not in options.PAGES:
        return f"--page {args.page}: not a page ({', '.join(options.PAGES)})", options.EXIT_USAGE
    if args.goal is not None:
        try:
            options.apply_goal_option(args)
        except options.UsageError as exc:
            return f"--goal: {exc}", options.EXIT_USAGE
    return None


def run_app(argv: list[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Open the window and run the event loop. ``args``: the options ``accelgui`` parsed
    already; else they are read from ``argv``."""
    qt_args: list[str] = []
    if args is None:
        args, qt_args = _parse(argv)
    refusal = _refusal(args)
    if refusal:
        sys.stderr.write(f"accelgui: {refusal[0]}\n")
        return refusal[1]
    from accelgui.gui import settings
    from accelgui.gui.main_window import AppOptions, MainWindow

    theme = args.theme or settings.value("ui/theme", "system")
    theme = theme if theme in THEMES else "system"
    if args.theme:
        settings.remember("ui/theme", args.theme)
    app = create_app(qt_args, theme)
    lang = i18n.normalize(args.lang or settings.value("ui/language") or i18n.system_language())
    i18n.install(lang, app)
    page = args.page or settings.value("ui/page", "overview")
    page = page if page in options.PAGES else options.PAGES[0]

    app_options = AppOptions(sysroot=os.path.abspath(args.sysroot) if args.sysroot != "/" else "/",
                             report=args.report, knowledge=args.knowledge, timeout=args.timeout,
                             lang=lang)
    window = MainWindow(app_options)
    window.show_page(page)
    window.show()
    app.processEvents()     # the window painted first: probing threads must not hold it back
    QTimer.singleShot(0, window.start)      # probing, then pyqtgraph in the background
    return app.exec()


if __name__ == "__main__":
    sys.exit(run_app(sys.argv[1:]))
