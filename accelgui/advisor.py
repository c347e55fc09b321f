"""The advisor: which learning routes this machine supports, what to learn next, and what it
can run. Pure functions of (report, knowledge base, learner progress): no I/O, no /sys.

Route status, from the route's requirements (README "How the advisor decides"; RULE language in accelgui.rules):

  ready        every requirement, required and recommended, is met
  partial      every required one is met, some recommended one is not (a runtime to install)
  remote       some required one is not met, and every unmet required one has a fallback of
               cloud, emulation or simulation: follow the route on rented or simulated hardware
  unavailable  an unmet required one has fallback "none"

Unknown (a rule that evaluates to None: a figure the probes could not read, such as the
compute capability of a GPU missing from every table, or a CPU architecture in a tree without
/proc/cpuinfo) is neither met nor unmet, and never makes a route "remote" or "unavailable"
(those claim the hardware is missing). *Not confirmed* is a qualifier, not a status (README,
docs/report-contract.md): the status is what is known, and ``qualifier`` names each required
fact that is unknown; the reasons say what is unknown (without a "get one" fix when the device
is here and works). A *recommended* one that is unknown (the Python packages of a recorded
tree, a benchmark not run) does not lower a verdict: the reasons name it, and "partial" is kept
for something known to be missing. A driverless device never raises a verdict: a figure
that is unknown only on devices that are not usable (no driver, the wrong driver, no runtime)
counts as not met. A requirement's fallback of simulation or emulation is said in the reasons
("followed here by simulation, not on the hardware"), so such a route never reads as hands-on.

Next steps per route (at most ``MAX_STEPS``): steps not done; a step comes after its
prerequisites (an undone prerequisite from another route is listed just before the step that
needs it); among the steps whose prerequisites are satisfied, those this machine can run
locally (all their "needs" met) come first, then by level, then by their order in the route.
A ``prerequisites_any`` group is satisfied by the member that works on this machine's own
accelerator, else one that runs here, else its first member.
With a goal (``--goal``), the steps serving it (their ``goals`` list) come first, then those
leading to such a step (a prerequisite of one), then the rest; a step that needs hardware
this machine lacks still comes after every step that can be done here (now or after setup),
and the order above applies within each group.
"""

from __future__ import annotations

from typing import Any

from accelgui import l10n, rules
# estimates live in accelgui.estimates; re-exported for the readers that import them from here
from accelgui.estimates import (
    ESTIMATE_TEXTS, FINETUNE_METHODS, FORMULAS, QUANTS, decode_tokens_per_s,
    estimates, kv_cache_bytes, llm_row, prefill_tokens_per_s, source_kind, weights_bytes)
from accelgui.knowledge import GOALS, support
from accelgui.knowledge import tr as _tr
from accelgui.report import RouteAssessment

JSON = dict[str, Any]

__all__ = ["assess", "GOALS", "goal_label", "goal_note", "check_goal", "route_goals", "VERDICTS",
           "blocked_module", "secure_boot_fix",
           "overall_next_steps", "assessed_goal", "requirement_results", "MAX_STEPS",
           "estimates", "source_kind", "ESTIMATE_TEXTS", "QUANTS", "llm_row",
           "kv_cache_bytes", "weights_bytes", "decode_tokens_per_s", "prefill_tokens_per_s",
           "FORMULAS", "FINETUNE_METHODS"]

MAX_STEPS = 5
# GOALS: the goals a learner can pick (``--goal``, the app's goal picker; a step's optional
# ``goals`` list names those it serves); labels: goal_label(). Defined by the knowledge base.
LEVEL_RANK = {"beginner": 0, "intermediate": 1, "advanced": 2}
STATUS_RANK = {"ready": 0, "partial": 1, "remote": 2, "unavailable": 3}


def _first_sentence(text: str) -> str:
    """The first sentence: up to a full stop, ! or ? followed by white space and a capital
    letter or "(", or up to a full-width one (Chinese), whichever comes first."""
    text = (text or "").strip()
    cut = len(text)
    for mark in "\u3002\uff01\uff1f":
        i = text.find(mark, 0, cut)
        if i >= 0:
            cut = i + 1
    for mark in ".!?":
        i = text.find(mark, 0, cut)
        while i >= 0:
            rest = text[i + 1:]
            after = rest.lstrip()
            if len(after) < len(rest) and after and (after[0] == "(" or "A" <= after[0] <= "Z"):
                cut = i + 1
                break
            i = text.find(mark, i + 1, cut)
    return text[:cut].strip()


