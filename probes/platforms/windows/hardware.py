"""Windows platform, CPU and memory probes, from WMI (recorded or live), with
``Get-ComputerInfo``, ``systeminfo`` and ``dxdiag /t`` standing in for the classes a capture
lacks, and Sysinternals ``coreinfo`` for the CPU's own flags.

WMI's property names are the same in every locale; where a value is localised (the OS
caption "Microsoft Windows 11 Famille", ``OSArchitecture`` "64 Bit") the language-free
property is read instead (``OperatingSystemSKU``, ``BuildNumber``, ``Win32_Processor.
Architecture``). Unknown stays None: nothing is guessed from a file name or a model string.
"""

from __future__ import annotations

import re

from accelgui.probes.platforms.windows import records

# Win32_Processor.Architecture (learn.microsoft.com/windows/win32/cimwin32prov/win32-processor)
_ARCH = {0: "x86", 5: "arm", 6: "ia64", 9: "x86_64", 12: "aarch64"}
_SYSTEM_TYPE = (("arm64", "aarch64"), ("x64", "x86_64"), ("x86", "x86"))
# Win32_OperatingSystem.OperatingSystemSKU -> edition (learn.microsoft.com/windows/win32/
# cimwin32prov/win32-operatingsystem, PRODUCT_* of GetProductInfo)
_EDITIONS = {4: "Enterprise", 27: "Enterprise N", 48: "Pro", 49: "Pro N", 98: "Home N",
             99: "Home China", 100: "Home Single Language", 101: "Home", 121: "Education",
             122: "Education N", 125: "Enterprise LTSC", 161: "Pro for Workstations",
             164: "Pro Education", 175: "Enterprise multi-session"}
# build -> release (learn.microsoft.com/windows/release-health/windows11-release-information,
# .../release-information for Windows 10), checked 2026-12-01
_RELEASES = {19041: "2004", 19042: "20H2", 19043: "21H1", 19044: "21H2", 19045: "22H2",
             22000: "21H2", 22621: "22H2", 22631: "23H2", 26100: "24H2", 26200: "25H2"}


def outputs(ctx, key: str) -> list[str]:
    """The texts recorded (or, live, run) for one command key; [] when absent."""
    try:
        return [t for t in ctx.outputs(key) if t]
    except Exception:  # noqa: BLE001 - a reader's failure is a missing output, not a crash
        return []


# outputs that hold no WMI objects (their own layouts)
_NOT_WMI = ("windows.computer_info", "windows.systeminfo", "windows.dxdiag", "windows.nvidia_smi",
            "windows.nvidia_smi_xml", "windows.nvidia_smi_table", "windows.display_registry",
            "windows.pip", "windows.wsl", "windows.system32_dlls", "windows.coreinfo", "windows.nvcc")


# Get-ComputerInfo prefixes the properties of these classes ("CsTotalPhysicalMemory")
_COMPUTER_INFO = {"Win32_ComputerSystem": "Cs", "Win32_OperatingSystem": "Os", "Win32_BIOS": "Bios"}


def _from_computer_info(ctx, cls: str) -> list[dict]:
    """The ``cls`` object Get-ComputerInfo holds under its prefix, named as WMI names it
    (``OsName`` is the OS caption)."""
    prefix = _COMPUTER_INFO.get(cls)
    out = []
    for obj in _parsed(ctx, "windows.computer_info") if prefix else ():
        found = {k[len(prefix):]: v for k, v in obj.items() if k.startswith(prefix) and len(k) > len(prefix)}
        if cls == "Win32_OperatingSystem" and "Name" in found:
            found["Caption"] = found.pop("Name")
        if found:
            out.append(found)
    return out


_SYSTEMINFO_LABELS = {"Host Name": "host", "OS Name": "caption", "System Manufacturer": "vendor",
                      "System Model": "model", "Total Physical Memory": "total",
                      "Available Physical Memory": "available"}


def _mb(text: str | None) -> int | None:
    """"32,562 MB" / "32.562 MB" / "32 562 MB" -> bytes."""
    m = re.match(r"^\s*(\d{1,3}(?:[.,\s\u00a0]\d{3})*|\d+)\s*MB\b", text or "")
    return int(re.sub(r"\D", "", m.group(1))) << 20 if m else None


