"""``accelgui --routes``: print the learning-route catalogue without the GUI.

JSON output: ``{"lang": ..., "goal": ..., "goal_source": ..., "advice": ..., "routes": [route
with every bilingual text resolved to lang, steps included], "errors": [...]}``; each step has
``progress`` ("passed": the learner's own work passed, "ticked": by hand, "ready": an
environment check passed, ready to start; or null), ``evidence`` (what it proves, date, figures,
targets, versions, machine key) and ``exercise`` (id, title) where it has them. Text output:
the goal in effect ("Goal: ... (saved; --goal none clears it)"), "Start here" when a report is
given (``--routes --report FILE``: its ``advice``, accelgui.export.advice), then one block per
route with its steps.
Returns 0, or 1 when the knowledge base reported errors (a broken override file); the
catalogue is printed either way, using the shipped routes in place of broken ones.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO



def _labels(lang: str) -> dict:
    """The catalogue's ``app.routes.*`` words in ``lang``, by their short key."""
    from accelgui import l10n

    return {id_[len("app.routes."):]: l10n.tr(id_, lang) for id_ in l10n.catalogue("en")
            if id_.startswith("app.routes.") and id_ != "app.routes.head"}


def _is_text(obj) -> bool:
    return isinstance(obj, dict) and "en" in obj and set(obj) <= {"en", "zh"}


def resolve(obj, lang: str):
    """Copy of ``obj`` with every ``{"en", "zh"}`` object replaced by the text in ``lang``."""
    from accelgui.knowledge import tr

    if _is_text(obj):
        return tr(obj, lang)
    if isinstance(obj, dict):
        return {k: resolve(v, lang) for k, v in obj.items()}
    if isinstance(obj, list):
        return [resolve(v, lang) for v in obj]
    return obj


def catalogue(lang: str = "en", override_dir: str | None = None, goal: str | None = None,
              goal_source: str | None = None, report=None) -> dict:
    """The JSON document ``accelgui --routes --format json`` prints: with ``report``, its
    advice (goal and "Start here") is the one shown; else ``goal`` and where it came from."""
    from accelgui.knowledge import load_knowledge

    from accelgui import exercises
    from accelgui.progress import load_progress, load_verified, step_progress

    kb = load_knowledge(override_dir)
    done, verified = load_progress(), load_verified()
    routes = []
    for rid, route in kb.routes.items():
        data = resolve(route, lang)
        data.pop("$schema", None)
        data["source"] = kb.origins.get(rid, "shipped")
        for step in data.get("steps", []):
            # passed (the learner's work), ticked by hand, ready (an environment check passed)
            sid = step.get("id")
            step["progress"] = step_progress(sid, done, verified)
            if sid in verified:
                step["evidence"] = _evidence(verified[sid])
            manifest = exercises.for_step(sid)
            if manifest:
                step["exercise"] = {"id": manifest["id"], "title": resolve(manifest["title"], lang)}
        routes.append(data)
    advice = None
    if report is not None:
        from accelgui.export.advice import advice_of

        advice = advice_of(report)
        goal = (advice or {}).get("goal")
        goal_source = (advice or {}).get("goal_source")
    return {"lang": lang, "goal": goal, "goal_source": goal_source if goal else None,
            "advice": advice, "routes": routes, "errors": list(kb.errors)}