# --------------------------------------------------------------------------- requirements

def requirement_results(report: Any, kb: Any, lang: str = rules.BOTH) -> JSON:
    """{requirement id: (True|False|None, facts, requirement dict, error or None)} for every
    requirement of every route, each evaluated once; its facts in ``lang`` (by default both
    languages: English text carrying its Chinese twin, rules.in_lang picks one)."""
    rd = rules.as_dict(report)
    out: JSON = {}
    for route in kb.routes.values():
        for req in route.get("requirements", []):
            try:
                value, facts = rules.evaluate(req.get("rule"), rd, lang, checked=True)
                error = None
            except rules.KnowledgeRuleError as exc:
                value, error = None, str(exc)
                facts = [rules.Fact(f"knowledge file error in requirement {req.get('id')}: {exc}",
                                    "unknown")]
            out[req.get("id")] = (value, facts, req, error)
    return out


def _state(req: JSON, results: JSON) -> str:
    """What one requirement says: "met", "setup" (the hardware is here but not usable now, or
    a package/toolkit/runtime to install), "missing" (other hardware), "unknown"."""
    value, facts = results[req["id"]][0], results[req["id"]][1]
    if value is True:
        return "setup" if rules.unusable_devices(facts) else "met"
    if value is None:
        return "missing" if _unknown_on_unusable(facts) else "unknown"
    return "setup" if any(getattr(f, "setup", False) for f in facts) else "missing"


def _unknown_on_unusable(facts: Any) -> bool:
    """Every unknown fact of the rule is about a device that is not usable (no driver, the
    wrong driver, no runtime): a driverless device never raises a verdict, so a figure that
    cannot be read on it (a GPU missing from every table, on nouveau) counts as not met."""
    unknown = [f for f in facts if getattr(f, "tag", "") == "unknown"]
    if not unknown:
        return False
    for f in unknown:
        devices = (getattr(f, "meta", None) or {}).get("devices") or []
        if not devices or any((d.get("readiness") or "unknown") in ("ready", "unknown")
                               for d in devices):
            return False
    return True


def _status(reqs: list[Any], results: JSON) -> str:
    """The verdict (README, "How the advisor decides"); "partial" is the report's value for
    *needs setup*."""
    required = [r for r in reqs if r.get("level") == "required"]
    failed = [r for r in required if _state(r, results) == "missing"]
    if any(r.get("fallback", "none") == "none" for r in failed):
        return "unavailable"
    if failed:
        return "remote"
    if any(_state(r, results) == "setup" and (r.get("level") == "required" or _installable(r, results))
           for r in reqs):
        return "partial"
    return "ready"


def _installable(req: JSON, results: JSON) -> bool:
    """A recommended requirement lowers the route only for something to install (a package,
    toolkit or runtime); a recommended device that needs setup (a second GPU the container
    cannot see) is shown with its fix but leaves the route's verdict alone."""
    return not rules.unusable_devices(results[req["id"]][1])


VERDICTS = {"ready": "ready", "partial": "needs-setup", "remote": "remote",
            "unavailable": "unavailable"}
MAX_FACTS = 3          # per reason line; blocking[].facts keeps them all


def _m(key: str, lang: str, **kw: Any) -> str:
    return l10n.tr("advisor.route." + key, lang, **kw)


def _device_fix(devices: list[JSON], lang: str) -> str | None:
    """The fix of the first device that is not usable: its own ladder's fix (fix_msg / fix),
    else the detail of the first ladder step that failed."""
    for dev in devices:
        fix = l10n.field_text(dev, "fix", lang)
        if fix:
            return str(fix)
        for step in dev.get("ladder") or []:
            if isinstance(step, dict) and step.get("ok") is False:
                detail = l10n.field_text(step, "detail", lang)
                return str(detail) if detail else None
    return None


