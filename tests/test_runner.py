"""The runner: every probe has a timeout, and no probe failure stops the report."""

import threading

import pytest

from accelgui.probes import Probe
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

# Probe targets are "module:function" under accelgui.probes; the fault probes live in this
# test module, reached through a module alias registered by the fixture below.


def _ok(ctx):
    return {"cpu": {"model_name": "Test CPU", "logical_cpus": 4}}


def _raises(ctx):
    raise RuntimeError("sysfs exploded")


# A probe that hangs until the test lets it go (or 30 s pass): while it is held, a runner
# that returned did so without waiting for it. Each test has its own pair of events, so a
# thread left hanging by one test, released at its teardown, cannot touch the next test's.
class _Hang:
    def __init__(self):
        self.release = threading.Event()
        self.finished = threading.Event()

    def __call__(self, ctx):
        self.release.wait(30)
        self.finished.set()
        return {}


@pytest.fixture
def hang():
    h = _Hang()
    yield h
    h.release.set()


def _garbage(ctx):
    return ["not", "a", "fragment"]


def _bad_devices(ctx):
    return {"devices": "gpu"}


def _absent(ctx):
    return {"_status": "absent", "_reason": "no such hardware", "devices": []}


def _probe(name, func, monkeypatch, timeout_s=None):
    import sys
    import types

    module = types.ModuleType(f"accelgui.probes._test_{name}")
    module.run = func
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return Probe(name, f"_test_{name}:run", timeout_s)


def test_one_failing_probe_never_stops_the_report(monkeypatch):
    probes = [_probe("good", _ok, monkeypatch), _probe("bad", _raises, monkeypatch),
              _probe("garbage", _garbage, monkeypatch), _probe("baddev", _bad_devices, monkeypatch),
              _probe("absent", _absent, monkeypatch)]
    report = run_probes(ProbeContext(), timeout_s=2.0, probes=probes)
    status = {p.name: p for p in report.probes}
    assert report.cpu.model_name == "Test CPU"
    assert status["good"].status == "ok" and status["good"].error is None
    assert status["bad"].status == "error"
    assert "sysfs exploded" in status["bad"].error and "RuntimeError" in status["bad"].error
    assert status["garbage"].status == "error" and "list" in status["garbage"].error
    assert status["baddev"].status == "error" and "devices" in status["baddev"].error
    assert status["absent"].status == "absent" and status["absent"].error == "no such hardware"


def test_a_hanging_probe_times_out_and_the_run_stays_bounded(monkeypatch, hang):
    probes = [_probe("good", _ok, monkeypatch), _probe("hang", hang, monkeypatch)]
    report = run_probes(ProbeContext(), timeout_s=0.5, probes=probes)
    # the hanging probe is still hanging: the runner did not wait for it (no wall-clock
    # bound here; a runner that waited would see the probe finish and report it "ok")
    assert not hang.finished.is_set(), "the runner waited for a hanging probe"
    status = {p.name: p for p in report.probes}
    assert status["hang"].status == "timeout"
    assert "0.5" in status["hang"].error
    assert status["good"].status == "ok"
    assert report.cpu.model_name == "Test CPU"


def test_a_probe_with_its_own_timeout(monkeypatch, hang):
    probes = [_probe("hang", hang, monkeypatch, timeout_s=0.2)]
    report = run_probes(ProbeContext(), timeout_s=10.0, probes=probes)
    assert report.probes[0].status == "timeout"
    # its own 0.2 s limit applied, not the run's 10 s
    assert report.probes[0].error == "no answer within 0.2 s"
    assert not hang.finished.is_set()


def test_a_probe_whose_module_fails_to_import_is_an_error(monkeypatch):
    probes = [_probe("good", _ok, monkeypatch), Probe("missing", "no_such_module:probe")]
    report = run_probes(ProbeContext(), timeout_s=2.0, probes=probes)
    status = {p.name: p for p in report.probes}
    assert status["missing"].status == "error"
    assert "ModuleNotFoundError" in status["missing"].error
    assert status["good"].status == "ok" and report.cpu.model_name == "Test CPU"


def _reads_forever(ctx):
    while True:
        ctx.read_text("proc/version")


def test_a_probe_spinning_over_reads_is_stopped_at_its_deadline(monkeypatch):
    probes = [_probe("spin", _reads_forever, monkeypatch, timeout_s=0.3)]
    report = run_probes(ProbeContext(), timeout_s=10.0, probes=probes)
    assert report.probes[0].status == "timeout"
    spinning = [t for t in threading.enumerate() if t.name == "probe-spin"]
    for t in spinning:
        t.join(2)
    assert not any(t.is_alive() for t in spinning), "the abandoned probe kept running"
