"""Record the files the probes read into a directory tree (``accelgui --record-tree DIR``).

The result replays with ``accelgui --probe --sysroot DIR`` (and ``lscpu --sysroot DIR``): a
bug report can carry the machine instead of a description of it. It is the same idea as
util-linux's lscpu dump script, widened to what accelgui reads: procfs, the CPU, node,
DMI, PCI, USB, DRM/accel/KFD/devfreq classes of sysfs, device-node names under ``dev/``,
the container markers and the names of the WSL2 GPU libraries.

Rules:

* only listed paths and patterns are read, never whole trees, so nothing like
  ``/proc/kcore`` or a sysfs attribute that blocks is touched; files over 1 MiB are skipped;
* symlinked sysfs directories are stored as real directories
  (``sys/bus/pci/devices/ADDR/``, ``sys/bus/platform/devices/NAME/``); ``driver`` links become
  links to a dummy ``sys/bus/<bus>/drivers/NAME`` directory so the driver name survives, and
  class ``device`` links point at the recorded bus directory;
* what identifies the machine or its owner is left out: DMI serials and UUIDs, USB serial
  numbers, the host name, the Raspberry Pi serial in cpuinfo, s390 sequence codes and LPAR
  names, NVIDIA GPU UUIDs, container and pod ids;
* device nodes are recorded as empty files (their names are what the probes look at);
* the source is read through the probes' own confined reader (accelgui.probes.context): a
  link that leads out of the source tree is never followed, and only regular files are
  copied, so a hostile tree cannot pull host files into the recording;
* nothing is written through a link in the destination: a link found where the recording
  needs a folder or a file is removed (the link only, never what it points to) and replaced.
"""

from __future__ import annotations

import os
import re
import stat

from accelgui.probes import families, memory
from accelgui.probes.context import ProbeContext

MAX_BYTES = 1 << 20

_CPU_TOP = ("possible", "present", "online", "offline", "kernel_max", "isolated", "nohz_full",
            "dispatching", "smt/active", "smt/control", "cpufreq/boost", "modalias")
_CPU_FILES = ("online", "cpu_capacity", "address", "configure", "polarization", "clock_tick",
              "l1_icache_size", "l1_icache_line_size", "l1_dcache_size", "l1_dcache_line_size",
              "l2_cache_size", "l2_cache_line_size")
_CPUFREQ = ("cpuinfo_max_freq", "cpuinfo_min_freq", "scaling_cur_freq", "scaling_max_freq",
            "scaling_min_freq", "scaling_driver", "scaling_governor", "base_frequency")
_DMI = ("bios_date", "bios_release", "bios_vendor", "bios_version", "board_name", "board_vendor",
        "board_version", "chassis_type", "chassis_vendor", "chassis_version", "ec_firmware_release",
        "product_family", "product_name", "product_sku", "product_version", "sys_vendor")
_CLOUD_ASSET_TAGS = {"7783-7084-3265-9085-8269-3286-77", "OracleCloud.com", "Amazon EC2",
                     "HUAWEICLOUD"}
_PCI_FILES = ("vendor", "device", "class", "subsystem_vendor", "subsystem_device", "revision",
              "numa_node", "current_link_speed", "current_link_width", "max_link_speed",
              "max_link_width", "boot_vga", "resource", "label", "local_cpulist", "sriov_numvfs",
              "sriov_totalvfs", "mem_info_vram_total", "mem_info_vis_vram_total", "mem_info_gtt_total", "uevent",
              "enable", "irq", "product_name", "product_number", "vbios_version")
_USB_FILES = ("idVendor", "idProduct", "product", "manufacturer", "bDeviceClass",
              "bDeviceSubClass", "bDeviceProtocol", "bInterfaceClass", "bInterfaceSubClass",
              "bInterfaceProtocol", "bInterfaceNumber", "bNumInterfaces", "bcdDevice", "speed",
              "version", "busnum", "devnum", "devpath", "maxchild", "removable")
_DEVFREQ_FILES = ("name", "cur_freq", "max_freq", "min_freq", "available_frequencies",
                  "available_governors", "governor", "target_freq")