def _fix(req: JSON, results: JSON, lang: str) -> str:
    devices = rules.unusable_devices(results[req["id"]][1])
    return (_device_fix(devices, lang) if devices else None) or \
        _first_sentence(_tr(req.get("fix"), lang))


def _reasons(reqs: list[Any], results: JSON, lang: str) -> list[str]:
    def line(req: Any) -> Any:
        value, facts, _, _ = results[req["id"]]
        shown = [rules.in_lang(f, lang) for f in facts[:MAX_FACTS]]
        if len(facts) > MAX_FACTS:
            shown.append(_m("more", lang, n=len(facts) - MAX_FACTS))
        text = _m("fact_sep", lang).join(shown) or _tr(req.get("label"), lang)
        state = _state(req, results)
        if state == "met":
            return text
        how = _fallback_note(req, lang) if state == "missing" else None
        if how:
            text = _m("with_note", lang, text=text, note=how)
        if value is None:
            note = _m("unknown_required" if req.get("level") == "required"
                      else "unknown_recommended", lang)
            text = _m("with_note", lang, text=text, note=note)
            if rules.unknown_usable_devices(facts):
                return text     # the device is here and works: "get one" would be wrong
        fix = _fix(req, results, lang)
        return _m("with_fix", lang, text=text, fix=fix) if fix else text

    rank = {"missing": 0, "setup": 1, "unknown": 2, "met": 3}

    def order(req: Any) -> Any:
        return (0 if req.get("level") == "required" else 1, rank[_state(req, results)])

    out: list[str] = []
    cited: set[Any] = set()
    for req in sorted(reqs, key=order):
        value, facts = results[req["id"]][0], results[req["id"]][1]
        keys = {(value is True, str(f)) for f in facts}
        if keys and keys <= cited:
            continue            # the same evidence is already on the list (blocking has the fix)
        cited |= keys
        text = line(req)
        if text and text not in out:
            out.append(text)
    return out


def _fallback_note(req: JSON, lang: str) -> str | None:
    """How a route is followed when this requirement's hardware is not here ("followed here by
    simulation, not on the hardware"): support.json advisor_notes."""
    return _note(f"fallback.{req.get('fallback', 'none')}", lang)


def _note(note_id: str, lang: str, **params: Any) -> str | None:
    """One text of support.json advisor_notes, in ``lang``, with ``{param}`` fields filled."""
    for row in support.rows("advisor_notes"):
        if row.get("id") == note_id:
            text = _tr(row.get("text"), lang) or ""
            try:
                return text.format(**params) if params else text or None
            except (KeyError, IndexError, ValueError):
                return text or None
    return None


def _unconfirmed(reqs: list[Any], results: JSON, lang: str) -> list[str]:
    """The required facts that are unknown (the verdict is "not confirmed" on them)."""
    out = []
    for req in reqs:
        if req.get("level") != "required":
            continue
        value, facts = results[req["id"]][0], results[req["id"]][1]
        if value is None:
            out += [rules.in_lang(f, lang) for f in facts if getattr(f, "tag", "") == "unknown"][:1] or \
                [_tr(req.get("label"), lang)]
    return list(dict.fromkeys(out))


def _blocking(reqs: list[Any], results: JSON, lang: str) -> list[JSON]:
    """What stands between this machine and the route, most useful first: what is missing or
    to set up for a required requirement, then for a recommended one, then what is unknown.
    ``state``: "setup" (the hardware is here but not usable now, or something to install),
    "unmet" (other hardware), "unknown"."""
    rank = {"setup": 0, "missing": 1, "unknown": 2}
    out = []
    for req in sorted(reqs, key=lambda r: (rank.get(_state(r, results), 3),
                                           r.get("level") != "required")):
        value, facts, _, error = results[req["id"]]
        state = _state(req, results)
        if state == "met":
            continue
        out.append({
            "requirement": req["id"],
            "level": req.get("level"),
            "label": _tr(req.get("label"), lang),
            "fix": _device_fix(rules.unusable_devices(facts), lang) or _tr(req.get("fix"), lang),
            "fallback": req.get("fallback", "none"),
            "state": "unknown" if value is None else "setup" if state == "setup" else "unmet",
            "facts": [rules.in_lang(f, lang) for f in facts],
            **({"error": error} if error else {}),
        })
    return out


