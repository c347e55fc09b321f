"""The advisor: which learning routes this machine supports, what to learn next, and what it
can run. Pure functions of (report, knowledge base, learner progress): no I/O, no /sys.

Route status, from the route's requirements (SPEC.md, RULE language in accelgui.rules):

  ready        every requirement, required and recommended, is met
  partial      every required one is met, some recommended one is not (a runtime to install)
  remote       some required one is not met, and every unmet required one has a fallback of
               cloud, emulation or simulation: follow the route on rented or simulated hardware
  unavailable  an unmet required one has fallback "none"

Unknown (a rule that evaluates to None: a figure the probes could not read, such as the
compute capability of a GPU missing from every table, or a CPU architecture in a tree without
/proc/cpuinfo) is neither met nor unmet. A *required* one that is unknown gives "partial",
never "ready" (that would send a learner on evidence we lack) and never "remote" or
"unavailable" (those claim the hardware is missing); the reason says what is unknown. A
*recommended* one that is unknown (the Python packages of a recorded tree, a benchmark not
run) does not lower a verdict: the reasons name it, and "partial" is kept for something known
to be missing.

Next steps per route (at most ``MAX_STEPS``): steps not done; a step comes after its
prerequisites (an undone prerequisite from another route is listed just before the step that
needs it); among the steps whose prerequisites are satisfied, those this machine can run
locally (all their "needs" met) come first, then by level, then by their order in the route.
"""

from __future__ import annotations

import re

from accelgui import rules
# estimates live in accelgui.estimates; re-exported for the readers that import them from here
from accelgui.estimates import (
    ESTIMATE_TEXTS, FINETUNE_METHODS, FORMULAS, MODEL_SIZES, QUANTS, decode_tokens_per_s,
    estimates, kv_cache_bytes, llm_row, prefill_tokens_per_s, source_kind, weights_bytes)
from accelgui.knowledge import tr as _tr
from accelgui.report import RouteAssessment

__all__ = ["assess", "estimates", "source_kind", "ESTIMATE_TEXTS", "overall_next_steps", "requirement_results",
           "MAX_STEPS",
           "MODEL_SIZES", "QUANTS", "llm_row", "kv_cache_bytes", "weights_bytes",
           "decode_tokens_per_s", "prefill_tokens_per_s", "FORMULAS", "FINETUNE_METHODS"]

MAX_STEPS = 5
LEVEL_RANK = {"beginner": 0, "intermediate": 1, "advanced": 2}
STATUS_RANK = {"ready": 0, "partial": 1, "remote": 2, "unavailable": 3}


def _as_dict(report) -> dict:
    if hasattr(report, "to_dict"):
        return report.to_dict()
    return dict(report or {})


def _first_sentence(text: str) -> str:
    text = (text or "").strip()
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z(])|(?<=[。！？])", text)
    return text[:m.start()].strip() if m else text


# --------------------------------------------------------------------------- requirements

def requirement_results(report, kb, lang: str = "en") -> dict:
    """{requirement id: (True|False|None, facts, requirement dict, error or None)} for every
    requirement of every route."""
    rd = _as_dict(report)
    out: dict = {}
    for route in kb.routes.values():
        for req in route.get("requirements", []):
            try:
                value, facts = rules.evaluate(req.get("rule"), rd, lang)
                error = None
            except rules.KnowledgeRuleError as exc:
                value, error = None, str(exc)
                facts = [rules.Fact(f"knowledge file error in requirement {req.get('id')}: {exc}",
                                    "unknown")]
            out[req.get("id")] = (value, facts, req, error)
    return out


def _status(reqs: list, results: dict) -> str:
    required = [r for r in reqs if r.get("level") == "required"]
    failed = [r for r in required if results[r["id"]][0] is False]
    unknown = [r for r in required if results[r["id"]][0] is None]
    if any(r.get("fallback", "none") == "none" for r in failed):
        return "unavailable"
    if failed:
        return "remote"
    if unknown:     # the hardware may well be there: "remote" would claim it is missing
        return "partial"
    if any(results[r["id"]][0] is False for r in reqs if r.get("level") != "required"):
        return "partial"
    return "ready"


