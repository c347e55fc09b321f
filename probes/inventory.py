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

# The same texts in Simplified Chinese, key for key (tests check that none is missing). A
# device's ``readiness_reason_zh`` / ``fix_zh`` are built from these and from _SENTENCES, with
# the same parameters as the English ones.
FAMILIES_ZH: dict[str, dict] = {
    "nvidia-gpu": {
        "wrong_drivers": {"nouveau": "nouveau 驱动无法运行 CUDA",
                          "vfio-pci": "它被预留给虚拟机（vfio-pci）",
                          "pci-stub": "它被 pci-stub 占用"},
        "fix_driver": "安装 NVIDIA 驱动（例如发行版的 nvidia-driver 或 nvidia-open 软件包，"
                      "或 CUDA 软件源中的 cuda-drivers），然后重启。",
        "fix_node": "nvidia 模块已加载，但其设备文件不存在：运行 "
                    "`sudo nvidia-modprobe -u -c=0` 或重启。",
        "fix_container": "通过 NVIDIA Container Toolkit 把这块 GPU 交给容器"
                         "（`docker run --gpus all ...` 或 `--gpus '\"device=N\"'`；"
                         "在 Kubernetes 中申请 nvidia.com/gpu）。",
        "runtime_name": "CUDA 驱动库（libcuda.so.1）",
        "fix_runtime": "安装 NVIDIA 用户态驱动库（libcuda.so.1 和 libnvidia-ml.so.1 随驱动软件包"
                       "提供，例如 libnvidia-compute）。",
    },
    "wsl-gpu": {
        "fix_driver": "更新 WSL（在 Windows 中运行 `wsl --update`），使其内核带有 dxgkrnl 驱动，"
                      "并在 Windows 中（而不是在 Linux 中）安装 GPU 驱动。",
        "fix_node": "dxgkrnl 已绑定，但 /dev/dxg 不存在：更新 WSL（`wsl --update`）并重启它"
                    "（`wsl --shutdown`）。",
    },
    "nvidia-wsl": {
        "fix_driver": "更新 WSL（在 Windows 中运行 `wsl --update`），使其内核带有 dxgkrnl 驱动，"
                      "并在 Windows 中安装 NVIDIA 驱动（切勿在 WSL 内安装 Linux 版 NVIDIA 驱动）。",
        "fix_node": "dxgkrnl 已绑定，但 /dev/dxg 不存在：更新 WSL（`wsl --update`）并重启它"
                    "（`wsl --shutdown`）。",
        "runtime_name": "Windows NVIDIA 驱动放在 /usr/lib/wsl/lib 中的 CUDA 驱动库",
        "fix_runtime": "在 Windows 中安装或更新 NVIDIA 驱动，它会提供 "
                       "/usr/lib/wsl/lib/libcuda.so.1。不要在 WSL 内安装 Linux 版 NVIDIA 驱动。",
    },
    "jetson-gpu": {
        "fix_driver": "刷写或更新 NVIDIA JetPack（L4T），其中带有集成 GPU 的 nvgpu 驱动。",
        "fix_node": "GPU 驱动已绑定，但 /dev/nvhost-* 设备节点不存在：请重启，或重新刷写 JetPack。",
        "runtime_name": "Jetson 版 CUDA",
        "fix_runtime": "安装 JetPack 的 CUDA 组件：`sudo apt install nvidia-jetpack`。",
    },
    "amd-gpu": {
        "wrong_drivers": {"radeon": "旧的 radeon 驱动无法运行 ROCm",
                          "vfio-pci": "它被预留给虚拟机（vfio-pci）"},
        "fix_driver": "加载 amdgpu 驱动：使用带 amdgpu 固件（linux-firmware）的较新内核，"
                      "或安装 AMD 的 amdgpu-dkms。",
        "fix_node": "amdgpu 已绑定，但 /dev/kfd 或渲染节点不存在：内核可能缺少 HSA 支持"
                    "（CONFIG_HSA_AMD）；请使用发行版内核或 amdgpu-dkms。在容器中，需把两者都传入"
                    "（`--device /dev/kfd --device /dev/dri`）。",
        "fix_container": "把 GPU 传入容器：`docker run --device /dev/kfd --device /dev/dri ...`"
                         "（在 Kubernetes 中申请 amd.com/gpu）。",
        "runtime_name": "ROCm",
        "fix_runtime": "安装 ROCm（https://rocm.docs.amd.com），并确认这块 GPU 的 gfx 目标在其"
                       "支持列表中。",
    },
    "intel-gpu": {
        "wrong_drivers": {"vfio-pci": "它被预留给虚拟机（vfio-pci）"},
        "fix_driver": "使用带 i915 或 xe 驱动的内核（Arc 需要 Linux 6.2 或更新版本），"
                      "以及 linux-firmware 中的 i915/xe 固件。",
        "fix_node": "GPU 驱动已绑定，但 /dev/dri/renderD* 不存在：用 `dmesg` 检查固件错误。",
        "runtime_name": "Intel GPU 计算运行时（Level Zero / OpenCL）",
        "fix_runtime": "安装 Intel 计算运行时（intel-opencl-icd 和 libze-intel-gpu1 / level-zero），"
                       "以便通过 OpenCL、SYCL、OpenVINO 或 PyTorch XPU 使用这块 GPU。",
    },
    "intel-npu": {
        "fix_driver": "使用其 intel_vpu 驱动（CONFIG_DRM_ACCEL_IVPU）支持这款 NPU 的内核"
                      "（Linux 6.3 起支持 Meteor Lake；Arrow Lake、Lunar Lake 和 Panther Lake "
                      "需要更新的版本），并安装 NPU 固件（linux-firmware 或 intel/linux-npu-driver）。",
        "fix_node": "intel_vpu 已绑定，但 /dev/accel/accel* 不存在：NPU 固件很可能加载失败"
                    "（查看 `dmesg | grep vpu`）；请安装 intel/linux-npu-driver 提供的固件。",
        "runtime_name": "Intel NPU 用户态驱动和 OpenVINO",
        "fix_runtime": "安装 intel/linux-npu-driver（Level Zero NPU 驱动）和 OpenVINO"
                       "（`pip install openvino`），然后使用设备 \"NPU\"。",
    },
    "amd-npu": {
        "fix_driver": "使用 Linux 6.14 或更新版本（amdxdna 驱动），或自行编译 amd/xdna-driver，"
                      "并安装 NPU 固件（linux-firmware 中的 amdnpu/）。",
        "fix_node": "amdxdna 已绑定，但 /dev/accel/accel* 不存在：用 `dmesg` 检查 NPU 固件错误。",
        "runtime_name": "带 amdxdna 插件的 XRT",
        "fix_runtime": "安装带 amdxdna 插件的 XRT（amd/xdna-driver）和 AMD Ryzen AI Software"
                       "（ONNX Runtime Vitis AI 执行提供程序）。",
    },
    "xilinx-fpga": {
        "fix_driver": "安装 Xilinx Runtime（XRT，提供 xocl 和 xclmgmt 驱动）以及该卡的部署平台。",
        "fix_node": "XRT 驱动已绑定，但其设备文件不存在：重新加载 xocl/xclmgmt 或重启。",
        "runtime_name": "XRT",
        "fix_runtime": "安装 AMD/Xilinx 的 Xilinx Runtime（XRT），并执行 "
                       "`source /opt/xilinx/xrt/setup.sh`。",
    },
    "intel-fpga": {
        "wrong_drivers": {"vfio-pci": "它已交给虚拟机或 DPDK 使用（vfio-pci）"},
        "fix_driver": "加载 dfl-pci 驱动（CONFIG_FPGA_DFL_PCI，Linux 5.x 或更新版本），"
                      "或安装 OPAE 的 intel-fpga 驱动软件包。",
        "fix_node": "dfl-pci 已绑定，但 /dev/dfl-fme.* 和 /dev/dfl-port.* 不存在：加载 dfl-fme "
                    "和 dfl-afu 模块。",
        "runtime_name": "OPAE",
        "fix_runtime": "安装 OPAE SDK（opae-sdk），以获得 fpgainfo、fpgaconf 和 AFU 库。",
    },
    "altera-fpga": {
        "fix_driver": "安装板卡厂商的 FPGA 驱动（Intel/Altera 板卡：OPAE 和 dfl 驱动）。",
        "runtime_name": "OPAE",
        "fix_runtime": "安装 OPAE SDK（opae-sdk）。",
    },
    "google-tpu": {
        "fix_driver": "把 TPU 芯片绑定到其驱动：在 Cloud TPU 虚拟机上使用 TPU 虚拟机镜像"
                      "（v5e 及更新型号的芯片绑定到 vfio-pci）。",
        "fix_node": "TPU 驱动已绑定，但 /dev/vfio/* 或 /dev/accel* 不存在；请使用 Cloud TPU "
                    "虚拟机镜像。",
        "runtime_name": "libtpu",
        "fix_runtime": "安装 TPU 版 JAX（`pip install 'jax[tpu]'`，会带上 libtpu）或 PyTorch/XLA。",
    },
    "coral-pcie": {
        "fix_driver": "安装 gasket/apex 驱动（Coral apt 软件源中的 gasket-dkms），然后重启。",
        "fix_node": "apex 已绑定，但 /dev/apex_* 不存在：重新加载 apex 模块"
                    "（`sudo modprobe apex`）。",
        "runtime_name": "Edge TPU 运行时（libedgetpu）",
        "fix_runtime": "从 Coral apt 软件源安装 libedgetpu1-std，再安装 pycoral 或 tflite-runtime"
                       "（其 wheel 只支持到 Python 3.9）。",
    },
    "coral-usb": {
        "runtime_name": "Edge TPU 运行时（libedgetpu）",
        "fix_runtime": "从 Coral apt 软件源安装 libedgetpu1-std（首次使用时由它加载 Edge TPU 固件），"
                       "再安装 pycoral 或 tflite-runtime（其 wheel 只支持到 Python 3.9）。",
    },
    "movidius-usb": {
        "runtime_name": "带 MYRIAD 插件的 OpenVINO",
        "fix_runtime": "使用 OpenVINO 2022.3 LTS 或更早版本（神经计算棒所用的 MYRIAD 插件已在 "
                       "2023.0 中移除），并安装其 udev 规则。",
    },
    "aws-neuron": {
        "fix_driver": "安装 Neuron 驱动：`sudo apt install aws-neuronx-dkms`"
                      "（来自 AWS Neuron apt 软件源）。",
        "fix_node": "Neuron 驱动已绑定，但 /dev/neuron* 不存在：重新加载驱动"
                    "（`sudo modprobe -r neuron && sudo modprobe neuron`）。",
        "runtime_name": "Neuron 运行时和工具",
        "fix_runtime": "安装 aws-neuronx-runtime-lib 和 aws-neuronx-tools，并从 Neuron pip "
                       "软件源安装 torch-neuronx。",
    },
    "habana": {
        "fix_driver": "安装 Intel Gaudi 软件栈的驱动和固件（habanalabs-dkms、habanalabs-firmware）。",
        "fix_node": "habanalabs 已绑定，但 /dev/accel/accel*（或 /dev/hl*）不存在：用 `dmesg` "
                    "检查固件错误。",
        "runtime_name": "Intel Gaudi 软件（SynapseAI）",
        "fix_runtime": "安装 Intel Gaudi 软件（habanalabs-graph、hl-smi）和 Gaudi PyTorch 桥接"
                       "（habana-torch-plugin）。",
    },
    "tenstorrent": {
        "fix_driver": "安装 tt-kmd（tenstorrent 内核驱动，通过 DKMS），并用 tt-flash 更新固件。",
        "fix_node": "tenstorrent 已绑定，但 /dev/tenstorrent/* 不存在：重新加载该模块。",
        "runtime_name": "TT-Metalium / tt-smi",
        "fix_runtime": "安装 tt-smi 和 TT-Metalium / TT-NN（`pip install ttnn`）。",
    },
    "huawei-ascend": {
        "fix_driver": "安装昇腾 NPU 驱动和固件（华为技术支持网站上的 Ascend-hdk-*-npu-driver 和 "
                      "-npu-firmware run 安装包），然后重启。",
        "fix_node": "昇腾驱动已绑定，但 /dev/davinci* 不存在：用 `dmesg` 检查，并重新安装 NPU "
                    "驱动和固件。",
        "fix_container": "把 NPU 传入容器：`--device /dev/davinciN --device /dev/davinci_manager "
                         "--device /dev/devmm_svm --device /dev/hisi_hdc`（或使用 Ascend Docker "
                         "Runtime）。",
        "runtime_name": "CANN（昇腾工具包）",
        "fix_runtime": "安装 CANN 工具包（Ascend-cann-toolkit）；使用 PyTorch 时再安装 torch-npu。",
    },
    "hailo": {
        "fix_driver": "安装 HailoRT PCIe 驱动（hailort-pcie-driver 或 hailort-drivers）及其固件。",
        "fix_node": "hailo_pci 已绑定，但 /dev/hailo* 不存在：检查固件（`dmesg | grep hailo`）。",
        "runtime_name": "HailoRT",
        "fix_runtime": "安装 HailoRT（hailort 软件包和 hailort Python wheel）。",
    },
    "qualcomm-ai100": {
        "fix_driver": "使用 Linux 6.4 或更新版本（qaic 驱动），或安装 Qualcomm Cloud AI Platform SDK。",
        "fix_node": "qaic 已绑定，但 /dev/accel/accel* 不存在。",
        "runtime_name": "Qualcomm Cloud AI SDK",
        "fix_runtime": "安装 Qualcomm Cloud AI Platform SDK 和 Apps SDK（/opt/qti-aic）。",
    },
    "rockchip-npu": {
        "fix_driver": "使用带 RKNPU 驱动的瑞芯微厂商内核（或带 rocket 驱动的 Linux 6.18 及更新版本），"
                      "并在设备树中启用 NPU。",
        "fix_node": "NPU 驱动已绑定，但其设备文件不存在。",
        "runtime_name": "RKNN 运行时（librknnrt.so）",
        "fix_runtime": "从 airockchip/rknn-toolkit2 安装 librknnrt.so 和 rknn-toolkit-lite2。",
    },
    "arm-npu": {
        "fix_driver": "使用带 ethosu accel 驱动的内核，并在设备树中启用 NPU。",
    },
    "qualcomm-dsp": {},
    "generic": {
        "fix_driver": "安装设备厂商提供的内核驱动。",
    },
}

