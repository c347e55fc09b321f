"""The advisor: route verdicts a knowledgeable person would give, ranked next steps, and the
"what can this machine run" estimates checked against hand calculations."""

from __future__ import annotations

import copy
import re
import os


import pytest

from accelgui import advisor, estimates
from accelgui.report import Cpu, Device, Memory, Platform, Report, Software

GiB = 2**30
MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")


# --------------------------------------------------------------------------- machines

def h100_server(packages=None) -> Report:
    h100 = Device(kind="gpu", vendor="nvidia", name="NVIDIA H100 80GB HBM3", bus="pci",
                  pci_id="10de:2330", driver="nvidia", readiness="ready",
                  details={"compute_capability": "9.0", "memory_bytes": 85520809984,
                           "driver_version": "550.54.15", "memory_bandwidth_gbps": 3352.3})
    devices = [h100.replace(address=f"0000:{b:02x}:00.0",
                       details={**h100.details, "index": i})
               for i, b in enumerate((0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb))]
    return Report(
        platform=Platform(os="Linux", os_release="Ubuntu 22.04.4 LTS", machine="x86_64"),
        cpu=Cpu(vendor="intel", model_name="Intel(R) Xeon(R) Platinum 8480+", arch="x86_64",
                microarchitecture="sapphirerapids", logical_cpus=224, sockets=2,
                features=["avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile",
                          "amx_bf16", "amx_int8"]),
        memory=Memory(total_bytes=2048 * GiB, available_bytes=1900 * GiB, numa_nodes=2),
        devices=devices,
        software=Software(packages=packages if packages is not None else
                          {"torch": "2.5.1", "numpy": "2.1.3", "triton": "3.1.0"},
                          toolkits={"cuda_driver": "12.4", "cuda_toolkit": "12.4"}),
    )


def npu_laptop(openvino: bool = False) -> Report:
    npu = Device(kind="npu", vendor="intel", name="Intel Core Ultra NPU (Meteor Lake)",
                 bus="pci", address="0000:00:0b.0", pci_id="8086:7d1d", driver="intel_vpu",
                 integrated=True,
                 readiness="ready" if openvino else "runtime-missing",
                 readiness_reason=None if openvino else "OpenVINO not installed",
                 fix=None if openvino else "pip install openvino",
                 details={"device_node": "/dev/accel/accel0"})
    igpu = Device(kind="gpu", vendor="intel", name="Intel Arc Graphics (Meteor Lake)",
                  bus="pci", address="0000:00:02.0", pci_id="8086:7d55", driver="i915",
                  integrated=True, readiness="ready", details={})
    packages = {"numpy": "2.1.3"}
    if openvino:
        packages["openvino"] = "2024.4.0"
    return Report(
        platform=Platform(os="Linux", os_release="Ubuntu 24.04.1 LTS", machine="x86_64"),
        cpu=Cpu(vendor="intel", model_name="Intel(R) Core(TM) Ultra 7 155H", arch="x86_64",
                microarchitecture="meteorlake", logical_cpus=22,
                features=["avx2", "fma", "avx_vnni"]),
        memory=Memory(total_bytes=32 * GiB, available_bytes=20 * GiB),
        devices=[igpu, npu],
        software=Software(packages=packages,
                          providers=["openvino:NPU", "openvino:GPU", "openvino:CPU"] if openvino else []),
    )


def office_pc() -> Report:
    igpu = Device(kind="gpu", vendor="intel", name="Intel UHD Graphics 770", bus="pci",
                  address="0000:00:02.0", pci_id="8086:4690", driver="i915", integrated=True,
                  readiness="ready", details={})
    return Report(
        platform=Platform(os="Linux", os_release="Debian GNU/Linux 12", machine="x86_64"),
        cpu=Cpu(vendor="intel", model_name="12th Gen Intel(R) Core(TM) i5-12500", arch="x86_64",
                microarchitecture="alderlake", logical_cpus=12, features=["avx2", "fma"]),
        memory=Memory(total_bytes=16 * GiB, available_bytes=11 * GiB),
        devices=[igpu],
        software=Software(packages={"numpy": "1.26.4"}),
    )


def rpi5_coral(runtime: bool = True) -> Report:
    coral = Device(kind="tpu", vendor="google", name="Coral USB Accelerator (Edge TPU)",
                   bus="usb", address="usb2/2-1", usb_id="18d1:9302", driver=None,
                   readiness="ready" if runtime else "runtime-missing",
                   readiness_reason=None if runtime else "libedgetpu not installed",
                   details={})
    packages = {"numpy": "1.24.2"}
    if runtime:
        packages.update({"tflite-runtime": "2.14.0", "pycoral": "2.0.0"})
    return Report(
        platform=Platform(os="Linux", os_release="Debian GNU/Linux 12 (bookworm)",
                          machine="aarch64"),
        cpu=Cpu(vendor="arm", model_name="Cortex-A76", arch="aarch64", logical_cpus=4,
                features=["neon", "asimd", "fp16"], flags=["fp", "asimd", "aes", "crc32"]),
        memory=Memory(total_bytes=8 * GiB, available_bytes=6 * GiB),
        devices=[coral],
        software=Software(packages=packages,
                          toolkits={"libedgetpu": "16.0"} if runtime else {}),
    )


def cpu_vm(benchmarks=None) -> Report:
    return Report(
        platform=Platform(os="Linux", os_release="Debian GNU/Linux 12", machine="x86_64",
                          virtualization="kvm",
                          cloud={"provider": "gcp", "instance_type": "c3d-standard-4"}),
        cpu=Cpu(vendor="amd", model_name="AMD EPYC 9B14", arch="x86_64",
                microarchitecture="zen4", logical_cpus=4,
                features=["avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni"]),
        memory=Memory(total_bytes=16 * GiB, available_bytes=14 * GiB),
        devices=[],
        software=Software(packages={"numpy": "2.1.3"}),
        benchmarks=benchmarks,
    )


# --------------------------------------------------------------------------- a small kb

class KB:
    """Just what the advisor reads of a KnowledgeBase."""

    def __init__(self, routes):
        self.routes = {r["id"]: r for r in routes}
        self.steps = {s["id"]: dict(s, route=r["id"]) for r in routes for s in r["steps"]}


def _t(s):
    return {"en": s, "zh": s + "\uff08\u4e2d\u6587\uff09"}


def req(rid, rule, level="required", fallback="cloud", fix="do the fix. Then more."):
    return {"id": rid, "level": level, "label": _t(f"label of {rid}"), "rule": rule,
            "fallback": fallback, "fix": _t(fix)}


def step(sid, level="beginner", prerequisites=(), needs=()):
    return {"id": sid, "level": level, "title": _t(f"title {sid}"),
            "prerequisites": list(prerequisites), "needs": list(needs)}


def route(rid, reqs, steps, title=None):
    return {"id": rid, "title": _t(title or f"{rid} route"), "requirements": reqs,
            "steps": steps}


NVIDIA_RULE = {"device": {"kind": "gpu", "vendor": "nvidia"}}
READY_RULE = {"device": {"kind": "gpu", "vendor": "nvidia", "readiness": "ready"}}

