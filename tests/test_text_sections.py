"""The text report: the same section tables as the other formats, laid out for a terminal
(columns padded by display width, long cells under their row), and every number in words."""

from __future__ import annotations

import re

from report_fixtures import load

from accelgui.export import render
from accelgui.export.labels import in_words
from accelgui.export.sections import build_sections
from accelgui.export.text import cells, cut, render_tables


def test_display_width_counts_wide_characters_twice():
    assert cells("abc") == 3 and cells("\u5c31\u7eea") == 4 and cells("e\u0301") == 1
    assert cells(cut("\u5c31\u7eea\u5c31\u7eea\u5c31\u7eea", 7)) <= 7


def test_chinese_columns_line_up_on_the_screen():
    out = render(load("rich"), "text", lang="zh")
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["#"])
    rows = [ln for ln in lines[head:head + 10] if re.match(r"\s+(#|\d+)  ", ln)]
    # the address column starts at the same screen column on every row, whatever the kind's width
    starts = {cells(ln[:ln.index("pci ")]) for ln in rows if "pci " in ln}
    assert len(rows) == 10 and len(starts) == 1


def test_every_table_of_the_other_formats_is_in_the_text():
    report = load("rich")
    text = render(report, "text")
    for t in build_sections(report):
        if t.in_summary:
            assert f"{t.title}:" in text, t.key


def test_long_cells_go_under_their_row_not_cut():
    report = load("rich")
    devices = next(t for t in build_sections(report) if t.key == "devices")
    text = "\n".join(render_tables([devices]))
    fix = next(r[9] for r in devices.rows if r[9])
    assert fix in text and "…" not in text


def test_a_clock_measured_by_the_benchmark_is_shown_when_the_probe_had_none():
    report = load("rich")
    report = report.replace(cpu=report.cpu.replace(max_mhz=None, min_mhz=None))
    text = render(report, "text")
    assert "Clock: 3,800 MHz, measured under load by the benchmark" in text
    bare = load("minimal")
    assert "Clock: unknown" in render(bare.replace(cpu=bare.cpu.replace(max_mhz=None, min_mhz=None)), "text")


def test_field_paths_in_texts_become_words():
    assert in_words("measured (benchmarks.gpu.3.triad_gbps)") == "measured (GPU memory benchmark)"
    assert in_words("devices[2].details.memory_bytes, minus 10%") == "device memory, minus 10%"
    assert in_words("memory.total_bytes x 0.5", "zh").startswith("\u7cfb\u7edf\u5185\u5b58")
    assert "_" not in in_words("benchmarks.cpu.latency_ns.some_new_figure_ns")
    for fmt in ("text", "markdown", "html"):
        out = render(load("rich"), fmt)
        assert not re.search(r"\b(?:benchmarks|memory)\.[a-z_]+\.", out.replace("memory.total_bytes x", "")), fmt


def test_caches_of_unequal_size_are_given_by_their_total():
    """An M1 Pro's L2: two 12 MiB clusters and one 4 MiB: 28 MiB in all, not 9.3 MiB x 3."""
    from accelgui.export.facts import cache_text

    report = load("rich")
    cpu = report.cpu.replace(caches={"l2": {"size_bytes": 28 * 2 ** 20, "instances": 3},
                                     "l1d": {"size_bytes": 48 * 2 ** 10 * 4, "instances": 4}})
    text = cache_text(cpu)
    assert "L2 28 MiB in all (3 caches of unequal size)" in text and "L1D 48 KiB × 4" in text
    assert "\u5171" in cache_text(cpu, "zh")
