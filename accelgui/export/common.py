"""Helpers shared by the human-readable exporters (text, markdown, html, pdf) and compare.

Everything a report holds came from firmware, the kernel or another machine, so every string
is treated as hostile: :func:`clean` removes control characters, terminal escape sequences and
bidirectional overrides; each exporter then escapes for its own syntax.

:func:`build_sections` turns a Report into a list of :class:`Table` (key/value tables and
column tables) with plain, cleaned, unescaped cells, in English or Chinese; markdown, html and
pdf render the same sections so the formats never disagree.
"""

from __future__ import annotations

import html as _html
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime

from accelgui.report import device_text

LANGS = ("en", "zh")

# --------------------------------------------------------------------------- labels (en / zh)

LABELS: dict[str, tuple[str, str]] = {
    # headings
    "title": ("accelgui report", "accelgui 报告"),
    "summary": ("Summary", "概要"),
    "platform": ("Platform", "平台"),
    "cpu": ("CPU", "CPU"),
    "memory": ("Memory", "内存"),
    "devices": ("Accelerators", "加速器"),
    "software": ("Software", "软件"),
    "packages": ("Python packages", "Python 包"),
    "toolkits": ("Toolkits and drivers", "工具包与驱动"),
    "providers": ("Runtime back ends", "运行时后端"),
    "compilers": ("Compilers", "编译器"),
    "benchmarks": ("Benchmarks (measured)", "基准测试（实测）"),
    "charts": ("Charts", "图表"),
    "routes": ("Learning routes", "学习路线"),
    "estimates": ("What this machine can run (estimates, not measurements)",
                  "这台机器能运行什么（估算，非实测）"),
    "probes": ("Probes", "探测项"),
    "compare": ("Report comparison", "报告对比"),
    # summary / platform fields
    "created": ("Created", "生成时间"),
    "version": ("accelgui version", "accelgui 版本"),
    "schema": ("Schema version", "数据格式版本"),
    "sysroot": ("System root", "系统根目录"),
    "os": ("OS", "操作系统"),
    "os_release": ("Distribution", "发行版"),
    "kernel": ("Kernel", "内核"),
    "machine": ("Machine", "机器架构"),
    "hostname": ("Host name", "主机名"),
    "virtualization": ("Virtualisation", "虚拟化"),
    "container": ("Container", "容器"),
    "cloud": ("Cloud", "云平台"),
    "system": ("System", "整机型号"),
    "board": ("Board", "主板"),
    "bios": ("BIOS", "BIOS"),
    # cpu
    "model": ("Model", "型号"),
    "vendor": ("Vendor", "厂商"),
    "arch": ("Architecture", "指令集架构"),
    "uarch": ("Microarchitecture", "微架构"),
    "topology": ("Topology", "拓扑"),
    "logical_cpus": ("Logical CPUs", "逻辑 CPU"),
    "numa_nodes": ("NUMA nodes", "NUMA 节点"),
    "clock": ("Clock", "频率"),
    "caches": ("Caches", "缓存"),
    "features": ("Key features", "关键特性"),
    "hypervisor": ("Hypervisor", "虚拟机监控器"),
    "sockets_cores": ("{s} socket(s) × {c} cores × {t} threads",
                      "{s} 路 × 每路 {c} 核 × 每核 {t} 线程"),
    "cores_threads": ("{c} cores / {t} threads", "{c} 核 / {t} 线程"),
    # memory
    "total": ("Total", "总量"),
    "available": ("Available", "可用"),
    # devices
    "kind": ("Kind", "类型"),
    "name": ("Name", "名称"),
    "address": ("Address", "地址"),
    "pci_id": ("PCI id", "PCI ID"),
    "driver": ("Driver", "驱动"),
    "readiness": ("Readiness", "就绪状态"),
    "device_memory": ("Memory", "显存/内存"),
    "fix": ("Fix", "解决办法"),
    "reason": ("Reason", "原因"),
    "details": ("Details", "详情"),
    "integrated": ("integrated", "集成"),
    "no_devices": ("No accelerator found: this machine computes on its CPU.",
                   "未发现加速器：这台机器使用 CPU 计算。"),
    # software
    "package": ("Package", "包"),
    "pkg_version": ("Version", "版本"),
    "none": ("none", "无"),
    # benchmarks
    "group": ("Group", "类别"),
    "figure": ("Figure", "指标"),
    "value": ("Value", "数值"),
    "measured": ("measured", "实测"),
    "theoretical": ("theoretical", "理论值"),
    "bench_error": ("Benchmark failed", "基准测试失败"),
    "no_benchmarks": ("No benchmarks in this report (run accelgui --probe --bench quick).",
                      "本报告没有基准测试（运行 accelgui --probe --bench quick）。"),
    "measured_vs_theoretical": ("Measured vs theoretical", "实测与理论对比"),
    "cache_sweep": ("Read bandwidth vs working-set size", "读带宽与工作集大小"),
    "roofline": ("Roofline", "屋顶线模型"),
    "working_set": ("working set (bytes, log scale)", "工作集（字节，对数坐标）"),
    "intensity": ("arithmetic intensity (FLOP/byte, log)", "算术强度（FLOP/字节，对数）"),
    "gflops_axis": ("GFLOP/s (log)", "GFLOP/s（对数）"),
    "one_thread": ("1 thread", "单线程"),
    "all_threads": ("all threads", "全部线程"),
    # routes
    "route": ("Route", "路线"),
    "status": ("Status", "状态"),
    "reasons": ("Reasons", "依据"),
    "next_steps": ("Next steps", "下一步"),
    "blocking": ("What is missing", "缺少什么"),
    "no_routes": ("No route assessment in this report.", "本报告没有路线评估。"),
    # estimates
    "item": ("Item", "项目"),
    "basis": ("Basis", "依据"),
    "fits": ("fits", "可容纳"),
    "too_big": ("too big", "放不下"),
    "model_size": ("Model size", "模型规模"),
    "llm_fit": ("LLM inference (weights + KV cache; decode speed)", "LLM 推理（权重 + KV 缓存；解码速度）"),
    "finetune": ("Fine-tuning (memory, before activations)", "微调（内存，不含激活）"),
    "formulas": ("Formulas", "公式"),
    "source": ("Source", "来源"),
    # probes
    "probe": ("Probe", "探测项"),
    "elapsed": ("ms", "毫秒"),
    "error": ("Error", "错误"),
    "probes_summary": ("{ok} ok, {absent} absent, {error} error, {timeout} timeout",
                       "{ok} 成功，{absent} 不存在，{error} 出错，{timeout} 超时"),
    # misc
    "unknown": ("unknown", "未知"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "generated_by": ("Generated by accelgui {v}", "由 accelgui {v} 生成"),
    "redacted": ("redacted", "已隐去"),
    # compare
    "section": ("Section", "部分"),
    "change": ("Change", "变化"),
    "added": ("added", "新增"),
    "removed": ("removed", "移除"),
    "changed": ("changed", "改变"),
    "no_differences": ("no differences", "没有差异"),
    "n_differences": ("{n} difference(s)", "{n} 处差异"),
}

WORDS: dict[str, tuple[str, str]] = {
    # device readiness
    "ready": ("ready", "就绪"),
    "driver-missing": ("driver missing", "缺少驱动"),
    "runtime-missing": ("runtime missing", "缺少运行时"),
    "no-access": ("no access", "无访问权限"),
    "unknown": ("unknown", "未知"),
    # route status
    "partial": ("partial", "部分可用"),
    "remote": ("remote only", "仅远程"),
    "unavailable": ("unavailable", "不可用"),
    # probe status
    "ok": ("ok", "成功"),
    "absent": ("absent", "不存在"),
    "error": ("error", "出错"),
    "timeout": ("timeout", "超时"),
    # device kinds
    "gpu": ("GPU", "GPU"),
    "npu": ("NPU", "NPU"),
    "tpu": ("TPU", "TPU"),
    "fpga": ("FPGA", "FPGA"),
    "dsp": ("DSP", "DSP"),
    "accelerator": ("accelerator", "加速器"),
    # basis of the advisor's estimates
    "measured": ("measured", "实测"),
    "specification": ("specification", "规格值"),
    "partly measured": ("partly measured", "部分实测"),
    "mixed": ("mixed", "混合"),
}


def _lang_index(lang: str) -> int:
    return 1 if str(lang).lower().startswith("zh") else 0


def label(key: str, lang: str = "en", **fmt) -> str:
    pair = LABELS.get(key)
    text = pair[_lang_index(lang)] if pair else key
    return text.format(**fmt) if fmt else text


def word(value, lang: str = "en") -> str:
    """Translate a readiness / route status / probe status / kind word; others pass through."""
    if value is None:
        return label("unknown", lang)
    pair = WORDS.get(str(value))
    return pair[_lang_index(lang)] if pair else clean(value)


def html_lang(lang: str) -> str:
    return "zh-CN" if _lang_index(lang) else "en"


def tr(obj, lang: str = "en") -> str | None:
    """A knowledge-base text ({"en":..,"zh":..}) or a plain string, in ``lang``."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        key = "zh" if _lang_index(lang) else "en"
        return obj.get(key) or obj.get("en") or next((v for v in obj.values() if v), None)
    return str(obj)


# --------------------------------------------------------------------------- cleaning / escaping

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"          # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL / ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"   # DCS / SOS / PM / APC strings
    r"|\x1b[@-Z\\-_]"                   # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]")          # 8-bit CSI
_BIDI = {"\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
         "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff", "\u200b"}
_LINE_BREAKS = {"\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"}


def clean(value, keep_newlines: bool = False) -> str:
    """A string safe to print: no control characters, escape sequences or bidi overrides.

    Newlines become spaces unless ``keep_newlines``; tabs become spaces; runs of spaces on a
    line collapse. ``None`` becomes "" (callers choose the word for unknown)."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = fmt_num(value)
    else:
        text = str(value)
    text = _ANSI.sub("", text)
    out = []
    for ch in text:
        if ch in _LINE_BREAKS:
            out.append("\n" if keep_newlines and ch in ("\n", "\u2028", "\u2029") else " ")
        elif ch == "\t":
            out.append(" ")
        elif ch in _BIDI:
            continue
        elif unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") and ch not in ("\n",):
            continue
        else:
            out.append(ch)
    text = "".join(out)
    if keep_newlines:
        return "\n".join(re.sub(r" {2,}", " ", line).strip() for line in text.split("\n")).strip()
    return re.sub(r" {2,}", " ", text).strip()


def esc_html(value) -> str:
    """Cleaned and HTML-escaped (quotes too), for element text and attribute values."""
    return _html.escape(clean(value), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_<>\[\]|~&$])")