def _uses_device(reqs: list[Any], results: JSON) -> bool:
    """A device requirement of the route is met by this machine's own hardware: usable now,
    or (for a required one) present and only needing setup, or (a required one) present and
    working while a figure the rule needs is unknown (a WSL2 GPU without its compute
    capability): its owner starts there either way."""
    for r in reqs:
        value, facts = results[r["id"]][0], results[r["id"]][1]
        if value is None and r.get("level") == "required" and rules.unknown_usable_devices(facts):
            return True
        if value is not True or not any((getattr(f, "meta", None) or {}).get("devices") for f in facts):
            continue
        if r.get("level") == "required" or not rules.unusable_devices(facts):
            return True
    return False


# --------------------------------------------------------------------------- next steps

def _runs_locally(step: JSON, results: JSON) -> bool:
    """All the step needs is met here; for a step that sets the hardware up (``sets_up``), a
    device that is present but not usable yet is enough."""
    ok = ("met", "setup") if step.get("sets_up") else ("met",)
    return all(n in results and _state(results[n][2], results) in ok
               for n in step.get("needs") or [])


def _needs_other_hardware(step: JSON, results: JSON) -> bool:
    """Some need of the step is "missing" (other hardware: cloud, emulation, simulation)."""
    return any(n in results and _state(results[n][2], results) == "missing"
               for n in step.get("needs") or [])


def _alternatives(step: JSON, kb: Any, results: JSON, scheduled: set[Any]) -> list[str]:
    """For each group of ``prerequisites_any`` not yet satisfied, the step to take: the first
    one that works on this machine's own accelerator, else the first this machine can do
    locally, else the first (a TPU or Gaudi owner goes through their own accelerator's step,
    not a GPU one or a CPU one)."""
    out = []
    for group in step.get("prerequisites_any") or []:
        members = [m for m in group if m in kb.steps]
        if not members or any(m in scheduled for m in members):
            continue
        local = [m for m in members if _route_local(kb.steps[m], kb, results)]
        own = [m for m in members if _runs_locally(kb.steps[m], results)
               and _on_own_device(kb.steps[m], kb, results)]
        out.append((own or local or members)[0])
    return out


def _on_own_device(step: JSON, kb: Any, results: JSON) -> bool:
    """The step works on this machine's own accelerator: one of its needs is a device
    requirement met here (usable now or to set up)."""
    device_reqs = device_requirements(kb, str(step.get("route")))
    return any(n in device_reqs and n in results and _state(results[n][2], results) in ("met", "setup")
               for n in step.get("needs") or ())


def _route_local(step: JSON, kb: Any, results: JSON) -> bool:
    """The step runs here and its route's required hardware is here."""
    route = kb.routes.get(step.get("route")) or {}
    required = [r["id"] for r in route.get("requirements") or [] if r.get("level") == "required"]
    return _runs_locally(step, results) and all(
        n in results and _state(results[n][2], results) in ("met", "setup") for n in required)


def _goal_ranks(kb_steps: JSON, goal: str | None) -> JSON:
    """{step id: 0 when it serves ``goal`` (its ``goals`` list), 1 when it is a prerequisite,
    directly or not, of one that does}; a step not listed ranks 2. {} without a goal."""
    if not goal:
        return {}
    ranks = {sid: 0 for sid, s in kb_steps.items() if goal in (s.get("goals") or ())}
    stack = list(ranks)
    while stack:
        step = kb_steps[stack.pop()]
        for p in (step.get("prerequisites") or []) + \
                [m for g in step.get("prerequisites_any") or [] for m in g]:
            if p in kb_steps and p not in ranks:
                ranks[p] = 1
                stack.append(p)
    return ranks


