"""Platform probe: OS and release, kernel, machine, host name, virtualisation, container, cloud.

All from files under the root: ``etc/os-release`` (or ``usr/lib/os-release``),
``proc/sys/kernel/{osrelease,hostname}``, the DMI strings in ``sys/class/dmi/id/``, the
SecureBoot EFI variable in ``sys/firmware/efi/efivars/``, the names of out-of-tree (DKMS)
kernel modules under ``lib/modules/<release>/{updates,extra}/``,
``/.dockerenv``, ``run/.containerenv``, ``run/systemd/container`` and the cgroup file. The
cloud provider and instance type come from DMI alone: no metadata service is ever contacted.
Only the live system adds uname, ``socket.gethostname()`` and the environment. Which strings
and files mean which hypervisor, container or cloud is data (``data/platforms.json``, in the
condition language of :mod:`accelgui.probes.signatures`); :func:`identify_dmi` answers from
DMI strings alone for backends that read them another way.
"""

from __future__ import annotations

import os
import re

from accelgui.probes import signatures as sig
from accelgui.probes.cpu import on_linux, read_cpuinfo, tree_arch


class _INSTANCE_TYPE:          # noqa: N801 - the shape test under its older name
    fullmatch = staticmethod(sig.instance_shape)

# ------------------------------------------------------------------ DMI and hypervisor
# (the cpu probe reports hypervisor_vendor too: it asks this module). The signatures are data:
# data/platforms.json, in the condition language of probes/signatures.py.


def signatures() -> dict:
    """The platform, cloud and container signatures (data/platforms.json and the sites')."""
    from accelgui.probes import datafiles

    return datafiles.load("platforms.json")


DMI_KEYS = ("sys_vendor", "product_name", "product_version", "product_family", "board_vendor",
            "board_name", "bios_vendor", "bios_version", "bios_date", "chassis_vendor",
            "chassis_type", "chassis_asset_tag", "product_serial", "product_uuid",
            "board_serial", "chassis_serial")


def read_dmi(ctx) -> dict[str, str]:
    """The tree's DMI strings, read once per context (the hypervisor check here and the
    platform probe both need them). Serials and UUIDs are kept: redaction removes them."""
    def read() -> dict[str, str]:
        values = {key: ctx.read_line(f"sys/class/dmi/id/{key}") for key in DMI_KEYS}
        return {key: value for key, value in values.items() if value}
    return ctx.shared("dmi", read)


def _pci_ids(ctx) -> set[tuple[int, int]]:
    ids = set()
    for addr in ctx.listdir("sys/bus/pci/devices"):
        vendor = ctx.read_line(f"sys/bus/pci/devices/{addr}/vendor")
        device = ctx.read_line(f"sys/bus/pci/devices/{addr}/device")
        try:
            ids.add((int(vendor or "", 16), int(device or "", 16)))
        except ValueError:
            continue
    text = ctx.read_text("proc/bus/pci/devices") or ""
    for m in re.finditer(r"^[0-9a-f]{4}\t([0-9a-f]{4})([0-9a-f]{4})", text, re.M):
        ids.add((int(m.group(1), 16), int(m.group(2), 16)))
    return ids


def hypervisor_vendor(ctx, flags: list[str] | None = None, dmi: dict | None = None) -> str | None:
    """Hypervisor vendor in lscpu's words (KVM, Xen, Microsoft, VMware, IBM, pHyp...).

    Computed once per context (the cpu and platform probes both ask; on bare metal it ends
    in a scan of every PCI function); ``flags`` matter only for the "hypervisor" flag. A
    caller that passes its own ``dmi`` strings gets a fresh answer."""
    if dmi is not None:
        return _hypervisor_vendor(ctx, flags, dmi)
    has_flag = flags is not None and "hypervisor" in flags
    return ctx.shared(f"hypervisor_vendor:{has_flag}",
                      lambda: _hypervisor_vendor(ctx, flags, None))


def _clocksource(ctx) -> str:
    base = "sys/devices/system/clocksource/clocksource0"
    return (ctx.read_line(f"{base}/available_clocksource") or "") + " " + \
        (ctx.read_line(f"{base}/current_clocksource") or "")


def _hypervisor_from(table: dict, facts) -> str | None:
    """The first hypervisor signature that holds; the DMI stage is skipped on a bare-metal
    cloud instance, as lscpu does."""
    for entry in table.get("hypervisors") or ():
        if entry.get("stage") == "dmi":
            if sig.holds(table.get("dmi_bare_metal") or {"any": []}, facts):
                continue
            hit = sig.first_match(table.get("dmi_hypervisors") or [], facts)
        else:
            hit = entry if sig.holds(entry.get("when") or {"all": []}, facts) else None
        if hit is not None:
            return hit.get("vendor")
    return None


