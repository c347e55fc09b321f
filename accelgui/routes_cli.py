"""``accelgui --routes``: print the learning-route catalogue without the GUI.

JSON output: ``{"lang": ..., "routes": [route with every bilingual text resolved to lang,
steps included], "errors": [...]}``. Text output: one block per route with its steps.
Returns 0, or 1 when the knowledge base reported errors (a broken override file); the
catalogue is printed either way, using the shipped routes in place of broken ones.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

LABELS = {
    "en": {
        "routes": "Learning routes", "scenarios": "Scenarios", "tools": "Tools",
        "requirements": "Requirements", "required": "required", "recommended": "recommended",
        "fallback": "if unmet", "steps": "Steps", "hours": "h", "after": "after",
        "verify": "Check", "resources": "Resources", "corrections": "Corrections to the source articles",
        "said": "said", "correct": "correct", "facts": "Dated facts", "errors": "Knowledge errors",
        "beginner": "beginner", "intermediate": "intermediate", "advanced": "advanced",
        "as_of": "as of", "total": "total",
    },
    "zh": {
        "routes": "学习路线", "scenarios": "适用场景", "tools": "工具", "requirements": "硬件与软件要求",
        "required": "必需", "recommended": "建议", "fallback": "不满足时", "steps": "步骤",
        "hours": "小时", "after": "先修", "verify": "自检", "resources": "资料",
        "corrections": "对原文的更正", "said": "原文", "correct": "更正", "facts": "有时效的事实",
        "errors": "知识库错误", "beginner": "入门", "intermediate": "进阶", "advanced": "高级",
        "as_of": "截至", "total": "合计",
    },
}

FALLBACK_NAMES = {
    "en": {"cloud": "cloud", "emulation": "emulation", "simulation": "simulation", "none": "none"},
    "zh": {"cloud": "云端", "emulation": "模拟运行", "simulation": "仿真", "none": "无替代"},
}


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


def catalogue(lang: str = "en", override_dir: str | None = None) -> dict:
    """The JSON document ``accelgui --routes --format json`` prints."""
    from accelgui.knowledge import load_knowledge

    from accelgui.progress import load_progress, load_verified

    kb = load_knowledge(override_dir)
    done, verified = load_progress(), load_verified()
    routes = []
    for rid, route in kb.routes.items():
        data = resolve(route, lang)
        data.pop("$schema", None)
        data["source"] = kb.origins.get(rid, "shipped")
        for step in data.get("steps", []):  # verified (a check passed) vs ticked by hand
            sid = step.get("id")
            step["progress"] = "verified" if sid in verified else "ticked" if sid in done else None
        routes.append(data)
    return {"lang": lang, "routes": routes, "errors": list(kb.errors)}


def print_routes(lang: str, fmt: str, override_dir: str | None, out: TextIO) -> int:
    lang = lang if lang in LABELS else "en"
    doc = catalogue(lang, override_dir)
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
    L = LABELS[lang]
    fb = FALLBACK_NAMES[lang]
    from accelgui.l10n import tr as msg_tr

    lines: list[str] = [f"{L['routes']} ({len(doc['routes'])})",
                        msg_tr("knowledge.progress.legend", lang), ""]
    for n, route in enumerate(doc["routes"], 1):
        steps = route.get("steps", [])
        total = sum(s.get("hours") or 0 for s in steps)
        if lang == "zh":
            head = f"{len(steps)} 个步骤，合计约 {_num(total)} 小时"
        else:
            head = f"{len(steps)} steps, about {_num(total)} h in total"
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
                             f"[{L['fallback']}: {fb.get(req['fallback'], req['fallback'])}]")
        lines.append(f"   {L['steps']}:")
        for i, step in enumerate(steps, 1):
            mark = {"verified": "[v] ", "ticked": "[x] "}.get(step.get("progress"), "")
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
            lines.append("   " + msg_tr("knowledge.routes.capstone", lang, title=cap["title"]))
            lines.append(f"     {cap['summary']}")
            lines.append("     " + msg_tr("knowledge.routes.deliverable", lang, text=cap["deliverable"]))
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


def _url(res: dict, lang: str) -> str:
    """The resource's official Chinese page in zh where it has one (url_zh), else its url."""
    return res.get("url_zh") if lang == "zh" and res.get("url_zh") else res["url"]


def _step_extras(step: dict, lang: str) -> list[str]:
    """Soft prerequisites, cost class and the machine check of a step (accelgui --verify)."""
    from accelgui.l10n import tr as msg_tr

    out = []
    if step.get("prerequisites_soft"):
        out.append("        " + msg_tr("knowledge.routes.helps", lang, steps=", ".join(step["prerequisites_soft"])))
    if step.get("cost_class"):
        out.append("        " + msg_tr(f"knowledge.cost.{step['cost_class']}", lang))
    if step.get("check"):
        out.append("        " + msg_tr("knowledge.routes.verifiable", lang, step=step["id"]))
    return out


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)
