"""The RULE language of the knowledge base, evaluated against a report.

A requirement of a learning route carries a rule (SPEC.md, "RULE language")::

    {"device": {"kind": "gpu", "vendor": ["nvidia", "amd"], "readiness": "ready",
                "integrated": false, "bus": "pci", "min": {"compute_capability": 7.5}}}
    {"cpu_feature": "avx512_bf16"}   {"cpu_features_any": ["avx2", "neon"]}
    {"arch": ["x86_64", "aarch64"]}  {"os": "Linux"}  {"cloud": true}  {"container": false}
    {"package": "openvino"}  {"packages_any": ["torch", "jax"]}  {"toolkit": "cuda_toolkit"}
    {"provider": "onnxruntime:CUDAExecutionProvider"}
    {"metric": "benchmarks.cpu.stream.triad_gbps", "min": 10}
    {"memory_min_bytes": 8589934592}  {"logical_cpus_min": 4}
    {"all": [RULE, ...]}  {"any": [RULE, ...]}  {"not": RULE}

:func:`evaluate` answers with three-valued logic and the facts of the report it used::

    (True | False | None, ["NVIDIA H100 80GB HBM3, compute capability 9.0, ... (ready)", ...])

``None`` means *unknown*: the report does not hold the figure (a benchmark that was not run,
a compute capability the probes could not read, a device whose readiness is "unknown").
``all``/``any``/``not`` follow Kleene logic: ``any`` is True if one part is True, False if all
are False, else None; ``all`` is the dual; ``not None`` is None. The advisor decides what an
unknown means for a route (it counts as not met, with the reason saying it is unknown).

The module is pure: it reads only the report dict it is given. A rule with an operator or a
device filter it does not know raises :class:`KnowledgeRuleError` naming it, so a typo in a
route file is never silently read as "not met".
"""

from __future__ import annotations

import re

__all__ = ["KnowledgeRuleError", "Fact", "evaluate", "validate", "describe_device",
           "device_label", "resolve_path", "OPERATORS", "DEVICE_FILTERS"]

OPERATORS = ("device", "cpu_feature", "cpu_features_any", "arch", "package", "packages_any",
             "toolkit", "provider", "metric", "memory_min_bytes", "logical_cpus_min", "os",
             "cloud", "container", "all", "any", "not")
DEVICE_FILTERS = ("kind", "vendor", "bus", "readiness", "integrated", "min")


class KnowledgeRuleError(ValueError):
    """A rule the evaluator does not understand (unknown operator, filter or bad argument)."""


class Fact(str):
    """A fact string with a tag saying what kind of evidence it is.

    ``tag``: "ok" (something present that satisfies the rule), "absent" (nothing of the
    kind on this machine), "miss" (something present that does not satisfy the rule),
    "unknown" (the report lacks the figure).
    """

    tag: str = "ok"
    meta: dict | None = None

    def __new__(cls, text: str, tag: str = "ok", meta: dict | None = None):
        obj = super().__new__(cls, text)
        obj.tag = tag
        obj.meta = meta
        return obj


# --------------------------------------------------------------------------- texts

