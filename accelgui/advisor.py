"""The advisor: which learning routes this machine supports, what to learn next, and what it
can run. Pure functions of (report, knowledge base, learner progress): no I/O, no /sys.

Route status, from the route's requirements (SPEC.md, RULE language in accelgui.rules):

  ready        every requirement, required and recommended, is met
  partial      every required one is met, some recommended one is not (a runtime to install)
  remote       some required one is not met, and every unmet required one has a fallback of
               cloud, emulation or simulation: follow the route on rented or simulated hardware
  unavailable  an unmet required one has fallback "none"

Unknown (a rule that evaluates to None: a figure the probes could not read, such as the
compute capability of a GPU missing from every table, or a CPU architecture in a tree without
/proc/cpuinfo) is neither met nor unmet. A *required* one that is unknown gives "partial",
never "ready" (that would send a learner on evidence we lack) and never "remote" or
"unavailable" (those claim the hardware is missing); the reason says what is unknown. A
*recommended* one that is unknown (the Python packages of a recorded tree, a benchmark not
run) does not lower a verdict: the reasons name it, and "partial" is kept for something known
to be missing.

Next steps per route (at most ``MAX_STEPS``): steps not done; a step comes after its
prerequisites (an undone prerequisite from another route is listed just before the step that
needs it); among the steps whose prerequisites are satisfied, those this machine can run
locally (all their "needs" met) come first, then by level, then by their order in the route.
"""

from __future__ import annotations

import re

from accelgui import rules
from accelgui.knowledge import tr as _tr
from accelgui.report import RouteAssessment

__all__ = ["assess", "estimates", "source_kind", "ESTIMATE_TEXTS", "overall_next_steps", "requirement_results",
           "MAX_STEPS",
           "MODEL_SIZES", "QUANTS", "llm_row", "kv_cache_bytes", "weights_bytes",
           "decode_tokens_per_s", "prefill_tokens_per_s"]

MAX_STEPS = 5
LEVEL_RANK = {"beginner": 0, "intermediate": 1, "advanced": 2}
STATUS_RANK = {"ready": 0, "partial": 1, "remote": 2, "unavailable": 3}


def _as_dict(report) -> dict:
    if hasattr(report, "to_dict"):
        return report.to_dict()
    return dict(report or {})


def _first_sentence(text: str) -> str:
    text = (text or "").strip()
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z(])|(?<=[。！？])", text)
    return text[:m.start()].strip() if m else text


# --------------------------------------------------------------------------- requirements

def requirement_results(report, kb, lang: str = "en") -> dict:
    """{requirement id: (True|False|None, facts, requirement dict, error or None)} for every
    requirement of every route."""
    rd = _as_dict(report)
    out: dict = {}
    for route in kb.routes.values():
        for req in route.get("requirements", []):
            try:
                value, facts = rules.evaluate(req.get("rule"), rd, lang)
                error = None
            except rules.KnowledgeRuleError as exc:
                value, error = None, str(exc)
                facts = [rules.Fact(f"knowledge file error in requirement {req.get('id')}: {exc}",
                                    "unknown")]
            out[req.get("id")] = (value, facts, req, error)
    return out


def _status(reqs: list, results: dict) -> str:
    required = [r for r in reqs if r.get("level") == "required"]
    failed = [r for r in required if results[r["id"]][0] is False]
    unknown = [r for r in required if results[r["id"]][0] is None]
    if any(r.get("fallback", "none") == "none" for r in failed):
        return "unavailable"
    if failed:
        return "remote"
    if unknown:     # the hardware may well be there: "remote" would claim it is missing
        return "partial"
    if any(results[r["id"]][0] is False for r in reqs if r.get("level") != "required"):
        return "partial"
    return "ready"


MAX_FACTS = 3          # per reason line; blocking[].facts keeps them all
_MORE = {"en": "{n} more", "zh": "另有 {n} 项"}
_UNKNOWN_NOTE = {"en": "unknown, so not confirmed", "zh": "未知，无法确认"}
_UNKNOWN_RECOMMENDED = {"en": "unknown, check it yourself", "zh": "未知，请自行确认"}


def _reasons(reqs: list, results: dict, lang: str) -> list[str]:
    def line(req):
        value, facts, _, _ = results[req["id"]]
        shown = [str(f) for f in facts[:MAX_FACTS]]
        if len(facts) > MAX_FACTS:
            shown.append(_MORE.get(lang, _MORE["en"]).format(n=len(facts) - MAX_FACTS))
        zh = lang == "zh"
        sep, colon = ("；", "：") if zh else ("; ", ": ")
        text = sep.join(shown) or _tr(req.get("label"), lang)
        if value is True:
            return text
        fix = _first_sentence(_tr(req.get("fix"), lang))
        if value is None:
            notes = _UNKNOWN_NOTE if req.get("level") == "required" else _UNKNOWN_RECOMMENDED
            note = notes.get(lang, notes["en"])
            text = f"{text}（{note}）" if zh else f"{text} ({note})"
        return f"{text}{colon}{fix}" if fix else text

    required = [r for r in reqs if r.get("level") == "required"]
    recommended = [r for r in reqs if r.get("level") != "required"]
    ordered = ([r for r in required if results[r["id"]][0] is not True]
               + [r for r in required if results[r["id"]][0] is True]
               + [r for r in recommended if results[r["id"]][0] is not True]
               + [r for r in recommended if results[r["id"]][0] is True])
    out: list[str] = []
    cited: set = set()
    for req in ordered:
        value, facts = results[req["id"]][0], results[req["id"]][1]
        keys = {(value is True, str(f)) for f in facts}
        if keys and keys <= cited:
            continue            # the same evidence is already on the list (blocking has the fix)
        cited |= keys
        text = line(req)
        if text and text not in out:
            out.append(text)
    return out


