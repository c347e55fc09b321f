"""macOS platform, CPU and memory, from ``sysctl``, ``sw_vers`` and ``system_profiler``.

``sysctl`` is the machine's own account (Apple's "Determining system capabilities":
``hw.perflevel<N>.*`` for performance and efficiency cores, ``hw.optional.arm.FEAT_*`` for
Arm features, ``machdep.cpu.features``/``leaf7_features`` on Intel); system_profiler fills in
what a partial capture lacks (the chip, core counts, memory size, the macOS version).
"""

from __future__ import annotations

import re

from accelgui.probes.platforms import common
from accelgui.probes.platforms.macos import profiler

# hw.optional.arm.FEAT_<name>: 1 -> the feature names the Linux probe writes (cpu.py)
_ARM_FEATURES = {
    "FEAT_FP16": ["fp16"], "FEAT_DotProd": ["dotprod"], "FEAT_FHM": ["fhm"], "FEAT_RDM": ["rdm"],
    "FEAT_I8MM": ["i8mm"], "FEAT_BF16": ["bf16"], "FEAT_SME": ["sme"], "FEAT_SME2": ["sme2"],
    "FEAT_SME2p1": ["sme2p1"], "FEAT_SVE": ["sve"], "FEAT_SVE2": ["sve2"], "FEAT_LSE": ["lse"],
    "FEAT_AES": ["aes"], "FEAT_PMULL": ["pmull"], "FEAT_SHA1": ["sha1"], "FEAT_SHA256": ["sha2"],
    "FEAT_SHA3": ["sha3"], "FEAT_SHA512": ["sha512"], "FEAT_CRC32": ["crc32"],
    "FEAT_JSCVT": ["jscvt"], "FEAT_FCMA": ["fcma"], "FEAT_LRCPC": ["rcpc"], "FEAT_BTI": ["bti"],
    "FEAT_SME_F64F64": ["sme_f64f64"], "FEAT_SME_I16I64": ["sme_i16i64"],
}
# machdep.cpu.features / leaf7_features words -> Linux flag names (then cpu.py's table)
_X86_WORDS = {
    "SSE": "sse", "SSE2": "sse2", "SSE3": "pni", "SSSE3": "ssse3", "SSE4.1": "sse4_1",
    "SSE4.2": "sse4_2", "AVX1.0": "avx", "AVX2": "avx2", "FMA": "fma", "F16C": "f16c",
    "AVX512F": "avx512f", "AVX512CD": "avx512cd", "AVX512BW": "avx512bw", "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl", "AVX512IFMA": "avx512ifma", "AVX512VBMI": "avx512vbmi",
    "AVX512VNNI": "avx512_vnni", "AVX512BF16": "avx512_bf16", "AES": "aes", "POPCNT": "popcnt",
    "MOVBE": "movbe", "BMI1": "bmi1", "BMI2": "bmi2", "SHA": "sha_ni", "VAES": "vaes",
    "VPCLMULQDQ": "vpclmulqdq", "GFNI": "gfni", "AVX512VPOPCNTDQ": "avx512_vpopcntdq",
    "AVX512VBMI2": "avx512_vbmi2", "AVX512BITALG": "avx512_bitalg", "MMX": "mmx",
    "PCLMULQDQ": "pclmulqdq", "RDRAND": "rdrand", "RDSEED": "rdseed", "ADX": "adx",
    "CLFSOPT": "clflushopt", "CLWB": "clwb", "XSAVE": "xsave", "CX16": "cx16", "LZCNT": "abm",
    "LAHF": "lahf_lm", "RDPID": "rdpid", "VMM": "hypervisor",
}
_ARCH = {"arm64": "aarch64", "arm64e": "aarch64", "x86_64": "x86_64", "x86_64h": "x86_64",
         "i386": "i686"}