TOY = KB([
    route("basics", [req("basics.cpu", {"arch": ["x86_64", "aarch64"]}, fallback="none")], [
        step("basics.one"),
        step("basics.two", prerequisites=["basics.one"]),
    ]),
    route("gpu", [
        req("gpu.card", NVIDIA_RULE),
        req("gpu.ready", READY_RULE, level="recommended"),
        req("gpu.torch", {"package": "torch"}, level="recommended"),
    ], [
        step("gpu.a", needs=["gpu.card"]),
        step("gpu.b", prerequisites=["gpu.a", "basics.two"], needs=["gpu.card"]),
        step("gpu.theory", level="intermediate"),                    # runs anywhere
        step("gpu.c", level="advanced", prerequisites=["gpu.b"], needs=["gpu.card"]),
        step("gpu.d", level="advanced", prerequisites=["gpu.c"], needs=["gpu.card"]),
        step("gpu.e", level="advanced", prerequisites=["gpu.d"], needs=["gpu.card"]),
        step("gpu.f", level="advanced", prerequisites=["gpu.e"], needs=["gpu.card"]),
    ]),
    route("asic", [req("asic.fab", {"device": {"kind": "accelerator", "vendor": "fab"}},
                       fallback="none")],
          [step("asic.verilog")]),
    route("sim", [req("sim.fpga", {"device": {"kind": "fpga"}}, fallback="simulation")],
          [step("sim.rtl")]),
    route("bench", [req("bench.bw", {"metric": "benchmarks.cpu.stream.triad_gbps", "min": 10})],
          [step("bench.x")]),
])


def by_id(assessments):
    return {a.id: a for a in assessments}


# --------------------------------------------------------------------------- status logic

def test_statuses_from_requirements():
    got = by_id(advisor.assess(h100_server(), TOY))
    assert got["basics"].status == "ready"
    assert got["gpu"].status == "ready"
    assert got["asic"].status == "unavailable"          # unmet required, fallback none
    assert got["sim"].status == "remote"                 # unmet required, fallback simulation
    assert [a.id for a in advisor.assess(h100_server(), TOY)] == list(TOY.routes)


def test_partial_when_a_recommended_requirement_is_missing():
    got = by_id(advisor.assess(h100_server(packages={}), TOY))
    gpu = got["gpu"]
    assert gpu.status == "partial"
    assert [b["requirement"] for b in gpu.blocking] == ["gpu.torch"]
    b = gpu.blocking[0]
    assert b["state"] == "setup" and b["fallback"] == "cloud"       # a package to install
    assert gpu.verdict == "needs-setup"
    assert b["label"] == "label of gpu.torch" and b["fix"] == "do the fix. Then more."
    assert any("package torch not installed" in r for r in gpu.reasons)


def test_remote_reasons_name_what_is_missing_and_the_way_out():
    gpu = by_id(advisor.assess(cpu_vm(), TOY))["gpu"]
    assert gpu.status == "remote"
    assert gpu.reasons[0] == "no NVIDIA GPU here: do the fix."      # facts: first sentence of fix
    assert {b["requirement"] for b in gpu.blocking} == {"gpu.card", "gpu.ready", "gpu.torch"}


def test_ready_reasons_name_the_device():
    gpu = by_id(advisor.assess(h100_server(), TOY))["gpu"]
    assert "8 x NVIDIA H100 80GB HBM3" in gpu.reasons[0]
    assert "compute capability 9.0" in gpu.reasons[0]
    assert len(gpu.reasons) == len(set(gpu.reasons))      # the same device line is not repeated
    assert gpu.blocking == []


def test_unknown_required_qualifies_the_verdict_and_names_the_fact():
    a = by_id(advisor.assess(cpu_vm(), TOY))["bench"]
    assert a.status == "ready"          # nothing known to be missing: not lowered ...
    assert a.qualifier.startswith("not confirmed: ")   # ... but qualified, naming the fact
    assert "benchmarks.cpu.stream.triad_gbps" in a.qualifier
    assert a.unconfirmed and a.qualifier_msg["zh"].startswith("\u672a\u786e\u8ba4")
    assert a.blocking[0]["state"] == "unknown"
    assert "run --bench" in a.reasons[0] and "unknown" in a.reasons[0]
    measured = cpu_vm(benchmarks={"cpu": {"stream": {"triad_gbps": 42.0}}})
    assert by_id(advisor.assess(measured, TOY))["bench"].status == "ready"


def test_unknown_without_fallback_is_not_confirmed_not_unavailable():
    kb = KB([route("c", [req("c.cpu", {"arch": ["x86_64"]}, fallback="none")], [step("c.a")])])
    assert advisor.assess(cpu_vm(), kb)[0].status == "ready"
    blind = cpu_vm().replace(cpu=Cpu(), platform=Platform())      # probes could not read the CPU
    a = advisor.assess(blind, kb)[0]
    assert a.status == "ready" and "CPU architecture unknown" in a.qualifier
    assert a.blocking[0]["state"] == "unknown"
    riscv = cpu_vm().replace(cpu=Cpu(arch="riscv64"))
    assert advisor.assess(riscv, kb)[0].status == "unavailable"


def test_language_of_titles_and_blocking():
    gpu = by_id(advisor.assess(cpu_vm(), TOY, lang="zh"))["gpu"]
    assert gpu.title == "gpu route\uff08\u4e2d\u6587\uff09"
    assert gpu.blocking[0]["label"].endswith("\uff08\u4e2d\u6587\uff09")
    assert "\u672c\u673a\u6ca1\u6709" in gpu.reasons[0]


def test_broken_rule_does_not_crash_the_report():
    kb = KB([route("bad", [req("bad.x", {"gpu_present": True})], [step("bad.s")])])
    a = advisor.assess(cpu_vm(), kb)[0]
    assert a.status == "ready"          # cannot be evaluated: neither confirmed nor ruled out
    assert "gpu_present" in a.qualifier
    assert "gpu_present" in a.blocking[0]["error"]
    assert "gpu_present" in a.reasons[0]


def test_assess_is_pure(monkeypatch):
    def no_io(*a, **k):
        raise AssertionError("the advisor must not do I/O")
    r = h100_server()
    before = copy.deepcopy(r.to_dict())
    monkeypatch.setattr("builtins.open", no_io)
    advisor.assess(r, TOY, frozenset({"basics.one"}))
    advisor.estimates(r)
    assert r.to_dict() == before


# --------------------------------------------------------------------------- next steps

def test_next_steps_prerequisites_first_and_cross_route():
    gpu = by_id(advisor.assess(h100_server(), TOY))["gpu"]
    steps = gpu.next_steps
    # gpu.b needs basics.two (other route, not done) which needs basics.one: they come first
    assert steps.index("basics.one") < steps.index("basics.two") < steps.index("gpu.b")
    assert steps.index("gpu.a") < steps.index("gpu.b")
    assert steps[0] == "gpu.a"                       # local beginner step, no prerequisites
    assert len(steps) == advisor.MAX_STEPS


def test_done_steps_are_skipped():
    done = frozenset({"gpu.a", "basics.one", "basics.two"})
    steps = by_id(advisor.assess(h100_server(), TOY, done))["gpu"].next_steps
    assert not set(steps) & done
    assert steps[0] == "gpu.b"


def test_local_steps_before_steps_needing_missing_hardware():
    steps = by_id(advisor.assess(cpu_vm(), TOY))["gpu"].next_steps
    # nothing here runs gpu.a/gpu.b (no NVIDIA GPU); the theory step runs anywhere
    assert steps[0] == "gpu.theory"
    assert steps.index("gpu.a") < steps.index("gpu.b")           # still in dependency order
    assert steps.index("basics.two") < steps.index("gpu.b")


def test_every_route_done_gives_no_steps_for_it():
    done = frozenset(TOY.steps)
    assert all(a.next_steps == [] for a in advisor.assess(cpu_vm(), TOY, done))


def test_prerequisite_cycle_does_not_hang():
    kb = KB([route("c", [req("c.x", {"arch": "x86_64"})], [
        step("c.a", prerequisites=["c.b"]), step("c.b", prerequisites=["c.a"])])])
    assert sorted(advisor.assess(cpu_vm(), kb)[0].next_steps) == ["c.a", "c.b"]


