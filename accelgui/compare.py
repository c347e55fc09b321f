"""What differs between two saved reports: ``accelgui --compare A.json B.json``.

Platform and CPU facts, memory, devices (matched by address + PCI/USB id: added, removed,
changed, readiness changes), software versions, every numeric benchmark figure with its %
change, route verdicts and probe outcomes. Reports of another major schema version are
refused by :func:`accelgui.report.load_report` with an error naming the file and the version.
"""

from __future__ import annotations

import json

from accelgui import benchmarks
from accelgui.export import common as C
from accelgui.report import Report, device_text, load_report

FORMATS = ("text", "markdown", "html", "json")

PLATFORM_FIELDS = ("os", "os_release", "kernel", "machine", "hostname", "virtualization", "container")
CPU_FIELDS = ("model_name", "vendor", "arch", "microarchitecture", "logical_cpus", "sockets",
              "cores_per_socket", "threads_per_core", "numa_nodes", "max_mhz", "hypervisor_vendor")
DEVICE_FIELDS = ("kind", "vendor", "name", "bus", "driver", "integrated", "readiness", "fix")


def _change(section: str, item: str, a, b, key: str | None = None) -> dict:
    kind = "added" if a is None else "removed" if b is None else "changed"
    pct = None
    if kind == "changed" and C.num(a) is not None and C.num(b) is not None and a:
        pct = round((b - a) / abs(a) * 100, 2)
    return {"section": section, "item": item, "change": kind, "a": a, "b": b, "pct_change": pct,
            "key": key or item.rsplit(".", 1)[-1]}


def _diff_scalars(section: str, a: dict, b: dict, fields, prefix: str = "") -> list[dict]:
    out = []
    for f in fields:
        va, vb = a.get(f), b.get(f)
        if va != vb:
            out.append(_change(section, prefix + f, va, vb, key=f))
    return out


def _device_key(d: dict, seen: dict) -> str:
    ident = d.get("pci_id") or d.get("usb_id") or ""
    if d.get("address"):
        base = f"{d.get('address')} {ident}".strip()
    else:
        base = f"{d.get('kind')}:{d.get('vendor')}:{d.get('name')}"
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base} #{seen[base]}"


def _device_label(d: dict) -> str:
    name = C.clean(d.get("name")) or C.clean(d.get("pci_id")) or "device"
    return f"{name} @ {C.clean(d.get('address'))}" if d.get("address") else name


def compare(a: Report, b: Report, lang: str = "en") -> list[dict]:
    """The differences from ``a`` to ``b`` as change records
    {section, item, change: added|removed|changed, a, b, pct_change, key}; a device's fix
    is given in ``lang`` (its ``fix_zh`` twin for Chinese), compared in English."""
    da, db = a.to_dict(), b.to_dict()
    changes: list[dict] = []
    if da["schema_version"] != db["schema_version"]:
        changes.append(_change("report", "schema_version", da["schema_version"], db["schema_version"]))

    pa, pb = da["platform"], db["platform"]
    changes += _diff_scalars("platform", pa, pb, PLATFORM_FIELDS)
    ca, cb = pa.get("cloud") or {}, pb.get("cloud") or {}
    changes += _diff_scalars("platform", ca, cb, ("provider", "instance_type"), prefix="cloud.")
    changes += _diff_scalars("platform", pa.get("dmi") or {}, pb.get("dmi") or {},
                             ("sys_vendor", "product_name", "board_name", "bios_version"), prefix="dmi.")

    changes += _diff_scalars("cpu", da["cpu"], db["cpu"], CPU_FIELDS)
    fa, fb = set(da["cpu"].get("features") or []), set(db["cpu"].get("features") or [])
    for f in sorted(fb - fa):
        changes.append(_change("cpu", f"feature {f}", None, f))
    for f in sorted(fa - fb):
        changes.append(_change("cpu", f"feature {f}", f, None))
    for level in sorted(set(da["cpu"].get("caches") or {}) | set(db["cpu"].get("caches") or {})):
        sa = ((da["cpu"].get("caches") or {}).get(level) or {}).get("size_bytes")
        sb = ((db["cpu"].get("caches") or {}).get(level) or {}).get("size_bytes")
        if sa != sb:
            changes.append(_change("cpu", f"cache {level}", sa, sb, key="size_bytes"))

    changes += _diff_scalars("memory", da["memory"], db["memory"], ("total_bytes", "numa_nodes"))

    seen_a: dict = {}
    seen_b: dict = {}
    devs_a = {_device_key(d, seen_a): d for d in da["devices"]}
    devs_b = {_device_key(d, seen_b): d for d in db["devices"]}
    for key in list(devs_a) + [k for k in devs_b if k not in devs_a]:
        xa, xb = devs_a.get(key), devs_b.get(key)
        if xa is None:
            changes.append(_change("devices", _device_label(xb),
                                   None, f"{C.clean(xb.get('kind'))}, {C.clean(xb.get('readiness'))}"))
        elif xb is None:
            changes.append(_change("devices", _device_label(xa),
                                   f"{C.clean(xa.get('kind'))}, {C.clean(xa.get('readiness'))}", None))
        else:
            label = _device_label(xb)
            for change in _diff_scalars("devices", xa, xb, DEVICE_FIELDS, prefix=f"{label}: "):
                if change["key"] == "fix":
                    change["a"], change["b"] = device_text(xa, "fix", lang), device_text(xb, "fix", lang)
                changes.append(change)
            ta, tb = xa.get("details") or {}, xb.get("details") or {}
            for k in list(ta) + [k for k in tb if k not in ta]:
                va, vb = ta.get(k), tb.get(k)
                if va != vb and not isinstance(va, (dict, list)) and not isinstance(vb, (dict, list)):
                    changes.append(_change("devices", f"{label}: {k}", va, vb, key=k))

    sa, sb = da["software"], db["software"]
    for group in ("packages", "toolkits", "compilers"):
        ga, gb = sa.get(group) or {}, sb.get(group) or {}
        for k in sorted(set(ga) | set(gb)):
            va, vb = ga.get(k), gb.get(k)
            if va != vb and k in ga and k in gb:
                changes.append(_change("software", f"{group}: {k}", va, vb, key="version"))
            elif k not in ga:
                changes.append(_change("software", f"{group}: {k}", None, vb if vb is not None else "?"))
            elif k not in gb:
                changes.append(_change("software", f"{group}: {k}", va if va is not None else "?", None))
    pa_, pb_ = set(sa.get("providers") or []), set(sb.get("providers") or [])
    for p in sorted(pb_ - pa_):
        changes.append(_change("software", f"provider {p}", None, p))
    for p in sorted(pa_ - pb_):
        changes.append(_change("software", f"provider {p}", p, None))

    # through the benchmark reader: an older report's figures compare under today's names
    ba, bb = ({k: v for k, v in C.numeric_leaves(benchmarks.read(d) or {})
               if not k.startswith(("spread.", "contract"))} for d in (da, db))
    for k in list(ba) + [k for k in bb if k not in ba]:
        if ba.get(k) != bb.get(k):
            changes.append(_change("benchmarks", k, ba.get(k), bb.get(k), key=k.rsplit(".", 1)[-1]))

    for section, key, field in (("routes", "id", "status"), ("probes", "name", "status")):
        xa = {x[key]: x for x in da[section]}
        xb = {x[key]: x for x in db[section]}
        for name in list(xa) + [k for k in xb if k not in xa]:
            va, vb = xa.get(name, {}).get(field), xb.get(name, {}).get(field)
            if va != vb:
                changes.append(_change(section, name, va, vb, key=field))
    return changes


