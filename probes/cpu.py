"""CPU probe: what ``lscpu --sysroot`` would say about the tree, plus features and uarch.

Everything is read through the probe context from ``proc/cpuinfo`` and
``sys/devices/system/cpu/`` under the root, so the same code describes the running machine
and a recorded tree. The counting rules follow util-linux lscpu (2.38), because its output
is what people compare against, except where lscpu miscounts real machines (then the kernel's
and hwloc's view is taken, see ``_topology``):

* ``logical_cpus`` is the number of *present* CPUs (``cpu/present``), ``online_cpus`` the
  number of online ones.
* ``threads_per_core`` is the largest ``thread_siblings`` mask (or ``max thread id`` + 1 on
  s390); cores are the distinct ``thread_siblings`` masks over all CPUs that have a topology
  directory (offline CPUs have none), of *every* core type; sockets are voted by every
  source (``physical_package_id``, ``core_siblings`` masks and lists, cpuinfo ``physical
  id``, NUMA node cpulists), a dissenting source reported as a warning; ``cores_per_socket``
  is cores // sockets. Where the topology has books (s390), ``sockets`` is what lscpu
  prints there, sockets per book; a z/VM guest's ``CPU Topology SW`` line in
  ``proc/sysinfo`` overrides both, as in lscpu.
* a cache instance is identified by level + type + ``id`` (or, without an ``id`` file, by its
  ``shared_cpu_map``; a map of all zeros means the core's own cache); totals add the size of
  every instance. SPARC's ``l1_icache_size`` files count one private instance per CPU;
  s390's shared caches come from cpuinfo ``cacheN`` lines (one size, no instance count).
* the CPU *type* (vendor, model name, flags) is the first one cpuinfo describes; CPUs of
  several types are listed in ``core_types`` (lscpu's per-type view: on a big.LITTLE SoC
  lscpu's first block describes the little cores only); ARM
  ``CPU implementer``/``CPU part`` numbers become names through ``data/cpu_parts.json``.
  Keys lscpu 2.38 does not know yet are read the way later lscpu reads them: loongarch
  ``Model Name``, riscv ``mvendorid`` (vendor id) and ``uarch`` (model name).

Unknown values are ``None``, never 0. Nothing here raises on a bad tree: garbage lines,
missing or unreadable files and odd bytes only make fields unknown.

``py-cpuinfo`` is used only off Linux (no procfs, live run, ``sys.platform != "linux"``).
The microarchitecture is archspec's answer for the tree's cpuinfo (not the host's): its
target table is read straight from archspec's JSON, and archspec's API is the fallback.
archspec's data lags new parts (Granite Rapids reads as ``sapphirerapids``, Lunar Lake as
``alderlake``), so x86 CPUs are first looked up by vendor / cpu family / model in the dated
``x86_models`` table of ``data/cpu_parts.json`` (Linux intel-family.h and amd.c): its target
wins unless archspec names the same target, a descendant of it, or only a generic level (a
VM hiding flags); its ``codename`` is reported as ``codename``. An Apple CPU (implementer
0x61, Asahi Linux) is named after the chip (the device tree's SoC compatible, ``apple_socs``)
and its performance cores, not after the efficiency cores cpuinfo lists first.
"""

from __future__ import annotations

import json
import os
import re
import sys
from functools import lru_cache

from accelgui.probes.context import ProbeContext
from accelgui.probes.memory import numa_nodes

_MAX_CPUS = 1 << 16          # bound for cpu lists read from garbage files
_TYPE_KEYS = {               # cpuinfo key -> lscpu cputype member (lscpu 2.38 type_patterns)
    "ASEs implemented": "flags", "BogoMIPS": "bogomips", "CPU implementer": "vendor",
    "CPU part": "model", "CPU revision": "revision", "CPU variant": "stepping",
    "Features": "flags", "address sizes": "addrsz", "bogomips per cpu": "bogomips",
    "cpu": "modelname", "cpu family": "family", "cpu model": "model", "family": "family",
    "features": "flags", "flags": "flags", "max thread id": "mtid", "model": "model",
    "model name": "modelname", "revision": "revision", "stepping": "stepping",
    "type": "flags", "vendor": "vendor", "vendor_id": "vendor",
}
_TYPE_IDENTITY = ("vendor", "model", "modelname", "stepping")   # a change starts a new type
_CPU_KEYS = {"processor", "cpu number"}
_PRIVATE_CACHE = r"scope=Private"


# ------------------------------------------------------------------ file access

def _cpulist_ranges(text: str) -> list[tuple[int, int]] | None:
    """The (first, last) CPU ranges of a kernel cpu list ("0-3,8"); [] for an empty list,
    None when malformed."""
    text = text.strip().strip("\x00").strip()
    if not text:
        return []
    out = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            return None
        if a < 0 or b < a or b >= _MAX_CPUS:
            return None
        out.append((a, b))
    return out


def parse_cpulist(text: str | None) -> set[int] | None:
    """Kernel cpu list ("0-3,8") -> set; None when missing or malformed."""
    ranges = None if text is None else _cpulist_ranges(text)
    if ranges is None:
        return None
    return {cpu for a, b in ranges for cpu in range(a, b + 1)}


_CACHED_TEXT = 20_000        # longest mask/list text kept in the parse caches (65,536 CPUs)


def parse_cpulist_mask(text: str | None) -> int | None:
    """Kernel cpu list ("0-3,8") -> int bitmask (bit N: CPU N); None when missing or
    malformed. Every CPU of a socket holds the same list text, so a parse is cached per
    distinct text and the same int is handed out again: memory stays linear in the CPUs
    (texts longer than any real list are parsed, not kept)."""
    return _cached(_parse_cpulist_mask, text)


def _cached(parse, text: str | None):
    """``parse(text)`` through its cache; a text longer than any real list is parsed, not
    kept (a hostile tree cannot fill the cache with megabytes)."""
    if text is None:
        return None
    return parse.__wrapped__(text) if len(text) > _CACHED_TEXT else parse(text)


@lru_cache(maxsize=512)
def _parse_cpulist_mask(text: str) -> int | None:
    ranges = _cpulist_ranges(text)
    if ranges is None:
        return None
    out = 0
    for a, b in ranges:
        out |= ((1 << (b - a + 1)) - 1) << a
    return out


def parse_cpumask(text: str | None) -> int | None:
    """Kernel cpu mask ("ffffffff,00000003") -> int bitmask; None when malformed (cached
    per distinct text, as :func:`parse_cpulist_mask`)."""
    return _cached(_parse_cpumask, text)


@lru_cache(maxsize=512)
def _parse_cpumask(text: str) -> int | None:
    text = text.strip().strip("\x00").strip().replace(",", "")
    if not text:
        return None
    try:
        return int(text, 16)
    except ValueError:
        return None


def _bits(mask: int):
    """The CPUs (set bits) of a mask, lowest first, in time linear in its width."""
    text = bin(mask)[:1:-1]
    i = text.find("1")
    while i >= 0:
        yield i
        i = text.find("1", i + 1)


def parse_size(text: str | None) -> int | None:
    """lscpu's parse_size for sysfs cache sizes: "32K" -> 32768."""
    if not text:
        return None
    m = re.fullmatch(r"(\d{1,18})\s*+([KMGT]?)(i?B?)", text.strip())
    if not m:
        return None
    num, unit, tail = int(m.group(1)), m.group(2), m.group(3)
    base = 1000 if tail == "B" and unit else 1024
    return num * base ** " KMGT".index(unit or " ")


