"""The Reference page (fact tables, this machine's rows highlighted) and the Verify button of a
route's learning path (verified vs ticked), offscreen."""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QLabel, QPushButton

from accelgui.gui import i18n
from accelgui.gui.main_window import PAGES, AppOptions, MainWindow

sys.path.insert(0, os.path.dirname(__file__))
from gui_support import built_rich_report

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    yield
    i18n.install("en")


def make_window(qtbot, report):
    window = MainWindow(AppOptions(probe=False))
    qtbot.addWidget(window)
    window.show()
    window.live_report = report
    from accelgui.knowledge import load_knowledge

    window.kb = load_knowledge()
    window.refresh()
    return window


def test_reference_page_shows_every_table_dated_with_this_machines_rows(qtbot):
    report = built_rich_report()
    window = make_window(qtbot, report)
    assert "reference" in PAGES
    window.show_page("reference")
    ref = window.reference
    ids = [ref.picker.itemData(i) for i in range(ref.picker.count())]
    assert {"nvidia_compute_capability", "cuda_toolkit_support", "rocm_gfx_targets", "tpu_generations",
            "npu_tops", "memory_bandwidth"} <= set(ids)
    ref.picker.setCurrentIndex(ids.index("nvidia_compute_capability"))
    assert "review by" in ref.dates.text() and "https://developer.nvidia.com/cuda-gpus" in ref.dates.text()
    ccs = [d.details.get("compute_capability") for d in report.devices
           if d.vendor == "nvidia" and d.details.get("compute_capability")]
    grid = ref.table
    marked = [grid.item(r, 1).text() for r in range(grid.rowCount()) if grid.item(r, 0).text()]
    assert marked == [f"{float(cc):g}" for cc in ccs][:len(marked)] and bool(marked) == bool(ccs)
    headers = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    assert "As of" in headers and "Source" in headers
    window.set_language("zh")
    window.show_page("reference")
    headers = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    assert "\u8ba1\u7b97\u80fd\u529b" in headers


def test_verify_button_runs_the_check_and_marks_the_step_verified(qtbot, monkeypatch):
    from accelgui.progress import load_verified

    window = make_window(qtbot, built_rich_report())
    window.open_route("cpu")
    button = window.routes.findChild(QPushButton, "verify-cpu.numpy-vectorise")
    assert button is not None
    import accelgui.gui.views.routes as routes

    monkeypatch.setattr(routes, "confirm_root", lambda parent: True)
    button.click()
    qtbot.waitUntil(lambda: "cpu.numpy-vectorise" in load_verified(), timeout=60000)
    qtbot.waitUntil(lambda: window.routes.findChild(QLabel, "verify-result-cpu.numpy-vectorise") is not None,
                    timeout=10000)
    label = window.routes.findChild(QLabel, "verify-result-cpu.numpy-vectorise")
    assert "ready to start" in label.text()           # an environment check: ready, not done
    assert "cpu.numpy-vectorise" not in window.done
    badge = window.routes.findChild(QLabel, "progress-cpu.numpy-vectorise")
    assert badge is not None and badge.text() == "ready to start"
    # a step without a check has no Verify button
    assert window.routes.findChild(QPushButton, "verify-cpu.parallel-python") is not None
    window.open_route("gpu")
    assert window.routes.findChild(QPushButton, "verify-gpu.gpu-arrays") is None


def test_running_as_root_asks_first(qtbot, monkeypatch):
    import accelgui.gui.views.routes as routes
    from accelgui import verify

    asked = []
    monkeypatch.setattr(verify, "is_root", lambda: True)
    monkeypatch.setattr(routes, "confirm_root", lambda parent: asked.append(1) or False)
    window = make_window(qtbot, built_rich_report())
    window.open_route("cpu")
    window.routes.verify_step("cpu.numpy-vectorise")
    assert asked == [1] and "cpu.numpy-vectorise" not in window.routes.verify_results


def test_the_reference_page_builds_its_tables_only_when_shown(qtbot, monkeypatch):
    """The fact document is not read for the first window: a hidden page keeps the state and
    builds when it is shown (and once per new state, not per language switch while hidden)."""
    from accelgui import fact_tables

    calls = []
    real = fact_tables.facts_document
    monkeypatch.setattr(fact_tables, "facts_document", lambda *a, **k: calls.append(1) or real(*a, **k))
    window = make_window(qtbot, built_rich_report())
    window.show_page("overview")
    window.set_language("zh")
    window.set_language("en")
    assert calls == [] and window.reference.picker.count() == 0
    window.show_page("reference")
    assert len(calls) == 1 and window.reference.picker.count() > 0
