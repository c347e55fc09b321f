"""The benchmark section of every export, read through :mod:`accelgui.benchmarks`.

Reports show a short table of headline figures (median of the repeats, unit, % of the
theoretical peak, spread of the repeats, the typical range of the machine's class) and the
notices of a disturbed or noisy run. Every raw figure goes only to the appendix of the HTML
report (the JSON report carries the whole section anyway).

One statistic per quantity (``benchmarks.quantity``: the median of the repeats and their
range) for every face: :func:`roofline_data` is what each roofline draws (the app's and the
exported one), :func:`figure_groups` every figure of a run in words for the app's All figures
table (:func:`raw_rows` the raw keys behind its toggle), :func:`notice_text` a notice with its
stage names in the reader's language.

The helpers the other exporters call (``gpu_entries``, ``gpu_value``, ``theory_finder``,
``theoretical_pairs``, ...) keep their names; :mod:`accelgui.export.common` re-exports them.
"""

from __future__ import annotations

from accelgui import benchmarks as bench
from accelgui.export import common
from accelgui.l10n import msg, render, tr

# The figures the benchmark child writes per GPU (probes/kernels/gpu_kernels.py; older names are
# upgraded by accelgui.benchmarks).
GPU_TRIAD = ("triad_gbps",)
GPU_FP32 = ("fp32_gflops",)
GPU_PEAK_BW = ("memory_peak_gbps",)


def section(benchmarks_or_report) -> dict:
    """The upgraded section ({} when there is none, or it is off the contract)."""
    try:
        return bench.read(benchmarks_or_report) or {}
    except bench.BenchmarkError:
        return {}


def gpu_entries(benchmarks) -> list[dict]:
    """The per-device GPU benchmark dicts (each with its ``index``), in index order."""
    return bench.gpu_devices(section(benchmarks))


def gpu_value(entry: dict, *names):
    for n in names:
        v = common.num(entry.get(n))
        if v is not None:
            return v
    return None


def theory_finder(benchmarks):
    """theory(key) -> (value, path): the theoretical figure for ``key`` in
    ``benchmarks.cpu.theoretical``, where the benchmark child writes them, or (None, None)."""
    b = section(benchmarks)

    def theory(key: str):
        value = bench.figure(b, f"cpu.theoretical.{key}")
        return (value, f"cpu.theoretical.{key}") if value is not None else (None, None)
    return theory


def theoretical_pairs(benchmarks, lang: str = "en") -> list[tuple[str, float, float | None, str]]:
    """(label, median, theoretical peak or None, unit) for the measured-vs-theoretical chart:
    the headline figures with a GB/s or GFLOP/s unit (GPUs of one model once, as in the table)."""
    return [(render(r["label"], lang), r["value"], r["peak"], r["unit"])
            for r in short_headline(benchmarks) if r["unit"] in ("GB/s", "GFLOP/s")]


# The points of the roofline: (id, dotted path of the quantity, flops per byte or None for a
# compute-only kernel). STREAM triad a[i] = b[i] + s*c[i]: 2 flops per 24 bytes (FP64); an n x n
# DGEMM: 2n^3 flops over 3 n^2 doubles, 2n/24 flops per byte; FMA: compute only.
ROOFLINE_POINTS = (("stream_triad", "cpu.stream.triad_gbps", 2.0 / 24.0),
                   ("dgemm", "cpu.gemm.dgemm_gflops", None),
                   ("fma_fp64", "cpu.fma.fp64_gflops_mt", None))


def stat_text(q: dict | None, lang: str = "en", short: bool = False) -> str:
    """How a quantity's figure was obtained, in words: "median of 7 runs, 30.2 – 38.2", or
    with ``short`` "median of 7" (a legend)."""
    if not q:
        return ""
    end = "_short" if short else ""
    if q["statistic"] != "median":
        return tr(f"figures.stat.single{end}", lang)
    return tr(f"figures.stat.median{end}" if q.get("n") else f"figures.stat.median{end}_n_unknown", lang,
              n=q.get("n") or "", low=common.fmt_num(q["min"]), high=common.fmt_num(q["max"]))


