"""``accelgui --verify STEP`` and ``accelgui --exercise STEP``.

``--exercise STEP [--workspace DIR] [--lang zh] [--force]`` writes the step's exercise (starter
code with TODOs, the grader as ``check.py`` to run locally, a README in the chosen language) into a
workspace folder (default ``<data dir>/exercises/<id>``); files the learner edited are never
overwritten: it refuses (exit 1) and says how to go on, or with ``--force`` keeps them in a
``.backup-<time>/`` folder first.

``--verify STEP`` grades the exercise when the step has one and its workspace exists (``proves
work``: "done: your work passed", with the figures measured against this machine's own), else
runs the step's check (an ``environment`` check: "ready to start"; only a ``work`` check marks the
step done). Checks are code. They come from the shipped knowledge and from ``--knowledge DIR``
only, never from ``$ACCELGUI_KNOWLEDGE_DIR`` (a note says so when it is set); each result names
the file its check came from and says when that is an override folder. Refuses to run as root
unless ``--allow-root`` is given; runs each check and grader contained (accelgui.verify: own
session, killed as a whole on timeout, bounded output, reduced environment, redacted evidence).
Exit status: 0 when every step asked is ready, done, or needs hardware this machine lacks (that
is reported, not a failure), else 1.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from accelgui.l10n import render
from accelgui.l10n import tr as msg_tr

__all__ = ["run_cli", "run_exercise_cli", "status_text", "figures_text"]

_PASSING = ("ready", "done", "needs-hardware")


def status_text(status: str, lang: str) -> str:
    """The words for a verify status ("ready to start", "done: your work passed", ...)."""
    return msg_tr(f"verify.status.{status}", lang)


def figures_text(figures: dict | None) -> str:
    """``name value`` pairs of a grader's figures, rounded for reading."""
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, (int, float)) else f"{k} -"
                     for k, v in (figures or {}).items()) or "-"


def _line(result: dict, lang: str) -> str:
    return msg_tr("knowledge.verify.line", lang, step=result["step"], status=status_text(result["status"], lang),
                  reason=render(result["reason_msg"], lang))


def _details(r: dict, lang: str) -> list[str]:
    """The indented lines under a result: where its check came from, evidence, figures, notes."""
    from accelgui import exercises, verify

    lines = []
    if r.get("check_file"):
        which = "verify.source.override" if r.get("check_override") else "verify.source.shipped"
        lines.append(msg_tr(which, lang, file=r["check_file"]))
    versions = ", ".join(f"{k} {v}" for k, v in (r.get("versions") or {}).items()) or "-"
    if r["status"] == "ready":
        lines.append(msg_tr("verify.evidence.ready", lang, date=r["date"], versions=versions))
        hint = exercises.for_step(r["step"])
        lines.append(msg_tr("verify.ready_note_exercise", lang, step=r["step"]) if hint
                     else msg_tr("verify.ready_note", lang))
    if r.get("proves") == "work" and r.get("figures"):
        for target in r.get("targets") if len(r.get("targets") or []) > 1 else []:
            lines.append(("+ " if target.get("met") else "- ") + render(target["msg"], lang))
        if r["status"] == "done":
            lines.append(msg_tr("exercises.evidence", lang, date=r["date"], machine=r.get("machine_key") or "-",
                                figures=figures_text(r["figures"]), versions=versions))
        else:
            lines.append(msg_tr("exercises.figures", lang, figures=figures_text(r["figures"])))
    elif r["status"] == "done":
        lines.append(msg_tr("knowledge.verify.evidence", lang, date=r["date"], versions=versions))
    if r.get("excerpt") and r["status"] not in ("done",):
        lines.append("| " + "\n  | ".join(r["excerpt"].splitlines()[:8]))
    if r.get("output_cut"):
        lines.append(msg_tr("verify.output_cut", lang, bytes=r["output_bytes"], kib=verify.HEAD_BYTES // 1024))
    return lines


def run_cli(steps: list[str], lang: str, fmt: str = "text", allow_root: bool = False,
            python: str | None = None, timeout_s: float | None = None, sysroot: str = "/",
            out: TextIO | None = None, err: TextIO | None = None, knowledge: str | None = None,
            workspace: str | None = None) -> int:
    """Verify ``steps`` with the checks of the shipped knowledge and of ``knowledge`` (the
    ``--knowledge DIR`` override folder), grading exercises from ``workspace`` (their default
    folders when None). KeyError(step) for an unknown id, PermissionError as root without
    allow_root (both are the caller's usage errors)."""
    from accelgui import exercises, verify
    from accelgui.facts_cli import probe_report
    from accelgui.knowledge import ENV_VAR, load_knowledge

    out = out or sys.stdout
    err = err or sys.stderr
    if knowledge:
        kb = load_knowledge(knowledge)
        for problem in kb.errors:
            err.write(f"accelgui: knowledge: {problem}\n")
    else:
        kb = load_knowledge("")     # "": the shipped knowledge only, whatever the environment says
        if os.environ.get(ENV_VAR):
            err.write(msg_tr("verify.env_ignored", lang, dir=os.environ[ENV_VAR]) + "\n")
    for step in steps:
        if kb.step(step) is None:
            raise KeyError(step)
    if verify.is_root() and not allow_root:
        raise PermissionError(msg_tr("knowledge.verify.root_refused", lang))
    report = probe_report(sysroot)
    results = [exercises.verify_step(s, kb=kb, python=python, timeout_s=timeout_s, report=report,
                                     workspace=workspace) for s in steps]
    if fmt == "json":
        doc = [dict(r, reason=render(r["reason_msg"], lang), status_text=status_text(r["status"], lang))
               for r in results]
        json.dump({"lang": lang, "results": doc}, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        for r in results:
            out.write(_line(r, lang) + "\n")
            for line in _details(r, lang):
                out.write("  " + line + "\n")
            if r.get("network_isolated") is False:
                err.write(msg_tr("knowledge.verify.isolation_off", lang) + "\n")
    return 0 if all(r["status"] in _PASSING for r in results) else 1


def run_exercise_cli(step: str, lang: str, workspace: str | None = None, force: bool = False,
                     out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Write the exercise of ``step``; 0 when written, 1 when the learner's edited files are
    in the way (nothing is changed). KeyError(message) when the step has no exercise."""
    from accelgui import exercises
    from accelgui.knowledge import tr as kb_tr

    out = out or sys.stdout
    err = err or sys.stderr
    manifest = exercises.for_step(step)
    if manifest is None:
        steps = ", ".join(sorted(m["step"] for m in exercises.manifests().values()))
        raise KeyError(msg_tr("exercises.none", lang, step=step, steps=steps))
    try:
        written = exercises.write_starter(step, workspace, lang=lang, force=force)
    except exercises.WorkspaceEditedError as exc:
        err.write("accelgui: " + msg_tr("exercises.exists", lang, path=exc.workspace, files=", ".join(exc.edited),
                                        step=step) + "\n")
        return 1
    except OSError as exc:          # a file where the folder should be, no permission, a full disk
        err.write("accelgui: " + msg_tr("exercises.cannot_write", lang, path=workspace or "-", error=str(exc)) + "\n")
        return 1
    out.write(kb_tr(manifest["title"], lang) + "\n")
    out.write(msg_tr("exercises.written", lang, exercise=manifest["id"], path=written["workspace"],
                     files=", ".join(manifest["files"]), step=step) + "\n")
    out.write(msg_tr("exercises.readme", lang, path=os.path.join(written["workspace"], "README.md")) + "\n")
    if written["backup"]:
        out.write(msg_tr("exercises.backup", lang, path=written["backup"]) + "\n")
    return 0
