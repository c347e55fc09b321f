"""Route verdicts a beginner can follow: the advice that was wrong on real machines, each fixed
as a general rule keyed by facts of the report (PCI ids and names, driver, compute capability,
kinds, counts, firmware) and shown here on a report or a recorded tree.

1. a CPU-only machine without numpy starts with the CPU route, not with renting hardware;
2. a route followed by simulation or emulation says so and is not "ready";
3. with a goal, an accelerator machine leads with that accelerator's steps for the goal;
4. the edge route is about edge-class devices, not the Arm ISA;
5. steps needing N devices are never local below N;
6. CUDA routes need a compute capability current CUDA supports and a driver that provides CUDA;
7. a driverless device never raises a verdict;
8. inference-only accelerators do not make training routes ready;
9. Secure Boot blocking a DKMS module is named in the fix (en + zh).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from accelgui import advisor, rules
from accelgui.knowledge import load_knowledge
from accelgui.probes import platform as platform_probe
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = Path(__file__).parent / "fixtures" / "machines"
RANK = advisor.STATUS_RANK


def _report(devices=(), arch="x86_64", features=("avx2", "fma"), cpus=8, packages=None,
            known=True, dmi=None, cloud=None, mem_gib=32):
    return {
        "platform": {"os": "Linux", "machine": arch, "cloud": cloud, "container": None,
                     "virtualization": None, "dmi": dict(dmi or {})},
        "cpu": {"arch": arch, "features": list(features), "flags": [], "logical_cpus": cpus},
        "memory": {"total_bytes": int(mem_gib * 2**30)},
        "devices": [dict(d) for d in devices],
        "software": {"packages": dict(packages or {}), "toolkits": {}, "providers": [],
                     "packages_known": known, "environments": []},
    }


def _dev(kind, vendor, name, readiness="ready", driver="x", bus="pci", family=None, **details):
    return {"kind": kind, "vendor": vendor, "name": name, "bus": bus, "driver": driver,
            "integrated": False, "readiness": readiness, "family": family, "details": details}


def _h100(n=1):
    return [_dev("gpu", "nvidia", "NVIDIA H100 80GB HBM3", driver="nvidia", compute_capability=9.0,
                 memory_bytes=80 * 10**9, segment="data-centre") for _ in range(n)]


def _assess(report, goal=None, done=()):
    return advisor.assess(report, load_knowledge(), done=frozenset(done), goal=goal)


def _by_id(assessments):
    return {a.id: a for a in assessments}


def _start(report, goal=None, n=5):
    kb = load_knowledge()
    return advisor.overall_next_steps(advisor.assess(report, kb, goal=goal), kb, n=n)


def _tree(name_or_path):
    root = name_or_path if Path(str(name_or_path)).is_absolute() else MACHINES / name_or_path
    return run_probes(ProbeContext(root=str(root)), timeout_s=10).to_dict()


def _no_python(report: dict) -> dict:
    """A fresh laptop: the Pythons were scanned and none has numpy (or anything else)."""
    return dict(report, software={"packages": {}, "toolkits": {}, "providers": [],
                                  "packages_known": True, "environments": []})


# --------------------------------------------------------------------------- 1. pip install

def test_cpu_only_machine_without_numpy_starts_with_the_cpu_route():
    report = _no_python(_tree("cpu-intel-desktop"))
    routes = _by_id(_assess(report))
    cpu = routes["cpu"]
    assert cpu.status == "partial" and cpu.verdict == "needs-setup"      # a pip install, not hardware
    assert "numpy" in cpu.fix and cpu.blocking[0]["state"] == "setup"
    start = _start(report)
    assert start[:2] == ["cpu.know-your-cpu", "cpu.numpy-vectorise"], start
    assert not any(s.startswith("cloud.") for s in start), start


def test_a_missing_pip_install_ranks_as_doable_here_even_below_a_ready_cloud_route():
    report = _report(packages={})                       # nothing installed, nothing else here
    routes = _by_id(_assess(report))
    assert routes["cloud"].status == "ready" and routes["cpu"].status == "partial"
    assert advisor._route_tier(routes["cpu"], None) < advisor._route_tier(routes["cloud"], None)
    assert _start(report)[0].startswith("cpu.")


# --------------------------------------------------------------------------- 2. simulation

def test_asic_on_an_ordinary_linux_pc_is_followed_by_simulation_not_ready():
    asic = _by_id(_assess(_tree("cpu-intel-desktop")))["asic"]
    assert asic.status == "remote"
    sim = [b for b in asic.blocking if b["fallback"] == "simulation"]
    assert sim and sim[0]["level"] == "required"
    assert "by simulation" in asic.reasons[0]
    assert "\u4eff\u771f" in asic.reasons_msg[0]["zh"]                   # "simulation"
    assert not asic.remote_steps                                       # the steps still run here


def test_an_fpga_board_makes_asic_hands_on_and_emulated_routes_say_emulation():
    board = _dev("fpga", "xilinx", "Xilinx Alveo U250", driver="xclmgmt")
    assert _by_id(_assess(_report([board])))["asic"].status == "ready"
    routes = _by_id(_assess(_report()))
    for rid in ("npu", "tpu", "edge"):
        assert routes[rid].status == "remote"
        assert any("by emulation" in r for r in routes[rid].reasons), (rid, routes[rid].reasons)


# --------------------------------------------------------------------------- 3. goal + accelerator

def _gaudi3(n=8):
    return [_dev("accelerator", "habana", "Intel Gaudi 3", driver="habanalabs",
                 family="habana-gaudi") for _ in range(n)]


@pytest.mark.parametrize("goal", ["serve-llm", "train"])
def test_an_accelerator_node_with_a_goal_leads_with_its_own_steps(goal):
    start = _start(_report(_gaudi3()), goal=goal)
    assert start[0].startswith("enterprise."), start
    first_cpu = next((i for i, s in enumerate(start) if s.startswith("cpu.")), len(start))
    first_goal = next(i for i, s in enumerate(start)
                      if goal in (load_knowledge().steps[s].get("goals") or ()))
    assert first_goal < first_cpu, start


def test_recorded_gaudi_node_serves_llms_with_vllm_right_after_its_health_check():
    start = _start(_tree("acc-gaudi2"), goal="serve-llm")
    assert start[:3] == ["enterprise.landscape", "enterprise.node-health",
                         "software-acceleration.vllm-serving"], start


def test_a_cpu_only_machine_still_reaches_vllm_through_llama_cpp():
    sa = _by_id(_assess(_report(packages={"numpy": "2"}), goal="serve-llm"))["software-acceleration"]
    steps = sa.next_steps
    assert "software-acceleration.llm-inference-cpu" in steps
    if "software-acceleration.vllm-serving" in steps:
        assert steps.index("software-acceleration.llm-inference-cpu") < \
            steps.index("software-acceleration.vllm-serving")


def test_the_goal_used_is_named():
    routes = _assess(_report(_gaudi3()), goal="serve-llm")
    assert {a.goal for a in routes} == {"serve-llm"} and advisor.assessed_goal(routes) == "serve-llm"
    assert "serve-llm" in advisor.goal_note("serve-llm") and "--goal none" in advisor.goal_note("serve-llm")
    assert "serve-llm" in advisor.goal_note("serve-llm", "zh")
    assert advisor.goal_note(None) is None and advisor.assessed_goal(_assess(_report())) is None


# --------------------------------------------------------------------------- 4. edge

def test_a_gh200_server_is_not_an_edge_device():
    gh200 = _report(_h100(), arch="aarch64", features=("asimd", "sve", "sve2"), cpus=72,
                    dmi={"sys_vendor": "Supermicro", "product_name": "ARS-111GL-NHR"})
    edge = _by_id(_assess(gh200))["edge"]
    assert edge.status == "remote", edge.reasons
    assert rules.evaluate({"embedded_board": True}, gh200)[0] is False


def test_a_raspberry_pi_class_board_is_an_edge_device():
    pi = _report(arch="aarch64", features=("asimd",), cpus=4, packages={"onnxruntime": "1.23"},
                 mem_gib=8)
    value, facts = rules.evaluate({"embedded_board": True}, pi)
    assert value is True and "device tree" in facts[0]
    assert _by_id(_assess(pi))["edge"].status == "ready"
    # the same board as a cloud VM, or an x86 desktop, is not one
    assert rules.evaluate({"embedded_board": True}, dict(pi, platform=dict(
        pi["platform"], cloud={"provider": "aws", "instance_type": "t4g.small"})))[0] is False
    assert rules.evaluate({"embedded_board": True}, _report())[0] is False


@pytest.mark.parametrize("tree,edge", [("cpu-aarch64-board", True), ("cpu-arm-gb10", False),
                                       ("cpu-aarch64-server", False),
                                       # a Mac under Asahi: device tree, no DMI, but a laptop
                                       ("soc-asahi-m1", False), ("soc-asahi-m2", False),
                                       # no DMI, but no device tree either: UEFI/ACPI
                                       ("mem-gh200-node", False)])
def test_recorded_arm_trees(tree, edge):
    value, _ = rules.evaluate({"embedded_board": True}, _tree(tree))
    assert value is edge


# --------------------------------------------------------------------------- 5. device counts

def test_multi_accelerator_steps_are_never_local_on_one_gpu():
    one = _report(_h100(1), packages={"numpy": "2", "torch": "2.9"})
    ent = _by_id(_assess(one))["enterprise"]
    remote = {r["step"] for r in ent.remote_steps}
    assert "enterprise.node-health" in remote and "enterprise.data-parallel" in remote
    assert "enterprise.node-health" not in _start(one, n=5)
    eight = _report(_h100(8), packages={"numpy": "2", "torch": "2.9"})
    assert "enterprise.node-health" not in {r["step"] for r in _by_id(_assess(eight))["enterprise"].remote_steps}
    assert "enterprise.node-health" in _start(eight, n=5)


def test_every_step_about_several_devices_needs_a_device_count():
    kb = load_knowledge()
    counted = {r["id"] for route in kb.routes.values() for r in route["requirements"]
               if "count_min" in str(r["rule"])}
    for sid in ("enterprise.node-health", "enterprise.data-parallel", "enterprise.sharded-training",
                "enterprise.multi-node", "gpu.multi-gpu"):
        assert set(kb.steps[sid]["needs"]) & counted, sid


# --------------------------------------------------------------------------- 6. CUDA support

def _gt710(**details):
    return _dev("gpu", "nvidia", "GK208B [GeForce GT 710]", readiness="driver-missing",
                driver="nouveau", **details)


def test_a_kepler_card_on_nouveau_is_not_a_cuda_machine():
    for dev in (_gt710(compute_capability=3.5), _gt710()):       # known, or only the codename
        routes = _by_id(_assess(_report([dev], packages={"numpy": "2", "torch": "2.9"})))
        assert routes["gpu"].status == "remote", routes["gpu"].reasons
        assert not routes["gpu"].uses_device
        assert routes["enterprise"].status == "remote"
    reasons = _by_id(_assess(_report([_gt710()])))["gpu"].reasons
    assert any("<= 3.7" in r and "5.0" in r for r in reasons), reasons


def test_cuda_minimums_are_dated_facts_and_the_codename_table_is_sourced():
    assert rules.cuda_min_compute_capability() == 7.5
    from accelgui.knowledge import support
    table = support.table("nvidia_chip_generations")
    assert table["as_of"] and table["source"] and all(r.get("source") for r in table["rows"])
    assert rules.chip_cc_ceiling({"vendor": "nvidia", "name": "GK208B [GeForce GT 710]"}) == 3.7
    assert rules.chip_cc_ceiling({"vendor": "nvidia", "name": "GF119 [GeForce GT 710]"}) == 2.1
    assert rules.chip_cc_ceiling({"vendor": "nvidia", "name": "AD102 [GeForce RTX 4090]"}) is None
    assert rules.chip_cc_ceiling({"vendor": "nvidia", "name": "GeForce GTX 1080"}) is None


def test_a_gt710_tree_on_nouveau(tmp_path):
    root = tmp_path / "gt710"
    shutil.copytree(MACHINES / "acc-gpu-no-driver", root, symlinks=True)
    dev = root / "sys/bus/pci/devices/0000:01:00.0"
    (dev / "device").write_text("0x128b\n")
    (root / "sys/bus/pci/drivers/nouveau").mkdir(parents=True)
    (dev / "driver").symlink_to("../../drivers/nouveau")
    report = _tree(root)
    gpu = next(d for d in report["devices"] if d["kind"] == "gpu")
    assert gpu["driver"] == "nouveau" and gpu["readiness"] != "ready"
    routes = _by_id(_assess(report))
    assert routes["gpu"].status == "remote" and routes["enterprise"].status == "remote"


# --------------------------------------------------------------------------- 7. driverless

@pytest.mark.parametrize("dev", [
    _dev("gpu", "nvidia", "NVIDIA device 10de:ffff", readiness="driver-missing", driver=None),
    _dev("gpu", "nvidia", "NVIDIA device 10de:ffff", readiness="driver-missing", driver="nouveau"),
    _dev("gpu", "amd", "AMD device 1002:ffff", readiness="driver-missing", driver=None),
    _dev("gpu", "nvidia", "NVIDIA GeForce RTX 4090", readiness="driver-missing", driver=None,
         compute_capability=8.9, memory_bytes=24 * 2**30, segment="consumer"),
])
@pytest.mark.parametrize("packages", [{}, {"numpy": "2", "torch": "2.9"}])
def test_a_driverless_device_never_raises_a_verdict_to_ready(dev, packages):
    alone = _by_id(_assess(_report(packages=packages)))
    withd = _by_id(_assess(_report([dev], packages=packages)))
    for rid, a in withd.items():
        if a.status == "ready":
            assert alone[rid].status == "ready", (rid, a.reasons)
    assert RANK[withd["software-acceleration"].status] >= RANK[alone["software-acceleration"].status]
    if (dev.get("details") or {}).get("compute_capability") is None:
        # nothing known about it: no route moves at all
        assert {r: a.status for r, a in withd.items()} == {r: a.status for r, a in alone.items()}


def test_a_driverless_card_with_known_support_still_needs_setup():
    dev = _dev("gpu", "nvidia", "NVIDIA GeForce RTX 4090", readiness="driver-missing", driver=None,
               compute_capability=8.9, memory_bytes=24 * 2**30)
    gpu = _by_id(_assess(_report([dev], packages={"torch": "2.9"})))["gpu"]
    assert gpu.status == "partial" and gpu.uses_device


# --------------------------------------------------------------------------- 8. inference-only

@pytest.mark.parametrize("dev", [
    _dev("accelerator", "aws", "AWS Inferentia2", driver="neuron", family="aws-neuron"),
    _dev("accelerator", "qualcomm", "Qualcomm Cloud AI 100", driver="qaic", family="qualcomm-ai100"),
])
def test_inference_only_accelerators_do_not_make_training_routes_ready(dev):
    report = _report([dev] * 4, packages={"numpy": "2", "torch": "2.9"})
    ent = _by_id(_assess(report))["enterprise"]
    assert ent.status == "remote" and ent.uses_device
    assert any(b["requirement"] == "enterprise.training-accelerator" for b in ent.blocking)
    remote = {r["step"] for r in ent.remote_steps}
    assert {"enterprise.data-parallel", "enterprise.low-precision"} <= remote
    assert "enterprise.node-health" not in remote           # the node itself is here


def test_training_filter():
    rule = {"device": {"kind": "accelerator", "training": True}}
    assert rules.evaluate(rule, _report(_gaudi3(1)))[0] is True
    assert rules.evaluate(rule, _report([_dev("accelerator", "aws", "AWS Trainium2", family="aws-neuron")]))[0] is True
    value, facts = rules.evaluate(rule, _report([_dev("accelerator", "aws", "AWS Inferentia2", family="aws-neuron")]))
    assert value is False and "inference-only" in facts[0]
    for dev in (_dev("accelerator", "hailo", "Hailo-8", family="hailo"),
                _dev("npu", "intel", "Intel NPU", family="intel-npu")):
        assert rules.inference_only(dev)
    assert not rules.inference_only(_dev("npu", "huawei", "Ascend 910B", family="huawei-ascend"))


def test_recorded_inferentia_node():
    ent = _by_id(_assess(_tree("acc-aws-inf2")))["enterprise"]
    assert ent.status == "remote" and ent.uses_device


# --------------------------------------------------------------------------- 9. Secure Boot

SB_VAR = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0c5bc6c2d0c"


def _secure_boot_tree(tmp_path, on=True, module=True, bound=False) -> Path:
    root = tmp_path / "sb"
    shutil.copytree(MACHINES / "acc-gpu-no-driver", root, symlinks=True)
    var = root / SB_VAR
    var.parent.mkdir(parents=True)
    var.write_bytes(b"\x06\x00\x00\x00" + (b"\x01" if on else b"\x00"))
    release = (root / "proc/sys/kernel/osrelease").read_text().strip()
    if module:
        dkms = root / "lib/modules" / release / "updates/dkms"
        dkms.mkdir(parents=True)
        for name in ("nvidia.ko.zst", "nvidia-uvm.ko.zst", "nvidia-drm.ko.zst"):
            (dkms / name).write_bytes(b"")
    if bound:
        (root / "sys/bus/pci/drivers/nvidia").mkdir(parents=True)
        (root / "sys/bus/pci/devices/0000:01:00.0/driver").symlink_to("../../drivers/nvidia")
    return root


def _report_of(root: Path) -> dict:
    """The tree's report, end to end: the platform section keeps what the probe found."""
    report = _tree(root)
    assert "secure_boot" in report["platform"] and "out_of_tree_modules" in report["platform"]
    return report


