"""The RULE language of the knowledge base, evaluated against a report.

A requirement of a learning route carries a rule (knowledge/schema.json, ``rule``)::

    {"device": {"kind": "gpu", "vendor": ["nvidia", "amd"], "readiness": "ready",
                "integrated": false, "bus": "pci", "min": {"compute_capability": 7.5},
                "supported": true, "segment": ["data-centre"], "form": ["discrete"],
                "family": ["habana"], "count_min": 2, "training": true}}
    {"cpu_feature": "avx512_bf16"}   {"cpu_features_any": ["avx2", "neon"]}  {"cpu_simd": true}
    {"arch": ["x86_64", "aarch64"]}  {"os": "Linux"}  {"cloud": true}  {"container": false}
    {"package": "openvino"}  {"packages_any": ["torch", "jax"]}  {"toolkit": "cuda_toolkit"}
    {"toolkits_any": ["rocm", "cuda_toolkit"]}  {"npu_runtime": true}
    {"provider": "onnxruntime:CUDAExecutionProvider"}
    {"metric": "benchmarks.cpu.stream.triad_gbps", "min": 10}
    {"memory_min_bytes": 8589934592}  {"logical_cpus_min": 4}  {"embedded_board": true}
    {"all": [RULE, ...]}  {"any": [RULE, ...]}  {"not": RULE}

Each operator is one small function registered with :func:`_op`, each device filter one
registered with :func:`_filter`, each with the JSON Schema of its argument: that registry is the
one place a rule's shape is defined (:func:`rule_schema`, written into knowledge/schema.json by
tests/tools/sync_rule_schema.py; :func:`validate` checks a rule against it). Support facts
(which gfx targets ROCm supports, which compute capability current CUDA needs, which Intel GPUs
oneAPI/PyTorch XPU supports, which runtime an NPU vendor needs, which CPU features are SIMD on
each architecture) come from the dated tables of
knowledge/facts.json and knowledge/support.json, never from code.

:func:`evaluate` answers with three-valued logic and the facts of the report it used (in
``lang``; with ``lang=BOTH`` each fact is English text carrying its Chinese twin, so a rule is
evaluated once for both languages and :func:`in_lang` picks one at the face)::

    (True | False | None, ["NVIDIA H100 80GB HBM3, compute capability 9.0, ... (ready)", ...])

``None`` means *unknown*: the report does not hold the figure. ``all``/``any``/``not`` follow
Kleene logic. A device rule is met by the *hardware*; whether that hardware is usable now (its
readiness ladder) is carried in the facts (:func:`unusable_devices`), so the advisor can say
"needs setup" with the device's own fix instead of "remote". Facts also say whether what is
missing is something to install (``Fact.setup``) or other hardware.

The module reads only the report dict it is given and the shipped tables. A rule that does not
fit the registry's schema (an operator or device filter it does not know, an argument of the
wrong kind) raises :class:`KnowledgeRuleError` naming the field; the rules of a loaded knowledge
base were checked when it was loaded and are evaluated without importing jsonschema.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading

from accelgui import l10n
from accelgui.report import READINESS, driver_missing
from accelgui.knowledge import load_knowledge, support

__all__ = ["KnowledgeRuleError", "Fact", "evaluate", "validate", "describe_device",
           "device_label", "resolve_path", "OPERATORS", "DEVICE_FILTERS", "unusable_devices",
           "device_segment", "device_form", "device_support", "cuda_min_compute_capability",
           "environment_label", "find_package", "chip_cc_ceiling", "inference_only"]


class KnowledgeRuleError(ValueError):
    """A rule the evaluator does not understand (unknown operator, filter or bad argument)."""


#: the ``lang`` that evaluates a rule once with its texts in English and Chinese (:class:`Bi`)
BOTH = "en+zh"


class Bi(str):
    """An English text that carries its Chinese twin in ``zh``: what a rule evaluated with
    ``lang=BOTH`` says, so that its facts are found once and shown in either language."""

    zh: str

    def __new__(cls, en: str, zh: str | None = None):
        obj = super().__new__(cls, en)
        obj.zh = zh if zh is not None else (en.zh if isinstance(en, Bi) else str(en))
        return obj


def in_lang(text, lang: str) -> str:
    """``text`` in ``lang``: the Chinese twin of a :class:`Bi` for Chinese, else the text."""
    if isinstance(text, Bi) and l10n.lang_code(lang) == "zh":
        return text.zh
    return str(text)


def _made(lang: str, make) -> str:
    """``make(language)``, in ``lang``, or a :class:`Bi` of both for ``BOTH``."""
    if lang == BOTH:
        return Bi(make("en"), make("zh"))
    return make(lang)


def _fmt(template: str, **parts) -> str:
    """``template`` filled in; a :class:`Bi` when a part is one (each language its own)."""
    text = template.format(**parts)
    if any(isinstance(v, Bi) for v in parts.values()):
        return Bi(text, template.format(**{k: in_lang(v, "zh") for k, v in parts.items()}))
    return text


def _joined(sep: str, items) -> str:
    """``sep.join(items)``; a :class:`Bi` when an item is one."""
    items = list(items)
    text = sep.join(items)
    if any(isinstance(v, Bi) for v in items):
        return Bi(text, sep.join(in_lang(v, "zh") for v in items))
    return text


class Fact(Bi):
    """A fact string with a tag saying what kind of evidence it is.

    ``tag``: "ok" (something present that satisfies the rule), "absent" (nothing of the
    kind on this machine), "miss" (something present that does not satisfy the rule),
    "unknown" (the report lacks the figure). ``setup``: what is missing can be installed or
    configured on this machine (a package, a toolkit, a runtime, a device permission).
    ``meta``: for device facts, ``{"devices": [device dicts]}``.
    """

    tag: str = "ok"
    meta: dict | None = None
    setup: bool = False

    def __new__(cls, text: str, tag: str = "ok", meta: dict | None = None, setup: bool = False):
        obj = super().__new__(cls, text)      # a Bi keeps its Chinese twin
        obj.tag = tag
        obj.meta = meta
        obj.setup = setup
        return obj


# --------------------------------------------------------------------------- texts

_KIND_NAMES = {"gpu": "GPU", "npu": "NPU", "tpu": "TPU", "fpga": "FPGA", "dsp": "DSP",
               "accelerator": "accelerator"}
_READINESS = READINESS        # accelgui.report: the one list of readiness values


def _t(key: str, lang: str, **kw) -> str:
    """A text of the catalogue (advisor.rule.*) in ``lang`` (both for ``BOTH``)."""
    def make(lg):
        return l10n.tr("advisor.rule." + key, lg, **{k: v.zh if isinstance(v, Bi) and lg == "zh" else v
                                                      for k, v in kw.items()})
    return _made(lang, make)


def _support_text(name: str, field: str, lang: str, **params) -> str:
    """A text of a support.json table in ``lang`` (both for ``BOTH``)."""
    return _made(lang, lambda lg: support.text(name, field, lg, **params))


def _list(items, lang: str, names: dict | None = None) -> str:
    """"A", "A or B", "A, B or C" (in the catalogue's words and separators)."""
    def make(lg):
        words = [in_lang((names or {}).get(i, i), lg) for i in items]
        if len(words) <= 1:
            return "".join(words)
        return _t("list_sep", lg).join(words[:-1]) + _t("or", lg) + words[-1]
    return _made(lang, make)


def _gib(n) -> str:
    return f"{n / 2**30:.1f} GiB"


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _as_list(v) -> list:
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple, set, frozenset)) else [v]


