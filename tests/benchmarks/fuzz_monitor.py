#!/usr/bin/env python3
"""Fuzz the live monitor with random mutations of the files it reads (``make fuzz``; not in
make test).

Each round lays out the telemetry tree of tests/monitor_support.py (CPUs, RAPL, hwmon, an AMD
GPU, an Intel GPU with a DRM client, two NPUs, NUMA nodes) in a scratch folder, with a fake NVML
GPU whose calls fail at random, and takes ``--samples`` samples; before each, a few random
mutations: those of fuzz_trees.py (truncated files, garbage bytes, huge lines, FIFOs, symlink
loops, links out of the tree, unreadable files, folders where files were, absurd numbers) and
the monitor's own (short or garbage ``cpu`` lines in /proc/stat, huge or non-finite load
averages, garbage and huge hwmon / sysfs values, an fdinfo that lies). A round fails when a
sample raises, takes longer than its deadline allows, cannot be written as strict JSON
(``allow_nan=False``), or the text table or the Prometheus exposition of it raises.

Usage: python tests/benchmarks/fuzz_monitor.py [--rounds N] [--minutes M] [--seed S] [--samples K]
Prints one JSON object of figures; exit status 1 when any round failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))            # monitor_support, test_nvml
sys.path.insert(0, str(HERE))                   # fuzz_trees (its mutations)
sys.path.insert(0, str(HERE.parent.parent))

import fuzz_trees  # noqa: E402
from monitor_support import GpuIsLost, NotSupported, TelemetryTree, gpu, monitor_nvml  # noqa: E402

STAT_LINES = ["cpu  1 2", "cpu", "cpu0", "cpu0 1 2 3", "cpu  a b c d", "cpu9999999999 1 2 3 4",
              "cpuX 1 2 3 4 5", "cpu0 -5 -5 -5 -5", "cpu " + " ".join(["9" * 60] * 10), "ctxt", "ctxt -1",
              "ctxt 99999999999999999999999999999", "cpu0 1 2 3 4 5 6 7 8 9 10 11"]
NUMBERS = ["1e999", "-1e999", "nan", "inf", "-inf", "9" * 64, "-" + "9" * 63, "0x10", "", "\x00", "1.5.5",
           "18446744073709551616", "-1", "3.4028235e38"]
HOT = ["proc/loadavg", "sys/class/hwmon/hwmon0/temp1_input", "sys/class/hwmon/hwmon0/temp1_max",
       "sys/class/hwmon/hwmon1/fan1_input", "sys/class/powercap/intel-rapl:0/energy_uj",
       "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
       "sys/devices/pci0000:00/0000:03:00.0/gpu_busy_percent", "sys/devices/pci0000:00/0000:03:00.0/pp_dpm_sclk",
       "sys/devices/pci0000:00/0000:03:00.0/hwmon/hwmon5/power1_average",
       "sys/devices/pci0000:00/0000:00:0b.0/npu_busy_time_us", "proc/meminfo",
       "sys/devices/system/node/node0/meminfo",
       "sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/load"]


def monitor_mutations(tree: TelemetryTree, rng: random.Random) -> list[str]:
    done = []
    root = Path(tree.root)
    for _ in range(rng.randint(0, 3)):
        kind = rng.choice(("stat", "number", "loadavg", "fdinfo", "fifo_hot"))
        try:
            if kind == "stat":
                lines = (root / "proc/stat").read_text(errors="replace").splitlines() if \
                    (root / "proc/stat").is_file() else []
                lines.insert(rng.randint(0, len(lines)), rng.choice(STAT_LINES))
                if lines and rng.random() < 0.3:
                    lines[rng.randrange(len(lines))] = rng.choice(STAT_LINES)
                fuzz_trees._replace(root / "proc/stat")
                (root / "proc/stat").write_text("\n".join(lines) + "\n")
            elif kind in ("number", "loadavg"):
                rel = "proc/loadavg" if kind == "loadavg" else rng.choice(HOT)
                value = " ".join(rng.choice(NUMBERS) for _ in range(3)) if kind == "loadavg" else rng.choice(NUMBERS)
                fuzz_trees._replace(root / rel)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(value + "\n")
            elif kind == "fdinfo":
                rel = "proc/4242/fdinfo/5"
                fuzz_trees._replace(root / rel)
                (root / rel).write_text("drm-driver:\ti915\ndrm-pdev:\t0000:04:00.0\ndrm-client-id:\t17\n"
                                        f"drm-engine-render:\t{rng.choice(NUMBERS)} ns\n"
                                        f"drm-engine-capacity-render:\t{rng.choice(['0', '-1', '9' * 40])}\n"
                                        f"drm-memory-local:\t{rng.choice(NUMBERS)} KiB\n"
                                        f"drm-cycles-rcs:\t{rng.choice(NUMBERS)}\n"
                                        f"drm-total-cycles-rcs:\t{rng.choice(NUMBERS)}\n")
            elif kind == "fifo_hot":
                rel = rng.choice(HOT + ["proc/stat"])
                fuzz_trees._replace(root / rel)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                os.mkfifo(root / rel)
            done.append(f"monitor_{kind}")
        except OSError as exc:
            done.append(f"monitor_{kind}:failed:{exc.strerror}")
    return done


def _unfifo(root: str) -> None:
    import stat

    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            try:
                if stat.S_ISFIFO(os.lstat(path).st_mode):
                    os.unlink(path)
            except OSError:
                pass


def one_round(scratch: Path, rng: random.Random, samples: int, deadline_s: float) -> dict:
    from prometheus_client import CollectorRegistry, generate_latest

    from accelgui import monitor_cli
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler

    tree = TelemetryTree(scratch / "root", cpus=rng.choice([1, 2, 4, 8]))
    secret = scratch / "secret"
    secret.write_text(fuzz_trees.SECRET + "\n")
    gpus = [gpu(i) for i in range(rng.randint(0, 2))]
    nv = monitor_nvml(gpus)
    sampler = Sampler(ProbeContext(tree.root), nvml=nv, deadline_s=deadline_s)
    collector = monitor_cli.MonitorCollector()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    problems, mutations, slowest = [], [], 0.0
    try:
        for _ in range(samples):
            try:
                if rng.random() < 0.7:
                    _unfifo(tree.root)          # writing into a FIFO would block the fuzzer itself
                    tree.advance(rng.choice([0.5, 1.0, 2.0]), busy=rng.random())
            except OSError:
                pass                            # a mutation put a folder or a FIFO where it writes
            mutations += fuzz_trees.mutate(Path(tree.root), secret, rng) if rng.random() < 0.5 else []
            mutations += monitor_mutations(tree, rng)
            nv.failing = {name: rng.choice([GpuIsLost, NotSupported])
                          for name in rng.sample(["nvmlDeviceGetCount", "nvmlDeviceGetTemperature",
                                                  "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetPowerUsage"],
                                                 rng.randint(0, 2))}
            began = time.monotonic()
            try:
                sample = sampler.sample()
                text = json.dumps(sample, allow_nan=False)
                json.loads(text)
                monitor_cli.render_table(sample)
                collector.sample = sample
                generate_latest(registry)
            except Exception:  # noqa: BLE001 - the finding
                problems.append(traceback.format_exc(limit=6))
                break
            took = time.monotonic() - began
            slowest = max(slowest, took)
            if took > 2 * deadline_s + 1:
                problems.append(f"a sample took {took:.1f} s (deadline {deadline_s} s per source)")
            if fuzz_trees.SECRET in text:
                problems.append("the planted secret reached a sample")
    finally:
        sampler.close()
    return {"problems": problems, "mutations": mutations, "slowest_s": slowest}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10000)
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=8, help="samples per round")
    ap.add_argument("--timeout", type=float, default=2.0, help="deadline of one source in one sample")
    ap.add_argument("--keep", default=None, help="ignored (the trees are rebuilt from the seed)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    stop = time.monotonic() + args.minutes * 60
    rounds = failures = samples = 0
    slowest = 0.0
    kinds: dict[str, int] = {}
    failed = []
    while rounds < args.rounds and time.monotonic() < stop:
        scratch = Path(tempfile.mkdtemp(prefix="accelgui-fuzz-monitor-"))
        try:
            result = one_round(scratch, rng, args.samples, args.timeout)
        finally:
            fuzz_trees._writable(scratch)
            shutil.rmtree(scratch, ignore_errors=True)
        rounds += 1
        samples += args.samples
        slowest = max(slowest, result["slowest_s"])
        for m in result["mutations"]:
            kinds[m.split(":", 1)[0]] = kinds.get(m.split(":", 1)[0], 0) + 1
        if result["problems"]:
            failures += 1
            entry = {"round": rounds, "problems": result["problems"], "mutations": result["mutations"][-12:]}
            failed.append(entry)
            sys.stderr.write(json.dumps(entry, indent=1) + "\n")
    print(json.dumps({"rounds": rounds, "samples": samples, "failures": failures, "seed": args.seed,
                      "slowest_sample_s": round(slowest, 3), "mutations": dict(sorted(kinds.items())),
                      "first_failures": failed[:5]}, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
