#!/usr/bin/env python3
"""``--verify`` containment, before and after side by side in one run.

"before" is accelgui/verify.py of a git ref (default HEAD), loaded from a temporary file;
"after" is this tree's. Each measurement runs in a fresh child process.

1. Memory: a check printing ``--bytes`` (default 100 MB; "before" needs ~12x that in RAM) of
   text: peak RSS of the process running it (ru_maxrss) and wall time, before and after; then
   "after" alone with ``--after-bytes`` (default 1.5 GB, the issue's case). Target: after stays
   within 10 MiB of a child that only imported the module.
2. Survivors: checks with a 1 s timeout that leave a background child, a ``setsid`` child or a
   child ignoring SIGTERM: how many of the processes they started are still alive 1 s after
   ``run_check`` returned. Target: 0.
Prints one JSON object. Usage: python tests/benchmarks/bench_verify.py [--bytes N] [--before REF]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import importlib.util, json, os, resource, sys, time
path, what, arg = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("verify_under_test", path)
verify = importlib.util.module_from_spec(spec)
spec.loader.exec_module(verify)
if hasattr(verify, "KILL_GRACE_S"):
    verify.KILL_GRACE_S = 0.5
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.monotonic()
if what == "output":
    check = {"kind": "command", "argv": ["sh", "-c", "yes 0123456789abcdef | head -c %s; echo; echo END" % arg],
             "timeout_s": 300, "expect": {"regex": "END"}}
    res = verify.run_check(check)
    print(json.dumps({"status": res["status"], "wall_s": round(time.monotonic() - t0, 2),
                      "base_rss_mib": round(base / 1024, 1),
                      "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
else:
    res = verify.run_check({"kind": "command", "argv": ["sh", "-c", arg], "timeout_s": 1})
    print(json.dumps({"status": res["status"], "wall_s": round(time.monotonic() - t0, 2)}))
"""

# the children write elsewhere (so the old code's pipe reads do not wait for them)
SCRIPTS = {
    "background": "sleep 30 > {log} 2>&1 & echo $! >> {pids}; wait",
    "setsid": "setsid sh -c 'echo $$ >> {pids}; exec sleep 30' > {log} 2>&1 & sleep 30",
    "ignores-term": "sh -c \"trap '' TERM; echo \\$\\$ >> {pids}; sleep 30; sleep 30\" > {log} 2>&1 & wait",
}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def child(module: str, what: str, arg: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", CHILD, module, what, arg], capture_output=True,
                          text=True, timeout=900, env=env, cwd=str(ROOT))
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=100_000_000)
    ap.add_argument("--after-bytes", type=int, default=1_500_000_000)
    ap.add_argument("--before", default="HEAD")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        before = Path(tmp, "verify_before.py")
        before.write_bytes(subprocess.run(["git", "show", f"{args.before}:accelgui/verify.py"], cwd=ROOT,
                                          check=True, capture_output=True).stdout)
        modules = {"before": str(before), "after": str(ROOT / "accelgui" / "verify.py")}
        out = {"bytes": args.bytes, "output": {}, "survivors": {}}
        for name, module in modules.items():
            out["output"][name] = child(module, "output", str(args.bytes))
        b, a = out["output"]["before"], out["output"]["after"]
        out["output"]["peak_rss_ratio_before_over_after"] = round(b["peak_rss_mib"] / a["peak_rss_mib"], 1)
        out["output"]["after_big"] = dict(child(modules["after"], "output", str(args.after_bytes)),
                                          bytes=args.after_bytes)
        for case, script in SCRIPTS.items():
            for name, module in modules.items():
                pids = Path(tmp, f"{case}-{name}.pids")
                pids.write_text("")
                res = child(module, "kill", script.format(pids=pids, log=Path(tmp, "log")))
                time.sleep(1.0)
                started = [int(x) for x in pids.read_text().split()]
                left = [p for p in started if alive(p)]
                for p in left:                       # clean up what "before" left behind
                    try:
                        os.kill(p, 9)
                    except OSError:
                        pass
                out["survivors"].setdefault(case, {})[name] = {
                    "status": res["status"], "wall_s": res["wall_s"], "started": len(started),
                    "alive_after": len(left)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
