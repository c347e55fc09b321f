"""The generic layouts PowerShell, wmic and reg write, as records.

Pure functions of decoded text (accelgui.probes.platforms.recorded.decode made it: BOM gone,
``\n`` line ends, lines bounded): records out, never an exception for what a user's capture
may hold (a truncated file, a cut line, values in German or Chinese).

Layouts (each recognised by its content, never by a file name):

* ``Format-List`` (``fl *``): blocks of ``Name : value`` separated by blank lines; a long
  value wraps onto indented continuation lines.
* ``wmic ... get /format:list``: blocks of ``Name=value`` (CR CR LF line ends when redirected).
* ``ConvertTo-Json``: one object or an array; PowerShell 5 and 7 forms of a CIM instance
  (``CimInstanceProperties`` as a list of ``{Name, Value}``, ``CimClass``,
  ``CimSystemProperties.ClassName``) are flattened into plain ``{name: value}``.
* tables: ``Format-Table`` (a header line over a line of dashes) and wmic's default table
  (a header of property names, columns where the names start).
* ``reg export`` (``Windows Registry Editor Version 5.00``, typed values, ``\\`` continued
  hex) and ``reg query`` (``Name    REG_TYPE    value``).
"""

from __future__ import annotations

import json
import re

MAX_RECORDS = 4096               # records taken from one file


# ---------------------------------------------------------------------------- layouts

_FL_LINE = re.compile(r"^([A-Za-z_][\w.\-]*(?: [A-Za-z_][\w.\-]*)*)\s*: ?(.*)$")
_WMIC_LINE = re.compile(r"^([A-Za-z_]\w*)=(.*)$")


def _blocks(text: str, line_re: re.Pattern, continued: bool) -> list[dict]:
    """Blocks of ``name <sep> value`` lines, a new one where a name comes again; with
    ``continued`` (Format-List) a blank line ends a block too and an indented line that is
    no property continues the value before it. (wmic ends its lines with CR CR LF, read as
    a blank line after each: there only a repeated name starts the next object.)"""
    out: list[dict] = []
    current: dict = {}
    last = None
    for line in text.split("\n"):
        if not line.strip():
            if current and continued:
                out.append(current)
                current, last = {}, None
            continue
        m = line_re.match(line) if not (continued and line[:1].isspace() and last) else None
        if m:
            last = m.group(1)
            if last in current:             # the next object
                out.append(current)
                current = {}
            current[last] = m.group(2).strip()
        elif continued and last and line[:1].isspace():
            current[last] += line.strip()
        if len(out) >= MAX_RECORDS:
            break
    if current and len(out) < MAX_RECORDS:
        out.append(current)
    return out


def format_list(text: str) -> list[dict]:
    """PowerShell ``Format-List`` blocks as ``{name: value}`` (values as text)."""
    return _blocks(text, _FL_LINE, continued=True)


def wmic_list(text: str) -> list[dict]:
    """``wmic ... /format:list`` blocks as ``{name: value}``."""
    return _blocks(text, _WMIC_LINE, continued=False)


def _cim_flat(obj: dict) -> dict:
    """A CIM instance as PowerShell 5/7 serialise it, as plain ``{name: value}`` with the
    class name under ``__CLASS`` when the object says it."""
    out = {k: v for k, v in obj.items()
           if k not in ("CimInstanceProperties", "CimClass", "CimSystemProperties")}
    props = obj.get("CimInstanceProperties")
    if isinstance(props, list):
        for prop in props:
            if isinstance(prop, dict) and isinstance(prop.get("Name"), str):
                out.setdefault(prop["Name"], prop.get("Value"))
    system = obj.get("CimSystemProperties")
    cim_class = obj.get("CimClass")
    if isinstance(system, dict) and isinstance(system.get("ClassName"), str):
        out.setdefault("__CLASS", system["ClassName"])
    elif isinstance(cim_class, dict) and isinstance(cim_class.get("CimClassName"), str):
        out.setdefault("__CLASS", cim_class["CimClassName"])
    elif isinstance(cim_class, str) and ":" in cim_class:
        out.setdefault("__CLASS", cim_class.rsplit(":", 1)[1])      # "root/cimv2:Win32_X"
    return out


def json_objects(text: str) -> list[dict] | None:
    """``ConvertTo-Json`` output as flat objects; None when the text is no JSON. Text before
    the first ``[`` or ``{`` (a prompt, a banner) is skipped; a truncated document is None."""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        value = json.loads(text[start:])
    except ValueError:
        value = _salvaged(text[start:])
        if value is None:
            return None
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items[:MAX_RECORDS]:
        if isinstance(item, dict):
            out.append(_cim_flat(item))
        elif isinstance(item, list):          # an array of arrays (two commands' outputs)
            out.extend(_cim_flat(x) for x in item[:MAX_RECORDS] if isinstance(x, dict))
    return out


def _salvaged(text: str) -> list | None:
    """The complete elements of a JSON array cut short (a truncated capture); None when not
    even one element is whole."""
    if not text.startswith("["):
        return None
    decoder = json.JSONDecoder()
    items: list = []
    pos = 1
    while len(items) < MAX_RECORDS:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        try:
            item, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
        items.append(item)
    return items or None


_DASHES = re.compile(r"^-+(?:\s+-+)*\s*$")
_HEADER_WORD = re.compile(r"\S+(?: \S+)*")