def print_routes(lang: str, fmt: str, override_dir: str | None, out: TextIO,
                 goal: str | None = None, goal_source: str | None = None, report=None) -> int:
    from accelgui import l10n

    lang = l10n.lang_code(lang)
    doc = catalogue(lang, override_dir, goal, goal_source, report)
    if fmt == "json":
        json.dump(doc, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:   # text for a terminal: no escape sequence from a route file reaches it
        out.write(_inert(render_text(dict(doc, errors=[]))))
        for error in doc["errors"]:
            sys.stderr.write(f"accelgui: knowledge: {_inert(error)}\n")
    return 1 if doc["errors"] else 0


_CONTROLS = {c: None for c in (*range(0x20), *range(0x7f, 0xa0)) if c != 0x0a}


def _inert(text: str) -> str:
    """Text without control characters (ESC, BEL, C1...), newlines kept."""
    return text.translate(_CONTROLS)


def render_text(doc: dict) -> str:
    lang = doc["lang"]
    from accelgui import l10n

    L = _labels(lang)
    lines: list[str] = [f"{L['routes']} ({len(doc['routes'])})",
                        l10n.tr("verify.progress.legend", lang), ""]
    lines[2:2] = _advice_lines(doc, lang)
    for n, route in enumerate(doc["routes"], 1):
        steps = route.get("steps", [])
        total = sum(s.get("hours") or 0 for s in steps)
        head = l10n.tr("app.routes.head", lang, n=len(steps), hours=_num(total))
        lines.append(f"{n}. {route['title']} [{route['id']}] - {head}")
        lines.append(f"   {route['summary']}")
        if route.get("scenarios"):
            lines.append(f"   {L['scenarios']}: " + "; ".join(route["scenarios"]))
        if route.get("tools"):
            lines.append(f"   {L['tools']}: " + ", ".join(t["name"] for t in route["tools"]))
        if route.get("requirements"):
            lines.append(f"   {L['requirements']}:")
            for req in route["requirements"]:
                lines.append(f"     - ({L[req['level']]}) {req['label']} "
                             f"[{L['fallback']}: {L.get('fallback.' + str(req['fallback']), req['fallback'])}]")
        lines.append(f"   {L['steps']}:")
        for i, step in enumerate(steps, 1):
            mark = {"passed": "[d] ", "ticked": "[x] ", "ready": "[r] "}.get(step.get("progress"), "")
            lines.append(f"     {i}) {mark}{step['title']} [{step['id']}] "
                         f"({L[step['level']]}, ~{_num(step['hours'])} {L['hours']})")
            if step.get("prerequisites"):
                lines.append(f"        {L['after']}: " + ", ".join(step["prerequisites"]))
            lines.append(f"        {step['summary']}")
            lines.append(f"        {L['verify']}: {step['verify']}")
            lines.extend(_step_extras(step, lang))
            for res in step.get("resources", []):
                lines.append(f"        - {res['title']}: {_url(res, lang)}")
        if route.get("capstone"):
            cap = route["capstone"]
            lines.append("   " + l10n.tr("knowledge.routes.capstone", lang, title=cap["title"]))
            lines.append(f"     {cap['summary']}")
            lines.append("     " + l10n.tr("knowledge.routes.deliverable", lang, text=cap["deliverable"]))
            for res in cap.get("resources", []):
                lines.append(f"     - {res['title']}: {_url(res, lang)}")
        if route.get("corrections"):
            lines.append(f"   {L['corrections']}:")
            for c in route["corrections"]:
                lines.append(f"     - {L['said']} ({c['source']}): {c['said']}")
                lines.append(f"       {L['correct']}: {c['correct']} ({c['source_url']})")
        if route.get("facts"):
            lines.append(f"   {L['facts']}:")
            for f in route["facts"]:
                lines.append(f"     - {f['text']} ({L['as_of']} {f['as_of']}, {f['source']})")
        lines.append("")
    if doc["errors"]:
        lines.append(f"{L['errors']}:")
        lines.extend(f"  - {e}" for e in doc["errors"])
        lines.append("")
    return "\n".join(lines)


def _advice_lines(doc: dict, lang: str) -> list[str]:
    """The goal in effect and, for a report, its "Start here" (as every face shows them)."""
    from accelgui.export.advice import goal_line, start_rows
    from accelgui.export.labels import label

    advice = doc.get("advice")
    if advice is None and doc.get("goal"):
        advice = {"goal": doc["goal"], "goal_source": doc.get("goal_source")}
    out = []
    line = goal_line(advice, lang) if advice else None
    if line:
        out.append(line)
    if doc.get("advice"):
        rows = start_rows(doc["advice"], lang)
        if rows:
            out.append(f"{label('start_here', lang)}:")
            out.extend(f"  {i}. {step} ({route}): {why}" if why else f"  {i}. {step} ({route})"
                       for i, (step, route, why) in enumerate(rows, 1))
    return out + [""] if out else []


def _url(res: dict, lang: str) -> str:
    """The resource's official Chinese page in zh where it has one (url_zh), else its url."""
    return res.get("url_zh") if lang == "zh" and res.get("url_zh") else res["url"]


def _evidence(evidence: dict) -> dict:
    """What ``--routes`` shows of a step's stored evidence: what it proves, when, the figures
    and the target results of a graded exercise, versions, machine key."""
    keep = ("proves", "date", "exercise", "figures", "targets", "versions", "machine_key")
    return {k: evidence[k] for k in keep if evidence.get(k) is not None}


def _evidence_lines(step: dict, lang: str) -> list[str]:
    from accelgui.l10n import render
    from accelgui.l10n import tr as msg_tr
    from accelgui.verify_cli import figures_text

    ev = step.get("evidence")
    if not ev:
        return []
    versions = ", ".join(f"{k} {v}" for k, v in (ev.get("versions") or {}).items()) or "-"
    if ev.get("proves") != "work":
        return ["        " + msg_tr("verify.evidence.ready", lang, date=str(ev.get("date", ""))[:10],
                                  versions=versions)]
    out = ["        " + msg_tr("exercises.evidence", lang, date=str(ev.get("date", ""))[:10],
                                machine=ev.get("machine_key") or "-", figures=figures_text(ev.get("figures")),
                                versions=versions)]
    out += ["          " + render(t["msg"], lang) for t in ev.get("targets") or [] if t.get("msg")]
    return out


def _step_extras(step: dict, lang: str) -> list[str]:
    """Soft prerequisites, cost class, the machine check and exercise of a step (accelgui
    --verify, --exercise), and the evidence kept for it."""
    from accelgui.l10n import tr as msg_tr

    out = []
    if step.get("prerequisites_soft"):
        out.append("        " + msg_tr("knowledge.routes.helps", lang, steps=", ".join(step["prerequisites_soft"])))
    if step.get("cost_class"):
        out.append("        " + msg_tr(f"knowledge.cost.{step['cost_class']}", lang))
    if step.get("check"):
        out.append("        " + msg_tr("knowledge.routes.verifiable", lang, step=step["id"]))
    if step.get("exercise"):
        out.append("        " + msg_tr("exercises.available", lang, step=step["id"]))
    return out + _evidence_lines(step, lang)


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)
