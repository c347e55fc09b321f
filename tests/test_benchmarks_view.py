"""The Benchmarks page in words: the All figures table (grouped quantities, median, range,
repeats; raw keys only behind a toggle), notices in the page's language, the previous run's
notices gone while a new run measures, which machine the figures are of, the history of
runs with published reference figures beside them."""

from __future__ import annotations

import copy
import json
import os
import re
from types import SimpleNamespace

import pytest

pytest.importorskip("pytestqt")

from accelgui import history, reference_machines
from accelgui.report import Report
from tests.gui_support import built_rich_report

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = os.path.join(HERE, "fixtures", "bench", "quick-2cpu-vm.json")
# a raw key: a dotted path (cpu.stream.x) or a snake_case name (l1d_bytes, fp64_mt)
RAW_KEY = re.compile(r"\b[a-z0-9]+(?:\.[a-z0-9_]+)+\b|\b[a-z0-9]+_[a-z0-9_]+\b")


def quick_section() -> dict:
    with open(QUICK, encoding="utf-8") as f:
        return json.load(f)


def report_with(section: dict) -> Report:
    data = built_rich_report().to_dict()
    data["benchmarks"] = section
    return Report.from_dict(data)


def rendered(qtbot, report, lang="en", live=True, source=None):
    from accelgui.gui.views.benchmarks import BenchmarksView
    from accelgui.gui.views.common import ViewState

    view = BenchmarksView()
    qtbot.addWidget(view)
    if source is not None:
        view.set_source(source)
    view.render(ViewState(report=report, lang=lang, live=live))
    qtbot.waitUntil(lambda: not view.building, timeout=20000)
    return view


def table_texts(view) -> list[list[str]]:
    t = view._table
    return [[t.item(r, c).text() if t.item(r, c) else "" for c in range(t.columnCount())]
            for r in range(t.rowCount())]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_figures_are_words_with_median_range_and_repeats(qtbot, lang):
    view = rendered(qtbot, report_with(quick_section()), lang)
    toggle, title = {"en": ("Show raw keys", "History and reference machines"),
                     "zh": ("\u663e\u793a\u539f\u59cb\u952e", "\u5386\u53f2\u8bb0\u5f55\u4e0e\u53c2\u8003\u673a\u5668")}[lang]
    assert view.raw_toggle.text() == toggle and view.card_titles[3].text() == title
    rows = table_texts(view)
    assert len(rows) > 40
    for row in rows:
        for cell in row:
            assert "\u2026" not in cell, cell                 # nothing cut
            words = re.sub(r"\d[\d,.]*\s*(?:GB/s|GFLOP/s|MHz|ns|KiB|MiB|GiB|s|%|bit)?", "", cell)
            assert not RAW_KEY.search(words.replace("openblas", "").replace("zen4", "")), cell
    groups = [r[0] for r in rows if not any(r[1:])]
    assert len(groups) >= 7                                    # headline + the figure groups
    triad = next(r for r in rows if r[0] in ("Triad bandwidth, all threads", "Triad \u5e26\u5bbd\uff0c\u5168\u90e8\u7ebf\u7a0b"))
    assert triad[1:4] == ["35 GB/s", "21.2 GB/s \u2013 38.2 GB/s", "6"]
    # the raw keys, whole, only behind the toggle
    view.raw_toggle.setChecked(True)
    raw = {r[0]: r[1] for r in table_texts(view)}
    assert raw["cpu.caches.l1d_bytes"] == "32,768"
    assert "avx512f" in raw["environment.llvm_cpu_features"]      # the whole list, uncut
    assert "\u2026" not in raw["environment.llvm_cpu_features"]
    view.raw_toggle.setChecked(False)
    assert table_texts(view)[0][0] != "contract"


def test_notices_name_stages_in_the_page_language(qtbot):
    b = quick_section()
    b["warnings"] = ["measured twice, best kept (the first try looked slowed by another "
                     "process): fp64 FMA (all threads), STREAM (all threads)"]
    b["telemetry"] = {"stages": [{"name": "stream", "start_s": 0.0, "end_s": 1.0,
                                  "cpu_mhz_min": 1200.0, "cpu_mhz_max": 3600.0}], "notices": []}
    zh = rendered(qtbot, report_with(b), "zh").notices_text()
    assert "STREAM\uff08\u5168\u90e8\u7ebf\u7a0b\uff09" in zh and "FP64 FMA\uff08\u5168\u90e8\u7ebf\u7a0b\uff09" in zh
    assert "all threads" not in zh
    en = rendered(qtbot, report_with(b), "en").notices_text()
    assert "fp64 FMA (all threads)" not in en and "FP64 FMA (all threads), STREAM (all threads)" in en
    assert "STREAM stage" in en