# --------------------------------------------------------------------------- rendering

def format_side(change: dict, side: str, lang: str) -> str:
    """One side ("a" or "b") of a change, formatted for people (units, translated words)."""
    v = change[side]
    if v is None:
        return ""
    if change["key"] in ("readiness", "status") and isinstance(v, str):
        return C.word(v, lang)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return C.fmt_value(change["key"], v, lang)
    return C.fmt_value("", v, lang) if isinstance(v, bool) else C.clean(v)


def _what(change: dict, lang: str) -> str:
    text = C.label(change["change"], lang)
    if change["pct_change"] is not None:
        text += f" {C.fmt_change(change['pct_change'])}"
    return text


def _meta(report: Report, path: str) -> dict:
    return {"file": path, "created": report.created, "hostname": report.platform.hostname,
            "schema_version": report.schema_version, "accelgui_version": report.accelgui_version}


def render(changes: list[dict], meta_a: dict, meta_b: dict, fmt: str = "text", lang: str = "en") -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown compare format {fmt!r}; choose one of {', '.join(FORMATS)}")
    L = lambda k, **f: C.label(k, lang, **f)  # noqa: E731
    summary = L("no_differences") if not changes else L("n_differences", n=len(changes))
    if fmt == "json":
        return json.dumps({"a": meta_a, "b": meta_b, "identical": not changes,
                           "differences": [{k: v for k, v in c.items() if k != "key"} for c in changes]},
                          indent=2, ensure_ascii=False) + "\n"

    def who(meta):
        host = C.clean(meta.get("hostname"))
        return f"{C.clean(meta['file'])} ({C.clean(meta.get('created'))}{', ' + host if host else ''})"

    headers = [L("section"), L("item"), "A", "B", L("change")]
    rows = [[c["section"], C.clean(c["item"]), format_side(c, "a", lang), format_side(c, "b", lang), _what(c, lang)]
            for c in changes]

    if fmt == "text":
        out = [f"A: {who(meta_a)}", f"B: {who(meta_b)}", summary]
        section = None
        for c, row in zip(changes, rows):
            if c["section"] != section:
                section = c["section"]
                out.append(f"[{section}]")
            mark = {"added": "+", "removed": "-", "changed": "~"}[c["change"]]
            if c["change"] == "changed":
                pct = f" ({C.fmt_change(c['pct_change'])})" if c["pct_change"] is not None else ""
                out.append(f"  {mark} {row[1]}: {row[2]} -> {row[3]}{pct}")
            else:
                out.append(f"  {mark} {row[1]}: {row[3] or row[2]} ({L(c['change'])})")
        return "\n".join(out) + "\n"

    if fmt == "markdown":
        from accelgui.export.markdown import table

        out = [f"# {C.esc_md(L('compare'))}", "", f"- A: {C.esc_md(who(meta_a))}",
               f"- B: {C.esc_md(who(meta_b))}", "", f"**{C.esc_md(summary)}**"]
        if rows:
            out += [""] + table(headers, rows)
        return "\n".join(out) + "\n"

    from accelgui.export import html as H  # fmt == "html"

    t = C.Table("compare", "", headers, rows)
    body = (f"<h1>{H.E(L('compare'))}</h1><p class=\"meta\">A: {H.E(who(meta_a))}<br>"
            f"B: {H.E(who(meta_b))}</p><p><b>{H.E(summary)}</b></p>" + (H.table_html(t, lang) if rows else ""))
    return H.page(L("compare"), body, lang)


def compare_files(path_a: str, path_b: str, fmt: str = "text", lang: str = "en") -> str:
    """Load two report files (ReportError names the file that cannot be used) and render
    their differences."""
    a, b = load_report(path_a), load_report(path_b)
    return render(compare(a, b, lang), _meta(a, path_a), _meta(b, path_b), fmt, lang)