_DEV_PATTERNS = families.RecordPatterns()      # the /dev names of every device family
_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_LONG_HEX = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{16,}(?![0-9a-fA-F])")


class _Recorder:
    def __init__(self, dest: str, source_root: str):
        self.src = os.path.abspath(source_root)
        self.ctx = ProbeContext(root=self.src)
        self.dest = os.path.abspath(dest)
        self.count = 0
        self._made: set[str] = set()     # destination folders known to be real folders

    # -- paths
    def s(self, rel: str) -> str:
        return os.path.join(self.src, rel)

    def d(self, rel: str) -> str:
        return os.path.join(self.dest, rel)

    # -- source side (never raises): the probes' own reader
    def read(self, rel: str) -> bytes | None:
        data, more = self.ctx._read(rel, MAX_BYTES)     # confined, regular files only
        return None if data is None or more else data

    def listdir(self, rel: str) -> list[str]:
        return self.ctx.listdir(rel)

    def is_dir(self, rel: str) -> bool:
        return self.ctx.is_dir(rel)

    def exists(self, rel: str) -> bool:
        return self.ctx.exists(rel)

    def readlink_name(self, rel: str) -> str | None:
        return self.ctx.readlink(rel)

    def real_name(self, rel: str) -> str | None:
        real = self.ctx.realpath(rel)
        return os.path.basename(real.rstrip("/")) or None if real else None

    def is_link(self, rel: str) -> bool:
        path = self.ctx.path(rel, follow=False)
        return path is not None and os.path.islink(path)

    # -- destination side: nothing is written through a link
    def _dest_dir(self, rel_dir: str) -> str:
        """The destination folder ``rel_dir``, made of real folders only: a link or a file
        in the way is removed (the link itself, not what it points to)."""
        path = self.dest
        for c in rel_dir.split("/"):
            if not c or c == ".":
                continue
            if c == "..":
                raise ValueError(f"refusing to record outside the destination: {rel_dir}")
            path = f"{path}/{c}"
            if path in self._made:
                continue
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                os.mkdir(path)
                mode = stat.S_IFDIR
            if not stat.S_ISDIR(mode):          # a link (to anywhere) or a file
                os.unlink(path)
                os.mkdir(path)
            self._made.add(path)
        return path

    def _dest_file(self, rel: str) -> str:
        parent, _, name = rel.strip("/").rpartition("/")
        if name in ("", ".", ".."):
            raise ValueError(f"refusing to record outside the destination: {rel}")
        path = f"{self._dest_dir(parent)}/{name}"
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path)):
            os.unlink(path)
        return path

    def put(self, rel: str, data: bytes) -> None:
        path = self._dest_file(rel)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self.count += 1

    def copy(self, rel: str, dst: str | None = None, transform=None) -> bool:
        data = self.read(rel)
        if data is None:
            return False
        if transform is not None:
            data = transform(data)
            if data is None:
                return False
        self.put(dst or rel, data)
        return True

    def copy_files(self, rel: str, names=None, skip=("uevent",)) -> None:
        for name in (names if names is not None else self.listdir(rel)):
            if name in skip:
                continue
            self.copy(f"{rel}/{name}")

    def link(self, rel: str, target: str) -> None:
        parent, _, name = rel.strip("/").rpartition("/")
        path = f"{self._dest_dir(parent)}/{name}"
        if os.path.lexists(path):
            return
        os.symlink(target, path)
        self.count += 1

    def mkdir(self, rel: str) -> None:
        self._dest_dir(rel)

    def touch(self, rel: str) -> None:
        self.put(rel, b"")


# ------------------------------------------------------------------ redaction filters

def _drop_lines(*prefixes: str):
    keys = tuple(p.encode() for p in prefixes)

    def run(data: bytes) -> bytes:
        return b"".join(line for line in data.splitlines(keepends=True)
                        if not line.lstrip().startswith(keys))
    return run


def _scrub_ids(data: bytes) -> bytes:
    data = _UUID.sub(b"00000000-0000-0000-0000-000000000000", data)
    return _LONG_HEX.sub(lambda m: b"0" * len(m.group(0)), data)


