"""The knowledge base current to the month it was reviewed: the topics that matter now present
in both languages, the dated anchors (versions, lineups, bandwidths, NPUs) right, moved links
gone, and the Mac and Windows advice reaching the machines it is for."""

from __future__ import annotations

import json

import pytest

from accelgui import advisor, rules
from accelgui.knowledge import facts as kfacts
from accelgui.knowledge import load_knowledge


def _step_texts(kb) -> dict:
    """{step id: (english text, chinese text)} of each step, its tracks included."""
    out = {}
    for sid, step in kb.steps.items():
        parts = [step["title"], step["summary"], step["verify"]] + [t["title"] for t in step.get("tracks", [])]
        out[sid] = (" ".join(p["en"] for p in parts), " ".join(p["zh"] for p in parts))
    return out


#: topic: (a term the English text of a step names, the term its Chinese text names, the route)
TOPICS = {
    "tile languages": ("cuTile", "cuTile", "gpu"),
    "CuTe DSL": ("CuTe DSL", "CuTe DSL", "gpu"),
    "SYCL porting": ("SYCLomatic", "SYCL 2020", "gpu"),
    "HIPIFY porting": ("hipify-clang", "HIP", "gpu"),
    "speculative decoding": ("Speculative decoding", "\u63a8\u6d4b\u89e3\u7801", "software-acceleration"),
    "KV-cache offload": ("Offload the KV cache", "KV \u7f13\u5b58\u5378\u8f7d", "software-acceleration"),
    "MoE expert parallelism": ("expert parallelism", "\u4e13\u5bb6\u5e76\u884c", "software-acceleration"),
    "llm-d": ("llm-d", "llm-d", "software-acceleration"),
    "KServe": ("KServe", "KServe", "software-acceleration"),
    "vLLM on TPU": ("vLLM's TPU back end", "vLLM \u7684 TPU \u540e\u7aef", "tpu"),
    "JetStream": ("JetStream", "JetStream", "tpu"),
    "MLOps tracking and registry": ("model registry", "\u6a21\u578b\u6ce8\u518c\u8868", "cloud"),
    "energy": ("RAPL", "RAPL", "cpu"),
    "NVFP4": ("NVFP4", "NVFP4", "model-optimization"),
    "MXFP4": ("MXFP4", "MXFP4", "model-optimization"),
    "safetensors": ("safetensors", "safetensors", "open-source"),
    "engines are executable": ("executable artifacts", "\u53ef\u6267\u884c", "open-source"),
    "Apple GPU": ("MLX", "MLX", "gpu"),
    "PyTorch MPS": ("MPS", "MPS", "gpu"),
    "WSL2": ("WSL2", "WSL2", "gpu"),
    "DirectML": ("DirectML", "DirectML", "gpu"),
    "HIP SDK on Windows": ("HIP SDK", "HIP SDK", "gpu"),
    "Windows ML": ("Windows ML", "Windows ML", "npu"),
    "QNN": ("QNN", "QNN", "npu"),
}


@pytest.mark.parametrize("topic", sorted(TOPICS))
def test_the_topics_that_matter_now_are_steps_in_both_languages(topic):
    en_term, zh_term, route = TOPICS[topic]
    kb = load_knowledge()
    hits = [(sid, zh) for sid, (en, zh) in _step_texts(kb).items()
            if sid.startswith(route + ".") and en_term in en]
    assert hits, f"{topic}: no {route} step names {en_term!r}"
    assert any(zh_term in zh for _, zh in hits), f"{topic}: the Chinese text lacks {zh_term!r}"