_T = {
    "no_kind": {"en": "no {what} here", "zh": "本机没有 {what}"},
    "no_devices": {"en": "no accelerator devices found", "zh": "没有发现加速设备"},
    "or": {"en": " or ", "zh": "或"},
    "vendor_not": {"en": "vendor {got}, not {want}", "zh": "厂商为 {got}，不是 {want}"},
    "kind_not": {"en": "a {got}, not a {want}", "zh": "是 {got}，不是 {want}"},
    "integrated": {"en": "integrated, not a discrete card", "zh": "是集成显卡/核心，不是独立卡"},
    "discrete": {"en": "a discrete device, not an integrated one", "zh": "是独立设备，不是集成设备"},
    "bus_not": {"en": "on the {got} bus, not {want}", "zh": "位于 {got} 总线，不是 {want}"},
    "readiness_unknown": {"en": "readiness unknown", "zh": "就绪状态未知"},
    "below": {"en": "{label} {got} below {want}", "zh": "{label} 为 {got}，低于 {want}"},
    "detail_unknown": {"en": "{label} unknown", "zh": "{label} 未知"},
    "cpu_feature_present": {"en": "cpu feature {name} present", "zh": "CPU 支持 {name}"},
    "cpu_feature_absent": {"en": "cpu feature {name} absent", "zh": "CPU 不支持 {name}"},
    "cpu_features_none": {"en": "none of the cpu features {names} present",
                          "zh": "CPU 不支持 {names} 中的任何一项"},
    "cpu_features_unknown": {"en": "cpu features unknown", "zh": "CPU 特性未知"},
    "arch_is": {"en": "CPU architecture {got}", "zh": "CPU 架构 {got}"},
    "arch_not": {"en": "CPU architecture {got}, not {want}", "zh": "CPU 架构为 {got}，不是 {want}"},
    "arch_unknown": {"en": "CPU architecture unknown", "zh": "CPU 架构未知"},
    "os_is": {"en": "operating system {got}", "zh": "操作系统 {got}"},
    "os_not": {"en": "operating system {got}, not {want}", "zh": "操作系统为 {got}，不是 {want}"},
    "os_unknown": {"en": "operating system unknown", "zh": "操作系统未知"},
    "package_yes": {"en": "package {name} {version} installed", "zh": "已安装软件包 {name} {version}"},
    "package_no": {"en": "package {name} not installed", "zh": "未安装软件包 {name}"},
    "packages_unknown": {"en": "Python packages of a recorded machine tree are unknown ({names})",
                         "zh": "录制的机器目录中的 Python 软件包未知（{names}）"},
    "packages_none": {"en": "none of the packages {names} installed",
                      "zh": "{names} 均未安装"},
    "toolkit_yes": {"en": "toolkit {name} {version} found", "zh": "已找到工具链 {name} {version}"},
    "toolkit_no": {"en": "toolkit {name} not found", "zh": "未找到工具链 {name}"},
    "provider_yes": {"en": "runtime provider {name} available", "zh": "运行时提供程序 {name} 可用"},
    "provider_no": {"en": "runtime provider {name} not available",
                    "zh": "运行时提供程序 {name} 不可用"},
    "metric_ok": {"en": "{path} = {value} (needs at least {min})",
                  "zh": "{path} = {value}（要求至少 {min}）"},
    "metric_low": {"en": "{path} = {value}, below {min}", "zh": "{path} = {value}，低于 {min}"},
    "metric_unknown": {"en": "{path} not measured (unknown: run --bench)",
                       "zh": "{path} 未测量（未知：请加 --bench 运行）"},
    "memory_ok": {"en": "system memory {got} (needs {want})", "zh": "系统内存 {got}（要求 {want}）"},
    "memory_low": {"en": "system memory {got}, below {want}", "zh": "系统内存 {got}，少于 {want}"},
    "memory_unknown": {"en": "system memory size unknown", "zh": "系统内存大小未知"},
    "cpus_ok": {"en": "{got} logical CPUs (needs {want})", "zh": "{got} 个逻辑 CPU（要求 {want}）"},
    "cpus_low": {"en": "{got} logical CPUs, fewer than {want}", "zh": "{got} 个逻辑 CPU，少于 {want}"},
    "cpus_unknown": {"en": "number of CPUs unknown", "zh": "CPU 数量未知"},
    "cloud_yes": {"en": "running on a {provider} cloud instance{itype}", "zh": "运行在 {provider} 云主机上{itype}"},
    "cloud_no": {"en": "not on a recognised cloud instance", "zh": "不是已识别的云主机"},
    "container_yes": {"en": "running in a {name} container", "zh": "运行在 {name} 容器中"},
    "container_no": {"en": "not in a container", "zh": "不在容器中"},
    "cc": {"en": "compute capability", "zh": "计算能力"},
    "driver": {"en": "driver", "zh": "驱动"},
    "no_driver": {"en": "no driver bound", "zh": "未绑定驱动"},
    "memory": {"en": "memory", "zh": "显存/内存"},
    # readiness states, as the device line names them (English keeps the report's words)
    "ready": {"en": "ready", "zh": "就绪"},
    "driver-missing": {"en": "driver-missing", "zh": "缺少驱动"},
    "runtime-missing": {"en": "runtime-missing", "zh": "缺少运行时"},
    "no-access": {"en": "no-access", "zh": "无访问权限"},
    "unknown": {"en": "unknown", "zh": "未知"},
}

_KIND_NAMES = {"gpu": "GPU", "npu": "NPU", "tpu": "TPU", "fpga": "FPGA", "dsp": "DSP",
               "accelerator": "accelerator"}
_VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "google": "Google",
                 "xilinx": "Xilinx", "altera": "Altera", "habana": "Habana", "aws": "AWS",
                 "tenstorrent": "Tenstorrent", "hailo": "Hailo", "rockchip": "Rockchip",
                 "qualcomm": "Qualcomm", "apple": "Apple", "arm": "Arm", "broadcom": "Broadcom",
                 "mediatek": "MediaTek", "samsung": "Samsung", "graphcore": "Graphcore",
                 "cerebras": "Cerebras", "groq": "Groq", "sambanova": "SambaNova"}
_DETAIL_LABELS = {
    "compute_capability": {"en": "compute capability", "zh": "计算能力"},
    "memory_bytes": {"en": "device memory", "zh": "设备内存"},
    "memory_bandwidth_gbps": {"en": "memory bandwidth", "zh": "内存带宽"},
}


def _t(key: str, lang: str, **kw) -> str:
    entry = _T[key]
    return (entry.get(lang) or entry["en"]).format(**kw)


def _list(items, lang: str, names: dict | None = None) -> str:
    """"A", "A or B", "A, B or C" (zh: "A、B或C")."""
    words = [str((names or {}).get(i, i)) for i in items]
    if len(words) <= 1:
        return "".join(words)
    sep = "、" if lang == "zh" else ", "
    return sep.join(words[:-1]) + _t("or", lang) + words[-1]


def _gib(n) -> str:
    return f"{n / 2**30:.1f} GiB"


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# --------------------------------------------------------------------------- devices

def _vendor_word(vendor) -> str | None:
    if not vendor:
        return None
    return _VENDOR_NAMES.get(str(vendor).lower(), str(vendor))


def device_label(dev: dict) -> str:
    """Human name of a device: "NVIDIA H100 80GB HBM3" (vendor added when the name lacks it)."""
    name = (dev.get("name") or "").strip()
    vendor = _vendor_word(dev.get("vendor"))
    kind = _KIND_NAMES.get(dev.get("kind") or "", dev.get("kind") or "device")
    if not name:
        ident = dev.get("pci_id") or dev.get("usb_id")
        name = f"{kind} {ident}" if ident else kind
        if vendor:
            name = f"{vendor} {name}"
        return name
    if vendor and not name.lower().startswith(vendor.lower()) and \
            vendor.lower() not in name.lower().split():
        name = f"{vendor} {name}"
    return name


def _cc_text(cc) -> str:
    if _is_num(cc):
        return f"{float(cc):.1f}"
    return str(cc)


def describe_device(dev: dict, lang: str = "en", count: int = 1) -> str:
    """One line naming a device with the facts the advisor cites.

    "NVIDIA H100 80GB HBM3, compute capability 9.0, 79.6 GiB, driver nvidia 550.54.15 (ready)"
    """
    details = dev.get("details") or {}
    parts = [device_label(dev)]
    if count > 1:
        parts[0] = f"{count} x {parts[0]}"
    cc = details.get("compute_capability")
    if cc is not None:
        parts.append(f"{_t('cc', lang)} {_cc_text(cc)}")
    gfx = details.get("gfx_target")
    if gfx:
        parts.append(str(gfx))
    mem = details.get("memory_bytes")
    if _is_num(mem) and mem > 0:
        parts.append(_gib(mem))
    driver = dev.get("driver")
    version = details.get("driver_version")
    if driver or version:
        parts.append(" ".join(str(x) for x in (_t("driver", lang), driver, version) if x))
    else:
        parts.append(_t("no_driver", lang))
    readiness = dev.get("readiness") or "unknown"
    from accelgui import l10n         # the message, or an older report's *_zh twin

    why = l10n.field_text(dev, "readiness_reason", lang)
    word = _t(readiness, lang) if readiness in _T else readiness
    if lang == "zh":
        state = f"{word}：{why}" if why and readiness != "ready" else word
        return "，".join(parts) + f"（{state}）"
    state = f"{word}: {why}" if why and readiness != "ready" else word
    return ", ".join(parts) + f" ({state})"


def _as_list(v) -> list:
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple, set, frozenset)) else [v]