def _from_systeminfo(ctx, cls: str) -> list[dict]:
    """``systeminfo`` as WMI objects: its labels are localised, so the build, the system type
    and the processor's signature are read by their value forms (``10.0.22631 ... 22631``,
    ``x64-based PC``, ``[01]: Intel64 Family 6 Model 183 Stepping 1 GenuineIntel ~3200 Mhz``),
    the names and memory figures by their English labels."""
    from accelgui.probes.platforms import common

    texts = outputs(ctx, "windows.systeminfo") if cls in _COMPUTER_INFO or cls == "Win32_Processor" else []
    if not texts:
        return []
    text = texts[0]
    pairs = common.key_values(text)
    named = {_SYSTEMINFO_LABELS[k]: v for k, v in pairs.items() if k in _SYSTEMINFO_LABELS}
    sizes = [v for v in pairs.values() if _mb(v)]       # Total, then Available: systeminfo's order
    named.setdefault("total", sizes[0] if sizes else None)
    named.setdefault("available", sizes[1] if len(sizes) > 1 else None)
    build = re.search(r"\b10\.0\.(\d{5})\b", text)
    kind = re.search(r":\s+(\S+-based PC)\s*$", text, re.M)
    cpu = re.search(r"^\s+\[01\]: (\S+ Family \d+ Model \d+ Stepping \d+) (\S+) ~(\d+)", text, re.M)
    found = {
        "Win32_OperatingSystem": {"Caption": named.get("caption"), "BuildNumber": build.group(1) if build else None,
                                  "FreePhysicalMemory": (_mb(named.get("available")) or 0) >> 10 or None},
        "Win32_ComputerSystem": {"Manufacturer": named.get("vendor"), "Model": named.get("model"),
                                 "Name": named.get("host"), "SystemType": kind.group(1) if kind else None,
                                 "TotalPhysicalMemory": _mb(named.get("total"))},
        "Win32_Processor": {"Caption": cpu.group(1), "Manufacturer": cpu.group(2), "MaxClockSpeed": cpu.group(3)}
        if cpu else {},
    }.get(cls) or {}
    found = {k: v for k, v in found.items() if v}
    return [found] if found else []


def wmi(ctx, key: str, cls: str) -> list[dict]:
    """The objects of WMI class ``cls`` in the outputs of ``key``; in a recorded folder where
    that command's file is missing, the objects of that class in the other files (one file
    holding several commands' outputs, as a forum post does). Parsed once per context."""
    def find() -> list[dict]:
        found = records.of_class(outputs(ctx, key), cls) or _from_computer_info(ctx, cls) \
            or _from_systeminfo(ctx, cls)
        if found or ctx.live:
            return found
        others = [k for k in sorted(getattr(ctx, "recorded_commands", None) or {})
                  if k != key and k not in _NOT_WMI]
        return [o for k in others for o in _parsed(ctx, k) if records.wmi_class(o) == cls]
    return ctx.shared(f"windows.wmi.{key}.{cls}", find)


def _parsed(ctx, key: str) -> list[dict]:
    return ctx.shared(f"windows.objects.{key}",
                      lambda: [o for text in outputs(ctx, key) for o in records.objects(text)])


def first(ctx, key: str, cls: str) -> dict:
    found = wmi(ctx, key, cls)
    return found[0] if found else {}


def dxdiag(ctx) -> dict:
    """A recorded ``dxdiag /t``, parsed once; never run live (dxdiag takes tens of seconds,
    and WMI, the registry and nvidia-smi say what it would)."""
    texts = outputs(ctx, "windows.dxdiag") if not ctx.live else []
    return ctx.shared("windows.dxdiag", lambda: records.dxdiag(texts[0] if texts else None))


def dxdiag_system(ctx, label: str, pattern: str) -> str | None:
    """A System Information value of dxdiag: by its English label, else the first value of
    the form ``pattern`` (dxdiag's labels are localised, these values' forms are not)."""
    system = dxdiag(ctx)["system"]
    if system.get(label):
        return system[label]
    return next((v for _, v in system.get("_order", ()) if re.search(pattern, v)), None)


# ---------------------------------------------------------------------------- platform

