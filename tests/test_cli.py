"""The command line, end to end, as a script would use it."""

import json
import os
import subprocess
import sys

import pytest

from accelgui import __version__
from accelgui.report import validate

HEAVY = ("PySide6", "pyqtgraph", "numba", "llvmlite", "shiboken6")


def accelgui(*args, env=None, timeout=60):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True,
                          text=True, env=full_env, timeout=timeout)


def test_version_and_help():
    out = accelgui("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"accelgui {__version__}"
    out = accelgui("--help")
    assert out.returncode == 0 and "--probe" in out.stdout and "--sysroot" in out.stdout


def test_probe_prints_a_report_that_follows_the_schema():
    out = accelgui("--probe")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    validate(data)
    assert data["sysroot"] == "/"
    assert data["cpu"]["logical_cpus"] == os.cpu_count()
    assert {p["name"] for p in data["probes"]} >= {"cpu", "memory", "platform"}


def test_probe_writes_output_file(tmp_path):
    target = tmp_path / "report.json"
    out = accelgui("--probe", "--output", str(target))
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    validate(json.loads(target.read_text()))


@pytest.mark.parametrize("make, message", [
    (lambda p: p / "missing", "no such directory"),
    (lambda p: (p / "file").write_text("x") and p / "file", "not a directory"),
])
def test_bad_sysroot_is_a_usage_error(tmp_path, make, message):
    out = accelgui("--probe", "--sysroot", str(make(tmp_path)))
    assert out.returncode == 2
    assert message in out.stderr and "--sysroot" in out.stderr
    assert out.stdout == ""


def test_benchmarks_are_not_mixed_into_another_machines_tree(tmp_path):
    out = accelgui("--probe", "--bench", "quick", "--sysroot", str(tmp_path))
    assert out.returncode == 2 and "--bench" in out.stderr and out.stdout == ""


def test_unknown_format_is_a_usage_error():
    out = accelgui("--probe", "--format", "yaml")
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_probe_options_without_probe_are_refused():
    out = accelgui("--format", "json")
    assert out.returncode == 2 and "--probe" in out.stderr


def test_empty_sysroot_still_gives_a_report(tmp_path):
    out = accelgui("--probe", "--sysroot", str(tmp_path))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    validate(data)
    assert data["devices"] == []
    assert data["cpu"]["logical_cpus"] is None  # unknown, never 0


def test_headless_probe_never_imports_qt_or_numba():
    code = ("import sys, io, contextlib\n"
            "from accelgui.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    rc = main(['--probe', '--format', 'text'])\n"
            f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
            "print(rc, heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0 []"


def test_no_display_explains_the_headless_probe():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "accelgui"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 1
    assert "no display" in out.stderr and "accelgui --probe" in out.stderr


def test_a_dead_x_display_is_refused_before_qt_starts(tmp_path):
    """DISPLAY names a server that is not there: a clear message and exit 1, not Qt's abort."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["DISPLAY"] = ":987"
    out = subprocess.run([sys.executable, "-m", "accelgui"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 1, out.stderr
    assert "no X server answers at DISPLAY=:987" in out.stderr and "xcb" not in out.stderr


def test_display_check_connects_to_the_x_socket(tmp_path, monkeypatch):
    import socket

    from accelgui import cli

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = tmp_path / "org.xquartz:0"                 # a socket-path display names the socket itself
    server.bind(str(path))
    server.listen(1)
    try:
        assert cli.x_display_reachable(str(path)) is True
        assert cli.x_display_reachable("nonsense") is False
        monkeypatch.setenv("DISPLAY", str(path))
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
        assert cli.display_problem() is None
        monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
        monkeypatch.setenv("DISPLAY", ":987")
        assert cli.display_problem() is None
    finally:
        server.close()


@pytest.mark.parametrize("fmt", ["json", "text", "markdown", "html", "pdf", "prometheus", "nfd"])
def test_a_saved_report_renders_in_every_format(tmp_path, fmt):
    from accelgui import cli

    if fmt == "pdf":
        pytest.importorskip("PySide6")
    src = os.path.join(os.path.dirname(__file__), "fixtures", "reports", "rich.json")
    out = tmp_path / f"r.{fmt}"
    assert cli.main(["--report", src, "--format", fmt, "--output", str(out), "--redact"]) == 0
    data = out.read_bytes()
    assert data and b"dgx-h100-07.corp" not in data
    if fmt == "pdf":
        assert data.startswith(b"%PDF")


def test_report_with_output_but_no_format_is_a_usage_error(tmp_path, capsys):
    from accelgui import cli

    src = os.path.join(os.path.dirname(__file__), "fixtures", "reports", "rich.json")
    assert cli.main(["--report", src, "--output", str(tmp_path / "x")]) == cli.EXIT_USAGE
    assert "--format" in capsys.readouterr().err
    assert cli.main(["--report", str(tmp_path / "missing.json"), "--format", "text"]) == cli.EXIT_FAIL


def test_theme_and_page_reach_the_app(monkeypatch):
    from accelgui import cli

    seen = {}
    monkeypatch.setattr(cli, "gui_main", lambda args: seen.setdefault("args", args) and 0)
    assert cli.main(["--theme", "dark", "--page", "hardware", "--lang", "zh_CN", "--timeout", "20"]) == 0
    args = seen["args"]
    assert (args.theme, args.page, args.lang, args.timeout) == ("dark", "hardware", "zh", 20.0)


# -- one parser, one command at a time, honest exit codes ------------------------------------------

RICH = os.path.join(os.path.dirname(__file__), "fixtures", "reports", "rich.json")


def test_two_commands_at_once_are_a_usage_error_not_one_dropped(capsys):
    from accelgui import cli

    for argv in (["--probe", "--routes"], ["--facts", "--verify", "x"], ["--monitor", "--fleet", "http://h:9090"]):
        assert cli.main(argv) == cli.EXIT_USAGE, argv
        err = capsys.readouterr().err
        assert "separate commands" in err and all(a in err for a in argv if a.startswith("--")), err
    assert cli.main(["--routes", "--report", RICH, "--format", "json"]) == cli.EXIT_OK   # a modifier, not a command


def test_pdf_is_never_written_to_a_terminal():
    import pty

    leader, follower = pty.openpty()
    try:
        out = subprocess.run([sys.executable, "-m", "accelgui", "--report", RICH, "--format", "pdf"],
                             stdout=follower, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(follower)
    os.set_blocking(leader, False)
    try:
        written = os.read(leader, 4096)
    except (BlockingIOError, OSError):
        written = b""
    os.close(leader)
    assert out.returncode == 2 and "--output" in out.stderr and b"%PDF" not in written


def test_pdf_without_qt_is_a_clear_error_not_a_traceback(tmp_path):
    target = tmp_path / "r.pdf"
    code = ("import sys; sys.modules['PySide6'] = None\n"       # as if the gui extra were not installed
            "from accelgui import cli\n"
            f"sys.exit(cli.main(['--report', {RICH!r}, '--format', 'pdf', '--output', {str(target)!r}]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert "'gui' extra" in out.stderr and "install" in out.stderr and "Traceback" not in out.stderr
    assert not target.exists()


def test_a_missing_report_exits_1_as_the_readme_says_before_any_window(monkeypatch, capsys, tmp_path):
    from accelgui import cli

    monkeypatch.setattr(cli, "gui_main", lambda args: pytest.fail("the app was started"))
    assert cli.main(["--report", str(tmp_path / "missing.json")]) == cli.EXIT_FAIL
    assert "no such file" in capsys.readouterr().err
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    assert "1 when an\noutput cannot be written or an input cannot be read" in readme


def test_every_benchmark_run_of_the_cli_is_kept_in_the_history(monkeypatch, tmp_path, capsys):
    from accelgui import cli, history
    from accelgui.report import load_report

    measured = load_report(RICH)
    monkeypatch.setattr(cli, "make_report", lambda args, on_progress=None: measured)
    monkeypatch.setattr("accelgui.extras.require", lambda *a, **k: None)
    assert cli.main(["--probe", "--bench", "quick", "--no-advice", "--output", str(tmp_path / "r.json")]) == 0
    key = history.machine_key(measured.to_dict())
    assert len(history.runs(key)) == 1 and history.latest(key)["cpu"] == measured.benchmarks["cpu"]

    def refuse(*a, **k):
        raise OSError("read-only state directory")

    monkeypatch.setattr(history, "record", refuse)
    assert cli.main(["--probe", "--bench", "quick", "--no-advice", "--output", str(tmp_path / "s.json")]) == 0
    assert "history was not updated: read-only state directory" in capsys.readouterr().err
    assert (tmp_path / "s.json").read_text()             # the report is never the price


def test_the_app_reads_the_commands_parser(monkeypatch):
    """``python -m accelgui.gui.app`` and ``accelgui`` parse the same options."""
    from accelgui.gui import app

    args, qt_args = app._parse(["--timeout", "20", "--lang", "zh", "-platform", "offscreen"])
    assert (args.timeout, args.lang) == (20.0, "zh") and qt_args == ["-platform", "offscreen"]
    assert app._refusal(app._parse(["--page", "nowhere"])[0])[1] == 2
