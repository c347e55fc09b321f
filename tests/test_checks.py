"""The checks that keep the code base in shape: ruff, and the import contracts in pyproject.toml
(layers; Qt only in the GUI and the PDF renderer; Numba only in the benchmark child)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if not path:
        pytest.fail(f"{name} is a test dependency (pip install -e '.[test]')")
    return path


def test_ruff_passes():
    out = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", str(ROOT)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def _staged(tmp_path: Path) -> Path:
    """The installed layout (probes/, knowledge/, resources/ inside accelgui/), which the
    import graph is built from; the editable install maps them there only at import time."""
    pkg = tmp_path / "accelgui"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "accelgui", pkg, ignore=ignore)
    for name in ("probes", "knowledge", "resources"):
        shutil.copytree(ROOT / name, pkg / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def _lint_imports(tree: Path):
    return subprocess.run([_tool("lint-imports"), "--no-cache"], capture_output=True, text=True, cwd=tree,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


def test_import_contracts_hold(tmp_path):
    out = _lint_imports(_staged(tmp_path))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "broken" not in out.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize("module, line, contract", [
    ("report.py", "import PySide6.QtCore", "Qt only"),
    ("probes/cpu.py", "import numba", "Numba only"),
    ("probes/inventory.py", "from accelgui import advisor", "Layers"),
])
def test_contracts_fail_when_broken(tmp_path, module, line, contract):
    tree = _staged(tmp_path)
    with open(tree / "accelgui" / module, "a", encoding="utf-8") as fh:
        fh.write(f"\n{line}  # injected by the test\n")
    out = _lint_imports(tree)
    assert out.returncode != 0
    broken = out.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, out.stdout[-3000:]