def test_overall_next_steps_prefers_routes_ready_here():
    a = advisor.assess(cpu_vm(), TOY)
    top = advisor.overall_next_steps(a, n=3)
    assert top[0] == "basics.one"
    ranked = advisor.overall_next_steps(a, TOY, n=4)
    assert ranked[:2] == ["basics.one", "basics.two"]
    assert len(set(ranked)) == 4 and ranked[2] in ("gpu.a", "sim.rtl", "bench.x")   # beginner, remote
    assert len(top) == 3 and len(set(top)) == 3


# --------------------------------------------------------------------------- real knowledge

@pytest.fixture(scope="module")
def kb():
    from accelgui.knowledge import load_knowledge

    base = load_knowledge()
    assert base.routes, "the shipped knowledge base has no routes"
    return base


def verdicts(report, kb, done=frozenset()):
    return by_id(advisor.assess(report, kb, done))


def need(kb, *route_ids):
    """The shipped knowledge base has these routes (all 13 are promised): a missing one fails."""
    missing = [r for r in route_ids if r not in kb.routes]
    assert not missing, f"route(s) {', '.join(missing)} missing from the knowledge base"


def test_h100_server_gpu_and_enterprise_ready(kb):
    need(kb, "gpu", "cpu", "tpu", "enterprise")
    v = verdicts(h100_server(), kb)
    assert v["gpu"].status == "ready", v["gpu"].reasons
    assert any("NVIDIA H100 80GB HBM3" in r and "compute capability 9.0" in r
               for r in v["gpu"].reasons)
    assert v["cpu"].status == "ready"
    assert v["tpu"].status == "remote"
    assert any("TPU" in r for r in v["tpu"].reasons)
    assert v["enterprise"].status == "ready", v["enterprise"].reasons
    assert any("H100" in r for r in v["enterprise"].reasons)


def test_npu_laptop_partial_names_the_missing_runtime_then_ready(kb):
    need(kb, "npu")
    npu = verdicts(npu_laptop(openvino=False), kb)["npu"]
    assert npu.status == "partial", npu.reasons
    assert any("Meteor Lake" in r or "NPU" in r for r in npu.reasons)
    named = " ".join(npu.reasons + [b["requirement"] + " " + b["fix"] for b in npu.blocking])
    assert "openvino" in named.lower()
    ready = verdicts(npu_laptop(openvino=True), kb)["npu"]
    assert ready.status == "ready", ready.reasons


def test_office_pc_with_an_igpu(kb):
    need(kb, "gpu", "tpu", "cpu", "fpga")
    v = verdicts(office_pc(), kb)
    assert v["tpu"].status == "remote"
    # UHD 770 is no compute GPU for this route: learn on a cloud GPU, and say why
    assert v["gpu"].status == "remote"
    assert any("Intel UHD Graphics 770" in r for r in v["gpu"].reasons)
    assert v["cpu"].status in ("ready", "partial")
    assert v["fpga"].status in ("remote", "unavailable")
    if kb.requirement("fpga.board") and kb.requirement("fpga.board")["fallback"] != "none":
        assert v["fpga"].status == "remote"
    assert any(a.next_steps for a in v.values())


def test_raspberry_pi_with_coral(kb):
    need(kb, "edge", "tpu")
    edge = verdicts(rpi5_coral(), kb)["edge"]
    assert edge.status in ("ready", "partial"), edge.reasons
    assert any("Coral" in r or "Edge TPU" in r for r in edge.reasons)
    v = verdicts(rpi5_coral(), kb)
    assert v["tpu"].status == "remote"      # an Edge TPU is not a Cloud TPU


def test_cpu_only_vm_gets_cpu_route_and_useful_steps(kb):
    need(kb, "cpu", "gpu")
    a = advisor.assess(cpu_vm(), kb)
    v = by_id(a)
    assert v["cpu"].status in ("ready", "partial")
    assert v["cpu"].next_steps
    assert v["gpu"].status == "remote"
    top = advisor.overall_next_steps(a, kb, 5)
    assert top and top[0].startswith("cpu.")
    # nothing but a CPU: every route still offers something to learn
    assert all(x.next_steps for x in a), [x.id for x in a if not x.next_steps]


def test_real_steps_respect_prerequisites_and_done(kb):
    for report in (h100_server(), cpu_vm(), office_pc()):
        for a in advisor.assess(report, kb):
            seen: set = set()
            for sid in a.next_steps:
                step_ = kb.steps[sid]
                for p in step_["prerequisites"]:
                    # a prerequisite is done, listed before, or beyond the cap
                    assert p not in a.next_steps[a.next_steps.index(sid):], (a.id, sid, p)
                seen.add(sid)
    first = advisor.assess(cpu_vm(), kb)
    done = frozenset(s for a in first for s in a.next_steps[:1])
    for a in advisor.assess(cpu_vm(), kb, done):
        assert not set(a.next_steps) & done


# --------------------------------------------------------------------------- estimates

def test_hand_calculations():
    # weights: 7e9 x 4.8 / 8
    assert advisor.weights_bytes(7, 4.8) == 4_200_000_000
    assert advisor.weights_bytes(70, 16) == 140_000_000_000
    # KV cache, Llama 3.1 8B (32 layers, 8 KV heads, head dim 128), 4096 tokens, fp16
    assert advisor.kv_cache_bytes(32, 8, 128, 4096, 2) == 536_870_912
    # decode: 100 GB/s / 4.2 GB x 0.55
    assert advisor.decode_tokens_per_s(100, 4.2e9) == pytest.approx(13.095, abs=0.01)
    # prefill: 1000 GFLOP/s / (2 x 7e9)
    assert advisor.prefill_tokens_per_s(1000, 7) == pytest.approx(71.43, abs=0.01)


def test_llm_row_fits_and_speed():
    m8 = next(m for m in estimates.catalogue() if m["id"] == "llama-3.1-8b")
    row = advisor.llm_row(m8, "Q4_K_M", 4.85, 100, 1000, 16 * GiB, "gpu", 4096)
    assert row["weights_bytes"] == advisor.weights_bytes(8.03, 4.85)
    assert row["kv_cache_bytes"] == 536_870_912                    # 32 x 8 x 128 x 4096 x 2 x 2
    assert row["fits"] is True
    # (weights + KV) / (0.85 x 100 GB/s) + 0.5 ms floor
    want = 1 / ((row["weights_bytes"] + row["kv_cache_bytes"]) / (0.85 * 100e9) + 0.0005)
    assert row["decode_tokens_per_s"] == pytest.approx(want, abs=0.05)
    lo, hi = row["decode_tokens_per_s_range"]
    assert lo < row["decode_tokens_per_s"] < hi
    assert row["prefill_tokens_per_s"] == pytest.approx(1000e9 / (2 * 8.03e9), abs=0.05)
    big = advisor.llm_row(m8, "F16", 16, 100, 1000, 8 * GiB)       # 16 GB > 8 GiB
    assert big["fits"] is False and big["decode_tokens_per_s"] is None


def test_moe_reads_the_active_parameters_but_holds_them_all():
    moe = next(m for m in estimates.catalogue() if m["id"] == "qwen3-30b-a3b")
    dense = next(m for m in estimates.catalogue() if m["id"] == "qwen3-32b")
    a = advisor.llm_row(moe, "Q4_K_M", 4.85, 1000, None, 80 * GiB)
    b = advisor.llm_row(dense, "Q4_K_M", 4.85, 1000, None, 80 * GiB)
    assert a["weights_bytes"] == pytest.approx(b["weights_bytes"] * 30.5 / 32.8, rel=0.01)
    assert a["decode_tokens_per_s"] > 4 * b["decode_tokens_per_s"]