# --------------------------------------------------------------------------- devices

def _vendor_word(vendor) -> str | None:
    if not vendor:
        return None
    from accelgui.probes import ids     # the vendor table (probes/data/vendors.json)

    return ids.vendor_name(str(vendor)) or str(vendor)


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
    return _made(lang, lambda lg: _device_line(dev, lg, count))


def _device_line(dev: dict, lang: str, count: int) -> str:
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
    elif driver_missing(dev.get("readiness"), driver, details):
        parts.append(_t("no_driver", lang))
    readiness = dev.get("readiness") or "unknown"
    why = l10n.field_text(dev, "readiness_reason", lang)
    word = _t(readiness, lang) if readiness in _READINESS else readiness
    state = f"{word}{_t('state_sep', lang)}{why}" if why and readiness != "ready" else word
    return _t("device_line", lang, parts=_t("part_sep", lang).join(parts), state=state)


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


# --------------------------------------------------------------------------- support facts

@functools.lru_cache(maxsize=1)
def cuda_min_compute_capability() -> float:
    """The oldest compute capability the newest CUDA toolkit in facts.json still builds for."""
    best = None
    for row in (load_knowledge().facts.get("cuda_toolkit_support") or {}).get("rows") or []:
        m = re.match(r"^CUDA (\d+)", str(row.get("toolkit") or ""))
        cc = row.get("min_compute_capability")
        if m and _is_num(cc) and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), float(cc))
    return best[1] if best else 7.5


@functools.lru_cache(maxsize=1)
def _cuda_major() -> int | None:
    majors = [int(m.group(1)) for row in (load_knowledge().facts.get("cuda_toolkit_support") or {})
              .get("rows") or [] if (m := re.match(r"^CUDA (\d+)", str(row.get("toolkit") or "")))]
    return max(majors) if majors else None


def device_form(dev: dict) -> str | None:
    """"discrete", "integrated", "embedded", "virtual" or None (details.form when recorded)."""
    form = (dev.get("details") or {}).get("form")
    if form:
        return str(form)
    if (dev.get("driver") or "") == "dxgkrnl":
        return "virtual"
    if dev.get("integrated"):
        return "embedded" if dev.get("bus") == "platform" else "integrated"
    if dev.get("bus") in ("pci", "usb"):
        return "discrete"
    return None


def device_segment(dev: dict) -> str | None:
    """"data-centre", "workstation", "consumer", "embedded" or None: details.segment when the
    device record has it, else the family or the name against the support tables."""
    details = dev.get("details") or {}
    if details.get("segment"):
        return str(details["segment"])
    family = dev.get("family") or details.get("family")
    if any(r.get("family") == family for r in support.rows("datacentre_families")):
        return "data-centre"
    name = dev.get("name") or ""
    for row in support.rows("segments_by_name"):
        if re.search(row.get("pattern") or "(?!)", name):
            return row.get("segment")
    if device_form(dev) == "embedded":
        return "embedded"
    return None


def _rocm_support(dev: dict, lang: str):
    details = dev.get("details") or {}
    gfx = details.get("gfx_target")
    if not gfx:
        return None, _t("detail_unknown", lang, label="gfx target")
    form = "apu" if dev.get("integrated") else "discrete"
    rows = [r for r in support.rows("rocm_gfx_support") if r.get("gfx_target") == gfx]
    if any(r.get("form") == form for r in rows):
        return True, None
    return False, _t("rocm_unsupported", lang, gfx=gfx,
                     form=_t("form_apu" if form == "apu" else "form_discrete", lang))


def chip_cc_ceiling(dev: dict) -> float | None:
    """The highest compute capability the NVIDIA chip named in the device's name can have,
    from its codename (pci.ids and the kernel write "GK208B [GeForce GT 710]"):
    support.json nvidia_chip_generations. None when the name holds no known codename."""
    if str(dev.get("vendor") or "").lower() != "nvidia":
        return None
    name = " ".join(str(x) for x in (dev.get("name"), (dev.get("details") or {}).get("chip")) if x)
    for row in support.rows("nvidia_chip_generations"):
        if re.search(row.get("pattern") or "(?!)", name) and _is_num(row.get("max_compute_capability")):
            return float(row["max_compute_capability"])
    return None


def _cc_known_or_ceiling(dev: dict, want):
    """(True|False|None, cc text) for "compute capability >= want": the recorded figure, else
    False when the chip's generation tops out below ``want``."""
    cc = (dev.get("details") or {}).get("compute_capability")
    ok = _at_least("compute_capability", cc, want)
    if ok is None:
        ceiling = chip_cc_ceiling(dev)
        if ceiling is not None and _at_least("compute_capability", ceiling, want) is False:
            return False, f"<= {_cc_text(ceiling)}"
        return None, None
    return ok, _cc_text(cc)


def _cuda_support(dev: dict, lang: str):
    want = cuda_min_compute_capability()
    ok, got = _cc_known_or_ceiling(dev, want)
    if ok is None:
        return None, _t("detail_unknown", lang, label=_t("cc", lang))
    if ok:
        return True, None
    return False, _t("cuda_unsupported", lang, got=got, want=_cc_text(want),
                     cuda=_cuda_major() or "")


