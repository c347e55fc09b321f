"""Apple silicon under Asahi Linux (CPU named after the chip and its performance cores, the AGX
GPU as a platform device of the asahi DRM driver) and Hailo-8 / Hailo-8L, which share a PCI id.

Checked through what a user sees: ``accelgui --probe --sysroot TREE --format json --no-advice``
on the recorded trees ``soc-asahi-m1`` (GPU node compatible ``apple,agx-t8103``),
``soc-asahi-m2`` (a node with the generic ``apple,agx-g14g`` only: the SoC names it) and
``pci-hailo8l-rpi5`` (a Raspberry Pi 5 AI Kit: PCI id 1e60:2864 at Gen 2 x1).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from accelgui.probes import families, soc
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"
FAMILIES = Path(families.__file__).parent / "data" / "families"
TREES = ("soc-asahi-m1", "soc-asahi-m2", "pci-hailo8l-rpi5")


def _cli(root) -> dict:
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot", str(root),
                          "--format", "json", "--no-advice"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def reports():
    return {t: _cli(MACHINES / t) for t in TREES}


def _copy(tmp_path, tree) -> Path:
    dest = tmp_path / tree
    shutil.copytree(MACHINES / tree, dest, symlinks=True)
    return dest


# ------------------------------------------------------------------ data

@pytest.mark.parametrize("fid", ["apple-gpu", "hailo"])
def test_family_files_are_schema_valid(fid):
    schema = json.loads((FAMILIES.parent / "family.schema.json").read_text())
    jsonschema.validate(json.loads((FAMILIES / f"{fid}.json").read_text()), schema)


def test_every_apple_chip_of_the_cpu_table_has_a_gpu_row():
    chips = json.loads((Path(soc.__file__).parent / "data" / "cpu_parts.json").read_text())
    chips = chips["apple_socs"]["chips"]
    rows = families.family("apple-gpu")["specs"]["devices"]
    for compat, chip in chips.items():
        row = next(r for r in rows if compat in r["ids"])
        assert row["name"] == f"{chip['name']} GPU"
        assert f"apple,agx-{compat.split(',')[1]}" in row["ids"]
    assert set(families.family("apple-gpu")["claims"]["soc"]) == set(chips)


# ------------------------------------------------------------------ Apple M1 / M2 under Asahi

@pytest.mark.parametrize("tree,model,uarch,perf,eff", [
    ("soc-asahi-m1", "Apple M1 (Firestorm-M1)", "m1", "Firestorm-M1", "Icestorm-M1"),
    ("soc-asahi-m2", "Apple M2 (Avalanche-M2)", "m2", "Avalanche-M2", "Blizzard-M2"),
])
def test_apple_cpu_is_named_after_the_chip_and_its_performance_cores(reports, tree, model, uarch,
                                                                     perf, eff):
    c = reports[tree]["cpu"]
    assert (c["vendor"], c["vendor_id"], c["arch"]) == ("apple", "Apple", "aarch64")
    assert (c["model_name"], c["microarchitecture"]) == (model, uarch)
    kinds = {t["model_name"]: t for t in c["core_types"]}
    assert set(kinds) == {perf, eff}                       # both kinds of core stay listed
    assert kinds[perf]["cpus"] == kinds[eff]["cpus"] == 4
    assert (c["logical_cpus"], c["threads_per_core"], c["sockets"]) == (8, 1, 1)


@pytest.mark.parametrize("tree,name,generation", [
    ("soc-asahi-m1", "Apple M1 GPU", "AGX G13G"), ("soc-asahi-m2", "Apple M2 GPU", "AGX G14G"),
])
def test_asahi_gpu_is_a_device(reports, tree, name, generation):
    gpus = [d for d in reports[tree]["devices"] if d["kind"] == "gpu"]
    assert len(gpus) == 1
    g = gpus[0]
    assert (g["vendor"], g["name"], g["bus"], g["address"], g["driver"]) == \
        ("apple", name, "platform", "206400000.gpu", "asahi")
    assert g["integrated"] is True and g["family"] == "apple-gpu"
    assert g["readiness"] == "ready"
    assert [s["ok"] for s in g["ladder"][:3]] == [True, True, True]
    d = g["details"]
    assert d["memory_shared"] is True
    assert d["memory_source"] == "system memory (shared with the CPU)" and d["memory_bytes"] > 8 << 30
    assert d["render_node"] == "/dev/dri/renderD128" and d["device_nodes"] == ["/dev/dri/renderD128"]
    assert d["generation"] == generation and d["form"] == "integrated"
    assert d["specification"]["name"] == name and d["specification"]["match"] == "id"


def test_asahi_devices_are_schema_valid(reports):
    import accelgui

    schema = json.loads((Path(accelgui.__file__).parent / "report.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for tree in TREES:
        for dev in reports[tree]["devices"]:
            errors = list(validator.evolve(schema=schema["$defs"]["device"]).iter_errors(dev))
            assert not errors, (tree, dev["name"], [e.message for e in errors[:3]])


def test_asahi_gpu_without_its_driver(tmp_path):
    """A kernel without the asahi driver: no driver link, no DRM folder, no render node. The
    node's own compatible still names the GPU, and the ladder stops at the driver."""
    root = _copy(tmp_path, "soc-asahi-m1")
    gpu = root / "sys/devices/platform/soc/206400000.gpu"
    os.remove(gpu / "driver")
    shutil.rmtree(gpu / "drm")
    (gpu / "uevent").write_text("OF_NAME=gpu\nOF_COMPATIBLE_0=apple,agx-t8103\n")
    os.remove(root / "sys/class/drm/renderD128")
    os.remove(root / "dev/dri/renderD128")
    g, = [d for d in _cli(root)["devices"] if d["kind"] == "gpu"]
    assert g["name"] == "Apple M1 GPU" and g["driver"] is None      # its own compatible names it
    assert g["readiness"] == "driver-missing" and "Asahi" in g["fix"]


