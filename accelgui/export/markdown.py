"""Markdown: readable when pasted into a GitHub issue or a forum post.

Headings, then GFM tables for every section. Every cell and text passes through
:func:`common.esc_md` (control characters stripped, Markdown/HTML punctuation escaped,
newlines folded), so firmware strings cannot open HTML, links, code spans or break a table.
"""

from __future__ import annotations

from accelgui.export import common


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A GFM table; ``headers`` and ``rows`` hold plain (unescaped) text."""
    cols = len(headers)
    out = ["| " + " | ".join(common.esc_md(h, inline=True) or " " for h in headers) + " |",
           "|" + "|".join("---" for _ in range(cols)) + "|"]
    for row in rows:
        cells = [common.esc_md(x, inline=True) for x in list(row)[:cols]] + [""] * (cols - len(row))
        out.append("| " + " | ".join(cells) + " |")
    return out


def render_tables(tables: list[common.Table], lang: str = "en") -> list[str]:
    out: list[str] = []
    for t in tables:
        out.append("")
        out.append("#" * t.level + " " + common.esc_md(t.title, inline=True))
        if t.headers is None:
            if t.rows:
                out.append("")
                out.extend(_kv(t.rows, lang))
        elif t.rows:
            out.append("")
            out.extend(table(t.headers, t.rows))
        if t.note:
            out.append("")
            out.append(f"*{common.esc_md(t.note, inline=True)}*")
    return out


def _kv(rows: list[list[str]], lang: str = "en") -> list[str]:
    """Key/value rows as a two-column table with a bold key column."""
    item, value = (common.esc_md(common.label(k, lang), True) for k in ("item", "value"))
    out = [f"| {item} | {value} |", "|---|---|"]
    for k, v in rows:
        key = common.esc_md(k, inline=True)
        out.append(f"| **{key}** | {common.esc_md(v, True)} |" if key else f"| | {common.esc_md(v, True)} |")
    return out


def render(report, lang: str = "en") -> str:
    L = lambda k, **f: common.label(k, lang, **f)  # noqa: E731
    c = report.cpu
    host = common.label_text(report.platform.hostname)
    title = L("title") + (f": {host}" if host else "")
    out = [f"# {common.esc_md(title)}", ""]
    # a one-paragraph verdict first, the evidence after
    summary = [
        common.label_text(c.model_name) or L("unknown"),
        common.cpu_topology(c, lang),
        common.fmt_bytes(report.memory.total_bytes, lang),
    ]
    if report.devices:
        kinds: dict[str, int] = {}
        for d in report.devices:
            key = f"{common.word(d.kind, lang)} {common.label_text(d.name)}".strip()
            kinds[key] = kinds.get(key, 0) + 1
        summary.append(", ".join(f"{n} × {k}" if n > 1 else k for k, n in kinds.items()))
    out.append(" · ".join(common.esc_md(x, inline=i > 0) for i, x in enumerate(x for x in summary if x)))
    sections = common.build_sections(report, lang)
    out.extend(render_tables(sections, lang))
    out.append("")
    out.append(f"---\n*{common.esc_md(L('generated_by', v=common.label_text(report.accelgui_version)))} · "
               f"{common.esc_md(common.label_text(report.created))}*")
    return "\n".join(out) + "\n"