def _oneapi_support(dev: dict, lang: str):
    name = dev.get("name") or ""
    if not name:
        return None, _t("detail_unknown", lang, label="name")
    if any(re.search(r.get("pattern") or "(?!)", name) for r in support.rows("intel_xpu_support")):
        return True, None
    return False, _t("xpu_unsupported", lang)


_SUPPORT = {("gpu", "nvidia"): _cuda_support, ("gpu", "amd"): _rocm_support,
            ("gpu", "intel"): _oneapi_support}


def device_support(dev: dict, lang: str = "en"):
    """(True|False|None, why) whether the vendor's current compute stack supports the device
    (CUDA for NVIDIA GPUs, ROCm for AMD GPUs, oneAPI / PyTorch XPU for Intel GPUs); other kinds
    have one stack per family and are judged by their readiness ladder."""
    check = _SUPPORT.get((dev.get("kind"), str(dev.get("vendor") or "").lower()))
    return check(dev, lang) if check else (True, None)


# --------------------------------------------------------------------------- device filters

_FILTERS: dict = {}      # name -> (fn(dev, want, lang) -> (ok, why), JSON Schema of its value)

_NON_EMPTY = {"$ref": "#/$defs/nonEmpty"}
_ONE_OR_MANY = {"$ref": "#/$defs/oneOrMany"}
_BOOLEAN = {"type": "boolean"}
_NAMES = {"type": "array", "minItems": 1, "uniqueItems": True, "items": _NON_EMPTY}
DEVICE_KINDS = ("gpu", "npu", "tpu", "fpga", "dsp", "accelerator")
BUSES = ("pci", "usb", "platform")
DEVICE_SEGMENTS = ("data-centre", "workstation", "consumer", "embedded")
DEVICE_FORMS = ("discrete", "integrated", "embedded", "virtual")
_SUPPORTED = {"type": "boolean", "description": (
    "the vendor's current stack supports the device: CUDA (compute capability, facts.json "
    "cuda_toolkit_support), ROCm (gfx target, support.json rocm_gfx_support), oneAPI / PyTorch XPU "
    "(support.json intel_xpu_support)")}
_MIN = {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "^[a-z0-9_]+$"},
        "additionalProperties": {"type": "number"}}
_TRAINING = {"type": "boolean", "description": (
    "the device can train models: not an inference-only accelerator (knowledge/models.json and "
    "support.json inference_only)")}
_COUNT_MIN = {"type": "integer", "minimum": 1, "description": (
    "at least this many matching devices; fewer usable ones than that means the route needs setup")}


def _one_of(values: tuple) -> dict:
    """The schema of a filter value that is one of ``values`` or a list of them."""
    return {"oneOf": [{"enum": list(values)},
                      {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(values)}}]}


def _filter(name: str, schema: dict):
    """Register one device filter: its test and the schema of the value a rule gives it (the
    route schema's ``deviceFilter`` is written from these, see :func:`device_filter_schema`)."""
    def register(fn):
        _FILTERS[name] = (fn, schema)
        return fn
    return register


@_filter("kind", _one_of(DEVICE_KINDS))
def _f_kind(dev, want, lang):
    kinds = _as_list(want)
    if dev.get("kind") in kinds:
        return True, None
    return False, _t("kind_not", lang, got=dev.get("kind"), want=_list(kinds, lang, _KIND_NAMES))


@_filter("vendor", _ONE_OR_MANY)
def _f_vendor(dev, want, lang):
    vendors = [str(v).lower() for v in _as_list(want)]
    if str(dev.get("vendor") or "").lower() in vendors:
        return True, None
    return False, _t("vendor_not", lang, got=dev.get("vendor") or "?",
                     want=_list([_vendor_word(v) for v in vendors], lang))


@_filter("family", _ONE_OR_MANY)
def _f_family(dev, want, lang):
    family = dev.get("family") or (dev.get("details") or {}).get("family")
    if family is None:
        return None, _t("detail_unknown", lang, label="family")
    return (True, None) if family in _as_list(want) else \
        (False, _t("family_not", lang, got=family, want=_list(_as_list(want), lang)))


@_filter("bus", _one_of(BUSES))
def _f_bus(dev, want, lang):
    buses = _as_list(want)
    if dev.get("bus") in buses:
        return True, None
    return (None if dev.get("bus") is None else False), \
        _t("bus_not", lang, got=dev.get("bus") or "?", want=_list(buses, lang))


@_filter("integrated", _BOOLEAN)
def _f_integrated(dev, want, lang):
    integrated = dev.get("integrated")
    if integrated is None:
        return None, None
    if bool(integrated) == bool(want):
        return True, None
    return False, _t("integrated" if integrated else "discrete", lang)


@_filter("form", _one_of(DEVICE_FORMS))
def _f_form(dev, want, lang):
    form = device_form(dev)
    if form is None:
        return None, _t("detail_unknown", lang, label="form")
    if form in _as_list(want):
        return True, None
    return False, _t("form_not", lang, got=_t("form_" + form, lang),
                     want=_list([_t("form_" + f, lang) for f in _as_list(want)], lang))


@_filter("segment", _one_of(DEVICE_SEGMENTS))
def _f_segment(dev, want, lang):
    seg = device_segment(dev)
    if seg is None:
        return None, _t("segment_unknown", lang)
    if seg in _as_list(want):
        return True, None
    return False, _t("segment_not", lang, got=_t("seg_" + seg, lang),
                     want=_list([_t("seg_" + s, lang) for s in _as_list(want)], lang))


@_filter("readiness", _one_of(_READINESS))
def _f_readiness(dev, want, lang):
    got = dev.get("readiness") or "unknown"
    if got in _as_list(want):
        return True, None
    if got == "unknown":
        return None, _t("readiness_unknown", lang)
    return False, None      # the device line already shows "(runtime-missing: why)"


@_filter("supported", _SUPPORTED)
def _f_supported(dev, want, lang):
    ok, why = device_support(dev, lang)
    if ok is None:
        return None, why
    return (True, None) if ok == bool(want) else (False, why)