def test_kv_cache_read_grows_with_context():
    m8 = next(m for m in estimates.catalogue() if m["id"] == "llama-3.1-8b")
    short = advisor.llm_row(m8, "Q4_K_M", 4.85, 1000, None, 80 * GiB, "gpu", 512)
    long = advisor.llm_row(m8, "Q4_K_M", 4.85, 1000, None, 80 * GiB, "gpu", 65536)
    assert long["kv_cache_bytes"] == 128 * short["kv_cache_bytes"]
    assert long["decode_tokens_per_s"] < 0.6 * short["decode_tokens_per_s"]


def _point_error(p, as_class=None):
    """Relative error of the decode model on one calibration point (in its class, or another)."""
    arch = estimates.calibration()["architectures"][p["arch"]]
    kv = 2 * arch["layers"] * arch["kv_heads"] * arch["head_dim"] * 2 * p["context"]
    got = estimates.decode_model(p["bandwidth_gbps"], p["weights_gb"] * 1e9 + kv, p["quant_bits"],
                                 as_class or p["class"], p.get("cores"), arch["params_b"])
    return got / p["tokens_per_s"] - 1


def test_calibration_points_within_35_percent():
    cal = estimates.calibration()
    assert len(cal["points"]) >= 12 and cal["as_of"] and cal["review_by"] > "2026-12-01"
    for p in cal["points"]:
        assert abs(_point_error(p)) <= 0.35, (p["device"], _point_error(p), p["tokens_per_s"])


def test_each_vendor_class_is_calibrated_on_its_own_points():
    """The AMD and Intel GPU classes hold points of their own (a class with no points would
    pass the 35 % test vacuously), fitted better than the NVIDIA-calibrated gpu class would."""
    cal = estimates.calibration()
    classes = cal["model"]["classes"]
    for cls in set(cal["model"]["vendor_classes"].values()):
        own = [p for p in cal["points"] if p["class"] == cls]
        assert len(own) >= 4 and cls in classes, cls
        assert all(p["source"].startswith("https://") and p["verified"] and p["note"] for p in own)
        own_fit = max(abs(_point_error(p)) for p in own)
        nvidia_fit = max(abs(_point_error(p, "gpu")) for p in own)
        assert own_fit < nvidia_fit and nvidia_fit > 0.35, (cls, own_fit, nvidia_fit)


def test_superseded_points_name_the_point_that_replaced_them():
    cal = estimates.calibration()
    held = {p["device"] for p in cal["points"]}
    for p in cal["superseded"]:
        assert p["superseded_by"] in held and p["source"] and p["note"], p["device"]


def test_decode_class_follows_the_gpu_vendor():
    assert estimates.decode_class("gpu", "amd") == "gpu-amd"
    assert estimates.decode_class("gpu", "intel") == "gpu-intel"
    assert estimates.decode_class("gpu", "nvidia") == "gpu"
    assert estimates.decode_class("gpu", None) == "gpu"
    assert estimates.decode_class("accelerator", "amd") == "accelerator"
    assert estimates.decode_class("cpu", "intel") == "cpu"


def _radeon_desktop(count=1) -> Report:
    card = Device(kind="gpu", vendor="amd", name="Radeon RX 7900 XTX", bus="pci",
                  pci_id="1002:744c", driver="amdgpu", readiness="ready",
                  details={"memory_bytes": 24 * GiB, "memory_bandwidth_gbps": 960})
    return cpu_vm().replace(devices=[card.replace(address=f"0000:0{i + 3}:00.0",
                                                  details={**card.details, "index": i})
                                     for i in range(count)])


def test_amd_gpu_estimate_uses_the_amd_efficiency():
    est = advisor.estimates(_radeon_desktop(2))
    cards = [d for d in est["devices"] if d["kind"] == "gpu"]
    assert cards and all(d["class"] == "gpu" and d["decode_class"] == "gpu-amd" for d in cards)
    assert est["assumptions"]["decode_model"]["vendor_classes"]["amd"] == "gpu-amd"
    m8 = next(m for m in estimates.catalogue() if m["id"] == "llama-3.1-8b")
    for card in cards:
        row = _row(card, m8["name"], "Q4_K_M")
        amd = advisor.llm_row(m8, "Q4_K_M", 4.85, 960, None, 80 * GiB, "gpu-amd")
        nvidia = advisor.llm_row(m8, "Q4_K_M", 4.85, 960, None, 80 * GiB, "gpu")
        assert row["decode_tokens_per_s"] == amd["decode_tokens_per_s"]
        assert row["decode_tokens_per_s"] < 0.9 * nvidia["decode_tokens_per_s"]


def test_small_models_on_fast_gpus_hit_the_per_token_floor():
    t = estimates.decode_model(3350, 0.5e9, 4, "gpu")
    assert t < 1 / 0.0005                  # never faster than the floor allows
    cpu = estimates.decode_model(400, 4.9e9, 4, "cpu", cores=2, active_params_b=8.03)
    rate = estimates.calibration()["model"]["classes"]["cpu"]["per_core_gflops"] * 1e9
    assert cpu == pytest.approx(2 * rate / (2 * 8.03e9), rel=0.01)   # two cores: compute-bound

def _dev(est, start):
    return next(d for d in est["devices"] if d["device"].startswith(start))


def _row(entry, size, quant):
    return next(r for r in entry["llm"] if r["size"] == size and r["quant"] == quant)


def test_estimates_use_measured_bandwidth_of_the_device_holding_the_weights():
    bench = {"cpu": {"stream": {"triad_gbps": 100.0}, "gemm": {"sgemm_gflops": 1500.0},
                     "fma": {"fp32_gflops_mt": 3000.0}},
             "gpu": {str(i): {"name": "NVIDIA H100 80GB HBM3", "triad_gbps": 3000.0,
                              "fp32_gflops": 50000.0} for i in range(8)}}
    est = advisor.estimates(h100_server().replace(benchmarks=bench))
    assert est["label"] == "estimates" and est["basis"] == "measured"
    gpu = _dev(est, "NVIDIA H100 80GB HBM3 (index 0")
    assert gpu["bandwidth_gbps"] == 3000.0
    assert gpu["bandwidth_source"].startswith("measured") and "3000" in gpu["bandwidth_source"]
    assert gpu["memory_bytes"] == int(85520809984 * 0.9)
    assert gpu["runtime"].startswith("vLLM")                 # a data-centre GPU
    r70 = _row(gpu, "Llama 3.1 70B", "FP8")
    assert r70["fits"] is True and r70["decode_tokens_per_s"] > 10
    assert _row(gpu, "Llama 3.1 70B", "BF16")["fits"] is False      # 141 GB on one card
    agg = _dev(est, "8 x NVIDIA H100")
    assert agg["memory_bytes"] == int(8 * 85520809984 * 0.9)
    assert _row(agg, "Llama 3.1 70B", "BF16")["fits"] is True       # split over 8 cards
    assert agg["bandwidth_gbps"] == 3000.0                          # a layer split does not add up
    assert any("layer split" in n for n in est["notes"])
    cpu = _dev(est, "CPU + system memory")
    assert cpu["bandwidth_source"].startswith("measured") and "100" in cpu["bandwidth_source"]
    assert cpu["flops_source"].startswith("measured (benchmarks.cpu.gemm.sgemm_gflops")
    assert cpu["memory_bytes"] == 1900 * GiB
    assert [f for f, _ in estimates.formats_for("cpu")[1]] == ["F16", "Q8_0", "Q4_K_M"]
    r8 = _row(cpu, "Llama 3.1 8B", "Q4_K_M")
    assert 5 < r8["decode_tokens_per_s"] < 15                       # ~100 GB/s x 0.55 / 5.4 GB
    assert r8["prefill_tokens_per_s"] == pytest.approx(1500e9 / (2 * 8.03e9), abs=0.05)
    assert gpu["largest_at_10_tokens_per_s"]["decode_tokens_per_s"] >= 10


