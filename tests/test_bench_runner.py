"""The benchmark runner: a child process speaking JSON lines, which the parent can cancel,
cap in memory and survive crashing.

Runs the real child in its ``test`` mode (tiny arrays, a second or two warm). The Numba
cache lives in a temporary directory so the tests never touch the user's cache.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading

import pytest

from accelgui.probes.kernels import client

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def bench_env(tmp_path_factory):
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(tmp_path_factory.mktemp("numba-cache"))
    env.pop("ACCELGUI_BENCH_CRASH", None)
    return env


@pytest.fixture(scope="module")
def test_run(bench_env):
    """One complete child run in test mode: its raw stdout lines and return code."""
    argv = client.benchmark_command("test", gpu=False)
    proc = subprocess.run(argv, env=bench_env, capture_output=True, text=True, timeout=300)
    return proc


def _children_alive():
    import psutil

    return [p for p in psutil.Process().children(recursive=True)
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


# ---------------------------------------------------------------- command and line parsing

def test_benchmark_command_runs_the_kernels_module():
    argv = client.benchmark_command("quick")
    assert argv[0] == sys.executable
    assert argv[1:5] == ["-m", "accelgui.probes.kernels", "--mode", "quick"]
    argv = client.benchmark_command("full", mem_cap_bytes=1 << 20, gpu=False)
    assert "--no-gpu" in argv and argv[argv.index("--mem-cap-bytes") + 1] == str(1 << 20)
    with pytest.raises(ValueError):
        client.benchmark_command("fast")


def test_parse_line_accepts_protocol_lines_only():
    p = client.parse_line('{"type":"progress","stage":"stream","fraction":0.25,"message":"m"}\n')
    assert p["stage"] == "stream" and p["fraction"] == 0.25 and p["partial"] == {}
    assert client.parse_line('{"type":"progress","fraction":7}')["fraction"] == 1.0
    assert client.parse_line(b'{"type":"result","benchmarks":{"cpu":{}}}')["benchmarks"] == {"cpu": {}}
    assert client.parse_line('{"type":"error","message":"boom"}')["message"] == "boom"
    for junk in ("", "OpenBLAS warning: precompiled NUM_THREADS exceeded", "{not json",
                 '{"type":"other"}', '["type"]', '{"type":"result"}'):
        assert client.parse_line(junk) is None


# ---------------------------------------------------------------- the child's protocol

def test_child_streams_progress_then_one_result(test_run):
    assert test_run.returncode == 0, test_run.stderr[-2000:]
    msgs = [json.loads(line) for line in test_run.stdout.splitlines()]
    assert all(m["type"] in ("progress", "result") for m in msgs)
    progress = [m for m in msgs if m["type"] == "progress"]
    fractions = [m["fraction"] for m in progress]
    assert len(progress) > 5
    assert fractions == sorted(fractions), "progress must never go backwards"
    assert 0.0 <= fractions[0] and fractions[-1] == 1.0
    assert all(isinstance(m["stage"], str) and isinstance(m["message"], str) for m in progress)
    stages = {m["stage"] for m in progress}
    assert {"setup", "clock", "fma", "stream", "cache_sweep", "latency", "gemm"} <= stages
    # partial results arrive before the end
    assert any("stream" in m["partial"] for m in progress)
    assert msgs[-1]["type"] == "result"


def test_result_has_the_contract_names(test_run):
    bench = json.loads(test_run.stdout.splitlines()[-1])["benchmarks"]
    cpu = bench["cpu"]
    stream = cpu["stream"]
    for key in ("threads", "array_bytes", "copy_gbps", "scale_gbps", "add_gbps", "triad_gbps"):
        assert stream[key] is not None and stream[key] > 0, key
    assert set(stream["single_thread"]) == {"copy_gbps", "scale_gbps", "add_gbps", "triad_gbps"}
    assert stream["check_ok"] is True
    for key in ("fp64_gflops_1t", "fp64_gflops_mt", "fp32_gflops_1t", "fp32_gflops_mt"):
        assert cpu["fma"][key] > 0, key
    assert set(cpu["latency_ns"]) == {"l1", "l2", "l3", "dram"}
    sweep = cpu["cache_sweep"]
    assert sweep[0]["bytes"] == 4096 and all(r["gbps"] > 0 for r in sweep)
    assert [r["bytes"] for r in sweep] == sorted(r["bytes"] for r in sweep)
    gemm = cpu["gemm"]
    assert gemm["dgemm_gflops"] > 0 and gemm["sgemm_gflops"] > 0 and gemm["n"] > 0
    assert "openblas_coretype" in gemm and "blas" in gemm
    theo = cpu["theoretical"]
    assert theo["clock_source"] in ("cpufreq_max", "measured")
    roof = bench["roofline"]
    assert set(roof) >= {"peak_gflops", "peak_gbps", "ridge_flops_per_byte", "measured_points"}
    assert roof["peak_gbps"] == stream["triad_gbps"]
    env = bench["environment"]
    assert env["threads"] == stream["threads"] >= 1
    assert env["numba_version"] and "threading_layer" in env and "llvm_cpu_name" in env
    assert bench["jit"]["compile_s"] is not None and bench["memory_cap_bytes"] > 0
    assert bench["gpu"] == {"skipped": "GPU benchmarks disabled (--no-gpu)"}
    # no NaN/Infinity in the JSON: it parsed with the strict default above
    json.dumps(bench, allow_nan=False)


def test_every_timed_figure_carries_its_repeat_spread_and_fits_the_contract(test_run):
    from accelgui import benchmarks

    bench = json.loads(test_run.stdout.splitlines()[-1])["benchmarks"]
    assert bench["contract"] == 2
    spread = bench["spread"]
    for path in [f"cpu.stream.{op}_gbps" for op in ("copy", "scale", "add", "triad")] + \
            [f"cpu.stream.single_thread.{op}_gbps" for op in ("copy", "scale", "add", "triad")] + \
            [f"cpu.fma.{p}_gflops_{t}" for p in ("fp64", "fp32") for t in ("1t", "mt")] + \
            ["cpu.gemm.dgemm_gflops", "cpu.gemm.sgemm_gflops", "cpu.latency_ns.l1"]:
        s = spread[path]
        assert s["min"] <= s["median"] <= s["max"] and s["n"] >= 1, path
    # the figure is the best repeat: the fastest rate, the shortest latency
    assert spread["cpu.stream.triad_gbps"]["max"] == pytest.approx(bench["cpu"]["stream"]["triad_gbps"], abs=0.01)
    assert spread["cpu.latency_ns.l1"]["min"] == pytest.approx(bench["cpu"]["latency_ns"]["l1"], abs=0.01)
    assert set(bench["memory_cap_limits"]) >= {"meminfo_available_bytes", "cgroup_available_bytes",
                                                "rlimit_as_available_bytes"}
    assert benchmarks.read(bench)["spread"] == spread      # validates against the schema
    assert benchmarks.headline(bench)[0]["spread"]["n"] == spread["cpu.stream.triad_gbps"]["n"]


def test_gpu_absent_is_a_skip_with_a_reason(bench_env):
    from accelgui.probes.kernels import gpu_skip_reason

    if gpu_skip_reason() is None:
        pytest.skip("this machine has a usable NVIDIA GPU")
    bench = client.run_benchmarks("test", env=bench_env)
    assert "error" not in bench, bench
    assert bench["gpu"]["skipped"]


def test_memory_cap_makes_the_arrays_smaller(bench_env, test_run):
    uncapped = json.loads(test_run.stdout.splitlines()[-1])["benchmarks"]
    cap = 512 * 1024
    bench = client.run_benchmarks("test", mem_cap_bytes=cap, gpu=False, env=bench_env)
    assert "error" not in bench, bench
    assert bench["memory_cap_bytes"] == cap
    assert bench["memory_cap_source"] == "--mem-cap-bytes"
    assert 3 * bench["cpu"]["stream"]["array_bytes"] <= cap
    assert bench["cpu"]["stream"]["array_bytes"] < uncapped["cpu"]["stream"]["array_bytes"]


def test_run_benchmarks_reports_progress_to_the_caller(bench_env):
    events = []
    bench = client.run_benchmarks("test", on_progress=events.append, gpu=False, env=bench_env)
    assert "error" not in bench, bench
    assert events and events[-1]["fraction"] == 1.0
    assert [e["fraction"] for e in events] == sorted(e["fraction"] for e in events)


def test_cli_progress_bar_draws_the_events(bench_env):
    from accelgui.cli import _terminal_progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    show = _terminal_progress(tty)
    bench = client.run_benchmarks("test", on_progress=show, gpu=False, env=bench_env)
    assert "error" not in bench
    screen = tty.getvalue()
    assert "100.0%" in screen and "#" * 30 in screen and screen.endswith("\n")


# ---------------------------------------------------------------- failures and cancel

def test_crashing_child_gives_a_clear_error(bench_env):
    env = dict(bench_env, ACCELGUI_BENCH_CRASH="1")
    bench = client.run_benchmarks("test", gpu=False, env=env)
    assert set(bench) >= {"error"}
    assert bench["error"].startswith("benchmark process crashed")
    assert "SIGABRT" in bench["error"] and "ACCELGUI_BENCH_CRASH" in bench["error"]
    assert "cpu" not in bench


def test_exception_in_child_is_reported(bench_env):
    env = dict(bench_env, ACCELGUI_BENCH_CRASH="exception")
    bench = client.run_benchmarks("test", gpu=False, env=env)
    assert bench["error"].startswith("benchmark failed: RuntimeError: injected failure")


def test_exception_line_and_exit_code_from_the_child(bench_env):
    env = dict(bench_env, ACCELGUI_BENCH_CRASH="exception")
    proc = subprocess.run(client.benchmark_command("test", gpu=False), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last["type"] == "error" and "injected failure" in last["message"]


def test_cancel_stops_the_child(bench_env):
    cancel = threading.Event()
    seen = []

    def on_progress(event):
        seen.append(event["stage"])
        if event["stage"] not in ("setup",):
            cancel.set()  # cancel once it is measuring
    bench = client.run_benchmarks("quick", on_progress=on_progress, cancel=cancel,
                                  gpu=False, env=bench_env)
    assert bench.get("cancelled") is True and bench["error"] == "benchmark cancelled"
    assert "cpu" not in bench
    assert not _children_alive()


def test_hung_child_times_out_and_is_killed(bench_env):
    env = dict(bench_env, ACCELGUI_BENCH_CRASH="hang")
    bench = client.run_benchmarks("test", timeout_s=5, gpu=False, env=env)
    assert bench.get("timed_out") is True and "timed out" in bench["error"]
    assert not _children_alive()


def test_child_exits_when_its_parent_goes_away(bench_env):
    env = dict(bench_env, ACCELGUI_BENCH_CRASH="hang")
    argv = client.benchmark_command("test", gpu=False, watch_stdin=True)
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    proc.stdout.readline()  # it is running
    proc.stdin.close()      # what the kernel does when the parent dies
    assert proc.wait(timeout=30) == 3
    proc.stdout.close()


def test_client_module_does_not_import_numba():
    code = ("import sys, accelgui.probes.kernels.client, accelgui.probes.kernels.peaks; "
            "print('numba' in sys.modules, 'llvmlite' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_latency_and_sweep_cope_with_aligned_views_of_different_lengths():
    """The stages take 64-byte aligned views of several arrays; where allocation leaves
    them misaligned differently, the views differ by a cache line and every working set
    must still fit the shortest one (this used to fail at random with a broadcast error)."""
    import numpy as np

    from accelgui.probes.kernels import __main__ as child

    bench = child.Bench("test", child.Protocol(io.StringIO()), None, False, {})
    bench.setup()
    n = 16384                                   # 128 KiB per array: the cap binds
    base = np.empty(3 * (n + 16), np.float64)
    offsets = [base.ctypes.data % 64 // 8]      # element offsets that misalign each array
    start = [(8 - offsets[0]) % 8 + k for k in (0, 1, 0)]
    bench.stream_arrays = [base[s + i * (n + 8): s + i * (n + 8) + n] for i, s in enumerate(start)]
    lengths = [child.aligned_view(a).shape[0] for a in bench.stream_arrays]
    assert lengths[1] < lengths[2], "the test arrays must give views of different lengths"
    bench.caches = {"l1d_bytes": 32 << 10, "l2_bytes": 1 << 20, "l3_bytes": 32 << 20,
                    "llc_bytes": 32 << 20, "llc_total_bytes": 32 << 20}
    bench.latency()
    bench.cache_sweep()
    assert bench.result["latency_ns"]["l1"] is not None
    assert all(p["bytes"] <= n * 8 for p in bench.result["cache_sweep"])


def test_stages_measure_with_automatic_garbage_collection_off_and_it_comes_back():
    """As timeit does: a full collection over the JIT's objects must not land in a timed call."""
    import gc

    from accelgui.probes.kernels import __main__ as child

    bench = child.Bench("test", child.Protocol(io.StringIO()), None, False, {})
    seen = {}

    class StopError(Exception):
        pass

    def stage(name, stop=False):
        def run():
            seen[name] = gc.isenabled()
            if stop:
                raise StopError
        return run

    bench.setup = lambda: None
    for name in ("clock", "fma", "stream", "cache_sweep", "latency"):
        setattr(bench, name, stage(name))
    bench.gemm = stage("gemm", stop=True)
    assert gc.isenabled()
    with pytest.raises(StopError):
        bench.run()
    assert seen == dict.fromkeys(("clock", "fma", "stream", "cache_sweep", "latency", "gemm"), False)
    assert gc.isenabled()
