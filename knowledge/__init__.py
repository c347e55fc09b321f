"""The knowledge base: learning routes, their steps and requirements, and dated facts.

Data lives next to this module (installed as ``accelgui.knowledge``)::

    routes/<id>.json   one learning route per file (format: schema.json)
    schema.json        JSON Schema (draft 2020-12) of a route file; used by the tests
    facts.json         named tables of dated, sourced facts

``load_knowledge()`` reads them lazily through the package loader (accelgui.data) and caches the result per
override directory. Shipped files are validated against schema.json in the test suite, so
loading them checks only what indexing needs; user override files are checked against
schema.json (accelgui.validation, which imports jsonschema then and only then), with messages
that name the file and the field (``myroute.json: steps[2].title.zh: missing``). A broken
override file is reported in ``KnowledgeBase.errors`` and the shipped route is kept.

Override directory: the ``override_dir`` argument, else ``$ACCELGUI_KNOWLEDGE_DIR``. A file
whose ``id`` is new adds a route; one with the id of a shipped route replaces it.
"""

from __future__ import annotations

import functools
import json
import os
from accelgui import data as data_files
from accelgui.model import Record, field

__all__ = [
    "EXPECTED_ROUTE_IDS", "ENV_VAR", "KnowledgeBase", "load_knowledge", "clear_cache", "tr",
    "check_route", "check_rule", "find_cycle", "GOALS",
]

ENV_VAR = "ACCELGUI_KNOWLEDGE_DIR"

#: The 13 routes the product promises (docs/knowledge.md).
EXPECTED_ROUTE_IDS = (
    "gpu", "tpu", "fpga", "asic", "cpu", "edge", "cloud", "open-source", "enterprise", "npu",
    "software-acceleration", "model-optimization", "integration",
)

LEVELS = ("beginner", "intermediate", "advanced")
#: The goals a learner can pick (``--goal``, the app's goal picker) and a step may serve
#: (its optional ``goals`` list): train models, serve or run LLMs, deploy on edge devices,
#: design hardware, scientific/HPC computing, learn the basics.
GOALS = ("train", "serve-llm", "inference", "edge", "hardware-design", "hpc", "basics")


class KnowledgeBase(Record):
    """Loaded knowledge. Treat the dicts as read-only: the object is cached and shared."""

    routes: dict = field(default_factory=dict)      # id -> route dict, ordered by "order"
    steps: dict = field(default_factory=dict)       # step id -> step dict + {"route": id}
    errors: list = field(default_factory=list)      # "file: field: message"
    facts: dict = field(default_factory=dict)       # facts.json tables
    origins: dict = field(default_factory=dict)     # route id -> "shipped" or override file path

    def route(self, route_id: str) -> dict | None:
        return self.routes.get(route_id)

    def step(self, step_id: str) -> dict | None:
        return self.steps.get(step_id)

    def requirement(self, requirement_id: str) -> dict | None:
        route = self.routes.get(requirement_id.split(".", 1)[0])
        for req in (route or {}).get("requirements", []):
            if req.get("id") == requirement_id:
                return req
        return None


def tr(obj, lang: str = "en") -> str:
    """Text of a bilingual ``{"en", "zh"}`` object in ``lang`` (falls back to English).

    A plain string is returned as is; None gives "".
    """
    if obj is None:
        return ""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        text = obj.get(lang)
        if isinstance(text, str) and text.strip():
            return text
        text = obj.get("en")
        if isinstance(text, str):
            return text
        for value in obj.values():
            if isinstance(value, str):
                return value
    return str(obj)


# --------------------------------------------------------------------------- loading

_process_override: list = [None]     # set by use_override(): the run's --knowledge DIR


def use_override(override_dir: str | os.PathLike | None) -> None:
    """Make ``override_dir`` the knowledge every later ``load_knowledge()`` call of this
    process reads (the CLI's ``--knowledge DIR``), so every export sees the same routes."""
    _process_override[0] = os.fspath(override_dir) if override_dir else None


def load_knowledge(override_dir: str | os.PathLike | None = None) -> KnowledgeBase:
    """Shipped routes plus those of ``override_dir`` (or the process's :func:`use_override`
    directory, or ``$ACCELGUI_KNOWLEDGE_DIR``). Cached."""
    if override_dir is None:
        override_dir = _process_override[0] or os.environ.get(ENV_VAR) or None
    key = os.path.abspath(os.fspath(override_dir)) if override_dir else None
    return _load_cached(key)


def clear_cache() -> None:
    """Forget loaded knowledge (tests, or after the user edits override files)."""
    _load_cached.cache_clear()
    _shipped.cache_clear()