def roofline_data(benchmarks_or_report, lang: str = "en") -> dict | None:
    """What every roofline draws, from the one statistic per quantity (``bench.quantity``):
    ``roof`` {gflops, gbps, label}: the measured roof, FP64 FMA on all cores under STREAM triad
    on all threads; ``theoretical`` {gflops, gbps, label} or None; ``gpu``: the first GPU's
    FP32 roof or None; ``points`` [{id, label, flops_per_byte (None: compute only), gflops,
    quantity, unit, value}]. None without a bandwidth and a compute figure."""
    b = section(benchmarks_or_report)
    bw, fma = bench.quantity(b, "cpu.stream.triad_gbps"), bench.quantity(b, "cpu.fma.fp64_gflops_mt")
    theo_gflops = bench.figure(b, "cpu.theoretical.fp64_gflops_mt")
    if not bw or not (fma or theo_gflops):
        return None
    n = bench.figure(b, "cpu.gemm.n")
    points = []
    for pid, path, ai in ROOFLINE_POINTS:
        q = bench.quantity(b, path)
        if not q or (pid == "dgemm" and not n):
            continue
        if pid == "dgemm":
            ai = 2.0 * n / 24.0
        unit = "GB/s" if pid == "stream_triad" else "GFLOP/s"
        gflops = q["value"] * ai if unit == "GB/s" else q["value"]
        label = tr(f"figures.point.{pid}", lang, n=int(n) if n else "")
        points.append({"id": pid, "label": label, "flops_per_byte": ai, "gflops": gflops,
                       "quantity": q, "unit": unit, "value": q["value"]})
    roof = None
    if fma:
        median = fma["statistic"] == bw["statistic"] == "median"
        roof = {"gflops": fma["value"], "gbps": bw["value"],
                "label": tr("figures.roof.measured" if median else "figures.roof.measured_single", lang,
                            gflops=common.fmt_num(fma["value"]), gbps=common.fmt_num(bw["value"]))}
    theo = None
    if theo_gflops:
        theo_gbps = bench.figure(b, "cpu.theoretical.memory_gbps") or bw["value"]
        theo = {"gflops": theo_gflops, "gbps": theo_gbps,
                "label": tr("figures.roof.theoretical", lang, gflops=common.fmt_num(theo_gflops))}
    return {"roof": roof, "theoretical": theo, "points": points, "gpu": _gpu_roof(b, lang)}


def _gpu_roof(b: dict, lang: str) -> dict | None:
    """The first measured GPU's FP32 roof (median triad and FMA), or None."""
    for e in bench.gpu_devices(b):
        idx = e.get("index")
        bw, fl = bench.quantity(b, f"gpu.{idx}.triad_gbps"), bench.quantity(b, f"gpu.{idx}.fp32_gflops")
        if bw and fl and not e.get("error"):
            return {"gflops": fl["value"], "gbps": bw["value"],
                    "label": tr("figures.roof.gpu", lang, index=idx, gflops=common.fmt_num(fl["value"]),
                                gbps=common.fmt_num(bw["value"]))}
    return None


def point_text(point: dict, lang: str = "en", short: bool = True) -> str:
    """A roofline point's legend: its name, its figure in the unit people read it in (GB/s for
    STREAM, GFLOP/s otherwise) and the statistic ("median of 7"; the range too unless
    ``short``)."""
    return tr("figures.point.legend", lang, label=point["label"], value=common.fmt_num(point["value"]),
              unit=point["unit"], stat=stat_text(point["quantity"], lang, short=short))


def _fmt(value, unit: str, lang: str) -> str:
    return common.fmt_num(value, 2 if unit == "ns" else 1)


def _spread_text(row: dict) -> str:
    s = row["spread"]
    if s.get("min") is None or s.get("max") is None:
        return ""
    rel = f" ({100 * s['rel']:.0f} %)" if s.get("rel") is not None else ""   # (max - min) / median
    return f"{common.fmt_num(s['min'])} – {common.fmt_num(s['max'])}{rel}"


def _reference_text(row: dict, lang: str) -> str:
    ref = row.get("reference")
    if not ref:
        return ""
    return tr("bench.reference.range", lang, low=common.fmt_num(ref["typical_low"]),
              high=common.fmt_num(ref["typical_high"]), unit=ref["unit"], klass=ref["label"])


def short_headline(report) -> list[dict]:
    """The headline rows, GPUs of one model shown once (the first of them, labelled
    "1 of N alike"): eight identical cards make four rows, not thirty-two."""
    b = section(report)
    seen: dict = {}
    for e in bench.gpu_devices(b):
        seen.setdefault(e.get("name"), []).append(str(e.get("index")))
    keep = {ids[0]: len(ids) for ids in seen.values()}
    out = []
    for r in bench.headline(report):
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
        pct = f"{common.fmt_num(r['pct_of_peak'])} %" if r["pct_of_peak"] is not None else ""
        rows.append([common.label_text(name), _fmt(r["value"], r["unit"], lang), r["unit"], pct,
                     _spread_text(r), common.clean(_reference_text(r, lang))])
    return rows