def test_a_recorded_tree_keeps_secure_boot_and_the_dkms_module_names(tmp_path):
    from accelgui.probes.record import record_tree

    root = _secure_boot_tree(tmp_path)
    copy = tmp_path / "copy"
    record_tree(str(copy), source_root=str(root))
    plat = _tree(copy)["platform"]
    assert plat["secure_boot"] is True
    assert {"nvidia", "nvidia-uvm", "nvidia-drm"} <= {m["name"] for m in plat["out_of_tree_modules"]}


def test_platform_probe_reads_secure_boot_and_dkms_modules(tmp_path):
    root = _secure_boot_tree(tmp_path)
    plat = platform_probe.probe(ProbeContext(root=str(root)))["platform"]
    assert plat["secure_boot"] is True
    names = {m["name"] for m in plat["out_of_tree_modules"]}
    assert {"nvidia", "nvidia-uvm", "nvidia-drm"} <= names
    assert all(m["path"].startswith("/lib/modules/6.8.0-45-generic/updates/dkms/")
               for m in plat["out_of_tree_modules"])
    off = platform_probe.probe(ProbeContext(root=str(_secure_boot_tree(tmp_path / "off", on=False))))
    assert off["platform"]["secure_boot"] is False
    none = platform_probe.probe(ProbeContext(root=str(MACHINES / "acc-gpu-no-driver")))["platform"]
    assert none["secure_boot"] is None and none["out_of_tree_modules"] == []


