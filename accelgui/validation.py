"""JSON Schema validation, the one path every schema of accelgui is checked through.

The schemas are the shipped files (``knowledge/schema.json`` for route files,
``accelgui/report.schema.json`` for reports and their benchmark section); the RULE part of the
route schema is written from the operator registry of ``accelgui.rules``. Each is checked with
jsonschema's Draft 2020-12 validator, imported only here and only when something is checked:
a route file from an override directory, a report read from a file, a benchmark section. The
headless probe checks none of these, so it never imports jsonschema.

Problems come as ``(field, message)`` pairs sorted by field, the field written as in the
sources (``steps[2].title.zh``), the message in plain words (``missing``, ``unknown field``,
``must be true or false (got a string)``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: how a JSON type is named in a message
_TYPE_WORDS = {"boolean": "true or false", "string": "a string", "number": "a number",
               "integer": "a whole number", "object": "an object", "array": "a list",
               "null": "null"}


def describe(value: object) -> str:
    """What a JSON value is, in words: "a string", "an object", "null"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number" if value == value and value not in (float("inf"), float("-inf")) \
            else "a non-finite number"
    words: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return words.get(type(value), type(value).__name__)


def field(parts: Iterable[Any], root: str = "") -> str:
    """A path as the sources write it: ``steps[2].title`` (``root`` first, when given)."""
    out = root
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@functools.lru_cache(maxsize=16)
def _validator(package: str, relpath: str, definition: str | None) -> Any:
    """A Draft 2020-12 validator of a shipped schema file, or of one of its ``$defs``."""
    import jsonschema

    from accelgui.data import json_file

    schema = json_file(package, relpath)
    if definition is not None:
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(schema)


def validator_for(schema: dict[str, Any]) -> Any:
    """A validator of a schema built in code (the rules registry's); not cached."""
    import jsonschema

    return jsonschema.Draft202012Validator(schema)


def problems(package: str, relpath: str, data: object, *, definition: str | None = None,
             root: str = "", unknown: str = "unknown field") -> list[tuple[str, str]]:
    """Every problem of ``data`` against the schema file ``relpath`` of ``package`` (or its
    ``$defs/definition``), as (field, message) sorted by field; [] when it fits."""
    return problems_of(_validator(package, relpath, definition), data, root=root, unknown=unknown)


def problems_of(validator: Any, data: object, *, root: str = "",
                unknown: str = "unknown field") -> list[tuple[str, str]]:
    """The problems ``validator`` finds in ``data`` (see :func:`problems`)."""
    errors = sorted(validator.iter_errors(data), key=_path_key)
    out: list[tuple[str, str]] = []
    for error in errors:
        for problem in _explain(error, root, unknown):
            if problem not in out:
                out.append(problem)
    return out


def _path_key(error: Any) -> list[tuple[bool, Any]]:
    """Sort key of an error by its field: list indices in numeric order (steps[2] before
    steps[10]), names in alphabetical order."""
    return [(isinstance(part, str), part) for part in error.absolute_path]


def first_problem(package: str, relpath: str, data: object, *, definition: str | None = None,
                  root: str = "", unknown: str = "unknown field") -> tuple[str, str] | None:
    """The most telling problem (jsonschema's ``best_match``: the deepest), or None."""
    import jsonschema

    error = jsonschema.exceptions.best_match(
        _validator(package, relpath, definition).iter_errors(data))
    if error is None:
        return None
    return next(iter(_explain(error, root, unknown)), (field(error.absolute_path, root), error.message))


def _explain(error: Any, root: str, unknown: str) -> Iterator[tuple[str, str]]:
    """(field, message) pairs for one jsonschema error, in the words of the sources."""
    where = field(error.absolute_path, root) or "(top level)"
    kind, want, got = error.validator, error.validator_value, error.instance
    if kind in ("oneOf", "anyOf") and error.context:
        import jsonschema

        yield from _explain(jsonschema.exceptions.best_match(error.context), root, unknown)
    elif kind == "required":
        for key in want:
            if isinstance(got, dict) and key not in got:
                yield _join(where, key), "missing"
    elif kind == "dependentRequired" and isinstance(got, dict):
        for key, needs in want.items():
            for need in needs if key in got else ():
                if need not in got:
                    yield _join(where, need), f"missing (it goes with {key})"
    elif kind == "additionalProperties" and isinstance(got, dict):
        known = set(error.schema.get("properties", {}))
        patterns = list(error.schema.get("patternProperties", {}))
        import re

        for key in got:
            if key not in known and not any(re.search(p, key) for p in patterns):
                yield _join(where, key), unknown
    elif kind == "uniqueItems" and isinstance(got, list):
        seen: list[Any] = []
        for i, item in enumerate(got):
            if item in seen:
                yield f"{where}[{i}]", f"{item!r} is listed twice"
                break
            seen.append(item)
    else:
        yield where, _message(kind, want, got, error.message)


def _join(where: str, key: str) -> str:
    return key if where == "(top level)" else f"{where}.{key}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _message(kind: str, want: Any, got: Any, fallback: str) -> str:
    """The words for one failed keyword of the schema."""
    if kind == "type":
        names = [want] if isinstance(want, str) else list(want)
        return f"must be {' or '.join(_TYPE_WORDS.get(n, n) for n in names)} (got {describe(got)})"
    if kind in ("enum", "const"):
        allowed = want if kind == "enum" else [want]
        return f"{got!r} is not one of {', '.join(str(a) for a in allowed)}"
    if kind == "pattern":
        return f"must match {want} (got {got!r})"
    if kind == "minLength":
        return "must be a non-empty string" if want == 1 else f"needs at least {want} characters"
    texts: dict[str, Callable[[], str]] = {
        "minItems": lambda: f"needs at least {_plural(want, 'item')}, has {len(got)}",
        "maxItems": lambda: f"allows at most {_plural(want, 'item')}, has {len(got)}",
        "minProperties": lambda: f"needs at least {_plural(want, 'field')}",
        "maxProperties": lambda: f"allows at most {_plural(want, 'field')}, has "
                                 f"{', '.join(sorted(map(str, got)))}",
        "minimum": lambda: f"must be at least {want} (got {got!r})",
        "maximum": lambda: f"must be at most {want} (got {got!r})",
        "exclusiveMinimum": lambda: f"must be more than {want} (got {got!r})",
        "exclusiveMaximum": lambda: f"must be less than {want} (got {got!r})",
        "not": lambda: "is not allowed here",
    }
    make = texts.get(kind)
    if make is not None:
        return make()
    return fallback if len(fallback) <= 200 else fallback[:200] + "..."
