"""What this machine can run: LLM inference and fine-tuning memory and speed, per device.

Labelled estimates (formulas in docs/knowledge.md, "What can this machine run"), citing the
figure each one uses. Pure functions of the report; split out of :mod:`accelgui.advisor`, which
re-exports the public names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from accelgui import benchmarks, l10n, rules
from accelgui.knowledge import support

JSON = dict[str, Any]
Text = Callable[..., str]      # a catalogue text: text(key, **params)

__all__ = ["estimates", "source_kind", "ESTIMATE_TEXTS", "QUANTS", "llm_row",
           "kv_cache_bytes", "weights_bytes", "decode_tokens_per_s", "prefill_tokens_per_s",
           "FORMULAS", "FINETUNE_METHODS"]

CONTEXT_TOKENS = 4096
KV_BYTES_PER_ELEMENT = 2            # fp16 KV cache
EFFICIENCY = 0.55                   # achieved share of bandwidth during decode
EFFICIENCY_RANGE = (0.5, 0.6)
DEVICE_OVERHEAD = 0.10              # runtime, CUDA context, fragmentation
CPU_FALLBACK_SHARE = 0.8            # of total memory, when "available" is unknown

QUANTS = (("FP16", 16.0), ("Q8_0", 8.5), ("Q4_K_M", 4.8))

#: Every human-readable string of :func:`estimates`, as (English, Chinese) templates read from
#: the ``advisor`` message catalogue (ids ``advisor.est.<key>``); the numbers, keys and report
#: references inside them are the same in both languages.
ESTIMATE_TEXTS: dict[str, tuple[str, str]] = {
    id_[len("advisor.est."):]: (text, l10n.catalogue("zh").get(id_, text))
    for id_, text in l10n.catalogue("en").items() if id_.startswith("advisor.est.")}


def _t(key: str, lang: str = "en", **fmt: Any) -> str:
    """The estimate text ``key`` in ``lang`` ("zh", "zh_CN": Chinese; else English)."""
    pair = ESTIMATE_TEXTS[key]
    text = pair[1] if str(lang or "").lower().startswith("zh") else pair[0]
    return text.format(**fmt) if fmt else text


def _obj(value: object) -> JSON:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _texts(lang: str) -> Callable[..., str]:
    """The estimates' catalogue texts in ``lang``, as ``text(key, **params)``."""
    def text(key: str, **params: Any) -> str:
        return _t(key, lang, **params)
    return text


#: Bytes of memory per parameter for fine-tuning, before activations:
#: (English name, bytes per parameter, English basis, text key).
FINETUNE_METHODS = tuple(
    (ESTIMATE_TEXTS[key][0], per_param, ESTIMATE_TEXTS[key + "_basis"][0], key)
    for key, per_param in (("ft_full", 16.0), ("ft_lora", 2.16), ("ft_qlora", 0.72)))

_FORMULA_KEYS = ("weights_bytes", "kv_cache_bytes", "fits", "memory_available",
                 "decode_tokens_per_s", "prefill_tokens_per_s", "finetune_bytes")


def _formulas(lang: str = "en") -> JSON:
    fmt = {"decode_tokens_per_s": {"eff": EFFICIENCY, "lo": EFFICIENCY_RANGE[0],
                                   "hi": EFFICIENCY_RANGE[1]}}
    return {k: _t("f_" + k, lang, **fmt.get(k, {})) for k in _FORMULA_KEYS}


FORMULAS = _formulas("en")


def weights_bytes(params_b: float, bits_per_weight: float) -> int:
    return int(round(params_b * 1e9 * bits_per_weight / 8))


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int,
                   context: int = CONTEXT_TOKENS, bytes_per_element: int = KV_BYTES_PER_ELEMENT) -> int:
    return 2 * layers * kv_heads * head_dim * context * bytes_per_element


def decode_tokens_per_s(bandwidth_gbps: Any, weights: float, efficiency: float = EFFICIENCY) -> Any:
    if not bandwidth_gbps or not weights:
        return None
    return bandwidth_gbps * 1e9 / weights * efficiency


def prefill_tokens_per_s(flops_gflops: Any, params_b: float) -> Any:
    if not flops_gflops or not params_b:
        return None
    return flops_gflops * 1e9 / (2 * params_b * 1e9)


def _r(x: Any, nd: int = 1) -> Any:
    return None if x is None else round(x, nd)


# --------------------------------------------------------------------------- decode model

def calibration() -> JSON:
    """knowledge/decode_calibration.json: the decode model and the published points."""
    return support.load_data("decode_calibration.json")


def catalogue() -> list[JSON]:
    """knowledge/models.json: the model catalogue (dense and MoE)."""
    rows: list[JSON] = support.load_data("models.json")["models"]["rows"]
    return rows


def _bits_key(bits: float) -> str:
    return "16" if bits >= 12 else "8" if bits >= 7 else "4"