def test_asahi_gpu_without_its_render_node(tmp_path):
    root = _copy(tmp_path, "soc-asahi-m1")
    os.remove(root / "dev/dri/renderD128")
    g, = [d for d in _cli(root)["devices"] if d["kind"] == "gpu"]
    assert g["readiness"] != "ready"
    node = next(s for s in g["ladder"] if s["step"] == "node")
    assert node["ok"] is False


def test_a_generic_node_needs_the_familys_driver(tmp_path):
    """A render node whose own compatible is generic is the SoC's GPU only when the asahi
    driver drives it."""
    root = _copy(tmp_path, "soc-asahi-m2")
    link = root / "sys/devices/platform/soc/206400000.gpu/driver"
    os.remove(link)
    os.symlink("../../../../bus/platform/drivers/panfrost", link)
    (root / "sys/devices/platform/soc/206400000.gpu/uevent").write_text("DRIVER=panfrost\n")
    assert [d for d in _cli(root)["devices"] if d["kind"] == "gpu"] == []


def test_other_socs_do_not_gain_a_gpu():
    """The Rockchip board's Mali render node (no of_node compatible) and the Jetson's GPU stay
    as the Rockchip and Tegra rules report them."""
    for tree in ("acc-rockchip-rk3588", "acc-jetson-orin", "acc-hailo8"):
        found = soc.probe(ProbeContext(root=str(MACHINES / tree)))["soc_devices"]
        assert not [d for d in found if d.get("family") == "apple-gpu"], tree


def test_the_soc_probe_on_a_tree_without_a_device_tree():
    got = soc.probe(ProbeContext(root=str(MACHINES / "x86-lunar-lake")))
    assert got["soc_devices"] == []


# ------------------------------------------------------------------ Hailo-8 / Hailo-8L

