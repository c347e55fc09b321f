"""The advisor's support tables (knowledge/support.json), read once through the package loader.

Each table is ``{"title", "as_of", "review_by", "source", "rows": [...]}``; :func:`rows` gives
the rows of one table (an empty list for a table that is missing, so a rule asking for it is
"not met" rather than a crash), :func:`table` the whole table.

``route_goals`` is not stored in support.json: it is built from the route files themselves
(each route's top-level ``goals`` and ``design_only``, knowledge overrides included), so a
route and the goals it serves are edited in one place. :func:`route_goals` gives it.
"""

from __future__ import annotations

from accelgui.l10n import tr


from accelgui import data as data_files

__all__ = ["load_support", "load_data", "table", "rows", "text", "route_goals"]


def load_data(name: str) -> dict:
    """One of the advisor's data files next to this module (support.json, models.json,
    decode_calibration.json), parsed once."""
    return data_files.json_file(__package__, name)


def load_support() -> dict:
    return load_data("support.json")


def route_goals(routes: dict | None = None) -> dict:
    """The ``route_goals`` table built from the route files: ``{"title", "source",
    "design_only": [route ids], "rows": [{"route", "goals"}, ...]}`` in route order. A route
    without ``goals`` serves no particular goal (no row)."""
    if routes is None:
        from accelgui.knowledge import load_knowledge

        routes = load_knowledge().routes
    ordered = sorted(routes.values(), key=lambda r: (r.get("order", 999), r.get("id", "")))
    return {
        "title": {lang: tr("knowledge.route_goals.title", lang) for lang in ("en", "zh")},
        "source": "knowledge/routes/*.json (goals, design_only)",
        "design_only": [r["id"] for r in ordered if r.get("design_only") is True],
        "rows": [{"route": r["id"], "goals": list(r["goals"])} for r in ordered
                 if isinstance(r.get("goals"), list) and r["goals"]],
    }


def table(name: str) -> dict:
    if name == "route_goals":
        return route_goals()
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