def model_kv_bytes(model: JSON, context: int) -> int:
    """fp16 KV cache for ``context`` tokens (MLA models give their own bytes per token)."""
    per_token = model.get("kv_bytes_per_token_fp16")
    if per_token is None:
        per_token = 2 * model["layers"] * model["kv_heads"] * model["head_dim"] * KV_BYTES_PER_ELEMENT
    return int(per_token * context)


def decode_class(device_class: str, vendor: str | None, memory_type: str | None = None) -> str:
    """The decode-model class of a device: a GPU whose memory type has its own calibration
    (``model.memory_classes``: HBM -> "gpu-hbm", fitted on data-centre cards) uses it, else a
    GPU whose vendor has one (``model.vendor_classes``: AMD -> "gpu-amd", Intel -> "gpu-intel");
    other GPUs keep the "gpu" class, calibrated on NVIDIA/CUDA consumer figures."""
    if device_class != "gpu":
        return device_class
    model = calibration()["model"]
    for prefix, cls in (model.get("memory_classes") or {}).items():
        if str(memory_type or "").upper().startswith(prefix.upper()):
            return str(cls)
    return str(model.get("vendor_classes", {}).get(vendor or "", device_class))


#: Decode speed below which a model is not "usable" for interactive use (tokens/s): about
#: reading speed. "What it can run" names the largest model at this speed or faster, and
#: the largest that merely fits beside it (docs/knowledge.md).
USABLE_TOKENS_PER_S = 5.0


def device_floor() -> JSON:
    """knowledge/decode_calibration.json ``device_floor``: the least a GPU needs to get an LLM
    line of its own (peak FP32, dedicated memory)."""
    return calibration().get("device_floor") or {}


def _below_floor(dev: JSON, shared: bool) -> bool:
    d = dev.get("details") or {}
    floor = device_floor()
    fp32 = _num(d.get("peak_fp32_gflops"))
    if fp32 and floor.get("fp32_gflops") and fp32 < floor["fp32_gflops"]:
        return True
    mem = _num(d.get("memory_bytes"))
    return bool(not shared and mem and floor.get("memory_bytes") and mem < floor["memory_bytes"])


def decode_model(bandwidth_gbps: Any, read_bytes: float, bits: float, device_class: str = "gpu",
                 cores: Any = None, active_params_b: Any = None) -> Any:
    """Single-stream decode tokens/s: bytes read per token (active weights + KV cache) over
    the calibrated share of bandwidth for this quantisation and device class, plus the
    class's per-token floor; CPUs are also capped by their compute (2 x active parameters
    FLOPs per token over cores x per-core rate). None without a bandwidth."""
    if not bandwidth_gbps or not read_bytes:
        return None
    model = calibration()["model"]["classes"]
    cls = model.get(device_class) or model["gpu"]
    t = read_bytes / (cls["efficiency"][_bits_key(bits)] * bandwidth_gbps * 1e9) \
        + cls["floor_ms"] / 1000
    if cls.get("per_core_gflops") and cores and active_params_b:
        t = max(t, 2 * active_params_b * 1e9 / (cores * cls["per_core_gflops"] * 1e9))
    return 1 / t


def llm_row(model: JSON, quant: str, bits: float, bandwidth_gbps: Any, flops_gflops: Any,
            budget_bytes: Any, device_class: str = "gpu", context: int = CONTEXT_TOKENS,
            cores: Any = None) -> JSON:
    """One (model, format) estimate for a memory of ``budget_bytes``: every weight must be
    resident (MoE: all experts), a token reads the active ones and the KV cache."""
    total_b = model["params_b"]
    active_b = model.get("active_params_b") or total_b
    w = weights_bytes(total_b, bits)
    kv = model_kv_bytes(model, context)
    fits = None if budget_bytes is None else (w + kv) <= budget_bytes
    run = fits is not False
    read = weights_bytes(active_b, bits) + kv
    dec = decode_model(bandwidth_gbps, read, bits, device_class, cores, active_b) if run else None
    lo_f, hi_f = calibration()["model"]["range"]
    pre = prefill_tokens_per_s(flops_gflops, active_b) if run else None
    return {
        "size": model.get("name") or model.get("size"), "model": model.get("id"),
        "params_b": total_b, "active_params_b": active_b, "quant": quant,
        "bits_per_weight": bits, "weights_bytes": w, "kv_cache_bytes": kv,
        "context_tokens": context, "total_bytes": w + kv, "fits": fits,
        "decode_tokens_per_s": _r(dec),
        "decode_tokens_per_s_range": [_r(dec * lo_f), _r(dec * hi_f)] if dec is not None else None,
        "prefill_tokens_per_s": _r(pre),
    }


