"""The report as a list of :class:`Table` (key/value tables and column tables) with plain,
cleaned, unescaped cells, in English or Chinese; markdown, html and pdf render the same
sections so the formats never disagree."""

from __future__ import annotations

from accelgui import benchmarks as bench_model
from accelgui import l10n
from accelgui.export import benchmarks
from accelgui.export.common import num
from accelgui.export.estimates import estimate_sections
from accelgui.export.facts import (cache_text, cpu_topology, device_highlights, device_memory,
                                   dmi_text, hostname_text, is_redacted, key_features)
from accelgui.export.labels import label, probe_label, toolkit_label, vendor_label, word
from accelgui.export.numbers import fmt_bytes, fmt_num, or_unknown
from accelgui.export.advice import goal_line, start_rows
from accelgui.export.route_text import first_reason_text, first_step_text, route_title
from accelgui.export.sanitize import clean, label_text
from accelgui.export.table import Table


def probe_counts(report) -> dict:
    counts = {"ok": 0, "absent": 0, "error": 0, "timeout": 0}
    for p in report.probes:
        counts[p.status] = counts.get(p.status, 0) + 1
    return counts


def cpu_clock_text(report, lang: str = "en") -> str:
    """The CPU's clock range from the probe, else the clock the benchmark measured, else ""."""
    c = report.cpu
    if c.max_mhz:
        return label("clock_range", lang, max=fmt_num(c.max_mhz), min=fmt_num(c.min_mhz)) if c.min_mhz \
            else label("clock_max", lang, max=fmt_num(c.max_mhz))
    measured = bench_model.figure(benchmarks.section(report), "cpu.theoretical.clock_mhz")
    return label("clock_measured", lang, mhz=fmt_num(measured)) if measured else ""


