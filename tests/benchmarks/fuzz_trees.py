#!/usr/bin/env python3
"""Fuzz the probes with random mutations of the recorded trees (``make fuzz``; not in make test).

Each round copies one tree of tests/fixtures/machines into a scratch folder, applies a few
random mutations (truncated files, garbage bytes, huge lines, FIFOs, symlink loops, links out
of the tree to a planted secret, unreadable files, non-UTF-8 names, folders where files were,
absurd numbers) and runs every probe on it. A round fails when the run raises, when the
report does not validate against the shipped schema, cannot be written as UTF-8 JSON, holds
the planted secret, or takes longer than twice the timeout.

Usage: python tests/benchmarks/fuzz_trees.py [--rounds N] [--minutes M] [--seed S]
                                             [--timeout T] [--keep DIR]
Prints one JSON object of figures; exit status 1 when any round failed (the failing trees
are kept under --keep, default /tmp/accelgui-fuzz-failures).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import stat
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
MACHINES = HERE.parent / "fixtures" / "machines"
SECRET = "fuzz-host-secret-7f3a9c"

MUTATIONS = ("truncate", "garbage", "huge_line", "fifo", "loop", "outside", "unreadable",
             "non_utf8", "dir_for_file", "numbers", "empty", "self_loop_dir", "nul_bytes")


def _files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            out.append(Path(dirpath) / name)
    return out


def _dirs(root: Path) -> list[Path]:
    return [Path(d) for d, _, _ in os.walk(root) if Path(d) != root]


def _replace(path: Path) -> None:
    """Remove whatever is at ``path`` (a FIFO left by an earlier mutation too: writing into
    it would block the fuzzer itself)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def mutate(root: Path, secret: Path, rng: random.Random) -> list[str]:
    """Apply 1-5 random mutations; return what was done (for the failure log)."""
    done = []
    files = _files(root)
    if not files:
        return done
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(MUTATIONS)
        path = rng.choice(files)
        rel = str(path.relative_to(root))
        try:
            if kind == "truncate" and path.is_file() and not path.is_symlink():  # never a FIFO
                data = path.read_bytes()
                path.write_bytes(data[:rng.randint(0, max(0, len(data) - 1))])
            elif kind == "garbage":
                _replace(path)
                path.write_bytes(os.urandom(rng.randint(1, 4096)))
            elif kind == "huge_line":
                _replace(path)
                unit = rng.choice([b"1", b" ", b"a", b"1.", b"0x", b"\t", b"R1", b":", b"ff,"])
                path.write_bytes(rng.choice([b"", b"MemTotal: ", b"flags\t: "]) +
                                 unit * (rng.randint(100, 300) * 1024) + b"\n")
            elif kind == "fifo":
                _replace(path)
                os.mkfifo(path)
            elif kind == "loop":
                _replace(path)
                path.symlink_to(path.name)
            elif kind == "outside":
                _replace(path)
                path.symlink_to(os.path.relpath(secret, path.parent))
            elif kind == "unreadable":
                path.chmod(0)
            elif kind == "non_utf8":
                tail = bytes(b for b in os.urandom(4) if b not in (0, 0x2f)) or b"x"
                bad = os.path.join(os.fsencode(path.parent), b"n\xff\xfe" + tail)
                os.rename(path, bad)
            elif kind == "dir_for_file":
                _replace(path)
                path.mkdir()
                (path / "x").write_text("1\n")
            elif kind == "numbers" and path.is_file() and not path.is_symlink():
                path.write_text(rng.choice(["-1", "99999999999999999999999999", "0x", "nan",
                                            "1e400", "-0", "18446744073709551616", "ffffffff" * 40,
                                            "0-99999999", "3-1"]) + "\n")
            elif kind == "empty":
                _replace(path)
                path.write_bytes(b"")
            elif kind == "self_loop_dir":
                dirs = _dirs(root)
                if dirs:
                    d = rng.choice(dirs)
                    (d / "loop").symlink_to("..")
                    rel = str((d / "loop").relative_to(root))
            elif kind == "nul_bytes" and path.is_file() and not path.is_symlink():
                data = bytearray(path.read_bytes())
                for _ in range(min(8, len(data))):
                    data[rng.randrange(len(data))] = rng.choice([0, 0x1b, 0x7f, 0x9b, 0xff])
                path.write_bytes(bytes(data))
            else:
                continue
            done.append(f"{kind}:{rel}")
        except OSError as exc:
            done.append(f"{kind}:{rel}:failed:{exc.strerror}")
    return done