def test_every_step_names_its_goals_and_the_inference_goal_is_used():
    kb = load_knowledge()
    missing = [sid for sid, s in kb.steps.items() if not s.get("goals")]
    assert missing == []
    assert len(kb.steps) >= 117
    inference = {sid for sid, s in kb.steps.items() if "inference" in s["goals"]}
    assert {"gpu.inference-optimisation", "open-source.tensorrt-engine", "cpu.ml-inference"} <= inference
    # CNN-level ONNX / TensorRT steps are inference, not LLM serving
    for sid in ("gpu.inference-optimisation", "open-source.tensorrt-engine", "cpu.ml-inference"):
        assert "serve-llm" not in kb.steps[sid]["goals"], sid


def test_a_route_claims_a_goal_only_with_a_step_serving_it():
    kb = load_knowledge()
    goals = advisor.route_goals()
    assert set(goals) == set(kb.routes)
    for rid, route_goals in goals.items():
        for goal in route_goals:
            if goal in ("basics", "hardware-design"):
                continue
            assert any(goal in s["goals"] for s in kb.routes[rid]["steps"]), (rid, goal)
    assert "serve-llm" in goals["tpu"] and "serve-llm" not in goals["cloud"]


def test_route_goals_live_in_the_route_files():
    kb = load_knowledge()
    from accelgui.knowledge import support

    raw = support.load_support()
    assert "route_goals" not in raw
    table = support.table("route_goals")
    assert {r["route"]: tuple(r["goals"]) for r in table["rows"]} == \
        {rid: tuple(r["goals"]) for rid, r in kb.routes.items()}
    assert set(table["design_only"]) == {"asic", "fpga"}
    # a route override with other goals changes the table (no second copy to forget)
    routes = json.loads(json.dumps(kb.routes))
    routes["cpu"]["goals"] = ["hpc"]
    routes["fpga"].pop("design_only")
    again = support.route_goals(routes)
    assert dict((r["route"], r["goals"]) for r in again["rows"])["cpu"] == ["hpc"]
    assert again["design_only"] == ["asic"]


def test_no_step_needs_a_harder_one_and_no_heading_doubles_capstone():
    kb = load_knowledge()
    rank = {"beginner": 0, "intermediate": 1, "advanced": 2}
    for sid, step in kb.steps.items():
        for pre in step.get("prerequisites", []):
            assert rank[kb.steps[pre]["level"]] <= rank[step["level"]], (sid, pre)
    for rid, route in kb.routes.items():
        title = route["capstone"]["title"]
        assert not title["en"].lower().startswith("capstone"), rid
        assert not title["zh"].startswith("\u7ed3\u4e1a\u9879\u76ee"), rid


def _rows(table_id):
    return next(t for t in kfacts.tables() if t["id"] == table_id)["rows"]


def test_the_dated_anchors_are_current():
    kb = load_knowledge()
    toolkits = {r["toolkit"]: r for r in _rows("cuda_toolkit_support")}
    assert toolkits["PyTorch 2.11 cu128 wheels"]["min_compute_capability"] == 7.5
    assert toolkits["PyTorch 2.11 cu126 wheels"]["min_compute_capability"] == 5.0
    bandwidth = " ".join(r["device"] for r in _rows("memory_bandwidth"))
    for part in ("B300", "MI355X", "TPU7x", "Trainium2", "Trainium3"):
        assert part in bandwidth, part
    assert {"gfx1150", "gfx1151"} <= {r["gfx_target"] for r in _rows("rocm_gfx_targets")}
    npus = " ".join(r["device"] for r in _rows("npu_tops"))
    for part in ("Panther Lake", "Ryzen AI 400", "Snapdragon X2", "Hailo-10H"):
        assert part in npus, part
    fact = {f["id"]: f for r in kb.routes.values() for f in r["facts"]}
    assert "Compute Engine" in fact["cloud.tpu7x-frameworks"]["text"]["en"]
    assert "2.11" in fact["gpu.pytorch-wheel-cc"]["text"]["en"]
    lineup = " ".join(c["correct"]["en"] for c in kb.routes["enterprise"]["corrections"])
    for part in ("Vera Rubin", "Trainium3", "MI355X"):
        assert part in lineup, part
    neuron = json.dumps(kb.routes["enterprise"])
    assert "TorchNeuron" in neuron and "data parallel with torch-neuronx (XLA backend)" not in neuron
    assert "M5" in json.dumps(kb.facts["npu_tops"]["notes"]) and "M5" in json.dumps(kb.routes["edge"]["facts"])