MAX_FACTS = 3          # per reason line; blocking[].facts keeps them all
_MORE = {"en": "{n} more", "zh": "另有 {n} 项"}
_UNKNOWN_NOTE = {"en": "unknown, so not confirmed", "zh": "未知，无法确认"}
_UNKNOWN_RECOMMENDED = {"en": "unknown, check it yourself", "zh": "未知，请自行确认"}


def _reasons(reqs: list, results: dict, lang: str) -> list[str]:
    def line(req):
        value, facts, _, _ = results[req["id"]]
        shown = [str(f) for f in facts[:MAX_FACTS]]
        if len(facts) > MAX_FACTS:
            shown.append(_MORE.get(lang, _MORE["en"]).format(n=len(facts) - MAX_FACTS))
        zh = lang == "zh"
        sep, colon = ("；", "：") if zh else ("; ", ": ")
        text = sep.join(shown) or _tr(req.get("label"), lang)
        if value is True:
            return text
        fix = _first_sentence(_tr(req.get("fix"), lang))
        if value is None:
            notes = _UNKNOWN_NOTE if req.get("level") == "required" else _UNKNOWN_RECOMMENDED
            note = notes.get(lang, notes["en"])
            text = f"{text}（{note}）" if zh else f"{text} ({note})"
        return f"{text}{colon}{fix}" if fix else text

    required = [r for r in reqs if r.get("level") == "required"]
    recommended = [r for r in reqs if r.get("level") != "required"]
    ordered = ([r for r in required if results[r["id"]][0] is not True]
               + [r for r in required if results[r["id"]][0] is True]
               + [r for r in recommended if results[r["id"]][0] is not True]
               + [r for r in recommended if results[r["id"]][0] is True])
    out: list[str] = []
    cited: set = set()
    for req in ordered:
        value, facts = results[req["id"]][0], results[req["id"]][1]
        keys = {(value is True, str(f)) for f in facts}
        if keys and keys <= cited:
            continue            # the same evidence is already on the list (blocking has the fix)
        cited |= keys
        text = line(req)
        if text and text not in out:
            out.append(text)
    return out


def _blocking(reqs: list, results: dict, lang: str) -> list[dict]:
    out = []
    for req in reqs:
        value, facts, _, error = results[req["id"]]
        if value is True:
            continue
        out.append({
            "requirement": req["id"],
            "level": req.get("level"),
            "label": _tr(req.get("label"), lang),
            "fix": _tr(req.get("fix"), lang),
            "fallback": req.get("fallback", "none"),
            "state": "unknown" if value is None else "unmet",
            "facts": [str(f) for f in facts],
            **({"error": error} if error else {}),
        })
    return out


# --------------------------------------------------------------------------- next steps

def _runs_locally(step: dict, results: dict) -> bool:
    return all(results.get(n, (None,))[0] is True for n in step.get("needs") or [])


def _rank_steps(route: dict, kb, done: frozenset, results: dict, cap: int) -> list[str]:
    steps = [s for s in route.get("steps", []) if isinstance(s, dict) and s.get("id")]
    index = {s["id"]: i for i, s in enumerate(steps)}
    pending = [s for s in steps if s["id"] not in done]
    scheduled = set(done)
    listed: list[str] = []

    def prereqs(step):
        return [p for p in step.get("prerequisites") or [] if p in kb.steps or p in index]

    def chain(step, seen=None):
        """Undone prerequisites from other routes, deepest first (topological)."""
        seen = set() if seen is None else seen
        out = []
        for p in prereqs(step):
            if p in scheduled or p in index or p in seen:
                continue
            seen.add(p)
            out.extend(chain(kb.steps[p], seen))
            out.append(p)
        return out

    def key(step):
        return (0 if _runs_locally(step, results) else 1,
                LEVEL_RANK.get(step.get("level"), 3), index[step["id"]])

    while pending and len(listed) < cap:
        available = [s for s in pending
                     if all(p in scheduled or p not in index for p in prereqs(s))]
        best = min(available or pending, key=key)       # `or pending`: a cycle never hangs us
        before = [p for p in chain(best) if p not in scheduled]
        if len(listed) + len(before) >= cap and listed:
            # no room for the step after its prerequisites: list what fits, in order
            for p in before[:cap - len(listed)]:
                listed.append(p)
                scheduled.add(p)
            break
        for p in before:
            listed.append(p)
            scheduled.add(p)
        if len(listed) >= cap:
            break
        listed.append(best["id"])
        scheduled.add(best["id"])
        pending.remove(best)
    return listed[:cap]