def _writable(root: Path) -> None:
    """Undo chmod 0 so the scratch tree can be removed."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            try:
                if not os.path.islink(p) and stat.S_ISREG(os.lstat(p).st_mode) | stat.S_ISDIR(os.lstat(p).st_mode):
                    os.chmod(p, 0o755)
            except OSError:
                pass


def one_round(source: Path, scratch: Path, rng: random.Random, timeout_s: float, schema) -> dict:
    """One mutated tree through every probe; ``schema`` is the shipped schema (a dict) or a
    jsonschema validator made from it once."""
    import jsonschema

    from accelgui.probes import ids
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    tree = scratch / "tree"
    secret = scratch / "secret"
    secret.write_text(SECRET + "\n")
    shutil.copytree(source, tree, symlinks=True)
    mutations = mutate(tree, secret, rng)
    problems = []
    start = time.monotonic()
    try:
        report = run_probes(ProbeContext(root=str(tree)), timeout_s=timeout_s)
        elapsed = time.monotonic() - start
        text = report.to_json()
        text.encode("utf-8")
        data = json.loads(text)
        validator = schema if hasattr(schema, "iter_errors") else jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(data), key=str)
        for err in errors[:3]:
            problems.append(f"schema: {'/'.join(map(str, err.absolute_path))}: {err.message[:200]}")
        if SECRET in text:
            problems.append("the planted secret is in the report")
        if elapsed > 2 * timeout_s:
            problems.append(f"took {elapsed:.2f} s with --timeout {timeout_s}")
        statuses = [p["status"] for p in data["probes"]]
        warnings = sum(len(p.get("warnings") or []) for p in data["probes"])
    except Exception:  # noqa: BLE001 - any exception is a finding
        elapsed = time.monotonic() - start
        problems.append("exception: " + traceback.format_exc(limit=6))
        statuses, warnings = [], 0
    finally:
        with ids._lock:                # the id databases are cached per root: drop this one
            ids._files.clear()
    return {"source": source.name, "mutations": mutations, "problems": problems,
            "elapsed_s": elapsed, "statuses": statuses, "warnings": warnings, "tree": tree}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10000)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--keep", default=os.path.join(tempfile.gettempdir(), "accelgui-fuzz-failures"))
    args = ap.parse_args()
    sys.path.insert(0, str(HERE.parent.parent))
    from accelgui.report import schema

    import jsonschema

    shipped = jsonschema.Draft202012Validator(schema())
    sources = sorted(p for p in MACHINES.iterdir() if p.is_dir())
    rng = random.Random(args.seed)
    stop = time.monotonic() + args.minutes * 60
    rounds = failures = 0
    slowest = 0.0
    partial = 0
    warnings = 0
    kinds: dict[str, int] = {}
    failed: list[dict] = []
    while rounds < args.rounds and time.monotonic() < stop:
        scratch = Path(tempfile.mkdtemp(prefix="accelgui-fuzz-"))
        try:
            result = one_round(rng.choice(sources), scratch, rng, args.timeout, shipped)
            rounds += 1
            slowest = max(slowest, result["elapsed_s"])
            partial += result["statuses"].count("partial")
            warnings += result["warnings"]
            for m in result["mutations"]:
                kinds[m.split(":", 1)[0]] = kinds.get(m.split(":", 1)[0], 0) + 1
            if result["problems"]:
                failures += 1
                keep = Path(args.keep) / f"round-{rounds}"
                keep.parent.mkdir(parents=True, exist_ok=True)
                _writable(scratch)
                shutil.rmtree(keep, ignore_errors=True)
                try:                    # FIFOs cannot be copied: the rest is kept
                    shutil.copytree(result["tree"], keep, symlinks=True)
                except shutil.Error:
                    pass
                entry = {k: result[k] for k in ("source", "mutations", "problems")}
                entry["kept"] = str(keep)
                failed.append(entry)
                sys.stderr.write(json.dumps(entry, indent=1) + "\n")
        finally:
            _writable(scratch)
            shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps({"rounds": rounds, "failures": failures, "seed": args.seed,
                      "slowest_run_s": round(slowest, 3), "partial_probe_results": partial,
                      "warnings": warnings, "mutations": dict(sorted(kinds.items())),
                      "first_failures": failed[:5]}, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
