"""Every link of the knowledge base with the date it was last looked at, and how old that is.

:func:`collect` walks the route files, ``facts.json`` and ``support.json`` and gives one entry
per distinct URL: where it is used (``routes/gpu.json steps[3].resources[1]``, ...) and the
latest ``checked`` date the data itself carries (a resource or tool whose ``url`` was looked at
when it was written; absent when it was not; it never dates the ``url_zh`` beside it).

``links_verified.json`` (next to this module) holds the checks made afterwards, one record per
URL: ``{"url", "verified": YYYY-MM-DD, "how", "what"}``: the day the page was read, how (the
stored copy of the page that was read), and what on the page confirmed the fact. A link is
``verified`` only where such a record exists; ``checked`` where only the data's own date
exists; ``unchecked`` otherwise. :func:`report` adds each link's age in days on a given day and
whether it is older than the horizon (``stale``; a link never looked at has no age and is
counted as ``unchecked``, not stale), with the facts past their ``review_by`` on
that day (:func:`accelgui.knowledge.facts.expired`). Nothing here goes over the network.
"""

from __future__ import annotations

import datetime as _dt
import re

__all__ = ["LINK_KEYS", "DEFAULT_MAX_AGE_DAYS", "collect", "verified_records", "report"]

#: Keys whose values are links (a URL or a list of URLs).
LINK_KEYS = ("url", "url_zh", "source", "sources", "source_url", "pci_id_source")
#: A link not looked at for longer than this is stale (a year: docs move about that often).
DEFAULT_MAX_AGE_DAYS = 365

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _urls(value) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [v for v in items if isinstance(v, str) and v.startswith("https://")]


def _walk(obj, where: str, found: dict) -> None:
    """Add every link under ``obj`` to ``found`` ({url: {"places", "checked"}})."""
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            _walk(item, f"{where}[{i}]", found)
        return
    if not isinstance(obj, dict):
        return
    checked = obj.get("checked") if isinstance(obj.get("checked"), str) and _DATE.match(obj["checked"]) else None
    for key, value in obj.items():
        if key in LINK_KEYS:
            for url in _urls(value):
                entry = found.setdefault(url, {"places": [], "checked": None})
                entry["places"].append(where)
                # "checked" dates the page at "url"; a Chinese page beside it was not looked at
                if checked and key == "url" and (entry["checked"] is None or checked > entry["checked"]):
                    entry["checked"] = checked
        elif isinstance(value, (dict, list)):
            _walk(value, f"{where} {key}" if where.endswith(".json") else f"{where}.{key}", found)


def collect(routes: dict | None = None, facts: dict | None = None, support: dict | None = None) -> list[dict]:
    """``[{"url", "places": [...], "checked": date | None}]``, sorted by URL, from the route
    files, facts.json and support.json (the loaded knowledge base unless given)."""
    if routes is None or facts is None or support is None:
        from accelgui.knowledge import load_knowledge
        from accelgui.knowledge import support as support_tables

        kb = load_knowledge()
        routes = kb.routes if routes is None else routes
        facts = kb.facts if facts is None else facts
        support = support_tables.load_support() if support is None else support
    found: dict = {}
    for rid in sorted(routes):
        _walk(routes[rid], f"routes/{rid}.json", found)
    _walk(facts, "facts.json", found)
    _walk(support, "support.json", found)
    return [{"url": url, **found[url]} for url in sorted(found)]


def verified_records(data: dict | None = None) -> dict:
    """{url: record} from links_verified.json; a record without a real date is left out."""
    if data is None:
        from accelgui.knowledge import support as support_tables

        data = support_tables.load_data("links_verified.json")
    out = {}
    for rec in data.get("checks") or []:
        if isinstance(rec, dict) and isinstance(rec.get("url"), str) and _date(rec.get("verified")):
            out[rec["url"]] = rec
    return out


def _date(text) -> _dt.date | None:
    if not isinstance(text, str) or not _DATE.match(text):
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


def _entry(link: dict, record: dict | None, today: _dt.date, max_age: int) -> dict:
    seen = [d for d in (link["checked"], record and record.get("verified")) if d]
    last = max(seen) if seen else None
    age = (today - _dt.date.fromisoformat(last)).days if last else None
    status = "verified" if record else "checked" if link["checked"] else "unchecked"
    return {"url": link["url"], "places": link["places"], "checked": link["checked"],
            "verified": record, "last_seen": last, "age_days": age, "status": status,
            "stale": age is not None and age > max_age}


def report(today: _dt.date | None = None, max_age_days: int = DEFAULT_MAX_AGE_DAYS,
           links: list[dict] | None = None, records: dict | None = None,
           expired: list[str] | None = None) -> dict:
    """The link report on ``today``: ``{"today", "max_age_days", "links": [...], "counts",
    "orphan_records", "facts_due"}``. ``orphan_records`` are verification records of URLs the
    knowledge base no longer uses (a moved link whose record was kept by mistake)."""
    today = today or _dt.date.today()
    links = collect() if links is None else links
    records = verified_records() if records is None else records
    if expired is None:
        from accelgui.knowledge import facts as fact_tables

        expired = fact_tables.expired(today)
    entries = [_entry(link, records.get(link["url"]), today, max_age_days) for link in links]
    counts = {s: sum(1 for e in entries if e["status"] == s) for s in ("verified", "checked", "unchecked")}
    counts["stale"] = sum(1 for e in entries if e["stale"])
    used = {e["url"] for e in entries}
    return {"today": today.isoformat(), "max_age_days": max_age_days, "links": entries,
            "counts": counts, "orphan_records": sorted(u for u in records if u not in used),
            "facts_due": list(expired)}