def sysctl(ctx) -> dict[str, str]:
    """The recorded or live ``sysctl`` keys (``hw.memsize`` -> ``"17179869184"``)."""
    def read() -> dict[str, str]:
        out: dict[str, str] = {}
        for line in (ctx.output("macos.sysctl") or "").split("\n"):
            m = re.match(r"^([A-Za-z0-9_.]+): ?(.*)$", line)
            if m and m.group(1) not in out:
                out[m.group(1)] = m.group(2).strip()
        return out

    return ctx.shared("macos.sysctl", read)


def _int(keys: dict, name: str) -> int | None:
    value = common.to_int(keys.get(name))
    return value if value is not None and value >= 0 else None


def _cache_size(keys: dict, name: str) -> int | None:
    """A cache size in bytes; None where the value cannot be one: every CPU cache is a whole
    number of KiB (32 KiB, 192 KiB, 1.25 MiB), so ``1310`` is a value cut short (the last
    line of a pasted, truncated output)."""
    value = _int(keys, name)
    return value if value and value % 1024 == 0 else None


def hardware(ctx) -> dict:
    """The SPHardwareDataType item (the first), {} when not recorded."""
    items = profiler.data(ctx).get("SPHardwareDataType") or []
    return items[0] if items else {}


def chip_name(ctx) -> str | None:
    """``"Apple M1 Pro"`` on Apple silicon (None on an Intel Mac or when unknown)."""
    keys, hw = sysctl(ctx), hardware(ctx)
    for text in (keys.get("machdep.cpu.brand_string"), hw.get("chip_type"), hw.get("cpu_type"),
                 *profiler.values(hw)):
        chip = profiler.apple_chip(text)
        if chip:
            return chip
    gpus = profiler.data(ctx).get("SPDisplaysDataType") or []
    return next((c for g in gpus if (c := profiler.apple_chip(g.get("sppci_model") or g.get("_name")))), None)


def chip_facts(name: str | None) -> dict:
    """The chips.json row of an Apple chip, with the table's ``sources`` ({} when unknown)."""
    if not name:
        return {}
    from accelgui.data import json_file

    table = json_file("accelgui.probes.platforms.macos", "chips.json")
    row = (table.get("chips") or {}).get(name)
    return dict(row, sources=table.get("sources") or {}) if row else {}


# ------------------------------------------------------------------ platform

def _software(ctx) -> dict:
    items = profiler.data(ctx).get("SPSoftwareDataType") or []
    return items[0] if items else {}


def _os_version(ctx) -> tuple[str | None, str | None]:
    """(product version "14.4.1", build "23E224") from sw_vers, sysctl or system_profiler."""
    vers, keys, soft = common.key_values(ctx.output("macos.sw_vers")), sysctl(ctx), _software(ctx)
    version = vers.get("ProductVersion") or keys.get("kern.osproductversion")
    build = vers.get("BuildVersion") or keys.get("kern.osversion")
    text = soft.get("os_version") or profiler.first_value(soft, profiler.PATTERNS["os_version"]) or ""
    m = re.search(r"(\d+(?:\.\d+)+|\d+)\s*(?:\((\w+)\))?", text)
    if m:
        version, build = version or m.group(1), build or m.group(2)
    return version, build


def machine(ctx) -> str | None:
    """The architecture as Linux names it: ``hw.machine``, else told by the CPU's vendor."""
    keys = sysctl(ctx)
    found = _ARCH.get(keys.get("hw.machine") or "")
    if found:
        return found
    if chip_name(ctx):
        return "aarch64"
    intel = keys.get("machdep.cpu.vendor") == "GenuineIntel" or "Intel" in str(hardware(ctx).get("cpu_type") or "")
    return "x86_64" if intel else None


def _virtualization(keys: dict, model_id: str | None) -> str | None:
    """"apple-virtualization" for a virtual Mac model, "vm" when the kernel or the CPU's
    VMM flag says it runs under a hypervisor, else None."""
    if (model_id or "").startswith("VirtualMac"):
        return "apple-virtualization"
    if keys.get("kern.hv_vmm_present") == "1" or "VMM" in (keys.get("machdep.cpu.features") or "").split():
        return "vm"
    return None


