"""The Report: one immutable description of a machine (docs/report-contract.md).

Probes produce plain JSON-ready dicts; :func:`assemble` turns them into these frozen records.
``to_dict`` gives the contract's JSON object; ``from_dict`` reads it back (reports saved on
another machine or by another version), ignoring keys it does not know.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from accelgui import SCHEMA_VERSION, __version__
from accelgui.bounds import bound_report
from accelgui.model import Record, field, iso_now

PROBE_STATUSES = ("ok", "partial", "absent", "error", "timeout")
READINESS = ("ready", "driver-missing", "runtime-missing", "no-access", "unknown")
ROUTE_STATUSES = ("ready", "partial", "remote", "unavailable")


class ReportError(ValueError):
    """A report file that cannot be read as a report."""


_R = TypeVar("_R", bound=Record)


def _from(cls: type[_R], data: object) -> _R:
    """Build record ``cls`` from a dict, ignoring unknown keys and keeping defaults."""
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise ReportError(f"{cls.__name__.lower()}: expected an object, got {type(data).__name__}")
    return cls(**{k: v for k, v in data.items() if k in cls.fields})


class Platform(Record):
    os: str | None = None
    os_release: str | None = None
    kernel: str | None = None
    machine: str | None = None
    hostname: str | None = None
    virtualization: str | None = None
    container: str | None = None
    cloud: dict[str, Any] | None = None
    dmi: dict[str, Any] = field(default_factory=dict)
    secure_boot: bool | None = None
    out_of_tree_modules: list[Any] = field(default_factory=list)     # [{name, path}]: DKMS and other modules
    device_tree: dict[str, Any] | None = None                # {model, compatible}: booted from a device tree
    # Windows only: {build, edition_sku, virtual_display_adapters, remote_session, wsl}
    windows: dict[str, Any] | None = None


class Cpu(Record):
    vendor_id: str | None = None
    vendor: str | None = None
    model_name: str | None = None
    arch: str | None = None
    microarchitecture: str | None = None
    codename: str | None = None         # the part's codename ("Granite Rapids", "Apple M1")
    logical_cpus: int | None = None
    online_cpus: int | None = None
    threads_per_core: int | None = None
    cores_per_socket: int | None = None
    sockets: int | None = None
    numa_nodes: int | None = None
    flags: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    caches: dict[str, Any] = field(default_factory=dict)
    max_mhz: float | None = None
    min_mhz: float | None = None
    hypervisor_vendor: str | None = None
    core_types: list[Any] | None = None      # CPUs of several types: [{model_name, cpus, cores, cores_per_socket}]


class Memory(Record):
    total_bytes: int | None = None
    available_bytes: int | None = None
    numa_nodes: int | None = None
    bandwidth_spec_gbps: float | None = None      # the memory's peak (SMBIOS or the part's table)
    bandwidth_spec_source: str | None = None
    bandwidth_spec: dict[str, Any] | None = None
    cgroup_limit_bytes: int | None = None
    cgroup_cpu_limit: float | None = None
    numa_memory_only_bytes: int | None = None     # on NUMA nodes without CPUs (HBM, CXL)
    numa_memory_only_nodes: list[Any] | None = None


class Device(Record):
    kind: str = "accelerator"
    vendor: str | None = None
    name: str | None = None
    bus: str | None = None
    address: str | None = None
    pci_id: str | None = None
    usb_id: str | None = None
    driver: str | None = None
    integrated: bool = False
    readiness: str = "unknown"
    readiness_reason: str | None = None
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    readiness_reason_zh: str | None = None  # the same two in Simplified Chinese (older reports)
    fix_zh: str | None = None
    family: str | None = None           # device-family id (probes/data/families/<id>.json)
    ladder: list[Any] = field(default_factory=list)        # [{step, ok, detail, detail_msg}] present..runtime
    readiness_reason_msg: dict[str, Any] | None = None    # readiness_reason / fix as l10n messages
    fix_msg: dict[str, Any] | None = None


class Software(Record):
    packages: dict[str, Any] = field(default_factory=dict)
    toolkits: dict[str, Any] = field(default_factory=dict)
    providers: list[str] = field(default_factory=list)
    compilers: dict[str, Any] = field(default_factory=dict)
    packages_known: bool = True     # False for a recorded tree: its Python packages are unknown
    environments: list[Any] = field(default_factory=list)  # the user's Python environments (probes/software.py)


class ProbeResult(Record):
    name: str = ""
    status: str = "ok"          # one of PROBE_STATUSES; "partial": ok, but see warnings
    elapsed_ms: float | None = None
    error: str | None = None
    warnings: list[Any] = field(default_factory=list)  # inputs it could not use: {path, reason, reason_msg}


class RouteAssessment(Record):
    id: str = ""
    status: str = "unavailable"
    reasons: list[str] = field(default_factory=list)
    next_steps: list[Any] = field(default_factory=list)
    blocking: list[Any] = field(default_factory=list)
    title: str | None = None
    # the advisor's verdict in words, what is not confirmed, what to do first
    verdict: str | None = None          # ready | needs-setup | remote | unavailable
    qualifier: str | None = None        # "not confirmed: <fact>"
    qualifier_msg: dict[str, Any] | None = None
    unconfirmed: list[str] = field(default_factory=list)
    reasons_msg: list[Any] = field(default_factory=list)
    fix: str | None = None
    fix_msg: dict[str, Any] | None = None
    remote_steps: list[Any] = field(default_factory=list)  # [{"step", "requirement", "fallback"}]
    tracks: dict[str, Any] = field(default_factory=dict)        # {step id: [vendor track ids matching this machine]}
    uses_device: bool = False           # a device requirement is met by this machine's hardware
    goal: str | None = None


def report_dict(report: Report | dict[str, Any] | None) -> dict[str, Any]:
    """The contract's dict of a report, the one way to get it: ``to_dict()`` of a Report, a
    shallow copy of a dict, {} for None."""
    if isinstance(report, Report):
        return report.to_dict()
    return dict(report or {})


def driver_missing(readiness: str | None, driver: str | None, details: dict[str, Any] | None) -> bool:
    """Whether a device is known to have no driver: none is named, its readiness is known, and
    the readiness ladder found none (a Mac's GPU, driven by the OS itself, has no driver name)."""
    check = str(((details or {}).get("readiness_checks") or {}).get("driver") or "")
    return not driver and readiness != "unknown" and not check.startswith(("ok", "not needed"))


def device_text(dev: Device | dict[str, Any], name: str, lang: str = "en") -> str | None:
    """A device's ``readiness_reason`` or ``fix`` in ``lang`` ("zh"/"zh_CN" or English),
    falling back to English; ``dev`` is a Device or a device dict."""
    from accelgui import l10n

    text = l10n.field_text(dev, name, lang)
    return text if isinstance(text, str) else None


def _plain(value: Any) -> Any:
    """JSON-ready copy: records become dicts; dicts and lists are copied, leaves shared."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Record):
        return {name: _plain(v) for name, v in value.__dict__.items()}
    return value


def _fields_of(value: object) -> dict[str, Any]:
    if isinstance(value, Record):
        return value.__dict__
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_FLAT: list[Callable[[Any], str]] = []


def _flat() -> Callable[[Any], str]:
    """One-line JSON of a value, by json's C encoder, records encoded as their fields."""
    if not _FLAT:
        from json import encoder

        flat: Callable[[Any], str] = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "),
                                                      default=_fields_of).encode
        try:        # the C encoder made once, not per call as JSONEncoder.encode does
            make = encoder.c_make_encoder(  # type: ignore[attr-defined]  # not in typeshed
                None, _fields_of, encoder.encode_basestring, None, ": ", ", ", False, False, True)
            make("", 0)

            def flat_c(value: Any, _make: Any = make, _join: Callable[..., str] = "".join) -> str:
                return _join(_make(value, 0))

            flat = flat_c
        except TypeError:       # no C encoder here, or another signature: json's own path
            pass
        _FLAT.append(flat)
    return _FLAT[0]


