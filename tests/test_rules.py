"""The RULE language evaluator (accelgui.rules): every rule kind, three-valued logic, facts."""

from __future__ import annotations

import pytest

from accelgui.report import Cpu, Device, Memory, Platform, Report, Software
from accelgui.rules import KnowledgeRuleError, evaluate, validate

H100 = Device(kind="gpu", vendor="nvidia", name="NVIDIA H100 80GB HBM3", bus="pci",
              pci_id="10de:2330", driver="nvidia", readiness="ready",
              details={"compute_capability": "9.0", "memory_bytes": 85520809984,
                       "driver_version": "550.54.15"})
GTX1080 = Device(kind="gpu", vendor="nvidia", name="NVIDIA GeForce GTX 1080", bus="pci",
                 driver="nvidia", readiness="ready",
                 details={"compute_capability": 6.1, "memory_bytes": 8589934592})
UHD770 = Device(kind="gpu", vendor="intel", name="Intel UHD Graphics 770", bus="pci",
                driver="i915", integrated=True, readiness="ready", details={})
NPU = Device(kind="npu", vendor="intel", name="Intel Meteor Lake NPU", bus="pci",
             driver="intel_vpu", integrated=True, readiness="runtime-missing",
             readiness_reason="OpenVINO not installed", details={})