# ------------------------------------------------------------------ areas

def _proc(r: _Recorder) -> None:
    r.copy("proc/cpuinfo", transform=_drop_lines("Serial"))
    r.copy("proc/meminfo")
    r.copy("proc/sysinfo", transform=_drop_lines("Sequence Code", "LPAR Name", "LPAR Node",
                                                  "VM00 Name", "VM01 Name", "VM02 Name",
                                                  "VM03 Name", "UUID", "Extended Name"))
    for name in ("osrelease", "arch", "ostype"):
        r.copy(f"proc/sys/kernel/{name}")
    if not r.copy("proc/1/cgroup", "proc/self/cgroup", transform=_scrub_ids):
        r.copy("proc/self/cgroup", transform=_scrub_ids)
    if r.exists("proc/xen"):
        r.mkdir("proc/xen")
        r.copy("proc/xen/capabilities")
    for marker in ("proc/vz", "proc/bc", "proc/iSeries"):
        if r.exists(marker):
            r.mkdir(marker)
    r.copy("proc/bus/pci/devices")
    dt = "proc/device-tree"
    for name in ("compatible", "model", "hmc-managed?"):
        r.copy(f"{dt}/{name}")
    if r.exists(f"{dt}/ibm,partition-name"):
        r.copy(f"{dt}/ibm,partition-name",
               transform=lambda b: b if b.rstrip(b"\0") == b"full" else b"redacted\0")
    if r.exists(f"{dt}/chosen/qemu,graphic-width"):
        r.copy(f"{dt}/chosen/qemu,graphic-width")
    nv = "proc/driver/nvidia"
    r.copy(f"{nv}/version")
    for gpu in r.listdir(f"{nv}/gpus"):
        r.copy(f"{nv}/gpus/{gpu}/information", transform=_drop_lines("GPU UUID", "Serial"))


def _cpu(r: _Recorder) -> None:
    base = "sys/devices/system/cpu"
    for name in _CPU_TOP:
        r.copy(f"{base}/{name}")
    for name in r.listdir(f"{base}/vulnerabilities"):
        r.copy(f"{base}/vulnerabilities/{name}")
    for name in r.listdir(base):
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue
        d = f"{base}/{name}"
        r.copy_files(d, _CPU_FILES)
        r.copy_files(f"{d}/topology")
        for idx in r.listdir(f"{d}/cache"):
            if idx.startswith("index"):
                r.copy_files(f"{d}/cache/{idx}")
        if r.is_dir(f"{d}/cpufreq"):
            r.copy_files(f"{d}/cpufreq", _CPUFREQ)
    node = "sys/devices/system/node"
    for name in ("online", "possible", "has_cpu", "has_memory", "has_normal_memory"):
        r.copy(f"{node}/{name}")
    for name in r.listdir(node):
        if name.startswith("node") and name[4:].isdigit():
            r.mkdir(f"{node}/{name}")
            r.copy_files(f"{node}/{name}", ("cpumap", "cpulist", "distance", "meminfo"))
    cs = "sys/devices/system/clocksource/clocksource0"
    r.copy_files(cs, ("available_clocksource", "current_clocksource"))
    r.copy("sys/hypervisor/type")
    r.copy("sys/hypervisor/properties/features")


def _boot(r: _Recorder) -> None:
    """The SecureBoot EFI variable and the names of the kernel modules installed outside the
    kernel's tree (DKMS), which the platform probe reads for the "enrol the signing key" fix:
    the variable's five bytes, and the module files as empty files of the same names."""
    from accelgui.probes import platform

    data = r.read(platform.SECURE_BOOT_VAR)
    if data is not None:
        r.put(platform.SECURE_BOOT_VAR, data[:64])
    release = (r.read("proc/sys/kernel/osrelease") or b"").decode("utf-8", "replace").strip()
    for module in platform.out_of_tree_modules(r.ctx, release):
        r.put(module["path"].lstrip("/"), b"")


def _dmi(r: _Recorder) -> None:
    base = "sys/class/dmi/id"
    r.copy_files(base, _DMI)
    tag = r.read(f"{base}/chassis_asset_tag")
    if tag is not None and tag.strip().decode("utf-8", "replace") in _CLOUD_ASSET_TAGS:
        r.put(f"{base}/chassis_asset_tag", tag)


