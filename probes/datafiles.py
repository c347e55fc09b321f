"""The probes' hardware tables (``data/vendors.json``, ``runtimes.json``, ``socs.json``,
``platforms.json``), each read once per process, lazily, and merged with a site's own.

A folder named in ``ACCELGUI_DATA_DIRS`` (``os.pathsep``-separated) may hold a file of the same
name and shape: its entries join the shipped ones without rebuilding the package (a vendor,
runtime, SoC or cloud being written, or one a site adds). Merging, per top-level key: an
object is merged key by key (the site's entry replaces a shipped one of the same key); a list
gets the site's items first (signatures are tried in order, so a site's are tried before the
shipped ones); other values are the shipped ones. A site file that is not valid JSON, or not
an object, raises ValueError naming it: a typo must not silently drop a table.
"""

from __future__ import annotations

import json
import os
import threading

DATA_PACKAGE = "accelgui.probes"
ENV_DIRS = "ACCELGUI_DATA_DIRS"

_lock = threading.Lock()
_cache: dict[str, dict] = {}


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


def _site_tables(name: str) -> list[dict]:
    tables = []
    for folder in filter(None, os.environ.get(ENV_DIRS, "").split(os.pathsep)):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            try:
                data = json.loads(f.read().decode("utf-8"))
            except ValueError as exc:
                raise ValueError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object")
        tables.append(data)
    return tables


def load(name: str) -> dict:
    """The table ``data/<name>`` merged with the sites' copies (parsed once per process;
    callers must not change it)."""
    with _lock:
        if name in _cache:
            return _cache[name]
    from accelgui.data import read_bytes

    table = json.loads(read_bytes(DATA_PACKAGE, f"data/{name}"))
    for extra in _site_tables(name):
        table = _merge(table, extra)
    with _lock:
        return _cache.setdefault(name, table)


def reset() -> None:
    """Forget the parsed tables (the next lookup reads the files and ACCELGUI_DATA_DIRS again)."""
    with _lock:
        _cache.clear()
