"""Compute-accelerator and DRM device nodes: ``sys/class/accel`` and ``sys/class/drm``.

The kernel's accel subsystem (Intel NPU ``intel_vpu``, AMD ``amdxdna``, Habana
``habanalabs``, Qualcomm ``qaic``, Arm ``ethosu``, Rockchip ``rocket``) registers
``accelN`` with ``/dev/accel/accelN`` (the TPU driver of v2-v4 Cloud TPU VMs registers a
class of the same name with ``/dev/accelN``); GPUs register DRM ``cardN`` and ``renderDN``.
Each class entry's ``device`` link names its parent: a PCI address or a platform device. The
inventory attaches these nodes to the PCI device they belong to, and reports a platform
accel device that nothing else found (an NPU on an Arm SoC) as a device of its own.
"""

from __future__ import annotations

import os

from accelgui.probes.context import ProbeContext


def _parent(ctx: ProbeContext, rel: str) -> str | None:
    """Name of the device a class entry belongs to: the last part of its resolved link."""
    real = ctx.realpath(rel)
    if real and real != "." and ctx.exists(rel):
        return os.path.basename(real)
    name = ctx.readlink(rel)
    return name if name not in (None, ".", "..") else None


def _entries(ctx: ProbeContext, cls: str, keep) -> list[dict]:
    from accelgui.probes import inventory
    from accelgui.probes.pci import node_path

    out = []
    for name in ctx.listdir(f"sys/class/{cls}"):
        if not keep(name):
            continue
        base = f"sys/class/{cls}/{name}"
        parent = _parent(ctx, f"{base}/device")
        rel = node_path(ctx, cls, name)
        out.append({
            "name": name,
            "parent": parent.lower() if parent and inventory.PCI_ADDRESS.match(parent) else parent,
            "parent_bus": "pci" if parent and inventory.PCI_ADDRESS.match(parent) else
                          ("platform" if parent else None),
            "driver": ctx.readlink(f"{base}/device/driver"),
            "node": rel,
            "node_exists": ctx.exists(rel),
            "access": inventory.node_access(ctx, rel),
        })
    return out


def probe(ctx: ProbeContext) -> dict:
    accel = _entries(ctx, "accel", lambda n: n.startswith("accel"))
    drm = _entries(ctx, "drm",
                   lambda n: (n.startswith("card") and "-" not in n) or n.startswith("renderD"))
    fragment = {"accel_nodes": accel, "drm_nodes": drm}
    if not accel and not drm:
        fragment.update(_status="absent", _reason="no DRM or compute-accelerator class devices")
    return fragment