def notice_texts(report, lang: str = "en") -> list[str]:
    try:
        return [common.clean(notice_text(m, lang)) for m in bench.notices(report)]
    except bench.BenchmarkError:
        return []


def sections(report, lang: str = "en") -> list:
    """The report's benchmark tables: headline figures, then the notices (when any)."""
    b = report.benchmarks
    if not isinstance(b, dict) or not b:
        return []
    T = lambda k: tr(k, lang)  # noqa: E731
    note = None
    if b.get("error"):
        note = f"{common.label('bench_error', lang)}: {common.clean(b.get('error'))}"
    rows = headline_rows(report, lang)
    why = bench.gpu_status(section(report)) if section(report) else None
    if why and not note:
        note = f"GPU: {common.clean(why)}"
    out = [common.Table("benchmarks", common.label("benchmarks", lang),
                   [T("bench.col.figure"), T("bench.col.value"), T("bench.col.unit"),
                    T("bench.col.peak"), T("bench.col.spread"), T("bench.col.reference")],
                   rows, note=note, wide_cols=[4])]
    notes = notice_texts(report, lang)
    if notes:
        out.append(common.Table("benchmarks_notices", T("bench.notices"), [T("figures.col.notice")],
                           [["⚠ " + n] for n in notes], level=3))
    return out


def appendix_sections(report, lang: str = "en") -> list:
    """Every raw benchmark figure (the HTML report's appendix)."""
    b = section(report)
    if not b:
        return []
    rows = [[common.clean(path), common.fmt_value(path.rsplit(".", 1)[-1], v, lang)]
            for path, v in common.numeric_leaves({k: v for k, v in b.items() if k != "spread"})]
    rows += [[common.clean(f"spread.{path}"), f"{common.fmt_num(s.get('min'))} / {common.fmt_num(s.get('median'))} / "
              f"{common.fmt_num(s.get('max'))}"] for path, s in sorted((b.get("spread") or {}).items())
             if isinstance(s, dict)]
    return [common.Table("appendix_benchmarks", tr("bench.heading.raw", lang), ["", ""], rows)]


def text_lines(report, lang: str = "en") -> list[str]:
    """The benchmark section of the plain-text report (indented lines, no heading)."""
    b = report.benchmarks
    if not isinstance(b, dict) or not b:
        return []
    out = []
    if b.get("error"):
        out.append(f"  {common.label('bench_error', lang)}: {common.clean(b.get('error'))}")
    for r in short_headline(report):
        extra = [tr("bench.ui.pct_of_peak", lang, pct=common.fmt_num(r["pct_of_peak"]))
                 if r["pct_of_peak"] is not None else "", _spread_text(r), _reference_text(r, lang)]
        name = render(r["label"], lang) + (" !" if r["noisy"] else "")
        text = "; ".join(x for x in extra if x)
        out.append(f"  {common.label_text(name)}: {_fmt(r['value'], r['unit'], lang)} {r['unit']}"
                   + (f" ({common.clean(text)})" if text else ""))
    why = bench.gpu_status(section(report)) if section(report) else None
    if why:
        out.append(f"  GPU: {common.clean(why)}")
    out.extend(f"  ! {n}" for n in notice_texts(report, lang))
    return out


# --------------------------------------------------------------------------- every figure, in words