def _dmi(ctx) -> dict[str, str]:
    """The SMBIOS strings Windows shows, under the names of Linux's sys/class/dmi/id."""
    cs = first(ctx, "windows.computer_system", "Win32_ComputerSystem")
    bios = first(ctx, "windows.bios", "Win32_BIOS")
    chassis = first(ctx, "windows.system_enclosure", "Win32_SystemEnclosure")
    board = first(ctx, "windows.baseboard", "Win32_BaseBoard")
    types = records.field(chassis, "ChassisTypes")
    kind = records.number(types[0] if isinstance(types, list) and types else
                          re.sub(r"[{}\s]", "", str(types or "")).split(",")[0])
    pairs = (("sys_vendor", records.text_of(cs, "Manufacturer")
              or dxdiag_system(ctx, "System Manufacturer", r"^$")),
             ("product_name", records.text_of(cs, "Model") or dxdiag_system(ctx, "System Model", r"^$")),
             ("product_family", records.text_of(cs, "SystemFamily")),
             ("bios_vendor", records.text_of(bios, "Manufacturer")),
             ("bios_version", records.text_of(bios, "SMBIOSBIOSVersion")),
             ("product_serial", records.text_of(bios, "SerialNumber")),
             ("board_vendor", records.text_of(board, "Manufacturer")),
             ("board_name", records.text_of(board, "Product")),
             ("chassis_vendor", records.text_of(chassis, "Manufacturer")),
             ("chassis_asset_tag", records.text_of(chassis, "SMBIOSAssetTag")),
             ("chassis_type", str(kind) if kind else None))
    return {k: v for k, v in pairs if v}


def build_number(ctx) -> int | None:
    os_ = first(ctx, "windows.operating_system", "Win32_OperatingSystem")
    build = records.int_of(os_, "BuildNumber")
    if build is None:
        m = re.search(r"\bBuild (\d{4,5})\b", dxdiag_system(ctx, "Operating System", r"Windows") or "")
        build = int(m.group(1)) if m else None
    return build


def os_release(ctx) -> str | None:
    """"Windows 11 Home 23H2" from the build and SKU (any locale); a server's caption."""
    os_ = first(ctx, "windows.operating_system", "Win32_OperatingSystem")
    build = build_number(ctx)
    caption = records.text_of(os_, "Caption") or dxdiag_system(ctx, "Operating System", r"Windows")
    if records.int_of(os_, "ProductType") in (2, 3) or "Server" in (caption or ""):
        return re.sub(r"^Microsoft\s+", "", caption or "") or None
    if build is None:
        return re.sub(r"^Microsoft\s+", "", caption).split(" (")[0] if caption else None
    edition = _EDITIONS.get(records.int_of(os_, "OperatingSystemSKU"))
    if edition is None:     # the caption's words: "Microsoft Windows 11 Pro", dxdiag's "... 64-bit (10.0, ...)"
        m = re.search(r"Windows 1[01] (.{1,40}?)(?: (?:64|32)[- ]?[Bb]it\b.*| \(.*)?$", caption or "")
        edition = m.group(1).strip() if m else None
    parts = [f"Windows {11 if build >= 22000 else 10}", edition, _RELEASES.get(build)]
    return " ".join(p for p in parts if p)


def machine_arch(ctx) -> str | None:
    for proc in wmi(ctx, "windows.processor", "Win32_Processor"):
        arch = _ARCH.get(records.int_of(proc, "Architecture"))
        if arch:
            return arch
    kind = (records.text_of(first(ctx, "windows.computer_system", "Win32_ComputerSystem"),
                            "SystemType") or "").lower()
    return next((arch for word, arch in _SYSTEM_TYPE if word in kind), None)


def _virtual_adapters(ctx) -> list[str]:
    from accelgui.probes.platforms.windows import devices

    return [a["name"] for a in devices.adapters(ctx) if a.get("virtual") and a.get("name")]


def platform_probe(ctx) -> dict:
    from accelgui.probes import platform as linux_platform

    dmi = _dmi(ctx)
    os_ = first(ctx, "windows.operating_system", "Win32_OperatingSystem")
    cs = first(ctx, "windows.computer_system", "Win32_ComputerSystem")
    build = build_number(ctx)
    version = records.text_of(os_, "Version") or (f"10.0.{build}" if build else None)
    found = linux_platform.identify_dmi(dmi)
    virtual = _virtual_adapters(ctx)
    result = {
        "os": "Windows",
        "os_release": os_release(ctx),
        "kernel": version,
        "machine": machine_arch(ctx),
        "hostname": records.text_of(cs, "DNSHostName", "Name") or records.text_of(os_, "CSName")
        or dxdiag_system(ctx, "Machine name", r"^$") or None,     # (blanked by the recorder)
        "virtualization": found["virtualization"],
        "container": None,
        "cloud": found["cloud"],
        "dmi": dmi,
        "secure_boot": None,
        "out_of_tree_modules": [],
        "windows": {"build": build, "edition_sku": records.int_of(os_, "OperatingSystemSKU"),
                    "virtual_display_adapters": virtual,
                    "remote_session": any("remote display" in n.lower() for n in virtual),
                    "wsl": wsl(ctx)},
    }
    if not (os_ or cs or dxdiag(ctx)["system"]):
        return {"platform": result, "_status": "absent",
                "_reason": "no Win32_OperatingSystem, Win32_ComputerSystem or dxdiag output"}
    return {"platform": result}


