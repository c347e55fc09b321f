"""Published figures of reference CPUs and GPUs (knowledge/reference_machines.json), checked
when read, and this machine's measured figures set beside them.

Each row of the file: ``id``, ``kind`` ("cpu" | "gpu"), ``name``, at least one figure
(``triad_gbps`` for a CPU system's STREAM triad; ``memory_gbps``, ``fp32_gflops``,
``fp64_gflops`` for a GPU's specification peaks), ``figure`` (how it was obtained:
"measured", "vendor-measured", "specification"), ``note`` {en, zh}, ``source`` (an https URL),
``as_of`` (the source's own date: YYYY, YYYY-MM or YYYY-MM-DD) and ``review_by`` (YYYY-MM-DD).
A row off this shape raises :class:`ReferenceError` naming the row and field: the file is data
of this package, so a bad row is a bug caught by the tests, never shown.

Qt-free and Numba-free.
"""

from __future__ import annotations

import re

from accelgui import benchmarks as bench

FILE = "reference_machines.json"
KINDS = ("cpu", "gpu")
FIGURE_KINDS = ("measured", "vendor-measured", "specification")
FIGURES = {"cpu": ("triad_gbps",), "gpu": ("memory_gbps", "fp32_gflops", "fp64_gflops")}
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# (this machine's figure: dotted path, {} per GPU index; the reference row's field; unit)
COMPARED = {"cpu": (("cpu.stream.triad_gbps", "triad_gbps", "GB/s"),),
            "gpu": (("gpu.{}.triad_gbps", "memory_gbps", "GB/s"),
                    ("gpu.{}.fp32_gflops", "fp32_gflops", "GFLOP/s"))}


class ReferenceError(ValueError):
    """A row of reference_machines.json off its shape."""


def _check_row(i: int, row) -> dict:
    where = f"{FILE} machines[{i}]"
    if not isinstance(row, dict):
        raise ReferenceError(f"{where}: expected an object")
    for key in ("id", "name", "source", "as_of", "review_by", "figure"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ReferenceError(f"{where}.{key}: a non-empty string is required")
    if row.get("kind") not in KINDS:
        raise ReferenceError(f"{where}.kind: one of {', '.join(KINDS)}")
    if row["figure"] not in FIGURE_KINDS:
        raise ReferenceError(f"{where}.figure: one of {', '.join(FIGURE_KINDS)}")
    if not row["source"].startswith("https://"):
        raise ReferenceError(f"{where}.source: an https URL")
    if not _DATE.match(row["as_of"]) or not _DAY.match(row["review_by"]):
        raise ReferenceError(f"{where}: as_of YYYY[-MM[-DD]], review_by YYYY-MM-DD")
    figures = [k for k in FIGURES[row["kind"]] if k in row]
    if not figures:
        raise ReferenceError(f"{where}: no figure ({', '.join(FIGURES[row['kind']])})")
    for k in figures:
        value = row[k]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
                or value == float("inf"):
            raise ReferenceError(f"{where}.{k}: a positive number")
    note = row.get("note")
    if note is not None and not (isinstance(note, dict) and isinstance(note.get("en"), str)):
        raise ReferenceError(f"{where}.note: {{en, zh}} texts")
    return row


def machines(data: dict | None = None) -> list[dict]:
    """The checked rows (of ``data``, the parsed file, when given)."""
    if data is None:
        from accelgui.data import json_file

        data = json_file("accelgui.knowledge", FILE)
    rows = data.get("machines") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ReferenceError(f"{FILE}: expected a non-empty list 'machines'")
    checked = [_check_row(i, r) for i, r in enumerate(rows)]
    ids = [r["id"] for r in checked]
    if len(set(ids)) != len(ids):
        raise ReferenceError(f"{FILE}: duplicate ids")
    return checked


def comparison(benchmarks_or_report, rows: list[dict] | None = None) -> list[dict]:
    """This machine's figures beside the published ones: one entry per (reference row, figure)
    this run measured too: {reference (the row), field, unit, reference_value, value (this
    run's median, ``bench.quantity``), share (value / reference_value)}. CPU rows are compared with
    the CPU's STREAM triad, GPU rows with the first measured GPU."""
    b = bench.read(benchmarks_or_report) or {}
    gpus = [e for e in bench.gpu_devices(b) if not e.get("error")]
    out = []
    for row in rows if rows is not None else machines():
        for path, field, unit in COMPARED[row["kind"]]:
            if field not in row or (row["kind"] == "gpu" and not gpus):
                continue
            q = bench.quantity(b, path.format(gpus[0].get("index")) if row["kind"] == "gpu" else path)
            if q:
                out.append({"reference": row, "field": field, "unit": unit,
                            "reference_value": row[field], "value": q["value"],
                            "share": q["value"] / row[field]})
    return out