_CHILD_CLASSES = families.SysfsClasses()       # class folders the families' drivers create


def _bus_devices(r: _Recorder, bus: str, files, dev_names: set[str]) -> set[str]:
    """``sys/bus/<bus>/devices/NAME`` (links into sys/devices) as real directories."""
    base = f"sys/bus/{bus}/devices"
    names = set()
    for name in r.listdir(base):
        if not r.is_dir(f"{base}/{name}"):
            continue
        d = f"{base}/{name}"
        names.add(name)
        r.mkdir(d)
        r.copy_files(d, files, skip=())
        if bus == "platform":
            r.copy(f"{d}/of_node/compatible")
        driver = r.readlink_name(f"{d}/driver")
        if driver:
            r.mkdir(f"sys/bus/{bus}/drivers/{driver}")
            r.link(f"{d}/driver", f"../../drivers/{driver}")
        group = r.readlink_name(f"{d}/iommu_group")
        if group and group.isdigit():
            r.mkdir(f"sys/kernel/iommu_groups/{group}")
            r.link(f"{d}/iommu_group", f"../../../../kernel/iommu_groups/{group}")
        if bus == "pci" and r.exists(f"{d}/physfn"):
            parent = r.real_name(f"{d}/physfn")
            if parent:
                r.link(f"{d}/physfn", f"../{parent}")
        if bus == "usb":                           # its node: dev/bus/usb/BBB/DDD
            try:
                busnum = int((r.read(f"{d}/busnum") or b"").strip())
                devnum = int((r.read(f"{d}/devnum") or b"").strip())
            except ValueError:
                busnum = devnum = 0
            if busnum and devnum:
                dev_names.add(f"bus/usb/{busnum:03d}/{devnum:03d}")
        if bus in ("pci", "platform"):
            for cls in _CHILD_CLASSES:             # device nodes the driver made: drm/renderD128
                for child in r.listdir(f"{d}/{cls}"):
                    r.mkdir(f"{d}/{cls}/{child}")
                    r.copy(f"{d}/{cls}/{child}/dev")
                    dev_names.add(child.replace("!", "/"))
    return names


def _class_device(r: _Recorder, rel: str, buses: dict[str, set[str]]) -> None:
    """``<class>/<name>/device``: point it at the recorded bus directory."""
    name = r.real_name(f"{rel}/device")
    if not name:
        return
    depth = rel.count("/") + 1                       # sys/class/drm/card0 -> 4
    up = "../" * (depth - 1)
    for bus in ("pci", "usb", "platform"):
        if name in buses.get(bus, ()):
            r.link(f"{rel}/device", f"{up}bus/{bus}/devices/{name}")
            return
    plat = f"sys/bus/platform/devices/{name}"
    r.mkdir(plat)
    for fname in ("uevent", "modalias"):
        r.copy(f"{rel}/device/{fname}", f"{plat}/{fname}")
    r.copy(f"{rel}/device/of_node/compatible", f"{plat}/of_node/compatible")
    driver = r.readlink_name(f"{rel}/device/driver")
    if driver:
        r.mkdir(f"sys/bus/platform/drivers/{driver}")
        r.link(f"{plat}/driver", f"../../drivers/{driver}")
    r.link(f"{rel}/device", f"{up}bus/platform/devices/{name}")