def test_the_last_runs_notices_go_while_a_new_run_measures(qtbot):
    view = rendered(qtbot, report_with(quick_section()))
    assert "Noisy figure" in view.notices_text()
    view.set_running(True, "quick")
    assert view.notices_text() == ""
    view.set_running(False)
    assert "Noisy figure" in view.notices_text()       # cancelled: the figures shown keep theirs


def test_report_mode_names_the_machine_and_the_run_buttons_say_this_computer(qtbot):
    report = report_with(quick_section())
    opened = SimpleNamespace(kind="report", name="gpu-server-3", path="/tmp/r.json", is_live=False)
    view = rendered(qtbot, report, live=False, source=opened)
    assert view.intro.text().startswith("Measured on gpu-server-3:")
    assert "this computer" in view.intro.text()
    assert view.run_button.text() == "Run on this computer"
    view.set_source(SimpleNamespace(kind="live", name="this computer", path=None, is_live=True))
    assert view.intro.text().startswith("Measured on this machine")
    assert view.run_button.text() == "Run benchmark"
    tree = SimpleNamespace(kind="sysroot", name="dgx-tree", path="/trees/dgx", is_live=False)
    view.set_source(tree)
    assert view.intro.text().startswith("Recorded machine dgx-tree: a recorded tree is never benchmarked")
    # no Source given: the report's own host name
    assert "lab-laptop-07" in rendered(qtbot, report, live=False).intro.text()


def test_history_plot_and_reference_machines(qtbot):
    report = report_with(quick_section())
    runs = []
    for i, triad in enumerate((30.0, 33.0, 35.0)):
        b = quick_section()
        b["spread"]["cpu.stream.triad_gbps"]["median"] = triad
        runs.append(history.record(report.to_dict(), b, when=f"2026-12-0{i + 1}T09:00:00+00:00"))
    view = rendered(qtbot, report)
    plot = view._plots["history"].getPlotItem()
    curves = {item.name(): item.getData() for item in plot.listDataItems()}
    triad = next(v for k, v in curves.items() if k.startswith("Triad bandwidth"))
    assert list(triad[0]) == [1, 2, 3]
    assert [round(10 ** y, 6) for y in triad[1]] == [30.0, 33.0, 35.0]     # a log axis
    notes = [w.text() for w in view._slot_widgets[3][1:]]
    assert notes[0].startswith("3 stored runs")
    assert any(n.startswith("2026-12-03 09:00 \u00b7 quick \u00b7 Triad bandwidth, all threads 35 GB/s") for n in notes)
    compare = [n for n in notes if "www.anandtech.com, 2017-07-11" in n]
    assert compare and "35 GB/s" in compare[0]
    # a run recorded since: the same report drawn again shows it
    history.record(report.to_dict(), quick_section(), when="2026-12-04T09:00:00+00:00")
    view.render(view.state)
    qtbot.waitUntil(lambda: not view.building, timeout=20000)
    curves = {item.name(): item.getData() for item in view._plots["history"].getPlotItem().listDataItems()}
    assert len(next(v for k, v in curves.items() if k.startswith("Triad bandwidth"))[0]) == 4


def test_reference_machines_are_sourced_dated_and_checked():
    rows = reference_machines.machines()
    assert {r["kind"] for r in rows} == {"cpu", "gpu"}
    for r in rows:
        assert r["source"].startswith("https://") and re.match(r"^\d{4}", r["as_of"])
    bad = {"machines": [dict(rows[0], triad_gbps=-1.0)]}
    with pytest.raises(reference_machines.ReferenceError, match="triad_gbps"):
        reference_machines.machines(bad)
    no_source = {"machines": [dict(rows[0], source="http://example.com")]}
    with pytest.raises(reference_machines.ReferenceError, match="source"):
        reference_machines.machines(no_source)
    gpu_run = copy.deepcopy(quick_section())
    gpu_run["gpu"] = {"0": {"index": 0, "name": "NVIDIA H100 80GB HBM3", "triad_gbps": 3010.0,
                            "fp32_gflops": 51000.0}}
    by_id = {(c["reference"]["id"], c["field"]): c for c in reference_machines.comparison(gpu_run)}
    h100 = by_id[("nvidia-h100-sxm", "memory_gbps")]
    assert h100["value"] == 3010.0 and round(h100["share"], 3) == round(3010.0 / 3350.0, 3)
    assert ("ti-am625", "triad_gbps") in by_id
