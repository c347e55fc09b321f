"""The micro-kernels compute the right thing, and the peak table gives the right figures.

Kernel tests run the Numba functions in this process on small inputs; the theoretical-peak
and cache readers are checked against small recorded sysfs/procfs trees.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from accelgui.probes.context import ProbeContext
from accelgui.probes.kernels import gpu_skip_reason, peaks

numba = pytest.importorskip("numba")
ck = pytest.importorskip("accelgui.probes.kernels.cpu_kernels")


# ---------------------------------------------------------------- STREAM

def _arrays(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(n), rng.random(n), rng.random(n)


@pytest.mark.parametrize("op", [ck.COPY, ck.SCALE, ck.ADD, ck.TRIAD])
def test_stream_ops_match_numpy(op):
    a, b, c = _arrays(1001)
    ea, eb, ec = a.copy(), b.copy(), c.copy()
    s = 3.0
    if op == ck.COPY:
        ec = ea.copy()
    elif op == ck.SCALE:
        eb = s * ec
    elif op == ck.ADD:
        ec = ea + eb
    else:
        ea = eb + s * ec
    ck.stream_op(op, a, b, c, s)
    np.testing.assert_allclose(a, ea, rtol=1e-15)
    np.testing.assert_allclose(b, eb, rtol=1e-15)
    np.testing.assert_allclose(c, ec, rtol=1e-15)


def test_triad_values():
    a, b, c = np.zeros(10), np.arange(10.0), np.full(10, 2.0)
    ck.stream_op(ck.TRIAD, a, b, c, 3.0)
    assert a.tolist() == [i + 6.0 for i in range(10)]


@pytest.mark.parametrize("chunks", [1, 2, 3, 7])
def test_parallel_stream_covers_every_element(chunks):
    # odd length: the last chunk is uneven; every element must be written exactly once
    a, b, c = np.full(1003, -1.0), np.full(1003, -1.0), np.full(1003, -1.0)
    ck.stream_mt(ck.INIT, a, b, c, 3.0, chunks)
    assert (a == 1.0).all() and (b == 2.0).all() and (c == 0.0).all()
    ck.stream_mt(ck.TRIAD, a, b, c, 3.0, chunks)
    assert (a == 2.0).all()
    x, y, z = _arrays(1003, seed=1)
    ex = y + 3.0 * z
    ck.stream_mt(ck.TRIAD, x, y, z, 3.0, chunks)
    np.testing.assert_allclose(x, ex, rtol=1e-15)


def test_stream_byte_counts_follow_stream_convention():
    # as bench-ref/triad.c: copy/scale move 2 arrays, add/triad 3; no write-allocate
    assert ck.STREAM_BYTES == {ck.COPY: 16, ck.SCALE: 16, ck.ADD: 24, ck.TRIAD: 24}


# ---------------------------------------------------------------- FMA

def _fma_reference(lanes, iters, seed, m, c, dtype):
    acc = (seed + np.arange(lanes) * 1e-3).astype(dtype)
    for _ in range(iters):
        acc = (acc * dtype(m) + dtype(c)).astype(dtype)
    return float(acc.astype(np.float64).sum())


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
@pytest.mark.parametrize("nacc,lanes", [(1, 2), (4, 4), (12, 8), (3, 16)])
def test_fma_kernel_sums_its_accumulators(dtype, rtol, nacc, lanes):
    k = ck.make_fma_kernel(nacc, lanes, dtype)
    m, c = dtype(0.75), dtype(0.125)
    for iters in (0, 1, 7):
        got = k(iters, 1.0, m, c)
        want = _fma_reference(nacc * lanes, iters, 1.0, 0.75, 0.125, dtype)
        assert math.isclose(got, want, rel_tol=rtol), (iters, got, want)


def test_fma_kernel_converges_without_overflow():
    # the benchmark's m, c: every accumulator tends to c / (1 - m) = 1.0
    k = ck.make_fma_kernel(2, 8, np.float64)
    got = k(2_000_000, 1.0, 0.9999999, 1e-7)
    assert math.isfinite(got)
    start = _fma_reference(16, 0, 1.0, 0.9999999, 1e-7, np.float64)
    assert abs(got - 16) < abs(start - 16)


# ---------------------------------------------------------------- clock chain

def test_add_chain_matches_python():
    def ref(n, k1, k2):
        x = k1
        for _ in range(4 * n):
            x = ((x + k1) ^ k2)
            x = (x + 2 ** 63) % 2 ** 64 - 2 ** 63  # int64 wraparound
        return x
    for n, k1, k2 in [(0, 3, 5), (1, 3, 5), (1000, 12345, 987), (10, -7, 1 << 40)]:
        assert ck.add_chain(n, k1, k2) == ref(n, k1, k2)


# ---------------------------------------------------------------- cache sweep kernel

def test_read_sum_reads_every_element_each_rep():
    a = np.arange(1, 1001, dtype=np.float64)
    assert ck.read_sum(a, 1) == pytest.approx(a.sum())
    assert ck.read_sum(a, 5) == pytest.approx(5 * a.sum())
    assert ck.read_sum(a[:0], 3) == 0.0


# ---------------------------------------------------------------- pointer chase

@pytest.mark.parametrize("n_lines", [2, 3, 17, 1000])
def test_chase_is_one_cycle_through_every_line(n_lines):
    stride = 8
    sentinel = np.uint64(0xDEADBEEF)
    nxt = np.full(n_lines * stride, sentinel, dtype=np.uint64)
    ck.build_chase(nxt, n_lines, stride, 42)
    # only the first slot of each 64-byte line is written
    mask = np.ones(n_lines * stride, bool)
    mask[::stride] = False
    assert (nxt[mask] == sentinel).all()
    seen = []
    p = 0
    for _ in range(n_lines):
        seen.append(p)
        p = int(nxt[p])
    assert p == 0, "the chain must come back to the start after exactly n_lines steps"
    assert sorted(seen) == list(range(0, n_lines * stride, stride))
    assert int(ck.chase(nxt, n_lines)) == 0
    assert int(ck.chase(nxt, 1)) == int(nxt[0])


def test_chase_differs_with_the_seed():
    a = np.zeros(64 * 8, np.uint64)
    b = np.zeros(64 * 8, np.uint64)
    ck.build_chase(a, 64, 8, 1)
    ck.build_chase(b, 64, 8, 2)
    assert not np.array_equal(a, b)


# ---------------------------------------------------------------- sysfs readers and peaks

def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _zen4_tree(root, cpus=2, l3_shared="0-1"):
    _write(root, "sys/devices/system/cpu/online", f"0-{cpus - 1}\n")
    for cpu in range(cpus):
        base = f"sys/devices/system/cpu/cpu{cpu}"
        _write(root, f"{base}/topology/core_id", f"{cpu}\n")
        _write(root, f"{base}/topology/physical_package_id", "0\n")
        for idx, (level, kind, size, shared) in enumerate([
                (1, "Data", "32K", str(cpu)), (1, "Instruction", "32K", str(cpu)),
                (2, "Unified", "1024K", str(cpu)), (3, "Unified", "32768K", l3_shared)]):
            _write(root, f"{base}/cache/index{idx}/level", f"{level}\n")
            _write(root, f"{base}/cache/index{idx}/type", f"{kind}\n")
            _write(root, f"{base}/cache/index{idx}/size", f"{size}\n")
            _write(root, f"{base}/cache/index{idx}/shared_cpu_list", f"{shared}\n")
    _write(root, "proc/cpuinfo",
           "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
           "model name\t: AMD EPYC\nstepping\t: 1\ncpu MHz\t\t: 2596.126\n"
           "flags\t\t: fpu sse2 avx avx2 fma avx512f\n\n")
    _write(root, "proc/meminfo", "MemTotal: 24000000 kB\nMemAvailable: 20000000 kB\n")


def test_cache_sizes_from_sysfs(tmp_path):
    _zen4_tree(tmp_path)
    ctx = ProbeContext(root=str(tmp_path))
    caches = peaks.cache_sizes(ctx, [0, 1])
    assert caches["l1d_bytes"] == 32 * 1024       # the instruction cache is left out
    assert caches["l2_bytes"] == 1 << 20
    assert caches["l3_bytes"] == 32 << 20
    assert caches["llc_total_bytes"] == 32 << 20  # one L3 shared by both CPUs


def test_llc_total_adds_distinct_instances(tmp_path):
    # two CCXs with their own L3 each (EPYC): the total is twice one instance
    _zen4_tree(tmp_path, cpus=4)
    for cpu in range(4):
        _write(tmp_path, f"sys/devices/system/cpu/cpu{cpu}/cache/index3/shared_cpu_list",
               "0-1\n" if cpu < 2 else "2-3\n")
    caches = peaks.cache_sizes(ProbeContext(root=str(tmp_path)), [0, 1, 2, 3])
    assert caches["llc_bytes"] == 32 << 20
    assert caches["llc_total_bytes"] == 64 << 20


def test_missing_sysfs_gives_unknown_not_zero(tmp_path):
    caches = peaks.cache_sizes(ProbeContext(root=str(tmp_path)), [0])
    assert caches["l1d_bytes"] is None and caches["llc_total_bytes"] is None
    assert peaks.cpufreq_max_mhz(ProbeContext(root=str(tmp_path)), [0]) is None
    width = peaks.fma_width(ProbeContext(root=str(tmp_path)))
    theo = peaks.theoretical(width, 2, 3000.0, 3000.0, "measured")
    assert theo["fp64_gflops_1t"] is None


def test_zen4_peak_from_the_table(tmp_path):
    _zen4_tree(tmp_path)
    ctx = ProbeContext(root=str(tmp_path))
    width = peaks.fma_width(ctx)
    assert width["uarch"] == "zen4"
    assert (width["vector_bits"], width["fma_pipes"]) == (256, 2)
    assert width["source"]
    theo = peaks.theoretical(width, cores=2, clock_mhz_1t=3700.0, clock_mhz_mt=3600.0,
                             clock_source="measured")
    # cores x clock x lanes x pipes x 2
    assert theo["fp64_gflops_1t"] == pytest.approx(3.7 * 4 * 2 * 2)
    assert theo["fp64_gflops_mt"] == pytest.approx(2 * 3.6 * 4 * 2 * 2)
    assert theo["fp32_gflops_1t"] == pytest.approx(2 * theo["fp64_gflops_1t"])
    assert theo["clock_source"] == "measured"


def test_cpufreq_max_is_read_in_mhz(tmp_path):
    _zen4_tree(tmp_path)
    _write(tmp_path, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3700000\n")
    _write(tmp_path, "sys/devices/system/cpu/cpu1/cpufreq/cpuinfo_max_freq", "3500000\n")
    assert peaks.cpufreq_max_mhz(ProbeContext(root=str(tmp_path)), [0, 1]) == 3700.0


@pytest.mark.parametrize("model_name,pipes", [
    ("Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz", 2),
    ("Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", 2),
    ("Intel(R) Xeon(R) Gold 5122 CPU @ 3.60GHz", 2),
    ("Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz", 1),
    ("Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz", 1),
])
def test_skylake_sp_fma_units_depend_on_the_sku(tmp_path, model_name, pipes):
    _write(tmp_path, "proc/cpuinfo",
           f"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
           f"model name\t: {model_name}\nflags\t\t: avx2 fma avx512f\n\n")
    width = peaks.fma_width(ProbeContext(root=str(tmp_path)))
    assert width["uarch"] == "skylake_avx512"
    assert (width["vector_bits"], width["fma_pipes"]) == (512, pipes)


def test_arm_part_and_isa_fallback(tmp_path):
    _write(tmp_path, "proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\n"
                                     "CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n\n")
    width = peaks.fma_width(ProbeContext(root=str(tmp_path)))
    assert width["uarch"] == "neoverse_v2" and width["fma_pipes"] == 4
    _write(tmp_path, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: SomeNewVendor\n"
                                     "flags\t\t: sse2 avx avx2 fma\n\n")
    width = peaks.fma_width(ProbeContext(root=str(tmp_path)))
    assert width["uarch"] is None and width["source"] == "isa-flags"
    assert (width["vector_bits"], width["fma_pipes"]) == (256, 2)


def test_every_table_entry_is_complete():
    table = peaks.load_table()
    for name, row in table["uarch"].items():
        assert row["vector_bits"] in (128, 256, 512), name
        assert row["fma_pipes"] in (1, 2, 4), name
        assert row["source"] in table["sources"], name
    for row in table["x86_models"]:
        assert row["uarch"] in table["uarch"]
    for uarch in table["arm_parts"].values():
        assert uarch in table["uarch"]


def test_parse_helpers():
    assert peaks.parse_size("32K") == 32768
    assert peaks.parse_size("1M") == 1 << 20
    assert peaks.parse_size("") is None
    assert peaks.parse_cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert peaks.parse_cpu_list("") == []


# ---------------------------------------------------------------- GPU

def test_gpu_is_skipped_with_a_reason_without_device_nodes(tmp_path):
    reason = gpu_skip_reason(dev_root=str(tmp_path))
    assert reason and "no NVIDIA GPU" in reason


def test_gpu_kernels_run_under_the_cuda_simulator(tmp_path):
    # the real numba-cuda code path (kernels, events, pinned copies) on Numba's simulator
    code = ("import json, accelgui.probes.kernels.gpu_kernels as g; "
            "print(json.dumps(g.run(tiny=True)))")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)
    # only a Numba without its CUDA package skips; any other missing module is a failure
    if proc.returncode and re.search(r"No module named '(numba\.cuda|numba_cuda)", proc.stderr):
        pytest.skip("numba.cuda is not available in this Numba")
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    out = json.loads(proc.stdout.strip().splitlines()[-1])
    dev = out["0"]
    assert "error" not in dev, dev
    assert dev["triad_check_ok"] is True and dev["fma_check_ok"] is True
    # the simulator keeps no time: rates are unknown (null), never 0
    assert dev["triad_gbps"] is None and dev["h2d_gbps"] is None


@pytest.mark.gpu
def test_gpu_benchmarks_on_a_real_device():
    reason = gpu_skip_reason()
    if reason:
        pytest.skip(reason)
    from accelgui.probes.kernels import gpu_kernels

    out = gpu_kernels.run(scale=0.1)
    dev = out["0"]
    assert dev["triad_check_ok"] and dev["triad_gbps"] > 0
    assert dev["fp32_gflops"] > 0 and dev["h2d_gbps"] > 0 and dev["d2h_gbps"] > 0
