"""The PDF laid out for paper, read back with pdftotext: at most six pages, no heading left at
the bottom of a page without its content, no table row split over two pages, roofline points
in words, the measured figures the same as in every other face, correct plurals."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess

import pytest

from accelgui.export import common
from accelgui.export import html
from accelgui.report import Report
from report_fixtures import has_qt_gui, load

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = os.path.join(HERE, "fixtures", "bench", "quick-2cpu-vm.json")

pytestmark = pytest.mark.skipif(not has_qt_gui(), reason="PySide6.QtGui cannot be imported")


def quick_section() -> dict:
    with open(QUICK, encoding="utf-8") as f:
        return json.load(f)


def pdf_pages(report, lang: str, tmp_path, images: dict | None = None) -> list[str]:
    """The text of each page of the report's PDF (pdftotext -layout), or skip; ``images``
    gets {page number: how many images it shows} (pdfimages -list)."""
    if not shutil.which("pdftotext") or not shutil.which("pdfimages"):
        pytest.skip("pdftotext / pdfimages not installed (Debian: poppler-utils)")
    from accelgui.export import pdf

    target = tmp_path / f"report-{lang}.pdf"
    target.write_bytes(pdf.render(report, lang))
    text = subprocess.run(["pdftotext", "-layout", str(target), "-"], capture_output=True,
                          text=True, timeout=120, check=True).stdout
    if images is not None:
        listing = subprocess.run(["pdfimages", "-list", str(target)], capture_output=True,
                                 text=True, timeout=120, check=True).stdout.splitlines()[2:]
        for row in listing:
            if row.split() and row.split()[2] == "image":
                images[int(row.split()[0])] = images.get(int(row.split()[0]), 0) + 1
    return [p for p in text.split("\f") if p.strip()]


def headings(report, lang: str) -> set[str]:
    """Every heading the PDF prints: table titles and chart captions."""
    titles = {t.title for t in common.build_sections(report, lang) if t.on_paper and t.title}
    titles |= {caption for caption, _svg in html.charts(report, lang)}
    return {" ".join(t.split()) for t in titles}


def stranded(page: str, titles: set[str]) -> str | None:
    """The heading a page ends with (two side by side count too), or None."""
    lines = [" ".join(line.split()) for line in page.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    if last in titles:
        return last
    for t in titles:
        if last.startswith(t) and last[len(t):].strip() in titles:
            return last
    return None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rich_report_fits_six_pages_and_strands_no_heading(tmp_path, lang):
    report = load("rich")
    images: dict = {}
    pages = pdf_pages(report, lang, tmp_path, images)
    assert len(pages) <= 6, f"{len(pages)} pages"
    titles = headings(report, lang)
    captions = {" ".join(c.split()) for c, _svg in html.charts(report, lang)}
    assert titles and len(captions) >= 3
    assert sum(images.values()) == len(captions)
    for i, page in enumerate(pages[:-1]):
        end = stranded(page, titles)
        if end in captions:   # a chart's caption last: its chart (an image) is on that page
            shown = sum(1 for line in page.splitlines() if " ".join(line.split()) in captions)
            assert images.get(i + 1, 0) >= shown, f"page {i + 1} ends with the caption {end!r}"
        else:
            assert end is None, f"page {i + 1} ends with a heading: {end}"
    # the last page is more than a footer
    assert len([line for line in pages[-1].splitlines() if line.strip()]) > 3


def test_a_heading_at_a_page_end_moves_to_the_next_page_with_its_table():
    """keep_together on a document made to strand a heading and split rows: afterwards no
    heading is on another page than its table's first row, no row runs over a page end."""
    from accelgui.export import pdf

    pdf._ensure_app()
    from PySide6.QtCore import QSizeF
    from PySide6.QtGui import QTextDocument

    rows = "".join(f"<tr><td>row {i}</td><td>{'a long reason that wraps ' * (6 if i % 4 == 0 else 1)}"
                   "</td></tr>" for i in range(40))
    body = "".join(f"<h2>Section {k}</h2><p>{'text ' * 80}</p>" for k in range(3))
    doc = QTextDocument()
    doc.setHtml(body + "<h2>Routes</h2><table border=1>" + rows + "</table><h2>End</h2><p>tail</p>")
    doc.setPageSize(QSizeF(420, 300))
    height = 300.0
    before = pdf._split_rows(doc, height), pdf._stranded_headings(doc, height)
    assert before[0], "the test document should have a split row to start with"
    added = pdf.keep_together(doc, height)
    assert added >= len(before[0])
    assert pdf._split_rows(doc, height) == []
    assert pdf._stranded_headings(doc, height) == []
    texts = [b for b in (doc.findBlockByNumber(i).text() for i in range(doc.blockCount()))]
    assert "Routes" in texts and "tail" in texts      # nothing lost


def test_same_run_same_numbers_in_table_roofline_and_pdf(tmp_path, qtbot):
    """One statistic per quantity: the median STREAM triad of a real quick run (35 GB/s; its
    best repeat was 38.2) is what the app's table and roofline legend, the roofline drawn into
    the PDF and the PDF's table all say."""
    data = load("rich").to_dict()
    data["benchmarks"] = quick_section()
    report = Report.from_dict(data)

    from accelgui.export import benchmarks as bench_export
    from accelgui.gui.views.benchmarks import BenchmarksView
    from accelgui.gui.views.common import ViewState

    view = BenchmarksView()
    qtbot.addWidget(view)
    view.render(ViewState(report=report))
    qtbot.waitUntil(lambda: not view.building, timeout=20000)
    legend = [label.text for _, label in view._plots["roofline"].getPlotItem().legend.items]
    assert any(t.startswith("STREAM triad (memory): 35 GB/s (median of 6") for t in legend), legend
    assert any("measured roof, all cores (median): 61.1 GFLOP/s, 35 GB/s" in t for t in legend), legend
    rows = {r[0]: r for r in view.figure_table_rows(report, view._read(report)) if len(r) > 1}
    assert rows["Triad bandwidth, all threads"][1:4] == ("35 GB/s", "21.2 GB/s – 38.2 GB/s", "6")

    svg = html.roofline_svg(bench_export.section(report), "en")
    assert "STREAM triad (memory): 35 GB/s" in svg and "DGEMM, n = 1024: 99.7 GFLOP/s" in svg
    assert "stream_triad" not in svg and ">dgemm" not in svg
    assert "61.1 GFLOP/s, 35 GB/s" in svg

    text = "\n".join(pdf_pages(report, "en", tmp_path))
    line = next(line for line in text.splitlines() if line.strip().startswith("STREAM triad, all"))
    assert re.search(r"all threads\s+\u26a0?\s*35\s+GB/s", line), line
    assert "38.2 GB/s" not in line


def test_plurals_and_measured_clock_on_paper(tmp_path):
    """A one-socket VM whose CPU reports no clock: "1 socket × 2 cores × 1 thread", and the
    clock the benchmark measured instead of "unknown"."""
    data = copy.deepcopy(load("rich").to_dict())
    data["cpu"].update(sockets=1, cores_per_socket=2, threads_per_core=1, logical_cpus=2,
                       max_mhz=None, min_mhz=None)
    data["benchmarks"] = quick_section()
    text = " ".join("\n".join(pdf_pages(Report.from_dict(data), "en", tmp_path)).split())
    assert "1 socket × 2 cores × 1 thread = 2 cores / 2 threads" in text
    assert "socket(s)" not in text and "1 threads" not in text
    assert "3,259 MHz" in text
