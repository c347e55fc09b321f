"""Remove what identifies a machine or a person before a report is shared.

Host names, DMI serial numbers and UUIDs, device UUIDs and serials and MAC addresses become
null; user names inside home-directory paths become ``<user>``. It works on the report's
dict form, by key name and by value pattern, so fields added later are covered too.
"""

from __future__ import annotations

import re

from accelgui.report import Report

_SECRET_KEYS = re.compile(
    r"(^|_)(hostname|host_name|nodename|serial|serial_number|uuid|guid|mac|mac_address|"
    r"board_serial|chassis_serial|product_serial|product_uuid|machine_id|boot_id|"
    r"asset_tag|chassis_asset_tag|board_asset_tag|user|username)$", re.I)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_GPU_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-f-]{8,}\b", re.I)
_MAC = re.compile(r"\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b", re.I)
_HOME = re.compile(r"(/home/|/Users/|\\Users\\)([^/\\\s\"']+)")


def _scrub_text(text: str, hostname: str | None) -> str:
    text = _UUID.sub("<uuid>", text)
    text = _GPU_UUID.sub("<uuid>", text)
    text = _MAC.sub("<mac>", text)
    text = _HOME.sub(lambda m: m.group(1) + "<user>", text)
    if hostname and len(hostname) > 2:
        text = text.replace(hostname, "<host>")
    return text


def redact_data(value, hostname: str | None = None):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and _SECRET_KEYS.search(key) and not isinstance(item, (dict, list)):
                out[key] = None
            else:
                out[_scrub_text(key, hostname) if isinstance(key, str) else key] = \
                    redact_data(item, hostname)
        return out
    if isinstance(value, list):
        return [redact_data(item, hostname) for item in value]
    if isinstance(value, str):
        return _scrub_text(value, hostname)
    return value


def redact(report: Report) -> Report:
    data = report.to_dict()
    return Report.from_dict(redact_data(data, data.get("platform", {}).get("hostname")))
