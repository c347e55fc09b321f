"""The dated fact tables (knowledge/facts.json) as one document in a language, rows of a
machine marked: what ``accelgui --facts`` prints (accelgui.facts_cli) and the Reference page
shows (accelgui.gui.views.reference).

``{"lang", "tables": [{"id", "title", "as_of", "review_by", "source", "notes", "columns",
"column_labels", "rows": [{...row, "this_machine": bool}]}], "expired": [...], "machine": {...},
"table_ids": [...]}``.
"""

from __future__ import annotations

from accelgui.l10n import tr as msg_tr

__all__ = ["facts_document", "cell_text", "column_label", "sources"]


def column_label(key: str, lang: str) -> str:
    from accelgui.l10n import catalogue

    mid = f"knowledge.facts.col.{key}"
    return msg_tr(mid, lang) if mid in catalogue("en") else key


def cell_text(value, lang: str, column: str | None = None) -> str:
    """A fact table's cell in ``lang``; a ``family`` cell by the family's name, not its id."""
    from accelgui.knowledge import tr

    if value is None:
        return "-"
    if column == "family" and isinstance(value, str):
        from accelgui.probes import families

        return families.display_name(value, lang) or value
    if isinstance(value, bool):
        return msg_tr("knowledge.facts.yes" if value else "knowledge.facts.no", lang)
    if isinstance(value, dict):
        return tr(value, lang)
    if isinstance(value, list):
        return ", ".join(cell_text(v, lang, column) for v in value)
    if isinstance(value, float) and value.is_integer() and value >= 100:
        return str(int(value))
    return str(value)


def sources(value) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value else []


def facts_document(report: dict | None, lang: str = "en", table: str | None = None) -> dict:
    """The document ``--facts --format json`` prints. Raises KeyError for an unknown table."""
    from accelgui.knowledge import facts as kfacts
    from accelgui.knowledge import tr

    all_tables = kfacts.tables()
    if table and table != "all":
        chosen = [t for t in all_tables if t["id"] == table]
        if not chosen:
            raise KeyError(table)
    else:
        chosen = all_tables
    keys = kfacts.machine_keys(report or {})
    out = []
    for t in chosen:
        rows = []
        for row in t["rows"]:
            rows.append(dict(row, this_machine=kfacts.row_matches(t["id"], row, keys)))
        out.append({"id": t["id"], "title": tr(t["title"], lang) if t["title"] else t["id"],
                    "as_of": t["as_of"], "review_by": t["review_by"], "source": sources(t["source"]),
                    "notes": tr(t["notes"], lang) if t["notes"] else None,
                    "columns": t["columns"],
                    "column_labels": [column_label(c, lang) for c in t["columns"]],
                    "rows": rows})
    return {"lang": lang, "tables": out, "expired": kfacts.expired(),
            "machine": {"devices": [d["name"] for d in keys["devices"]], "cpu": keys["cpu_name"]},
            "table_ids": [t["id"] for t in all_tables]}
