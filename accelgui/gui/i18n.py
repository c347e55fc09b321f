"""Language of the app: Qt translators for UI strings, knowledge language for route texts.

UI languages are Qt locale names ("en", "zh_CN"); the knowledge base and exporters use the
short codes "en" / "zh". Translations ship as ``accelgui.resources/translations/*.qm``
(compiled from the ``.ts`` next to them with ``pyside6-lrelease``).
"""

from __future__ import annotations

import os
from importlib.resources import as_file, files

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

UI_LANGUAGES = ("en", "zh_CN")
LANGUAGE_NAMES = {"en": "EN", "zh_CN": "\u4e2d\u6587"}  # each language named in itself

_installed: list[QTranslator] = []
_current = "en"


def normalize(lang: str | None) -> str:
    """Map any spelling ("zh", "zh_CN", "zh-Hans", "en_US"...) to a UI language."""
    if lang and lang.lower().replace("-", "_").startswith("zh"):
        return "zh_CN"
    return "en"


def knowledge_lang(ui_lang: str) -> str:
    """The language code the knowledge base and exporters use for ``ui_lang``."""
    return "zh" if normalize(ui_lang) == "zh_CN" else "en"


def system_language() -> str:
    """The UI language to start in: $LC_ALL / $LC_MESSAGES / $LANG, then Qt's system locale."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value and value not in ("C", "POSIX", "C.UTF-8"):
            return normalize(value)
    return normalize(QLocale.system().name())


def _load_qm(translator: QTranslator, name: str) -> bool:
    resource = files("accelgui.resources").joinpath("translations", name)
    try:
        data = resource.read_bytes()
    except OSError:
        return False
    if translator.load(data):
        translator._qm_bytes = data  # keep the buffer alive: Qt does not copy it
        return True
    with as_file(resource) as path:  # fall back to a file path
        return translator.load(str(path))


def install(lang: str, app: QCoreApplication | None = None) -> bool:
    """Switch the UI language; returns False when the translation could not be loaded.

    Installing or removing translators sends QEvent.LanguageChange to every widget; the main
    window answers it by rebuilding its texts.
    """
    global _current
    app = app or QCoreApplication.instance()
    lang = normalize(lang)
    _current = lang
    for translator in _installed:
        app.removeTranslator(translator)
        translator.deleteLater()            # a child of the app: freed, not kept per switch
    _installed.clear()
    if lang == "en":
        return True
    ok = True
    ours = QTranslator(app)
    if _load_qm(ours, f"accelgui_{lang}.qm"):
        app.installTranslator(ours)
        _installed.append(ours)
    else:
        ok = False
    qt_own = QTranslator(app)  # Qt's standard dialogs and buttons (OK, Cancel, file dialogs)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_own.load(f"qtbase_{lang}", qt_dir) or qt_own.load(f"qt_{lang}", qt_dir):
        app.installTranslator(qt_own)
        _installed.append(qt_own)
    return ok


def current() -> str:
    """The UI language last installed."""
    return _current
