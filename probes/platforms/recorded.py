"""The recorded-folder reader: a macOS or Windows machine as a folder of command outputs.

One file per command, as the user saved it (``sysctl -a > "sysctl -a.txt"``, PowerShell's
``> file``, a copy from a forum post): UTF-8 or UTF-16 (LE/BE), with or without a BOM,
``\\r\\n`` or ``\\n``, possibly cut short. Each file is recognised by its content, never by
its name (names are for people); the backends' recognisers
(``accelgui.probes.platforms.<os>.commands``) say which command wrote it.

Hostile input is bounded like a recorded Linux tree: only regular files inside the folder
are read (through a :class:`~accelgui.probes.context.ProbeContext` of the folder, so links
out of it, loops, FIFOs and devices are refused), at most MAX_FILES files, MAX_BYTES of
each and MAX_TOTAL_BYTES in all, every line cut at LINE_LIMIT; binary garbage is set aside. What could not be used is a
fault ``(file name, reason)``, reported as a warning of the ``platform`` probe.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from accelgui.probes.context import LINE_LIMIT

MAX_FILES = 512                 # files of one recorded folder looked at
MAX_BYTES = 16 << 20            # bytes read from one file (a full Win32_PnPSignedDriver list fits)
MAX_TOTAL_BYTES = 96 << 20      # bytes read from the whole folder (a real recording is a few MiB)
SNIFF_CHARS = 64 << 10          # characters a recogniser is shown
_DOCS = re.compile(r"^(readme|license|licence|notes?)(\..*)?$|\.(md|rst|html?)$", re.I)
_UNSAFE_NAME = str.maketrans({c: "_" for c in '/\\:"<>?\x00'})


def file_name(argv) -> str:
    """The file name a command's output is recorded under: the command line, ``|`` written
    ``pipe`` and ``*`` written ``star``, characters no file system takes as ``_``."""
    line = " ".join(argv).replace("|", "pipe").replace("*", "star")
    return line.translate(_UNSAFE_NAME).strip(" .")[:200] + ".txt"


def decode(data: bytes) -> str | None:
    """The text of a recorded output, or None when it is not text (binary garbage). BOMs
    (UTF-8, UTF-16 LE/BE) are honoured; without one, NULs at every other byte say UTF-16;
    else UTF-8, then GB 18030 (a Chinese Windows console), then Windows-1252. Line ends
    become ``\\n``; lines are cut at LINE_LIMIT characters."""
    text = _decoded(data)
    if not text:
        return "" if text == "" else None
    if _garbage(text[:SNIFF_CHARS]):
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > LINE_LIMIT and any(len(line) > LINE_LIMIT for line in text.split("\n")):
        text = "\n".join(line[:LINE_LIMIT] for line in text.split("\n"))
    return text


def _decoded(data: bytes) -> str | None:
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, "replace")
    sample = data[:4096]
    half = len(sample) // 2
    if half >= 2:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd > half * 0.3 and even < half * 0.05:
            return data.decode("utf-16-le", "replace")
        if even > half * 0.3 and odd < half * 0.05:
            return data.decode("utf-16-be", "replace")
    for codec in ("utf-8", "gb18030"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("cp1252", "replace")


def _garbage(sample: str) -> bool:
    """Mostly control characters or undecodable bytes: not a command's output."""
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f"))
    return bad > len(sample) * 0.05


@dataclass
class Recording:
    """What a recorded folder holds: ``claimed`` command key -> [(file name, text, faults)]
    in file-name order; ``faults`` (file name, reason) of files nothing could use;
    ``platform`` the backend whose commands claimed the most files (None: none did)."""

    root: str
    claimed: dict[str, list[tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)
    faults: list[tuple[str, str]] = field(default_factory=list)
    platform: str | None = None

    def texts(self, key: str) -> list[str]:
        return [text for _, text, _ in self.claimed.get(key, ())]

    def files(self) -> dict[str, list[str]]:
        return {key: [name for name, _, _ in entries] for key, entries in self.claimed.items()}


def recognise(text: str, commands) -> str | None:
    """The key of the first command whose recogniser claims ``text``, or None."""
    sample = text[:SNIFF_CHARS]
    for cmd in commands:
        try:
            if cmd.recognise(sample):
                return cmd.key
        except Exception:  # noqa: BLE001 - a recogniser's bug must not stop the reading
            continue
    return None


def scan(root: str, commands=None) -> Recording:
    """Read and recognise every file directly inside ``root`` (sub-folders are not looked
    into). ``commands``: the recognisers to try (every backend's by default)."""
    from accelgui.probes import platforms
    from accelgui.probes.context import ProbeContext

    if commands is None:
        commands = platforms.all_commands()
    rec = Recording(root)
    folder = ProbeContext(root)
    names = [n for n in folder.listdir("") if not _DOCS.search(n)]
    if len(names) > MAX_FILES:
        rec.faults.append((f"{len(names) - MAX_FILES} files after {names[MAX_FILES - 1]}", "truncated"))
        names = names[:MAX_FILES]
    votes: dict[str, int] = {}
    budget = MAX_TOTAL_BYTES
    for name in names:
        if folder.is_dir(name):
            continue
        if budget <= 0:
            rec.faults.append((name, "truncated"))      # the folder's read budget is spent
            continue
        data = folder.read_bytes(name, min(MAX_BYTES, budget))
        budget -= len(data or b"")
        faults = tuple(reason for _, reason in folder.take_faults(""))
        text = decode(data) if data is not None else None
        if text is None:
            if data is not None:            # read, but not text
                rec.faults.append((name, "unparseable"))
            rec.faults.extend((name, r) for r in faults or ("unreadable",))   # a dangling link
            continue
        if not text.strip():                # an empty capture (the command printed nothing)
            continue
        key = recognise(text, commands)
        if key is None:
            rec.faults.append((name, "unparseable"))
            continue
        rec.claimed.setdefault(key, []).append((name, text, faults))
        os_name = key.partition(".")[0]
        votes[os_name] = votes.get(os_name, 0) + 1
    if votes:
        rec.platform = max(votes, key=lambda k: (votes[k], -platforms.BACKENDS.index(k)))
    return rec