def formats_for(device_class: str, segment: str | None = None) -> tuple[str, list[Any]]:
    """(runtime, [(format, bits per weight), ...]) for a device class: GGUF quantisations for
    llama.cpp-class runtimes, BF16/FP8/INT8 for vLLM, TensorRT-LLM and the vendor runtimes."""
    key = "gpu-datacentre" if device_class == "gpu" and segment == "data-centre" else device_class
    for row in support.load_data("models.json")["formats"]["rows"]:
        if key in row["classes"]:
            return row["runtime"], [(f, float(b)) for f, b in row["formats"]]
    return "llama.cpp", [(f, float(b)) for f, b in QUANTS]


def inference_only(label: str) -> bool:
    rows = support.load_data("models.json")["inference_only"]["rows"]
    return any(re.search(r["pattern"], label or "") for r in rows)


def _finetune_rows(budget_bytes: Any, sharded: bool = False, lang: str = "en") -> list[JSON]:
    rows = []
    dense = [m for m in catalogue() if m.get("active_params_b", m["params_b"]) == m["params_b"]]
    for model in dense:                 # fine-tuning figures for the dense models of the catalogue
        for _, per_param, _, key in FINETUNE_METHODS:
            b = int(round(model["params_b"] * 1e9 * per_param))
            rows.append({"size": model["name"], "params_b": model["params_b"],
                         "method": _t(key, lang) + (_t("ft_sharded", lang) if sharded else ""),
                         "bytes_per_param": per_param, "bytes": b,
                         "basis": _t(key + "_basis", lang),
                         "fits": None if budget_bytes is None else b <= budget_bytes})
    return rows


def _num(v: Any) -> Any:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _gpu_index(dev: JSON, ordinal: int) -> int:
    d = dev.get("details") or {}
    for key in ("index", "cuda_index", "nvml_index"):
        v = d.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return ordinal


_gib = rules._gib


def integrated_rule(dev: JSON) -> JSON | None:
    """The memory rule of an integrated GPU's vendor (``integrated_memory.vendors`` of
    knowledge/decode_calibration.json: AMD carve-out + GTT, Intel a share of RAM), or None
    when its vendor has none (the GPU is then not estimated)."""
    if dev.get("kind") != "gpu":
        return None
    if _num((dev.get("details") or {}).get("gpu_memory_limit_bytes")):
        return {"basis": "os limit"}        # macOS: the unified memory the GPU may wire (below)
    vendors = (calibration().get("integrated_memory") or {}).get("vendors") or {}
    return vendors.get(dev.get("vendor") or "")


def _igpu_memory(rd: JSON, dev: JSON, pos: int, rule: JSON, notes: list[Any], label: str, text: Text) -> Any:
    """(GPU-addressable bytes, budget for weights + KV cache, source text) of an integrated
    GPU: its own VRAM carve-out when the driver recorded one (amdgpu), plus the system memory
    it may map (the recorded GTT limit, else the vendor's default limit), that part capped by
    the memory free now, which the CPU estimate counts too."""
    d = dev.get("details") or {}
    sysmem = rd.get("memory") or {}
    total, avail = _num(sysmem.get("total_bytes")), _num(sysmem.get("available_bytes"))
    if avail:
        free, free_ref = int(avail), "memory.available_bytes"
    elif total:
        free, free_ref = int(total * CPU_FALLBACK_SHARE), f"memory.total_bytes x {CPU_FALLBACK_SHARE}"
    else:
        free, free_ref = None, None
    carve = _num(d.get("memory_bytes")) if d.get("memory_source") == "amdgpu" else None
    limit, limit_src = None, None
    if "gtt_share_of_ram" in rule:
        if _num(d.get("gtt_total_bytes")):
            limit = int(d["gtt_total_bytes"])
            limit_src = text("mem_igpu_gtt_sysfs", ref=f"devices[{pos}].details.gtt_total_bytes")
        elif total:
            limit = max(int(rule["gtt_min_bytes"]), int(total * rule["gtt_share_of_ram"]))
            limit_src = text("mem_igpu_gtt_default", share=rule["gtt_share_of_ram"],
                             min=_gib(rule["gtt_min_bytes"]))
    elif total:
        limit = int(total * rule["share_of_ram"])
        limit_src = text("mem_igpu_share", share=rule["share_of_ram"])
    shared = min(limit, free) if limit and free else None
    pct = int(DEVICE_OVERHEAD * 100)
    parts = []
    if carve:
        parts.append(text("mem_igpu_carve", ref=f"devices[{pos}].details.memory_bytes", pct=pct))
    if shared:
        parts.append(text("mem_igpu_free", limit=limit_src, free=free_ref))
    budget = (int(carve * (1 - DEVICE_OVERHEAD)) if carve else 0) + (shared or 0)
    if carve and shared:
        notes.append(text("note_igpu_runtime", label=label, carve=_gib(carve), gtt=_gib(shared)))
    if not budget:
        return None, None, None
    return (carve or 0) + (limit or 0), budget, text("mem_igpu_plus").join(parts)


