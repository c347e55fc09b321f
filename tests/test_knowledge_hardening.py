"""The knowledge loader against hostile override directories, and the override honoured
by every face of a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from accelgui.knowledge import clear_cache, load_knowledge, use_override

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "tests" / "fixtures" / "machines" / "cpu-intel-desktop"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    use_override(None)
    yield
    use_override(None)
    clear_cache()


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env=env)


def _route(title: str) -> dict:
    data = json.loads((ROOT / "knowledge" / "routes" / "cpu.json").read_text(encoding="utf-8"))
    data["steps"][0]["title"] = {"en": title, "zh": title}
    return data


def test_a_file_nested_5000_deep_is_an_error_not_a_crash(tmp_path):
    (tmp_path / "deep.json").write_text('{"a": ' * 5000 + "1" + "}" * 5000)
    (tmp_path / "deep2.json").write_text("[" * 300 + "]" * 300)
    kb = load_knowledge(str(tmp_path))
    assert any("deep.json" in e and "nested" in e for e in kb.errors)
    assert any("deep2.json" in e and "nested" in e for e in kb.errors)
    assert "cpu" in kb.routes                       # the shipped routes stay


def test_a_fifo_named_json_does_not_hang_the_loader(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    result = []
    t = threading.Thread(target=lambda: result.append(load_knowledge(str(tmp_path))), daemon=True)
    t.start()
    t.join(10)
    assert result, "the loader hung on a FIFO"
    assert any("pipe.json" in e and "not a regular file" in e for e in result[0].errors)


def test_probe_with_a_broken_knowledge_dir_says_so_on_stderr(tmp_path):
    (tmp_path / "broken.json").write_text("{not json")
    res = cli("--probe", "--sysroot", str(TREE), "--knowledge", str(tmp_path))
    assert res.returncode == 0
    assert "broken.json" in res.stderr and "broken.json" not in res.stdout
    json.loads(res.stdout)


def test_routes_text_is_inert_and_errors_go_to_stderr(tmp_path):
    (tmp_path / "cpu.json").write_text(json.dumps(_route("Pwn\x1b[2J\x1b]0;title\x07 step")))
    (tmp_path / "broken.json").write_text("[")
    res = cli("--routes", "--knowledge", str(tmp_path))
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout
    assert "Pwn[2J]0;title step" in res.stdout
    assert "broken.json" in res.stderr and "broken.json" not in res.stdout


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_knowledge_override_reaches_every_export(tmp_path, fmt):
    (tmp_path / "cpu.json").write_text(json.dumps(_route("Overridden first step")))
    env = dict(os.environ)
    env.pop("ACCELGUI_KNOWLEDGE_DIR", None)
    res = cli("--probe", "--sysroot", str(TREE), "--knowledge", str(tmp_path), "--format", fmt,
              env=env)
    assert res.returncode == 0, res.stderr
    assert "Overridden first step" in res.stdout
    assert "Know your processor" not in res.stdout