@_filter("min", _MIN)
def _f_min(dev, want, lang):
    details = dev.get("details") or {}
    results, why = [], []
    for key, need in want.items():
        got = details.get(key)
        ok = _at_least(key, got, need)
        if ok is None and key == "compute_capability":
            ok, ceiling = _cc_known_or_ceiling(dev, need)
            got = ceiling if ok is False else got
        label = _t("detail." + key, lang) if "advisor.rule.detail." + key in l10n.catalogue("en") \
            else key.replace("_", " ")
        results.append(ok)
        if ok is None:
            why.append(_t("detail_unknown", lang, label=label))
        elif not ok:
            if key == "compute_capability":
                g, w = (got if isinstance(got, str) and got.startswith("<=") else _cc_text(got)), \
                    _cc_text(need)
            elif key.endswith("_bytes"):
                g, w = _gib(float(got)), _gib(float(need))
            else:
                g, w = _num(got), _num(need)
            why.append(_t("below", lang, label=label, got=g, want=w))
    return _and3(results), _joined("; ", why) or None


@functools.lru_cache(maxsize=1)
def _inference_only_rows() -> tuple:
    rows = ((support.load_data("models.json").get("inference_only") or {}).get("rows") or [])
    return tuple(r for r in rows if isinstance(r, dict)) + tuple(support.rows("inference_only"))


def inference_only(dev: dict) -> bool:
    """The device is an inference-only accelerator (Inferentia, Cloud AI 100, Hailo, Coral,
    client NPUs...): by its name (models.json inference_only) or its family / kind and vendor
    (support.json inference_only)."""
    spec = (dev.get("details") or {}).get("specification")
    name = " ".join(str(x) for x in (dev.get("name"), spec.get("name") if isinstance(spec, dict)
                                     else None) if x)
    family = dev.get("family") or (dev.get("details") or {}).get("family")
    for row in _inference_only_rows():
        if row.get("pattern") and re.search(row["pattern"], name):
            return True
        if row.get("family") and row["family"] == family:
            return True
        if row.get("kind") and row["kind"] == dev.get("kind") and \
                str(dev.get("vendor") or "").lower() not in (row.get("except_vendors") or ()):
            return True
    return False


@_filter("training", _TRAINING)
def _f_training(dev, want, lang):
    """The device can train models (not an inference-only accelerator)."""
    trains = not inference_only(dev)
    if trains == bool(want):
        return True, None
    return False, _support_text("inference_only", "label" if trains is False else "label_trains",
                               lang)


@_filter("count_min", _COUNT_MIN)
def _f_count(dev, want, lang):      # counted over the matching devices in _eval_device
    return True, None


DEVICE_FILTERS = tuple(_FILTERS)


_FIRST = ("kind", "vendor")        # a device of another kind or vendor is no near miss: stop there


def _device_match(dev: dict, flt: dict, lang: str) -> tuple[bool | None, list[str]]:
    """Whether one device passes every filter; the failures (or unknowns) as short texts."""
    results, why = [], []
    for key in _FIRST:
        if key in flt and str(dev.get(key) or "").lower() not in \
                [str(v).lower() for v in _as_list(flt[key])]:
            return False, []
    for key, want in flt.items():
        if key in _FIRST:
            continue
        ok, text = _FILTERS[key][0](dev, want, lang)
        results.append(ok)
        if text and ok is not True:
            why.append(text)
    return _and3(results), why


def _group(devices: list[dict]) -> list[tuple[dict, list[dict]]]:
    """Identical devices (same name, kind, details figures, readiness) listed once, with
    the members of each group."""
    out: list = []
    keys: dict = {}
    for dev in devices:
        d = dev.get("details") or {}
        key = (dev.get("kind"), dev.get("vendor"), dev.get("name"), dev.get("driver"),
               dev.get("readiness"), dev.get("readiness_reason"),
               str(d.get("compute_capability")), d.get("memory_bytes"), d.get("gfx_target"),
               d.get("driver_version"))
        if key in keys:
            out[keys[key]][1].append(dev)
        else:
            keys[key] = len(out)
            out.append((dev, [dev]))
    return out


def _what(flt: dict, lang: str) -> str:
    return _made(lang, lambda lg: _what_in(flt, lg))


def _what_in(flt: dict, lang: str) -> str:
    kinds = _as_list(flt.get("kind"))
    vendors = [_vendor_word(v) for v in _as_list(flt.get("vendor"))]
    noun = _list(kinds, lang, _KIND_NAMES) if kinds else _t("accelerator_noun", lang)
    if vendors:
        return f"{_list(vendors, lang)} {noun}"      # one language here (see _what)
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


def _usable(dev: dict) -> bool:
    return (dev.get("readiness") or "unknown") in ("ready", "unknown")


def unknown_usable_devices(facts) -> list[dict]:
    """The usable devices of a device rule that came out unknown: they are here and work, but
    a figure the rule needs (a compute capability, a gfx target) could not be read."""
    return [d for f in facts if getattr(f, "tag", "") == "unknown"
            for d in ((getattr(f, "meta", None) or {}).get("devices") or []) if _usable(d)]


def unusable_devices(facts) -> list[dict]:
    """The devices a met device rule rests on when none of them is usable now (driver, node,
    access or runtime missing): the route "needs setup", with these devices' own fixes.
    Empty when one of them is ready (or its readiness is unknown)."""
    devices = [d for f in facts if getattr(f, "tag", "") == "ok"
               for d in ((getattr(f, "meta", None) or {}).get("devices") or [])]
    if not devices or any(_usable(d) for d in devices):
        return []
    return devices


def _device_fact(devs: list[dict], lang: str, rests_on: bool = True) -> list:
    """One fact per group of identical devices; ``rests_on``: the rule's verdict rests on these
    devices (their readiness decides "needs setup")."""
    return [Fact(describe_device(d, lang, len(members)), "ok",
                 {"devices": members} if rests_on else None) for d, members in _group(devs)]