def _version_tuple(v):
    """7.5 / "7.5" / "8.9" / "10.0" / "sm_90" -> (7, 5) ...; None if unreadable."""
    if _is_num(v):
        text = f"{float(v):.1f}"
    elif isinstance(v, str):
        text = v.strip().lower().replace("sm_", "")
        if text.isdigit() and len(text) >= 2:           # "90" style (sm_90)
            text = f"{text[:-1]}.{text[-1]}"
    else:
        return None
    nums = re.findall(r"\d+", text)
    if not nums:
        return None
    return tuple(int(n) for n in nums[:2]) + ((0,) if len(nums) == 1 else ())


def _at_least(key: str, got, want):
    """True/False, or None when ``got`` is unknown/unreadable."""
    if got is None:
        return None
    if key == "compute_capability":
        g, w = _version_tuple(got), _version_tuple(want)
        if g is None or w is None:
            return None
        return g >= w
    if _is_num(got):
        return got >= want
    if isinstance(got, str):
        try:
            return float(got) >= want
        except ValueError:
            return None
    return None


def _and3(values) -> bool | None:
    out: bool | None = True
    for v in values:
        if v is False:
            return False
        if v is None:
            out = None
    return out


def _or3(values) -> bool | None:
    out: bool | None = False
    for v in values:
        if v is True:
            return True
        if v is None:
            out = None
    return out


def _device_match(dev: dict, flt: dict, lang: str) -> tuple[bool | None, list[str]]:
    """Whether one device passes every filter; the failures (or unknowns) as short texts."""
    results: list = []
    why: list[str] = []
    details = dev.get("details") or {}
    kinds = _as_list(flt.get("kind"))
    if kinds and dev.get("kind") not in kinds:
        results.append(False)
        why.append(_t("kind_not", lang, got=dev.get("kind"),
                      want=_list(kinds, lang, _KIND_NAMES)))
    vendors = [str(v).lower() for v in _as_list(flt.get("vendor"))]
    if vendors and str(dev.get("vendor") or "").lower() not in vendors:
        results.append(False)
        why.append(_t("vendor_not", lang, got=dev.get("vendor") or "?",
                      want=_list([_vendor_word(v) for v in vendors], lang)))
    buses = _as_list(flt.get("bus"))
    if buses and dev.get("bus") not in buses:
        results.append(None if dev.get("bus") is None else False)
        why.append(_t("bus_not", lang, got=dev.get("bus") or "?", want=_list(buses, lang)))
    if "integrated" in flt:
        integrated = dev.get("integrated")
        if integrated is None:
            results.append(None)
        elif bool(integrated) != bool(flt["integrated"]):
            results.append(False)
            why.append(_t("integrated" if integrated else "discrete", lang))
    wanted = _as_list(flt.get("readiness"))
    if wanted:
        got = dev.get("readiness") or "unknown"
        if got not in wanted:
            if got == "unknown":
                results.append(None)
                why.append(_t("readiness_unknown", lang))
            else:
                results.append(False)   # the device line already shows "(runtime-missing: why)"
    for key, want in (flt.get("min") or {}).items():
        got = details.get(key)
        ok = _at_least(key, got, want)
        label = (_DETAIL_LABELS.get(key) or {}).get(lang) or key.replace("_", " ")
        if ok is None:
            results.append(None)
            why.append(_t("detail_unknown", lang, label=label))
        elif not ok:
            results.append(False)
            if key == "compute_capability":
                g, w = _cc_text(got), _cc_text(want)
            elif key.endswith("_bytes"):
                g, w = _gib(float(got)), _gib(float(want))
            else:
                g, w = _num(got), _num(want)
            why.append(_t("below", lang, label=label, got=g, want=w))
    return _and3(results), why


def _group(devices: list[dict]) -> list[tuple[dict, int]]:
    """Identical devices (same name, kind, details figures, readiness) counted once."""
    out: list = []
    keys: dict = {}
    for dev in devices:
        d = dev.get("details") or {}
        key = (dev.get("kind"), dev.get("vendor"), dev.get("name"), dev.get("driver"),
               dev.get("readiness"), dev.get("readiness_reason"),
               str(d.get("compute_capability")), d.get("memory_bytes"), d.get("gfx_target"),
               d.get("driver_version"))
        if key in keys:
            out[keys[key]][1] += 1
        else:
            keys[key] = len(out)
            out.append([dev, 1])
    return [(d, n) for d, n in out]