def _skip_note(dev: JSON, d: JSON, label: str, shared: bool, igpu_rule: Any, text: Text) -> tuple[bool, str | None]:
    """Whether a device gets no entry of its own, and the note that says why (None: no note)."""
    mem = _num(d.get("memory_bytes"))
    readiness = dev.get("readiness") or "unknown"
    if dev.get("kind") == "npu":
        return True, text("note_npu", label=label)
    if "nvswitch" in (dev.get("name") or "").lower():
        return True, None                               # a switch chip, not a compute device
    if readiness not in ("ready", "unknown", "runtime-missing", "driver-missing") or (
            readiness == "driver-missing" and dev.get("kind") != "gpu"):
        return True, text("note_unusable", label=label, readiness=readiness)
    gpu = dev.get("kind") == "gpu"
    if gpu and shared and "specification" in d and d["specification"] is None \
            and not _num(d.get("memory_bandwidth_gbps")):
        # an integrated GPU no specification row knows (an id newer or older than the
        # tables): whether it clears the device floor is unknown, so no LLM line of its own
        return True, text("note_igpu_unknown", label=label)
    if gpu and _below_floor(dev, shared):
        return True, text("note_below_floor", label=label, gflops=f"{device_floor().get('fp32_gflops', 0):g}",
                       gib=_gib(device_floor().get("memory_bytes") or 0))
    if shared and not (gpu and dev.get("vendor") == "nvidia" and mem) and igpu_rule is None:
        return True, text("note_igpu", label=label) if gpu else None
    return not (gpu or (mem and mem >= 2**30)), None


def _bandwidth(rd: JSON, dev: JSON, pos: int, index: Any, figures: tuple[Any, ...], igpu_rule: Any, label: str,
               notes: list[Any], text: Text) -> tuple[Any, ...]:
    """(GB/s, source text, "measured" | "specification" | None) of one device's memory: measured
    on it, else NVML's peak, else its specification row, else (an iGPU) the CPU's triad."""
    d = dev.get("details") or {}
    bkey, entry = figures
    measured = benchmarks.memory_bandwidth(rd, dev, index)
    if not measured and igpu_rule is not None and not _num(entry.get("memory_peak_gbps")) \
            and not _num(d.get("memory_bandwidth_gbps")):
        # an iGPU reads the system memory: the CPU's triad on it is a measurement of that
        # memory (by the CPU cores, which on an APU often pull less than its GPU)
        sysmem = benchmarks.memory_bandwidth(rd)
        if not sysmem:
            return None, None, None
        if (sysmem.get("rel_spread") or 0) > NOISY_SPREAD:
            notes.append(text("note_noisy", label=label, pct=int(sysmem["rel_spread"] * 100)))
        return sysmem["median_gbps"], text("bw_igpu_cpu", src=_measured_source(sysmem, text)), "measured"
    if measured:
        if (measured.get("rel_spread") or 0) > NOISY_SPREAD:
            notes.append(text("note_noisy", label=label, pct=int(measured["rel_spread"] * 100)))
        return measured["median_gbps"], _measured_source(measured, text), "measured"
    if _num(entry.get("memory_peak_gbps")):
        return entry["memory_peak_gbps"], text("spec_nvml", ref=f"benchmarks.gpu.{bkey}.memory_peak_gbps"), \
            "specification"
    if _num(d.get("memory_bandwidth_gbps")):
        how = d.get("memory_bandwidth_source")
        ref = f"devices[{pos}].details.memory_bandwidth_gbps"
        return d["memory_bandwidth_gbps"], text("spec", ref=f"{ref}, {how}" if how and how != "specification"
                                             else ref), "specification"
    return None, None, None


def _flops(d: JSON, pos: int, figures: tuple[Any, ...], text: Text) -> tuple[Any, ...]:
    """(GFLOP/s, source text, measured FP32?) of one device: measured on it, else its details."""
    bkey, entry = figures
    if _num(entry.get("fp32_gflops")):
        return entry["fp32_gflops"], text("measured", ref=f"benchmarks.gpu.{bkey}.fp32_gflops"), True
    for key in ("fp16_gflops", "fp32_gflops", "peak_fp32_gflops"):
        if _num(d.get(key)):
            return d[key], text("spec", ref=f"devices[{pos}].details.{key}"), False
    return None, None, False


def _device_memory(rd: JSON, dev: JSON, pos: int, shared: bool, igpu_rule: Any, label: str,
                   notes: list[Any], text: Text) -> tuple[Any, ...]:
    """(total bytes, budget bytes, source text) of the memory a device's model lives in: its
    own less the runtime's overhead, the shared rule of an integrated GPU, or what is free."""
    d = dev.get("details") or {}
    mem = _num(d.get("memory_bytes"))
    budget = int(mem * (1 - DEVICE_OVERHEAD)) if mem else None
    mem_src = text("mem_device", ref=f"devices[{pos}].details.memory_bytes",
                pct=int(DEVICE_OVERHEAD * 100)) if mem else None
    if igpu_rule is not None and not (mem and d.get("memory_source") != "amdgpu"):
        # (a memory figure other than amdgpu's carve-out is the whole unified memory, as
        # on a Jetson or an MI300A: the shared rule below)
        mem, budget, mem_src = _igpu_memory(rd, dev, pos, igpu_rule, notes, label, text)
        notes.append(text("note_shared", label=label))
    elif shared:
        avail = _num((rd.get("memory") or {}).get("available_bytes"))
        if avail and budget and avail < budget:
            budget = int(avail)
            mem_src = text("mem_shared")
        wired = _num(d.get("gpu_memory_limit_bytes"))     # macOS's limit on GPU-wired memory
        if wired and budget and wired < budget:
            budget = int(wired)
            mem_src = text("mem_igpu_os_limit", ref=f"devices[{pos}].details.gpu_memory_limit_bytes")
        notes.append(text("note_shared", label=label))
    return mem, budget, mem_src


