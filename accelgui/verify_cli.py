"""``accelgui --verify STEP``: run a step's machine check in a child process, record evidence.

Checks are code. They come from the shipped knowledge and from ``--knowledge DIR`` only, never
from ``$ACCELGUI_KNOWLEDGE_DIR`` (a note says so when it is set); each result names the file
its check came from and says when that is an override folder. Refuses to run as root unless
``--allow-root`` is given; runs each check contained (accelgui.verify: own session, killed as
a whole on timeout, bounded output, reduced environment, redacted evidence). Exit status: 0 when every step asked was
verified or needs hardware this machine lacks (that is reported, not a failure), else 1.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from accelgui.l10n import render
from accelgui.l10n import tr as msg_tr

__all__ = ["run_cli"]


def _line(result: dict, lang: str) -> str:
    status = msg_tr(f"knowledge.verify.status.{result['status']}", lang)
    return msg_tr("knowledge.verify.line", lang, step=result["step"], status=status,
                  reason=render(result["reason_msg"], lang))


def run_cli(steps: list[str], lang: str, fmt: str = "text", allow_root: bool = False,
            python: str | None = None, timeout_s: float | None = None, sysroot: str = "/",
            out: TextIO | None = None, err: TextIO | None = None, knowledge: str | None = None) -> int:
    """Verify ``steps`` with the checks of the shipped knowledge and of ``knowledge`` (the
    ``--knowledge DIR`` override folder). KeyError(step) for an unknown id, PermissionError as
    root without allow_root (both are the caller's usage errors)."""
    from accelgui import verify
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
    results = [verify.verify_step(s, kb=kb, python=python, timeout_s=timeout_s, report=report)
               for s in steps]
    if fmt == "json":
        doc = [dict(r, reason=render(r["reason_msg"], lang)) for r in results]
        json.dump({"lang": lang, "results": doc}, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        for r in results:
            out.write(_line(r, lang) + "\n")
            if r.get("check_file"):
                which = "verify.source.override" if r.get("check_override") else "verify.source.shipped"
                out.write("  " + msg_tr(which, lang, file=r["check_file"]) + "\n")
            if r["status"] == "verified":
                versions = ", ".join(f"{k} {v}" for k, v in (r.get("versions") or {}).items()) or "-"
                out.write("  " + msg_tr("knowledge.verify.evidence", lang, date=r["date"],
                                        versions=versions) + "\n")
            if r.get("excerpt"):
                out.write("  | " + "\n  | ".join(r["excerpt"].splitlines()[:8]) + "\n")
            if r.get("output_cut"):
                out.write("  " + msg_tr("verify.output_cut", lang, bytes=r["output_bytes"],
                                        kib=verify.HEAD_BYTES // 1024) + "\n")
            if r.get("network_isolated") is False:
                err.write(msg_tr("knowledge.verify.isolation_off", lang) + "\n")
    ok = all(r["status"] in ("verified", "needs-hardware") for r in results)
    return 0 if ok else 1