def test_moved_links_are_gone():
    text = json.dumps(load_knowledge().routes)
    for dead in ("design_docs/dynamo_flow.html", "build.nvidia.com/playbooks/sglang.md",
                 "cloudnativeessentials/dra-tutorial", "app.aihub.qualcomm.com/docs",
                 "ryzenai.docs.amd.com/en/latest/"):
        assert dead not in text, dead
    assert "kubernetes-sigs/dra-example-driver" in text


def _report(os_name, vendor, family, kind="gpu"):
    return {"platform": {"os": os_name}, "cpu": {"arch": "arm64" if vendor == "apple" else "x86_64"},
            "devices": [{"kind": kind, "vendor": vendor, "family": family, "name": f"{vendor} {kind}",
                         "readiness": "ready", "details": {}}],
            "software": {"packages_known": True, "packages": {}}}


def _requirement(kb, rid, report):
    req = kb.requirement(rid)
    return rules.evaluate(req["rule"], report, "en", checked=True)[0]


def test_an_apple_gpu_follows_the_gpu_route_under_macos_only():
    kb = load_knowledge()
    mac = _report("Darwin", "apple", "apple-gpu")
    asahi = _report("Linux", "apple", "apple-gpu")
    assert _requirement(kb, "gpu.compute-gpu", mac) is True
    assert _requirement(kb, "gpu.driver-ready", mac) is True
    assert _requirement(kb, "gpu.compute-gpu", asahi) is not True     # no Metal under Linux
    tracks = advisor._tracks(kb.routes["gpu"], mac)
    assert "metal" in tracks["gpu.setup-check"] and "metal" in tracks["gpu.gpu-arrays"]
    assert "gpu.setup-check" not in advisor._tracks(kb.routes["gpu"], asahi)


@pytest.mark.parametrize("vendor,track", [("nvidia", "windows-nvidia"), ("amd", "windows-amd"),
                                          ("intel", "windows-directml")])
def test_windows_gpu_tracks_follow_the_os_and_the_vendor(vendor, track):
    kb = load_knowledge()
    win = advisor._tracks(kb.routes["gpu"], _report("Windows", vendor, None))
    assert track in win["gpu.setup-check"] and "windows-directml" in win["gpu.setup-check"]
    linux = advisor._tracks(kb.routes["gpu"], _report("Linux", vendor, None))
    assert not any(t.startswith("windows") for t in linux.get("gpu.setup-check", []))


@pytest.mark.parametrize("vendor,track", [("qualcomm", "qnn"), ("intel", "openvino"), ("amd", "ryzen-ai")])
def test_copilot_pc_npu_tracks(vendor, track):
    kb = load_knowledge()
    assert advisor._tracks(kb.routes["npu"], _report("Windows", vendor, None, kind="npu"))["npu.copilot-pc"] == [track]
    assert "npu.copilot-pc" not in advisor._tracks(kb.routes["npu"], _report("Linux", vendor, None, kind="npu"))


def test_every_resource_title_is_in_both_languages():
    kb = load_knowledge()
    for sid, step in kb.steps.items():
        resources = step["resources"] + [r for t in step.get("tracks", []) for r in t["resources"]]
        for res in resources:
            assert isinstance(res["title"], dict) and res["title"]["en"] and res["title"]["zh"], (sid, res)


def test_fact_row_notes_are_in_both_languages():
    for table in kfacts.tables(with_family_data=False):
        for row in table["rows"]:
            note = row.get("note")
            assert note is None or (isinstance(note, dict) and note["en"] and note["zh"]), (table["id"], row)
