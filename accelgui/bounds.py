"""Length limits of the strings and lists of a report (docs/report-contract.md, ``## Rules``).

A report read from a file (``--report FILE``, ``--compare``, a file opened in the app) came
from another machine and is hostile until shown otherwise: a device name of a million
characters made the PDF export take minutes and a Prometheus label value ten megabytes. So
:func:`bound_report` cuts every string of a loaded report to its kind's length and every list
to its kind's count, once, when the report is read (``Report.from_dict``), and the exporters
cut what they show through :func:`cut` again with the same limits (``accelgui.export.sanitize``),
so that an in-memory report built by other code is bounded alike.

A cut string ends with :data:`ELLIPSIS` and is at most its limit long; cutting is idempotent
(a cut string is not cut again). Nothing here raises: any JSON value goes in, a bounded one
comes out. Pure Python, no imports: the report, the exporters and the app share it.
"""

from __future__ import annotations

NAME_MAX = 256          # characters of a name, id, version, word or label
TEXT_MAX = 4096         # characters of a free text: reasons, fixes, notes, errors, paths
LIST_MAX = 4096         # entries of the report's devices, routes and probes
ITEMS_MAX = 10000       # entries of any other list or object (the probe runner's own cap)
DEPTH_MAX = 64          # levels of nesting kept (load_report refuses deeper files)
ELLIPSIS = "\u2026"     # "…" ends a cut string

# keys whose strings (or the strings of whose lists) are names, not free text
NAME_KEYS = frozenset({
    "schema_version", "accelgui_version", "created", "id", "name", "kind", "vendor", "vendor_id",
    "model_name", "arch", "microarchitecture", "codename", "hypervisor_vendor", "flags",
    "features", "os", "os_release", "kernel", "machine", "hostname", "virtualization",
    "container", "provider", "instance_type", "bus", "address", "pci_id", "usb_id", "driver",
    "readiness", "family", "status", "verdict", "title", "route", "step", "goal", "goal_source",
    "goal_title", "level", "fallback", "requirement", "state", "next_steps", "unconfirmed",
    "providers", "providers_listed", "redacted_fields", "version", "driver_version",
    "product_name", "sys_vendor", "board_name", "board_vendor", "bios_vendor", "bios_version",
    "bios_date", "chassis_vendor", "chassis_type", "product_version", "product_family",
    "product_serial", "product_uuid", "board_serial", "chassis_serial", "chassis_asset_tag",
    "model", "quant", "size", "segment", "runtime", "class", "decode_class", "basis", "label",
    "unit", "mode", "device",
})
# top-level lists capped at LIST_MAX (the rest at ITEMS_MAX)
_SHORT_LISTS = frozenset({"devices", "routes", "probes"})


def cut(text: str, limit: int = NAME_MAX) -> str:
    """``text`` when it is at most ``limit`` characters, else its first ``limit - 1``
    characters and an ellipsis (``limit`` characters in all)."""
    if len(text) <= limit:
        return text
    return text[:max(limit - 1, 0)] + ELLIPSIS


def limit_of(key) -> int:
    """The length limit of a string held under ``key`` (a report's field name)."""
    return NAME_MAX if key in NAME_KEYS else TEXT_MAX


def bound(value, key=None, depth: int = 0):
    """A copy of the JSON value ``value`` with its strings cut by the kind of their key (a
    name: :data:`NAME_MAX`, else :data:`TEXT_MAX`), object keys cut as names, lists and
    objects cut to :data:`ITEMS_MAX` entries and anything nested deeper than
    :data:`DEPTH_MAX` levels dropped (None)."""
    if isinstance(value, str):
        return cut(value, limit_of(key))
    if depth >= DEPTH_MAX and isinstance(value, (dict, list, tuple)):
        return None
    if isinstance(value, dict):
        out = {}
        for n, (k, v) in enumerate(value.items()):
            if n >= ITEMS_MAX:
                break
            k = cut(k, NAME_MAX) if isinstance(k, str) else k
            out[k] = bound(v, k, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        cap = LIST_MAX if depth == 1 and key in _SHORT_LISTS else ITEMS_MAX
        return [bound(v, key, depth + 1) for v in value[:cap]]
    return value


def bound_report(data):
    """:func:`bound` of a whole report object (the devices, routes and probes lists to
    :data:`LIST_MAX` entries); anything that is not an object is returned as it is."""
    return bound(data) if isinstance(data, dict) else data
