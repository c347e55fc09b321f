"""Hardware: every probe result and every section of the report as a tree; copy to clipboard."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from accelgui.export.common import label as export_label
from accelgui.report import device_text
from accelgui.gui.views.common import (PROBE_COLOURS, ViewState, check_value_text, fmt_bytes, fmt_num,
                                       heading, kind_text, muted, probe_reason_text,
                                       probe_status_text, readiness_text)

LIST_PREVIEW = 12


def _value_text(key: str, value, lang: str = "en") -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return export_label("yes" if value else "no", lang)
    if isinstance(value, int) and key.endswith("_bytes"):
        return f"{fmt_bytes(value)}  ({value:,} B)"
    if isinstance(value, float):
        return fmt_num(value)
    return str(value)


# Report field names in Chinese (the tree shows the raw names in English; in Chinese the
# name goes in the tooltip and still matches the filter).
FIELD_NAMES_ZH = {
    "os": "操作系统", "os_release": "发行版", "kernel": "内核", "machine": "机器架构",
    "hostname": "主机名", "virtualization": "虚拟化", "container": "容器", "cloud": "云平台",
    "dmi": "DMI 信息", "vendor_id": "厂商 ID", "vendor": "厂商", "model_name": "型号",
    "arch": "指令集架构", "microarchitecture": "微架构", "logical_cpus": "逻辑 CPU",
    "online_cpus": "在线 CPU", "threads_per_core": "每核线程数", "cores_per_socket": "每路核数",
    "sockets": "路数", "numa_nodes": "NUMA 节点", "flags": "CPU 标志", "features": "特性",
    "caches": "缓存", "max_mhz": "最高频率 (MHz)", "min_mhz": "最低频率 (MHz)",
    "hypervisor_vendor": "虚拟机监控器", "total_bytes": "总量", "available_bytes": "可用",
    "kind": "类型", "name": "名称", "bus": "总线", "address": "地址", "pci_id": "PCI ID",
    "usb_id": "USB ID", "driver": "驱动", "integrated": "集成", "readiness": "就绪状态",
    "readiness_reason": "原因", "fix": "解决办法", "details": "详情",
    "packages": "Python 包", "toolkits": "工具包与驱动", "providers": "运行时后端",
    "compilers": "编译器", "packages_known": "已知 Python 包",
    "memory_bytes": "显存/内存", "compute_capability": "计算能力", "gfx_target": "gfx 目标",
    "pci_class": "PCI 类别", "subsystem_id": "子系统 ID", "revision": "修订版本",
    "numa_node": "NUMA 节点", "pcie": "PCIe 链路", "family": "设备系列",
    "readiness_checks": "就绪检查", "device_nodes": "设备节点", "missing_nodes": "缺少的设备节点",
    "render_node": "渲染节点", "accel_node": "accel 节点", "drm_card": "DRM 卡",
    "driver_version": "驱动版本", "memory_source": "内存数据来源", "product_name": "产品名称",
    "pci_ids_name": "pci.ids 名称", "device_node": "设备节点", "access": "访问权限",
    "runtime": "运行时", "status": "状态", "reasons": "依据", "next_steps": "下一步",
    "blocking": "缺少什么", "title": "标题", "uuid": "UUID", "serial": "序列号",
}


def _localized_device(dev: dict, lang: str) -> dict:
    """A device's reason and fix in the UI language; their ``_zh`` twins and ``_msg`` messages
    are not shown (the ladder's details likewise)."""
    from accelgui import l10n

    out = {k: v for k, v in dev.items() if not k.endswith(("_zh", "_msg"))}
    for key in ("readiness_reason", "fix"):
        if key in out:
            out[key] = device_text(dev, key, lang)
    if isinstance(out.get("ladder"), list):
        out["ladder"] = [dict({k: v for k, v in s.items() if k != "detail_msg"},
                              detail=l10n.field_text(s, "detail", lang))
                         if isinstance(s, dict) else s for s in out["ladder"]]
    return out


class HardwareView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
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
        self.filter.textChanged.connect(self._apply_filter)
        bar.addWidget(self.filter, 1)
        self.expand_button = QPushButton()
        self.expand_button.clicked.connect(self._toggle_expand)
        bar.addWidget(self.expand_button)
        self.copy_selected_button = QPushButton()
        self.copy_selected_button.clicked.connect(self.copy_selected)
        bar.addWidget(self.copy_selected_button)
        self.copy_button = QPushButton()
        self.copy_button.clicked.connect(self.copy_all)
        bar.addWidget(self.copy_button)
        layout.addLayout(bar)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        self.tree.setColumnWidth(0, 300)
        layout.addWidget(self.tree, 1)
        self.feedback = QLabel("")
        layout.addWidget(self.feedback)
        self._expanded = False
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(self.tr("Hardware and probe results"))
        self.filter.setPlaceholderText(self.tr("Filter (e.g. avx512, driver, cache)"))
        self.copy_button.setText(self.tr("Copy report as JSON"))
        self.copy_selected_button.setText(self.tr("Copy selected"))
        self.expand_button.setText(self.tr("Collapse all") if self._expanded else self.tr("Expand all"))
        self.tree.setHeaderLabels([self.tr("Item"), self.tr("Value")])
        self.render(self.state)

    def render(self, state: ViewState) -> None:
        self.state = state
        self.tree.clear()
        self.feedback.setText("")
        report = state.report
        if report is None:
            self.summary.setText(state.error or self.tr("Probing this machine…"))
            return
        ok = sum(1 for p in report.probes if p.status in ("ok", "partial", "absent"))
        self.summary.setText(self.tr("{ok} of {n} probes answered · report created {when}").format(
            ok=ok, n=len(report.probes), when=(report.created or "?").replace("T", " ")[:19]))
        self._add_probes(report)
        data = report.to_dict()
        sections = [
            ("platform", self.tr("Platform")), ("cpu", self.tr("CPU")),
            ("memory", self.tr("Memory")), ("devices", self.tr("Accelerators")),
            ("software", self.tr("Software")), ("benchmarks", self.tr("Benchmarks")),
            ("estimates", self.tr("Estimates")),
        ]
        for key, title in sections:
            value = data.get(key)
            if key in ("benchmarks", "estimates") and not value:
                continue
            item = QTreeWidgetItem([title, self._section_summary(key, value)])
            item.setData(0, Qt.ItemDataRole.UserRole, key)
            self._fill(item, key, value)
            self.tree.addTopLevelItem(item)
            if key in ("platform", "cpu", "memory", "devices"):
                item.setExpanded(True)
        routes = data.get("routes") or []
        if routes:
            item = QTreeWidgetItem([self.tr("Routes"), str(len(routes))])
            for r in routes:
                child = QTreeWidgetItem([r.get("id", "?"), r.get("status", "?")])
                self._fill(child, "route", {k: v for k, v in r.items() if k not in ("id",)})
                item.addChild(child)
            self.tree.addTopLevelItem(item)
        if self.filter.text():
            self._apply_filter(self.filter.text())

    def _add_probes(self, report) -> None:
        top = QTreeWidgetItem([self.tr("Probes"), ""])
        bad = 0
        for probe in report.probes:
            status = probe_status_text(probe.status)
            elapsed = f" · {probe.elapsed_ms:.0f} ms" if isinstance(probe.elapsed_ms, (int, float)) else ""
            failed = probe.status in ("error", "timeout")
            message = probe_reason_text(probe.error, self.state.lang) if probe.error else ""
            text = status + elapsed + (f" — {message}" if message else "")
            item = QTreeWidgetItem([probe.name, text])
            item.setToolTip(1, text)
            colour = QColor(PROBE_COLOURS.get(probe.status, "#6b6b6b"))
            item.setForeground(1, QBrush(colour))
            if failed:
                bad += 1
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
            if message and len(message) > 60:             # long messages: the full text below
                child = QTreeWidgetItem([self.tr("error") if failed else self.tr("reason"), message])
                child.setToolTip(1, message)
                child.setForeground(1, QBrush(colour))
                item.addChild(child)
            top.addChild(item)
        top.setText(1, self.tr("{n} probes, {bad} with problems").format(n=len(report.probes), bad=bad)
                    if bad else self.tr("{n} probes, all answered").format(n=len(report.probes)))
        self.tree.addTopLevelItem(top)
        top.setExpanded(True)
        for i in range(top.childCount()):                # errors shown in place, opened
            child = top.child(i)
            if child.childCount() and child.font(0).bold():
                child.setExpanded(True)

    def _section_summary(self, key: str, value) -> str:
        if key == "devices":
            return self.tr("{n} found").format(n=len(value or [])) if value else self.tr("none found")
        if key == "cpu" and isinstance(value, dict):
            return value.get("model_name") or ""
        if key == "memory" and isinstance(value, dict):
            return fmt_bytes(value.get("total_bytes"))
        if key == "platform" and isinstance(value, dict):
            return " ".join(x for x in (value.get("os_release") or value.get("os"), value.get("machine")) if x)
        return ""

    def _fill(self, parent: QTreeWidgetItem, key: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, (dict, list)) and v:
                    child = QTreeWidgetItem([self._field_name(str(k)), self._collection_summary(v)])
                    self._fill(child, str(k), v)
                else:
                    text = _value_text(str(k), v, self.state.lang)
                    if key == "readiness_checks" and isinstance(v, str):
                        text = check_value_text(v, self.state.lang)
                    elif key == "devices" and k == "readiness" and isinstance(v, str):
                        text = readiness_text(v)
                    elif key == "devices" and k == "kind" and isinstance(v, str):
                        text = kind_text(v)
                    child = QTreeWidgetItem([self._field_name(str(k)), text])
                    if isinstance(v, (dict, list)):
                        child.setText(1, "—")
                    child.setToolTip(1, child.text(1))
                child.setData(0, Qt.ItemDataRole.UserRole + 1, str(k))
                if child.text(0) != str(k):
                    child.setToolTip(0, str(k))
                parent.addChild(child)
        elif isinstance(value, list):
            if all(not isinstance(v, (dict, list)) for v in value):
                parent.setText(1, self._collection_summary(value))
                parent.setToolTip(1, ", ".join(map(str, value)))
                if len(value) > LIST_PREVIEW:
                    for v in value:
                        parent.addChild(QTreeWidgetItem(["", str(v)]))
                return
            for i, v in enumerate(value):
                if key == "devices" and isinstance(v, dict):
                    label = f"{i}: {kind_text(v.get('kind') or '')} · {v.get('name') or '?'}"
                    child = QTreeWidgetItem([label, readiness_text(v.get("readiness") or "unknown")])
                    v = _localized_device(v, self.state.lang)
                else:
                    child = QTreeWidgetItem([f"[{i}]", self._collection_summary(v)
                                             if isinstance(v, (dict, list)) else _value_text(key, v, self.state.lang)])
                self._fill(child, key, v)
                parent.addChild(child)
        else:
            parent.setText(1, _value_text(key, value, self.state.lang))

    def _field_name(self, key: str) -> str:
        if self.state.lang == "zh" and key in FIELD_NAMES_ZH:
            return FIELD_NAMES_ZH[key]
        return key

    def _collection_summary(self, value) -> str:
        if isinstance(value, list):
            if all(not isinstance(v, (dict, list)) for v in value):
                text = ", ".join(map(str, value[:LIST_PREVIEW]))
                if len(value) > LIST_PREVIEW:
                    text += " " + self.tr("… ({n} in all)").format(n=len(value))
                return text
            return self.tr("{n} items").format(n=len(value))
        return ""

    # -- actions ----------------------------------------------------------------------------
    def copy_all(self) -> None:
        if self.state.report is None:
            return
        QGuiApplication.clipboard().setText(self.state.report.to_json())
        self.feedback.setText(self.tr("The whole report was copied to the clipboard as JSON."))

    def copy_selected(self) -> None:
        items = self.tree.selectedItems()
        if not items:
            self.feedback.setText(self.tr("Select a row first."))
            return
        lines = []
        for item in items:
            lines.append(self._item_text(item, 0))
        QGuiApplication.clipboard().setText("\n".join(lines))
        self.feedback.setText(self.tr("Copied {n} rows.").format(n=len(items)))

    def _item_text(self, item: QTreeWidgetItem, depth: int) -> str:
        text = "  " * depth + item.text(0) + (f": {item.text(1)}" if item.text(1) else "")
        children = [self._item_text(item.child(i), depth + 1) for i in range(item.childCount())]
        return "\n".join([text] + children)

    def _toggle_expand(self) -> None:
        self._expanded = not self._expanded
        if self._expanded:
            self.tree.expandAll()
        else:
            self.tree.collapseAll()
        self.expand_button.setText(self.tr("Collapse all") if self._expanded else self.tr("Expand all"))

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()

        def visit(item: QTreeWidgetItem) -> bool:
            raw = str(item.data(0, Qt.ItemDataRole.UserRole + 1) or "").lower()
            own = not needle or needle in item.text(0).lower() or needle in item.text(1).lower() \
                or needle in raw
            any_child = False
            for i in range(item.childCount()):
                child = item.child(i)
                shown = visit(child) or own
                child.setHidden(not shown)
                any_child = any_child or shown
            if needle and any_child:
                item.setExpanded(True)
            return own or any_child

        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            top.setHidden(not visit(top))

    def report_json(self) -> str:
        return json.dumps(self.state.report.to_dict(), indent=2) if self.state.report else ""
