"""Dated fact tables (facts.json) made readable, checked for expiry, and matched to a report.

Every table and every row of ``facts.json`` carries ``as_of`` (when the source was read),
``source`` (URL or list of URLs) and ``review_by`` (the date after which the fact must be
re-read: as_of + 12 months for software support, + 24 months for published specifications of
shipped hardware). :func:`expired` lists what is past its horizon; the test suite fails on it.

:func:`tables` gives every table as ``{"id", "title", "as_of", "review_by", "source", "notes",
"columns", "rows"}`` with rows in file order; the memory-bandwidth table is completed from the
device-family data under ``probes/data`` (any entry that carries ``memory_bandwidth_gbps``).
:func:`row_matches` says whether a row describes a device (or the CPU) of a report, so the CLI
(``accelgui --facts``) and the app's Reference page can mark this machine's rows.

Qt-free and probe-free: the report is read as a plain dict (``Report.to_dict()`` or JSON).
"""

from __future__ import annotations

import datetime as _dt
import json
import re

from accelgui import data as data_files

__all__ = ["META_KEYS", "load_facts", "tables", "table_ids", "expired", "row_matches",
           "machine_keys", "review_horizon"]

#: Row keys that describe the fact rather than the thing (shown as the "source" column).
META_KEYS = ("source", "as_of", "review_by", "applies_to", "pci_id_source", "pci_ids")

_PACKAGE = "accelgui.knowledge"


def load_facts() -> dict:
    """facts.json as a dict (through the knowledge loader's cache)."""
    from accelgui.knowledge import load_knowledge

    return load_knowledge().facts


def _family_bandwidth_rows() -> list[dict]:
    """Rows ``{"device", "family", "memory_bandwidth_gbps", "source", "as_of", "review_by"}`` from
    the device-family data (probes/data/**.json), wherever an entry carries memory_bandwidth_gbps."""
    rows: list[dict] = []
    try:
        names = data_files.list_names("accelgui.probes", "data")
    except OSError:
        return rows
    files = []
    for name in names:
        if name.endswith(".json"):
            files.append(f"data/{name}")
        elif "." not in name:
            try:
                files += [f"data/{name}/{n}" for n in data_files.list_names("accelgui.probes", f"data/{name}")
                          if n.endswith(".json")]
            except OSError:
                continue
    for rel in files:
        try:
            doc = json.loads(data_files.read_bytes("accelgui.probes", rel).decode("utf-8"))
        except (OSError, ValueError):
            continue
        _collect_bandwidth(doc, None, doc if isinstance(doc, dict) else {}, rows)
    return rows


def _collect_bandwidth(obj, family, top: dict, out: list) -> None:
    if isinstance(obj, list):
        for item in obj:
            _collect_bandwidth(item, family, top, out)
        return
    if not isinstance(obj, dict):
        return
    fam = obj.get("family") if isinstance(obj.get("family"), str) else None
    fam = fam or (obj.get("id") if isinstance(obj.get("id"), str) else None) or family
    bw = obj.get("memory_bandwidth_gbps")
    if isinstance(bw, (int, float)) and not isinstance(bw, bool) and bw > 0:
        name = obj.get("name") or obj.get("device") or obj.get("model") or fam
        if isinstance(name, dict):
            name = name.get("en")
        out.append({
            "device": str(name), "family": fam, "memory_bandwidth_gbps": bw,
            "source": obj.get("source") or obj.get("memory_bandwidth_source") or top.get("source")
            or top.get("sources"),
            "as_of": obj.get("as_of") or top.get("as_of"),
            "review_by": obj.get("review_by") or top.get("review_by"),
        })
        return
    for key, value in obj.items():
        if isinstance(value, (dict, list)):
            _collect_bandwidth(value, fam if key != "sources" else family, top, out)


def table_ids(facts: dict | None = None) -> list[str]:
    facts = load_facts() if facts is None else facts
    return [k for k, v in facts.items() if isinstance(v, dict) and isinstance(v.get("rows"), list)]


def tables(facts: dict | None = None, with_family_data: bool = True) -> list[dict]:
    """Every fact table, rows in file order, columns in first-seen order (meta keys last)."""
    facts = load_facts() if facts is None else facts
    out = []
    for tid in table_ids(facts):
        table = facts[tid]
        rows = [dict(r) for r in table["rows"] if isinstance(r, dict)]
        if tid == "memory_bandwidth" and with_family_data:
            seen = {(r.get("device"), r.get("memory_bandwidth_gbps")) for r in rows}
            rows += [r for r in _family_bandwidth_rows()
                     if (r["device"], r["memory_bandwidth_gbps"]) not in seen]
        columns: list[str] = []
        for r in rows:
            for key in r:
                if key not in columns and key not in META_KEYS:
                    columns.append(key)
        out.append({"id": tid, "title": table.get("title"), "as_of": table.get("as_of"),
                    "review_by": table.get("review_by"), "source": table.get("source"),
                    "notes": table.get("notes"), "columns": columns, "rows": rows})
    return out


