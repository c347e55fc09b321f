"""Short human texts for facts of the machine: CPU topology and caches, DMI, device memory."""

from __future__ import annotations

import re

from accelgui.export.labels import label
from accelgui.l10n import tr
from accelgui.export.numbers import fmt_bytes, fmt_value
from accelgui.export.sanitize import clean, label_text

# serial numbers, UUIDs and asset tags are never shown in human formats (json keeps them)
_PRIVATE_KEY = re.compile(r"(serial|uuid|guid|asset|mac|machine_id|boot_id)", re.I)

KEY_FEATURES = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
                "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
                "neon", "asimd", "asimddp", "dotprod", "i8mm", "bf16", "sve", "sve2", "sme",
                "sme2", "vsx", "mma", "rvv", "v", "vxe")


def key_features(cpu) -> list[str]:
    feats = [str(f) for f in (cpu.features or [])]
    picked = [f for f in feats if f in KEY_FEATURES]
    return picked or feats[:16]


def count_text(what: str, n, lang: str = "en") -> str:
    """``n`` things in words with the right plural ("1 socket", "2 cores"; zh has no plural):
    ``what`` is socket, core_per_socket, thread_per_core, core or thread; "?" when unknown."""
    form = "one" if n == 1 else "other"
    return tr(f"figures.n.{what}.{form}", lang, n=n if n else "?")


def cpu_topology(cpu, lang: str = "en") -> str:
    """ "1 socket × 2 cores × 1 thread = 2 cores / 2 threads" (unknown parts left out)."""
    s, c, t = cpu.sockets, cpu.cores_per_socket, cpu.threads_per_core
    parts = []
    if s and c and t:
        parts.append(" × ".join((count_text("socket", s, lang), count_text("core_per_socket", c, lang),
                                 count_text("thread_per_core", t, lang))))
    cores = s * c if (s and c) else None
    if cores or cpu.logical_cpus:
        parts.append(tr("figures.n.cores_threads", lang, cores=count_text("core", cores, lang),
                        threads=count_text("thread", cpu.logical_cpus, lang)))
    return " = ".join(parts) if parts else label("unknown", lang)


def cache_text(cpu, lang: str = "en") -> str:
    """"L1D 48 KiB × 112, ...": each level's size per cache and the count; a level whose caches
    differ in size (performance and efficiency clusters) by its total."""
    parts = []
    for name in ("l1d", "l1i", "l2", "l3", "l4"):
        info = (cpu.caches or {}).get(name)
        if not isinstance(info, dict):
            continue
        size, inst = info.get("size_bytes"), info.get("instances")
        if size is None:
            continue
        if inst and inst > 1 and size % inst:
            parts.append(label("cache_unequal", lang, level=name.upper(), size=fmt_bytes(size, lang), n=inst))
        elif inst and inst > 1:
            parts.append(f"{name.upper()} {fmt_bytes(size // inst)} × {inst}")
        else:
            parts.append(f"{name.upper()} {fmt_bytes(size)}")
    return ", ".join(parts)


def dmi_text(dmi: dict, *keys) -> str:
    if not isinstance(dmi, dict):
        return ""
    vals = []
    for k in keys:
        v = dmi.get(k)
        if v is not None and not isinstance(v, (dict, list)) and clean(v) and clean(v) not in vals:
            vals.append(clean(v))
    return " ".join(vals)


def is_redacted(report) -> bool:
    """Whether the report was redacted before it was shared (the top-level ``redacted`` flag
    the redactor sets)."""
    flag = report.get("redacted") if isinstance(report, dict) else getattr(report, "redacted", None)
    return bool(flag)


def hostname_text(report, lang: str = "en") -> str:
    """The host name, "redacted" when it was removed for sharing, else "unknown"."""
    if report.platform.hostname:
        return label_text(report.platform.hostname)
    return label("redacted" if is_redacted(report) else "unknown", lang)


def device_memory(dev) -> int | None:
    d = dev.details or {}
    for key in ("memory_bytes", "memory_total_bytes", "vram_bytes", "hbm_bytes"):
        v = d.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return int(v)
    return None


def device_highlights(dev, lang: str = "en") -> list[str]:
    """Short facts about a device: memory, compute capability / gfx target, driver version."""
    d = dev.details or {}
    out = []
    mem = device_memory(dev)
    if mem is not None:
        out.append(fmt_bytes(mem, lang))
    cc = d.get("compute_capability")
    if cc is not None:
        out.append(f"CC {cc:.1f}" if isinstance(cc, float) else f"CC {clean(cc)}")
    for key in ("gfx_target", "generation", "tops_int8"):
        if d.get(key) is not None and not isinstance(d.get(key), (dict, list)):
            out.append(f"{key.replace('_', ' ')} {clean(d[key])}")
    if d.get("driver_version") is not None:
        out.append(f"driver {label_text(d['driver_version'])}")
    return out


def device_detail_text(dev) -> str:
    """Every scalar detail except identifiers (serials, UUIDs), as k=v."""
    items = []
    for k, v in (dev.details or {}).items():
        if v is None or isinstance(v, (dict, list)) or _PRIVATE_KEY.search(str(k)) \
                or k in ("index", "memory_bytes"):
            continue
        if k == "compute_capability" and isinstance(v, float):
            shown = f"{v:.1f}"
        else:
            shown = fmt_value(str(k), v) if isinstance(v, (int, float)) else clean(v)
        items.append(f"{label_text(k)}={shown}")
    return ", ".join(items)
