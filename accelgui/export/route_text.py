"""Texts of the advisor's route assessments: titles, next steps, what is missing."""

from __future__ import annotations

from accelgui.export.labels import tr
from accelgui.export.sanitize import clean

def route_title(route, lang: str = "en") -> str:
    """The route's title in ``lang``: the knowledge base's (a report keeps the English one),
    else the report's, else its id."""
    kb = _kb()
    known = (kb.routes.get(route.id) or {}).get("title") if kb is not None else None
    t = tr(known, lang) if known else tr(route.title, lang) if route.title else None
    return clean(t) if t else clean(route.id)


_KB_CACHE: dict = {}


def _kb():
    """The knowledge base, when it can be loaded (exports work without it)."""
    if "kb" not in _KB_CACHE:
        try:
            from accelgui.knowledge import load_knowledge

            _KB_CACHE["kb"] = load_knowledge()
        except Exception:  # noqa: BLE001 - the knowledge base is optional for exports
            _KB_CACHE["kb"] = None
    return _KB_CACHE["kb"]


def step_title(step_id: str, lang: str = "en") -> str | None:
    """The knowledge base's title of a step, when the knowledge base can be loaded."""
    kb = _kb()
    step = (kb.steps if kb is not None else {}).get(step_id)
    if isinstance(step, dict) and step.get("title"):
        return clean(tr(step.get("title"), lang)) or None
    return None


def step_text(step_id: str, lang: str = "en") -> str:
    title = step_title(step_id, lang)
    return f"{clean(step_id)} ({title})" if title else clean(step_id)


def start_here(report, lang: str = "en", n: int = 3) -> list[tuple[str, str]]:
    """The advisor's first ``n`` steps over all routes for this machine and this learner (its
    own accelerators first, the goal the routes were assessed for), as (step, route) titles."""
    kb = _kb()
    if kb is None or not report.routes:
        return []
    from accelgui.advisor import overall_next_steps

    titles = {r.id: route_title(r, lang) for r in report.routes}
    out = []
    for sid in overall_next_steps(report.routes, kb, n=n):
        route = (kb.steps.get(sid) or {}).get("route")
        out.append((step_title(sid, lang) or clean(sid), titles.get(route, clean(route or ""))))
    return out


def first_step_text(route, lang: str = "en") -> str:
    """The route's first next step by its title (its id when the knowledge base lacks it)."""
    if not route.next_steps:
        return ""
    first = route.next_steps[0]
    return step_title(first, lang) or clean(first)


def first_reason_text(route, lang: str = "en") -> str:
    """The route's first reason; for a route that is not ready without one, what is missing."""
    if route.reasons:
        # an English report carries each reason in both languages (reasons_msg, same order)
        both = route.reasons_msg if len(route.reasons_msg or ()) == len(route.reasons) else None
        return clean(tr(both[0] if both else route.reasons[0], lang))
    blocking = blocking_texts(route, lang)
    return blocking[0] if blocking else ""


def blocking_texts(route, lang: str = "en") -> list[str]:
    out = []
    for b in route.blocking or []:
        if isinstance(b, dict):
            req = clean(tr(b.get("label") or b.get("requirement"), lang))
            fix = clean(tr(b.get("fix"), lang))
            fb = clean(b.get("fallback"))
            text = req
            if fix:
                text = f"{text}: {fix}" if text else fix
            if fb and fb != "none":
                text = f"{text} [{fb}]"
            if text:
                out.append(text)
        elif b is not None:
            out.append(clean(tr(b, lang)))
    return out
