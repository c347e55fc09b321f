"""Platform probe: OS and release, kernel, machine, host name, virtualisation, container, cloud.

All from files under the root: ``etc/os-release`` (or ``usr/lib/os-release``),
``proc/sys/kernel/{osrelease,hostname}``, the DMI strings in ``sys/class/dmi/id/``,
``/.dockerenv``, ``run/.containerenv``, ``run/systemd/container`` and the cgroup file. The
cloud provider and instance type come from DMI alone: no metadata service is ever contacted.
Only the live system adds uname, ``socket.gethostname()`` and the environment.
"""

from __future__ import annotations

import os
import re

from accelgui.probes.cpu import hypervisor_vendor, on_linux, read_cpuinfo, read_dmi, tree_arch

AZURE_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"
# "<family with a digit>.<size>" (m5.xlarge, n2-standard-8.x): one dot, a digit before it;
# matched in two linear steps (one pattern with two [a-z0-9-]* around \d is quadratic)
_INSTANCE_SHAPE = re.compile(r"[a-z][a-z0-9-]*+\.[a-z0-9-]++")


class _InstanceType:
    @staticmethod
    def fullmatch(text: str) -> bool:
        return bool(_INSTANCE_SHAPE.fullmatch(text)) and any(c.isdigit() for c in text[1:text.find(".")])


_INSTANCE_TYPE = _InstanceType()
_VIRT = {"KVM": "kvm", "Xen": "xen", "Microsoft": "hyperv", "VMware": "vmware",
         "Oracle": "virtualbox", "Parallels": "parallels", "pHyp": "powervm", "bhyve": "bhyve",
         "Windows Subsystem for Linux": "wsl", "Apple": "apple"}
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
    }
