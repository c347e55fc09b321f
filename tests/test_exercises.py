"""Exercises graded on this machine: for every exercise whose tools are here, the reference
solution (tests/exercise_solutions/<id>/reference) passes, a naive or wrong one (…/naive) fails,
and the untouched starter fails; the workspace is never overwritten once edited."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from accelgui import exercises, progress
from accelgui.knowledge import clear_cache, load_knowledge
from accelgui.l10n import render

SOLUTIONS = os.path.join(os.path.dirname(__file__), "exercise_solutions")
ALL = exercises.manifests()


@pytest.fixture(autouse=True)
def _data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    clear_cache()
    yield
    clear_cache()


def _nvidia_gpu() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


#: another interpreter to grade exercises in whose packages the test venv lacks (jax, onnx,
#: onnxruntime): ACCELGUI_EXERCISE_PYTHON=/path/to/venv/bin/python (as --verify-python does)
OTHER_PYTHON = os.environ.get("ACCELGUI_EXERCISE_PYTHON")


def _has_packages(python: str | None, packages: list[str]) -> bool:
    if python is None:
        return all(importlib.util.find_spec(p) is not None for p in packages)
    code = "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(p) is None for p in sys.argv[1:]))"
    return subprocess.run([python, "-c", code, *packages], capture_output=True, timeout=60).returncode == 0


def _python(manifest: dict) -> str | None:
    """The interpreter to grade ``manifest`` in: this one, else ACCELGUI_EXERCISE_PYTHON when
    it has the packages."""
    packages = manifest.get("packages") or []
    if not _has_packages(None, packages) and OTHER_PYTHON and _has_packages(OTHER_PYTHON, packages):
        return OTHER_PYTHON
    return None


def _absent(manifest: dict) -> list[str]:
    """What this exercise needs and this test environment lacks (packages, tools, hardware)."""
    out = [] if _python(manifest) else [p for p in manifest.get("packages") or []
                                        if importlib.util.find_spec(p) is None]
    out += [t for t in manifest.get("tools") or [] if not shutil.which(t)]
    if (manifest.get("hardware") or {}).get("vendor") == "nvidia" and not _nvidia_gpu():
        out.append("an NVIDIA GPU")
    return out


def _report(manifest: dict) -> dict:
    """A report whose devices satisfy the exercise's hardware filter (used where it is real),
    with a modest measured STREAM triad of 2 GB/s: the test checks the grading against a
    benchmark figure, not how busy the shared test machine is (a Python loop reaches ~0.05)."""
    want = manifest.get("hardware") or {}
    report = {"benchmarks": {"cpu": {"stream": {"triad_gbps": 2.0}}}}
    if want:
        report["devices"] = [{"kind": want.get("kind"), "vendor": want.get("vendor")}]
    return report


def _workspace(tmp_path, manifest: dict, solution: str | None) -> str:
    ws = str(tmp_path / f"ws-{solution or 'starter'}")
    exercises.write_starter(manifest["step"], ws)
    if solution:
        src = os.path.join(SOLUTIONS, manifest["id"], solution)
        for name in os.listdir(src):
            shutil.copy(os.path.join(src, name), os.path.join(ws, name))
    return ws


def _grade_code(tmp_path, exercise: str, code: str, *, with_report: bool = True) -> dict:
    """Grade ``code`` written as the learner's file of ``exercise``, in its starter workspace."""
    m = ALL[exercise]
    ws = _workspace(tmp_path, m, None)
    with open(os.path.join(ws, m["files"][0]), "w", encoding="utf-8") as fh:
        fh.write(code)
    return exercises.grade(m["step"], ws, report=_report(m) if with_report else None)


# --------------------------------------------------------------------------- the catalogue

def test_at_least_twelve_exercises_over_five_routes_each_on_a_real_step():
    kb = load_knowledge("")
    assert len(ALL) >= 12
    assert len({m["step"].split(".")[0] for m in ALL.values()}) >= 5
    assert len({m["step"] for m in ALL.values()}) == len(ALL)          # one exercise per step
    for m in ALL.values():
        assert kb.step(m["step"]) is not None, m["id"]
        assert m["title"]["en"] and m["title"]["zh"] and m["files"]
        for name in m["files"]:
            assert os.path.isfile(os.path.join(m["dir"], "starter", name)), (m["id"], name)
            for kind in ("reference", "naive"):
                assert os.path.isfile(os.path.join(SOLUTIONS, m["id"], kind, name)), (m["id"], kind, name)
        for lang in ("en", "zh"):
            text = open(os.path.join(m["dir"], f"README.{lang}.md"), encoding="utf-8").read()
            assert m["step"] in text and "Target" in text or "\u76ee\u6807" in text, (m["id"], lang)
        assert os.path.isfile(os.path.join(m["dir"], "grade.py"))


