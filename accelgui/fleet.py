"""A fleet view through Prometheus: ``accelgui --fleet URL`` and the app's Fleet page.

accelgui collects nothing of its own for a fleet: every node serves ``accelgui --serve-metrics``
(or a textfile through node exporter), a Prometheus server scrapes them, and this module asks
that server, through its HTTP API (``GET URL/api/v1/query?query=...``, the stdlib's urllib, a
timeout on every request, no other network), for each node's accelgui series. One row per node
(the ``instance`` label):

* devices: the count by kind (``accelgui_devices{kind}``), names and readiness from
  ``accelgui_device_info``;
* utilisation: the devices' mean (``accelgui_device_utilisation_ratio``) and the CPU's over two
  minutes (``rate(accelgui_cpu_seconds_total[2m])``; ``accelgui_cpu_utilisation_ratio`` when
  the counter is not there);
* the hottest device (``accelgui_device_temperature_celsius``), device and host memory;
* what it can run: the ``largest_model`` label of ``accelgui_host_info`` when an inventory
  textfile exports one (no estimate series exists yet);
* when it was last seen (``accelgui_sample_timestamp_seconds``, else the report's timestamp),
  and whether Prometheus's last scrape of it succeeded (``up``).

Errors a person can act on are :class:`FleetError` (unreachable, not a Prometheus, nothing
found). Imports no Qt.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request

from accelgui.l10n import tr

TIMEOUT_S = 10.0
MAX_BODY_BYTES = 32 * 2 ** 20
#: how far back a node's series are looked for: one that stopped reporting stays listed (down)
LOOKBACK = "1d"


class FleetError(Exception):
    """The fleet cannot be shown (message in the reader's language)."""


class FleetUsageError(FleetError):
    """The URL itself is wrong (a usage error: exit code 2)."""


def normalize_url(url: str, lang: str = "en") -> str:
    """"prom:9090" -> "http://prom:9090"; a path prefix (a server behind /prometheus) is kept."""
    text = (url or "").strip()
    if not text:
        raise FleetUsageError(tr("fleet.error.no_url", lang))
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FleetUsageError(tr("fleet.error.bad_url", lang, url=url))
    try:
        _ = parts.port                  # out of range or not a number: ValueError
    except ValueError:
        raise FleetUsageError(tr("fleet.error.bad_url", lang, url=url)) from None
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


class Prometheus:
    """A client of one Prometheus server's instant-query API."""

    def __init__(self, url: str, timeout: float = TIMEOUT_S, lang: str = "en"):
        self.url, self.timeout, self.lang = normalize_url(url, lang), timeout, lang

    def query(self, promql: str) -> list[dict]:
        """The ``result`` of an instant vector query (``[{"metric": {...}, "value": [t, "v"]}]``)."""
        address = f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        request = urllib.request.Request(address, headers={"Accept": "application/json",
                                                          "User-Agent": "accelgui-fleet"})
        status, body = None, b""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, body = response.status, response.read(MAX_BODY_BYTES + 1)
        except urllib.error.HTTPError as exc:          # Prometheus says 400/422/503 with a JSON body
            status = exc.code
            try:
                body = exc.read(MAX_BODY_BYTES + 1)
            except OSError:
                body = b""
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise FleetError(tr("fleet.error.unreachable", self.lang, url=self.url, reason=reason)) from None
        try:
            doc = json.loads(body[:MAX_BODY_BYTES].decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            doc = None
        if not isinstance(doc, dict) or doc.get("status") not in ("success", "error"):
            raise FleetError(tr("fleet.error.not_prometheus", self.lang, url=self.url,
                                status=status if status is not None else "-"))
        if doc["status"] == "error":
            raise FleetError(tr("fleet.error.query", self.lang, url=self.url,
                                error=str(doc.get("error") or doc.get("errorType") or status)[:300]))
        data = doc.get("data")
        if not isinstance(data, dict) or data.get("resultType") != "vector" or \
                not isinstance(data.get("result"), list):
            raise FleetError(tr("fleet.error.not_prometheus", self.lang, url=self.url, status=status))
        return [r for r in data["result"] if isinstance(r, dict) and isinstance(r.get("metric"), dict)]


def _value(row: dict) -> float | None:
    try:
        v = float(row["value"][1])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return None if v != v else v            # NaN: no value


def _by_instance(rows: list[dict]) -> dict[str, float]:
    out = {}
    for r in rows:
        v = _value(r)
        if v is not None:
            out[str(r["metric"].get("instance", ""))] = v
    return out


#: name -> PromQL; each gives at most one value per instance unless said otherwise
QUERIES = {
    "nodes": f"max by (instance, job, version) (last_over_time(accelgui_build_info[{LOOKBACK}]))",
    "up": "max by (instance) (up)",
    "seen": f"max by (instance) (last_over_time(accelgui_sample_timestamp_seconds[{LOOKBACK}]))",
    "reported": f"max by (instance) (last_over_time(accelgui_report_timestamp_seconds[{LOOKBACK}]))",
    "devices": "sum by (instance, kind) (accelgui_devices)",                 # per kind
    "device_info": "accelgui_device_info",                                  # per device
    "device_util": "avg by (instance) (accelgui_device_utilisation_ratio)",
    "cpu_rate": "1 - sum by (instance) (rate(accelgui_cpu_seconds_total{mode=~\"idle|iowait\"}[2m]))"
                " / sum by (instance) (rate(accelgui_cpu_seconds_total[2m]))",
    "cpu_gauge": "max by (instance) (accelgui_cpu_utilisation_ratio{cpu=~\"all|\"})",
    "temperature": "max by (instance) (accelgui_device_temperature_celsius)",
    "device_mem_used": "sum by (instance) (accelgui_device_memory_used_bytes)",
    "device_mem_total": "sum by (instance) (accelgui_device_memory_total_bytes)",
    "mem_used": "max by (instance) (accelgui_memory_used_bytes)",
    "mem_total": "max by (instance) (accelgui_memory_total_bytes)",
    "host_info": "accelgui_host_info",                                      # labels only
}
#: labels of accelgui_host_info that say what a node can run, the first one present wins
CAN_RUN_LABELS = ("largest_model", "llm_largest_model", "can_run")


def fleet(url: str, timeout: float = TIMEOUT_S, lang: str = "en", now: float | None = None) -> dict:
    """The fleet document: ``{"prometheus": url, "queried_at": t, "nodes": [row, ...],
    "columns": [...]}``, a row per instance, sorted by instance. Raises FleetError."""
    prom = Prometheus(url, timeout, lang)
    res = {name: prom.query(q) for name, q in QUERIES.items()}
    instances: dict[str, dict] = {}

    def node(instance: str) -> dict:
        return instances.setdefault(instance, {
            "instance": instance, "job": None, "up": None, "version": None, "devices": {},
            "device_names": [], "readiness": {}, "device_utilisation_ratio": None,
            "cpu_utilisation_ratio": None, "temperature_celsius": None,
            "device_memory_used_bytes": None, "device_memory_total_bytes": None,
            "memory_used_bytes": None, "memory_total_bytes": None, "can_run": None,
            "last_seen_seconds": None, "age_seconds": None})

    for r in res["nodes"]:
        n = node(str(r["metric"].get("instance", "")))
        n["job"], n["version"] = r["metric"].get("job"), r["metric"].get("version")
    for r in res["devices"] + res["device_info"]:
        node(str(r["metric"].get("instance", "")))
    for inst in _by_instance(res["seen"]):
        node(inst)
    if not instances:
        raise FleetError(tr("fleet.error.empty", lang, url=prom.url))
    up = _by_instance(res["up"])
    for inst, n in instances.items():
        n["up"] = None if inst not in up else up[inst] >= 1
    for r in res["devices"]:
        v = _value(r)
        kind = r["metric"].get("kind") or "accelerator"
        if v is not None:
            n = instances[str(r["metric"].get("instance", ""))]
            n["devices"][kind] = n["devices"].get(kind, 0) + int(round(v))
    listed: dict[str, dict[str, int]] = {}
    for r in sorted(res["device_info"], key=lambda r: str(r["metric"].get("device") or
                                                           r["metric"].get("address") or "")):
        m = r["metric"]
        n = instances[str(m.get("instance", ""))]
        if m.get("name"):
            n["device_names"].append(m["name"])
        ready = m.get("readiness") or "unknown"
        n["readiness"][ready] = n["readiness"].get(ready, 0) + 1
        kinds = listed.setdefault(n["instance"], {})
        kind = m.get("kind") or "accelerator"
        kinds[kind] = kinds.get(kind, 0) + 1
    # the count by kind: accelgui_devices, or the devices listed when more (an endpoint whose
    # live sample sees fewer than its report, or none: no accelgui_devices series at all)
    for inst, kinds in listed.items():
        devices = instances[inst]["devices"]
        for kind, count in kinds.items():
            devices[kind] = max(devices.get(kind, 0), count)
    for n in instances.values():                    # kinds with no device: left out of the row
        n["devices"] = {k: c for k, c in sorted(n["devices"].items()) if c}
    cpu = _by_instance(res["cpu_gauge"])
    cpu.update(_by_instance(res["cpu_rate"]))       # the counter's rate wins over the gauge
    fields = {"device_utilisation_ratio": _by_instance(res["device_util"]), "cpu_utilisation_ratio": cpu,
              "temperature_celsius": _by_instance(res["temperature"]),
              "device_memory_used_bytes": _by_instance(res["device_mem_used"]),
              "device_memory_total_bytes": _by_instance(res["device_mem_total"]),
              "memory_used_bytes": _by_instance(res["mem_used"]),
              "memory_total_bytes": _by_instance(res["mem_total"])}
    for key, values in fields.items():
        for inst, v in values.items():
            if inst in instances:
                instances[inst][key] = v
    # the age is reckoned from the server's evaluation time (the query's timestamp), so a
    # clock on this machine that differs from the server's does not age the nodes
    seen = {}
    for r in res["reported"] + res["seen"]:                 # the live sample wins over the report
        v = _value(r)
        if v is not None:
            try:
                at = float(r["value"][0])
            except (TypeError, ValueError, IndexError):
                at = None
            seen[str(r["metric"].get("instance", ""))] = (v, at)
    now = time.time() if now is None else now
    for inst, (t, at) in seen.items():
        if inst in instances:
            instances[inst]["last_seen_seconds"] = t
            instances[inst]["age_seconds"] = max(0.0, (at if at is not None else now) - t)
    has_can_run = False
    for r in res["host_info"]:
        m = r["metric"]
        inst = str(m.get("instance", ""))
        for label in CAN_RUN_LABELS:
            if m.get(label) and inst in instances:
                instances[inst]["can_run"] = m[label]
                has_can_run = True
                break
    columns = ["instance", "up", "devices", "readiness", "device_utilisation_ratio", "cpu_utilisation_ratio",
               "temperature_celsius", "device_memory", "memory"] + (["can_run"] if has_can_run else []) + \
        ["last_seen"]
    return {"prometheus": prom.url, "queried_at": now, "columns": columns,
            "nodes": [instances[k] for k in sorted(instances)]}


# -- rendering -----------------------------------------------------------------------------------

def _pct(v) -> str:
    return "-" if v is None else f"{v * 100:.0f}%"


def _gib(used, total) -> str:
    if used is None and total is None:
        return "-"
    f = ["-" if v is None else f"{v / 2 ** 30:.1f}" for v in (used, total)]
    return f"{f[0]}/{f[1]} GiB"


def _age(seconds, lang: str) -> str:
    if seconds is None:
        return "-"
    s = int(seconds)
    if s < 120:
        return tr("fleet.age.seconds", lang, n=s)
    if s < 7200:
        return tr("fleet.age.minutes", lang, n=s // 60)
    if s < 172800:
        return tr("fleet.age.hours", lang, n=s // 3600)
    return tr("fleet.age.days", lang, n=s // 86400)


def cells(row: dict, columns: list[str], lang: str = "en") -> list[str]:
    """The texts of one node's row, a cell per column (the CLI's table and the app's)."""
    out = []
    for c in columns:
        if c == "instance":
            out.append(row["instance"] or "-")
        elif c == "up":
            out.append("-" if row["up"] is None else tr("fleet.up.yes" if row["up"] else "fleet.up.no", lang))
        elif c == "devices":
            kinds = ", ".join(f"{n} {k}" for k, n in row["devices"].items())
            names = sorted(set(row["device_names"]))
            text = kinds or tr("fleet.devices.none", lang)
            out.append(text + (f" ({'; '.join(names[:3])}{'; …' if len(names) > 3 else ''})" if names else ""))
        elif c == "readiness":
            out.append(", ".join(f"{n} {k}" for k, n in sorted(row["readiness"].items())) or "-")
        elif c in ("device_utilisation_ratio", "cpu_utilisation_ratio"):
            out.append(_pct(row[c]))
        elif c == "temperature_celsius":
            out.append("-" if row[c] is None else f"{row[c]:.0f} °C")
        elif c == "device_memory":
            out.append(_gib(row["device_memory_used_bytes"], row["device_memory_total_bytes"]))
        elif c == "memory":
            out.append(_gib(row["memory_used_bytes"], row["memory_total_bytes"]))
        elif c == "can_run":
            out.append(row.get("can_run") or "-")
        elif c == "last_seen":
            out.append(_age(row["age_seconds"], lang))
        else:
            out.append(str(row.get(c, "-")))
    return out


def headers(columns: list[str], lang: str = "en") -> list[str]:
    return [tr(f"fleet.col.{c}", lang) for c in columns]


def render_text(doc: dict, lang: str = "en") -> str:
    cols = doc["columns"]
    rows = [headers(cols, lang)] + [cells(n, cols, lang) for n in doc["nodes"]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = [tr("fleet.heading", lang, url=doc["prometheus"], n=len(doc["nodes"]))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def render_json(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
