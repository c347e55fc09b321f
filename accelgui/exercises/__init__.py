"""Exercises graded on this machine (``accelgui --exercise STEP``, then ``accelgui --verify STEP``).

Each exercise is a folder ``accelgui/exercises/<id>/``:

- ``manifest.json``: the ``step`` it belongs to, ``title`` (en/zh), the learner's ``files``,
  ``packages`` (Python distributions) and ``tools`` (executables) it needs, optional
  ``hardware`` (the filter of a step check: ``{"kind": "gpu", "vendor": "nvidia"}``),
  ``timeout_s`` and ``targets`` (below);
- ``starter/``: the files the learner edits (code with TODOs that raise NotImplementedError or
  return nothing useful: an untouched starter never passes);
- ``README.en.md`` / ``README.zh.md``: the task, in the language asked for;
- ``grade.py``: ``grade(g)``, run by ``_runner.py`` in the contained runner of accelgui.verify
  (timeout, bounded output, reduced environment, no network). It imports the learner's code,
  checks it on fresh random inputs (a new seed each run), times it itself and records figures;
  its verdict goes to a result file, never through the learner's output.

A target is ``{"figure": name, "min"|"max": number, "what": {en, zh}, "unit": str}``, with
optional ``"relative_to"``: a figure of this machine (:func:`machine_figures`: the report's
benchmark, else the last one kept in the benchmark history, else the device's specification),
and ``"baseline"``: the grader's own measurement used when this machine has no such figure yet
(said so in the result). The learner's workspace (default ``<data dir>/exercises/<id>``) is
never overwritten once edited: :func:`write_starter` refuses, or with ``force`` keeps a backup.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone

from accelgui.l10n import msg

__all__ = ["WorkspaceEditedError", "manifests", "for_step", "default_workspace", "write_starter",
           "grade", "verify_step", "machine_figures", "workspace_state"]

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "_runner.py")
MARKER = ".accelgui-exercise.json"
DEFAULT_TIMEOUT_S = 120.0
_cache: dict = {}


class WorkspaceEditedError(Exception):
    """The workspace holds files the learner changed; ``edited`` names them."""

    def __init__(self, workspace: str, edited: list[str]):
        super().__init__(workspace)
        self.workspace, self.edited = workspace, edited


def manifests() -> dict[str, dict]:
    """{exercise id: manifest (with ``dir``)} of every shipped exercise, read once."""
    if "all" not in _cache:
        found = {}
        for name in sorted(os.listdir(HERE)):
            path = os.path.join(HERE, name, "manifest.json")
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                data["dir"] = os.path.dirname(path)
                found[data["id"]] = data
        _cache["all"] = found
    return _cache["all"]


def for_step(step_id: str) -> dict | None:
    """The exercise of learning step ``step_id``, or None."""
    return next((m for m in manifests().values() if m["step"] == step_id), None)


def default_workspace(manifest: dict) -> str:
    from accelgui.progress import data_dir

    return os.path.join(data_dir(), "exercises", manifest["id"])


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _starter_files(manifest: dict, lang: str) -> dict[str, bytes]:
    """{file name in the workspace: content} of a fresh starter in ``lang``."""
    out = {}
    for name in manifest["files"]:
        with open(os.path.join(manifest["dir"], "starter", name), "rb") as fh:
            out[name] = fh.read()
    readme = os.path.join(manifest["dir"], f"README.{'zh' if lang == 'zh' else 'en'}.md")
    with open(readme, "rb") as fh:
        out["README.md"] = fh.read()
    return out


def _grader_copies(manifest: dict) -> dict[str, bytes]:
    """The grader, copied into the workspace so that ``python check.py`` runs it locally
    (accelgui --verify always runs the shipped copy)."""
    out = {}
    for src, dst in ((os.path.join(manifest["dir"], "grade.py"), ".grader/grade.py"),
                     (RUNNER, ".grader/runner.py")):
        with open(src, "rb") as fh:
            out[dst] = fh.read()
    packages = json.dumps(manifest.get("packages") or [])
    out["check.py"] = (
        '"""Grade this exercise here, as accelgui --verify does (figures only, no targets)."""\n'
        "import json, os, random, subprocess, sys, tempfile\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "with tempfile.TemporaryDirectory() as tmp:\n"
        "    result = os.path.join(tmp, 'result.json')\n"
        "    subprocess.run([sys.executable, os.path.join(here, '.grader', 'runner.py'),\n"
        "                    os.path.join(here, '.grader', 'grade.py'), here, result,\n"
        f"                    str(random.randrange(1 << 30)), {packages!r}], cwd=tmp)\n"
        "    print(json.dumps(json.load(open(result)), indent=2))\n").encode()
    return out


def workspace_state(manifest: dict, workspace: str) -> dict:
    """{"exists", "edited": [files changed since the starter], "untouched": bool}."""
    marker = _read_marker(workspace)
    if not os.path.isdir(workspace):
        return {"exists": False, "edited": [], "untouched": False}
    written = (marker or {}).get("files") or {}
    edited, untouched = [], True
    for name in manifest["files"] + ["README.md"]:
        path = os.path.join(workspace, name)
        if not os.path.isfile(path):
            if name != "README.md":
                untouched = False
            continue
        with open(path, "rb") as fh:
            digest = _digest(fh.read())
        if digest != written.get(name):
            edited.append(name)
            if name != "README.md":
                untouched = False
    return {"exists": True, "edited": edited, "untouched": untouched and bool(written)}


def _read_marker(workspace: str) -> dict | None:
    try:
        with open(os.path.join(workspace, MARKER), encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def write_starter(step_id: str, workspace: str | None = None, lang: str = "en",
                  force: bool = False) -> dict:
    """Write the exercise of ``step_id`` into ``workspace``; {"workspace", "files", "backup"}.
    KeyError when the step has no exercise; WorkspaceEditedError when the learner changed files
    there (``force``: they are moved to ``.backup-<time>/`` first, never deleted)."""
    from accelgui.atomic import write_atomic

    manifest = for_step(step_id)
    if manifest is None:
        raise KeyError(step_id)
    workspace = os.path.abspath(os.path.expanduser(workspace or default_workspace(manifest)))
    files = _starter_files(manifest, lang)
    edited = [n for n in workspace_state(manifest, workspace)["edited"]
              if not _same(os.path.join(workspace, n), files[n])]
    if not _read_marker(workspace) and os.path.isdir(workspace):     # someone else's folder
        edited = [n for n in files if os.path.exists(os.path.join(workspace, n))
                  and not _same(os.path.join(workspace, n), files[n])]
    backup = None
    if edited and not force:
        raise WorkspaceEditedError(workspace, edited)
    os.makedirs(os.path.join(workspace, ".grader"), exist_ok=True)
    if edited:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        backup = os.path.join(workspace, f".backup-{stamp}")
        os.makedirs(backup, exist_ok=True)
        for name in edited:
            shutil.copy2(os.path.join(workspace, name), os.path.join(backup, name))
    for name, data in {**files, **_grader_copies(manifest)}.items():
        write_atomic(os.path.join(workspace, name), data)
    marker = {"exercise": manifest["id"], "step": step_id, "lang": lang,
              "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "files": {n: _digest(d) for n, d in files.items()}}
    write_atomic(os.path.join(workspace, MARKER), json.dumps(marker, indent=2) + "\n")
    return {"workspace": workspace, "files": sorted(files), "backup": backup,
            "exercise": manifest["id"]}


def _same(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read() == data
    except OSError:
        return False


# -- this machine's figures ---------------------------------------------------------------------

def _dig(data, dotted: str):
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data if isinstance(data, (int, float)) and not isinstance(data, bool) and data > 0 else None


def _benchmarks(report: dict | None) -> tuple[dict | None, str | None]:
    """The report's benchmark section, else the newest one in the benchmark history (when
    that module is present), with the date it was measured."""
    bench = (report or {}).get("benchmarks")
    if isinstance(bench, dict) and bench:
        return bench, str(bench.get("date") or (report or {}).get("generated_at") or "")[:10] or None
    try:
        from accelgui import history

        stored = history.latest(history.machine_key(report or {}))
    except Exception:  # noqa: BLE001 - no history (yet), or an unreadable one: no figure
        return None, None
    if isinstance(stored, dict):
        return stored, str(stored.get("date") or stored.get("when") or "")[:10] or None
    return None, None


def machine_figures(report: dict | None) -> dict[str, dict]:
    """{figure key: {"value", "source"}}: this machine's measured STREAM triad
    (``cpu.stream.triad_gbps``), each GPU's measured triad (``gpu.N.triad_gbps``) and the
    first NVIDIA/AMD GPU's bandwidth (``gpu.bandwidth_gbps``: measured, else specification)."""
    out: dict[str, dict] = {}
    bench, date = _benchmarks(report)
    if bench:
        value = _dig(bench, "cpu.stream.triad_gbps")
        if value:
            out["cpu.stream.triad_gbps"] = {"value": value, "source": "benchmark", "date": date}
        for index, section in ((bench.get("gpu") or {}).items() if isinstance(bench.get("gpu"), dict) else []):
            value = _dig(section, "triad_gbps")
            if value:
                out[f"gpu.{index}.triad_gbps"] = {"value": value, "source": "benchmark", "date": date}
    if "gpu.0.triad_gbps" in out:
        out["gpu.bandwidth_gbps"] = out["gpu.0.triad_gbps"]
    else:
        for dev in (report or {}).get("devices") or []:
            if isinstance(dev, dict) and dev.get("kind") == "gpu" and _dig(dev, "memory_bandwidth_gbps"):
                out["gpu.bandwidth_gbps"] = {"value": dev["memory_bandwidth_gbps"], "source": "specification",
                                             "date": None}
                break
    return out