def platform_probe(ctx) -> dict:
    keys, hw, soft = sysctl(ctx), hardware(ctx), _software(ctx)
    version, build = _os_version(ctx)
    kernel = keys.get("kern.osrelease")
    darwin = soft.get("kernel_version") or profiler.first_value(soft, profiler.PATTERNS["darwin"])
    if not kernel and darwin:
        kernel = darwin.split()[-1]
    model_id = keys.get("hw.model") or hw.get("machine_model") or \
        profiler.first_value(hw, profiler.PATTERNS["model_id"])
    # what Linux reads from an Intel Mac's DMI: the vendor, the model identifier, the model name
    dmi = {k: v for k, v in (("sys_vendor", "Apple Inc." if model_id else None), ("product_name", model_id),
                             ("product_family", hw.get("machine_name"))) if v}
    result = {
        "os": "macOS",
        "os_release": " ".join(x for x in ("macOS", version, f"({build})" if build else None) if x)
        if version else None,
        "kernel": kernel,
        "machine": machine(ctx),
        "hostname": keys.get("kern.hostname") or None,
        "virtualization": _virtualization(keys, model_id),
        "container": None,
        "cloud": None,
        "dmi": dmi,
        "secure_boot": None,
        "out_of_tree_modules": [],
    }
    if not any((version, kernel, model_id, result["machine"])):
        return {"_status": "absent", "_reason": "no sysctl, sw_vers or system_profiler output",
                "platform": result}
    return {"platform": result}


# ------------------------------------------------------------------ cpu

def _perf_levels(keys: dict) -> list[dict]:
    """hw.perflevel<N>.* (0: the fastest cores), one entry per level present."""
    levels = []
    count = _int(keys, "hw.nperflevels") if "hw.nperflevels" in keys else 4    # a partial capture
    for n in range(min(count or 0, 8)):
        base = f"hw.perflevel{n}."
        cores = _int(keys, base + "physicalcpu")
        if cores is None:
            continue
        levels.append({"name": keys.get(base + "name") or ("Performance" if n == 0 else "Efficiency"),
                       "cores": cores, "cpus": _int(keys, base + "logicalcpu") or cores,
                       "l1d": _cache_size(keys, base + "l1dcachesize"),
                       "l1i": _cache_size(keys, base + "l1icachesize"),
                       "l2": _cache_size(keys, base + "l2cachesize"), "cpusperl2": _int(keys, base + "cpusperl2")})
    return levels


def _levels_from_hardware(hw: dict) -> list[dict]:
    """Performance and efficiency core counts from SPHardwareDataType when sysctl is
    missing: ``"proc 10:8:2"`` (JSON) or ``"10 (8 performance and 2 efficiency)"`` (text,
    any language: the numbers in their order)."""
    numbers = [int(n) for n in re.findall(r"\d+", str(hw.get("number_processors") or ""))]
    if len(numbers) < 3 or numbers[1] + numbers[2] != numbers[0]:
        return []
    return [{"name": name, "cores": n, "cpus": n} for name, n in
            (("Performance", numbers[1]), ("Efficiency", numbers[2])) if n]