# ------------------------------------------------------------------ cpuinfo

class CpuInfo:
    """/proc/cpuinfo parsed the way lscpu does it (types, per-CPU blocks, extra caches)."""

    def __init__(self):
        self.types: list[dict] = []        # lscpu cputypes, in order of appearance
        self.cpus: dict[int, dict] = {}     # logical id -> raw fields of its block
        self.first: dict[str, str] = {}     # first value of every key in the file
        self.ecaches: list[dict] = []       # s390 "cacheN" lines with shared scope
        self.cpu_type: dict[int, int] = {}  # logical id -> index in types (lscpu's cpu->type)

    @property
    def type(self) -> dict:
        return self.types[0] if self.types else {}


def _key_cleanup(key: str) -> tuple[str, int | None]:
    """lscpu key_cleanup: "processor 5" -> ("processor", 5), "cache0" -> ("cache", 0)."""
    m = re.fullmatch(r"(.*?)\s*(\d+)", key)
    if m and m.group(1):
        return m.group(1).rstrip(), int(m.group(2))
    return key, None


def parse_cpuinfo(text: str | None) -> CpuInfo:
    info = CpuInfo()
    if not text:
        return info
    cur_type: dict | None = None
    cur_type_idx = -1
    cur_cpu: dict | None = None
    cur_cpu_id: int | None = None
    for raw in text.split("\n"):
        line = raw.lstrip(" \t")
        colon = line.find(":")
        if colon < 0:
            continue
        key = line[:colon][:31].rstrip()
        value = line[colon + 1:].strip()
        value = value.replace("\x00", "").strip()
        if not key or not value:
            continue
        info.first.setdefault(key, value)
        key, keynum = _key_cleanup(key)
        member = _TYPE_KEYS.get(key)
        if member is not None:
            if cur_type is not None and member in _TYPE_IDENTITY and \
                    cur_type.get(member) not in (None, value):
                cur_type = None
            if cur_type is None:
                cur_type = {}
                info.types.append(cur_type)
                cur_type_idx = len(info.types) - 1
            cur_type[member] = value
            if cur_cpu is not None:
                cur_cpu.setdefault(key, value)
            continue
        if key in _CPU_KEYS:
            cpu_id = keynum
            if cpu_id is None:
                cpu_id = int(value) if value.isdigit() else 0
            if cur_cpu_id is not None and cur_type is not None:
                info.cpu_type[cur_cpu_id] = cur_type_idx      # lscpu: type at the switch
            cur_cpu_id = cpu_id
            cur_cpu = info.cpus.setdefault(cpu_id, {})
            continue
        if key == "cache" and keynum is not None:
            cache = _parse_s390_cache(value)
            if cache:
                info.ecaches.append(cache)
            continue
        if cur_cpu is not None:
            cur_cpu.setdefault(key, value)
    if cur_cpu_id is not None and cur_type is not None and cur_cpu_id not in info.cpu_type:
        info.cpu_type[cur_cpu_id] = cur_type_idx
    return info


def _parse_s390_cache(data: str) -> dict | None:
    """cacheN : level=3 type=Unified scope=Shared size=262144K line_size=256 associativity=32"""
    if re.search(_PRIVATE_CACHE, data):
        return None
    fields = dict(re.findall(r"(?<!\w)(\w+)=(\S+)", data))
    try:
        level = int(fields["level"])
        size = int(re.match(r"\d{1,18}", fields["size"]).group(0)) * 1024
        int(fields["line_size"])
        int(fields["associativity"])
    except (KeyError, ValueError, AttributeError):
        return None
    kind = fields.get("type", "")
    suffix = "d" if kind.startswith("Data") else "i" if kind.startswith("Instruction") else ""
    return {"name": f"L{level}{suffix}", "size": size}


@lru_cache(maxsize=1)
def _tables() -> dict:
    """probes/data/cpu_parts.json: ARM implementer/part names and vendor id maps."""
    from accelgui.data import json_file

    try:
        return json_file("accelgui.probes", "data/cpu_parts.json")
    except (OSError, ValueError):
        return {"arm": {}, "vendor_ids": {}, "riscv_mvendorid": {}}


def _arm_id(value: str | None) -> int | None:
    if not value or not value.startswith("0x"):
        return None
    try:
        return int(value, 16)
    except ValueError:
        return None


def arm_decode(implementer: str | None, part: str | None) -> tuple[str | None, str | None, str | None]:
    """(vendor name, model name, short vendor id) for ARM ``CPU implementer``/``CPU part``."""
    impl = _arm_id(implementer)
    if impl is None:
        return None, None, None
    entry = None
    for key, value in (_tables().get("arm") or {}).items():
        if int(key, 16) == impl:
            entry = value
            break
    if not isinstance(entry, dict) or not entry.get("name"):
        return None, None, None
    model = None
    pid = _arm_id(part)
    if pid is not None:
        for key, value in (entry.get("parts") or {}).items():
            if int(key, 16) == pid:
                model = value
                break
    return entry["name"], model, entry.get("vendor")


# ------------------------------------------------------------------ architecture

# cpuinfo "arch"/"cpu family"/"cpu" values that name the kernel architecture outright
_ARCH_NAMES = {"IA-64": "ia64", "ia64": "ia64", "Alpha": "alpha", "PA-RISC 2.0": "parisc64",
               "PA-RISC 1.1": "parisc", "PA-RISC 1.0": "parisc", "sh4": "sh4", "sh4a": "sh4a",
               "sh3": "sh3", "sh2": "sh2", "68040": "m68k", "68060": "m68k", "68030": "m68k",
               "68020": "m68k"}


def arch_from_cpuinfo(first: dict[str, str], flags: list[str]) -> str | None:
    """Guess the kernel architecture (uname -m) from the keys a cpuinfo file uses."""
    for key in ("arch", "cpu family", "CPU", "cpu"):
        named = _ARCH_NAMES.get(first.get(key, "").strip())
        if named:
            return named
    fl = set(flags)
    if "vendor_id" in first and first.get("vendor_id") != "IBM/S390" and ("flags" in first):
        return "x86_64" if "lm" in fl else "i686"
    if first.get("vendor_id") == "IBM/S390" or "bogomips per cpu" in first:
        return "s390x" if "zarch" in fl or "zarch" in first.get("features", "") else "s390"
    if "CPU implementer" in first or "CPU architecture" in first:
        feats = set(first.get("Features", "").split())
        if "asimd" in feats or ("fp" in feats and "half" not in feats) or \
                first.get("CPU architecture", "").startswith("AArch64"):
            return "aarch64"
        m = re.search(r"\(v(\d++)\w*+\)", first.get("model name", ""))
        return f"armv{m.group(1)}l" if m else "armv7l"
    isa = first.get("isa", "")
    if isa.startswith("rv64"):
        return "riscv64"
    if isa.startswith("rv32"):
        return "riscv32"
    if "loongarch64" in first.get("ISA", "") or "Loongson-64" in first.get("CPU Family", ""):
        return "loongarch64"
    cpu = first.get("cpu", "")
    if first.get("type", "").startswith("sun4") or "sparc" in cpu.lower():
        return "sparc64" if first.get("type", "").startswith(("sun4u", "sun4v")) or \
            "64" in cpu else "sparc"
    if "cpu model" in first:
        return "mips64" if "mips64" in first.get("isa", "") else "mips"
    m = re.search(r"POWER(\d+)", cpu)
    if m:
        return "ppc64le" if int(m.group(1)) >= 8 else "ppc64"
    if cpu and ("timebase" in first or "pvr" in first.get("revision", "")):
        return "ppc64" if re.search(r"970|Cell|PA6T|POWER", cpu) else "ppc"
    return None