def _blocking(reqs: list, results: dict, lang: str) -> list[dict]:
    out = []
    for req in reqs:
        value, facts, _, error = results[req["id"]]
        if value is True:
            continue
        out.append({
            "requirement": req["id"],
            "level": req.get("level"),
            "label": _tr(req.get("label"), lang),
            "fix": _tr(req.get("fix"), lang),
            "fallback": req.get("fallback", "none"),
            "state": "unknown" if value is None else "unmet",
            "facts": [str(f) for f in facts],
            **({"error": error} if error else {}),
        })
    return out


# --------------------------------------------------------------------------- next steps

def _runs_locally(step: dict, results: dict) -> bool:
    return all(results.get(n, (None,))[0] is True for n in step.get("needs") or [])


def _rank_steps(route: dict, kb, done: frozenset, results: dict, cap: int) -> list[str]:
    steps = [s for s in route.get("steps", []) if isinstance(s, dict) and s.get("id")]
    index = {s["id"]: i for i, s in enumerate(steps)}
    pending = [s for s in steps if s["id"] not in done]
    scheduled = set(done)
    listed: list[str] = []

    def prereqs(step):
        return [p for p in step.get("prerequisites") or [] if p in kb.steps or p in index]

    def chain(step, seen=None):
        """Undone prerequisites from other routes, deepest first (topological)."""
        seen = set() if seen is None else seen
        out = []
        for p in prereqs(step):
            if p in scheduled or p in index or p in seen:
                continue
            seen.add(p)
            out.extend(chain(kb.steps[p], seen))
            out.append(p)
        return out

    def key(step):
        return (0 if _runs_locally(step, results) else 1,
                LEVEL_RANK.get(step.get("level"), 3), index[step["id"]])

    while pending and len(listed) < cap:
        available = [s for s in pending
                     if all(p in scheduled or p not in index for p in prereqs(s))]
        best = min(available or pending, key=key)       # `or pending`: a cycle never hangs us
        before = [p for p in chain(best) if p not in scheduled]
        if len(listed) + len(before) >= cap and listed:
            # no room for the step after its prerequisites: list what fits, in order
            for p in before[:cap - len(listed)]:
                listed.append(p)
                scheduled.add(p)
            break
        for p in before:
            listed.append(p)
            scheduled.add(p)
        if len(listed) >= cap:
            break
        listed.append(best["id"])
        scheduled.add(best["id"])
        pending.remove(best)
    return listed[:cap]


def overall_next_steps(assessments: list, kb=None, n: int = 5) -> list[str]:
    """Top ``n`` steps over all routes, for an overview.

    Steps of routes that are ready here come first, then partial, remote, unavailable. With
    the knowledge base, steps are then ranked by level and by how many other steps build on
    them (foundations first: the CPU route's basics before a niche route's), always after
    their own prerequisites; without it, round robin over the routes of a tier."""
    tier_of: dict = {}
    pos_of: dict = {}
    for r_index, a in enumerate(assessments):
        tier = STATUS_RANK.get(a.status, 9)
        for i, sid in enumerate(a.next_steps):
            if sid not in tier_of or (tier, r_index, i) < (tier_of[sid], *pos_of[sid]):
                tier_of[sid] = tier
                pos_of[sid] = (r_index, i)
    if not tier_of:
        return []
    if kb is None or not getattr(kb, "steps", None):
        out: list[str] = []
        for tier in sorted(set(tier_of.values())):
            lists = [[s for s in a.next_steps if tier_of.get(s) == tier] for a in assessments]
            depth = 0
            while len(out) < n and any(depth < len(lst) for lst in lists):
                for lst in lists:
                    if depth < len(lst) and lst[depth] not in out and len(out) < n:
                        out.append(lst[depth])
                depth += 1
        return out[:n]
    dependants = _dependant_counts(kb)
    # a step inherits the best tier of anything that needs it, so prerequisites are not
    # pushed behind the steps they unlock
    candidates = set(tier_of)
    prereq = {s: [p for p in (kb.steps.get(s) or {}).get("prerequisites") or [] if p in candidates]
              for s in candidates}
    changed = True
    while changed:
        changed = False
        for s in candidates:
            for p in prereq[s]:
                if tier_of[p] > tier_of[s]:
                    tier_of[p] = tier_of[s]
                    changed = True

    def key(s):
        step = kb.steps.get(s) or {}
        return (tier_of[s], LEVEL_RANK.get(step.get("level"), 3), -dependants.get(s, 0),
                pos_of[s])

    out = []
    pending = set(candidates)
    while pending and len(out) < n:
        ready = [s for s in pending if all(p not in pending for p in prereq[s])]
        best = min(ready or pending, key=key)
        out.append(best)
        pending.discard(best)
    return out


