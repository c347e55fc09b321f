"""The Kubernetes manifests (packaging/kubernetes) and the Grafana dashboard
(packaging/grafana/accelgui-dashboard.json) work as an operator applies them.

- every built-in object validates, strictly (no unknown field), against the Kubernetes JSON
  schemas of 1.30 (the oldest with ``recursiveReadOnly``) and of the newest release, offline,
  with the schemas that ``kubernetes-validate`` ships; the Prometheus Operator's objects
  (ServiceMonitor, PodMonitor: CRDs, no schema there) are checked structurally;
- the pods are hardened (no token, no host namespaces, seccomp RuntimeDefault, every
  capability dropped, no privilege escalation, read-only root and recursive read-only host
  mounts, requests and limits) and the one root container is the one the comments justify;
- the shell loop stops at once on SIGTERM (run here with a stand-in accelgui);
- every metric a dashboard panel queries is in what accelgui really serves (the endpoint's
  families on a recorded machine with an NVIDIA GPU, and the inventory textfile), with the
  label values the queries select on.
"""

from __future__ import annotations

import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KUBE = os.path.join(ROOT, "packaging", "kubernetes")
DASHBOARD = os.path.join(ROOT, "packaging", "grafana", "accelgui-dashboard.json")
MACHINES = os.path.join(ROOT, "tests", "fixtures", "machines")
DS = {"type": "prometheus", "uid": "${datasource}"}
# labels Prometheus adds at scrape time (the ServiceMonitor's relabelling adds `node`)
TARGET_LABELS = {"node", "instance", "job", "namespace", "pod", "container", "service", "endpoint"}

try:
    import yaml
except ImportError:                     # the dashboard's checks still run
    yaml = None


def _need_yaml() -> None:
    if yaml is None:
        pytest.skip("PyYAML is needed to read the manifests (pip install pyyaml; kubernetes-validate pulls it)")


def documents() -> list[tuple[str, dict]]:
    _need_yaml()
    out = []
    for path in sorted(glob.glob(os.path.join(KUBE, "*.yaml"))):
        with open(path) as f:
            out += [(os.path.basename(path), d) for d in yaml.safe_load_all(f) if d]
    return out


def objects(kind: str) -> list[dict]:
    return [d for _, d in documents() if d["kind"] == kind]


def pod_specs() -> list[tuple[str, dict]]:
    return [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in objects("DaemonSet")]


def test_the_manifests_are_files_with_both_monitors():
    kinds = sorted(d["kind"] for _, d in documents())
    assert kinds == ["DaemonSet", "DaemonSet", "Kustomization", "NetworkPolicy", "PodMonitor",
                     "Service", "ServiceMonitor"], kinds
    kustomization = objects("Kustomization")[0]
    for name in kustomization["resources"]:
        assert os.path.exists(os.path.join(KUBE, name)), name
    # one of the two monitors, never both: every node would be scraped twice
    assert "servicemonitor.yaml" in kustomization["resources"]
    assert "podmonitor.yaml" not in kustomization["resources"]


@pytest.mark.parametrize("version", ["1.30.0", "latest"])
def test_the_built_in_objects_validate_against_the_kubernetes_schemas(version):
    kv = pytest.importorskip("kubernetes_validate",
                             reason="kubernetes-validate ships the Kubernetes JSON schemas (pip install kubernetes-validate)")
    version = kv.latest_version() if version == "latest" else version
    checked = 0
    for name, doc in documents():
        if doc["apiVersion"].startswith(("monitoring.coreos.com/", "kustomize.config.k8s.io/")):
            continue
        try:
            kv.validate(doc, version, strict=True)
        except kv.ValidationError as e:
            pytest.fail(f"{name}: {doc['kind']} {doc['metadata']['name']} invalid for Kubernetes {version}: {e}")
        checked += 1
    assert checked == 4
    # and the validator does catch what a typo would do
    bad = json.loads(json.dumps(objects("DaemonSet")[0]))
    bad["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFileSystem"] = True
    with pytest.raises(kv.ValidationError):
        kv.validate(bad, version, strict=True)