def read_cpuinfo(ctx) -> CpuInfo:
    """The tree's proc/cpuinfo parsed, once per context (the cpu and platform probes both
    need it, and on a many-core machine it is hundreds of kilobytes)."""
    return ctx.shared("cpuinfo", lambda: parse_cpuinfo(ctx.read_text("proc/cpuinfo",
                                                                     limit=16 << 20)))


def tree_arch(ctx, info: CpuInfo | None = None, flags: list[str] | None = None) -> str | None:
    """Machine architecture of the tree: uname on the live system, else from its files."""
    if ctx.live:
        try:
            return os.uname().machine or None
        except (AttributeError, OSError):
            pass
    line = ctx.read_line("proc/sys/kernel/arch")
    if line and re.fullmatch(r"[\w.-]+", line):
        return line
    if info is None:
        info = read_cpuinfo(ctx)
    if flags is None:
        flags = info.type.get("flags", "").split()
    return arch_from_cpuinfo(info.first, flags)


# ------------------------------------------------------------------ features

_X86_FEATURES = {
    "sse": "sse", "sse2": "sse2", "pni": "sse3", "ssse3": "ssse3", "sse4_1": "sse4_1",
    "sse4_2": "sse4_2", "avx": "avx", "avx2": "avx2", "fma": "fma", "f16c": "f16c",
    "avx512f": "avx512f", "avx512cd": "avx512cd", "avx512bw": "avx512bw",
    "avx512dq": "avx512dq", "avx512vl": "avx512vl", "avx512ifma": "avx512ifma",
    "avx512vbmi": "avx512vbmi", "avx512_vbmi2": "avx512_vbmi2", "avx512_vnni": "avx512_vnni",
    "avx512_bf16": "avx512_bf16", "avx512_fp16": "avx512_fp16", "avx512_bitalg": "avx512_bitalg",
    "avx512_vpopcntdq": "avx512_vpopcntdq", "avx_vnni": "avx_vnni",
    "avx_vnni_int8": "avx_vnni_int8", "avx_ifma": "avx_ifma", "avx_ne_convert": "avx_ne_convert",
    "amx_tile": "amx_tile", "amx_bf16": "amx_bf16", "amx_int8": "amx_int8",
    "amx_fp16": "amx_fp16", "amx_complex": "amx_complex", "aes": "aes", "sha_ni": "sha",
    "vaes": "vaes", "vpclmulqdq": "vpclmulqdq", "gfni": "gfni", "bmi1": "bmi1", "bmi2": "bmi2",
    "popcnt": "popcnt", "movbe": "movbe", "fma4": "fma4", "xop": "xop",
}
X86_FEATURES = _X86_FEATURES       # the kernel's x86 flag -> feature name (other OS backends)
_ARM_FEATURES = {
    "asimd": ["neon"], "neon": ["neon"], "fp": ["fp"], "vfpv4": ["vfpv4"],
    "asimdhp": ["fp16", "asimdhp"], "fphp": ["fp16"], "asimddp": ["dotprod"],
    "asimdfhm": ["fhm"], "asimdrdm": ["rdm"], "i8mm": ["i8mm"], "bf16": ["bf16"],
    "sve": ["sve"], "sve2": ["sve2"], "sve2p1": ["sve2p1"], "svei8mm": ["sve_i8mm"],
    "svebf16": ["sve_bf16"], "sme": ["sme"], "sme2": ["sme2"], "sme2p1": ["sme2p1"],
    "atomics": ["lse"], "aes": ["aes"], "pmull": ["pmull"], "sha1": ["sha1"], "sha2": ["sha2"],
    "sha3": ["sha3"], "sha512": ["sha512"], "crc32": ["crc32"], "jscvt": ["jscvt"],
    "fcma": ["fcma"], "lrcpc": ["rcpc"], "mte": ["mte"], "bti": ["bti"],
}
_S390_FEATURES = {"vx": "vx", "vxd": "vxd", "vxe": "vxe", "vxe2": "vxe2", "vxp": "vxp",
                  "vxp2": "vxp2", "vxe3": "vxe3", "nnpa": "nnpa", "dflt": "dflt", "sort": "sort",
                  "te": "te"}
_LOONG_FEATURES = {"lsx": "lsx", "lasx": "lasx", "fpu": "fpu", "crypto": "crypto", "crc32": "crc32",
                   "lvz": "lvz", "lbt_x86": "lbt_x86", "lbt_arm": "lbt_arm", "lbt_mips": "lbt_mips"}
_SPARC_FEATURES = {"vis": "vis", "vis2": "vis2", "vis3": "vis3", "fmaf": "fmaf", "aes": "aes",
                   "sha256": "sha256", "sha512": "sha512", "crc32c": "crc32c"}
_RISCV_EXT = {"zfh", "zfhmin", "zvfh", "zvfhmin", "zba", "zbb", "zbc", "zbs", "zicbom", "zicboz",
              "zve32x", "zve32f", "zve64x", "zve64f", "zve64d", "zvbb", "zvbc", "zvkt", "zvkn",
              "zvksh", "zvfbfmin", "zvfbfwma", "zfa", "zicond", "zkt", "zawrs", "zacas"}


def _flag_renames(arch: str) -> dict | None:
    """The kernel-flag -> feature-name table of architectures whose flags map one to one."""
    if arch in ("x86_64", "i686", "i586", "i386"):
        return _X86_FEATURES
    for prefix, table in (("s390", _S390_FEATURES), ("loongarch", _LOONG_FEATURES),
                          ("sparc", _SPARC_FEATURES)):
        if arch.startswith(prefix):
            return table
    return None


def normalise_features(arch: str | None, flags: list[str], info: CpuInfo, model_name) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()

    def add(name):
        if name not in seen:
            seen.add(name)
            out.append(name)

    arch = arch or ""
    renames = _flag_renames(arch)
    if renames is not None:                 # the kernel flag names map one to one
        for f in flags:
            if f in renames:
                add(renames[f])
    elif arch == "aarch64" or arch.startswith("arm"):
        for f in flags:
            for name in _ARM_FEATURES.get(f, ()):
                add(name)
    elif arch.startswith("ppc"):
        cpu = model_name or info.first.get("cpu", "")
        if "altivec" in cpu.lower():
            add("altivec")
        m = re.search(r"POWER(\d+)", cpu)
        if m:
            gen = int(m.group(1))
            if gen >= 6:
                add("altivec")
            if gen >= 7:
                add("vsx")
            if gen >= 10:
                add("mma")
    elif arch.startswith("riscv"):
        isa = info.first.get("isa", "").lower()
        parts = isa.split("_")
        base = re.sub(r"^rv(32|64|128)", "", parts[0]) if parts else ""
        letters = base.split("z", 1)[0] if base else ""
        if "v" in letters:                  # the vector extension (RVV 1.0)
            add("rvv")
            add("v")
        for ext in parts[1:]:
            if ext in _RISCV_EXT:
                add(ext)
    elif arch.startswith("mips"):
        if "msa" in flags:
            add("msa")
    return out


# ------------------------------------------------------------------ microarchitecture

_UARCH_ARCHES = ("x86_64", "aarch64", "ppc64", "ppc64le", "riscv64")


