"""The app keeps the desktop's UI font and draws Chinese in the OS's CJK fonts behind it."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")


def test_the_app_font_keeps_its_family_and_adds_the_cjk_fonts(qapp):
    from accelgui.gui import assets
    from accelgui.gui.app import create_app

    before = qapp.font().family()
    app = create_app()
    families = app.font().families()
    assert families[0] == before
    assert assets.ui_font_families()[1] in families          # this OS's first CJK face