def _hypervisor_vendor(ctx, flags: list[str] | None, dmi: dict | None) -> str | None:
    dmi = read_dmi(ctx) if dmi is None else dmi
    facts = sig.Facts(dict(dmi, clocksource=_clocksource(ctx)), ctx, flags or (),
                      pci_ids=lambda: _pci_ids(ctx))
    return _hypervisor_from(signatures(), facts)


def identify_dmi(dmi: dict[str, str], flags=()) -> dict:
    """What DMI-like strings alone say: ``{"hypervisor", "virtualization", "cloud"}``.

    ``dmi`` has the keys of ``sys/class/dmi/id`` (``sys_vendor``, ``product_name``,
    ``board_vendor``, ``bios_vendor``, ``bios_version``, ``chassis_vendor``,
    ``chassis_asset_tag``...), however the backend read them (Win32_ComputerSystem /
    Win32_BIOS / Win32_SystemEnclosure on Windows). No file is read. ``hypervisor`` is in
    lscpu's words (KVM, Xen, Microsoft, VMware...), ``virtualization`` the report's
    ``platform.virtualization``, ``cloud`` ``{provider, instance_type}`` or None."""
    table = signatures()
    facts = sig.Facts({k: str(v) for k, v in (dmi or {}).items() if v}, None, flags)
    hv = _hypervisor_from(table, facts)
    return {"hypervisor": hv, "virtualization": _virtualization_from(table, facts, hv),
            "cloud": cloud_from_dmi(dmi or {})}