def _eval_device(flt, report: dict, lang: str, where: str = "rule"):
    devices = [d for d in (report.get("devices") or []) if isinstance(d, dict)]
    matched, unknown, missed = [], [], []
    for dev in devices:
        ok, why = _device_match(dev, flt, lang)
        (matched if ok else unknown if ok is None else missed).append((dev, why))
    need = flt.get("count_min") or 1
    found = [d for d, _ in matched]
    if len(found) >= need:
        usable = [d for d in found if _usable(d)]
        if len(usable) >= need:
            return True, _device_fact(usable, lang) + _device_fact(
                [d for d in found if not _usable(d)], lang, rests_on=False)
        # the hardware is here, but fewer than `need` of them are usable now
        return True, _device_fact([d for d in found if not _usable(d)], lang)
    if found:
        return False, [Fact(_t("count_low", lang, got=len(found), want=need,
                               what=describe_device(found[0], lang, len(found))), "miss")]
    if unknown and len(unknown) < need:
        # even if every device whose figures are unknown matched, there are too few of them
        first = unknown[0][0]
        return False, [Fact(_t("count_low", lang, got=len(unknown), want=need,
                               what=describe_device(first, lang, len(unknown))), "miss")]
    kinds = _as_list(flt.get("kind"))
    vendors = [str(v).lower() for v in _as_list(flt.get("vendor"))]

    def near(dev):  # same kind (and vendor) as asked: worth naming as a near miss
        if kinds and dev.get("kind") not in kinds:
            return False
        return not vendors or str(dev.get("vendor") or "").lower() in vendors

    without_readiness = {k: v for k, v in flt.items() if k != "readiness"}

    def setup(dev):  # only its readiness fails: a driver, node, access or runtime to set up
        return "readiness" in flt and _device_match(dev, without_readiness, lang)[0] is True

    facts: list = []
    for group, tag in ((unknown, "unknown"), ([m for m in missed if near(m[0])], "miss")):
        seen: dict = {}
        for dev, why in group:
            text = _fmt("{device}: {why}", device=describe_device(dev, lang), why=_joined("; ", why)) \
                if why else describe_device(dev, lang)
            n, was_setup, devs = seen.get(text, (0, False, []))
            seen[text] = (n + 1, was_setup or setup(dev), [*devs, dev])
        for text, (n, is_setup, devs) in seen.items():
            # an unknown one names its devices (here, but a figure the rule needs is unknown)
            facts.append(Fact(_fmt("{n} x {text}", n=n, text=text) if n > 1 else text, tag,
                              {"devices": devs} if tag == "unknown" else None, setup=is_setup))
    if unknown:
        return None, facts
    if not facts:
        facts.append(Fact(_t("no_kind", lang, what=_what(flt, lang)) if (kinds or vendors)
                          else _t("no_devices", lang), "absent",
                          {"kinds": tuple(kinds), "vendors": tuple(vendors)}))
    return False, facts


# --------------------------------------------------------------------------- helpers

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


@functools.lru_cache(maxsize=4096)
def _norm_pkg(name: str) -> str:
    return re.sub(r"[-_.]+", "-", str(name)).lower()


_PKG_VARIANT = (
    r"^-(gpu|cpu|rocm\d*|cuda\d*x?|cu\d+|openvino|directml|intel|macos|metal|qnn|vitisai|"
    r"silicon|training|nightly|headless)\b")


_NORM_INDEX: dict = {}     # id(packages) -> (packages, its size, {normalised name: (name, version)})


def _norm_index(packages: dict) -> dict:
    """The normalised-name index of one package table, built once per table (an assessment asks
    dozens of rules about the same environments). The table is held, so its id is not reused;
    report tables are not edited in place, and one that grew or shrank is indexed again."""
    hit = _NORM_INDEX.get(id(packages))
    if hit is None or hit[0] is not packages or hit[1] != len(packages):
        if len(_NORM_INDEX) > 64:
            _NORM_INDEX.clear()
        hit = _NORM_INDEX[id(packages)] = (packages, len(packages),
                                           {_norm_pkg(k): (k, v) for k, v in packages.items()})
    return hit[2]


def _find_in(packages: dict, name: str):
    want = _norm_pkg(name)
    norm = _norm_index(packages or {})
    if want in norm:
        return norm[want]
    for key, kv in norm.items():
        if key.startswith(want) and re.match(_PKG_VARIANT, key[len(want):]):
            return kv
    return None


def environment_label(env: dict, lang: str = "en") -> str:
    """"conda env 'ml'", "venv '.venv'", "pyenv 3.12.4", "pip --user", "system python3"."""
    kind = env.get("kind") or "python"
    key = kind if "advisor.rule.env." + kind in l10n.catalogue("en") else "python"
    return _t("env." + key, lang, name=env.get("name") or env.get("path") or "?")


_scope = threading.local()      # .found: {(id(software), name): answer} inside memo_scope()


@contextlib.contextmanager
def memo_scope():
    """Within this block, find_package answers each (software section, name) once: an
    assessment asks about the same packages in many rules, of a report that does not change
    meanwhile. Outside it every call looks again."""
    outer = getattr(_scope, "found", None)
    _scope.found = {} if outer is None else outer
    try:
        yield
    finally:
        _scope.found = outer


def find_package(software: dict, name: str):
    """(installed name, version, environment dict or None) for a package or one of its build
    variants (onnxruntime-gpu, tensorflow-cpu, cupy-cuda12x) in any of the user's
    environments (software.environments), else in software.packages; None when absent."""
    found = getattr(_scope, "found", None)
    if found is None:
        return _find_package(software, name)
    key = (id(software), name)
    if key not in found:
        found[key] = (software, _find_package(software, name))
    return found[key][1]


def _find_package(software: dict, name: str):
    for env in software.get("environments") or []:
        if isinstance(env, dict):
            hit = _find_in(env.get("packages") or {}, name)
            if hit:
                return hit[0], hit[1], env
    hit = _find_in(software.get("packages") or {}, name)
    return (hit[0], hit[1], None) if hit else None


def _pkg_text(hit, lang: str) -> str:
    return _made(lang, lambda lg: _pkg_text_in(hit, lg))


def _pkg_text_in(hit, lang: str) -> str:
    name, version, env = hit
    text = re.sub(r"\s+", " ", _t("package_yes", lang, name=name, version=version or "")).strip()
    return _t("in_env", lang, what=text, env=environment_label(env, lang)) if env else text


def _cpu_name(report: dict) -> str | None:
    name = (report.get("cpu") or {}).get("model_name")
    if not name:
        return None
    if "(" in name:
        name = re.sub(r"\((R|TM|r|tm)\)", "", name)
    if "@" in name:
        name = re.sub(r"\s+CPU\s+@.*$", "", name)
        name = re.sub(r"\s+@\s+[\d.]+\s*GHz$", "", name)
    return " ".join(name.split()) or None