def _device_entries(rd: JSON, notes: list[Any], lang: str = "en") -> list[JSON]:
    T = _texts(lang)
    entries = []
    groups: dict[tuple[Any, ...], JSON] = {}
    ordinal_by_vendor: dict[str, int] = {}
    for pos, dev in enumerate(rd.get("devices") or []):
        if not isinstance(dev, dict):
            continue
        d = dev.get("details") or {}
        label = rules.device_label(dev)
        shared = bool(dev.get("integrated")) or rules.device_form(dev) == "integrated"
        igpu_rule = integrated_rule(dev) if shared and dev.get("kind") != "npu" else None
        skip, note = _skip_note(dev, d, label, shared, igpu_rule, T)
        if note:
            notes.append(note)
        if skip:
            continue
        # its driver is bound and its nodes are there, only a compute runtime is missing (ROCm,
        # CUDA user space, a vendor SDK), or its driver is not installed yet (the card is often
        # why the machine was bought): what it can run once that is done is estimated, and the
        # entry says so
        needs_runtime = dev.get("readiness") == "runtime-missing"
        needs_driver = dev.get("readiness") == "driver-missing"
        vendor = dev.get("vendor") or "?"
        ordinal = ordinal_by_vendor.get(vendor, 0)
        ordinal_by_vendor[vendor] = ordinal + 1
        index = _gpu_index(dev, ordinal)
        figures = benchmarks.gpu_figures(rd, dev, index)
        bw, bw_src, bw_kind = _bandwidth(rd, dev, pos, index, figures, igpu_rule, label, notes, T)
        flops, fl_src, fl_measured_fp32 = _flops(d, pos, figures, T)
        mem, budget, mem_src = _device_memory(rd, dev, pos, shared, igpu_rule, label, notes, T)
        key = (dev.get("name"), mem, bw_kind, vendor)
        if key in groups:
            g = groups[key]
            g["count"] += 1
            g["indices"].append(index)
            g["bw_sum"] = (g["bw_sum"] + bw) if (g["bw_sum"] is not None and bw) else None
            g["fl_sum"] = (g["fl_sum"] + flops) if (g["fl_sum"] is not None and flops) else None
            continue
        item = {
            "device": T("device", label=label, index=index),
            "kind": dev.get("kind"),
            "class": "apple" if vendor == "apple" else "gpu" if dev.get("kind") == "gpu" else "accelerator",
            "segment": rules.device_segment(dev),
            "inference_only": inference_only(label),
            "memory_total_bytes": mem,
            "memory_bytes": budget,
            "memory_source": mem_src,
            "bandwidth_gbps": bw, "bandwidth_source": bw_src,
            "flops_gflops": flops, "flops_source": fl_src,
            "shared_memory": shared,
            "needs_runtime": needs_runtime,
            "needs_driver": needs_driver,
            "count": 1, "indices": [index],
        }
        if (d.get("specification") or {}).get("match") == "name":
            notes.append(T("note_name_match", label=label))
        if d.get("memory_sizes_bytes"):
            item["memory_sizes_bytes"] = list(d["memory_sizes_bytes"])
            notes.append(T("note_smallest_size", label=label, gib=_gib(mem or 0),
                           sizes=", ".join(_gib(b) for b in d["memory_sizes_bytes"])))
        if isinstance(d.get("package"), dict) and d["package"].get("devices"):
            item["package"] = dict(d["package"])
        if needs_runtime:
            notes.append(T("note_needs_runtime", label=label))
        if needs_driver:
            notes.append(T("note_needs_driver", label=label))
        item["decode_class"] = decode_class(item["class"], vendor, d.get("memory_type"))
        if mem is None:
            notes.append(T("note_mem_unknown", label=label))
        if bw is None:
            notes.append(T("note_bw_unknown", label=label))
        elif bw_kind == "specification":
            notes.append(T("note_bw_spec", label=label, bw=f"{bw:g}"))
        if fl_measured_fp32:
            notes.append(T("note_fp32", label=label))
        groups[key] = {"item": item, "count": 1, "indices": [index], "bw_sum": bw,
                       "fl_sum": flops, "label": label, "mem": mem}
        entries.append(item)
    # identical devices: say so, and add an aggregate entry (tensor/pipeline parallel)
    for g in groups.values():
        if g["count"] < 2:
            continue
        item = g["item"]
        item["count"] = g["count"]
        item["indices"] = g["indices"]
        item["device"] = T("device_each", label=g["label"], index=g["indices"][0], n=g["count"])
        per = (item.get("package") or {}).get("devices")
        if per and g["count"] >= per:
            notes.append(T("note_package", n=g["count"], label=g["label"], cards=g["count"] // per,
                           package=item["package"]["name"], per=per))
        mem_all = g["mem"] * g["count"] if g["mem"] else None
        entries.append({
            "device": T("device_split", n=g["count"], label=g["label"],
                        indices=T("indices_sep").join(str(i) for i in g["indices"])),
            "kind": item["kind"],
            "memory_total_bytes": mem_all,
            "memory_bytes": int(mem_all * (1 - DEVICE_OVERHEAD)) if mem_all else None,
            "memory_source": T("mem_sum", pct=int(DEVICE_OVERHEAD * 100)) if mem_all else None,
            # llama.cpp splits layers over the cards: memory pools, decode speed does not add up
            "bandwidth_gbps": item["bandwidth_gbps"],
            "bandwidth_source": T("bw_pooled", n=g["count"], src=item["bandwidth_source"])
            if item["bandwidth_gbps"] else None,
            "class": item["class"], "decode_class": item["decode_class"], "segment": item["segment"],
            "inference_only": item["inference_only"],
            "flops_gflops": _r(g["fl_sum"], 1),
            "flops_source": T("fl_sum", n=g["count"], src=item["flops_source"])
            if g["fl_sum"] else None,
            "count": g["count"], "indices": g["indices"], "aggregate": True,
        })
    return entries