def wsl(ctx) -> dict | None:
    """WSL seen from Windows: the distributions ``wsl -l -v`` lists (name, state, WSL
    version), or the optional feature's state; None when nothing about WSL was recorded."""
    texts = outputs(ctx, "windows.wsl")
    if not texts:
        return None
    distros, feature = [], None
    for text in texts:
        for row in re.finditer(r"(?m)^\s*(\*)?\s*(\S+)\s+(\S+)\s+([12])\s*$", text):
            if row.group(2) != "NAME":
                distros.append({"name": row.group(2), "state": row.group(3),
                                "version": int(row.group(4)), "default": bool(row.group(1))})
        for obj in records.objects(text):
            if "Subsystem-Linux" in (records.text_of(obj, "FeatureName") or ""):
                feature = records.text_of(obj, "State")
    return {"distributions": distros, "wsl2": any(d["version"] == 2 for d in distros) or None,
            "feature_state": feature}


# ---------------------------------------------------------------------------- cpu

def _signature(proc: dict) -> tuple[int | None, int | None, int | None]:
    """(family, model, stepping) from ProcessorId's CPUID leaf 1 EAX (x86), else from the
    caption ("Intel64 Family 6 Model 170 Stepping 4")."""
    pid = records.text_of(proc, "ProcessorId") or ""
    if re.fullmatch(r"[0-9A-Fa-f]{16}", pid) and pid[8:] != "00000000":
        eax = int(pid[8:], 16)
        family = (eax >> 8) & 0xF
        model = (eax >> 4) & 0xF
        if family in (6, 15):
            model |= ((eax >> 16) & 0xF) << 4
        if family == 15:
            family += (eax >> 20) & 0xFF
        return family, model, eax & 0xF
    m = re.search(r"Family (\d+) Model (\d+)(?: Stepping (\d+))?", records.text_of(proc, "Caption") or "")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None) if m else (None, None, None)


def _core_types(vendor_raw: str | None, cores: int | None, threads: int | None) -> list[dict] | None:
    """Intel's hybrid parts: only the P-cores have Hyper-Threading, so a part with more
    threads than cores and fewer than two per core has ``threads - cores`` P-cores and the
    rest E-cores. None when the counts do not show it (Lunar Lake has no Hyper-Threading at
    all: its P/E split is not in WMI)."""
    if vendor_raw != "GenuineIntel" or not cores or not threads or not cores < threads < 2 * cores:
        return None
    perf = threads - cores
    return [{"model_name": "performance", "cores": perf, "cpus": 2 * perf},
            {"model_name": "efficiency", "cores": cores - perf, "cpus": cores - perf}]


_COREINFO_LINE = re.compile(r"^([A-Z][\w.\-]*)\s+([*\-])\s+\S", re.M)
_AVX512_NO_UNDERSCORE = ("f", "dq", "cd", "bw", "vl", "ifma", "vbmi", "pf", "er")
_KERNEL_NAMES = {"sse3": "pni", "sha": "sha_ni", "htt": "ht", "x64": "lm"}


def coreinfo_flags(text: str | None) -> list[str]:
    """The CPU features Sysinternals Coreinfo (``coreinfo -f``) marks ``*`` (read from
    CPUID), in the kernel's flag names: ``AVX-512-F`` -> avx512f, ``AVX-512-VNNI`` ->
    avx512_vnni, ``AMX-BF16`` -> amx_bf16, ``SSE4.1`` -> sse4_1."""
    flags = []
    for name, mark in _COREINFO_LINE.findall(text or ""):
        if mark != "*":
            continue
        name = name.lower().replace(".", "_")
        m = re.fullmatch(r"avx-512-(\w+)", name)
        if m:
            suffix = m.group(1)
            name = "avx512" + suffix if suffix in _AVX512_NO_UNDERSCORE else "avx512_" + suffix
        name = name.replace("-", "_")
        flags.append(_KERNEL_NAMES.get(name, name))
    return flags