@functools.lru_cache(maxsize=8)
def _load_cached(override_dir: str | None) -> KnowledgeBase:
    shipped_routes, shipped_errors, facts = _shipped()
    routes = dict(shipped_routes)
    origins = {rid: "shipped" for rid in routes}
    errors = list(shipped_errors)
    if override_dir:
        _apply_overrides(override_dir, routes, origins, errors)
    ordered = dict(sorted(routes.items(), key=lambda kv: (_order(kv[1]), kv[0])))
    steps: dict = {}
    for rid, route in ordered.items():
        for step in route.get("steps", []):
            steps[step["id"]] = dict(step, route=rid)
    return KnowledgeBase(routes=ordered, steps=steps, errors=errors, facts=facts, origins=origins)


def _order(route: dict) -> int:
    order = route.get("order")
    return order if isinstance(order, int) and not isinstance(order, bool) else 10_000


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[dict, list, dict]:
    """(routes by id, errors, facts) from the package data. Read once per process."""
    routes: dict = {}
    errors: list = []
    try:
        entries = [n for n in data_files.list_names(__name__, "routes") if n.endswith(".json")]
    except OSError as exc:
        errors.append(f"routes: cannot list shipped routes: {exc}")
        entries = []
    for entry in entries:
        name = f"routes/{entry}"
        data, err = _parse(name, data_files.read_bytes(__name__, name).decode("utf-8"))
        if err:
            errors.append(err)
            continue
        # Shipped files are validated against schema.json by the test suite; here only
        # enough is checked to index them, which keeps loading all routes in a few ms.
        problem = _shape_problem(data, name)
        if problem:
            errors.append(problem)
            continue
        routes[data["id"]] = data
    facts: dict = {}
    try:
        facts, err = _parse("facts.json", data_files.read_bytes(__name__, "facts.json").decode("utf-8"))
        if err:
            errors.append(err)
            facts = {}
    except (FileNotFoundError, OSError) as exc:
        errors.append(f"facts.json: cannot read: {exc}")
    return routes, errors, facts if isinstance(facts, dict) else {}


def _shape_problem(data, name: str) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return f"{name}: id: missing"
    steps = data.get("steps")
    if not isinstance(steps, list) or not all(
            isinstance(s, dict) and isinstance(s.get("id"), str)
            and isinstance(s.get("prerequisites", []), list) for s in steps):
        return f"{name}: steps: must be a list of step objects with ids"
    return None


_MAX_DEPTH = 64                 # a route nests a handful of levels; deeper is not a route
_MAX_FILE_BYTES = 4 << 20       # a route file is a few kilobytes


def _too_deep(data) -> bool:
    from accelgui.data import nested_deeper_than

    return nested_deeper_than(data, _MAX_DEPTH)