def parse_os_release(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            value = value[1:]
            if value.endswith(quote):
                value = value[:-1]
            if quote == '"':
                value = re.sub(r'\\([\\"$`])', r"\1", value)
        out[key.strip()] = value
    return out


def cloud_from_dmi(dmi: dict[str, str]) -> dict | None:
    """{provider, instance_type} from DMI strings (the ``clouds`` signatures), or None for no
    known cloud."""
    facts = sig.Facts({k: str(v) for k, v in (dmi or {}).items() if v})
    hit = sig.first_match(signatures().get("clouds") or [], facts)
    if hit is None:
        return None
    spec = hit.get("instance_type") or {}
    instance_type = None
    if spec and sig.holds(spec.get("when") or {"all": []}, facts):
        instance_type = facts.facts.get(spec["fact"]) or None
    return {"provider": hit["provider"], "instance_type": instance_type}


def _value_from(spec: dict, facts) -> str | None:
    """A container name read from a file: its first line matching ``fullmatch``, or the
    first group of ``search`` over the whole text; lower-cased."""
    text = facts.file(spec["file"])
    if "fullmatch" in spec:
        line = text.strip().splitlines()[0].strip() if text.strip() else ""
        return line.lower() if line and re.fullmatch(spec["fullmatch"], line) else None
    m = re.search(spec["search"], text)
    return m.group(1).lower() if m else None


def detect_container(ctx) -> str | None:
    """The container the tree runs in (the ``containers`` signatures), or None."""
    cgroup = (ctx.read_text("proc/self/cgroup") or "") + "\n" + (ctx.read_text("proc/1/cgroup") or "")
    facts = sig.Facts({"cgroup": cgroup}, ctx)
    for entry in signatures().get("containers") or ():
        if not sig.holds(entry.get("when") or {"all": []}, facts):
            continue
        value = entry.get("value") or (_value_from(entry["value_from"], facts)
                                       if "value_from" in entry else None)
        if value:
            return value
    return None


def _virtualization_from(table: dict, facts, hv: str | None) -> str | None:
    facts.facts = dict(facts.facts, hypervisor=hv or "")
    hit = sig.first_match(table.get("virtualization") or [], facts)
    if hit is not None:
        return hit["value"]
    return hv.lower() if hv else None


def virtualization(ctx, hv: str | None, kernel: str | None, flags: list[str]) -> str | None:
    """platform.virtualization from the hypervisor vendor, the kernel release and the CPU
    flags (the ``virtualization`` signatures)."""
    facts = sig.Facts({"kernel": kernel or ""}, ctx, flags)
    return _virtualization_from(signatures(), facts, hv)


# ------------------------------------------------------------------ Secure Boot, DKMS modules

SECURE_BOOT_VAR = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0c5bc6c2d0c"
# where out-of-tree modules go: DKMS installs into updates/dkms (Debian, Ubuntu, Fedora) or
# extra (RHEL, SUSE, older DKMS); vendor installers use updates/ or extra/ too
_MODULE_DIRS = ("updates/dkms", "updates", "extra")
_MODULE_FILE = re.compile(r"^([A-Za-z0-9_-]+)\.ko(\.(xz|gz|zst|bz2))?$")
MAX_MODULES = 64


def secure_boot(ctx) -> bool | None:
    """Whether UEFI Secure Boot is on: the SecureBoot EFI variable (4 attribute bytes, then one
    value byte, 1 = on). False on a live system booted without UEFI, or whose firmware has no
    SecureBoot variable; None when it cannot be told (a recorded tree without the variable)."""
    data = ctx.read_bytes(SECURE_BOOT_VAR, limit=64)
    if data is not None and len(data) >= 5:
        return data[4] == 1
    if data is not None:
        return None                     # a short read: not a value to trust
    if ctx.live:
        if not ctx.exists("sys/firmware/efi"):
            return False                # legacy BIOS boot: there is no Secure Boot
        if ctx.is_dir("sys/firmware/efi/efivars") and ctx.listdir("sys/firmware/efi/efivars"):
            return False                # UEFI variables readable, no SecureBoot among them
    return None


def out_of_tree_modules(ctx, release: str | None) -> list[dict]:
    """Kernel modules installed outside the kernel's own tree for the running kernel
    (``lib/modules/<release>/updates/dkms``, ``updates``, ``extra``, and up to two levels of
    folders below them): ``[{"name": "nvidia", "path": "/lib/modules/<release>/updates/dkms/nvidia.ko.zst"}]``,
    sorted by path. A module here that is not loaded on a machine with Secure Boot on is the
    sign of a DKMS signing key that was never enrolled."""
    if not release or "/" in release or release in (".", ".."):
        return []
    out: dict[str, dict] = {}
    base = f"lib/modules/{release}"
    for sub in _MODULE_DIRS:
        folder = f"{base}/{sub}"
        stack = [(folder, 0)]
        while stack and len(out) < MAX_MODULES:
            rel, level = stack.pop()
            for name in ctx.listdir(rel):
                path = f"{rel}/{name}"
                match = _MODULE_FILE.match(name)
                if match:
                    out.setdefault("/" + path, {"name": match.group(1), "path": "/" + path})
                elif level < 2 and ctx.is_dir(path):
                    stack.append((path, level + 1))
    return [out[k] for k in sorted(out)][:MAX_MODULES]


def probe(ctx) -> dict:
    live = ctx.live
    if live and not on_linux():
        return {"platform": _non_linux()}
    info = read_cpuinfo(ctx)
    flags = info.type.get("flags", "").split()
    rel = parse_os_release(ctx.read_text("etc/os-release") or ctx.read_text("usr/lib/os-release"))
    os_release = rel.get("PRETTY_NAME") or " ".join(
        x for x in (rel.get("NAME"), rel.get("VERSION") or rel.get("VERSION_ID")) if x) or None
    kernel = ctx.read_line("proc/sys/kernel/osrelease")
    hostname = ctx.read_line("proc/sys/kernel/hostname") or ctx.read_line("etc/hostname")
    if live:
        try:
            kernel = os.uname().release or kernel
        except (AttributeError, OSError):
            pass
        try:
            hostname = os.uname().nodename or hostname      # = socket.gethostname() on Linux
        except (AttributeError, OSError):
            pass
    is_linux = live or ctx.exists("proc") or ctx.exists("sys")
    dmi = dict(read_dmi(ctx))
    hv = hypervisor_vendor(ctx, flags)       # shared with the cpu probe
    result = {
        "os": "Linux" if is_linux else None,
        "os_release": os_release,
        "kernel": kernel,
        "machine": tree_arch(ctx, info, flags),
        "hostname": hostname,
        "virtualization": virtualization(ctx, hv, kernel, flags),
        "container": detect_container(ctx),
        "cloud": cloud_from_dmi(dmi),
        "dmi": dmi,
        "secure_boot": secure_boot(ctx),
        "out_of_tree_modules": out_of_tree_modules(ctx, kernel),
    }
    from accelgui.probes import datafiles

    datafiles.report_problems(ctx, "platforms.json", "vendors.json")    # vendors: no probe of their own
    return {"platform": result}


def _non_linux() -> dict:
    import platform as _platform
    import socket

    system = _platform.system() or None
    release = None
    if system == "Darwin":
        ver = _platform.mac_ver()[0]
        release = f"macOS {ver}" if ver else "macOS"
    elif system == "Windows":
        release = f"Windows {_platform.release()}".strip()
    machine = (_platform.machine() or "").lower()
    return {
        "os": system,
        "os_release": release,
        "kernel": _platform.release() or None,
        "machine": {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine or None),
        "hostname": socket.gethostname() or None,
        "virtualization": None,
        "container": None,
        "cloud": None,
        "dmi": {},
        "secure_boot": None,
        "out_of_tree_modules": [],
    }
