"""Packaging as an operator or a distribution meets it: a headless install without Qt or Numba,
what the app says without its extra, the build metadata, the man page and completions (from
the parser, so they cannot go stale), ``--schema`` and the container image's Containerfile."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from accelgui import cli_docs
from accelgui.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "machines" / "acc-amd-mi300x"
GUI_AND_BENCH = ("PySide6", "shiboken6", "pyqtgraph", "numba", "llvmlite")

tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _blocked_env(tmp_path: Path, names=GUI_AND_BENCH) -> dict:
    """An environment whose interpreter cannot import ``names``, as in a headless install."""
    site = tmp_path / "block"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(textwrap.dedent(f"""
        import sys
        BLOCKED = {tuple(names)!r}
        class _Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
                return None
        sys.meta_path.insert(0, _Block())
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]), QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    return env


def _run(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=ROOT)


# -- extras ---------------------------------------------------------------------------------

def _names(requirements) -> set[str]:
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_headless_dependencies_stay_headless():
    project = _pyproject()["project"]
    base = _names(project["dependencies"])
    assert not base & {"pyside6", "pyside6-essentials", "pyqtgraph", "numba", "llvmlite", "numba-cuda"}, base
    assert {"psutil", "nvidia-ml-py", "prometheus-client", "py-cpuinfo"} <= base
    extras = project["optional-dependencies"]
    assert {"pyside6-essentials", "pyqtgraph"} <= _names(extras["gui"])
    assert "numba" in _names(extras["bench"])


def test_probe_runs_without_qt_or_numba(tmp_path):
    out = _run("--probe", "--sysroot", str(FIXTURE), "--format", "json", env=_blocked_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["probes"]
    assert "Traceback" not in out.stderr


def test_app_without_the_gui_extra_says_how_to_install_it(tmp_path):
    out = _run(env=_blocked_env(tmp_path, ("PySide6", "shiboken6")))
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "pip install 'accelgui[gui]'" in out.stderr
    assert "Traceback" not in out.stderr


def test_bench_without_numba_says_how_to_install_it(tmp_path):
    out = _run("--probe", "--bench", "quick", "--sysroot", str(FIXTURE), env=_blocked_env(tmp_path))
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "pip install 'accelgui[bench]'" in out.stderr
    assert "Traceback" not in out.stderr and not out.stdout


# -- metadata -------------------------------------------------------------------------------

def test_metadata_builds_on_debian_bookworm_and_names_the_licence():
    data = _pyproject()
    requires = data["build-system"]["requires"]
    setuptools_req = next(r for r in requires if r.startswith("setuptools"))
    floor = re.search(r">=\s*(\d+)", setuptools_req)
    assert floor and int(floor.group(1)) <= 66, setuptools_req   # Debian bookworm: setuptools 66
    project = data["project"]
    assert not isinstance(project.get("license"), str), "an SPDX string needs setuptools >= 77"
    assert "MIT" in (ROOT / "LICENSE").read_text()
    urls = project["urls"]
    assert urls["Homepage"].startswith("https://github.com/accelgui/accelgui")
    assert {"Source", "Issues"} <= set(urls)


def test_readme_images_are_absolute():
    images = re.findall(r"!\[[^]]*\]\(([^)]+)\)", (ROOT / "README.md").read_text())
    assert images
    for url in images:
        assert url.startswith("https://raw.githubusercontent.com/accelgui/accelgui/main/docs/"), url


def test_build_has_no_packaging_warnings(tmp_path):
    """setuptools' own build of the package files (what `python -m build` runs), in a copy."""
    pytest.importorskip("setuptools")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("accelgui", "probes", "knowledge", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-W", "always", "-c", "from setuptools import setup; setup()",
                          "egg_info", "build_py", "--build-lib", str(tmp_path / "lib")],
                         capture_output=True, text=True, timeout=240, cwd=src)
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-3000:]
    assert "absent from the `packages` configuration" not in log
    assert "Warning" not in log, [line for line in log.splitlines() if "Warning" in line]
    assert (tmp_path / "lib" / "accelgui" / "probes" / "data" / "families").is_dir()
    assert (tmp_path / "lib" / "accelgui" / "report.schema.json").is_file()


# -- man page and completions ----------------------------------------------------------------

def _option_strings():
    parser = build_parser()
    return [s for a in parser._actions for s in a.option_strings]


def test_man_page_lists_every_option():
    page = _run("--print-man")
    assert page.returncode == 0
    assert page.stdout.startswith(".TH ACCELGUI 1")
    for opt in _option_strings():
        assert f"\\fB{opt.replace('-', chr(92) + '-')}\\fR" in page.stdout, opt
    if shutil.which("groff"):
        check = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=page.stdout,
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0 and not check.stderr, check.stderr


