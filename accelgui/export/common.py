"""Helpers shared by the human-readable exporters (text, markdown, html, pdf) and compare.

Each concern has its own module: labels (the catalogue's report labels), sanitize (hostile
strings), numbers (units), facts (CPU/DMI/device texts), route_text, estimates, table and
sections (the report as tables); the benchmark section is accelgui/export/benchmarks.py (it
reads through accelgui.benchmarks). This module keeps a few generic helpers and re-exports the
others under their old names, so ``from accelgui.export import common`` keeps working;
``build_sections``, ``estimate_tables``, ``estimate_sections`` and the benchmark helpers are
loaded on first use (those modules import this one).
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
                                        route_title, start_here, step_text, step_title)
from accelgui.export.sanitize import clean, esc_html, esc_md, label_text
from accelgui.export.table import Table

__all__ = ["KEY_FEATURES", "LANGS", "Table", "blocking_texts", "cache_text", "clean",
           "cpu_topology", "created_epoch", "device_detail_text", "device_highlights",
           "device_memory", "dmi_text", "esc_html", "esc_md", "fmt_bytes", "fmt_gbps",
           "fmt_gflops", "fmt_num", "fmt_value", "html_lang", "key_features", "label", "label_text",
           "first_reason_text", "fmt_change", "first_step_text", "hostname_text", "is_redacted",
           "or_unknown", "route_title", "start_here", "step_text", "step_title", "tr", "word"]

_LATER = {"build_sections": "sections", "probe_counts": "sections", "estimate_tables": "estimates",
          "estimate_sections": "estimates",
          **{name: "benchmarks" for name in ("GPU_FP32", "GPU_PEAK_BW", "GPU_TRIAD", "gpu_entries", "gpu_value",
                                             "theoretical_pairs", "theory_finder")}}


def __getattr__(name: str):
    if name in _LATER:
        import importlib

        return getattr(importlib.import_module(f"accelgui.export.{_LATER[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- generic helpers

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