def _what(flt: dict, lang: str) -> str:
    kinds = _as_list(flt.get("kind"))
    vendors = [_vendor_word(v) for v in _as_list(flt.get("vendor"))]
    noun = _list(kinds, lang, _KIND_NAMES) if kinds else ("加速设备" if lang == "zh" else "accelerator")
    if vendors:
        return f"{_list(vendors, lang)} {noun}"
    return noun


def _merge_absent(facts: list, lang: str) -> list:
    """"no NVIDIA GPU here" + "no AMD GPU here" -> "no NVIDIA or AMD GPU here"."""
    groups: dict = {}
    out: list = []
    for f in facts:
        meta = getattr(f, "meta", None)
        if getattr(f, "tag", "") != "absent" or not meta or not meta.get("kinds"):
            out.append(f)
            continue
        kinds = meta["kinds"]
        if kinds not in groups:
            groups[kinds] = {"vendors": [], "any_vendor": False, "pos": len(out)}
            out.append(None)
        g = groups[kinds]
        if not meta.get("vendors"):
            g["any_vendor"] = True
        for v in meta["vendors"]:
            if v not in g["vendors"]:
                g["vendors"].append(v)
    for kinds, g in groups.items():
        vendors = [] if g["any_vendor"] else g["vendors"]
        flt = {"kind": list(kinds), "vendor": vendors}
        out[g["pos"]] = Fact(_t("no_kind", lang, what=_what(flt, lang)), "absent",
                             {"kinds": kinds, "vendors": tuple(vendors)})
    return out


def _eval_device(flt, report: dict, lang: str):
    if not isinstance(flt, dict):
        raise KnowledgeRuleError(f"rule 'device' takes an object of filters, got {flt!r}")
    for key in flt:
        if key not in DEVICE_FILTERS:
            raise KnowledgeRuleError(
                f"unknown device filter '{key}' (known: {', '.join(DEVICE_FILTERS)})")
    mins = flt.get("min")
    if mins is not None and (not isinstance(mins, dict)
                             or not all(_is_num(v) for v in mins.values())):
        raise KnowledgeRuleError(f"device filter 'min' takes {{detail: number}}, got {mins!r}")
    devices = [d for d in (report.get("devices") or []) if isinstance(d, dict)]
    matched, unknown, missed = [], [], []
    for dev in devices:
        ok, why = _device_match(dev, flt, lang)
        (matched if ok else unknown if ok is None else missed).append((dev, why))
    if matched:
        return True, [Fact(describe_device(d, lang, n), "ok")
                      for d, n in _group([d for d, _ in matched])]
    kinds = _as_list(flt.get("kind"))
    vendors = [str(v).lower() for v in _as_list(flt.get("vendor"))]

    def near(dev):  # same kind (and vendor) as asked: worth naming as a near miss
        if kinds and dev.get("kind") not in kinds:
            return False
        return not vendors or str(dev.get("vendor") or "").lower() in vendors

    facts: list = []
    for group, tag in ((unknown, "unknown"), ([m for m in missed if near(m[0])], "miss")):
        seen: dict = {}
        for dev, why in group:
            text = f"{describe_device(dev, lang)}: {'; '.join(why)}" if why else describe_device(dev, lang)
            seen[text] = seen.get(text, 0) + 1
        for text, n in seen.items():
            facts.append(Fact(f"{n} x {text}" if n > 1 else text, tag))
    if unknown:
        return None, facts
    if not facts:
        facts.append(Fact(_t("no_kind", lang, what=_what(flt, lang)) if (kinds or vendors)
                          else _t("no_devices", lang), "absent",
                          {"kinds": tuple(kinds), "vendors": tuple(vendors)}))
    return False, facts


# --------------------------------------------------------------------------- the rest

def resolve_path(report: dict, path: str):
    """Value at a dotted path ("benchmarks.gpu.0.triad_gbps"); None when any part is missing."""
    node = report
    for part in path.split("."):
        if isinstance(node, dict):
            if part in node:
                node = node[part]
            elif part.isdigit() and int(part) in node:
                node = node[int(part)]
            else:
                return None
        elif isinstance(node, (list, tuple)) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
        if node is None:
            return None
    return node


_UNITS = (("_gbps", "GB/s"), ("_gflops", "GFLOP/s"), ("_tflops", "TFLOP/s"), ("_ms", "ms"),
          ("_ns", "ns"), ("_mhz", "MHz"), ("_bytes", "B"), ("_per_s", "/s"))