def test_measured_figures_through_the_benchmark_reader_with_spread(monkeypatch):
    def reader(report, device=None, index=None):
        if device is None:
            return {"median_gbps": 30.0, "min_gbps": 17.0, "max_gbps": 37.0, "rel_spread": 0.67,
                    "source": "measured"}
        return None
    monkeypatch.setattr(estimates.benchmarks, "memory_bandwidth", reader)
    est = advisor.estimates(cpu_vm())
    cpu = est["devices"][0]
    assert cpu["bandwidth_gbps"] == 30.0 and "17-37 GB/s" in cpu["bandwidth_source"]
    assert any("varied by 67%" in n for n in est["notes"])


def test_only_usable_devices_count():
    r = h100_server()
    devices = [d.replace(readiness="no-access") if i else d for i, d in enumerate(r.devices)]
    est = advisor.estimates(r.replace(devices=devices))
    names = [d["device"] for d in est["devices"]]
    assert not any(n.startswith("8 x") or n.startswith("2 x") for n in names)
    assert sum(1 for n in names if "H100" in n) == 1
    assert sum("left out" in n for n in est["notes"]) == 7


def test_inference_only_chips_get_no_finetuning_and_no_gguf():
    from accelgui.report import Device
    inf2 = Device(kind="accelerator", vendor="aws", name="AWS Inferentia2", bus="pci",
                  driver="neuron", readiness="ready", details={"memory_bytes": 32 * GiB})
    est = advisor.estimates(cpu_vm().replace(devices=[inf2]))
    dev = _dev(est, "AWS Inferentia2")
    assert dev["finetune"] == []
    assert {r["quant"] for r in dev["llm"]} == {"BF16", "FP8", "INT8"}


def test_context_option_changes_the_kv_cache():
    a = advisor.estimates(h100_server(), context=4096)
    b = advisor.estimates(h100_server(), context=131072)
    ra = _row(_dev(a, "NVIDIA H100 80GB HBM3 (index 0"), "Llama 3.1 8B", "BF16")
    rb = _row(_dev(b, "NVIDIA H100 80GB HBM3 (index 0"), "Llama 3.1 8B", "BF16")
    assert rb["kv_cache_bytes"] == 32 * ra["kv_cache_bytes"] and rb["context_tokens"] == 131072
    assert b["assumptions"]["context_tokens"] == 131072

def test_estimates_fall_back_to_specification_and_say_so():
    est = advisor.estimates(h100_server())
    gpu = _dev(est, "NVIDIA H100 80GB HBM3 (index 0")
    assert gpu["bandwidth_gbps"] == 3352.3
    assert gpu["bandwidth_source"].startswith("specification")
    cpu = _dev(est, "CPU + system memory")
    assert cpu["bandwidth_gbps"] is None and cpu["bandwidth_source"] is None
    assert _row(cpu, "Llama 3.1 8B", "Q4_K_M")["decode_tokens_per_s"] is None
    assert any("--bench" in n for n in est["notes"])
    assert est["basis"] == "mixed"

def test_estimates_finetune_and_assumptions():
    est = advisor.estimates(cpu_vm(benchmarks={"cpu": {"stream": {"triad_gbps": 40.0}}}))
    cpu = est["devices"][0]
    assert cpu["device"].startswith("CPU + system memory")
    full7 = next(r for r in cpu["finetune"]
                 if r["size"] == "Llama 3.1 8B" and r["method"] == "full Adam mixed precision")
    assert full7["bytes"] == int(round(16 * 8.03e9)) and full7["fits"] is False   # 128 GB > 14 GiB
    qlora7 = next(r for r in cpu["finetune"] if r["size"] == "Llama 3.1 8B" and r["method"].startswith("QLoRA"))
    assert qlora7["fits"] is True
    arch = {a["model"]: a for a in est["assumptions"]["architectures"]}
    assert (arch["llama-3.1-70b"]["layers"], arch["llama-3.1-70b"]["kv_heads"]) == (80, 8)
    assert arch["deepseek-v3"]["active_params_b"] == 37.0
    assert est["assumptions"]["context_tokens"] == 4096
    assert "weights_bytes" in est["formulas"] and "decode_tokens_per_s" in est["formulas"]

def test_estimates_skip_npus_and_igpus_of_vendors_without_a_rule_with_a_note():
    est = advisor.estimates(npu_laptop())
    assert [d["device"].split(" (")[0] for d in est["devices"]] == [
        "Intel Arc Graphics", "CPU + system memory"]           # the NPU is left out
    assert any("NPUs are not estimated" in n for n in est["notes"])
    mali = Device(kind="gpu", vendor="arm", name="Mali-G610 MP4", bus="platform", integrated=True,
                  readiness="ready", details={"form": "integrated"})
    est = advisor.estimates(rpi5_coral().replace(devices=[mali]))
    assert [d["kind"] for d in est["devices"]] == ["cpu"]
    assert any(n.startswith("Arm Mali-G610 MP4 is integrated") for n in est["notes"])


def test_a_card_waiting_only_for_its_compute_runtime_is_estimated_and_says_so():
    """A 7900 XTX on amdgpu without ROCm (runtime-missing) can run LLMs once a runtime is there
    (llama.cpp's Vulkan build needs only the driver): estimated, flagged and noted; a GPU with
    no driver bound stays out, with a note."""
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    def estimate(tree):
        return advisor.estimates(run_probes(ProbeContext(root=os.path.join(MACHINES, tree))))

    est = estimate("acc-radeon-desktop")
    card = _dev(est, "AMD Radeon RX 7900")
    assert card["needs_runtime"] is True and card["largest_fitting"] is not None
    assert any("runtime is installed" in n and n.startswith("AMD Radeon RX 7900") for n in est["notes"])
    assert any("once a compute runtime is installed" in line for line in est["summary"])
    cpu = next(d for d in est["devices"] if d["kind"] == "cpu")
    assert not cpu.get("needs_runtime")
    none = estimate("acc-gpu-no-driver")
    # the card is why the machine was bought: estimated for once its driver is installed
    gpu, cpu = none["devices"]
    assert gpu["kind"] == "gpu" and gpu["needs_driver"] is True and not gpu["needs_runtime"]
    assert gpu["largest_fitting"] is not None
    assert any("once its driver is installed" in n for n in none["notes"])
    assert any("(once its driver is installed)" in line for line in none["summary"])
    assert cpu["kind"] == "cpu" and not cpu.get("needs_driver")


def test_benchmark_of_another_card_is_not_used():
    bench = {"gpu": {"0": {"name": "NVIDIA GeForce RTX 4090", "triad_gbps": 900.0}}}
    est = advisor.estimates(h100_server().replace(benchmarks=bench))
    assert _dev(est, "NVIDIA H100 80GB HBM3 (index 0")["bandwidth_source"].startswith("specification")


# --------------------------------------------------------------------------- recorded trees

