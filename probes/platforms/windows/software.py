"""Windows software: Python packages from a recorded ``pip list`` / ``pip freeze`` (live: the
running interpreter's, as on Linux), runtimes by the DLLs in System32 (a recorded ``dir /b``
of it, matched against the Windows names of data/runtimes.json), the NVIDIA driver and CUDA
driver API version (nvidia-smi, else the NVIDIA display driver's Windows version), the Intel
NPU driver the NPU runs, and DirectML, which Windows ships since Windows 10 1903
(learn.microsoft.com/windows/ai/directml/dml, checked 2026-12-01) when no listing says.
"""

from __future__ import annotations

import re

from accelgui.probes.platforms.windows.hardware import build_number, outputs

DIRECTML_BUILD = 18362        # Windows 10 1903


def parse_pip(text: str | None) -> dict[str, str]:
    """``pip list`` (a table) or ``pip freeze`` (``name==version``) -> {name: version}."""
    out: dict[str, str] = {}
    for line in (text or "").split("\n"):
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._\-]*)(?:==|\s+)(\d[^\s]*)(?:\s|$)", line)
        if m and not line.startswith(("Package ", "-")):
            out.setdefault(m.group(1), m.group(2))
    return out


def nvidia_driver_from_windows(version: str | None) -> str | None:
    """NVIDIA's driver number from the Windows driver version: the last five digits of the
    last two fields ("31.0.15.5186" -> "551.86"), the scheme NVIDIA has used since 2008."""
    m = re.fullmatch(r"\d+\.\d+\.(\d+)\.(\d+)", (version or "").strip())
    if not m:
        return None
    digits = (m.group(1) + m.group(2).zfill(4))[-5:]
    return f"{int(digits[:3])}.{digits[3:]}" if len(digits) == 5 else None


def _packages(ctx) -> tuple[dict[str, str], bool]:
    from accelgui.probes import software as linux_software

    names = linux_software.python_packages()
    if ctx.live:
        return linux_software.installed_packages(names), True
    texts = outputs(ctx, "windows.pip")
    wanted = {linux_software._norm(n): n for n in names}
    found: dict[str, str] = {}
    for text in texts:
        for name, version in parse_pip(text).items():
            key = linux_software._norm(name)
            if key in wanted:
                found.setdefault(wanted[key], version)
    return found, bool(texts)


def dll_names(ctx) -> list[str]:
    """The DLL names of recorded System32 listings (``dir /b``, ``Get-ChildItem -Name``)."""
    names: list[str] = []
    for text in outputs(ctx, "windows.system32_dlls"):
        names.extend(line.strip() for line in text.split("\n")
                     if re.fullmatch(r"[\w.\-]+\.dll", line.strip(), re.I))
    return names


def _toolkits(ctx) -> dict[str, str | None]:
    from accelgui.probes import software as linux_software
    from accelgui.probes.platforms.windows import devices

    dlls = dll_names(ctx)
    kits: dict[str, str | None] = linux_software.library_runtimes(dlls, "windows") if dlls else {}
    smi = devices.nvidia_smi(ctx)
    if smi.get("driver_version"):
        kits["nvidia_driver"] = smi["driver_version"]
    if smi.get("cuda_version"):
        kits["cuda_driver"] = smi["cuda_version"]
    for a in devices.adapters(ctx):
        vendor = a["pnp"]["vendor"]
        if vendor == "10de" and "nvidia_driver" not in kits:
            version = nvidia_driver_from_windows(a.get("driver_version"))
            if version:
                kits["nvidia_driver"] = version
        if a.get("cls") == "computeaccelerator" and vendor == "8086" and a.get("driver_version"):
            # Intel's Windows NPU driver package holds its user-space part (Level Zero)
            kits.setdefault("intel_npu_driver", a["driver_version"])
    for text in outputs(ctx, "windows.nvcc"):
        m = re.search(r"Cuda compilation tools, release (\d+\.\d+)", text)
        if m:
            kits["cuda_toolkit"] = m.group(1)
    build = build_number(ctx)
    if not dlls and build and build >= DIRECTML_BUILD:
        kits["directml"] = None           # part of Windows since 1903; its version unknown here
    return kits


def probe(ctx) -> dict:
    packages, known = _packages(ctx)
    return {"software": {"packages": packages, "packages_known": known,
                         "toolkits": _toolkits(ctx), "providers": [], "compilers": {}}}
