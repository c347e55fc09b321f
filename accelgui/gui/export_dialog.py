"""Export the shown report: format, file, and redaction (on by default)."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QVBoxLayout, QWidget)

from accelgui.export import EXTENSIONS
from accelgui.export import FORMATS as EXPORT_FORMATS
from accelgui.gui.views.common import READINESS_COLOURS

FORMATS = tuple(EXPORT_FORMATS)        # the exporters' formats, in their order


def default_path(report, fmt: str, directory: str | None = None) -> str:
    directory = directory or os.path.expanduser("~")
    stamp = time.strftime("%Y%m%d")
    return os.path.join(directory, f"accelgui-report-{stamp}{EXTENSIONS.get(fmt, '.' + fmt)}")


def export_report(report, fmt: str, path: str, redacted: bool = True, lang: str = "en") -> None:
    """Render and write atomically; raises OSError/ValueError/ImportError with a clear message."""
    if redacted:
        from accelgui.redact import redact

        report = redact(report)
    from accelgui.atomic import write_atomic
    from accelgui.export import render

    write_atomic(path, render(report, fmt, lang=lang))


class ExportDialog(QDialog):
    def __init__(self, report, lang: str = "en", fmt: str = "json", directory: str | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.report = report
        self.lang = lang
        self.written: str | None = None
        self.setModal(True)
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        form = QFormLayout()
        self.format = QComboBox()
        for f in FORMATS:
            self.format.addItem("", f)
        form.addRow("", self.format)
        self.format_label = form.labelForField(self.format)
        path_row = QHBoxLayout()
        self.path = QLineEdit(default_path(report, fmt, directory))
        path_row.addWidget(self.path, 1)
        self.browse = QPushButton()
        self.browse.clicked.connect(self._browse)
        path_row.addWidget(self.browse)
        holder = QWidget()
        holder.setLayout(path_row)
        path_row.setContentsMargins(0, 0, 0, 0)
        form.addRow("", holder)
        self.path_label = form.labelForField(holder)
        layout.addLayout(form)
        self.redact = QCheckBox()
        self.redact.setChecked(True)
        layout.addWidget(self.redact)
        self.redact_help = QLabel()
        self.redact_help.setWordWrap(True)
        self.redact_help.setContentsMargins(24, 0, 0, 0)
        layout.addWidget(self.redact_help)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet(f"color: {READINESS_COLOURS['driver-missing']}; font-weight: 600;")
        self.error.hide()
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.format.setCurrentIndex(max(0, FORMATS.index(fmt) if fmt in FORMATS else 0))
        self.format.currentIndexChanged.connect(self._format_changed)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Export report"))
        self.intro.setText(self.tr("Save the report shown now in a format to share or to feed "
                                   "other tools. Nothing is sent anywhere."))
        names = {
            "json": self.tr("JSON (the full report, machine-readable)"),
            "markdown": self.tr("Markdown (for forums and issue trackers)"),
            "html": self.tr("HTML (one self-contained page, printable)"),
            "pdf": self.tr("PDF"),
            "text": self.tr("Plain text"),
            "prometheus": self.tr("Prometheus textfile (node_exporter)"),
            "nfd": self.tr("Kubernetes Node Feature Discovery labels"),
        }
        for i, f in enumerate(FORMATS):
            self.format.setItemText(i, names[f])
        if self.format_label is not None:
            self.format_label.setText(self.tr("Format:"))
        if self.path_label is not None:
            self.path_label.setText(self.tr("File:"))
        self.browse.setText(self.tr("Choose…"))
        self.redact.setText(self.tr("Redact identifying details"))
        self.redact_help.setText(self.tr("Removes the host name, serial numbers, UUIDs, MAC "
                                         "addresses and user names from the exported file."))

    def selected_format(self) -> str:
        return self.format.currentData()

    def _format_changed(self) -> None:
        fmt = self.selected_format()
        path = self.path.text().strip()
        root, ext = os.path.splitext(path)
        known = set(EXTENSIONS.values())
        if path and (ext in known or not ext):
            self.path.setText(root + EXTENSIONS.get(fmt, "." + fmt))
        self.error.hide()

    def _browse(self) -> None:
        fmt = self.selected_format()
        ext = EXTENSIONS.get(fmt, "." + fmt)
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export report"), self.path.text(),
                                              f"{self.format.currentText()} (*{ext});;"
                                              + self.tr("All files (*)"))
        if path:
            self.path.setText(path)

    def save(self) -> bool:
        path = os.path.expanduser(self.path.text().strip())
        if not path:
            self._fail(self.tr("Choose a file to write."))
            return False
        fmt = self.selected_format()
        try:
            export_report(self.report, fmt, path, redacted=self.redact.isChecked(), lang=self.lang)
        except ImportError as exc:
            self._fail(self.tr("The {fmt} exporter is not available in this installation ({error}).")
                       .format(fmt=fmt, error=exc))
            return False
        except Exception as exc:  # noqa: BLE001 - any failure is shown, the dialog stays open
            self._fail(self.tr("Could not export: {error}").format(error=exc))
            return False
        self.written = path
        self.accept()
        return True

    def _fail(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
