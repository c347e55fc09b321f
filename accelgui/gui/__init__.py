"""The desktop app (PySide6 + pyqtgraph). Qt is imported only under this package.

``run_app(argv)`` in :mod:`accelgui.gui.app` is the entry point; the views render an immutable
:class:`accelgui.report.Report`; probing runs in a worker thread and benchmarks in a child
process (:mod:`accelgui.gui.workers`).
"""
