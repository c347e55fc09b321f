#!/usr/bin/env python3
"""The metrics exporter under load: prometheus_client's default server (what
``--serve-metrics`` used) against accelgui's own, side by side in one run (not in make test).

Each server runs in a child process of its own over the telemetry tree of
tests/monitor_support.py (sampling every second), on 127.0.0.1 port 0:

- ``old``: ``prometheus_client.start_http_server`` over the same collector (a thread per
  connection, listen backlog 5, no timeouts, the exposition rendered on every scrape);
- ``new``: ``accelgui.monitor_cli.serve_metrics`` itself.

Figures: for 20, 200 and 500 scrapes started at once (asyncio client, one connection each,
``Connection: close``, 15 s timeout), how many were answered 200 and the p50 / p99 / max
latency; then 1,000 connections that send half a request and hold it: the server's RSS and
threads before, 1.5 s and 7 s after they were opened (growth: the larger of the two less
before), whether a scrape still answers meanwhile, and how many of the 1,000 the server has
dropped after 7 s. Bounds checked for ``new`` (exit status 1 when missed): every
one of 200 concurrent scrapes answered with p99 <= 1 s, and 1,000 idle connections grow RSS
by at most ``IDLE_RSS_BOUND_MIB``.

Usage: python tests/benchmarks/bench_metrics_server.py [--counts 20,200,500] [--idle 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
IDLE_RSS_BOUND_MIB = 16

CHILD = r"""
import os, resource, sys, threading, time
sys.path.insert(0, sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
from monitor_support import TelemetryTree
tree = TelemetryTree(sys.argv[2], cpus=16)
from types import SimpleNamespace
from accelgui import monitor_cli
if sys.argv[1] == "new":
    args = SimpleNamespace(sysroot=tree.root, interval=1.0, count=None, format=None, serve_metrics="127.0.0.1:0")
    monitor_cli.serve_metrics(args, ready=lambda a: print(a.rsplit(":", 1)[1], flush=True))
else:
    from prometheus_client import CollectorRegistry, start_http_server
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler
    collector = monitor_cli.MonitorCollector()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    httpd, _ = start_http_server(0, addr="127.0.0.1", registry=registry)
    print(httpd.server_address[1], flush=True)
    sampler = Sampler(ProbeContext(tree.root))
    sampler.sample()
    while True:
        time.sleep(1.0)
        collector.sample = sampler.sample()
"""


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return -1


async def scrape(port: int, timeout: float) -> tuple[int, float]:
    began = time.perf_counter()
    try:
        async def one():
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            data = await reader.read()
            writer.close()
            return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
        status = await asyncio.wait_for(one(), timeout)
    except (asyncio.TimeoutError, OSError, ValueError):
        status = 0
    return status, time.perf_counter() - began


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def burst(port: int, n: int) -> dict:
    results = await asyncio.gather(*(scrape(port, 15.0) for _ in range(n)))
    took = [t for _, t in results]
    statuses: dict[str, int] = {}
    for s, _ in results:
        statuses[str(s or "failed")] = statuses.get(str(s or "failed"), 0) + 1
    return {"answered_200": sum(s == 200 for s, _ in results), "of": n, "statuses": statuses,
            "p50_s": round(pct(took, 50), 3), "p99_s": round(pct(took, 99), 3), "max_s": round(max(took), 3)}


async def idle(pid: int, port: int, n: int) -> dict:
    before, threads_before = rss_mib(pid), threads(pid)

    async def hold():
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n")       # half a request, held
        return r, w
    tries = [asyncio.ensure_future(hold()) for _ in range(n)]
    await asyncio.wait(tries, timeout=15)                             # all opened, or 15 s
    conns = [t.result() for t in tries if t.done() and not t.cancelled() and t.exception() is None]
    for t in tries:
        t.cancel()
    await asyncio.sleep(1.5)
    held = rss_mib(pid)
    n_threads = threads(pid)
    status, took = await scrape(port, 10.0)
    await asyncio.sleep(5.5)                    # past the new server's 5 s header timeout
    held_end, threads_end = rss_mib(pid), threads(pid)      # the old server may still be accepting
    dropped = 0
    for r, _ in conns:
        try:
            data = await asyncio.wait_for(r.read(64), 0.01)
            dropped += data == b"" or data.startswith(b"HTTP/1.1 408")
        except (asyncio.TimeoutError, OSError):
            pass
    for _, w in conns:
        w.close()
    await asyncio.sleep(1.0)
    # connections the server itself holds: the old one has a thread for each it accepted (its
    # backlog of 5 leaves the rest in the kernel), the new one drops every one it holds
    kept = threads_end - threads_before if threads_end - threads_before > 2 else dropped
    growth = max(held, held_end) - before
    return {"opened": len(conns), "of": n, "held_by_server": kept,
            "rss_growth_per_held_kib": round(growth * 1024 / kept, 1) if kept else None,
            "rss_before_mib": round(before, 1), "rss_held_mib": round(held, 1),
            "rss_held_7s_mib": round(held_end, 1), "rss_growth_mib": round(max(held, held_end) - before, 1),
            "threads_held": n_threads, "threads_held_7s": threads_end,
            "scrape_while_held": {"status": status, "s": round(took, 3)},
            "dropped_by_server_after_7s": dropped, "rss_after_mib": round(rss_mib(pid), 1)}


def run(kind: str, counts: list[int], n_idle: int) -> dict:
    scratch = tempfile.mkdtemp(prefix=f"accelgui-bench-http-{kind}-")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, kind, os.path.join(scratch, "root"), str(REPO / "tests")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=str(REPO))
    try:
        port = int(proc.stdout.readline())
        time.sleep(2.5)                         # the first samples
        out = {"kind": kind}
        for n in counts:
            out[f"burst_{n}"] = asyncio.run(burst(port, n))
            time.sleep(1.0)
        out["idle"] = asyncio.run(idle(proc.pid, port, n_idle))
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="20,200,500")
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--only", choices=("old", "new"))
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    counts = [int(c) for c in args.counts.split(",")]
    results = {kind: run(kind, counts, args.idle) for kind in ("old", "new") if args.only in (None, kind)}
    ratios = {}
    if len(results) == 2:
        old, new = results["old"], results["new"]
        for n in counts:
            key = f"burst_{n}"
            ratios[f"{key}_p99_old_over_new"] = round(old[key]["p99_s"] / max(new[key]["p99_s"], 1e-4), 1)
        if old["idle"]["rss_growth_per_held_kib"] and new["idle"]["rss_growth_per_held_kib"]:
            ratios["idle_rss_per_held_connection_old_over_new"] = round(
                old["idle"]["rss_growth_per_held_kib"] / new["idle"]["rss_growth_per_held_kib"], 1)
    checks = {}
    if "new" in results:
        new = results["new"]
        b = new.get("burst_200")
        if b:
            checks["200_concurrent_all_answered_p99_le_1s"] = b["answered_200"] == b["of"] and b["p99_s"] <= 1.0
        checks[f"idle_{args.idle}_rss_growth_le_{IDLE_RSS_BOUND_MIB}_mib"] = \
            new["idle"]["rss_growth_mib"] <= IDLE_RSS_BOUND_MIB
        checks["idle_connections_dropped"] = new["idle"]["dropped_by_server_after_7s"] == new["idle"]["opened"]
    print(json.dumps({"results": results, "ratios": ratios, "checks": checks,
                      "cpus": os.cpu_count()}, indent=1))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
