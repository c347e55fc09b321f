"""The benchmark section of every export, read through :mod:`accelgui.benchmarks`.

Reports show a short table of headline figures (median of the repeats, unit, % of the
theoretical peak, spread of the repeats, the typical range of the machine's class) and the
notices of a disturbed or noisy run. Every raw figure goes only to the appendix of the HTML
report (the JSON report carries the whole section anyway).

The helpers the other exporters call (``gpu_entries``, ``gpu_value``, ``theory_finder``,
``theoretical_pairs``, ...) keep their names; :mod:`accelgui.export.common` re-exports them.
"""

from __future__ import annotations

from accelgui import benchmarks as B
from accelgui.export import common as C
from accelgui.l10n import msg, render, tr

# The figures the benchmark child writes per GPU (probes/kernels/gpu_kernels.py; older names are
# upgraded by accelgui.benchmarks).
GPU_TRIAD = ("triad_gbps",)
GPU_FP32 = ("fp32_gflops",)
GPU_PEAK_BW = ("memory_peak_gbps",)


def section(benchmarks_or_report) -> dict:
    """The upgraded section ({} when there is none, or it is off the contract)."""
    try:
        return B.read(benchmarks_or_report) or {}
    except B.BenchmarkError:
        return {}


def gpu_entries(benchmarks) -> list[dict]:
    """The per-device GPU benchmark dicts (each with its ``index``), in index order."""
    return B.gpu_devices(section(benchmarks))


def gpu_value(entry: dict, *names):
    for n in names:
        v = C.num(entry.get(n))
        if v is not None:
            return v
    return None


def theory_finder(benchmarks):
    """theory(key) -> (value, path): the theoretical figure for ``key`` in
    ``benchmarks.cpu.theoretical``, where the benchmark child writes them, or (None, None)."""
    b = section(benchmarks)

    def theory(key: str):
        value = B.figure(b, f"cpu.theoretical.{key}")
        return (value, f"cpu.theoretical.{key}") if value is not None else (None, None)
    return theory


def theoretical_pairs(benchmarks, lang: str = "en") -> list[tuple[str, float, float | None, str]]:
    """(label, median, theoretical peak or None, unit) for the measured-vs-theoretical chart:
    the headline figures with a GB/s or GFLOP/s unit."""
    return [(render(r["label"], lang), r["value"], r["peak"], r["unit"])
            for r in B.headline(section(benchmarks)) if r["unit"] in ("GB/s", "GFLOP/s")]


def _fmt(value, unit: str, lang: str) -> str:
    return C.fmt_num(value, 2 if unit == "ns" else 1)


def _spread_text(row: dict) -> str:
    s = row["spread"]
    if s.get("min") is None or s.get("max") is None:
        return ""
    rel = f" ({100 * s['rel']:.0f} %)" if s.get("rel") is not None else ""   # (max - min) / median
    return f"{C.fmt_num(s['min'])} – {C.fmt_num(s['max'])}{rel}"


def _reference_text(row: dict, lang: str) -> str:
    ref = row.get("reference")
    if not ref:
        return ""
    return tr("bench.reference.range", lang, low=C.fmt_num(ref["typical_low"]),
              high=C.fmt_num(ref["typical_high"]), unit=ref["unit"], klass=ref["label"])


def short_headline(report) -> list[dict]:
    """The headline rows, GPUs of one model shown once (the first of them, labelled
    "1 of N alike"): eight identical cards make four rows, not thirty-two."""
    b = section(report)
    seen: dict = {}
    for e in B.gpu_devices(b):
        seen.setdefault(e.get("name"), []).append(str(e.get("index")))
    keep = {ids[0]: len(ids) for ids in seen.values()}
    out = []
    for r in B.headline(report):
        parts = r["key"].split(".")
        if parts[0] == "gpu":
            if parts[1] not in keep:
                continue
            if keep[parts[1]] > 1:
                params = dict(r["label"].get("params") or {})
                params["index"] = msg("bench.fig.alike", index=parts[1], count=keep[parts[1]])
                r = dict(r, label=msg(r["label"]["id"], **params))
        out.append(r)
    return out


