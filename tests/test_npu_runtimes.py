"""The NPU runtime rule reads the one statement of each NPU's runtime: its family file."""

from accelgui import rules
from accelgui.knowledge import support


def _report(devices, packages=None, toolkits=None, known=True):
    return {"devices": devices, "software": {"packages": packages or {}, "toolkits": toolkits or {},
                                             "packages_known": known, "environments": []}}


def test_the_runtime_is_the_devices_family_runtime():
    npu = {"kind": "npu", "vendor": "intel", "family": "intel-npu", "name": "Intel NPU"}
    value, facts = rules.evaluate({"npu_runtime": True}, _report([npu], toolkits={"intel_npu_driver": "1.10"}))
    assert value is True and "Intel NPU user-space driver" in facts[0]
    value, facts = rules.evaluate({"npu_runtime": True}, _report([npu]), lang="zh")
    assert value is False and "\u7528\u6237\u6001" in facts[0]       # the family's zh name


def test_an_npu_without_a_family_takes_its_vendors_npu_family():
    ane = {"kind": "npu", "vendor": "apple", "family": None, "name": "Apple M3 Neural Engine"}
    value, facts = rules.evaluate({"npu_runtime": True}, _report([ane], packages={"coremltools": "8.1"}))
    assert value is True and "Core ML" in facts[0]
    hexagon = {"kind": "npu", "vendor": "qualcomm", "name": "Snapdragon X Elite NPU"}
    assert rules.evaluate({"npu_runtime": True}, _report([hexagon], toolkits={"qnn": None}))[0] is True
    odd = {"kind": "npu", "vendor": "acme", "name": "Acme NPU"}
    assert rules.evaluate({"npu_runtime": True}, _report([odd], packages={"openvino": "1"}))[0] is False


def test_support_tables_no_longer_state_npu_runtimes():
    assert support.rows("npu_runtimes") == []