# The figures of a run, grouped, each (dotted path, catalogue id under figures.q., unit). The
# unit decides the format: "B" bytes, "" a plain count or word, "%" a share "figure/peak": the
# median of the figure over the theoretical peak (the child's own ``cpu.efficiency`` is of the best
# repeat, another statistic).
FIGURE_GROUPS = (
    ("memory", (("cpu.stream.triad_gbps", "triad_mt", "GB/s"), ("cpu.stream.copy_gbps", "copy_mt", "GB/s"),
                ("cpu.stream.scale_gbps", "scale_mt", "GB/s"), ("cpu.stream.add_gbps", "add_mt", "GB/s"),
                ("cpu.stream.single_thread.triad_gbps", "triad_1t", "GB/s"),
                ("cpu.stream.single_thread.copy_gbps", "copy_1t", "GB/s"),
                ("cpu.stream.array_bytes", "stream_array", "B"), ("cpu.stream.threads", "threads", ""))),
    ("compute", (("cpu.fma.fp64_gflops_mt", "fp64_mt", "GFLOP/s"), ("cpu.fma.fp64_gflops_1t", "fp64_1t", "GFLOP/s"),
                 ("cpu.fma.fp32_gflops_mt", "fp32_mt", "GFLOP/s"), ("cpu.fma.fp32_gflops_1t", "fp32_1t", "GFLOP/s"),
                 ("cpu.fma.fp64_gflops_mt/cpu.theoretical.fp64_gflops_mt", "eff_fp64_mt", "%"),
                 ("cpu.fma.fp64_gflops_1t/cpu.theoretical.fp64_gflops_1t", "eff_fp64_1t", "%"),
                 ("cpu.fma.accumulators", "accumulators", ""), ("cpu.fma.vector_bits", "vector_bits", "bit"))),
    ("gemm", (("cpu.gemm.dgemm_gflops", "dgemm", "GFLOP/s"), ("cpu.gemm.sgemm_gflops", "sgemm", "GFLOP/s"),
              ("cpu.gemm.dgemm_gflops/cpu.theoretical.fp64_gflops_mt", "eff_dgemm", "%"), ("cpu.gemm.n", "gemm_n", ""),
              ("cpu.gemm.blas.internal_api", "blas", ""))),
    ("latency", (("cpu.latency_ns.l1", "lat_l1", "ns"), ("cpu.latency_ns.l2", "lat_l2", "ns"),
                 ("cpu.latency_ns.l3", "lat_l3", "ns"), ("cpu.latency_ns.dram", "lat_dram", "ns"))),
    ("caches", (("cpu.caches.l1d_bytes", "l1d", "B"), ("cpu.caches.l2_bytes", "l2", "B"),
                ("cpu.caches.l3_bytes", "l3", "B"))),
    ("clock", (("cpu.clock.measured_mhz_1t", "clock_1t", "MHz"), ("cpu.clock.measured_mhz_mt", "clock_mt", "MHz"),
               ("cpu.clock.cpuinfo_mhz", "clock_os", "MHz"),
               ("cpu.theoretical.fp64_gflops_mt", "peak_fp64_mt", "GFLOP/s"),
               ("cpu.theoretical.fp64_gflops_1t", "peak_fp64_1t", "GFLOP/s"),
               ("cpu.theoretical.fp32_gflops_mt", "peak_fp32_mt", "GFLOP/s"),
               ("cpu.theoretical.fma_pipes", "fma_pipes", ""), ("cpu.theoretical.uarch", "uarch", ""))),
    ("run", (("mode", "mode", ""), ("measure_s", "measure_s", "s"), ("elapsed_s", "elapsed_s", "s"),
             ("memory_cap_bytes", "memory_cap", "B"), ("environment.numba_version", "numba", ""),
             ("environment.threading_layer", "threading_layer", ""))),
)
GPU_FIGURES = (("triad_gbps", "gpu_triad", "GB/s"), ("memory_peak_gbps", "gpu_peak_bw", "GB/s"),
               ("fp32_gflops", "gpu_fp32", "GFLOP/s"), ("fp32_peak_gflops", "gpu_peak_fp32", "GFLOP/s"),
               ("h2d_gbps", "gpu_h2d", "GB/s"), ("d2h_gbps", "gpu_d2h", "GB/s"))


def _leaf(b: dict, path: str):
    obj = b
    for part in path.split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def _value_text(value, unit: str, lang: str) -> str:
    if isinstance(value, str):
        return common.clean(tr(f"figures.mode.{value}", lang) if value in ("quick", "full") else value)
    if unit == "B":
        return common.fmt_bytes(value, lang)
    if unit == "%":
        return f"{common.fmt_num(100.0 * value)} %"
    return f"{common.fmt_num(value)} {unit}".strip()


def _share_row(b: dict, path: str, name: str, lang: str) -> dict | None:
    """A share of the peak: the median figure over the theoretical peak, with its range."""
    fig_path, peak_path = path.split("/")
    q, peak = bench.quantity(b, fig_path), bench.figure(b, peak_path)
    if not q or not peak:
        return None
    repeats = q["statistic"] == "median"
    return {"key": path, "quantity": name, "value": _value_text(q["value"] / peak, "%", lang),
            "range": f"{_value_text(q['min'] / peak, '%', lang)} – {_value_text(q['max'] / peak, '%', lang)}"
            if repeats else "", "runs": str(q["n"]) if repeats and q.get("n") else ""}


def _figure_row(b: dict, path: str, name: str, unit: str, lang: str) -> dict | None:
    """One row: quantity, value (the median where repeats were kept), range, repeats."""
    if unit == "%":
        return _share_row(b, path, name, lang)
    value = _leaf(b, path)
    if isinstance(value, bool) or not (isinstance(value, str) and value or common.num(value) is not None):
        return None
    q = bench.quantity(b, path) if not isinstance(value, str) else None
    repeats = bool(q and q["statistic"] == "median")
    shown = q["value"] if q else value
    return {"key": path, "quantity": name, "value": _value_text(shown, unit, lang),
            "range": f"{_value_text(q['min'], unit, lang)} – {_value_text(q['max'], unit, lang)}"
            if repeats else "",
            "runs": str(q["n"]) if repeats and q.get("n") else ""}


