"""Texts of the advisor's route assessments: titles, next steps, what is missing."""

from __future__ import annotations

from accelgui.export.kb import knowledge_base as _kb
from accelgui.export.labels import tr
from accelgui.export.sanitize import clean

def route_title(route, lang: str = "en") -> str:
    """The route's title in ``lang``: the knowledge base's (a report keeps the English one),
    else the report's, else its id."""
    kb = _kb()
    known = (kb.routes.get(route.id) or {}).get("title") if kb is not None else None
    t = tr(known, lang) if known else tr(route.title, lang) if route.title else None
    return clean(t) if t else clean(route.id)


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
    """(step, route) titles of the report's "Start here" (its ``advice``, or the same computed
    once for an older report: accelgui.export.advice), the first ``n``."""
    from accelgui.export.advice import start_rows

    return [(clean(step), clean(route)) for step, route, _why in start_rows(report, lang)[:n]]


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