def _cpu_entry(rd: JSON, notes: list[Any], lang: str = "en") -> JSON:
    T = _texts(lang)
    cpu_b = benchmarks.cpu_figures(rd)
    mem = rd.get("memory") or {}
    avail, total = _num(mem.get("available_bytes")), _num(mem.get("total_bytes"))
    # memory on NUMA nodes without CPUs (a GH200's HBM, a CXL expander) is counted in MemTotal
    # but is the accelerator's or far memory: out of the CPU pool
    far = _num(mem.get("numa_memory_only_bytes"))
    if far and total:
        total = max(total - far, 0) or None
        avail = min(avail, total) if avail and total else avail
    if avail:
        budget, src = int(avail), T("mem_free")
    elif total:
        budget = int(total * CPU_FALLBACK_SHARE)
        src = T("mem_total_share", share=CPU_FALLBACK_SHARE)
    else:
        budget, src = None, None
        notes.append(T("note_sysmem_unknown"))
    if far and budget and src:
        src += T("mem_far_out", gib=_gib(far))
    limit = _num(mem.get("cgroup_limit_bytes"))
    if limit and (budget is None or limit < budget):
        budget, src = int(limit), T("mem_cgroup", gib=_gib(limit))
        notes.append(T("note_cgroup", gib=_gib(limit)))
    measured = benchmarks.memory_bandwidth(rd)
    spec_bw, spec_note = _cpu_spec_bandwidth(mem, T)
    bw_src: str | None
    if measured:
        bw = measured["median_gbps"]
        bw_src = _measured_source(measured, T)
        if (measured.get("rel_spread") or 0) > NOISY_SPREAD:
            notes.append(T("note_noisy", label="CPU", pct=int(measured["rel_spread"] * 100)))
    elif spec_bw:
        bw, bw_src = spec_bw, spec_note
        lower = not _num(mem.get("bandwidth_spec_gbps"))
        notes.append(T("note_cpu_bw_lower" if lower else "note_cpu_bw_spec", bw=f"{spec_bw:g}"))
    else:
        bw, bw_src = None, None
        notes.append(T("note_cpu_bw_unknown"))
    gemm, fma = _obj(cpu_b.get("gemm")), _obj(cpu_b.get("fma"))
    flops, fl_src = None, None
    if _num(gemm.get("sgemm_gflops")):
        flops, fl_src = gemm["sgemm_gflops"], T("measured", ref="benchmarks.cpu.gemm.sgemm_gflops")
    elif _num(fma.get("fp32_gflops_mt")):
        flops = fma["fp32_gflops_mt"]
        fl_src = T("measured_peak", ref="benchmarks.cpu.fma.fp32_gflops_mt")
    cpu = rd.get("cpu") or {}
    cores = cpu.get("physical_cores") or cpu.get("logical_cpus")
    quota = _num(mem.get("cgroup_cpu_limit")) or _num(cpu.get("cgroup_cpu_limit"))
    if quota and (not cores or quota < cores):
        cores = max(1, int(quota))
        notes.append(T("note_cgroup_cpu", n=f"{quota:g}"))
    return {
        "device": T("cpu_device") + (T("cpu_model", model=cpu["model_name"])
                                     if cpu.get("model_name") else ""),
        "kind": "cpu", "class": "cpu", "segment": None, "inference_only": False,
        "cores": cores,
        "memory_total_bytes": total,
        "memory_bytes": budget, "memory_source": src,
        "bandwidth_gbps": bw, "bandwidth_source": bw_src,
        "flops_gflops": flops, "flops_source": fl_src,
        "count": 1, "indices": [],
    }