def _cpu_prefix(report: dict, text: str) -> str:
    name = _cpu_name(report)
    return _fmt("{name}: {text}", name=name, text=text) if name else text


def _cpu_featureset(report: dict):
    cpu = report.get("cpu") or {}
    feats = {str(f).lower() for f in (cpu.get("features") or [])}
    flags = {str(f).lower() for f in (cpu.get("flags") or [])}
    if not feats and not flags:
        return None
    return feats | flags


# --------------------------------------------------------------------------- operators

_OPS: dict = {}      # name -> (fn(arg, report, lang) -> (value, facts), JSON Schema of arg)


def _op(name: str, schema: dict):
    """Register one rule operator: its evaluator, fn(arg, report, lang) -> (value, facts), and
    the schema of its argument. This registry is the one place an operator is defined: the
    route schema's ``rule`` is written from it (:func:`rule_schema`), and :func:`validate`
    checks rules against it."""
    def register(fn):
        _OPS[name] = (fn, schema)
        return fn
    return register


@_op("device", {"$ref": "#/$defs/deviceFilter"})
def _o_device(arg, report, lang):
    return _eval_device(arg, report, lang)


@_op("cpu_feature", _NON_EMPTY)
def _o_cpu_feature(arg, report, lang):
    name = arg
    feats = _cpu_featureset(report)
    if feats is None:
        return None, [Fact(_t("cpu_features_unknown", lang), "unknown")]
    if name.lower() in feats:
        return True, [Fact(_cpu_prefix(report, _t("cpu_feature_present", lang, name=name)))]
    return False, [Fact(_cpu_prefix(report, _t("cpu_feature_absent", lang, name=name)), "miss")]


@_op("cpu_features_any", _NAMES)
def _o_cpu_features_any(arg, report, lang):
    names = arg
    feats = _cpu_featureset(report)
    if feats is None:
        return None, [Fact(_t("cpu_features_unknown", lang), "unknown")]
    present = [n for n in names if n.lower() in feats]
    if present:
        return True, [Fact(_cpu_prefix(report, _t("cpu_feature_present", lang,
                                                  name=", ".join(present))))]
    return False, [Fact(_cpu_prefix(report, _t("cpu_features_none", lang,
                                               names=", ".join(names))), "miss")]


@_op("cpu_simd", _BOOLEAN)
def _o_cpu_simd(arg, report, lang):
    """SIMD that ML libraries use, for whatever architecture the CPU is (support.json
    cpu_simd): true when a non-baseline extension is present."""
    arch = (report.get("cpu") or {}).get("arch") or (report.get("platform") or {}).get("machine")
    feats = _cpu_featureset(report)
    if not arch or feats is None:
        return None, [Fact(_t("cpu_features_unknown", lang), "unknown")]
    rows = [r for r in support.rows("cpu_simd") if r.get("arch") == arch]
    present = [r for r in rows if str(r.get("feature")).lower() in feats]
    strong = list(dict.fromkeys(r["name"] for r in present if not r.get("basic")))
    if strong:
        value, text, tag = True, _t("simd_present", lang, names=", ".join(strong), arch=arch), "ok"
    elif present:
        value, tag = False, "miss"
        text = _t("simd_basic", lang, names=", ".join(dict.fromkeys(r["name"] for r in present)),
                  arch=arch)
    elif rows:
        value, tag = False, "miss"
        text = _t("simd_none", lang, arch=arch,
                  names=_list(list(dict.fromkeys(r["name"] for r in rows if not r.get("basic"))),
                              lang))
    else:
        value, text, tag = False, _t("simd_unknown_arch", lang, arch=arch), "miss"
    return (value == arg), [Fact(_cpu_prefix(report, text), tag if value == arg else "miss")]


@_op("arch", _ONE_OR_MANY)
def _o_arch(arg, report, lang):
    want = _as_list(arg)
    got = (report.get("cpu") or {}).get("arch") or (report.get("platform") or {}).get("machine")
    if not got:
        return None, [Fact(_t("arch_unknown", lang), "unknown")]
    if got in want:
        return True, [Fact(_t("arch_is", lang, got=got))]
    return False, [Fact(_t("arch_not", lang, got=got, want=_list(want, lang)), "miss")]


@_op("os", _ONE_OR_MANY)
def _o_os(arg, report, lang):
    want = _as_list(arg)
    got = (report.get("platform") or {}).get("os")
    if not got:
        return None, [Fact(_t("os_unknown", lang), "unknown")]
    if got.lower() in [w.lower() for w in want]:
        return True, [Fact(_t("os_is", lang, got=got))]
    return False, [Fact(_t("os_not", lang, got=got, want=_list(want, lang)), "miss")]


def _packages(names: list[str], report, lang, single: bool):
    software = report.get("software") or {}
    hits = [h for h in (find_package(software, n) for n in names) if h]
    if hits:
        return True, [Fact(_pkg_text(h, lang)) for h in hits]
    if software.get("packages_known") is False:
        return None, [Fact(_t("packages_unknown", lang, names=", ".join(names)), "unknown",
                           setup=True)]
    text = _t("package_no", lang, name=names[0]) if single else \
        _t("packages_none", lang, names=", ".join(names))
    return False, [Fact(text, "absent", setup=True)]


@_op("package", _NON_EMPTY)
def _o_package(arg, report, lang):
    return _packages([arg], report, lang, True)


@_op("packages_any", _NAMES)
def _o_packages_any(arg, report, lang):
    return _packages(arg, report, lang, False)


def _toolkits(names: list[str], report, lang):
    toolkits = (report.get("software") or {}).get("toolkits") or {}
    hits = [n for n in names if n in toolkits]
    if hits:
        return True, [Fact(_made(lang, lambda lg, n=n: re.sub(
            r"\s+", " ", _t("toolkit_yes", lg, name=n, version=toolkits[n] or "")).strip())) for n in hits]
    return False, [Fact(_t("toolkit_no", lang, name=_list(names, lang)), "absent", setup=True)]


@_op("toolkit", _NON_EMPTY)
def _o_toolkit(arg, report, lang):
    return _toolkits([arg], report, lang)


@_op("toolkits_any", _NAMES)
def _o_toolkits_any(arg, report, lang):
    return _toolkits(arg, report, lang)