def _caches(keys: dict, levels: list[dict], physical: int | None, packages: int) -> dict:
    """{l1d|l1i|l2|l3: {size_bytes (all instances), instances}}."""
    out: dict = {}
    if levels:
        for name in ("l1d", "l1i", "l2"):
            total, count = 0, 0
            for lv in levels:
                size = lv.get(name)
                if not size:
                    continue
                n = lv["cores"] if name != "l2" else max(1, lv["cores"] // (lv.get("cpusperl2") or lv["cores"]))
                total, count = total + size * n, count + n
            if count:
                out[name] = {"size_bytes": total, "instances": count}
        return out
    for name, key, per_core in (("l1d", "hw.l1dcachesize", True), ("l1i", "hw.l1icachesize", True),
                                ("l2", "hw.l2cachesize", True), ("l3", "hw.l3cachesize", False)):
        size = _cache_size(keys, key)
        if size:
            n = (physical or 1) if per_core else packages
            out[name] = {"size_bytes": size * n, "instances": n}
    return out


def _features(keys: dict, arch: str | None) -> tuple[list[str], list[str]]:
    """(flags as the OS names them, normalised feature names)."""
    if arch == "aarch64":
        flags = sorted(k.rsplit(".", 1)[1] for k, v in keys.items()
                       if k.startswith("hw.optional.arm.FEAT_") and v == "1")
        features = ["neon"] if keys.get("hw.optional.neon") == "1" or flags else []
        for f in flags:
            features += [n for n in _ARM_FEATURES.get(f, ()) if n not in features]
        return flags, features
    from accelgui.probes.cpu import X86_FEATURES

    words = " ".join(keys.get(k, "") for k in ("machdep.cpu.features", "machdep.cpu.leaf7_features",
                                                "machdep.cpu.extfeatures")).split()
    flags = [_X86_WORDS[w] for w in words if w in _X86_WORDS]
    flags += [f"{k.rsplit('.', 1)[1]}" for k, v in keys.items()
              if k.startswith("hw.optional.avx512") and v == "1" and k.rsplit(".", 1)[1] not in flags]
    flags = list(dict.fromkeys(flags))
    return flags, [X86_FEATURES[f] for f in flags if f in X86_FEATURES]


def _x86_uarch(keys: dict, vendor: str, flags: list[str], brand: str | None) -> tuple[str | None, str | None]:
    """(microarchitecture, codename) of an Intel Mac's CPU by the Linux probe's rules: its
    family/model table, else archspec on the flags. sysctl lists no XSAVEOPT or XSAVEC, so
    archspec reads every Skylake-derived part as broadwell: the table's row wins here."""
    from accelgui.probes import cpu

    archspec_name = cpu.microarchitecture("x86_64", vendor, flags, model_name=brand)
    return cpu.x86_uarch(vendor, {"family": keys.get("machdep.cpu.family"), "model": keys.get("machdep.cpu.model"),
                                  "stepping": keys.get("machdep.cpu.stepping")}, archspec_name,
                        flags_complete=False)


def cpu_probe(ctx) -> dict:
    keys, hw = sysctl(ctx), hardware(ctx)
    chip = chip_name(ctx)
    arch = machine(ctx)
    brand = keys.get("machdep.cpu.brand_string") or hw.get("chip_type") or hw.get("cpu_type")
    logical = _int(keys, "hw.logicalcpu_max") or _int(keys, "hw.ncpu") or _int(keys, "machdep.cpu.thread_count")
    physical = _int(keys, "hw.physicalcpu_max") or _int(keys, "hw.physicalcpu") or \
        _int(keys, "machdep.cpu.core_count") or common.to_int(hw.get("number_processors"))
    packages = _int(keys, "hw.packages") or 1
    levels = _perf_levels(keys) or _levels_from_hardware(hw)
    flags, features = _features(keys, arch)
    apple = bool(chip) or (brand or "").startswith("Apple")
    if physical and not logical:        # no sysctl: Apple silicon has no SMT; an Intel Mac
        ht = any(w in str(hw.get("platform_cpu_htt") or "").lower() for w in profiler.words("enabled"))
        logical = physical * 2 if ht and not apple else physical
    max_hz = _int(keys, "hw.cpufrequency_max") or _int(keys, "hw.cpufrequency")
    result = {
        "vendor_id": "Apple" if apple else keys.get("machdep.cpu.vendor"),
        "vendor": "apple" if apple else ("intel" if keys.get("machdep.cpu.vendor") == "GenuineIntel"
                                          or "Intel" in (brand or "") else None),
        "model_name": brand,
        "arch": arch,
        "microarchitecture": chip_facts(chip).get("uarch") if apple else None,
        "logical_cpus": logical,
        "online_cpus": _int(keys, "hw.logicalcpu") or _int(keys, "hw.activecpu"),
        "threads_per_core": (logical // physical) if logical and physical else None,
        "cores_per_socket": (physical // packages) if physical else None,
        "sockets": packages if (physical or logical) else None,
        "numa_nodes": 1 if (physical or logical) else None,
        "flags": flags,
        "features": features,
        "caches": _caches(keys, levels, physical, packages),
        "max_mhz": round(max_hz / 1e6) if max_hz else None,
        "min_mhz": None,
        "hypervisor_vendor": None,
    }
    if chip:
        result["codename"] = chip
    elif arch == "x86_64" and result["vendor_id"]:
        result["microarchitecture"], codename = _x86_uarch(keys, result["vendor_id"], flags, brand)
        if codename:
            result["codename"] = codename
    if len(levels) > 1:
        result["core_types"] = [{"model_name": f"{chip or brand} {lv['name'].lower()} cores",
                                 "cpus": lv["cpus"], "cores": lv["cores"],
                                 "cores_per_socket": lv["cores"] // packages} for lv in levels]
    if not (brand or logical):
        return {"_status": "absent", "_reason": "no sysctl or system_profiler output", "cpu": result}
    return {"cpu": result}


# ------------------------------------------------------------------ memory

def total_memory(ctx) -> tuple[int | None, str | None]:
    """(bytes, where from): hw.memsize, else system_profiler's memory size."""
    size = _int(sysctl(ctx), "hw.memsize")
    if size:
        return size, "hw.memsize"
    hw = hardware(ctx)
    text = hw.get("physical_memory") or profiler.first_value(hw, profiler.PATTERNS["gb"])
    mem = (profiler.data(ctx).get("SPMemoryDataType") or [{}])[0]
    size = common.size_bytes(text) or common.size_bytes(mem.get("SPMemoryDataType"))
    return (size, "system_profiler") if size else (None, None)


def gpu_memory_limit(ctx, total: int | None) -> tuple[int | None, dict | None]:
    """(bytes the GPU may wire, why) on Apple silicon: ``iogpu.wired_limit_mb`` when set
    (non-zero), else macOS's default: 2/3 of the unified memory up to 36 GB, 3/4 above
    (what Metal's recommendedMaxWorkingSetSize reports: 10.67 GB of 16 GB; the default is
    conservative on large machines, 107.5 GiB of 128 GiB measured)."""
    from accelgui import l10n

    wired = _int(sysctl(ctx), "iogpu.wired_limit_mb")
    if wired:
        return wired << 20, l10n.msg("platforms.gpu_limit.sysctl")
    if not total:
        return None, None
    share = 2 / 3 if total <= 36 * 2**30 else 3 / 4
    return int(total * share), l10n.msg("platforms.gpu_limit.default")


def memory_probe(ctx) -> dict:
    total, _ = total_memory(ctx)
    available = None
    if ctx.live:
        try:
            import psutil

            available = int(psutil.virtual_memory().available)
        except Exception:  # noqa: BLE001 - psutil missing or refused: unknown
            available = None
    result = {"total_bytes": total, "available_bytes": available, "numa_nodes": 1 if total else None,
              "bandwidth_spec_gbps": None, "bandwidth_spec_source": None, "bandwidth_spec": None,
              "cgroup_limit_bytes": None, "cgroup_cpu_limit": None,
              "numa_memory_only_bytes": None, "numa_memory_only_nodes": []}
    chip = chip_name(ctx)
    facts = chip_facts(chip)
    mem = profiler.data(ctx).get("SPMemoryDataType") or [{}]
    kind = mem[0].get("dimm_type") or profiler.first_value(mem[0], profiler.PATTERNS["mem_type"])
    if facts.get("bandwidth_gbps"):
        result.update(bandwidth_spec_gbps=facts["bandwidth_gbps"], bandwidth_spec_source="table",
                      bandwidth_spec={"memory_type": kind, "row": chip, "as_of": "2026-12-02",
                                      "source": facts["sources"].get(facts.get("source")),
                                      "fixed": "bandwidth_by_gpu_cores" not in facts})
    if total is None:
        return {"_status": "absent", "_reason": "no memory size in sysctl or system_profiler",
                "memory": result}
    return {"memory": result}