def _dependant_counts(kb) -> dict:
    """How many steps (transitively) build on each step."""
    children: dict = {}
    for sid, step in kb.steps.items():
        for p in step.get("prerequisites") or []:
            children.setdefault(p, set()).add(sid)
    counts: dict = {}
    for sid in kb.steps:
        seen: set = set()
        stack = list(children.get(sid, ()))
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(children.get(c, ()))
        counts[sid] = len(seen)
    return counts


# --------------------------------------------------------------------------- assess

def assess(report, kb, done=frozenset(), lang: str = "en") -> list[RouteAssessment]:
    """Route assessments in knowledge-base order. ``done``: ids of the steps already done."""
    done = frozenset(done or ())
    results = requirement_results(report, kb, lang)
    out = []
    for rid, route in kb.routes.items():
        reqs = [r for r in route.get("requirements", []) if r.get("id") in results]
        out.append(RouteAssessment(
            id=rid,
            status=_status(reqs, results),
            reasons=_reasons(reqs, results, lang),
            next_steps=_rank_steps(route, kb, done, results, MAX_STEPS),
            blocking=_blocking(reqs, results, lang),
            title=_tr(route.get("title"), lang) or rid,
        ))
    return out


# --------------------------------------------------------------------------- estimates

CONTEXT_TOKENS = 4096
KV_BYTES_PER_ELEMENT = 2            # fp16 KV cache
EFFICIENCY = 0.55                   # achieved share of bandwidth during decode
EFFICIENCY_RANGE = (0.5, 0.6)
DEVICE_OVERHEAD = 0.10              # runtime, CUDA context, fragmentation
CPU_FALLBACK_SHARE = 0.8            # of total memory, when "available" is unknown

QUANTS = (("FP16", 16.0), ("Q8_0", 8.5), ("Q4_K_M", 4.8))

#: Representative dense decoder-only models (grouped-query attention, Llama-like).
MODEL_SIZES = (
    {"size": "1B", "params_b": 1, "layers": 16, "kv_heads": 8, "head_dim": 64,
     "like": "Llama 3.2 1B"},
    {"size": "3B", "params_b": 3, "layers": 28, "kv_heads": 8, "head_dim": 128,
     "like": "Llama 3.2 3B"},
    {"size": "7B/8B", "params_b": 8, "layers": 32, "kv_heads": 8, "head_dim": 128,
     "like": "Llama 3.1 8B"},
    {"size": "13B/14B", "params_b": 14, "layers": 48, "kv_heads": 8, "head_dim": 128,
     "like": "Qwen2.5 14B"},
    {"size": "32B/34B", "params_b": 32, "layers": 64, "kv_heads": 8, "head_dim": 128,
     "like": "Qwen2.5 32B"},
    {"size": "70B", "params_b": 70, "layers": 80, "kv_heads": 8, "head_dim": 128,
     "like": "Llama 3.1 70B"},
    {"size": "405B", "params_b": 405, "layers": 126, "kv_heads": 8, "head_dim": 128,
     "like": "Llama 3.1 405B"},
)