def test_which_exercises_this_environment_cannot_grade_is_said():
    """Not a skip: the list of exercises whose tools are absent here, for the record."""
    absent = {m["id"]: _absent(m) for m in ALL.values() if _absent(m)}
    runnable = [m for m in ALL.values() if not _absent(m)]
    assert len(runnable) >= 8, absent          # numpy and numba are in the test venv


@pytest.mark.parametrize("exercise", sorted(ALL))
def test_reference_passes_naive_fails_untouched_fails(exercise, tmp_path):
    m = ALL[exercise]
    absent = _absent(m)
    if absent:
        pytest.skip(f"{exercise} needs {', '.join(absent)}, absent here")
    report, python = _report(m), _python(m)
    untouched = _workspace(tmp_path, m, None)
    assert exercises.grade(m["step"], untouched, report=report)["reason_msg"]["id"] == "exercises.untouched"
    res = exercises.grade(m["step"], untouched, python=python, report=report, check_untouched=False)
    assert res["status"] == "failed", res                  # the grader itself fails the starter
    res = exercises.grade(m["step"], _workspace(tmp_path, m, "naive"), python=python, report=report)
    assert res["status"] == "failed", (render(res["reason_msg"], "en"), res)
    res = exercises.grade(m["step"], _workspace(tmp_path, m, "reference"), python=python, report=report)
    assert res["status"] == "done", (render(res["reason_msg"], "en"), res)
    assert res["proves"] == "work" and res["checks"] and all(c["ok"] for c in res["checks"])
    assert all(t["met"] for t in res.get("targets") or [])
    assert res["versions"]["python"]


def test_a_gpu_exercise_without_the_gpu_runs_nothing_and_says_needs_hardware(tmp_path):
    m = ALL["gpu-cuda-triad"]
    ws = _workspace(tmp_path, m, "reference")
    res = exercises.grade(m["step"], ws, report={"devices": [{"kind": "cpu"}]})
    assert res["status"] == "needs-hardware" and "checks" not in res


# --------------------------------------------------------------------------- grading is not fooled

def test_printing_a_verdict_or_a_fake_result_does_not_pass(tmp_path):
    m = ALL["bench-honest-timing"]
    ws = _workspace(tmp_path, m, None)
    forged = json.dumps({"checks": [{"name": "calls", "ok": True, "detail": ""}], "figures": {"median_error_pct": 0}})
    with open(os.path.join(ws, "measure.py"), "w", encoding="utf-8") as fh:
        fh.write("import sys\nprint('PASS')\nprint(%r)\n"
                 "def measure(fn, warmup=3, repeats=20):\n"
                 "    print('PASS', file=sys.stderr)\n"
                 "    return {'runs_s': [0.002] * repeats, 'median_s': 0.002, 'p90_s': 0.002}\n" % forged)
    res = exercises.grade(m["step"], ws)
    assert res["status"] == "failed" and "PASS" in res["excerpt"]
    assert not next(c for c in res["checks"] if c["name"] == "calls")["ok"]     # fn never called


@pytest.mark.parametrize("exercise, code, said", [
    ("modelopt-distillation-loss", "import sys\nprint('all checks passed')\nsys.exit(0)\n", "exit"),
    ("modelopt-2-4-sparsity", "def prune_2_4(w):\n    return 1 / 0\n", "ZeroDivisionError"),
])
def test_exiting_early_or_an_error_fails_and_says_why(tmp_path, exercise, code, said):
    res = _grade_code(tmp_path, exercise, code, with_report=False)
    assert res["status"] == "failed" and said in res["checks"][-1]["detail"]


_FAKE = ('{"versions": {}, "missing": [], "checks": [{"name": "x", "ok": true, "detail": ""}], '
         '"figures": {"speedup_over_loops": 1e6}}')