def overall_next_steps(assessments: list, kb=None, n: int = 5) -> list[str]:
    """Top ``n`` steps over all routes, for an overview.

    Steps of routes that are ready here come first, then partial, remote, unavailable. With
    the knowledge base, steps are then ranked by level and by how many other steps build on
    them (foundations first: the CPU route's basics before a niche route's), always after
    their own prerequisites; without it, round robin over the routes of a tier."""
    tier_of: dict = {}
    pos_of: dict = {}
    for r_index, a in enumerate(assessments):
        tier = STATUS_RANK.get(a.status, 9)
        for i, sid in enumerate(a.next_steps):
            if sid not in tier_of or (tier, r_index, i) < (tier_of[sid], *pos_of[sid]):
                tier_of[sid] = tier
                pos_of[sid] = (r_index, i)
    if not tier_of:
        return []
    if kb is None or not getattr(kb, "steps", None):
        out: list[str] = []
        for tier in sorted(set(tier_of.values())):
            lists = [[s for s in a.next_steps if tier_of.get(s) == tier] for a in assessments]
            depth = 0
            while len(out) < n and any(depth < len(lst) for lst in lists):
                for lst in lists:
                    if depth < len(lst) and lst[depth] not in out and len(out) < n:
                        out.append(lst[depth])
                depth += 1
        return out[:n]
    dependants = _dependant_counts(kb)
    # a step inherits the best tier of anything that needs it, so prerequisites are not
    # pushed behind the steps they unlock
    candidates = set(tier_of)
    prereq = {s: [p for p in (kb.steps.get(s) or {}).get("prerequisites") or [] if p in candidates]
              for s in candidates}
    changed = True
    while changed:
        changed = False
        for s in candidates:
            for p in prereq[s]:
                if tier_of[p] > tier_of[s]:
                    tier_of[p] = tier_of[s]
                    changed = True

    def key(s):
        step = kb.steps.get(s) or {}
        return (tier_of[s], LEVEL_RANK.get(step.get("level"), 3), -dependants.get(s, 0),
                pos_of[s])

    out = []
    pending = set(candidates)
    while pending and len(out) < n:
        ready = [s for s in pending if all(p not in pending for p in prereq[s])]
        best = min(ready or pending, key=key)
        out.append(best)
        pending.discard(best)
    return out


def _dependant_counts(kb) -> dict:
    """How many steps (transitively) build on each step."""
    children: dict = {}
    for sid, step in kb.steps.items():
        for p in step.get("prerequisites") or []:
            children.setdefault(p, set()).add(sid)
    counts: dict = {}
    for sid in kb.steps:
        seen: set = set()
        stack = list(children.get(sid, ()))
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(children.get(c, ()))
        counts[sid] = len(seen)
    return counts


# --------------------------------------------------------------------------- assess

def assess(report, kb, done=frozenset(), lang: str = "en") -> list[RouteAssessment]:
    """Route assessments in knowledge-base order. ``done``: ids of the steps already done."""
    done = frozenset(done or ())
    results = requirement_results(report, kb, lang)
    out = []
    for rid, route in kb.routes.items():
        reqs = [r for r in route.get("requirements", []) if r.get("id") in results]
        out.append(RouteAssessment(
            id=rid,
            status=_status(reqs, results),
            reasons=_reasons(reqs, results, lang),
            next_steps=_rank_steps(route, kb, done, results, MAX_STEPS),
            blocking=_blocking(reqs, results, lang),
            title=_tr(route.get("title"), lang) or rid,
        ))
    return out


