"""The routes view: Verify and Start exercise act on this computer only (contract 1 of
accelgui.appstate), and steps say what their evidence proves."""

from __future__ import annotations

import os
import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QLabel, QPushButton

from accelgui import progress
from accelgui.appstate import Source
from accelgui.gui.views import routes as routes_module
from accelgui.gui.views.common import ViewState
from accelgui.gui.views.routes import RoutesView
from accelgui.knowledge import load_knowledge

STEP = "cpu.numba-jit"


@pytest.fixture
def view(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    v = RoutesView()
    qtbot.addWidget(v)
    v.render(ViewState(kb=load_knowledge(""), done=frozenset()))
    v.open_route("cpu")
    return v


def _button(v, name) -> QPushButton:
    return v.findChild(QPushButton, name)


def test_buttons_check_this_computer_only(view):
    view.set_source(Source("report", "gpu-server-7", "/tmp/r.json"))
    for name in (f"verify-{STEP}", f"exercise-{STEP}"):
        button = _button(view, name)
        assert button is not None and not button.isEnabled(), name
        assert "not gpu-server-7" in button.toolTip()
    assert "not gpu-server-7" in view.findChild(QLabel, f"verify-where-{STEP}").text()
    view.verify_step(STEP)                          # refused in report mode: nothing runs
    assert STEP not in view.verify_results
    view.set_source(Source("live", "this computer"))
    button = _button(view, f"verify-{STEP}")
    assert button.isEnabled() and "Checks this computer" in button.toolTip() and "not" not in button.toolTip()
    assert _button(view, f"exercise-{STEP}").isEnabled()


def test_start_exercise_writes_the_starter_and_never_overwrites(view, monkeypatch):
    opened = []
    monkeypatch.setattr(routes_module, "open_folder", lambda path: opened.append(path) or True)
    view.set_source(Source("live", "this computer"))
    _button(view, f"exercise-{STEP}").click()
    folder = os.path.join(os.environ["ACCELGUI_DATA_DIR"], "exercises", "cpu-numba-triad")
    assert os.path.isfile(os.path.join(folder, "triad.py"))
    assert folder in view.findChild(QLabel, f"exercise-note-{STEP}").text()
    with open(os.path.join(folder, "triad.py"), "a", encoding="utf-8") as fh:
        fh.write("# my work\n")
    _button(view, f"exercise-{STEP}").click()
    assert "nothing was overwritten" in view.findChild(QLabel, f"exercise-note-{STEP}").text()
    assert open(os.path.join(folder, "triad.py"), encoding="utf-8").read().endswith("# my work\n")
    _button(view, f"exercise-folder-{STEP}").click()
    assert opened == [folder]


def test_steps_say_ready_to_start_or_done_with_the_figures(view):
    progress.record_verified("cpu.know-your-cpu", {"proves": "environment", "date": "2026-12-01T10:00:00+00:00"})
    msg = {"id": "exercises.target.min", "params": {"what": {"en": "your speed-up"}, "value": "71",
                                                    "unit": "x", "target": "50"}}
    progress.record_verified(STEP, {"proves": "work", "date": "2026-12-01T11:00:00+00:00",
                                    "figures": {"speedup": 71.0}, "targets": [{"met": True, "msg": msg}]})
    view.render(ViewState(kb=view.state.kb, done=progress.load_done()))
    assert view.findChild(QLabel, "progress-cpu.know-your-cpu").text() == "ready to start"
    assert view.findChild(QLabel, f"progress-{STEP}").text() == "done: your work passed"
    assert "your speed-up: 71 x; the target is at least 50 x" in view.findChild(QLabel, f"evidence-{STEP}").text()
