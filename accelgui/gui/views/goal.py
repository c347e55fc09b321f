"""The learner's goal picker: "No particular goal" and the advisor's goals (advisor.GOALS),
labelled from the message catalogue. The window saves the choice with the learning progress
(accelgui.progress.set_goal, the file ``accelgui --goal`` writes) and re-runs the advice."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from accelgui.advisor import GOALS, goal_label
from accelgui.advisor import assessed_goal as _assessed


def assessed_goal(report) -> str | None:
    """The goal the report's routes were assessed for (None: no particular goal)."""
    return _assessed(report.routes if report is not None else ())


class GoalPicker(QComboBox):
    """Items: "No particular goal" (data "") then each goal (data: its id). ``label`` is its
    "My goal:" label (Alt+G). ``left`` tells when the user moved the focus elsewhere, not
    when the page was rebuilt under it nor when its own list opened."""

    left = Signal()

    def __init__(self, lang: str, goal: str | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("goalPicker")
        self.addItem(self.tr("No particular goal"), "")
        for gid in GOALS:
            self.addItem(goal_label(gid, lang), gid)
        self.setCurrentIndex(max(0, self.findData(goal or "")))
        self.setAccessibleName(self.tr("Learning goal"))
        self.setToolTip(self.tr("What you want to learn: the next steps are ranked for it. "
                                "Saved with your progress, like accelgui --goal."))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.label = QLabel(self.tr("My &goal:"))
        self.label.setBuddy(self)

    def goal(self) -> str | None:
        return self.currentData() or None

    def take_focus(self) -> None:
        """Take the keyboard focus once the picker is on screen (it is built off screen)."""
        QTimer.singleShot(0, self, self.setFocus)

    def focusOutEvent(self, event) -> None:
        if self.isVisible() and event.reason() not in (Qt.FocusReason.PopupFocusReason,
                                                       Qt.FocusReason.ActiveWindowFocusReason):
            self.left.emit()
        super().focusOutEvent(event)
