"""Every export format, on recorded reports: a realistic 8x H100 server (rich), a CPU-only
cloud VM (minimal) and a report full of hostile strings (hostile)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest

from accelgui.export import FORMATS, render
from accelgui.export import common
from report_fixtures import REPORTS, has_qt_gui, load

from accelgui.report import Report, validate

HOSTILE_BITS = ("<script>", "</script>", "<img", "<svg", "javascript:", "\x07", "\x1b", "\u202e")



def controls(text: str) -> list[str]:
    """Control characters other than newline, and bidi overrides."""
    return [ch for ch in text if (unicodedata.category(ch) == "Cc" and ch != "\n")
            or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]


# --------------------------------------------------------------------------- every format

@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "pdf"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_text_format_renders(fixture, fmt, lang):
    out = render(load(fixture), fmt, lang=lang)
    assert isinstance(out, str) and out.endswith("\n") and len(out) > 200
    if fmt != "json":
        assert not controls(out), f"{fmt} output keeps control characters"


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown format"):
        render(load("minimal"), "yaml")


@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
def test_json_round_trip(fixture):
    report = load(fixture)
    text = render(report, "json")
    again = Report.from_dict(json.loads(text))
    assert again == report
    if fixture != "hostile":  # hostile ids break the schema's id pattern on purpose
        validate(json.loads(text))


def test_fixtures_are_what_they_claim():
    rich, minimal = load("rich"), load("minimal")
    assert sum(d.kind == "gpu" for d in rich.devices) == 8
    assert rich.benchmarks and rich.routes and rich.estimates
    assert rich.platform.hostname and rich.platform.dmi.get("product_serial")
    assert minimal.devices == [] and minimal.benchmarks is None


# --------------------------------------------------------------------------- text

def test_text_summary_lists_every_device_and_the_essentials():
    out = render(load("rich"), "text")
    lines = out.splitlines()
    head = lines.index("Accelerators:") + 1
    assert lines[head].split()[:3] == ["#", "Kind", "Name"]          # the devices' table, aligned
    dev_lines = [ln for ln in lines[head + 1:head + 12] if re.match(r"\s+\d+  ", ln)]
    assert len(dev_lines) == 9
    assert sum("NVIDIA H100 80GB HBM3" in ln and ln.endswith("ready") for ln in dev_lines) == 8
    assert len({ln.index("pci ") for ln in dev_lines}) == 1           # one column for the address
    dpu = next(ln for ln in dev_lines if "BlueField-3" in ln)
    assert "runtime missing" in dpu
    assert "Fix: the DOCA runtime is not installed — Install the NVIDIA DOCA host package" in out
    assert "Intel(R) Xeon(R) Platinum 8480+" in out and "sapphirerapids" in out
    assert "112 cores / 224 threads" in out
    assert "amx_tile" in out and "avx512_bf16" in out
    assert "Total: 1.9 TiB" in out
    assert re.search(r"torch +2\.5\.1\+cu124", out) and re.search(r"CUDA Toolkit +12\.4", out)   # by product name
    assert re.search(r"STREAM triad, all threads +524\.8 +GB/s", out)
    assert re.search(r"STREAM triad, one thread +18\.4 +GB/s", out)
    assert re.search(r"GPU 0 \(1 of 8 alike\) triad \(device memory\) +3,012\.4 +GB/s +89\.9 %", out)
    assert "GPU 1 " not in out                      # eight alike cards: shown once
    route_lines = [ln for ln in lines if ln.startswith("    GPU computing")]
    assert route_lines and route_lines[0].split()[2] == "ready"           # the verdict column
    assert "First step: Check the driver and install a GPU framework" in out   # the first step by its title
    assert "gpu.setup-check" not in out
    assert "largest LLM that fits" in out                             # estimates
    assert re.search(r"OpenCL +error", out) and re.search(r"ROCm +timeout", out)   # probe failures, in words
    assert "memory.available_bytes" not in out and "benchmarks.cpu" not in out     # sources in words


def test_text_without_benchmarks_or_devices():
    out = render(load("minimal"), "text")
    assert "No accelerator found" in out
    assert "Benchmarks" not in out and "STREAM" not in out


def test_text_in_chinese():
    out = render(load("rich"), "text", lang="zh")
    assert "\u52a0\u901f\u5668" in out and "\u5c31\u7eea" in out and "\u5185\u5b58" in out and "\u5b66\u4e60\u8def\u7ebf" in out


def test_text_strips_terminal_escapes_from_hostile_strings():
    out = render(load("hostile"), "text")
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x08" not in out
    assert "RED" in out                                               # text kept, colour dropped
    assert "[31m" not in out and "[0m" not in out and "pwned" not in out and "[2J" not in out
    assert not controls(out)


# --------------------------------------------------------------------------- markdown

def md_tables(text: str) -> list[list[list[str]]]:
    """GFM tables as rows of cells (split on unescaped pipes)."""
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            current.append([c.strip() for c in cells])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


@pytest.mark.parametrize("fixture", ["rich", "hostile"])
def test_markdown_tables_are_well_formed(fixture):
    out = render(load(fixture), "markdown")
    tables = md_tables(out)
    assert len(tables) >= 8
    for t in tables:
        widths = {len(row) for row in t}
        assert len(widths) == 1, f"a row breaks its table: {t[0]}"
        assert all(re.fullmatch(r"-{3,}", c) for c in t[1])


def test_markdown_has_headings_and_device_benchmark_route_tables():
    out = render(load("rich"), "markdown")
    for heading in ("## Accelerators", "## Benchmarks (measured)", "## Learning routes", "## CPU"):
        assert heading in out.splitlines(), heading
    tables = md_tables(out)
    devices = next(t for t in tables if t[0][:2] == ["#", "Kind"])
    assert len(devices) == 2 + 9
    assert any("runtime missing" in " ".join(r) for r in devices)
    bench = next(t for t in tables if t[0][:4] == ["Figure", "Median", "Unit", "% of peak"])
    assert ["FP64 FMA, all cores", "7,012.5", "GFLOP/s", "93.2 %"] in [r[:4] for r in bench]
    assert len(bench) < 20                           # headline figures, not every raw leaf
    routes = next(t for t in tables if t[0][:2] == ["Route", "Verdict"])
    assert any("GPU computing" in r[0] and r[1] == "ready" for r in routes)


def test_markdown_escapes_hostile_strings():
    out = render(load("hostile"), "markdown")
    assert not controls(out)
    # every markup character coming from the report is backslash-escaped (the exporter's
    # own markup is bold keys "**k**" and italic notes "*note*" on lines of their own)
    own = "\n".join(re.sub(r"^\*(.*)\*$", r"\1", line) for line in out.splitlines()).replace("**", "")
    for ch in "<>`[]*":
        assert not re.search(r"(?<!\\)" + re.escape(ch), own), ch
    assert "\\<script\\>alert(1)\\</script\\>" in out
    assert "\\| pipes \\|" in out and "\\`tick\\`" in out and "\\$(rm -rf /)" in out


def test_markdown_in_chinese():
    out = render(load("rich"), "markdown", lang="zh")
    assert "## \u52a0\u901f\u5668" in out and "\u5c31\u7eea" in out


# --------------------------------------------------------------------------- html

class Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)


def parse_html(text: str) -> Collector:
    p = Collector()
    p.feed(text)
    p.close()
    return p


LOADING_ATTRS = ("src", "srcset", "data", "poster", "background", "action", "formaction", "xlink:href")


@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_is_self_contained_and_inert(fixture, lang):
    out = render(load(fixture), "html", lang=lang)
    doc = parse_html(out)
    names = [t for t, _ in doc.tags]
    assert "script" not in names and "iframe" not in names and "object" not in names
    assert "link" not in names and "base" not in names
    for tag, attrs in doc.tags:
        assert not [a for a in attrs if a.startswith("on")], f"event handler on <{tag}>"
        for a in LOADING_ATTRS:
            v = (attrs.get(a) or "").strip().lower()
            assert not v or v.startswith("data:") or v.startswith("#"), f"<{tag} {a}={v}> loads something"
        if tag == "a":
            assert not (attrs.get("href") or "").lower().startswith("javascript:")
    csp = [a for t, a in doc.tags if t == "meta" and (a.get("http-equiv") or "").lower()
           == "content-security-policy"]
    assert csp and csp[0]["content"] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert names.count("style") == 1
    assert "@import" not in doc.style and "url(" not in doc.style and "@font-face" not in doc.style
    assert "@media print" in doc.style
    assert not controls(out)
    assert re.search(r'<html lang="(en|zh-CN)">', out)


def test_html_charts_are_inline_svg():
    out = render(load("rich"), "html")
    doc = parse_html(out)
    svgs = [a for t, a in doc.tags if t == "svg"]
    assert len(svgs) >= 4                 # two measured-vs-theoretical, cache sweep, roofline
    assert all(a.get("xmlns") == "http://www.w3.org/2000/svg" for a in svgs)
    text = " ".join(doc.text)
    assert "Read bandwidth vs working-set size" in text and "Roofline" in text
    assert "L1D 48 KiB" in text and "L2 2 MiB" in text    # cache sizes marked on the sweep
    assert "7,012.5 / 7,526.4 GFLOP/s (93 %)" in text      # measured vs theoretical
    assert "polyline" in [t for t, _ in doc.tags]
    minimal = parse_html(render(load("minimal"), "html"))
    assert not [t for t, _ in minimal.tags if t == "svg"]


def test_html_escapes_hostile_strings():
    report = load("hostile")
    out = render(report, "html")
    assert "<script>" not in out and "<img" not in out and "<svg onload" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "ACME &quot;Corp&quot; &lt;img src=x onerror=alert(1)&gt;" in out
    assert "&amp;amp;" in out                      # a literal "&amp;" stays literal
    # the parsed text shows the hostile strings as text
    text = " ".join(parse_html(out).text)
    assert "<script>alert(1)</script>" in text and 'Evil "OS"' in text
    assert "\u202e" not in out


# --------------------------------------------------------------------------- pdf

def _pgm_ink(path: Path) -> float:
    """Fraction of non-white pixels of a binary PGM (P5) file."""
    data = path.read_bytes()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    assert m, "not a PGM file"
    pixels = data[m.end():]
    return sum(1 for b in pixels if b < 200) / max(1, len(pixels))


@pytest.mark.skipif(not has_qt_gui(), reason="PySide6.QtGui cannot be imported (Qt runtime libraries missing)")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_pdf_renders(tmp_path, lang):
    pdf = render(load("rich"), "pdf", lang=lang)
    assert isinstance(pdf, bytes) and pdf.startswith(b"%PDF") and b"%%EOF" in pdf[-1024:]
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm not installed (Debian: poppler-utils): PDF bytes checked, not the rendering")
    target = tmp_path / "page.pdf"
    target.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "40", "-gray", "-f", "1", "-l", "1", str(target),
                    str(tmp_path / "p")], check=True, capture_output=True, timeout=60)
    pages = sorted(tmp_path.glob("p*.pgm"))
    assert pages, "pdftoppm produced no page"
    ink = _pgm_ink(pages[0])
    assert 0.005 < ink < 0.5, f"page 1 looks blank or black ({ink:.3f} ink)"
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-l", "3", str(target), "-"], capture_output=True,
                              text=True, timeout=60).stdout
        assert "8480+" in text
        if lang == "zh":
            cjk = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout \
                if shutil.which("fc-list") else ""
            if cjk.strip():
                assert "\u52a0\u901f\u5668" in text
            # without a CJK font (Debian: fonts-noto-cjk) Qt draws empty boxes; not checked


@pytest.mark.skipif(not has_qt_gui(), reason="PySide6.QtGui cannot be imported (Qt runtime libraries missing)")
def test_pdf_of_hostile_and_minimal_reports():
    for name in ("hostile", "minimal"):
        assert render(load(name), "pdf").startswith(b"%PDF")


def test_pdf_module_does_not_import_qt_at_import_time():
    code = ("import sys, accelgui.export.pdf, accelgui.export.html, accelgui.export.markdown, "
            "accelgui.export.text, accelgui.export.prometheus, accelgui.export.nfd, accelgui.compare; "
            "print([m for m in sys.modules if m.startswith('PySide6')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- prometheus

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def parse_prometheus(text: str) -> dict[str, list[tuple[dict, float]]]:
    """A strict parser of the text format: HELP and TYPE before each family's samples,
    families contiguous, label values properly escaped, no duplicate series."""
    families: dict[str, list] = {}
    helped, typed, finished = set(), set(), set()
    current = None
    seen = set()
    if text == "":
        return families                       # an empty textfile is valid
    assert text.endswith("\n")
    for line in text.splitlines():
        assert line == line.strip() and line, f"stray whitespace or empty line: {line!r}"
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            assert name not in helped, f"second HELP for {name}"
            helped.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("gauge", "counter", "untyped", "summary", "histogram")
            assert name in helped and name not in typed
            typed.add(name)
            continue
        assert not line.startswith("#"), line
        m = _SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, _, body, value = m.groups()
        assert name in typed, f"{name} has no TYPE before its samples"
        if name != current:
            assert name not in finished, f"samples of {name} are not contiguous"
            if current:
                finished.add(current)
            current = name
        labels = {}
        pos = 0
        while body and pos < len(body):
            lm = _LABEL.match(body, pos)
            assert lm, f"bad label syntax in {line!r}"
            raw = lm.group(2)
            labels[lm.group(1)] = re.sub(r"\\(.)", lambda x: {"n": "\n"}.get(x.group(1), x.group(1)), raw)
            pos = lm.end()
        key = (name, tuple(sorted(labels.items())))
        assert key not in seen, f"duplicate series {key}"
        seen.add(key)
        families.setdefault(name, []).append((labels, float(value)))
    return families


def value_of(fams, name, **labels) -> float:
    hits = [v for lab, v in fams[name] if all(lab.get(k) == v2 for k, v2 in labels.items())]
    assert len(hits) == 1, (name, labels, hits)
    return hits[0]


def prom(report, part):
    from accelgui.export import prometheus

    return prometheus.render(report, part=part)


@pytest.mark.parametrize("part", ["inventory", "benchmark"])
@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
def test_prometheus_parses_strictly(fixture, part):
    fams = parse_prometheus(prom(load(fixture), part))
    assert all(name.startswith("accelgui_") for name in fams)
    if part == "inventory":
        assert "accelgui_build_info" in fams and "accelgui_report_timestamp_seconds" in fams
    else:
        assert all(name.startswith("accelgui_benchmark_") for name in fams)


def test_prometheus_picks_the_textfile_by_the_report():
    """`--probe --format prometheus` writes the inventory, `--probe --bench ...` the benchmark
    figures alone: the two documented textfiles never share a series."""
    rich = load("rich")
    assert rich.benchmarks
    assert render(rich, "prometheus") == prom(rich, "benchmark")
    assert render(rich.replace(benchmarks=None), "prometheus") == prom(rich, "inventory")
    assert render(Report(), "prometheus") == prom(Report(), "inventory")


@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
def test_prometheus_textfiles_are_disjoint(fixture):
    report = load(fixture)
    inv, bench = parse_prometheus(prom(report, "inventory")), parse_prometheus(prom(report, "benchmark"))
    assert not set(inv) & set(bench)
    assert all(name.startswith("accelgui_benchmark_") for name in bench)
    assert not any(name.startswith("accelgui_benchmark_") for name in inv)
    assert "accelgui_info" not in inv and "accelgui_build_info" not in bench


def test_prometheus_base_units_one_unit_per_family():
    report = load("rich")
    text = prom(report, "inventory") + prom(report, "benchmark")
    names = set(parse_prometheus(prom(report, "inventory"))) | set(parse_prometheus(prom(report, "benchmark")))
    assert not [n for n in names if re.search(r"_(gbps|gflops|ns|ms|mhz|kib|mib|gib)(_|$)", n)], names
    assert "unit=" not in text and "headline" not in text       # no family mixing units behind a label
    assert "accelgui_benchmark_headline_value" not in names


def test_prometheus_metrics_of_the_h100_server():
    report = load("rich")
    fams = parse_prometheus(prom(report, "inventory"))
    assert value_of(fams, "accelgui_build_info", version="0.1.0") == 1
    assert len(fams["accelgui_build_info"]) == 1
    assert value_of(fams, "accelgui_host_info", cpu_model="Intel(R) Xeon(R) Platinum 8480+") == 1
    assert value_of(fams, "accelgui_cpu_logical_cpus") == 224
    assert value_of(fams, "accelgui_devices", kind="gpu") == 8
    assert value_of(fams, "accelgui_devices", kind="accelerator") == 1
    for kind in ("npu", "tpu", "fpga"):
        assert value_of(fams, "accelgui_devices", kind=kind) == 0
    assert len(fams["accelgui_device_info"]) == 9
    assert len({tuple(sorted(lab)) for lab, _ in fams["accelgui_device_info"]}) == 1    # one label set
    info = value_of(fams, "accelgui_device_info", device="nvidia-gpu:0000:ab:00.0")
    assert info == 1
    lab = next(lab for lab, _ in fams["accelgui_device_info"] if lab["device"] == "nvidia-gpu:0000:ab:00.0")
    assert lab["pci_bus_id"] == "00000000:AB:00.0" and lab["gpu"] == "5"      # as DCGM labels it
    assert lab["UUID"] == "GPU-6f0e3b2a-41c7-9d2e-8a5b-0c1d2e3f4a05"
    assert value_of(fams, "accelgui_device_info", readiness="runtime-missing", driver="mlx5_core") == 1
    assert value_of(fams, "accelgui_device_ready", gpu="0") == 1
    assert value_of(fams, "accelgui_device_ready", pci_bus_id="00000000:C1:00.0") == 0
    assert value_of(fams, "accelgui_route_status", route="gpu", status="ready") == 1
    assert value_of(fams, "accelgui_route_status", route="gpu", status="remote") == 0
    assert value_of(fams, "accelgui_probe_status", probe="opencl", status="error") == 1
    assert value_of(fams, "accelgui_report_timestamp_seconds") == 1795162443

    bench = parse_prometheus(prom(report, "benchmark"))
    bw = "accelgui_benchmark_memory_bandwidth_bytes_per_second"
    assert value_of(bench, bw, kernel="triad", threads="1") == 18.4e9
    assert value_of(bench, bw, kernel="triad", threads="all") == 524.8e9
    flops = "accelgui_benchmark_compute_flop_per_second"
    assert value_of(bench, flops, precision="fp64", kernel="fma", threads="all") == 7012.5e9
    assert value_of(bench, flops, precision="fp64", kernel="gemm", threads="all") == 5812.3e9
    assert value_of(bench, "accelgui_benchmark_latency_seconds", level="dram") == 112.4e-9
    gpu_bw = "accelgui_benchmark_gpu_memory_bandwidth_bytes_per_second"
    assert len(bench[gpu_bw]) == 8
    assert value_of(bench, gpu_bw, pci_bus_id="00000000:18:00.0", device="nvidia-gpu:0000:18:00.0",
                    gpu="0") == 3012.4e9
    assert value_of(bench, "accelgui_benchmark_timestamp_seconds") == 1795162443


def test_prometheus_pci_bus_id_in_dcgm_form():
    from accelgui.export import prometheus

    assert prometheus.pci_bus_id("0000:1b:00.0") == "00000000:1B:00.0"
    assert prometheus.pci_bus_id("00000000:1B:00.0") == "00000000:1B:00.0"
    assert prometheus.pci_bus_id("1b:00.0") == "00000000:1B:00.0"
    assert prometheus.pci_bus_id("10000:af:1f.7") == "00010000:AF:1F.7"
    assert prometheus.pci_bus_id("usb:1-2") is None and prometheus.pci_bus_id(None) is None


def test_prometheus_zero_devices_still_counted():
    fams = parse_prometheus(prom(Report(), "inventory"))
    assert {lab["kind"]: v for lab, v in fams["accelgui_devices"]} == \
        {"gpu": 0, "npu": 0, "tpu": 0, "fpga": 0, "accelerator": 0}


def test_prometheus_escapes_hostile_label_values():
    report = load("hostile")
    out = prom(report, "inventory")
    fams = parse_prometheus(out)
    assert not any(line.startswith("injected_metric") for line in out.splitlines())
    feats = {lab["feature"] for lab, _ in fams["accelgui_cpu_feature"]}
    assert 'evil"} 1 injected_metric 1' in feats          # kept as a value, newline folded
    vendor = fams["accelgui_device_info"][0][0]["vendor"]
    assert vendor == common.clean(report.devices[0].vendor) == 'nv"idia\\ <x>'


def test_prometheus_has_no_empty_families_on_an_empty_report():
    fams = parse_prometheus(prom(Report(), "inventory"))
    assert "accelgui_device_info" not in fams and "accelgui_device_ready" not in fams
    assert prom(Report(), "benchmark") == ""          # an empty textfile, valid for node exporter


@pytest.mark.parametrize("part", ["inventory", "benchmark"])
@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
def test_promtool_check_metrics(fixture, part, tmp_path):
    promtool = shutil.which("promtool")
    if not promtool:
        pytest.skip("promtool not installed (Debian: apt-get install prometheus); "
                    "the strict parser above still checks the format")
    out = prom(load(fixture), part)
    res = subprocess.run([promtool, "check", "metrics"], input=out, capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert not res.stdout.strip() and not res.stderr.strip(), res.stdout + res.stderr  # no lint warnings


NODE_EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape_node_exporter(textfile_dir, timeout_s: float = 15.0) -> tuple[str, str]:
    """(the /metrics body, node exporter's log) of a real node exporter running only the
    textfile collector over ``textfile_dir``, on a loopback port of its own."""
    import time
    import urllib.request

    port = _free_port()
    log = Path(textfile_dir).parent / "node-exporter.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([NODE_EXPORTER, "--collector.disable-defaults", "--collector.textfile",
                                 f"--collector.textfile.directory={textfile_dir}",
                                 f"--web.listen-address=127.0.0.1:{port}"],
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                        body = r.read().decode()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return body, log.read_text(errors="replace")


@pytest.mark.skipif(not NODE_EXPORTER, reason="node exporter not installed (Debian: apt-get install "
                    "prometheus-node-exporter); the disjointness test above still checks the two files")
def test_node_exporter_loads_both_documented_textfiles(tmp_path):
    """The docs/fleet.md setup: the inventory (`--probe --format prometheus`) and the nightly
    benchmark file (`--probe --bench quick --format prometheus`) in one textfile directory.
    Node exporter loads both without one "collected before" error."""
    rich = load("rich")
    d = tmp_path / "textfiles"
    d.mkdir()
    (d / "accelgui.prom").write_text(render(rich.replace(benchmarks=None), "prometheus"))
    (d / "accelgui-bench.prom").write_text(render(rich, "prometheus"))
    body, log = scrape_node_exporter(d)
    assert "collected before" not in body + log, log[-2000:]
    assert re.search(r"^node_textfile_scrape_error 0$", body, re.M), body[-2000:]
    assert re.search(r'^accelgui_build_info\{version="0\.1\.0"\} 1$', body, re.M)
    assert re.search(r'^accelgui_devices\{kind="npu"\} 0$', body, re.M)
    assert re.search(r'^accelgui_benchmark_memory_bandwidth_bytes_per_second\{kernel="triad",threads="all"\} '
                     r'5\.248e\+11$', body, re.M)
    for name in ("accelgui.prom", "accelgui-bench.prom"):
        assert f'node_textfile_mtime_seconds{{file="{d / name}"}}' in body


# --------------------------------------------------------------------------- nfd

_K8S_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")


def parse_nfd(text: str, prefix: str = "accelgui.io") -> dict[str, str]:
    labels = {}
    assert len(text.encode()) <= 64 * 1024
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        ns, _, name = key.partition("/")
        assert ns == prefix, line
        assert _K8S_NAME.match(name), f"invalid label name: {name!r}"
        assert value == "" or _K8S_NAME.match(value), f"invalid label value: {value!r}"
        assert name not in labels, f"duplicate label {name}"
        labels[name] = value if "=" in line else "true"
    return labels


@pytest.mark.parametrize("fixture", ["rich", "minimal", "hostile"])
def test_nfd_labels_are_valid_kubernetes_labels(fixture):
    labels = parse_nfd(render(load(fixture), "nfd"))
    assert labels["version"] == "0.1.0" or fixture == "hostile"


def test_nfd_labels_of_the_h100_server():
    labels = parse_nfd(render(load("rich"), "nfd"))
    assert labels["gpu.present"] == "true" and labels["gpu.count"] == "8"
    assert labels["gpu.nvidia"] == "true" and labels["gpu.nvidia.count"] == "8"
    assert labels["gpu.ready.count"] == "8" and labels["gpu.memory-gib"] == "79"
    assert labels["gpu.nvidia.compute-capability"] == "9.0"
    assert labels["accelerator.count"] == "1" and labels["accelerator.ready.count"] == "0"
    assert labels["cpu.amx_tile"] == "true" and labels["cpu.avx512_bf16"] == "true"
    assert "cpu.sve" not in labels and "npu.present" not in labels
    assert labels["cpu.arch"] == "x86_64" and labels["cpu.microarchitecture"] == "sapphirerapids"
    assert labels["route.gpu"] == "ready" and labels["route.tpu"] == "remote"


def test_nfd_cpu_only_machine_has_no_accelerator_labels():
    labels = parse_nfd(render(load("minimal"), "nfd"))
    assert not [k for k in labels if k.startswith(("gpu", "npu", "tpu", "fpga"))]
    assert labels["cloud.provider"] == "aws" and labels["route.cpu"] == "ready"


def test_nfd_sanitises_hostile_values():
    labels = parse_nfd(render(load("hostile"), "nfd"))
    assert labels["cpu.microarchitecture"] == "b-zen-b"
    assert "route.enter-prise-x" in labels


def test_nfd_prefix_can_be_chosen_and_is_checked(monkeypatch):
    monkeypatch.setenv("ACCELGUI_NFD_PREFIX", "feature.node.kubernetes.io")
    labels = parse_nfd(render(load("rich"), "nfd"), prefix="feature.node.kubernetes.io")
    assert labels["gpu.count"] == "8"
    for bad in ("kubernetes.io", "node.kubernetes.io", "Bad_Prefix", "-x.io"):
        monkeypatch.setenv("ACCELGUI_NFD_PREFIX", bad)
        with pytest.raises(ValueError, match="prefix"):
            render(load("rich"), "nfd")


def test_nfd_sanitize_rules():
    from accelgui.export.nfd import sanitize

    assert sanitize("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"
    assert sanitize("--x--") == "x"
    assert sanitize("<>") == ""
    long = sanitize("a" * 100 + "-b")
    assert len(long) == 63 and _K8S_NAME.match(long)
    assert sanitize("a" * 62 + "-bc") == "a" * 62


# --------------------------------------------------------------------------- helpers

def test_common_formatting():
    assert common.fmt_bytes(85520809984) == "79.6 GiB"
    assert common.fmt_bytes(1024) == "1 KiB" and common.fmt_bytes(None) == "unknown"
    assert common.fmt_bytes(None, "zh") == "\u672a\u77e5"
    assert common.fmt_gbps(3012.4) == "3,012.4 GB/s" and common.fmt_gflops(14021.8) == "14,022 GFLOP/s"
    assert common.fmt_value("latency_ns", 1.1) == "1.1 ns"
    assert common.fmt_value("decode_tokens_per_s", 22.3) == "22.3 tokens/s"
    assert common.clean("a\x1b[31mb\x1b[0m\u202ec\x07\nd") == "abc d"
    assert common.esc_md("a|b") == "a\\|b" and common.esc_md("- x") == "\\- x" and common.esc_md("1. x") == "1\\. x"
    assert common.esc_html('"<&>') == "&quot;&lt;&amp;&gt;"


def test_report_labels_and_words_come_from_the_catalogue_in_both_languages():
    from accelgui import l10n

    ids = [i for i in l10n.catalogue("en") if i.startswith(("app.label.", "app.word."))]
    assert len(ids) > 100
    for id_ in ids:
        assert l10n.catalogue("zh")[id_], id_
    assert common.label("devices", "zh") == l10n.tr("app.label.devices", "zh") != common.label("devices")
    assert common.word("driver-missing") == "driver missing" and common.word("partly measured", "zh") != "partly measured"
    assert common.label("no-such-label") == "no-such-label" and common.word("odd\x1bvalue") == "oddvalue"


def test_generic_estimates_shape_renders():
    report = load("minimal").replace(estimates={"label": "estimate", "llm": [
        {"model": "x", "weights_bytes": 2**30, "fits": True}], "note": "n"})
    out = render(report, "markdown")
    assert "| model | weights\\_bytes | fits |" in out and "1 GiB" in out


# --------------------------------------------------------------------------- CLI and atomic writes

def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "machine"
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "proc/cpuinfo").write_text("processor\t: 0\nvendor_id\t: GenuineIntel\n"
                                       "model name\t: Test CPU\nflags\t\t: fpu sse2 avx2\n\n")
    (root / "proc/sys/kernel/hostname").write_text("secret-host-42\n")
    (root / "proc/meminfo").write_text("MemTotal:        8000000 kB\nMemAvailable:    4000000 kB\n")
    return root


def cli(*args, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_cli_writes_every_format(tmp_path, fmt):
    if fmt == "pdf" and not has_qt_gui():
        pytest.skip("PySide6.QtGui cannot be imported (Qt runtime libraries missing)")
    target = tmp_path / f"out{fmt}"
    res = cli("--probe", "--no-advice", "--sysroot", str(_tree(tmp_path)), "--format", fmt,
              "--output", str(target))
    assert res.returncode == 0, res.stderr
    data = target.read_bytes()
    assert data
    if fmt == "pdf":
        assert data.startswith(b"%PDF")
    elif fmt == "html":
        assert data.startswith(b"<!DOCTYPE html>")
    elif fmt == "json":
        json.loads(data)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("where", ["missing-dir", "under-a-file", "is-a-directory"])
def test_cli_unwritable_output_fails_clearly_and_leaves_nothing(tmp_path, where):
    tree = _tree(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "somefile").write_text("keep me")
    target = {"missing-dir": out_dir / "nonexistent" / "x.html",
              "under-a-file": out_dir / "somefile" / "x.html",
              "is-a-directory": out_dir}[where]
    res = cli("--probe", "--no-advice", "--sysroot", str(tree), "--format", "html",
              "--output", str(target))
    assert res.returncode == 1
    assert res.stderr.startswith("accelgui: error: cannot write") and str(target) in res.stderr
    assert "Traceback" not in res.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["somefile"]
    assert (out_dir / "somefile").read_text() == "keep me"


def test_cli_nonexistent_root_directory():
    res = cli("--compare", str(REPORTS / "minimal.json"), str(REPORTS / "minimal.json"),
              "--format", "html", "--output", "/nonexistent-accelgui-dir/x.html")
    assert res.returncode == 1 and "does not exist" in res.stderr
    assert not os.path.exists("/nonexistent-accelgui-dir")


def test_atomic_write_failure_removes_the_temporary_file(tmp_path, monkeypatch):
    from accelgui import atomic

    target = tmp_path / "report.html"
    target.write_text("old")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError, match="No space left on device") as err:
        atomic.write_atomic(str(target), "<html>new</html>")
    assert str(target) in str(err.value)
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    assert target.read_text() == "old"


def test_atomic_write_interrupted_leaves_no_partial_file(tmp_path, monkeypatch):
    from accelgui import atomic

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomic(str(tmp_path / "x.pdf"), b"%PDF-1.4 partial")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_replaces_and_keeps_permissions_sane(tmp_path):
    from accelgui.atomic import write_atomic

    # a known umask: under the caller's own (002 on many desktops) a new file is 0664
    old = os.umask(0o022)
    try:
        target = tmp_path / "m.prom"
        write_atomic(str(target), "a 1\n")
        write_atomic(str(target), "a 2\n")
        assert target.read_text() == "a 2\n"
        assert target.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)
    assert [p.name for p in tmp_path.iterdir()] == ["m.prom"]


def test_cli_redact_removes_the_host_name_from_every_format(tmp_path):
    tree = _tree(tmp_path)
    plain = cli("--probe", "--no-advice", "--sysroot", str(tree), "--format", "text")
    assert plain.returncode == 0, plain.stderr
    # the unredacted report shows it (else the checks below would prove nothing)
    assert "secret-host-42" in plain.stdout
    for fmt in ("json", "text", "markdown", "html", "prometheus", "nfd"):
        res = cli("--probe", "--no-advice", "--redact", "--sysroot", str(tree), "--format", fmt)
        assert res.returncode == 0, res.stderr
        assert "secret-host-42" not in res.stdout, fmt


def test_device_reason_and_fix_follow_the_language():
    """A device's readiness reason and fix come in Chinese when the report has them (probes
    fill readiness_reason_zh / fix_zh), else in English."""
    from accelgui.report import Device

    dev = Device(kind="gpu", vendor="nvidia", name="NVIDIA GeForce RTX 4090", bus="pci",
                 address="0000:01:00.0", pci_id="10de:2684", readiness="driver-missing",
                 readiness_reason="No kernel driver is bound to this device.",
                 fix="Install the NVIDIA driver, then reboot.",
                 readiness_reason_zh="\u6b64\u8bbe\u5907\u6ca1\u6709\u7ed1\u5b9a\u5185\u6838\u9a71\u52a8\u3002", fix_zh="\u5b89\u88c5 NVIDIA \u9a71\u52a8\uff0c\u7136\u540e\u91cd\u542f\u3002")
    plain = dev.replace(readiness_reason_zh=None, fix_zh=None)
    report = Report(devices=[dev])
    validate(report.to_dict())
    for fmt in ("text", "markdown", "html"):
        zh, en = render(report, fmt, lang="zh"), render(report, fmt, lang="en")
        assert "\u5b89\u88c5 NVIDIA \u9a71\u52a8\uff0c\u7136\u540e\u91cd\u542f\u3002" in zh and "\u6b64\u8bbe\u5907\u6ca1\u6709\u7ed1\u5b9a\u5185\u6838\u9a71\u52a8\u3002" in zh, fmt
        assert "Install the NVIDIA driver" not in zh, fmt
        assert "Install the NVIDIA driver" in en and "\u5b89\u88c5 NVIDIA \u9a71\u52a8" not in en, fmt
        assert "Install the NVIDIA driver" in render(Report(devices=[plain]), fmt, lang="zh"), fmt


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_redacted_report_says_so(fmt):
    from accelgui.export import html, markdown, text
    from accelgui.redact import redact

    report = redact(load("rich"))
    assert report.redacted                                       # redact() flags what it did
    out = {"text": text, "markdown": markdown, "html": html}[fmt].render(report, "en")
    assert "Host name" in out and "redacted" in out and "removed before sharing" in out
    plain = {"text": text, "markdown": markdown, "html": html}[fmt].render(load("rich"), "en")
    assert "removed before sharing" not in plain                 # not redacted: not claimed


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
def test_routes_are_a_compact_table(fmt):
    report = load("rich")
    out = render(report, fmt)
    for r in report.routes:
        assert common.route_title(r, "en")[:30] in out             # text cuts long titles at 40
    if fmt == "markdown":
        rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "Verdict" in ln]
        assert rows == ["| Route | Verdict | Why | First step |"]
    if fmt == "html":
        assert '<th width="22%">Route</th><th width="14%">Verdict</th>' in out
        assert 'class="verdict"' not in out                      # no run-on paragraph of verdicts


@pytest.mark.skipif(not shutil.which("pdfinfo") or not shutil.which("pdftotext"),
                    reason="pdfinfo/pdftotext not installed (apt-get install poppler-utils)")
def test_pdf_text_uses_the_page_width_and_stays_short(tmp_path):
    """QTextDocument lays out in screen pixels: the page must be sized in them, or the text
    fills three quarters of the width and the report runs pages longer. Without benchmarks the
    8-GPU server's report (13 routes, estimates for 9 devices) fits 5 A4 pages."""
    pytest.importorskip("PySide6")
    report = load("rich").replace(benchmarks=None)
    path = tmp_path / "r.pdf"
    path.write_bytes(render(report, "pdf"))
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True).stdout
    pages = int(next(ln.split()[1] for ln in info.splitlines() if ln.startswith("Pages:")))
    assert pages <= 5, info
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True).stdout
    widest = max(len(line.rstrip()) for line in text.splitlines())
    assert widest > 110, widest            # a 9 pt A4 line holds ~120 characters of layout text


