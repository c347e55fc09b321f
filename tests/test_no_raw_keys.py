"""No page of the app shows a raw key, in English or in Chinese: every page (the Hardware
page's sub-pages, the Benchmarks "All figures" table with the raw toggle off, the Reports page
after a comparison, folded and unfolded, each route's details, each Reference table, the Monitor
with a recorded telemetry tree) is visited for the rich recorded report, and the pages drawn from
the report (Overview, Hardware, Benchmarks, the route list, Reports) for reports probed from
recorded machine trees and other recorded reports; every visible text is checked by
:func:`page_texts.raw_keys`. The raw toggle turned on must be caught (the check reaches the
table and can fail).

``ACCELGUI_TEST_THIS_MACHINE=1`` adds a report probed from this computer (it reads /sys and
/proc, so it is not part of the default run).
"""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

sys.path.insert(0, os.path.dirname(__file__))
from gui_support import cpu_only_report, rich_report
from monitor_support import TelemetryTree, gpu, monitor_nvml
from page_texts import Seen, Vocabulary, raw_keys, visible_texts

from accelgui.gui import i18n
from accelgui.gui.main_window import PAGES, AppOptions, MainWindow

pytestmark = pytest.mark.gui
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _fixture(name):
    def load():
        from accelgui.report import load_report

        return load_report(os.path.join(FIXTURES, "reports", name + ".json"))
    return load


def _probed(machine):
    def probe():
        from accelgui.gui.workers import probe_machine

        return probe_machine(os.path.join(FIXTURES, "machines", machine))
    return probe


def _this_machine():
    from accelgui.gui.workers import probe_machine

    return probe_machine("/")


REPORTS = {
    "rich": rich_report,
    "rich, opened": rich_report,        # the same report opened from a file (report mode)
    "cpu-only": cpu_only_report,
    "minimal": _fixture("minimal"),
    "acc-dgx-h100": _probed("acc-dgx-h100"),
    "acc-gpu-no-driver": _probed("acc-gpu-no-driver"),
    "win-laptop-meteorlake-rtx4060": _probed("win-laptop-meteorlake-rtx4060"),
    "mac-m2-air-zh": _probed("mac-m2-air-zh"),
}
FULL = "rich"           # the report whose window is visited page by page, every page
OPENED = {"rich, opened"}   # shown as an opened report file, not as this computer
if os.environ.get("ACCELGUI_TEST_THIS_MACHINE") == "1":
    REPORTS["this-machine"] = _this_machine


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    yield
    i18n.install("en")


def _settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window._tasks, timeout=30000)


