"""The report's advice (docs/report-contract.md, ``advice``): the goal the next steps were
ranked for, where that goal came from, and "Start here", the ranked overall next steps with
their reasons.

It is built once, when the report is made (:func:`build`, called by ``accelgui.cli.advise``
and the app's worker), in the report's language and with both languages in the ``*_msg``
twins. Every face (text, Markdown, HTML and PDF exports, the app's Overview, ``--routes``)
reads it from the report through :func:`advice_of`, which computes it, once, for an older
report that has routes but no ``advice``: no renderer ranks the steps itself.
"""

from __future__ import annotations

from accelgui import l10n
from accelgui.export.kb import knowledge_base as _kb
from accelgui.export.labels import tr

START_HERE_N = 3                        # the steps every face shows under "Start here"
GOAL_SOURCES = ("option", "saved")      # --goal on this command line | the progress file
LANGS = ("en", "zh")

__all__ = ["GOAL_SOURCES", "START_HERE_N", "advice_of", "build", "goal_line", "goal_title",
           "start_entries", "start_rows"]


def _verdict(status: str, lang: str) -> str:
    verdict = {"partial": "needs-setup"}.get(status, status)
    key = f"advisor.verdict.{verdict}"
    return l10n.tr(key, lang) if key in l10n.catalogue("en") else str(status)


def _fallback(fallback, lang: str) -> str:
    key = f"app.routes.fallback.{fallback}"
    return l10n.tr(key, lang) if key in l10n.catalogue("en") else str(fallback or "")


def goal_title(goal: str, lang: str = "en") -> str:
    key = f"advisor.goal.{goal}"
    return l10n.tr(key, lang) if key in l10n.catalogue("en") else str(goal)


def build(routes, kb=None, lang: str = "en", goal_source: str | None = None,
          n: int = START_HERE_N) -> dict:
    """The ``advice`` object of a report whose route assessments are ``routes``: the goal they
    were assessed for (``advisor.assessed_goal``) with ``goal_source`` ("option": given on the
    command line, "saved": read from the progress file, None: unknown or no goal), and the
    first ``n`` of ``advisor.overall_next_steps``, each with its step and route titles, why it
    is there and whether it can be done on this machine (``local``)."""
    from accelgui import advisor

    lang = l10n.lang_code(lang)
    routes = list(routes or ())
    goal = advisor.assessed_goal(routes)
    steps = advisor.overall_next_steps(routes, kb, n=n) if routes else []
    by_id = {a.id: a for a in routes}
    remote = {r.get("step"): r for a in routes for r in getattr(a, "remote_steps", None) or ()
              if isinstance(r, dict)}
    start = [_entry(sid, routes, by_id, remote, kb, goal, lang) for sid in steps[:n]]
    return {
        "goal": goal,
        "goal_source": goal_source if goal and goal_source in GOAL_SOURCES else None,
        "goal_title": goal_title(goal, lang) if goal else None,
        "goal_title_msg": {lg: goal_title(goal, lg) for lg in LANGS} if goal else None,
        "start_here": start,
    }


def _on_device(step: dict, route, kb) -> bool:
    """The step works on this machine's own accelerator: its route uses this machine's
    hardware, the step needs one of the route's device requirements, and none of what it
    needs is missing here (a device that only needs setup counts)."""
    from accelgui import advisor

    if route is None or kb is None or not getattr(route, "uses_device", False):
        return False
    needs = set(step.get("needs") or ())
    missing = {b.get("requirement") for b in route.blocking or () if isinstance(b, dict)
               and b.get("state") in ("unmet", "unknown")}
    return bool(needs & advisor.device_requirements(kb, route.id)) and not needs & missing


def _route_reason(route, lg: str, lang: str) -> str | None:
    """The route's first reason in ``lg``: from ``reasons_msg`` (an English report carries both
    languages), else ``reasons`` when they are in ``lg`` (the report's language)."""
    reasons = getattr(route, "reasons", None) or []
    both = getattr(route, "reasons_msg", None) or []
    if reasons and len(both) == len(reasons) and isinstance(both[0], dict):
        text = both[0].get(lg) if lg != "en" else both[0].get("en")
        if text:
            return str(text)
    return str(reasons[0]) if reasons and lg == lang and reasons[0] else None


