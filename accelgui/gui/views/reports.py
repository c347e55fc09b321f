"""Reports: open a saved report in the same views, and compare two reports in a table."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QFileDialog, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from accelgui.export import common as export_common
from accelgui.gui.views.common import (READINESS_COLOURS, Card, ViewState, heading, muted,
                                       scroll_page)

UP, DOWN = "#2e7d32", "#c0392b"


# -- the comparison: accelgui.compare's change records, values formatted as in its exports ---

def compare_rows(a, b, lang: str = "en") -> list[dict]:
    """[{"section", "field", "a", "b", "change_pct", "kind", "major"}] of what differs from report
    ``a`` to report ``b``, the differences that matter first; ``field`` in words, values formatted
    with their units, device fixes in ``lang``."""
    from accelgui.compare import compare, format_side

    rows = [{"section": c["section"], "field": c["label"], "a": format_side(c, "a", lang) or None,
             "b": format_side(c, "b", lang) or None, "change_pct": c["pct_change"], "kind": c["change"],
             "major": c["major"]} for c in compare(a, b, lang)]
    return sorted(rows, key=lambda r: not r["major"])


class ReportsView(QWidget):
    open_requested = Signal()
    show_live_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self.rows: list[dict] = []
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
        self.all_button = QPushButton()
        self.all_button.setCheckable(True)
        self.all_button.setVisible(False)
        self.all_button.toggled.connect(lambda _on: self._fill(self.rows))
        row.addWidget(self.all_button)
        cmp.body.addLayout(row)
        self.table = QTableWidget(0, 4)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setSortingEnabled(False)
        self.table.setMinimumHeight(320)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setColumnWidth(0, 340)
        cmp.body.addWidget(self.table, 1)
        body.addWidget(cmp, 1)
        self._compared = None      # (lang, path A, shown report) of the comparison on screen
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
        self.table.setHorizontalHeaderLabels([self.tr("What"), self.tr("A"), self.tr("B"), self.tr("Change")])
        self._all_button_text()
        self.render(self.state)

    def _all_button_text(self) -> None:
        minor = sum(not r["major"] for r in self.rows)
        self.all_button.setVisible(minor > 0)
        self.all_button.setText(self.tr("Show only the differences that matter") if self.all_button.isChecked()
                                else self.tr("Show all, {n} more").format(n=minor))

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
        compared = self._compared
        if compared is not None and (compared[0] != state.lang or (
                not compared[1] and compared[2] is not state.report)):
            self.compare()                  # the language or the shown report changed: redo it

    def _browse(self, edit: QLineEdit) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a report"),
                                              os.path.dirname(edit.text()) or os.path.expanduser("~"),
                                              self.tr("accelgui reports (*.json);;All files (*)"))
        if path:
            edit.setText(path)

    def compare(self) -> bool:
        """Compare report A (a file, or the report shown now when empty) with report B."""
        from accelgui.report import load_report

        path_a, path_b = self.path_a.text().strip(), self.path_b.text().strip()
        if not path_b or not (path_a or self.state.report is not None):
            self._show_error(self.tr("Choose report B (and A, or let A be the report shown now)."))
            return False
        try:
            a = load_report(path_a) if path_a else self.state.report
            rows = compare_rows(a, load_report(path_b), self.state.lang)
        except (OSError, ValueError) as exc:
            self._show_error(str(exc))
            return False
        self.rows = rows
        self._compared = (self.state.lang, path_a, self.state.report)
        self._fill(rows)
        name_a = os.path.basename(path_a) if path_a else self.tr("the report shown now")
        name_b = os.path.basename(path_b)
        if rows:
            self.result_label.setText(self.tr("{n} differences between {a} and {b}, {major} that matter.").format(
                n=len(rows), a=name_a, b=name_b, major=sum(r["major"] for r in rows)))
        else:
            self.result_label.setText(self.tr("No differences that matter between {a} and {b}.").format(
                a=name_a, b=name_b))
        self.result_label.setStyleSheet("")
        return True

    def _show_error(self, message: str) -> None:
        self.table.setRowCount(0)
        self.rows = []
        self._all_button_text()
        self._compared = None
        self.result_label.setText(message)
        self.result_label.setStyleSheet(f"color: {READINESS_COLOURS['driver-missing']};")

    def _fill(self, rows: list[dict]) -> None:
        """The differences that matter, or all of them when the toggle is on (those first)."""
        self._all_button_text()
        if not self.all_button.isChecked() and any(r["major"] for r in rows):
            rows = [r for r in rows if r["major"]]
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = [row["field"], row["a"] or "—", row["b"] or "—"]
            change = row.get("change_pct")
            kinds = {"added": self.tr("only in B"), "removed": self.tr("only in A"), "changed": self.tr("changed")}
            cells.append(export_common.fmt_change(change) if isinstance(change, (int, float))
                         else kinds.get(row.get("kind"), ""))
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if j == 3 and isinstance(change, (int, float)) and change:
                    item.setForeground(QBrush(QColor(UP if change > 0 else DOWN)))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
