"""The core model is typed: ``mypy --strict`` on the modules pyproject.toml's [tool.mypy] lists
(the records, the report, the benchmark reader, the estimates, the advisor, the validation path
and the probe context). mypy comes with the ``test`` extra; it is not optional here."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_core_model_is_strictly_typed():
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull],
                         cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "Success: no issues found" in out.stdout


def test_a_record_is_a_dataclass_to_the_type_checker(tmp_path):
    """A wrong field type, an unknown field and an assignment to a frozen field are errors."""
    probe = tmp_path / "uses_report.py"
    probe.write_text(
        "from accelgui.report import Device, Report\n"
        "dev = Device(kind='gpu', details={'memory_bytes': 1})\n"
        "report = Report(devices=[dev])\n"
        "count: int = report.devices[0].name\n"          # str | None is not int
        "Report(colour='red')\n"                         # no such field
        "report.redacted = True\n",                       # frozen
        encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--cache-dir", os.devnull, "--follow-imports", "silent", str(probe)],
                         cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [line for line in out.stdout.splitlines() if "uses_report.py" in line]
    assert any(":4: error: Incompatible types in assignment" in line for line in lines), out.stdout
    assert any(':5: error: Unexpected keyword argument "colour"' in line for line in lines), out.stdout
    assert any(":6: error: Property \"redacted\" defined in \"Report\" is read-only" in line
               for line in lines), out.stdout
    assert len(lines) == 3, out.stdout
