"""Platform probe: OS and release, kernel, machine, host name, virtualisation, container, cloud.

All from files under the root: ``etc/os-release`` (or ``usr/lib/os-release``),
``proc/sys/kernel/{osrelease,hostname}``, the DMI strings in ``sys/class/dmi/id/``, the
SecureBoot EFI variable in ``sys/firmware/efi/efivars/``, the names of out-of-tree (DKMS)
kernel modules under ``lib/modules/<release>/{updates,extra}/``,
``/.dockerenv``, ``run/.containerenv``, ``run/systemd/container`` and the cgroup file. The
cloud provider and instance type come from DMI alone: no metadata service is ever contacted.
Only the live system adds uname, ``socket.gethostname()`` and the environment.
"""

from __future__ import annotations

import os
import re

from accelgui.probes.cpu import on_linux, read_cpuinfo, tree_arch

AZURE_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"
# "<family with a digit>.<size>" (m5.xlarge, n2-standard-8.x): one dot, a digit before it;
# matched in two linear steps (one pattern with two [a-z0-9-]* around \d is quadratic)
_INSTANCE_SHAPE = r"[a-z][a-z0-9-]*+\.[a-z0-9-]++"


class _InstanceType:
    @staticmethod
    def fullmatch(text: str) -> bool:
        return bool(re.fullmatch(_INSTANCE_SHAPE, text)) and any(c.isdigit() for c in text[1:text.find(".")])


_INSTANCE_TYPE = _InstanceType()
_VIRT = {"KVM": "kvm", "Xen": "xen", "Microsoft": "hyperv", "VMware": "vmware",
         "Oracle": "virtualbox", "Parallels": "parallels", "pHyp": "powervm", "bhyve": "bhyve",
         "Windows Subsystem for Linux": "wsl", "Apple": "apple"}
# ------------------------------------------------------------------ DMI and hypervisor
# (the cpu probe reports hypervisor_vendor too: it asks this module)

_DMI_HYPERVISORS = (             # (substring of DMI strings, lscpu-style vendor)
    ("VMware", "VMware"), ("VMW", "VMware"), ("innotek", "Oracle"), ("VirtualBox", "Oracle"),
    ("Parallels", "Parallels"), ("Xen", "Xen"), ("HVM domU", "Xen"), ("QEMU", "KVM"),
    ("KVM", "KVM"), ("Bochs", "KVM"), ("OpenStack", "KVM"), ("Google Compute Engine", "KVM"),
    ("Amazon EC2", "KVM"), ("Alibaba Cloud", "KVM"), ("Tencent Cloud", "KVM"),
    ("DigitalOcean", "KVM"), ("Hetzner", "KVM"), ("Nutanix", "KVM"), ("Scaleway", "KVM"),
    ("Linode", "KVM"), ("Vultr", "KVM"), ("BHYVE", "bhyve"), ("Apple Virtualization", "Apple"),
)


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