def _date(text) -> _dt.date | None:
    if not isinstance(text, str):
        return None
    m = re.match(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$", text)
    if not m:
        return None
    try:
        return _dt.date(int(m[1]), int(m[2]), int(m[3] or 1))
    except ValueError:
        return None


def review_horizon(as_of: str, months: int = 12) -> str:
    """as_of + months, as YYYY-MM-DD (the conventional review_by)."""
    d = _date(as_of)
    if d is None:
        raise ValueError(f"not a date: {as_of!r}")
    month = d.month - 1 + months
    year, month = d.year + month // 12, month % 12 + 1
    day = min(d.day, 28)
    return _dt.date(year, month, day).isoformat()


def expired(today: _dt.date | None = None, facts: dict | None = None,
            routes: dict | None = None) -> list[str]:
    """Every fact past its review horizon or missing its dates, as "where: why" strings."""
    today = today or _dt.date.today()
    if facts is None or routes is None:
        from accelgui.knowledge import load_knowledge

        kb = load_knowledge()
        facts = kb.facts if facts is None else facts
        routes = kb.routes if routes is None else routes
    problems: list[str] = []

    def check(where: str, obj: dict) -> None:
        as_of, review = _date(obj.get("as_of")), _date(obj.get("review_by"))
        if as_of is None:
            problems.append(f"{where}: as_of missing or not a date")
        if review is None:
            problems.append(f"{where}: review_by missing or not a date")
        elif review < today:
            problems.append(f"{where}: past its review horizon ({obj['review_by']})")
        elif as_of is not None and review <= as_of:
            problems.append(f"{where}: review_by is not after as_of")
        if not obj.get("source"):
            problems.append(f"{where}: source missing")

    for tid in table_ids(facts):
        check(f"facts.json {tid}", facts[tid])
        for i, row in enumerate(facts[tid]["rows"]):
            check(f"facts.json {tid}.rows[{i}]", row)
    for rid, route in (routes or {}).items():
        for fact in route.get("facts", []):
            check(f"routes/{rid}.json {fact.get('id')}", fact)
    return problems


# --------------------------------------------------------------------------- matching

def _norm(text) -> str:
    return re.sub(r"[^a-z0-9.]+", " ", str(text or "").lower()).strip()


def machine_keys(report: dict) -> dict:
    """What the rows are matched on: devices (kind, vendor, family, name, ids, details) and CPU."""
    devices = []
    for dev in report.get("devices") or []:
        if not isinstance(dev, dict):
            continue
        det = dev.get("details") if isinstance(dev.get("details"), dict) else {}
        devices.append({
            "kind": dev.get("kind"), "vendor": dev.get("vendor"), "family": dev.get("family"),
            "name": _norm(dev.get("name")), "pci_id": (dev.get("pci_id") or "").lower() or None,
            "usb_id": (dev.get("usb_id") or "").lower() or None, "driver": dev.get("driver"),
            "compute_capability": det.get("compute_capability"),
            "gfx_target": det.get("gfx_target"),
        })
    cpu = report.get("cpu") if isinstance(report.get("cpu"), dict) else {}
    return {"devices": devices, "cpu_name": _norm(cpu.get("model_name"))}


def _cc(value) -> float | None:
    try:
        return round(float(value), 1)
    except (TypeError, ValueError):
        return None


def _name_hit(text: str, names: list[str]) -> bool:
    """True when a distinctive model token of ``text`` (H100, 4090, RK3588, M4 ...) occurs in a
    device or CPU name of this machine."""
    tokens = [t for t in _norm(text).split() if re.search(r"\d", t) and len(t) >= 3
              and not re.fullmatch(r"\d+(gb|gib|tb)?|\d+\.\d+", t)]
    return any(re.search(rf"(^|\s){re.escape(t)}(\s|$)", n) for t in tokens for n in names if n)


def row_matches(table_id: str, row: dict, keys: dict) -> bool:
    """Whether ``row`` of table ``table_id`` describes hardware of the machine in ``keys``."""
    devs = keys.get("devices", [])
    if table_id == "nvidia_compute_capability":
        return any(d["vendor"] == "nvidia" and _cc(d["compute_capability"]) == _cc(row.get("compute_capability"))
                   for d in devs if d["compute_capability"] is not None)
    if table_id in ("cuda_toolkit_support", "software_min_compute_capability"):
        ccs = [_cc(d["compute_capability"]) for d in devs
               if d["vendor"] == "nvidia" and _cc(d["compute_capability"]) is not None]
        floor = _cc(row.get("min_compute_capability"))
        return floor is not None and any(cc >= floor for cc in ccs)
    if table_id == "rocm_gfx_targets":
        return any(d["gfx_target"] and d["gfx_target"] == row.get("gfx_target") for d in devs)
    if table_id == "tpu_generations":
        pid = (row.get("pci_id") or "").lower()
        return bool(pid) and any(d["pci_id"] == pid for d in devs)
    if table_id == "coral_edge_tpu":
        ids = {(row.get("usb_id") or "").lower(), (row.get("pci_id") or "").lower()} - {""}
        if ids:
            return any(d["usb_id"] in ids or d["pci_id"] in ids for d in devs)
        return any(d["family"] == "coral-edgetpu" for d in devs)
    if table_id == "npu_linux_interfaces":
        return any(d["kind"] == "npu" and d["driver"] and d["driver"] == row.get("driver") for d in devs)
    ids = {str(i).lower() for i in row.get("pci_ids") or []}
    if ids and any(d["pci_id"] in ids or d["usb_id"] in ids for d in devs):
        return True
    names = [d["name"] for d in devs] + [keys.get("cpu_name") or ""]
    return _name_hit(row.get("device") or row.get("name") or row.get("products") or "", names)
