"""The macOS commands accelgui reads, and how each one's output is recognised.

Recognisers look at the shape of the text, not at its language: ``sysctl`` prints
``name.of.key: value`` lines under the ``hw.``/``machdep.``/``kern.`` trees, ``sw_vers``
``ProductName:``/``ProductVersion:`` lines (English in every locale), ``system_profiler``
either JSON (``-json``: ``{"SPHardwareDataType": [...]}``), a property list (``-xml``) or
text: an unindented section title ending in a colon (``Hardware:``, or a full-width one) over
indented ``Key: Value`` lines.
"""

from __future__ import annotations

import re

from accelgui.probes.platforms import Command

_SYSCTL = re.compile(r"^(?:hw|machdep\.cpu)\.[A-Za-z0-9_.]+: \S", re.M)
_LINUX_SYSCTL = re.compile(r"^[a-z0-9_]+\.[a-z0-9_.]+ = ", re.M)
_SW_VERS = re.compile(r"^ProductName:\s+\S", re.M)
_SW_VERS_VERSION = re.compile(r"^ProductVersion:\s+\d", re.M)
_SP_JSON = re.compile(r'\A\s*\{\s*"SP[A-Za-z]+DataType"\s*:\s*\[')
_SP_PLIST = re.compile(r"<plist\b")
_SP_DATATYPE = re.compile(r"<key>_dataType</key>\s*<string>SP[A-Za-z]+DataType</string>")
# a section title ("Hardware:") over an indented line, after a shell prompt or not
_SP_TITLE = re.compile(r"^\S[^\n:\uff1a]{0,80}[:\uff1a][ \t]*\n(?:[ \t]*\n){0,3} {2,}\S", re.M)
_SP_PAIR = re.compile(r"^ {4,}\S[^\n:\uff1a]{0,120}[:\uff1a][ \t]*\S", re.M)
# the lines users paste without the outline: "Model Identifier: MacBookAir10,1" (no space
# before the colon, unlike PowerShell's "Name : value"), one of the labels only system_profiler
# prints among them (English, and Chinese written as escapes: model identifier, chipset model,
# total number of cores)
_SP_FLAT_LINE = re.compile(r"^[ \t]*[^\s:\uff1a][^\n:\uff1a]{0,60}[^\s:\uff1a][:\uff1a][ \t]*\S", re.M)
_SP_FLAT_KEY = re.compile(r"^[ \t]*(?:Model Identifier|Chipset Model|Total Number of Cores|Metal Support|"
                          r"\u578b\u53f7\u6807\u8bc6\u7b26|\u82af\u7247\u7ec4\u578b\u53f7|\u6838\u603b\u6570)"
                          r"[:\uff1a]", re.M)


def is_sysctl(text: str) -> bool:
    """``sysctl -a`` / ``sysctl hw machdep`` of macOS: ``hw.ncpu: 8`` lines (Linux's
    sysctl prints ``kernel.x = y``)."""
    return bool(_SYSCTL.search(text, 0, 65536)) and not _LINUX_SYSCTL.search(text, 0, 4096)


def is_sw_vers(text: str) -> bool:
    return bool(_SW_VERS.search(text, 0, 4096) and _SW_VERS_VERSION.search(text, 0, 4096))


def is_system_profiler(text: str) -> bool:
    """Any ``system_profiler`` output: JSON, XML property list, or text in any language."""
    if _SP_JSON.match(text) or (_SP_PLIST.search(text, 0, 4096) and _SP_DATATYPE.search(text, 0, 65536)):
        return True
    if _SP_TITLE.search(text, 0, 4096) and _SP_PAIR.search(text, 0, 16384):
        return True
    return bool(_SP_FLAT_KEY.search(text, 0, 16384)) and len(_SP_FLAT_LINE.findall(text, 0, 16384)) >= 3


SYSCTL = Command("macos.sysctl", ("sysctl", "-a"), is_sysctl, timeout_s=10.0,
                 also=(("sysctl", "hw", "machdep", "kern", "iogpu"), ("sysctl", "machdep.cpu")))
SW_VERS = Command("macos.sw_vers", ("sw_vers",), is_sw_vers, timeout_s=5.0)
# one run for the data types the probes read; -json is read without any locale's labels
SYSTEM_PROFILER = Command(
    "macos.system_profiler",
    ("system_profiler", "-json", "SPHardwareDataType", "SPDisplaysDataType", "SPMemoryDataType",
     "SPUSBDataType", "SPUSBHostDataType", "SPSoftwareDataType"),
    is_system_profiler, timeout_s=30.0,
    also=(("system_profiler", "SPDisplaysDataType"), ("system_profiler", "SPHardwareDataType"),
          ("system_profiler", "SPMemoryDataType"), ("system_profiler", "SPUSBDataType"),
          ("system_profiler", "-xml", "SPDisplaysDataType")))

COMMANDS = (SYSCTL, SW_VERS, SYSTEM_PROFILER)