def test_reports_say_where_to_start_and_speak_the_readers_language():
    """Text, Markdown and HTML open the advice with the advisor's first steps for this machine
    (a Coral owner: the device check first), and a Chinese rendering of an English report shows
    the route titles and reasons in Chinese (the knowledge base's titles, reasons_msg)."""
    from accelgui.cli import advise
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    tree = Path(__file__).parent / "fixtures" / "machines" / "acc-coral-pcie"
    report = advise(run_probes(ProbeContext(root=str(tree)), timeout_s=10))
    text = render(report, "text")
    start = text.split("Start here:\n", 1)[1].splitlines()
    first = next(ln for ln in start if ln.split()[0] not in ("Goal:", "Step"))
    assert first.startswith("    Find your edge accelerator") and "Edge AI" in first
    assert "## Start here" in render(report, "markdown")
    assert "Start here" in render(report, "html")
    zh = render(report, "text", lang="zh")
    assert "\u4ece\u8fd9\u91cc\u5f00\u59cb" in zh                 # "start here"
    assert "\u8fb9\u7f18 AI" in zh                                  # the edge route's Chinese title
    assert "CPU acceleration: SIMD" not in zh


# --------------------------------------------------------------------------- bounded labels

@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "prometheus"])
def test_a_long_device_name_is_cut_alike_in_every_face(fmt):
    """An in-memory report (not read from a file, so not cut at load): every face shows the
    device name as the same first 255 characters and an ellipsis (accelgui.bounds.NAME_MAX)."""
    report = load("rich")
    report = report.replace(devices=[report.devices[0].replace(name="N" * 5000)] + report.devices[1:])
    if fmt == "prometheus":
        report = report.replace(benchmarks=None)      # the inventory textfile names the devices
    out = render(report, fmt)
    runs = {len(m) for m in re.findall(r"N{100,}\u2026?", out)}
    assert runs == {256}, f"{fmt}: the name is shown {sorted(runs)} characters long"


