"""Hardware: the machine as pages people read (summary, processor, memory, one page per
accelerator, software, probes), each a list of labelled groups with human labels and units in
the chosen language (the ``app.hw.*`` ids of the catalogue), like hardinfo2's device pages.

:func:`hardware_pages` builds the pages from a report without Qt; the view draws a page list
on the left and the selected page on the right. Filtering searches every page and keeps the
structure: a match shows under its page and group, a matching group shows all its rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton,
                               QSplitter, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from accelgui import l10n
from accelgui.export import common
from accelgui.export.labels import bus_label, field_label, known, probe_label, toolkit_label
from accelgui.gui.views.common import (PROBE_COLOURS, READINESS_COLOURS, ViewState,
                                       check_value_text, heading, muted, para, probe_message,
                                       source_text)
from accelgui.probes import families, ids

LADDER_STEPS = ("present", "driver", "node", "access", "runtime")
#: readiness_checks keys (the probes' older form) -> ladder step
_CHECK_STEPS = {"driver": "driver", "device_node": "node", "access": "access", "runtime": "runtime"}
#: where a readiness word stops the ladder (derived ladders of older reports)
_READINESS_STOP = {"driver-missing": "driver", "no-access": "access", "runtime-missing": "runtime"}
#: how buses spell themselves (report values are lower-case ids; vendors: probes/data/vendors.json)
_SHOWN_ELSEWHERE = {"readiness_checks", "ladder", "index", "compute_capability_str"}


@dataclass
class Row:
    label: str
    value: str
    key: str = ""                        # the report field, for the filter only (never shown)
    colour: str | None = None


@dataclass
class Group:
    title: str
    rows: list = field(default_factory=list)


@dataclass
class Page:
    id: str
    title: str
    groups: list = field(default_factory=list)
    parent: str | None = None            # "devices" for an accelerator's page
    colour: str | None = None


def _t(key: str, lang: str, **params) -> str:
    return l10n.tr("app.hw." + key, lang, **params)


def value_text(key: str, value, lang: str) -> str:
    """A value with its unit, in ``lang``; lists joined; ``None`` as a dash."""
    if value is None or value == "":
        return "\u2014"
    if isinstance(value, bool):
        return common.label("yes" if value else "no", lang)
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(key, v, lang) for v in value) or "\u2014"
    if isinstance(value, dict):
        return l10n.render(value, lang) if (l10n.is_message(value) or "en" in value) else \
            ", ".join(f"{field_label(str(k), lang)} {value_text(str(k), v, lang)}" for k, v in value.items())
    if key == "compute_capability" and isinstance(value, float):
        return f"{value:.1f}"
    if key.endswith("_w") and isinstance(value, (int, float)):
        return f"{common.fmt_num(value)} W"
    if key == "vendor" and isinstance(value, str):
        return ids.vendor_name(value, lang) or common.clean(value)
    if key == "family" and isinstance(value, str) and families.display_name(value, lang):
        return families.display_name(value, lang)
    if key == "bus" and isinstance(value, str):
        return common.clean(bus_label(value))
    if key.endswith("_source") and isinstance(value, str):
        return known("app.hw.source." + value, lang, common.clean(value))
    return common.fmt_value(key, value, lang)


def _rows(obj: dict, keys, lang: str) -> list[Row]:
    return [Row(field_label(k, lang), value_text(k, obj.get(k), lang), k)
            for k in keys if obj.get(k) not in (None, "", [], {})]


# -- pages -------------------------------------------------------------------------------------

def _summary(report, lang: str, source: str) -> Page:
    p = report.platform
    plat = report.to_dict()["platform"]
    redacted = bool(report.to_dict().get("redacted")) or bool(getattr(report, "redacted", False))
    machine = [Row(_t("source", lang), source, "source")]
    host = common.label("redacted", lang) if redacted and not p.hostname else p.hostname
    machine += [Row(_t("hostname", lang), value_text("hostname", host, lang), "hostname")]
    machine += _rows(plat, ("os", "os_release", "kernel", "machine", "virtualization", "container"), lang)
    cloud = p.cloud if isinstance(p.cloud, dict) else None
    if cloud:
        text = " ".join(common.clean(cloud.get(k)) for k in ("provider", "instance_type", "region") if cloud.get(k))
        machine.append(Row(_t("cloud", lang), text or "\u2014", "cloud"))
    firmware = []
    for key, keys in (("system", ("sys_vendor", "product_name", "product_version")),
                      ("board", ("board_vendor", "board_name")),
                      ("bios", ("bios_vendor", "bios_version", "bios_date"))):
        text = common.dmi_text(p.dmi, *keys)
        if text:
            firmware.append(Row(_t(key, lang), text, "dmi " + " ".join(keys)))
    rep = [Row(_t("created", lang), common.clean((report.created or "").replace("T", " ")[:19]) or "\u2014", "created"),
           Row(_t("version", lang), common.clean(report.accelgui_version), "accelgui_version"),
           Row(_t("schema", lang), common.clean(report.schema_version), "schema_version")]
    if report.sysroot not in (None, "", "/"):
        rep.append(Row(common.label("sysroot", lang), common.clean(report.sysroot), "sysroot"))
    groups = [Group(_t("group.machine", lang), machine)]
    if firmware:
        groups.append(Group(_t("group.firmware", lang), firmware))
    groups.append(Group(_t("group.report", lang), rep))
    return Page("summary", _t("page.summary", lang), groups)


def cache_rows(caches: dict, lang: str) -> list[Row]:
    """One row per cache level, its size inline: "L1d  32 KiB × 2"."""
    rows = []
    order = ("l1d", "l1i", "l1", "l2", "l3", "l4")
    for name in sorted(caches or {}, key=lambda n: (order.index(n) if n in order else len(order), n)):
        info = caches[name]
        if not isinstance(info, dict) or info.get("size_bytes") is None:
            continue
        size, inst = info.get("size_bytes"), info.get("instances")
        shown = name[:1].upper() + name[1:]
        if isinstance(inst, int) and inst > 1 and isinstance(size, int):
            text = _t("cache_size", lang, size=common.fmt_bytes(size // inst, lang), n=inst)
        else:
            text = common.fmt_bytes(size, lang)
        rows.append(Row(shown, text, f"cache {name} size_bytes"))
    return rows


def _cpu(report, lang: str) -> Page:
    cpu = report.to_dict()["cpu"]
    ident = _rows(cpu, ("model_name", "vendor", "vendor_id", "arch", "microarchitecture",
                        "hypervisor_vendor"), lang)
    topo = [Row(common.label("topology", lang), common.cpu_topology(report.cpu, lang), "topology")]
    topo += _rows(cpu, ("logical_cpus", "online_cpus", "sockets", "cores_per_socket", "threads_per_core",
                        "numa_nodes", "max_mhz", "min_mhz"), lang)
    features = []
    if cpu.get("features") or cpu.get("flags"):
        features.append(Row(_t("key_features", lang), " ".join(common.key_features(report.cpu)) or "\u2014",
                            "features"))
    if cpu.get("flags"):
        flags = [str(f) for f in cpu["flags"]]
        row = Row(_t("flags", lang), _t("flags_list", lang, n=len(flags), flags=" ".join(flags)), "flags")
        features.append(row)
    groups = [Group(_t("group.identity", lang), ident), Group(_t("group.topology", lang), topo)]
    caches = cache_rows(cpu.get("caches") or {}, lang)
    if caches:
        groups.append(Group(_t("group.caches", lang), caches))
    if features:
        groups.append(Group(_t("group.features", lang), features))
    return Page("cpu", _t("page.cpu", lang), groups)


def _memory(report, lang: str) -> Page:
    mem = report.to_dict()["memory"]
    rows = _rows(mem, ("total_bytes", "available_bytes", "numa_nodes"), lang)
    return Page("memory", _t("page.memory", lang), [Group(_t("group.memory", lang), rows)])


def ladder(dev: dict) -> list[dict]:
    """The device's readiness ladder: ``Device.ladder`` when the probe wrote one, else derived
    from its ``details.readiness_checks`` and ``readiness`` (reports before the ladder)."""
    given = dev.get("ladder")
    if isinstance(given, list) and given and all(isinstance(s, dict) and s.get("step") for s in given):
        return given
    readiness = dev.get("readiness") or "unknown"
    checks = (dev.get("details") or {}).get("readiness_checks")
    checks = checks if isinstance(checks, dict) else {}
    stop = _READINESS_STOP.get(readiness)
    steps, stopped = [{"step": "present", "ok": True}], False
    for step in LADDER_STEPS[1:]:
        key = next((k for k, s in _CHECK_STEPS.items() if s == step), None)
        value = checks.get(key)
        if stopped:
            ok = None
        elif step == stop:
            ok, stopped = False, True
        elif readiness == "ready":
            ok = True
        elif value is not None:
            ok = str(value).startswith("ok")
            stopped = not ok
        elif stop and LADDER_STEPS.index(step) < LADDER_STEPS.index(stop):
            ok = True
        else:
            ok = None
        entry = {"step": step, "ok": ok}
        if value not in (None, "ok"):
            entry["detail"] = str(value)
        steps.append(entry)
    return steps


def ladder_rows(dev: dict, lang: str) -> list[Row]:
    """The ladder drawn step by step; the reason and the fix at the first failing step."""
    rows, failed = [], False
    for n, step in enumerate(ladder(dev), 1):
        name = step.get("step")
        label = f"{n}. " + (_t("step." + name, lang) if name in LADDER_STEPS else common.clean(name))
        ok = step.get("ok")
        state = _t("step.ok" if ok else "step.failed" if ok is False else "step.unknown", lang)
        mark = "\u2713" if ok else "\u2717" if ok is False else "\u2013"
        detail = l10n.field_text(step, "detail", lang)
        if detail and ok is not False:
            detail = check_value_text(detail, lang)
        first_fail = ok is False and not failed
        if first_fail:
            detail = l10n.field_text(dev, "readiness_reason", lang) or detail
        colour = READINESS_COLOURS["ready"] if ok else READINESS_COLOURS["driver-missing"] \
            if ok is False else READINESS_COLOURS["unknown"]
        rows.append(Row(label, f"{mark} {state}" + (f" \u2014 {common.clean(detail)}" if detail else ""),
                        "ladder " + str(name), colour))
        if first_fail:
            failed = True
            fix = l10n.field_text(dev, "fix", lang)
            if fix:
                rows.append(Row("    " + _t("fix", lang), common.clean(fix), "fix"))
    if not failed:
        fix = l10n.field_text(dev, "fix", lang)
        reason = l10n.field_text(dev, "readiness_reason", lang)
        if reason:
            rows.append(Row(_t("readiness_reason", lang), common.clean(reason), "readiness_reason"))
        if fix:
            rows.append(Row(_t("fix", lang), common.clean(fix), "fix"))
    return rows


_NODE_KEYS = ("device_nodes", "device_node", "render_node", "accel_node", "drm_card", "missing_nodes")
_MEMORY_KEYS = ("memory_bytes", "memory_total_bytes", "memory_source", "memory_bandwidth_gbps",
                "memory_bandwidth_source")
_IDENTITY_KEYS = ("family", "generation", "product_name", "pci_ids_name", "segment", "form")
_BUS_KEYS = ("subsystem_id", "pci_class", "revision", "numa_node")
_CAPABILITY_KEYS = ("compute_capability", "gfx_target", "tops_int8")


def pcie_text(link: dict, lang: str) -> str:
    gen, width = link.get("current_gen"), link.get("current_width")
    mgen, mwidth = link.get("max_gen"), link.get("max_width")
    if gen is None or width is None:
        return value_text("pcie", {k: v for k, v in link.items() if v is not None}, lang)
    if (mgen, mwidth) != (gen, width) and mgen is not None and mwidth is not None:
        return _t("pcie_text_max", lang, gen=gen, width=width, max_gen=mgen, max_width=mwidth)
    return _t("pcie_text", lang, gen=gen, width=width)


def _device(i: int, dev: dict, lang: str) -> Page:
    details = dev.get("details") if isinstance(dev.get("details"), dict) else {}
    kind = common.word(dev.get("kind") or "accelerator", lang)
    integrated = f" ({common.label('integrated', lang)})" if dev.get("integrated") else ""
    ident = [Row(_t("kind", lang), kind + integrated, "kind")]
    ident += _rows(dev, ("vendor", "name"), lang) + _rows(details, _IDENTITY_KEYS, lang)
    bus = _rows(dev, ("bus", "address", "pci_id", "usb_id"), lang) + _rows(details, _BUS_KEYS, lang)
    if isinstance(details.get("pcie"), dict):
        bus.append(Row(_t("pcie", lang), pcie_text(details["pcie"], lang), "pcie"))
    driver = [Row(_t("driver", lang), common.clean(dev.get("driver")) or common.label("none", lang), "driver")]
    driver += _rows(details, ("driver_version",), lang)
    nodes = _rows(details, _NODE_KEYS, lang)
    memory = _rows(details, _MEMORY_KEYS, lang)
    clocks = [Row(field_label(k, lang), value_text(k, v, lang), k) for k, v in details.items()
              if "_mhz" in k and not isinstance(v, (dict, list, bool)) and v is not None]
    capability = _rows(details, _CAPABILITY_KEYS, lang)
    used = set(_NODE_KEYS + _MEMORY_KEYS + _IDENTITY_KEYS + _BUS_KEYS + _CAPABILITY_KEYS) \
        | {"pcie", "driver_version"} | _SHOWN_ELSEWHERE | {r.key for r in clocks}
    other = [Row(field_label(k, lang), value_text(k, v, lang), k) for k, v in details.items()
             if k not in used and v not in (None, "", [], {}) and not k.endswith("_zh")
             and not k.endswith("_msg") and not (k.endswith("_source") and k[:-7] in used)]
    groups = [Group(_t("group.identity", lang), ident), Group(_t("group.bus", lang), bus),
              Group(_t("group.driver", lang), driver)]
    for title, rows in (("group.nodes", nodes), ("group.memory", memory), ("group.clocks", clocks),
                        ("group.capability", capability)):
        if rows:
            groups.append(Group(_t(title, lang), rows))
    steps = Group(_t("group.ladder", lang), ladder_rows(dev, lang))
    if (dev.get("readiness") or "unknown") == "ready":
        groups.append(steps)
    else:                                     # what stops the device first, then its facts
        groups.insert(1, steps)
    if other:
        groups.append(Group(_t("group.other", lang), other))
    readiness = dev.get("readiness") or "unknown"
    where = common.clean(dev.get("address"))
    where = where[5:] if where.startswith("0000:") else where          # the short PCI form
    kind = kind[:1].upper() + kind[1:]
    title = f"{kind} {where} \u00b7 " if where else f"{kind} \u00b7 "
    title += common.clean(dev.get("name")) or common.label("unknown", lang)
    return Page(f"device-{i}", title, groups, parent="devices",
                colour=READINESS_COLOURS.get(readiness, READINESS_COLOURS["unknown"]))


def _versions(items: dict, lang: str, named: bool = False) -> list[Row]:
    """Name and version rows; ``named``: the names are the report's toolkit ids ("cuda_toolkit"),
    shown by their product names ("CUDA Toolkit")."""
    rows = []
    for name, v in sorted((items or {}).items()):
        version = v.get("version") if isinstance(v, dict) else v
        shown = common.clean(name)
        if named:
            shown = toolkit_label(str(name), lang)
        rows.append(Row(shown, common.clean(version) or common.label("unknown", lang), "package " + str(name)))
    return rows


def _software(report, lang: str) -> Page:
    sw = report.software
    groups = []
    for key, items in (("packages", sw.packages), ("toolkits", sw.toolkits), ("compilers", sw.compilers)):
        rows = _versions(items, lang, named=key == "toolkits")
        groups.append(Group(_t("group." + key, lang), rows or [Row(common.label("none", lang), "", key)]))
    providers = [Row(common.clean(p), "", "provider") for p in sw.providers or []]
    groups.append(Group(_t("group.providers", lang), providers or [Row(common.label("none", lang), "", "providers")]))
    return Page("software", _t("page.software", lang), groups)


def _probes(report, lang: str) -> Page:
    rows = []
    for probe in report.probes:
        status = common.word(probe.status, lang)
        if isinstance(probe.elapsed_ms, (int, float)):
            status = _t("probe_status", lang, status=status, ms=f"{probe.elapsed_ms:.0f}")
        message = probe_message(probe, lang)
        label = probe_label(probe.name, lang)
        rows.append(Row(label, status + (f" \u2014 {common.clean(message)}" if message else ""),
                        "probe " + str(probe.name), PROBE_COLOURS.get(probe.status)))
        for w in probe.warnings or []:      # inputs the probe could not use, and why
            if isinstance(w, dict):
                why = l10n.field_text(w, "reason", lang) or ""
                rows.append(Row(_t("probe_input", lang), f"{common.clean(w.get('path'))}: {common.clean(why)}",
                                "probe " + str(probe.name) + " warning", PROBE_COLOURS.get("partial")))
    return Page("probes", _t("page.probes", lang), [Group(_t("group.probes", lang), rows)])


def hardware_pages(report, lang: str = "en", source: str | None = None) -> list[Page]:
    """The Hardware page's pages for ``report`` in ``lang``."""
    lang = l10n.lang_code(lang)
    source = source or source_text(report, lang)
    pages = [_summary(report, lang, source), _cpu(report, lang), _memory(report, lang)]
    devices = report.to_dict()["devices"]
    pages.append(Page("devices", _t("page.devices", lang), [] if devices else
                      [Group(_t("page.devices", lang), [Row(_t("no_devices", lang), "", "devices")])]))
    pages += [_device(i, d, lang) for i, d in enumerate(devices)]
    pages += [_software(report, lang), _probes(report, lang)]
    return pages