def _cpu_spec_bandwidth(mem: JSON, text: Text) -> tuple[float | None, str | None]:
    """(GB/s, source) of the system memory's specification when nothing was measured: the
    peak the memory probe found (SMBIOS speed x populated channels, or the dated table of parts
    whose memory is fixed by the part); for a socketed part known only by its platform (no
    SMBIOS: a VM, an unprivileged run), a lower bound of one 64-bit channel at the platform's
    speed, since any running machine has at least one populated channel."""
    peak = _num(mem.get("bandwidth_spec_gbps"))
    if peak:
        how = mem.get("bandwidth_spec_source") or "specification"
        return peak, text("spec", ref=f"memory.bandwidth_spec_gbps, {how}")
    spec = _obj(mem.get("bandwidth_spec"))
    if spec.get("fixed") is not False:
        return None, None
    low = _num(spec.get("min_gbps"))
    if low:
        return low, text("spec_lower_bound", ref="memory.bandwidth_spec.min_gbps")
    speed = _num(spec.get("speed_mts"))
    if speed:
        one = round(speed * 8 / 1000, 1)
        return one, text("spec_one_channel", kind=str(spec.get("memory_type") or "DRAM"),
                         speed=f"{speed:g}", ref="memory.bandwidth_spec.speed_mts")
    return None, None


def _measured_source(measured: JSON, text: Text) -> str:
    """"measured (median of repeats, range lo-hi)" for a figure from benchmarks.memory_bandwidth."""
    bw = measured["median_gbps"]
    lo, hi = measured.get("min_gbps") or bw, measured.get("max_gbps") or bw
    return text("measured_median", lo=f"{lo:g}", hi=f"{hi:g}")


NOISY_SPREAD = 0.20     # measured repeats spread wider than this: the figure is flagged


def estimates(report: Any, lang: str = "en", context: int | None = None) -> JSON:
    """What this machine can run: LLM inference and fine-tuning memory and speed, per device.

    Labelled estimates from the formulas in docs/knowledge.md, citing the figure each one uses
    (measured benchmark, else specification, else null with a note). Every human-readable
    string (notes, device names, sources, method names, summary lines, formulas) is in
    ``lang`` ("en", or "zh"/"zh_CN" for Chinese, from :data:`ESTIMATE_TEXTS`); the keys, the
    numbers and ``label``/``basis`` are the same in every language."""
    rd = rules.as_dict(report)
    context = int(context or CONTEXT_TOKENS)
    if context < 1:
        raise ValueError("context must be a positive number of tokens")
    notes: list[str] = [_t("note_not_measured", lang),
                        _t("note_memory", lang, context=context)]
    entries = _device_entries(rd, notes, lang) + [_cpu_entry(rd, notes, lang)]
    for e in entries:
        e["runtime"], formats = formats_for(e["class"], e.get("segment"))
        e["llm"] = [llm_row(m, q, bits, e["bandwidth_gbps"], e["flops_gflops"], e["memory_bytes"],
                            str(e.get("decode_class", e["class"])), context, e.get("cores"))
                    for m in catalogue() for q, bits in formats]
        if e["inference_only"]:
            e["finetune"] = []
            notes.append(_t("note_inference_only", lang, device=e["device"]))
        else:
            e["finetune"] = _finetune_rows(e["memory_bytes"], sharded=bool(e.get("aggregate")),
                                           lang=lang)
        e["largest_fitting"] = _largest(e["llm"])
        e["largest_usable"] = _largest(e["llm"], min_speed=USABLE_TOKENS_PER_S)
        e["largest_at_10_tokens_per_s"] = _largest(e["llm"], min_speed=10.0)
        if e.get("aggregate") and e["bandwidth_gbps"]:
            notes.append(_t("note_layer_split", lang, device=e["device"]))
    kinds = {source_kind(e["bandwidth_source"]) for e in entries}
    if kinds == {"measured"}:
        basis = "measured"
    elif kinds == {"unknown"}:
        basis = "unknown"
    elif "unknown" in kinds and len(kinds) == 2 and "measured" in kinds:
        basis = "partly measured"
    elif kinds == {"specification"}:
        basis = "specification"
    else:
        basis = "mixed"
    return {
        "label": "estimates",
        "basis": basis,
        "summary": [_summary_line(e, lang) for e in entries],
        "assumptions": {
            "context_tokens": context,
            "usable_tokens_per_s": USABLE_TOKENS_PER_S,
            "device_floor": device_floor() or None,
            "kv_cache_bytes_per_element": KV_BYTES_PER_ELEMENT,
            "decode_model": calibration()["model"],
            "decode_calibration": {"points": len(calibration()["points"]),
                                   "as_of": calibration()["as_of"],
                                   "source": calibration()["source"]},
            "device_memory_overhead_fraction": DEVICE_OVERHEAD,
            "integrated_memory": calibration().get("integrated_memory"),
            "quantisations": {q: bits for row in support.load_data("models.json")["formats"]["rows"]
                              for q, bits in row["formats"]},
            "architectures": [
                {"size": m["name"], "model": m["id"], "params_b": m["params_b"],
                 "active_params_b": m["active_params_b"], "layers": m["layers"],
                 "kv_heads": m["kv_heads"], "head_dim": m["head_dim"], "like": m["name"]}
                for m in catalogue()],
            "finetune_bytes_per_param": {name: b for name, b, _, _ in FINETUNE_METHODS},
        },
        "devices": entries,
        "notes": notes,
        "formulas": _formulas(lang),
    }


