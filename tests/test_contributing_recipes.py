"""CONTRIBUTING's recipes, executed: a vendor, a runtime, a SoC (with its device family) and a
cloud that accelgui has never heard of are added from data alone (files in a folder named by
ACCELGUI_DATA_DIRS, the same shape as the shipped probes/data tables, and a family file in
ACCELGUI_FAMILY_DIRS) and appear in `accelgui --probe` of a recorded tree."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SITE = {
    "vendors.json": {"vendors": {
        "zephyr": {"name": "Zephyr Silicon", "zh": "\u6cfd\u83f2\u5c14", "pci": {"1ffe": {"kind": "accelerator"}}}}},
    "runtimes.json": {"runtimes": {
        "zephyr_rt": {"name": "the Zephyr runtime", "detect": [
            {"libraries": {"linux": ["libzephyr_rt.so"]}},
            {"line": "opt/zephyr/VERSION", "version_regex": "(\\d+\\.\\d+(?:\\.\\d+)?)"}]}}},
    "socs.json": {"platform_devices": [
        {"family": "zephyr-zpu", "kind": "npu", "vendor": "zephyr", "default_name": "ZPU",
         "node_pattern": "^[0-9a-f]+\\.zpu$",
         "details": [{"key": "tops_int8_spec", "fact": "tops_int8"}],
         "socs": {"zephyr,zx100": {"name": "ZX100 ZPU", "tops_int8": 4}}}]},
    "platforms.json": {
        "clouds": [{"provider": "zephyr-cloud", "when": {"fact": "sys_vendor", "equals": "Zephyr Cloud"},
                    "instance_type": {"fact": "product_name", "when": {"fact": "product_name", "shape": "instance"}}}],
        "dmi_hypervisors": [{"vendor": "KVM", "when": {"fact": "sys_vendor", "equals": "Zephyr Cloud"}}]},
}


FAMILY = {
    "id": "zephyr-zpu", "name": {"en": "Zephyr ZPU", "zh": "Zephyr ZPU"}, "kind": "npu", "vendor": "zephyr",
    "claims": {"soc": ["zephyr,zx100"]},
    "drivers": {"zephyr_zpu": {"evidence": True, "nodes": ["dev/zpu[0-9]*"]}},
    "runtime": {"name": {"en": "the Zephyr runtime", "zh": "Zephyr \u8fd0\u884c\u65f6"}, "toolkits": ["zephyr_rt"]},
    "fixes": {"driver": {"en": "Load zephyr_zpu.", "zh": "\u52a0\u8f7d zephyr_zpu\u3002"},
              "runtime": {"en": "Install the Zephyr runtime.", "zh": "\u5b89\u88c5 Zephyr \u8fd0\u884c\u65f6\u3002"}},
    "segment": "embedded", "form": "integrated",
}


def _write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _tree(root: Path) -> Path:
    """A recorded tree holding one of each: a PCI accelerator of vendor 1ffe, the runtime's
    version file and library, a ZX100 board's device tree and NPU, and the cloud's DMI strings."""
    pci = "sys/bus/pci/devices/0000:05:00.0"
    for name, value in (("vendor", "0x1ffe"), ("device", "0x0001"), ("class", "0x120000")):
        _write(root, f"{pci}/{name}", value + "\n")
    _write(root, "opt/zephyr/VERSION", "Zephyr RT 3.1.4 (build 77)\n")
    _write(root, "usr/lib/libzephyr_rt.so.3.1.4")
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/compatible").write_bytes(b"zephyr,zx100-evk\0zephyr,zx100\0")
    zpu = root / "sys/bus/platform/devices/ff000000.zpu"
    zpu.mkdir(parents=True)
    (root / "sys/bus/platform/drivers/zephyr_zpu").mkdir(parents=True)
    (zpu / "driver").symlink_to("../../drivers/zephyr_zpu")
    _write(root, "dev/zpu0")
    _write(root, "sys/class/dmi/id/sys_vendor", "Zephyr Cloud\n")
    _write(root, "sys/class/dmi/id/product_name", "z1.large\n")
    _write(root, "proc/sys/kernel/osrelease", "6.8.0-zephyr\n")
    return root


def _probe(tree: Path, site: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ACCELGUI_DATA_DIRS", "ACCELGUI_FAMILY_DIRS")}
    if site is not None:
        env["ACCELGUI_DATA_DIRS"] = str(site)
        env["ACCELGUI_FAMILY_DIRS"] = str(site / "families")
    res = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--format", "json", "--sysroot", str(tree)],
                         capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    base = tmp_path_factory.mktemp("recipes")
    tree, site = _tree(base / "tree"), base / "site"
    site.mkdir()
    for name, table in SITE.items():
        (site / name).write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    (site / "families").mkdir()
    (site / "families/zephyr-zpu.json").write_text(json.dumps(FAMILY), encoding="utf-8")
    return {"without": _probe(tree, None), "with": _probe(tree, site)}


def _pci(report: dict) -> dict:
    return next(d for d in report["devices"] if d.get("pci_id") == "1ffe:0001")


def test_a_vendor_from_data_names_its_devices(reports):
    assert _pci(reports["without"])["vendor"] == "pci-1ffe"
    dev = _pci(reports["with"])
    assert dev["vendor"] == "zephyr" and dev["kind"] == "accelerator"


def test_a_runtime_from_data_is_a_toolkit_of_the_report(reports):
    assert "zephyr_rt" not in reports["without"]["software"]["toolkits"]
    assert reports["with"]["software"]["toolkits"]["zephyr_rt"] == "3.1.4"


def test_a_soc_from_data_gives_its_accelerator(reports):
    assert not [d for d in reports["without"]["devices"] if d.get("kind") == "npu"]
    (npu,) = [d for d in reports["with"]["devices"] if d.get("kind") == "npu"]
    assert (npu["family"], npu["vendor"], npu["name"]) == ("zephyr-zpu", "zephyr", "Zephyr Silicon ZX100 ZPU")
    assert npu["details"]["soc"] == "zx100" and npu["details"]["tops_int8_spec"] == 4
    assert (npu["driver"], npu["readiness"]) == ("zephyr_zpu", "ready")     # its runtime: zephyr_rt


def test_a_cloud_from_data_is_the_reports_cloud(reports):
    assert reports["without"]["platform"]["cloud"] is None
    platform = reports["with"]["platform"]
    assert platform["cloud"] == {"provider": "zephyr-cloud", "instance_type": "z1.large"}
    assert platform["virtualization"] == "kvm"


@pytest.fixture
def site_dir(tmp_path, monkeypatch):
    """An empty ACCELGUI_DATA_DIRS folder; the tables are read afresh before and after."""
    from accelgui.probes import datafiles

    monkeypatch.setenv("ACCELGUI_DATA_DIRS", str(tmp_path))
    datafiles.reset()
    yield tmp_path
    monkeypatch.delenv("ACCELGUI_DATA_DIRS")
    datafiles.reset()


def _left_out(site: Path, name: str, make) -> list[tuple[str, str]]:
    from accelgui.probes import datafiles

    make(site / name)
    shipped = json.loads((ROOT / "probes/data" / name).read_text(encoding="utf-8"))
    assert datafiles.load(name) == shipped          # the shipped table is kept whole
    return datafiles.problems(name)


@pytest.mark.parametrize(("name", "make", "reason", "why"), [
    ("vendors.json", lambda p: p.write_text("{not json"), "unparseable", "vendors.json: not valid JSON"),
    ("vendors.json", lambda p: p.write_text("[]"), "unparseable", "vendors.json: expected a JSON object"),
    ("vendors.json", lambda p: p.write_text('{"vendors": {"acme": "Acme"}}'), "unparseable",
     "vendors.json: vendors.acme: must be an object (got a string)"),
    ("runtimes.json", lambda p: p.write_text('{"runtimes": {"acme_rt": {"name": "x", "detect": "libacme"}}}'),
     "unparseable", "runtimes.json: runtimes.acme_rt.detect: must be a list (got a string)"),
    ("socs.json", lambda p: p.write_text('{"platform_devices": [{"family": "acme", "kind": "npu"}]}'),
     "unparseable", "socs.json: platform_devices[0]."),
    ("platforms.json", lambda p: p.write_text(
        '{"clouds": [{"provider": "acme", "when": {"fact": "sys_vendor", "equal": "Acme"}}]}'),
     "unparseable", "platforms.json: clouds[0].when.equal: unknown field"),
    ("vendors.json", lambda p: p.write_bytes(b" " * (5 << 20) + b"{}"), "unreadable", "larger than 4 MiB"),
    ("vendors.json", lambda p: os.mkfifo(p), "not-a-file", "not a regular file"),
    ("vendors.json", lambda p: p.symlink_to("/dev/zero"), "not-a-file", "not a regular file"),
    ("vendors.json", lambda p: p.mkdir(), "not-a-file", "not a regular file"),
])
def test_a_broken_site_table_is_left_out_with_a_clear_reason(site_dir, name, make, reason, why):
    ((what, got),) = _left_out(site_dir, name, make)
    assert got == reason and why in what and str(site_dir) in what, what


def test_a_site_table_behind_a_link_is_read(site_dir, tmp_path_factory):
    from accelgui.probes import datafiles, ids

    elsewhere = tmp_path_factory.mktemp("elsewhere") / "vendors.json"
    elsewhere.write_text(json.dumps(SITE["vendors.json"]), encoding="utf-8")
    (site_dir / "vendors.json").symlink_to(elsewhere)
    ids._vendor_index.cache_clear()
    try:
        assert datafiles.problems("vendors.json") == []
        assert ids.vendor_name("zephyr") == "Zephyr Silicon" and ids.vendor_name("nvidia") == "NVIDIA"
    finally:
        ids._vendor_index.cache_clear()


def test_a_left_out_site_table_is_a_warning_of_the_report(tmp_path):
    """The report still comes, with the shipped tables, and says which file was not used."""
    tree, site = _tree(tmp_path / "tree"), tmp_path / "site"
    site.mkdir()
    (site / "vendors.json").write_text('{"vendors": {"zephyr": {"name": "Zephyr", "pci": {"1ffe": 1}}}}')
    (site / "runtimes.json").write_text("{not json")
    env = {k: v for k, v in os.environ.items() if k != "ACCELGUI_FAMILY_DIRS"}
    env["ACCELGUI_DATA_DIRS"] = str(site)
    res = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--format", "json", "--sysroot", str(tree)],
                         capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(res.stdout)
    probes = {p["name"]: p for p in report["probes"]}
    assert probes["platform"]["status"] == probes["software"]["status"] == "partial"
    (vendors,) = probes["platform"]["warnings"]
    assert "vendors.json: vendors.zephyr.pci.1ffe: must be an object (got a number)" in vendors["path"]
    assert "runtimes.json: not valid JSON" in probes["software"]["warnings"][0]["path"]
    assert _pci(report)["vendor"] == "pci-1ffe"                 # the shipped table, unchanged
    assert report["platform"]["cloud"] is None


def test_a_devices_segment_comes_from_data_not_from_its_vendors_name():
    """A vendor's devices are judged by their records and the tables, never by a vendor
    named in the code: two TPUs alike but for the vendor get the same segment."""
    from accelgui import rules

    def tpu(vendor: str) -> dict:
        return {"kind": "tpu", "bus": "pci", "vendor": vendor, "name": "TPU v9"}

    assert rules.device_segment(tpu("google")) == rules.device_segment(tpu("zephyr"))
    assert rules.device_segment(dict(tpu("zephyr"), family="google-tpu")) == "data-centre"


def test_a_gpu_or_fpga_vendor_is_one_entry_of_the_vendor_table(site_dir):
    """Whether a vendor's display chips are compute GPUs, or its accelerator boards FPGAs, is
    stated in vendors.json beside its name, and the classifier follows it."""
    from accelgui.probes import datafiles, ids, inventory

    ids.curated.cache_clear()
    ids._vendor_index.cache_clear()
    assert inventory.classify_pci("1ffe", "0001", "030000") is None      # a display chip of no GPU vendor
    datafiles.reset()
    (site_dir / "vendors.json").write_text(json.dumps({"vendors": {
        "zephyr": {"name": "Zephyr Silicon", "pci": {"1ffe": {"displays": "gpu"}, "1ffd": {"accelerators": "fpga"}}}}}))
    ids.curated.cache_clear()
    ids._vendor_index.cache_clear()
    try:
        assert datafiles.problems("vendors.json") == []
        assert inventory.classify_pci("1ffe", "0001", "030000")["kind"] == "gpu"
        assert inventory.classify_pci("1ffd", "0001", "120000")["kind"] == "fpga"
        assert inventory.classify_pci("10de", "2330", "030200")["kind"] == "gpu"     # shipped ones kept
    finally:
        ids.curated.cache_clear()
        ids._vendor_index.cache_clear()