def _partial_info(arch, vendor_raw, flags, cpu_part, implementer, model_name, uarch, arm_vendors):
    """The fields of archspec's partial Microarchitecture that detect.proc_cpuinfo() fills."""
    vendor, generation, name, part = "generic", 0, "", ""
    if arch == "x86_64":
        vendor = vendor_raw or "generic"
    elif arch == "aarch64":
        vendor = arm_vendors.get(implementer, implementer) if implementer else "generic"
        part = cpu_part or ""
    elif arch.startswith("ppc64"):
        m = re.search(r"POWER(\d+)", model_name or "")
        generation = int(m.group(1)) if m else 0
    elif arch == "riscv64":
        name = {"sifive,u74-mc": "u74mc", "spacemit,x60": "x60"}.get(uarch or "", uarch or "")
        if model_name == "Spacemit(R) X60":
            name = "x60"
    features = set(flags)
    if "ssse3" in features:                 # archspec adds sse3 the same way
        features.add("sse3")
    return vendor, features, generation, name, part


@lru_cache(maxsize=1)
def _archspec_data() -> tuple[dict, dict] | None:
    """archspec's own target table (microarchitectures.json), read without importing
    ``archspec.cpu`` (whose import pulls in ctypes, subprocess and the cpuid module:
    15-25 ms on the dev VM against ~1 ms for the JSON).

    Returns ({name: (ancestors, vendor, features, generation, cpu_part, family)},
    arm_vendors), or None when the file cannot be found (then archspec's API is used).
    """
    import importlib.util

    try:
        custom = os.environ.get("ARCHSPEC_CPU_DIR") or os.environ.get("ARCHSPEC_EXTENSION_CPU_DIR")
        spec = importlib.util.find_spec("archspec")
        if custom or spec is None or not spec.submodule_search_locations:
            return None
        path = os.path.join(list(spec.submodule_search_locations)[0], "json", "cpu",
                            "microarchitectures.json")
        with open(path, "rb") as f:
            data = json.loads(f.read())
        raw = data["microarchitectures"]
        arm_vendors = data.get("conversions", {}).get("arm_vendors", {})
    except (OSError, ValueError, KeyError, ImportError, AttributeError, TypeError):
        return None
    ancestors: dict[str, list[str]] = {}

    def anc(name, depth=0):
        if name in ancestors:
            return ancestors[name]
        if depth > 64:
            raise ValueError("cycle")
        parents = list(raw[name].get("from", []))
        value = parents[:]
        for parent in parents:
            value.extend(a for a in anc(parent, depth + 1) if a not in value)
        ancestors[name] = value
        return value

    targets = {}
    try:
        for name, values in raw.items():
            a = anc(name)
            roots = [x for x in [name] + a if not raw[x].get("from")]
            features = set(values.get("features", []))
            if "ssse3" in features:
                features.add("sse3")
            targets[name] = (a, values.get("vendor", "generic"), frozenset(features),
                             values.get("generation", 0), values.get("cpupart", ""),
                             roots[0] if roots else name)
    except (KeyError, ValueError, TypeError, IndexError):
        return None
    return targets, arm_vendors


def microarchitecture(arch: str | None, vendor_raw: str | None, flags: list[str],
                      cpu_part: str | None = None, implementer: str | None = None,
                      model_name: str | None = None, uarch: str | None = None) -> str | None:
    """archspec's best target for *these* facts (archspec.cpu.host() reads the host).

    Same data (archspec's microarchitectures.json) and the same rules as
    archspec.cpu.detect.host(): keep the targets compatible with the partial description,
    then take the most specific descendant of the best generic target.
    """
    if arch not in _UARCH_ARCHES:
        return None
    loaded = _archspec_data()
    if loaded is None:
        return _microarchitecture_archspec(arch, vendor_raw, flags, cpu_part, implementer,
                                           model_name, uarch)
    targets, arm_vendors = loaded
    if arch not in targets:
        return None
    vendor, features, generation, name, part = _partial_info(
        arch, vendor_raw, flags, cpu_part, implementer, model_name, uarch, arm_vendors)

    def compatible(tname) -> bool:
        t_anc, t_vendor, t_feat, t_gen, _, t_family = targets[tname]
        in_family = tname == arch or arch in t_anc
        if arch == "x86_64":
            return in_family and t_vendor in (vendor, "generic") and t_feat <= features
        if arch == "aarch64":
            if t_vendor == "generic" and tname != "aarch64":
                return False
            return t_family == arch and t_vendor in (vendor, "generic") and t_feat <= features
        if arch.startswith("ppc64"):
            return in_family and t_gen <= generation
        return in_family and (tname == name or t_vendor == "generic")

    candidates = [t for t in targets if compatible(t)] or [arch]

    def sorting_fn(tname):
        return len(targets[tname][0]), len(targets[tname][2])

    def nodes(tname):
        return {tname, *targets[tname][0]}

    generic = [c for c in candidates if targets[c][1] == "generic"] or [arch]
    best_generic = max(generic, key=sorting_fn)
    if part and any(targets[c][4] == part for c in candidates):
        candidates = [c for c in candidates if targets[c][4] == part]
    base = nodes(best_generic)
    candidates = [c for c in candidates if nodes(c) > base]
    best = max(candidates, key=sorting_fn) if candidates else best_generic
    return None if best == arch else best


def _microarchitecture_archspec(arch, vendor_raw, flags, cpu_part=None, implementer=None,
                                model_name=None, uarch=None) -> str | None:
    """The same selection through archspec's API (slower import; the reference in tests)."""
    if arch not in _UARCH_ARCHES:
        return None
    try:
        from archspec.cpu.microarchitecture import TARGETS, Microarchitecture
        from archspec.cpu.schema import TARGETS_JSON
    except Exception:  # noqa: BLE001 - archspec missing or broken: unknown, not an error
        return None
    try:
        root = TARGETS[arch]
        vendor, features, generation, name, part = _partial_info(
            arch, vendor_raw, flags, cpu_part, implementer, model_name, uarch,
            TARGETS_JSON["conversions"]["arm_vendors"])
        info = Microarchitecture(name=name, parents=[], vendor=vendor, features=features,
                                 compilers={}, generation=generation, cpu_part=part)

        def compatible(t) -> bool:        # archspec.cpu.detect compatibility checks
            in_family = t == root or root in t.ancestors
            if arch == "x86_64":
                return in_family and t.vendor in (info.vendor, "generic") and \
                    t.features.issubset(info.features)
            if arch == "aarch64":
                if t.vendor == "generic" and t.name != "aarch64":
                    return False
                return root == t.family and t.vendor in (info.vendor, "generic") and \
                    t.features.issubset(info.features)
            if arch.startswith("ppc64"):
                return in_family and t.generation <= info.generation
            return in_family and (t.name == info.name or t.vendor == "generic")

        candidates = [t for t in TARGETS.values() if compatible(t)] or [root]

        def sorting_fn(item):
            return len(item.ancestors), len(item.features)

        generic = [c for c in candidates if c.vendor == "generic"] or [root]
        best_generic = max(generic, key=sorting_fn)
        if info.cpu_part and any(c.cpu_part == info.cpu_part for c in candidates):
            candidates = [c for c in candidates if c.cpu_part == info.cpu_part]
        candidates = [c for c in candidates if c > best_generic]
        best = max(candidates, key=sorting_fn) if candidates else best_generic
    except Exception:  # noqa: BLE001 - a data problem inside archspec must not cost the report
        return None
    return None if best.name == arch else best.name


