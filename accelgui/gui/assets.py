"""Developer tool: rebuild the app's generated assets from their sources; and the fonts
the app asks for on each OS.

    python -m accelgui.gui.assets icons          # resources/icons/accelgui-<size>.png from the SVG
    python -m accelgui.gui.assets translations   # lupdate (.py -> .ts, keeps translations), lrelease (.ts -> .qm)

Run from a source checkout (it writes into resources/). New UI strings appear in the .ts as
"unfinished"; translate them (Qt Linguist: pyside6-linguist) and run it again.

Chinese text needs a CJK font: :func:`ui_font_families` names the ones each OS ships
(macOS: PingFang SC, then Hiragino Sans GB and STHeiti; Windows: Microsoft YaHei UI, then
Microsoft YaHei and SimSun; Linux: Noto Sans CJK SC or WenQuanYi Micro Hei from the
distribution's packages), after the OS's own UI font, so Latin text keeps its look and Qt
takes Chinese glyphs from the first CJK family installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESOURCES = os.path.join(ROOT, "resources")
LANGUAGES = ("zh_CN",)
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


# (Latin UI font, CJK fonts in order of preference) per OS; Qt skips families not installed
UI_FONTS = {
    "darwin": (".AppleSystemUIFont", ("PingFang SC", "Hiragino Sans GB", "STHeiti")),
    "win32": ("Segoe UI", ("Microsoft YaHei UI", "Microsoft YaHei", "SimSun")),
    "linux": ("Noto Sans", ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "Droid Sans Fallback")),
}


def ui_font_families(platform: str | None = None) -> list[str]:
    """The font families for the app's text on ``platform`` (``sys.platform`` unless given):
    the OS's UI font, then its CJK fonts."""
    name = sys.platform if platform is None else platform
    key = "darwin" if name == "darwin" else "win32" if name in ("win32", "cygwin") else "linux"
    latin, cjk = UI_FONTS[key]
    return [latin, *cjk]


def apply_ui_font(app, platform: str | None = None) -> None:
    """Keep ``app``'s font (the desktop's choice; Qt starts with it) and add the OS's CJK fonts
    behind it, so Chinese text is drawn in a Chinese face wherever the UI font has no glyphs.
    Size unchanged."""
    font = app.font()
    current = font.family()
    font.setFamilies([current] + [f for f in ui_font_families(platform)[1:] if f != current])
    app.setFont(font)


def _tool(name: str) -> str:
    here = os.path.join(os.path.dirname(sys.executable), name)
    found = here if os.path.exists(here) else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} not found (it comes with PySide6)")
    return found


def render_icons() -> list[str]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])  # QPainter needs one
    svg = os.path.join(RESOURCES, "icons", "accelgui.svg")
    renderer = QSvgRenderer(svg)
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    written = []
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = os.path.join(RESOURCES, "icons", f"accelgui-{size}.png")
        if not image.save(out):
            raise SystemExit(f"cannot write {out}")
        written.append(out)
    del app
    return written


def update_translations() -> list[str]:
    gui = os.path.dirname(os.path.abspath(__file__))
    sources = sorted(glob.glob(os.path.join(gui, "*.py")) + glob.glob(os.path.join(gui, "views", "*.py")))
    written = []
    for lang in LANGUAGES:
        ts = os.path.join(RESOURCES, "translations", f"accelgui_{lang}.ts")
        qm = ts[:-3] + ".qm"
        subprocess.run([_tool("pyside6-lupdate"), *sources, "-no-obsolete", "-locations", "none",
                        "-target-language", lang, "-ts", ts], check=True)
        subprocess.run([_tool("pyside6-lrelease"), ts, "-qm", qm], check=True)
        written += [ts, qm]
    return written


def main(argv: list[str]) -> int:
    what = set(argv) or {"icons", "translations"}
    if "icons" in what:
        print("\n".join(render_icons()))
    if "translations" in what:
        print("\n".join(update_translations()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
