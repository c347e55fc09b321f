"""``accelgui --verify``: checks run only from the knowledge the user chose, contained.

Each check here is a shell one-liner (in a copied route file of a temporary knowledge folder, or
given to ``verify.run_check`` directly) with a timeout of about a second.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from importlib import resources

import pytest

from accelgui import progress, verify, verify_cli
from accelgui.knowledge import clear_cache

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "machines", "acc-coral-usb-nofw")
STEP = "cpu.know-your-cpu"


@pytest.fixture(autouse=True)
def _fast_grace(monkeypatch):
    monkeypatch.setattr(verify, "KILL_GRACE_S", 0.3, raising=False)
    clear_cache()
    yield
    clear_cache()


def _knowledge(tmp_path, script: str, regex: str = "."):
    """A knowledge folder whose cpu route's first step checks with ``sh -c script``."""
    folder = tmp_path / "kn"
    folder.mkdir()
    route = json.loads(resources.files("accelgui.knowledge").joinpath("routes/cpu.json")
                       .read_text(encoding="utf-8"))
    step = next(s for s in route["steps"] if s["id"] == STEP)
    step["check"] = {"kind": "command", "argv": ["sh", "-c", script], "expect": {"regex": regex},
                     "timeout_s": 20}
    (folder / "cpu.json").write_text(json.dumps(route), encoding="utf-8")
    return folder


def _cmd(script: str, regex: str | None = None, timeout_s: float = 1) -> dict:
    check = {"kind": "command", "argv": ["sh", "-c", script], "timeout_s": timeout_s}
    if regex:
        check["expect"] = {"regex": regex}
    return check


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            state = fh.read().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _pid(path, wait_s: float = 2.0) -> int:
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        text = path.read_text() if path.exists() else ""
        if text.strip():
            return int(text.split()[0])
        time.sleep(0.02)
    raise AssertionError(f"{path} never written")


def _gone(pid: int, wait_s: float = 1.0) -> bool:
    end = time.monotonic() + wait_s
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.02)
    return not _alive(pid)


def _run(steps, **kw):
    out, err = io.StringIO(), io.StringIO()
    kw.setdefault("allow_root", True)
    rc = verify_cli.run_cli(steps, "en", kw.pop("fmt", "json"), sysroot=FIXTURE, out=out, err=err, **kw)
    return rc, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- which checks run

def test_verify_runs_the_check_of_the_knowledge_dir_and_says_it_is_an_override(tmp_path):
    folder = _knowledge(tmp_path, "echo from-the-override", "from-the-override")
    rc, out, _ = _run([STEP], knowledge=str(folder))
    res = json.loads(out)["results"][0]
    assert rc == 0 and res["status"] == "ready" and "from-the-override" in res["excerpt"], res
    assert res["proves"] == "environment" and res["status_text"] == "ready to start"
    assert res["check_file"] == str(folder / "cpu.json") and res["check_override"] is True
    rc, text, _ = _run([STEP], knowledge=str(folder), fmt="text")
    assert str(folder / "cpu.json") in text and "override" in text.lower()


def test_verify_names_the_shipped_file_of_a_shipped_check():
    rc, text, _ = _run([STEP], fmt="text")
    assert "cpu.json" in text and "shipped" in text and "override" not in text.lower()