def test_secure_boot_blocking_a_dkms_driver_is_named_in_the_fix(tmp_path):
    gpu = _by_id(_assess(_report_of(_secure_boot_tree(tmp_path))))["gpu"]
    assert gpu.status == "partial"
    for text in (gpu.fix, gpu.fix_msg["en"], gpu.blocking[0]["fix"]):
        assert "Secure Boot" in text and "mokutil --import /var/lib/dkms/mok.pub" in text
        assert "Enroll MOK" in text and "nvidia" in text
    assert "\u5b89\u5168\u542f\u52a8" in gpu.fix_msg["zh"] and "mokutil" in gpu.fix_msg["zh"]   # "Secure Boot"
    # the device's own fix (Hardware page, ladder) says the same, not "install the driver"
    card, = [d for d in _report_of(_secure_boot_tree(tmp_path / "dev"))["devices"] if d["kind"] == "gpu"]
    assert card["readiness"] == "driver-missing"
    assert "mokutil --import" in card["fix"] and "nvidia" in card["fix"]
    assert card["fix_msg"]["id"] == "devices.fix.secure_boot_mok"


def test_secure_boot_with_nouveau_bound_names_mok_not_installing_the_driver(tmp_path):
    root = _secure_boot_tree(tmp_path)
    (root / "sys/bus/pci/drivers/nouveau").mkdir(parents=True)
    (root / "sys/bus/pci/devices/0000:01:00.0/driver").symlink_to("../../drivers/nouveau")
    card, = [d for d in _report_of(root)["devices"] if d["kind"] == "gpu"]
    assert card["driver"] == "nouveau" and card["readiness"] == "driver-missing"
    assert "mokutil --import" in card["fix"] and "Install the NVIDIA driver" not in card["fix"]


