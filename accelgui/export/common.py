"""Helpers shared by the human-readable exporters (text, markdown, html, pdf) and compare.

Each concern has its own module: labels (the catalogue's report labels), sanitize (hostile
strings), numbers (units), facts (CPU/DMI/device texts), route_text, estimates, table and
sections (the report as tables). This module keeps the benchmark section's helpers and
re-exports the others under their old names, so ``from accelgui.export import common as C``
keeps working; ``build_sections``, ``estimate_tables`` and ``estimate_sections`` are loaded on
first use (those modules import this one).
"""

from __future__ import annotations

import math

from accelgui.export.facts import (KEY_FEATURES, cache_text, cpu_topology, device_detail_text,
                                   device_highlights, device_memory, dmi_text, hostname_text,
                                   is_redacted, key_features)
from accelgui.export.labels import LANGS, html_lang, label, tr, word
from accelgui.export.numbers import (created_epoch, fmt_bytes, fmt_change, fmt_gbps, fmt_gflops,
                                     fmt_num, fmt_value, or_unknown)
from accelgui.export.route_text import (blocking_texts, first_reason_text, first_step_text,
                                        route_title, step_text, step_title)
from accelgui.export.sanitize import clean, esc_html, esc_md
from accelgui.export.table import Table

__all__ = ["KEY_FEATURES", "LANGS", "Table", "blocking_texts", "cache_text", "clean",
           "cpu_topology", "created_epoch", "device_detail_text", "device_highlights",
           "device_memory", "dmi_text", "esc_html", "esc_md", "fmt_bytes", "fmt_gbps",
           "fmt_gflops", "fmt_num", "fmt_value", "html_lang", "key_features", "label",
           "first_reason_text", "fmt_change", "first_step_text", "hostname_text", "is_redacted",
           "or_unknown", "route_title", "step_text", "step_title", "tr", "word"]

_LATER = {"build_sections": "sections", "probe_counts": "sections", "estimate_tables": "estimates",
          "estimate_sections": "estimates"}