def _rank_steps(route: JSON, kb: Any, done: frozenset[str], results: JSON, cap: int,
                goal: str | None = None) -> list[str]:
    steps = [s for s in route.get("steps", []) if isinstance(s, dict) and s.get("id")]
    goal_rank = _goal_ranks(kb.steps, goal)
    index = {s["id"]: i for i, s in enumerate(steps)}
    pending = [s for s in steps if s["id"] not in done]
    scheduled = set(done)
    listed: list[str] = []

    def prereqs(step: Any) -> Any:
        return [p for p in (step.get("prerequisites") or []) + _alternatives(step, kb, results, scheduled)
                if p in kb.steps or p in index]

    def chain(step: Any, seen: Any = None) -> Any:
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

    def key(step: Any) -> Any:
        # with a goal, a goal step that only needs setup here (or an unknown fact) may pass a
        # step that runs now; one that needs hardware this machine lacks never does
        return (bool(goal) and _needs_other_hardware(step, results),
                goal_rank.get(step["id"], 2 if goal else 0),
                0 if _runs_locally(step, results) else 1,
                not step.get("sets_up"),            # among those, setting the hardware up first
                LEVEL_RANK.get(str(step.get("level")), 3), index[step["id"]])

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


def overall_next_steps(assessments: list[Any], kb: Any = None, n: int = 5, goal: str | None = None,) -> list[str]:
    """Top ``n`` steps over all routes, for an overview.

    Routes that use this machine's own accelerators come first (ready, then needs setup, then
    remote only for other hardware), then the CPU fundamentals, then the other routes by
    verdict; a route that needs only software installed (a pip install) ranks as ready;
    hardware-design routes that are followed by simulation come last unless ``goal`` (default: the
    goal the assessments were made for) is one they serve; routes serving the goal lead.
    A step that cannot run here (``remote_steps``) leads only when no local step is left. With
    the knowledge base, steps of a tier are then ranked by the goal (those serving it, then
    those leading to one: :func:`_goal_ranks`), by level and by how many other steps build on
    them (foundations first: the CPU route's basics before a niche route's), always after
    their own prerequisites (of a ``prerequisites_any`` group, the member its route listed
    before it); without it, round robin over the routes of a tier (each route's list is
    already ranked for the goal)."""
    tier_of: JSON = {}
    pos_of: JSON = {}
    for r_index, a in enumerate(assessments):
        tier = _route_tier(a, goal if goal is not None else getattr(a, "goal", None), kb)
        for i, sid in enumerate(a.next_steps):
            if sid not in tier_of or (tier, r_index, i) < (tier_of[sid], *pos_of[sid]):
                tier_of[sid] = tier
                pos_of[sid] = (r_index, i)
    if not tier_of:
        return []
    route_tier = {a.id: _route_tier(a, goal if goal is not None else getattr(a, "goal", None), kb)
                  for a in assessments}
    if kb is None or not getattr(kb, "steps", None):
        out: list[str] = []
        for tier in sorted(set(tier_of.values())):
            per_route = [[s for s in a.next_steps if tier_of.get(s) == tier] for a in assessments]
            depth = 0
            while len(out) < n and any(depth < len(lst) for lst in per_route):
                for lst in per_route:
                    if depth < len(lst) and lst[depth] not in out and len(out) < n:
                        out.append(lst[depth])
                depth += 1
        return out[:n]
    remote = {r.get("step") for a in assessments for r in getattr(a, "remote_steps", None) or []
              if isinstance(r, dict)}
    dependants = _dependant_counts(kb)
    goal_rank = _goal_ranks(kb.steps, goal if goal is not None else assessed_goal(assessments))
    # a step inherits the best tier of anything that needs it, so prerequisites are not
    # pushed behind the steps they unlock
    candidates = set(tier_of)
    prereq = {s: [p for p in (kb.steps.get(s) or {}).get("prerequisites") or [] if p in candidates]
              for s in candidates}
    # prerequisites_any: the member its own route listed before it (the alternative chosen for
    # this machine) comes first; a group its route listed nothing for is satisfied already
    lists = {a.id: list(a.next_steps) for a in assessments}
    any_of: JSON = {}
    for s in candidates:
        own = lists.get((kb.steps.get(s) or {}).get("route")) or []
        before = own[:own.index(s)] if s in own else []
        any_of[s] = [g for g in ([m for m in group if m in before and m in candidates]
                                 for group in (kb.steps.get(s) or {}).get("prerequisites_any") or [])
                     if g]
    changed = True
    while changed:
        changed = False
        for s in candidates:
            for p in prereq[s] + [m for g in any_of[s] for m in g]:
                if tier_of[p] > tier_of[s]:
                    tier_of[p] = tier_of[s]
                    changed = True

    hands_on = _hands_on_steps(assessments, kb, candidates)

    def key(s: Any) -> Any:
        step = kb.steps.get(s) or {}
        own = route_tier.get((kb.steps.get(s) or {}).get("route"), tier_of[s])
        return (s in remote, tier_of[s], goal_rank.get(s, 2 if goal_rank else 0), own,
                s not in hands_on, LEVEL_RANK.get(str(step.get("level")), 3), -dependants.get(s, 0), pos_of[s])

    out = []
    pending = set(candidates)
    while pending and len(out) < n:
        ready = [s for s in pending if all(p not in pending for p in prereq[s])
                 and all(any(m not in pending for m in g) for g in any_of[s])]
        best = min(ready or pending, key=key)
        out.append(best)
        pending.discard(best)
    return out


