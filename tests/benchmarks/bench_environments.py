#!/usr/bin/env python3
"""Cost of reading the user's Python environments, side by side in one run.

1. In process: software.environments() with a HOME holding ten environments (conda base and
   envs, venvs, pyenv, pip --user; ~150 dist-info folders each) against an empty HOME.
   Target: <= 20 ms added.
2. `accelgui --probe` wall time, this tree against a git ref (default: main) exported to a
   temporary folder and run by the same interpreter, interleaved, both with that HOME.
   Target: median ratio <= 1.1.
Prints one JSON object. Usage: python tests/benchmarks/bench_environments.py [--runs N] [--before REF]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILLER = [f"package{i}" for i in range(140)] + ["torch", "numpy", "jax", "onnxruntime", "openvino"]


def make_home(home: Path) -> None:
    prefixes = [home / "miniconda3", home / "miniconda3/envs/ml", home / "miniconda3/envs/cv",
                home / ".conda/envs/jax", home / ".venvs/a", home / ".venvs/b",
                home / ".virtualenvs/c", home / ".pyenv/versions/3.11.9",
                home / ".pyenv/versions/3.12.4"]
    (home / "miniconda3/conda-meta").mkdir(parents=True)
    for prefix in prefixes:
        site = prefix / "lib/python3.12/site-packages"
        site.mkdir(parents=True)
        for name in FILLER:
            (site / f"{name}-1.0.0.dist-info").mkdir()
    user = home / ".local/lib/python3.12/site-packages"           # the tenth
    user.mkdir(parents=True)
    for name in FILLER:
        (user / f"{name}-1.0.0.dist-info").mkdir()


def export(ref: str, dest: Path) -> Path:
    """The package of ``ref`` laid out for PYTHONPATH (probes/ knowledge/ resources/ inside)."""
    archive = dest / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest / "src", filter="data")
    pkg = dest / "path" / "accelgui"
    pkg.parent.mkdir()
    os.symlink(dest / "src" / "accelgui", pkg)
    for sub in ("probes", "knowledge", "resources"):
        target = dest / "src" / "accelgui" / sub
        if not target.exists():
            os.symlink(dest / "src" / sub, target)
    return dest / "path"


def wall(cmd, env) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--before", default="main")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from accelgui.probes import software
    from accelgui.probes.context import ProbeContext

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        home, empty = tmp / "home", tmp / "empty"
        make_home(home)
        empty.mkdir()
        work = tmp / "cwd"
        work.mkdir()
        os.chdir(work)
        full = ProbeContext(root="/", env={"HOME": str(home)})
        none = ProbeContext(root="/", env={"HOME": str(empty)})
        found = software.environments(full)
        t_full, t_none = [], []
        for _ in range(args.runs):
            for ctx, out in ((full, t_full), (none, t_none)):
                start = time.perf_counter()
                software.environments(ctx)
                out.append(time.perf_counter() - start)
        before_path = export(args.before, tmp)
        env = dict(os.environ, HOME=str(home))
        env_before = dict(env, PYTHONPATH=str(before_path))
        ours = [sys.executable, "-m", "accelgui", "--probe", "--format", "json"]
        wall(ours, env)
        wall(ours, env_before)
        w_ours, w_before = [], []
        for _ in range(args.runs):
            w_ours.append(wall(ours, env))
            w_before.append(wall(ours, env_before))
    added_ms = (statistics.median(t_full) - statistics.median(t_none)) * 1000
    ratio = statistics.median(w_ours) / statistics.median(w_before)
    print(json.dumps({
        "runs": args.runs,
        "environments_found": len([e for e in found if e["kind"] != "system"]),
        "environments_ms_median_ten": round(statistics.median(t_full) * 1000, 2),
        "environments_ms_median_none": round(statistics.median(t_none) * 1000, 2),
        "added_ms": round(added_ms, 2), "added_target": "<= 20 ms", "added_pass": added_ms <= 20,
        "probe_median_s": round(statistics.median(w_ours), 4),
        "probe_before_median_s": round(statistics.median(w_before), 4),
        "before": args.before,
        "ratio": round(ratio, 3), "ratio_target": "<= 1.1", "ratio_pass": ratio <= 1.1,
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
