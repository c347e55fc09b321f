"""Fleet: every node a Prometheus server scrapes accelgui metrics from, one row per node.

The same document as ``accelgui --fleet URL`` (accelgui.fleet): a URL field (remembered in the
app's settings as ``fleet/url``), a Refresh button and a table. The query runs in a
:class:`~accelgui.gui.workers.Task` (a daemon thread): a slow or unreachable server never
blocks the window; an answer that arrives after a newer query was started is dropped.
"""

from __future__ import annotations

import time

from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from accelgui.gui import settings
from accelgui.gui.views.common import ViewState, heading, muted

SETTING = "fleet/url"


class FleetView(QWidget):
    def __init__(self, parent: QWidget | None = None, query=None):
        super().__init__(parent)
        from accelgui import fleet

        self._query = query or fleet.fleet          # tests may pass a fake
        self.state = ViewState()
        self.doc: dict | None = None
        self.error: str | None = None
        self._task = None
        self._serial = 0
        self._busy_url: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        self.title = heading("", 6)
        layout.addWidget(self.title)
        self.intro = muted("")
        layout.addWidget(self.intro)
        row = QHBoxLayout()
        self.url_label = QLabel()
        row.addWidget(self.url_label)
        self.url = QLineEdit(str(settings.value(SETTING, "") or ""))
        self.url.setObjectName("fleet-url")
        self.url.setPlaceholderText("http://prometheus:9090")
        self.url.returnPressed.connect(self.refresh)
        self.url_label.setBuddy(self.url)
        row.addWidget(self.url, 1)
        self.refresh_button = QPushButton()
        self.refresh_button.setObjectName("fleet-refresh")
        self.refresh_button.clicked.connect(self.refresh)
        row.addWidget(self.refresh_button)
        layout.addLayout(row)
        self.status = muted("")
        self.status.setObjectName("fleet-status")
        layout.addWidget(self.status)
        self.table = QTableWidget()
        self.table.setObjectName("fleet-table")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(False)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        self.retranslate()

    @property
    def lang(self) -> str:
        return self.state.lang or "en"

    def _t(self, key: str, **params) -> str:
        from accelgui.l10n import tr

        return tr(f"fleet.page.{key}", self.lang, **params)

    def retranslate(self) -> None:
        self.title.setText(self._t("title"))
        self.intro.setText(self._t("intro"))
        self.url_label.setText(self._t("url"))
        self.refresh_button.setText(self._t("refresh"))
        self.refresh_button.setAccessibleName(self._t("refresh"))
        self.url.setAccessibleName(self._t("url").rstrip(":\uff1a"))
        self._show()

    def render(self, state: ViewState) -> None:
        """The fleet does not depend on this machine's report; only the language is taken."""
        changed = state.lang != self.state.lang
        self.state = state
        if changed:
            self.retranslate()

    # -- querying ------------------------------------------------------------------------------
    def refresh(self) -> None:
        from accelgui.gui.workers import Task

        url = self.url.text().strip()
        settings.remember(SETTING, url)
        self._serial += 1
        serial = self._serial
        self._busy_url = url
        self.error = None
        task = Task(self._query, url, 10.0, self.lang, name="accelgui-fleet")
        task.done.connect(lambda doc, s=serial: self._finished(s, doc, None))
        task.failed.connect(lambda text, s=serial: self._finished(s, None, text))
        self._task = task                    # kept until it answers
        self._show()
        task.start()

    def busy(self) -> bool:
        return self._busy_url is not None

    def _finished(self, serial: int, doc, error) -> None:
        if serial != self._serial:           # a newer query was started: this answer is old
            return
        self._busy_url, self._task = None, None
        self.doc, self.error = (doc, None) if error is None else (None, error)
        self._show()

    # -- showing -------------------------------------------------------------------------------
    def _show(self) -> None:
        from accelgui import fleet

        self.refresh_button.setEnabled(not self.busy())
        if self.busy():
            self.status.setText(self._t("querying", url=self._busy_url))
        elif self.error:
            self.status.setText(self.error)
        elif self.doc is not None:
            self.status.setText(self._t("done", n=len(self.doc["nodes"]),
                                        time=time.strftime("%H:%M:%S", time.localtime(self.doc["queried_at"]))))
        else:
            self.status.setText(self._t("hint"))
        doc = None if self.error else self.doc
        columns = doc["columns"] if doc else []
        self.table.clear()
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(fleet.headers(columns, self.lang))
        nodes = doc["nodes"] if doc else []
        self.table.setRowCount(len(nodes))
        for r, node in enumerate(nodes):
            for c, text in enumerate(fleet.cells(node, columns, self.lang)):
                self.table.setItem(r, c, QTableWidgetItem(text))