#: Every human-readable string of :func:`estimates`, as (English, Chinese) templates; the
#: numbers, keys and report references inside them are the same in both languages.
ESTIMATE_TEXTS: dict[str, tuple[str, str]] = {
    # notes
    "note_not_measured": (
        "Estimates, not measurements: real speed depends on the runtime (llama.cpp, vLLM, "
        "TensorRT-LLM, ...), batch size, context length and kernels.",
        "估算值，不是实测：实际速度取决于运行时（llama.cpp、vLLM、TensorRT-LLM 等）、批大小、"
        "上下文长度和计算内核。"),
    "note_memory": (
        "Memory needed = weights + KV cache for {context} tokens of context (fp16), for dense "
        "Llama-like models with grouped-query attention; activations and runtime buffers are "
        "covered by the overhead margin.",
        "所需内存 = 权重 + {context} 个 token 上下文的 KV 缓存（fp16），按使用分组查询注意力的"
        "稠密 Llama 类模型计算；激活值和运行时缓冲区计入预留余量。"),
    "note_npu": (
        "{label}: NPUs are not estimated here; their LLM speed depends on the runtime (e.g. "
        "OpenVINO GenAI) and the weights live in system memory.",
        "{label}：这里不估算 NPU；它的 LLM 速度取决于运行时（如 OpenVINO GenAI），权重放在"
        "系统内存中。"),
    "note_igpu": (
        "{label} is integrated and shares system memory: see the 'CPU + system memory' "
        "estimates (an iGPU runtime such as llama.cpp with Vulkan or SYCL is limited by the "
        "same bandwidth).",
        "{label} 是集成显卡，与 CPU 共享系统内存：请看“CPU + 系统内存”的估算（llama.cpp 的 "
        "Vulkan 或 SYCL 等集成显卡运行时受同样的内存带宽限制）。"),
    "note_shared": (
        "{label} shares system memory with the CPU: the same memory appears under 'CPU + "
        "system memory'; use one or the other, not both.",
        "{label} 与 CPU 共享系统内存：同一块内存也计入了“CPU + 系统内存”；两者只能用其一，"
        "不能相加。"),
    "note_mem_unknown": (
        "{label}: device memory unknown, so whether models fit is unknown.",
        "{label}：设备内存大小未知，因此无法判断模型能否放下。"),
    "note_bw_unknown": (
        "{label}: memory bandwidth unknown (no benchmark and no specification figure): decode "
        "speed not estimated; run accelgui --probe --bench quick.",
        "{label}：内存带宽未知（没有基准测试，也没有规格数据）：未估算解码速度；请运行 "
        "accelgui --probe --bench quick。"),
    "note_bw_spec": (
        "{label}: decode speed from the specification bandwidth ({bw} GB/s), not a measurement; "
        "run --bench to measure it.",
        "{label}：解码速度按规格带宽（{bw} GB/s）估算，不是实测；运行 --bench 可以实测。"),
    "note_fp32": (
        "{label}: prefill from measured FP32 throughput; tensor-core FP16/BF16 prefill is "
        "usually several times faster (lower bound).",
        "{label}：预填充速度按实测 FP32 吞吐估算；使用张量核心的 FP16/BF16 预填充通常快数倍"
        "（这是下限）。"),
    "note_sysmem_unknown": (
        "System memory size unknown, so whether models fit in RAM is unknown.",
        "系统内存大小未知，因此无法判断模型能否放进内存。"),
    "note_cpu_bw_unknown": (
        "CPU memory bandwidth not measured and no specification figure is known: decode speed "
        "on the CPU not estimated; run accelgui --probe --bench quick.",
        "CPU 内存带宽未实测，也没有已知的规格数据：未估算 CPU 上的解码速度；请运行 "
        "accelgui --probe --bench quick。"),
    # device names
    "device": ("{label} (index {index})", "{label}（{index} 号）"),
    "device_each": ("{label} (index {index}; the same for each of the {n} identical devices)",
                    "{label}（{index} 号；{n} 个相同设备每个都一样）"),
    "device_split": ("{n} x {label} (indices {indices}, model split across them)",
                     "{n} × {label}（{indices} 号，模型切分到各设备上）"),
    "indices_sep": (", ", "、"),
    "cpu_device": ("CPU + system memory", "CPU + 系统内存"),
    "cpu_model": (" ({model})", "（{model}）"),
    # sources of the figures
    "measured": ("measured ({ref})", "实测（{ref}）"),
    "measured_peak": ("measured peak ({ref}; real GEMM reaches less)",
                      "实测峰值（{ref}；实际 GEMM 达不到）"),
    "spec": ("specification ({ref})", "规格值（{ref}）"),
    "spec_nvml": ("specification (NVML memory clock x bus width, {ref})",
                  "规格值（NVML 显存频率 × 位宽，{ref}）"),
    "mem_device": ("{ref}, minus {pct}% for the runtime", "{ref}，扣除 {pct}% 留给运行时"),
    "mem_shared": ("memory.available_bytes (GPU memory is shared with the CPU)",
                   "memory.available_bytes（GPU 与 CPU 共享内存）"),
    "mem_sum": ("sum over the devices, minus {pct}%", "各设备之和，扣除 {pct}%"),
    "bw_sum": ("sum of {n} x {src} (ideal tensor parallelism: an upper bound)",
               "{n} × {src} 之和（理想张量并行：上限）"),
    "fl_sum": ("sum of {n} x {src}", "{n} × {src} 之和"),
    "mem_free": ("memory.available_bytes (free now)", "memory.available_bytes（当前空闲）"),
    "mem_total_share": ("memory.total_bytes x {share} (available memory unknown)",
                        "memory.total_bytes × {share}（可用内存未知）"),
    # fine-tuning methods: name, basis, short name in the summary
    "ft_full": ("full Adam mixed precision", "全量微调（Adam 混合精度）"),
    "ft_full_basis": ("fp16/bf16 weights 2 + fp32 master weights 4 + Adam moments 8 + gradients 2",
                      "fp16/bf16 权重 2 + fp32 主权重 4 + Adam 动量 8 + 梯度 2"),
    "ft_full_short": ("full", "全量微调"),
    "ft_lora": ("LoRA, 16-bit base", "LoRA（16 位基座）"),
    "ft_lora_basis": ("frozen 16-bit base 2 + adapters of ~1% of the parameters trained with "
                      "Adam (16 each)",
                      "冻结的 16 位基座 2 + 约占参数 1% 的适配器，用 Adam 训练（每个参数 16）"),
    "ft_lora_short": ("LoRA", "LoRA"),
    "ft_qlora": ("QLoRA, 4-bit base", "QLoRA（4 位基座）"),
    "ft_qlora_basis": ("frozen NF4 base ~4.5 bits + adapters of ~1% of the parameters trained "
                       "with Adam",
                       "冻结的 NF4 基座约 4.5 位 + 约占参数 1% 的适配器，用 Adam 训练"),
    "ft_qlora_short": ("QLoRA", "QLoRA"),
    "ft_sharded": (" (sharded, FSDP/ZeRO-3)", "（分片，FSDP/ZeRO-3）"),
    # summary lines
    "sum_device": ("{device}:", "{device}："),
    "sum_weights": ("{gib} for weights;", "权重可用 {gib}；"),
    "sum_mem_unknown": ("memory unknown;", "内存未知；"),
    "sum_none_fits": ("no listed LLM size fits;", "列出的 LLM 规模都放不下；"),
    "sum_speed": (", ~{n} tokens/s decode ({src} bandwidth)", "，解码约 {n} tokens/s（{src}带宽）"),
    "sum_largest": ("largest LLM that fits: {size} {quant}{speed};",
                    "能放下的最大 LLM：{size} {quant}{speed}；"),
    "sum_ft_item": ("{short} up to {size}", "{short} 最大 {size}"),
    "sum_ft_sep": (", ", "、"),
    "sum_ft_fits": ("fine-tuning fits (before activations): {items}",
                    "可微调（不含激活）：{items}"),
    "sum_ft_none": ("fine-tuning: none of the listed sizes fits", "微调：列出的规模都放不下"),
    "sum_sep": (" ", ""),
    "sum_end": (";", "；"),
    "src_measured": ("measured", "实测"),
    "src_specification": ("specification", "规格"),
    # formulas (keys stay English)
    "f_weights_bytes": ("parameters x bits_per_weight / 8", "参数量 × 每权重位数 / 8"),
    "f_kv_cache_bytes": ("2 (K and V) x layers x kv_heads x head_dim x context_tokens x "
                         "bytes_per_element",
                         "2（K 和 V）× 层数 × KV 头数 × 头维度 × 上下文 token 数 × 每元素字节数"),
    "f_fits": ("weights_bytes + kv_cache_bytes <= memory available for weights",
               "weights_bytes + kv_cache_bytes <= 可用于权重的内存"),
    "f_memory_available": ("device: memory x (1 - 0.10 overhead); CPU: available system memory",
                           "设备：内存 × (1 - 0.10 预留)；CPU：可用系统内存"),
    "f_decode_tokens_per_s": ("bandwidth_bytes_per_s / weights_bytes x efficiency ({eff}, range "
                              "{lo}-{hi}): decode reads every weight once per token (memory-bound)",
                              "带宽（字节/秒）/ weights_bytes × 效率（{eff}，范围 {lo}-{hi}）："
                              "解码每个 token 读一遍全部权重（受内存带宽限制）"),
    "f_prefill_tokens_per_s": ("flops_per_s / (2 x parameters): ~2 FLOPs per parameter per "
                               "prompt token (compute-bound)",
                               "每秒浮点运算数 / (2 × 参数量)：每个提示 token 每个参数约 2 次"
                               "浮点运算（受算力限制）"),
    "f_finetune_bytes": ("parameters x bytes_per_parameter (full Adam mixed precision: 16), "
                         "before activations",
                         "参数量 × 每参数字节数（全量 Adam 混合精度：16），不含激活"),
}