@pytest.mark.parametrize("shell", cli_docs.SHELLS)
def test_completion_lists_every_option(shell, tmp_path):
    out = _run("--print-completion", shell)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for opt in _option_strings():
        if shell == "fish":
            flag = f"-l {opt[2:]}" if opt.startswith("--") else f"-s {opt[1:]}"
            assert re.search(rf"^complete -c accelgui .*{re.escape(flag)}( |$)", text, re.M), opt
        elif shell == "zsh":
            assert re.search(rf"'\*?{re.escape(opt)}\[", text), opt
        else:
            assert re.search(rf"(^|[\s\"|]){re.escape(opt)}([\s\"|)]|$)", text), opt
    if not shutil.which(shell):
        pytest.skip(f"{shell} is not installed: the script's syntax is not checked")
    script = tmp_path / f"completion.{shell}"
    script.write_text(text)
    check = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr


def test_bash_completion_completes_options_and_values():
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    script = _run("--print-completion", "bash").stdout
    probe = script + textwrap.dedent("""
        COMP_WORDS=(accelgui --form); COMP_CWORD=1; _accelgui; echo "A:${COMPREPLY[*]}"
        COMP_WORDS=(accelgui --format m); COMP_CWORD=2; _accelgui; echo "B:${COMPREPLY[*]}"
    """)
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert "A:--format" in out.stdout and "B:markdown" in out.stdout, out.stdout + out.stderr


def test_install_writes_man_page_and_completions_where_tools_look(tmp_path):
    written = cli_docs.install(str(tmp_path))
    expected = {tmp_path / "man/man1/accelgui.1", tmp_path / "bash-completion/completions/accelgui",
                tmp_path / "zsh/site-functions/_accelgui", tmp_path / "fish/vendor_completions.d/accelgui.fish"}
    assert {Path(p) for p in written} == expected
    assert (tmp_path / "man/man1/accelgui.1").read_text().startswith(".TH ACCELGUI 1")
    if shutil.which("man"):
        out = subprocess.run(["man", "-l", "-P", "cat", str(tmp_path / "man/man1/accelgui.1")],
                             capture_output=True, text=True, timeout=30, env=dict(os.environ, MANWIDTH="100"))
        assert "--schema" in out.stdout.replace("\u2010", "-").replace("\u2212", "-")
    assert {Path(p) for p in cli_docs.uninstall(str(tmp_path))} == expected
    assert not any(p.exists() for p in expected)


# -- --schema -------------------------------------------------------------------------------

def test_schema_option_prints_the_report_schema_with_a_real_id():
    out = _run("--schema")
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)
    assert schema == json.loads((ROOT / "accelgui" / "report.schema.json").read_text())
    homepage = _pyproject()["project"]["urls"]["Homepage"]
    repo = homepage.removeprefix("https://github.com/")
    assert schema["$id"] == f"https://raw.githubusercontent.com/{repo}/main/accelgui/report.schema.json"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema)
    report = _run("--probe", "--sysroot", str(FIXTURE), "--format", "json")
    jsonschema.Draft202012Validator(schema).validate(json.loads(report.stdout))


# -- Containerfile --------------------------------------------------------------------------

def _instructions(path: Path) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", path.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_containerfile_is_slim_headless_and_not_root():
    from accelgui.monitor_cli import DEFAULT_ADDRESS

    path = ROOT / "packaging" / "Containerfile"
    steps = _instructions(path)
    stages = [rest for word, rest in steps if word == "FROM"]
    assert stages
    for rest in stages:
        image = rest.split()[0]
        name, _, tag = image.rpartition(":") if ":" in image else (image, "", "")
        assert tag and tag != "latest" and "/" not in tag, f"FROM {image} is not pinned by tag"
    assert "slim" in stages[-1].split()[0]
    final = steps[max(i for i, (w, _) in enumerate(steps) if w == "FROM"):]
    users = [rest for word, rest in final if word == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), users
    for word, rest in steps:
        if word == "RUN" and "pip install" in rest:
            assert not re.search(r"\[[^\]]*\b(gui|bench|cuda)\b", rest), rest
            assert not re.search(r"(?i)pyside6|pyqtgraph|numba", rest), rest
    assert json.loads(dict(final)["ENTRYPOINT"]) == ["accelgui"]
    port = DEFAULT_ADDRESS.rsplit(":", 1)[1]
    assert json.loads(dict(final)["CMD"]) == ["--serve-metrics", f"0.0.0.0:{port}"]
    assert port in dict(final).get("EXPOSE", "").split()
    if shutil.which("hadolint"):
        out = subprocess.run(["hadolint", str(path)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr


def test_containerfile_copies_what_the_wheel_needs():
    steps = _instructions(ROOT / "packaging" / "Containerfile")
    copied = {part for word, rest in steps if word == "COPY" and "--from" not in rest
              for part in shlex.split(rest)[:-1]}
    packages = set(_pyproject()["tool"]["setuptools"]["package-dir"].values())
    assert packages <= copied, packages - copied
    assert {"pyproject.toml", "README.md", "LICENSE"} <= copied