def test_hailo_shared_id_gives_both_products(reports):
    dev, = reports["pci-hailo8l-rpi5"]["devices"]
    assert (dev["pci_id"], dev["family"], dev["driver"]) == ("1e60:2864", "hailo", "hailo_pci")
    spec = dev["details"]["specification"]
    assert spec["name"] == "Hailo-8 / Hailo-8L" and spec["match"] == "id"
    row = families.device_spec("hailo", pci_id="1e60:2864", name=dev["name"])
    assert "26 TOPS" in row["note"] and "13 TOPS" in row["note"]
    assert "budget at the smaller figure, 13 TOPS" in row["note"]
    assert dev["details"]["pcie"]["current_gts"] == 5.0


def test_hailo_family_says_how_to_tell_them_apart_in_both_languages():
    text = families.text("hailo", "fixes", "runtime")
    for lang in ("en", "zh"):
        assert "hailortcli fw-control identify" in text[lang]
        assert "HAILO8L" in text[lang] and "HAILO8" in text[lang]
        assert "1e60:2864" in text[lang]


def test_the_same_tree_for_a_hailo_8_gives_the_same_answer():
    """Nothing in sysfs tells a Hailo-8 from a Hailo-8L (hailo_pci binds both as
    HAILO_BOARD_TYPE_HAILO8): the recorded Hailo-8 tree reads the same."""
    for tree in ("acc-hailo8", "pci-hailo8l-rpi5"):
        spec = families.device_spec("hailo", pci_id="1e60:2864")
        assert spec["name"] == "Hailo-8 / Hailo-8L", tree


def test_hailo_device_name_names_both(reports, tmp_path):
    dev, = reports["pci-hailo8l-rpi5"]["devices"]
    assert "Hailo-8L" in dev["name"] and "Hailo-8" in dev["name"]
    assert dev["details"]["tops_int8_spec"] == 13          # budgeted at the smaller chip
    # an id database that names the id after one of them does not win either
    import shutil

    root = tmp_path / "t"
    shutil.copytree(MACHINES / "pci-hailo8l-rpi5", root, symlinks=True)
    (root / "usr/share/misc").mkdir(parents=True, exist_ok=True)
    (root / "usr/share/misc/pci.ids").write_text(
        "1e60  Hailo Technologies Ltd.\n\t2864  Hailo-8 AI Processor\n")
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    named, = [d for d in run_probes(ProbeContext(root=str(root))).to_dict()["devices"]
              if d["pci_id"] == "1e60:2864"]
    assert "Hailo-8 / Hailo-8L" in named["name"]
    assert named["details"]["pci_ids_name"] == "Hailo-8 AI Processor"


def test_apple_cpu_of_a_chip_whose_parts_lscpu_does_not_know(tmp_path):
    """An M3 (t8122): no part names yet; the chip alone names the CPU."""
    root = _copy(tmp_path, "soc-asahi-m1")
    for rel in ("proc/device-tree/compatible", "sys/firmware/devicetree/base/compatible"):
        (root / rel).write_bytes(b"apple,j504\0apple,t8122\0apple,arm-platform\0")
    text = (root / "proc/cpuinfo").read_text()
    (root / "proc/cpuinfo").write_text(text.replace("0x022", "0x048").replace("0x023", "0x049"))
    from accelgui.probes import cpu

    got = cpu.probe(ProbeContext(root=str(root)))["cpu"]
    assert (got["vendor"], got["model_name"], got["microarchitecture"]) == ("apple", "Apple M3", "m3")


def test_apple_cpu_without_a_device_tree_is_named_after_its_performance_cores(tmp_path):
    root = _copy(tmp_path, "soc-asahi-m1")
    shutil.rmtree(root / "proc/device-tree")
    shutil.rmtree(root / "sys/firmware")
    from accelgui.probes import cpu

    got = cpu.probe(ProbeContext(root=str(root)))["cpu"]
    assert got["model_name"] == "Firestorm-M1" and "codename" not in got