def _t(key: str, lang: str = "en", **fmt) -> str:
    """The estimate text ``key`` in ``lang`` ("zh", "zh_CN": Chinese; else English)."""
    pair = ESTIMATE_TEXTS[key]
    text = pair[1] if str(lang or "").lower().startswith("zh") else pair[0]
    return text.format(**fmt) if fmt else text


#: Bytes of memory per parameter for fine-tuning, before activations:
#: (English name, bytes per parameter, English basis, text key).
FINETUNE_METHODS = tuple(
    (ESTIMATE_TEXTS[key][0], per_param, ESTIMATE_TEXTS[key + "_basis"][0], key)
    for key, per_param in (("ft_full", 16.0), ("ft_lora", 2.16), ("ft_qlora", 0.72)))

_FORMULA_KEYS = ("weights_bytes", "kv_cache_bytes", "fits", "memory_available",
                 "decode_tokens_per_s", "prefill_tokens_per_s", "finetune_bytes")


def _formulas(lang: str = "en") -> dict:
    fmt = {"decode_tokens_per_s": {"eff": EFFICIENCY, "lo": EFFICIENCY_RANGE[0],
                                   "hi": EFFICIENCY_RANGE[1]}}
    return {k: _t("f_" + k, lang, **fmt.get(k, {})) for k in _FORMULA_KEYS}


FORMULAS = _formulas("en")


def weights_bytes(params_b: float, bits_per_weight: float) -> int:
    return int(round(params_b * 1e9 * bits_per_weight / 8))


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int,
                   context: int = CONTEXT_TOKENS, bytes_per_element: int = KV_BYTES_PER_ELEMENT) -> int:
    return 2 * layers * kv_heads * head_dim * context * bytes_per_element