def test_verify_does_not_run_checks_from_the_environment_variable(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    folder = _knowledge(tmp_path, f"touch {marker}; echo x")
    monkeypatch.setenv("ACCELGUI_KNOWLEDGE_DIR", str(folder))
    rc, out, err = _run([STEP])
    assert not marker.exists()
    assert json.loads(out)["results"][0]["check_override"] is False
    assert "ACCELGUI_KNOWLEDGE_DIR" in err and "--knowledge" in err


def test_cli_passes_knowledge_to_verify(tmp_path):
    folder = _knowledge(tmp_path, "echo via-cli", "via-cli")
    proc = subprocess.run([sys.executable, "-m", "accelgui", "--verify", STEP, "--knowledge", str(folder),
                           "--allow-root", "--sysroot", FIXTURE, "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    res = json.loads(proc.stdout)["results"][0]
    assert res["status"] == "ready" and res["check_override"] is True, proc.stderr


# --------------------------------------------------------------------------- containment

def test_timeout_kills_a_background_child(tmp_path):
    pidfile = tmp_path / "pid"
    res = verify.run_check(_cmd(f"sleep 5 & echo $! > {pidfile}; wait"))
    assert res["status"] == "timeout"
    assert _gone(_pid(pidfile))


def test_a_child_left_behind_by_a_finished_check_does_not_live_on(tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    res = verify.run_check(_cmd(f"sleep 5 & echo $! > {pidfile}; echo done", "done", 20))
    assert res["status"] == "verified" and time.monotonic() - started < 4
    assert _gone(_pid(pidfile))


def test_timeout_kills_a_setsid_child_that_left_the_group(tmp_path):
    pidfile = tmp_path / "pid"
    res = verify.run_check(_cmd(f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 5' & sleep 5"))
    assert res["status"] == "timeout"
    assert _gone(_pid(pidfile))


def test_timeout_kills_a_check_that_traps_term(tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    inner = f"trap '' TERM; echo \\$\\$ > {pidfile}; sleep 5; sleep 5"
    res = verify.run_check(_cmd(f'sh -c "{inner}" & wait'))
    assert res["status"] == "timeout" and time.monotonic() - started < 4
    assert _gone(_pid(pidfile))


def test_huge_output_is_cut_and_said_so_and_its_end_is_kept():
    res = verify.run_check(_cmd("echo FIRST; yes 0123456789abcdef | head -c 20000000; echo; echo LAST-LINE",
                                r"(?s)\AFIRST\n.*bytes of output cut.*LAST-LINE", timeout_s=20))
    assert res["status"] == "verified", res
    assert res["output_cut"] is True and res["output_bytes"] > 20_000_000
    assert "LAST-LINE" in res["excerpt"]


# --------------------------------------------------------------------------- environment, evidence

def test_check_sees_no_tokens_but_what_it_needs(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "A1b2" * 9)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("SOME_APP_SETTING", "x")
    script = ('echo "names:"; env | cut -d= -f1 | sort | tr "\\n" " "; echo; '
              'test -n "$PATH" && test -n "$HOME" && echo needed-ok')
    res = verify.run_check(_cmd(script, "needed-ok", 20))
    assert res["status"] == "verified", res
    names = res["excerpt"].split("names:")[1].split()
    assert "GITHUB_TOKEN" not in names and "AWS_SECRET_ACCESS_KEY" not in names
    assert "SOME_APP_SETTING" not in names and "PATH" in names and "HOME" in names


def test_stored_evidence_is_redacted(tmp_path, monkeypatch):
    secrets = tmp_path / "leak.txt"
    token = "ghp_" + "Z9y8" * 9
    secrets.write_text(f"GITHUB_TOKEN={token}\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
                       f"/home/alicewonder/project\n")
    host = socket.gethostname()
    folder = _knowledge(tmp_path, f"cat {secrets}; echo on {host}; echo evidence-ok", "evidence-ok")
    rc, out, _ = _run([STEP], knowledge=str(folder))
    assert json.loads(out)["results"][0]["status"] == "ready"
    stored = json.dumps(progress.load_verified()[STEP])
    assert "evidence-ok" in stored
    for leaked in (token, "AKIAIOSFODNN7EXAMPLE", "alicewonder"):
        assert leaked not in stored and leaked not in out
    if len(host) >= 3 and host.lower() not in ("localhost", "ubuntu", "debian"):
        assert host not in stored


def test_shown_result_is_redacted_like_a_report():
    report = {"platform": {"hostname": "alice-ws7"}, "devices": []}
    res = verify.run_check(_cmd("echo built on alice-ws7.lab in /home/alicewonder/src; echo TOKEN=s3cr3tvalue99",
                                "built on", 20), report=report)
    assert res["status"] == "verified"
    assert "alice-ws7" not in res["excerpt"] and "alicewonder" not in res["excerpt"]
    assert "s3cr3tvalue99" not in res["excerpt"] and "<host>" in res["excerpt"]