def assessed_goal(assessments: Any) -> str | None:
    """The goal the route assessments were made for (None: no particular goal)."""
    return next((a.goal for a in assessments or () if getattr(a, "goal", None)), None)


def _hands_on_steps(assessments: list[Any], kb: Any, steps: Any) -> set[Any]:
    """The steps that work on this machine's own accelerator: they need a device requirement
    of a route that uses this machine's hardware, and none of what they need is missing here
    (a device that only needs setup counts: the step is where it gets set up). Within a tier
    they come before the steps any computer can do, so a Coral or Hailo owner starts with the
    device."""
    routes = {a.id: a for a in assessments if getattr(a, "uses_device", False)}
    device_reqs = {rid: device_requirements(kb, rid) for rid in routes}
    out = set()
    for s in steps:
        step = kb.steps.get(s) or {}
        a = routes.get(step.get("route"))
        needs = set(step.get("needs") or ())
        if a is None or not needs & device_reqs[a.id]:
            continue
        missing = {b.get("requirement") for b in a.blocking or () if isinstance(b, dict)
                   and b.get("state") in ("unmet", "unknown")}
        if not needs & missing:
            out.add(s)
    return out


def device_requirements(kb: Any, route_id: str) -> set[Any]:
    """The ids of a route's requirements whose rule asks for a device."""
    def asks_device(rule: Any) -> bool:
        if isinstance(rule, dict):
            return "device" in rule or any(asks_device(v) for v in rule.values())
        return isinstance(rule, list) and any(asks_device(v) for v in rule)

    route = kb.routes.get(route_id) or {}
    return {r.get("id") for r in route.get("requirements") or () if asks_device(r.get("rule"))}


def _dependant_counts(kb: Any) -> JSON:
    """How many steps (transitively) build on each step."""
    children: JSON = {}
    for sid, step in kb.steps.items():
        for p in step.get("prerequisites") or []:
            children.setdefault(p, set()).add(sid)
    counts: JSON = {}
    for sid in kb.steps:
        seen: set[Any] = set()
        stack = list(children.get(sid, ()))
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(children.get(c, ()))
        counts[sid] = len(seen)
    return counts


# --------------------------------------------------------------------------- assess

def _software_only_setup(a: Any, kb: Any) -> bool:
    """What the route needs set up is software only (a pip install, a toolkit): none of its
    "setup" blocking items is a device requirement (knowledge base needed to tell)."""
    if kb is None or not getattr(kb, "routes", None):
        return False
    device_reqs = device_requirements(kb, a.id)
    setup = [b.get("requirement") for b in getattr(a, "blocking", None) or ()
             if isinstance(b, dict) and b.get("state") == "setup"]
    return bool(setup) and not any(r in device_reqs for r in setup)


