"""The advisor's support tables (knowledge/support.json), read once through the package loader.

Each table is ``{"title", "as_of", "review_by", "source", "rows": [...]}``; :func:`rows` gives
the rows of one table (an empty list for a table that is missing, so a rule asking for it is
"not met" rather than a crash), :func:`table` the whole table.
"""

from __future__ import annotations


from accelgui import data as data_files

__all__ = ["load_support", "load_data", "table", "rows", "text"]


def load_data(name: str) -> dict:
    """One of the advisor's data files next to this module (support.json, models.json,
    decode_calibration.json), parsed once."""
    return data_files.json_file(__package__, name)


def load_support() -> dict:
    return load_data("support.json")


def table(name: str) -> dict:
    value = load_support().get(name)
    return value if isinstance(value, dict) else {}


def rows(name: str) -> list[dict]:
    return [r for r in table(name).get("rows") or [] if isinstance(r, dict)]


def text(name: str, field: str, lang: str = "en", **params) -> str:
    """A bilingual text of one table (``{"en": ..., "zh": ...}`` under ``field``), in ``lang``
    (English when that language is missing), with ``{param}`` fields filled in."""
    value = table(name).get(field)
    if isinstance(value, dict):
        value = value.get(lang) or value.get("en") or ""
    value = str(value or "")
    try:
        return value.format(**params) if params else value
    except (KeyError, IndexError, ValueError):
        return value