def decode_tokens_per_s(bandwidth_gbps, weights: float, efficiency: float = EFFICIENCY):
    if not bandwidth_gbps or not weights:
        return None
    return bandwidth_gbps * 1e9 / weights * efficiency


def prefill_tokens_per_s(flops_gflops, params_b: float):
    if not flops_gflops or not params_b:
        return None
    return flops_gflops * 1e9 / (2 * params_b * 1e9)


def _r(x, nd=1):
    return None if x is None else round(x, nd)


def llm_row(model: dict, quant: str, bits: float, bandwidth_gbps, flops_gflops,
            budget_bytes) -> dict:
    """One (model size, quantisation) estimate for a memory of ``budget_bytes``."""
    w = weights_bytes(model["params_b"], bits)
    kv = kv_cache_bytes(model["layers"], model["kv_heads"], model["head_dim"])
    fits = None if budget_bytes is None else (w + kv) <= budget_bytes
    run = fits is not False
    dec = decode_tokens_per_s(bandwidth_gbps, w) if run else None
    lo = decode_tokens_per_s(bandwidth_gbps, w, EFFICIENCY_RANGE[0]) if run else None
    hi = decode_tokens_per_s(bandwidth_gbps, w, EFFICIENCY_RANGE[1]) if run else None
    pre = prefill_tokens_per_s(flops_gflops, model["params_b"]) if run else None
    return {
        "size": model["size"], "params_b": model["params_b"], "quant": quant,
        "bits_per_weight": bits, "weights_bytes": w, "kv_cache_bytes": kv,
        "context_tokens": CONTEXT_TOKENS, "total_bytes": w + kv, "fits": fits,
        "decode_tokens_per_s": _r(dec),
        "decode_tokens_per_s_range": [_r(lo), _r(hi)] if dec is not None else None,
        "prefill_tokens_per_s": _r(pre),
    }


def _finetune_rows(budget_bytes, sharded: bool = False, lang: str = "en") -> list[dict]:
    rows = []
    for model in MODEL_SIZES:
        for _, per_param, _, key in FINETUNE_METHODS:
            b = int(round(model["params_b"] * 1e9 * per_param))
            rows.append({"size": model["size"], "params_b": model["params_b"],
                         "method": _t(key, lang) + (_t("ft_sharded", lang) if sharded else ""),
                         "bytes_per_param": per_param, "bytes": b,
                         "basis": _t(key + "_basis", lang),
                         "fits": None if budget_bytes is None else b <= budget_bytes})
    return rows


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _gpu_index(dev: dict, ordinal: int) -> int:
    d = dev.get("details") or {}
    for key in ("index", "cuda_index", "nvml_index"):
        v = d.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return ordinal


def _norm_bus(addr) -> str | None:
    """"00000000:18:00.0" / "0000:18:00.0" -> "0:18:00.0" (domain without leading zeros)."""
    if not isinstance(addr, str) or addr.count(":") != 2:
        return None
    dom, rest = addr.lower().split(":", 1)
    return f"{dom.lstrip('0') or '0'}:{rest}"


def _bench_gpu(benchmarks: dict, index: int, dev: dict):
    """(key, benchmarks.gpu entry) measured on this device, or (None, None).

    Matched by PCI bus id when the benchmark recorded one (CUDA may number devices
    differently from the PCI order), else by index with a name check, so that figures of
    one card are never credited to another."""
    gpu = (benchmarks or {}).get("gpu")
    if isinstance(gpu, list):
        items = [(str(i), e) for i, e in enumerate(gpu)]
    elif isinstance(gpu, dict):
        items = [(str(k), e) for k, e in gpu.items()]
    else:
        return None, None
    items = [(k, e) for k, e in items if isinstance(e, dict) and not e.get("error")]
    bus = _norm_bus(dev.get("address"))
    if bus:
        for k, e in items:
            if _norm_bus(e.get("pci_bus_id")) == bus:
                return k, e
    for k, e in items:
        if k != str(index):
            continue
        if bus and _norm_bus(e.get("pci_bus_id")):
            return None, None                           # recorded on another bus: not this card
        bname = e.get("name") or e.get("device")
        dname = dev.get("name")
        if isinstance(bname, str) and isinstance(dname, str) and bname and dname:
            x, y = re.sub(r"\W+", "", bname.lower()), re.sub(r"\W+", "", dname.lower())
            if x not in y and y not in x:
                return None, None                       # a different card: do not mix figures
        elif dev.get("vendor") != "nvidia":
            return None, None                           # unnamed figures come from CUDA
        return k, e
    return None, None


_gib = rules._gib