_NESTED = (dict, list, tuple, Record)


def _indented(value: Any, flat: Callable[[Any], str], pad: str, level: int) -> str:
    """``value`` as indented JSON, its flat objects and lists (no object or list inside) written
    by ``flat`` on one line each: the Python work is per nested container, not per value as with
    json's own ``indent``, which runs its pure-Python encoder over all of a 100 KB report."""
    if isinstance(value, Record):
        value = value.__dict__
    if isinstance(value, dict):
        if not any(isinstance(v, _NESTED) for v in value.values()):
            return flat(value)
        inner = "\n" + pad * (level + 1)
        return "{" + inner + ("," + inner).join(
            flat(k if isinstance(k, str) else flat(k)) + ": " + (
                _indented(v, flat, pad, level + 1) if isinstance(v, _NESTED) else flat(v))
            for k, v in value.items()) + "\n" + pad * level + "}"
    if isinstance(value, (list, tuple)):
        if not any(isinstance(v, _NESTED) for v in value):
            return flat(value)
        inner = "\n" + pad * (level + 1)
        return "[" + inner + ("," + inner).join(
            _indented(v, flat, pad, level + 1) if isinstance(v, _NESTED) else flat(v)
            for v in value) + "\n" + pad * level + "]"
    return flat(value)


def _now() -> str:
    return iso_now()