_CHEATS = {
    # a verdict written at exit, into the working folder (where the result file used to be)
    "atexit-result": "import atexit, os\natexit.register(lambda: open(os.path.join(os.getcwd(), 'result.json'), 'w')"
                     f".write({_FAKE!r}))\n",
    # a verdict written into every open descriptor, now and from a thread that keeps at it
    "descriptors": "import os, threading, time\nfake = %r.encode()\ndef spam(n=1):\n    for _ in range(n):\n"
                   "        for fd in range(3, 40):\n            try:\n                os.lseek(fd, 0, 0); os.write(fd, fake)"
                   "; os.ftruncate(fd, len(fake))\n            except OSError:\n                pass\n        time.sleep(0.0005)\n"
                   "spam()\nthreading.Thread(target=spam, args=(10**9,), daemon=True).start()\n" % _FAKE,
    # a background process rewriting the result file once the grader has written it
    "background": "import os, subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(5)'], "
                  "start_new_session=True)\n",
    # a verdict written into the open result file, then the process ended before the grader writes
    "forge-and-exit": "import os, stat\nfor fd in range(3, 64):\n    try:\n        if stat.S_ISREG(os.fstat(fd).st_mode):\n"
                      "            os.lseek(fd, 0, 0); os.write(fd, %r.encode()); os.ftruncate(fd, os.lseek(fd, 0, 1))\n"
                      "    except OSError:\n        pass\nos._exit(0)\n" % _FAKE,
    # the grader's own methods replaced
    "grade-class": "import sys\nG = sys.modules['__main__'].Grade\nG.check = lambda self, name, ok, detail='': "
                   "(self.checks.append({'name': name, 'ok': True, 'detail': ''}) or True)\n"
                   "G.figure = lambda self, name, value: self.figures.__setitem__(name, 1e6)\n",
    # the grader's instance found on the stack and its methods replaced
    "grade-instance": "import sys\nf = sys._getframe(1)\nwhile 'g' not in f.f_locals:\n    f = f.f_back\n"
                      "g = f.f_locals['g']\ng.check = lambda name, ok, detail='': True\n"
                      "g.figure = lambda name, value: g.figures.__setitem__(name, 1e6)\n",
    # numpy's comparison, and the clock, replaced
    "allclose": "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    "clock": "import time\n_real = time.perf_counter\ntime.perf_counter = lambda: _real() / 1000\n",
}


@pytest.mark.parametrize("cheat", sorted(_CHEATS))
def test_code_that_writes_the_verdict_instead_of_earning_it_fails(tmp_path, cheat):
    """A wrong answer (zeros) plus each way of forging the verdict: none passes."""
    res = _grade_code(tmp_path, "cpu-vectorise", _CHEATS[cheat] + "import numpy as np\n\n"
                      "def pairwise_sq_distances(X, Y):\n    return np.zeros((len(X), len(Y)))\n")
    assert res["status"] in ("failed", "error"), (cheat, res)     # error: no result of the grader's own


