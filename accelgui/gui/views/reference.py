"""Reference: the dated fact tables (accelgui.knowledge.facts), this machine's rows highlighted.

One table at a time, picked from a list: its title, as-of / review-by dates and sources, its
notes, then a grid with one row per fact and the row's own date and source. Rows that describe a
device or the CPU of the report on screen are highlighted and counted. The same document as
``accelgui --facts`` (accelgui.fact_tables.facts_document), in the knowledge language.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from accelgui.gui.views.common import ViewState, heading, html_escape, muted, para
from accelgui.report import report_dict as as_report_dict

HIGHLIGHT = "#2e7d32"


class ReferenceView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self.doc: dict | None = None
        self._stale = True
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        self.title = heading("", 6)
        layout.addWidget(self.title)
        row = QHBoxLayout()
        self.picker_label = QLabel()
        row.addWidget(self.picker_label)
        self.picker = QComboBox()
        self.picker.setObjectName("reference-table")
        self.picker.currentIndexChanged.connect(self._show_table)
        row.addWidget(self.picker, 1)
        layout.addLayout(row)
        self.dates = para("", rich=True)
        self.dates.setObjectName("reference-dates")
        self.dates.setOpenExternalLinks(True)
        layout.addWidget(self.dates)
        self.notes = muted("")
        layout.addWidget(self.notes)
        self.matches = para("")
        self.matches.setObjectName("reference-matches")
        layout.addWidget(self.matches)
        self.table = QTableWidget()
        self.table.setObjectName("reference-grid")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        self.expired = para("")
        self.expired.setObjectName("reference-expired")
        layout.addWidget(self.expired)
        self.retranslate()

    def _t(self, key: str, **params) -> str:
        """Texts of this page come from the ``knowledge`` message area (accelgui.l10n)."""
        from accelgui.l10n import tr

        return tr(f"knowledge.reference.{key}", self.state.lang or "en", **params)

    def retranslate(self) -> None:
        self.render(self.state)

    def render(self, state: ViewState) -> None:
        """Show the tables for ``state``; a page not on screen only keeps the state and builds
        the tables when it is shown (the fact document is not needed for the first window).
        The page's own words follow ``state.lang`` here: the window retranslates the views
        before it hands them the state in the new language."""
        self.state = state
        self.title.setText(self._t("title"))
        self.picker_label.setText(self._t("table"))
        self._stale = not self.isVisible()
        if not self._stale:
            self._build()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:         # a turn later: the window renders a page it shows itself
            QTimer.singleShot(0, self, self._build_if_stale)

    def _build_if_stale(self) -> None:
        if self._stale and self.isVisible():
            self._stale = False
            self._build()

    def _build(self) -> None:
        from accelgui.fact_tables import facts_document

        state = self.state
        report = state.report
        report_dict = as_report_dict(report)
        try:
            self.doc = facts_document(report_dict, state.lang or "en")
        except (OSError, ValueError) as exc:
            self.doc = None
            self.dates.setText(html_escape(self._t("unreadable", error=exc)))
            return
        current = self.picker.currentData()
        self.picker.blockSignals(True)
        self.picker.clear()
        for t in self.doc["tables"]:
            n = sum(1 for r in t["rows"] if r["this_machine"])
            label = t["title"] + (self._t("picker_matches", n=n) if n else "")
            self.picker.addItem(label, t["id"])
        ids = [t["id"] for t in self.doc["tables"]]
        self.picker.setCurrentIndex(ids.index(current) if current in ids else 0)
        self.picker.blockSignals(False)
        problems = self.doc["expired"]
        self.expired.setText(self._t("due", items="; ".join(problems))
                             if problems else "")
        self._show_table()

    def _show_table(self, *_args) -> None:
        if not self.doc or not self.doc["tables"]:
            return
        tid = self.picker.currentData()
        table = next((t for t in self.doc["tables"] if t["id"] == tid), self.doc["tables"][0])
        links = ", ".join(f"<a href='{html_escape(u)}'>{html_escape(u)}</a>" for u in table["source"])
        dates = self._t("dates", as_of=table["as_of"] or "-", review_by=table["review_by"] or "-")
        self.dates.setText(html_escape(dates) + links)
        self.notes.setText(table["notes"] or "")
        self.notes.setVisible(bool(table["notes"]))
        from accelgui.fact_tables import cell_text

        lang = self.state.lang or "en"
        headers = [self._t("this_machine")] + table["column_labels"] + [self._t("as_of"), self._t("source")]
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(table["rows"]))
        brush = QBrush(QColor(HIGHLIGHT))
        white = QBrush(QColor("#ffffff"))
        for r, row in enumerate(table["rows"]):
            sources = row.get("source")
            sources = sources if isinstance(sources, list) else [sources] if sources else []
            cells = (["✓" if row["this_machine"] else ""]
                     + [cell_text(row.get(c), lang, c) if c in row else "" for c in table["columns"]]
                     + [str(row.get("as_of") or ""), ", ".join(sources)])
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, bool(row["this_machine"]))
                if row["this_machine"]:
                    item.setBackground(brush)
                    item.setForeground(white)
                self.table.setItem(r, c, item)
        n = sum(1 for r in table["rows"] if r["this_machine"])
        self.matches.setText(self._t("matches", n=n) if n
                             else self._t("no_match"))
        self.table.resizeRowsToContents()
