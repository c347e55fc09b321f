"""Data files shipped inside the package (route files, id tables), read through the
package's own loader: what ``pkgutil.get_data`` does, so a zipped install or a frozen
bundle reads them the same way, without importing ``importlib.resources``, which pulls in
zipfile, tempfile and typing and costs the headless probe several milliseconds at start-up.
"""

from __future__ import annotations

import importlib
import os


def _located(package: str, relpath: str):
    spec = importlib.import_module(package).__spec__
    return spec.loader, os.path.join(os.path.dirname(spec.origin), *relpath.split("/"))


def read_bytes(package: str, relpath: str) -> bytes:
    """The bytes of ``relpath`` inside ``package``; OSError when it is not there."""
    loader, path = _located(package, relpath)
    return loader.get_data(path)


def list_names(package: str, relpath: str) -> list[str]:
    """Sorted file names in the data folder ``relpath`` of ``package``."""
    _, path = _located(package, relpath)
    try:
        return sorted(os.listdir(path))
    except NotADirectoryError:      # inside a zip archive: only importlib.resources can list
        from importlib.resources import files

        return sorted(entry.name for entry in files(package).joinpath(relpath).iterdir())
