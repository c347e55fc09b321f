"""What differs between two saved reports: ``accelgui --compare A.json B.json``.

Every difference is a change record named in words (``label``, in the reader's language) and
marked ``major`` when it changes what the machine can do: a device added, removed or changing
readiness or driver, a route verdict, a probe failing, the CPU model, the memory size, a toolkit
or runtime back end, a headline benchmark figure moving by at least :data:`BENCH_THRESHOLD_PCT`.
The faces show the major differences first and fold the rest. Reports of another major schema
version are refused by :func:`accelgui.report.load_report` with an error naming the file and the
version.
"""

from __future__ import annotations

import json

from accelgui import benchmarks, l10n
from accelgui.export import benchmarks as bench_export
from accelgui.export import common
from accelgui.export.labels import field_label, probe_label, toolkit_label
from accelgui.report import Report, device_text, load_report

FORMATS = ("text", "markdown", "html", "json")

#: a headline benchmark figure that moves less than this (in %) is run-to-run noise
BENCH_THRESHOLD_PCT = 5.0

PLATFORM_FIELDS = ("os", "os_release", "kernel", "machine", "hostname", "virtualization", "container")
CPU_FIELDS = ("model_name", "vendor", "arch", "microarchitecture", "logical_cpus", "sockets",
              "cores_per_socket", "threads_per_core", "numa_nodes", "max_mhz", "hypervisor_vendor")
DEVICE_FIELDS = ("kind", "vendor", "name", "bus", "driver", "integrated", "readiness", "fix")
#: fields whose change is a major difference
MAJOR_FIELDS = {("platform", "virtualization"), ("platform", "container"), ("platform", "machine"),
                ("platform", "cloud.provider"), ("platform", "cloud.instance_type"),
                ("cpu", "model_name"), ("cpu", "arch"), ("cpu", "logical_cpus"),
                ("memory", "total_bytes"), ("devices", "driver"), ("devices", "readiness")}
_BAD_PROBE = ("error", "timeout")


def _t(id_: str, lang: str, **params) -> str:
    return l10n.tr("compare." + id_, lang, **params)


def _change(section: str, item: str, a, b, label: str, key: str | None = None, major: bool = False,
            field: bool = False) -> dict:
    """One difference; ``field``: a field of something both reports have (a value that went
    missing is a change, not a removal)."""
    kind = "changed" if field else "added" if a is None else "removed" if b is None else "changed"
    pct = None
    if kind == "changed" and common.num(a) is not None and common.num(b) is not None and a:
        pct = round((b - a) / abs(a) * 100, 2)
    return {"section": section, "item": item, "label": label, "change": kind, "a": a, "b": b,
            "pct_change": pct, "key": key or item.rsplit(".", 1)[-1], "major": major}


def _scalars(section: str, a: dict, b: dict, fields, lang: str, prefix: str = "") -> list[dict]:
    out = []
    for f in fields:
        va, vb = a.get(f), b.get(f)
        if va != vb:
            out.append(_change(section, prefix + f, va, vb, _t(f"field.{section}.{prefix}{f}", lang), key=f,
                               major=(section, prefix + f) in MAJOR_FIELDS, field=True))
    return out


def _added_removed(section: str, a: set, b: set, label, key: str, major: bool) -> list[dict]:
    out = [_change(section, f"{key} {x}", None, x, label(x), key=key, major=major) for x in sorted(b - a)]
    return out + [_change(section, f"{key} {x}", x, None, label(x), key=key, major=major) for x in sorted(a - b)]


def _device_key(d: dict, seen: dict) -> str:
    ident = d.get("pci_id") or d.get("usb_id") or ""
    if d.get("address"):
        base = f"{d.get('address')} {ident}".strip()
    else:
        base = f"{d.get('kind')}:{d.get('vendor')}:{d.get('name')}"
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base} #{seen[base]}"


def _device_label(d: dict) -> str:
    name = common.clean(d.get("name")) or common.clean(d.get("pci_id")) or "device"
    return f"{name} @ {common.clean(d.get('address'))}" if d.get("address") else name