def _device_entries(rd: dict, notes: list, lang: str = "en") -> list[dict]:
    T = lambda key, **f: _t(key, lang, **f)  # noqa: E731
    benchmarks = rd.get("benchmarks") or {}
    entries = []
    groups: dict = {}
    ordinal_by_vendor: dict = {}
    for pos, dev in enumerate(rd.get("devices") or []):
        if not isinstance(dev, dict):
            continue
        d = dev.get("details") or {}
        mem = _num(d.get("memory_bytes"))
        label = rules.device_label(dev)
        if dev.get("kind") == "npu":
            notes.append(T("note_npu", label=label))
            continue
        shared = bool(dev.get("integrated"))
        if shared and not (dev.get("kind") == "gpu" and dev.get("vendor") == "nvidia" and mem):
            if dev.get("kind") == "gpu":
                notes.append(T("note_igpu", label=label))
            continue
        if not (dev.get("kind") == "gpu" or (mem and mem >= 2**30)):
            continue
        vendor = dev.get("vendor") or "?"
        ordinal = ordinal_by_vendor.get(vendor, 0)
        ordinal_by_vendor[vendor] = ordinal + 1
        index = _gpu_index(dev, ordinal)
        bkey, entry = _bench_gpu(benchmarks, index, dev)
        bw, bw_src, bw_kind = None, None, None
        if entry and _num(entry.get("triad_gbps")):
            bw, bw_kind = entry["triad_gbps"], "measured"
            bw_src = T("measured", ref=f"benchmarks.gpu.{bkey}.triad_gbps")
        elif entry and _num(entry.get("memory_peak_gbps")):
            bw, bw_kind = entry["memory_peak_gbps"], "specification"
            bw_src = T("spec_nvml", ref=f"benchmarks.gpu.{bkey}.memory_peak_gbps")
        elif _num(d.get("memory_bandwidth_gbps")):
            bw, bw_kind = d["memory_bandwidth_gbps"], "specification"
            how = d.get("memory_bandwidth_source")
            bw_src = T("spec", ref=how if how else f"devices[{pos}].details.memory_bandwidth_gbps")
        flops, fl_src, fl_measured_fp32 = None, None, False
        if entry and _num(entry.get("fp32_gflops")):
            flops, fl_measured_fp32 = entry["fp32_gflops"], True
            fl_src = T("measured", ref=f"benchmarks.gpu.{bkey}.fp32_gflops")
        else:
            for key in ("fp16_gflops", "fp32_gflops", "peak_fp32_gflops"):
                if _num(d.get(key)):
                    flops, fl_src = d[key], T("spec", ref=f"devices[{pos}].details.{key}")
                    break
        budget = int(mem * (1 - DEVICE_OVERHEAD)) if mem else None
        mem_src = T("mem_device", ref=f"devices[{pos}].details.memory_bytes",
                    pct=int(DEVICE_OVERHEAD * 100)) if mem else None
        if shared:
            avail = _num((rd.get("memory") or {}).get("available_bytes"))
            if avail and budget and avail < budget:
                budget = int(avail)
                mem_src = T("mem_shared")
            notes.append(T("note_shared", label=label))
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
            "memory_total_bytes": mem,
            "memory_bytes": budget,
            "memory_source": mem_src,
            "bandwidth_gbps": bw, "bandwidth_source": bw_src,
            "flops_gflops": flops, "flops_source": fl_src,
            "count": 1, "indices": [index],
        }
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
        mem_all = g["mem"] * g["count"] if g["mem"] else None
        entries.append({
            "device": T("device_split", n=g["count"], label=g["label"],
                        indices=T("indices_sep").join(str(i) for i in g["indices"])),
            "kind": item["kind"],
            "memory_total_bytes": mem_all,
            "memory_bytes": int(mem_all * (1 - DEVICE_OVERHEAD)) if mem_all else None,
            "memory_source": T("mem_sum", pct=int(DEVICE_OVERHEAD * 100)) if mem_all else None,
            "bandwidth_gbps": _r(g["bw_sum"], 1),
            "bandwidth_source": T("bw_sum", n=g["count"], src=item["bandwidth_source"])
            if g["bw_sum"] else None,
            "flops_gflops": _r(g["fl_sum"], 1),
            "flops_source": T("fl_sum", n=g["count"], src=item["flops_source"])
            if g["fl_sum"] else None,
            "count": g["count"], "indices": g["indices"], "aggregate": True,
        })
    return entries


def _cpu_entry(rd: dict, notes: list, lang: str = "en") -> dict:
    T = lambda key, **f: _t(key, lang, **f)  # noqa: E731
    bench = rd.get("benchmarks") or {}
    cpu_b = bench.get("cpu") if isinstance(bench.get("cpu"), dict) else {}
    mem = rd.get("memory") or {}
    avail, total = _num(mem.get("available_bytes")), _num(mem.get("total_bytes"))
    if avail:
        budget, src = int(avail), T("mem_free")
    elif total:
        budget = int(total * CPU_FALLBACK_SHARE)
        src = T("mem_total_share", share=CPU_FALLBACK_SHARE)
    else:
        budget, src = None, None
        notes.append(T("note_sysmem_unknown"))
    triad = _num(((cpu_b.get("stream") or {}) if isinstance(cpu_b.get("stream"), dict) else {})
                 .get("triad_gbps"))
    if triad:
        bw, bw_src = triad, T("measured", ref="benchmarks.cpu.stream.triad_gbps")
    else:
        bw, bw_src = None, None
        notes.append(T("note_cpu_bw_unknown"))
    gemm = cpu_b.get("gemm") if isinstance(cpu_b.get("gemm"), dict) else {}
    fma = cpu_b.get("fma") if isinstance(cpu_b.get("fma"), dict) else {}
    flops, fl_src = None, None
    if _num(gemm.get("sgemm_gflops")):
        flops, fl_src = gemm["sgemm_gflops"], T("measured", ref="benchmarks.cpu.gemm.sgemm_gflops")
    elif _num(fma.get("fp32_gflops_mt")):
        flops = fma["fp32_gflops_mt"]
        fl_src = T("measured_peak", ref="benchmarks.cpu.fma.fp32_gflops_mt")
    cpu = rd.get("cpu") or {}
    return {
        "device": T("cpu_device") + (T("cpu_model", model=cpu["model_name"])
                                     if cpu.get("model_name") else ""),
        "kind": "cpu",
        "memory_total_bytes": total,
        "memory_bytes": budget, "memory_source": src,
        "bandwidth_gbps": bw, "bandwidth_source": bw_src,
        "flops_gflops": flops, "flops_source": fl_src,
        "count": 1, "indices": [],
    }


