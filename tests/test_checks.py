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


def _checkout_copy(tmp_path: Path) -> Path:
    """A copy of the checkout as it is laid out (accelgui/probes, knowledge and resources are
    links to the folders beside it), for tests that break a contract on purpose."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "accelgui", tmp_path / "accelgui", ignore=ignore, symlinks=True)
    for name in ("probes", "knowledge", "resources"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def _lint_imports(tree: Path):
    """``lint-imports`` as a contributor runs it: in the tree's root, nothing staged."""
    return subprocess.run([_tool("lint-imports"), "--no-cache"], capture_output=True, text=True, cwd=tree,
                          env={"PATH": "/usr/bin:/bin"})


def test_import_contracts_hold_in_the_checkout():
    out = _lint_imports(ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "broken" not in out.stdout.lower().replace("0 broken", "")


def test_the_links_name_the_installed_packages():
    """The links lint-imports reads through are the package-dir mapping of pyproject.toml."""
    import tomllib

    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        if package != "accelgui":
            link = ROOT / "accelgui" / package.split(".", 1)[1]
            assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), package


@pytest.mark.parametrize("module, line, contract", [
    ("report.py", "import PySide6.QtCore", "Qt only"),
    ("probes/cpu.py", "import numba", "Numba only"),
    ("probes/inventory.py", "from accelgui import advisor", "Layers"),
    ("gui/views/reference.py", "from accelgui import facts_cli", "The app imports no command"),
    ("export/sanitize.py", "from accelgui.export import numbers", "No import cycles"),
    ("new_module_nobody_placed.py", "import os", "Layers"),
])
def test_contracts_fail_when_broken(tmp_path, module, line, contract):
    tree = _checkout_copy(tmp_path)
    target = tree / module if module.startswith("probes/") else tree / "accelgui" / module
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(f"\n{line}  # injected by the test\n")
    out = _lint_imports(tree)
    assert out.returncode != 0
    broken = out.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken or contract in out.stdout, out.stdout[-3000:]
