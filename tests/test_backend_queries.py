"""The back-end queries of ``--deep``: the one run in accelgui's own process and the one run by
each environment's interpreter name the same devices for the same framework."""

import json
import subprocess
import sys

import pytest

from accelgui.probes import software

FAKE_TORCH = '''
class _Flag:
    def __init__(self, value):
        self.value = value
    def is_available(self):
        return self.value
cuda = _Flag({cuda})
xpu = _Flag({xpu})
class backends:
    mps = _Flag({mps})
class version:
    hip = {hip}
'''


@pytest.mark.parametrize("flags", [
    {"cuda": True, "xpu": False, "mps": False, "hip": None},
    {"cuda": True, "xpu": False, "mps": False, "hip": "'6.2'"},
    {"cuda": False, "xpu": True, "mps": False, "hip": None},
    {"cuda": False, "xpu": False, "mps": True, "hip": None},
])
def test_both_queries_name_the_same_torch_devices(tmp_path, monkeypatch, flags):
    (tmp_path / "torch.py").write_text(FAKE_TORCH.format(**flags), encoding="utf-8")
    child = subprocess.run([sys.executable, "-S", "-c", software._CONFIRM], capture_output=True, text=True,
                           timeout=60, env={"PYTHONPATH": str(tmp_path)})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    here: list[str] = []
    software._torch_devices(here, [])
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert here and json.loads(child.stdout) == here, child.stderr
