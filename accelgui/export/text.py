"""Text: the report for a terminal, from the same section tables as Markdown, HTML and PDF
(:func:`accelgui.export.sections.build_sections`), so the formats never disagree.

A key/value table prints as ``label: value`` lines; a column table as aligned columns, padded
by display width (a CJK character takes two terminal cells), with the columns too wide for a
line printed under their row as ``header: value``. Every value was cleaned by the sections
(:func:`common.clean`), so a DMI string or device name holding terminal escape sequences, bell
characters or bidi overrides prints as plain text.
"""

from __future__ import annotations

import unicodedata

from accelgui.export import common
from accelgui.export.table import Table

WIDTH = 120          # the line a terminal report aims at (a maximised terminal is wider)
CELL_MAX = 40        # a column with a longer cell (reasons, fixes) prints under its row
FIRST_MAX = 60       # the first column (what a row is about) is cut to this many cells


def cells(text: str) -> int:
    """The terminal cells ``text`` takes: two for wide and full-width characters, none for
    combining marks."""
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - cells(text))


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, an ellipsis where it was cut."""
    if cells(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = cells(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + "…"


def _kv_lines(t: Table, indent: str) -> list[str]:
    """``label: value`` per row; a row of one cell is a line of its own."""
    out = []
    for row in t.rows:
        key, rest = (row[0], " ".join(row[1:])) if len(row) > 1 else ("", row[0] if row else "")
        out.append(f"{indent}{key}: {rest}" if key else f"{indent}{rest}")
    return out


def _column_lines(t: Table, indent: str) -> list[str]:
    t = t.narrow()
    headers = t.headers or []
    if len(headers) == 1:                         # a list: one item per line, never cut
        return [f"{indent}- {row[0]}" for row in t.rows if row and row[0]]
    longest = [max([cells(h)] + [cells(r[i]) for r in t.rows if i < len(r)]) for i, h in enumerate(headers)]
    widths = [min(w, FIRST_MAX if i == 0 else CELL_MAX) for i, w in enumerate(longest)]
    inline = [i for i, w in enumerate(longest) if w <= CELL_MAX or i == 0]
    room = WIDTH - len(indent) - 2 * (len(inline) - 1)
    while sum(widths[i] for i in inline) > room and len(inline) > 2:
        inline.remove(max(inline[1:], key=lambda i: widths[i]))     # the widest goes under
    below = [i for i in range(len(headers)) if i not in inline]

    def line(row: list[str]) -> str:
        parts = [pad(cut(row[i] if i < len(row) else "", widths[i]), widths[i]) for i in inline]
        return (indent + "  ".join(parts)).rstrip()

    out = [line(headers)]
    for row in t.rows:
        out.append(line(row))
        for i in below:
            value = row[i] if i < len(row) else ""
            if value:
                out.append(f"{indent}    {headers[i]}: {value}")
    return out


def table_lines(t: Table) -> list[str]:
    """One section table as terminal lines: its title, then its rows, then its note."""
    indent = "  " * t.level
    out = [f"{'  ' * (t.level - 2)}{t.title}:"]
    if t.note:                                   # a table's note sums it up: before its rows
        out.append(f"{indent}{t.note}")
    if t.rows:
        out += _kv_lines(t, indent) if t.headers is None else _column_lines(t, indent)
    return out


def render_tables(tables: list[Table]) -> list[str]:
    out: list[str] = []
    for t in tables:
        out += table_lines(t)
    return out


def render(report, lang: str = "en") -> str:
    sections = [t for t in common.build_sections(report, lang) if t.in_summary]
    return "\n".join([common.label("title", lang)] + render_tables(sections)) + "\n"