def _parse(name: str, text: str, untrusted: bool = False) -> tuple[object, str | None]:
    """JSON of a knowledge file; an ``untrusted`` one (an override file) is also refused
    when it nests deeper than _MAX_DEPTH (the shipped files are checked by the tests)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{name}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}"
    except (RecursionError, ValueError):
        return None, f"{name}: invalid JSON: nested too deeply or malformed"
    if untrusted and _too_deep(data):
        return None, f"{name}: nested more than {_MAX_DEPTH} levels deep"
    return data, None


def _read_override(path: str) -> str:
    """A route file's text: a regular file only (a FIFO named *.json must not hang the
    loader), at most _MAX_FILE_BYTES, UTF-8. Raises UnicodeDecodeError or ValueError."""
    from accelgui.probes.datafiles import read_named_file

    return read_named_file(path, _MAX_FILE_BYTES).decode("utf-8")


def _apply_overrides(directory: str, routes: dict, origins: dict, errors: list) -> None:
    if not os.path.isdir(directory):
        errors.append(f"{directory}: knowledge override directory not found")
        return
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError as exc:
        errors.append(f"{directory}: cannot list: {exc}")
        return
    accepted: dict = {}
    parsed: dict = {}
    for name in names:
        path = os.path.join(directory, name)
        try:
            text = _read_override(path)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            errors.append(f"{name}: cannot read: {getattr(exc, 'strerror', None) or exc}")
            continue
        data, err = _parse(name, text, untrusted=True)
        if err:
            errors.append(err + (_kept(routes, name)))
            continue
        problems = check_route(data, name)
        if problems:
            rid = data.get("id") if isinstance(data, dict) else None
            note = (f" (shipped route '{rid}' kept)" if isinstance(rid, str) and rid in routes
                    else " (file ignored)")
            errors.extend(problems[:-1] + [problems[-1] + note])
            continue
        rid = data["id"]
        if rid in accepted:
            errors.append(f"{name}: id: '{rid}' is also defined by {os.path.basename(accepted[rid])}"
                          " (file ignored)")
            continue
        accepted[rid] = path
        parsed[rid] = data
    if not accepted:
        return
    previous = {rid: routes.get(rid) for rid in accepted}
    for rid, path in accepted.items():
        routes[rid] = parsed[rid]
        origins[rid] = path
    # Cross-references: prerequisites must exist and the graph must stay acyclic.
    all_steps = {s["id"] for r in routes.values() for s in r.get("steps", [])}
    for rid, path in list(accepted.items()):
        name = os.path.basename(path)
        for i, step in enumerate(routes[rid]["steps"]):
            missing = [p for p in step["prerequisites"] if p not in all_steps]
            if missing:
                errors.append(f"{name}: steps[{i}].prerequisites: unknown step id "
                              f"{', '.join(missing)}" + _revert(rid, previous, routes, origins))
                accepted.pop(rid)
                break
    cycle = find_cycle(routes)
    while cycle:
        culprit = next((rid for rid in accepted
                        if any(s.split(".", 1)[0] == rid for s in cycle)), None)
        if culprit is None:  # a cycle among shipped routes: the tests prevent this
            errors.append(f"routes: prerequisites form a cycle: {' -> '.join(cycle)}")
            break
        name = os.path.basename(accepted.pop(culprit))
        errors.append(f"{name}: steps.prerequisites: cycle {' -> '.join(cycle)}"
                      + _revert(culprit, previous, routes, origins))
        cycle = find_cycle(routes)


def _kept(routes: dict, name: str) -> str:
    rid = name[:-5]
    return f" (shipped route '{rid}' kept)" if rid in routes else " (file ignored)"


def _revert(rid: str, previous: dict, routes: dict, origins: dict) -> str:
    if previous.get(rid) is not None:
        routes[rid] = previous[rid]
        origins[rid] = "shipped"
        return f" (shipped route '{rid}' kept)"
    routes.pop(rid, None)
    origins.pop(rid, None)
    return " (file ignored)"


def find_cycle(routes: dict) -> list[str] | None:
    """A prerequisite cycle as a list of step ids (first == last), or None."""
    graph = {s["id"]: list(s.get("prerequisites", []))
             for r in routes.values() for s in r.get("steps", [])}
    state: dict = {}
    for start in graph:
        if state.get(start):
            continue
        stack = [(start, iter(graph[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(graph[nxt])))
                path.append(nxt)
    return None


# --------------------------------------------------------------------------- checks

def check_route(data, name: str, expected_id: str | None = None) -> list[str]:
    """Problems of one route dict, each as "file: field: message"; [] if none.

    The route schema (schema.json, through accelgui.validation) first, then what a schema
    cannot compare: step and requirement ids that start with the route id, step ids used once,
    ``needs`` naming this route's requirements, ``tools`` naming its tools, the id matching the
    file name (``expected_id``)."""
    from accelgui import validation

    if not isinstance(data, dict):
        return [f"{name}: a route file must hold a JSON object"]
    found = validation.problems(__name__, "schema.json", data) + _reference_problems(data, expected_id)
    return [f"{name}: {where}: {what}" for where, what in found]


def check_rule(rule, where: str = "rule") -> list[tuple[str, str]]:
    """Problems of a RULE (schema.json ``$defs/rule``) as (field, message) pairs."""
    from accelgui import validation

    return validation.problems(__name__, "schema.json", rule, definition="rule", root=where)


def _items(data: dict, key: str) -> list[tuple[int, dict]]:
    """(index, item) of the objects in the list ``data[key]`` (nothing when it is not a list)."""
    value = data.get(key)
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)] \
        if isinstance(value, list) else []


def _reference_problems(data: dict, expected_id: str | None) -> list[tuple[str, str]]:
    """The checks between fields of one route that its schema cannot make."""
    rid = data.get("id") if isinstance(data.get("id"), str) else None
    out: list[tuple[str, str]] = []
    if rid is not None and expected_id is not None and rid != expected_id:
        out.append(("id", f"'{rid}' does not match the file name"))
    for key in ("requirements", "steps"):
        for i, item in _items(data, key):
            ident = item.get("id")
            if rid and isinstance(ident, str) and not ident.startswith(rid + "."):
                out.append((f"{key}[{i}].id", f"'{ident}' must start with the route id '{rid}.'"))
    step_ids: set = set()
    for i, step in _items(data, "steps"):
        if step.get("id") in step_ids:
            out.append((f"steps[{i}].id", f"duplicate step id '{step['id']}'"))
        if isinstance(step.get("id"), str):
            step_ids.add(step["id"])
    out += _named_problems(data, "needs", {r.get("id") for _, r in _items(data, "requirements")},
                           "is not a requirement of this route")
    out += _named_problems(data, "tools", {t.get("name") for _, t in _items(data, "tools")},
                           "is not in the route's tools")
    return out


def _named_problems(data: dict, key: str, known: set, message: str) -> list[tuple[str, str]]:
    """Each name in a step's list ``key`` that is not in ``known`` (when anything is known)."""
    out = []
    for i, step in _items(data, "steps"):
        names = step.get(key)
        for j, name in enumerate(names if isinstance(names, list) else []):
            if isinstance(name, str) and known - {None} and name not in known:
                out.append((f"steps[{i}].{key}[{j}]", f"'{name}' {message}"))
    return out