def _with_unit(path: str, value) -> str:
    for suffix, unit in _UNITS:
        if path.endswith(suffix):
            if unit == "B":
                return _gib(value)
            return f"{_num(value)} {unit}"
    return _num(value)


def _norm_pkg(name: str) -> str:
    return re.sub(r"[-_.]+", "-", str(name)).lower()


_PKG_VARIANT = re.compile(
    r"^-(gpu|cpu|rocm\d*|cuda\d*x?|cu\d+|openvino|directml|intel|macos|metal|qnn|vitisai|"
    r"silicon|training|nightly|headless)\b")


def _find_package(packages: dict, name: str):
    """(installed key, version) for a package or one of its build variants
    (onnxruntime-gpu, tensorflow-cpu, cupy-cuda12x), else None."""
    want = _norm_pkg(name)
    norm = {_norm_pkg(k): (k, v) for k, v in (packages or {}).items()}
    if want in norm:
        return norm[want]
    for key, kv in norm.items():
        if key.startswith(want) and _PKG_VARIANT.match(key[len(want):]):
            return kv
    return None


def _pkg_text(hit, lang: str) -> str:
    name, version = hit
    return re.sub(r"\s+", " ", _t("package_yes", lang, name=name, version=version or "")).strip()


def _cpu_name(report: dict) -> str | None:
    name = (report.get("cpu") or {}).get("model_name")
    if not name:
        return None
    name = re.sub(r"\((R|TM|r|tm)\)", "", name)
    name = re.sub(r"\s+CPU\s+@.*$", "", name)
    name = re.sub(r"\s+@\s+[\d.]+\s*GHz$", "", name)
    return re.sub(r"\s+", " ", name).strip() or None


def _cpu_prefix(report: dict, text: str) -> str:
    name = _cpu_name(report)
    return f"{name}: {text}" if name else text


def _cpu_featureset(report: dict):
    cpu = report.get("cpu") or {}
    feats = {str(f).lower() for f in (cpu.get("features") or [])}
    flags = {str(f).lower() for f in (cpu.get("flags") or [])}
    if not feats and not flags:
        return None
    return feats | flags


def _one_or_many_arg(op: str, arg) -> list[str]:
    items = _as_list(arg)
    if not items or not all(isinstance(i, str) and i for i in items):
        raise KnowledgeRuleError(f"rule '{op}' takes a string or a list of strings, got {arg!r}")
    return items