class Visit:
    """The texts seen on each page of one window, in one language."""

    # the pages whose content does not come from the report: visited for one report only
    REPORT_FREE = ("monitor", "reference", "fleet", "routes/details")

    def __init__(self, qtbot, window, lang: str, other_report_path: str, full: bool = True):
        self.qtbot, self.window, self.lang = qtbot, window, lang
        self.other = other_report_path
        self.skip = () if full else self.REPORT_FREE
        self.seen: list[tuple[str, Seen]] = []

    def collect(self, page: str) -> None:
        self.seen += [(page, s) for s in visible_texts(self.window)]

    def all_pages(self) -> list[tuple[str, Seen]]:
        for page in [p for p in PAGES if p not in self.skip]:
            self.window.show_page(page)
            _settle(self.qtbot, self.window)
            getattr(self, "_" + page, self.collect)(page)
            self.each_tab(page)
        return self.seen

    def _hardware(self, page: str) -> None:
        view = self.window.hardware
        for sub in [p.id for p in view.pages]:
            view.show_page(sub)
            self.collect(f"{page}/{sub}")
        view.show_page("summary")

    def _benchmarks(self, page: str) -> None:
        view = self.window.benchmarks
        self.qtbot.waitUntil(lambda: not view.building, timeout=30000)
        view.raw_toggle.setChecked(False)
        if self.window.report.benchmarks:
            assert view._table is not None and view._table.isVisible(), "the All figures table is not shown"
        self.collect(page)

    def _monitor(self, page: str) -> None:
        view = self.window.monitor
        view.set_interval(0.5)
        self.qtbot.waitUntil(lambda: view.samples_seen >= 2, timeout=15000)
        for row in range(min(view.table.rowCount(), 4)):        # each row's plots
            view.table.selectRow(row)
            self.collect(page)
        view.overlay.setChecked(True)           # every device on the plots: their legends
        self.collect(page + "/overlay")
        view.overlay.setChecked(False)

    def each_tab(self, page: str) -> None:
        """Every tab of the page's tab widgets shown in turn (one tab's contents at a time)."""
        from PySide6.QtWidgets import QTabWidget

        for tabs in self.window.views[page].findChildren(QTabWidget):
            if not tabs.isVisible():
                continue
            current = tabs.currentIndex()
            for i in range(tabs.count()):
                tabs.setCurrentIndex(i)
                self.qtbot.wait(50)             # a tab draws its contents when it is shown
                self.collect(f"{page}/{tabs.tabText(i)}")
            tabs.setCurrentIndex(current)

    def _routes(self, page: str) -> None:
        view = self.window.routes
        self.collect(page)
        if "routes/details" in self.skip:
            return
        for rid in list(self.window.kb.routes):
            view.open_route(rid)
            self.collect(f"{page}/{rid}")
        view.show_list()

    def _reference(self, page: str) -> None:
        view = self.window.reference
        self.qtbot.waitUntil(lambda: view.picker.count() > 0, timeout=15000)
        for i in range(view.picker.count()):
            view.picker.setCurrentIndex(i)
            self.collect(f"{page}/{view.picker.currentData()}")

    def _reports(self, page: str) -> None:
        view = self.window.reports
        view.path_a.setText("")
        view.path_b.setText(self.other)
        assert view.compare(), view.result_label.text()
        self.collect(page + "/compare")
        if view.all_button.isVisible():
            view.all_button.setChecked(True)
            self.collect(page + "/compare, all")
            view.all_button.setChecked(False)


def _window(qtbot, tmp_path, report, opened: bool = False) -> MainWindow:
    """A window showing ``report`` as this computer, or, ``opened``, as a report file opened
    (the window says which machine it shows, Verify says it checks this computer)."""
    tree = TelemetryTree(tmp_path / "telemetry")
    nvml = monitor_nvml([gpu(0)])

    def sampler():
        from accelgui.probes.context import ProbeContext
        from accelgui.probes.monitor import Sampler

        return Sampler(ProbeContext(tree.root), nvml=nvml)

    window = MainWindow(AppOptions(probe=False, monitor_sampler=sampler))
    qtbot.addWidget(window)
    window.show()
    from accelgui.knowledge import load_knowledge

    window.kb = load_knowledge()
    if opened:
        path = tmp_path / "shown.json"
        path.write_text(report.to_json(), encoding="utf-8")
        window.open_report_file(str(path))
        qtbot.waitUntil(lambda: not window.showing_live and window.report is not None, timeout=30000)
    else:
        window.live_report = report
        window.refresh()
    _settle(qtbot, window)
    return window


def _findings(seen: list[tuple[str, Seen]], lang: str, vocab: Vocabulary) -> list[str]:
    out, done = [], set()
    for page, s in seen:
        for found in raw_keys(s, vocab):
            key = (found, s.text)
            if key in done:
                continue
            done.add(key)
            out.append(f"[{lang}] {page} · {s.where}: {found} in {s.text[:160]!r}")
    return out


@pytest.mark.parametrize("name", list(REPORTS))
def test_no_page_shows_a_raw_key_in_either_language(qtbot, tmp_path, name):
    report = REPORTS[name]()
    other = cpu_only_report() if REPORTS[name] is rich_report else rich_report()   # a report that differs
    other_path = tmp_path / "other.json"
    other_path.write_text(other.to_json(), encoding="utf-8")
    window = _window(qtbot, tmp_path, report, opened=name in OPENED)
    vocab = Vocabulary.of([report, other])
    full = name == FULL
    problems = _findings(Visit(qtbot, window, "en", str(other_path), full).all_pages(), "en", vocab)
    window.set_language("zh_CN")
    _settle(qtbot, window)
    problems += _findings(Visit(qtbot, window, "zh", str(other_path), full).all_pages(), "zh", vocab)
    window.set_language("en")
    assert not problems, f"{len(problems)} raw keys shown for the {name} report:\n" + "\n".join(problems)