def _platform_cpu_memory(da: dict, db: dict, lang: str) -> list[dict]:
    pa, pb = da["platform"], db["platform"]
    out = _scalars("platform", pa, pb, PLATFORM_FIELDS, lang)
    out += _scalars("platform", pa.get("cloud") or {}, pb.get("cloud") or {}, ("provider", "instance_type"),
                    lang, prefix="cloud.")
    out += _scalars("platform", pa.get("dmi") or {}, pb.get("dmi") or {},
                    ("sys_vendor", "product_name", "board_name", "bios_version"), lang, prefix="dmi.")
    ca, cb = da["cpu"], db["cpu"]
    out += _scalars("cpu", ca, cb, CPU_FIELDS, lang)
    out += _added_removed("cpu", set(ca.get("features") or []), set(cb.get("features") or []),
                          lambda f: _t("cpu_feature", lang, name=f), "feature", False)
    caches_a, caches_b = ca.get("caches") or {}, cb.get("caches") or {}
    for level in sorted(set(caches_a) | set(caches_b)):
        sa = (caches_a.get(level) or {}).get("size_bytes")
        sb = (caches_b.get(level) or {}).get("size_bytes")
        if sa != sb:
            out.append(_change("cpu", f"cache {level}", sa, sb, _t("cache", lang, level=level.upper()),
                               key="size_bytes"))
    return out + _scalars("memory", da["memory"], db["memory"], ("total_bytes", "numa_nodes"), lang)


def _one_device(xa: dict, xb: dict, lang: str) -> list[dict]:
    label = _device_label(xb)
    out = []
    for f in DEVICE_FIELDS:
        if xa.get(f) != xb.get(f):
            a, b = (device_text(xa, f, lang), device_text(xb, f, lang)) if f == "fix" else (xa.get(f), xb.get(f))
            out.append(_change("devices", f"{label}: {f}", a, b, f"{label}: {field_label(f, lang)}", key=f,
                               major=("devices", f) in MAJOR_FIELDS, field=True))
    ta, tb = xa.get("details") or {}, xb.get("details") or {}
    for k in list(ta) + [k for k in tb if k not in ta]:
        va, vb = ta.get(k), tb.get(k)
        if va != vb and not isinstance(va, (dict, list)) and not isinstance(vb, (dict, list)) \
                and not k.endswith("_msg"):
            out.append(_change("devices", f"{label}: {k}", va, vb, f"{label}: {field_label(k, lang)}", key=k,
                               field=True))
    return out


def _devices(da: dict, db: dict, lang: str) -> list[dict]:
    seen_a: dict = {}
    seen_b: dict = {}
    devs_a = {_device_key(d, seen_a): d for d in da["devices"]}
    devs_b = {_device_key(d, seen_b): d for d in db["devices"]}
    out = []
    for key in list(devs_a) + [k for k in devs_b if k not in devs_a]:
        xa, xb = devs_a.get(key), devs_b.get(key)
        if xa is None or xb is None:
            d = xb if xa is None else xa
            text = f"{common.word(d.get('kind'), lang)}, {common.word(d.get('readiness'), lang)}"
            out.append(_change("devices", _device_label(d), None if xa is None else text,
                               text if xa is None else None, _device_label(d), key="device", major=True))
        else:
            out += _one_device(xa, xb, lang)
    return out


def _software(da: dict, db: dict, lang: str) -> list[dict]:
    sa, sb = da["software"], db["software"]
    out = []
    for group in ("packages", "toolkits", "compilers"):
        ga, gb = sa.get(group) or {}, sb.get(group) or {}
        for k in sorted(set(ga) | set(gb)):
            va, vb = ga.get(k), gb.get(k)
            if k in ga and k in gb and va == vb:
                continue
            va = None if k not in ga else (va if va is not None else "?")
            vb = None if k not in gb else (vb if vb is not None else "?")
            name = toolkit_label(k, lang) if group == "toolkits" else k
            out.append(_change("software", f"{group}: {k}", va, vb, _t(f"software.{group}", lang, name=name),
                               key="version", major=group == "toolkits"))
    return out + _added_removed("software", set(sa.get("providers") or []), set(sb.get("providers") or []),
                                lambda p: _t("software.provider", lang, name=p), "provider", True)


