"""PDF: the HTML report laid out by Qt (QTextDocument) and printed by QPdfWriter on A4.

Qt is imported only inside :func:`render`, so no other format pays for it. Without a display
the offscreen platform plugin is used. QTextDocument renders a subset of HTML and no SVG, so
the body comes from the HTML exporter in its ``qt`` mode (plain bordered tables) and the
charts are rasterised from their SVG with QtSvg and embedded as images.

Chinese needs a CJK font on the system (Debian: fonts-noto-cjk, or fonts-wqy-microhei);
Qt falls back to it automatically through fontconfig.
"""

from __future__ import annotations

import os

from accelgui.export import common as C
from accelgui.export import html as H

_APP = None  # the QGuiApplication this module created, kept alive for later calls

QT_CSS = """
body { font-size: 9pt; color: #1d232a; }
h1 { font-size: 16pt; margin-bottom: 2px; }
h2 { font-size: 12.5pt; margin-top: 14px; margin-bottom: 4px; color: #0a3069; }
h3 { font-size: 10.5pt; margin-top: 8px; margin-bottom: 3px; }
table { border-color: #b0b8c0; border-style: solid; margin-bottom: 6px; }
th { background-color: #eef1f4; font-weight: bold; text-align: left; }
td, th { padding: 2px; }
.meta { color: #57606a; }
.note { color: #57606a; }
"""


class PdfError(RuntimeError):
    """Qt could not produce the PDF (no usable Qt GUI library)."""


def _ensure_app():
    global _APP
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtGui import QGuiApplication
    except ImportError as exc:  # PySide6 missing or its system libraries are
        raise PdfError(f"the pdf format needs Qt (PySide6): {exc}") from exc
    app = QCoreApplication.instance()
    if app is None:
        # a QApplication when QtWidgets is there, so that the desktop app (or pytest-qt) in
        # this same process can reuse the instance; a QGuiApplication is all the PDF needs
        try:
            from PySide6.QtWidgets import QApplication as AppClass
        except ImportError:
            AppClass = QGuiApplication
        _APP = AppClass(["accelgui"])
        return _APP
    if not isinstance(app, QGuiApplication):
        raise PdfError("the pdf format needs a QGuiApplication, but a QCoreApplication is running")
    return app


def _svg_image(svg: str, scale: float = 2.0):
    """Rasterise one of our SVG charts; None when QtSvg is not available."""
    try:
        from PySide6.QtCore import QByteArray, QRectF
        from PySide6.QtGui import QColor, QImage, QPainter
        from PySide6.QtSvg import QSvgRenderer
    except ImportError:
        return None
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    if not renderer.isValid():
        return None
    size = renderer.defaultSize()
    image = QImage(int(size.width() * scale), int(size.height() * scale), QImage.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    return image, (size.width(), size.height())


def _layout_dpi() -> float:
    from PySide6.QtGui import QGuiApplication

    screen = QGuiApplication.primaryScreen()
    return float(screen.logicalDotsPerInchX()) if screen is not None else 96.0


def render(report, lang: str = "en") -> bytes:
    _ensure_app()
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF, QUrl
    from PySide6.QtGui import QFont, QPageLayout, QPageSize, QPdfWriter, QTextDocument

    doc = QTextDocument()
    doc.setDefaultStyleSheet(QT_CSS)
    font = QFont()
    font.setFamilies(["Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei",
                      "Liberation Sans", "Sans Serif"])
    font.setPointSizeF(9.0)
    doc.setDefaultFont(font)

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    writer = QPdfWriter(buf)
    writer.setPageSize(QPageSize(QPageSize.A4))
    writer.setPageMargins(QMarginsF(14, 14, 14, 16), QPageLayout.Millimeter)
    writer.setResolution(300)
    writer.setTitle(C.label("title", lang))
    writer.setCreator(f"accelgui {C.label_text(report.accelgui_version)}")
    # lay the document out on the printable area itself (in points), so print_() neither
    # adds its own 2 cm margins nor shrinks the text
    area = writer.pageLayout().paintRectPoints()
    # QTextDocument lays out in pixels of the screen's logical DPI and print_() scales those to
    # the writer's resolution: the printable area is that many pixels wide, or the text would
    # fill only 72/96 of the page width
    px = _layout_dpi() / 72.0

    images = []
    for i, (caption, svg) in enumerate(H.charts(report, lang)):
        got = _svg_image(svg)
        if got is None:
            continue
        image, (width, height) = got
        name = f"accelgui-chart-{i}.png"
        doc.addResource(QTextDocument.ImageResource, QUrl(name), image)
        scale = min(1.0, (area.width() * px - 8) / width)
        images.append((caption, name, int(width * scale), int(height * scale)))

    doc.setHtml(H.body(report, lang, qt=True, images=images))
    host = C.label_text(report.platform.hostname)
    doc.setMetaInformation(QTextDocument.DocumentTitle,
                           C.label("title", lang) + (f": {host}" if host else ""))

    doc.setDocumentMargin(0)
    # QTextDocument lays out in pixels of the screen's logical DPI and print_() scales those to
    # the writer's resolution (see px above)
    doc.setPageSize(QSizeF(area.width() * px, area.height() * px))
    doc.print_(writer)
    del writer  # finishes the file
    buf.close()
    pdf = bytes(data.data())
    if not pdf.startswith(b"%PDF"):
        raise PdfError("Qt produced no PDF data")
    return pdf
