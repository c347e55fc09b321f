"""The accelerator inventory: classification, merging and readiness.

Probes collect raw facts (``pci_functions``, ``usb_devices``, ``accel_nodes``, ``drm_nodes``,
``soc_devices``, ``nvml``, ``kfd``, ``software``); :func:`finalize` turns them into the
report's ``devices`` list:

1. classify PCI functions by class code, vendor and device id (:func:`classify_pci`): a
   display controller is a GPU unless it is a BMC or virtual display; class 0x12 is a
   processing accelerator; 0x0b40 co-processors and 0x1180 signal processors only when the
   vendor and id say so (AMD XDNA NPU yes, Intel QuickAssist or thermal controller no);
   cloud vendors' NICs and NVMe are never accelerators;
2. fold what belongs to one card into one device: the functions of a multi-function card
   (Xilinx mgmt + user), SR-IOV virtual functions next to their physical function, DRM and
   accel nodes, NVML and KFD details (matched by PCI address);
3. walk the readiness ladder for each device: present -> driver bound -> device node ->
   accessible to this user (live only) -> runtime installed -> ready, naming the first
   missing step and its fix. The device node is the one the compute runtime opens
   (/dev/nvidiaN, not nvidia-drm's render node; /dev/kfd as well as the render node for
   amdgpu). Inside a container a missing node means the device was not passed in
   ("no-access", with the container's fix), not that the host lacks a driver.
"""

from __future__ import annotations

import os
import re

