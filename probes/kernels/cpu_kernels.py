"""Numba CPU micro-kernels. Imported only in the benchmark child process.

Rules that keep these within a few percent of ``gcc -O3 -march=native`` (see
tests/benchmarks/README.md for the measurements behind them):

* loops run from 0 over whole arrays or over slices ``a[lo:hi]`` (1-D slices keep the
  C layout, so LLVM sees a unit-stride loop with no wraparound code);
* ``fastmath=True`` where reassociation is legal (reductions, FMA contraction);
* the FMA kernel keeps ``nacc`` vector accumulators in registers, written as explicit
  LLVM vectors (a Numba intrinsic), one ``vfmadd`` per accumulator per iteration (zmm on
  AVX-512: the child asks LLVM not to prefer 256-bit vectors);
* the parallel STREAM driver cuts the arrays into one contiguous chunk per thread, like
  OpenMP ``schedule(static)``, and touches them first in parallel (op 0).

Keep the number of distinct compiled functions small: every one costs compile time on a
cold cache (``cache=True`` keeps them in ``NUMBA_CACHE_DIR`` afterwards).
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

# STREAM operations (same order and formulas as bench-ref/triad.c)
INIT, COPY, SCALE, ADD, TRIAD = 0, 1, 2, 3, 4
STREAM_OPS = (COPY, SCALE, ADD, TRIAD)
STREAM_NAMES = {COPY: "copy", SCALE: "scale", ADD: "add", TRIAD: "triad"}
#: bytes moved per element, counted as STREAM does (no write-allocate traffic)
STREAM_BYTES = {COPY: 16, SCALE: 16, ADD: 24, TRIAD: 24}
#: floating-point operations per element
STREAM_FLOPS = {COPY: 0, SCALE: 1, ADD: 1, TRIAD: 2}


@njit(cache=True, fastmath=True, nogil=True)
def stream_op(op, a, b, c, s):
    """One STREAM pass over a, b, c (1-D contiguous float64 of equal length)."""
    n = a.shape[0]
    if op == INIT:
        for i in range(n):
            a[i] = 1.0
            b[i] = 2.0
            c[i] = 0.0
    elif op == COPY:
        for i in range(n):
            c[i] = a[i]
    elif op == SCALE:
        for i in range(n):
            b[i] = s * c[i]
    elif op == ADD:
        for i in range(n):
            c[i] = a[i] + b[i]
    else:
        for i in range(n):
            a[i] = b[i] + s * c[i]


@njit(cache=True, parallel=True)
def stream_mt(op, a, b, c, s, nchunks):
    """The same pass on ``nchunks`` threads, one contiguous chunk each (static schedule)."""
    n = a.shape[0]
    for t in prange(nchunks):
        lo = (n * t) // nchunks
        hi = (n * (t + 1)) // nchunks
        stream_op(op, a[lo:hi], b[lo:hi], c[lo:hi], s)


def make_fma_kernel(nacc: int, lanes: int, dtype=np.float64):
    """FMA throughput kernel: ``nacc`` independent accumulators of ``lanes``-wide vectors.

    Each iteration does ``acc = fma(acc, m, c)`` on every accumulator: 2 x nacc x lanes
    FLOP. With m < 1 the values converge to c / (1 - m): no overflow, no denormals.
    Returns the sum of all lanes of all accumulators (float64), so nothing is optimised
    away.

    The vectors are written out in LLVM IR (``<lanes x double>`` and ``llvm.fma``), the
    way bench-ref/fma.c uses GCC vector types: left to the loop vectoriser, a small
    accumulator count gets fully unrolled first and stays scalar (measured: 32 or 48
    lanes ran at a quarter of the peak on Zen 4, README). Lanes: 8 doubles for AVX-512,
    4 for AVX/AVX2, 2 for SSE2 and NEON; twice as many floats.
    """
    return _fma_kernel(int(nacc), int(lanes), np.dtype(dtype).name)


@functools.lru_cache(maxsize=None)
def _fma_kernel(nacc: int, lanes: int, dtname: str):
    # The closure holds plain ints only: Numba types them as literals (the intrinsic
    # needs them at compile time) and hashes them into a stable cache key.
    del dtname  # the precision follows the type of m and c

    @njit(cache=True, nogil=True)
    def fma_kernel(iters, seed, m, c):
        return _fma_loop(iters, seed, m, c, nacc, lanes)

    return fma_kernel


@intrinsic
def _fma_loop(typingctx, iters, seed, m, c, nacc, lanes):
    """``nacc`` vector accumulators of ``lanes`` elements (both compile-time literals)."""
    if not (isinstance(nacc, types.IntegerLiteral) and isinstance(lanes, types.IntegerLiteral)):
        return None  # Numba retries with the literal values
    if m not in (types.float32, types.float64) or c != m:
        return None
    fty, n_acc, n_lanes = m, nacc.literal_value, lanes.literal_value
    sig = types.float64(types.int64, types.float64, fty, fty, nacc, lanes)

    def codegen(context, builder, signature, args):
        n, seed_v, m_v, c_v = args[:4]
        elt = context.get_value_type(fty)
        vty = ir.VectorType(elt, n_lanes)
        i32 = ir.IntType(32)
        undef = ir.Constant(vty, ir.Undefined)
        zeros = ir.Constant(ir.VectorType(i32, n_lanes), [0] * n_lanes)

        def splat(x):
            return builder.shuffle_vector(
                builder.insert_element(undef, x, ir.Constant(i32, 0)), undef, zeros)

        if fty != types.float64:
            seed_v = builder.fptrunc(seed_v, elt)
        base = splat(seed_v)
        slots = []
        for j in range(n_acc):  # acc[j][l] = seed + (j * lanes + l) * 1e-3
            init = ir.Constant(vty, [float((j * n_lanes + lane) * 1e-3) for lane in range(n_lanes)])
            slot = cgutils.alloca_once(builder, vty)  # promoted to a register
            builder.store(builder.fadd(base, init), slot)
            slots.append(slot)
        suffix = f"v{n_lanes}f64" if fty == types.float64 else f"v{n_lanes}f32"
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vty, [vty, vty, vty]), f"llvm.fma.{suffix}")
        mv, cv = splat(m_v), splat(c_v)
        with cgutils.for_range(builder, n):
            for slot in slots:
                builder.store(builder.call(fma, [builder.load(slot), mv, cv]), slot)
        total = builder.load(slots[0])
        for slot in slots[1:]:
            total = builder.fadd(total, builder.load(slot))
        out = ir.Constant(ir.DoubleType(), 0.0)
        for lane in range(n_lanes):
            x = builder.extract_element(total, ir.Constant(i32, lane))
            if fty != types.float64:
                x = builder.fpext(x, ir.DoubleType())
            out = builder.fadd(out, x)
        return out

    return sig, codegen


@njit(cache=True, nogil=True)
def add_chain(n, k1, k2):
    """8 dependent single-cycle integer ops per iteration: cycles = 8 x n.

    ``(x + k1) ^ k2`` with run-time k1, k2 cannot be folded or vectorised, and compiles to
    plain ``add``/``xor`` register instructions, so the elapsed time measures the clock.
    """
    x = k1
    for _ in range(n):
        x = (x + k1) ^ k2
        x = (x + k1) ^ k2
        x = (x + k1) ^ k2
        x = (x + k1) ^ k2
    return x


@njit(cache=True, fastmath=True, nogil=True)
def read_sum(a, reps):
    """Read bandwidth kernel: sum ``a`` ``reps`` times (vectorised reduction)."""
    s = 0.0
    for _ in range(reps):
        for i in range(a.shape[0]):
            s += a[i]
    return s


def build_chase(nxt, n_lines, stride, seed):
    """Write a random single-cycle pointer chain into ``nxt`` (uint64).

    Slot i lives at element ``i * stride`` (one slot per 64-byte line with stride 8) and
    holds the element index of the next slot. Visiting the slots in a random order and
    closing the loop gives a uniformly random cyclic permutation, the same distribution
    as Sattolo's algorithm, in vectorised NumPy (no JIT compile on a cold cache). Only
    the slot elements are written.
    """
    order = np.random.default_rng(seed).permutation(n_lines)
    succ = np.empty(n_lines, np.uint64)
    succ[order] = np.roll(order, -1)          # scatter into a small array...
    succ *= np.uint64(stride)
    nxt[: n_lines * stride: stride] = succ    # ...then one sequential pass over the big one


@njit(cache=True, nogil=True)
def chase(nxt, steps):
    """Follow the chain ``steps`` times from slot 0; returns the final index."""
    p = np.uint64(0)
    for _ in range(steps):
        p = nxt[p]
    return p