def _hypervisor_vendor(ctx, flags: list[str] | None, dmi: dict | None) -> str | None:
    osrelease = ctx.read_line("proc/sys/kernel/osrelease") or ""
    if "Microsoft" in osrelease:
        return "Windows Subsystem for Linux"
    if "microsoft" in osrelease.lower():           # WSL2: a Hyper-V VM
        return "Microsoft"
    compatible = (ctx.read_text("proc/device-tree/compatible") or "").split("\x00")
    if "ibm,powernv" in compatible:
        return None
    if ctx.exists("proc/device-tree/ibm,partition-name") and ctx.exists("proc/device-tree/hmc-managed?") \
            and not ctx.exists("proc/device-tree/chosen/qemu,graphic-width"):
        return "pHyp"
    if "qemu,pseries" in compatible:
        return "KVM"
    if ctx.exists("proc/xen") or (ctx.read_line("sys/hypervisor/type") or "").lower() == "xen":
        return "Xen"
    sysinfo = ctx.read_text("proc/sysinfo")
    if sysinfo is not None and ("Manufacturer:" in sysinfo or "Type:" in sysinfo):
        for line in sysinfo.splitlines():
            if "Control Program:" in line:
                return "KVM" if "KVM" in line else "IBM"
        return "IBM"
    if ctx.exists("proc/vz") and not ctx.exists("proc/bc"):
        return "Parallels"
    dmi = read_dmi(ctx) if dmi is None else dmi
    product = dmi.get("product_name", "")
    if dmi.get("sys_vendor") == "Microsoft Corporation" and product == "Virtual Machine":
        return "Microsoft"
    bare_metal = product.endswith(".metal") or product.endswith(".metal-24xl") or ".metal" in product
    if not bare_metal:
        text = " | ".join(dmi.get(k, "") for k in ("sys_vendor", "product_name", "bios_vendor",
                                                     "board_vendor", "bios_version"))
        for needle, vendor in _DMI_HYPERVISORS:
            if needle in text:
                if vendor == "KVM" and ("Xen" in text or "amazon" in dmi.get("bios_version", "")
                                        and "Xen" in dmi.get("bios_vendor", "")):
                    return "Xen"
                return vendor
        if dmi.get("chassis_asset_tag") == "OracleCloud.com":
            return "KVM"
    clock = (ctx.read_line("sys/devices/system/clocksource/clocksource0/available_clocksource") or "") + \
        " " + (ctx.read_line("sys/devices/system/clocksource/clocksource0/current_clocksource") or "")
    if "kvm-clock" in clock:
        return "KVM"
    if "hyperv" in clock:
        return "Microsoft"
    if re.search(r"\bxen\b", clock):
        return "Xen"
    ids = _pci_ids(ctx)
    if (0x15ad, 0x0405) in ids or (0x15ad, 0x0710) in ids:
        return "VMware"
    if (0x5853, 0x0001) in ids:
        return "Xen"
    if (0x80ee, 0xbeef) in ids or (0x80ee, 0xcafe) in ids:
        return "Oracle"
    if flags is not None and "hypervisor" in flags and any(v == 0x1af4 for v, _ in ids):
        return "KVM"
    return None



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
    """{provider, instance_type} from DMI strings, or None for no known cloud."""
    sv = dmi.get("sys_vendor", "")
    pn = dmi.get("product_name", "")
    bv = dmi.get("bios_vendor", "")
    bver = dmi.get("bios_version", "")
    tag = dmi.get("chassis_asset_tag", "")
    board = dmi.get("board_vendor", "")
    provider = None
    instance_type = None
    if "Amazon EC2" in (sv, bv, board, tag) or ("amazon" in bver.lower() and "Xen" in (sv, bv)):
        provider = "aws"
        if _INSTANCE_TYPE.fullmatch(pn):
            instance_type = pn
    elif pn == "Google Compute Engine" or (sv == "Google" and bv == "Google"):
        provider = "gcp"
        if _INSTANCE_TYPE.fullmatch(pn.lower()) and "-" in pn:
            instance_type = pn
    elif tag == AZURE_ASSET_TAG:
        provider = "azure"
    elif tag == "OracleCloud.com":
        provider = "oci"
    elif "Alibaba Cloud" in sv or pn.startswith("Alibaba Cloud"):
        provider = "alibaba"
        if pn.startswith("ecs."):
            instance_type = pn
    elif "Tencent" in sv or "Tencent" in pn:
        provider = "tencent"
    elif tag.upper().startswith("HUAWEICLOUD") or "HUAWEI CLOUD" in sv.upper():
        provider = "huawei"
    elif sv == "DigitalOcean":
        provider = "digitalocean"
    elif sv == "Hetzner":
        provider = "hetzner"
    elif sv in ("Linode", "Akamai"):
        provider = "linode"
    elif sv == "Vultr":
        provider = "vultr"
    elif sv == "Scaleway":
        provider = "scaleway"
    elif "OpenStack" in pn or "OpenStack" in sv:
        provider = "openstack"
    if provider is None:
        return None
    return {"provider": provider, "instance_type": instance_type}


def detect_container(ctx) -> str | None:
    cgroup = (ctx.read_text("proc/self/cgroup") or "") + "\n" + (ctx.read_text("proc/1/cgroup") or "")
    if "kubepods" in cgroup or (ctx.live and ctx.env.get("KUBERNETES_SERVICE_HOST")):
        return "kubernetes"
    declared = ctx.read_line("run/systemd/container")
    if declared and re.fullmatch(r"[\w.-]+", declared):
        return declared.lower()
    if ctx.exists("run/.containerenv") or "libpod" in cgroup:
        return "podman"
    if ctx.exists(".dockerenv") or re.search(r"/docker[/-]|docker-[0-9a-f]", cgroup):
        return "docker"
    if re.search(r"/lxc[/.]|lxc\.payload", cgroup):
        return "lxc"
    if ctx.live:
        environ = ctx.read_text("proc/1/environ") or ""
        m = re.search(r"(?:^|\x00)container=([\w.-]+)", environ)
        if m:
            return m.group(1).lower()
    return None


def virtualization(ctx, hv: str | None, kernel: str | None, flags: list[str]) -> str | None:
    if kernel and "microsoft" in kernel.lower():
        return "wsl"
    if hv == "IBM":
        sysinfo = ctx.read_text("proc/sysinfo") or ""
        return "zvm" if "z/VM" in sysinfo else "lpar"
    if hv in _VIRT:
        return _VIRT[hv]
    compatible = (ctx.read_text("proc/device-tree/compatible") or "").split("\x00")
    if "linux,dummy-virt" in compatible:
        return "qemu"
    if "hypervisor" in flags:
        return "vm"
    return hv.lower() if hv else None


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
