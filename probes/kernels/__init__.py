"""Measured throughput: Numba micro-kernels run in a child process.

``python -m accelgui.probes.kernels --mode quick|full|test`` is the child; it prints JSON
lines (progress, then one result or error). :mod:`accelgui.probes.kernels.client` starts it
and reads them. This package's ``__init__`` and the client never import Numba, so the
``--probe`` path and the GUI stay light; only the child imports ``cpu_kernels`` (Numba)
and, when an NVIDIA GPU is usable, ``gpu_kernels`` (numba-cuda).
"""

from __future__ import annotations

import glob
import importlib.util
import os

MODES = ("test", "quick", "full")

CUDA_HINT = "pip install 'accelgui[cuda]'"


def nvidia_device_count() -> int | None:
    """NVIDIA GPUs visible through NVML, or None when NVML cannot be used."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - NVMLError_LibraryNotFound, DriverNotLoaded, ...
        return None
    try:
        return int(pynvml.nvmlDeviceGetCount())
    except Exception:  # noqa: BLE001
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass


def gpu_skip_reason(dev_root: str = "/dev") -> str | None:
    """Why the GPU benchmarks cannot run here, or None when they should be tried.

    Cheap checks only (device nodes, NVML, whether numba-cuda is installed); nothing here
    imports Numba or initialises CUDA.
    """
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return "CUDA_VISIBLE_DEVICES hides every GPU"
    nodes = glob.glob(os.path.join(dev_root, "nvidia[0-9]*"))
    wsl = os.path.exists(os.path.join(dev_root, "dxg"))
    if not nodes and not wsl:
        return "no NVIDIA GPU found (no /dev/nvidia* device nodes)"
    count = nvidia_device_count()
    if count == 0:
        return "NVML reports no NVIDIA GPU"
    if count is None and not nodes:
        return "NVIDIA driver not usable (NVML could not be initialised)"
    if importlib.util.find_spec("numba_cuda") is None and not _builtin_numba_cuda():
        return f"numba-cuda is not installed ({CUDA_HINT})"
    return None


def _builtin_numba_cuda() -> bool:
    """Whether the (deprecated) CUDA target built into older Numba releases is present.

    Looks at the files only: find_spec("numba.cuda") would import numba itself.
    """
    try:
        spec = importlib.util.find_spec("numba")
    except (ImportError, ValueError):
        return False
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isfile(os.path.join(loc, "cuda", "__init__.py")):
            return True
    return False
