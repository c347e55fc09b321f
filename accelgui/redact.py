"""Remove what identifies a machine or a person before a report is shared.

Host names, DMI serial numbers and UUIDs, device UUIDs and serials, MAC and IP addresses
become null or a placeholder; user names inside paths become ``<user>``. It works on the
report's dict form, by key name and by value pattern, so fields added later are covered too
(inxi ``-z`` is the yardstick):

1. every value under an identifying key (``hostname``, ``*serial*``, ``*uuid``, ``mac*``,
   ``ip*``, ``asset_tag``, ``machine_id``, ``user`` ...) becomes null, its place is listed in
   ``redacted_fields`` and the value is remembered;
2. every string anywhere is scrubbed of those remembered values, of the host name (full and
   short form, also inside hyphenated tokens such as ``5.15.0-alice-ws7-custom``), and of
   anything shaped like a UUID, an NVIDIA ``GPU-``/``MIG-`` id, a MAC address (``aa:bb:..``,
   ``aa-bb-..``, ``001b21aabbcd``, ``001b.21aa.bbce``), an InfiniBand GUID, an IPv4 or IPv6
   address, or a user name in a path (after ``/home/``, ``/Users/``, ``C:\\Users\\``, and
   the per-user folder of shared trees such as ``/data/NAME/``, ``/scratch/NAME/``);
3. fields that hold enums and ids (``kind``, ``bus``, ``status``, ``readiness``, route and
   message ``id``, ``vendor``, ``family``, ``pci_id``...) are never rewritten, and neither
   are dict keys: a host called ``gpu``, ``ready`` or ``nvidia`` cannot corrupt the report.
   Version maps (``software.packages``/``toolkits``) are not read as IPv4 addresses.

The result carries ``redacted: true`` at the top (faces say so, l10n id ``common.redacted``).
"""

from __future__ import annotations

import os
import re

from accelgui.report import Report

_SECRET_KEYS = re.compile(
    r"(^|_)(hostname|host_name|nodename|node_name|fqdn|serial|serial_number|serial_no|"
    r"uuid|guid|mac|mac_address|macaddr|hwaddr|permanent_address|ip|ip_address|ipv4|ipv6|"
    r"board_serial|chassis_serial|product_serial|product_uuid|machine_id|boot_id|"
    r"asset_tag|chassis_asset_tag|board_asset_tag|user|username|user_name|login|owner)$", re.I)
# enum and id fields of the report contract: never rewritten
_KEEP_KEYS = frozenset({
    "kind", "bus", "status", "readiness", "id", "vendor", "vendor_id", "family", "step",
    "reason", "pci_id", "usb_id", "address", "driver", "arch", "machine", "os",
    "virtualization", "container", "provider", "microarchitecture", "schema_version",
    "accelgui_version", "created", "segment", "form", "memory_bandwidth_source", "source",
    "unit", "key", "ok", "route", "features", "flags", "gfx_target", "compute_capability",
    "instance_type", "hypervisor_vendor", "next_steps", "blocking", "providers", "requires"})
# maps of versions: "2024.1.0.596" is a version there, not an address
_VERSION_MAPS = frozenset({"packages", "toolkits", "compilers"})

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_GPU_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-f-]{8,}\b", re.I)
_MAC = re.compile(r"(?<![0-9a-z:.-])[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}(?![0-9a-z:-])"
                  r"|(?<![0-9a-z.])[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?![0-9a-z.])"
                  r"|(?<![0-9a-z])(?=[0-9a-f]{0,11}[0-9])(?=[0-9]{0,11}[a-f])[0-9a-f]{12}(?![0-9a-z])",
                  re.I)
_GUID = re.compile(r"\b[0-9a-f]{4}(?::[0-9a-f]{4}){3}\b", re.I)
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = re.compile(rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?:/\d{{1,2}})?(?![\w.])"
                   rf"|\bip-{_OCTET}(?:-{_OCTET}){{3}}\b")
_H16 = r"[0-9a-f]{1,4}"
_IPV6 = re.compile(rf"(?<![\w:.])(?:(?:{_H16}:){{7}}{_H16}|(?:{_H16}:){{1,6}}(?::{_H16}){{1,6}}"
                   rf"|(?:{_H16}:){{1,7}}:(?![0-9a-f]))(?:%\w+)?(?:/\d{{1,3}})?(?![\w:])", re.I)
_HOME = re.compile(r"(/home/|/Users/|/var/home/|\\Users\\)([^/\\\s\"'<>]+)")
# per-user folders of shared trees: /data/NAME/..., /scratch/NAME/... (a folder below it)
_SHARED_USER = re.compile(r"(/(?:data|scratch|work|gpfs|lustre|nfs|projects?|storage|users?|u)/)"
                          r"([A-Za-z_][A-Za-z0-9._-]{1,31})(?=/)")
# names that identify nothing (a default install), never replaced inside other text
_GENERIC_HOSTS = {"localhost", "localhost.localdomain", "ubuntu", "debian", "fedora", "linux",
                  "raspberrypi", "archlinux", "host", "server", "none", "unknown"}
_NOT_USERS = {"<user>", "shared", "runner", "user", "root", "public", "common", "datasets",
              "models", "home", "local", "opt", "tmp"}