def _matches(needle: str, *texts) -> bool:
    return any(needle in str(t).lower() for t in texts if t)


def filter_pages(pages: list[Page], text: str) -> list[Page]:
    """The pages, groups and rows matching ``text`` (case-insensitive, in labels, values and
    the report's field names); a matching page or group keeps all it holds."""
    needle = text.strip().lower()
    if not needle:
        return pages
    out = []
    for page in pages:
        if _matches(needle, page.title):
            out.append(page)
            continue
        groups = []
        for group in page.groups:
            if _matches(needle, group.title):
                groups.append(group)
                continue
            rows = [r for r in group.rows if _matches(needle, r.label, r.value, r.key.replace("_", " "), r.key)]
            if rows:
                groups.append(Group(group.title, rows))
        if groups:
            out.append(Page(page.id, page.title, groups, page.parent, page.colour))
    return out


# -- the view ----------------------------------------------------------------------------------

class HardwareView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self.pages: list[Page] = []
        self.current = "summary"
        self.redact_choice = lambda: True     # the main window links it to Export's choice
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        layout.setSpacing(10)
        self.title = heading("", 6)
        layout.addWidget(self.title)
        self.summary = muted("")
        layout.addWidget(self.summary)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._show)
        bar.addWidget(self.filter, 1)
        self.copy_selected_button = QPushButton()
        self.copy_selected_button.clicked.connect(self.copy_selected)
        bar.addWidget(self.copy_selected_button)
        self.copy_button = QPushButton()
        self.copy_button.clicked.connect(self.copy_all)
        bar.addWidget(self.copy_button)
        layout.addLayout(bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.nav = QTreeWidget()
        self.nav.setHeaderHidden(True)
        self.nav.setRootIsDecorated(False)
        self.nav.setMinimumWidth(160)
        self.nav.currentItemChanged.connect(self._nav_changed)
        split.addWidget(self.nav)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setAlternatingRowColors(True)
        self.tree.setWordWrap(True)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        self.tree.setColumnWidth(0, 220)
        split.addWidget(self.tree)
        split.setStretchFactor(1, 1)
        split.setSizes([280, 640])
        layout.addWidget(split, 1)
        # the shown device's reason and fix in full (the tree elides long values)
        self.fix_panel = para("")
        self.fix_panel.setObjectName("fix")
        self.fix_panel.hide()
        layout.addWidget(self.fix_panel)
        self.feedback = QLabel("")
        self.feedback.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.feedback)
        self.setTabOrder(self.filter, self.copy_selected_button)
        self.setTabOrder(self.copy_selected_button, self.copy_button)
        self.setTabOrder(self.copy_button, self.nav)
        self.setTabOrder(self.nav, self.tree)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(self.tr("Hardware"))
        self.filter.setPlaceholderText(self.tr("Filter (e.g. avx512, driver, cache)"))
        self.filter.setAccessibleName(self.tr("Filter"))
        self.copy_selected_button.setText(self.tr("Copy selected"))
        self.nav.setAccessibleName(self.tr("Pages"))
        self.tree.setAccessibleName(self.tr("Details"))
        self.tree.setHeaderLabels([self.tr("Item"), self.tr("Value")])
        self.render(self.state)

    def _copy_label(self) -> str:
        return self.tr("Copy report as JSON (redacted)") if self.redact_choice() else \
            self.tr("Copy report as JSON")

    def render(self, state: ViewState) -> None:
        self.state = state
        self.feedback.setText("")
        self.copy_button.setText(self._copy_label())
        report = state.report
        if report is None:
            self.pages = []
            self.summary.setText(state.error or self.tr("Probing this machine\u2026"))
            self._show()
            return
        ok = sum(1 for p in report.probes if p.status in ("ok", "partial", "absent"))
        source = source_text(report, state.lang, state.source, state.live)
        self.summary.setText(self.tr("{source} \u00b7 {ok} of {n} probes answered").format(
            source=source, ok=ok, n=len(report.probes)))
        self.pages = hardware_pages(report, state.lang, source)
        self._show()

    # -- drawing -------------------------------------------------------------------------------
    def _show(self, *_args) -> None:
        shown = filter_pages(self.pages, self.filter.text())
        ids = {p.id for p in shown}
        self.nav.blockSignals(True)
        self.nav.clear()
        parents: dict[str, QTreeWidgetItem] = {}
        selected = None
        for page in self.pages:
            if page.id not in ids and not (page.id == "devices" and any(p.parent == "devices" for p in shown)):
                continue
            item = QTreeWidgetItem([page.title])
            item.setToolTip(0, page.title)
            item.setData(0, Qt.ItemDataRole.UserRole, page.id)
            if page.colour:
                item.setForeground(0, QBrush(QColor(page.colour)))
            holder = parents.get(page.parent) if page.parent else None
            if holder is not None:
                holder.addChild(item)
            else:
                self.nav.addTopLevelItem(item)
            parents[page.id] = item
            if page.id == self.current:
                selected = item
        self.nav.setRootIsDecorated(False)
        self.nav.expandAll()
        if selected is not None:
            self.nav.setCurrentItem(selected)
        self.nav.blockSignals(False)
        self._draw(shown)

    def _draw(self, shown: list[Page]) -> None:
        self.tree.clear()
        filtering = bool(self.filter.text().strip())
        if filtering:
            pages = shown
        else:
            page = next((p for p in shown if p.id == self.current), None)
            if page is not None and page.id == "devices" and not page.groups:
                pages = [p for p in shown if p.parent == "devices"]   # every device, one after another
                filtering = True
            else:
                pages = [page] if page is not None else shown[:1]
        fixes: list[str] = []
        for page in pages:
            holder = None
            if filtering:
                holder = QTreeWidgetItem([page.title, ""])
                self._bold(holder)
                self.tree.addTopLevelItem(holder)
            for group in page.groups:
                item = QTreeWidgetItem([group.title, ""])
                self._bold(item)
                if holder is not None:
                    holder.addChild(item)
                else:
                    self.tree.addTopLevelItem(item)
                for row in group.rows:
                    if row.key == "fix":
                        fixes.append(row.value)
                    child = QTreeWidgetItem([row.label, row.value])
                    child.setToolTip(1, row.value)
                    if row.colour:
                        child.setForeground(1, QBrush(QColor(row.colour)))
                    item.addChild(child)
        self.tree.expandAll()
        shown_fix = len(pages) == 1 and len(fixes) == 1
        self.fix_panel.setText(self.tr("Fix: {fix}").format(fix=fixes[0]) if shown_fix else "")
        self.fix_panel.setVisible(shown_fix)

    @staticmethod
    def _bold(item: QTreeWidgetItem) -> None:
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFirstColumnSpanned(False)

    def _nav_changed(self, item, _previous=None) -> None:
        if item is None:
            return
        self.current = item.data(0, Qt.ItemDataRole.UserRole) or "summary"
        self._draw(filter_pages(self.pages, self.filter.text()))

    def show_page(self, page_id: str) -> None:
        self.current = page_id
        self._show()

    def all_text(self) -> str:
        """Every page as "page / group / label<TAB>value" lines (what the filter searches)."""
        return "\n".join(f"{p.title}\n" + "\n".join(f"{g.title}\n" + "\n".join(
            f"{r.label}\t{r.value}" for r in g.rows) for g in p.groups) for p in self.pages)

    # -- actions ----------------------------------------------------------------------------
    def copy_all(self) -> None:
        if self.state.report is None:
            return
        QGuiApplication.clipboard().setText(self.report_json())
        self.feedback.setText(self.tr("The whole report was copied to the clipboard as JSON (redacted).")
                              if self.redact_choice() else
                              self.tr("The whole report was copied to the clipboard as JSON."))

    def copy_selected(self) -> None:
        items = self.tree.selectedItems()
        if not items:
            self.feedback.setText(self.tr("Select a row first."))
            return
        QGuiApplication.clipboard().setText("\n".join(self._item_text(item, 0) for item in items))
        self.feedback.setText(self.tr("Copied {n} rows.").format(n=len(items)))

    def _item_text(self, item: QTreeWidgetItem, depth: int) -> str:
        text = "  " * depth + item.text(0) + (f": {item.text(1)}" if item.text(1) else "")
        children = [self._item_text(item.child(i), depth + 1) for i in range(item.childCount())]
        return "\n".join([text] + children)

    def report_json(self) -> str:
        """The report as JSON, redacted when the export choice says so."""
        report = self.state.report
        if report is None:
            return ""
        if self.redact_choice():
            from accelgui.redact import redact

            report = redact(report)
        return report.to_json()         # the layout of `accelgui --probe` and the JSON export