def _benchmarks(da: dict, db: dict, lang: str) -> list[dict]:
    """The headline figures (median of the repeats, as every face shows them), then every other
    figure the Benchmarks page names in words, through the benchmark reader so an older
    report's figures compare under today's names."""
    rows_a, rows_b = ({r["key"]: r for r in benchmarks.headline(d)} for d in (da, db))
    out = []
    for key in list(rows_a) + [k for k in rows_b if k not in rows_a]:
        ra, rb = rows_a.get(key), rows_b.get(key)
        va, vb = (ra or {}).get("value"), (rb or {}).get("value")
        if va == vb:
            continue
        row = rb or ra
        change = _change("benchmarks", key, va, vb, l10n.render(row["label"], lang), key=key.rsplit(".", 1)[-1])
        change["unit"] = row["unit"]
        pct = change["pct_change"]
        change["major"] = pct is None or abs(pct) >= BENCH_THRESHOLD_PCT
        out.append(change)
    return out + _other_figures(da, db, set(rows_a) | set(rows_b), lang)


def _other_figures(da: dict, db: dict, shown: set, lang: str) -> list[dict]:
    words = {}
    for d in (da, db):
        for _group, rows in bench_export.figure_groups(d, lang):
            words.update({r["key"]: r for r in rows if r["key"] not in shown})
    sa, sb = bench_export.section(da), bench_export.section(db)
    out = []
    for key, row in words.items():
        qa, qb = (benchmarks.quantity(s, key) if "/" not in key else None for s in (sa, sb))
        va, vb = (qa or {}).get("value"), (qb or {}).get("value")
        if "/" in key or va == vb or (va is None and vb is None):
            continue
        change = _change("benchmarks", key, va, vb, row["quantity"], key=key.rsplit(".", 1)[-1])
        unit = row["value"].rsplit(" ", 1)[-1] if row["value"][:1].isdigit() and " " in row["value"] else ""
        if unit in ("GB/s", "GFLOP/s", "ns", "MHz", "s"):
            change["unit"] = unit
        out.append(change)
    return out


def _routes_probes(da: dict, db: dict, lang: str, titles: dict) -> list[dict]:
    out = []
    for section, key in (("routes", "id"), ("probes", "name")):
        xa = {x[key]: x for x in da[section]}
        xb = {x[key]: x for x in db[section]}
        for name in list(xa) + [k for k in xb if k not in xa]:
            va, vb = xa.get(name, {}).get("status"), xb.get(name, {}).get("status")
            if va == vb:
                continue
            label = (titles.get(name) or name) if section == "routes" else \
                _t("probe", lang, name=probe_label(name, lang))
            major = section == "routes" or va in _BAD_PROBE or vb in _BAD_PROBE
            out.append(_change(section, name, va, vb, label, key="status", major=major))
    return out


def compare(a: Report, b: Report, lang: str = "en") -> list[dict]:
    """The differences from ``a`` to ``b`` as change records {section, item, label, change:
    added|removed|changed, a, b, pct_change, key, major}: ``item`` is the report's own name of
    the field (stable, for scripts), ``label`` the same in words in ``lang``; a device's fix is
    given in ``lang`` (its Chinese twin for Chinese), compared in English."""
    da, db = a.to_dict(), b.to_dict()
    changes: list[dict] = []
    if da["schema_version"] != db["schema_version"]:
        changes.append(_change("report", "schema_version", da["schema_version"], db["schema_version"],
                               common.label("schema", lang)))
    for part in (_platform_cpu_memory, _devices, _software, _benchmarks):
        changes += part(da, db, lang)
    titles = {r.id: common.route_title(r, lang) for r in list(a.routes) + list(b.routes)}
    return changes + _routes_probes(da, db, lang, titles)


# --------------------------------------------------------------------------- rendering

def format_side(change: dict, side: str, lang: str) -> str:
    """One side ("a" or "b") of a change, formatted for people (units, translated words)."""
    v = change[side]
    if v is None:
        return "\u2014" if change["change"] == "changed" else ""
    if change["key"] in ("readiness", "status") and isinstance(v, str):
        return common.word(v, lang)
    if change.get("unit") and isinstance(v, (int, float)):
        return f"{common.fmt_num(v)} {change['unit']}"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return common.fmt_value(change["key"], v, lang)
    return common.fmt_value("", v, lang) if isinstance(v, bool) else common.clean(v)


def change_text(change: dict, lang: str) -> str:
    """"changed +5 %", "only in B", "only in A"."""
    if change["change"] != "changed":
        return _t("only_in_b" if change["change"] == "added" else "only_in_a", lang)
    if change["pct_change"] is not None:
        return common.fmt_change(change["pct_change"])
    return common.label("changed", lang)


