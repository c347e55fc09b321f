"""Grab every view of the app offscreen at 1280x800 into docs/screenshots/.

    python tests/benchmarks/screenshots.py [--out DIR] [--report FILE]

Uses tests/fixtures/reports/rich.json (a recorded 8-GPU server) re-assessed by the advisor,
or the built-in laptop report of tests/gui_support.py when that file is missing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "screenshots"))
    p.add_argument("--report", default=None)
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    os.environ["ACCELGUI_DATA_DIR"] = tempfile.mkdtemp(prefix="accelgui-shots-")

    from PySide6.QtWidgets import QApplication, QWidget

    from accelgui.gui import i18n
    from accelgui.gui.app import create_app
    from accelgui.gui.main_window import AppOptions, MainWindow
    from accelgui.gui.workers import advise_report, load_knowledge_base
    from accelgui.progress import mark_done
    from accelgui.report import load_report
    from gui_support import RICH_JSON, built_rich_report, cpu_only_report

    app = create_app([])
    for step in ("cpu.numpy-vectorise", "gpu.setup-check"):
        mark_done(step)
    if args.report:
        report = load_report(args.report)
    elif os.path.exists(RICH_JSON):
        report = load_report(RICH_JSON)
    else:
        report = built_rich_report()
    report = advise_report(report, None, "en")

    shots = tempfile.mkdtemp(prefix="accelgui-shots-")

    def window_for(report, lang="en"):
        """A window showing ``report`` opened as a saved report (as File > Open does), so every
        page names the machine it shows, and this computer where a page acts on it."""
        i18n.install(lang)
        w = MainWindow(AppOptions(probe=False, lang=lang))
        w.resize(1280, 800)
        w.show()
        w.kb, w.done = load_knowledge_base(None)
        path = os.path.join(shots, f"dgx-h100-07-{lang}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(report.to_json())
        w.open_report_file(path)
        deadline = time.monotonic() + 30
        while w.state.opening and time.monotonic() < deadline:
            app.processEvents()
        settle()
        return w

    def settle():
        import time

        for _ in range(6):
            app.processEvents()
        deadline = time.monotonic() + 20      # the Benchmarks page builds its plots step by step
        while any(getattr(v, "building", False) for v in QApplication.topLevelWidgets()
                  for v in [v, *v.findChildren(QWidget)]) and time.monotonic() < deadline:
            app.processEvents()

    def grab(w, name):
        settle()
        path = os.path.join(args.out, name)
        w.grab().save(path)
        print(path)

    w = window_for(report)
    w.benchmark_at = None
    for page in ("overview", "hardware", "benchmarks", "routes"):
        w.show_page(page)
        grab(w, f"{page}.png")
    w.open_route("gpu")
    grab(w, "route-detail.png")
    w.routes.show_list()
    # compare: this report against a CPU-only cloud VM
    tmp = tempfile.mkdtemp(prefix="accelgui-shots-")
    a = os.path.join(tmp, "dgx-h100.json")
    b = os.path.join(tmp, "cloud-vm.json")
    with open(a, "w", encoding="utf-8") as f:
        f.write(report.to_json())
    with open(b, "w", encoding="utf-8") as f:
        f.write(advise_report(cpu_only_report(), None, "en").to_json())
    w.show_page("reports")
    w.reports.path_a.setText(a)
    w.reports.path_b.setText(b)
    w.reports.compare()
    grab(w, "compare.png")
    w.close()

    grab_monitor(app, args.out, report, settle)

    from accelgui.gui.export_dialog import ExportDialog

    dialog = ExportDialog(report, fmt="html", directory=os.path.expanduser("~"))
    dialog.show()
    settle()
    path = os.path.join(args.out, "export-dialog.png")
    dialog.grab().save(path)
    print(path)
    dialog.close()

    from accelgui.gui.app import apply_theme

    apply_theme(app, "dark")
    dark = window_for(report)
    grab(dark, "overview-dark.png")
    dark.show_page("benchmarks")
    grab(dark, "benchmarks-dark.png")
    dark.close()
    apply_theme(app, "light")

    zh = window_for(advise_report(report, None, "zh"), "zh_CN")
    grab(zh, "overview-zh_CN.png")
    zh.open_route("gpu")
    grab(zh, "route-detail-zh_CN.png")
    zh.close()
    i18n.install("en")
    QApplication.processEvents()
    return 0


def grab_monitor(app, out: str, report, settle) -> None:
    """The Monitor page sampling a recorded tree (an AMD GPU, an Intel NPU, hwmon sensors) and
    two fake NVML GPUs with a process each, every device overlaid, for about ten seconds."""
    import tempfile
    import time

    from monitor_support import TelemetryTree, gpu, monitor_nvml

    from accelgui.gui.main_window import AppOptions, MainWindow
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler

    tree = TelemetryTree(tempfile.mkdtemp(prefix="accelgui-shots-") + "/root")
    nv = monitor_nvml([gpu(0), gpu(1, util=(23, 5), temp=48, power_mw=210000)])
    w = MainWindow(AppOptions(probe=False, monitor_sampler=lambda: Sampler(ProbeContext(tree.root), nvml=nv)))
    w.resize(1280, 800)
    w.show()
    w.live_report = report
    w.refresh()
    w.monitor.set_interval(0.5)
    w.show_page("monitor")
    w.monitor.overlay.setChecked(True)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    settle()
    path = os.path.join(out, "monitor.png")
    w.grab().save(path)
    print(path)
    w.close()


if __name__ == "__main__":
    sys.exit(main())