# Generations archspec's table does not have, by the one whose instruction set their cores
# share (Intel Architecture Instruction Set Extensions Programming Reference, "Recent
# instruction set extensions" by microarchitecture, read 2026-12-02): Meteor Lake's Redwood
# Cove/Crestmont cores have Alder Lake's (AVX2, AVX-VNNI, no AVX-512), Lunar Lake's Lion
# Cove/Skymont cores Arrow Lake's (AVX-VNNI-INT8, AVX-IFMA, AVX-NE-CONVERT, CMPCCXADD).
_ISA_AS = {"meteorlake": "alderlake", "lunarlake": "arrowlake"}


def _isa_target(uarch: str | None) -> str | None:
    return _ISA_AS.get(uarch or "", uarch)


def _features(uarch: str | None) -> list[str]:
    """The instruction-set extensions of the microarchitecture in archspec's table (what a
    part of that generation offers; WMI does not show this CPU's own flags)."""
    from accelgui.probes import cpu as linux_cpu

    target = _isa_target(uarch)
    data = linux_cpu._archspec_data() if target else None
    entry = data[0].get(target) if data else None
    return sorted(entry[2]) if entry else []


def _caches(proc: dict) -> dict:
    out = {}
    for level, name in (("l2", "L2CacheSize"), ("l3", "L3CacheSize")):
        kib = records.int_of(proc, name)
        if kib and kib > 0:
            out[level] = {"size_bytes": kib << 10, "instances": None}
    return out


