"""``accelgui --facts [TABLE]``: the dated fact tables, rows of this machine marked.

Text output: one block per table (title, as of / review by / source, notes), one line per row
with its own date and source, ``*`` in front of the rows that describe this machine. JSON output:
``{"lang", "tables": [{"id", "title", "as_of", "review_by", "source", "notes", "columns",
"column_labels", "rows": [{...row, "this_machine": bool}]}], "expired": [...], "machine": {...}}``.
Texts are in ``lang`` (the data files' bilingual texts and the ``knowledge`` message area).

The machine is the report given (``--report FILE``), else a quick probe of ``--sysroot``.
"""

from __future__ import annotations

import json
from typing import TextIO

from accelgui.fact_tables import cell_text, column_label, facts_document, sources
from accelgui.l10n import tr as msg_tr

__all__ = ["facts_document", "print_facts", "cell_text", "column_label", "probe_report"]


def render_text(doc: dict) -> str:
    lang = doc["lang"]
    lines: list[str] = []
    for t in doc["tables"]:
        lines.append(f"{t['title']} [{t['id']}]")
        lines.append("  " + msg_tr("knowledge.facts.dated", lang, as_of=t["as_of"] or "-",
                                   review_by=t["review_by"] or "-",
                                   source=", ".join(t["source"]) or "-"))
        if t["notes"]:
            lines.append(f"  {t['notes']}")
        for row in t["rows"]:
            mark = "*" if row["this_machine"] else " "
            cells = "; ".join(f"{label}: {cell_text(row.get(col), lang, col)}"
                              for col, label in zip(t["columns"], t["column_labels"])
                              if col in row)
            lines.append(f" {mark} {cells}")
            lines.append("      " + msg_tr("knowledge.facts.row_dated", lang,
                                           as_of=row.get("as_of") or "-",
                                           source=", ".join(sources(row.get("source"))) or "-"))
        if not any(r["this_machine"] for r in t["rows"]):
            lines.append("  " + msg_tr("knowledge.facts.no_match", lang))
        lines.append("")
    lines.append(msg_tr("knowledge.facts.legend", lang))
    for problem in doc["expired"]:
        lines.append(msg_tr("knowledge.facts.expired", lang, problem=problem))
    return "\n".join(lines) + "\n"


def print_facts(report: dict | None, lang: str, fmt: str, table: str | None, out: TextIO) -> int:
    """Print the tables; 0, or 1 when a fact is past its review horizon. KeyError: unknown table."""
    doc = facts_document(report, lang, table)
    if fmt == "json":
        json.dump(doc, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        out.write(render_text(doc))
    return 1 if doc["expired"] else 0


def probe_report(sysroot: str = "/", report_path: str | None = None) -> dict:
    """The machine to match: a saved report (``--report``), else a quick probe (no benchmark)."""
    if report_path:
        with open(report_path, encoding="utf-8") as f:
            doc = json.load(f)
        if not isinstance(doc, dict):
            raise ValueError(f"{report_path}: not a report (expected a JSON object)")
        return doc
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    return run_probes(ProbeContext(root=sysroot)).to_dict()


def run_cli(table: str | None, lang: str, fmt: str, sysroot: str = "/",
            report_path: str | None = None, out: TextIO | None = None) -> int:
    """``accelgui --facts [TABLE]``. KeyError (unknown table) is the caller's usage error."""
    import io
    import sys

    buf = io.StringIO()
    rc = print_facts(probe_report(sysroot, report_path), lang, fmt, table, buf)
    (out or sys.stdout).write(buf.getvalue())
    return rc
