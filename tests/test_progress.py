"""Learner progress: marking steps done, persisted in the user's data dir."""

from __future__ import annotations

import json
import os
import sys

import pytest

from accelgui import progress


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    d = tmp_path / "data" / "accelgui"           # does not exist yet: created on first write
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(d))
    return d


def test_empty_when_nothing_saved(data_dir):
    assert progress.load_done() == frozenset()
    assert not data_dir.exists()                  # reading never creates files


def test_mark_and_unmark_persist(data_dir):
    assert progress.mark_done("gpu.setup-check") is True
    assert progress.mark_done("cpu.know-your-cpu") is True
    assert progress.mark_done("gpu.setup-check") is False       # already done
    assert progress.load_done() == {"gpu.setup-check", "cpu.know-your-cpu"}
    saved = json.loads((data_dir / "progress.json").read_text())
    assert set(saved["done"]) == {"gpu.setup-check", "cpu.know-your-cpu"}
    assert progress.unmark("gpu.setup-check") is True
    assert progress.unmark("gpu.setup-check") is False
    assert progress.load_done() == {"cpu.know-your-cpu"}


def test_env_var_overrides_platformdirs(data_dir):
    assert progress.progress_path() == os.path.join(str(data_dir), "progress.json")


def test_default_dir_is_platformdirs_user_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("ACCELGUI_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert progress.data_dir() == str(tmp_path / "xdg" / "accelgui")


def test_corrupt_file_warns_and_is_kept_until_next_write(data_dir, capsys):
    data_dir.mkdir(parents=True)
    path = data_dir / "progress.json"
    path.write_text("{not json")
    assert progress.load_done() == frozenset()
    err = capsys.readouterr().err
    assert "warning" in err and str(path) in err
    assert path.read_text() == "{not json"                    # not clobbered by reading
    progress.mark_done("cpu.numba-jit")
    assert progress.load_done() == {"cpu.numba-jit"}
    assert (data_dir / "progress.json.corrupt").read_text() == "{not json"


@pytest.mark.parametrize("content", ['["a"', '[1, 2]', '{"done": 3}', '{"done": {"": 1}}'])
def test_wrong_shapes_are_corrupt(data_dir, capsys, content):
    data_dir.mkdir(parents=True)
    (data_dir / "progress.json").write_text(content)
    assert progress.load_done() == frozenset()
    assert "warning" in capsys.readouterr().err


def test_hand_written_list_is_accepted(data_dir):
    data_dir.mkdir(parents=True)
    (data_dir / "progress.json").write_text('{"done": ["gpu.setup-check"]}')
    assert progress.load_done() == {"gpu.setup-check"}


def test_write_is_atomic_no_temp_files_left(data_dir):
    progress.mark_done("gpu.setup-check")
    assert sorted(p.name for p in data_dir.iterdir()) == ["progress.json", "progress.json.lock"]


def test_unwritable_dir_raises_oserror(tmp_path, monkeypatch):
    # a data dir that cannot be created (a plain file is in the way): unwritable even for
    # root, which a chmod'ed directory is not (CI runs as root)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("keep me")
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(blocker / "accelgui"))
    with pytest.raises(OSError):
        progress.mark_done("gpu.setup-check")
    assert blocker.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-dir"]


def test_cli_done_and_undo(data_dir, capsys):
    from accelgui import cli
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge()
    step = next(iter(kb.steps))
    assert cli.main(["--done", step]) == 0
    assert step in progress.load_done()
    assert cli.main(["--undo", step]) == 0
    assert step not in progress.load_done()
    assert cli.main(["--done", "no.such-step"]) == 2
    assert "unknown step" in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the inline rule is Linux's")
@pytest.mark.parametrize("xdg", [None, "", "/srv/xdg-data"])
def test_linux_data_dir_is_the_one_platformdirs_gives(monkeypatch, xdg):
    import platformdirs

    monkeypatch.delenv("ACCELGUI_DATA_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert progress.data_dir() == platformdirs.user_data_dir("accelgui", appauthor=False)


def test_a_synced_folder_works_where_a_symlinked_file_is_refused(data_dir, tmp_path, monkeypatch):
    """A link at progress.json is refused (tests/test_file_safety.py); the documented way to
    keep progress elsewhere, a data dir that is itself a link to a synced folder, works."""
    synced = tmp_path / "synced"
    synced.mkdir()
    (synced / "progress.json").write_text('{"version": 1, "done": {"a.b": null}}')
    (tmp_path / "linked-data").symlink_to(synced)
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "linked-data"))
    assert progress.mark_done("gpu.setup-check") is True
    assert set(json.loads((synced / "progress.json").read_text())["done"]) == {"a.b", "gpu.setup-check"}
    (data_dir).mkdir(parents=True)
    (data_dir / "progress.json").symlink_to(synced / "progress.json")
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(data_dir))
    with pytest.raises(OSError, match="symbolic link"):
        progress.mark_done("cpu.numba-jit")
    assert "cpu.numba-jit" not in json.loads((synced / "progress.json").read_text())["done"]


