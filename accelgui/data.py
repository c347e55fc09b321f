"""Data files shipped inside the package (route files, id tables), read through the
package's own loader: what ``pkgutil.get_data`` does, so a zipped install or a frozen
bundle reads them the same way, without importing ``importlib.resources``, which pulls in
zipfile, tempfile and typing and costs the headless probe several milliseconds at start-up.
"""

from __future__ import annotations

import functools
import importlib
import json
import os


def _located(package: str, relpath: str):
    spec = importlib.import_module(package).__spec__
    return spec.loader, os.path.join(os.path.dirname(spec.origin), *relpath.split("/"))


def read_bytes(package: str, relpath: str) -> bytes:
    """The bytes of ``relpath`` inside ``package``; OSError when it is not there."""
    loader, path = _located(package, relpath)
    return loader.get_data(path)


@functools.lru_cache(maxsize=32)
def json_file(package: str, relpath: str):
    """The parsed JSON of a data file of ``package``, read once per process and shared by every
    caller, who must not change it; OSError or ValueError when it is missing or broken."""
    return json.loads(read_bytes(package, relpath))


def list_names(package: str, relpath: str) -> list[str]:
    """Sorted file names in the data folder ``relpath`` of ``package``."""
    _, path = _located(package, relpath)
    try:
        return sorted(os.listdir(path))
    except NotADirectoryError:      # inside a zip archive: only importlib.resources can list
        from importlib.resources import files

        return sorted(entry.name for entry in files(package).joinpath(relpath).iterdir())


def nested_deeper_than(data, limit: int) -> bool:
    """Whether a parsed JSON value nests deeper than ``limit`` levels (walked with a stack,
    not recursion: a hostile file must not exhaust the interpreter's stack). Used where JSON
    from elsewhere is read: reports (accelgui.report) and knowledge override files."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False