# Verdicts a knowledgeable person gives for the inventory's recorded machines. The trees
# hold no Python site-packages, so routes that also recommend a framework can only be
# "partial" there: "ready" or "partial" is accepted where the device itself is fine.
TREES = {
    "acc-dgx-h100": {"gpu": ("ready", "partial"), "enterprise": ("ready",), "tpu": ("remote",),
                     "npu": ("remote",), "edge": ("remote",)},
    "acc-intel-npu-laptop": {"npu": ("ready", "partial"), "tpu": ("remote",),
                             "enterprise": ("remote",)},
    "acc-office-pc": {"tpu": ("remote",), "fpga": ("remote", "unavailable"), "gpu": ("remote",),
                      "npu": ("remote",), "enterprise": ("remote",), "edge": ("remote",)},
    "acc-coral-rpi": {"edge": ("ready", "partial"), "tpu": ("remote",), "gpu": ("remote",)},
    "acc-coral-pcie": {"edge": ("ready", "partial"), "tpu": ("remote",)},
    "acc-gcp-tpu-v5e": {"tpu": ("ready", "partial"), "enterprise": ("ready", "partial"),
                        "gpu": ("remote",)},
    "acc-gpu-no-driver": {"gpu": ("partial",)},
    "acc-amd-mi300x": {"gpu": ("ready", "partial"), "enterprise": ("ready",)},
    "acc-radeon-desktop": {"gpu": ("ready", "partial"), "enterprise": ("remote",)},
    "acc-intel-arc": {"gpu": ("ready", "partial")},
    "acc-xilinx-u250": {"fpga": ("ready", "partial"), "gpu": ("remote",)},
    "acc-intel-fpga": {"fpga": ("ready", "partial")},
    "acc-hailo8": {"edge": ("ready", "partial")},
    "acc-amd-xdna-laptop": {"npu": ("ready", "partial")},
    "acc-rockchip-rk3588": {"npu": ("ready", "partial"), "edge": ("ready", "partial")},
    "acc-gaudi2": {"enterprise": ("ready", "partial"), "gpu": ("remote",)},
    "acc-server-aspeed-only": {"gpu": ("remote",), "npu": ("remote",), "edge": ("remote",)},
}
# partial only for software a recorded tree cannot hold (no site-packages in it); every tree
# describes its CPU and memory, so those never block
BLOCKING = {"acc-dgx-h100": {"gpu": {"gpu.framework"}, "enterprise": set(),
                             "cpu": {"cpu.python-stack"}},
            "acc-amd-mi300x": {"gpu": {"gpu.framework"}},
            "acc-intel-npu-laptop": {"npu": set(), "cpu": {"cpu.python-stack"}},
            "acc-office-pc": {"cpu": {"cpu.python-stack"}, "cloud": {"cloud.on-cloud"}},
            "acc-coral-rpi": {"cpu": {"cpu.python-stack"}, "edge": {"edge.runtime"}},
            "acc-rockchip-rk3588": {"cpu": {"cpu.python-stack"}}}
# what must be named as missing
MUST_BLOCK = {"acc-gpu-no-driver": {"gpu": "gpu.driver-ready"},
              "acc-radeon-desktop": {"gpu": "gpu.driver-ready"}}
# the route whose reasons must name the tree's accelerator
NAMED = {"acc-dgx-h100": "gpu", "acc-intel-npu-laptop": "npu", "acc-coral-rpi": "edge",
         "acc-gpu-no-driver": "gpu", "acc-xilinx-u250": "fpga", "acc-gcp-tpu-v5e": "tpu",
         "acc-office-pc": "gpu", "acc-amd-mi300x": "enterprise"}


@pytest.mark.parametrize("tree", sorted(TREES))
def test_recorded_trees_real_pipeline(tree, kb):
    root = os.path.join(MACHINES, tree)
    assert os.path.isdir(root), f"machine tree {tree} is missing"
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(root=root))
    v = verdicts(report, kb)
    need(kb, *TREES[tree])
    for rid, allowed in TREES[tree].items():
        assert v[rid].status in allowed, (rid, v[rid].status, v[rid].reasons)
        assert v[rid].reasons
    for rid, allowed_blocking in BLOCKING.get(tree, {}).items():
        got = {b["requirement"] for b in v[rid].blocking}
        assert got <= allowed_blocking, (rid, got)
    for rid, must in MUST_BLOCK.get(tree, {}).items():
        assert must in {b["requirement"] for b in v[rid].blocking}, v[rid].blocking
    if tree in NAMED:
        names = [d.name for d in report.devices if d.name]
        assert names
        assert any(n in r for n in names for r in v[NAMED[tree]].reasons), v[NAMED[tree]].reasons
    assert all(a.next_steps for a in v.values())
    est = advisor.estimates(report)
    assert est["devices"][-1]["device"].startswith("CPU + system memory")


def test_h100_tree_estimates_name_the_cards(kb):
    root = os.path.join(MACHINES, "acc-dgx-h100")
    assert os.path.isdir(root), "machine tree acc-dgx-h100 is missing"
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    est = advisor.estimates(run_probes(ProbeContext(root=root)))
    first = est["devices"][0]
    assert "H100" in first["device"] and first["count"] == 8
    assert first["memory_total_bytes"] and first["memory_total_bytes"] > 75 * GiB
    assert any(d.get("aggregate") for d in est["devices"])


def test_advice_fits_the_report_schema_and_json(kb):
    import json

    from accelgui.report import validate

    for r in (h100_server(), npu_laptop(), office_pc(), rpi5_coral(), cpu_vm()):
        full = r.replace(routes=advisor.assess(r, kb), estimates=advisor.estimates(r))
        data = json.loads(full.to_json())
        validate(data)
        assert data["estimates"]["label"] == "estimates"
        assert Report.from_dict(data).routes[0].id == next(iter(kb.routes))


def test_benchmark_matched_by_pci_bus_id_not_cuda_order():
    r = h100_server()
    # CUDA numbered the card at 0000:2a:00.0 as device 0
    bench = {"gpu": {"0": {"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:2a:00.0",
                           "triad_gbps": 2500.0, "memory_peak_gbps": 3352.3},
                     "1": {"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:18:00.0",
                           "triad_gbps": 3000.0, "memory_peak_gbps": 3352.3}}}
    est = advisor.estimates(r.replace(devices=r.devices[:2], benchmarks=bench))
    first = est["devices"][0]                    # report device 0 is the card on bus 18
    assert first["bandwidth_gbps"] == 3000.0
    assert first["bandwidth_source"].startswith("measured") and "3000" in first["bandwidth_source"]


def test_nvml_peak_from_the_benchmark_is_a_specification_figure():
    r = h100_server()
    dev = r.devices[0].replace(details={k: v for k, v in r.devices[0].details.items()
                                         if k != "memory_bandwidth_gbps"})
    bench = {"gpu": {"0": {"name": "NVIDIA H100 80GB HBM3", "triad_gbps": None,
                           "memory_peak_gbps": 3352.3}}}
    gpu = advisor.estimates(r.replace(devices=[dev], benchmarks=bench))["devices"][0]
    assert gpu["bandwidth_gbps"] == 3352.3
    assert gpu["bandwidth_source"].startswith("specification (NVML memory clock x bus width")


def test_jetson_gpu_shares_system_memory():
    jetson = Device(kind="gpu", vendor="nvidia", name="NVIDIA Jetson Orin GPU (Ampere)",
                    bus="platform", integrated=True, readiness="ready",
                    details={"compute_capability": 8.7, "memory_bytes": 64 * GiB,
                             "memory_shared": True})
    r = Report(memory=Memory(total_bytes=64 * GiB, available_bytes=50 * GiB), devices=[jetson])
    est = advisor.estimates(r)
    gpu = est["devices"][0]
    assert gpu["device"].startswith("NVIDIA Jetson Orin GPU")
    assert gpu["memory_bytes"] == 50 * GiB          # what is free now, not the whole 64 GiB
    assert any("shares system memory" in n for n in est["notes"])


# --------------------------------------------------------------------------- integrated GPUs

def strix_halo(carve=64 * GiB, total=62 * GiB, avail=55 * GiB, benchmarks=None, **details):
    """Ryzen AI Max+ 395 with 128 GB LPDDR5X, 64 GiB set aside for the GPU in the firmware
    (the kernel's MemTotal then holds the rest); amdgpu's sysfs carve-out as the PCI probe
    records it (details.memory_bytes, memory_source "amdgpu")."""
    gpu = Device(kind="gpu", vendor="amd", name="Radeon 8060S Graphics", bus="pci",
                 address="0000:c5:00.0", pci_id="1002:1586", driver="amdgpu", integrated=True,
                 readiness="ready",
                 details={"memory_bytes": carve, "memory_source": "amdgpu", "gfx_target": "gfx1151",
                          "form": "integrated", "segment": "consumer",
                          "memory_bandwidth_gbps": None, "memory_bandwidth_source": None, **details})
    return Report(
        platform=Platform(os="Linux", os_release="Fedora Linux 43", machine="x86_64"),
        cpu=Cpu(vendor="amd", model_name="AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", arch="x86_64",
                microarchitecture="zen5", logical_cpus=32, features=["avx2", "fma", "avx512f"]),
        memory=Memory(total_bytes=total, available_bytes=avail), devices=[gpu],
        benchmarks=benchmarks)