def test_twenty_parallel_writers_keep_all_twenty(data_dir):
    import subprocess

    code = "import sys; from accelgui import progress; progress.mark_done(sys.argv[1])"
    procs = [subprocess.Popen([sys.executable, "-c", code, f"route.step-{i}"])
             for i in range(20)]
    assert [p.wait(60) for p in procs] == [0] * 20
    assert progress.load_done() == {f"route.step-{i}" for i in range(20)}


def test_one_command_reads_and_warns_once_and_sees_every_write(data_dir, capsys):
    """The readers of one command (goal, done steps) share one read of an unchanged file: a
    corrupt file is reported once; a write (a new file) is seen by the next read."""
    data_dir.mkdir(parents=True)
    (data_dir / "progress.json").write_text("{not json")
    assert progress.load_goal() is None and progress.load_done() == frozenset()
    assert capsys.readouterr().err.count("warning") == 1
    progress.mark_done("cpu.numba-jit")
    progress.set_goal("hpc")
    assert progress.load_done() == {"cpu.numba-jit"} and progress.load_goal() == "hpc"
    done = progress.load_progress()
    done["x.y"] = None                      # a caller's copy: the next read is unchanged
    assert set(progress.load_progress()) == {"cpu.numba-jit"}


# --------------------------------------------------------------------------- what evidence proves

def test_environment_evidence_is_ready_to_start_and_never_marks_done(data_dir):
    progress.record_verified("cpu.numba-jit", {"date": "2026-12-01T10:00:00+00:00", "excerpt": "match True"})
    assert progress.load_verified()["cpu.numba-jit"]["proves"] == "environment"
    assert "cpu.numba-jit" not in progress.load_done()
    assert progress.step_progress("cpu.numba-jit") == "ready"


def test_work_evidence_marks_done_and_is_not_replaced_by_an_environment_check(data_dir):
    progress.record_verified("cpu.numba-jit", {"proves": "work", "date": "2026-12-01T10:00:00+00:00",
                                               "figures": {"triad_gbps": 20.0}})
    assert "cpu.numba-jit" in progress.load_done() and progress.step_progress("cpu.numba-jit") == "passed"
    progress.record_verified("cpu.numba-jit", {"proves": "environment", "date": "2026-12-02T10:00:00+00:00"})
    assert progress.load_verified()["cpu.numba-jit"]["figures"] == {"triad_gbps": 20.0}
    progress.mark_done("cpu.know-your-cpu")
    assert progress.step_progress("cpu.know-your-cpu") == "ticked"
    assert progress.step_progress("gpu.setup-check") is None


def test_a_version_1_file_reads_its_verified_steps_as_ready_not_done(data_dir):
    """accelgui before checks said what they prove: every --verify ticked its step with the
    evidence's date. Those ticks are taken back; a tick made by hand before stays."""
    data_dir.mkdir(parents=True)
    old = {"version": 1,
           "done": {"cpu.numpy-vectorise": "2026-11-30T09:00:00+00:00",     # the check's own tick
                    "cpu.know-your-cpu": "2026-11-01T08:00:00+00:00",       # ticked by hand first
                    "gpu.setup-check": "2026-11-02T08:00:00+00:00"},        # ticked, never verified
           "verified": {"cpu.numpy-vectorise": {"date": "2026-11-30T09:00:00+00:00", "excerpt": "allclose True"},
                        "cpu.know-your-cpu": {"date": "2026-11-30T09:00:01+00:00", "excerpt": "x86_64"}}}
    (data_dir / "progress.json").write_text(json.dumps(old))
    assert progress.load_done() == {"cpu.know-your-cpu", "gpu.setup-check"}
    assert progress.step_progress("cpu.numpy-vectorise") == "ready"
    assert progress.step_progress("cpu.know-your-cpu") == "ticked"
    progress.mark_done("edge.device-check")                      # the next write keeps the upgrade
    saved = json.loads((data_dir / "progress.json").read_text())
    assert saved["version"] == 2 and "cpu.numpy-vectorise" not in saved["done"]
    assert saved["verified"]["cpu.numpy-vectorise"]["proves"] == "environment"
