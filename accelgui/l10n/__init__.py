"""One catalogue for every message outside Qt's widget texts.

A message is produced as an id and parameters and rendered in the reader's language:

    msg("device.reason.driver_missing", name="NVIDIA H100", driver="nvidia")
        -> {"id": "device.reason.driver_missing", "params": {...}}
    render(m, "zh")   # text from the zh catalogue, English when the id has no zh text yet
    tr("export.heading.devices", "zh")   # shorthand for render(msg(...), lang)

The catalogue of a language is every ``accelgui/l10n/<lang>/*.json`` file (one per area of the
code: ``common``, ``devices``, ``advisor``, ``export``...; an id lives in exactly one of them):
flat ``{id: template}`` objects, templates in ``str.format`` syntax with named fields. English is
the source of truth; a test fails when an id is missing in a language, or when a template's fields
differ between languages.

Parameters may themselves be messages (rendered in the same language) or bilingual texts from
the data files (``{"en": ..., "zh": ...}``, the knowledge base's and device families' form),
so data-driven texts flow through the same renderer.

Reports keep the English text in their string fields (``readiness_reason``) and may carry the
message beside it (``readiness_reason_msg``); :func:`field_text` reads either, and the
``*_zh`` twins of older reports.

This module sits below every other layer (probes use it) and imports nothing of accelgui.
"""

from __future__ import annotations

import json
import os

LANGUAGES = ("en", "zh")
_catalogues: dict[str, dict[str, str]] = {}


def lang_code(lang: str | None) -> str:
    """Any spelling ("zh", "zh_CN", "zh-Hans", "en_US", None) to a catalogue code."""
    if lang in LANGUAGES:
        return lang
    return "zh" if lang and str(lang).lower().replace("-", "_").startswith("zh") else "en"


def catalogue(lang: str) -> dict[str, str]:
    """The templates of ``lang`` (loaded once; an unreadable catalogue file is an error)."""
    cat = _catalogues.get(lang)          # the usual call: "en" or "zh", already loaded
    if cat is not None:
        return cat
    code = lang_code(lang)
    cat = _catalogues.get(code)
    if cat is None:
        cat = {}
        for name, part in _files(code).items():
            twice = sorted(set(cat) & set(part))
            if twice:
                raise ValueError(f"l10n/{code}/{name}: ids defined in another file too: {twice[:5]}")
            cat.update(part)
        _catalogues[code] = cat
    return cat


def _files(code: str) -> dict[str, dict]:
    """Each catalogue file of language ``code``, parsed; read with the package's own loader as
    accelgui.data does (zip-safe, without importing importlib.resources)."""
    loader = __spec__.loader
    folder = os.path.join(os.path.dirname(__spec__.origin), code)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except NotADirectoryError:  # inside a zip archive
        from importlib.resources import files

        names = sorted(e.name for e in files(__spec__.name).joinpath(code).iterdir() if e.name.endswith(".json"))
    return {n: json.loads(loader.get_data(os.path.join(folder, n)).decode("utf-8")) for n in names}


def msg(id_: str, **params) -> dict:
    """A message: an id of the catalogue and its parameters (JSON-ready)."""
    if id_ not in catalogue("en"):
        raise KeyError(f"message id not in the English catalogue: {id_}")
    return {"id": id_, "params": params} if params else {"id": id_}


def is_message(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str) and set(value) <= {"id", "params"}


def bilingual(value, lang: str):
    """A data file's ``{"en": .., "zh": ..}`` text in ``lang`` (English when zh is missing)."""
    if isinstance(value, dict) and "en" in value:
        return value.get(lang_code(lang)) or value["en"]
    return value


class _Params(dict):
    """Format mapping: a missing field renders as {field} instead of raising."""

    def __missing__(self, key):
        return "{" + key + "}"


def _param(value, lang: str):
    if is_message(value):
        return render(value, lang)
    if isinstance(value, dict) and "en" in value:
        return bilingual(value, lang)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(_param(v, lang)) for v in value)
    return value


def render(message, lang: str = "en") -> str:
    """The text of a message (or of a plain string, returned as it is) in ``lang``."""
    if message is None or isinstance(message, str):
        return message
    if isinstance(message, dict) and "en" in message and "id" not in message:
        return bilingual(message, lang)
    id_ = message["id"]
    template = catalogue(lang).get(id_) or catalogue("en").get(id_)
    if template is None:
        return id_
    params = {k: _param(v, lang) for k, v in (message.get("params") or {}).items()}
    return template.format_map(_Params(params))


def tr(id_: str, lang: str = "en", **params) -> str:
    """Render the catalogue entry ``id_`` in ``lang`` with ``params`` (an id English lacks is
    refused, as :func:`msg` refuses it)."""
    if id_ not in catalogue("en"):
        raise KeyError(f"message id not in the English catalogue: {id_}")
    template = catalogue(lang).get(id_) or catalogue("en")[id_]
    if not params:
        return template.format_map(_Params())
    return template.format_map(_Params({k: _param(v, lang) for k, v in params.items()}))


def field_text(obj, field: str, lang: str = "en"):
    """A report field in ``lang``: ``<field>_msg`` rendered when present, else the legacy
    ``<field>_zh`` twin for Chinese, else the stored (English) ``<field>``. ``obj`` is a
    record or a dict; list fields give lists."""
    get = obj.get if isinstance(obj, dict) else (lambda k: getattr(obj, k, None))
    message = get(field + "_msg")
    if message:
        if isinstance(message, list):
            return [render(m, lang) for m in message]
        return render(message, lang)
    if lang_code(lang) == "zh":
        twin = get(field + "_zh")
        if twin:
            return twin
    return get(field)