def cpu_probe(ctx) -> dict:
    from accelgui.probes import cpu as linux_cpu
    from accelgui.probes import platform as linux_platform

    procs = wmi(ctx, "windows.processor", "Win32_Processor")
    if not procs:
        name = dxdiag_system(ctx, "Processor", r"\(\d+ CPUs\)")
        m = re.search(r"\((\d+) CPUs\)", name or "")
        fragment = {"model_name": re.sub(r"\s*\(\d+ CPUs\).*$", "", name) if name else None,
                    "logical_cpus": int(m.group(1)) if m else None, "arch": machine_arch(ctx)}
        return {"cpu": fragment, "_status": "absent", "_reason": "no Win32_Processor output"}
    proc = procs[0]
    vendor_raw = records.text_of(proc, "Manufacturer")
    family, model, stepping = _signature(proc)
    row = linux_cpu.x86_model_row(vendor_raw, family, model, stepping) if family else None
    cores = records.int_of(proc, "NumberOfCores")
    threads = records.int_of(proc, "NumberOfLogicalProcessors", "ThreadCount")
    uarch = row.get("uarch") if row else None
    coreinfo = outputs(ctx, "windows.coreinfo")
    flags = coreinfo_flags(coreinfo[0]) if coreinfo else []
    features = linux_cpu.normalise_features("x86_64", flags, None, None) if flags and \
        machine_arch(ctx) == "x86_64" else _features(uarch)
    vendor = (linux_cpu._tables().get("vendor_ids") or {}).get((vendor_raw or "").strip())
    if vendor is None and re.search(r"qualcomm|snapdragon", f"{vendor_raw} {records.text_of(proc, 'Name')}", re.I):
        vendor = "qualcomm"
    result = {
        "vendor_id": vendor_raw, "vendor": vendor,
        "model_name": re.sub(r"\s+", " ", records.text_of(proc, "Name") or "").strip() or None,
        "arch": machine_arch(ctx), "microarchitecture": uarch,
        "codename": row.get("codename") if row else None,
        "logical_cpus": sum(records.int_of(p, "NumberOfLogicalProcessors") or 0 for p in procs) or None,
        "threads_per_core": (-(-threads // cores)) if cores and threads else None,
        "cores_per_socket": cores, "sockets": len(procs), "numa_nodes": None,
        "flags": flags, "features": features,
        "features_source": "coreinfo (CPUID)" if flags else (
            f"archspec target {_isa_target(uarch)} (the microarchitecture's instruction set; WMI does not "
            "list this CPU's flags)" if features else None),
        "caches": _caches(proc),
        "max_mhz": records.int_of(proc, "MaxClockSpeed"), "min_mhz": None,
        "hypervisor_vendor": linux_platform.identify_dmi(_dmi(ctx))["hypervisor"],
        "core_types": _core_types(vendor_raw, cores, threads),
        "cpuid": {"family": family, "model": model, "stepping": stepping} if family else None,
    }
    return {"cpu": result}


# ---------------------------------------------------------------------------- memory

_WMI_FORMS = {8: 0x09, 12: 0x0D}     # Win32_PhysicalMemory.FormFactor DIMM, SODIMM -> SMBIOS


def _module(obj: dict) -> dict:
    """A Win32_PhysicalMemory object as the SMBIOS reader of the Linux memory probe
    records a Memory Device (type 17): WMI copies those fields from SMBIOS."""
    return {"size_bytes": records.int_of(obj, "Capacity"),
            "data_width": records.int_of(obj, "DataWidth"),
            "form": _WMI_FORMS.get(records.int_of(obj, "FormFactor")),
            "locator": records.text_of(obj, "DeviceLocator") or "",
            "bank": records.text_of(obj, "BankLabel") or "",
            "type": records.int_of(obj, "SMBIOSMemoryType"), "technology": None,
            "speed": records.int_of(obj, "Speed"),
            "configured_speed": records.int_of(obj, "ConfiguredClockSpeed")}


def bandwidth(modules: list[dict]) -> dict | None:
    """Peak bandwidth of the installed modules, by the Linux memory probe's rules (populated
    channels from the locators, module width per memory type)."""
    from accelgui.probes import memory as linux_memory

    found = linux_memory.modules_bandwidth([m for m in modules if m["size_bytes"]],
                                           source="smbios (Win32_PhysicalMemory)")
    return dict(found, source="smbios") if found else None


def _table_bandwidth(ctx) -> dict | None:
    """The memory table's row for this CPU (data/memory_configs.json, keyed ``x86:<vendor>:
    <family>:<model>`` as on Linux): the figure when the part fixes its memory (on-package
    LPDDR), else only the row's bounds."""
    from accelgui.probes import memory as linux_memory

    procs = wmi(ctx, "windows.processor", "Win32_Processor")
    if not procs:
        return None
    family, model, _ = _signature(procs[0])
    row = linux_memory._table_index().get(
        f"x86:{records.text_of(procs[0], 'Manufacturer')}:{family}:{model}") if family else None
    if row is None:
        return None
    gbps = row.get("gbps") if row.get("fixed") else None
    return {"gbps": float(gbps) if isinstance(gbps, (int, float)) else None,
            "source": "table" if isinstance(gbps, (int, float)) else None,
            "spec": linux_memory._row_spec(row, len(procs))}


def memory_probe(ctx) -> dict:
    cs = first(ctx, "windows.computer_system", "Win32_ComputerSystem")
    os_ = first(ctx, "windows.operating_system", "Win32_OperatingSystem")
    modules = [_module(o) for o in wmi(ctx, "windows.physical_memory", "Win32_PhysicalMemory")]
    total = records.int_of(cs, "TotalPhysicalMemory")
    if total is None and records.int_of(os_, "TotalVisibleMemorySize"):
        total = records.int_of(os_, "TotalVisibleMemorySize") << 10
    if total is None:
        m = re.match(r"^(\d+)\s?MB RAM", dxdiag_system(ctx, "Memory", r"^\d+\s?MB RAM") or "")
        total = int(m.group(1)) << 20 if m else None
    free_kib = records.int_of(os_, "FreePhysicalMemory")
    available = free_kib << 10 if free_kib is not None and total and free_kib << 10 <= total else None
    found = bandwidth(modules) or _table_bandwidth(ctx)
    result = {"total_bytes": total, "available_bytes": available, "numa_nodes": None,
              "installed_bytes": sum(m["size_bytes"] or 0 for m in modules) or None,
              "modules": len(modules) or None,
              "bandwidth_spec_gbps": found["gbps"] if found else None,
              "bandwidth_spec_source": found["source"] if found else None,
              "bandwidth_spec": found["spec"] if found else None,
              "cgroup_limit_bytes": None, "cgroup_cpu_limit": None,
              "numa_memory_only_nodes": None, "numa_memory_only_bytes": None}
    if total is None:
        return {"memory": result, "_status": "absent",
                "_reason": "no Win32_ComputerSystem, Win32_OperatingSystem or dxdiag memory figure"}
    return {"memory": result}
