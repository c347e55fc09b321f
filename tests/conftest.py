"""Shared test setup. GUI tests run on Qt's offscreen platform (no display needed); the
variable only matters to processes that start Qt, so other tests are unaffected.

The suite never reads or writes the user's own state, and does not depend on the user's
language: the learner-progress dir (``$ACCELGUI_DATA_DIR``) is a fresh temporary folder for
every test, no knowledge override dir (``$ACCELGUI_KNOWLEDGE_DIR``) is inherited, and the
locale is plain English. This is set in ``os.environ`` at import time (so module-scoped
fixtures and child processes see it too) and again per test (so no test sees another's
progress file). Tests that need other values still override them with ``monkeypatch``.
"""

import os
import shutil
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_SESSION_DATA = tempfile.mkdtemp(prefix="accelgui-test-data-")
os.environ["ACCELGUI_DATA_DIR"] = os.path.join(_SESSION_DATA, "accelgui")
os.environ["ACCELGUI_CONFIG_DIR"] = os.path.join(_SESSION_DATA, "config")   # the app's settings
os.environ.pop("ACCELGUI_KNOWLEDGE_DIR", None)
for _var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
    os.environ.pop(_var, None)
os.environ["LANG"] = "C.UTF-8"


def pytest_unconfigure(config):
    shutil.rmtree(_SESSION_DATA, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_user_state(tmp_path_factory, monkeypatch):
    """A fresh, not yet created progress dir per test; no inherited knowledge overrides."""
    monkeypatch.setenv("ACCELGUI_DATA_DIR",
                       str(tmp_path_factory.mktemp("user-data") / "accelgui"))
    monkeypatch.setenv("ACCELGUI_CONFIG_DIR", str(tmp_path_factory.mktemp("user-config")))
    monkeypatch.delenv("ACCELGUI_KNOWLEDGE_DIR", raising=False)