def _route_tier(a: Any, goal: str | None, kb: Any = None) -> tuple[Any, ...]:
    """Where a route's steps stand in the overall list: routes that use this machine's own
    accelerators first, then the CPU fundamentals, then the rest by verdict; a route that is
    followed by simulation (hardware design: ASIC, FPGA without a board)
    comes last unless it serves the chosen goal. With a goal, the routes serving it lead."""
    goals = route_goals()
    in_goal = bool(goal) and goal in goals.get(a.id, ())
    uses = bool(getattr(a, "uses_device", False))
    design_only = a.id in _design_only() and not uses
    # "needs setup" without this machine's own hardware: only software to install (a pip
    # install, a toolkit): doable here, ranked with the routes that are ready
    status = "ready" if a.status == "partial" and (not uses or _software_only_setup(a, kb)) \
        else a.status
    if uses and a.status in ("ready", "partial", "remote"):
        # "remote" with this machine's own accelerator in use: the route's other hardware
        # (a training part next to an inference-only one) is rented, its device steps are here
        base = {"ready": 0, "partial": 1}.get(status, 2)
    elif "basics" in goals.get(a.id, ()) and status == "ready":
        base = 2
    elif design_only:
        base = 9
    else:
        base = 3 + STATUS_RANK.get(status, 4)
    return (0 if in_goal or not goal else 1, base)


def route_goals() -> JSON:
    """{route id: (goal, ...)}: each route file's own ``goals`` (knowledge.support.route_goals)."""
    return {r["route"]: tuple(r.get("goals") or ()) for r in support.rows("route_goals")
            if r.get("route")}


def _design_only() -> frozenset[str]:
    return frozenset(support.table("route_goals").get("design_only") or ())


def goal_label(goal: str, lang: str = "en") -> str:
    return l10n.tr(f"advisor.goal.{goal}", lang)


def check_goal(goal: str | None) -> str | None:
    """The goal id, or ValueError naming the known ones."""
    if goal in (None, ""):
        return None
    if goal not in GOALS:
        raise ValueError(f"unknown goal {goal!r} (known: {', '.join(GOALS)})")
    return goal


def _remote_steps(route: JSON, reqs: list[Any], results: JSON) -> list[JSON]:
    """Steps that need hardware this machine lacks, with how to follow them instead (the
    unmet requirement's fallback: cloud, emulation, simulation)."""
    by_id = {r["id"]: r for r in reqs}
    out = []
    for step in route.get("steps") or []:
        for need in step.get("needs") or []:
            req = by_id.get(need)
            if req is not None and _state(req, results) == "missing":
                out.append({"step": step["id"], "requirement": need,
                            "fallback": req.get("fallback", "none")})
                break
    return out


def _tracks(route: JSON, rd: JSON) -> JSON:
    """{step id: [track ids]}: the vendor variants of the route's hands-on steps that this
    machine's hardware matches (a TPU, Gaudi or Ascend owner sees their own commands)."""
    out = {}
    for step in route.get("steps") or []:
        hits = []
        for track in step.get("tracks") or []:
            try:
                if rules.evaluate(track.get("when"), rd, checked=True)[0] is True:
                    hits.append(track.get("id"))
            except rules.KnowledgeRuleError:
                continue
        if hits:
            out[step["id"]] = hits
    return out


def assess(report: Any, kb: Any, done: Any = frozenset(), lang: str = "en",
           goal: str | None = None) -> list[RouteAssessment]:
    """Route assessments in knowledge-base order. ``done``: ids of the steps already done;
    ``goal``: one of :data:`GOALS` (re-ranks the steps of each route towards it)."""
    done = frozenset(done or ())
    goal = check_goal(goal)
    with rules.memo_scope():
        return _assess(rules.as_dict(report), kb, done, lang, goal)


def _module_key(name: str) -> str:
    return str(name or "").replace("-", "_").lower()


def blocked_module(dev: JSON, platform: JSON | None) -> JSON | None:
    """The out-of-tree module on disk that would drive ``dev`` but is not loaded on a machine
    with Secure Boot on (``platform.secure_boot``, ``platform.out_of_tree_modules``): the
    kernel refuses a DKMS module signed by a key that was never enrolled. None otherwise."""
    platform = platform or {}
    if platform.get("secure_boot") is not True or dev.get("driver") or \
            (dev.get("readiness") or "unknown") != "driver-missing":
        return None
    from accelgui.probes import families     # the device family's drivers (probes/data)
    fam = families.family(dev.get("family") or (dev.get("details") or {}).get("family")) or {}
    expected = {_module_key(d) for d in (fam.get("drivers") or {})}
    for mod in platform.get("out_of_tree_modules") or []:
        if isinstance(mod, dict) and _module_key(str(mod.get("name") or "")) in expected:
            return mod
    return None