def _first_word(text: str) -> str:
    """``text`` up to its first space or opening bracket (ASCII or full-width)."""
    for i, ch in enumerate(text):
        if ch.isspace() or ch in "(\uff08":
            return text[:i]
    return text


_MEASURED_WORDS = tuple(_first_word(text) for text in ESTIMATE_TEXTS["measured"])


def source_kind(src: Any) -> str:
    """"measured", "specification" or "unknown" for a source string of :func:`estimates`
    in either language."""
    if not src:
        return "unknown"
    return "measured" if any(w in str(src) for w in _MEASURED_WORDS) else "specification"


_source_kind = source_kind


def _largest(rows: list[Any], min_speed: float | None = None) -> JSON | None:
    """The biggest model (then the best quantisation) that fits (at ``min_speed`` tokens/s
    or faster, when given): a one-line summary."""
    fitting = [r for r in rows if r["fits"] and (min_speed is None or (
        r["decode_tokens_per_s"] is not None and r["decode_tokens_per_s"] >= min_speed))]
    if not fitting:
        return None
    best = max(fitting, key=lambda r: (r["params_b"], r["bits_per_weight"]))
    return {"size": best["size"], "params_b": best["params_b"], "quant": best["quant"],
            "decode_tokens_per_s": best["decode_tokens_per_s"]}


def _summary_line(e: JSON, lang: str = "en") -> str:
    """"NVIDIA H100 80GB HBM3 (index 0): 71.7 GiB for weights; largest LLM that fits: 70B
    Q8_0, ~25 tokens/s decode (specification bandwidth); fine-tuning fits: full 3B, ..."."""
    T = _texts(lang)
    parts = [T("sum_device", device=e["device"])]
    if e.get("needs_runtime"):
        parts.append(T("sum_needs_runtime"))
    if e.get("needs_driver"):
        parts.append(T("sum_needs_driver"))
    package = _obj(e.get("package"))
    if package.get("devices") and not e.get("aggregate"):
        parts.append(T("sum_package", n=package["devices"], package=package.get("name") or "?"))
    if e["memory_bytes"]:
        parts.append(T("sum_weights", gib=_gib(e["memory_bytes"])))
    big = e.get("largest_fitting")
    if e["memory_bytes"] is None:
        parts.append(T("sum_mem_unknown"))
    elif big is None:
        parts.append(T("sum_none_fits"))
    elif big["decode_tokens_per_s"] is None:
        parts.append(T("sum_largest", size=big["size"], quant=big["quant"], speed=""))
    else:
        # what it can run: the largest model at a usable speed, then the largest that fits
        src = T("src_" + source_kind(e["bandwidth_source"]))
        usable = e.get("largest_usable")
        if usable:
            parts.append(T("sum_usable", size=usable["size"], quant=usable["quant"],
                           min=f"{USABLE_TOKENS_PER_S:g}",
                           speed=T("sum_speed", n=f"{usable['decode_tokens_per_s']:g}", src=src)))
        else:
            parts.append(T("sum_none_usable", min=f"{USABLE_TOKENS_PER_S:g}"))
        if usable != big:
            parts.append(T("sum_fits_slow", size=big["size"], quant=big["quant"],
                           n=f"{big['decode_tokens_per_s']:g}"))
    fits = []
    for _, per_param, _, key in FINETUNE_METHODS:
        rows = [r for r in e["finetune"] if r["bytes_per_param"] == per_param and r["fits"]]
        if rows:
            fits.append(T("sum_ft_item", short=T(key + "_short"),
                          size=max(rows, key=lambda r: r["params_b"])["size"]))
    if fits:
        parts.append(T("sum_ft_fits", items=T("sum_ft_sep").join(fits)))
    elif e["memory_bytes"] is not None:
        parts.append(T("sum_ft_none"))
    return T("sum_sep").join(parts).rstrip(T("sum_end"))
