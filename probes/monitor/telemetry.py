"""Family telemetry described in data (the ``telemetry`` entry of each device family in
``probes/data/families/<id>.json``), read generically.

:func:`family_telemetry` is the one accessor for a family's entry; everything else here reads
what an entry describes: where the family's devices appear (``discover``: the sysfs class and
the drivers that claim them, or a glob) and how each sample field is read (``fields``: field ->
``{read, path, scale}``; paths are relative to the discovered node, may hold * in any
component, and a list means the first that reads). Kinds of read: ``value`` (number x scale),
``rate`` (per-second change of a counter x scale between consecutive samples), ``sum``
(numbers of every match added, x scale), ``dpm`` (the clock level marked '*' in a pp_dpm_*
table, MHz), ``devfreq_load`` (the percentage before '@' in a devfreq load file), ``bitmask``
(NVML reason bits -> names).
"""

from __future__ import annotations

import fnmatch
import math
import os

from accelgui.probes import families as _families
from accelgui.probes.context import ProbeContext

_TABLE: dict | None = None

#: the fields every device record has (null when unknown), in display order
DEVICE_FIELDS = ("util_pct", "mem_util_pct", "memory_used_bytes", "memory_total_bytes", "temp_c",
                 "power_w", "power_limit_w", "clock_mhz", "mem_clock_mhz", "max_clock_mhz")


def _table() -> dict:
    global _TABLE
    if _TABLE is None:
        found = {fid: _families.family_telemetry(fid) for fid in _families.load_families()}
        _TABLE = {"families": {fid: entry for fid, entry in found.items() if entry}}
    return _TABLE


def family_telemetry(family: str) -> dict | None:
    """The telemetry entry of ``family`` (a family id such as "amd-gpu"), or None.

    The one place that says where a family's telemetry description lives: the family's own
    data entry (``accelgui.probes.families.family_telemetry``)."""
    return _table()["families"].get(family)


def families() -> list[str]:
    return list(_table()["families"])


def glob_paths(ctx: ProbeContext, pattern: str) -> list[str]:
    """Relative paths matching ``pattern``, wildcards allowed in any component."""
    found = [""]
    for part in pattern.strip("/").split("/"):
        if any(c in part for c in "*?["):
            found = [f"{base}/{n}" if base else n for base in found
                     for n in ctx.listdir(base) if fnmatch.fnmatchcase(n, part)]
        else:
            found = [f"{base}/{part}" if base else part for base in found]
            found = [p for p in found if ctx.exists(p)]
        if not found:
            return []
    return found


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.split()[0])
    except (ValueError, IndexError):
        return None
    return value if math.isfinite(value) else None      # "nan", "inf" in a broken file


def parse_dpm(text: str | None) -> float | None:
    """The current level of an amdgpu ``pp_dpm_*`` table ("1: 1800Mhz *") in MHz."""
    for line in (text or "").splitlines():
        if line.rstrip().endswith("*"):
            value = line.split(":", 1)[-1].strip().rstrip("*").strip().lower()
            for unit, factor in (("mhz", 1.0), ("ghz", 1000.0)):
                if value.endswith(unit):
                    number = _number(value[: -len(unit)])
                    return None if number is None else number * factor
    return None


def parse_devfreq_load(text: str | None) -> float | None:
    """A devfreq ``load`` file ("45@800000000Hz") -> 45."""
    if not text:
        return None
    return _number(text.split("@", 1)[0])


def _read_raw(ctx: ProbeContext, base: str, spec: dict):
    paths = spec["path"] if isinstance(spec["path"], list) else [spec["path"]]
    kind = spec.get("read", "value")
    for path in paths:
        matches = glob_paths(ctx, f"{base}/{path}")
        if not matches:
            continue
        if kind == "sum":
            values = [_number(ctx.read_line(m)) for m in matches]
            values = [v for v in values if v is not None]
            if values:
                return sum(values)
            continue
        text = ctx.read_text(matches[0], limit=65536)
        if kind == "dpm":
            value = parse_dpm(text)
        elif kind == "devfreq_load":
            value = parse_devfreq_load(text)
        else:
            value = _number(text.strip() if text else None)
        if value is not None:
            return value
    return None


def read_fields(ctx: ProbeContext, base: str, fields: dict, counters: dict, key: str, now: float) -> dict:
    """Every field of ``fields`` read under ``base``. ``rate`` fields are the change since the
    previous call with the same ``key`` (kept in ``counters``), null on the first call and
    after a counter went backwards (a reset: driver reload, wrap)."""
    out = {}
    for name, spec in fields.items():
        raw = _read_raw(ctx, base, spec)
        scale = spec.get("scale", 1)
        if spec.get("read") == "rate":
            out[name] = rate(counters, (key, name), raw, now, scale)
        else:
            out[name] = None if raw is None else _tidy(raw * scale)
    return out


def rate(counters: dict, key, raw, now: float, scale: float = 1.0):
    """Per-second change of a counter since the last call for ``key``, times ``scale``."""
    prev = counters.get(key)
    if raw is None:
        counters.pop(key, None)
        return None
    counters[key] = (raw, now)
    if prev is None or now <= prev[1] or raw < prev[0]:
        return None
    return _tidy((raw - prev[0]) / (now - prev[1]) * scale)


def _tidy(value: float):
    return int(value) if float(value).is_integer() and abs(value) < 2 ** 53 else round(value, 3)


def discover(ctx: ProbeContext) -> list[dict]:
    """Sysfs devices of every family whose entry says how to find them:
    ``[{"family", "node", "base", "address"}]``."""
    found = []
    drivers = {}
    for fam, entry in _table()["families"].items():
        how = entry.get("discover") or {}
        if how.get("class") in ("drm", "accel"):
            for drv in how.get("drivers", []):
                drivers[(how["class"], drv)] = fam
        elif how.get("class") == "devfreq":
            for name in ctx.listdir("sys/class/devfreq"):
                if any(fnmatch.fnmatchcase(name, pat) for pat in how.get("names", [])):
                    found.append(_node(ctx, fam, "sys/class/devfreq", name, "device"))
        elif how.get("glob"):
            for base in glob_paths(ctx, how["glob"]):
                found.append({"family": fam, "node": os.path.basename(base), "base": base,
                              "address": _address(ctx, f"{base}/device") or os.path.basename(base)})
    for cls in ("drm", "accel"):
        for name in ctx.listdir(f"sys/class/{cls}"):
            if not (name.startswith("card") or name.startswith("accel")) or not name[-1].isdigit() \
                    or "-" in name:
                continue
            fam = drivers.get((cls, ctx.readlink(f"sys/class/{cls}/{name}/device/driver")))
            if fam:
                found.append(_node(ctx, fam, f"sys/class/{cls}", name, "device"))
    return found


def _node(ctx, fam, parent, name, device_link):
    base = f"{parent}/{name}"
    return {"family": fam, "node": name, "base": base,
            "address": _address(ctx, f"{base}/{device_link}") or name}


def _address(ctx: ProbeContext, rel: str) -> str | None:
    real = ctx.realpath(rel)
    if not real:
        return None
    name = os.path.basename(real)
    return name if name.count(":") == 2 and "." in name else None
