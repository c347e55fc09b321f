"""The synthesised machine trees are what their generators write: regenerated into a temporary
folder, every tree matches the committed one byte for byte (the generators are deterministic
and write only where they are told)."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def _differences(built: Path, committed: Path) -> list[str]:
    out = []
    for base, dirs, files in os.walk(built):
        rel = Path(base).relative_to(built)
        for name in dirs + files:
            a, b = Path(base) / name, committed / rel / name
            if a.is_symlink() or b.is_symlink():
                if not (a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)):
                    out.append(str(rel / name))
            elif not b.exists() and not b.is_symlink():
                out.append(f"{rel / name} (not committed)")
            elif a.is_file() and not filecmp.cmp(a, b, shallow=False):
                out.append(str(rel / name))
    return out


@pytest.mark.parametrize("script, args", [("make_acc_trees.py", []), ("make_cpu_trees.py", ["--out"])])
def test_regenerated_trees_match_the_committed_ones(tmp_path, script, args):
    out = tmp_path / "machines"
    out.mkdir()
    subprocess.run([sys.executable, script, *args, str(out)], cwd=FIXTURES, check=True,
                   capture_output=True, timeout=120)
    built = sorted(p.name for p in out.iterdir())
    assert built, "the generator wrote nothing"
    for name in built:
        assert _differences(out / name, FIXTURES / "machines" / name) == [], name


def test_a_generator_refuses_to_remove_what_is_not_a_tree(tmp_path):
    sys.path.insert(0, str(FIXTURES))
    try:
        import make_acc_trees
    finally:
        sys.path.remove(str(FIXTURES))
    with pytest.raises(ValueError):
        make_acc_trees.Tree("..")
    with pytest.raises(ValueError):
        make_acc_trees.Tree("home")
