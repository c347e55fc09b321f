"""Markdown: readable when pasted into a GitHub issue or a forum post.

Headings, then GFM tables for every section. Every cell and text passes through
:func:`common.esc_md` (control characters stripped, Markdown/HTML punctuation escaped,
newlines folded), so firmware strings cannot open HTML, links, code spans or break a table.
"""

from __future__ import annotations

from accelgui.export import common as C


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A GFM table; ``headers`` and ``rows`` hold plain (unescaped) text."""
    cols = len(headers)
    out = ["| " + " | ".join(C.esc_md(h, inline=True) or " " for h in headers) + " |",
           "|" + "|".join("---" for _ in range(cols)) + "|"]
    for row in rows:
        cells = [C.esc_md(x, inline=True) for x in list(row)[:cols]] + [""] * (cols - len(row))
        out.append("| " + " | ".join(cells) + " |")
    return out


def render_tables(tables: list[C.Table], lang: str = "en") -> list[str]:
    out: list[str] = []
    for t in tables:
        out.append("")
        out.append("#" * t.level + " " + C.esc_md(t.title, inline=True))
        if t.headers is None:
            if t.rows:
                out.append("")
                out.extend(_kv(t.rows, lang))
        elif t.rows:
            out.append("")
            out.extend(table(t.headers, t.rows))
        if t.note:
            out.append("")
            out.append(f"*{C.esc_md(t.note, inline=True)}*")
    return out


def _kv(rows: list[list[str]], lang: str = "en") -> list[str]:
    """Key/value rows as a two-column table with a bold key column."""
    out = [f"| {C.esc_md(C.label('item', lang), True)} | {C.esc_md(C.label('value', lang), True)} |",
           "|---|---|"]
    for k, v in rows:
        key = C.esc_md(k, inline=True)
        out.append(f"| **{key}** | {C.esc_md(v, True)} |" if key else f"| | {C.esc_md(v, True)} |")
    return out


def render(report, lang: str = "en") -> str:
    L = lambda k, **f: C.label(k, lang, **f)  # noqa: E731
    c = report.cpu
    host = C.label_text(report.platform.hostname)
    title = L("title") + (f": {host}" if host else "")
    out = [f"# {C.esc_md(title)}", ""]
    # a one-paragraph verdict first, the evidence after
    summary = [
        C.label_text(c.model_name) or L("unknown"),
        C.cpu_topology(c, lang),
        C.fmt_bytes(report.memory.total_bytes, lang),
    ]
    if report.devices:
        kinds: dict[str, int] = {}
        for d in report.devices:
            key = f"{C.word(d.kind, lang)} {C.label_text(d.name)}".strip()
            kinds[key] = kinds.get(key, 0) + 1
        summary.append(", ".join(f"{n} × {k}" if n > 1 else k for k, n in kinds.items()))
    out.append(" · ".join(C.esc_md(x, inline=i > 0) for i, x in enumerate(x for x in summary if x)))
    sections = C.build_sections(report, lang)
    out.extend(render_tables(sections, lang))
    out.append("")
    out.append(f"---\n*{C.esc_md(L('generated_by', v=C.label_text(report.accelgui_version)))} · "
               f"{C.esc_md(C.label_text(report.created))}*")
    return "\n".join(out) + "\n"