def lunar_lake(bandwidth=None, benchmarks=None) -> Report:
    """Core Ultra 7 258V: Arc 140V iGPU (xe driver) on 32 GB of on-package LPDDR5X-8533."""
    details = {"form": "integrated", "segment": "consumer"}
    if bandwidth:
        details.update(memory_bandwidth_gbps=bandwidth, memory_bandwidth_source="specification")
    gpu = Device(kind="gpu", vendor="intel", name="Intel Arc 140V GPU", bus="pci",
                 address="0000:00:02.0", pci_id="8086:64a0", driver="xe", integrated=True,
                 readiness="ready", details=details)
    return Report(
        platform=Platform(os="Linux", os_release="Ubuntu 24.10", machine="x86_64"),
        cpu=Cpu(vendor="intel", model_name="Intel(R) Core(TM) Ultra 7 258V", arch="x86_64",
                microarchitecture="lunarlake", logical_cpus=8, features=["avx2", "fma", "avx_vnni"]),
        memory=Memory(total_bytes=31 * GiB, available_bytes=24 * GiB), devices=[gpu],
        benchmarks=benchmarks)


def _igpu(est):
    gpus = [d for d in est["devices"] if d["kind"] == "gpu"]
    assert len(gpus) == 1, [d["device"] for d in est["devices"]]
    return gpus[0]


def test_amd_apu_budget_is_the_carve_out_plus_the_default_gtt_capped_by_free_memory():
    est = advisor.estimates(strix_halo())
    gpu, cpu = _igpu(est), _dev(est, "CPU + system memory")
    assert gpu["device"].startswith("AMD Radeon 8060S Graphics")
    assert gpu["class"] == "gpu" and gpu["decode_class"] == "gpu-amd" and gpu["shared_memory"]
    gtt = max(3 * GiB, 31 * GiB)                                 # amdgpu default: half of MemTotal
    assert gpu["memory_bytes"] == int(64 * GiB * 0.9) + gtt
    assert gpu["memory_total_bytes"] == 64 * GiB + gtt
    src = gpu["memory_source"]
    assert "carve-out devices[0].details.memory_bytes" in src and "default gttsize" in src
    assert "capped by memory.available_bytes" in src
    assert any("carve-out (64.0 GiB)" in n and "Vulkan" in n for n in est["notes"])
    assert any(n.startswith("AMD Radeon 8060S Graphics shares system memory") and "not both" in n
               for n in est["notes"])
    assert cpu["memory_bytes"] == 55 * GiB and "shared_memory" not in cpu
    # no benchmark and no specification figure: no speed, and a note says why
    assert gpu["bandwidth_gbps"] is None and gpu["bandwidth_source"] is None
    assert all(r["decode_tokens_per_s"] is None for r in gpu["llm"])
    assert gpu["largest_at_10_tokens_per_s"] is None
    assert any(n.startswith("AMD Radeon 8060S Graphics: memory bandwidth unknown") for n in est["notes"])
    # the 70B at Q4 fits in carve-out + GTT; the 120B MoE at Q8 does not (~124 GB)
    assert _row(gpu, "Llama 3.1 70B", "Q4_K_M")["fits"] is True
    assert _row(gpu, "gpt-oss-120b (MoE)", "Q8_0")["fits"] is False


def test_amd_apu_recorded_gtt_limit_and_a_small_carve_out():
    # firmware carve-out at its minimum, GTT raised to 96 GiB with ttm.pages_limit
    est = advisor.estimates(strix_halo(carve=4 * GiB, total=124 * GiB, avail=110 * GiB,
                                       gtt_total_bytes=96 * GiB))
    gpu = _igpu(est)
    assert gpu["memory_bytes"] == int(4 * GiB * 0.9) + 96 * GiB
    assert "devices[0].details.gtt_total_bytes" in gpu["memory_source"]
    tight = _igpu(advisor.estimates(strix_halo(carve=4 * GiB, total=124 * GiB, avail=50 * GiB,
                                                gtt_total_bytes=96 * GiB)))
    assert tight["memory_bytes"] == int(4 * GiB * 0.9) + 50 * GiB      # never more than is free
    hostile = _igpu(advisor.estimates(strix_halo(gtt_total_bytes="lots")))
    assert hostile["memory_bytes"] == int(64 * GiB * 0.9) + 31 * GiB   # falls back to the default


def test_amd_apu_bandwidth_specification_then_the_cpu_measurement_else_nothing():
    bench = {"cpu": {"stream": {"triad_gbps": 118.0}}}
    gpu = _igpu(advisor.estimates(strix_halo(benchmarks=bench)))
    assert gpu["bandwidth_gbps"] == 118.0
    assert gpu["bandwidth_source"].startswith("measured") and "benchmarks.cpu.stream" in gpu["bandwidth_source"]
    assert advisor.source_kind(gpu["bandwidth_source"]) == "measured"
    # a specification figure of the device (256-bit LPDDR5X-8000) wins over the CPU's triad:
    # the calibration points are on specification bandwidths
    spec = _igpu(advisor.estimates(strix_halo(benchmarks=bench, memory_bandwidth_gbps=256,
                                              memory_bandwidth_source="specification")))
    assert spec["bandwidth_gbps"] == 256
    assert spec["bandwidth_source"] == "specification (devices[0].details.memory_bandwidth_gbps)"
    m3b = next(m for m in estimates.catalogue() if m["id"] == "llama-3.2-3b")
    row = _row(spec, m3b["name"], "Q4_K_M")
    want = advisor.llm_row(m3b, "Q4_K_M", row["bits_per_weight"], 256, None, 80 * GiB, "gpu-amd")
    assert row["decode_tokens_per_s"] == want["decode_tokens_per_s"]
    # published: 74.98 tokens/s, Llama 3.2 3B Q4_K_M, ROCm (the calibration point)
    assert 74.98 / 1.35 < row["decode_tokens_per_s"] < 74.98 * 1.35


def test_intel_igpu_budget_is_the_runtime_share_capped_by_free_memory():
    est = advisor.estimates(lunar_lake())
    gpu, cpu = _igpu(est), _dev(est, "CPU + system memory")
    assert gpu["decode_class"] == "gpu-intel" and gpu["shared_memory"] and gpu["runtime"] == "llama.cpp"
    assert gpu["memory_total_bytes"] == int(31 * GiB * 0.94)
    assert gpu["memory_bytes"] == 24 * GiB == cpu["memory_bytes"]  # the same free RAM, not twice
    assert "compute runtime" in gpu["memory_source"] and "memory.available_bytes" in gpu["memory_source"]
    assert all(r["decode_tokens_per_s"] is None for r in gpu["llm"])
    assert any(n.startswith("Intel Arc 140V GPU shares system memory") for n in est["notes"])
    small = _igpu(advisor.estimates(lunar_lake().replace(
        memory=Memory(total_bytes=16 * GiB, available_bytes=None))))
    assert small["memory_bytes"] == int(16 * GiB * 0.8)                # free unknown: 0.8 of total