@_op("provider", _NON_EMPTY)
def _o_provider(arg, report, lang):
    name = arg
    if name in ((report.get("software") or {}).get("providers") or []):
        return True, [Fact(_t("provider_yes", lang, name=name))]
    return False, [Fact(_t("provider_no", lang, name=name), "absent", setup=True)]


def _npu_runtime(dev: dict, lang: str) -> dict | None:
    """The runtime an NPU needs as its family file states it (the device's own family, else the
    NPU family of its vendor): ``{"runtime": its name in lang, "packages", "toolkits"}``."""
    from accelgui.probes import families

    entry = families.family(dev.get("family"))
    if not (entry and entry.get("kind") == "npu" and entry.get("runtime")):
        vendor = str(dev.get("vendor") or "").lower()
        entry = next((e for e in families.load_families().values() if e.get("kind") == "npu"
                      and e.get("vendor") == vendor and e.get("runtime")), None)
    if entry is None:
        return None
    runtime = entry["runtime"]
    name = runtime.get("name") or {}
    return {"runtime": _made(lang, lambda lg: name.get(lg) or name.get("en") or entry["id"]),
            "packages": runtime.get("packages") or [], "toolkits": runtime.get("toolkits") or []}


@_op("npu_runtime", _BOOLEAN)
def _o_npu_runtime(arg, report, lang):
    """Each NPU's runtime (its family file's ``runtime``) is installed: a package in any
    environment or a toolkit found. An NPU of a vendor with no known runtime is not met."""
    software = report.get("software") or {}
    toolkits = software.get("toolkits") or {}
    npus = [d for d in report.get("devices") or [] if isinstance(d, dict) and d.get("kind") == "npu"]
    if not npus:
        return False, [Fact(_t("no_kind", lang, what="NPU"), "absent",
                            {"kinds": ("npu",), "vendors": ()})]
    results, facts = [], []
    for dev in npus:
        label = device_label(dev)
        row = _npu_runtime(dev, lang)
        if row is None:
            results.append(False)
            facts.append(Fact(_t("npu_runtime_unknown_vendor", lang, device=label,
                                 vendor=dev.get("vendor") or "?"), "miss"))
            continue
        hits = [_fmt("{name} ({env})", name=f"{h[0]} {h[1] or ''}".strip(), env=environment_label(h[2], lang))
                if h[2] else f"{h[0]} {h[1] or ''}".strip()
                for h in (find_package(software, p) for p in row.get("packages") or []) if h]
        hits += [re.sub(r"\s+", " ", f"{k} {toolkits[k] or ''}").strip()
                 for k in row.get("toolkits") or [] if k in toolkits]
        if hits:
            results.append(True)
            facts.append(Fact(_t("npu_runtime_yes", lang, device=label, runtime=row["runtime"],
                                 found=_joined(", ", hits))))
        elif software.get("packages_known") is False and row.get("packages"):
            results.append(None)
            facts.append(Fact(_t("npu_runtime_unconfirmed", lang, device=label,
                                 runtime=row["runtime"]), "unknown", setup=True))
        else:
            results.append(False)
            facts.append(Fact(_t("npu_runtime_no", lang, device=label, runtime=row["runtime"]),
                              "miss", setup=True))
    value = _or3(results)
    return value, [f for f, v in zip(facts, results) if v is value] or facts


@_op("memory_min_bytes", {"type": "integer", "minimum": 0})
def _o_memory(arg, report, lang):
    want = arg
    got = (report.get("memory") or {}).get("total_bytes")
    if not _is_num(got):
        return None, [Fact(_t("memory_unknown", lang), "unknown")]
    if got >= want:
        return True, [Fact(_t("memory_ok", lang, got=_gib(got), want=_gib(want)))]
    return False, [Fact(_t("memory_low", lang, got=_gib(got), want=_gib(want)), "miss")]


@_op("logical_cpus_min", {"type": "integer", "minimum": 1})
def _o_cpus(arg, report, lang):
    want = arg
    got = (report.get("cpu") or {}).get("logical_cpus")
    if not _is_num(got):
        return None, [Fact(_t("cpus_unknown", lang), "unknown")]
    if got >= want:
        return True, [Fact(_t("cpus_ok", lang, got=got, want=want))]
    return False, [Fact(_t("cpus_low", lang, got=got, want=want), "miss")]


_EMBEDDED_BOARD = {"type": "boolean", "description": (
    "an edge-class single-board computer (support.json embedded_boards): an Arm/RISC-V machine on bare "
    "metal booted from a device tree, without SMBIOS/DMI; not decided by the ISA")}


@_op("embedded_board", _EMBEDDED_BOARD)
def _o_embedded_board(arg, report, lang):
    """An edge-class board (Raspberry Pi, Rockchip, Jetson-class single-board computers): an
    architecture of support.json embedded_boards, on bare metal, booted from a device tree
    without the SMBIOS/DMI firmware tables that servers, desktops and laptops carry (Arm
    servers such as GH200 follow SBSA/SBBR, which requires SMBIOS). The ISA alone says nothing."""
    want = arg
    platform = report.get("platform") or {}
    arch = (report.get("cpu") or {}).get("arch") or platform.get("machine")
    archs = [r.get("arch") for r in support.rows("embedded_boards")]
    dmi = platform.get("dmi")
    if not arch or (dmi is None and arch in archs):
        return None, [Fact(_support_text("embedded_boards", "unknown", lang), "unknown")]
    if arch not in archs:           # an x86 or server ISA: not a near miss, nothing of the kind
        text = _support_text("embedded_boards", "no_arch", lang, arch=arch)
        return (not want), [Fact(text, "ok" if not want else "absent")]
    vendor = str((report.get("cpu") or {}).get("vendor") or "").lower()
    if vendor in (support.table("embedded_boards").get("pc_cpu_vendors") or {}):
        text = _support_text("embedded_boards", "pc_vendor", lang, arch=arch, vendor=vendor.title())
        return (not want), [Fact(text, "ok" if not want else "miss")]
    # a board boots from a device tree; a report that says it did not (device_tree null while
    # the key is there) is a UEFI/ACPI machine even without DMI strings (a GH200 node)
    tree_known = "device_tree" in platform
    board = not dmi and not platform.get("cloud") and not platform.get("virtualization") and (
        bool(platform.get("device_tree")) or not tree_known)
    text = _support_text("embedded_boards", "yes" if board else "no", lang, arch=arch)
    return board == want, [Fact(text, "ok" if board == want else "miss")]


