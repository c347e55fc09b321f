"""The report carries the advice (docs/report-contract.md, ``advice``): the goal the next steps
were ranked for, where it came from, and "Start here" with its reasons, computed once when the
report is built; every face reads it from the report, an older report without it renders the
same list, and ``--goal none`` clears a saved goal from any command that takes ``--goal``."""

import json
import re
from pathlib import Path

import pytest

from accelgui import advisor, cli, progress
from accelgui.export import render
from accelgui.knowledge import load_knowledge
from accelgui.report import Report, load_report, schema, validate

ROOT = Path(__file__).resolve().parent.parent
CORAL = str(ROOT / "tests" / "fixtures" / "machines" / "acc-coral-pcie")
DOC = ROOT / "docs" / "report-contract.md"


def probe(tmp_path, *extra, name="r.json") -> tuple[dict, Path]:
    out = tmp_path / name
    assert cli.main(["--probe", "--sysroot", CORAL, "--output", str(out), *extra]) == 0
    return json.loads(out.read_text(encoding="utf-8")), out


def start_section(text: str, head: str = "Start here:") -> list[str]:
    """The lines of the text export's Start here section (up to the next heading)."""
    lines = text.split(head + "\n", 1)[1].splitlines()
    return [ln for ln in lines[:next(i for i, ln in enumerate(lines) if not ln.startswith(" "))]]


# -- what a report written by --probe holds ------------------------------------------------------

def test_a_probe_report_carries_start_here_and_the_goal(tmp_path, capsys):
    data, _ = probe(tmp_path)
    validate(data)
    advice = data["advice"]
    assert advice["goal"] is None and advice["goal_source"] is None
    kb = load_knowledge()
    routes = Report.from_dict(data).routes
    assert [e["step"] for e in advice["start_here"]] == advisor.overall_next_steps(routes, kb, n=3)
    first = advice["start_here"][0]
    assert first["step"] == "edge.device-check" and first["route"] == "edge"   # a Coral owner
    assert first["title"] == kb.steps["edge.device-check"]["title"]["en"]
    assert first["title_msg"] == kb.steps["edge.device-check"]["title"]
    assert first["local"] is True and first["uses_device"] is True
    assert "works on this machine's own accelerator" in first["reason"]
    assert set(first["reason_msg"]) == {"en", "zh"} and first["reason_msg"]["zh"] != first["reason"]
    # a step that is not about the device does not claim it
    others = [e for e in advice["start_here"] if not e["uses_device"]]
    assert all("own accelerator" not in e["reason"] for e in others)


def test_the_goal_and_where_it_came_from(tmp_path, capsys):
    data, _ = probe(tmp_path, "--goal", "serve-llm", name="a.json")
    assert (data["advice"]["goal"], data["advice"]["goal_source"]) == ("serve-llm", "option")
    assert data["advice"]["goal_title_msg"]["en"] == advisor.goal_label("serve-llm", "en")
    assert "Goal set: Serve or run LLMs" in capsys.readouterr().err
    data, _ = probe(tmp_path, name="b.json")            # a later run: the saved goal, said so
    assert (data["advice"]["goal"], data["advice"]["goal_source"]) == ("serve-llm", "saved")
    assert {r["goal"] for r in data["routes"]} == {"serve-llm"}
    data, _ = probe(tmp_path, "--goal", "none", name="c.json")
    assert data["advice"]["goal"] is None and data["advice"]["goal_source"] is None
    assert progress.load_goal() is None
    assert "Goal cleared" in capsys.readouterr().err


def test_no_advice_leaves_the_advice_out(tmp_path):
    data, _ = probe(tmp_path, "--no-advice")
    assert data["advice"] is None and data["routes"] == []
    validate(data)


def test_the_advice_survives_a_round_trip(tmp_path):
    data, path = probe(tmp_path, "--goal", "edge")
    report = load_report(str(path))
    assert report.advice == data["advice"]
    assert report.to_dict()["advice"] == data["advice"]
    assert Report.from_dict(report.to_dict()) == report


def test_a_malformed_advice_is_refused_naming_the_field(tmp_path):
    data, _ = probe(tmp_path)
    data["advice"]["start_here"][0]["local"] = "yes"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"advice\.start_here\[0\]\.local"):
        load_report(str(bad))


# -- an older report without advice --------------------------------------------------------------

def test_an_older_report_without_advice_renders_the_same_start_list(tmp_path):
    data, path = probe(tmp_path)
    old = dict(data)
    del old["advice"]
    old_path = tmp_path / "old.json"
    old_path.write_text(json.dumps(old), encoding="utf-8")
    new, older = load_report(str(path)), load_report(str(old_path))
    assert older.advice is None
    for lang, head in (("en", "Start here:"), ("zh", "\u4ece\u8fd9\u91cc\u5f00\u59cb:")):
        shown = start_section(render(new, "text", lang=lang), head)
        assert shown and shown == start_section(render(older, "text", lang=lang), head)
    md_new, md_old = render(new, "markdown"), render(older, "markdown")
    section = lambda md: md.split("## Start here", 1)[1].split("\n## ", 1)[0]  # noqa: E731
    assert section(md_new) == section(md_old) and "Find your edge accelerator" in section(md_new)


