"""The desktop app (PySide6 + pyqtgraph). Qt is imported only under this package.

``run_app(argv)`` in :mod:`accelgui.gui.app` is the entry point; the views render an immutable
:class:`accelgui.report.Report`; probing runs in a worker thread and benchmarks in a child
process (:mod:`accelgui.gui.workers`).
"""

from accelgui.extras import require as _require

# the headless install (`pip install accelgui`) has no Qt: say how to add it, exit 2, no traceback
_require("gui", "the desktop app")
