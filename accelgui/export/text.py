"""Text: a compact human summary for a terminal.

Every value passes through :func:`common.clean`, so a DMI string or device name holding
terminal escape sequences, bell characters or bidi overrides prints as plain text.
"""

from __future__ import annotations

from accelgui.export import benchmarks as EB
from accelgui.export import common as C
from accelgui.export.advice import goal_line, start_rows
from accelgui.l10n import field_text


def _join(parts, sep=" · ") -> str:
    return sep.join(p for p in parts if p)


def _wrap(prefix: str, items: list[str], width: int = 100, indent: int = 11) -> list[str]:
    """Lay a list of short items out after a prefix, wrapped on word boundaries."""
    lines, line = [], prefix
    for item in items:
        candidate = f"{line}{item}" if line.endswith(": ") or line == prefix else f"{line}, {item}"
        if len(candidate) > width and line != prefix:
            lines.append(line + ",")
            line = " " * indent + item
        else:
            line = candidate
    lines.append(line)
    return lines


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def render(report, lang: str = "en") -> str:
    L = lambda k, **f: C.label(k, lang, **f)  # noqa: E731
    U = lambda v: C.or_unknown(v, lang)  # noqa: E731
    p, c, m = report.platform, report.cpu, report.memory
    out: list[str] = []

    def head(key: str) -> str:
        return f"{L(key)}:"

    out.append(f"{L('title')} — accelgui {C.label_text(report.accelgui_version)}, "
               f"{C.label_text(report.created)} (schema {C.label_text(report.schema_version)})")
    if report.sysroot and report.sysroot != "/":
        out.append(f"{L('sysroot')}: {C.clean(report.sysroot)}")

    # platform
    system = C.dmi_text(p.dmi, "sys_vendor", "product_name")
    cloud = p.cloud if isinstance(p.cloud, dict) else None
    virt = _join([C.label_text(p.virtualization), C.label_text(p.container),
                  _join([C.label_text(cloud.get("provider")), C.label_text(cloud.get("instance_type"))], " ")
                  if cloud else ""], ", ")
    out.append(f"{head('platform')} " + _join([
        U(p.os_release or p.os), f"{L('kernel')} {U(p.kernel)}", U(p.machine),
        f"{L('hostname')}: {C.hostname_text(report, lang)}" if p.hostname or C.is_redacted(report) else "",
        system, virt]))
    if C.is_redacted(report):
        out.append(f"{L('redaction')}: {L('redaction_done')}")

    # cpu
    cpu_line = _join([C.label_text(c.model_name) or L("unknown"), C.label_text(c.microarchitecture),
                      C.cpu_topology(c, lang),
                      f"{C.fmt_num(c.max_mhz)} MHz" if c.max_mhz else ""])
    out.append(f"{head('cpu')} {cpu_line}")
    feats = C.key_features(c)
    if feats:
        out.append(f"  {L('features')}: " + " ".join(C.label_text(f) for f in feats))
    caches = C.cache_text(c)
    if caches:
        out.append(f"  {L('caches')}: {caches}")

    # memory
    out.append(f"{head('memory')} " + _join([
        f"{C.fmt_bytes(m.total_bytes, lang)} {L('total').lower()}",
        f"{C.fmt_bytes(m.available_bytes, lang)} {L('available').lower()}",
        f"{m.numa_nodes} {L('numa_nodes')}" if m.numa_nodes else ""]))

    # devices
    out.append(f"{head('devices')} {len(report.devices)}" if report.devices
               else f"{head('devices')} {L('no_devices')}")
    for i, d in enumerate(report.devices):
        facts = C.device_highlights(d, lang)
        where = _join([C.label_text(d.address), C.label_text(d.pci_id or d.usb_id)], " ")
        line = (f"  [{i}] {C.word(d.kind, lang)}{' (' + L('integrated') + ')' if d.integrated else ''} "
                f"{C.label_text(d.vendor) or L('unknown')} {C.label_text(d.name) or L('unknown')}"
                + (f" @ {where}" if where else "")
                + (f" ({', '.join(facts)})" if facts else "")
                + (f", {L('driver').lower()} {C.label_text(d.driver)}" if d.driver else "")
                + f" — {C.word(d.readiness, lang)}")
        out.append(line)
        if d.readiness != "ready":
            why, fix = field_text(d, "readiness_reason", lang), field_text(d, "fix", lang)
            if why:
                out.append(f"      {L('reason')}: {C.clean(why)}")
            if fix:
                out.append(f"      {L('fix')}: {C.clean(fix)}")

    # software
    sw = report.software
    out.append(f"{head('software')}")
    if sw.packages:
        out.extend(_wrap(f"  {L('packages')}: ",
                         [f"{C.label_text(k)} {C.clean(v)}" for k, v in sorted(sw.packages.items())]))
    if sw.toolkits:
        out.extend(_wrap(f"  {L('toolkits')}: ",
                         [f"{C.label_text(k)} {C.clean(v) or L('unknown')}" for k, v in sorted(sw.toolkits.items())
                          if v is not None]
                         or [L("none")]))
    if sw.providers:
        out.extend(_wrap(f"  {L('providers')}: ", [C.label_text(x) for x in sw.providers]))
    if not (sw.packages or sw.toolkits or sw.providers):
        out[-1] += f" {L('none')}"

    # benchmarks
    b = report.benchmarks
    if isinstance(b, dict) and b:
        out.append(head("benchmarks"))
        out.extend(EB.text_lines(report, lang))   # headline figures and notices

    # where to start (as the other formats: before the routes), then the routes: a compact
    # table (route, verdict, first reason), the first step under each
    first = start_rows(report, lang)          # the report's advice (accelgui.export.advice)
    goal = goal_line(report, lang)
    if first or goal:
        out.append(head("start_here"))
        if goal:
            out.append(f"  {C.clean(goal)}")
        for i, (step, route, why) in enumerate(first, 1):
            out.append(f"  {i}. {_cut(C.clean(step), 80)} ({C.clean(route)})")
            if why:
                out.append(f"     {_cut(C.clean(why), 110)}")
    if report.routes:
        out.append(head("routes"))
        rows = [(_cut(C.route_title(r, lang), 40), C.word(r.status, lang), C.first_reason_text(r, lang),
                 C.first_step_text(r, lang)) for r in report.routes]
        w1 = max(len(L("route")), *(len(r[0]) for r in rows))
        w2 = max(len(L("verdict")), *(len(r[1]) for r in rows))
        out.append(f"  {L('route'):<{w1}}  {L('verdict'):<{w2}}  {L('first_reason')} / {L('first_step')}")
        for title, verdict, reason, step in rows:
            out.append(f"  {title:<{w1}}  {verdict:<{w2}}  {_cut(reason, 110)}")
            if step:
                out.append(f"  {'':<{w1}}  {'':<{w2}}  \u2192 {_cut(step, 110)}")

    # estimates
    if isinstance(report.estimates, dict) and report.estimates:
        out.append(head("estimates"))
        summary = report.estimates.get("summary")
        if isinstance(summary, list) and summary:
            for line in summary:
                out.append(f"  - {C.clean(C.tr(line, lang))}")
            if report.estimates.get("basis"):
                out.append(f"  ({L('basis')}: {C.word(report.estimates.get('basis'), lang)})")
        else:
            kv, tables = C.estimate_tables(report.estimates, lang)
            for k, v in kv:
                out.append(f"  {k}: {v}")
            for t in tables:
                out.append(f"  {t.title}:")
                for row in t.rows[:8]:
                    out.append("    " + ", ".join(f"{h}={v}" for h, v in zip(t.headers or [], row) if v))

    # probes
    counts = C.probe_counts(report)
    if report.probes:
        out.append(f"{head('probes')} {L('probes_summary', **counts)}")
        for pr in report.probes:
            if pr.status in ("error", "timeout"):
                out.append(f"  {C.word(pr.status, lang)} {C.label_text(pr.name)}: {C.clean(pr.error)}")
            for w in getattr(pr, "warnings", None) or []:      # inputs the probe could not use
                if isinstance(w, dict):
                    out.append(f"  {C.label_text(pr.name)}: {C.clean(field_text(w, 'reason', lang))}")
        unsure = [pr.name for pr in report.probes if pr.name in ("pci", "usb", "accel", "soc")
                  and pr.status in ("partial", "error", "timeout")]
        if unsure and not report.devices:       # "no accelerator" cannot be claimed then
            from accelgui.l10n import tr

            out.append("  " + tr("safety.devices.unsure", lang, probes=", ".join(unsure)))
    return "\n".join(out) + "\n"