def _relabelled_node(endpoint: dict) -> None:
    assert {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node",
            "action": "replace"} in endpoint["relabelings"]
    for rule in endpoint["relabelings"]:
        assert set(rule) <= {"sourceLabels", "separator", "targetLabel", "regex", "modulus",
                             "replacement", "action"}, rule        # the CRD's camelCase, not source_labels
    assert re.fullmatch(r"\d+[smh]", endpoint["interval"]) and re.fullmatch(r"\d+[smh]", endpoint["scrapeTimeout"])
    assert endpoint["path"] == "/metrics"


def test_the_service_and_pod_monitors_find_the_pods_and_label_them_by_node():
    from accelgui import monitor_cli

    port = int(monitor_cli.DEFAULT_ADDRESS.rsplit(":", 1)[1])
    service, = objects("Service")
    pods = [d["spec"]["template"] for d in objects("DaemonSet")]
    for template in pods:
        labels = template["metadata"]["labels"]
        assert service["spec"]["selector"].items() <= labels.items()
        metrics, = [c for c in template["spec"]["containers"] if c["name"] == "metrics"]
        assert {"name": "metrics", "containerPort": port, "protocol": "TCP"} in metrics["ports"]
        assert f"0.0.0.0:{port}" in metrics["args"]
    assert service["spec"]["clusterIP"] == "None"
    assert {"name": "metrics", "port": port, "targetPort": "metrics", "protocol": "TCP"} in service["spec"]["ports"]
    for kind, endpoints in (("ServiceMonitor", "endpoints"), ("PodMonitor", "podMetricsEndpoints")):
        mon, = objects(kind)
        assert mon["apiVersion"] == "monitoring.coreos.com/v1"
        assert set(mon["spec"]) <= {"selector", "namespaceSelector", endpoints, "jobLabel", "podTargetLabels",
                                    "targetLabels"}, mon["spec"]
        selector = mon["spec"]["selector"]["matchLabels"]
        matched = [service["metadata"]["labels"]] if kind == "ServiceMonitor" else [t["metadata"]["labels"] for t in pods]
        assert all(selector.items() <= labels.items() for labels in matched), kind
        assert mon["spec"]["namespaceSelector"]["matchNames"] == [service["metadata"]["namespace"]]
        for ep in mon["spec"][endpoints]:
            assert ep["port"] == "metrics"
            _relabelled_node(ep)
    policy, = objects("NetworkPolicy")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= pods[0]["metadata"]["labels"].items()


def test_the_pods_are_hardened():
    from accelgui import __version__

    specs = pod_specs()
    assert [name for name, _ in specs] == ["accelgui", "accelgui-nvidia"]
    for name, spec in specs:
        assert spec["automountServiceAccountToken"] is False, name
        for host in ("hostPID", "hostNetwork", "hostIPC"):
            assert not spec.get(host), (name, host)
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] != 0
        assert 0 < spec["terminationGracePeriodSeconds"] <= 30
        volumes = {v["name"]: v for v in spec["volumes"]}
        root = []
        for c in spec["containers"]:
            sc = c["securityContext"]
            assert c["image"] == f"ghcr.io/accelgui/accelgui:{__version__}", c["image"]
            assert sc["allowPrivilegeEscalation"] is False and sc.get("privileged") is not True, c["name"]
            assert sc["capabilities"] == {"drop": ["ALL"]}, c["name"]
            assert sc["readOnlyRootFilesystem"] is True, c["name"]
            for what in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c["resources"][what]), (c["name"], what)
            if sc.get("runAsUser", spec["securityContext"]["runAsUser"]) == 0:
                root.append(c["name"])
            for m in c.get("volumeMounts", []):
                vol = volumes[m["name"]]
                if "hostPath" not in vol:
                    continue
                if m["name"] == "features-d":          # the one place it writes: NFD's directory
                    assert vol["hostPath"]["path"] == "/etc/kubernetes/node-feature-discovery/features.d"
                    continue
                assert m.get("readOnly") is True and m.get("recursiveReadOnly") == "Enabled", (c["name"], m)
        # uid 0 (with no capability) only where the root-owned features.d must be written
        assert root == ["nfd-features"], root
        assert spec.get("runtimeClassName") == ("nvidia" if name.endswith("-nvidia") else None)


