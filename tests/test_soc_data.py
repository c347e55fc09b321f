"""SoC accelerators as data (probes/data/socs.json): schema, and the interpreter on small trees."""

import json
from pathlib import Path

import jsonschema

from accelgui.probes import families, soc
from accelgui.probes.context import ProbeContext

DATA = Path(soc.__file__).parent / "data"


def test_soc_table_matches_its_schema_and_names_known_families():
    table = json.loads((DATA / "socs.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json.loads((DATA / "socs.schema.json").read_text())).validate(table)
    for spec in table["platform_devices"] + table["remoteprocs"]:
        assert families.family(spec["family"]), spec["family"]


def _tree(tmp_path, compatible: str, platform_devices=(), remoteprocs=(), nodes=()):
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/compatible").write_bytes(compatible.encode().replace(b"|", b"\0") + b"\0")
    for name in platform_devices:
        (tmp_path / "sys/bus/platform/devices" / name).mkdir(parents=True)
    for i, name in enumerate(remoteprocs):
        (tmp_path / f"sys/class/remoteproc/remoteproc{i}").mkdir(parents=True)
        (tmp_path / f"sys/class/remoteproc/remoteproc{i}/name").write_text(name + "\n")
    for node in nodes:
        (tmp_path / node).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / node).write_text("")
    return ProbeContext(root=str(tmp_path))


def test_a_rockchip_board_not_in_the_table_still_has_its_npu(tmp_path):
    ctx = _tree(tmp_path, "vendor,board|rockchip,rk9999", ["fdab0000.npu", "fdac0000.npu"])
    (dev,) = soc.probe(ctx)["soc_devices"]
    assert dev["family"] == "rockchip-npu" and dev["name"] == "Rockchip NPU"
    assert dev["details"] == {"cores": 2}          # no row: no SoC name, no TOPS


def test_jetson_facts_from_the_soc_row(tmp_path):
    ctx = _tree(tmp_path, "nvidia,p3509-0000+p3668-0001|nvidia,tegra194",
                ["17000000.gv11b", "15880000.nvdla0", "158c0000.nvdla1"])
    (dev,) = soc.probe(ctx)["soc_devices"]
    assert dev["name"] == "NVIDIA Jetson Xavier GPU (Volta)" and dev["address"] == "17000000.gv11b"
    assert dev["details"]["compute_capability"] == 7.2 and dev["details"]["dla_cores"] == 2


def test_a_qualcomm_dsp_from_its_remote_processor_and_nodes(tmp_path):
    ctx = _tree(tmp_path, "qcom,qcs6490-rb3gen2|qcom,qcm6490", remoteprocs=["adsp", "cdsp"],
                nodes=["dev/fastrpc-cdsp"])
    (dev,) = soc.probe(ctx)["soc_devices"]
    assert dev["family"] == "qualcomm-dsp" and dev["address"] == "remoteproc1"
    assert dev["driver"] == "fastrpc" and dev["nodes"]["found"] == ["/dev/fastrpc-cdsp"]


def test_a_board_of_another_vendor_has_no_soc_accelerator(tmp_path):
    ctx = _tree(tmp_path, "raspberrypi,5-model-b|brcm,bcm2712", ["1000800000.gpu"])
    assert soc.probe(ctx)["soc_devices"] == []