@pytest.mark.parametrize("kw", [{"on": False}, {"module": False}])
def test_no_secure_boot_fix_without_its_evidence(tmp_path, kw):
    gpu = _by_id(_assess(_report_of(_secure_boot_tree(tmp_path, **kw))))["gpu"]
    assert "mokutil" not in (gpu.fix or "") and "Secure Boot" not in (gpu.fix or "")
    assert "Install the NVIDIA driver" in gpu.fix


def test_a_loaded_driver_needs_no_mok_fix():
    dev = _dev("gpu", "nvidia", "NVIDIA GeForce RTX 4090", driver="nvidia", family="nvidia-gpu",
               compute_capability=8.9)
    plat = {"secure_boot": True, "out_of_tree_modules": [
        {"name": "nvidia", "path": "/lib/modules/6.8.0/updates/dkms/nvidia.ko.zst"}]}
    assert advisor.blocked_module(dev, plat) is None
    missing = dict(dev, driver=None, readiness="driver-missing")
    assert advisor.blocked_module(missing, plat)["name"] == "nvidia"
    assert advisor.blocked_module(dict(missing, family="amd-gpu"), plat) is None


def test_too_few_devices_is_unmet_even_when_their_figures_are_unknown():
    """One NVIDIA GPU of an id no table knows (segment unknown): a two-device requirement is
    not met, whatever that GPU turns out to be, so multi-device steps are never local."""
    one = _report([_dev("gpu", "nvidia", "NVIDIA device 10de:2f99", family="nvidia-gpu")])
    ok, facts = rules.evaluate({"device": {"kind": "gpu", "segment": "data-centre",
                                           "count_min": 2}}, one)
    assert ok is False and facts[0].tag == "miss" and "1" in facts[0] and "2" in facts[0]