# -- grading --------------------------------------------------------------------------------------

def _result(status: str, reason, **extra) -> dict:
    out = {"status": status, "reason_msg": reason, "proves": "work",
           "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out.update(extra)
    return out


def _fmt(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1000 else f"{value:.0f}"


def _judge(target: dict, figures: dict, machine: dict) -> dict:
    """One target against the grader's figures and this machine's: {"met", "msg", ...}."""
    value = figures.get(target["figure"])
    what = target.get("what") or {"en": target["figure"]}
    unit = target.get("unit", "")
    if value is None:
        return {"figure": target["figure"], "met": False, "msg": msg("exercises.target.missing", what=what)}
    ref_key = target.get("relative_to")
    if not ref_key:
        bound = target.get("min", target.get("max"))
        met = value >= target["min"] if "min" in target else value <= target["max"]
        kind = "min" if "min" in target else "max"
        return {"figure": target["figure"], "value": value, "target": bound, "met": met,
                "msg": msg(f"exercises.target.{kind}", what=what, value=_fmt(value), unit=unit,
                           target=_fmt(bound))}
    ref = machine.get(ref_key)
    if ref:
        ref_value, ref_msg = ref["value"], msg(f"exercises.ref.{ref['source']}", value=_fmt(ref["value"]),
                                               unit=unit, date=ref.get("date") or "?")
    elif target.get("baseline") and figures.get(target["baseline"]):
        ref_value = figures[target["baseline"]]
        ref_msg = msg("exercises.ref.grader" if ref_key.startswith(("cpu.", "gpu.")) else "exercises.ref.measured",
                      value=_fmt(ref_value), unit=unit, how=target.get("baseline_what") or {"en": target["baseline"]})
    else:
        return {"figure": target["figure"], "value": value, "met": False,
                "msg": msg("exercises.target.no_reference", what=what)}
    ratio = value / ref_value
    met = ratio >= target["min"] if "min" in target else ratio <= target["max"]
    bound = target.get("min", target.get("max"))
    return {"figure": target["figure"], "value": value, "reference": ref_value, "ratio": round(ratio, 4),
            "target": bound, "met": met, "reference_source": ref["source"] if ref else "grader",
            "msg": msg("exercises.target.ratio" if "min" in target else "exercises.target.ratio_max",
                       what=what, value=_fmt(value), unit=unit, pct=f"{100 * ratio:.0f}", ref=ref_msg,
                       target=f"{100 * bound:.0f}")}


def _learner_digest(manifest: dict, workspace: str) -> str:
    h = hashlib.sha256()
    for name in manifest["files"]:
        try:
            with open(os.path.join(workspace, name), "rb") as fh:
                h.update(name.encode() + b"\0" + fh.read() + b"\0")
        except OSError:
            h.update(name.encode() + b"\0-\0")
    return h.hexdigest()[:16]


def _machine_key(report: dict | None) -> str | None:
    try:
        from accelgui import history

        return history.machine_key(report or {})
    except Exception:  # noqa: BLE001 - the history module is optional here
        return None


def _preflight(manifest: dict, workspace: str, report: dict | None, skip_untouched: bool) -> dict | None:
    """The result that makes running the grader pointless (no workspace, hardware or a tool
    missing, the starter untouched), or None."""
    from accelgui import verify

    if not os.path.isdir(workspace):
        return _result("no-workspace", msg("exercises.no_workspace", step=manifest["step"], path=workspace))
    missing = verify.hardware_missing(manifest, report)
    if missing is not None:
        return _result("needs-hardware", msg("knowledge.verify.needs_hardware", hardware=", ".join(
            f"{k}={'/'.join(map(str, v if isinstance(v, list) else [v]))}" for k, v in missing.items())),
            hardware=missing)
    absent = [t for t in manifest.get("tools") or [] if not shutil.which(t)]
    if absent:
        return _result("needs-software", msg("knowledge.verify.no_tool", tool=", ".join(absent)))
    if not skip_untouched and workspace_state(manifest, workspace)["untouched"]:
        return _result("failed", msg("exercises.untouched", files=", ".join(manifest["files"])))
    return None


def grade(step_id: str, workspace: str | None = None, python: str | None = None,
          timeout_s: float | None = None, report: dict | None = None,
          check_untouched: bool = True) -> dict:
    """Grade the learner's work on ``step_id``'s exercise; a result in accelgui.verify's shape
    (``status`` "done" when every check and target passed, else "failed", "timeout",
    "needs-hardware", "needs-software", "no-workspace" or "error") with ``proves: "work"``,
    ``checks``, ``figures``, ``targets``, ``versions``, ``machine_key``, ``workspace``."""
    from accelgui import verify

    manifest = for_step(step_id)
    if manifest is None:
        raise KeyError(step_id)
    workspace = os.path.abspath(os.path.expanduser(workspace or default_workspace(manifest)))
    common = {"exercise": manifest["id"], "workspace": workspace}
    early = _preflight(manifest, workspace, report, not check_untouched)
    if early is not None:
        return dict(early, **common)
    interpreter = python or sys.executable
    limit = float(timeout_s or manifest.get("timeout_s") or DEFAULT_TIMEOUT_S)
    started = time.monotonic()
    nonce = secrets.token_hex(16)       # the runner's own result carries it; one the learner's code wrote does not
    with tempfile.TemporaryDirectory(prefix="accelgui-exercise-") as tmp:
        result_path = os.path.join(tmp, "result.json")
        argv = [interpreter, RUNNER, os.path.join(manifest["dir"], "grade.py"), workspace, result_path,
                str(secrets.randbelow(1 << 30)), json.dumps(manifest.get("packages") or []), nonce]
        try:
            returncode, output, isolated = verify.run_program(argv, tmp, limit, interpreter)
        except OSError as exc:
            return _result("error", msg("knowledge.verify.cannot_run", error=str(exc)), **common)
        try:
            with open(result_path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            doc = None
    common.update(duration_s=round(time.monotonic() - started, 3), network_isolated=isolated,
                  excerpt=verify.excerpt(output), machine_key=_machine_key(report),
                  work_digest=_learner_digest(manifest, workspace))
    if returncode is None:
        return _result("timeout", msg("knowledge.verify.timeout", seconds=f"{limit:g}"), **common)
    if not isinstance(doc, dict) or doc.get("nonce") != nonce:
        return _result("error", msg("exercises.no_result", code=returncode), **common)
    common.update(versions=doc.get("versions") or {}, checks=doc.get("checks") or [],
                  figures=doc.get("figures") or {})
    if doc.get("missing"):
        return _result("needs-software", msg("knowledge.verify.no_package", packages=", ".join(doc["missing"])),
                       **common)
    failed = [c for c in common["checks"] if not c.get("ok")]
    if failed or not common["checks"]:
        first = failed[0] if failed else {"name": "-", "detail": ""}
        return _result("failed", msg("exercises.check_failed", check=first["name"], detail=first["detail"]),
                       **common)
    targets = [_judge(t, common["figures"], machine_figures(report)) for t in manifest.get("targets") or []]
    common["targets"] = targets
    missed = [t for t in targets if not t["met"]]
    if missed:
        return _result("failed", missed[0]["msg"], **common)
    summary = targets[0]["msg"] if targets else msg("exercises.all_checks", n=len(common["checks"]))
    return _result("done", summary, **common)


def verify_step(step_id: str, kb=None, python: str | None = None, timeout_s: float | None = None,
                report: dict | None = None, record: bool = True, workspace: str | None = None) -> dict:
    """``accelgui --verify STEP`` and the app's Verify: grade the step's exercise when it has
    one and the learner's workspace exists (``proves: "work"``, status ``done`` when it passed),
    else run the step's check (accelgui.verify.verify_step: ``ready`` for an environment check).
    Evidence of a pass is stored with the progress, redacted."""
    from accelgui import verify

    manifest = for_step(step_id)
    path = os.path.abspath(os.path.expanduser(workspace or default_workspace(manifest))) if manifest else None
    if path is None or not os.path.isdir(path):
        result = verify.verify_step(step_id, kb=kb, python=python, timeout_s=timeout_s, report=report, record=record)
        if manifest and result["status"] == "no-check":    # nothing to run yet: say how to start
            result.update(_result("no-workspace", msg("exercises.no_workspace", step=step_id, path=path)),
                          exercise=manifest["id"], workspace=path)
            result.pop("check_file", None)
            result.pop("check_override", None)
        return result
    result = verify.redacted(grade(step_id, path, python=python, timeout_s=timeout_s, report=report), report,
                             fields=("excerpt", "workspace"))
    result.update(step=step_id, check_file=os.path.join(manifest["dir"], "grade.py"), check_override=False)
    if record:
        verify.keep_evidence(step_id, result, report)
    return result
