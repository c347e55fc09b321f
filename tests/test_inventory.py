"""The accelerator inventory over recorded machine trees, one test per tree.

Each tree under tests/fixtures/machines/acc-* is laid out the way the kernel drivers lay
out sysfs and /dev (PCI ids from pci.ids and the drivers' id tables). The inventory must
find every accelerator with the right kind, vendor, bus, count and readiness, and nothing
else: no BMC display chip, no cloud NIC, no NVSwitch, no GPU audio function, no second
entry for one card.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui import l10n
from accelgui.probes import PROBES, families, inventory
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = Path(__file__).parent / "fixtures" / "machines"
MINE = {"pci", "usb", "accel", "soc", "nvidia", "amd", "software"}


def probe_tree(root) -> list:
    report = run_probes(ProbeContext(root=str(root)),
                        probes=[p for p in PROBES if p.name in MINE])
    errors = [p for p in report.probes if p.status in ("error", "timeout")]
    assert not errors, errors
    return report


def devices_of(name):
    return probe_tree(MACHINES / name).devices


def one_kind(devices, **expect):
    """All devices share these field values; returns them."""
    for dev in devices:
        for key, value in expect.items():
            assert getattr(dev, key) == value, (key, dev)
    return devices


# ---------------------------------------------------------------------------------------
# one test per tree
# ---------------------------------------------------------------------------------------

def test_dgx_h100_eight_gpus_and_no_nvswitch_or_bmc_display():
    devs = devices_of("acc-dgx-h100")
    assert len(devs) == 8
    one_kind(devs, kind="gpu", vendor="nvidia", bus="pci", pci_id="10de:2330",
             driver="nvidia", integrated=False, readiness="ready")
    assert len({d.address for d in devs}) == 8
    assert devs[0].name == "NVIDIA H100 80GB HBM3"          # the driver's own model name
    assert devs[0].details["compute_capability"] == 9.0
    assert devs[0].details["pcie"]["current_gen"] == 5
    assert devs[0].details["numa_node"] == 0 and devs[7].details["numa_node"] == 1
    assert "/dev/nvidia0" in devs[0].details["device_nodes"]
    assert not any(d.pci_id == "10de:22a3" for d in devs)    # NVSwitch is a bridge
    assert not any(d.vendor == "aspeed" for d in devs)


def test_gpu_without_driver_is_driver_missing_with_a_fix():
    devs = devices_of("acc-gpu-no-driver")
    assert len(devs) == 1                                     # the HDMI audio function is not a device
    dev = devs[0]
    assert (dev.kind, dev.vendor, dev.pci_id, dev.driver) == ("gpu", "nvidia", "10de:2684", None)
    assert dev.readiness == "driver-missing"
    assert "driver" in dev.readiness_reason.lower()
    assert "NVIDIA driver" in dev.fix
    assert "4090" in dev.name
    assert dev.details["compute_capability"] == 8.9


def test_mi300x_eight_gpus_with_gfx942_from_kfd():
    devs = devices_of("acc-amd-mi300x")
    assert len(devs) == 8
    one_kind(devs, kind="gpu", vendor="amd", bus="pci", pci_id="1002:74a1", driver="amdgpu",
             readiness="ready", integrated=False)
    first = devs[0]
    assert first.details["gfx_target"] == "gfx942"
    assert first.details["compute_units"] == 304
    assert first.details["memory_bytes"] == 206141652992
    assert "MI300X" in first.name
    assert "/dev/kfd" in first.details["device_nodes"]


def test_radeon_desktop_dgpu_and_igpu_without_rocm():
    devs = devices_of("acc-radeon-desktop")
    assert [d.pci_id for d in devs] == ["1002:744c", "1002:164e"]
    dgpu, igpu = devs
    assert not dgpu.integrated and igpu.integrated
    assert dgpu.details["gfx_target"] == "gfx1100"
    assert igpu.details["gfx_target"] == "gfx1036"
    one_kind(devs, kind="gpu", vendor="amd", readiness="runtime-missing")
    assert "ROCm" in dgpu.readiness_reason and "ROCm" in dgpu.fix
    # amdgpu's VRAM (the APU's carve-out) and the system memory it may map (GTT)
    assert (igpu.details["memory_bytes"], igpu.details["memory_source"]) == (536870912, "amdgpu")
    assert igpu.details["gtt_total_bytes"] == dgpu.details["gtt_total_bytes"] == 33579931648


def test_intel_npu_laptop_npu_and_igpu_but_not_the_thermal_controller():
    devs = devices_of("acc-intel-npu-laptop")
    by_kind = {d.kind: d for d in devs}
    assert len(devs) == 2 and set(by_kind) == {"npu", "gpu"}
    npu, gpu = by_kind["npu"], by_kind["gpu"]
    assert (npu.vendor, npu.pci_id, npu.driver, npu.address) == \
        ("intel", "8086:7d1d", "intel_vpu", "0000:00:0b.0")
    assert npu.integrated and npu.readiness == "ready"
    assert npu.details["accel_node"] == "/dev/accel/accel0"
    assert "Meteor Lake" in npu.name
    assert gpu.integrated and gpu.driver == "i915" and gpu.readiness == "ready"


def test_amd_xdna_laptop_npu_at_class_1180_and_apu_igpu():
    devs = devices_of("acc-amd-xdna-laptop")
    by_kind = {d.kind: d for d in devs}
    assert len(devs) == 2
    npu, gpu = by_kind["npu"], by_kind["gpu"]
    assert (npu.vendor, npu.pci_id, npu.driver) == ("amd", "1022:1502", "amdxdna")
    assert npu.readiness == "ready" and npu.integrated
    assert npu.details["pci_class"] == "0x118000"
    assert gpu.integrated and gpu.pci_id == "1002:15bf"
    assert gpu.readiness == "runtime-missing"                 # no ROCm on this laptop


def test_office_pc_has_only_its_igpu():
    devs = devices_of("acc-office-pc")
    assert len(devs) == 1                                     # GNA 8086:464f is not reported
    gpu = devs[0]
    assert (gpu.kind, gpu.vendor, gpu.address, gpu.integrated) == \
        ("gpu", "intel", "0000:00:02.0", True)
    assert gpu.readiness == "runtime-missing"
    assert "compute runtime" in gpu.fix


def test_server_with_only_an_aspeed_bmc_and_quickassist_has_no_devices():
    assert devices_of("acc-server-aspeed-only") == []


def test_cloud_vm_with_nics_nvme_and_ec2_display_has_no_devices():
    assert devices_of("acc-cloud-vm-nics") == []


def test_gcp_tpu_v5e_four_chips_not_the_gvnic():
    devs = devices_of("acc-gcp-tpu-v5e")
    assert len(devs) == 4
    one_kind(devs, kind="tpu", vendor="google", bus="pci", pci_id="1ae0:0063", driver="vfio-pci",
             readiness="ready")
    assert "v5e" in devs[0].name
    assert devs[0].details["device_nodes"] == ["/dev/vfio/vfio", "/dev/vfio/0"]


def test_coral_usb_on_raspberry_pi_is_ready():
    devs = devices_of("acc-coral-rpi")
    assert len(devs) == 1                                     # the Pi's V3D GPU is not reported
    dev = devs[0]
    assert (dev.kind, dev.vendor, dev.bus, dev.address, dev.usb_id) == \
        ("tpu", "google", "usb", "1-1", "18d1:9302")
    assert dev.readiness == "ready" and dev.pci_id is None


def test_coral_usb_before_firmware_needs_the_runtime():
    dev, = devices_of("acc-coral-usb-nofw")
    assert (dev.kind, dev.usb_id) == ("tpu", "1a6e:089a")
    assert dev.readiness == "runtime-missing"
    assert "firmware" in dev.readiness_reason and "libedgetpu" in dev.fix


def test_coral_pcie_apex():
    dev, = devices_of("acc-coral-pcie")
    assert (dev.kind, dev.vendor, dev.pci_id, dev.driver, dev.readiness) == \
        ("tpu", "google", "1ac1:089a", "apex", "ready")
    assert dev.details["device_nodes"] == ["/dev/apex_0"]


def test_xilinx_u250_two_functions_one_card():
    devs = devices_of("acc-xilinx-u250")
    assert len(devs) == 1                                     # mgmt + user function, one card
    card = devs[0]
    assert (card.kind, card.vendor, card.address) == ("fpga", "xilinx", "0000:af:00.0")
    assert card.readiness == "ready"
    assert "U250" in card.name
    assert [f["driver"] for f in card.details["functions"]] == ["xclmgmt", "xocl"]


def test_intel_fpga_dfl_functions_fold_into_one_card_and_vf_is_dropped():
    devs = devices_of("acc-intel-fpga")
    assert len(devs) == 1
    card = devs[0]
    assert (card.kind, card.vendor, card.pci_id, card.driver, card.readiness) == \
        ("fpga", "intel", "8086:bcce", "dfl-pci", "ready")
    assert len(card.details["functions"]) == 5
    assert card.details["virtual_functions"] == 1


def test_gaudi2_eight_accelerators():
    devs = devices_of("acc-gaudi2")
    assert len(devs) == 8
    one_kind(devs, kind="accelerator", vendor="habana", pci_id="1da3:1020", driver="habanalabs",
             readiness="ready")
    assert devs[0].details["accel_node"] == "/dev/accel/accel0"


def test_aws_inf2_six_neuron_devices_and_no_ena_or_nvme():
    devs = devices_of("acc-aws-inf2")
    assert len(devs) == 6
    one_kind(devs, kind="accelerator", vendor="aws", pci_id="1d0f:7264", readiness="ready")
    assert "Inferentia2" in devs[0].name


def test_aws_trainium_without_driver_names_the_neuron_package():
    dev, = devices_of("acc-aws-trn1-no-driver")
    assert (dev.kind, dev.vendor, dev.pci_id, dev.readiness) == \
        ("accelerator", "aws", "1d0f:7164", "driver-missing")
    assert "aws-neuronx-dkms" in dev.fix


def test_tenstorrent_two_wormhole_cards():
    devs = devices_of("acc-tenstorrent")
    assert len(devs) == 2
    one_kind(devs, kind="accelerator", vendor="tenstorrent", pci_id="1e52:401e",
             driver="tenstorrent", readiness="ready")
    assert devs[1].details["device_nodes"] == ["/dev/tenstorrent/1"]


def test_hailo8_on_a_second_pci_domain():
    dev, = devices_of("acc-hailo8")
    assert (dev.kind, dev.vendor, dev.address, dev.driver, dev.readiness) == \
        ("accelerator", "hailo", "0001:01:00.0", "hailo_pci", "ready")


def test_rockchip_rk3588_npu_is_one_platform_device():
    devs = devices_of("acc-rockchip-rk3588")
    assert len(devs) == 1                                     # the Mali GPU is not reported
    npu = devs[0]
    assert (npu.kind, npu.vendor, npu.bus, npu.address, npu.driver) == \
        ("npu", "rockchip", "platform", "fdab0000.npu", "RKNPU")
    assert npu.integrated and npu.readiness == "ready"
    assert npu.details["render_node"] == "/dev/dri/renderD129"
    assert npu.details["devfreq"] == "fdab0000.npu"


def test_jetson_orin_integrated_gpu():
    dev, = devices_of("acc-jetson-orin")
    assert (dev.kind, dev.vendor, dev.bus, dev.address, dev.driver) == \
        ("gpu", "nvidia", "platform", "17000000.gpu", "gk20a")
    assert dev.integrated and dev.readiness == "ready"
    assert dev.details["compute_capability"] == 8.7
    assert dev.details["dla_cores"] == 2
    assert dev.details["memory_bytes"] == 64335836 * 1024


def test_intel_arc_discrete_gpu_on_xe():
    dev, = devices_of("acc-intel-arc")
    assert (dev.kind, dev.vendor, dev.pci_id, dev.driver, dev.integrated, dev.readiness) == \
        ("gpu", "intel", "8086:56a0", "xe", False, "ready")
    assert "A770" in dev.name


def test_tpu_v4_vm_accel_class_with_dev_accelN_nodes_is_ready():
    # TPU v2-v4 drivers register an "accel" class whose nodes are /dev/accelN, not the
    # kernel accel subsystem's /dev/accel/accelN; reading the wrong path made them
    # "driver-missing".
    devs = devices_of("acc-tpu-v4-vm")
    assert len(devs) == 4
    one_kind(devs, kind="tpu", vendor="google", bus="pci", pci_id="1ae0:005e", driver=None,
             readiness="ready")
    assert devs[0].details["device_nodes"] == ["/dev/accel0"]
    assert devs[0].details["accel_node"] == "/dev/accel0"
    assert devs[0].details["readiness_checks"]["driver"].startswith("ok (inferred")


def test_nvidia_drm_render_node_does_not_stand_in_for_dev_nvidia():
    dev, = devices_of("acc-nvidia-drm-no-cuda-nodes")
    assert (dev.kind, dev.vendor, dev.pci_id, dev.driver) == ("gpu", "nvidia", "10de:2331", "nvidia")
    assert dev.readiness == "driver-missing"
    assert "/dev/nvidia0" in dev.readiness_reason and "nvidia-modprobe" in dev.fix
    assert dev.details["render_node"] == "/dev/dri/renderD128"     # still described


def test_wsl2_gpu_paravirtualization_is_the_nvidia_gpu():
    report = run_probes(ProbeContext(root=str(MACHINES / "acc-wsl2-nvidia")),
                        probes=[p for p in PROBES if p.name in MINE | {"platform"}])
    assert report.platform.virtualization == "wsl"
    dev, = report.devices
    assert (dev.kind, dev.vendor, dev.bus, dev.address, dev.pci_id, dev.driver) == \
        ("gpu", "nvidia", "pci", "7e8a:00:00.0", "1414:008e", "dxgkrnl")
    assert dev.readiness == "ready"
    assert dev.details["device_nodes"] == ["/dev/dxg"]


def test_wsl2_adapter_takes_the_nvml_gpu_instead_of_a_second_device():
    priv = {"pci_functions": [], "nvml": {"ok": True, "source": "nvml", "gpus": [
        {"pci_address": "0000:01:00.0", "name": "NVIDIA GeForce RTX 4090",
         "compute_capability": 8.9}]}}
    from accelgui.probes import pci

    priv.update({k: v for k, v in pci.probe(ProbeContext(root=str(MACHINES / "acc-wsl2-nvidia")))
                 .items() if not k.startswith("_")})
    devs = inventory.build_devices(priv, {"toolkits": {"cuda_driver_lib": None}})
    assert len(devs) == 1
    assert devs[0]["name"] == "NVIDIA GeForce RTX 4090" and devs[0]["address"] == "7e8a:00:00.0"
    assert devs[0]["details"]["host_pci_address"] == "0000:01:00.0"


def test_gpus_not_passed_into_a_container_are_no_access_with_a_container_fix():
    report = run_probes(ProbeContext(root=str(MACHINES / "acc-container-one-of-four")),
                        probes=[p for p in PROBES if p.name in MINE | {"platform"}])
    assert report.platform.container == "docker"
    devs = report.devices
    assert len(devs) == 4
    one_kind(devs, kind="gpu", vendor="nvidia", pci_id="10de:2335", driver="nvidia")
    assert devs[0].readiness == "ready"
    for dev in devs[1:]:
        assert dev.readiness == "no-access"
        assert "container" in dev.readiness_reason
        assert "--gpus" in dev.fix and "nvidia-modprobe" not in dev.fix


def test_azure_nd_h100_v5_gpus_on_vmbus_pci_domains():
    report = run_probes(ProbeContext(root=str(MACHINES / "acc-azure-nd-h100-v5")),
                        probes=[p for p in PROBES if p.name in MINE | {"platform"}])
    assert report.platform.cloud == {"provider": "azure", "instance_type": None}
    assert report.platform.virtualization == "hyperv"
    devs = report.devices
    assert [d.address for d in devs] == [f"{i:04x}:00:00.0" for i in range(1, 9)]
    one_kind(devs, kind="gpu", vendor="nvidia", bus="pci", pci_id="10de:2330", readiness="ready")
    assert devs[7].details["device_nodes"] == ["/dev/nvidiactl", "/dev/nvidia7"]


def test_qualcomm_cloud_ai_cards_of_unassigned_class_and_one_without_driver():
    devs = devices_of("acc-qualcomm-ai100")
    assert [(d.pci_id, d.readiness) for d in devs] == [
        ("17cb:a100", "ready"), ("17cb:a080", "driver-missing"), ("17cb:a100", "ready")]
    one_kind(devs, kind="accelerator", vendor="qualcomm", bus="pci")
    assert devs[0].details["accel_node"] == "/dev/accel/accel0"
    assert "qaic" in devs[1].fix


def test_no_device_is_counted_twice_in_any_tree():
    for tree in sorted(MACHINES.glob("acc-*")):
        devs = devices_of(tree.name)
        keys = [(d.bus, d.address) for d in devs]
        assert len(keys) == len(set(keys)), tree.name
        for d in devs:
            assert d.readiness in ("ready", "driver-missing", "runtime-missing", "no-access",
                                   "unknown")
            if d.readiness != "ready":
                assert d.readiness_reason and d.readiness_reason.endswith(".")
                assert d.fix


ARM_TREES = {"acc-coral-rpi", "acc-coral-usb-nofw", "acc-hailo8", "acc-rockchip-rk3588",
             "acc-jetson-orin"}
HYBRID = {"acc-gpu-no-driver", "acc-intel-npu-laptop", "acc-rockchip-rk3588"}


def test_every_tree_describes_its_host():
    """CPU, memory and kernel of each machine are known (the advisor's verdicts need them)."""
    for tree in sorted(MACHINES.glob("acc-*")):
        report = run_probes(ProbeContext(root=str(tree)),
                            probes=[p for p in PROBES if p.name in {"platform", "cpu", "memory"}])
        cpu, mem, plat = report.cpu, report.memory, report.platform
        arch = "aarch64" if tree.name in ARM_TREES else "x86_64"
        assert (cpu.arch, plat.machine, plat.os) == (arch, arch, "Linux"), tree.name
        assert cpu.model_name and cpu.microarchitecture and plat.kernel and plat.os_release, tree.name
        assert cpu.logical_cpus >= 4 and cpu.online_cpus == cpu.logical_cpus, tree.name
        assert cpu.sockets and cpu.numa_nodes == cpu.sockets, tree.name
        counted = cpu.sockets * cpu.cores_per_socket * cpu.threads_per_core
        if tree.name in HYBRID:         # cores of two kinds (SMT on some): counts need not multiply
            assert cpu.sockets * cpu.cores_per_socket <= cpu.logical_cpus <= counted, tree.name
        else:
            assert cpu.logical_cpus == counted, tree.name
        assert mem.total_bytes > 4 * 2**30 and 0 < mem.available_bytes <= mem.total_bytes, tree.name


# ---------------------------------------------------------------------------------------
# classification rules
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("vendor,device,cls,kind", [
    ("10de", "2330", "030200", "gpu"),
    ("10de", "22a3", "068000", None),           # NVSwitch
    ("10de", "22ba", "040300", None),           # GPU HDMI audio
    ("1a03", "2000", "030000", None),           # ASPEED BMC
    ("102b", "0536", "030000", None),           # Matrox G200eW3 (server)
    ("1234", "1111", "030000", None),           # QEMU standard VGA
    ("1af4", "1050", "030000", None),           # virtio-gpu
    ("15ad", "0405", "030000", None),           # VMware SVGA II
    ("1414", "5353", "030000", None),           # Hyper-V
    ("1414", "008e", "030200", "gpu"),          # WSL2 GPU paravirtualization (dxgkrnl)
    ("17cb", "a080", "ff0000", "accelerator"),  # Qualcomm Cloud AI 80, unassigned class
    ("17cb", "a110", "ff0000", "accelerator"),  # Qualcomm AIC200
    ("1ae0", "0099", "120000", "tpu"),          # a Google processing accelerator no table knows
    ("1ae0", "0099", "ff0000", None),           # ... but not any unknown Google function
    ("102b", "0538", "030000", None),           # Matrox G200eH3 (HPE iLO)
    ("1002", "740c", "038000", "gpu"),          # MI250X GCD, display-controller class
    ("19e5", "d802", "120000", "npu"),          # Huawei Ascend 910B
    ("19e5", "1711", "030000", None),           # Huawei iBMC display
    ("19e5", "a222", "020000", None),           # Huawei HNS3 NIC
    ("cabc", "0370", "120000", "accelerator"),  # Cambricon MLU370
    ("1d0f", "1111", "030000", None),           # EC2 display
    ("1d0f", "ec20", "020000", None),           # ENA
    ("1d0f", "8061", "010802", None),           # EBS NVMe
    ("1d0f", "7264", "088000", "accelerator"),  # Inferentia2
    ("1ae0", "0042", "020000", None),           # gVNIC
    ("1ae0", "001f", "010802", None),           # GCE NVMe
    ("1ae0", "006f", "ff0000", "tpu"),          # TPU v6e
    ("1ae0", "0076", "120000", "tpu"),          # TPU7x
    ("8086", "a131", "118000", None),           # thermal subsystem (signal processing)
    ("8086", "4940", "0b4000", None),           # QuickAssist (co-processor)
    ("8086", "464f", "088000", None),           # GNA
    ("8086", "643e", "120000", "npu"),          # Lunar Lake NPU
    ("1022", "17f0", "118000", "npu"),          # XDNA 2
    ("1022", "15e4", "118000", None),           # AMD sensor fusion hub
    ("1002", "74a1", "120000", "gpu"),          # MI300X as a processing accelerator
    ("1002", "738c", "038000", "gpu"),          # MI100
    ("10ee", "5005", "120000", "fpga"),
    ("10ee", "9038", "058000", "fpga"),         # unknown Xilinx id, memory-controller class
    ("1172", "e003", "120000", "fpga"),
    ("17cb", "a100", "120000", "accelerator"),  # Qualcomm Cloud AI 100
    ("abcd", "1234", "120000", "accelerator"),  # any other processing accelerator
    ("1e60", "45c4", "0b4000", "accelerator"),  # a Hailo id newer than the table
    ("1ac1", "089a", "000000", "tpu"),          # Coral before the class fix-up
    ("15b3", "a2dc", "0b4000", None),           # Mellanox BlueField management
])
def test_classify_pci(vendor, device, cls, kind):
    verdict = inventory.classify_pci(vendor, device, cls)
    assert (verdict or {}).get("kind") == kind


def test_unknown_id_bound_to_an_accelerator_driver_is_kept():
    assert inventory.classify_pci("1d0f", "7664", "088000") is None
    verdict = inventory.classify_by_driver("1d0f", "7664", "neuron")
    assert verdict["kind"] == "accelerator" and verdict["family"] == "aws-neuron"
    assert inventory.classify_by_driver("1234", "5678", "e1000e") is None


# ---------------------------------------------------------------------------------------
# trees written differently from ours
# ---------------------------------------------------------------------------------------

def _minimal_gpu_tree(tmp_path, *, driver_as="link", absolute=False):
    root = tmp_path / "tree"
    dev = root / "sys/devices/pci0000:00/0000:01:00.0"
    dev.mkdir(parents=True)
    (dev / "vendor").write_text("0x10de\n")
    (dev / "device").write_text("0x2204\n")
    (dev / "class").write_text("0x030000\n")
    (dev / "uevent").write_text("DRIVER=nvidia\nPCI_CLASS=30000\nPCI_ID=10DE:2204\n")
    if driver_as == "link":
        (dev / "driver").symlink_to("../../../bus/pci/drivers/nvidia")
    elif driver_as == "folder":         # a copy that dereferenced the link
        (dev / "driver").mkdir()
        (dev / "driver" / "bind").write_text("")
    links = root / "sys/bus/pci/devices"
    links.mkdir(parents=True)
    target = "/sys/devices/pci0000:00/0000:01:00.0" if absolute else \
        "../../../devices/pci0000:00/0000:01:00.0"
    (links / "0000:01:00.0").symlink_to(target)
    return root


def test_driver_read_from_uevent_when_the_link_was_dereferenced(tmp_path):
    dev, = probe_tree(_minimal_gpu_tree(tmp_path, driver_as="folder")).devices
    assert dev.driver == "nvidia" and dev.pci_id == "10de:2204"
    assert dev.readiness == "ready"          # no dev/ or libraries recorded: not checked


def test_absolute_links_in_a_recorded_tree_stay_inside_it(tmp_path):
    dev, = probe_tree(_minimal_gpu_tree(tmp_path, absolute=True)).devices
    assert dev.pci_id == "10de:2204" and dev.address == "0000:01:00.0"


def test_nvidia_driver_known_from_procfs_when_the_tree_has_no_driver_link(tmp_path):
    root = _minimal_gpu_tree(tmp_path, driver_as="none")
    (root / "sys/devices/pci0000:00/0000:01:00.0/uevent").write_text("PCI_ID=10DE:2204\n")
    info = root / "proc/driver/nvidia/gpus/0000:01:00.0/information"
    info.parent.mkdir(parents=True)
    info.write_text("Model: \t\t NVIDIA GeForce RTX 3090\nDevice Minor: \t 0\n")
    (root / "dev").mkdir()
    for n in ("nvidia0", "nvidiactl"):
        (root / "dev" / n).write_text("")
    dev, = probe_tree(root).devices
    assert (dev.driver, dev.readiness) == ("nvidia", "ready")


def test_bound_driver_without_its_device_file_is_reported(tmp_path):
    root = _minimal_gpu_tree(tmp_path)
    (root / "dev").mkdir()
    (root / "dev/nvidiactl").write_text("")
    dev, = probe_tree(root).devices
    assert dev.readiness == "driver-missing"
    assert "/dev/nvidiaN" in dev.readiness_reason


def test_gpu_held_by_vfio_is_not_usable_here(tmp_path):
    root = _minimal_gpu_tree(tmp_path, driver_as="none")
    (root / "sys/devices/pci0000:00/0000:01:00.0/driver").symlink_to(
        "../../../bus/pci/drivers/vfio-pci")
    dev, = probe_tree(root).devices
    assert dev.readiness == "driver-missing" and "vfio-pci" in dev.readiness_reason


def test_tpu_with_device_files_but_no_driver_link(tmp_path):
    root = tmp_path / "tpu"
    for i in range(2):
        d = root / f"sys/bus/pci/devices/0000:00:0{4 + i}.0"
        d.mkdir(parents=True)
        (d / "vendor").write_text("0x1ae0\n")
        (d / "device").write_text("0x005e\n")
        (d / "class").write_text("0x120000\n")
        (root / "dev").mkdir(exist_ok=True)
        (root / f"dev/accel{i}").write_text("")
    devs = probe_tree(root).devices
    assert [d.kind for d in devs] == ["tpu", "tpu"] and "v4" in devs[0].name
    assert all(d.readiness == "ready" for d in devs)
    assert devs[0].details["readiness_checks"]["driver"].startswith("ok (inferred")


def test_tpu_with_nothing_bound_and_no_nodes_is_driver_missing(tmp_path):
    root = tmp_path / "tpu"
    d = root / "sys/bus/pci/devices/0000:00:04.0"
    d.mkdir(parents=True)
    (d / "vendor").write_text("0x1ae0\n")
    (d / "device").write_text("0x0062\n")
    (d / "class").write_text("0x120000\n")
    (root / "dev").mkdir()
    dev, = probe_tree(root).devices
    assert dev.readiness == "driver-missing"


def test_no_access_on_the_live_system_names_the_group(tmp_path, monkeypatch):
    """A device file this user cannot open: readiness no-access (only knowable live)."""
    root = tmp_path / "live"
    shutil.copytree(MACHINES / "acc-intel-npu-laptop", root, symlinks=True)

    class LiveContext(ProbeContext):
        @property
        def live(self):
            return True

    monkeypatch.setattr(inventory, "node_access",
                        lambda ctx, rel: False if rel and "accel" in rel else (True if rel else None))
    monkeypatch.setattr(inventory, "node_group", lambda ctx, rel: "render")
    from accelgui.probes import accel, pci

    ctx = LiveContext(root=str(root))
    priv = {}
    for mod in (pci, accel):
        priv.update({k: v for k, v in mod.probe(ctx).items() if not k.startswith("_")})
    devs = inventory.build_devices(priv, {"toolkits": {"intel_npu_driver": None,
                                                       "intel_gpu_compute": None}})
    npu = next(d for d in devs if d["kind"] == "npu")
    gpu = next(d for d in devs if d["kind"] == "gpu")
    assert npu["readiness"] == "no-access"
    assert "render" in npu["readiness_reason"] and "usermod -aG render" in npu["fix"]
    assert gpu["readiness"] == "ready"


def test_recorded_tree_without_dev_or_libraries_skips_those_steps(tmp_path):
    root = tmp_path / "bare"
    d = root / "sys/bus/pci/devices/0000:3b:00.0"
    d.mkdir(parents=True)
    (d / "vendor").write_text("0x1da3\n")
    (d / "device").write_text("0x1060\n")
    (d / "class").write_text("0x120000\n")
    (d / "driver").symlink_to("../../../bus/pci/drivers/habanalabs")
    dev, = probe_tree(root).devices
    assert (dev.kind, dev.vendor, dev.readiness) == ("accelerator", "habana", "ready")
    assert "Gaudi 3" in dev.name
    checks = dev.details["readiness_checks"]
    assert checks["device_node"] == "not checked" and checks["runtime"] == "not checked"


def test_anything_with_a_compute_accelerator_node_is_an_accelerator(tmp_path):
    root = tmp_path / "x"
    d = root / "sys/devices/pci0000:00/0000:07:00.0"
    (d / "accel/accel0").mkdir(parents=True)
    (d / "vendor").write_text("0x1f4b\n")
    (d / "device").write_text("0x0650\n")
    (d / "class").write_text("0x048000\n")          # a class no rule would keep
    (d / "driver").symlink_to("../../../bus/pci/drivers/axcl")
    (d / "accel/accel0/device").symlink_to("../../../0000:07:00.0")
    (root / "sys/bus/pci/devices").mkdir(parents=True)
    (root / "sys/bus/pci/devices/0000:07:00.0").symlink_to("../../../devices/pci0000:00/0000:07:00.0")
    (root / "sys/class/accel").mkdir(parents=True)
    (root / "sys/class/accel/accel0").symlink_to("../../devices/pci0000:00/0000:07:00.0/accel/accel0")
    (root / "dev/accel").mkdir(parents=True)
    (root / "dev/accel/accel0").write_text("")
    dev, = probe_tree(root).devices
    assert (dev.kind, dev.bus, dev.address, dev.driver) == \
        ("accelerator", "pci", "0000:07:00.0", "axcl")
    assert dev.details["accel_node"] == "/dev/accel/accel0"
    assert dev.readiness == "unknown" and dev.readiness_reason


def test_amd_gpu_without_dev_kfd_is_flagged(tmp_path):
    root = tmp_path / "radeon"
    shutil.copytree(MACHINES / "acc-radeon-desktop", root, symlinks=True)
    (root / "dev/kfd").unlink()
    (root / "opt/rocm/.info").mkdir(parents=True)
    (root / "opt/rocm/.info/version").write_text("6.2.0-66\n")    # ROCm alone is not enough
    devs = probe_tree(root).devices
    assert devs[0].details["missing_nodes"] == ["/dev/kfd"]
    assert "/dev/kfd" not in devs[0].details["device_nodes"]
    for dev in devs:
        assert dev.readiness == "driver-missing"
        assert "/dev/kfd" in dev.readiness_reason and "CONFIG_HSA_AMD" in dev.fix


def test_discrete_intel_gpu_passed_through_to_slot_00_02_0_is_not_integrated(tmp_path):
    root = tmp_path / "vm"
    for addr, device in (("0000:00:02.0", "56a0"), ("0000:00:03.0", "a780")):
        d = root / f"sys/bus/pci/devices/{addr}"
        d.mkdir(parents=True)
        (d / "vendor").write_text("0x8086\n")
        (d / "device").write_text(f"0x{device}\n")
        (d / "class").write_text("0x030000\n")
        (d / "uevent").write_text("DRIVER=i915\n")
    arc, uhd = probe_tree(root).devices
    assert (arc.pci_id, arc.integrated) == ("8086:56a0", False)     # Arc A770 in a q35 VM
    assert (uhd.pci_id, uhd.integrated) == ("8086:a780", True)      # the table knows iGPUs


def test_name_falls_back_to_ids_when_no_table_knows_the_device(tmp_path):
    root = tmp_path / "x"
    d = root / "sys/bus/pci/devices/0000:05:00.0"
    d.mkdir(parents=True)
    (d / "vendor").write_text("0xabcd\n")
    (d / "device").write_text("0x1234\n")
    (d / "class").write_text("0x120000\n")
    dev, = probe_tree(root).devices
    assert dev.name == "PCI device abcd:1234"
    assert dev.vendor == "pci-abcd" and dev.readiness == "driver-missing"


# ---------------------------------------------------------------------------------------
# end to end
# ---------------------------------------------------------------------------------------

def test_cli_probe_over_a_tree_prints_the_devices():
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--no-advice",
                          "--sysroot", str(MACHINES / "acc-dgx-h100")],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    gpus = [d for d in data["devices"] if d["kind"] == "gpu"]
    assert len(gpus) == 8 and all(d["vendor"] == "nvidia" for d in gpus)
    assert data["software"]["packages"] == {}             # never the host's packages
    assert data["software"]["toolkits"]["cuda_toolkit"] == "12.4.1"
    assert data["software"]["toolkits"]["nvidia_driver"] == "550.54.15"
    from accelgui.report import validate

    validate(data)


