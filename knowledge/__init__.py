"""The knowledge base: learning routes, their steps and requirements, and dated facts.

Data lives next to this module (installed as ``accelgui.knowledge``)::

    routes/<id>.json   one learning route per file (format: schema.json)
    schema.json        JSON Schema (draft 2020-12) of a route file; used by the tests
    facts.json         named tables of dated, sourced facts

``load_knowledge()`` reads them lazily through the package loader (accelgui.data) and caches the result per
override directory. It never imports jsonschema: shipped files are validated in the test
suite, and user override files get a light structural check in pure Python that names the
file and the field (``myroute.json: steps[2].title.zh: missing``). A broken override file is
reported in ``KnowledgeBase.errors`` and the shipped route is kept.

Override directory: the ``override_dir`` argument, else ``$ACCELGUI_KNOWLEDGE_DIR``. A file
whose ``id`` is new adds a route; one with the id of a shipped route replaces it.
"""

from __future__ import annotations

import functools
import json
import os
import re
from accelgui import data as data_files
from accelgui.record import Record, factory

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
REQUIREMENT_LEVELS = ("required", "recommended")
FALLBACKS = ("cloud", "emulation", "simulation", "none")
RESOURCE_KINDS = ("docs", "course", "repo", "book", "paper", "video")
DEVICE_KINDS = ("gpu", "npu", "tpu", "fpga", "dsp", "accelerator")
READINESS = ("ready", "driver-missing", "runtime-missing", "no-access", "unknown")
BUSES = ("pci", "usb", "platform")
_DEVICE_CLASSES = {"segment": ("data-centre", "workstation", "consumer", "embedded"),
                   "form": ("discrete", "integrated", "embedded", "virtual"), "family": None}
COST_CLASSES = ("free", "low", "medium", "high")
CHECK_KINDS = ("python", "command", "file")

# Patterns as strings: re compiles (and caches) each on first use, so loading the shipped
# routes on the probe path does not pay for compiling the override checks.
_ROUTE_ID = r"^[a-z0-9-]+$"
_QUALIFIED_ID = r"^[a-z0-9-]+\.[a-z0-9-]+$"
_ANY_ID = r"^[a-z0-9-]+(\.[a-z0-9-]+)?$"
_DATE = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
_AS_OF = r"^[0-9]{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?$"
_URL = r"^https://\S+$"
_METRIC = r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$"
_DETAIL_KEY = r"^[a-z0-9_]+$"


class KnowledgeBase(Record):
    """Loaded knowledge. Treat the dicts as read-only: the object is cached and shared."""

    routes: dict = factory(dict)      # id -> route dict, ordered by "order"
    steps: dict = factory(dict)       # step id -> step dict + {"route": id}
    errors: list = factory(list)      # "file: field: message"
    facts: dict = factory(dict)       # facts.json tables
    origins: dict = factory(dict)     # route id -> "shipped" or override file path

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
    loader), at most _MAX_FILE_BYTES, UTF-8. Raises OSError/UnicodeDecodeError/ValueError."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > _MAX_FILE_BYTES:
            raise ValueError(f"larger than {_MAX_FILE_BYTES >> 20} MiB")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


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


# --------------------------------------------------------------------------- light checks
# These mirror schema.json (which the tests apply to every shipped file) closely enough to
# name the first problems in a user's file without importing jsonschema.

class _Problems(list):
    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def add(self, where: str, message: str) -> None:
        self.append(f"{self.name}: {where}: {message}" if where else f"{self.name}: {message}")