_MD_LINE_START = re.compile(r"^(\s*)([#+=>-]|\d+[.)])")


def esc_md(value, inline: bool = False) -> str:
    """Cleaned and escaped for Markdown inline text and GFM table cells.

    Backslash-escapes what can start markup anywhere in a line (code spans, emphasis, HTML,
    links, table pipes, strikethrough, entities, math) and what starts a block at the
    beginning of a line (headings, lists, quotes); CommonMark allows a backslash before any
    ASCII punctuation. Newlines are folded, so a cell stays one table row. ``inline``: the
    text does not start a line (a table cell), so block markers need no escape."""
    text = _MD_SPECIAL.sub(r"\\\1", clean(value))
    if inline:  # inside a table cell or after other text: no block can start here
        return text
    def block(m):
        mark = m.group(2)
        return m.group(1) + (mark[:-1] + "\\" + mark[-1] if mark[0].isdigit() else "\\" + mark)
    return _MD_LINE_START.sub(block, text, count=1)


# --------------------------------------------------------------------------- number formatting

def fmt_num(value, digits: int = 1) -> str:
    """1,234 for integers; 12.3 / 1,234.5 / 12,346 / 0.0123 for floats (trailing .0 dropped)."""
    if value is None or isinstance(value, bool):
        return "" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return clean(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if abs(x) >= 10000:
        return f"{x:,.0f}"
    if abs(x) >= 1 or x == 0:
        text = f"{x:,.{digits}f}"
        return text[:-2] if text.endswith(".0") else text
    return f"{x:.3g}"


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
    """Format a number by the unit in its key name (REPORT_CONTRACT: units live in names)."""
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
    if k.endswith("_tokens_per_s") or k.endswith("_tok_s"):
        return f"{fmt_num(value)} tokens/s"
    if k.endswith("_pct") or k.endswith("_percent"):
        return f"{fmt_num(value)} %"
    return fmt_num(value)


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


# --------------------------------------------------------------------------- report pieces

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


def cpu_topology(cpu, lang: str = "en") -> str:
    s, c, t = cpu.sockets, cpu.cores_per_socket, cpu.threads_per_core
    parts = []
    if s and c and t:
        parts.append(label("sockets_cores", lang, s=s, c=c, t=t))
    cores = s * c if (s and c) else None
    if cores or cpu.logical_cpus:
        parts.append(label("cores_threads", lang, c=cores if cores else "?",
                           t=cpu.logical_cpus if cpu.logical_cpus else "?"))
    return " = ".join(parts) if parts else label("unknown", lang)


def cache_text(cpu) -> str:
    parts = []
    for name in ("l1d", "l1i", "l2", "l3", "l4"):
        info = (cpu.caches or {}).get(name)
        if not isinstance(info, dict):
            continue
        size, inst = info.get("size_bytes"), info.get("instances")
        if size is None:
            continue
        if inst and inst > 1:
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
        out.append(f"driver {clean(d['driver_version'])}")
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
        items.append(f"{clean(k)}={shown}")
    return ", ".join(items)


def route_title(route, lang: str = "en") -> str:
    t = tr(route.title, lang) if route.title else None
    return clean(t) if t else clean(route.id)


def step_title(step_id: str, lang: str = "en") -> str | None:
    """The knowledge base's title of a step, when the knowledge base can be loaded: the
    run's knowledge (``--knowledge DIR`` included), cached by accelgui.knowledge itself."""
    try:
        from accelgui.knowledge import load_knowledge

        steps = load_knowledge().steps
    except Exception:  # noqa: BLE001 - the knowledge base is optional for exports
        steps = {}
    step = steps.get(step_id)
    if isinstance(step, dict) and step.get("title"):
        return clean(tr(step.get("title"), lang)) or None
    return None


def step_text(step_id: str, lang: str = "en") -> str:
    title = step_title(step_id, lang)
    return f"{clean(step_id)} ({title})" if title else clean(step_id)


def blocking_texts(route, lang: str = "en") -> list[str]:
    out = []
    for b in route.blocking or []:
        if isinstance(b, dict):
            req = clean(tr(b.get("label") or b.get("requirement"), lang))
            fix = clean(tr(b.get("fix"), lang))
            fb = clean(b.get("fallback"))
            text = req
            if fix:
                text = f"{text}: {fix}" if text else fix
            if fb and fb != "none":
                text = f"{text} [{fb}]"
            if text:
                out.append(text)
        elif b is not None:
            out.append(clean(tr(b, lang)))
    return out


def probe_counts(report) -> dict:
    counts = {"ok": 0, "partial": 0, "absent": 0, "error": 0, "timeout": 0}
    for p in report.probes:
        counts[p.status] = counts.get(p.status, 0) + 1
    return counts


# --------------------------------------------------------------------------- benchmarks

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


# --------------------------------------------------------------------------- estimates

def estimate_tables(estimates, lang: str = "en") -> tuple[list[list[str]], list["Table"]]:
    """Generic rendering of the advisor's estimates: scalar leaves as key/value rows, lists of
    objects as column tables (columns = the union of their scalar keys)."""
    kv: list[list[str]] = []
    tables: list[Table] = []
    if not isinstance(estimates, dict):
        return kv, tables

    def walk(obj, prefix):
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{prefix}.{k}" if prefix else str(k))
        elif isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
            cols: list[str] = []
            for x in obj:
                for k, v in x.items():
                    if not isinstance(v, (dict, list)) and k not in cols:
                        cols.append(k)
            rows = [[fmt_value(c, x.get(c), lang) if x.get(c) is not None else ""
                     for c in cols] for x in obj]
            tables.append(Table(key="estimates", title=clean(prefix), headers=[clean(c) for c in cols],
                                rows=rows))
        elif isinstance(obj, list):
            kv.append([clean(prefix), ", ".join(clean(tr(x, lang)) if not isinstance(x, (int, float))
                                                else fmt_num(x) for x in obj)])
        else:
            kv.append([clean(prefix), fmt_value(prefix.split(".")[-1], obj, lang)])

    walk(estimates, "")
    return kv, tables


def _tok(v) -> str:
    return f"{fmt_num(v)} tok/s" if num(v) is not None else ""


def estimate_sections(estimates, lang: str = "en") -> list["Table"]:
    """Sections for the advisor's estimates: its summary lines, then per device an LLM-fit
    table (model size x quantisation) and a fine-tuning table, then the formulas; anything of
    another shape is rendered generically."""
    L = lambda k, **f: label(k, lang, **f)  # noqa: E731
    if not isinstance(estimates, dict) or not estimates:
        return []
    devices = estimates.get("devices")
    known = isinstance(devices, list) and all(isinstance(d, dict) for d in devices) and \
        any(isinstance(d.get("llm"), list) for d in devices)
    if not known:
        kv, tables = estimate_tables(estimates, lang)
        for t in tables:
            t.level = 3
        return [Table("estimates", L("estimates"), None, kv)] + tables
    summary = [clean(tr(x, lang)) for x in estimates.get("summary") or [] if x]
    notes = " ".join(clean(tr(x, lang)) for x in estimates.get("notes") or [] if x)
    out = [Table("estimates", L("estimates"), [L("summary")], [[x] for x in summary],
                 note=(f"{L('basis')}: {word(estimates.get('basis'), lang)}. " if estimates.get("basis") else "")
                 + notes)]
    for dev in devices:
        name = clean(dev.get("device")) or clean(dev.get("kind")) \
            or L("unknown")
        facts = []
        for key, src in (("memory_bytes", "memory_source"), ("bandwidth_gbps", "bandwidth_source"),
                         ("flops_gflops", "flops_source")):
            if dev.get(key) is not None:
                facts.append(f"{fmt_value(key, dev[key], lang)}"
                             + (f" ({clean(dev.get(src))})" if dev.get(src) else ""))
        llm = [r for r in dev.get("llm") or [] if isinstance(r, dict)]
        quants: list[str] = []
        sizes: list[str] = []
        cells: dict[tuple, str] = {}
        for r in llm:
            q, size = clean(r.get("quant")), clean(r.get("size") or r.get("params_b"))
            if q not in quants:
                quants.append(q)
            if size not in sizes:
                sizes.append(size)
            if r.get("fits"):
                text = L("fits")
                if r.get("total_bytes") is not None:
                    text += f", {fmt_bytes(r['total_bytes'], lang)}"
                if num(r.get("decode_tokens_per_s")) is not None:
                    text += f", {_tok(r['decode_tokens_per_s'])}"
            else:
                text = L("too_big") + (f" ({fmt_bytes(r['total_bytes'], lang)})"
                                       if r.get("total_bytes") is not None else "")
            cells[(size, q)] = text
        if llm:
            out.append(Table("estimates_llm", f"{name}: {L('llm_fit')}", [L("model_size")] + quants,
                             [[sz] + [cells.get((sz, q), "") for q in quants] for sz in sizes],
                             note="; ".join(facts) or None, level=3))
        ft = [r for r in dev.get("finetune") or [] if isinstance(r, dict)]
        if ft:
            methods: list[str] = []
            fsizes: list[str] = []
            fcells: dict[tuple, str] = {}
            for r in ft:
                meth, size = clean(r.get("method")), clean(r.get("size") or r.get("params_b"))
                if meth not in methods:
                    methods.append(meth)
                if size not in fsizes:
                    fsizes.append(size)
                fcells[(size, meth)] = (L("fits") if r.get("fits") else L("too_big")) + \
                    (f", {fmt_bytes(r['bytes'], lang)}" if r.get("bytes") is not None else "")
            out.append(Table("estimates_finetune", f"{name}: {L('finetune')}", [L("model_size")] + methods,
                             [[sz] + [fcells.get((sz, m), "") for m in methods] for sz in fsizes],
                             level=3))
    formulas = estimates.get("formulas")
    if isinstance(formulas, dict) and formulas:
        out.append(Table("estimates_formulas", L("formulas"), None,
                         [[clean(k), clean(tr(v, lang))] for k, v in formulas.items()], level=3))
    return out


# --------------------------------------------------------------------------- sections

@dataclass
class Table:
    key: str
    title: str
    headers: list[str] | None = None   # None: a key/value table
    rows: list[list[str]] = field(default_factory=list)
    note: str | None = None
    level: int = 2                     # heading level (2 = section, 3 = subsection)
    status_col: int | None = None      # column holding a readiness/status word (for colour)
    status_keys: list[str] = field(default_factory=list)  # the untranslated word per row
    wide_cols: list[int] = field(default_factory=list)     # columns left out on paper (pdf)

    def narrow(self) -> "Table":
        """The same table without its ``wide_cols`` (for A4 output)."""
        if not self.wide_cols or self.headers is None:
            return self
        keep = [i for i in range(len(self.headers)) if i not in self.wide_cols]
        status = keep.index(self.status_col) if self.status_col in keep else None
        return Table(self.key, self.title, [self.headers[i] for i in keep],
                     [[row[i] for i in keep if i < len(row)] for row in self.rows], self.note,
                     self.level, status, self.status_keys, [])


def build_sections(report, lang: str = "en") -> list[Table]:
    L = lambda k, **f: label(k, lang, **f)  # noqa: E731
    U = lambda v: or_unknown(v, lang)  # noqa: E731
    p, c, m = report.platform, report.cpu, report.memory
    sections: list[Table] = []

    sections.append(Table("summary", L("summary"), None, [
        [L("created"), U(report.created)],
        [L("version"), U(report.accelgui_version)],
        [L("schema"), U(report.schema_version)],
        [L("sysroot"), U(report.sysroot)],
    ]))

    cloud = p.cloud if isinstance(p.cloud, dict) else None
    cloud_text = " ".join(x for x in (clean(cloud.get("provider")), clean(cloud.get("instance_type")))
                          if x) if cloud else ""
    plat = [
        [L("os"), U(p.os)], [L("os_release"), U(p.os_release)], [L("kernel"), U(p.kernel)],
        [L("machine"), U(p.machine)], [L("hostname"), U(p.hostname)],
        [L("virtualization"), clean(p.virtualization) or L("none")],
        [L("container"), clean(p.container) or L("none")],
        [L("cloud"), cloud_text or L("none")],
    ]
    system = dmi_text(p.dmi, "sys_vendor", "product_name", "product_version")
    if system:
        plat.append([L("system"), system])
    board = dmi_text(p.dmi, "board_vendor", "board_name")
    if board:
        plat.append([L("board"), board])
    bios = dmi_text(p.dmi, "bios_vendor", "bios_version", "bios_date")
    if bios:
        plat.append([L("bios"), bios])
    sections.append(Table("platform", L("platform"), None, plat))

    clock = ""
    if c.max_mhz:
        clock = f"{fmt_num(c.max_mhz)} MHz max" + (f", {fmt_num(c.min_mhz)} MHz min" if c.min_mhz else "")
    cpu_rows = [
        [L("model"), U(c.model_name)],
        [L("vendor"), " / ".join(x for x in (clean(c.vendor), clean(c.vendor_id)) if x) or L("unknown")],
        [L("arch"), U(c.arch)], [L("uarch"), U(c.microarchitecture)],
        [L("topology"), cpu_topology(c, lang)],
        [L("logical_cpus"), U(c.logical_cpus)], [L("numa_nodes"), U(c.numa_nodes)],
        [L("clock"), clock or L("unknown")],
        [L("caches"), cache_text(c) or L("unknown")],
        [L("features"), " ".join(clean(f) for f in key_features(c)) or L("none")],
    ]
    if c.hypervisor_vendor:
        cpu_rows.append([L("hypervisor"), clean(c.hypervisor_vendor)])
    sections.append(Table("cpu", L("cpu"), None, cpu_rows))

    sections.append(Table("memory", L("memory"), None, [
        [L("total"), fmt_bytes(m.total_bytes, lang)],
        [L("available"), fmt_bytes(m.available_bytes, lang)],
        [L("numa_nodes"), U(m.numa_nodes)],
    ]))

    dev_rows, dev_status = [], []
    for i, d in enumerate(report.devices):
        kind = word(d.kind, lang) + (f" ({L('integrated')})" if d.integrated else "")
        where = " ".join(x for x in (clean(d.bus), clean(d.address)) if x)
        ids = clean(d.pci_id or d.usb_id)
        mem = device_memory(d)
        fix = clean(device_text(d, "fix", lang))
        why = clean(device_text(d, "readiness_reason", lang))
        remedy = f"{why} — {fix}" if why and fix else (fix or why)
        dev_rows.append([str(i), kind, clean(d.vendor) or L("unknown"), clean(d.name) or L("unknown"),
                         where or L("unknown"), ids, clean(d.driver) or L("none"),
                         fmt_bytes(mem, lang) if mem is not None else "",
                         word(d.readiness, lang), remedy,
                         ", ".join(device_highlights(d, lang)[1 if mem is not None else 0:])])
        dev_status.append(d.readiness)
    sections.append(Table("devices", L("devices"),
                          ["#", L("kind"), L("vendor"), L("name"), L("address"), L("pci_id"),
                           L("driver"), L("device_memory"), L("readiness"), L("fix"), L("details")],
                          dev_rows, note=None if dev_rows else L("no_devices"),
                          status_col=8, status_keys=dev_status, wide_cols=[2, 5, 10]))

    sw = report.software
    sections.append(Table("software", L("software"), None, [], level=2))
    sections.append(Table("packages", L("packages"), [L("package"), L("pkg_version")],
                          [[clean(k), clean(v) or L("unknown")] for k, v in sorted((sw.packages or {}).items())],
                          note=None if sw.packages else L("none"), level=3))
    sections.append(Table("toolkits", L("toolkits"), [L("name"), L("pkg_version")],
                          [[clean(k), clean(v) or L("unknown")] for k, v in sorted((sw.toolkits or {}).items())],
                          note=None if sw.toolkits else L("none"), level=3))
    if sw.compilers:
        sections.append(Table("compilers", L("compilers"), [L("name"), L("pkg_version")],
                              [[clean(k), clean(v if not isinstance(v, dict) else v.get("version"))
                                or L("unknown")] for k, v in sorted(sw.compilers.items())], level=3))
    sections.append(Table("providers", L("providers"), [L("name")],
                          [[clean(x)] for x in sw.providers or []],
                          note=None if sw.providers else L("none"), level=3))

    sections.extend(benchmark_sections(report, lang))   # accelgui/export/benchmarks.py

    if report.routes:
        rrows, rstat = [], []
        for r in report.routes:
            steps = [step_text(s, lang) for s in (r.next_steps or [])[:3]]
            blocking = blocking_texts(r, lang)
            rrows.append([route_title(r, lang) + (f" [{clean(r.id)}]" if r.title else ""),
                          word(r.status, lang),
                          "; ".join(clean(tr(x, lang)) for x in r.reasons or []),
                          "; ".join(blocking), ", ".join(steps)])
            rstat.append(r.status)
        sections.append(Table("routes", L("routes"),
                              [L("route"), L("status"), L("reasons"), L("blocking"), L("next_steps")],
                              rrows, status_col=1, status_keys=rstat))

    sections.extend(estimate_sections(report.estimates, lang))

    prow, pstat = [], []
    for pr in report.probes:
        prow.append([clean(pr.name), word(pr.status, lang),
                     fmt_num(round(pr.elapsed_ms, 1)) if num(pr.elapsed_ms) is not None else "",
                     clean(pr.error)])
        pstat.append(pr.status)
    counts = probe_counts(report)
    sections.append(Table("probes", L("probes"), [L("probe"), L("status"), L("elapsed"), L("error")],
                          prow, note=L("probes_summary", **counts) if prow else None,
                          status_col=1, status_keys=pstat))
    return sections



# The benchmark section lives in its own module (it reads through accelgui.benchmarks); its
# helpers keep their names here for the other exporters (looked up on first use: that module
# imports this one).
_BENCHMARK_NAMES = ("GPU_FP32", "GPU_PEAK_BW", "GPU_TRIAD", "gpu_entries", "gpu_value",
                    "theoretical_pairs", "theory_finder")


def __getattr__(name):
    if name in _BENCHMARK_NAMES:
        from accelgui.export import benchmarks

        return getattr(benchmarks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def benchmark_sections(report, lang: str = "en") -> list:
    from accelgui.export import benchmarks

    return benchmarks.sections(report, lang)
