"""What every PyInstaller spec of accelgui bundles (Linux one-folder, macOS .app, Windows):
the installed package's data files, the modules imported by name at run time, and what to
leave out. Read by the specs with ``exec`` (a spec is not a module PyInstaller imports)."""

from PyInstaller.utils.hooks import collect_data_files, collect_submodules


def bundle_inputs() -> dict:
    datas = []
    for pkg in ("accelgui", "accelgui.probes", "accelgui.knowledge", "accelgui.resources",
                "pyqtgraph", "archspec"):
        datas += collect_data_files(pkg)
    # Probes (every OS's backend), exporters and views are imported by name at run time;
    # pyqtgraph has its own hook.
    hidden = collect_submodules("accelgui") + ["pynvml", "psutil", "platformdirs", "threadpoolctl"]
    excludes = ["tkinter", "PySide6.QtWebEngineCore", "PySide6.Qt3DCore", "matplotlib",
                "pyqtgraph.examples", "pyqtgraph.opengl", "PyQt5", "PyQt6", "PySide2"]
    return {"datas": datas, "hiddenimports": hidden, "excludes": excludes}