def check_route(data, name: str, expected_id: str | None = None) -> list[str]:
    """Structural problems of one route dict, each as "file: field: message"; [] if none."""
    p = _Problems(name)
    if not isinstance(data, dict):
        p.add("", "a route file must hold a JSON object")
        return list(p)
    allowed = {"$schema", "id", "order", "title", "summary", "scenarios", "tools",
               "requirements", "steps", "corrections", "facts", "capstone", "goals", "design_only"}
    for key in sorted(set(data) - allowed):
        p.add(key, "unknown field")
    rid = data.get("id")
    if not _need(p, data, "id", "", str) or not re.match(_ROUTE_ID, rid):
        if isinstance(rid, str):
            p.add("id", f"'{rid}' must be lower-case letters, digits and '-'")
        rid = None
    elif expected_id is not None and rid != expected_id:
        p.add("id", f"'{rid}' does not match the file name")
    order = data.get("order")
    if "order" not in data:
        p.add("order", "missing")
    elif not isinstance(order, int) or isinstance(order, bool) or order < 1:
        p.add("order", "must be an integer >= 1")
    _text(p, data, "title", "")
    _text(p, data, "summary", "")
    _array(p, data, "scenarios", "", 1, lambda item, w: _text_value(p, item, w))
    tool_names: set = set()

    def tool(item, where):
        if _object(p, item, where, {"name", "url", "checked"}):
            if _need(p, item, "name", where, str, nonempty=True):
                tool_names.add(item["name"])
            _pattern(p, item, "url", where, _URL, "must be an https:// URL")
            if "checked" in item:  # absent: the link was not looked at
                _pattern(p, item, "checked", where, _DATE, "must be a date YYYY-MM-DD")

    _array(p, data, "tools", "", 1, tool)
    capstone = data.get("capstone")
    if capstone is not None and _object(p, capstone, "capstone",
                                        {"title", "summary", "deliverable", "cost_class", "resources"}):
        for key in ("title", "summary", "deliverable"):
            _text(p, capstone, key, "capstone")
    req_ids: set = set()

    def requirement(item, where):
        if not _object(p, item, where, {"id", "level", "label", "rule", "fallback", "fix", "note"}):
            return
        if _pattern(p, item, "id", where, _QUALIFIED_ID, "must look like '<route>.<name>'"):
            _prefix(p, item["id"], rid, f"{where}.id")
            req_ids.add(item["id"])
        _enum(p, item, "level", where, REQUIREMENT_LEVELS)
        _text(p, item, "label", where)
        _text(p, item, "fix", where)
        if "note" in item:
            _text(p, item, "note", where)
        _enum(p, item, "fallback", where, FALLBACKS)
        if "rule" not in item:
            p.add(f"{where}.rule", "missing")
        else:
            for problem in check_rule(item["rule"], f"{where}.rule"):
                p.add(*problem)

    _array(p, data, "requirements", "", 1, requirement)
    step_ids: set = set()

    def step(item, where):
        keys = {"id", "level", "title", "summary", "hours", "prerequisites", "needs", "tools",
                "verify", "resources", "prerequisites_soft", "cost_class", "check", "tracks",
                "prerequisites_any", "goals", "sets_up"}
        if not _object(p, item, where, keys):
            return
        if _pattern(p, item, "id", where, _QUALIFIED_ID, "must look like '<route>.<name>'"):
            _prefix(p, item["id"], rid, f"{where}.id")
            if item["id"] in step_ids:
                p.add(f"{where}.id", f"duplicate step id '{item['id']}'")
            step_ids.add(item["id"])
        _enum(p, item, "level", where, LEVELS)
        _text(p, item, "title", where)
        _text(p, item, "summary", where)
        _text(p, item, "verify", where)
        hours = item.get("hours")
        if "hours" not in item:
            p.add(f"{where}.hours", "missing")
        elif not isinstance(hours, (int, float)) or isinstance(hours, bool) or not 0 < hours <= 200:
            p.add(f"{where}.hours", "must be a number of hours > 0 and <= 200")
        _array(p, item, "prerequisites", where, 0,
               lambda v, w: _str_item(p, v, w, _QUALIFIED_ID, "must be a step id '<route>.<name>'"))
        _array(p, item, "needs", where, 0,
               lambda v, w: _str_item(p, v, w, _QUALIFIED_ID, "must be a requirement id"))
        _array(p, item, "tools", where, 0, lambda v, w: _str_item(p, v, w, None, ""))
        if "prerequisites_soft" in item:
            _array(p, item, "prerequisites_soft", where, 0,
                   lambda v, w: _str_item(p, v, w, _QUALIFIED_ID, "must be a step id '<route>.<name>'"))
        if "cost_class" in item:
            _enum(p, item, "cost_class", where, COST_CLASSES)
        if "goals" in item:
            _goals(p, item, where)
        if "sets_up" in item and not isinstance(item["sets_up"], bool):
            p.add(f"{where}.sets_up", "must be true or false")
        if "check" in item and (not isinstance(item["check"], dict)
                                or item["check"].get("kind") not in CHECK_KINDS):
            p.add(f"{where}.check", f"must be an object with kind one of {', '.join(CHECK_KINDS)}")

        def resource(res, w):
            if _object(p, res, w, {"title", "url", "kind", "checked", "url_zh"}):
                if "title" not in res:
                    p.add(f"{w}.title", "missing")
                elif isinstance(res["title"], dict):
                    _text_value(p, res["title"], f"{w}.title")
                elif not isinstance(res["title"], str) or not res["title"].strip():
                    p.add(f"{w}.title", "must be a non-empty string")
                _pattern(p, res, "url", w, _URL, "must be an https:// URL")
                _enum(p, res, "kind", w, RESOURCE_KINDS)
                if "checked" in res:  # absent: the link was not looked at
                    _pattern(p, res, "checked", w, _DATE, "must be a date YYYY-MM-DD")

        _array(p, item, "resources", where, 1, resource, max_items=8)

    _array(p, data, "steps", "", 6, step)
    # references inside the route
    for i, item in enumerate(data.get("steps") or []):
        if not isinstance(item, dict):
            continue
        for j, need in enumerate(item.get("needs") or []):
            if isinstance(need, str) and re.match(_QUALIFIED_ID, need) and need not in req_ids:
                p.add(f"steps[{i}].needs[{j}]", f"'{need}' is not a requirement of this route")
        for j, tool_name in enumerate(item.get("tools") or []):
            if isinstance(tool_name, str) and tool_names and tool_name not in tool_names:
                p.add(f"steps[{i}].tools[{j}]", f"'{tool_name}' is not in the route's tools")

    def correction(item, where):
        if _object(p, item, where, {"source", "said", "correct", "source_url"}):
            _enum(p, item, "source", where, ("000", "002"))
            _text(p, item, "said", where)
            _text(p, item, "correct", where)
            _pattern(p, item, "source_url", where, _URL, "must be an https:// URL")

    def fact(item, where):
        if _object(p, item, where, {"id", "text", "as_of", "review_by", "source"}):
            _pattern(p, item, "id", where, _ANY_ID, "must be an id")
            _text(p, item, "text", where)
            _pattern(p, item, "as_of", where, _AS_OF, "must be YYYY-MM or YYYY-MM-DD")
            _pattern(p, item, "review_by", where, _DATE, "must be a date YYYY-MM-DD")
            _pattern(p, item, "source", where, _URL, "must be an https:// URL")

    _array(p, data, "corrections", "", 0, correction)
    _array(p, data, "facts", "", 0, fact)
    return list(p)


