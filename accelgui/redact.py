"""Remove what identifies a machine or a person before a report is shared.

Host names, DMI serial numbers and UUIDs, device UUIDs and serials and MAC addresses become
null; user names inside home-directory paths become ``<user>``. It works on the report's
dict form, by key name and by value pattern, so fields added later are covered too:

1. every value under an identifying key (``hostname``, ``*serial*``, ``*uuid``, ``mac*``,
   ``asset_tag``, ``machine_id``, ``user`` ...) becomes null, and the value is remembered;
2. every string anywhere (keys too) is scrubbed of those remembered values, of the host name
   (full and short form, as a whole word), and of anything shaped like a UUID, an NVIDIA
   ``GPU-``/``MIG-`` id, a MAC address (``:`` or ``-`` separated), an InfiniBand GUID, or a
   user name after ``/home/``, ``/Users/``, ``C:\\Users\\``.
"""

from __future__ import annotations

import re

from accelgui.report import Report

_SECRET_KEYS = re.compile(
    r"(^|_)(hostname|host_name|nodename|node_name|fqdn|serial|serial_number|serial_no|"
    r"uuid|guid|mac|mac_address|macaddr|hwaddr|permanent_address|"
    r"board_serial|chassis_serial|product_serial|product_uuid|machine_id|boot_id|"
    r"asset_tag|chassis_asset_tag|board_asset_tag|user|username|user_name|login|owner)$", re.I)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_GPU_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-f-]{8,}\b", re.I)
_MAC = re.compile(r"\b[0-9a-f]{2}(?:([:-])[0-9a-f]{2})(?:\1[0-9a-f]{2}){4}\b", re.I)
_GUID = re.compile(r"\b[0-9a-f]{4}(?::[0-9a-f]{4}){3}\b", re.I)
_HOME = re.compile(r"(/home/|/Users/|/var/home/|\\Users\\)([^/\\\s\"'<>]+)")
# names that identify nothing (a default install), never replaced inside other text
_GENERIC_HOSTS = {"localhost", "localhost.localdomain", "ubuntu", "debian", "fedora", "linux",
                  "raspberrypi", "archlinux", "host", "server", "none", "unknown"}


def _word(value: str) -> re.Pattern:
    return re.compile(r"(?<![A-Za-z0-9_-])" + re.escape(value) + r"(?![A-Za-z0-9_-])", re.I)


class _Scrubber:
    def __init__(self, hostname: str | None, secrets: set[str], users: set[str] = frozenset()):
        self.patterns: list[tuple[re.Pattern, str]] = []
        for user in sorted(users, key=len, reverse=True):
            if len(user) >= 3 and user not in ("<user>", "shared", "runner", "user"):
                self.patterns.append((_word(user), "<user>"))
        names = []
        if isinstance(hostname, str) and hostname.strip():
            host = hostname.strip()
            names = [host, host.split(".", 1)[0]]
        for name in sorted(set(names), key=len, reverse=True):
            if len(name) >= 3 and name.lower() not in _GENERIC_HOSTS:
                self.patterns.append((_word(name), "<host>"))
        for value in sorted(secrets, key=len, reverse=True):
            if len(value) >= 4 and value.lower() not in _GENERIC_HOSTS:
                self.patterns.append((_word(value), "<redacted>"))

    def __call__(self, text: str) -> str:
        text = _HOME.sub(lambda m: m.group(1) + "<user>", text)
        for pattern, repl in self.patterns:
            text = pattern.sub(repl, text)
        text = _GPU_UUID.sub("<uuid>", text)
        text = _UUID.sub("<uuid>", text)
        text = _MAC.sub("<mac>", text)
        text = _GUID.sub("<guid>", text)
        return text


def _collect(value, found: set[str], users: set[str]) -> None:
    """Values stored under identifying keys, and user names seen in home paths, to scrub
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
        users.update(m.group(2) for m in _HOME.finditer(value))


def _apply(value, scrub: _Scrubber):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and _SECRET_KEYS.search(key) and not isinstance(item, (dict, list)):
                out[key] = None
            else:
                out[scrub(key) if isinstance(key, str) else key] = _apply(item, scrub)
        return out
    if isinstance(value, list):
        return [_apply(item, scrub) for item in value]
    if isinstance(value, str):
        return scrub(value)
    return value


def redact_data(value, hostname: str | None = None):
    """A redacted copy of any JSON-like value (dicts, lists, strings, numbers)."""
    found: set[str] = set()
    users: set[str] = set()
    _collect(value, found, users)
    found.discard("")
    return _apply(value, _Scrubber(hostname, found, users))


def redact(report: Report) -> Report:
    data = report.to_dict()
    return Report.from_dict(redact_data(data, (data.get("platform") or {}).get("hostname")))