def build_sections(report, lang: str = "en") -> list[Table]:
    L = lambda k, **f: label(k, lang, **f)  # noqa: E731
    U = lambda v: or_unknown(v, lang)  # noqa: E731
    p, c, m = report.platform, report.cpu, report.memory
    sections: list[Table] = []

    sections.append(Table("summary", L("summary"), None, [
        [L("created"), U(report.created)],
        [L("version"), U(report.accelgui_version)],
        [L("schema"), U(report.schema_version)],
        [L("sysroot"), U(report.sysroot)],
    ] + ([[L("redaction"), L("redaction_done")]] if is_redacted(report) else [])))

    cloud = p.cloud if isinstance(p.cloud, dict) else None
    cloud_text = " ".join(x for x in (label_text(cloud.get("provider")), label_text(cloud.get("instance_type")))
                          if x) if cloud else ""
    plat = [
        [L("os"), U(p.os)], [L("os_release"), U(p.os_release)], [L("kernel"), U(p.kernel)],
        [L("machine"), U(p.machine)], [L("hostname"), hostname_text(report, lang)],
        [L("virtualization"), label_text(p.virtualization) or L("none")],
        [L("container"), label_text(p.container) or L("none")],
        [L("cloud"), cloud_text or L("none")],
    ]
    system = dmi_text(p.dmi, "sys_vendor", "product_name", "product_version")
    if system:
        plat.append([L("system"), system])
    board = dmi_text(p.dmi, "board_vendor", "board_name")
    if board:
        plat.append([L("board"), board])
    bios = dmi_text(p.dmi, "bios_vendor", "bios_version", "bios_date")
    if bios:
        plat.append([L("bios"), bios])
    from accelgui.probes.platforms.windows.summary import windows_rows
    plat.extend(windows_rows(getattr(p, "windows", None), lang))    # RDP session, WSL, virtual adapters
    sections.append(Table("platform", L("platform"), None, plat))

    clock = cpu_clock_text(report, lang)
    cpu_rows = [
        [L("model"), U(c.model_name)],
        [L("vendor"), " / ".join(x for x in (label_text(vendor_label(c.vendor, lang)), label_text(c.vendor_id))
                                 if x) or L("unknown")],
        [L("arch"), U(c.arch)], [L("uarch"), U(c.microarchitecture)],
        [L("topology"), cpu_topology(c, lang)],
        [L("logical_cpus"), U(c.logical_cpus)], [L("numa_nodes"), U(c.numa_nodes)],
        [L("clock"), clock or L("unknown")],
        [L("caches"), cache_text(c, lang) or L("unknown")],
        [L("features"), " ".join(label_text(f) for f in key_features(c)) or L("none")],
    ]
    if c.hypervisor_vendor:
        cpu_rows.append([L("hypervisor"), label_text(c.hypervisor_vendor)])
    sections.append(Table("cpu", L("cpu"), None, cpu_rows))

    sections.append(Table("memory", L("memory"), None, [
        [L("total"), fmt_bytes(m.total_bytes, lang)],
        [L("available"), fmt_bytes(m.available_bytes, lang)],
        [L("numa_nodes"), U(m.numa_nodes)],
    ]))

    dev_rows, dev_status = [], []
    for i, d in enumerate(report.devices):
        kind = word(d.kind, lang) + (f" ({L('integrated')})" if d.integrated else "")
        where = " ".join(x for x in (label_text(d.bus), label_text(d.address)) if x)
        ids = label_text(d.pci_id or d.usb_id)
        mem = device_memory(d)
        fix = clean(l10n.field_text(d, "fix", lang))
        why = clean(l10n.field_text(d, "readiness_reason", lang))
        remedy = f"{why} — {fix}" if why and fix else (fix or why)
        dev_rows.append([str(i), kind, label_text(vendor_label(d.vendor, lang)) or L("unknown"),
                         label_text(d.name) or L("unknown"),
                         where or L("unknown"), ids, label_text(d.driver) or L("none"),
                         fmt_bytes(mem, lang) if mem is not None else "",
                         word(d.readiness, lang), remedy,
                         ", ".join(device_highlights(d, lang)[1 if mem is not None else 0:])])
        dev_status.append(d.readiness)
    unsure = [pr.name for pr in report.probes if pr.name in ("pci", "usb", "accel", "soc")
              and pr.status in ("partial", "error", "timeout")]
    no_devices = l10n.tr("safety.devices.unsure", lang, probes=", ".join(unsure)) if unsure else L("no_devices")
    sections.append(Table("devices", L("devices"),
                          ["#", L("kind"), L("vendor"), L("name"), L("address"), L("pci_id"),
                           L("driver"), L("device_memory"), L("readiness"), L("fix"), L("details")],
                          dev_rows, note=None if dev_rows else no_devices,
                          status_col=8, status_keys=dev_status, wide_cols=[2, 5, 10]))

    sw = report.software
    sections.append(Table("software", L("software"), None, [], level=2))
    sections.append(Table("packages", L("packages"), [L("package"), L("pkg_version")],
                          [[label_text(k), clean(v) or L("unknown")] for k, v in sorted((sw.packages or {}).items())],
                          note=None if sw.packages else L("none"), level=3))
    sections.append(Table("toolkits", L("toolkits"), [L("name"), L("pkg_version")],
                          [[label_text(toolkit_label(k, lang)), clean(v) or L("unknown")]
                           for k, v in sorted((sw.toolkits or {}).items())],
                          note=None if sw.toolkits else L("none"), level=3))
    if sw.compilers:
        sections.append(Table("compilers", L("compilers"), [L("name"), L("pkg_version")],
                              [[label_text(k), clean(v if not isinstance(v, dict) else v.get("version"))
                                or L("unknown")] for k, v in sorted(sw.compilers.items())], level=3))
    sections.append(Table("providers", L("providers"), [L("name")],
                          [[label_text(x)] for x in sw.providers or []],
                          note=None if sw.providers else L("none"), level=3))

    sections.extend(benchmarks.sections(report, lang))

    first = start_rows(report, lang)          # the report's advice (accelgui.export.advice)
    goal = goal_line(report, lang)
    if first or goal:
        sections.append(Table("start_here", L("start_here"), [L("step"), L("route"), l10n.tr("advice.label.why", lang)],
                              [[clean(step), clean(route), clean(why)] for step, route, why in first],
                              note=clean(goal) if goal else None, col_widths=[36, 24, 40]))
    if report.routes:
        rrows, rstat = [], []
        for r in report.routes:      # compact: the verdict, its first reason, the first step
            rrows.append([route_title(r, lang), word(r.status, lang), first_reason_text(r, lang),
                          first_step_text(r, lang)])
            rstat.append(r.status)
        sections.append(Table("routes", L("routes"),
                              [L("route"), L("verdict"), L("first_reason"), L("first_step")],
                              rrows, status_col=1, status_keys=rstat, col_widths=[22, 14, 40, 24]))

    sections.extend(estimate_sections(report.estimates, lang))

    prow, pstat = [], []
    for pr in report.probes:
        warnings = [clean(l10n.field_text(w, "reason", lang)) for w in getattr(pr, "warnings", None) or []
                    if isinstance(w, dict)]        # inputs the probe could not use
        prow.append([label_text(probe_label(pr.name, lang)), word(pr.status, lang),
                     fmt_num(round(pr.elapsed_ms, 1)) if num(pr.elapsed_ms) is not None else "",
                     "; ".join(x for x in [clean(pr.error)] + warnings if x)])
        pstat.append(pr.status)
    counts = probe_counts(report)
    sections.append(Table("probes", L("probes"), [L("probe"), L("status"), L("elapsed"), L("error")],
                          prow, note=L("probes_summary", **counts) if prow else None,
                          status_col=1, status_keys=pstat))
    return sections