def _eval(rule, report: dict, lang: str, where: str):
    if not isinstance(rule, dict) or not rule:
        raise KnowledgeRuleError(f"{where}: a rule must be a non-empty object, got {rule!r}")
    keys = set(rule)
    if "metric" in keys:
        extra = keys - {"metric", "min"}
        if extra:
            raise KnowledgeRuleError(f"{where}: unknown rule key '{sorted(extra)[0]}' next to 'metric'")
        return _eval_metric(rule, report, lang, where)
    if len(keys) != 1:
        unknown = sorted(k for k in keys if k not in OPERATORS)
        if unknown:
            raise KnowledgeRuleError(f"{where}: unknown rule key '{unknown[0]}'")
        raise KnowledgeRuleError(
            f"{where}: a rule has exactly one operator, got {', '.join(sorted(keys))}")
    op, arg = next(iter(rule.items()))
    if op not in OPERATORS:
        raise KnowledgeRuleError(
            f"{where}: unknown rule key '{op}' (known: {', '.join(OPERATORS)})")

    if op in ("all", "any"):
        if not isinstance(arg, list) or not arg:
            raise KnowledgeRuleError(f"{where}.{op}: must be a non-empty list of rules")
        parts = [_eval(sub, report, lang, f"{where}.{op}[{i}]") for i, sub in enumerate(arg)]
        values = [v for v, _ in parts]
        value = _and3(values) if op == "all" else _or3(values)
        return value, _combine(op, value, parts, lang)
    if op == "not":
        value, facts = _eval(arg, report, lang, f"{where}.not")
        if value is None:
            return None, facts
        # what was present is now the reason the rule fails, and the other way round
        flip = {"ok": "miss", "miss": "ok", "absent": "ok", "unknown": "unknown"}
        return (not value), [Fact(str(f), flip.get(getattr(f, "tag", "ok"), "ok")) for f in facts]
    if op == "device":
        return _eval_device(arg, report, lang)

    cpu = report.get("cpu") or {}
    platform = report.get("platform") or {}
    software = report.get("software") or {}

    if op == "cpu_feature":
        if not isinstance(arg, str) or not arg:
            raise KnowledgeRuleError(f"{where}: rule 'cpu_feature' takes a feature name")
        feats = _cpu_featureset(report)
        if feats is None:
            return None, [Fact(_t("cpu_features_unknown", lang), "unknown")]
        if arg.lower() in feats:
            return True, [Fact(_cpu_prefix(report, _t("cpu_feature_present", lang, name=arg)))]
        return False, [Fact(_cpu_prefix(report, _t("cpu_feature_absent", lang, name=arg)), "miss")]
    if op == "cpu_features_any":
        if not isinstance(arg, list):
            raise KnowledgeRuleError(f"{where}: rule 'cpu_features_any' takes a list")
        names = _one_or_many_arg(op, arg)
        feats = _cpu_featureset(report)
        if feats is None:
            return None, [Fact(_t("cpu_features_unknown", lang), "unknown")]
        present = [n for n in names if n.lower() in feats]
        if present:
            return True, [Fact(_cpu_prefix(report, _t("cpu_feature_present", lang,
                                                      name=", ".join(present))))]
        return False, [Fact(_cpu_prefix(report, _t("cpu_features_none", lang,
                                                   names=", ".join(names))), "miss")]
    if op == "arch":
        want = _one_or_many_arg(op, arg)
        got = cpu.get("arch") or platform.get("machine")
        if not got:
            return None, [Fact(_t("arch_unknown", lang), "unknown")]
        if got in want:
            return True, [Fact(_t("arch_is", lang, got=got))]
        return False, [Fact(_t("arch_not", lang, got=got, want=_list(want, lang)), "miss")]
    if op == "os":
        want = _one_or_many_arg(op, arg)
        got = platform.get("os")
        if not got:
            return None, [Fact(_t("os_unknown", lang), "unknown")]
        if got.lower() in [w.lower() for w in want]:
            return True, [Fact(_t("os_is", lang, got=got))]
        return False, [Fact(_t("os_not", lang, got=got, want=_list(want, lang)), "miss")]
    if op == "package":
        if not isinstance(arg, str) or not arg:
            raise KnowledgeRuleError(f"{where}: rule 'package' takes a package name")
        hit = _find_package(software.get("packages") or {}, arg)
        if hit:
            return True, [Fact(_pkg_text(hit, lang))]
        if software.get("packages_known") is False:
            return None, [Fact(_t("packages_unknown", lang, names=arg), "unknown")]
        return False, [Fact(_t("package_no", lang, name=arg), "absent")]
    if op == "packages_any":
        if not isinstance(arg, list):
            raise KnowledgeRuleError(f"{where}: rule 'packages_any' takes a list of names")
        names = _one_or_many_arg(op, arg)
        pk = software.get("packages") or {}
        hits = [h for h in (_find_package(pk, n) for n in names) if h]
        if hits:
            return True, [Fact(_pkg_text(h, lang)) for h in hits]
        if software.get("packages_known") is False:
            return None, [Fact(_t("packages_unknown", lang, names=", ".join(names)), "unknown")]
        return False, [Fact(_t("packages_none", lang, names=", ".join(names)), "absent")]
    if op == "toolkit":
        if not isinstance(arg, str) or not arg:
            raise KnowledgeRuleError(f"{where}: rule 'toolkit' takes a toolkit name")
        toolkits = software.get("toolkits") or {}
        if arg in toolkits:
            version = toolkits[arg]
            return True, [Fact(re.sub(r"\s+", " ", _t("toolkit_yes", lang, name=arg,
                                                      version=version or "")).strip())]
        return False, [Fact(_t("toolkit_no", lang, name=arg), "absent")]
    if op == "provider":
        if not isinstance(arg, str) or not arg:
            raise KnowledgeRuleError(f"{where}: rule 'provider' takes a provider name")
        providers = software.get("providers") or []
        if arg in providers:
            return True, [Fact(_t("provider_yes", lang, name=arg))]
        return False, [Fact(_t("provider_no", lang, name=arg), "absent")]
    if op == "memory_min_bytes":
        if not _is_num(arg):
            raise KnowledgeRuleError(f"{where}: rule 'memory_min_bytes' takes a number of bytes")
        got = (report.get("memory") or {}).get("total_bytes")
        if not _is_num(got):
            return None, [Fact(_t("memory_unknown", lang), "unknown")]
        if got >= arg:
            return True, [Fact(_t("memory_ok", lang, got=_gib(got), want=_gib(arg)))]
        return False, [Fact(_t("memory_low", lang, got=_gib(got), want=_gib(arg)), "miss")]
    if op == "logical_cpus_min":
        if not _is_num(arg):
            raise KnowledgeRuleError(f"{where}: rule 'logical_cpus_min' takes a number")
        got = cpu.get("logical_cpus")
        if not _is_num(got):
            return None, [Fact(_t("cpus_unknown", lang), "unknown")]
        if got >= arg:
            return True, [Fact(_t("cpus_ok", lang, got=got, want=arg))]
        return False, [Fact(_t("cpus_low", lang, got=got, want=arg), "miss")]
    if op == "cloud":
        if not isinstance(arg, bool):
            raise KnowledgeRuleError(f"{where}: rule 'cloud' takes true or false")
        cloud = platform.get("cloud")
        if cloud:
            provider = cloud.get("provider") if isinstance(cloud, dict) else str(cloud)
            itype = cloud.get("instance_type") if isinstance(cloud, dict) else None
            fact = _t("cloud_yes", lang, provider=provider or "?",
                      itype=f" ({itype})" if itype else "")
        else:
            fact = _t("cloud_no", lang)
        value = bool(cloud) == arg
        return value, [Fact(fact, "ok" if value else "miss")]
    if op == "container":
        if not isinstance(arg, bool):
            raise KnowledgeRuleError(f"{where}: rule 'container' takes true or false")
        container = platform.get("container")
        fact = _t("container_yes", lang, name=container) if container else _t("container_no", lang)
        value = bool(container) == arg
        return value, [Fact(fact, "ok" if value else "miss")]
    raise KnowledgeRuleError(f"{where}: unknown rule key '{op}'")  # pragma: no cover


