"""Texts of the advisor's route assessments: titles, next steps, what is missing."""

from __future__ import annotations

from accelgui.export.labels import tr
from accelgui.export.sanitize import clean

def route_title(route, lang: str = "en") -> str:
    t = tr(route.title, lang) if route.title else None
    return clean(t) if t else clean(route.id)


_KB_CACHE: dict = {}


def step_title(step_id: str, lang: str = "en") -> str | None:
    """The knowledge base's title of a step, when the knowledge base can be loaded."""
    if "steps" not in _KB_CACHE:
        try:
            from accelgui.knowledge import load_knowledge

            _KB_CACHE["steps"] = dict(load_knowledge().steps)
        except Exception:  # noqa: BLE001 - the knowledge base is optional for exports
            _KB_CACHE["steps"] = {}
    step = _KB_CACHE["steps"].get(step_id)
    if isinstance(step, dict) and step.get("title"):
        return clean(tr(step.get("title"), lang)) or None
    return None


def step_text(step_id: str, lang: str = "en") -> str:
    title = step_title(step_id, lang)
    return f"{clean(step_id)} ({title})" if title else clean(step_id)


def first_step_text(route, lang: str = "en") -> str:
    """The route's first next step by its title (its id when the knowledge base lacks it)."""
    if not route.next_steps:
        return ""
    first = route.next_steps[0]
    return step_title(first, lang) or clean(first)


def first_reason_text(route, lang: str = "en") -> str:
    """The route's first reason; for a route that is not ready without one, what is missing."""
    if route.reasons:
        return clean(tr(route.reasons[0], lang))
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
