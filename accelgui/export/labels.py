"""The words of the human-readable reports, from the ``app`` area of the message catalogue
(``accelgui/l10n/<lang>/app.json``: ``app.label.<key>`` for headings and field labels,
``app.word.<value>`` for readiness, route and probe status and device kind words)."""

from __future__ import annotations

from accelgui import l10n

LANGS = l10n.LANGUAGES


def known(id_: str, lang: str, fallback, **fmt):
    """The catalogue text ``id_`` in ``lang`` when the catalogue has that id, else ``fallback``
    (an open vocabulary: field names, toolkit ids, probe names the catalogue may not know)."""
    return l10n.tr(id_, lang, **fmt) if id_ in l10n.catalogue("en") else fallback


def label(key: str, lang: str = "en", **fmt) -> str:
    """The label ``key`` (``app.label.<key>``) in ``lang``; an unknown key is returned as it is."""
    return known("app.label." + key, lang, key, **fmt)


def word(value, lang: str = "en") -> str:
    """Translate a readiness / route status / probe status / kind word; others pass through."""
    from accelgui.export.sanitize import clean

    if value is None:
        return label("unknown", lang)
    return known("app.word." + str(value).replace(" ", "_"), lang, None) or clean(value)


def html_lang(lang: str) -> str:
    return "zh-CN" if l10n.lang_code(lang) == "zh" else "en"


def tr(obj, lang: str = "en") -> str | None:
    """A knowledge-base text ({"en":..,"zh":..}), a message or a plain string, in ``lang``."""
    if obj is None:
        return None
    if l10n.is_message(obj):
        return l10n.render(obj, lang)
    if isinstance(obj, dict):
        key = l10n.lang_code(lang)
        return obj.get(key) or obj.get("en") or next((v for v in obj.values() if v), None)
    return str(obj)
