"""Reports: open a saved report in the same views, and compare two reports in a table."""

from __future__ import annotations

import json
import os
import tempfile

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QFileDialog, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from accelgui.gui.views.common import (READINESS_COLOURS, Card, ViewState, heading, muted,
                                       scroll_page)

UP, DOWN = "#2e7d32", "#c0392b"


# -- the comparison: accelgui.compare when it offers rows, else a summary diff of the two dicts -

def _fmt_bytes(n):
    from accelgui.gui.views.common import fmt_bytes

    return fmt_bytes(n) if isinstance(n, (int, float)) else n


def _bench_leaves(value, prefix, out):
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("cache_sweep", "environment", "mode", "elapsed_s", "jit_compile_s"):
                continue
            _bench_leaves(v, f"{prefix}.{k}", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            key = v.get("index", i) if isinstance(v, dict) else i
            _bench_leaves(v, f"{prefix}[{key}]", out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[("benchmarks", prefix.lstrip("."))] = value


def summarize(d: dict) -> dict:
    """{(section, field): value} of what a person compares between two machines."""
    out: dict = {}
    plat = d.get("platform") or {}
    for key in ("os_release", "kernel", "machine", "virtualization", "container"):
        out[("platform", key)] = plat.get(key)
    cloud = plat.get("cloud") or {}
    out[("platform", "cloud")] = " ".join(x for x in (cloud.get("provider"), cloud.get("instance_type")) if x) or None
    cpu = d.get("cpu") or {}
    for key in ("model_name", "microarchitecture", "logical_cpus", "cores_per_socket", "sockets",
                "numa_nodes", "max_mhz"):
        out[("cpu", key)] = cpu.get(key)
    out[("cpu", "features")] = frozenset(cpu.get("features") or [])
    mem = d.get("memory") or {}
    out[("memory", "total_bytes")] = mem.get("total_bytes")
    groups: dict = {}
    for dev in d.get("devices") or []:
        name = f"{dev.get('kind')}: {dev.get('name')}"
        groups.setdefault(name, []).append(dev.get("readiness") or "unknown")
    for name, states in groups.items():
        summary = ", ".join(f"{states.count(s)} × {s}" for s in sorted(set(states)))
        out[("devices", name)] = summary
    sw = d.get("software") or {}
    for name, version in (sw.get("packages") or {}).items():
        out[("software", name)] = version
    for name, version in (sw.get("toolkits") or {}).items():
        out[("software", name)] = version
    out[("software", "providers")] = frozenset(sw.get("providers") or [])
    _bench_leaves(d.get("benchmarks") or {}, "", out)
    for route in d.get("routes") or []:
        out[("routes", route.get("id"))] = route.get("status")
    return out


def diff_dicts(a: dict, b: dict) -> list[dict]:
    """[{"section", "field", "a", "b", "change_pct"}] for what differs, in report order."""
    sa, sb = summarize(a), summarize(b)
    rows = []
    for key in list(sa) + [k for k in sb if k not in sa]:
        va, vb = sa.get(key), sb.get(key)
        if va == vb or (not va and not vb and va is not False):
            continue
        section, field = key
        change = None
        if isinstance(va, frozenset) or isinstance(vb, frozenset):
            va, vb = va or frozenset(), vb or frozenset()
            only_a, only_b = sorted(va - vb), sorted(vb - va)
            only = QCoreApplication.translate("CompareView", "only here: {items}")
            va = only.format(items=", ".join(only_a)) if only_a else "—"
            vb = only.format(items=", ".join(only_b)) if only_b else "—"
        elif (isinstance(va, (int, float)) and isinstance(vb, (int, float))
              and not isinstance(va, bool) and not isinstance(vb, bool) and va):
            change = 100.0 * (vb - va) / abs(va)
        if field.endswith("_bytes"):
            va, vb = _fmt_bytes(va), _fmt_bytes(vb)
        rows.append({"section": section, "field": field, "a": va, "b": vb, "change_pct": change})
    return rows


def compare_reports(path_a: str, path_b: str, lang: str = "en") -> list[dict]:
    """Rows describing what differs; uses accelgui.compare (json format) when present, with
    device fixes in ``lang``."""
    try:
        from accelgui.compare import compare_files
    except ImportError:
        compare_files = None
    if compare_files is not None:
        try:
            data = json.loads(compare_files(path_a, path_b, "json", lang=lang))
        except (ValueError, TypeError):
            data = None
        rows = _rows_from_compare(data)
        if rows is not None:
            return rows
    from accelgui.report import load_report

    return diff_dicts(load_report(path_a).to_dict(), load_report(path_b).to_dict())


def _rows_from_compare(data) -> list[dict] | None:
    """Accept accelgui.compare's JSON: a list of rows, or {"differences"|"rows"|"changes": [...]}."""
    if isinstance(data, dict):
        for key in ("differences", "rows", "changes", "diff"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        return None
    rows = []
    for item in data:
        if not isinstance(item, dict):
            return None
        field = (item.get("field") or item.get("item") or item.get("path") or item.get("key")
                 or item.get("name"))
        if field is None:
            return None
        section = item.get("section") or str(field).split(".", 1)[0]
        a = item.get("a", item.get("old", item.get("before")))
        b = item.get("b", item.get("new", item.get("after")))
        if str(field).endswith("_bytes"):
            a, b = _fmt_bytes(a), _fmt_bytes(b)
        rows.append({"section": section, "field": str(field), "a": a, "b": b,
                     "change_pct": item.get("change_pct", item.get("pct_change", item.get("percent"))),
                     "kind": item.get("change")})
    return rows


def _text(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class CompareView(QWidget):
    open_requested = Signal()
    show_live_requested = Signal()
    open_path_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self.rows: list[dict] = []
        self._temp_path: str | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        area, _, body = scroll_page(self)
        outer.addWidget(area)
        self.title = heading("", 6)
        body.addWidget(self.title)

        shown = Card()
        self.shown_title = heading("", 1)
        shown.body.addWidget(self.shown_title)
        self.shown_label = muted("")
        shown.body.addWidget(self.shown_label)
        row = QHBoxLayout()
        self.open_button = QPushButton()
        self.open_button.clicked.connect(self.open_requested.emit)
        row.addWidget(self.open_button)
        self.live_button = QPushButton()
        self.live_button.clicked.connect(self.show_live_requested.emit)
        row.addWidget(self.live_button)
        row.addStretch(1)
        shown.body.addLayout(row)
        body.addWidget(shown)

        cmp = Card()
        self.compare_title = heading("", 1)
        cmp.body.addWidget(self.compare_title)
        self.compare_help = muted("")
        cmp.body.addWidget(self.compare_help)
        grid = QGridLayout()
        self.label_a, self.label_b = QLabel(), QLabel()
        self.path_a, self.path_b = QLineEdit(), QLineEdit()
        self.browse_a, self.browse_b = QPushButton(), QPushButton()
        self.browse_a.clicked.connect(lambda: self._browse(self.path_a))
        self.browse_b.clicked.connect(lambda: self._browse(self.path_b))
        for r, (label, edit, button) in enumerate(((self.label_a, self.path_a, self.browse_a),
                                                   (self.label_b, self.path_b, self.browse_b))):
            grid.addWidget(label, r, 0)
            grid.addWidget(edit, r, 1)
            grid.addWidget(button, r, 2)
            edit.returnPressed.connect(self.compare)
        grid.setColumnStretch(1, 1)
        cmp.body.addLayout(grid)
        row = QHBoxLayout()
        self.compare_button = QPushButton()
        self.compare_button.clicked.connect(self.compare)
        row.addWidget(self.compare_button)
        self.result_label = QLabel("")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.result_label, 1)
        cmp.body.addLayout(row)
        self.table = QTableWidget(0, 5)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setSortingEnabled(False)
        self.table.setMinimumHeight(320)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setColumnWidth(1, 260)
        cmp.body.addWidget(self.table, 1)
        body.addWidget(cmp, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(self.tr("Reports"))
        self.shown_title.setText(self.tr("Shown now"))
        self.open_button.setText(self.tr("Open report…"))
        self.open_button.setToolTip(self.tr("Show a saved JSON report, e.g. from another machine (Ctrl+O)"))
        self.live_button.setText(self.tr("Show this machine"))
        self.compare_title.setText(self.tr("Compare two reports"))
        self.compare_help.setText(self.tr(
            "Pick two saved JSON reports (accelgui --probe --output FILE, or Export → JSON). "
            "Leave the first one empty to compare the report shown now."))
        self.label_a.setText(self.tr("Report A"))
        self.label_b.setText(self.tr("Report B"))
        self.path_a.setPlaceholderText(self.tr("(the report shown now)"))
        self.path_b.setPlaceholderText(self.tr("path to a .json report"))
        self.browse_a.setText(self.tr("Browse…"))
        self.browse_b.setText(self.tr("Browse…"))
        self.compare_button.setText(self.tr("Compare"))
        self.table.setHorizontalHeaderLabels([self.tr("Section"), self.tr("Field"), self.tr("A"),
                                              self.tr("B"), self.tr("Change")])
        self.render(self.state)

    def render(self, state: ViewState) -> None:
        self.state = state
        report = state.report
        if report is None:
            self.shown_label.setText(self.tr("Nothing yet: this machine is being probed."))
        elif state.live:
            self.shown_label.setText(self.tr("This machine, probed {when}.").format(
                when=(report.created or "?").replace("T", " ")[:16]))
        else:
            self.shown_label.setText(self.tr("Saved report {path} (created {when}, host {host}).").format(
                path=state.source or "?", when=(report.created or "?").replace("T", " ")[:16],
                host=report.platform.hostname or "—"))
        self.live_button.setEnabled(not state.live)

    def _browse(self, edit: QLineEdit) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a report"),
                                              os.path.dirname(edit.text()) or os.path.expanduser("~"),
                                              self.tr("accelgui reports (*.json);;All files (*)"))
        if path:
            edit.setText(path)

    def _current_report_path(self) -> str | None:
        if not self.state.live and self.state.source:
            return self.state.source
        if self.state.report is None:
            return None
        fd, path = tempfile.mkstemp(prefix="accelgui-shown-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(self.state.report.to_json())
        if self._temp_path:
            try:
                os.unlink(self._temp_path)
            except OSError:
                pass
        self._temp_path = path
        return path

    def compare(self) -> bool:
        a = self.path_a.text().strip() or self._current_report_path()
        b = self.path_b.text().strip()
        if not a or not b:
            self._show_error(self.tr("Choose report B (and A, or let A be the report shown now)."))
            return False
        try:
            rows = compare_reports(a, b, self.state.lang)
        except (OSError, ValueError) as exc:
            self._show_error(str(exc))
            return False
        self.rows = rows
        self._fill(rows)
        if rows:
            self.result_label.setText(self.tr("{n} differences between {a} and {b}.").format(
                n=len(rows), a=self._name(a), b=self._name(b)))
        else:
            self.result_label.setText(self.tr("No differences that matter between {a} and {b}.").format(
                a=self._name(a), b=self._name(b)))
        self.result_label.setStyleSheet("")
        return True

    def _name(self, path: str) -> str:
        if path == self._temp_path:
            return self.tr("the report shown now")
        return os.path.basename(path)

    def _show_error(self, message: str) -> None:
        self.table.setRowCount(0)
        self.rows = []
        self.result_label.setText(message)
        self.result_label.setStyleSheet(f"color: {READINESS_COLOURS['driver-missing']};")

    def _fill(self, rows: list[dict]) -> None:
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = [row["section"], row["field"], _text(row["a"]), _text(row["b"])]
            change = row.get("change_pct")
            kinds = {"added": self.tr("only in B"), "removed": self.tr("only in A")}
            cells.append(f"{change:+.1f}%" if isinstance(change, (int, float))
                         else kinds.get(row.get("kind"), ""))
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if j == 4 and isinstance(change, (int, float)) and change:
                    item.setForeground(QBrush(QColor(UP if change > 0 else DOWN)))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)

    def cleanup(self) -> None:
        if self._temp_path:
            try:
                os.unlink(self._temp_path)
            except OSError:
                pass
            self._temp_path = None
