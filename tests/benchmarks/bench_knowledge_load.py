"""Cost of the bigger knowledge base on the advice path: parse + index all route files and
facts.json, the files of a base revision (default: an older revision) against the
working tree, side by side in one run. Usage: python tests/benchmarks/bench_knowledge_load.py [REV]"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _files_at(rev: str | None) -> list[str]:
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "knowledge", "routes")) if n.endswith(".json"))
    paths = [f"knowledge/routes/{n}" for n in names] + ["knowledge/facts.json"]
    if rev is None:
        return [open(os.path.join(ROOT, p), encoding="utf-8").read() for p in paths]
    out = []
    for p in paths:
        proc = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{p}"], capture_output=True, text=True)
        if proc.returncode == 0:
            out.append(proc.stdout)
    return out


def _load(texts: list[str]) -> None:
    steps = {}
    for text in texts:
        data = json.loads(text)
        for step in data.get("steps", []) if isinstance(data, dict) else []:
            steps[step["id"]] = step


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else "9484759"
    base, now = _files_at(rev), _files_at(None)
    times = {"base": [], "now": []}
    for _ in range(40):                      # interleaved, so load changes hit both alike
        for key, texts in (("base", base), ("now", now)):
            t0 = time.perf_counter()
            _load(texts)
            times[key].append(time.perf_counter() - t0)
    b, n = min(times["base"]), min(times["now"])   # the least-disturbed run of each (shared CPUs)
    size_b, size_n = sum(map(len, base)), sum(map(len, now))
    print(f"base {rev}: {size_b / 1024:.0f} KiB, best {b * 1000:.2f} ms")
    print(f"now       : {size_n / 1024:.0f} KiB, best {n * 1000:.2f} ms")
    print(f"ratio now/base: {n / b:.2f} (size ratio {size_n / size_b:.2f})")


if __name__ == "__main__":
    main()