# ------------------------------------------------------------------ newer parts than archspec knows

def _num(text) -> int | None:
    """"0xad", "173" or an int -> int; None for anything else."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    try:
        return int(text, 16) if text.startswith("0x") else int(text)
    except ValueError:
        return None


def _in_models(model: int, specs) -> bool:
    for spec in specs or ():
        lo, sep, hi = str(spec).partition("-")
        a, b = _num(lo), _num(hi) if sep else _num(lo)
        if a is not None and b is not None and a <= model <= b:
            return True
    return False


def x86_model_row(vendor_raw: str | None, family, model, stepping=None) -> dict | None:
    """The ``x86_models`` row of ``data/cpu_parts.json`` for this vendor / cpu family / model
    (/ stepping, where a row names steppings), or None."""
    fam, mod, step = _num(family), _num(model), _num(stepping)
    if not vendor_raw or fam is None or mod is None:
        return None
    for row in ((_tables().get("x86_models") or {}).get("rows") or ()):
        if not isinstance(row, dict) or row.get("vendor") != vendor_raw.strip() or \
                _num(row.get("family")) != fam or not _in_models(mod, row.get("models")):
            continue
        if row.get("steppings") and (step is None or not _in_models(step, row["steppings"])):
            continue
        return row
    return None


def _keeps_archspec(archspec_name: str | None, table_name: str) -> bool:
    """Whether archspec's answer stands against the table's: it is the table's target or a
    descendant of it (``arrowlake_s`` under ``arrowlake``: more specific), or a generic level
    (``x86_64_v4``: the flags a VM shows lack what the named target has, so naming it would
    claim instructions this machine does not offer)."""
    if not archspec_name:
        return False
    if archspec_name == table_name:
        return True
    loaded = _archspec_data()
    if loaded is None:
        return archspec_name.startswith("x86_64")
    entry = loaded[0].get(archspec_name)
    return bool(entry) and (table_name in entry[0] or entry[1] == "generic")


def _x86_uarch(vendor_raw, ct: dict, archspec_name: str | None,
               flags_complete: bool = True) -> tuple[str | None, str | None]:
    """(microarchitecture, codename): the dated family/model table first (archspec's data lags
    new parts: Granite Rapids reads as sapphirerapids, Lunar Lake as alderlake); archspec's
    answer where the table has no row, or where :func:`_keeps_archspec` says it stands, or where
    the row is a ``fallback`` (an older part archspec knows) and ``flags_complete`` (the flags
    archspec read are the CPU's whole list, not a Mac's partial one). The codename is the
    table's whenever it has a row."""
    row = x86_model_row(vendor_raw, ct.get("family"), ct.get("model"), ct.get("stepping"))
    if not row or not row.get("uarch"):
        return archspec_name, None
    if _keeps_archspec(archspec_name, row["uarch"]) or (row.get("fallback") and archspec_name and flags_complete):
        return archspec_name, row.get("codename")      # a part archspec knows: its answer stands
    return row["uarch"], row.get("codename")


x86_uarch = _x86_uarch     # for the backends of other operating systems (macOS sysctl)


def _apple_cpu(ctx, info: CpuInfo) -> dict | None:
    """An Apple M-series CPU under Linux (Asahi): cpuinfo lists every core's implementer 0x61
    and part, efficiency cores first (lscpu's first type). {model_name, uarch, chip}: named
    after the chip (the device tree's SoC compatible, ``apple_socs`` in cpu_parts.json) and its
    performance cores ("Apple M1 (Firestorm-M1)"); either alone where the other is unknown."""
    table = _tables().get("apple_socs") or {}
    pnames = tuple(table.get("performance_cores") or ())
    perf = None
    for t in info.types:
        _, part_name, short = arm_decode(t.get("vendor"), t.get("model"))
        if short != "apple" or not part_name:
            continue
        if perf is None or (pnames and part_name.split("-")[0] in pnames):
            perf = part_name
    chip = None
    for rel in ("proc/device-tree/compatible", "sys/firmware/devicetree/base/compatible"):
        data = ctx.read_bytes(rel, limit=4096)
        if not data:
            continue
        for comp in data.split(b"\0"):
            entry = (table.get("chips") or {}).get(comp.decode("utf-8", "replace").strip())
            if isinstance(entry, dict) and entry.get("name"):
                chip = entry
                break
        break
    if chip is None and perf is None:
        return None
    if chip is None:
        return {"model_name": perf, "uarch": None, "chip": None}
    return {"model_name": f"{chip['name']} ({perf})" if perf else chip["name"],
            "uarch": chip.get("uarch"), "chip": chip["name"]}

# ------------------------------------------------------------------ sysfs: topology, caches

def _cpu_ids(r: ProbeContext) -> tuple[list[int], set[int] | None, set[int] | None, set[int] | None]:
    base = "sys/devices/system/cpu"
    possible = parse_cpulist(r.read_text(f"{base}/possible"))
    present = parse_cpulist(r.read_text(f"{base}/present"))
    online = parse_cpulist(r.read_text(f"{base}/online"))
    dirs = {int(d[3:]) for d in r.listdir(base) if d.startswith("cpu") and d[3:].isdigit()}
    ids = sorted(possible) if possible else sorted(dirs)
    return ids, possible, present, online


