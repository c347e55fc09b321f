"""The probes' hardware tables (``data/vendors.json``, ``runtimes.json``, ``socs.json``,
``platforms.json``), each read once per process, lazily, and merged with a site's own.

A folder named in ``ACCELGUI_DATA_DIRS`` (``os.pathsep``-separated) may hold a file of the same
name and shape: its entries join the shipped ones without rebuilding the package (a vendor,
runtime, SoC or cloud being written, or one a site adds). Merging, per top-level key: an
object is merged key by key (the site's entry replaces a shipped one of the same key); a list
gets the site's items first (signatures are tried in order, so a site's are tried before the
shipped ones); other values are the shipped ones.

A site file is a file its owner named, so a link to one is followed; but it must be a regular
file of at most :data:`SITE_FILE_MAX_BYTES`, valid JSON, an object, and the merged table must
fit the schema beside the shipped one (``data/<name>.schema.json``, checked through
:mod:`accelgui.validation`, so jsonschema is imported only when a site file exists). A site
file that fails any of these is left out whole, the shipped table kept, and the reason is
kept for :func:`problems`: the probes that read the table report it as a warning of their
own (:func:`report_problems`), so a typo neither stops the report nor silently drops a table.
"""

from __future__ import annotations

import json
import os
import stat
import threading

DATA_PACKAGE = "accelgui.probes"
ENV_DIRS = "ACCELGUI_DATA_DIRS"
SITE_FILE_MAX_BYTES = 4 << 20       # the largest shipped table is under 64 KiB

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)

_lock = threading.Lock()
_cache: dict[str, dict] = {}
_problems: dict[str, list[tuple[str, str]]] = {}


class UnusableFileError(ValueError):
    """A file a person named that is not used; ``reason`` is one of the probe warning reasons
    (``not-a-file``, ``unreadable``, ``unparseable``), the message says why."""

    def __init__(self, reason: str, why: str):
        super().__init__(why)
        self.reason = reason


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = {**old, **value}
        elif isinstance(old, list) and isinstance(value, list):
            out[key] = value + old
        elif key not in out:
            out[key] = value
    return out


def read_named_file(path: str, max_bytes: int) -> bytes:
    """The bytes of a file a person named (a site table here, a route override file in
    :mod:`accelgui.knowledge`), links followed; UnusableFileError for one that is not a regular
    file (a FIFO is refused without waiting on it), is larger than ``max_bytes`` or cannot be
    opened."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise UnusableFileError("unreadable", exc.strerror or str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnusableFileError("not-a-file", "not a regular file")
        chunks, total = [], 0
        while st.st_size <= max_bytes and total <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - total)      # it may grow while it is read
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if st.st_size > max_bytes or total > max_bytes:
        raise UnusableFileError("unreadable", f"larger than {max_bytes >> 20} MiB")
    return b"".join(chunks)


def site_table(path: str) -> dict:
    """The parsed site file at ``path``; UnusableFileError when it cannot be one."""
    try:
        data = read_named_file(path, SITE_FILE_MAX_BYTES)
    except UnusableFileError as exc:
        raise UnusableFileError(exc.reason, f"cannot read: {exc}") from None
    try:
        table = json.loads(data.decode("utf-8"))
    except ValueError as exc:       # UnicodeDecodeError and JSONDecodeError both
        raise UnusableFileError("unparseable", f"not valid JSON ({exc})") from None
    if not isinstance(table, dict):
        raise UnusableFileError("unparseable", "expected a JSON object")
    return table


def schema_problem(schema: str, table: dict) -> str | None:
    """The first way ``table`` breaks the schema ``schema`` (a path in this package, e.g.
    ``data/vendors.schema.json``), as "field: message", or None."""
    from accelgui import validation

    problem = validation.first_problem(DATA_PACKAGE, schema, table)
    return None if problem is None else f"{problem[0]}: {problem[1]}"


def _site_paths(name: str) -> list[str]:
    folders = filter(None, os.environ.get(ENV_DIRS, "").split(os.pathsep))
    return [path for path in (os.path.join(folder, name) for folder in folders)
            if os.path.lexists(path)]


def _with_sites(name: str, table: dict) -> tuple[dict, list[tuple[str, str]]]:
    """``table`` merged with every usable site file of ``name``, and (path, reason) of the
    ones left out, each path followed by what is wrong with it."""
    left_out: list[tuple[str, str]] = []
    for path in _site_paths(name):
        try:
            merged = _merge(table, site_table(path))
            problem = schema_problem(f"data/{name[:-len('.json')]}.schema.json", merged)
            if problem is not None:
                raise UnusableFileError("unparseable", problem)
        except UnusableFileError as exc:
            left_out.append((f"{ENV_DIRS} {path}: {exc}", exc.reason))
            continue
        table = merged
    return table, left_out


def load(name: str) -> dict:
    """The table ``data/<name>`` merged with the sites' usable copies (parsed once per process;
    callers must not change it)."""
    with _lock:
        if name in _cache:
            return _cache[name]
    from accelgui.data import read_bytes

    table, left_out = _with_sites(name, json.loads(read_bytes(DATA_PACKAGE, f"data/{name}")))
    with _lock:
        _problems.setdefault(name, left_out)
        return _cache.setdefault(name, table)


def problems(name: str) -> list[tuple[str, str]]:
    """(what, reason) of each site file of table ``name`` that was left out (``what`` names
    the file and says what is wrong with it; ``reason`` as :class:`UnusableFileError`'s)."""
    load(name)
    with _lock:
        return list(_problems.get(name, ()))


def report_problems(ctx, *names: str) -> None:
    """Record each left-out site file of the tables ``names`` as a fault of the probe running
    in ``ctx``, so the report's warnings say which file was not used and why."""
    for name in names:
        for what, reason in problems(name):
            ctx.fault(what, reason)


def reset() -> None:
    """Forget the parsed tables (the next lookup reads the files and ACCELGUI_DATA_DIRS again)."""
    with _lock:
        _cache.clear()
        _problems.clear()