def test_the_inventory_textfile_says_what_the_machine_can_run():
    """The fleet view reads what each node can run from the inventory textfile: the largest
    model at a usable speed and its device, from the report's estimates."""
    from accelgui import advisor
    from accelgui.export import prometheus

    report = load("rich")
    report = report.replace(estimates=advisor.estimates(report))
    out = prometheus.render(report.replace(benchmarks=None))
    line = next(x for x in out.splitlines() if x.startswith("accelgui_host_info{"))
    usable = [e["largest_usable"] for e in report.estimates["devices"] if e.get("largest_usable")]
    best = max(usable, key=lambda p: p["params_b"])
    assert f'can_run="{best["size"]} {best["quant"]} on ' in line
    assert 'can_run=""' in prometheus.render(report.replace(estimates=None, benchmarks=None))


def test_prometheus_exports_the_median_every_face_shows():
    """A real quick run with repeats: the benchmark textfile carries the median of the repeats
    (the figure of the tables, charts and estimates), not the best one."""
    from accelgui import benchmarks as bench

    section = json.loads((Path(__file__).parent / "fixtures" / "bench" / "quick-2cpu-vm.json").read_text())
    report = load("minimal").replace(benchmarks=section)
    fams = parse_prometheus(prom(report, "benchmark"))
    b = bench.read(report)
    q = bench.quantity(b, "cpu.fma.fp64_gflops_mt")
    assert q["statistic"] == "median" and q["value"] != bench.figure(b, "cpu.fma.fp64_gflops_mt")
    got = value_of(fams, "accelgui_benchmark_compute_flop_per_second", precision="fp64", kernel="fma",
                   threads="all")
    assert got == pytest.approx(q["value"] * 1e9)