def test_the_two_daemonsets_differ_only_by_the_nvidia_runtime():
    generic, nvidia = (json.loads(json.dumps(d)) for d in objects("DaemonSet"))
    nvidia["spec"]["template"]["spec"].pop("runtimeClassName")
    env = nvidia["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"} in env
    assert {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "utility"} in env
    nvidia["spec"]["template"]["spec"]["containers"][0]["env"] = [e for e in env if not e["name"].startswith("NVIDIA_")]
    for d in (generic, nvidia):
        d["metadata"]["name"] = "x"
        for labels in (d["metadata"]["labels"], d["spec"]["selector"]["matchLabels"],
                       d["spec"]["template"]["metadata"]["labels"]):
            labels.pop("app.kubernetes.io/variant")
        term = d["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0]
        assert term["key"] == "nvidia.com/gpu.present" and term["values"] == ["true"]
        term["operator"] = "?"
    assert generic == nvidia
    assert objects("DaemonSet")[0]["spec"]["selector"] != objects("DaemonSet")[1]["spec"]["selector"]


def _loop() -> str:
    (_, spec), = [s for s in pod_specs() if s[0] == "accelgui"]
    c, = [c for c in spec["containers"] if c.get("command")]
    assert c["command"] == ["/bin/sh", "-c"]
    return c["args"][0]


@pytest.mark.parametrize("busy", ["probing", "sleeping"])
def test_the_shell_loop_exits_0_at_once_on_sigterm(tmp_path, busy):
    stub = tmp_path / "accelgui"
    # a probe that takes 20 s, or one that returns at once (the loop then sleeps 1800 s)
    stub.write_text("#!/bin/sh\nexec sleep 20\n" if busy == "probing" else "#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    proc = subprocess.Popen(["/bin/sh", "-c", _loop()], env=env, start_new_session=True)
    try:
        time.sleep(0.5)
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - t0 < 2
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)     # the stand-in's sleep, if the loop left it
        except ProcessLookupError:
            pass
        proc.wait()


def test_the_image_is_built_from_the_containerfile():
    path = os.path.join(ROOT, "packaging", "Containerfile")
    text = open(path).read()
    assert re.search(r'^ENTRYPOINT \["accelgui"\]', text, re.M), "the manifests' args assume ENTRYPOINT [\"accelgui\"]"
    assert re.search(r"^USER\s+(?!root\b|0\b)\S+", text, re.M), "the image should run as a non-root user"


# --- the Grafana dashboard ------------------------------------------------------------------

def dashboard() -> dict:
    with open(DASHBOARD) as f:
        return json.load(f)


def exprs(d: dict) -> list[str]:
    return [t["expr"] for p in d["panels"] for t in p["targets"]]


def test_every_panel_uses_the_datasource_variable():
    d = dashboard()
    text = json.dumps(d)
    assert "__inputs" not in d and "DS_PROMETHEUS" not in text   # import-only: empty under provisioning
    variables = {v["name"]: v for v in d["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["node"]["datasource"] == DS
    assert [p["id"] for p in d["panels"]] == list(range(1, len(d["panels"]) + 1))
    for p in d["panels"]:
        assert p["datasource"] == DS, p["title"]
        assert p["targets"], p["title"]
        for t in p["targets"]:
            assert t["datasource"] == DS, p["title"]
            assert '{node=~"$node"' in t["expr"], t["expr"]


def test_the_node_variable_is_the_label_the_service_monitor_adds():
    node = {v["name"]: v for v in dashboard()["templating"]["list"]}["node"]
    assert node["query"]["query"] == node["definition"] == "label_values(accelgui_build_info, node)"
    for kind, endpoints in (("ServiceMonitor", "endpoints"), ("PodMonitor", "podMetricsEndpoints")):
        for ep in objects(kind)[0]["spec"][endpoints]:
            assert any(r["targetLabel"] == "node" and r["sourceLabels"] == ["__meta_kubernetes_pod_node_name"]
                       for r in ep["relabelings"])


def test_cpu_use_is_a_rate_of_the_cpu_seconds_counter():
    cpu = [e for e in exprs(dashboard()) if "accelgui_cpu_" in e and "frequency" not in e]
    assert cpu and all("rate(accelgui_cpu_seconds_total{" in e and "[$__rate_interval])" in e for e in cpu), cpu
    assert not any("accelgui_cpu_utilisation_ratio" in e for e in exprs(dashboard()))


_SERVED: list[str] = []


def served_outputs() -> list[str]:
    """What accelgui really exposes: the endpoint (the monitor's families over a sample of the
    recorded telemetry tree with one NVIDIA GPU, plus the report's facts) and the inventory
    textfile of the same report."""
    import tempfile

    from monitor_support import FakeClock, TelemetryTree, gpu, monitor_nvml
    from prometheus_client import CollectorRegistry, generate_latest

    from accelgui import monitor_cli
    from accelgui.export import prometheus
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler
    from accelgui.runner import run_probes

    if _SERVED:
        return _SERVED
    with tempfile.TemporaryDirectory() as tmp:
        tree = TelemetryTree(os.path.join(tmp, "root"))
        clock = FakeClock()
        sampler = Sampler(ProbeContext(tree.root), nvml=monitor_nvml([gpu(0)]), clock=clock)
        sampler.sample()
        tree.advance(1.0)
        clock.now += 1.0
        collector = monitor_cli.MonitorCollector()
        collector.sample = sampler.sample()
        report = run_probes(ProbeContext(os.path.join(MACHINES, "acc-radeon-desktop")))
        collector.report = report
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)
        _SERVED[:] = [generate_latest(registry).decode(), prometheus.render(report)]
    return _SERVED


def test_every_metric_a_panel_queries_is_served_with_the_labels_it_selects():
    from prometheus_client.parser import text_string_to_metric_families

    series: dict[str, list[dict]] = {}
    for block in served_outputs():
        for fam in text_string_to_metric_families(block):
            for s in fam.samples:
                series.setdefault(s.name, []).append(s.labels)
    missing, wrong = set(), []
    for expr in exprs(dashboard()):
        for name, matchers in re.findall(r"\b(accelgui_\w+)(?:\{([^}]*)\})?", expr):
            if name not in series:
                missing.add(name)
                continue
            for label, op, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', matchers or ""):
                if label in TARGET_LABELS:
                    continue
                if not any(label in s for s in series[name]):
                    wrong.append(f"{name} has no label {label}")
                elif op == "=" and not any(s.get(label) == value for s in series[name]):
                    wrong.append(f'{name} has no series with {label}="{value}"')
    assert not missing, f"panels query metrics accelgui does not serve: {sorted(missing)}"
    assert not wrong, wrong


def test_fleet_md_points_at_these_files_with_the_served_port():
    from accelgui import monitor_cli

    port = monitor_cli.DEFAULT_ADDRESS.rsplit(":", 1)[1]
    text = open(os.path.join(ROOT, "docs", "fleet.md")).read()
    for path in ("packaging/kubernetes/", "packaging/grafana/accelgui-dashboard.json", "metrics.md"):
        assert path in text, path
    assert "registry.example.com" not in text and "DS_PROMETHEUS" not in text
    ports = set(re.findall(r"(?:0\.0\.0\.0|127\.0\.0\.1|\]|gpu-node-\d+):(\d{2,5})\b", text))
    assert ports == {port}, ports
    _need_yaml()
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        assert yaml.safe_load(block)