def _topology(r: ProbeContext, ids: list[int], mtid: str | None, info: CpuInfo | None = None):
    """(threads_per_core, cores_per_socket, sockets, core_types) as the kernel (and hwloc)
    see the machine.

    * cores are the distinct ``thread_siblings`` masks over *every* CPU with a topology
      folder, whatever its core type: a 10 x Cortex-X925 + 10 x Cortex-A725 package has 20
      cores (lscpu 2.38 prints one block per type; that per-type view is ``core_types``);
    * sockets are voted by every source that describes packages: ``physical_package_id``,
      the ``core_siblings`` masks, the ``core_siblings_list``/``package_cpus_list`` files,
      cpuinfo ``physical id`` and the NUMA nodes' cpulists. The count most sources give
      wins (ties go to that order); a source that disagrees is recorded as a warning, so one
      contradictory mask cannot invent a socket; an Arm tree whose "packages" are the
      clusters of one SoC (older kernels numbered DT clusters so) is one package, see
      :func:`_clusters_as_packages`;
    * threads_per_core is the largest ``thread_siblings`` mask (``max thread id`` + 1 on
      s390), as lscpu counts it. Where the topology has books (s390), ``sockets`` is what
      lscpu prints there, sockets per book; a z/VM guest's ``CPU Topology SW`` line in
      ``proc/sysinfo`` overrides both, as in lscpu.

    Masks and lists are held as ints (bitsets), parsed once per distinct text: memory and
    time stay linear in the CPUs (a set per CPU of its socket's CPUs was quadratic).
    """
    base = "sys/devices/system/cpu"
    nthreads = 0
    core_of: dict[int, tuple | None] = {}       # cpu -> its core (thread_siblings' CPUs)
    sources: dict[str, dict[int, object]] = {"physical_package_id": {}, "core_siblings": {},
                                             "core_siblings_list": {}}
    books: set = set()
    same: dict[int, int] = {}                   # one object per distinct package mask
    for cpu in ids:                             # masks are ints (bitsets)
        tp = f"{base}/cpu{cpu}/topology"
        text = r.read_text(f"{tp}/thread_siblings")
        if text is None and not r.exists(f"{tp}/thread_siblings"):
            continue
        # a core is kept as the tuple of its CPUs, not as a mask as wide as the machine:
        # one mask per core would be quadratic (16,384 CPUs: 8,192 masks of 2 KiB)
        threads = parse_cpumask(text)
        n = bin(threads).count("1") if threads else 0
        nthreads = max(nthreads, n or 1)
        core_of[cpu] = tuple(_bits(threads)) if 0 < n <= 64 else threads   # garbage: as read
        core_sib = parse_cpumask(r.read_text(f"{tp}/core_siblings"))
        if core_sib is not None:
            sources["core_siblings"][cpu] = same.setdefault(core_sib, core_sib)
        pkg = r.read_int(f"{tp}/physical_package_id")
        if pkg is not None:
            sources["physical_package_id"][cpu] = pkg
        lst = parse_cpulist_mask(r.read_text(f"{tp}/core_siblings_list") or
                                 r.read_text(f"{tp}/package_cpus_list"))
        if lst:
            sources["core_siblings_list"][cpu] = same.setdefault(lst, lst)
        book = parse_cpumask(r.read_text(f"{tp}/book_siblings"))
        if book is not None:
            books.add(book)
    if not core_of:
        threads, cores, sockets = _topology_from_lists(r, ids)
        return threads, cores, sockets, None
    if info is not None:
        sources["cpuinfo physical id"] = {cpu: b["physical id"] for cpu, b in info.cpus.items()
                                          if "physical id" in b and cpu in core_of}
    sources["node cpulist"] = _node_of(r, core_of)
    if _clusters_as_packages(info, core_of, sources):
        for name in _SOCKET_FILES:              # one package: the "packages" are clusters
            sources[name] = dict.fromkeys(sources[name], 0)
    nsockets = _vote_sockets(r, sources)
    threads_per_core = nthreads or None
    if mtid is not None and mtid.isdigit():
        threads_per_core = int(mtid) + 1
    ncores, nbooks = len(set(core_of.values())), len(books)
    cores_per_socket = ncores // nsockets if nsockets else 0
    sockets_per_book = nsockets // nbooks if nbooks else 0
    sysinfo = r.read_text("proc/sysinfo") or ""
    m = re.search(r"CPU Topology SW:\s*+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", sysinfo) \
        if "CPU Topology SW" in sysinfo else None
    if m:                                   # s390 (z/VM): the SW topology from /proc/sysinfo
        sockets_per_book, cores_per_socket = int(m.group(5)), int(m.group(6))
    # lscpu prints "Socket(s)" when there are no books, else "Socket(s) per book" (s390)
    total = sockets_per_book if nbooks else (sockets_per_book or nsockets)
    return threads_per_core, cores_per_socket or None, total or None, \
        _core_types(info, core_of, nsockets)


def _node_of(r: ProbeContext, cpus) -> dict[int, int]:
    """cpu -> NUMA node, from the nodes' cpulists (CPU-less nodes do not count)."""
    out: dict[int, int] = {}
    node_dir = "sys/devices/system/node"
    for name in r.listdir(node_dir):
        if not (name.startswith("node") and name[4:].isdigit()):
            continue
        for cpu in parse_cpulist(r.read_text(f"{node_dir}/{name}/cpulist")) or ():
            if cpu in cpus:
                out[cpu] = int(name[4:])
    return out


def _type_key(t: dict) -> tuple:
    """A kind of core: vendor, model, model name (not the stepping: a server may mix
    steppings of one model across its sockets)."""
    return (t.get("vendor"), t.get("model"), t.get("modelname"))


def _clusters_as_packages(info: CpuInfo | None, core_of: dict,
                          sources: dict[str, dict[int, object]]) -> bool:
    """Whether the "packages" of an Arm tree are the clusters of one SoC. Before the v6.0
    arch_topology rework, arm/arm64 kernels numbered each cluster of the device tree's
    cpu-map as a package (``physical_package_id`` 0/1/2 and ``core_siblings`` per cluster,
    as in util-linux's A510/A710/A715/X3 dump, where lscpu counts one socket per CPU type).
    Real sockets hold the same kinds of core; so when every package holds kinds of core no
    other package holds (big.LITTLE clusters), and no NUMA node split says otherwise, the
    tree is one package."""
    if info is None or len(info.types) < 2 or not info.cpu_type or \
            "CPU implementer" not in info.first:
        return False
    if len(set(sources.get("node cpulist", {}).values())) > 1:
        return False
    packages = sources["physical_package_id"] or sources["core_siblings"] or \
        sources["core_siblings_list"]
    if len(set(packages.values())) < 2:
        return False
    first = info.type.get("vendor")             # a type that never saw its own vendor line
    keys = [(t.get("vendor") or first, t.get("model"), t.get("modelname")) for t in info.types]
    owner: dict[tuple, object] = {}             # kind of core -> the one package holding it
    for cpu, pkg in packages.items():
        idx = info.cpu_type.get(cpu)
        if idx is None or cpu not in core_of:
            return False
        if owner.setdefault(keys[idx], pkg) != pkg:
            return False                        # a kind of core in two packages: sockets
    return True


_SOCKET_FILES = {"physical_package_id": "physical_package_id", "core_siblings": "core_siblings",
                 "core_siblings_list": "core_siblings_list"}


def _vote_sockets(r: ProbeContext, sources: dict[str, dict[int, object]]) -> int:
    """The socket count most sources agree on (ties: the first source in order); each
    source that disagrees is recorded (reason ``disagree``) at the file of a CPU whose value
    is the odd one out."""
    counts = {name: len(set(values.values())) for name, values in sources.items() if values}
    if not counts:
        return 0
    tally: dict[int, int] = {}
    for n in counts.values():
        tally[n] = tally.get(n, 0) + 1
    best = max(tally.values())
    winner = next(n for n in counts.values() if tally[n] == best)
    for name, n in counts.items():
        if n == winner:
            continue
        values = sources[name]
        groups: dict[object, list[int]] = {}
        for cpu, value in values.items():
            groups.setdefault(value, []).append(cpu)
        odd = min(groups.values(), key=len)[0]
        if name in _SOCKET_FILES:
            r.fault(f"sys/devices/system/cpu/cpu{odd}/topology/{_SOCKET_FILES[name]}", "disagree")
        elif name == "node cpulist":
            r.fault("sys/devices/system/node", "disagree")
        else:
            r.fault("proc/cpuinfo", "disagree")
    return winner