def _goals(p: _Problems, step: dict, where: str) -> None:
    """A step's ``goals``: a non-empty list of distinct GOALS ids; an unknown one is named
    with the step it is in."""
    goals, sid = step["goals"], step.get("id")
    if not isinstance(goals, list) or not goals:
        p.add(f"{where}.goals", f"must be a non-empty list of goal ids ({', '.join(GOALS)})")
        return
    for j, goal in enumerate(goals):
        if goal not in GOALS:
            p.add(f"{where}.goals[{j}]", f"unknown goal {goal!r} in step {sid!r} "
                                         f"(known: {', '.join(GOALS)})")
        elif goal in goals[:j]:
            p.add(f"{where}.goals[{j}]", f"goal {goal!r} is listed twice in step {sid!r}")


def check_rule(rule, where: str = "rule") -> list[tuple[str, str]]:
    """Problems of a RULE (see SPEC "RULE language") as (field, message) pairs."""
    out: list = []
    if not isinstance(rule, dict) or not rule:
        return [(where, "a rule must be a non-empty object")]
    keys = set(rule)
    if keys == {"metric", "min"}:
        if not isinstance(rule["metric"], str) or not re.match(_METRIC, rule["metric"]):
            out.append((f"{where}.metric", "must be a dotted report path"))
        if not _is_number(rule["min"]):
            out.append((f"{where}.min", "must be a number"))
        return out
    if len(keys) != 1:
        return [(where, f"a rule has exactly one operator, got {', '.join(sorted(keys))}")]
    op, arg = next(iter(rule.items()))
    w = f"{where}.{op}"
    if op in ("all", "any"):
        if not isinstance(arg, list) or not arg:
            return [(w, "must be a non-empty list of rules")]
        for i, sub in enumerate(arg):
            out.extend(check_rule(sub, f"{w}[{i}]"))
    elif op == "not":
        out.extend(check_rule(arg, w))
    elif op == "device":
        if not isinstance(arg, dict):
            return [(w, "must be an object of filters")]
        for key, val in arg.items():
            if key == "kind":
                out.extend(_one_or_many(val, f"{w}.kind", DEVICE_KINDS))
            elif key == "readiness":
                out.extend(_one_or_many(val, f"{w}.readiness", READINESS))
            elif key == "bus":
                out.extend(_one_or_many(val, f"{w}.bus", BUSES))
            elif key == "vendor":
                out.extend(_one_or_many(val, f"{w}.vendor", None))
            elif key in ("integrated", "supported", "training"):
                if not isinstance(val, bool):
                    out.append((f"{w}.{key}", "must be true or false"))
            elif key in ("segment", "form", "family"):
                out.extend(_one_or_many(val, f"{w}.{key}", _DEVICE_CLASSES.get(key)))
            elif key == "count_min":
                if not isinstance(val, int) or isinstance(val, bool) or val < 1:
                    out.append((f"{w}.count_min", "must be an integer >= 1"))
            elif key == "min":
                if not isinstance(val, dict) or not val:
                    out.append((f"{w}.min", "must be an object of detail minimums"))
                else:
                    for k, v in val.items():
                        if not re.match(_DETAIL_KEY, k) or not _is_number(v):
                            out.append((f"{w}.min.{k}", "must be a number"))
            else:
                out.append((f"{w}.{key}", "unknown device filter"))
    elif op in ("cpu_feature", "package", "toolkit", "provider"):
        if not isinstance(arg, str) or not arg.strip():
            out.append((w, "must be a non-empty string"))
    elif op in ("cpu_features_any", "packages_any", "toolkits_any"):
        if not isinstance(arg, list) or not arg or not all(isinstance(x, str) and x for x in arg):
            out.append((w, "must be a non-empty list of strings"))
    elif op in ("arch", "os"):
        out.extend(_one_or_many(arg, w, None))
    elif op == "memory_min_bytes":
        if not isinstance(arg, int) or isinstance(arg, bool) or arg < 0:
            out.append((w, "must be a whole number of bytes"))
    elif op == "logical_cpus_min":
        if not isinstance(arg, int) or isinstance(arg, bool) or arg < 1:
            out.append((w, "must be an integer >= 1"))
    elif op in ("cloud", "container", "cpu_simd", "npu_runtime", "embedded_board"):
        if not isinstance(arg, bool):
            out.append((w, "must be true or false"))
    else:
        out.append((w, "unknown rule operator"))
    return out


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _one_or_many(val, where: str, allowed) -> list:
    items = val if isinstance(val, list) else [val]
    if isinstance(val, list) and not val:
        return [(where, "must not be empty")]
    out = []
    for item in items:
        if not isinstance(item, str) or not item:
            out.append((where, "must be a string or a list of strings"))
        elif allowed is not None and item not in allowed:
            out.append((where, f"'{item}' is not one of {', '.join(allowed)}"))
    return out