def test_the_raw_toggle_is_caught(qtbot, tmp_path):
    """With "Show raw keys" on, the All figures table lists the section's dotted keys: the
    check must see them (it reaches the table's cells)."""
    report = rich_report()
    window = _window(qtbot, tmp_path, report)
    window.show_page("benchmarks")
    view = window.benchmarks
    qtbot.waitUntil(lambda: not view.building, timeout=30000)
    view.raw_toggle.setChecked(True)
    found = _findings([("benchmarks", s) for s in visible_texts(window)], "en", Vocabulary.of([report]))
    assert any("dotted key 'cpu.stream.triad_gbps'" in f for f in found), found


# -- the rule itself ------------------------------------------------------------------------------

def _vocab() -> Vocabulary:
    return Vocabulary.of([rich_report()])


@pytest.mark.parametrize("text", [
    "total_bytes", "os_release 22.04", "Cores per socket: cores_per_socket",
    "memory.available_bytes", "benchmarks.cpu.gemm.sgemm_gflops", "cpu.fma.accumulators 12",
    "app.label.x", "figures.q.x", "\u5185\u5b58 available_bytes",
])
def test_the_rule_finds_raw_keys(text):
    assert raw_keys(Seen("QLabel", text), _vocab()), text


@pytest.mark.parametrize("seen", [
    Seen("cell", "amd-gpu card1", cell=True, label_cell=True),
    Seen("cell", "7.3 GB/s (4.9 to 1\u2026", "Value", "STREAM triad", True),
    Seen("cell", "contract", "Quantity", "", True, True),
    Seen("cell", "nvidia-gpu", "", "Family", True),
    Seen("QLabel", "Free memory comes from memory.available_bytes."),
])
def test_the_rule_finds_family_ids_cut_values_and_field_labels(seen):
    assert raw_keys(seen, _vocab()), seen


def test_a_probe_is_named_in_words_not_by_its_id():
    vocab = Vocabulary.of([{"probes": [{"name": "gpu_nvidia", "status": "ok"}],
                            "devices": [{"name": "NVIDIA H100", "driver": "nvidia_drm"}]}])
    assert raw_keys(Seen("cell", "Probe gpu_nvidia", "What", "", True, True), vocab)
    assert not raw_keys(Seen("cell", "nvidia_drm", "", "Driver", True), vocab)
    assert raw_keys(Seen("QLabel", "peak of stream_triad"), _vocab())     # a point's label is an id


@pytest.mark.parametrize("seen", [
    Seen("QLabel", "pip install onnxruntime-gpu cupy-cuda12x"),
    Seen("QLabel", "Set <code>XLA_FLAGS=--xla_force_host_platform_device_count=8</code> first"),
    Seen("QLabel", "Set XLA_FLAGS=--xla_force_host_platform_device_count=8 first"),
    Seen("QLabel", "Run `python -c 'import torch; torch.cuda.is_available()'`"),
    Seen("QLabel", "Read /sys/class/drm/card0/device/gpu_busy_percent"),
    Seen("QLabel", "See https://docs.nvidia.com/cuda/cuda_installation_guide.html"),
    Seen("cell", "mlx5_core", "Driver", "", True),
    Seen("cell", "mlx5_core, nvidia_uvm", "", "Kernel modules", True),
    Seen("QLabel", "Linux 6.8.0-45-generic · 0000:18:00.0 · 10de:2330 · CUDAExecutionProvider"),
    Seen("QLabel", "Memory: 64 GiB, 3 of 4 probes answered."),
    Seen("QLabel", "Open report\u2026"),
    Seen("QLabel", "torch.cuda.is_available() returns True; cpu.count() as well"),
    Seen("QLabel", "\u9a71\u52a8 intel_vpu \u5df2\u7ed1\u5b9a; CPU avx512_vnni"),
])
def test_the_rule_lets_code_names_and_words_be(seen):
    assert not raw_keys(seen, _vocab()), seen