def estimates(report, lang: str = "en") -> dict:
    """What this machine can run: LLM inference and fine-tuning memory and speed, per device.

    Labelled estimates from the formulas in KNOWLEDGE.md, citing the figure each one uses
    (measured benchmark, else specification, else null with a note). Every human-readable
    string (notes, device names, sources, method names, summary lines, formulas) is in
    ``lang`` ("en", or "zh"/"zh_CN" for Chinese, from :data:`ESTIMATE_TEXTS`); the keys, the
    numbers and ``label``/``basis`` are the same in every language."""
    rd = _as_dict(report)
    notes: list[str] = [_t("note_not_measured", lang),
                        _t("note_memory", lang, context=CONTEXT_TOKENS)]
    entries = _device_entries(rd, notes, lang) + [_cpu_entry(rd, notes, lang)]
    for e in entries:
        e["llm"] = [llm_row(m, q, bits, e["bandwidth_gbps"], e["flops_gflops"], e["memory_bytes"])
                    for m in MODEL_SIZES for q, bits in QUANTS]
        e["finetune"] = _finetune_rows(e["memory_bytes"], sharded=bool(e.get("aggregate")),
                                       lang=lang)
        e["largest_fitting"] = _largest(e["llm"])
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
            "context_tokens": CONTEXT_TOKENS,
            "kv_cache_bytes_per_element": KV_BYTES_PER_ELEMENT,
            "decode_efficiency": EFFICIENCY,
            "decode_efficiency_range": list(EFFICIENCY_RANGE),
            "device_memory_overhead_fraction": DEVICE_OVERHEAD,
            "quantisations": {q: bits for q, bits in QUANTS},
            "architectures": [
                {"size": m["size"], "params_b": m["params_b"], "layers": m["layers"],
                 "kv_heads": m["kv_heads"], "head_dim": m["head_dim"], "like": m["like"]}
                for m in MODEL_SIZES],
            "finetune_bytes_per_param": {name: b for name, b, _, _ in FINETUNE_METHODS},
        },
        "devices": entries,
        "notes": notes,
        "formulas": _formulas(lang),
    }


_MEASURED_WORDS = tuple(pair[i].split(" ")[0].split("（")[0]
                        for pair in (ESTIMATE_TEXTS["measured"],) for i in (0, 1))


def source_kind(src) -> str:
    """"measured", "specification" or "unknown" for a source string of :func:`estimates`
    in either language."""
    if not src:
        return "unknown"
    return "measured" if any(w in str(src) for w in _MEASURED_WORDS) else "specification"


_source_kind = source_kind


def _largest(rows: list) -> dict | None:
    """The biggest model (then the best quantisation) that fits: a one-line summary."""
    fitting = [r for r in rows if r["fits"]]
    if not fitting:
        return None
    best = max(fitting, key=lambda r: (r["params_b"], r["bits_per_weight"]))
    return {"size": best["size"], "params_b": best["params_b"], "quant": best["quant"],
            "decode_tokens_per_s": best["decode_tokens_per_s"]}


def _summary_line(e: dict, lang: str = "en") -> str:
    """"NVIDIA H100 80GB HBM3 (index 0): 71.7 GiB for weights; largest LLM that fits: 70B
    Q8_0, ~25 tokens/s decode (specification bandwidth); fine-tuning fits: full 3B, ..."."""
    T = lambda key, **f: _t(key, lang, **f)  # noqa: E731
    parts = [T("sum_device", device=e["device"])]
    if e["memory_bytes"]:
        parts.append(T("sum_weights", gib=_gib(e["memory_bytes"])))
    big = e.get("largest_fitting")
    if e["memory_bytes"] is None:
        parts.append(T("sum_mem_unknown"))
    elif big is None:
        parts.append(T("sum_none_fits"))
    else:
        speed = ""
        if big["decode_tokens_per_s"] is not None:
            src = T("src_" + source_kind(e["bandwidth_source"]))
            speed = T("sum_speed", n=f"{big['decode_tokens_per_s']:g}", src=src)
        parts.append(T("sum_largest", size=big["size"], quant=big["quant"], speed=speed))
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