def _classes(r: _Recorder, buses: dict[str, set[str]]) -> None:
    for cls in ("accel", "drm", "misc", "remoteproc", "devfreq"):
        base = f"sys/class/{cls}"
        for name in r.listdir(base):
            if cls == "drm" and not re.fullmatch(r"card\d+|renderD\d+", name):
                continue
            if cls == "misc" and not _DEV_PATTERNS.match(name):
                continue
            rel = f"{base}/{name}"
            r.mkdir(rel)
            r.copy(f"{rel}/dev")
            if cls == "remoteproc":
                r.copy_files(rel, ("name", "state", "firmware"), skip=())
            if cls == "devfreq":
                r.copy_files(rel, _DEVFREQ_FILES, skip=())
            _class_device(r, rel, buses)
    kfd = "sys/class/kfd/kfd/topology"
    r.copy(f"{kfd}/system_properties")
    r.copy(f"{kfd}/generation_id")
    for node in r.listdir(f"{kfd}/nodes"):
        d = f"{kfd}/nodes/{node}"
        r.mkdir(d)
        r.copy_files(d, ("properties", "name", "gpu_id"), skip=())
        for bank in r.listdir(f"{d}/mem_banks"):
            r.copy(f"{d}/mem_banks/{bank}/properties")
    r.copy("sys/module/nvidia/version")
    r.copy("sys/module/amdgpu/version")


def _dev(r: _Recorder, extra: set[str]) -> None:
    """Device-node names as empty files (never opened); matching directories to depth 3."""
    def walk(rel: str, depth: int) -> None:
        if r.is_dir(rel):
            r.mkdir(rel)
            if depth < 3:
                for sub in r.listdir(rel):
                    walk(f"{rel}/{sub}", depth + 1)
        elif not r.is_link(rel) or r.ctx.path(rel) is not None and os.path.exists(r.ctx.path(rel)):
            r.touch(rel)

    for name in r.listdir("dev"):
        if _DEV_PATTERNS.match(name):
            walk(f"dev/{name}", 1)
    for name in sorted(extra):
        rel = f"dev/{name}"
        if ".." not in name.split("/") and r.exists(rel) and not r.is_dir(rel) and \
                not os.path.lexists(r.d(rel)):
            r.touch(rel)


def _system(r: _Recorder) -> None:
    for rel in ("etc/os-release", "usr/lib/os-release", "etc/nv_tegra_release",
                "run/systemd/container"):
        r.copy(rel)
    if r.exists(".dockerenv"):
        r.touch(".dockerenv")
    if r.exists("run/.containerenv"):
        r.touch("run/.containerenv")            # podman writes names and ids in it
    # WSL2: the inventory names the GPU behind /dev/dxg from the Windows driver's libraries
    for name in r.listdir("usr/lib/wsl/lib"):
        if name.startswith(("libcuda.so", "libnvidia-ml.so")):
            r.touch(f"usr/lib/wsl/lib/{name}")


# What identifies a Mac or a PC or its owner in a command's output: the value is blanked,
# the key kept (the file still parses: JSON stays JSON, XML stays XML). sysctl
# kern.hostname/kern.uuid, system_profiler serials, UUIDs and UDIDs (serial_number,
# platform_UUID, provisioning_UDID), computer, host and user names; Windows' SystemName,
# CSName, __SERVER/__PATH, CIM's ServerName and PSComputerName, RegisteredUser, Organization,
# SerialNumber, UUID, IdentifyingNumber, MAC addresses, dxdiag's "Machine name"/"Machine Id".
_PRIVATE_WORDS = (r"serial|uuid|udid|hostname|host[ _]?name|hostuuid|computer[ _]?name|user[ _]?name|"
                  r"csname|dnshostname|systemname|servername|pscomputername|__server|__path|"
                  r"machine name|machine id|registereduser|organi[sz]ation|owner|"
                  r"identifyingnumber|domain|workgroup|(?:mac|permanent|physical)[ _]?address")
_PRIVATE_KEY = r"(?:[\w.\-() ]{0,60}?(?:" + _PRIVATE_WORDS + r")[\w.\-() ]{0,60})"
_PRIVATE_TAG = r"(?:[\w.\-]{0,60}?(?:" + _PRIVATE_WORDS + r")[\w.\-]{0,60})"
# "KEY": "value" (JSON) and "KEY"="value" (reg export)
_PRIVATE_JSON = re.compile(r'(?im)^([ \t]*"' + _PRIVATE_KEY + r'"[ \t]*[:=][ \t]*)"([^"\r\n]*)"')
# CIM objects at -Depth 3: {"Name": "SystemName", "Value": "HOST", ...}
_PRIVATE_CIM = re.compile(r'(?im)("Name"[ \t]*:[ \t]*"' + _PRIVATE_KEY
                          + r'"[ \t]*,[ \t]*\n[ \t]*"Value"[ \t]*:[ \t]*)"([^"\r\n]*)"')
