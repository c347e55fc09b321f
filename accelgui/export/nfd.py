"""NFD: a Kubernetes Node Feature Discovery "local" source feature file.

nfd-worker reads every file in ``/etc/kubernetes/node-feature-discovery/features.d/`` (dot
files are ignored, so an atomic write through a temporary ``.name`` file is safe); each line is
``<prefix>/<name>[=<value>]`` (the value defaults to ``true``); ``#`` starts a comment; files
over 64 KiB are ignored. See docs/fleet.md for the deployment.

Names and values must be valid Kubernetes labels: the name part after the ``prefix/`` and the
value are at most 63 characters of ``[A-Za-z0-9_.-]``, beginning and ending with an
alphanumeric character (a value may be empty). Everything that comes from the machine is
sanitised to that alphabet; a label that sanitises to nothing is left out.

Labels (with the default prefix ``accelgui.io``)::

    accelgui.io/version=0.2.0
    accelgui.io/cpu.arch=x86_64  cpu.vendor=intel  cpu.microarchitecture=sapphirerapids
    accelgui.io/cpu.avx512_bf16=true        (selected CPU features that are present)
    accelgui.io/memory.total-gib=1968
    accelgui.io/gpu.present=true            (for each device kind found: gpu, npu, tpu, fpga...)
    accelgui.io/gpu.count=8  gpu.ready.count=8  gpu.nvidia=true  gpu.nvidia.count=8
    accelgui.io/gpu.memory-gib=79           (smallest device memory of that kind, GiB, floor)
    accelgui.io/gpu.nvidia.compute-capability=9.0   (lowest, when known)
    accelgui.io/route.gpu=ready             (route verdicts, when the report has them)
"""

from __future__ import annotations

import os
import re

from accelgui.export import common

PREFIX = "accelgui.io"
MAX_BYTES = 64 * 1024

# CPU features worth scheduling on (only those present are written)
CPU_FEATURES = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                "avx_vnni", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16", "neon", "asimddp",
                "dotprod", "i8mm", "bf16", "sve", "sve2", "sme", "sme2", "vsx", "mma", "rvv")

_NAME_OK = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")
_PREFIX_OK = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


def sanitize(value, lower: bool = True) -> str:
    """Map any string onto the Kubernetes label alphabet: <= 63 chars of [A-Za-z0-9_.-],
    alphanumeric at both ends ("" when nothing is left)."""
    text = common.label_text(value)    # cut as every exporter cuts a label, then to 63
    if lower:
        text = text.lower()
    text = re.sub(r"[^A-Za-z0-9_.-]+", "-", text)
    text = re.sub(r"-{2,}", "-", text)
    text = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", text)
    if len(text) > 63:
        text = re.sub(r"[^A-Za-z0-9]+$", "", text[:63])
    return text


def valid_name(name: str) -> bool:
    return bool(_NAME_OK.match(name))


def valid_value(value: str) -> bool:
    return value == "" or bool(_NAME_OK.match(value))


def labels(report, prefix: str = PREFIX) -> dict[str, str]:
    """The label set as {name-without-prefix: value}, every name and value valid."""
    out: dict[str, str] = {}

    def put(name: str, value) -> None:
        if value is None:
            return
        name = ".".join(sanitize(part) for part in name.split(".") if sanitize(part))
        value = "true" if value is True else "false" if value is False else sanitize(value, lower=False)
        if name and value and valid_name(name) and valid_value(value) and name not in out:
            out[name] = value

    put("version", report.accelgui_version)
    c = report.cpu
    put("cpu.arch", c.arch)
    put("cpu.vendor", c.vendor)
    put("cpu.microarchitecture", c.microarchitecture)
    if c.logical_cpus:
        put("cpu.logical-cpus", str(c.logical_cpus))
    present = set(c.features or [])
    for feat in CPU_FEATURES:
        if feat in present:
            put(f"cpu.{feat}", True)
    if common.num(report.memory.total_bytes):
        put("memory.total-gib", str(int(report.memory.total_bytes // 1024**3)))
    cloud = report.platform.cloud if isinstance(report.platform.cloud, dict) else None
    if cloud:
        put("cloud.provider", cloud.get("provider"))
    if report.platform.virtualization:
        put("virtualization", report.platform.virtualization)

    by_kind: dict[str, list] = {}
    for d in report.devices:
        by_kind.setdefault(sanitize(d.kind) or "accelerator", []).append(d)
    for kind, devs in by_kind.items():
        put(f"{kind}.present", True)
        put(f"{kind}.count", str(len(devs)))
        put(f"{kind}.ready.count", str(sum(1 for d in devs if d.readiness == "ready")))
        mems = [common.device_memory(d) for d in devs if common.device_memory(d) is not None and not d.integrated]
        if mems:
            put(f"{kind}.memory-gib", str(min(mems) // 1024**3))
        vendors: dict[str, list] = {}
        for d in devs:
            vendors.setdefault(sanitize(d.vendor) or "unknown", []).append(d)
        for vendor, vdevs in vendors.items():
            put(f"{kind}.{vendor}", True)
            put(f"{kind}.{vendor}.count", str(len(vdevs)))
            caps = []
            for d in vdevs:
                cc = (d.details or {}).get("compute_capability")
                try:
                    caps.append(float(cc))
                except (TypeError, ValueError):
                    pass
            if caps:
                put(f"{kind}.{vendor}.compute-capability", f"{min(caps):.1f}")
            targets = sorted({str((d.details or {}).get("gfx_target")) for d in vdevs
                              if (d.details or {}).get("gfx_target")})
            if len(targets) == 1:
                put(f"{kind}.{vendor}.gfx-target", targets[0])
    for r in report.routes:
        put(f"route.{r.id}", r.status)
    return out


def render(report, lang: str = "en", prefix: str | None = None) -> str:
    """The feature file. ``prefix`` defaults to $ACCELGUI_NFD_PREFIX, else ``accelgui.io``."""
    prefix = prefix or os.environ.get("ACCELGUI_NFD_PREFIX") or PREFIX
    denied = (prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io")) and not any(
        prefix == ok or prefix.endswith("." + ok)
        for ok in ("feature.node.kubernetes.io", "profile.node.kubernetes.io"))
    if not _PREFIX_OK.match(prefix) or len(prefix) > 253 or denied:
        raise ValueError(f"NFD label prefix {prefix!r} is not a usable DNS subdomain "
                         "(kubernetes.io namespaces are denied by nfd-master)")
    head = [f"# Node Feature Discovery feature file written by accelgui {sanitize(report.accelgui_version)}",
            f"# report created {common.clean(report.created)[:40]}; install as "
            "/etc/kubernetes/node-feature-discovery/features.d/accelgui"]
    lines = [f"{prefix}/{k}={v}" for k, v in labels(report, prefix).items()]
    text = "\n".join(head + lines) + "\n"
    while len(text.encode()) > MAX_BYTES and lines:  # nfd ignores larger files entirely
        lines.pop()
        text = "\n".join(head + lines) + "\n"
    return text