def test_intel_igpu_decodes_like_the_published_lunar_lake_figure():
    gpu = _igpu(advisor.estimates(lunar_lake(bandwidth=136.5)))
    m8 = next(m for m in estimates.catalogue() if m["id"] == "llama-3.1-8b")
    row = _row(gpu, m8["name"], "Q4_K_M")
    # published: 17.69 tokens/s for a 7B Q4_K_M (3.80 GiB) on the Arc 140V with SYCL; the 8B
    # reads ~1.3x the bytes
    assert 17.69 / 1.3 / 1.35 < row["decode_tokens_per_s"] < 17.69 / 1.3 * 1.35
    cpu_measured = _igpu(advisor.estimates(lunar_lake(benchmarks={"cpu": {"stream": {"triad_gbps": 90.0}}})))
    assert cpu_measured["bandwidth_gbps"] == 90.0


def test_a_unified_memory_figure_of_the_device_is_the_shared_pool():
    # an MI300A: the family data gives its 128 GB of HBM3 (the system memory too) and 5.3 TB/s
    mi300a = Device(kind="gpu", vendor="amd", name="AMD Instinct MI300A", bus="pci",
                    address="0000:02:00.0", pci_id="1002:74a0", driver="amdgpu", integrated=True,
                    readiness="ready",
                    details={"memory_bytes": 128 * GiB, "memory_source": "specification",
                             "memory_bandwidth_gbps": 5300, "memory_bandwidth_source": "specification",
                             "form": "integrated", "segment": "data-centre"})
    r = h100_server().replace(devices=[mi300a],
                              memory=Memory(total_bytes=125 * GiB, available_bytes=100 * GiB))
    gpu = _igpu(advisor.estimates(r))
    assert gpu["shared_memory"] and gpu["memory_bytes"] == 100 * GiB     # capped by free memory
    assert gpu["memory_source"].startswith("memory.available_bytes")
    assert gpu["bandwidth_gbps"] == 5300 and gpu["runtime"].startswith("vLLM")


def test_integrated_form_alone_makes_a_gpu_shared():
    gpu = lunar_lake().devices[0].replace(integrated=False)       # details.form "integrated"
    est = advisor.estimates(lunar_lake().replace(devices=[gpu]))
    assert _igpu(est)["shared_memory"] and "compute runtime" in _igpu(est)["memory_source"]


def test_discrete_and_jetson_entries_are_unchanged_by_the_igpu_rules():
    h100 = _dev(advisor.estimates(h100_server()), "NVIDIA H100 80GB HBM3 (index 0")
    assert h100["shared_memory"] is False and h100["memory_bytes"] == int(85520809984 * 0.9)
    radeon = _dev(advisor.estimates(_radeon_desktop()), "AMD Radeon RX 7900 XTX")
    assert radeon["shared_memory"] is False and radeon["memory_bytes"] == int(24 * GiB * 0.9)
    assert radeon["memory_source"].startswith("devices[0].details.memory_bytes, minus 10%")


def test_recorded_igpu_trees_get_an_igpu_estimate():
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    est = advisor.estimates(run_probes(ProbeContext(root=os.path.join(MACHINES, "acc-intel-npu-laptop"))))
    gpu, cpu = _igpu(est), est["devices"][-1]
    assert gpu["device"].startswith("Intel Arc Graphics")
    assert gpu["shared_memory"] and gpu["decode_class"] == "gpu-intel"
    assert gpu["memory_bytes"] == cpu["memory_bytes"]             # the free RAM, counted once each
    # the office PC's UHD 770 (32 EUs, about 0.74 TFLOP/s) is below the device floor: no LLM
    # line of its own, a note that says why
    est = advisor.estimates(run_probes(ProbeContext(root=os.path.join(MACHINES, "acc-office-pc"))))
    assert [d["kind"] for d in est["devices"]] == ["cpu"]
    assert any("UHD" in n and "device floor" in n for n in est["notes"])


# --------------------------------------------------------------------------- estimates in Chinese

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _numbers(obj):
    """Every number and bool of an estimates tree, by path (the language must not change them)."""
    out = {}

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")
        elif x is None or isinstance(x, (bool, int, float)):
            out[path] = x
    walk(obj, "")
    return out


def _keys(obj, path=""):
    if isinstance(obj, dict):
        return {f"{path}.{k}" for k in obj} | set().union(*(_keys(v, f"{path}.{k}") for k, v in obj.items()))
    if isinstance(obj, list):
        return set().union(set(), *(_keys(v, f"{path}[{i}]") for i, v in enumerate(obj)))
    return set()


@pytest.mark.parametrize("make", [
    lambda: h100_server().replace(benchmarks={
        "cpu": {"stream": {"triad_gbps": 100.0}, "fma": {"fp32_gflops_mt": 3000.0}},
        "gpu": {str(i): {"name": "NVIDIA H100 80GB HBM3", "triad_gbps": 3000.0,
                         "fp32_gflops": 50000.0} for i in range(8)}}),
    lambda: h100_server(), lambda: npu_laptop(), lambda: cpu_vm(), lambda: Report(),
    lambda: strix_halo(benchmarks={"cpu": {"stream": {"triad_gbps": 118.0}}}),
    lambda: lunar_lake(bandwidth=136.5)])
def test_estimates_in_chinese_have_the_same_numbers_and_keys(make):
    en, zh = advisor.estimates(make()), advisor.estimates(make(), lang="zh")
    assert en == advisor.estimates(make(), lang="en")
    assert _numbers(zh) == _numbers(en) and _keys(zh) == _keys(en)
    assert zh["label"] == en["label"] and zh["basis"] == en["basis"]
    assert zh["assumptions"] == en["assumptions"] and zh["formulas"].keys() == en["formulas"].keys()
    for text in zh["notes"] + zh["summary"] + list(zh["formulas"].values()):
        assert _CJK.search(text), text
    assert len(zh["notes"]) == len(en["notes"])
    for dz, de in zip(zh["devices"], en["devices"]):
        assert _CJK.search(dz["device"]) or dz["device"] == de["device"]
        for key in ("memory_source", "bandwidth_source", "flops_source"):
            assert (dz[key] is None) == (de[key] is None)
            if dz[key]:
                assert _CJK.search(dz[key]), dz[key]
                assert advisor.source_kind(dz[key]) == advisor.source_kind(de[key])
        for rz, re_ in zip(dz["finetune"], de["finetune"]):
            assert _CJK.search(rz["method"] + rz["basis"]) and rz["bytes"] == re_["bytes"]
    assert advisor.estimates(make(), lang="zh_CN") == zh


def test_estimates_in_chinese_name_the_devices():
    bench = {"gpu": {str(i): {"name": "NVIDIA H100 80GB HBM3", "triad_gbps": 3000.0}
                     for i in range(8)}}
    est = advisor.estimates(h100_server().replace(benchmarks=bench), lang="zh")
    names = [d["device"] for d in est["devices"]]
    assert names[0] == "NVIDIA H100 80GB HBM3\uff080 \u53f7\uff1b8 \u4e2a\u76f8\u540c\u8bbe\u5907\u6bcf\u4e2a\u90fd\u4e00\u6837\uff09"
    assert names[1].startswith("8 × NVIDIA H100 80GB HBM3\uff080\u30011\u30012\u30013") and "\u6a21\u578b\u5207\u5206" in names[1]
    assert names[-1].startswith("CPU + \u7cfb\u7edf\u5185\u5b58")
    assert est["devices"][0]["bandwidth_source"].startswith("\u5b9e\u6d4b") and "3000" in est["devices"][0]["bandwidth_source"]
    assert est["devices"][0]["finetune"][0]["method"] == "\u5168\u91cf\u5fae\u8c03\uff08Adam \u6df7\u5408\u7cbe\u5ea6\uff09"
    assert "\u4ee5\u53ef\u7528\u901f\u5ea6" in est["summary"][0] and "\u5b9e\u6d4b\u5e26\u5bbd" in est["summary"][0]
    assert not any("index" in n or "measured" in n for n in names + est["summary"])
