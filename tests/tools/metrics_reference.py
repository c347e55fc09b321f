"""Generate docs/metrics.md, the reference of every metric family accelgui emits, from the code.

    python tests/tools/metrics_reference.py --write     # rewrite docs/metrics.md
    python tests/tools/metrics_reference.py             # print it (tests/test_metrics_reference.py
                                                        # checks the committed file equals this)

Three sources, each rendered the way the code renders it:

* the ``--serve-metrics`` endpoint: ``accelgui.monitor_cli.MonitorCollector`` over a sample the
  real sampler took of the recorded telemetry tree and fake NVML of tests/monitor_support.py,
  with the H100 server's report (tests/fixtures/reports/rich.json) as its facts;
* the inventory textfile and the benchmark textfile: ``accelgui.export.prometheus.metrics`` of
  that report, without and with its benchmarks.

For each family: the name a scraper sees, its type, its unit (from the base-unit suffix of the
name), its label names and its HELP text.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
DOC = os.path.join(ROOT, "docs", "metrics.md")
for path in (ROOT, TESTS):
    if path not in sys.path:
        sys.path.insert(0, path)

#: unit suffixes of the names (Prometheus naming: base units, the unit last, ``_total`` after it)
UNITS = (("_bytes_per_second", "bytes per second"), ("_flop_per_second", "FLOP per second"),
         ("_flop_per_byte", "FLOP per byte"), ("_seconds", "seconds"), ("_bytes", "bytes"),
         ("_hertz", "hertz"), ("_celsius", "degrees Celsius"), ("_watts", "watts"),
         ("_joules", "joules"), ("_ratio", "ratio (0 to 1)"), ("_rpm", "revolutions per minute"),
         ("_info", "— (value 1, facts in the labels)"))


def unit_of(name: str) -> str:
    base = name[:-len("_total")] if name.endswith("_total") else name
    for suffix, unit in UNITS:
        if base.endswith(suffix):
            return unit
    return "— (a count or a 0/1 state)"


def _sample():
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler
    from monitor_support import FakeClock, TelemetryTree, gpu, monitor_nvml

    with tempfile.TemporaryDirectory() as tmp:
        tree = TelemetryTree(os.path.join(tmp, "root"))
        clock = FakeClock()
        sampler = Sampler(ProbeContext(tree.root), nvml=monitor_nvml([gpu(0)]), clock=clock)
        try:
            sampler.sample()
            tree.advance(1.0)
            clock.now += 1.0
            return sampler.sample()
        finally:
            close = getattr(sampler, "close", None)
            if close:
                close()


def _report():
    from report_fixtures import load

    return load("rich")


def endpoint_families(sample=None, report=None) -> list[dict]:
    from accelgui import monitor_cli

    collector = monitor_cli.MonitorCollector()
    collector.sample = sample if sample is not None else _sample()
    collector.report = report if report is not None else _report()
    out = {}
    for fam in collector.collect():
        shown = {"counter": f"{fam.name}_total", "info": f"{fam.name}_info"}.get(fam.type, fam.name)
        labels = list(getattr(fam, "_labelnames", ()) or ())
        for s in fam.samples:
            labels += [k for k in s.labels if k not in labels]
        kind = "gauge" if fam.type == "info" else fam.type     # an info family is exposed as a gauge
        row = out.setdefault(shown, {"name": shown, "type": kind, "labels": [], "help": fam.documentation})
        row["labels"] += [k for k in labels if k not in row["labels"]]
    return [dict(r, unit=unit_of(r["name"])) for r in out.values()]


def textfile_families(part: str, report=None) -> list[dict]:
    from accelgui.export import prometheus

    report = report if report is not None else _report()
    if part == "inventory":
        report = report.replace(benchmarks=None)
    m = prometheus.metrics(report, part)
    return [{"name": name, "type": "gauge", "unit": unit_of(name), "labels": list(m.labels[name]),
             "help": help_text} for name, (help_text, _) in m.families.items()]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(rows: list[dict]) -> list[str]:
    out = ["| Name | Type | Unit | Labels | Help |", "|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["name"]):
        labels = ", ".join(f"`{k}`" for k in r["labels"]) or "—"
        out.append(f"| `{r['name']}` | {r['type']} | {_cell(r['unit'])} | {labels} | {_cell(r['help'])} |")
    return out


def generate() -> str:
    from accelgui import monitor_cli

    report = _report()
    lines = [
        "# Metrics reference",
        "",
        "<!-- Generated from the code by `python tests/tools/metrics_reference.py --write`; do not edit.",
        "     tests/test_metrics_reference.py fails when this file and the code disagree. -->",
        "",
        "Every metric family accelgui emits, as a scraper sees it: the `--serve-metrics` endpoint",
        f"(default `{monitor_cli.DEFAULT_ADDRESS}`) and the two node exporter textfiles of",
        "[docs/fleet.md](fleet.md). All values are in base units (seconds, bytes, bytes per second,",
        "FLOP per second, hertz), one unit per family; the unit is the last word of the name.",
        "A label with an empty value is the same as no label (Prometheus drops it).",
        "",
        "The two textfiles carry disjoint series, so node exporter loads both from one directory:",
        "the inventory (`accelgui --probe --format prometheus`, a report without benchmarks) and",
        "the benchmark figures (`accelgui --probe --bench quick --format prometheus`, only",
        "`accelgui_benchmark_*`).",
        "",
        "Device series carry `device` (accelgui's id, `FAMILY:ADDRESS`), `pci_bus_id` in DCGM's",
        "form (`00000000:1B:00.0`) and, for NVIDIA GPUs, `gpu` (the NVML index) and `UUID`, so they",
        "join DCGM's series on the same labels.",
        "",
        "## The `--serve-metrics` endpoint",
        "",
        *_table(endpoint_families(report=report)),
        "",
        "## The inventory textfile (`accelgui --probe --format prometheus`)",
        "",
        *_table(textfile_families("inventory", report)),
        "",
        "## The benchmark textfile (`accelgui --probe --bench quick --format prometheus`)",
        "",
        *_table(textfile_families("benchmark", report)),
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"rewrite {os.path.relpath(DOC, ROOT)}")
    args = ap.parse_args(argv)
    text = generate()
    if args.write:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
