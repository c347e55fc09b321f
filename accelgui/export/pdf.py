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

from accelgui.export import common
from accelgui.export import html

_APP = None  # the QGuiApplication this module created, kept alive for later calls
#: charts at this share of their SVG size: four of them (bars, cache sweep, roofline) fit a page
CHART_SCALE = 0.8

QT_CSS = """
body { font-size: 8.5pt; color: #1d232a; }
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


def _page(y: float, height: float) -> int:
    return int(y // height)


def _table_rows(doc):
    """(table, row, top, bottom) of every row of every table in ``doc``, document coordinates."""
    layout = doc.documentLayout()
    frames = list(doc.rootFrame().childFrames())
    while frames:
        table = frames.pop(0)
        frames.extend(table.childFrames())
        if not hasattr(table, "cellAt"):
            continue
        for row in range(table.rows()):
            top, bottom = None, None
            for col in range(table.columns()):
                cell = table.cellAt(row, col)
                first = layout.blockBoundingRect(cell.firstCursorPosition().block())
                last = layout.blockBoundingRect(cell.lastCursorPosition().block())
                top = first.top() if top is None else min(top, first.top())
                bottom = last.bottom() if bottom is None else max(bottom, last.bottom())
            if top is not None:
                yield table, row, top, bottom


def _push_block(cursor) -> None:
    """Start the block at ``cursor`` on the next page: an empty block goes before it with a
    page break after it (a break policy on the block itself makes Qt paint it on both pages)."""
    from PySide6.QtGui import QTextBlockFormat, QTextFormat

    cursor.movePosition(cursor.MoveOperation.StartOfBlock)
    fmt = QTextBlockFormat()
    fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysAfter)
    fmt.setTopMargin(0)
    fmt.setBottomMargin(0)
    heading = cursor.blockFormat()
    cursor.insertBlock(heading, cursor.charFormat())
    cursor.movePosition(cursor.MoveOperation.PreviousBlock)
    cursor.setBlockFormat(fmt)


def _stranded_headings(doc, height: float) -> list:
    """A cursor at each heading (h1-h3, and chart captions: bold paragraphs on their own) that
    sits on another page than the start of what follows it."""
    from PySide6.QtGui import QTextCursor

    layout = doc.documentLayout()
    out = []
    block = doc.firstBlock()
    while block.isValid():
        nxt = block.next()
        if _is_heading(block) and nxt.isValid():
            top = _first_line_top(layout, block)
            # what follows: its first line (pagination moves lines, not block tops: an image
            # that does not fit is a line moved to the next page)
            if _page(top, height) != _page(_first_line_top(layout, nxt, bottom=True) - 1, height):
                out.append(QTextCursor(block))
        block = nxt
    return out


def _first_line_top(layout, block, bottom: bool = False) -> float:
    """Where the first line of ``block`` starts (or ends, with ``bottom``), document coordinates."""
    rect = layout.blockBoundingRect(block)
    lines = block.layout()
    if lines is None or lines.lineCount() == 0:
        return rect.bottom() if bottom else rect.top()
    line = lines.lineAt(0)
    return rect.top() + line.y() + (line.height() if bottom else 0.0)


def _is_heading(block) -> bool:
    """An h1-h6 block, or a short paragraph all in bold outside tables (a chart's caption)."""
    if block.blockFormat().headingLevel() > 0:
        return True
    text = block.text().strip()
    if not text or block.textList() is not None or _in_table(block):
        return False
    it = block.begin()
    bold = True
    while not it.atEnd():
        frag = it.fragment()
        if frag.isValid() and frag.text().strip() and frag.charFormat().fontWeight() < 600:
            bold = False
        it += 1
    return bold and len(text) < 120


def _in_table(block) -> bool:
    """Whether ``block`` is inside a table cell."""
    from PySide6.QtGui import QTextCursor

    return QTextCursor(block).currentTable() is not None


def _split_rows(doc, height: float) -> list:
    """(table, row, room left on its page) of each table row that runs over a page end (and
    would fit on one page)."""
    out = []
    for table, row, top, bottom in _table_rows(doc):
        if _page(top, height) != _page(bottom - 1, height) and bottom - top < 0.5 * height:
            out.append((table, row, (_page(top, height) + 1) * height - top))
    return out


def _push_row(table, row: int, room: float) -> None:
    """Move the text of ``row`` to the next page: Qt breaks table rows between lines and has
    no break before a row, so its cells get a top padding the size of the room left."""
    for col in range(table.columns()):
        cell = table.cellAt(row, col)
        fmt = cell.format().toTableCellFormat()
        fmt.setTopPadding(fmt.topPadding() + room + 2.0)
        cell.setFormat(fmt)


def keep_together(doc, height: float, rounds: int = 40) -> int:
    """Paginate ``doc`` (page ``height``) so that no heading is left at a page end without its
    content and no table row is split over two pages: a page break goes before each such
    heading or row, one at a time from the top (each moves what follows). Returns how many
    breaks were added."""
    added = 0
    for _ in range(rounds):
        heading = _stranded_headings(doc, height)[:1]
        split = _split_rows(doc, height)[:1]
        if not heading and not split:
            break
        row_at = split[0][0].cellAt(split[0][1], 0).firstCursorPosition().position() if split else None
        if heading and (row_at is None or heading[0].position() < row_at):
            _push_block(heading[0])
        else:
            _push_row(*split[0])
        added += 1
    return added


def render(report, lang: str = "en") -> bytes:
    _ensure_app()
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF, QUrl
    from PySide6.QtGui import QFont, QPageLayout, QPageSize, QPdfWriter, QTextDocument

    doc = QTextDocument()
    doc.setDefaultStyleSheet(QT_CSS)
    font = QFont()
    font.setFamilies(["Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei",
                      "Liberation Sans", "Sans Serif"])
    font.setPointSizeF(8.5)
    doc.setDefaultFont(font)

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    writer = QPdfWriter(buf)
    writer.setPageSize(QPageSize(QPageSize.A4))
    writer.setPageMargins(QMarginsF(14, 14, 14, 16), QPageLayout.Millimeter)
    writer.setResolution(300)
    writer.setTitle(common.label("title", lang))
    writer.setCreator(f"accelgui {common.label_text(report.accelgui_version)}")
    # lay the document out on the printable area itself (in points), so print_() neither
    # adds its own 2 cm margins nor shrinks the text
    area = writer.pageLayout().paintRectPoints()
    # QTextDocument lays out in pixels of the screen's logical DPI and print_() scales those to
    # the writer's resolution: the printable area is that many pixels wide, or the text would
    # fill only 72/96 of the page width
    px = _layout_dpi() / 72.0

    images = []
    for i, (caption, svg) in enumerate(html.charts(report, lang)):
        got = _svg_image(svg)
        if got is None:
            continue
        image, (width, height) = got
        name = f"accelgui-chart-{i}.png"
        doc.addResource(QTextDocument.ImageResource, QUrl(name), image)
        scale = min(CHART_SCALE, (area.width() * px - 8) / width)
        images.append((caption, name, int(width * scale), int(height * scale)))

    doc.setHtml(html.body(report, lang, qt=True, images=images))
    host = common.label_text(report.platform.hostname)
    doc.setMetaInformation(QTextDocument.DocumentTitle,
                           common.label("title", lang) + (f": {host}" if host else ""))

    doc.setDocumentMargin(0)
    # QTextDocument lays out in pixels of the screen's logical DPI and print_() scales those to
    # the writer's resolution (see px above)
    doc.setPageSize(QSizeF(area.width() * px, area.height() * px))
    keep_together(doc, area.height() * px)
    doc.print_(writer)
    del writer  # finishes the file
    buf.close()
    pdf = bytes(data.data())
    if not pdf.startswith(b"%PDF"):
        raise PdfError("Qt produced no PDF data")
    return pdf
