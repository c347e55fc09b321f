"""A small condition language for the hardware tables: platform, cloud and container
signatures (``data/platforms.json``), read by :mod:`accelgui.probes.platform`.

A condition is a JSON object:

* ``{"all": [c, ...]}``, ``{"any": [c, ...]}``, ``{"not": c}``
* a test of a text, where the text is one of
  ``{"fact": "sys_vendor"}`` (a named fact: the DMI strings ``sys_vendor``, ``product_name``,
  ``board_vendor``, ``bios_vendor``, ``bios_version``, ``chassis_vendor``,
  ``chassis_asset_tag``..., and whatever else the caller passes: ``kernel``, ``hypervisor``,
  ``cgroup``, ``clocksource``; a list of names means any of them),
  ``{"file": "proc/sysinfo"}`` (a file under the root; nothing without a context),
  ``{"line": "sys/hypervisor/type"}`` (its first line, stripped) or ``{"env": "VAR"}`` (the
  live system's environment only),
  and the test one of ``equals``, ``contains``, ``startswith``, ``endswith``, ``regex``
  (a search; keep it linear, and prefer the others: each pattern costs a compile per process),
  ``word`` (one of the blank-separated words), ``line_with`` (a line holding every one of the
  given strings),
  ``shape: "instance"`` (a cloud instance type: ``m5.xlarge``), ``present: true`` (non-empty);
  ``"ignore_case": true`` compares case-folded;
* ``{"exists": "proc/xen"}`` (a path under the root), ``{"compatible": "qemu,pseries"}`` (one
  of the device tree's compatible strings), ``{"cpu_flag": "hypervisor"}``, ``{"pci_id":
  ["15ad:0405", ...]}`` (a PCI function with one of these ids), ``{"pci_vendor": "1af4"}``,
  ``{"live": true}`` (the live system, not a recorded tree).

:class:`Facts` carries what conditions read; :func:`holds` evaluates one;
:func:`first_match` returns the first entry of an ordered list whose ``when`` holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# "<family with a digit>.<size>" (m5.xlarge, n2-standard-8.x): one dot, a digit before it;
# matched in two linear steps (one pattern with two [a-z0-9-]* around \d is quadratic)
_INSTANCE_SHAPE = re.compile(r"[a-z][a-z0-9-]*+\.[a-z0-9-]++")


def instance_shape(text: str) -> bool:
    """Whether ``text`` has the shape of a cloud instance type (``m5.xlarge``, ``c7g.metal``)."""
    return bool(_INSTANCE_SHAPE.fullmatch(text)) and any(c.isdigit() for c in text[1:text.find(".")])


class Facts:
    """What conditions read: named facts, and (optionally) a probe context for files,
    device-tree strings and PCI ids, each read once."""

    def __init__(self, facts: dict[str, str] | None = None, ctx=None, flags=(),
                 pci_ids: Callable[[], set] | None = None):
        self.facts = facts or {}
        self.ctx = ctx
        self.flags = set(flags or ())
        self._pci_ids = pci_ids
        self._cache: dict[str, Any] = {}

    def _read(self, how: str, rel: str) -> str:
        """``ctx.read_text`` or ``ctx.read_line`` of ``rel``, once; "" without a context."""
        if self.ctx is None:
            return ""
        key = f"{how}:{rel}"
        if key not in self._cache:
            self._cache[key] = getattr(self.ctx, how)(rel) or ""
        return self._cache[key]

    def file(self, rel: str) -> str:
        return self._read("read_text", rel)

    def line(self, rel: str) -> str:
        return self._read("read_line", rel)

    def exists(self, rel: str) -> bool:
        return self.ctx is not None and bool(self.ctx.exists(rel))

    def compatible(self) -> list[str]:
        return self.file("proc/device-tree/compatible").split("\x00")

    def pci(self) -> set:
        if "pci" not in self._cache:
            self._cache["pci"] = self._pci_ids() if self._pci_ids else set()
        return self._cache["pci"]

    def env(self, name: str) -> str:
        ctx = self.ctx
        return (ctx.env.get(name) or "") if ctx is not None and ctx.live else ""


def _texts(cond: dict, facts: Facts) -> list[str]:
    if "fact" in cond:
        names = cond["fact"] if isinstance(cond["fact"], list) else [cond["fact"]]
        return [str(facts.facts.get(n) or "") for n in names]
    if "file" in cond:
        return [facts.file(cond["file"])]
    if "line" in cond:
        return [facts.line(cond["line"])]
    return [facts.env(cond["env"])]


def _lines_with(text: str, needles: list[str]) -> bool:
    return any(all(n in line for n in needles) for line in text.splitlines())


_TESTS: dict[str, Callable[[str, Any], bool]] = {     # and "regex", in _text_test
    "equals": lambda text, want: text == want,
    "contains": lambda text, want: want in text,
    "startswith": lambda text, want: text.startswith(want),
    "endswith": lambda text, want: text.endswith(want),
    "line_with": _lines_with,
    "word": lambda text, want: want in text.split(),
    "shape": lambda text, want: want == "instance" and instance_shape(text),
    "present": lambda text, want: bool(text) == bool(want),
}


def _fold(value, ignore_case: bool):
    if not ignore_case:
        return value
    if isinstance(value, list):
        return [v.lower() for v in value]
    return value.lower() if isinstance(value, str) else value


def _text_test(cond: dict, facts: Facts) -> bool:
    ops = [op for op in (*_TESTS, "regex") if op in cond]
    if len(ops) != 1:
        raise ValueError(f"a condition needs exactly one test of {sorted([*_TESTS, 'regex'])}: {cond}")
    op = ops[0]
    fold = bool(cond.get("ignore_case"))
    if op == "regex":           # the pattern is not folded: \A must not become \a
        pattern = re.compile(cond[op], re.IGNORECASE if fold else 0)
        return any(pattern.search(text) for text in _texts(cond, facts))
    want = _fold(cond[op], fold)
    return any(_TESTS[op](_fold(text, fold), want) for text in _texts(cond, facts))


def holds(cond: dict, facts: Facts) -> bool:
    """Whether ``cond`` holds for ``facts``; ValueError for a condition of no known form."""
    if "all" in cond:
        return all(holds(c, facts) for c in cond["all"])
    if "any" in cond:
        return any(holds(c, facts) for c in cond["any"])
    if "not" in cond:
        return not holds(cond["not"], facts)
    if "fact" in cond or "file" in cond or "line" in cond or "env" in cond:
        return _text_test(cond, facts)
    if "exists" in cond:
        return facts.exists(cond["exists"])
    if "compatible" in cond:
        return cond["compatible"] in facts.compatible()
    if "cpu_flag" in cond:
        return cond["cpu_flag"] in facts.flags
    if "pci_id" in cond:
        wanted = {tuple(int(part, 16) for part in pair.split(":")) for pair in cond["pci_id"]}
        return bool(wanted & facts.pci())
    if "pci_vendor" in cond:
        return any(vendor == int(cond["pci_vendor"], 16) for vendor, _ in facts.pci())
    if "live" in cond:
        return bool(facts.ctx is not None and facts.ctx.live) == bool(cond["live"])
    raise ValueError(f"a condition of no known form: {cond}")


def first_match(entries: list[dict], facts: Facts) -> dict | None:
    """The first entry whose ``when`` holds (an entry without ``when`` always does)."""
    for entry in entries:
        if holds(entry.get("when") or {"all": []}, facts):
            return entry
    return None
