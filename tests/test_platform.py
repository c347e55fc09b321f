"""Platform probe: OS, kernel, machine, host name, virtualisation, container and cloud."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui.probes import platform
from accelgui.probes.context import ProbeContext
from accelgui.redact import redact_data

MACHINES = Path(__file__).parent / "fixtures" / "machines"

EXPECTED = {
    "cpu-intel-desktop": dict(os="Linux", os_release="Ubuntu 24.04.1 LTS", kernel="6.8.0-45-generic",
                              machine="x86_64", hostname="gamer-desktop", virtualization=None,
                              container=None, cloud=None),
    "cpu-amd-epyc-2s": dict(os_release="Rocky Linux 9.4 (Blue Onyx)", machine="x86_64",
                            hostname="epyc-node-07", virtualization=None, container=None, cloud=None),
    "cpu-cloud-vm-aws": dict(os_release="Ubuntu 22.04.4 LTS", kernel="6.5.0-1022-aws",
                             machine="x86_64", virtualization="kvm", container="docker",
                             cloud={"provider": "aws", "instance_type": "m7i.2xlarge"}),
    "cpu-cloud-vm-gcp": dict(virtualization="kvm", container="kubernetes",
                             cloud={"provider": "gcp", "instance_type": None}),
    "cpu-cloud-vm-azure": dict(virtualization="hyperv", container=None,
                               cloud={"provider": "azure", "instance_type": None}),
    "cpu-aarch64-server": dict(os_release="Amazon Linux 2023.5.20240916", machine="aarch64",
                               virtualization="kvm",
                               cloud={"provider": "aws", "instance_type": "r8g.4xlarge"}),
    "cpu-aarch64-board": dict(machine="aarch64", virtualization=None, cloud=None,
                              hostname="raspberrypi"),
    "cpu-ppc64le": dict(machine="ppc64le", virtualization="powervm", cloud=None),
    "cpu-s390x": dict(machine="s390x", virtualization="lpar",
                      os_release="SUSE Linux Enterprise Server 15 SP5"),
    "cpu-riscv64": dict(machine="riscv64", virtualization=None, os_release="Bianbu 2.0"),
    "cpu-loongarch64": dict(machine="loongarch64", virtualization=None),   # arch from cpuinfo
    "cpu-sparc64": dict(machine="sparc64", virtualization=None, os_release="Debian GNU/Linux sid"),
    "cpu-broken": dict(os="Linux", kernel="5.15.0-broken", machine="x86_64", hostname=None,
                       cloud=None),
}


def probe(root) -> dict:
    return platform.probe(ProbeContext(root=str(root)))["platform"]


def write(root: Path, rel: str, content="") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


def dmi_tree(root: Path, **fields) -> Path:
    for key, value in fields.items():
        write(root, f"sys/class/dmi/id/{key}", f"{value}\n")
    write(root, "proc/sys/kernel/osrelease", "6.1.0\n")
    return root


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_platform(name):
    got = probe(MACHINES / name)
    for key, value in EXPECTED[name].items():
        assert got[key] == value, f"{name}: {key}"


def test_dmi_keeps_strings_and_redaction_removes_identifiers():
    got = probe(MACHINES / "cpu-intel-desktop")
    dmi = got["dmi"]
    assert dmi["board_name"] == "ROG STRIX Z790-E GAMING WIFI"
    assert dmi["product_serial"] == "SN-FAKE-0001" and dmi["board_serial"] == "BS-FAKE-0001"
    clean = redact_data({"platform": got})["platform"]
    assert clean["dmi"]["product_serial"] is None and clean["dmi"]["product_uuid"] is None
    assert clean["dmi"]["board_serial"] is None and clean["hostname"] is None
    assert clean["dmi"]["board_name"] == "ROG STRIX Z790-E GAMING WIFI"


@pytest.mark.parametrize("fields, provider, instance, virt", [
    (dict(sys_vendor="VMware, Inc.", product_name="VMware Virtual Platform"), None, None, "vmware"),
    (dict(sys_vendor="Xen", product_name="HVM domU", bios_vendor="Xen",
          bios_version="4.11.amazon"), "aws", None, "xen"),
    (dict(sys_vendor="Amazon EC2", product_name="c6g.metal", bios_vendor="Amazon EC2"),
     "aws", "c6g.metal", None),
    (dict(sys_vendor="QEMU", product_name="Standard PC (i440FX + PIIX, 1996)",
          chassis_asset_tag="OracleCloud.com"), "oci", None, "kvm"),
    (dict(sys_vendor="Alibaba Cloud", product_name="Alibaba Cloud ECS"), "alibaba", None, "kvm"),
    (dict(sys_vendor="DigitalOcean", product_name="Droplet"), "digitalocean", None, "kvm"),
    (dict(sys_vendor="Hetzner", product_name="vServer"), "hetzner", None, "kvm"),
    (dict(sys_vendor="OpenStack Foundation", product_name="OpenStack Nova"), "openstack", None, "kvm"),
    (dict(sys_vendor="Tencent Cloud", product_name="CVM"), "tencent", None, "kvm"),
    (dict(sys_vendor="Microsoft Corporation", product_name="Virtual Machine"), None, None, "hyperv"),
    (dict(sys_vendor="innotek GmbH", product_name="VirtualBox"), None, None, "virtualbox"),
    (dict(sys_vendor="Google", product_name="Pixelbook", bios_vendor="coreboot"), None, None, None),
    (dict(sys_vendor="Dell Inc.", product_name="PowerEdge R760"), None, None, None),
])
def test_cloud_and_virtualization_from_dmi(tmp_path, fields, provider, instance, virt):
    got = probe(dmi_tree(tmp_path, **fields))
    assert got["cloud"] == ({"provider": provider, "instance_type": instance} if provider else None)
    assert got["virtualization"] == virt


def test_xen_from_procfs(tmp_path):
    (tmp_path / "proc/xen").mkdir(parents=True)
    write(tmp_path, "proc/xen/capabilities", "")
    assert probe(tmp_path)["virtualization"] == "xen"
    assert platform.hypervisor_vendor(ProbeContext(root=str(tmp_path))) == "Xen"


def test_kvm_from_clocksource_without_dmi(tmp_path):
    write(tmp_path, "sys/devices/system/clocksource/clocksource0/available_clocksource",
          "tsc kvm-clock acpi_pm\n")
    write(tmp_path, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: lm hypervisor\n")
    assert probe(tmp_path)["virtualization"] == "kvm"


def test_unknown_hypervisor_is_a_vm(tmp_path):
    write(tmp_path, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: lm hypervisor\n")
    got = probe(tmp_path)
    assert got["virtualization"] == "vm" and got["machine"] == "x86_64"


@pytest.mark.parametrize("kernel, hv", [("5.15.167.4-microsoft-standard-WSL2", "Microsoft"),
                                        ("4.4.0-19041-Microsoft", "Windows Subsystem for Linux")])
def test_wsl(tmp_path, kernel, hv):
    write(tmp_path, "proc/sys/kernel/osrelease", kernel + "\n")
    assert probe(tmp_path)["virtualization"] == "wsl"
    assert platform.hypervisor_vendor(ProbeContext(root=str(tmp_path))) == hv


@pytest.mark.parametrize("files, expected", [
    ({".dockerenv": ""}, "docker"),
    ({"run/.containerenv": "engine=\"podman-4.9\"\n"}, "podman"),
    ({"proc/self/cgroup": "0::/lxc.payload.web/system.slice\n"}, "lxc"),
    ({"proc/self/cgroup": "12:pids:/docker/3f2a9d\n"}, "docker"),
    ({"run/systemd/container": "systemd-nspawn\n"}, "systemd-nspawn"),
    ({"proc/1/cgroup": "0::/kubepods/besteffort/pod1/abc\n", ".dockerenv": ""}, "kubernetes"),
    ({"proc/self/cgroup": "0::/user.slice/user-1000.slice\n"}, None),
])
def test_container(tmp_path, files, expected):
    for rel, content in files.items():
        write(tmp_path, rel, content)
    assert probe(tmp_path)["container"] == expected


def test_kubernetes_env_counts_only_live(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    assert platform.detect_container(ProbeContext(root=str(tmp_path))) is None
    assert platform.detect_container(ProbeContext(root="/")) == "kubernetes"


def test_os_release_parsing(tmp_path):
    write(tmp_path, "usr/lib/os-release", 'NAME="Fedora Linux"\nVERSION="40 (Workstation Edition)"\n'
                                          "# comment\nID=fedora\n")
    assert probe(tmp_path)["os_release"] == "Fedora Linux 40 (Workstation Edition)"
    assert platform.parse_os_release('PRETTY_NAME="A \\"quoted\\" name"\nX=\'single\'\n') == \
        {"PRETTY_NAME": 'A "quoted" name', "X": "single"}


def test_empty_tree_is_unknown(tmp_path):
    got = probe(tmp_path)
    assert got["os"] is None and got["kernel"] is None and got["machine"] is None
    assert got["cloud"] is None and got["container"] is None and got["dmi"] == {}


def test_live_uses_uname():
    got = probe("/")
    uname = os.uname()
    assert got["kernel"] == uname.release and got["hostname"] == uname.nodename
    assert got["machine"] == uname.machine and got["os"] == "Linux"


def test_never_touches_the_network():
    """No metadata service: the probe has no network client to call one with."""
    code = ("import sys; from accelgui.probes.context import ProbeContext;"
            "from accelgui.probes import platform;"
            "[platform.probe(ProbeContext(root=r)) for r in ('/', sys.argv[1])];"
            "print(sorted(m for m in ('socket', 'http.client', 'urllib.request', 'requests')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(MACHINES / "cpu-cloud-vm-aws")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_off_linux_uses_the_platform_module(monkeypatch):
    monkeypatch.setattr(platform, "on_linux", lambda: False)
    got = probe("/")
    assert got["os"] and got["hostname"] == os.uname().nodename
    assert got["cloud"] is None and got["dmi"] == {}
    assert probe(MACHINES / "cpu-s390x")["machine"] == "s390x"   # a tree is read as Linux


# ------------------------------------------------------------------ signatures as data

def test_platform_signatures_match_their_schema():
    import json

    import jsonschema

    data = Path(platform.__file__).parent / "data"
    schema = json.loads((data / "platforms.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(
        json.loads((data / "platforms.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("dmi, hypervisor, virt, provider, instance", [
    ({"sys_vendor": "Amazon EC2", "product_name": "c7g.metal"}, None, None, "aws", "c7g.metal"),
    ({"sys_vendor": "Amazon EC2", "product_name": "m5.xlarge"}, "KVM", "kvm", "aws", "m5.xlarge"),
    ({"sys_vendor": "Xen", "bios_vendor": "Xen", "bios_version": "4.11.amazon",
      "product_name": "HVM domU"}, "Xen", "xen", "aws", None),
    ({"sys_vendor": "Microsoft Corporation", "product_name": "Virtual Machine",
      "chassis_asset_tag": "7783-7084-3265-9085-8269-3286-77"}, "Microsoft", "hyperv", "azure", None),
    ({"sys_vendor": "Google", "product_name": "Google Compute Engine", "bios_vendor": "Google"},
     "KVM", "kvm", "gcp", None),
    ({"sys_vendor": "QEMU", "product_name": "Standard PC (Q35 + ICH9, 2009)",
      "chassis_asset_tag": "OracleCloud.com"}, "KVM", "kvm", "oci", None),
    ({"sys_vendor": "Alibaba Cloud", "product_name": "Alibaba Cloud ECS"}, "KVM", "kvm", "alibaba", None),
    ({"sys_vendor": "innotek GmbH", "product_name": "VirtualBox"}, "Oracle", "virtualbox", None, None),
    ({"sys_vendor": "Dell Inc.", "product_name": "PowerEdge R760"}, None, None, None, None),
    ({}, None, None, None, None),
])
def test_identify_dmi_is_a_pure_function_of_dmi_strings(dmi, hypervisor, virt, provider, instance):
    got = platform.identify_dmi(dmi)
    assert got["hypervisor"] == hypervisor and got["virtualization"] == virt
    assert (got["cloud"] or {}).get("provider") == provider
    assert (got["cloud"] or {}).get("instance_type") == instance


def test_signatures_reject_a_condition_of_no_known_form():
    from accelgui.probes import signatures as sig

    facts = sig.Facts({"sys_vendor": "X"})
    with pytest.raises(ValueError, match="no known form"):
        sig.holds({"colour": "blue"}, facts)
    with pytest.raises(ValueError, match="exactly one test"):
        sig.holds({"fact": "sys_vendor", "equals": "X", "contains": "X"}, facts)
    assert sig.holds({"fact": ["product_name", "sys_vendor"], "equals": "x", "ignore_case": True}, facts)
    assert not sig.holds({"file": "proc/sysinfo", "present": True}, facts)     # no context, no files
    assert sig.holds({"fact": "sys_vendor", "regex": r"\AX\Z", "ignore_case": True}, facts)


def test_hypervisor_file_signatures_on_a_tree(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "sysinfo").write_text("Manufacturer: IBM\nType: 3931\n"
                                              "VM00 Control Program: z/VM    7.3.0\n")
    ctx = ProbeContext(root=str(tmp_path))
    assert platform.hypervisor_vendor(ctx, [], dmi={}) == "IBM"
    assert platform.virtualization(ctx, "IBM", "6.4.0", []) == "zvm"
    (tmp_path / "proc" / "sysinfo").write_text("Manufacturer: IBM\nVM00 Control Program: KVM/Linux\n")
    assert platform.hypervisor_vendor(ProbeContext(root=str(tmp_path)), [], dmi={}) == "KVM"


def test_container_signatures_on_a_tree(tmp_path):
    (tmp_path / "run" / "systemd").mkdir(parents=True)
    (tmp_path / "run" / "systemd" / "container").write_text("systemd-nspawn\n")
    assert platform.detect_container(ProbeContext(root=str(tmp_path))) == "systemd-nspawn"
    (tmp_path / "run" / "systemd" / "container").write_text("bad name; rm\n")
    (tmp_path / "run" / ".containerenv").write_text("")
    assert platform.detect_container(ProbeContext(root=str(tmp_path))) == "podman"
