"""Issue 14, item 3: the goal picker re-ranks steps inside a route (and so the overall list),
always after their prerequisites. Steps name the goals they serve (their optional ``goals``
list); without a goal nothing changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import accelgui.knowledge as knowledge
from accelgui import advisor, progress
from accelgui.knowledge import KnowledgeBase, load_knowledge, support
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

import report_fixtures

MACHINES = Path(__file__).parent / "fixtures" / "machines"
#: a learner who has set up the GPU and trained a first model on it
GPU_BASICS = frozenset({"cpu.know-your-cpu", "cpu.numpy-vectorise", "gpu.setup-check",
                        "gpu.gpu-arrays", "gpu.train-pytorch"})


@pytest.fixture(autouse=True)
def _fresh_cache():
    knowledge.clear_cache()
    yield
    knowledge.clear_cache()


@pytest.fixture(scope="module")
def trees():
    return {t: run_probes(ProbeContext(root=str(MACHINES / t)), timeout_s=10)
            for t in ("acc-dgx-h100", "acc-wsl2-nvidia", "cpu-intel-desktop", "acc-intel-npu-laptop")}


def _route(report, rid, goal=None, done=frozenset(), kb=None):
    return next(a for a in advisor.assess(report, kb or load_knowledge(), done, goal=goal)
                if a.id == rid)


def _serves(sid, goal, kb=None):
    return goal in ((kb or load_knowledge()).steps[sid].get("goals") or ())


# --------------------------------------------------------------------------- data

def test_goal_ids_are_one_list_everywhere():
    schema = json.loads((Path(knowledge.__file__).parent / "schema.json").read_text(encoding="utf-8"))
    enum = schema["$defs"]["step"]["properties"]["goals"]["items"]["enum"]
    assert tuple(enum) == knowledge.GOALS == advisor.GOALS
    for route, goals in advisor.route_goals().items():
        assert set(goals) <= set(knowledge.GOALS), route
    assert support.table("route_goals")


def test_every_goal_is_served_by_steps_of_several_routes():
    kb = load_knowledge()
    for goal in knowledge.GOALS:
        routes = {s["route"] for s in kb.steps.values() if goal in (s.get("goals") or ())}
        assert len(routes) >= 2, (goal, routes)


def test_an_unknown_goal_in_a_route_file_is_refused_naming_file_and_step(tmp_path):
    gpu = json.loads((Path(knowledge.__file__).parent / "routes" / "gpu.json").read_text(encoding="utf-8"))
    gpu["steps"][2]["goals"] = ["train", "fly"]
    (tmp_path / "my-gpu.json").write_text(json.dumps(gpu), encoding="utf-8")
    kb = load_knowledge(tmp_path)
    sid = gpu["steps"][2]["id"]
    bad = [e for e in kb.errors if e.startswith("my-gpu.json: steps[2].goals[1]:")]
    # the message names the step (by id, or by its place in the file) and the known goals
    assert bad and "'fly'" in bad[0] and (repr(sid) in bad[0] or "steps[2]" in bad[0]), kb.errors
    assert "serve-llm" in bad[0] and "inference" in bad[0], kb.errors
    assert "shipped route 'gpu' kept" in kb.errors[-1]
    assert kb.origins["gpu"] == "shipped"
    assert "fly" not in kb.steps[sid].get("goals", [])


def test_a_valid_goal_in_an_override_is_used(tmp_path, trees):
    gpu = json.loads((Path(knowledge.__file__).parent / "routes" / "gpu.json").read_text(encoding="utf-8"))
    for step in gpu["steps"]:
        step["goals"] = ["edge"] if step["id"] == "gpu.profiling" else []
        if not step["goals"]:
            del step["goals"]
    (tmp_path / "gpu.json").write_text(json.dumps(gpu), encoding="utf-8")
    kb = load_knowledge(tmp_path)
    assert kb.errors == [] and kb.origins["gpu"].endswith("gpu.json")
    done = GPU_BASICS | {"gpu.custom-kernels"}
    a = _route(trees["acc-dgx-h100"], "gpu", "edge", done, kb)
    assert a.next_steps[0] == "gpu.profiling", a.next_steps


# --------------------------------------------------------------------------- ranking

def test_gpu_route_ranks_inference_before_training_for_the_inference_goal():
    rich = report_fixtures.load("rich")          # 8x H100 server
    serve = _route(rich, "gpu", "inference", GPU_BASICS).next_steps
    train = _route(rich, "gpu", "train", GPU_BASICS).next_steps
    none = _route(rich, "gpu", None, GPU_BASICS).next_steps
    assert serve[0] == "gpu.inference-optimisation", serve
    assert _serves(train[0], "train") and _serves(train[1], "train"), train
    assert serve[:2] != train[:2]
    assert serve.index("gpu.inference-optimisation") < none.index("gpu.inference-optimisation")
    assert "gpu.inference-optimisation" not in train[:2] and "gpu.multi-gpu" not in serve[:2]


def test_goal_reorders_the_cpu_and_llm_routes_on_a_recorded_tree(trees):
    dgx = trees["acc-dgx-h100"]
    sa = {g: _route(dgx, "software-acceleration", g).next_steps for g in (None, "serve-llm", "train")}
    # an accelerator node serves LLMs on its GPUs: vLLM after the GPU check, not llama.cpp on the CPU
    assert sa["serve-llm"].index("software-acceleration.vllm-serving") < 4, sa
    assert "software-acceleration.xla-jit" not in sa["serve-llm"][:4], sa
    cpu = {g: _route(dgx, "cpu", g).next_steps for g in (None, "hpc", "inference")}
    assert "cpu.numba-jit" in cpu["hpc"] and "cpu.simd-native" in cpu["hpc"], cpu
    assert "cpu.data-pipelines" not in cpu["hpc"], cpu
    assert "cpu.ml-inference" in cpu["inference"] and "cpu.ml-inference" not in cpu[None], cpu
    gpu = {g: _route(dgx, "gpu", g).next_steps for g in ("hpc", "train")}
    assert gpu["hpc"][-1] == "gpu.custom-kernels" and gpu["train"][-1] == "gpu.train-pytorch", gpu


def test_a_step_needing_other_hardware_never_passes_a_local_one_for_its_goal(trees):
    # a CPU-only desktop: every GPU step needs hardware it lacks; the LLM route still starts
    # with llama.cpp on the CPU, not with vLLM on a GPU, for a learner who wants to serve LLMs
    desk = trees["cpu-intel-desktop"]
    done = frozenset({"cpu.know-your-cpu", "cpu.numpy-vectorise", "software-acceleration.landscape",
                      "software-acceleration.llm-inference-cpu"})
    a = _route(desk, "software-acceleration", "serve-llm", done)
    remote = {r["step"] for r in a.remote_steps}
    assert "software-acceleration.vllm-serving" in remote
    here = [s for s in a.next_steps if s.startswith("software-acceleration.") and s not in remote]
    assert here and a.next_steps[0] == here[0], a.next_steps
    for sid in remote & set(a.next_steps):
        assert all(a.next_steps.index(h) < a.next_steps.index(sid) for h in here), a.next_steps


def _assert_prerequisites_first(steps, kb, done):
    seen = set(done)
    for sid in steps:
        step = kb.steps[sid]
        for p in step.get("prerequisites") or []:
            assert p in seen, f"{sid} listed before its prerequisite {p}: {steps}"
        for group in step.get("prerequisites_any") or []:
            assert seen & set(group), f"{sid} listed before any of {group}: {steps}"
        seen.add(sid)


@pytest.mark.parametrize("goal", (None,) + knowledge.GOALS)
def test_prerequisites_still_come_first_for_every_goal(goal, trees):
    kb = load_knowledge()
    reports = dict(trees, rich=report_fixtures.load("rich"))
    for done in (frozenset(), GPU_BASICS):
        for name, report in reports.items():
            routes = advisor.assess(report, kb, done, goal=goal)
            for a in routes:
                _assert_prerequisites_first(a.next_steps, kb, done)
            overall = advisor.overall_next_steps(routes, kb, n=10)
            seen = set(done)
            for sid in overall:
                missing = [p for p in kb.steps[sid].get("prerequisites") or []
                           if p not in seen and any(p in r.next_steps for r in routes)]
                assert not missing, (name, goal, sid, missing, overall)
                seen.add(sid)


def _without_goals(kb) -> KnowledgeBase:
    routes = {rid: dict(r, steps=[{k: v for k, v in s.items() if k != "goals"} for s in r["steps"]])
              for rid, r in kb.routes.items()}
    steps = {sid: {k: v for k, v in s.items() if k != "goals"} for sid, s in kb.steps.items()}
    return KnowledgeBase(routes=routes, steps=steps, errors=list(kb.errors), facts=kb.facts,
                         origins=dict(kb.origins))


def test_without_a_goal_the_tags_change_nothing(trees):
    kb = load_knowledge()
    bare = _without_goals(kb)
    assert any(s.get("goals") for s in kb.steps.values())
    for report in (*trees.values(), report_fixtures.load("rich")):
        for done in (frozenset(), GPU_BASICS):
            tagged = advisor.assess(report, kb, done)
            plain = advisor.assess(report, bare, done)
            assert [a.next_steps for a in tagged] == [a.next_steps for a in plain]
            assert advisor.overall_next_steps(tagged, kb, n=8) == \
                advisor.overall_next_steps(plain, bare, n=8)


def test_with_a_goal_the_tags_do_change_the_order(trees):
    kb = load_knowledge()
    bare = _without_goals(kb)
    dgx = trees["acc-dgx-h100"]
    tagged = advisor.assess(dgx, kb, GPU_BASICS, goal="serve-llm")
    plain = advisor.assess(dgx, bare, GPU_BASICS, goal="serve-llm")
    assert [a.next_steps for a in tagged] != [a.next_steps for a in plain]


def test_overall_list_prefers_goal_steps_within_a_tier():
    kb = load_knowledge()
    rich = report_fixtures.load("rich")
    serve = advisor.overall_next_steps(advisor.assess(rich, kb, GPU_BASICS, goal="serve-llm"), kb, n=5)
    train = advisor.overall_next_steps(advisor.assess(rich, kb, GPU_BASICS, goal="train"), kb, n=5)
    none = advisor.overall_next_steps(advisor.assess(rich, kb, GPU_BASICS), kb, n=5)
    def first(steps, goal):
        return next((i for i, s in enumerate(steps) if _serves(s, goal)), len(steps))

    assert sum(_serves(s, "serve-llm") for s in serve) > sum(_serves(s, "serve-llm") for s in none)
    assert sum(_serves(s, "train") for s in train) >= sum(_serves(s, "train") for s in none)
    assert first(train, "train") < first(none, "train") and first(serve, "serve-llm") < first(none, "serve-llm")
    assert any(s.startswith("software-acceleration.vllm") for s in serve), serve
    assert not any(_serves(s, "train") and not _serves(s, "serve-llm") for s in serve[:3]), serve
    # the goal of the assessments is the default; an explicit one wins
    assessed = advisor.assess(rich, kb, GPU_BASICS, goal="serve-llm")
    assert advisor.overall_next_steps(assessed, kb, n=5, goal="serve-llm") == serve
    assessed = advisor.assess(rich, kb, GPU_BASICS, goal="train")
    assert advisor.overall_next_steps(assessed, kb, n=5, goal="serve-llm") != train


def test_goal_ranks_follow_prerequisites():
    kb = load_knowledge()
    ranks = advisor._goal_ranks(kb.steps, "serve-llm")
    assert ranks["software-acceleration.vllm-serving"] == 0
    assert ranks["software-acceleration.llm-inference-cpu"] == 0
    assert ranks["software-acceleration.landscape"] == 1      # leads to llama.cpp and vLLM
    assert "gpu.train-pytorch" not in ranks                   # CNN-level inference is not LLM serving
    inference = advisor._goal_ranks(kb.steps, "inference")
    assert inference["gpu.inference-optimisation"] == 0
    assert inference["gpu.train-pytorch"] == 1                # leads to inference optimisation
    assert "gpu.custom-kernels" not in ranks and "gpu.custom-kernels" not in inference
    assert advisor._goal_ranks(kb.steps, None) == {}


# --------------------------------------------------------------------------- CLI

def test_cli_goal_reranks_the_gpu_route_of_a_recorded_tree(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path))
    for sid in sorted(GPU_BASICS):
        progress.mark_done(sid)
    env = dict(os.environ, ACCELGUI_DATA_DIR=str(tmp_path))

    def gpu_steps(goal):
        out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot",
                              str(MACHINES / "acc-dgx-h100"), "--goal", goal],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return next(r for r in json.loads(out.stdout)["routes"] if r["id"] == "gpu")["next_steps"]

    serve, train = gpu_steps("inference"), gpu_steps("train")
    assert serve[0] == "gpu.inference-optimisation", serve
    assert train[0] in ("gpu.multi-gpu", "gpu.lora-finetune"), train
    assert not GPU_BASICS & set(serve + train)


def test_a_saved_goal_the_advisor_does_not_know_is_ignored_with_a_warning(tmp_path):
    """A hand-edited progress file with an unknown goal: --probe warns and ranks without a goal
    (as the app does), instead of failing."""
    (tmp_path / "progress.json").write_text('{"version": 1, "done": {}, "goal": "fly"}')
    env = dict(os.environ, ACCELGUI_DATA_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot",
                          str(MACHINES / "acc-dgx-h100")], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ignoring the saved goal" in out.stderr and "fly" in out.stderr
    assert all(r["goal"] is None for r in json.loads(out.stdout)["routes"])


def test_an_unknown_route_goal_is_refused_and_the_shipped_route_kept(tmp_path):
    gpu = json.loads((Path(knowledge.__file__).parent / "routes" / "gpu.json").read_text(encoding="utf-8"))
    gpu["goals"] = ["train", "fly"]
    (tmp_path / "gpu.json").write_text(json.dumps(gpu), encoding="utf-8")
    kb = load_knowledge(tmp_path)
    assert any(e.startswith("gpu.json: goals[1]:") and "'fly'" in e for e in kb.errors), kb.errors
    assert "fly" not in kb.routes["gpu"]["goals"]
