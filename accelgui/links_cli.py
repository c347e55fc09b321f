"""``accelgui --links [all|stale|unchecked|verified]``: every link of the knowledge base with the
date it was last looked at and its age, offline (accelgui.knowledge.links).

Text output: a summary line, then one line per link (status, the day it was last looked at,
its age in days, the URL) with where it is used and, for a verified link, what was checked;
then the facts past their review date. JSON output: the document of
:func:`accelgui.knowledge.links.report` with ``"which"``, ``"lang"`` and the links filtered.

``stale`` lists the links not looked at for more than a year and the facts past their
``review_by``; the exit status is 1 when a fact is past its review date, or in ``stale`` mode
when anything is stale, else 0 (so a release check can run ``accelgui --links stale``).
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import TextIO

from accelgui.l10n import tr as msg_tr

__all__ = ["WHICH", "links_document", "render_text", "run_cli"]

WHICH = ("all", "stale", "unchecked", "verified")


def _keep(entry: dict, which: str) -> bool:
    if which == "stale":
        return entry["stale"]
    if which in ("unchecked", "verified"):
        return entry["status"] == which
    return True


def links_document(which: str = "all", lang: str = "en", today: _dt.date | None = None) -> dict:
    """The link report (filtered to ``which``). ValueError for an unknown ``which``."""
    if which not in WHICH:
        raise ValueError(f"--links takes one of {', '.join(WHICH)}, not {which!r}")
    from accelgui.knowledge import links

    doc = links.report(today)
    doc["total"] = len(doc["links"])
    doc["links"] = [e for e in doc["links"] if _keep(e, which)]
    doc["which"], doc["lang"] = which, lang
    return doc


def _line(entry: dict, lang: str) -> list[str]:
    status = msg_tr(f"knowledge.links.status.{entry['status']}", lang)
    age = "-" if entry["age_days"] is None else str(entry["age_days"])
    mark = "!" if entry["stale"] else " "
    lines = [f"{mark} {status:<10} {entry['last_seen'] or '-':<10} {age:>5}  {entry['url']}"]
    more = len(entry["places"]) - 3
    places = ", ".join(entry["places"][:3]) + (f" (+{more})" if more > 0 else "")
    lines.append("      " + msg_tr("knowledge.links.places", lang, places=places))
    record = entry["verified"]
    if record:
        lines.append("      " + msg_tr("knowledge.links.what", lang, what=record.get("what") or "-",
                                       how=record.get("how") or "-"))
    return lines


def render_text(doc: dict) -> str:
    lang, counts = doc["lang"], doc["counts"]
    lines = [msg_tr("knowledge.links.summary", lang, total=doc["total"], today=doc["today"],
                    verified=counts["verified"], checked=counts["checked"],
                    unchecked=counts["unchecked"], stale=counts["stale"], days=doc["max_age_days"]),
             msg_tr("knowledge.links.legend", lang), "",
             msg_tr("knowledge.links.header", lang)]
    for entry in doc["links"]:
        lines += _line(entry, lang)
    if doc["which"] == "stale" and not doc["links"] and not doc["facts_due"]:
        lines.append(msg_tr("knowledge.links.none_stale", lang, today=doc["today"]))
    for url in doc["orphan_records"]:
        lines.append(msg_tr("knowledge.links.orphan", lang, url=url))
    for problem in doc["facts_due"]:
        lines.append(msg_tr("knowledge.facts.expired", lang, problem=problem))
    return "\n".join(lines) + "\n"


def exit_status(doc: dict) -> int:
    """1 when a fact is past its review date, or (``stale``) when anything is stale; else 0."""
    if doc["facts_due"]:
        return 1
    return 1 if doc["which"] == "stale" and doc["links"] else 0


def run_cli(which: str, lang: str, fmt: str, out: TextIO, today: _dt.date | None = None) -> int:
    doc = links_document(which, lang, today)
    out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n" if fmt == "json" else render_text(doc))
    return exit_status(doc)
