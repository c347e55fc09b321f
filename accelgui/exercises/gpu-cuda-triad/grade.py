"""Grades triad.cu: built here into the grader's harness with nvcc, checked and timed on the GPU."""

import json
import os
import shutil
import subprocess

HARNESS = r"""
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include "learner_triad.cu"
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(out, "{\"error\": \"%s\"}", cudaGetErrorString(e)); fclose(out); return 0; } } while (0)
int main(int argc, char **argv)
{
    FILE *out = fopen(argv[1], "w");
    long n = atol(argv[2]);
    unsigned seed = (unsigned)atol(argv[3]);
    float s = 0.5f + (seed % 1000) / 333.0f;
    size_t bytes = n * sizeof(float);
    float *hb = (float *)malloc(bytes), *hc = (float *)malloc(bytes), *ha = (float *)malloc(bytes);
    srand(seed);
    for (long i = 0; i < n; i++) { hb[i] = rand() / (float)RAND_MAX; hc[i] = rand() / (float)RAND_MAX; }
    float *a, *b, *c;
    CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
    CK(cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, hc, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(a, 0, bytes));
    launch_triad(a, b, c, s, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ha, a, bytes, cudaMemcpyDeviceToHost));
    long bad = 0, first = -1;
    for (long i = 0; i < n; i++) {
        float want = hb[i] + s * hc[i];
        if (!(fabsf(ha[i] - want) <= 1e-5f * fabsf(want) + 1e-6f)) { if (first < 0) first = i; bad++; }
    }
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0); cudaEventCreate(&t1);
    float best = 1e30f, best_copy = 1e30f, ms;
    for (int r = 0; r < 20; r++) {
        cudaEventRecord(t0); launch_triad(a, b, c, s, n); cudaEventRecord(t1); cudaEventSynchronize(t1);
        cudaEventElapsedTime(&ms, t0, t1); if (ms < best) best = ms;
        cudaEventRecord(t0); cudaMemcpy(a, b, bytes, cudaMemcpyDeviceToDevice); cudaEventRecord(t1);
        cudaEventSynchronize(t1); cudaEventElapsedTime(&ms, t0, t1); if (ms < best_copy) best_copy = ms;
    }
    CK(cudaGetLastError());
    fprintf(out, "{\"n\": %ld, \"bad\": %ld, \"first_bad\": %ld, \"triad_ms\": %g, \"copy_ms\": %g}",
            n, bad, first, best, best_copy);
    fclose(out);
    return 0;
}
"""


def grade(g):
    shutil.copy(g.path("triad.cu"), os.path.join(g.scratch, "learner_triad.cu"))
    src = os.path.join(g.scratch, "harness.cu")
    with open(src, "w") as fh:
        fh.write(HARNESS)
    exe = os.path.join(g.scratch, "harness")
    built = subprocess.run(["nvcc", "-O3", "-o", exe, src], capture_output=True, text=True, cwd=g.scratch)
    if not g.check("compiles", built.returncode == 0, built.stderr[-400:]):
        return
    result = os.path.join(g.scratch, "out.json")
    n = (1 << 26) + g.seed % 977                 # 256 MiB per array, an awkward length
    subprocess.run([exe, result, str(n), str(g.seed)], capture_output=True, text=True, timeout=120)
    try:
        with open(result) as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        doc = {"error": "the harness crashed"}
    if not g.check("runs", "error" not in doc, doc.get("error", "")):
        return
    if not g.check("correct", doc["bad"] == 0,
                   f"{doc['bad']} of {doc['n']} elements wrong (first at index {doc['first_bad']})"):
        return
    g.figure("triad_gbps", 3 * 4 * doc["n"] / (doc["triad_ms"] * 1e-3) / 1e9)
    g.figure("memcpy_gbps", 2 * 4 * doc["n"] / (doc["copy_ms"] * 1e-3) / 1e9)
