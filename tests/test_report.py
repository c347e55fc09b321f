"""The Report model: round trip, schema, and refusing what is not a report."""

import json

import pytest

from accelgui.report import Cpu, Device, Report, ReportError, load_report, validate


def test_round_trip_keeps_every_field():
    report = Report(cpu=Cpu(model_name="X", logical_cpus=8, caches={"l1d": {"size_bytes": 1, "instances": 1}}),
                    devices=[Device(kind="gpu", vendor="nvidia", name="GPU", bus="pci",
                                    address="0000:01:00.0", pci_id="10de:2330", readiness="ready",
                                    details={"memory_bytes": 80 << 30})])
    again = Report.from_dict(json.loads(report.to_json()))
    assert again == report


def test_empty_report_validates_against_the_shipped_schema():
    validate(Report().to_dict())


def test_schema_rejects_a_zero_for_unknown_and_bad_enums():
    data = Report(devices=[Device(kind="gpu", name="g", bus="pci")]).to_dict()
    data["devices"][0]["readiness"] = "maybe"
    with pytest.raises(Exception):
        validate(data)


def test_unknown_keys_are_ignored_and_other_major_versions_refused(tmp_path):
    data = Report().to_dict()
    data["cpu"]["future_field"] = 1
    assert Report.from_dict(data).cpu.model_name is None
    data["schema_version"] = "2.0"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError, match="2.0"):
        load_report(str(path))


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a JSON report"),
    ("[1, 2]", "JSON object"),
    ('{"schema_version": "1.0", "cpu": 5}', "cpu"),
])
def test_broken_report_files_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ReportError, match=message):
        load_report(str(path))


def test_missing_report_file(tmp_path):
    with pytest.raises(ReportError, match="cannot read"):
        load_report(str(tmp_path / "nope.json"))