def _core_types(info: CpuInfo | None, core_of: dict, nsockets: int) -> list[dict] | None:
    """lscpu's per-type view, for CPUs of more than one type (big.LITTLE, hybrid Arm):
    [{model_name, cores, cores_per_socket, cpus}] in cpuinfo's order of types."""
    if info is None or len(info.types) < 2 or not info.cpu_type:
        return None
    groups: dict[tuple, list[int]] = {}         # types that lscpu repeats (GB10: A725, X925,
    names: dict[tuple, str | None] = {}         # A725, X925 by cluster) are one kind of core
    by_type: dict[int, list[int]] = {}          # one pass over the CPUs, not one per type
    for cpu in core_of:
        by_type.setdefault(info.cpu_type.get(cpu, 0), []).append(cpu)
    for idx, t in enumerate(info.types):
        # a type that starts at its "CPU part" line and covers one last CPU (a lone Cortex-X3)
        # never sees a "CPU implementer" line of its own: it is the first type's (lscpu >= 2.39)
        _, arm_model, _ = arm_decode(t.get("vendor") or info.type.get("vendor"), t.get("model"))
        key = _type_key(t)
        names[key] = arm_model or t.get("modelname")
        groups.setdefault(key, []).extend(by_type.get(idx, ()))
    out = []
    for key, cpus in groups.items():
        if not cpus:
            continue
        cores = len({core_of[cpu] for cpu in cpus})
        out.append({"model_name": names[key], "cpus": len(cpus), "cores": cores,
                    "cores_per_socket": cores // nsockets if nsockets else None})
    return out if len(out) > 1 else None


def _topology_from_lists(r: ProbeContext, ids: list[int]):
    """No masks at all (not how the kernel lays it out): try the *_list files."""
    base = "sys/devices/system/cpu"
    nthreads, cores, sockets = 0, set(), set()  # of masks (ints), one per distinct list text
    for cpu in ids:
        tp = f"{base}/cpu{cpu}/topology"
        threads = parse_cpulist_mask(r.read_text(f"{tp}/thread_siblings_list") or
                                     r.read_text(f"{tp}/core_cpus_list"))
        pkg = parse_cpulist_mask(r.read_text(f"{tp}/core_siblings_list") or
                                 r.read_text(f"{tp}/package_cpus_list"))
        if threads is None and pkg is None:
            continue
        if threads and threads not in cores:
            nthreads = max(nthreads, bin(threads).count("1"))
            cores.add(threads)
        if pkg:
            sockets.add(pkg)
    if not cores:
        return None, None, None
    nsockets = len(sockets) or None
    return nthreads or None, (len(cores) // nsockets) if nsockets else None, nsockets


class _Cache:
    __slots__ = ("name", "type", "level", "id", "size", "sharedmap", "ordinal")

    def __init__(self, name, ctype, level, cid, size, ordinal):
        self.name, self.type, self.level, self.id, self.size = name, ctype, level, cid, size
        self.sharedmap = None
        self.ordinal = ordinal                  # its place among the caches of its level/type


def _caches(r: ProbeContext, ids: list[int], ecaches: list[dict]) -> dict:
    """Cache instances as lscpu counts them: by level + type + ``id``; without an ``id``,
    the first instance of that level and type whose shared map holds the CPU (lscpu's
    mk_cache_id), found through a map of CPU -> instance per level and type (filled once
    per CPU as instances appear), not by scanning every instance for every CPU."""
    base = "sys/devices/system/cpu"
    caches: list[_Cache] = []
    index: dict[tuple, _Cache] = {}
    owner: dict[tuple, dict[int, _Cache]] = {}  # (type, level) -> cpu -> first instance holding it
    covered: dict[tuple, int] = {}              # (type, level) -> mask of the CPUs in owner
    count: dict[tuple, int] = {}                # (type, level) -> instances so far

    def share(ca: _Cache, mask: int) -> None:
        ca.sharedmap = True                     # its CPUs live in owner: no mask per instance
        kind = (ca.type, ca.level)
        seen = covered.get(kind, 0)
        new = mask & ~seen
        if new:
            covered[kind] = seen | new
            cpus = owner.setdefault(kind, {})
            for cpu in _bits(new):
                cpus[cpu] = ca

    def mk_cache_id(cpu, ctype, level):
        ca = owner.get((ctype, level), {}).get(cpu)
        return ca.ordinal if ca is not None else count.get((ctype, level), 0)

    def get_or_add(ctype, level, cid, name, size):
        key = (ctype, level, cid)
        ca = index.get(key)
        if ca is None:
            n = count.get((ctype, level), 0)
            count[(ctype, level)] = n + 1
            ca = _Cache(name, ctype, level, cid, size, n)
            caches.append(ca)
            index[key] = ca
        return ca

    for cpu in ids:
        d = f"{base}/cpu{cpu}"
        names = set(r.listdir(f"{d}/cache"))    # one listing, not a lookup per index
        n = 0
        while n < 64 and f"index{n}" in names:
            n += 1
        if n == 0:
            if r.exists(f"{d}/l1_icache_size"):                 # SPARC
                for level, ctype, prefix, name in ((1, "Instruction", "l1_i", "L1i"),
                                                   (1, "Data", "l1_d", "L1d"),
                                                   (2, "Unified", "l2_", "L2")):
                    size = r.read_int(f"{d}/{prefix}cache_size")
                    if size is None:
                        continue
                    cid = mk_cache_id(cpu, ctype, level)
                    ca = get_or_add(ctype, level, cid, name, size)
                    if ca.sharedmap is None:
                        share(ca, 1 << cpu)
            continue
        for k in range(n):
            idx = f"{d}/cache/index{k}"
            cid = r.read_int(f"{idx}/id")
            level = r.read_int(f"{idx}/level")
            if level is None:
                continue
            if not 1 <= level <= 9:
                r.fault(f"{idx}/level", "out-of-range")
                continue
            ctype = r.read_line(f"{idx}/type")
            if not ctype:
                continue
            if cid is None:
                cid = mk_cache_id(cpu, ctype, level)
            key = (ctype, level, cid)
            ca = index.get(key)
            if ca is None:
                suffix = "d" if ctype == "Data" else "i" if ctype == "Instruction" else ""
                size = parse_size(r.read_line(f"{idx}/size")) or 0
                ca = get_or_add(ctype, level, cid, f"L{level}{suffix}", size)
            if ca.sharedmap is None:
                share(ca, _shared_map(r, idx, d, cpu))
    out: dict[str, dict] = {}
    for ca in caches:
        entry = out.setdefault(ca.name.lower(), {"size_bytes": 0, "instances": 0})
        entry["size_bytes"] += ca.size
        entry["instances"] += 1
    out = {k: v for k, v in out.items() if v["size_bytes"]}
    for ec in ecaches:                                   # s390 shared caches from cpuinfo
        key = ec["name"].lower()
        if key not in out and ec["size"]:
            out[key] = {"size_bytes": ec["size"], "instances": None}
    order = sorted(out, key=lambda k: (int(re.sub(r"\D", "", k) or 0), k))
    return {k: out[k] for k in order}


def _shared_map(r: ProbeContext, idx: str, cpu_dir: str, cpu: int) -> int:
    """The CPUs sharing a cache: its ``shared_cpu_map`` (or ``shared_cpu_list``). A map of
    all zeros (some kernels, e.g. ia64, leave it empty) means the cache is the core's own:
    the CPU's thread siblings share it, so it is counted once per core, not per thread."""
    mask = parse_cpumask(r.read_text(f"{idx}/shared_cpu_map"))
    if not mask:
        mask = parse_cpulist_mask(r.read_text(f"{idx}/shared_cpu_list")) or 0
    if not mask:
        mask = parse_cpumask(r.read_text(f"{cpu_dir}/topology/thread_siblings")) or 0
    return mask | (1 << cpu)


def _frequencies(r: ProbeContext, ids: list[int], present: set[int] | None, info: CpuInfo):
    base = "sys/devices/system/cpu"
    fmax, fmin = [], []
    for cpu in ids:
        if present is not None and cpu not in present:
            continue
        hi = r.read_int(f"{base}/cpu{cpu}/cpufreq/cpuinfo_max_freq")
        lo = r.read_int(f"{base}/cpu{cpu}/cpufreq/cpuinfo_min_freq")
        if hi:
            fmax.append(hi)
        if lo:
            fmin.append(lo)
    max_mhz = round(max(fmax) / 1000, 4) if fmax else None
    min_mhz = round(min(fmin) / 1000, 4) if fmin else None
    if max_mhz is None:                      # s390: the static (nominal) frequency
        for block in info.cpus.values():
            static = block.get("cpu MHz static")
            if static:
                try:
                    max_mhz = float(static)
                except ValueError:
                    pass
                break
    return max_mhz, min_mhz


# ------------------------------------------------------------------ the probe

def _vendor_short(arch, vendor_raw, arm_vendor, info: CpuInfo, model_name) -> str | None:
    tables = _tables()
    if arm_vendor:
        return arm_vendor
    if vendor_raw:
        key = vendor_raw.strip()
        if key in (tables.get("vendor_ids") or {}):
            return tables["vendor_ids"][key]
    arch = arch or ""
    if arch.startswith("riscv"):
        mv = (info.first.get("mvendorid") or "").lower()
        return tables.get("riscv_mvendorid", {}).get(mv)
    if arch.startswith("loongarch"):
        return "loongson"
    if arch.startswith("ppc") and model_name and "POWER" in model_name:
        return "ibm"
    if arch.startswith("s390"):
        return "ibm"
    if arch.startswith("sparc") and model_name:
        return "fujitsu" if "SPARC64" in model_name.upper() and "ULTRA" not in model_name.upper() \
            else "oracle"
    return None


def on_linux() -> bool:
    return sys.platform.startswith("linux")


def probe(ctx) -> dict:
    from accelgui.probes.platform import hypervisor_vendor     # platform imports this module

    if ctx.live and not on_linux() and ctx.read_text("proc/cpuinfo", limit=1) is None:
        return {"cpu": _probe_py_cpuinfo()}
    info = read_cpuinfo(ctx)
    ct = info.type
    impl_raw = ct.get("vendor")
    arm_vendor_name, arm_model, arm_short = arm_decode(impl_raw, ct.get("model"))
    vendor_id = arm_vendor_name or impl_raw
    model_name = arm_model or ct.get("modelname")
    if model_name is None:
        model_name = info.first.get("Model Name")          # loongarch (lscpu >= 2.39)
    flags = ct.get("flags", "").split()
    if "cpucaps" in info.first:                             # sparc
        flags += [f for f in info.first["cpucaps"].split(",") if f and f not in flags]
    arch = tree_arch(ctx, info, flags)
    if arch and arch.startswith("riscv"):                   # as lscpu >= 2.39 names them
        vendor_id = vendor_id or info.first.get("mvendorid")
        model_name = model_name or info.first.get("uarch")

    ids, possible, present, online = _cpu_ids(ctx)
    if present is not None and present:
        logical = len(present)
    elif possible:
        logical = len(possible)
    else:
        logical = len(info.cpus) or None
    threads, cores_per_socket, sockets, core_types = _topology(ctx, ids, ct.get("mtid"), info)
    if threads is None and cores_per_socket is None:
        threads, cores_per_socket, sockets = _topology_from_cpuinfo(info)
    max_mhz, min_mhz = _frequencies(ctx, ids, present, info)
    features = normalise_features(arch, flags, info, model_name)
    cpu_part = ct.get("model") if impl_raw and impl_raw.startswith("0x") else None
    uarch = microarchitecture(arch, impl_raw, flags, cpu_part=cpu_part, implementer=impl_raw,
                              model_name=model_name, uarch=info.first.get("uarch"))
    codename = None
    if arch in ("x86_64", "i686", "i586", "i386"):
        uarch, codename = _x86_uarch(impl_raw, ct, uarch)
    elif arm_short == "apple":
        apple = _apple_cpu(ctx, info)
        if apple:
            model_name = apple["model_name"]
            uarch = apple["uarch"] or uarch
            codename = apple["chip"]
    result = {
        "vendor_id": vendor_id,
        "vendor": _vendor_short(arch, impl_raw, arm_short, info, model_name),
        "model_name": model_name,
        "arch": arch,
        "microarchitecture": uarch,
        "logical_cpus": logical or None,
        "online_cpus": len(online) if online else None,
        "threads_per_core": threads,
        "cores_per_socket": cores_per_socket,
        "sockets": sockets,
        "numa_nodes": numa_nodes(ctx),
        "flags": flags,
        "features": features,
        "caches": _caches(ctx, ids, info.ecaches),
        "max_mhz": max_mhz,
        "min_mhz": min_mhz,
        "hypervisor_vendor": hypervisor_vendor(ctx, flags),
    }
    if codename:
        result["codename"] = codename
    if core_types:
        result["core_types"] = core_types
    return {"cpu": result}


def _topology_from_cpuinfo(info: CpuInfo):
    """x86 cpuinfo's physical id / siblings / cpu cores, when sysfs has no topology."""
    blocks = [b for b in info.cpus.values() if "physical id" in b]
    if not blocks:
        return None, None, None
    try:
        sockets = len({b["physical id"] for b in blocks})
        cores = int(blocks[0]["cpu cores"])
        siblings = int(blocks[0]["siblings"])
    except (KeyError, ValueError):
        return None, None, sockets if blocks else None
    threads = siblings // cores if cores and siblings % cores == 0 else None
    return threads or None, cores or None, sockets or None


# ------------------------------------------------------------------ off Linux

@lru_cache(maxsize=1)
def _py_cpuinfo_raw() -> dict:
    """py-cpuinfo, once per process, in-process (get_cpu_info() would re-execute Python)."""
    try:
        from cpuinfo import cpuinfo as _ci
    except Exception:  # noqa: BLE001
        return {}
    internal = getattr(_ci, "_get_cpu_info_internal", None)
    try:
        return dict(internal() if internal else _ci.get_cpu_info())
    except Exception:  # noqa: BLE001
        return {}


def _probe_py_cpuinfo() -> dict:
    data = _py_cpuinfo_raw()
    import platform as _platform

    machine = (_platform.machine() or "").lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}.get(
        machine, machine or None)
    logical = os.cpu_count()
    physical = None
    try:
        import psutil

        physical = psutil.cpu_count(logical=False)
    except Exception:  # noqa: BLE001
        pass
    flags = [str(f) for f in data.get("flags", []) or []]
    vendor_raw = data.get("vendor_id_raw") or None
    caches = {}
    for key, name in (("l1_data_cache_size", "l1d"), ("l1_instruction_cache_size", "l1i"),
                      ("l2_cache_size", "l2"), ("l3_cache_size", "l3")):
        value = data.get(key)
        if isinstance(value, int) and value > 0:
            caches[name] = {"size_bytes": value, "instances": None}
    hz = data.get("hz_advertised")
    max_mhz = round(hz[0] / 1e6, 4) if isinstance(hz, (list, tuple)) and hz and hz[0] else None
    model_name = data.get("brand_raw") or None
    info = CpuInfo()
    return {
        "vendor_id": vendor_raw,
        "vendor": (_tables().get("vendor_ids") or {}).get((vendor_raw or "").strip()) or
        ("apple" if model_name and model_name.startswith("Apple") else None),
        "model_name": model_name,
        "arch": arch,
        "microarchitecture": microarchitecture(arch, vendor_raw, flags) if arch == "x86_64" else None,
        "logical_cpus": logical,
        "online_cpus": logical,
        "threads_per_core": (logical // physical) if logical and physical and logical % physical == 0 else None,
        "cores_per_socket": None,
        "sockets": None,
        "numa_nodes": None,
        "flags": flags,
        "features": normalise_features(arch, flags, info, model_name),
        "caches": caches,
        "max_mhz": max_mhz,
        "min_mhz": None,
        "hypervisor_vendor": None,
    }