def test_an_older_report_is_given_its_advice_once_for_all_faces(tmp_path, monkeypatch):
    data, _ = probe(tmp_path)
    del data["advice"]
    report = Report.from_dict(data)
    calls = []
    real = advisor.overall_next_steps
    monkeypatch.setattr(advisor, "overall_next_steps", lambda *a, **k: calls.append(1) or real(*a, **k))
    for fmt in ("text", "markdown", "html"):
        assert "Find your edge accelerator" in render(report, fmt)
    assert len(calls) == 1


def test_no_face_ranks_the_steps_itself():
    """One function computes "Start here" (accelgui/export/advice.py); the renderers, the app's
    views and the commands read the report's advice."""
    callers = sorted(str(p.relative_to(ROOT)) for folder in ("accelgui/export", "accelgui/gui")
                     for p in (ROOT / folder).rglob("*.py")
                     if "overall_next_steps" in p.read_text(encoding="utf-8"))
    assert callers == ["accelgui/export/advice.py"]
    for name in ("cli.py", "routes_cli.py"):
        assert "overall_next_steps" not in (ROOT / "accelgui" / name).read_text(encoding="utf-8")


# -- the goal shown in every face and cleared from every command ---------------------------------

@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_exports_show_the_goal_in_both_languages(tmp_path, fmt):
    probe(tmp_path, "--goal", "serve-llm", name="set.json")
    _, path = probe(tmp_path)
    report = load_report(str(path))
    en = render(report, fmt)
    assert "Goal: Serve or run LLMs (saved; --goal none clears it)" in en
    zh = render(report, fmt, lang="zh")
    assert "\u76ee\u6807\uff1a" + advisor.goal_label("serve-llm", "zh") in zh
    assert "--goal none" in zh


def test_probe_text_says_the_goal_given_on_the_command_line(tmp_path, capsys):
    assert cli.main(["--probe", "--sysroot", CORAL, "--format", "text", "--goal", "hpc"]) == 0
    out = capsys.readouterr()
    assert "Goal: Scientific / HPC computing (from --goal, saved for later runs; --goal none " \
           "clears it)" in start_section(out.out)[0]          # the goal first, then the steps
    assert "Goal set" in out.err and "Goal set" not in out.out


def test_without_a_goal_no_face_claims_one(tmp_path):
    _, path = probe(tmp_path)
    report = load_report(str(path))
    for fmt in ("text", "markdown", "html"):
        assert "Goal:" not in render(report, fmt)


def test_routes_shows_and_clears_the_saved_goal(capsys):
    progress.set_goal("train")
    assert cli.main(["--routes"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2] == "Goal: Train models (saved; --goal none clears it)"
    assert cli.main(["--routes", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["goal"], doc["goal_source"]) == ("train", "saved")
    assert cli.main(["--routes", "--goal", "none"]) == 0
    out = capsys.readouterr()
    assert progress.load_goal() is None
    assert "Goal cleared: the next steps are no longer ranked for Train models." in out.err
    assert "Goal:" not in out.out
    assert cli.main(["--routes", "--goal", "none", "--lang", "zh"]) == 0
    assert "\u6ca1\u6709\u5df2\u4fdd\u5b58\u7684\u76ee\u6807" in capsys.readouterr().err


def test_routes_with_a_report_shows_its_start_here(tmp_path, capsys):
    _, path = probe(tmp_path, "--goal", "edge")
    capsys.readouterr()
    assert cli.main(["--routes", "--report", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Goal: Deploy on edge devices (from --goal, saved for later runs; --goal none clears it)" in text
    start = start_section(text)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [re.sub(r"^\s*\d+\. ", "", ln).split(" (")[0] for ln in start] == \
        [e["title"] for e in data["advice"]["start_here"]]
    assert cli.main(["--routes", "--report", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["advice"] == data["advice"]


def test_goal_none_alone_clears_and_says_so(capsys):
    progress.set_goal("edge")
    assert cli.main(["--goal", "none"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["accelgui: Goal cleared: the next steps are no longer ranked for "
                                "Deploy on edge devices.", "goal: none"]
    assert progress.load_goal() is None


def test_goal_none_reaches_the_app_and_clears_there(monkeypatch, capsys):
    progress.set_goal("hpc")
    seen = {}
    monkeypatch.setattr(cli, "gui_main", lambda args: seen.setdefault("args", args) and 0)
    assert cli.main(["--goal", "none", "--page", "routes"]) == 0
    assert seen["args"].page == "routes" and progress.load_goal() is None
    assert "Goal cleared" in capsys.readouterr().err


def test_an_unknown_goal_is_a_usage_error_everywhere(capsys):
    for argv in (["--routes", "--goal", "fly"], ["--probe", "--sysroot", CORAL, "--goal", "fly"]):
        assert cli.main(argv) == cli.EXIT_USAGE
        assert "unknown goal 'fly'" in capsys.readouterr().err
    assert progress.load_goal() is None


# -- the contract ----------------------------------------------------------------------------------

def test_the_contract_page_names_every_advice_field():
    spans = set(re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8")))
    defs = schema()["$defs"]
    for name in ("advice", "advice_step"):
        missing = sorted(set(defs[name]["properties"]) - spans)
        assert not missing, f"docs/report-contract.md does not name {name} fields {missing}"
    assert "## `advice`" in DOC.read_text(encoding="utf-8")


def test_the_schema_knows_the_advisor_goals():
    goals = schema()["$defs"]["advice"]["properties"]["goal"]["enum"]
    assert [g for g in goals if g] == list(advisor.GOALS) and None in goals