def _need(p: _Problems, obj: dict, key: str, where: str, typ, nonempty=False) -> bool:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        p.add(path, "missing")
        return False
    val = obj[key]
    if not isinstance(val, typ) or (nonempty and isinstance(val, str) and not val.strip()):
        p.add(path, "must be a non-empty string" if typ is str else f"must be {typ.__name__}")
        return False
    return True


def _object(p: _Problems, obj, where: str, allowed: set) -> bool:
    if not isinstance(obj, dict):
        p.add(where, "must be an object")
        return False
    for key in sorted(set(obj) - allowed):
        p.add(f"{where}.{key}", "unknown field")
    return True


def _text(p: _Problems, obj: dict, key: str, where: str) -> None:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        p.add(path, "missing")
    else:
        _text_value(p, obj[key], path)


def _text_value(p: _Problems, val, path: str) -> None:
    if not isinstance(val, dict):
        p.add(path, 'must be an object {"en": ..., "zh": ...}')
        return
    for lang in ("en", "zh"):
        if lang not in val:
            p.add(f"{path}.{lang}", "missing")
        elif not isinstance(val[lang], str) or not val[lang].strip():
            p.add(f"{path}.{lang}", "must be a non-empty string")
    for key in sorted(set(val) - {"en", "zh"}):
        p.add(f"{path}.{key}", "unknown language (use en and zh)")


def _pattern(p: _Problems, obj: dict, key: str, where: str, rx, message: str) -> bool:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        p.add(path, "missing")
        return False
    val = obj[key]
    if not isinstance(val, str) or not re.match(rx, val):
        p.add(path, f"{message} (got {val!r})")
        return False
    return True


def _str_item(p: _Problems, val, where: str, rx, message: str) -> None:
    if not isinstance(val, str) or not val.strip():
        p.add(where, "must be a non-empty string")
    elif rx is not None and not re.match(rx, val):
        p.add(where, f"{message} (got {val!r})")


def _enum(p: _Problems, obj: dict, key: str, where: str, allowed) -> None:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        p.add(path, "missing")
    elif obj[key] not in allowed:
        p.add(path, f"{obj[key]!r} is not one of {', '.join(allowed)}")


def _array(p: _Problems, obj: dict, key: str, where: str, min_items: int, each,
           max_items: int | None = None) -> None:
    path = f"{where}.{key}" if where else key
    if key not in obj:
        p.add(path, "missing")
        return
    val = obj[key]
    if not isinstance(val, list):
        p.add(path, "must be a list")
        return
    if len(val) < min_items:
        p.add(path, f"needs at least {min_items} item{'s' if min_items > 1 else ''}, has {len(val)}")
    if max_items is not None and len(val) > max_items:
        p.add(path, f"allows at most {max_items} items, has {len(val)}")
    for i, item in enumerate(val):
        each(item, f"{path}[{i}]")


def _prefix(p: _Problems, ident: str, rid: str | None, path: str) -> None:
    if rid and not ident.startswith(rid + "."):
        p.add(path, f"'{ident}' must start with the route id '{rid}.'")
