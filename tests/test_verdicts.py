"""Issue 14: verdicts with one meaning each, rules that know real support, next steps for this
machine and this person. Reports are built from the facts the probes record; recorded trees
are used where a whole machine matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui import advisor, rules
from accelgui.knowledge import load_knowledge, support
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = Path(__file__).parent / "fixtures" / "machines"


def _report(devices=(), arch="x86_64", features=("avx2", "fma"), cpus=8, packages=None,
            toolkits=None, cloud=None, environments=None, known=True):
    return {
        "platform": {"os": "Linux", "machine": arch, "cloud": cloud, "container": None},
        "cpu": {"arch": arch, "features": list(features), "flags": [], "logical_cpus": cpus},
        "memory": {"total_bytes": 32 * 2**30},
        "devices": [dict(d) for d in devices],
        "software": {"packages": dict(packages or {}), "toolkits": dict(toolkits or {}),
                     "providers": [], "packages_known": known,
                     **({"environments": environments} if environments is not None else {})},
    }


def _gpu(vendor, name, readiness="ready", integrated=False, **details):
    return {"kind": "gpu", "vendor": vendor, "name": name, "bus": "pci", "driver": "x",
            "integrated": integrated, "readiness": readiness, "details": details}


def _route(report, rid, goal=None):
    return next(a for a in advisor.assess(report, load_knowledge(), goal=goal) if a.id == rid)


def _tree(name):
    return run_probes(ProbeContext(root=str(MACHINES / name)), timeout_s=10)


# --------------------------------------------------------------------------- rules: support

@pytest.mark.parametrize("gfx,integrated,expected", [
    ("gfx942", False, True),        # MI300X
    ("gfx1100", False, True),       # RX 7900 XTX
    ("gfx1151", True, True),        # Strix Halo APU, supported since ROCm 7
    ("gfx803", False, False),       # Polaris RX 580, long unsupported
    ("gfx1103", True, False),       # Radeon 780M APU: never supported
    ("gfx1100", True, False),       # a discrete target seen as an APU is not the same row
])
def test_rocm_support_comes_from_the_gfx_table(gfx, integrated, expected):
    dev = _gpu("amd", "AMD GPU", integrated=integrated, gfx_target=gfx)
    value, facts = rules.evaluate({"device": {"kind": "gpu", "vendor": "amd", "supported": True}},
                                  _report([dev]))
    assert value is expected
    if not expected:
        assert f"{gfx}" in facts[0] and "not supported by current ROCm" in facts[0]


def test_rocm_support_unknown_without_gfx_target_is_not_confirmed():
    value, facts = rules.evaluate({"device": {"kind": "gpu", "vendor": "amd", "supported": True}},
                                  _report([_gpu("amd", "AMD GPU")]))
    assert value is None and facts[0].tag == "unknown"


def test_cuda_support_uses_the_toolkit_table():
    want = rules.cuda_min_compute_capability()
    assert want == 7.5                       # facts.json: CUDA 13.x builds for 7.5 and newer
    rule = {"device": {"kind": "gpu", "vendor": "nvidia", "supported": True}}
    assert rules.evaluate(rule, _report([_gpu("nvidia", "RTX 4090", compute_capability=8.9)]))[0]
    value, facts = rules.evaluate(rule, _report([_gpu("nvidia", "GTX 1080", compute_capability=6.1)]))
    assert value is False and "6.1 is below 7.5" in facts[0]


@pytest.mark.parametrize("name,expected", [
    ("Intel Arc A770", True), ("Intel Arc Graphics (Meteor Lake)", True),
    ("Intel Data Center GPU Max 1550", True), ("Intel UHD Graphics 770 (Alder Lake-S)", False),
    ("Intel Iris Xe Graphics", False)])
def test_intel_xpu_support_by_name(name, expected):
    rule = {"device": {"kind": "gpu", "vendor": "intel", "supported": True}}
    assert rules.evaluate(rule, _report([_gpu("intel", name)]))[0] is expected


@pytest.mark.parametrize("dev,segment", [
    (_gpu("nvidia", "NVIDIA H100 80GB HBM3"), "data-centre"),
    (_gpu("amd", "AMD Instinct MI300X"), "data-centre"),
    (_gpu("intel", "Intel Arc A770"), "consumer"),
    (_gpu("nvidia", "NVIDIA GPU (WSL2 GPU paravirtualization)"), "consumer"),
    (_gpu("nvidia", "NVIDIA RTX 6000 Ada Generation"), "workstation"),
    ({"kind": "accelerator", "vendor": "habana", "name": "Gaudi 2", "family": "habana"}, "data-centre"),
    (_gpu("nvidia", "Some GPU", segment="embedded"), "embedded"),      # recorded segment wins
    (_gpu("nvidia", "Mystery GPU"), None),
])
def test_segment_from_record_family_or_name(dev, segment):
    assert rules.device_segment(dev) == segment


def test_segment_filter_fails_consumer_and_is_unknown_for_unnamed():
    rule = {"device": {"kind": "gpu", "segment": ["data-centre"]}}
    assert rules.evaluate(rule, _report([_gpu("intel", "Intel Arc A770")]))[0] is False
    assert rules.evaluate(rule, _report([_gpu("nvidia", "Mystery GPU")]))[0] is None
    assert rules.evaluate(rule, _report([_gpu("nvidia", "NVIDIA H200")]))[0] is True


def test_form_and_family_filters():
    jetson = dict(_gpu("nvidia", "Jetson Orin", integrated=True), bus="platform", family="jetson-gpu")
    assert rules.evaluate({"device": {"form": "embedded"}}, _report([jetson]))[0] is True
    assert rules.evaluate({"device": {"form": "discrete"}}, _report([jetson]))[0] is False
    assert rules.evaluate({"device": {"family": ["jetson-gpu"]}}, _report([jetson]))[0] is True
    assert rules.evaluate({"device": {"family": ["habana"]}}, _report([jetson]))[0] is False


def test_count_min_counts_usable_devices():
    h200 = _gpu("nvidia", "NVIDIA H200", compute_capability=9.0)
    hidden = dict(h200, readiness="no-access")
    rule = {"device": {"kind": "gpu", "count_min": 2}}
    assert rules.evaluate(rule, _report([h200]))[0] is False            # one card: not met
    value, facts = rules.evaluate(rule, _report([h200, h200]))
    assert value is True and not rules.unusable_devices(facts)
    # a container that sees 1 of 4: the hardware is there, but it needs setup
    value, facts = rules.evaluate(rule, _report([h200, hidden, hidden, hidden]))
    assert value is True and len(rules.unusable_devices(facts)) == 3


@pytest.mark.parametrize("arch,features,expected", [
    ("x86_64", ["avx2"], True), ("x86_64", ["sse4_2"], False), ("x86_64", ["amx_tile"], True),
    ("aarch64", ["asimd"], True), ("aarch64", ["sve", "sme"], True),
    ("riscv64", ["v"], True), ("riscv64", ["zba"], False),
    ("ppc64le", ["altivec", "vsx"], True), ("ppc64le", ["altivec"], False),
    ("loongarch64", ["lsx", "lasx"], True), ("loongarch64", ["lsx"], False),
    ("s390x", ["vx", "vxe2"], True), ("s390x", ["vx"], False), ("sparc64", ["vis3"], False),
])
def test_cpu_simd_per_architecture(arch, features, expected):
    value, facts = rules.evaluate({"cpu_simd": True}, _report(arch=arch, features=features))
    assert value is expected, facts


def test_npu_runtime_per_vendor_and_unknown_vendor_not_met():
    intel = {"kind": "npu", "vendor": "intel", "name": "Intel NPU", "readiness": "ready"}
    odd = {"kind": "npu", "vendor": "acme", "name": "Acme NPU", "readiness": "ready"}
    assert rules.evaluate({"npu_runtime": True}, _report([intel], packages={"openvino": "2025.3"}))[0]
    value, facts = rules.evaluate({"npu_runtime": True}, _report([intel]))
    assert value is False and facts[0].setup                      # something to install
    value, facts = rules.evaluate({"npu_runtime": True}, _report([odd], packages={"openvino": "1"}))
    assert value is False and "no runtime is known for acme" in facts[0] and not facts[0].setup
    value, _ = rules.evaluate({"npu_runtime": True}, _report([intel], known=False))
    assert value is None                                          # recorded tree: not confirmed


def test_packages_are_found_in_any_environment_and_named():
    envs = [{"name": "base", "kind": "conda", "packages": {"numpy": "2.1"}},
            {"name": "ml", "kind": "conda", "packages": {"torch": "2.5.1"}}]
    value, facts = rules.evaluate({"package": "torch"}, _report(environments=envs))
    assert value is True and facts[0] == "package torch 2.5.1 installed in conda env 'ml'"
    assert rules.evaluate({"package": "jax"}, _report(environments=envs))[0] is False


def test_every_operator_and_filter_is_registered_and_validated():
    for op in ("cpu_simd", "npu_runtime", "toolkits_any", "device", "package"):
        assert op in rules.OPERATORS
    for f in ("supported", "segment", "form", "family", "count_min", "readiness"):
        assert f in rules.DEVICE_FILTERS
    for bad in ({"cpu_simd": "yes"}, {"device": {"count_min": 0}}, {"device": {"segment": []}},
                {"npu_runtime": 1}, {"toolkits_any": "rocm"}):
        with pytest.raises(rules.KnowledgeRuleError):
            rules.validate(bad)


def test_support_tables_are_dated_and_sourced():
    for name, table in support.load_support().items():
        if not isinstance(table, dict):
            continue
        assert table.get("as_of") and table.get("review_by") and table.get("source"), name
        assert table["review_by"] > "2026-12-01", f"{name} is past its review date"
        assert table.get("rows"), name


# --------------------------------------------------------------------------- verdicts

def test_driver_missing_gpu_needs_setup_with_the_devices_own_fix():
    dev = dict(_gpu("nvidia", "NVIDIA GeForce RTX 4090", readiness="driver-missing",
                    compute_capability=8.9), fix="Install the NVIDIA driver (sudo ubuntu-drivers install).")
    for rid in ("gpu", "software-acceleration"):
        a = _route(_report([dev], packages={"torch": "2.9", "numpy": "2"}), rid)
        if rid == "gpu":
            assert a.status == "partial" and a.verdict == "needs-setup"
            assert a.fix.startswith("Install the NVIDIA driver")
            assert "driver-missing" in a.reasons[0] and "ubuntu-drivers" in a.reasons[0]
        assert a.status != "ready" or rid != "gpu"


def test_optional_other_hardware_is_a_remote_step_not_a_lower_verdict():
    mi300 = _gpu("amd", "AMD Instinct MI300X", gfx_target="gfx942")
    a = _route(_report([mi300], packages={"torch": "2.9", "onnxruntime": "1.2", "numpy": "2"}),
               "open-source")
    assert a.status == "ready"
    assert {"step": "open-source.tensorrt-engine", "requirement": "open-source.nvidia-gpu",
            "fallback": "cloud"} in a.remote_steps


def test_two_vcpus_and_on_premises_do_not_lower_cpu_or_cloud():
    small = _report(cpus=2, packages={"numpy": "2"})
    assert _route(small, "cpu").status == "ready"
    assert _route(small, "cloud").status == "ready"


def test_polaris_is_remote_and_strix_halo_is_ready_for_gpu():
    polaris = _gpu("amd", "Radeon RX 580", gfx_target="gfx803")
    halo = _gpu("amd", "Radeon 8060S", integrated=True, gfx_target="gfx1151")
    assert _route(_report([polaris]), "gpu").status == "remote"
    assert _route(_report([halo], packages={"torch": "2.9"}), "gpu").status == "ready"


@pytest.mark.parametrize("tree", ["acc-aws-inf2", "acc-gcp-tpu-v5e", "acc-tpu-v4-vm", "acc-gaudi2",
                                  "acc-tenstorrent", "acc-qualcomm-ai100"])
def test_non_gpu_datacentre_owners_are_never_routed_through_a_gpu_step(tree):
    report = _tree(tree)
    routes = advisor.assess(report, load_knowledge())
    ent = next(a for a in routes if a.id == "enterprise")
    if any(rules.inference_only(d) for d in report.to_dict()["devices"]):
        # inference-only parts (Inferentia, Cloud AI 100) serve models but do not train them:
        # the route's training is rented ("remote"), its device steps are still done here
        assert ent.status == "remote" and ent.uses_device, ent
        assert "enterprise.training-accelerator" in {b["requirement"] for b in ent.blocking}
    else:
        assert ent.status in ("ready", "partial")
    assert not any(s.startswith(("gpu.", "cloud.")) for s in ent.next_steps[:2]), ent.next_steps
    first = advisor.overall_next_steps(routes, load_knowledge(), n=1)
    assert not first[0].startswith(("gpu.", "cloud.", "fpga.", "asic.")), first


@pytest.mark.parametrize("tree", ["acc-intel-arc", "acc-radeon-desktop", "acc-intel-npu-laptop",
                                  "acc-coral-rpi", "acc-gaudi2", "acc-hailo8", "acc-dgx-h100"])
def test_hardware_design_never_leads_unless_chosen(tree):
    kb = load_knowledge()
    routes = advisor.assess(_tree(tree), kb)
    top = advisor.overall_next_steps(routes, kb, n=3)
    assert not any(s.startswith(("fpga.", "asic.")) for s in top), top
    chosen = advisor.assess(_tree(tree), kb, goal="hardware-design")
    assert advisor.overall_next_steps(chosen, kb, n=1)[0].startswith(("fpga.", "asic."))


def test_consumer_wsl_gpu_is_not_datacentre():
    assert _route(_tree("acc-wsl2-nvidia"), "enterprise").status == "remote"
    assert _route(_tree("acc-intel-arc"), "enterprise").status == "remote"


def test_goals_have_labels_in_both_languages():
    for goal in advisor.GOALS:
        assert advisor.goal_label(goal, "en") != advisor.goal_label(goal, "zh")
    assert set(advisor.route_goals()) == set(load_knowledge().routes)
    with pytest.raises(ValueError):
        advisor.check_goal("fly")


def test_reasons_msg_is_bilingual_and_reasons_english():
    a = _route(_report([_gpu("nvidia", "NVIDIA H100", compute_capability=9.0)]), "gpu")
    assert a.reasons_msg and all({"en", "zh"} <= set(m) for m in a.reasons_msg)
    assert [m["en"] for m in a.reasons_msg] == a.reasons


def test_goal_is_remembered_with_the_progress(tmp_path, monkeypatch):
    from accelgui import progress
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path))
    progress.mark_done("cpu.know-your-cpu")
    progress.set_goal("edge")
    progress.mark_done("cpu.numpy-vectorise")
    assert progress.load_goal() == "edge"
    assert progress.load_done() == {"cpu.know-your-cpu", "cpu.numpy-vectorise"}
    progress.set_goal(None)
    assert progress.load_goal() is None and len(progress.load_done()) == 2


def test_cli_goal_is_checked_and_remembered(tmp_path):
    env = dict(os.environ, ACCELGUI_DATA_DIR=str(tmp_path))
    run = lambda *a: subprocess.run([sys.executable, "-m", "accelgui", *a], capture_output=True,  # noqa: E731
                                    text=True, env=env, timeout=60)
    assert run("--goal", "fly").returncode == 2
    assert run("--goal", "train").returncode == 0
    assert json.loads((tmp_path / "progress.json").read_text())["goal"] == "train"
    out = run("--probe", "--sysroot", str(MACHINES / "acc-dgx-h100"))
    assert out.returncode == 0, out.stderr
    routes = json.loads(out.stdout)["routes"]
    assert {r["goal"] for r in routes} == {"train"}


@pytest.mark.parametrize("tree,track", [("acc-gaudi2", "gaudi"), ("acc-aws-inf2", "neuron"),
                                        ("acc-gcp-tpu-v5e", "jax-tpu"), ("acc-amd-mi300x", "rocm"),
                                        ("acc-dgx-h100", "cuda"), ("acc-tenstorrent", "tt-metal"),
                                        ("acc-qualcomm-ai100", "qaic")])
def test_vendor_tracks_match_the_machine(tree, track):
    ent = _route(_tree(tree), "enterprise")
    assert ent.tracks.get("enterprise.node-health") == [track]


def test_every_track_rule_is_valid_and_bilingual():
    for step in load_knowledge().steps.values():
        for track in step.get("tracks") or []:
            rules.validate(track["when"])
            assert track["title"]["en"] and track["title"]["zh"] and track["commands"]


def test_prerequisite_alternatives_follow_the_machines_own_accelerator():
    kb = load_knowledge()
    for step in kb.steps.values():
        for group in step.get("prerequisites_any") or []:
            assert all(m in kb.steps for m in group), (step["id"], group)
    done = frozenset({"software-acceleration.landscape", "software-acceleration.llm-inference-cpu",
                      "cpu.know-your-cpu", "cpu.numpy-vectorise"})
    tpu = next(a for a in advisor.assess(_tree("acc-gcp-tpu-v5e"), kb, done)
               if a.id == "software-acceleration")
    assert "gpu.setup-check" not in tpu.next_steps
    gpu = next(a for a in advisor.assess(_tree("acc-dgx-h100"), kb, done)
               if a.id == "software-acceleration")
    assert "enterprise.node-health" not in gpu.next_steps[:3] or "gpu.setup-check" in gpu.next_steps


@pytest.mark.parametrize("tree,first", [
    ("acc-coral-pcie", "edge.device-check"), ("acc-coral-usb-nofw", "edge.device-check"),
    ("acc-hailo8", "edge.device-check"), ("acc-amd-xdna-laptop", "npu.identify"),
    ("acc-rockchip-rk3588", "npu.identify"), ("acc-radeon-desktop", "gpu.setup-check"),
    ("acc-gpu-no-driver", "gpu.setup-check"), ("acc-jetson-orin", "gpu.setup-check"),
    ("acc-wsl2-nvidia", "gpu.setup-check"), ("acc-gcp-tpu-v5e", "tpu.device-check"),
    ("acc-tpu-v4-vm", "tpu.device-check")])
def test_an_accelerator_owner_starts_with_their_own_device(tree, first):
    """The first next step on a machine with an accelerator works on that accelerator (its
    check or set-up), not on CPU basics; a device that still needs its runtime (a Coral USB
    stick before libedgetpu loads its firmware) is where that set-up step applies."""
    kb = load_knowledge()
    top = advisor.overall_next_steps(advisor.assess(_tree(tree), kb), kb, n=3)
    assert top[0] == first, top
    if first.startswith(("edge.", "npu.")):     # and its own route goes on before CPU basics
        assert not top[1].startswith("cpu."), top


def test_the_edge_device_check_is_not_offered_to_npu_laptops_or_pcs():
    kb = load_knowledge()
    for tree in ("acc-intel-npu-laptop", "acc-amd-xdna-laptop", "acc-office-pc"):
        edge = next(a for a in advisor.assess(_tree(tree), kb) if a.id == "edge")
        assert edge.next_steps[0] != "edge.device-check", (tree, edge.next_steps)
    coral = next(a for a in advisor.assess(_tree("acc-coral-pcie"), kb) if a.id == "edge")
    assert coral.next_steps[0] == "edge.device-check" and coral.tracks["edge.device-check"] == ["coral"]


def test_a_set_up_step_runs_where_its_device_still_needs_setup():
    """``sets_up``: a step that sets hardware up counts as runnable where that hardware is
    present but not usable yet; without the flag the same step waits for working hardware."""
    kb = load_knowledge()
    results = advisor.requirement_results(_tree("acc-coral-usb-nofw"), kb)
    step = dict(kb.steps["edge.device-check"])
    assert advisor._runs_locally(step, results)
    step.pop("sets_up")
    assert not advisor._runs_locally(step, results)


def test_a_working_gpu_with_an_unknown_figure_is_not_told_to_rent_one():
    """WSL2's NVIDIA GPU works but its compute capability is unknown: the GPU route is ready,
    not confirmed on that fact; its reason says so without the 'rent a GPU instance' fix."""
    gpu = _route(_tree("acc-wsl2-nvidia"), "gpu")
    assert gpu.status == "ready" and gpu.qualifier and "compute capability" in gpu.qualifier
    assert "unknown" in gpu.reasons[0] and "Rent" not in gpu.reasons[0], gpu.reasons[0]


def test_intel_arc_names_as_windows_writes_them_count_for_pytorch_xpu():
    """Windows' driver names carry (TM) marks and "GPU" (Lunar Lake's "Arc(TM) 140V GPU"): they
    are the same supported parts as pci.ids' names; UHD and Iris Xe stay unsupported."""
    from accelgui.rules import _oneapi_support

    for name in ("Intel(R) Arc(TM) 140V GPU (16GB)", "Intel(R) Arc(TM) A770 Graphics",
                 "Meteor Lake-P [Intel Arc Graphics]", "Intel(R) Arc(TM) Pro A60"):
        assert _oneapi_support({"name": name}, "en")[0] is True, name
    for name in ("Intel(R) UHD Graphics 630", "Intel(R) Iris(R) Xe Graphics"):
        assert _oneapi_support({"name": name}, "en")[0] is False, name


def test_a_device_the_os_drives_itself_is_not_said_to_have_no_driver(capsys):
    """A Mac's GPU and Neural Engine have no driver name in the report, but the readiness
    ladder found the OS's own driver: the advice does not call them driverless."""
    import json
    from pathlib import Path

    from accelgui import cli

    tree = Path(__file__).parent / "fixtures" / "machines" / "mac-m1pro-laptop"
    assert cli.main(["--probe", "--sysroot", str(tree)]) == 0
    text = json.dumps(json.loads(capsys.readouterr().out)["routes"])
    assert "Apple M1 Pro GPU" in text and "no driver bound" not in text