_PRIVATE_XML = re.compile(r"(?i)(<(" + _PRIVATE_TAG + r")>)([^<\r\n]*)(</\2>)")
_PRIVATE_TEXT = re.compile(r'(?im)^([ \t]*' + _PRIVATE_KEY + r'[ \t]*[:=\uff1a])([^\r\n]*)$')
_MAC = re.compile(r"(?<![0-9A-Fa-f:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![0-9A-Fa-f:-])")
# a user's folder inside a path: C:\Users\NAME, C:\\Users\\NAME (JSON), /Users/NAME, /home/NAME
_USER_DIR = re.compile(r"(?i)((?:\\{1,2}|/)(?:users|home)(?:\\{1,2}|/))(?!(?:public|default|shared|all users|"
                       r"default user|<user>)(?![^\\/\s\"']))([^\\/\s\"':;*?<>|]+)")
# values that identify nothing (a placeholder of the firmware, a default), never searched for
_PLACEHOLDERS = {"", "none", "null", "n/a", "na", "0", "default string", "to be filled by o.e.m.",
                 "system serial number", "not specified", "not available", "workgroup", "false",
                 "true", "unknown", "localhost", "local"}


# keys whose value names this machine or its owner and may be written elsewhere too (the
# host in Win32_ComputerSystem's Name, in a WMI path): looked for in every output
_SEARCHED = re.compile(r"(?i)host|computer|csname|system ?name|server|__path|machine|serial|"
                       r"user ?name|identifying|uuid")


def _identity(key: str, value: str) -> str | None:
    """The value under ``key`` worth finding elsewhere in the outputs (a host or user name, a
    serial number): one token of 3+ characters, not a firmware placeholder; None otherwise.
    ``\\\\HOST\\root\\cimv2:...`` gives HOST, ``DOMAIN\\user`` gives user."""
    if not _SEARCHED.search(key):
        return None
    value = value.strip().strip('"').strip()
    parts = [p for p in re.split(r"[\\:]+", value) if p]
    if value.startswith("\\\\") and parts:
        value = parts[0]
    elif "\\" in value and parts:
        value = parts[-1]
    if value.lower().endswith(".local"):
        value = value[:-6]
    if len(value) < 3 or value.lower() in _PLACEHOLDERS or re.search(r"\s", value) \
            or len(set(value.lower()) - {"-"}) <= 1:          # 00000000, XXXXXXXX
        return None
    return value


def _value_pattern(value: str) -> re.Pattern:
    """Where ``value`` is found again: an identifier-shaped value (digits, ``-``, ``_``, ``.``
    in it) as a whole token anywhere; a plain word ("alice", "gamingrig") only as the whole
    value of a ``Key: value`` line or a JSON string, so the same word in a product name stays."""
    v = re.escape(value)
    if re.search(r"[\d_.-]", value):
        return re.compile(r"(?<![\w.:-])" + v + r"(?![\w:-])", re.I)
    return re.compile(r"(?im)(?<=[:=])([ \t]*\"?)" + v + r'(?="?[ \t]*,?[ \t]*$)')


class _Scrub:
    """Blanks private values in outputs and remembers them, so the same name or number is
    found again where no key says what it is (Win32_ComputerSystem's Name is the host)."""

    def __init__(self):
        self.found: set[str] = set()

    def _keep(self, key: str, groups: tuple[str, ...], value: str) -> str:
        seen = _identity(key, value)
        if seen:
            self.found.add(seen)
        return "".join(groups)

    def keys(self, text: str) -> str:
        text = _PRIVATE_CIM.sub(lambda m: self._keep(m.group(1), (m.group(1), '""'), m.group(2)), text)
        text = _PRIVATE_JSON.sub(lambda m: self._keep(m.group(1), (m.group(1), '""'), m.group(2)), text)
        text = _PRIVATE_XML.sub(lambda m: self._keep(m.group(2), (m.group(1), m.group(4)), m.group(3)), text)
        return _PRIVATE_TEXT.sub(lambda m: self._keep(m.group(1), (m.group(1),), m.group(2)), text)

    def values(self, text: str) -> str:
        text = _MAC.sub("<mac>", text)
        text = _USER_DIR.sub(lambda m: m.group(1) + "<user>", text)
        for value in sorted(self.found, key=len, reverse=True):
            pattern = _value_pattern(value)
            text = pattern.sub(r"\1" if pattern.groups else "", text)
        return text