class Report(Record):
    schema_version: str = SCHEMA_VERSION
    accelgui_version: str = __version__
    created: str = field(default_factory=_now)
    sysroot: str = "/"
    platform: Platform = field(default_factory=Platform)
    cpu: Cpu = field(default_factory=Cpu)
    memory: Memory = field(default_factory=Memory)
    devices: list[Device] = field(default_factory=list)
    software: Software = field(default_factory=Software)
    benchmarks: dict[str, Any] | None = None     # upgraded and checked (accelgui.benchmarks)
    routes: list[RouteAssessment] = field(default_factory=list)
    estimates: dict[str, Any] | None = None
    advice: dict[str, Any] | None = None          # {goal, goal_source, start_here}: accelgui.export.advice
    probes: list[ProbeResult] = field(default_factory=list)
    redacted: bool = False              # --redact: identifying values removed (accelgui.redact)
    redacted_fields: list[str] = field(default_factory=list)   # where values were removed ("platform.hostname")

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON object of the report (docs/report-contract.md)."""
        out: dict[str, Any] = _plain(self)
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text: ``indent`` spaces per level for objects and lists that hold
        other objects or lists, a flat one (a device's ids, a list of flags, a table row) on
        one line; ``indent=None``: all on one line."""
        if indent is None:
            return _flat()(self)
        return _indented(self, _flat(), " " * indent, 0)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """The Report of a saved report object: unknown keys dropped, missing ones defaulted,
        and every string and list cut to the lengths of ``accelgui.bounds`` (names 256
        characters, free text 4 KiB, devices/routes/probes 4096 entries, other lists 10,000;
        a cut string ends with "…"): a report from elsewhere costs what a report of this
        machine does, however long its strings."""
        _check_version(data)
        data = bound_report(data)
        version = str(data.get("schema_version", ""))
        from accelgui.benchmarks import BenchmarkError, check

        try:  # the benchmark contract (report.schema.json $defs/bench), older shapes upgraded
            benchmarks = check(data.get("benchmarks"))
        except BenchmarkError as exc:
            raise ReportError(f"benchmark section off the contract: {exc}") from exc
        try:
            return cls(
                schema_version=version,
                accelgui_version=str(data.get("accelgui_version") or "unknown"),
                created=str(data.get("created") or ""),
                sysroot=str(data.get("sysroot") or "/"),
                platform=_from(Platform, data.get("platform")),
                cpu=_from(Cpu, data.get("cpu")),
                memory=_from(Memory, data.get("memory")),
                devices=[_from(Device, d) for d in data.get("devices") or []],
                software=_from(Software, data.get("software")),
                benchmarks=benchmarks,
                routes=[_from(RouteAssessment, r) for r in data.get("routes") or []],
                estimates=data.get("estimates"),
                advice=_advice(data.get("advice")),
                probes=[_from(ProbeResult, p) for p in data.get("probes") or []],
                redacted=data.get("redacted") is True,
                redacted_fields=[str(f) for f in data.get("redacted_fields") or []
                                 if isinstance(f, str)],
            )
        except (TypeError, ValueError, AttributeError) as exc:  # a field of the wrong shape
            raise ReportError(f"malformed report: {exc}") from exc