def headline_rows(report, lang: str = "en") -> list[list[str]]:
    """[figure, median, unit, % of peak, spread, reference] per headline figure."""
    rows = []
    for r in short_headline(report):
        name = render(r["label"], lang) + (" ⚠" if r["noisy"] else "")
        pct = f"{C.fmt_num(r['pct_of_peak'])} %" if r["pct_of_peak"] is not None else ""
        rows.append([C.label_text(name), _fmt(r["value"], r["unit"], lang), r["unit"], pct,
                     _spread_text(r), C.clean(_reference_text(r, lang))])
    return rows


def notice_texts(report, lang: str = "en") -> list[str]:
    try:
        return [C.clean(render(m, lang)) for m in B.notices(report)]
    except B.BenchmarkError:
        return []


def sections(report, lang: str = "en") -> list:
    """The report's benchmark tables: headline figures, then the notices (when any)."""
    b = report.benchmarks
    if not isinstance(b, dict) or not b:
        return []
    T = lambda k: tr(k, lang)  # noqa: E731
    note = None
    if b.get("error"):
        note = f"{C.label('bench_error', lang)}: {C.clean(b.get('error'))}"
    rows = headline_rows(report, lang)
    why = B.gpu_status(section(report)) if section(report) else None
    if why and not note:
        note = f"GPU: {C.clean(why)}"
    out = [C.Table("benchmarks", C.label("benchmarks", lang),
                   [T("bench.col.figure"), T("bench.col.value"), T("bench.col.unit"),
                    T("bench.col.peak"), T("bench.col.spread"), T("bench.col.reference")],
                   rows, note=note, wide_cols=[4])]
    notes = notice_texts(report, lang)
    if notes:
        out.append(C.Table("benchmarks_notices", T("bench.notices"), [T("bench.notices")],
                           [["⚠ " + n] for n in notes], level=3))
    return out


def appendix_sections(report, lang: str = "en") -> list:
    """Every raw benchmark figure (the HTML report's appendix)."""
    b = section(report)
    if not b:
        return []
    rows = [[C.clean(path), C.fmt_value(path.rsplit(".", 1)[-1], v, lang)]
            for path, v in C.numeric_leaves({k: v for k, v in b.items() if k != "spread"})]
    rows += [[C.clean(f"spread.{path}"), f"{C.fmt_num(s.get('min'))} / {C.fmt_num(s.get('median'))} / "
              f"{C.fmt_num(s.get('max'))}"] for path, s in sorted((b.get("spread") or {}).items())
             if isinstance(s, dict)]
    return [C.Table("appendix_benchmarks", tr("bench.heading.raw", lang), ["", ""], rows)]


def text_lines(report, lang: str = "en") -> list[str]:
    """The benchmark section of the plain-text report (indented lines, no heading)."""
    b = report.benchmarks
    if not isinstance(b, dict) or not b:
        return []
    out = []
    if b.get("error"):
        out.append(f"  {C.label('bench_error', lang)}: {C.clean(b.get('error'))}")
    for r in short_headline(report):
        extra = [tr("bench.ui.pct_of_peak", lang, pct=C.fmt_num(r["pct_of_peak"]))
                 if r["pct_of_peak"] is not None else "", _spread_text(r), _reference_text(r, lang)]
        name = render(r["label"], lang) + (" !" if r["noisy"] else "")
        text = "; ".join(x for x in extra if x)
        out.append(f"  {C.label_text(name)}: {_fmt(r['value'], r['unit'], lang)} {r['unit']}"
                   + (f" ({C.clean(text)})" if text else ""))
    why = B.gpu_status(section(report)) if section(report) else None
    if why:
        out.append(f"  GPU: {C.clean(why)}")
    out.extend(f"  ! {n}" for n in notice_texts(report, lang))
    return out
