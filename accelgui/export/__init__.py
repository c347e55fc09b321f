"""Report exporters, one module per format: render(report, fmt, lang) -> str | bytes."""

from __future__ import annotations

import importlib

FORMATS = {
    "json": "json_format",
    "text": "text",
    "markdown": "markdown",
    "html": "html",
    "pdf": "pdf",
    "prometheus": "prometheus",
    "nfd": "nfd",
}
EXTENSIONS = {"json": ".json", "text": ".txt", "markdown": ".md", "html": ".html",
              "pdf": ".pdf", "prometheus": ".prom", "nfd": ".features"}


def render(report, fmt: str, lang: str = "en") -> str | bytes:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"accelgui.export.{FORMATS[fmt]}")
    return module.render(report, lang=lang)