def test_live_machine_without_accelerators_reports_honest_absences():
    report = run_probes(ProbeContext(root="/"), probes=[p for p in PROBES if p.name in MINE])
    status = {p.name: p.status for p in report.probes}
    assert status["software"] == "ok"
    if not os.path.exists("/dev/nvidiactl") and not os.path.isdir("/proc/driver/nvidia"):
        assert status["nvidia"] == "absent"
        assert not any(d.vendor == "nvidia" for d in report.devices)


# ---------------------------------------------------------------------------------------
# readiness texts in both languages (family data + the devices message catalogue)
# ---------------------------------------------------------------------------------------

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _zh(dev, field):
    return l10n.field_text(dev, field, "zh")


def test_every_not_ready_device_in_every_tree_has_chinese_reason_and_fix():
    for tree in sorted(MACHINES.glob("acc-*")):
        for d in devices_of(tree.name):
            assert d.readiness_reason_zh is None and d.fix_zh is None     # no twins written
            if d.readiness == "ready":
                assert d.readiness_reason_msg is None and d.fix_msg is None
                continue
            zh_reason, zh_fix = _zh(d, "readiness_reason"), _zh(d, "fix")
            assert _CJK.search(zh_reason or ""), (tree.name, d.readiness_reason)
            assert _CJK.search(zh_fix or ""), (tree.name, d.fix)
            assert zh_reason.endswith("\u3002") and zh_fix.endswith("\u3002"), (zh_reason, zh_fix)
            assert l10n.render(d.readiness_reason_msg, "en") == d.readiness_reason