def _columns(header: str, under: str | None) -> list[tuple[str, int, int]]:
    """(name, start, end) of each column; the last runs to the end of the line."""
    ruler = under if under is not None else header
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+" if under else _HEADER_WORD, ruler)]
    cols = []
    for i, (start, _end) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else None
        name = header[start:stop].strip() if stop else header[start:].strip()
        cols.append((name, start, stop))
    return cols


def _cell(line: str, start: int, stop: int | None) -> str:
    return (line[start:stop] if stop is not None else line[start:]).strip()


def tables(text: str) -> list[dict]:
    """Rows of every ``Format-Table`` (header over dashes) in the text, as ``{column: cell}``;
    without any dashed header, rows of a wmic default table (header of property names, no
    blank in a name, two or more spaces between). Cells truncated by PowerShell keep their
    ``...``/``\u2026``."""
    lines = text.split("\n")
    rows: list[dict] = []
    dashed = [i for i in range(1, len(lines)) if _DASHES.match(lines[i]) and lines[i - 1].strip()]
    if dashed:
        for i in dashed:
            cols = _columns(lines[i - 1], lines[i])
            for line in lines[i + 1:]:
                if not line.strip() or (_DASHES.match(line)):
                    break
                rows.append({name: _cell(line, a, b) for name, a, b in cols})
                if len(rows) >= MAX_RECORDS:
                    return rows
        return rows
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not re.fullmatch(r"[A-Za-z]\w*(?: {2,}[A-Za-z]\w*)* *", lines[first]):
        return rows
    cols = _columns(lines[first], None)
    for line in lines[first + 1:]:
        if line.strip():
            rows.append({name: _cell(line, a, b) for name, a, b in cols})
        if len(rows) >= MAX_RECORDS:
            break
    return rows


# ---------------------------------------------------------------------------- registry

def _hex_bytes(text: str) -> bytes | None:
    parts = [p for p in text.replace("\\", "").replace(" ", "").split(",") if p]
    try:
        return bytes(int(p, 16) for p in parts)
    except ValueError:
        return None


def reg_value(kind: str, raw: str):
    """A registry value from its export form: ``"text"``, ``dword:0000ffff`` (int),
    ``hex(b):..`` (QWORD, int, little-endian), ``hex(4)``/``hex`` of four bytes or fewer
    read as an int when ``kind`` is "int", ``hex:`` bytes, ``hex(7)``/``hex(2)``/``hex(1)``
    UTF-16 strings. None when it cannot be read."""
    if raw.startswith('"'):
        return raw[1:-1].replace("\\\\", "\\").replace('\\"', '"') if raw.endswith('"') else None
    if raw.startswith("dword:"):
        try:
            return int(raw[6:], 16)
        except ValueError:
            return None
    m = re.match(r"hex(?:\(([0-9a-f]+)\))?:(.*)$", raw, re.S | re.I)
    if not m:
        return None
    data = _hex_bytes(m.group(2))
    if data is None:
        return None
    code = (m.group(1) or "3").lower()
    if code in ("b", "4") or (kind == "int" and len(data) <= 8):
        return int.from_bytes(data, "little") if data else None
    if code in ("1", "2", "7"):
        return data.decode("utf-16-le", errors="replace").rstrip("\x00").replace("\x00", "\n")
    return data


def _new_key(out: list[dict], path: str) -> dict | None:
    """A new registry key record appended to ``out``; None once MAX_RECORDS are read."""
    if len(out) >= MAX_RECORDS:
        return None
    out.append({"_key": path})
    return out[-1]


_REG_KEY = re.compile(r"^\[(.+)\]\s*$")
_REG_VALUE = re.compile(r'^(@|"(?:[^"\\]|\\.)*")=(.*)$')


def reg_export(text: str) -> list[dict]:
    """Keys of a ``reg export`` file: ``{"_key": path, name: raw value text}`` (values as
    written: decode them with :func:`reg_value`)."""
    out: list[dict] = []
    current = None
    pending = None
    for line in text.split("\n"):
        if pending is not None:                    # a hex value continued with "\"
            name, value = pending
            value += line.strip()
            if value.endswith("\\"):
                pending = (name, value[:-1])
                continue
            current[name] = value
            pending = None
            continue
        key = _REG_KEY.match(line)
        if key:
            current = _new_key(out, key.group(1))
            if current is None:
                break
            continue
        m = _REG_VALUE.match(line)
        if m and current is not None:
            name = m.group(1)[1:-1].replace('\\"', '"').replace("\\\\", "\\") \
                if m.group(1) != "@" else "@"
            value = m.group(2).strip()
            if value.endswith("\\"):
                pending = (name, value[:-1])
            else:
                current[name] = value
    return out


_QUERY_VALUE = re.compile(r"^\s+(\S.*?)\s{2,}(REG_[A-Z_]+)\s{2,}?(.*)$")


def reg_query(text: str) -> list[dict]:
    """Keys of ``reg query`` output as ``{"_key": path, name: value}``: REG_DWORD and
    REG_QWORD as ints, REG_BINARY as bytes, strings as text."""
    out: list[dict] = []
    current = None
    for line in text.split("\n"):
        if line.startswith("HKEY_"):
            current = _new_key(out, line.strip())
            if current is None:
                break
            continue
        m = _QUERY_VALUE.match(line)
        if not m or current is None:
            continue
        name, kind, value = m.group(1), m.group(2), m.group(3).strip()
        if kind in ("REG_DWORD", "REG_QWORD"):
            try:
                current[name] = int(value, 16)
            except ValueError:
                current[name] = None
        elif kind == "REG_BINARY":
            try:
                current[name] = bytes.fromhex(value)
            except ValueError:
                current[name] = None
        else:
            current[name] = value
    return out