def scrub_outputs(texts: list[str]) -> list[str]:
    """Command outputs of one machine without what identifies it or its owner: a value under
    an identifying key is blanked (a JSON or XML string becomes empty, the rest of a
    ``Key: value`` line goes; null and numbers stay, so the file still parses), and each such
    value is then removed wherever else any of the outputs has it; MAC addresses become
    ``<mac>`` and the user's folder in a path ``<user>``."""
    scrub = _Scrub()
    keyed = [scrub.keys(t) for t in texts]
    return [scrub.values(t) for t in keyed]


def scrub_output(text: str) -> str:
    """One command's output scrubbed as by :func:`scrub_outputs`."""
    return scrub_outputs([text])[0]


def record_commands(dest: str, commands=None, run=None) -> int:
    """Run a backend's commands (the running OS's unless given) and write each output,
    scrubbed, into ``dest`` as ``<command line>.txt`` (UTF-8): the folder ``--sysroot`` reads.
    ``run(argv, timeout_s) -> (text or None, reason)`` runs one (live.run unless given).
    Returns the count of files written; a command that fails is left out."""
    from accelgui.atomic import write_atomic
    from accelgui.probes import platforms
    from accelgui.probes.platforms import recorded

    if commands is None:
        commands = platforms.commands(platforms.live_platform())
    if run is None:
        from accelgui.probes.platforms.live import run
    os.makedirs(dest, exist_ok=True)
    names, texts = [], []
    for cmd in commands:
        text, _ = run(cmd.argv, cmd.timeout_s)
        if text:
            names.append(recorded.file_name(cmd.argv))
            texts.append(text)
    for name, text in zip(names, scrub_outputs(texts)):
        write_atomic(os.path.join(dest, name), text)
    return len(names)


def _copy_commands(dest: str, source: ProbeContext) -> int:
    """A recorded folder of command outputs recorded again: every file a backend recognised,
    decoded and scrubbed, under its own name (what nothing recognised is left out)."""
    from accelgui.atomic import write_atomic

    os.makedirs(dest, exist_ok=True)
    names, texts = [], []
    for key, files in source.recorded_commands.items():
        for name, text in zip(files, source.outputs(key)):
            names.append(os.path.basename(name))
            texts.append(text)
    for name, text in zip(names, scrub_outputs(texts)):
        write_atomic(os.path.join(dest, name), text)
    return len(names)


def record_tree(dest: str, source_root: str = "/") -> int:
    """Copy what the probes read from ``source_root`` into ``dest``; returns the file count.
    On a live macOS or Windows machine: its commands' outputs (:func:`record_commands`).

    ``dest`` is created if needed; existing files in it are overwritten.
    """
    from accelgui.probes import platforms

    if source_root in ("/", os.sep) and platforms.live_platform() != "linux":
        return record_commands(dest)
    source = ProbeContext(source_root)
    if not source.live and source.platform != "linux":
        return _copy_commands(dest, source)
    r = _Recorder(dest, source_root)
    os.makedirs(r.dest, exist_ok=True)
    _proc(r)
    _cpu(r)
    _dmi(r)
    _boot(r)
    memory.record_inputs(r, _scrub_ids)     # SMBIOS type 17 (no serials), SoC id, cgroup limits
    dev_names: set[str] = set()
    buses = {"pci": _bus_devices(r, "pci", _PCI_FILES, dev_names),
             "usb": _bus_devices(r, "usb", _USB_FILES, dev_names),
             "platform": _bus_devices(r, "platform", ("uevent", "modalias"), dev_names)}
    _classes(r, buses)
    _dev(r, dev_names)
    _system(r)
    return r.count