def secure_boot_fix(module: JSON) -> JSON:
    """The fix, in both languages, for a driver module that Secure Boot keeps from loading:
    enrol the DKMS key as a Machine Owner Key (support.json secure_boot)."""
    path = str(module.get("path") or "")
    where = path.rsplit("/", 1)[0] if "/" in path else path or "/lib/modules"
    return {lang: support.text("secure_boot", "fix", lang, module=module.get("name") or "?",
                               where=where) for lang in ("en", "zh")}


def _with_secure_boot_fixes(rd: JSON) -> JSON:
    """The report as the advisor reads it: a device whose driver module is on disk but kept
    out by Secure Boot gets the enrolment fix instead of "install the driver"."""
    platform = rd.get("platform") or {}
    if platform.get("secure_boot") is not True or not platform.get("out_of_tree_modules"):
        return rd
    devices = []
    for dev in rd.get("devices") or []:
        mod = blocked_module(dev, platform) if isinstance(dev, dict) else None
        if mod:
            fix = secure_boot_fix(mod)
            dev = dict(dev, fix=fix["en"], fix_msg=fix, fix_zh=None)
        devices.append(dev)
    return dict(rd, devices=devices)


def goal_note(goal: str | None, lang: str = "en") -> str | None:
    """The line that says a goal ranks the steps ("Steps ranked for the goal: Serve or run
    LLMs (serve-llm); `--goal none` forgets it."), None without a goal: a saved goal is never
    in effect silently."""
    if not goal:
        return None
    return _note("goal", lang, goal=goal_label(goal, lang), goal_id=goal)


def _assess(rd: JSON, kb: Any, done: frozenset[str], lang: str, goal: str | None) -> list[RouteAssessment]:
    rd = _with_secure_boot_fixes(rd)
    results = requirement_results(rd, kb)      # each requirement once, texts in both languages
    zh = results
    out = []
    for rid, route in kb.routes.items():
        reqs = [r for r in route.get("requirements", []) if r.get("id") in results]
        status = _status(reqs, results)
        unconfirmed = _unconfirmed(reqs, results, lang)
        setup = [r for r in reqs if _state(r, results) == "setup"]
        fix_req = next((r for r in setup if r.get("level") == "required"), setup[0] if setup else None)
        # text fields in ``lang``; an English report also carries both languages as *_msg
        msgs: dict[str, Any] = {}
        reasons_en: list[str] = []
        if lang == "en":
            zh_unconfirmed = _unconfirmed(reqs, zh, "zh")
            reasons_zh = _reasons(reqs, zh, "zh")
            reasons_en = _reasons(reqs, results, "en")       # also the `reasons` field below
            msgs = {
                "qualifier_msg": {"en": _m("not_confirmed", "en", facts="; ".join(unconfirmed)),
                                  "zh": _m("not_confirmed", "zh", facts="; ".join(zh_unconfirmed))}
                if unconfirmed else None,
                "reasons_msg": [{"en": e, "zh": z} for e, z in zip(reasons_en, reasons_zh)]
                if len(reasons_en) == len(reasons_zh) else [{"en": e} for e in reasons_en],
                "fix_msg": {"en": _fix(fix_req, results, "en"), "zh": _fix(fix_req, zh, "zh")}
                if fix_req else None,
            }
        out.append(RouteAssessment(
            id=rid,
            status=status,
            reasons=reasons_en if lang == "en" else _reasons(reqs, results, lang),
            next_steps=_rank_steps(route, kb, done, results, MAX_STEPS, goal),
            blocking=_blocking(reqs, results, lang),
            title=_tr(route.get("title"), lang) or rid,
            verdict=VERDICTS[status],
            qualifier=_m("not_confirmed", lang, facts="; ".join(unconfirmed)) if unconfirmed else None,
            unconfirmed=unconfirmed,
            fix=_fix(fix_req, results, lang) if fix_req else None,
            remote_steps=_remote_steps(route, reqs, results),
            tracks=_tracks(route, rd),
            uses_device=_uses_device(reqs, results),
            goal=goal,
            **msgs,
        ))
    return out