def sections(changes: list[dict], lang: str = "en") -> list:
    """The comparison as section tables: the major differences, then the others (folded by
    the faces that can fold), each in words."""
    headers = [_t("col.what", lang), "A", "B", common.label("change", lang)]

    def rows(items):
        return [[common.clean(c["label"]), format_side(c, "a", lang), format_side(c, "b", lang), change_text(c, lang)]
                for c in items]
    major = [c for c in changes if c["major"]]
    minor = [c for c in changes if not c["major"]]
    out = [common.Table("compare_major", _t("heading.major", lang, n=len(major)), headers, rows(major),
                   note=None if major else _t("none_major", lang), col_widths=[40, 22, 22, 16])]
    if minor:
        counts: dict[str, int] = {}
        for c in minor:
            counts[c["section"]] = counts.get(c["section"], 0) + 1
        note = ", ".join(f"{common.label(s, lang) if s != 'report' else s} {n}" for s, n in counts.items())
        out.append(common.Table("compare_minor", _t("heading.minor", lang, n=len(minor)), headers, rows(minor),
                           note=note, col_widths=[40, 22, 22, 16], in_summary=False))
    return out


def _meta(report: Report, path: str) -> dict:
    return {"file": path, "created": report.created, "hostname": report.platform.hostname,
            "schema_version": report.schema_version, "accelgui_version": report.accelgui_version}


def _who(meta: dict) -> str:
    host = common.clean(meta.get("hostname"))
    return f"{common.clean(meta['file'])} ({common.clean(meta.get('created'))}{', ' + host if host else ''})"


def render(changes: list[dict], meta_a: dict, meta_b: dict, fmt: str = "text", lang: str = "en",
           all_rows: bool = False) -> str:
    """The comparison in ``fmt``; text lists the major differences and counts the others
    (``all_rows`` lists them too), Markdown and HTML fold them."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown compare format {fmt!r}; choose one of {', '.join(FORMATS)}")
    summary = common.label("no_differences", lang) if not changes else \
        _t("summary", lang, n=len(changes), major=sum(c["major"] for c in changes))
    if fmt == "json":
        return json.dumps({"a": meta_a, "b": meta_b, "identical": not changes,
                           "differences": [{k: v for k, v in c.items() if k != "key"} for c in changes]},
                          indent=2, ensure_ascii=False) + "\n"
    tables = sections(changes, lang) if changes else []
    if fmt == "text":
        from accelgui.export.text import render_tables

        lines = [f"A: {_who(meta_a)}", f"B: {_who(meta_b)}", summary]
        lines += render_tables([t for t in tables if all_rows or t.in_summary])
        if not all_rows and any(not t.in_summary for t in tables):
            lines.append(_t("more_hint", lang))
        return "\n".join(lines) + "\n"
    if fmt == "markdown":
        from accelgui.export.markdown import render_tables as md_tables

        out = [f"# {common.esc_md(common.label('compare', lang))}", "", f"- A: {common.esc_md(_who(meta_a))}",
               f"- B: {common.esc_md(_who(meta_b))}", "", f"**{common.esc_md(summary)}**"]
        for t in tables:
            body = md_tables([t], lang)
            out += body if t.in_summary else ["", "<details>", f"<summary>{common.esc_md(t.title)}</summary>",
                                              *body[2:], "", "</details>"]
        return "\n".join(out) + "\n"
    from accelgui.export import html  # fmt == "html"

    parts = [f"<h1>{html.E(common.label('compare', lang))}</h1><p class=\"meta\">A: {html.E(_who(meta_a))}<br>"
             f"B: {html.E(_who(meta_b))}</p><p><b>{html.E(summary)}</b></p>"]
    for t in tables:
        inner = (f"<h2>{html.E(t.title)}</h2>" + (html.table_html(t, lang) if t.rows else "")
                 + (f"<p class=\"meta\">{html.E(t.note)}</p>" if t.note else ""))
        parts.append(inner if t.in_summary else f"<details><summary>{html.E(t.title)}</summary>{inner}</details>")
    return html.page(common.label("compare", lang), "".join(parts), lang)


def compare_files(path_a: str, path_b: str, fmt: str = "text", lang: str = "en", all_rows: bool = False) -> str:
    """Load two report files (ReportError names the file that cannot be used) and render
    their differences."""
    a, b = load_report(path_a), load_report(path_b)
    return render(compare(a, b, lang), _meta(a, path_a), _meta(b, path_b), fmt, lang, all_rows)