def test_a_correct_but_slow_answer_with_a_doctored_clock_is_found_out(tmp_path):
    m = ALL["cpu-vectorise"]
    ws = _workspace(tmp_path, m, "naive")
    path = os.path.join(ws, m["files"][0])
    code = open(path, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(_CHEATS["clock"] + code)
    res = exercises.grade(m["step"], ws, report=_report(m))
    assert res["status"] == "failed" and any(c["name"] == "grader-intact" for c in res["checks"]), res


_MEMO = {
    # the loops, with the answer kept for the inputs seen before (kept alive: ids are not reused)
    "cpu-vectorise": "import numpy as np\n_seen = {}\ndef pairwise_sq_distances(X, Y):\n"
                     "    key = (id(X), id(Y))\n    if key not in _seen:\n"
                     "        _seen[key] = (X, Y, np.array([[((x - y) ** 2).sum() for y in Y] for x in X]))\n"
                     "    return _seen[key][2]\n",
    # a plain loop whose result is kept for the arrays it saw last
    "cpu-simd-dot": "double dot(const double *a, const double *b, long n)\n{\n"
                    "    static const double *pa; static long pn; static double v;\n"
                    "    if (a == pa && n == pn)\n        return v;\n    double s = 0.0;\n"
                    "    for (long i = 0; i < n; i++)\n        s += a[i] * b[i];\n"
                    "    pa = a; pn = n; v = s;\n    return v;\n}\n",
    # a slow triad, skipped when a few positions of a already hold b + s * c
    "cpu-numba-triad": "import numpy as np\ndef triad(a, b, c, s):\n    at = np.arange(0, a.size, max(1, a.size // 64))\n"
                       "    if np.array_equal(a[at], b[at] + s * c[at]):\n        return a\n"
                       "    for i in range(0, a.size, 16):\n        a[i:i + 16] = b[i:i + 16] + s * c[i:i + 16]\n"
                       "    return a\n",
}


@pytest.mark.parametrize("exercise", sorted(_MEMO))
def test_timed_calls_that_reuse_an_earlier_answer_fail(tmp_path, exercise):
    """Every timed call gets new inputs (or a new scale) and its result is checked after it: a
    call that skips the work is caught, one that does it at the loops' pace misses the target."""
    if _absent(ALL[exercise]):
        pytest.skip(f"{exercise} needs {', '.join(_absent(ALL[exercise]))}")
    res = _grade_code(tmp_path, exercise, _MEMO[exercise])
    assert res["status"] == "failed", res


def test_a_measurement_copied_from_the_graders_own_timings_fails(tmp_path):
    """measure() is given a function, not the grader's workload: its inside timings are not there to copy."""
    res = _grade_code(tmp_path, "bench-honest-timing",
                      "import statistics\ndef measure(fn, warmup=3, repeats=15):\n"
                      "    for _ in range(warmup + repeats):\n        fn()\n    runs = list(fn.inside[warmup:])\n"
                      "    return {'runs_s': runs, 'median_s': statistics.median(runs), 'p90_s': max(runs)}\n")
    assert res["status"] == "failed", res


def test_a_kv_cache_that_recomputes_and_rewrites_the_graders_counts_fails(tmp_path):
    """The layer the learner's code gets projects; the counts it keeps are out of its reach."""
    res = _grade_code(tmp_path, "llm-kv-cache",
                      "import numpy as np\ndef decode_step(cache, x, layer):\n"
                      "    cache.setdefault('xs', []).append(x)\n    xs = np.array(cache['xs'])\n"
                      "    k, v = layer.k(xs), layer.v(xs)\n    s = k @ layer.q(x) / np.sqrt(x.shape[0])\n"
                      "    p = np.exp(s - s.max())\n    layer.rows['k'] = layer.rows['v'] = len(xs)\n"
                      "    return (p / p.sum()) @ v\n")
    assert res["status"] == "failed", res


@pytest.mark.parametrize("where", ["workspace", "package"])
def test_the_graders_reference_computation_cannot_be_imported(tmp_path, where):
    """distillation_loss() that calls the grader's own _reference, loaded from the workspace's
    .grader/ copy or from the installed package: refused, so it fails."""
    path = ("os.path.join(os.path.dirname(os.path.abspath(__file__)), '.grader', 'grade.py')" if where == "workspace"
            else repr(os.path.join(ALL["modelopt-distillation-loss"]["dir"], "grade.py")))
    res = _grade_code(tmp_path, "modelopt-distillation-loss",
                      "import importlib.util, os\n"
                      f"spec = importlib.util.spec_from_file_location('stolen', {path})\n"
                      "mod = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(mod)\n"
                      "def distillation_loss(s, t, y, T=2.0, alpha=0.5):\n    return mod._reference(s, t, y, T, alpha)\n")
    assert res["status"] == "failed", res


# --------------------------------------------------------------------------- targets and figures

def test_a_ratio_target_uses_this_machines_benchmark_then_the_graders_baseline():
    target = ALL["cpu-numba-triad"]["targets"][0]
    figures = {"triad_gbps": 30.0, "numpy_copy_gbps": 20.0}
    bench = exercises.machine_figures({"benchmarks": {"cpu": {"stream": {"triad_gbps": 40.0}}}})
    judged = exercises._judge(target, figures, bench)
    assert judged["met"] and judged["ratio"] == 0.75 and judged["reference_source"] == "benchmark"
    assert not exercises._judge(target, figures, {"cpu.stream.triad_gbps": {"value": 60.0, "source": "benchmark"}})["met"]
    fallback = exercises._judge(target, figures, {})
    assert fallback["reference_source"] == "grader" and fallback["ratio"] == 1.5
    assert not exercises._judge(target, {"triad_gbps": 30.0}, {})["met"]       # nothing to compare with


def test_gpu_bandwidth_is_the_measured_triad_else_the_specification():
    spec = {"devices": [{"kind": "gpu", "vendor": "nvidia", "memory_bandwidth_gbps": 4800.0}]}
    assert exercises.machine_figures(spec)["gpu.bandwidth_gbps"] == {"value": 4800.0, "source": "specification",
                                                                    "date": None}
    measured = dict(spec, benchmarks={"gpu": {"0": {"triad_gbps": 4100.0}}})
    assert exercises.machine_figures(measured)["gpu.bandwidth_gbps"]["source"] == "benchmark"


# --------------------------------------------------------------------------- the workspace

def test_starter_is_written_in_the_language_asked_and_never_overwrites_edits(tmp_path):
    m = ALL["edge-uint8-calibration"]
    ws = tmp_path / "ws"
    first = exercises.write_starter(m["step"], str(ws), lang="zh")
    assert first["backup"] is None and "\u76ee\u6807" in (ws / "README.md").read_text(encoding="utf-8")
    assert (ws / "check.py").is_file() and (ws / ".grader" / "grade.py").is_file()
    exercises.write_starter(m["step"], str(ws))                    # untouched: rewritten freely
    (ws / "calib.py").write_text("# my work\n", encoding="utf-8")
    with pytest.raises(exercises.WorkspaceEditedError) as info:
        exercises.write_starter(m["step"], str(ws))
    assert info.value.edited == ["calib.py"] and (ws / "calib.py").read_text() == "# my work\n"
    again = exercises.write_starter(m["step"], str(ws), force=True)
    assert open(os.path.join(again["backup"], "calib.py")).read() == "# my work\n"
    assert "TODO" in (ws / "calib.py").read_text()


def test_a_folder_not_made_by_accelgui_is_not_overwritten(tmp_path):
    ws = tmp_path / "mine"
    ws.mkdir()
    (ws / "prune.py").write_text("# someone's file\n")
    with pytest.raises(exercises.WorkspaceEditedError):
        exercises.write_starter("model-optimization.pruning-sparsity", str(ws))


def test_grading_without_a_workspace_says_how_to_start():
    res = exercises.grade("model-optimization.distillation")
    assert res["status"] == "no-workspace" and "--exercise" in render(res["reason_msg"], "en")
    res = exercises.verify_step("model-optimization.distillation", kb=load_knowledge(""), report={})
    assert res["status"] == "no-workspace" and "--exercise" in render(res["reason_msg"], "en")


# --------------------------------------------------------------------------- verify and progress

def test_verify_grades_the_workspace_and_only_work_marks_the_step_done(tmp_path):
    m = ALL["modelopt-distillation-loss"]
    kb = load_knowledge("")
    step = m["step"]
    ws = _workspace(tmp_path, m, "naive")
    res = exercises.verify_step(step, kb=kb, report={}, workspace=ws)
    assert res["status"] == "failed" and step not in progress.load_done()
    ws = _workspace(tmp_path, m, "reference")
    res = exercises.verify_step(step, kb=kb, report={}, workspace=ws)
    assert res["status"] == "done" and res["proves"] == "work"
    stored = progress.load_verified()[step]
    assert stored["proves"] == "work" and stored["figures"] and stored["versions"]["numpy"]
    assert step in progress.load_done() and progress.step_progress(step) == "passed"


def test_verify_of_a_step_with_an_environment_check_is_ready_not_done():
    kb = load_knowledge("")
    res = exercises.verify_step("cpu.know-your-cpu", kb=kb, report={})
    assert res["status"] == "ready" and res["proves"] == "environment"
    assert "cpu.know-your-cpu" not in progress.load_done()
    assert progress.step_progress("cpu.know-your-cpu") == "ready"


def test_cli_exercise_writes_refuses_over_edits_and_names_steps_with_exercises(tmp_path):
    env = dict(os.environ, ACCELGUI_DATA_DIR=str(tmp_path / "d"))
    ws = tmp_path / "w"
    run = [sys.executable, "-m", "accelgui", "--exercise", "fpga.simulation", "--workspace", str(ws)]
    first = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    assert first.returncode == 0 and (ws / "sat_add.v").is_file() and "--verify fpga.simulation" in first.stdout
    (ws / "sat_add.v").write_text("// mine\n")
    second = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    assert second.returncode == 1 and "--force" in second.stderr and (ws / "sat_add.v").read_text() == "// mine\n"
    bad = subprocess.run(run[:4] + ["cpu.know-your-cpu"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "cpu.numba-jit" in bad.stderr


def test_a_workspace_that_cannot_be_written_is_a_clear_error(tmp_path):
    import io

    from accelgui.verify_cli import run_exercise_cli

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    err = io.StringIO()
    assert run_exercise_cli("cpu.simd-native", "en", workspace=str(blocker), out=io.StringIO(), err=err) == 1
    assert "cannot write the exercise" in err.getvalue() and blocker.read_text() == "not a folder\n"
