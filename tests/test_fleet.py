"""``accelgui --fleet URL``: one row per node from a Prometheus server (accelgui.fleet).

Unit tests run against a tiny fake of Prometheus's HTTP API on 127.0.0.1; the end-to-end test
runs a real Prometheus (Debian package ``prometheus``) scraping two ``accelgui --serve-metrics``
endpoints over recorded trees, and is skipped with a reason where the binary is absent.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import pytest

from accelgui import cli

HERE = os.path.dirname(os.path.abspath(__file__))
MACHINES = os.path.join(HERE, "fixtures", "machines")
NOW = 1_800_000_000.0


def vec(metric: dict, value) -> dict:
    return {"metric": metric, "value": [NOW, str(value)]}


#: what a Prometheus scraping two accelgui nodes answers, by the metric name in the query
TWO_NODES = {
    "accelgui_build_info": [vec({"instance": "gpu1:9835", "job": "accelgui", "version": "1.0"}, 1),
                            vec({"instance": "cpu1:9835", "job": "accelgui", "version": "1.0"}, 1)],
    "up": [vec({"instance": "gpu1:9835"}, 1), vec({"instance": "cpu1:9835"}, 0),
           vec({"instance": "other:9100"}, 1)],
    "accelgui_sample_timestamp_seconds": [vec({"instance": "gpu1:9835"}, NOW - 3),
                                          vec({"instance": "cpu1:9835"}, NOW - 600)],
    "accelgui_devices": [vec({"instance": "gpu1:9835", "kind": "gpu"}, 2),
                         vec({"instance": "gpu1:9835", "kind": "npu"}, 0),
                         vec({"instance": "cpu1:9835", "kind": "gpu"}, 0)],
    "accelgui_device_info": [
        vec({"instance": "gpu1:9835", "device": "nvidia-gpu:0000:1b:00.0", "kind": "gpu",
             "name": "NVIDIA H100 80GB HBM3", "readiness": "ready"}, 1),
        vec({"instance": "gpu1:9835", "device": "nvidia-gpu:0000:2b:00.0", "kind": "gpu",
             "name": "NVIDIA H100 80GB HBM3", "readiness": "driver_missing"}, 1)],
    "accelgui_device_utilisation_ratio": [vec({"instance": "gpu1:9835"}, 0.75)],
    "accelgui_cpu_seconds_total": [vec({"instance": "gpu1:9835"}, 0.25), vec({"instance": "cpu1:9835"}, 0.5)],
    "accelgui_cpu_utilisation_ratio": [vec({"instance": "gpu1:9835"}, 0.99)],
    "accelgui_device_temperature_celsius": [vec({"instance": "gpu1:9835"}, 71)],
    "accelgui_device_memory_used_bytes": [vec({"instance": "gpu1:9835"}, 40 * 2 ** 30)],
    "accelgui_device_memory_total_bytes": [vec({"instance": "gpu1:9835"}, 160 * 2 ** 30)],
    "accelgui_memory_used_bytes": [vec({"instance": "cpu1:9835"}, 8 * 2 ** 30)],
    "accelgui_memory_total_bytes": [vec({"instance": "cpu1:9835"}, 64 * 2 ** 30)],
}


class FakePrometheus:
    """``/api/v1/query`` answering from ``answers`` (metric name -> result), or a fixed
    ``raw`` (status, content type, body) for the error cases; records the queries it got."""

    def __init__(self, answers=None, raw=None, prefix=""):
        self.answers, self.raw, self.prefix, self.queries = answers or {}, raw, prefix, []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if fake.raw is not None:
                    status, ctype, body = fake.raw
                elif url.path != fake.prefix + "/api/v1/query":
                    status, ctype, body = 404, "text/plain", b"404 page not found"
                else:
                    q = urllib.parse.parse_qs(url.query)["query"][0]
                    fake.queries.append(q)
                    names = sorted(fake.answers, key=len, reverse=True)   # the longest name first
                    name = next((n for n in names if n in q), None)
                    result = fake.answers.get(name, []) if name else []
                    status, ctype = 200, "application/json"
                    body = json.dumps({"status": "success",
                                       "data": {"resultType": "vector", "result": result}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{prefix}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def prom():
    servers = []

    def make(**kw):
        servers.append(FakePrometheus(**kw))
        return servers[-1]
    yield make
    for s in servers:
        s.close()


def run_cli(argv, capsys):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


# -- one row per node ----------------------------------------------------------------------------

def test_fleet_json_has_a_row_per_node_with_devices_readiness_utilisation(prom, capsys):
    p = prom(answers=TWO_NODES)
    rc, out, err = run_cli(["--fleet", p.url, "--format", "json"], capsys)
    assert rc == 0, err
    doc = json.loads(out)
    nodes = {n["instance"]: n for n in doc["nodes"]}
    assert sorted(nodes) == ["cpu1:9835", "gpu1:9835"]      # "other:9100" runs no accelgui
    gpu, cpu = nodes["gpu1:9835"], nodes["cpu1:9835"]
    assert gpu["devices"] == {"gpu": 2} and cpu["devices"] == {}       # zero kinds left out
    assert gpu["device_names"] == ["NVIDIA H100 80GB HBM3"] * 2
    assert gpu["readiness"] == {"ready": 1, "driver_missing": 1}
    assert gpu["up"] is True and cpu["up"] is False
    assert gpu["device_utilisation_ratio"] == 0.75
    assert gpu["cpu_utilisation_ratio"] == 0.25             # the counter's rate, not the gauge
    assert gpu["temperature_celsius"] == 71
    assert gpu["device_memory_total_bytes"] == 160 * 2 ** 30
    assert cpu["memory_used_bytes"] == 8 * 2 ** 30
    assert gpu["last_seen_seconds"] == NOW - 3 and gpu["age_seconds"] >= 0
    assert "can_run" not in doc["columns"]                  # no node exports an estimate
    assert any("rate(accelgui_cpu_seconds_total[2m])" in q for q in p.queries)


def test_fleet_text_is_a_table_a_person_reads(prom, capsys):
    p = prom(answers=TWO_NODES)
    rc, out, err = run_cli(["--fleet", p.url], capsys)
    assert rc == 0, err
    lines = out.splitlines()
    assert "2 node(s)" in lines[0] and p.url in lines[0]
    assert lines[1].split()[:2] == ["NODE", "UP"] and "LAST SEEN" in lines[1]
    gpu = next(line for line in lines if line.startswith("gpu1:9835"))
    cpu = next(line for line in lines if line.startswith("cpu1:9835"))
    assert "2 gpu (NVIDIA H100 80GB HBM3)" in gpu and "1 driver_missing, 1 ready" in gpu
    assert "75%" in gpu and "71 °C" in gpu and "40.0/160.0 GiB" in gpu and "s ago" in gpu
    assert "DOWN" in cpu and "none" in cpu and "10 min ago" in cpu and "8.0/64.0 GiB" in cpu


def test_fleet_counts_info_series_when_there_is_no_devices_gauge_and_falls_back_to_cpu_gauge(prom, capsys):
    answers = {k: v for k, v in TWO_NODES.items() if k not in ("accelgui_devices", "accelgui_cpu_seconds_total")}
    rc, out, err = run_cli(["--fleet", prom(answers=answers).url, "--format", "json"], capsys)
    gpu = {n["instance"]: n for n in json.loads(out)["nodes"]}["gpu1:9835"]
    assert gpu["devices"] == {"gpu": 2} and gpu["cpu_utilisation_ratio"] == 0.99


def test_fleet_shows_what_a_node_can_run_when_the_inventory_exports_it(prom, capsys):
    answers = dict(TWO_NODES, accelgui_host_info=[
        vec({"instance": "gpu1:9835", "cpu_model": "x", "largest_model": "70B (fp8)"}, 1)])
    rc, out, err = run_cli(["--fleet", prom(answers=answers).url], capsys)
    assert rc == 0 and "CAN RUN" in out
    assert "70B (fp8)" in next(line for line in out.splitlines() if line.startswith("gpu1"))


def test_fleet_url_without_scheme_and_with_a_path_prefix(prom, capsys):
    p = prom(answers=TWO_NODES, prefix="/prometheus")
    rc, out, err = run_cli(["--fleet", p.url.replace("http://", "") + "/", "--format", "json"], capsys)
    assert rc == 0, err
    assert json.loads(out)["prometheus"] == p.url


def test_fleet_output_file_and_chinese(prom, capsys, tmp_path):
    target = tmp_path / "fleet.txt"
    rc, out, err = run_cli(["--fleet", prom(answers=TWO_NODES).url, "--lang", "zh", "-o", str(target)], capsys)
    assert rc == 0 and out == ""
    text = target.read_text(encoding="utf-8")
    from accelgui.l10n import tr

    assert tr("fleet.col.instance", "zh") in text and tr("fleet.up.no", "zh") in text
    assert tr("fleet.col.instance", "zh") != "NODE"


# -- errors a person can act on ------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_fleet_unreachable_url_is_a_clear_error(capsys):
    url = f"http://127.0.0.1:{_free_port()}"
    started = time.monotonic()
    rc, out, err = run_cli(["--fleet", url, "--timeout", "2"], capsys)
    assert rc == cli.EXIT_FAIL and out == ""
    assert f"cannot reach Prometheus at {url}" in err and "Traceback" not in err
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("raw", [
    (200, "text/html", b"<html>a web server, not Prometheus</html>"),
    (404, "text/plain", b"404 page not found"),
    (200, "application/json", b'{"hello": "world"}'),
])
def test_fleet_non_prometheus_answer_is_a_clear_error(prom, capsys, raw):
    p = prom(raw=raw)
    rc, out, err = run_cli(["--fleet", p.url], capsys)
    assert rc == cli.EXIT_FAIL and out == ""
    assert "did not answer as a Prometheus server" in err and f"status {raw[0]}" in err


def test_fleet_prometheus_error_is_said(prom, capsys):
    body = json.dumps({"status": "error", "errorType": "bad_data", "error": "parse error at char 3"}).encode()
    rc, out, err = run_cli(["--fleet", prom(raw=(400, "application/json", body)).url], capsys)
    assert rc == cli.EXIT_FAIL and "refused the query: parse error at char 3" in err


def test_fleet_empty_result_says_no_accelgui_node(prom, capsys):
    p = prom(answers={"up": [vec({"instance": "node:9100"}, 1)]})
    rc, out, err = run_cli(["--fleet", p.url, "--format", "json"], capsys)
    assert rc == cli.EXIT_FAIL and out == ""
    assert "has no accelgui series" in err


@pytest.mark.parametrize("url", ["ftp://prom:9090", "http://", "http://prom:99999"])
def test_fleet_bad_url_is_a_usage_error(capsys, url):
    rc, out, err = run_cli(["--fleet", url], capsys)
    assert rc == cli.EXIT_USAGE and "--fleet" in err


def test_fleet_rejects_other_formats(prom, capsys):
    rc, out, err = run_cli(["--fleet", "http://127.0.0.1:1", "--format", "html"], capsys)
    assert rc == cli.EXIT_USAGE and "--format text or json" in err


# -- end to end: a real Prometheus scraping two accelgui endpoints -------------------------------

PROMETHEUS = shutil.which("prometheus") or ("/usr/bin/prometheus" if os.path.exists("/usr/bin/prometheus") else None)


def _serve(tree: str, tmp_path) -> tuple[subprocess.Popen, str]:
    log = open(tmp_path / f"{os.path.basename(tree)}.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "accelgui", "--serve-metrics", "127.0.0.1:0",
                             "--sysroot", tree, "--interval", "0.5"],
                            stdout=subprocess.DEVNULL, stderr=log, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        log.seek(0)
        m = re.search(r"http://(127\.0\.0\.1:\d+)/metrics", log.read())
        if m:
            return proc, m.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    log.seek(0)
    pytest.fail(f"accelgui --serve-metrics did not start: {log.read()[-2000:]}")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.skipif(PROMETHEUS is None, reason="the prometheus binary is absent (Debian package prometheus)")
def test_fleet_over_a_real_prometheus_lists_both_nodes(tmp_path):
    pytest.importorskip("prometheus_client")
    procs = []
    try:
        addresses = []
        for tree in ("acc-dgx-h100", "cpu-amd-epyc-2s"):
            proc, address = _serve(os.path.join(MACHINES, tree), tmp_path)
            procs.append(proc)
            addresses.append(address)
        config = tmp_path / "prometheus.yml"
        config.write_text("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                          "scrape_configs:\n  - job_name: accelgui\n    static_configs:\n"
                          f"      - targets: [{', '.join(repr(a) for a in addresses)}]\n")
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        plog = open(tmp_path / "prometheus.log", "w")
        procs.append(subprocess.Popen([PROMETHEUS, f"--config.file={config}",
                                       f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                                       f"--web.listen-address=127.0.0.1:{port}"],
                                      stdout=plog, stderr=subprocess.STDOUT))
        deadline, up = time.monotonic() + 20, {}
        while time.monotonic() < deadline:
            try:
                q = urllib.parse.urlencode({"query": 'up{job="accelgui"}'})
                with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=2) as r:
                    up = {x["metric"]["instance"]: x["value"][1] for x in json.load(r)["data"]["result"]}
                if sorted(up) == sorted(addresses) and set(up.values()) == {"1"}:
                    break
            except OSError:
                pass
            time.sleep(0.25)
        else:
            pytest.fail(f"Prometheus did not scrape both endpoints within 20 s: {up}; "
                        f"{(tmp_path / 'prometheus.log').read_text()[-2000:]}")
        env = dict(os.environ, NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
        run = subprocess.run([sys.executable, "-m", "accelgui", "--fleet", url, "--format", "json"],
                             capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, run.stderr
        doc = json.loads(run.stdout)
        nodes = {n["instance"]: n for n in doc["nodes"]}
        assert sorted(nodes) == sorted(addresses)
        for n in nodes.values():
            assert n["up"] is True and n["last_seen_seconds"] is not None and n["age_seconds"] < 60
            assert n["memory_total_bytes"]        # a recorded tree: its CPU counters never move
        dgx, epyc = nodes[addresses[0]], nodes[addresses[1]]
        assert dgx["devices"] == {"gpu": 8} and dgx["device_names"] == ["NVIDIA H100 80GB HBM3"] * 8
        assert dgx["readiness"] == {"ready": 8} and epyc["devices"] == {}
        text = subprocess.run([sys.executable, "-m", "accelgui", "--fleet", url],
                              capture_output=True, text=True, timeout=60, env=env)
        assert text.returncode == 0, text.stderr
        assert "2 node(s)" in text.stdout and all(a in text.stdout for a in addresses)
        assert "8 gpu (NVIDIA H100 80GB HBM3)" in text.stdout
    finally:
        for proc in reversed(procs):
            _stop(proc)


# -- the app's Fleet page ------------------------------------------------------------------------

@pytest.fixture
def qt(request):
    pytest.importorskip("PySide6")
    pytest.importorskip("pytestqt")
    return request.getfixturevalue("qtbot")


@pytest.mark.gui
def test_fleet_page_queries_off_the_gui_thread_and_remembers_the_url(qt, prom, monkeypatch):
    from accelgui.gui import settings
    from accelgui.gui.main_window import PAGES, AppOptions, MainWindow

    assert "fleet" in PAGES
    p = prom(answers=TWO_NODES)
    window = MainWindow(AppOptions(probe=False))
    qt.addWidget(window)
    window.show()
    window.show_page("fleet")
    view = window.fleet
    assert window.current_page() == "fleet" and view.isVisible()
    assert window.sidebar.currentItem().text() == "Fleet"
    assert "Prometheus" in view.status.text() and view.table.rowCount() == 0
    threads = []
    real = view._query

    def query(*args):
        threads.append(threading.current_thread())
        return real(*args)
    view._query = query
    view.url.setText(p.url)
    qt.mouseClick(view.refresh_button, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    qt.waitUntil(lambda: view.table.rowCount() == 2, timeout=10_000)
    assert threads and threads[0] is not threading.main_thread()
    headers = [view.table.horizontalHeaderItem(i).text() for i in range(view.table.columnCount())]
    assert headers[:2] == ["NODE", "UP"]
    assert [view.table.item(r, 0).text() for r in range(2)] == ["cpu1:9835", "gpu1:9835"]
    row = [view.table.item(1, c).text() for c in range(view.table.columnCount())]
    assert "2 gpu (NVIDIA H100 80GB HBM3)" in row and "71 °C" in row
    assert "2 node(s)" in view.status.text() and view.refresh_button.isEnabled()
    assert settings.value("fleet/url") == p.url
    again = MainWindow(AppOptions(probe=False))         # the next start shows the same URL
    qt.addWidget(again)
    assert again.fleet.url.text() == p.url


@pytest.mark.gui
def test_fleet_page_says_why_a_query_failed(qt):
    from accelgui.gui.views.fleet import FleetView

    view = FleetView()
    qt.addWidget(view)
    view.show()
    url = f"http://127.0.0.1:{_free_port()}"
    view.url.setText(url)
    view.refresh()
    assert not view.refresh_button.isEnabled() and url in view.status.text()   # "Asking ..."
    qt.waitUntil(lambda: not view.busy(), timeout=15_000)
    assert f"cannot reach Prometheus at {url}" in view.status.text()
    assert view.table.rowCount() == 0 and view.refresh_button.isEnabled()


@pytest.mark.gui
def test_fleet_page_follows_the_language(qt):
    from accelgui.gui.views.common import ViewState
    from accelgui.gui.views.fleet import FleetView
    from accelgui.l10n import tr

    view = FleetView()
    qt.addWidget(view)
    assert view.refresh_button.text() == "Refresh"
    view.render(ViewState(lang="zh"))
    assert view.refresh_button.text() == tr("fleet.page.refresh", "zh") != "Refresh"
    assert view.title.text() == tr("fleet.page.title", "zh")


def test_fleet_counts_the_devices_listed_when_the_gauge_says_fewer(prom, capsys):
    answers = dict(TWO_NODES, accelgui_devices=[vec({"instance": "gpu1:9835", "kind": "gpu"}, 0),
                                                vec({"instance": "gpu1:9835", "kind": "npu"}, 1)])
    rc, out, err = run_cli(["--fleet", prom(answers=answers).url, "--format", "json"], capsys)
    gpu = {n["instance"]: n for n in json.loads(out)["nodes"]}["gpu1:9835"]
    assert gpu["devices"] == {"gpu": 2, "npu": 1}