def report(devices=(), features=("avx2", "fma"), flags=(), arch="x86_64", packages=None,
           toolkits=None, providers=(), benchmarks=None, total=16 * 2**30, cpus=8,
           os_name="Linux", cloud=None, container=None, model="Intel(R) Core(TM) i5-12500 CPU @ 3.00GHz"):
    return Report(
        platform=Platform(os=os_name, machine=arch, cloud=cloud, container=container),
        cpu=Cpu(arch=arch, model_name=model, logical_cpus=cpus, features=list(features),
                flags=list(flags)),
        memory=Memory(total_bytes=total, available_bytes=total // 2 if total else None),
        devices=list(devices),
        software=Software(packages=dict(packages or {}), toolkits=dict(toolkits or {}),
                          providers=list(providers)),
        benchmarks=benchmarks,
    ).to_dict()


# --------------------------------------------------------------------------- device

def test_device_match_names_the_device_with_its_facts():
    value, facts = evaluate({"device": {"kind": "gpu", "vendor": "nvidia",
                                        "min": {"compute_capability": 7.5}}},
                            report([H100] * 8))
    assert value is True
    assert len(facts) == 1                                     # 8 identical cards, one line
    assert facts[0].startswith("8 x NVIDIA H100 80GB HBM3")
    assert "compute capability 9.0" in facts[0]
    assert "550.54.15" in facts[0] and "(ready)" in facts[0]


def test_device_compute_capability_below_minimum_is_a_named_near_miss():
    value, facts = evaluate({"device": {"kind": "gpu", "min": {"compute_capability": 7.5}}},
                            report([GTX1080]))
    assert value is False
    assert "NVIDIA GeForce GTX 1080" in facts[0]
    assert "compute capability 6.1 below 7.5" in facts[0]


def test_compute_capability_compares_as_a_version_not_a_decimal():
    b200 = Device(kind="gpu", vendor="nvidia", name="NVIDIA B200", readiness="ready",
                  details={"compute_capability": "10.0"})
    assert evaluate({"device": {"min": {"compute_capability": 9.0}}}, report([b200]))[0] is True
    ada = Device(kind="gpu", vendor="nvidia", name="RTX 4090", readiness="ready",
                 details={"compute_capability": "8.9"})
    assert evaluate({"device": {"min": {"compute_capability": 8.10}}}, report([ada]))[0] is True
    assert evaluate({"device": {"min": {"compute_capability": 9.0}}}, report([ada]))[0] is False


def test_no_device_of_the_kind():
    value, facts = evaluate({"device": {"kind": "tpu"}}, report([H100]))
    assert value is False
    assert facts == ["no TPU here"]
    value, facts = evaluate({"device": {"kind": "gpu", "vendor": ["nvidia", "amd"]}},
                            report([]))
    assert value is False and facts == ["no NVIDIA or AMD GPU here"]


def test_integrated_filter_explains_the_igpu():
    value, facts = evaluate({"device": {"kind": "gpu", "vendor": "intel", "integrated": False}},
                            report([UHD770]))
    assert value is False
    assert "Intel UHD Graphics 770" in facts[0] and "integrated" in facts[0]


def test_readiness_filter_and_reason():
    value, facts = evaluate({"device": {"kind": "npu", "readiness": "ready"}}, report([NPU]))
    assert value is False
    assert "Intel Meteor Lake NPU" in facts[0]
    assert "runtime-missing" in facts[0] and "OpenVINO not installed" in facts[0]
    ready = Device(**{**NPU.__dict__, "readiness": "ready", "readiness_reason": None})
    assert evaluate({"device": {"kind": "npu", "readiness": ["ready"]}}, report([ready]))[0] is True


def test_unknown_device_facts_give_none():
    nocc = Device(kind="gpu", vendor="nvidia", name="NVIDIA GeForce RTX 3060",
                  readiness="driver-missing", details={})
    value, facts = evaluate({"device": {"kind": "gpu", "min": {"compute_capability": 7.5}}},
                            report([nocc]))
    assert value is None
    assert "compute capability unknown" in facts[0]
    unknown = Device(kind="gpu", vendor="amd", name="AMD Radeon", readiness="unknown")
    assert evaluate({"device": {"kind": "gpu", "readiness": "ready"}}, report([unknown]))[0] is None


def test_device_memory_minimum_and_bus():
    assert evaluate({"device": {"min": {"memory_bytes": 40e9}}}, report([H100]))[0] is True
    value, facts = evaluate({"device": {"min": {"memory_bytes": 40e9}}}, report([GTX1080]))
    assert value is False and "below" in facts[0]
    coral = Device(kind="tpu", vendor="google", name="Coral USB Accelerator", bus="usb",
                   readiness="ready")
    assert evaluate({"device": {"kind": "tpu", "bus": "usb"}}, report([coral]))[0] is True
    assert evaluate({"device": {"kind": "tpu", "bus": "pci"}}, report([coral]))[0] is False


def test_any_device_matching_is_enough():
    value, facts = evaluate({"device": {"kind": "gpu", "integrated": False}},
                            report([UHD770, GTX1080]))
    assert value is True
    assert facts[0].startswith("NVIDIA GeForce GTX 1080")


# --------------------------------------------------------------------------- cpu & platform

def test_cpu_feature_present_absent_and_unknown():
    value, facts = evaluate({"cpu_feature": "avx2"}, report())
    assert value is True and "cpu feature avx2 present" in facts[0]
    assert "Intel Core i5-12500" in facts[0]                  # names the CPU, cleaned up
    value, facts = evaluate({"cpu_feature": "avx512_bf16"}, report())
    assert value is False and "cpu feature avx512_bf16 absent" in facts[0]
    assert evaluate({"cpu_feature": "avx2"}, report(features=(), flags=()))[0] is None
    # a kernel flag counts when the normalised list lacks it
    assert evaluate({"cpu_feature": "sse4_2"}, report(features=(), flags=("sse4_2",)))[0] is True


def test_cpu_features_any():
    assert evaluate({"cpu_features_any": ["avx512f", "avx2"]}, report())[0] is True
    value, facts = evaluate({"cpu_features_any": ["neon", "sve"]}, report())
    assert value is False and "neon, sve" in facts[0]


def test_arch_and_os():
    assert evaluate({"arch": "x86_64"}, report())[0] is True
    assert evaluate({"arch": ["aarch64", "x86_64"]}, report())[0] is True
    value, facts = evaluate({"arch": ["aarch64"]}, report())
    assert value is False and "x86_64" in facts[0]
    assert evaluate({"arch": "x86_64"}, report(arch=None))[0] is None
    assert evaluate({"os": "linux"}, report())[0] is True
    assert evaluate({"os": ["Windows"]}, report())[0] is False
    assert evaluate({"os": "Linux"}, report(os_name=None))[0] is None


def test_memory_and_cpu_count():
    assert evaluate({"memory_min_bytes": 8 * 2**30}, report())[0] is True
    value, facts = evaluate({"memory_min_bytes": 64 * 2**30}, report())
    assert value is False and "16.0 GiB" in facts[0]
    assert evaluate({"memory_min_bytes": 1}, report(total=None))[0] is None
    assert evaluate({"logical_cpus_min": 4}, report(cpus=8))[0] is True
    assert evaluate({"logical_cpus_min": 4}, report(cpus=2))[0] is False
    assert evaluate({"logical_cpus_min": 4}, report(cpus=None))[0] is None


def test_cloud_and_container():
    gcp = {"provider": "gcp", "instance_type": "ct5lp-hightpu-4t"}
    value, facts = evaluate({"cloud": True}, report(cloud=gcp))
    assert value is True and "gcp" in facts[0] and "ct5lp-hightpu-4t" in facts[0]
    assert evaluate({"cloud": True}, report())[0] is False
    assert evaluate({"cloud": False}, report())[0] is True
    assert evaluate({"container": True}, report(container="docker"))[0] is True
    assert evaluate({"container": False}, report(container="docker"))[0] is False


# --------------------------------------------------------------------------- software

def test_package_installed_with_version_and_missing():
    value, facts = evaluate({"package": "openvino"}, report(packages={"openvino": "2024.4.0"}))
    assert value is True and facts == ["package openvino 2024.4.0 installed"]
    value, facts = evaluate({"package": "openvino"}, report())
    assert value is False and facts == ["package openvino not installed"]


def test_package_names_are_normalised_and_build_variants_count():
    assert evaluate({"package": "onnxruntime"}, report(packages={"onnxruntime-gpu": "1.20"}))[0]
    assert evaluate({"package": "torch-xla"}, report(packages={"torch_xla": "2.5"}))[0]
    assert evaluate({"package": "cupy"}, report(packages={"cupy-cuda12x": "13.3"}))[0]
    # a different package that merely shares a prefix does not count
    assert evaluate({"package": "torch"}, report(packages={"torchvision": "0.20"}))[0] is False


def test_packages_any():
    value, facts = evaluate({"packages_any": ["torch", "jax"]}, report(packages={"jax": "0.4.35"}))
    assert value is True and facts == ["package jax 0.4.35 installed"]
    value, facts = evaluate({"packages_any": ["torch", "jax"]}, report())
    assert value is False and "torch, jax" in facts[0]


def test_toolkit_and_provider():
    value, facts = evaluate({"toolkit": "cuda_toolkit"}, report(toolkits={"cuda_toolkit": "12.4"}))
    assert value is True and "12.4" in facts[0]
    assert evaluate({"toolkit": "rocm"}, report(toolkits={"cuda_toolkit": "12.4"}))[0] is False
    ep = "onnxruntime:CUDAExecutionProvider"
    assert evaluate({"provider": ep}, report(providers=[ep]))[0] is True
    value, facts = evaluate({"provider": ep}, report(providers=["onnxruntime:CPUExecutionProvider"]))
    assert value is False and "not available" in facts[0]


# --------------------------------------------------------------------------- metric

def test_metric_measured_below_and_unknown():
    bench = {"cpu": {"stream": {"triad_gbps": 45.3}}, "gpu": {"0": {"triad_gbps": 2900.0}}}
    value, facts = evaluate({"metric": "benchmarks.cpu.stream.triad_gbps", "min": 10},
                            report(benchmarks=bench))
    assert value is True and "45.3 GB/s" in facts[0]
    value, facts = evaluate({"metric": "benchmarks.cpu.stream.triad_gbps", "min": 100},
                            report(benchmarks=bench))
    assert value is False and "below" in facts[0]
    assert evaluate({"metric": "benchmarks.gpu.0.triad_gbps", "min": 1000},
                    report(benchmarks=bench))[0] is True
    # benchmark not run: unknown, and the fact says how to find out
    value, facts = evaluate({"metric": "benchmarks.cpu.stream.triad_gbps", "min": 10}, report())
    assert value is None and "run --bench" in facts[0]
    value, _ = evaluate({"metric": "benchmarks.cpu.fma.fp64_gflops_mt", "min": 10},
                        report(benchmarks=bench))
    assert value is None


# --------------------------------------------------------------------------- logic

T = {"arch": "x86_64"}
F = {"arch": "riscv64"}
U = {"metric": "benchmarks.cpu.stream.triad_gbps", "min": 1}


@pytest.mark.parametrize("rule,expected", [
    ({"all": [T, T]}, True), ({"all": [T, F]}, False), ({"all": [T, U]}, None),
    ({"all": [U, F]}, False),
    ({"any": [F, F]}, False), ({"any": [F, T]}, True), ({"any": [F, U]}, None),
    ({"any": [U, T]}, True),
    ({"not": T}, False), ({"not": F}, True), ({"not": U}, None),
    ({"all": [{"any": [F, T]}, {"not": F}]}, True),
])
def test_kleene_logic(rule, expected):
    assert evaluate(rule, report())[0] is expected


def test_any_prefers_the_near_miss_over_absences():
    rule = {"any": [
        {"device": {"kind": "gpu", "vendor": "nvidia"}},
        {"device": {"kind": "gpu", "vendor": "intel", "integrated": False}},
    ]}
    value, facts = evaluate(rule, report([UHD770]))
    assert value is False
    assert len(facts) == 1 and "Intel UHD Graphics 770" in facts[0]


def test_not_device_true_when_absent():
    value, facts = evaluate({"not": {"device": {"kind": "fpga"}}}, report([H100]))
    assert value is True and facts == ["no FPGA here"]


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("rule,name", [
    ({"gpu_present": True}, "gpu_present"),
    ({"device": {"kind": "gpu", "colour": "green"}}, "colour"),
    ({"all": [{"arch": "x86_64"}, {"cpu_flag": "avx"}]}, "cpu_flag"),
    ({"metric": "benchmarks.cpu.stream.triad_gbps", "max": 3}, "max"),
])
def test_unknown_rule_key_raises_naming_it(rule, name):
    with pytest.raises(KnowledgeRuleError, match=name):
        evaluate(rule, report())
    with pytest.raises(KnowledgeRuleError, match=name):
        validate(rule)


@pytest.mark.parametrize("rule", [
    {}, [], {"arch": "x86_64", "os": "Linux"}, {"all": []}, {"metric": "benchmarks.cpu"},
    {"cloud": "yes"}, {"packages_any": "torch"}, {"device": {"min": {"memory_bytes": "lots"}}},
])
def test_malformed_rules_raise(rule):
    with pytest.raises(KnowledgeRuleError):
        evaluate(rule, report())


def test_validate_reaches_every_branch_even_when_short_circuit_would_skip_it():
    with pytest.raises(KnowledgeRuleError, match="bogus"):
        validate({"any": [{"arch": "x86_64"}, {"bogus": 1}]})


def test_accepts_report_objects_and_chinese():
    r = Report(devices=[NPU])
    value, facts = evaluate({"device": {"kind": "tpu"}}, r, lang="zh")
    assert value is False and "TPU" in facts[0] and "\u672c\u673a\u6ca1\u6709" in facts[0]


def test_every_shipped_rule_is_understood():
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge()
    assert kb.routes, "no knowledge routes"
    for route in kb.routes.values():
        for req in route["requirements"]:
            validate(req["rule"])               # raises with the key on anything unknown
            evaluate(req["rule"], report([H100, NPU, UHD770]))


def test_embedded_board_and_training_take_booleans_and_are_checked_by_the_loader():
    from accelgui.knowledge import check_rule

    validate({"embedded_board": True})
    validate({"device": {"kind": "accelerator", "training": True}})
    with pytest.raises(KnowledgeRuleError, match="true or false"):
        validate({"embedded_board": "yes"})
    assert check_rule({"embedded_board": "yes"}, "r")
    assert check_rule({"device": {"training": 1}}, "r")
    assert not check_rule({"device": {"kind": "npu", "training": False}}, "r")


def test_embedded_board_is_unknown_only_where_the_firmware_strings_decide():
    arm = {"platform": {"os": "Linux", "machine": "aarch64"}, "cpu": {"arch": "aarch64"}}
    assert evaluate({"embedded_board": True}, arm)[0] is None          # an old report: no dmi
    x86 = {"platform": {"os": "Linux", "machine": "x86_64"}, "cpu": {"arch": "x86_64"}}
    assert evaluate({"embedded_board": True}, x86)[0] is False
    assert evaluate({"embedded_board": False}, x86)[0] is True


def test_training_filter_passes_a_trainer_and_fails_an_inference_only_part():
    trn = {"kind": "accelerator", "vendor": "aws", "name": "AWS Trainium2", "family": "aws-neuron",
           "readiness": "ready"}
    inf = dict(trn, name="AWS Inferentia2")
    rule = {"device": {"kind": "accelerator", "training": True}}
    assert evaluate(rule, {"devices": [trn]})[0] is True
    value, facts = evaluate(rule, {"devices": [inf]})
    assert value is False and "inference-only" in facts[0]
    assert evaluate({"device": {"kind": "accelerator", "training": False}}, {"devices": [inf]})[0] is True