# The sentences _assess builds, (English, Chinese), formatted with the same parameters; a
# parameter given as an (English, Chinese) pair is taken in the sentence's language.
_SENTENCES: dict[str, tuple[str, str]] = {
    "no_driver": ("No kernel driver is bound to this device.",
                  "此设备没有绑定内核驱动。"),
    "wrong_driver": ("The device is bound to {driver}, but {why}.",
                     "此设备绑定的是 {driver}，但{why}。"),
    "node_missing": ("The {driver} driver is bound but the device file ({nodes}) is missing.",
                     "{driver}驱动已绑定，但设备文件（{nodes}）不存在。"),
    "companion_missing": ("The {driver} driver is bound but {node} is missing, so no compute "
                          "runtime can use the device.",
                          "{driver}驱动已绑定，但缺少 {node}，因此任何计算运行时都无法使用此设备。"),
    "fix_node": ("Reload the driver and check `dmesg` for errors.",
                 "重新加载驱动，并用 `dmesg` 查看错误信息。"),
    "no_access": ("You cannot open {node} (it belongs to group {group}).",
                  "当前用户无法打开 {node}（它属于 {group} 组）。"),
    "fix_access": ("Add your user to the {group} group (`sudo usermod -aG {group} $USER`), then "
                   "log out and back in.",
                   "把当前用户加入 {group} 组（`sudo usermod -aG {group} $USER`），然后注销并重新登录。"),
    "no_firmware": ("The device has not received its firmware yet, and {runtime}, which loads "
                    "it, was not found.",
                    "设备尚未加载固件，而负责加载固件的 {runtime} 也未找到。"),
    "no_runtime": ("The software that drives this device is missing: {runtime} was not found.",
                   "缺少驱动此设备的软件：未找到 {runtime}。"),
    "unknown": ("accelgui does not know which software drives this device.",
                "accelgui 不知道此设备由哪种软件驱动。"),
    "fix_unknown": ("See the device vendor's documentation for its runtime.",
                    "请查阅设备厂商的文档，了解它所需的运行时。"),
    "not_passed_in": ("This {container} container was not given {nodes}: the device is on the "
                      "host but not passed in.",
                      "此 {container} 容器没有获得 {nodes}：设备在宿主机上，但没有传入容器。"),
    "fix_container": ("Pass the device into the container (`docker run --device {node} ...`, or "
                      "the device plugin's resource in Kubernetes).",
                      "把设备传入容器（`docker run --device {node} ...`，或在 Kubernetes 中申请"
                      "设备插件提供的资源）。"),
}