PCI_ADDRESS = re.compile(r"^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_SLUG = re.compile(r"[^a-z0-9]+")

# ---------------------------------------------------------------------------------------
# Families: how each kind of device is driven, and what to do when a step is missing.
# ---------------------------------------------------------------------------------------

FAMILIES: dict[str, dict] = {
    "nvidia-gpu": {
        "drivers": ("nvidia",),
        "wrong_drivers": {"nouveau": "nouveau cannot run CUDA",
                          "vfio-pci": "it is reserved for a virtual machine (vfio-pci)",
                          "pci-stub": "it is held by pci-stub"},
        "fix_driver": "Install the NVIDIA driver (e.g. the nvidia-driver or nvidia-open "
                      "package of your distribution, or the CUDA repository's "
                      "cuda-drivers), then reboot.",
        "fix_node": "The nvidia module is loaded but its device files are missing: run "
                    "`sudo nvidia-modprobe -u -c=0` or reboot.",
        "fix_container": "Start the container with this GPU through the NVIDIA Container "
                         "Toolkit (`docker run --gpus all ...`, or `--gpus '\"device=N\"'`; in "
                         "Kubernetes, request nvidia.com/gpu).",
        "runtime": {"toolkits": ("cuda_driver", "cuda_driver_lib"), "nvml": True},
        "runtime_name": "the CUDA driver library (libcuda.so.1)",
        "fix_runtime": "Install the NVIDIA user-space driver libraries (libcuda.so.1 and "
                       "libnvidia-ml.so.1 come with the driver package, e.g. libnvidia-compute).",
    },
    "wsl-gpu": {
        # WSL2 GPU paravirtualization: one Microsoft 1414:008e function per host GPU, bound to
        # dxgkrnl, used through /dev/dxg and the host driver's libraries in /usr/lib/wsl/lib.
        "drivers": ("dxgkrnl",),
        "fix_driver": "Update WSL (`wsl --update` in Windows) so that its kernel has the "
                      "dxgkrnl driver, and install the GPU driver in Windows (not in Linux).",
        "fix_node": "dxgkrnl is bound but /dev/dxg is missing: update WSL (`wsl --update`) and "
                    "restart it (`wsl --shutdown`).",
        "runtime": None,
    },
    "nvidia-wsl": {
        "drivers": ("dxgkrnl",),
        "fix_driver": "Update WSL (`wsl --update` in Windows) so that its kernel has the "
                      "dxgkrnl driver, and install the NVIDIA driver in Windows (never a Linux "
                      "NVIDIA driver inside WSL).",
        "fix_node": "dxgkrnl is bound but /dev/dxg is missing: update WSL (`wsl --update`) and "
                    "restart it (`wsl --shutdown`).",
        "runtime": {"toolkits": ("cuda_driver_lib",), "nvml": True},
        "runtime_name": "the CUDA driver library that the Windows NVIDIA driver puts in "
                        "/usr/lib/wsl/lib",
        "fix_runtime": "Install or update the NVIDIA driver in Windows; it provides "
                       "/usr/lib/wsl/lib/libcuda.so.1. Do not install a Linux NVIDIA driver "
                       "inside WSL.",
    },
    "jetson-gpu": {
        "drivers": ("gk20a", "nvgpu", "nvidia", "tegra-gpu"),
        "fix_driver": "Flash or update NVIDIA JetPack (L4T), which ships the nvgpu driver for "
                      "the integrated GPU.",
        "fix_node": "The GPU driver is bound but /dev/nvhost-* nodes are missing: reboot, or "
                    "reflash JetPack.",
        "runtime": {"toolkits": ("cuda_toolkit", "cuda_driver_lib")},
        "runtime_name": "CUDA for Jetson",
        "fix_runtime": "Install the CUDA components of JetPack: `sudo apt install nvidia-jetpack`.",
    },
    "amd-gpu": {
        "drivers": ("amdgpu",),
        "wrong_drivers": {"radeon": "the old radeon driver cannot run ROCm",
                          "vfio-pci": "it is reserved for a virtual machine (vfio-pci)"},
        "fix_driver": "Load the amdgpu driver: use a recent kernel with the amdgpu firmware "
                      "(linux-firmware), or install AMD's amdgpu-dkms.",
        "fix_node": "amdgpu is bound but /dev/kfd or the render node is missing: the kernel "
                    "may lack HSA support (CONFIG_HSA_AMD); use a distribution kernel or "
                    "amdgpu-dkms. In a container, pass both in (`--device /dev/kfd "
                    "--device /dev/dri`).",
        "fix_container": "Pass the GPU into the container: `docker run --device /dev/kfd "
                         "--device /dev/dri ...` (in Kubernetes, request amd.com/gpu).",
        "runtime": {"toolkits": ("rocm",)},
        "runtime_name": "ROCm",
        "fix_runtime": "Install ROCm (https://rocm.docs.amd.com) and check that this GPU's gfx "
                       "target is on its support list.",
        "group": "render",
    },
    "intel-gpu": {
        "drivers": ("i915", "xe"),
        "wrong_drivers": {"vfio-pci": "it is reserved for a virtual machine (vfio-pci)"},
        "fix_driver": "Use a kernel with the i915 or xe driver (Linux 6.2 or newer for Arc) "
                      "and the i915/xe firmware from linux-firmware.",
        "fix_node": "The GPU driver is bound but /dev/dri/renderD* is missing: check `dmesg` "
                    "for firmware errors.",
        "runtime": {"toolkits": ("intel_gpu_compute", "level_zero"),
                    "packages": ("intel-extension-for-pytorch",)},
        "runtime_name": "Intel's GPU compute runtime (Level Zero / OpenCL)",
        "fix_runtime": "Install Intel's compute runtime (intel-opencl-icd and "
                       "libze-intel-gpu1 / level-zero) to use the GPU from OpenCL, SYCL, "
                       "OpenVINO or PyTorch XPU.",
        "group": "render",
    },
    "intel-npu": {
        "drivers": ("intel_vpu",),
        "fix_driver": "Use a kernel whose intel_vpu driver (CONFIG_DRM_ACCEL_IVPU) knows this "
                      "NPU (Linux 6.3 added Meteor Lake; Arrow, Lunar and Panther Lake need "
                      "newer releases) and the NPU firmware (linux-firmware or "
                      "intel/linux-npu-driver).",
        "fix_node": "intel_vpu is bound but /dev/accel/accel* is missing: the NPU firmware "
                    "probably failed to load (see `dmesg | grep vpu`); install "
                    "intel/linux-npu-driver's firmware.",
        "runtime": {"toolkits": ("intel_npu_driver", "openvino"),
                    "packages": ("openvino", "onnxruntime-openvino",
                                 "intel-npu-acceleration-library")},
        "runtime_name": "the Intel NPU user-space driver and OpenVINO",
        "fix_runtime": "Install intel/linux-npu-driver (Level Zero NPU driver) and OpenVINO "
                       "(`pip install openvino`), then use device \"NPU\".",
        "group": "render",
    },
    "amd-npu": {
        "drivers": ("amdxdna",),
        "fix_driver": "Use Linux 6.14 or newer (amdxdna driver) or build amd/xdna-driver, and "
                      "install the NPU firmware (amdnpu/ in linux-firmware).",
        "fix_node": "amdxdna is bound but /dev/accel/accel* is missing: check `dmesg` for NPU "
                    "firmware errors.",
        "runtime": {"toolkits": ("xrt_xdna_plugin", "xrt"),
                    "packages": ("onnxruntime-vitisai", "ryzen-ai")},
        "runtime_name": "XRT with the amdxdna plugin",
        "fix_runtime": "Install XRT with the amdxdna plugin (amd/xdna-driver) and AMD Ryzen AI "
                       "Software (ONNX Runtime Vitis AI execution provider).",
        "group": "render",
    },
    "xilinx-fpga": {
        "drivers": ("xocl", "xclmgmt", "xrt-user", "xrt-mgmt"),
        "fix_driver": "Install the Xilinx Runtime (XRT), which provides the xocl and xclmgmt "
                      "drivers, and the card's deployment platform.",
        "fix_node": "The XRT drivers are bound but their device files are missing: reload "
                    "xocl/xclmgmt or reboot.",
        "runtime": {"toolkits": ("xrt",)},
        "runtime_name": "XRT",
        "fix_runtime": "Install the Xilinx Runtime (XRT) from AMD/Xilinx and source "
                       "/opt/xilinx/xrt/setup.sh.",
    },
    "intel-fpga": {
        "drivers": ("dfl-pci", "intel-fpga-pci", "ifpga_rawdev_drv"),
        "wrong_drivers": {"vfio-pci": "it is handed to a virtual machine or DPDK (vfio-pci)"},
        "fix_driver": "Load the dfl-pci driver (CONFIG_FPGA_DFL_PCI, Linux 5.x or newer) or "
                      "install OPAE's intel-fpga driver package.",
        "fix_node": "dfl-pci is bound but /dev/dfl-fme.* and /dev/dfl-port.* are missing: load "
                    "the dfl-fme and dfl-afu modules.",
        "runtime": {"toolkits": ("opae",)},
        "runtime_name": "OPAE",
        "fix_runtime": "Install the OPAE SDK (opae-sdk) for fpgainfo, fpgaconf and the AFU "
                       "libraries.",
    },
    "altera-fpga": {
        "drivers": (),
        "fix_driver": "Install the card vendor's FPGA driver (for Intel/Altera cards: OPAE and "
                      "the dfl drivers).",
        "runtime": {"toolkits": ("opae",)},
        "runtime_name": "OPAE",
        "fix_runtime": "Install the OPAE SDK (opae-sdk).",
    },
    "google-tpu": {
        "drivers": (),
        "fix_driver": "Bind the TPU chips to their driver: on a Cloud TPU VM use a TPU VM "
                      "image (the chips bind to vfio-pci on v5e and later).",
        "fix_node": "The TPU driver is bound but /dev/vfio/* or /dev/accel* is missing; use a "
                    "Cloud TPU VM image.",
        "nodes_without_driver": ("dev/accel[0-9]*", "dev/vfio/[0-9]*"),
        "runtime": {"toolkits": ("libtpu",), "packages": ("libtpu", "libtpu-nightly",
                                                          "torch-xla")},
        "runtime_name": "libtpu",
        "fix_runtime": "Install JAX for TPU (`pip install 'jax[tpu]'`, which brings libtpu) "
                       "or PyTorch/XLA.",
    },
    "coral-pcie": {
        "drivers": ("apex",),
        "fix_driver": "Install the gasket/apex driver (gasket-dkms from the Coral apt "
                      "repository), then reboot.",
        "fix_node": "apex is bound but /dev/apex_* is missing: reload the apex module "
                    "(`sudo modprobe apex`).",
        "runtime": {"toolkits": ("libedgetpu",), "packages": ("pycoral",)},
        "runtime_name": "the Edge TPU runtime (libedgetpu)",
        "fix_runtime": "Install libedgetpu1-std from the Coral apt repository, plus pycoral or "
                       "tflite-runtime (wheels exist only up to Python 3.9).",
        "group": "apex",
    },
    "coral-usb": {
        "drivers": None,
        "runtime": {"toolkits": ("libedgetpu",), "packages": ("pycoral",)},
        "runtime_name": "the Edge TPU runtime (libedgetpu)",
        "fix_runtime": "Install libedgetpu1-std from the Coral apt repository (it loads the "
                       "Edge TPU firmware on first use), plus pycoral or tflite-runtime "
                       "(wheels exist only up to Python 3.9).",
        "group": "plugdev",
    },
    "movidius-usb": {
        "drivers": None,
        "runtime": {"toolkits": ("openvino",), "packages": ("openvino",)},
        "runtime_name": "OpenVINO with the MYRIAD plugin",
        "fix_runtime": "Use OpenVINO 2022.3 LTS or older (the MYRIAD plugin for the Neural "
                       "Compute Stick was removed in 2023.0) and install its udev rules.",
        "group": "users",
    },
    "aws-neuron": {
        "drivers": ("neuron", "neuron-driver", "neuron_driver"),
        "fix_driver": "Install the Neuron driver: `sudo apt install aws-neuronx-dkms` "
                      "(from the AWS Neuron apt repository).",
        "fix_node": "The Neuron driver is bound but /dev/neuron* is missing: reload it "
                    "(`sudo modprobe -r neuron && sudo modprobe neuron`).",
        "runtime": {"toolkits": ("neuron",),
                    "packages": ("torch-neuronx", "neuronx-cc", "jax-neuronx", "libneuronxla",
                                 "torch-neuron")},
        "runtime_name": "the Neuron runtime and tools",
        "fix_runtime": "Install aws-neuronx-runtime-lib and aws-neuronx-tools, and torch-neuronx "
                       "from the Neuron pip repository.",
    },
    "habana": {
        "drivers": ("habanalabs",),
        "fix_driver": "Install the Intel Gaudi software stack's driver and firmware "
                      "(habanalabs-dkms, habanalabs-firmware).",
        "fix_node": "habanalabs is bound but /dev/accel/accel* (or /dev/hl*) is missing: check "
                    "`dmesg` for firmware errors.",
        "runtime": {"toolkits": ("synapseai",), "packages": ("habana-torch-plugin",)},
        "runtime_name": "the Intel Gaudi software (SynapseAI)",
        "fix_runtime": "Install the Intel Gaudi software (habanalabs-graph, hl-smi) and the "
                       "Gaudi PyTorch bridge (habana-torch-plugin).",
        "group": "render",
    },
    "tenstorrent": {
        "drivers": ("tenstorrent",),
        "fix_driver": "Install tt-kmd (the tenstorrent kernel driver, via DKMS) and update the "
                      "firmware with tt-flash.",
        "fix_node": "tenstorrent is bound but /dev/tenstorrent/* is missing: reload the module.",
        "runtime": {"toolkits": ("tenstorrent",), "packages": ("tt-smi", "ttnn", "pyluwen")},
        "runtime_name": "TT-Metalium / tt-smi",
        "fix_runtime": "Install tt-smi and TT-Metalium / TT-NN (`pip install ttnn`).",
    },
    "huawei-ascend": {
        "drivers": ("devdrv_device_driver",),
        "fix_driver": "Install the Ascend NPU driver and firmware (Ascend-hdk-*-npu-driver and "
                      "-npu-firmware run packages from Huawei's support site), then reboot.",
        "fix_node": "The Ascend driver is bound but /dev/davinci* is missing: check `dmesg` and "
                    "reinstall the NPU driver and firmware.",
        "fix_container": "Pass the NPU into the container: `--device /dev/davinciN --device "
                         "/dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc` "
                         "(or use Ascend Docker Runtime).",
        "runtime": {"toolkits": ("cann",), "packages": ("torch-npu",)},
        "runtime_name": "CANN (the Ascend toolkit)",
        "fix_runtime": "Install the CANN toolkit (Ascend-cann-toolkit) and, for PyTorch, "
                       "torch-npu.",
    },
    "hailo": {
        "drivers": ("hailo", "hailo_pci", "hailo1x_pci"),
        "fix_driver": "Install the HailoRT PCIe driver (hailort-pcie-driver or "
                      "hailort-drivers) and its firmware.",
        "fix_node": "hailo_pci is bound but /dev/hailo* is missing: check the firmware "
                    "(`dmesg | grep hailo`).",
        "runtime": {"toolkits": ("hailort",), "packages": ("hailort",)},
        "runtime_name": "HailoRT",
        "fix_runtime": "Install HailoRT (the hailort package and the hailort Python wheel).",
    },
    "qualcomm-ai100": {
        "drivers": ("qaic",),
        "fix_driver": "Use Linux 6.4 or newer (qaic driver) or install the Qualcomm Cloud AI "
                      "Platform SDK.",
        "fix_node": "qaic is bound but /dev/accel/accel* is missing.",
        "runtime": {"toolkits": ("qaic",)},
        "runtime_name": "the Qualcomm Cloud AI SDK",
        "fix_runtime": "Install the Qualcomm Cloud AI Platform and Apps SDKs (/opt/qti-aic).",
    },
    "rockchip-npu": {
        "drivers": ("RKNPU", "rknpu", "rocket"),
        "fix_driver": "Use a Rockchip vendor kernel with the RKNPU driver (or Linux 6.18 or "
                      "newer with the rocket driver) and enable the NPU in the device tree.",
        "fix_node": "The NPU driver is bound but its device file is missing.",
        "runtime": {"toolkits": ("rknn_runtime",),
                    "packages": ("rknn-toolkit-lite2", "rknn-toolkit2")},
        "runtime_name": "the RKNN runtime (librknnrt.so)",
        "fix_runtime": "Install librknnrt.so and rknn-toolkit-lite2 from "
                       "airockchip/rknn-toolkit2.",
        "group": "render",
    },
    "arm-npu": {
        "drivers": ("ethosu", "ethos-u"),
        "fix_driver": "Use a kernel with the ethosu accel driver and enable the NPU in the "
                      "device tree.",
        "runtime": None,
    },
    "qualcomm-dsp": {
        "drivers": None,
        "runtime": None,
    },
    "generic": {
        "drivers": (),
        "fix_driver": "Install the device vendor's kernel driver.",
        "runtime": None,
    },
}

# Device nodes by driver: (required, any of). Globs may use wildcards in the last part.
_DRIVER_NODES = {
    "nvidia": ((), ("dev/nvidia[0-9]*",)),
    "amdgpu": ((), ("dev/dri/renderD*",)),
    "i915": ((), ("dev/dri/renderD*",)),
    "xe": ((), ("dev/dri/renderD*",)),
    "intel_vpu": ((), ("dev/accel/accel*",)),
    "amdxdna": ((), ("dev/accel/accel*",)),
    "qaic": ((), ("dev/accel/accel*",)),
    "ethosu": ((), ("dev/accel/accel*",)),
    "rocket": ((), ("dev/accel/accel*",)),
    "habanalabs": ((), ("dev/accel/accel*", "dev/hl[0-9]*")),
    "neuron": ((), ("dev/neuron[0-9]*",)),
    "neuron-driver": ((), ("dev/neuron[0-9]*",)),
    "neuron_driver": ((), ("dev/neuron[0-9]*",)),
    "apex": ((), ("dev/apex_*",)),
    "tenstorrent": ((), ("dev/tenstorrent/*",)),
    "hailo": ((), ("dev/hailo[0-9]*",)),
    "hailo_pci": ((), ("dev/hailo[0-9]*",)),
    "hailo1x_pci": ((), ("dev/hailo[0-9]*",)),
    "xocl": ((), ("dev/dri/renderD*", "dev/xfpga/*")),
    "xclmgmt": ((), ("dev/xclmgmt*",)),
    "dfl-pci": ((), ("dev/dfl-fme.*", "dev/dfl-port.*")),
    "intel-fpga-pci": ((), ("dev/intel-fpga-fme.*", "dev/intel-fpga-port.*")),
    "vfio-pci": (("dev/vfio/vfio",), ()),
    "devdrv_device_driver": ((), ("dev/davinci[0-9]*",)),
    "dxgkrnl": ((), ("dev/dxg",)),
    "RKNPU": ((), ("dev/rknpu", "dev/dri/renderD*")),
    "rknpu": ((), ("dev/rknpu", "dev/dri/renderD*")),
    "gk20a": ((), ("dev/nvhost-ctrl-gpu", "dev/nvhost-gpu", "dev/nvgpu/igpu0/ctrl")),
    "nvgpu": ((), ("dev/nvhost-ctrl-gpu", "dev/nvhost-gpu", "dev/nvgpu/igpu0/ctrl")),
}


_COMPANIONS = {"nvidia": "dev/nvidiactl", "amdgpu": "dev/kfd"}
# Companions without which the device cannot compute: ROCm and every HSA runtime open
# /dev/kfd, which amdgpu creates at load only when the kernel has HSA support
# (CONFIG_HSA_AMD), and a container sees only when it is passed in. (/dev/nvidiactl, by
# contrast, is made on first use by the setuid nvidia-modprobe, so its absence is a note.)
_REQUIRED_COMPANIONS = {"/dev/kfd"}
# Drivers whose compute device file is their own, not the DRM render node that a DRM
# helper (nvidia-drm) may create under the same PCI function: CUDA opens /dev/nvidiaN.
_OWN_COMPUTE_NODES = {"nvidia"}

# ---------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------

def _family(kind: str, vendor: str, device: str) -> str:
    if vendor == "10de":
        return "nvidia-gpu" if kind == "gpu" else "generic"
    if vendor == "1002":
        return "amd-gpu" if kind == "gpu" else "generic"
    if vendor == "1022":
        return "amd-npu" if kind == "npu" else "generic"
    if vendor == "8086":
        return {"gpu": "intel-gpu", "npu": "intel-npu", "fpga": "intel-fpga"}.get(kind, "generic")
    return {"10ee": "xilinx-fpga", "1c2c": "intel-fpga", "1172": "altera-fpga",
            "1ae0": "google-tpu", "1ac1": "coral-pcie", "1d0f": "aws-neuron", "1414": "wsl-gpu",
            "1da3": "habana", "1e52": "tenstorrent", "1e60": "hailo",
            "17cb": "qualcomm-ai100", "19e5": "huawei-ascend"}.get(vendor, "generic")


def classify_pci(vendor: str, device: str, cls: str) -> dict | None:
    """Is this PCI function an accelerator? -> {kind, vendor, family, ...} or None.

    ``vendor``/``device`` are 4-digit lower-case hex strings, ``cls`` the 6-digit class.
    """
    from accelgui.probes import ids

    tables = ids.curated()
    vendor, device, cls = vendor.lower(), device.lower(), (cls or "").lower()
    key = f"{vendor}:{device}"
    entry = tables.get("devices", {}).get(key)
    vinfo = tables.get("vendors", {}).get(vendor) or {}
    base, sub = cls[:2], cls[:4]
    kind = None
    if base == "03":
        no = tables.get("not_compute_display", frozenset())
        if key in no or vendor in no:
            return None
        if vendor in tables.get("gpu_vendors", frozenset()) or sub == "0302" or \
                (entry and entry.get("kind") == "gpu"):
            kind = "gpu"
        else:
            return None     # a display chip of a vendor that makes no compute GPUs (BMC, legacy)
    elif entry is not None:
        kind = entry.get("kind", "accelerator")
    elif vendor in tables.get("fpga_vendors", frozenset()) and \
            sub in ("1200", "1180", "0b40", "0880", "0580", "ff00", "1100"):
        kind = "fpga"
    elif vinfo.get("kind") and base not in ("01", "02", "06", "0c"):
        kind = vinfo["kind"]            # vendors that make nothing but accelerators
    elif base == "12":
        kind = accelerator_kind(vendor)
    elif sub == "0b40":
        # Intel's co-processors are QuickAssist and DLB (crypto, compression, queues);
        # Mellanox's are DPU management functions. Known accelerator ids matched above.
        if vendor in ("8086", "15b3"):
            return None
        kind = vinfo.get("kind") or "accelerator"
    else:
        return None     # 0x1180 signal processing and the rest: only known ids (matched above)
    if vendor in ("1d0f", "1ae0") and entry is None and base != "12":
        return None     # Amazon and Google NICs, NVMe and the like
    return {"kind": kind, "vendor": vinfo.get("id"), "family": _family(kind, vendor, device),
            "curated": entry}


# What a processing accelerator (class 0x12), or any function with a compute-accelerator
# node, is when its id is in no table: the vendor decides (AMD's are Instinct GPUs, Google's
# are TPUs), else "accelerator".
_ACCELERATOR_KIND_BY_VENDOR = {"1002": "gpu", "10ee": "fpga", "1172": "fpga", "1ae0": "tpu"}


def accelerator_kind(vendor: str) -> str:
    from accelgui.probes import ids

    vinfo = ids.curated().get("vendors", {}).get(vendor.lower()) or {}
    return _ACCELERATOR_KIND_BY_VENDOR.get(vendor.lower()) or vinfo.get("kind") or "accelerator"


# Drivers that only ever bind accelerators: (kind, family).
ACCEL_DRIVERS = {
    "nvidia": ("gpu", "nvidia-gpu"), "amdgpu": ("gpu", "amd-gpu"), "i915": ("gpu", "intel-gpu"),
    "xe": ("gpu", "intel-gpu"), "intel_vpu": ("npu", "intel-npu"), "amdxdna": ("npu", "amd-npu"),
    "habanalabs": ("accelerator", "habana"), "neuron": ("accelerator", "aws-neuron"),
    "neuron-driver": ("accelerator", "aws-neuron"), "neuron_driver": ("accelerator", "aws-neuron"),
    "apex": ("tpu", "coral-pcie"), "tenstorrent": ("accelerator", "tenstorrent"),
    "hailo": ("accelerator", "hailo"), "hailo_pci": ("accelerator", "hailo"),
    "hailo1x_pci": ("accelerator", "hailo"), "qaic": ("accelerator", "qualcomm-ai100"),
    "devdrv_device_driver": ("npu", "huawei-ascend"),
    "xocl": ("fpga", "xilinx-fpga"), "xclmgmt": ("fpga", "xilinx-fpga"),
    "dfl-pci": ("fpga", "intel-fpga"), "intel-fpga-pci": ("fpga", "intel-fpga"),
}


def classify_by_driver(vendor: str, device: str, driver: str | None) -> dict | None:
    """A function no id table knows, bound to a driver that only drives accelerators."""
    if driver not in ACCEL_DRIVERS:
        return None
    from accelgui.probes import ids

    kind, family = ACCEL_DRIVERS[driver]
    vinfo = ids.curated().get("vendors", {}).get(vendor) or {}
    return {"kind": kind, "vendor": vinfo.get("id"), "family": family, "curated": None}


def refine_by_driver(verdict: dict, driver: str | None) -> dict:
    """A generic class-0x12 device bound to a known accelerator driver gets that family."""
    if driver in ACCEL_DRIVERS:
        kind, family = ACCEL_DRIVERS[driver]
        return dict(verdict, kind=kind, family=family)
    return verdict


def is_integrated(rec: dict, tables: dict) -> bool:
    entry = rec.get("curated") or {}
    if entry.get("integrated"):
        return True
    if rec.get("kind") == "npu" and rec.get("vendor_id") in ("8086", "1022"):
        return True     # on-die NPUs
    if rec.get("kind") != "gpu":
        return False
    if entry.get("kind") == "gpu":
        return False    # the table marks every iGPU it knows; the rest are discrete cards
    addr = rec.get("address") or ""
    if rec.get("vendor_id") == "8086":
        # Intel's iGPU is always 00:02.0 (a discrete card passed through to a q35 VM can
        # land there too, which is why the table is asked first).
        return bool(re.match(r"^[0-9a-f]{4,}:00:02\.0$", addr))
    if rec.get("vendor_id") == "1002":
        if rec.get("device_id") in tables.get("amd_apu_gpu_ids", frozenset()):
            return True
        name = (rec.get("pci_ids_device") or "").lower()
        return any(code in name for code in tables.get("amd_apu_codenames", ()))
    return False


# ---------------------------------------------------------------------------------------
# Device nodes (called by probes, which hold the context)
# ---------------------------------------------------------------------------------------

def node_access(ctx, rel: str | None):
    """On the live system: can this user open the node read-write? None when not knowable."""
    if not rel or not ctx.live:
        return None
    path = ctx.p(rel)
    if not os.path.exists(path):
        return None
    return os.access(path, os.R_OK | os.W_OK)


def node_group(ctx, rel: str) -> str | None:
    if not ctx.live:
        return None
    try:
        import grp

        return grp.getgrgid(os.stat(ctx.p(rel)).st_gid).gr_name
    except (OSError, KeyError, ImportError):
        return None


def check_nodes(ctx, rec: dict) -> None:
    """Fill rec["nodes"]: which device files the bound driver should have made, and whether
    they exist (None when the tree holds no dev/) and, live, are accessible."""
    driver = rec.get("driver")
    exact = list(rec.get("sysfs_nodes") or ())
    required, any_of = _DRIVER_NODES.get(driver or "", ((), ()))
    any_of = list(any_of)
    if driver == "nvidia" and rec.get("nvidia_minor") is not None:
        any_of = [f"dev/nvidia{rec['nvidia_minor']}"]
    if driver == "vfio-pci" and rec.get("iommu_group"):
        any_of = [f"dev/vfio/{rec['iommu_group']}"]
    if exact and driver in _OWN_COMPUTE_NODES:
        exact = []
    if exact:
        # The driver's own class devices under the PCI function name its nodes exactly.
        any_of = [p for p in exact if not p.startswith("dev/dri/card")]
    elif driver is None:
        any_of = list(FAMILIES.get(rec.get("family") or "", {}).get("nodes_without_driver", ()))
    rec["nodes"] = evaluate_nodes(ctx, list(required), any_of)
    rec["nodes"]["exact"] = bool(exact) or (driver is None and bool(any_of))
    companion = _COMPANIONS.get(driver or "")
    if companion and rec["nodes"]["ok"] is not None:
        # /dev/kfd (ROCm) and /dev/nvidiactl (CUDA) serve all GPUs of the driver.
        rec["nodes"]["companion"] = {"/" + companion: ctx.exists(companion)}


def evaluate_nodes(ctx, required: list[str], any_of: list[str]) -> dict:
    """Check device files: all of ``required`` and at least one of ``any_of`` must exist."""
    out = {"expected": ["/" + p for p in required + any_of], "found": [], "ok": None,
           "access": None, "group": None, "denied": None}
    if not required and not any_of:
        return out
    if not ctx.is_dir("dev"):
        return out      # a recorded tree without dev/: cannot tell
    found_req = [p for p in required if ctx.exists(p)]
    found_any: list[str] = []
    for pattern in any_of:
        hits = ctx.glob(pattern) if any(c in pattern for c in "*?[") else \
            ([pattern] if ctx.exists(pattern) else [])
        found_any.extend(h for h in hits if h not in found_any)
    found = found_req + found_any
    out["found"] = ["/" + f for f in found]
    out["ok"] = len(found_req) == len(required) and (not any_of or bool(found_any))
    if out["ok"] and ctx.live:
        checks = {f: node_access(ctx, f) for f in found}
        known = [c for c in checks.values() if c is not None]
        out["access"] = all(known) if known else None
        denied = [f for f, c in checks.items() if c is False]
        if denied:
            out["group"] = node_group(ctx, denied[0])
            out["denied"] = "/" + denied[0]
    return out


# ---------------------------------------------------------------------------------------
# finalize
# ---------------------------------------------------------------------------------------

def _vendor_slug(name: str | None) -> str | None:
    """"Advanced Micro Devices, Inc. [AMD/ATI]" -> "amd"; "Groq" -> "groq"."""
    if not name:
        return None
    m = re.search(r"\[([^\]/]+)", name)
    word = _SLUG.sub(" ", (m.group(1) if m else name).lower()).split()
    return word[0] if word else None


def _cc_float(text) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _pci_device(rec: dict, tables: dict) -> dict:
    vid, did = rec["vendor_id"], rec["device_id"]
    vinfo = tables.get("vendors", {}).get(vid) or {}
    entry = rec.get("curated") or {}
    vendor = rec.get("vendor") or vinfo.get("id") or _vendor_slug(rec.get("pci_ids_vendor")) \
        or f"pci-{vid}"
    display = vinfo.get("name") or (rec.get("pci_ids_vendor") or "").split(" ")[0] or None
    from accelgui.probes.ids import pretty_name

    source = rec.get("name_from") or rec
    name = rec.get("display_name") or pretty_name(display, source.get("pci_ids_device"))
    if not name and (source.get("curated") or {}).get("name"):
        name = pretty_name(display, source["curated"]["name"])
    if not name:
        name = f"{display or 'PCI'} device {vid}:{did}"
    details = {
        "pci_class": f"0x{rec.get('class') or ''}",
        "subsystem_id": (f"{rec['subsystem_vendor_id']}:{rec['subsystem_device_id']}"
                         if rec.get("subsystem_vendor_id") and rec.get("subsystem_device_id")
                         else None),
        "revision": rec.get("revision"),
        "numa_node": rec.get("numa_node"),
        "pcie": rec.get("pcie"),
        "family": rec.get("family"),
    }
    for key in ("generation", "gfx_target"):
        if entry.get(key):
            details[key] = entry[key]
    if entry.get("compute_capability"):
        details["compute_capability_str"] = entry["compute_capability"]
        details["compute_capability"] = _cc_float(entry["compute_capability"])
        details["compute_capability_source"] = "table"
    if rec.get("vram_total_bytes"):
        details["memory_bytes"] = rec["vram_total_bytes"]
        details["memory_source"] = "amdgpu"
    elif entry.get("memory_bytes"):
        details["memory_bytes"] = entry["memory_bytes"]
        details["memory_source"] = "table"
    if rec.get("product_name"):
        details["product_name"] = rec["product_name"]
    if rec.get("pci_ids_device"):
        details["pci_ids_name"] = rec["pci_ids_device"]
    nodes = rec.get("nodes") or {}
    drm = [n for n in rec.get("sysfs_nodes") or () if n.startswith("dev/dri/")]
    if drm:
        details["render_node"] = "/" + drm[0]
    acc = [n for n in rec.get("sysfs_nodes") or () if n.startswith("dev/accel")]
    if acc:
        details["accel_node"] = "/" + acc[0]
    if rec.get("drm_card"):
        details["drm_card"] = rec["drm_card"]
    return {
        "kind": rec["kind"], "vendor": vendor, "name": name, "bus": "pci",
        "address": rec["address"], "pci_id": f"{vid}:{did}", "usb_id": None,
        "driver": rec.get("driver"), "integrated": is_integrated(rec, tables),
        "readiness": "unknown", "readiness_reason": None, "fix": None,
        "details": details,
        "_family": rec.get("family") or "generic", "_nodes": nodes,
        "_drivers": [rec.get("driver")],
    }


def _slot(addr: str) -> str:
    return addr.rsplit(".", 1)[0]


def _fold_functions(funcs: list[dict], tables: dict) -> list[tuple[dict, list[dict]]]:
    """One entry per physical card: drop virtual functions whose physical function is here,
    and merge the functions of one multi-function card (same slot, same vendor)."""
    vf_ids = tables.get("vf_ids", frozenset())

    def is_vf(f):
        return bool(f.get("is_vf")) or f"{f['vendor_id']}:{f['device_id']}" in vf_ids

    pf_kinds = {(f["vendor_id"], f.get("family")) for f in funcs if not is_vf(f)}
    vf_count: dict[tuple, int] = {}
    keep = []
    for f in funcs:
        kind = (f["vendor_id"], f.get("family"))
        if is_vf(f) and kind in pf_kinds:
            vf_count[kind] = vf_count.get(kind, 0) + 1
            continue
        keep.append(f)
    groups: dict[tuple, list[dict]] = {}
    for f in keep:
        groups.setdefault((_slot(f["address"]), f["vendor_id"], f.get("family")), []).append(f)
    out = []
    for (_s, vendor, family), members in groups.items():
        members.sort(key=lambda r: r["address"])
        primary = dict(members[0])
        if len(members) > 1:
            # The user-facing function names the card (Xilinx user PF over management PF).
            user = next((m for m in members if (m.get("curated") or {}).get("role") == "user"),
                        None)
            if user is not None:
                primary["name_from"] = user
            primary["functions"] = [{"address": m["address"],
                                     "pci_id": f"{m['vendor_id']}:{m['device_id']}",
                                     "driver": m.get("driver")} for m in members]
        count = vf_count.pop((vendor, family), 0)
        if count:
            primary["virtual_functions"] = count
        out.append((primary, members))
    return out


def _merge_nodes(a: dict, b: dict) -> dict:
    """Combine the node checks of two functions of one card: ok if either is ok."""
    if not a:
        return b or {}
    if not b:
        return a
    out = dict(a)
    out["expected"] = list(dict.fromkeys((a.get("expected") or []) + (b.get("expected") or [])))
    out["found"] = list(dict.fromkeys((a.get("found") or []) + (b.get("found") or [])))
    oks = [x.get("ok") for x in (a, b) if x.get("ok") is not None]
    out["ok"] = any(oks) if oks else None
    acc = [x.get("access") for x in (a, b) if x.get("access") is not None]
    out["access"] = all(acc) if acc else None
    out["group"] = a.get("group") or b.get("group")
    out["exact"] = bool(a.get("exact") or b.get("exact"))
    out["companion"] = {**(a.get("companion") or {}), **(b.get("companion") or {})}
    out["denied"] = a.get("denied") or b.get("denied")
    return out


def _attach_class_nodes(dev: dict, class_nodes: list[dict], addresses: set[str]) -> None:
    nodes = dev.get("_nodes") or {}
    mine = [n for n in class_nodes if n.get("parent") in addresses]
    if not mine:
        return
    for n in mine:
        name = n["name"]
        if name.startswith("card"):
            dev["details"].setdefault("drm_card", name)
        elif name.startswith("renderD"):
            dev["details"].setdefault("render_node", "/" + n["node"])
        elif name.startswith("accel"):
            dev["details"].setdefault("accel_node", "/" + n["node"])
    own = dev.get("driver") in _OWN_COMPUTE_NODES
    usable = [n for n in mine if not n["name"].startswith("card")
              and not (own and n["name"].startswith("renderD"))]
    existing = [n for n in usable if n.get("node_exists")]
    if existing:
        found = list(dict.fromkeys((nodes.get("found") or []) + ["/" + n["node"] for n in existing]))
        nodes = dict(nodes, found=found)
        nodes["ok"] = True
        denied = [n for n in existing if n.get("access") is False]
        if denied and nodes.get("access") is not False:
            nodes["access"] = False
            nodes["denied"] = "/" + denied[0]["node"]
        elif nodes.get("access") is None:
            acc = [n.get("access") for n in existing if n.get("access") is not None]
            nodes["access"] = all(acc) if acc else None
    dev["_nodes"] = nodes


def _merge_nvml(devices: list[dict], nvml: dict) -> None:
    by_addr = {d["address"]: d for d in devices if d["bus"] == "pci"}
    # Under WSL2, NVML reports the host's PCI addresses; the guest sees one dxgkrnl function
    # per host GPU at an address of its own. Unmatched NVML GPUs fill those, in order.
    wsl = [d for d in devices if d.get("_family") in ("nvidia-wsl", "wsl-gpu")]
    for gpu in nvml.get("gpus") or ():
        addr = gpu.get("pci_address")
        dev = by_addr.get(addr)
        if dev is None and wsl:
            dev = wsl.pop(0)
            dev.update(vendor="nvidia", _family="nvidia-wsl")
            dev["details"].update(family="nvidia-wsl", host_pci_address=addr)
        if dev is None:
            pci_id = gpu.get("pci_id")
            dev = {"kind": "gpu", "vendor": "nvidia", "name": gpu.get("name") or "NVIDIA GPU",
                   "bus": "pci", "address": addr, "pci_id": pci_id, "usb_id": None,
                   "driver": "nvidia", "integrated": False, "readiness": "unknown",
                   "readiness_reason": None, "fix": None, "details": {"family": "nvidia-gpu"},
                   "_family": "nvidia-gpu", "_nodes": {}, "_drivers": ["nvidia"]}
            devices.append(dev)
            if addr:
                by_addr[addr] = dev
        if gpu.get("name"):
            dev["name"] = gpu["name"]
        details = dev["details"]
        for key, value in gpu.items():
            if key in ("pci_address", "pci_id", "name") or value is None:
                continue
            details[key] = value
        if gpu.get("compute_capability") is not None:
            details["compute_capability_source"] = nvml.get("source") or "nvml"
        if gpu.get("memory_bytes") is not None:
            details["memory_source"] = nvml.get("source") or "nvml"
        if nvml.get("ok") and nvml.get("source") == "nvml":
            dev["_nvml"] = True


def _merge_kfd(devices: list[dict], kfd: list[dict]) -> None:
    by_addr = {d["address"]: d for d in devices if d["bus"] == "pci"}
    grouped: dict[str, list[dict]] = {}
    for node in kfd or ():
        if node.get("pci_address"):
            grouped.setdefault(node["pci_address"], []).append(node)
    for addr, nodes in grouped.items():
        dev = by_addr.get(addr)
        if dev is None:
            continue
        first = nodes[0]
        details = dev["details"]
        for key in ("gfx_target", "gfx_target_version", "simd_count", "array_count",
                    "compute_units", "max_engine_clk_mhz", "wave_front_size", "num_xcc",
                    "local_mem_bytes"):
            if first.get(key) is not None:
                if key == "compute_units":
                    details[key] = sum(n.get(key) or 0 for n in nodes) or None
                elif key == "simd_count":
                    details[key] = sum(n.get(key) or 0 for n in nodes) or None
                else:
                    details[key] = first[key]
        details["kfd_nodes"] = len(nodes)
        if not details.get("memory_bytes") and first.get("local_mem_bytes"):
            details["memory_bytes"] = first["local_mem_bytes"]
            details["memory_source"] = "kfd"


def _runtime(family: str, software: dict, meta: dict, dev: dict) -> tuple[bool | None, str | None]:
    spec = FAMILIES.get(family, {}).get("runtime")
    if not spec:
        return None, None
    toolkits = software.get("toolkits") or {}
    packages = software.get("packages") or {}
    for name in spec.get("toolkits", ()):
        if name in toolkits:
            return True, f"toolkit {name}"
    for name in spec.get("packages", ()):
        if name in packages:
            return True, f"package {name}"
    if spec.get("nvml") and dev.get("_nvml"):
        return True, "NVML"
    if meta.get("live") or meta.get("libs_recorded"):
        return False, None
    return None, None


def _assess(dev: dict, software: dict, meta: dict) -> None:
    family = dev.pop("_family", "generic")
    nodes = dev.pop("_nodes", {}) or {}
    drivers = [d for d in dev.pop("_drivers", []) if d]
    dev.pop("_nvml", None)
    inferred = dev.pop("_driver_inferred", None)
    spec = FAMILIES.get(family) or FAMILIES["generic"]
    checks = {"driver": None, "device_node": None, "access": None, "runtime": None}
    details = dev["details"]
    details["readiness_checks"] = checks

    def verdict(state, reason, fix):
        dev["readiness"], dev["readiness_reason"], dev["fix"] = state, reason, fix

    # 1. driver bound
    expected = spec.get("drivers")
    if expected is not None and not drivers and nodes.get("ok") and nodes.get("exact"):
        # No driver link in the tree, but device files only a bound driver creates exist.
        checks["driver"] = "ok (inferred from its device files)"
    elif expected is not None and not drivers and inferred:
        checks["driver"] = f"ok (inferred from {inferred})"
    elif expected is not None:
        if not drivers:
            checks["driver"] = "missing"
            verdict("driver-missing", "No kernel driver is bound to this device.",
                    spec.get("fix_driver") or FAMILIES["generic"]["fix_driver"])
            return
        wrong = [d for d in drivers if d in (spec.get("wrong_drivers") or {})]
        if wrong and not any(d in expected for d in drivers):
            checks["driver"] = "wrong"
            verdict("driver-missing",
                    f"The device is bound to {wrong[0]}, but {spec['wrong_drivers'][wrong[0]]}.",
                    spec.get("fix_driver"))
            return
        checks["driver"] = "ok"
    # 2. device node
    container = meta.get("container")
    if nodes.get("ok") is False:
        checks["device_node"] = "missing"
        expected_nodes = ", ".join(p.replace("[0-9]*", "N") for p in nodes.get("expected") or ()) \
            or "its device file"
        if container:
            _not_passed_in(dev, spec, checks, container, expected_nodes)
            return
        verdict("driver-missing",
                f"The {drivers[0] if drivers else 'kernel'} driver is bound but the device "
                f"file ({expected_nodes}) is missing.",
                spec.get("fix_node") or "Reload the driver and check `dmesg` for errors.")
        return
    checks["device_node"] = "ok" if nodes.get("ok") else "not checked"
    if nodes.get("found"):
        details["device_nodes"] = nodes["found"]
    for node, present in (nodes.get("companion") or {}).items():
        if present:
            details["device_nodes"] = [node] + list(details.get("device_nodes") or [])
        else:
            details.setdefault("missing_nodes", []).append(node)
    required = [n for n in details.get("missing_nodes") or () if n in _REQUIRED_COMPANIONS]
    if required:
        checks["device_node"] = "missing"
        if container:
            _not_passed_in(dev, spec, checks, container, required[0])
            return
        verdict("driver-missing",
                f"The {drivers[0] if drivers else 'kernel'} driver is bound but {required[0]} is "
                "missing, so no compute runtime can use the device.",
                spec.get("fix_node") or "Reload the driver and check `dmesg` for errors.")
        return
    # 3. access (live only)
    if nodes.get("access") is False:
        checks["access"] = "denied"
        group = nodes.get("group") or spec.get("group") or "render"
        node = nodes.get("denied") or "the device file"
        verdict("no-access", f"You cannot open {node} (it belongs to group {group}).",
                f"Add your user to the {group} group (`sudo usermod -aG {group} $USER`), then "
                "log out and back in.")
        return
    checks["access"] = "ok" if nodes.get("access") else "not checked"
    # 4. runtime
    ok, evidence = _runtime(family, software, meta, dev)
    if details.get("firmware_loaded") is False and not ok:
        checks["runtime"] = "missing"
        verdict("runtime-missing",
                "The device has not received its firmware yet, and "
                f"{spec.get('runtime_name') or 'the runtime'}, which loads it, was not found.",
                spec.get("fix_runtime"))
        return
    if ok is False:
        checks["runtime"] = "missing"
        verdict("runtime-missing", "The software that drives this device is missing: "
                f"{spec.get('runtime_name') or 'its runtime'} was not found.",
                spec.get("fix_runtime"))
        return
    checks["runtime"] = evidence or "not checked"
    if family == "generic" and not spec.get("runtime"):
        verdict("unknown", "accelgui does not know which software drives this device.",
                "See the device vendor's documentation for its runtime.")
        return
    verdict("ready", None, None)


def _not_passed_in(dev: dict, spec: dict, checks: dict, container: str, nodes: str) -> None:
    """Inside a container a missing device file means it was not passed in, not that the
    host lacks a driver: the device is there, this environment cannot reach it."""
    checks["access"] = "not passed into the container"
    dev["readiness"] = "no-access"
    dev["readiness_reason"] = (f"This {container} container was not given {nodes}: the device "
                               "is on the host but not passed in.")
    dev["fix"] = spec.get("fix_container") or (
        f"Pass the device into the container (`docker run --device {nodes.split(',')[0]} ...`, "
        "or the device plugin's resource in Kubernetes).")


def _soc_device(rec: dict) -> dict:
    dev = {k: rec.get(k) for k in ("kind", "vendor", "name", "address", "driver")}
    dev.update(bus="platform", pci_id=None, usb_id=None, integrated=True,
               readiness="unknown", readiness_reason=None, fix=None,
               details=dict(rec.get("details") or {}))
    dev["details"]["family"] = rec.get("family")
    dev["_family"] = rec.get("family") or "generic"
    dev["_nodes"] = rec.get("nodes") or {}
    dev["_drivers"] = [rec.get("driver")] if rec.get("driver") else []
    if not rec.get("driver") and dev["details"].get("devfreq"):
        dev["_driver_inferred"] = "its devfreq entry, which only a loaded driver registers"
    return dev


def _usb_device(rec: dict, tables: dict) -> dict:
    key = f"{rec['vendor_id']}:{rec['product_id']}"
    entry = tables.get("usb_devices", {}).get(key) or {}
    vinfo = tables.get("usb_vendors", {}).get(rec["vendor_id"]) or {}
    name = rec.get("usb_ids_product") or entry.get("name")
    family = "coral-usb" if entry.get("vendor") == "google" else "movidius-usb"
    details = {"family": family, "product": rec.get("product"),
               "manufacturer": rec.get("manufacturer"), "speed_mbps": rec.get("speed_mbps"),
               "firmware_loaded": entry.get("firmware_loaded"), "serial": rec.get("serial")}
    if rec.get("node"):
        details["usb_node"] = "/" + rec["node"]
    nodes = {}
    if rec.get("node"):
        nodes = {"expected": ["/" + rec["node"]],
                 "found": ["/" + rec["node"]] if rec.get("node_exists") else [],
                 "ok": None, "access": rec.get("access"),
                 "group": None, "denied": "/" + rec["node"] if rec.get("access") is False else None}
    return {"kind": entry.get("kind", "accelerator"), "vendor": entry.get("vendor") or vinfo.get("id"),
            "name": f"{vinfo.get('name', '')} {name}".strip() if name else f"USB device {key}",
            "bus": "usb", "address": rec["address"], "pci_id": None, "usb_id": key,
            "driver": rec.get("driver") if rec.get("driver") not in ("usb", None) else None,
            "integrated": False, "readiness": "unknown", "readiness_reason": None, "fix": None,
            "details": details, "_family": family, "_nodes": nodes, "_drivers": []}


def _accel_platform_device(node: dict) -> dict:
    driver = node.get("driver")
    vendor, family, kind = None, "generic", "npu"
    if driver in ("rocket", "RKNPU", "rknpu"):
        vendor, family = "rockchip", "rockchip-npu"
    elif driver in ("ethosu", "ethos-u"):
        vendor, family = "arm", "arm-npu"
    name = {"rockchip-npu": "Rockchip NPU", "arm-npu": "Arm Ethos-U NPU"}.get(
        family, f"Accelerator {node.get('parent')}")
    nodes = {"expected": ["/" + node["node"]],
             "found": ["/" + node["node"]] if node.get("node_exists") else [],
             "ok": True if node.get("node_exists") else None, "access": node.get("access"),
             "group": None, "denied": "/" + node["node"] if node.get("access") is False else None}
    return {"kind": kind, "vendor": vendor, "name": name, "bus": "platform",
            "address": node.get("parent"), "pci_id": None, "usb_id": None, "driver": driver,
            "integrated": True, "readiness": "unknown", "readiness_reason": None, "fix": None,
            "details": {"family": family, "accel_node": "/" + node["node"]},
            "_family": family, "_nodes": nodes, "_drivers": [driver] if driver else []}


_BUS_ORDER = {"pci": 0, "platform": 1, "usb": 2}


def build_devices(priv: dict, software: dict) -> list[dict]:
    from accelgui.probes import ids

    tables = ids.curated()
    meta = dict(priv.get("software_meta") or {})
    meta.setdefault("live", bool((priv.get("pci_meta") or {}).get("live")))
    meta.setdefault("container", priv.get("container"))
    devices: list[dict] = []
    class_nodes = list(priv.get("accel_nodes") or ()) + list(priv.get("drm_nodes") or ())
    for primary, members in _fold_functions(list(priv.get("pci_functions") or ()), tables):
        dev = _pci_device(primary, tables)
        nodes = {}
        for m in members:
            nodes = _merge_nodes(nodes, m.get("nodes") or {})
        dev["_nodes"] = nodes
        dev["_drivers"] = [m.get("driver") for m in members]
        if len(members) > 1:
            dev["details"]["functions"] = primary.get("functions")
            dev["details"]["drivers"] = [m.get("driver") for m in members]
        if primary.get("virtual_functions"):
            dev["details"]["virtual_functions"] = primary["virtual_functions"]
        _attach_class_nodes(dev, class_nodes, {m["address"] for m in members})
        devices.append(dev)
    _merge_nvml(devices, priv.get("nvml") or {})
    _merge_kfd(devices, priv.get("kfd") or [])
    seen_platform = set()
    for rec in priv.get("soc_devices") or ():
        dev = _soc_device(rec)
        _attach_class_nodes(dev, class_nodes, set(rec.get("platform_nodes") or ()) | {rec.get("address")})
        devices.append(dev)
        seen_platform.update(rec.get("platform_nodes") or ())
        seen_platform.add(rec.get("address"))
    for node in priv.get("accel_nodes") or ():
        if node.get("parent_bus") == "platform" and node.get("parent") not in seen_platform:
            devices.append(_accel_platform_device(node))
            seen_platform.add(node.get("parent"))
    for rec in priv.get("usb_devices") or ():
        devices.append(_usb_device(rec, tables))
    for dev in devices:
        _assess(dev, software, meta)
    devices.sort(key=lambda d: (_BUS_ORDER.get(d["bus"], 9), d.get("address") or ""))
    return devices


def finalize(sections: dict) -> dict:
    priv = sections.pop("_private", None) or {}
    software = sections.setdefault("software", {})
    toolkits = software.setdefault("toolkits", {})
    software.setdefault("packages", {})
    software.setdefault("providers", [])
    nvml = priv.get("nvml") or {}
    for key in ("nvidia_driver", "cuda_driver"):
        if nvml.get(key) and not toolkits.get(key):
            toolkits[key] = nvml[key]
    priv.setdefault("container", (sections.get("platform") or {}).get("container"))
    ours = build_devices(priv, software)
    theirs = [d for d in sections.get("devices") or ()
              if not any(o["bus"] == d.get("bus") and o["address"] == d.get("address")
                         for o in ours)]
    sections["devices"] = ours + theirs
    return sections