def _cache_sweep_row(b: dict, lang: str) -> dict | None:
    points = [p for p in _leaf(b, "cpu.cache_sweep") or [] if isinstance(p, dict)
              and common.num(p.get("bytes")) and common.num(p.get("gbps")) is not None]
    if not points:
        return None
    sizes = sorted(p["bytes"] for p in points)
    best = max(p["gbps"] for p in points)
    return {"key": "cpu.cache_sweep", "quantity": tr("figures.q.sweep", lang),
            "value": tr("figures.v.sweep", lang, n=len(points), low=common.fmt_bytes(sizes[0], lang),
                        high=common.fmt_bytes(sizes[-1], lang)),
            "range": tr("figures.v.sweep_best", lang, gbps=common.fmt_num(best)), "runs": ""}


def figure_groups(benchmarks_or_report, lang: str = "en") -> list[tuple[str, list[dict]]]:
    """Every figure of a run people read, in words: [(group title, [row])], a row being
    {key, quantity, value (with its unit; the median of the repeats where they were kept),
    range (slowest – fastest repeat, or ""), runs (repeats, or "")}. Nothing is cut."""
    b = section(benchmarks_or_report)
    out = []
    for group, figures in FIGURE_GROUPS:
        rows = [_figure_row(b, path, tr(f"figures.q.{qid}", lang), unit, lang) for path, qid, unit in figures]
        if group == "caches":
            rows.append(_cache_sweep_row(b, lang))
        rows = [r for r in rows if r]
        if rows:
            out.append((tr(f"figures.group.{group}", lang), rows))
    for e in bench.gpu_devices(b):
        idx = e.get("index")
        rows = [_figure_row(b, f"gpu.{idx}.{key}", tr(f"figures.q.{qid}", lang), unit, lang)
                for key, qid, unit in GPU_FIGURES]
        rows = [r for r in rows if r]
        if rows or e.get("error"):
            name = common.label_text(e.get("name")) or ""
            if e.get("error"):
                rows.append({"key": f"gpu.{idx}.error", "quantity": tr("figures.q.gpu_error", lang),
                             "value": common.clean(e["error"]), "range": "", "runs": ""})
            out.append((tr("figures.group.gpu", lang, index=idx, name=name), rows))
    return out


def raw_rows(benchmarks_or_report) -> list[tuple[str, str]]:
    """(dotted key, value) of every leaf of the section, uncut: the "raw keys" view."""
    b = section(benchmarks_or_report)
    rows = []

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
            for i, v in enumerate(value):
                walk(f"{prefix}[{i}]", v)
        elif isinstance(value, list):
            rows.append((prefix, common.clean(", ".join(map(str, value)), limit=1 << 16)))
        else:
            rows.append((prefix, common.fmt_num(value) if common.num(value) is not None else common.clean(value)))
    walk("", b)
    return rows


# --------------------------------------------------------------------------- notices in words

# the stages of the benchmark child (probes/kernels/__main__.py STAGES, plus its re-check) and
# the figures its "measured twice" warning names, each with its catalogue word
STAGE_WORDS = ("setup", "clock", "fma", "stream", "cache_sweep", "latency", "gemm", "gpu", "recheck")
RECHECK_WORDS = {"clock (all threads)": "clock_mt", "fp64 FMA (all threads)": "fp64_mt",
                 "fp32 FMA (all threads)": "fp32_mt", "STREAM (all threads)": "stream_mt"}


def _stage_word(name, lang: str) -> str:
    return tr(f"figures.stage.{name}", lang) if name in STAGE_WORDS else common.clean(name)


def notice_text(message: dict, lang: str = "en") -> str:
    """A benchmark or monitor notice in ``lang``, the stage and figure names it carries in that
    language too (the child writes them in English: "stream", "fp64 FMA (all threads)")."""
    params = dict(message.get("params") or {})
    if "stage" in params:
        params["stage"] = _stage_word(params["stage"], lang)
    if isinstance(params.get("what"), str):
        params["what"] = tr("figures.list_sep", lang).join(
            tr(f"figures.recheck.{RECHECK_WORDS[w]}", lang) if w in RECHECK_WORDS else w
            for w in (part.strip() for part in params["what"].split(",")))
    return render(dict(message, params=params) if params else message, lang)
