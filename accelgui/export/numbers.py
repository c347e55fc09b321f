"""Numbers with their units, the same in every export format and in the app."""

from __future__ import annotations

import math
from datetime import datetime

from accelgui.export.labels import label
# fmt_num is defined beside clean, which formats floats with it (one module, no import cycle)
from accelgui.export.sanitize import clean, fmt_num


def fmt_bytes(n, lang: str = "en") -> str:
    """Binary units: 1.5 GiB. ``None`` -> unknown."""
    if n is None or isinstance(n, bool):
        return label("unknown", lang)
    try:
        x = float(n)
    except (TypeError, ValueError):
        return clean(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(x) < 1024 or unit == "PiB":
            if unit == "B":
                return f"{int(x)} B"
            return f"{x:.0f} {unit}" if x == int(x) else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} PiB"  # pragma: no cover


def fmt_gbps(x, lang: str = "en") -> str:
    return label("unknown", lang) if x is None else f"{fmt_num(float(x))} GB/s"


def fmt_gflops(x, lang: str = "en") -> str:
    return label("unknown", lang) if x is None else f"{fmt_num(float(x))} GFLOP/s"


def fmt_value(key: str, value, lang: str = "en") -> str:
    """Format a number by the unit in its key name (docs/report-contract.md: units live in names)."""
    if value is None:
        return label("unknown", lang)
    if isinstance(value, bool):
        return label("yes" if value else "no", lang)
    if not isinstance(value, (int, float)):
        return clean(value)
    k = key.lower()
    if k.endswith("_bytes") or k == "bytes":
        return fmt_bytes(value, lang)
    if k.endswith("_gbps") or "_gbps_" in k:
        return fmt_gbps(value, lang)
    if k.endswith("_gflops") or "_gflops_" in k:
        return fmt_gflops(value, lang)
    if k.endswith("_tflops"):
        return f"{fmt_num(value)} TFLOP/s"
    if k.endswith("_ns") or k.startswith("latency_ns"):
        return f"{fmt_num(value)} ns"
    if k.endswith("_ms"):
        return f"{fmt_num(value)} ms"
    if k.endswith("_tokens_per_s") or k.endswith("_tok_s"):
        return f"{fmt_num(value)} tokens/s"
    if k.endswith("_s") or k.endswith("_seconds"):
        return f"{fmt_num(value)} s"
    if k.endswith("_mhz"):
        return f"{fmt_num(value)} MHz"
    if k.endswith("_flops_per_byte"):
        return f"{fmt_num(value)} FLOP/byte"
    if k.endswith("_pct") or k.endswith("_percent"):
        return f"{fmt_num(value)} %"
    return fmt_num(value)


def fmt_change(pct) -> str:
    """A relative change read at a glance: "+12.5 %", "-40 %"; from a doubling on as a factor
    ("× 112" for 2 -> 224 CPUs, not "+11100.0 %")."""
    if pct is None or isinstance(pct, bool):
        return ""
    x = float(pct)
    if math.isnan(x) or math.isinf(x):
        return "\u2014"
    if x >= 100:
        return f"\u00d7 {fmt_num(1 + x / 100)}"
    return f"{x:+.1f} %"


def or_unknown(value, lang: str = "en") -> str:
    text = clean(value) if value is not None else ""
    return text if text else label("unknown", lang)


def created_epoch(created: str | None) -> float | None:
    if not created:
        return None
    try:
        return datetime.fromisoformat(str(created).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
