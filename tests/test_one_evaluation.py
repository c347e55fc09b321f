"""A rule is evaluated once for both languages: its facts are English texts carrying their Chinese
twins (rules.BOTH), which say what an evaluation in either language says."""

import glob
import os

import pytest

from accelgui import advisor, rules
from accelgui.knowledge import load_knowledge
from accelgui.report import load_report

HERE = os.path.dirname(os.path.abspath(__file__))
REPORTS = [p for p in sorted(glob.glob(os.path.join(HERE, "fixtures", "reports", "*.json")))
           if os.path.basename(p) in ("rich.json", "minimal.json")]


def _rules(kb):
    for route in kb.routes.values():
        for req in route.get("requirements", []):
            yield req["id"], req["rule"]
        for step in route.get("steps", []):
            for track in step.get("tracks") or []:
                yield f"{step['id']}:{track['id']}", track["when"]


@pytest.mark.parametrize("path", REPORTS, ids=os.path.basename)
def test_both_languages_at_once_say_what_each_language_says(path):
    report = load_report(path).to_dict()
    for ident, rule in _rules(load_knowledge()):
        both = rules.evaluate(rule, report, rules.BOTH, checked=True)
        for lang in ("en", "zh"):
            value, facts = rules.evaluate(rule, report, lang, checked=True)
            assert both[0] is value, ident
            assert [rules.in_lang(f, lang) for f in both[1]] == facts, (ident, lang)


def test_the_advisor_evaluates_each_requirement_once(monkeypatch):
    calls = []
    real = rules._eval

    def counting(rule, report, lang):
        calls.append(id(rule))
        return real(rule, report, lang)

    monkeypatch.setattr(rules, "_eval", counting)
    kb = load_knowledge()
    report = load_report(REPORTS[0])
    assessments = advisor.assess(report, kb, lang="en")
    top_level = {id(req["rule"]) for route in kb.routes.values() for req in route.get("requirements", [])}
    assert all(calls.count(rid) == 1 for rid in top_level)
    gpu = next(a for a in assessments if a.id == "gpu")
    assert gpu.reasons_msg and all(set(m) == {"en", "zh"} for m in gpu.reasons_msg)
    assert [m["en"] for m in gpu.reasons_msg] == gpu.reasons
