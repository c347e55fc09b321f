"""On-chip devices get their family, so readiness reads the family's driver and runtime
instead of "unknown": Snapdragon's Adreno GPU and Hexagon NPU on Windows on Arm by their ACPI
ids (a later chip's by its setup class), the Apple Neural Engine from the macOS backend."""

from __future__ import annotations

import json
import os

from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")


def replay(folder) -> dict:
    return run_probes(ProbeContext(str(folder)), timeout_s=20).to_dict()


def _driver_step(dev: dict) -> dict:
    return next(s for s in dev["ladder"] if s["step"] == "driver")


def _pnp(tmp_path, *devices: tuple[str, str, str, str | None]) -> None:
    objects = [{"Status": "OK", "Class": cls, "FriendlyName": name, "InstanceId": instance,
                "Manufacturer": "Qualcomm", "Service": service, "Present": True}
               for cls, name, instance, service in devices]
    (tmp_path / "pnp.txt").write_text(json.dumps(objects, indent=4), encoding="utf-8")


def test_snapdragon_x_elite_adreno_and_hexagon_have_their_families_and_runtimes():
    r = replay(os.path.join(MACHINES, "win-snapdragon-x-elite"))
    gpu = next(d for d in r["devices"] if d["kind"] == "gpu")
    npu = next(d for d in r["devices"] if d["kind"] == "npu")
    assert gpu["details"]["family"] == "qualcomm-adreno" and npu["details"]["family"] == "qualcomm-npu"
    assert gpu["readiness"] == "ready" and npu["readiness"] == "ready"
    assert _driver_step(gpu)["detail"] == "qcdx8380 is bound."
    assert _driver_step(npu)["detail"] == "qcnspmcdm8380 is bound."
    runtime = {d["kind"]: next(s for s in d["ladder"] if s["step"] == "runtime") for d in (gpu, npu)}
    assert runtime["gpu"]["ok"] is True and "DirectML" in runtime["gpu"]["detail"]
    assert runtime["npu"]["ok"] is True and "QNN" in runtime["npu"]["detail"]
    assert gpu["details"]["memory_shared"] is True


def test_adreno_x1_45_by_its_id_and_a_later_qualcomm_gpu_and_npu_by_their_class(tmp_path):
    _pnp(tmp_path,
         ("Display", "Qualcomm(R) Adreno(TM) X1-45 GPU", "ACPI\\VEN_QCOM&DEV_0D17&SUBSYS_CRD08380&REV_0001\\3&1&0",
          "qcdx8380"),
         ("ComputeAccelerator", "Snapdragon(R) X Plus - X1P42100 - Qualcomm(R) Hexagon(TM) NPU",
          "ACPI\\QCOM0D0A\\2&DABA3FF&0", "qcnspmcdm8380"))
    found = {d["kind"]: d for d in replay(tmp_path)["devices"]}
    assert found["gpu"]["details"]["family"] == "qualcomm-adreno"
    assert found["npu"]["details"]["family"] == "qualcomm-npu"
    assert found["gpu"]["readiness"] == "ready" and found["npu"]["readiness"] == "ready"
    later = tmp_path / "later"
    later.mkdir()
    _pnp(later, ("Display", "Qualcomm(R) Adreno(TM) X2-90 GPU", "ACPI\\VEN_QCOM&DEV_0F99\\3&1&0", "qcdx8480"),
         ("ComputeAccelerator", "Qualcomm(R) Hexagon(TM) NPU", "ACPI\\VEN_QCOM&DEV_0F9A\\2&1&0", None))
    found = {d["kind"]: d for d in replay(later)["devices"]}
    assert found["gpu"]["details"]["family"] == "qualcomm-adreno"
    assert found["npu"]["details"]["family"] == "qualcomm-npu"
    # the NPU's PnP status says OK but no service was recorded: its driver runs, the name is not known
    assert found["npu"]["readiness"] == "ready" and found["npu"]["driver"] is None


def test_a_qualcomm_gpu_whose_driver_failed_is_driver_missing_not_ready(tmp_path):
    objects = [{"Status": "Error", "Class": "Display", "FriendlyName": "Qualcomm(R) Adreno(TM) X1-85 GPU",
                "InstanceId": "ACPI\\VEN_QCOM&DEV_0C36&SUBSYS_CRD08380&REV_0003\\3&2411E6FE&0",
                "Manufacturer": "Qualcomm", "Service": "qcdx8380", "Present": True,
                "Problem": "CM_PROB_FAILED_START"}]
    (tmp_path / "pnp.txt").write_text(json.dumps(objects, indent=4), encoding="utf-8")
    gpu = replay(tmp_path)["devices"][0]
    assert gpu["details"]["family"] == "qualcomm-adreno"
    assert gpu["readiness"] == "driver-missing"
    assert gpu["readiness_reason_msg"]["id"] == "windows.driver.problem"


def test_the_apple_neural_engine_is_in_the_apple_ane_family():
    for folder in ("mac-m1pro-laptop", "mac-m2-air-zh"):
        r = replay(os.path.join(MACHINES, folder))
        ane = next(d for d in r["devices"] if d["kind"] == "npu")
        assert ane["vendor"] == "apple" and ane["details"]["family"] == "apple-ane"
        assert ane["readiness"] == "ready"
        assert _driver_step(ane)["detail_msg"]["id"] == "devices.ladder.driver_macos_ane"
