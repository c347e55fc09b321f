"""Every string a report holds came from firmware, the kernel or another machine, so it is
treated as hostile: :func:`clean` removes control characters, terminal escape sequences and
bidirectional overrides; :func:`esc_html` and :func:`esc_md` then escape for HTML and Markdown.

Every string is also cut (``accelgui.bounds``, with "…"): :func:`clean` to ``TEXT_MAX``
(4096) characters unless told another limit, :func:`label_text` (names, ids, Prometheus label
values, table cells that name a thing) to ``NAME_MAX`` (256). Each exporter shows its strings
through these, so a label is cut alike in every format, and the work and the output stay
bounded however long the string in the report is (a report read from a file is cut when it is
loaded already; an in-memory report is cut here)."""

from __future__ import annotations

import html as _html
import math
import re
import unicodedata

from accelgui.bounds import ELLIPSIS, NAME_MAX, TEXT_MAX

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"          # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL / ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"   # DCS / SOS / PM / APC strings
    r"|\x1b[@-Z\\-_]"                   # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]")          # 8-bit CSI
_BIDI = {"\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
         "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff", "\u200b"}
_LINE_BREAKS = {"\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"}


def fmt_num(value, digits: int = 1) -> str:
    """1,234 for integers; 12.3 / 1,234.5 / 12,346 / 0.0123 for floats (trailing .0 dropped)."""
    if value is None or isinstance(value, bool):
        return "" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return clean(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if abs(x) >= 10000:
        return f"{x:,.0f}"
    if abs(x) >= 1 or x == 0:
        text = f"{x:,.{digits}f}"
        return text[:-2] if text.endswith(".0") else text
    return f"{x:.3g}"


def clean(value, keep_newlines: bool = False, limit: int = TEXT_MAX) -> str:
    """A string safe to print: no control characters, escape sequences or bidi overrides,
    at most ``limit`` characters (cut with "…").

    Newlines become spaces unless ``keep_newlines``; tabs become spaces; runs of spaces on a
    line collapse. ``None`` becomes "" (callers choose the word for unknown). Only the first
    ``4 * limit + 64`` characters are looked at: a longer string is cut anyway, and the work
    stays bounded."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = fmt_num(value)
    else:
        text = str(value)
    dropped = len(text) > 4 * limit + 64
    if dropped:
        text = text[:4 * limit + 64]
    text = _ANSI.sub("", text)
    out = []
    for ch in text:
        if ch in _LINE_BREAKS:
            out.append("\n" if keep_newlines and ch in ("\n", "\u2028", "\u2029") else " ")
        elif ch == "\t":
            out.append(" ")
        elif ch in _BIDI:
            continue
        elif unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") and ch not in ("\n",):
            continue
        else:
            out.append(ch)
    text = "".join(out)
    if keep_newlines:
        text = "\n".join(re.sub(r" {2,}", " ", line).strip() for line in text.split("\n")).strip()
    else:
        text = re.sub(r" {2,}", " ", text).strip()
    if dropped or len(text) > limit:
        text = text[:limit - 1] + ELLIPSIS if len(text) >= limit else text + ELLIPSIS
    return text


def label_text(value, keep_newlines: bool = False) -> str:
    """:func:`clean` cut to ``NAME_MAX`` (256) characters: how every exporter shows a name (a
    device, CPU model, vendor, driver, package) or a label value."""
    return clean(value, keep_newlines, NAME_MAX)


def esc_html(value, limit: int = TEXT_MAX) -> str:
    """Cleaned (cut to ``limit`` characters) and HTML-escaped (quotes too), for element text
    and attribute values."""
    return _html.escape(clean(value, limit=limit), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_<>\[\]|~&$])")
_MD_LINE_START = re.compile(r"^(\s*)([#+=>-]|\d+[.)])")


def esc_md(value, inline: bool = False, limit: int = TEXT_MAX) -> str:
    """Cleaned and escaped for Markdown inline text and GFM table cells.

    Backslash-escapes what can start markup anywhere in a line (code spans, emphasis, HTML,
    links, table pipes, strikethrough, entities, math) and what starts a block at the
    beginning of a line (headings, lists, quotes); CommonMark allows a backslash before any
    ASCII punctuation. Newlines are folded, so a cell stays one table row. ``inline``: the
    text does not start a line (a table cell), so block markers need no escape."""
    text = _MD_SPECIAL.sub(r"\\\1", clean(value, limit=limit))
    if inline:  # inside a table cell or after other text: no block can start here
        return text
    def block(m):
        mark = m.group(2)
        return m.group(1) + (mark[:-1] + "\\" + mark[-1] if mark[0].isdigit() else "\\" + mark)
    return _MD_LINE_START.sub(block, text, count=1)