def test_every_device_in_every_tree_has_a_ladder_that_stops_where_readiness_does():
    for tree in sorted(MACHINES.glob("acc-*")):
        for d in devices_of(tree.name):
            steps = [s["step"] for s in d.ladder]
            assert steps == list(inventory.LADDER), (tree.name, steps)
            assert d.ladder[0]["ok"] is True
            failed = [s for s in d.ladder if s["ok"] is False]
            if d.readiness in ("ready", "unknown"):
                assert not failed, (tree.name, d.name, failed)
                continue
            first = failed[0]
            assert all(s["ok"] is None for s in d.ladder[d.ladder.index(first) + 1:]), d.ladder
            assert first["detail"] == d.readiness_reason, (tree.name, first, d.readiness_reason)
            assert first["detail_msg"] == d.readiness_reason_msg


def _assessed(family, drivers=(), nodes=None, software=None, meta=None, details=None):
    dev = {"details": dict(details or {}), "readiness": "unknown", "_family": family,
           "_nodes": nodes or {}, "_drivers": list(drivers), "bus": "pci", "address": "0000:01:00.0"}
    inventory._assess(dev, software or {}, meta or {"live": True})
    return dev


@pytest.mark.parametrize("family", sorted(families.load_families()) + ["generic"])
def test_every_path_of_the_ladder_reads_in_both_languages(family):
    spec = families.family(family) or {}
    expected = list(spec.get("drivers") or ())
    driver = expected[0] if expected else "somedriver"
    cases = [
        _assessed(family),                                               # no driver
        _assessed(family, [driver], {"ok": False, "expected": ["/dev/x[0-9]*"]}),  # no node
        _assessed(family, [driver], {"ok": False, "expected": []},
                  meta={"live": True, "container": "docker"}),             # not passed in
        _assessed(family, [driver], {"ok": True, "access": False, "denied": "/dev/x0"}),
        _assessed(family, [driver], {"ok": True, "access": True}),        # runtime missing
        _assessed(family, [driver], {"ok": True, "access": True},
                  details={"firmware_loaded": False}),
    ]
    cases += [_assessed(family, [wrong], {"ok": True}) for wrong in spec.get("wrong_drivers") or {}]
    states = set()
    for dev in cases:
        states.add(dev["readiness"])
        if dev["readiness"] == "ready":
            continue
        for field in ("readiness_reason", "fix"):
            en, message = dev[field], dev[field + "_msg"]
            assert en and message, (family, field, dev)
            assert l10n.render(message, "en") == en
            zh = l10n.render(message, "zh")
            assert _CJK.search(zh), (family, en)
            assert "None" not in zh and "{" not in zh and "None" not in en and "{" not in en, zh
            assert not re.search(r" [\uff0c\u3002\uff1a\uff1b\u3001\uff08\uff09]|[\uff0c\u3002\uff1a\uff1b\u3001\uff08\uff09] ", zh), zh
    assert states - {"ready", "unknown"}, family        # the ladder can fail for every family