def _compound(value: str) -> re.Pattern:
    """A host name that is a plain word ("gpu", "ready", "intel"), found where a host name
    is written, not where the word is: inside a compound token (``gpu.lan``,
    ``5.15.0-gpu-custom``, ``/srv/gpu/``) or as the whole text, in its own case."""
    v = re.escape(value)
    sep = r"[-./\\@:_]"
    return re.compile(rf"(?<={sep}){v}(?![A-Za-z0-9])|(?<![A-Za-z0-9]){v}(?={sep}[A-Za-z0-9])|^{v}$")


def _word(value: str, flags: int = re.I) -> re.Pattern:
    """``value`` as a whole token: not inside a longer run of letters and digits (a hyphen
    or a dot is a boundary, so the host inside ``5.15.0-alice-ws7-custom`` is found)."""
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", flags)


class _Scrubber:
    def __init__(self, hostname: str | None, secrets: set[str], users: set[str] = frozenset()):
        self.patterns: list[tuple[re.Pattern, str]] = []
        for user in sorted(users, key=len, reverse=True):
            if len(user) >= 3 and user.lower() not in _NOT_USERS:
                self.patterns.append((_word(user, 0), "<user>"))
        names = []
        if isinstance(hostname, str) and hostname.strip():
            host = hostname.strip()
            names = [host, host.split(".", 1)[0]]
        for name in sorted(set(names), key=len, reverse=True):
            if len(name) >= 3 and name.lower() not in _GENERIC_HOSTS:
                # a host name made of letters alone ("gpu", "intel") is a word too: "Intel(R)
                # Xeon" and "needs a gpu driver" stay what they are
                self.patterns.append((_compound(name) if name.isalpha() else _word(name), "<host>"))
        hosts = {n.lower() for n in names}
        for value in sorted(secrets, key=len, reverse=True):
            if len(value) >= 4 and value.lower() not in _GENERIC_HOSTS and value.lower() not in hosts:
                self.patterns.append((_compound(value) if value.isalpha() else _word(value),
                                      "<redacted>"))

    def __call__(self, text: str, versions: bool = False) -> str:
        text = _HOME.sub(lambda m: m.group(1) + "<user>", text)
        text = _SHARED_USER.sub(lambda m: m.group(1) + ("<user>" if m.group(2).lower() not in _NOT_USERS
                                                        else m.group(2)), text)
        for pattern, repl in self.patterns:
            text = pattern.sub(repl, text)
        text = _GPU_UUID.sub("<uuid>", text)
        text = _UUID.sub("<uuid>", text)
        text = _MAC.sub("<mac>", text)
        text = _GUID.sub("<guid>", text)
        text = _IPV6.sub("<ip>", text)
        if not versions:
            text = _IPV4.sub("<ip>", text)
        return text


def _local_users() -> set[str]:
    """The user running accelgui (and the one behind sudo): a report made here may name them."""
    names = {os.environ.get(k, "") for k in ("USER", "LOGNAME", "SUDO_USER")}
    try:
        import pwd

        names.add(pwd.getpwuid(os.getuid()).pw_name)
    except (ImportError, KeyError, OSError):
        pass
    return {n for n in names if n and n.lower() not in _NOT_USERS}


def _collect(value, found: set[str], users: set[str]) -> None:
    """Values stored under identifying keys, and user names seen in paths, to scrub
    wherever else they appear."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and _SECRET_KEYS.search(key) and isinstance(item, (str, int)) \
                    and not isinstance(item, bool):
                found.add(str(item).strip())
            else:
                _collect(item, found, users)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found, users)
    elif isinstance(value, str):
        # names from home folders are scrubbed everywhere; a folder of a shared tree
        # (/data/NAME/) is weaker evidence ("/data/nvidia/" is no user): only in paths
        users.update(m.group(2) for m in _HOME.finditer(value))


def _apply(value, scrub: _Scrubber, where: str, marked: list[str], versions: bool = False):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and _SECRET_KEYS.search(key) and not isinstance(item, (dict, list)):
                out[key] = None
                if item is not None:
                    marked.append(path)
            elif isinstance(key, str) and key in _KEEP_KEYS and (
                    not isinstance(item, (dict, list)) or
                    isinstance(item, list) and all(isinstance(x, str) for x in item)):
                out[key] = item
            else:
                out[key] = _apply(item, scrub, path, marked, versions or key in _VERSION_MAPS)
        return out
    if isinstance(value, list):
        return [_apply(item, scrub, f"{where}[{i}]", marked, versions) for i, item in enumerate(value)]
    if isinstance(value, str):
        return scrub(value, versions)
    return value


def redact_data(value, hostname: str | None = None, users: set[str] | None = None):
    """A redacted copy of any JSON-like value (dicts, lists, strings, numbers)."""
    found: set[str] = set()
    seen_users: set[str] = set(users or ())
    _collect(value, found, seen_users)
    found.discard("")
    marked: list[str] = []
    out = _apply(value, _Scrubber(hostname, found, seen_users), "", marked)
    return out


def redact(report: Report) -> Report:
    data = report.to_dict()
    marked: list[str] = []
    found: set[str] = set()
    users = _local_users()
    _collect(data, found, users)
    found.discard("")
    scrub = _Scrubber((data.get("platform") or {}).get("hostname"), found, users)
    out = _apply(data, scrub, "", marked)
    out["redacted"] = True
    out["redacted_fields"] = sorted(set(report.redacted_fields) | set(marked))
    return Report.from_dict(out)