def __getattr__(name: str):
    if name in _LATER:
        import importlib

        return getattr(importlib.import_module(f"accelgui.export.{_LATER[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- benchmarks

def gpu_entries(benchmarks) -> list[dict]:
    """The per-device GPU benchmark dicts, whatever the container shape:
    {"devices": [...]}, {"0": {...}, "1": {...}} or a list."""
    if not isinstance(benchmarks, dict):
        return []
    gpu = benchmarks.get("gpu")
    items: list = []
    if isinstance(gpu, list):
        items = gpu
    elif isinstance(gpu, dict):
        if isinstance(gpu.get("devices"), list):
            items = gpu["devices"]
        else:
            items = [dict(v, index=v.get("index", k)) for k, v in gpu.items()
                     if isinstance(v, dict) and str(k).isdigit()]
    out = []
    for pos, item in enumerate(items):
        if isinstance(item, dict):
            entry = dict(item)
            entry.setdefault("index", pos)
            out.append(entry)
    return out


def gpu_value(entry: dict, *names):
    for n in names:
        v = entry.get(n)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
    return None


# The figures the benchmark child writes per GPU (probes/kernels/gpu_kernels.py); it has no
# theoretical FP32 figure, so the FP32 bar stands alone.
GPU_TRIAD = ("triad_gbps",)
GPU_FP32 = ("fp32_gflops",)
GPU_PEAK_BW = ("memory_peak_gbps",)


def dig(obj, *path):
    for p in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(p)
    return obj


def num(x):
    """A finite number, or None for anything else (bools, strings, NaN)."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def numeric_leaves(obj, prefix: str = "") -> list[tuple[str, float]]:
    """(dotted path, number) for every numeric leaf; list items keyed by a stable id."""
    out: list[tuple[str, float]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(numeric_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            key = str(i)
            if isinstance(item, dict):
                for idk in ("index", "id", "name", "bytes", "level", "size_bytes"):
                    if item.get(idk) is not None and not isinstance(item.get(idk), (dict, list)):
                        key = f"{idk}={item[idk]}"
                        break
            sub = {k: v for k, v in item.items() if k != key.split("=")[0]} \
                if isinstance(item, dict) and "=" in key else item
            out.extend(numeric_leaves(sub, f"{prefix}[{key}]"))
    elif num(obj) is not None:
        out.append((prefix, obj))
    return out


def theory_finder(benchmarks):
    """theory(key) -> (value, path): the theoretical figure for ``key`` in
    ``benchmarks.cpu.theoretical``, where the benchmark child writes them, or (None, None)."""
    cpu = benchmarks.get("cpu") if isinstance(benchmarks.get("cpu"), dict) else {}
    table = cpu.get("theoretical") if isinstance(cpu.get("theoretical"), dict) else {}

    def theory(key: str):
        value = table.get(key)
        return (value, f"cpu.theoretical.{key}") if num(value) is not None else (None, None)
    return theory


def _unit_header(key: str) -> str:
    for suffix, unit in (("_gbps", "GB/s"), ("_gflops", "GFLOP/s"), ("_bytes", "bytes"), ("_ns", "ns"),
                         ("_ms", "ms"), ("_s", "s"), ("_mhz", "MHz")):
        if key.endswith(suffix):
            return f"{key[: -len(suffix)].replace('_', ' ')} ({unit})"
    return key.replace("_", " ")


def benchmark_rows(benchmarks, lang: str = "en") -> list[list[str]]:
    """[group, figure, measured, theoretical, efficiency] rows for everything but the GPUs:
    STREAM, FMA, latency, roofline, then every other numeric figure generically."""
    rows: list[list[str]] = []
    if not isinstance(benchmarks, dict):
        return rows
    cpu = benchmarks.get("cpu") if isinstance(benchmarks.get("cpu"), dict) else {}
    theory = theory_finder(benchmarks)
    shown: set[str] = set()

    def add(group, fig, key, value, path, theo=(None, None)):
        if value is None:
            return
        t_val, t_path = theo
        eff = f"{value / t_val * 100:.0f} %" if t_val else ""
        rows.append([group, fig, fmt_value(key, value, lang),
                     fmt_value(key, t_val, lang) if t_val is not None else "", eff])
        shown.add(path)
        if t_path:
            shown.add(t_path)

    stream = cpu.get("stream") if isinstance(cpu.get("stream"), dict) else {}
    st = stream.get("single_thread") if isinstance(stream.get("single_thread"), dict) else {}
    threads = stream.get("threads")
    for kern in ("copy", "scale", "add", "triad"):
        k = f"{kern}_gbps"
        add("STREAM", f"{kern} ({label('one_thread', lang)})", k, num(st.get(k)),
            f"cpu.stream.single_thread.{k}", theory(k))
        all_t = label("all_threads", lang) + (f" = {threads}" if threads else "")
        add("STREAM", f"{kern} ({all_t})", k, num(stream.get(k)), f"cpu.stream.{k}",
            theory(k))
    fma = cpu.get("fma") if isinstance(cpu.get("fma"), dict) else {}
    for prec in ("fp64", "fp32"):
        for suffix, tl in (("1t", label("one_thread", lang)), ("mt", label("all_threads", lang))):
            k = f"{prec}_gflops_{suffix}"
            add("FMA", f"{prec.upper()} ({tl})", k, num(fma.get(k)), f"cpu.fma.{k}",
                theory(k))
    lat = cpu.get("latency_ns") if isinstance(cpu.get("latency_ns"), dict) else {}
    for lvl, v in lat.items():
        add("latency", clean(lvl).upper(), "x_ns", num(v), f"cpu.latency_ns.{lvl}")
    roof = benchmarks.get("roofline") if isinstance(benchmarks.get("roofline"), dict) else {}
    for k in ("peak_gflops", "peak_gbps", "ridge_flops_per_byte"):
        add(label("roofline", lang), k, k, num(roof.get(k)), f"roofline.{k}")
    # everything else, generically (gemm, environment numbers, fields added later...)
    for path, v in numeric_leaves(benchmarks):
        if path in shown or path.startswith("gpu") or "cache_sweep[" in path:
            continue
        parts = path.split(".")
        if len(parts) == 1:
            group, fig = "run", parts[0]
        else:
            group = ".".join(parts[:2]) if len(parts) > 2 else parts[0]
            fig = ".".join(parts[2:]) if len(parts) > 2 else parts[1]
        add(clean(group), clean(fig), parts[-1], v, path)
    sweep = cpu.get("cache_sweep")
    if isinstance(sweep, list) and sweep:
        pts = [p for p in sweep if isinstance(p, dict) and num(p.get("gbps")) is not None]
        if pts:
            best = max(pts, key=lambda p: p["gbps"])
            rows.append(["cache sweep", f"{len(pts)} points, peak",
                         f"{fmt_gbps(best['gbps'])} @ {fmt_bytes(best.get('bytes'), lang)}", "", ""])
    return rows


def gpu_rows(benchmarks, lang: str = "en") -> tuple[list[str], list[list[str]], str | None]:
    """(headers, rows, note): one row per benchmarked GPU, a column per numeric figure."""
    entries = gpu_entries(benchmarks)
    note = None
    gpu = benchmarks.get("gpu") if isinstance(benchmarks, dict) else None
    if isinstance(gpu, dict):
        why = next((gpu.get(k) for k in ("skipped", "reason", "error") if isinstance(gpu.get(k), str)), None)
        note = clean(why) if why else None
    keys: list[str] = []
    preferred = list(GPU_TRIAD + GPU_PEAK_BW + GPU_FP32) + ["h2d_gbps", "d2h_gbps"]
    for e in entries:
        for k, v in e.items():
            if num(v) is not None and k != "index" and k not in keys:
                keys.append(k)
    keys.sort(key=lambda k: preferred.index(k) if k in preferred else len(preferred))
    headers = ["#", label("name", lang)] + [_unit_header(clean(k)) for k in keys]
    rows = []
    for e in entries:
        row = [clean(e.get("index")), clean(e.get("name"))]
        for k in keys:
            row.append(fmt_num(e[k]) if num(e.get(k)) is not None else "")
        rows.append(row)
    return headers, rows, note


def theoretical_pairs(benchmarks, lang: str = "en") -> list[tuple[str, float, float | None, str]]:
    """(label, measured, theoretical or None, unit) for the measured-vs-theoretical chart.

    Theoretical CPU figures come from ``benchmarks.cpu.theoretical``; for GPUs the memory
    peak from NVML (``memory_peak_gbps``)."""
    out: list = []
    if not isinstance(benchmarks, dict):
        return out
    cpu = benchmarks.get("cpu") if isinstance(benchmarks.get("cpu"), dict) else {}
    theory = theory_finder(benchmarks)
    stream = cpu.get("stream") if isinstance(cpu.get("stream"), dict) else {}
    st = stream.get("single_thread") if isinstance(stream.get("single_thread"), dict) else {}
    if num(st.get("triad_gbps")) is not None:
        out.append((f"CPU triad, {label('one_thread', lang)}", st["triad_gbps"],
                    theory("triad_gbps")[0], "GB/s"))
    if num(stream.get("triad_gbps")) is not None:
        out.append((f"CPU triad, {label('all_threads', lang)}", stream["triad_gbps"],
                    theory("triad_gbps")[0], "GB/s"))
    fma = cpu.get("fma") if isinstance(cpu.get("fma"), dict) else {}
    for prec in ("fp64", "fp32"):
        for suffix, tl in (("1t", label("one_thread", lang)), ("mt", label("all_threads", lang))):
            k = f"{prec}_gflops_{suffix}"
            if num(fma.get(k)) is not None:
                out.append((f"CPU {prec.upper()} FMA, {tl}", fma[k], theory(k)[0], "GFLOP/s"))
    for entry in gpu_entries(benchmarks):
        name = f"GPU {clean(entry.get('index'))}"
        bw = gpu_value(entry, *GPU_TRIAD)
        if bw is not None:
            out.append((f"{name} triad", bw, gpu_value(entry, *GPU_PEAK_BW), "GB/s"))
        fl = gpu_value(entry, *GPU_FP32)
        if fl is not None:
            out.append((f"{name} FP32 FMA", fl, None, "GFLOP/s"))
    return out