def _advice(data: object) -> dict[str, Any] | None:
    """The report's ``advice`` object (None when absent: an older report, or ``--no-advice``);
    its ``start_here`` keeps only the entries that are objects."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ReportError(f"advice: expected an object, got {type(data).__name__}")
    out = dict(data)
    out["start_here"] = [dict(e) for e in data.get("start_here") or () if isinstance(e, dict)]
    return out


MAX_REPORT_BYTES = 64 << 20      # a report is a few hundred kilobytes; more is not a report
MAX_DEPTH = 64                   # the contract nests a dozen levels; deeper is hostile
MAX_DIGITS = 40                  # digits of one number


class _RejectedError(ValueError):
    pass


def _reject_constant(name: str) -> None:
    raise _RejectedError(f"{name} is not a number JSON allows")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _RejectedError(f"a number of {len(text.lstrip('-'))} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_DIGITS * 2:
        raise _RejectedError(f"a number of {len(text)} characters")
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _RejectedError(f"{text} is out of range")
    return value


def _too_deep(data: object) -> bool:
    from accelgui.data import nested_deeper_than

    return bool(nested_deeper_than(data, MAX_DEPTH))


def _check_version(data: object) -> None:
    if not isinstance(data, dict):
        raise ReportError("a report is a JSON object")
    version = str(data.get("schema_version", ""))
    if version.split(".", 1)[0] != SCHEMA_VERSION.split(".", 1)[0]:
        raise ReportError(
            f"report schema version {version[:20] or 'missing'} is not supported "
            f"(this accelgui reads {SCHEMA_VERSION.split('.')[0]}.x)")


def _with_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the fields an older 1.x report may lack filled in as from_dict fills
    them (so the schema judges the fields that are there, not the ones added since)."""
    out = dict(data)
    defaults = Report(created="2000-01-01T00:00:00+00:00").to_dict()
    records = {"devices": _plain(Device()), "routes": _plain(RouteAssessment()),
               "probes": _plain(ProbeResult())}
    for key, default in defaults.items():
        value = out.get(key)
        if key not in out or (value is None and default is not None
                              and key not in ("benchmarks", "estimates", "advice")):
            out[key] = default
        elif isinstance(default, dict) and isinstance(value, dict):
            out[key] = {**default, **value}
        elif key in records and isinstance(value, list):
            out[key] = [{**records[key], **item} if isinstance(item, dict) else item for item in value]
    return out


def check_report(data: object) -> None:
    """Raise ReportError naming the field when ``data`` is not a report of the shipped schema
    (accelgui.validation: the most telling problem)."""
    from accelgui import validation

    if not isinstance(data, dict):
        raise ReportError("a report is a JSON object")
    if _too_deep(data):
        raise ReportError(f"nested more than {MAX_DEPTH} levels deep")
    problem = validation.first_problem("accelgui", "report.schema.json", data)
    if problem is not None:
        raise ReportError(f"field {problem[0]}: {problem[1]}")


def load_report(path: str) -> Report:
    """Read a report JSON file, with a clear error for anything that is not one: the
    message names the file and, for a report of the wrong shape, the field."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_REPORT_BYTES:
        raise ReportError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MiB: not a report")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not a JSON report: not UTF-8 text (byte {exc.start})") from exc
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int,
                          parse_float=_parse_float)
    except _RejectedError as exc:
        raise ReportError(f"{path}: not a JSON report: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not a JSON report: {exc}") from exc
    except (RecursionError, ValueError) as exc:
        raise ReportError(f"{path}: not a JSON report: nested too deeply or malformed") from exc
    try:
        if not isinstance(data, dict):
            raise ReportError("a report is a JSON object")
        if _too_deep(data):
            raise ReportError(f"nested more than {MAX_DEPTH} levels deep")
        _check_version(data)
        check_report(_with_defaults(data))    # every field against the shipped schema
        return Report.from_dict(data)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from exc


def assemble(sections: dict[str, Any], probes: list[ProbeResult], sysroot: str = "/") -> Report:
    """Build a Report from the merged probe sections (see accelgui.probes.finalize)."""
    return Report(
        sysroot=sysroot,
        platform=_from(Platform, sections.get("platform")),
        cpu=_from(Cpu, sections.get("cpu")),
        memory=_from(Memory, sections.get("memory")),
        devices=[_from(Device, d) for d in sections.get("devices") or []],
        software=_from(Software, sections.get("software")),
        probes=list(probes),
    )


def schema() -> dict[str, Any]:
    """The shipped JSON Schema of the report."""
    from accelgui.data import read_bytes

    out: dict[str, Any] = json.loads(read_bytes("accelgui", "report.schema.json"))
    return out


def validate(data: dict[str, Any]) -> None:
    """Raise ReportError naming every field (up to five) where a report dict is off the shipped
    schema (accelgui.validation; tests and --compare)."""
    from accelgui import validation

    problems = validation.problems("accelgui", "report.schema.json", data)
    if problems:
        raise ReportError("; ".join(f"field {where}: {what}" for where, what in problems[:5]))