# Fallback words inside those sentences.
_WORDS: dict[str, tuple[str, str]] = {
    "kernel": ("kernel", "内核"),
    "its_node": ("its device file", "其设备文件"),
    "the_node": ("the device file", "该设备文件"),
    "the_runtime": ("the runtime", "运行时"),
    "its_runtime": ("its runtime", "其运行时"),
}


# No blank next to full-width punctuation: "运行时（libedgetpu） 也" -> "运行时（libedgetpu）也".
_ZH_PUNCT_SPACE = re.compile(r" +(?=[，。：；、（）])|(?<=[，。：；、（）]) +")


def _say(key: str, **params) -> tuple[str, str]:
    """(English, Chinese) of sentence ``key``; a pair-valued parameter goes by language."""
    en, zh = _SENTENCES[key]
    en = en.format(**{k: v[0] if isinstance(v, tuple) else v for k, v in params.items()})
    if any(isinstance(v, tuple) and v[1] is None for v in params.values()):
        return en, None         # a part has no Chinese: better English than a mix
    zh = zh.format(**{k: v[1] if isinstance(v, tuple) else v for k, v in params.items()})
    return en, _ZH_PUNCT_SPACE.sub("", zh)


def _family_text(family: str, key: str, sub: str | None = None) -> tuple[str | None, str | None]:
    """(English, Chinese) of a FAMILIES text; Chinese None when the table lacks it."""
    en = (FAMILIES.get(family) or {}).get(key)
    zh = (FAMILIES_ZH.get(family) or {}).get(key)
    if sub is not None:
        en = (en or {}).get(sub)
        zh = (zh or {}).get(sub)
    return en, (zh if en is not None else None)


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
    texts = family if family in FAMILIES else "generic"     # whose texts to use
    spec = FAMILIES[texts]
    checks = {"driver": None, "device_node": None, "access": None, "runtime": None}
    details = dev["details"]
    details["readiness_checks"] = checks

    def verdict(state, reason, fix):
        """``reason`` and ``fix``: (English, Chinese) pairs (or None)."""
        reason, fix = reason or (None, None), fix or (None, None)
        dev["readiness"], dev["readiness_reason"], dev["fix"] = state, reason[0], fix[0]
        dev["readiness_reason_zh"], dev["fix_zh"] = reason[1], fix[1]

    def text(key, fallback=None):
        en, zh = _family_text(texts, key)
        if en is None and fallback is not None:
            return fallback
        return (en, zh) if en is not None else None

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
            verdict("driver-missing", _say("no_driver"),
                    text("fix_driver", _family_text("generic", "fix_driver")))
            return
        wrong = [d for d in drivers if d in (spec.get("wrong_drivers") or {})]
        if wrong and not any(d in expected for d in drivers):
            checks["driver"] = "wrong"
            verdict("driver-missing",
                    _say("wrong_driver", driver=wrong[0],
                         why=_family_text(texts, "wrong_drivers", wrong[0])),
                    text("fix_driver"))
            return
        checks["driver"] = "ok"
    # 2. device node
    container = meta.get("container")
    if nodes.get("ok") is False:
        checks["device_node"] = "missing"
        expected_nodes = ", ".join(p.replace("[0-9]*", "N") for p in nodes.get("expected") or ()) \
            or _WORDS["its_node"]
        if container:
            _not_passed_in(dev, texts, checks, container, expected_nodes)
            return
        verdict("driver-missing",
                _say("node_missing", driver=_driver_word(drivers), nodes=expected_nodes),
                text("fix_node", _say("fix_node")))
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
            _not_passed_in(dev, texts, checks, container, required[0])
            return
        verdict("driver-missing",
                _say("companion_missing", driver=_driver_word(drivers), node=required[0]),
                text("fix_node", _say("fix_node")))
        return
    # 3. access (live only)
    if nodes.get("access") is False:
        checks["access"] = "denied"
        group = nodes.get("group") or spec.get("group") or "render"
        node = nodes.get("denied") or _WORDS["the_node"]
        verdict("no-access", _say("no_access", node=node, group=group),
                _say("fix_access", group=group))
        return
    checks["access"] = "ok" if nodes.get("access") else "not checked"
    # 4. runtime
    ok, evidence = _runtime(family, software, meta, dev)
    if details.get("firmware_loaded") is False and not ok:
        checks["runtime"] = "missing"
        verdict("runtime-missing",
                _say("no_firmware", runtime=text("runtime_name", _WORDS["the_runtime"])),
                text("fix_runtime"))
        return
    if ok is False:
        checks["runtime"] = "missing"
        verdict("runtime-missing",
                _say("no_runtime", runtime=text("runtime_name", _WORDS["its_runtime"])),
                text("fix_runtime"))
        return
    checks["runtime"] = evidence or "not checked"
    if family == "generic" and not spec.get("runtime"):
        verdict("unknown", _say("unknown"), _say("fix_unknown"))
        return
    verdict("ready", None, None)


def _driver_word(drivers: list) -> tuple[str, str]:
    """The bound driver as named in a sentence: "The nvidia driver" / "nvidia 驱动"."""
    return (drivers[0], drivers[0] + " ") if drivers else _WORDS["kernel"]


def _not_passed_in(dev: dict, family: str, checks: dict, container: str, nodes) -> None:
    """Inside a container a missing device file means it was not passed in, not that the
    host lacks a driver: the device is there, this environment cannot reach it."""
    checks["access"] = "not passed into the container"
    dev["readiness"] = "no-access"
    reason = _say("not_passed_in", container=container, nodes=nodes)
    fix = _family_text(family, "fix_container")
    if fix[0] is None:
        first = nodes if isinstance(nodes, tuple) else nodes.split(",")[0]
        fix = _say("fix_container", node=first)
    dev["readiness_reason"], dev["readiness_reason_zh"] = reason
    dev["fix"], dev["fix_zh"] = fix


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