@_op("cloud", _BOOLEAN)
def _o_cloud(arg, report, lang):
    want = arg
    cloud = (report.get("platform") or {}).get("cloud")
    if cloud:
        provider = cloud.get("provider") if isinstance(cloud, dict) else str(cloud)
        itype = cloud.get("instance_type") if isinstance(cloud, dict) else None
        fact = _t("cloud_yes", lang, provider=provider or "?", itype=f" ({itype})" if itype else "")
    else:
        fact = _t("cloud_no", lang)
    value = bool(cloud) == want
    return value, [Fact(fact, "ok" if value else "miss")]


@_op("container", _BOOLEAN)
def _o_container(arg, report, lang):
    want = arg
    container = (report.get("platform") or {}).get("container")
    fact = _t("container_yes", lang, name=container) if container else _t("container_no", lang)
    value = bool(container) == want
    return value, [Fact(fact, "ok" if value else "miss")]


@_op("metric", {"type": "string", "pattern": r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$",
                 "description": "a dotted report path, with its least value in min"})
def _o_metric(path, report, lang, want=None):
    """A figure of the report at a dotted path, at least ``want`` (the rule's ``min``)."""
    got = resolve_path(report, path)
    if not _is_num(got):
        return None, [Fact(_t("metric_unknown", lang, path=path), "unknown")]
    if got >= want:
        return True, [Fact(_t("metric_ok", lang, path=path, value=_with_unit(path, got),
                              min=_with_unit(path, want)))]
    return False, [Fact(_t("metric_low", lang, path=path, value=_with_unit(path, got),
                           min=_with_unit(path, want)), "miss")]


_FLIP = {"ok": "miss", "miss": "ok", "absent": "ok", "unknown": "unknown"}
_RULES = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/rule"}}


@_op("not", {"$ref": "#/$defs/rule"})
def _o_not(arg, report, lang):
    value, facts = _eval(arg, report, lang)
    if value is None:
        return None, facts
    # what was present is now the reason the rule fails, and the other way round
    return (not value), [Fact(f, _FLIP.get(getattr(f, "tag", "ok"), "ok")) for f in facts]


@_op("all", _RULES)
def _o_all(arg, report, lang):
    parts = [_eval(sub, report, lang) for sub in arg]
    value = _and3([v for v, _ in parts])
    return value, _combine("all", value, parts, lang)


@_op("any", _RULES)
def _o_any(arg, report, lang):
    parts = [_eval(sub, report, lang) for sub in arg]
    value = _or3([v for v, _ in parts])
    return value, _combine("any", value, parts, lang)


OPERATORS = tuple(_OPS)


def _eval(rule: dict, report: dict, lang: str):
    """Evaluate a rule that fits the schema (checked by :func:`validate`, or when its route
    file was loaded); one that is not even shaped like a rule raises KnowledgeRuleError."""
    if isinstance(rule, dict) and "metric" in rule and "min" in rule:
        return _o_metric(rule["metric"], report, lang, rule["min"])
    if not isinstance(rule, dict) or len(rule) != 1 or next(iter(rule)) not in _OPS:
        raise KnowledgeRuleError(f"not a rule: {rule!r:.80}")
    ((op, arg),) = rule.items()
    return _OPS[op][0](arg, report, lang)


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


def as_dict(report) -> dict:
    """A report as the rules read it (:func:`accelgui.report.report_dict`)."""
    from accelgui.report import report_dict

    return report_dict(report)


def evaluate(rule, report, lang: str = "en", *, checked: bool = False) -> tuple[bool | None, list[str]]:
    """Evaluate a RULE against a report (a dict as Report.to_dict() gives, or a Report).

    Returns (True | False | None, facts). Raises KnowledgeRuleError for a rule that does not fit
    the registry's schema, naming the key; ``checked``: the rule was checked already (the rules
    of a loaded knowledge base: shipped files by the tests, override files when loaded), so it
    is not checked again, and jsonschema is not imported."""
    if not checked:
        validate(rule)
    try:
        value, facts = _eval(rule, as_dict(report), lang)
    except (KnowledgeRuleError, TypeError, AttributeError, KeyError, ValueError):
        if checked:         # a rule said to be checked that was not: name what is wrong with it
            validate(rule)
        raise
    return value, list(facts)


def rule_schema() -> dict:
    """The JSON Schema of a rule (knowledge/schema.json ``$defs/rule``), from the registry:
    exactly one operator, whose argument fits the schema it was registered with; ``metric``
    also takes ``min``."""
    properties = {name: schema for name, (_, schema) in _OPS.items()}
    properties["min"] = {"type": "number", "description": "the least value of the metric"}
    return {
        "description": "RULE language, evaluated by accelgui/rules.py against a report dict; written "
                       "from the operator registry there (tests/tools/sync_rule_schema.py). Each rule "
                       "object has exactly one operator key (metric also takes min).",
        "type": "object", "minProperties": 1, "additionalProperties": False,
        "properties": properties,
        "dependentRequired": {"metric": ["min"], "min": ["metric"]},
        "if": {"required": ["metric"]}, "then": {"maxProperties": 2}, "else": {"maxProperties": 1},
    }


def device_filter_schema() -> dict:
    """The JSON Schema of the ``device`` operator's filters (``$defs/deviceFilter``)."""
    return {
        "description": "True if ANY device in the report matches every given filter. min keys are "
                       "read from device.details and compared numerically.",
        "type": "object", "additionalProperties": False,
        "properties": {name: schema for name, (_, schema) in _FILTERS.items()},
    }


@functools.lru_cache(maxsize=1)
def _rule_validator():
    from accelgui import validation
    from accelgui.data import json_file

    defs = dict(json_file("accelgui.knowledge", "schema.json")["$defs"])
    defs.update(rule=rule_schema(), deviceFilter=device_filter_schema())
    return validation.validator_for({"$defs": defs, "$ref": "#/$defs/rule"})


def validate(rule) -> None:
    """Raise KnowledgeRuleError naming the field if ``rule`` does not fit the registry's schema
    (an operator or device filter it does not know, an argument of the wrong kind)."""
    from accelgui import validation

    problems = validation.problems_of(_rule_validator(), rule, root="rule")
    if problems:
        raise KnowledgeRuleError("; ".join(f"{where}: {what}" for where, what in problems[:3]))