# ---------------------------------------------------------------------------------------
# the family data
# ---------------------------------------------------------------------------------------

def test_every_family_validates_against_its_schema():
    import jsonschema

    schema = json.loads((Path(inventory.__file__).parent / "data" / "family.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for fid, entry in families.load_families().items():
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(entry), key=str)
        assert not errors, (fid, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]])


def test_every_driver_has_a_node_rule_and_one_rule_only():
    seen = {}
    for fid, entry in families.load_families().items():
        for name, rule in (entry.get("drivers") or {}).items():
            assert rule.get("nodes") or rule.get("nodes_required"), (fid, name)
            for glob in list(rule.get("nodes") or ()) + list(rule.get("nodes_required") or ()):
                assert glob.startswith("dev/"), (fid, name, glob)
            same = {k: v for k, v in rule.items() if k != "evidence"}
            assert seen.setdefault(name, same) == same, f"{name}: rules differ between families"
    evidence = [(fid, d) for fid, e in families.load_families().items()
                for d, r in (e.get("drivers") or {}).items() if r.get("evidence")]
    names = [d for _, d in evidence]
    assert len(names) == len(set(names)), "a driver is evidence for two families"


def test_every_family_has_both_languages_for_every_text():
    def texts(value, path=()):
        if isinstance(value, dict) and "en" in value:
            yield path, value
        elif isinstance(value, dict):
            for k, v in value.items():
                yield from texts(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from texts(v, path + (i,))
    for fid, entry in families.load_families().items():
        found = list(texts(entry))
        assert any(p == ("name",) for p, _ in found), fid
        for path, text in found:
            assert set(text) == {"en", "zh"}, (fid, path)
            assert text["en"] and text["zh"], (fid, path)
            assert not _CJK.search(text["en"]), (fid, path)
            if path[0] in ("fixes", "wrong_drivers"):
                assert _CJK.search(text["zh"]), (fid, path)
        assert entry.get("drivers") is None or entry.get("fixes", {}).get("driver"), fid


def test_the_specifications_are_dated_and_sourced():
    for fid, entry in families.load_families().items():
        specs = entry.get("specs")
        if not specs:
            continue
        for row in specs.get("devices") or ():
            dated = {k: row.get(k) or specs.get(k) for k in ("as_of", "source", "review_by")}
            assert all(dated.values()), (fid, row.get("name"), dated)
            assert dated["review_by"] > dated["as_of"], (fid, row.get("name"))
            assert row.get("ids") or row.get("name"), (fid, row)


def test_no_cjk_character_in_the_probe_code():
    for path in Path(inventory.__file__).parent.glob("*.py"):
        assert not _CJK.search(path.read_text(encoding="utf-8")), path.name