def _entry(sid, routes, by_id, remote, kb, goal, lang) -> dict:
    """One "Start here" step: its titles, why it is there, whether it runs here."""
    kb_steps = getattr(kb, "steps", None) or {}
    kb_routes = getattr(kb, "routes", None) or {}
    step = kb_steps.get(sid) or {}
    rid = step.get("route") or next((a.id for a in routes if sid in a.next_steps), None)
    route = by_id.get(rid)
    known_title = (kb_routes.get(rid) or {}).get("title")
    title_msg = {lg: tr(step.get("title"), lg) or sid for lg in LANGS}
    route_msg = {lg: (tr(known_title, lg) if known_title else None)
                 or getattr(route, "title", None) or rid or "" for lg in LANGS}
    serves = bool(goal) and goal in (step.get("goals") or ())
    local = sid not in remote
    status = getattr(route, "status", None)
    uses = local and status in ("ready", "partial") and _on_device(step, route, kb)
    fallback = (remote.get(sid) or {}).get("fallback") if not local else None
    reason_msg = {}
    for lg in LANGS:
        parts = []
        if serves:
            parts.append(l10n.tr("advice.reason.goal", lg, goal=goal_title(goal, lg)))
        if not local:
            parts.append(l10n.tr("advice.reason.remote", lg, fallback=_fallback(fallback, lg)))
        elif uses:
            parts.append(l10n.tr("advice.reason.device", lg))
        if status:
            why = _route_reason(route, lg, lang)
            parts.append(l10n.tr("advice.reason.verdict", lg, verdict=_verdict(status, lg), why=why)
                         if why else l10n.tr("advice.reason.verdict_only", lg,
                                             verdict=_verdict(status, lg)))
        reason_msg[lg] = l10n.tr("advice.reason.sep", lg).join(parts)
    return {"step": sid, "route": rid, "title": title_msg[lang], "title_msg": title_msg,
            "route_title": route_msg[lang], "route_title_msg": route_msg,
            "reason": reason_msg[lang], "reason_msg": reason_msg, "local": local,
            "serves_goal": serves, "uses_device": uses,
            "level": step.get("level"), "hours": step.get("hours"), "fallback": fallback}


_COMPUTED: list = []        # [(report, advice)]: the last older report given advice here


def advice_of(report) -> dict | None:
    """The report's ``advice``; for an older report without one that has routes, the same
    object computed from its routes (once per report: the faces share it). None when the
    report has no advice at all (``--no-advice``)."""
    advice = getattr(report, "advice", None)
    if isinstance(advice, dict):
        return advice
    routes = getattr(report, "routes", None)
    if not routes:
        return None
    if _COMPUTED and _COMPUTED[0][0] is report:
        return _COMPUTED[0][1]
    advice = build(routes, _kb())
    _COMPUTED[:] = [(report, advice)]
    return advice


def _text(entry: dict, field: str, lang: str) -> str:
    both = entry.get(f"{field}_msg")
    text = tr(both, lang) if isinstance(both, dict) else None
    return str(text if text is not None else entry.get(field) or "")


def start_entries(report) -> list[dict]:
    """The "Start here" entries of a report's advice, or of an advice object (dicts; others
    dropped)."""
    advice = (report if isinstance(report, dict) else advice_of(report)) or {}
    return [e for e in advice.get("start_here") or () if isinstance(e, dict) and e.get("step")]


def start_rows(report, lang: str = "en") -> list[tuple[str, str, str]]:
    """(step title, route title, reason) of each "Start here" step of a report (or of an
    advice object), in ``lang``."""
    return [(_text(e, "title", lang) or str(e.get("step")), _text(e, "route_title", lang),
             _text(e, "reason", lang)) for e in start_entries(report)]


def goal_line(advice_or_report, lang: str = "en", face: str = "cli") -> str | None:
    """"Goal: Serve or run LLMs (saved; --goal none clears it)" in ``lang`` when a goal is in
    effect, else None. ``face`` "app" names the app's own way to clear it too."""
    advice = advice_or_report if isinstance(advice_or_report, dict) or advice_or_report is None \
        else advice_of(advice_or_report)
    goal = (advice or {}).get("goal")
    if not goal or not isinstance(goal, str):
        return None
    both = advice.get("goal_title_msg")
    title = (tr(both, lang) if isinstance(both, dict) else None) or goal_title(goal, lang)
    source = advice.get("goal_source")
    if source in GOAL_SOURCES:
        key = "advice.goal.app" if face == "app" else f"advice.goal.{source}"
    else:
        key = "advice.goal.plain"
    return l10n.tr(key, lang, goal=title)
