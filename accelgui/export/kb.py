"""The knowledge base the exporters take route and step titles from: loaded once per process,
and optional (a report renders without it, with the texts it carries itself)."""

from __future__ import annotations

_CACHE: dict = {}


def knowledge_base():
    """The knowledge base, when it can be loaded (None when it cannot: exports work without it)."""
    if "kb" not in _CACHE:
        try:
            from accelgui.knowledge import load_knowledge

            _CACHE["kb"] = load_knowledge()
        except Exception:  # noqa: BLE001 - the knowledge base is optional for exports
            _CACHE["kb"] = None
    return _CACHE["kb"]