def _eval_metric(rule: dict, report: dict, lang: str, where: str):
    path = rule.get("metric")
    if not isinstance(path, str) or not re.match(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$", path):
        raise KnowledgeRuleError(f"{where}: rule 'metric' takes a dotted report path, got {path!r}")
    if "min" not in rule or not _is_num(rule["min"]):
        raise KnowledgeRuleError(f"{where}: rule 'metric' needs a numeric 'min'")
    want = rule["min"]
    got = resolve_path(report, path)
    if not _is_num(got):
        return None, [Fact(_t("metric_unknown", lang, path=path), "unknown")]
    if got >= want:
        return True, [Fact(_t("metric_ok", lang, path=path, value=_with_unit(path, got),
                              min=_with_unit(path, want)))]
    return False, [Fact(_t("metric_low", lang, path=path, value=_with_unit(path, got),
                           min=_with_unit(path, want)), "miss")]


def _combine(op: str, value, parts, lang: str) -> list:
    """Facts worth citing for an all/any result, without repeats."""
    if value is True:
        chosen = [f for v, fs in parts if v is True for f in fs]
    elif value is None:
        chosen = [f for v, fs in parts if v is None for f in fs]
        if op == "all":
            chosen += [f for v, fs in parts if v is True for f in fs]
    else:
        chosen = [f for v, fs in parts if v is False for f in fs]
        if op == "any":
            # a near miss ("Intel UHD Graphics: integrated") says more than "no AMD GPU here"
            specific = [f for f in chosen if getattr(f, "tag", "") == "miss"]
            chosen = specific if specific else _merge_absent(chosen, lang)
    out, seen = [], set()
    for f in chosen:
        if str(f) not in seen:
            seen.add(str(f))
            out.append(f)
    return out


def evaluate(rule, report, lang: str = "en") -> tuple[bool | None, list[str]]:
    """Evaluate a RULE against a report (a dict as Report.to_dict() gives, or a Report).

    Returns (True | False | None, facts). Raises KnowledgeRuleError for a rule it does not
    understand, naming the key.
    """
    if hasattr(report, "to_dict"):
        report = report.to_dict()
    value, facts = _eval(rule, report or {}, lang, "rule")
    return value, list(facts)


def validate(rule) -> None:
    """Raise KnowledgeRuleError if ``rule`` uses anything the evaluator does not know."""
    _eval(rule, {}, "en", "rule")
