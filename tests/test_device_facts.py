"""Device facts keyed by id, and what the estimates make of them on the machines learners own:
every specification row is keyed by its PCI id (a name match is an explicit, flagged fallback
that never gives more memory than the smallest product the name could be), an id sold in
several sizes is budgeted at the smallest, a die of a multi-die package is the device, and the
estimates give a speed before any benchmark, respect the container's limits and keep memory
without CPUs out of the CPU pool."""

import re

import pytest

from accelgui import advisor, estimates
from accelgui.probes import PROBES, families
from accelgui.probes.context import ProbeContext
from accelgui.report import Cpu, Device, Memory, Platform, Report, Software
from accelgui.runner import run_probes

GiB = 1 << 30
GPU_FAMILIES = ("nvidia-gpu", "amd-gpu", "intel-gpu")
MINE = {"pci", "usb", "accel", "soc", "nvidia", "amd", "software"}


def _rows(fid):
    return (families.family(fid).get("specs") or {}).get("devices") or []


# ------------------------------------------------------------------------------- the data

@pytest.mark.parametrize("fid", sorted(families.load_families()))
def test_every_specification_row_has_ids_or_is_a_flagged_name_fallback(fid):
    for row in _rows(fid):
        assert row.get("ids") or row.get("name_fallback") is True, (fid, row.get("name"))
        assert row.get("source") or families.family(fid)["specs"].get("source"), (fid, row)


@pytest.mark.parametrize("fid", GPU_FAMILIES)
def test_products_one_id_cannot_tell_apart_get_the_smallest_of_each_figure(fid):
    """Rows sharing an id are memory sizes of a product, or products a name expression,
    subsystem or revision tells apart; where nothing tells them apart, the device is given the
    smallest memory and the lowest bandwidth of them, and every size."""
    seen: dict = {}
    for row in _rows(fid):
        for pci_id in row.get("ids") or ():
            seen.setdefault(pci_id, []).append(row)
    shared = {k: v for k, v in seen.items() if len(v) > 1}
    for pci_id, rows in shared.items():
        plain = rows                    # no subsystem or revision recorded: any of them
        spec = families.device_spec(fid, pci_id=pci_id)
        assert spec is not None and spec["match"] == "id", pci_id
        mems = [r.get("memory_bytes") for r in plain]
        if None not in mems:
            assert spec["memory_bytes"] == min(mems), (pci_id, spec.get("name"))
        bws = [r.get("memory_bandwidth_gbps") for r in plain]
        if None not in bws:
            assert spec["memory_bandwidth_gbps"] == min(bws), (pci_id, spec.get("name"))
        if len({m for m in mems if m}) > 1:
            assert spec["memory_sizes_bytes"] == sorted({m for m in mems if m})


@pytest.mark.parametrize("fid", GPU_FAMILIES)
def test_gpu_rows_carry_the_facts_the_advice_needs(fid):
    rows = [r for r in _rows(fid) if r.get("form") != "integrated"]
    assert len(rows) >= 10, fid
    for row in rows:
        if row.get("memory_bytes") is not None:
            assert row["memory_bytes"] >= 256 << 20 and row["memory_bytes"] % (1 << 20) == 0, row
        if row.get("memory_bandwidth_gbps") is not None:
            assert 10 <= row["memory_bandwidth_gbps"] <= 20000, row
        if fid == "nvidia-gpu" and row.get("compute_capability"):
            assert re.fullmatch(r"\d+\.\d+", row["compute_capability"]), row
        if row.get("mobile"):
            assert row.get("name"), row


def test_nvidia_rows_have_a_compute_capability():
    rows = _rows("nvidia-gpu")
    with_cc = [r for r in rows if r.get("compute_capability")]
    assert len(with_cc) >= 0.9 * len(rows)


def test_amd_discrete_rows_have_a_gfx_target():
    rows = [r for r in _rows("amd-gpu") if r.get("form") != "integrated"]
    assert len([r for r in rows if r.get("gfx_target")]) >= 0.9 * len(rows)


# ------------------------------------------------------------------------------- matching

def test_a_name_match_compares_model_words_not_substrings():
    named = families._named
    row = {"name": "GeForce RTX 3060"}
    assert named(row, "NVIDIA GeForce RTX 3060")
    assert named(row, "GA106 [GeForce RTX 3060 Lite Hash Rate]")
    assert not named(row, "NVIDIA GeForce RTX 3060 Ti")
    assert not named(row, "NVIDIA GeForce RTX 3060 Laptop GPU")
    assert not named(row, "GA106M [GeForce RTX 3060 Mobile / Max-Q]")
    laptop = {"name": "GeForce RTX 3060 Laptop GPU"}
    assert named(laptop, "GA106M [GeForce RTX 3060 Mobile / Max-Q]")
    assert named(laptop, "NVIDIA GeForce RTX 3060 Laptop GPU")
    # a name of alternatives ("6800/6800 XT / 6900 XT") may be any of them
    assert named({"name": "Radeon RX 6800 XT"}, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]")
    assert not named({"name": "Radeon RX 6950 XT"}, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]")
    # sizes in both names must agree
    assert not named({"name": "GeForce RTX 3060 8GB"}, "NVIDIA GeForce RTX 3060 12 GB")


def test_a_name_fallback_never_gives_more_than_the_smallest_product(monkeypatch):
    rows = [{"name": "Acme X1 16GB", "name_fallback": True, "memory_bytes": 16 * GiB,
             "memory_bandwidth_gbps": 500},
            {"name": "Acme X1 8GB", "name_fallback": True, "memory_bytes": 8 * GiB,
             "memory_bandwidth_gbps": 250},
            {"ids": ["1fff:0001"], "name": "Acme X1 Laptop GPU", "memory_bytes": 4 * GiB,
             "memory_bandwidth_gbps": 200}]
    entry = {"id": "acme-gpu", "specs": {"devices": rows}}
    monkeypatch.setattr(families, "family", lambda fid: entry if fid == "acme-gpu" else None)
    monkeypatch.setattr(families, "_rows", lambda e: rows)
    spec = families.device_spec("acme-gpu", pci_id="1fff:0099", name="Acme X1")
    assert spec["match"] == "name" and spec["memory_bytes"] == 8 * GiB
    assert spec["memory_bandwidth_gbps"] == 250 and spec["memory_sizes_bytes"] == [8 * GiB, 16 * GiB]
    told = families.device_spec("acme-gpu", pci_id="1fff:0099", name="Acme X1",
                                memory_bytes=16 * GiB)
    assert told["memory_bandwidth_gbps"] == 500 and "memory_sizes_bytes" not in told
    laptop = families.device_spec("acme-gpu", name="Acme X1 Laptop GPU")
    assert laptop["memory_bytes"] == 4 * GiB
    assert families.device_spec("acme-gpu", pci_id="1fff:0001")["match"] == "id"


def test_subsystem_and_revision_ids_narrow_a_shared_id(monkeypatch):
    rows = [{"ids": ["1fff:0002"], "name": "Acme Y", "memory_bytes": 8 * GiB},
            {"ids": ["1fff:0002"], "revisions": ["c1"], "name": "Acme Y Pro",
             "memory_bytes": 16 * GiB}]
    entry = {"id": "acme-gpu", "specs": {"devices": rows}}
    monkeypatch.setattr(families, "family", lambda fid: entry if fid == "acme-gpu" else None)
    monkeypatch.setattr(families, "_rows", lambda e: rows)
    assert families.device_spec("acme-gpu", pci_id="1fff:0002", revision="c1")["name"] == "Acme Y Pro"
    assert families.device_spec("acme-gpu", pci_id="1fff:0002", revision="c0")["name"] == "Acme Y"
    # a revision not recorded: either product, so the smaller
    assert families.device_spec("acme-gpu", pci_id="1fff:0002")["memory_bytes"] == 8 * GiB


def _one_gpu(tmp_path, vendor, device, driver=None, files=None, pci_ids=None,
             address="0000:01:00.0"):
    from tests.test_families import pci_function

    root = tmp_path / "t"
    pci_function(root, address, vendor, device, "030000", driver=driver, files=files)
    if pci_ids:
        (root / "usr/share/misc").mkdir(parents=True)
        (root / "usr/share/misc/pci.ids").write_text(pci_ids)
    report = run_probes(ProbeContext(root=str(root)), probes=[p for p in PROBES if p.name in MINE])
    gpus = [d for d in report.to_dict()["devices"] if d["kind"] == "gpu"]
    assert len(gpus) == 1, gpus
    return gpus[0]


def _row_with(fid, pred):
    return next(r for r in _rows(fid) if pred(r))


def test_a_laptop_gpu_gets_its_own_figures_not_the_desktop_cards(tmp_path):
    row = _row_with("nvidia-gpu", lambda r: r.get("mobile") and "3060" in r.get("name", ""))
    vid, did = row["ids"][0].split(":")
    dev = _one_gpu(tmp_path, vid, did, driver="nvidia")
    d = dev["details"]
    assert d["memory_bytes"] == row["memory_bytes"] <= 6 * GiB
    assert d["mobile"] is True and d["specification"]["match"] == "id"
    # the maker sets a laptop part's memory clock: its bus at GDDR6's slowest rate, a lower bound
    assert row.get("memory_bandwidth_gbps") is None and row["memory_type"] == "GDDR6"
    assert d["memory_bandwidth_gbps"] == row["memory_bus_bits"] * 12 / 8
    assert d["memory_bandwidth_source"] == "specification (lower bound)"
    assert d["compute_capability"] == 8.6 and d["compute_capability_source"] == "specification"
    # a tree without pci.ids names the card from its row
    assert "3060" in dev["name"] and "Laptop" in dev["name"]


def test_an_id_sold_in_two_sizes_is_budgeted_at_the_smaller(tmp_path):
    sizes: dict = {}
    for row in _rows("nvidia-gpu"):
        if row.get("subsystems"):
            continue
        for pci_id in row.get("ids") or ():
            sizes.setdefault(pci_id, set()).add(row.get("memory_bytes"))
    pci_id = next(i for i, s in sizes.items() if len(s) > 1 and None not in s and min(s) >= 4 * GiB)
    dev = _one_gpu(tmp_path, *pci_id.split(":"))
    d = dev["details"]
    assert d["memory_bytes"] == min(sizes[pci_id])
    assert d["memory_sizes_bytes"] == sorted(sizes[pci_id])
    assert d["memory_source"] == "specification (smallest size)"
    est = advisor.estimates(Report(devices=[Device(**{**dev, "readiness": "ready"})],
                                   memory=Memory(total_bytes=32 * GiB)))
    card = next(e for e in est["devices"] if e["kind"] == "gpu")
    assert card["memory_sizes_bytes"] == sorted(sizes[pci_id])
    assert any("the smallest" in n for n in est["notes"])


def test_an_mi250x_gcd_is_the_device_and_the_package_is_named(tmp_path):
    row = _row_with("amd-gpu", lambda r: r.get("package") and "1002:740c" in r.get("ids", ()))
    dev = _one_gpu(tmp_path, "1002", "740c")
    d = dev["details"]
    assert d["package"]["devices"] == 2 and "MI250" in d["package"]["name"]
    assert d["memory_bytes"] == row["memory_bytes"] == 64 * GiB
    assert d["memory_bandwidth_gbps"] == row["memory_bandwidth_gbps"] == pytest.approx(1638.4)
    gcd = Device(**{**dev, "readiness": "ready"})
    eight = Report(devices=[gcd.replace(address=f"0000:{i:02x}:00.0",
                                        details={**gcd.details, "index": i}) for i in range(8)],
                   memory=Memory(total_bytes=512 * GiB))
    est = advisor.estimates(eight)
    assert any("are 4" in n and "MI250" in n for n in est["notes"]), est["notes"]


# ------------------------------------------------------------------------------- estimates

def _gpu(name, memory, bw, vendor="nvidia", readiness="ready", **details):
    return Device(kind="gpu", vendor=vendor, name=name, bus="pci", address="0000:01:00.0",
                  pci_id="10de:0000", driver="nvidia", readiness=readiness,
                  details={"memory_bytes": memory, "memory_bandwidth_gbps": bw, **details})


def _report(*devices, **memory):
    return Report(platform=Platform(os="Linux", machine="x86_64"),
                  cpu=Cpu(vendor="amd", model_name="Acme CPU", arch="x86_64", logical_cpus=8),
                  memory=Memory(**{"total_bytes": 32 * GiB, "available_bytes": 28 * GiB, **memory}),
                  devices=list(devices), software=Software())


def _row(entry, model_id, quant):
    return next(r for r in entry["llm"] if r["model"] == model_id and r["quant"] == quant)


def test_hbm_gpus_use_the_data_centre_class():
    """H100 PCIe, Llama 3 8B Q4_K_M: ~145 tokens/s published; the consumer-fitted class said
    ~270. The HBM class stays within the calibration's 35 %."""
    est = advisor.estimates(_report(_gpu("NVIDIA H100 PCIe", 80 * GiB, 2000, memory_type="HBM2e")))
    card = next(e for e in est["devices"] if e["kind"] == "gpu")
    assert card["decode_class"] == "gpu-hbm"
    tps = _row(card, "llama-3.1-8b", "Q4_K_M")["decode_tokens_per_s"]
    assert 145 * 0.65 <= tps <= 145 * 1.35, tps
    consumer = advisor.estimates(_report(_gpu("NVIDIA GeForce RTX 4090", 24 * GiB, 1008,
                                              memory_type="GDDR6X")))
    assert next(e for e in consumer["devices"] if e["kind"] == "gpu")["decode_class"] == "gpu"


def test_the_hbm_class_is_calibrated_on_its_own_points():
    cal = estimates.calibration()
    own = [p for p in cal["points"] if p["class"] == "gpu-hbm"]
    assert len(own) >= 4 and all(p["source"].startswith("https://") and p["note"] for p in own)
    for p in own:
        arch = cal["architectures"][p["arch"]]
        kv = 2 * arch["layers"] * arch["kv_heads"] * arch["head_dim"] * 2 * p["context"]
        got = estimates.decode_model(p["bandwidth_gbps"], p["weights_gb"] * 1e9 + kv,
                                     p["quant_bits"], "gpu-hbm")
        consumer = estimates.decode_model(p["bandwidth_gbps"], p["weights_gb"] * 1e9 + kv,
                                          p["quant_bits"], "gpu")
        assert abs(got / p["tokens_per_s"] - 1) <= 0.1, p
        assert consumer / p["tokens_per_s"] - 1 > 0.35, p     # why the class exists


def test_what_it_can_run_is_the_largest_model_at_a_usable_speed():
    est = advisor.estimates(_report(), lang="en")
    assert est["assumptions"]["usable_tokens_per_s"] == estimates.USABLE_TOKENS_PER_S == 5
    est = advisor.estimates(_report(total_bytes=256 * GiB, available_bytes=250 * GiB,
                                    bandwidth_spec_gbps=60.0, bandwidth_spec_source="table"))
    cpu = next(e for e in est["devices"] if e["kind"] == "cpu")
    assert cpu["largest_fitting"]["params_b"] > cpu["largest_usable"]["params_b"]
    assert cpu["largest_usable"]["decode_tokens_per_s"] >= 5
    line = est["summary"][-1]
    assert "usable speed (5 tokens/s or more)" in line and "largest that fits" in line


def test_a_cpu_gets_a_speed_before_any_benchmark_from_its_memory_specification():
    est = advisor.estimates(_report(bandwidth_spec_gbps=136.5, bandwidth_spec_source="table"))
    cpu = next(e for e in est["devices"] if e["kind"] == "cpu")
    assert cpu["bandwidth_gbps"] == 136.5 and cpu["bandwidth_source"].startswith("specification")
    assert "memory.bandwidth_spec_gbps" in cpu["bandwidth_source"]
    assert _row(cpu, "llama-3.1-8b", "Q4_K_M")["decode_tokens_per_s"] > 0
    assert est["basis"] == "specification"
    measured = {"cpu": {"stream": {"triad_gbps": 80.0}}}
    est = advisor.estimates(_report(bandwidth_spec_gbps=136.5).replace(benchmarks=measured))
    cpu = next(e for e in est["devices"] if e["kind"] == "cpu")
    assert cpu["bandwidth_source"].startswith("measured")     # a measurement replaces it


def test_the_cpu_budget_respects_the_container_and_leaves_out_memory_without_cpus():
    est = advisor.estimates(_report(total_bytes=2048 * GiB, available_bytes=1900 * GiB,
                                    cgroup_limit_bytes=128 * GiB, cgroup_cpu_limit=4.0))
    cpu = next(e for e in est["devices"] if e["kind"] == "cpu")
    assert cpu["memory_bytes"] == 128 * GiB and "limit" in cpu["memory_source"]
    assert cpu["cores"] == 4
    gh200 = advisor.estimates(_report(total_bytes=576 * GiB, available_bytes=560 * GiB,
                                      numa_memory_only_bytes=96 * GiB))
    cpu = next(e for e in gh200["devices"] if e["kind"] == "cpu")
    assert cpu["memory_total_bytes"] == 480 * GiB and cpu["memory_bytes"] <= 480 * GiB


def test_a_driverless_gpu_is_estimated_for_once_its_driver_is_installed():
    est = advisor.estimates(_report(_gpu("NVIDIA GeForce RTX 4070", 12 * GiB, 504,
                                         readiness="driver-missing")))
    card = next(e for e in est["devices"] if e["kind"] == "gpu")
    assert card["needs_driver"] is True and card["largest_usable"] is not None
    assert "(once its driver is installed)" in est["summary"][0]


def test_a_gpu_below_the_device_floor_gets_no_llm_line():
    floor = estimates.device_floor()
    assert floor["source"].startswith("https://") and floor["fp32_gflops"] and floor["memory_bytes"]
    uhd = Device(kind="gpu", vendor="intel", name="Intel UHD Graphics 620", bus="pci",
                 address="0000:00:02.0", pci_id="8086:5917", driver="i915", integrated=True,
                 readiness="ready", details={"peak_fp32_gflops": 403.2, "form": "integrated"})
    gt710 = _gpu("NVIDIA GeForce GT 710", 1 * GiB, 14.4)
    est = advisor.estimates(_report(uhd, gt710))
    assert [e["kind"] for e in est["devices"]] == ["cpu"]
    assert sum("device floor" in n for n in est["notes"]) == 2


@pytest.mark.parametrize("fid", GPU_FAMILIES)
def test_a_name_of_alternatives_never_removes_rows_of_an_id(fid):
    """The probe passes the device's name (an id database's list of products, "Radeon RX
    7900 XT / 7900 XTX", or a stale one): it must not narrow an id's rows to the products
    it happens to list, or a GRE would be budgeted as an XT."""
    seen: dict = {}
    for row in _rows(fid):
        for pci_id in row.get("ids") or ():
            seen.setdefault(pci_id, []).append(row)
    for pci_id, rows in seen.items():
        mems = [r.get("memory_bytes") for r in rows]
        if len(rows) < 2 or None in mems:
            continue
        for listed in (rows[:2], rows[-2:]):
            name = " / ".join(r["name"] for r in listed)
            spec = families.device_spec(fid, pci_id=pci_id, name=name)
            assert spec["memory_bytes"] == min(mems), (pci_id, name)


def test_a_revision_that_names_the_product_names_the_device(tmp_path):
    gre = _row_with("amd-gpu", lambda r: r.get("name") == "Radeon RX 7900 GRE")
    vid, did = gre["ids"][0].split(":")
    dev = _one_gpu(tmp_path, vid, did, driver="amdgpu",
                   files={"revision": f"0x{gre['revisions'][0]}\n"},
                   pci_ids=f"1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t{did}  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n")
    assert "7900 GRE" in dev["name"] and dev["details"]["memory_bytes"] == 16 * GiB
    assert dev["details"]["memory_bandwidth_gbps"] == gre["memory_bandwidth_gbps"]
    assert dev["details"]["pci_ids_name"].startswith("Navi 31")     # the database's name kept


def test_an_integrated_gpu_no_row_knows_gets_no_llm_line(tmp_path):
    """A UHD 630 on an id the tables lack (Comet Lake-H 8086:9bc4, say): whether it clears
    the device floor is unknown, so it is left to the CPU estimate, with a note."""
    unknown = "8086:9bff"           # an Intel iGPU id no row names
    assert families.device_spec("intel-gpu", pci_id=unknown) is None
    dev = _one_gpu(tmp_path, *unknown.split(":"), driver="i915", address="0000:00:02.0")
    assert dev["integrated"] and dev["details"]["specification"] is None
    est = advisor.estimates(Report(devices=[Device(**{**dev, "readiness": "ready"})],
                                   memory=Memory(total_bytes=16 * GiB, available_bytes=12 * GiB)))
    assert [e["kind"] for e in est["devices"]] == ["cpu"]
    assert any("no specification row knows" in n for n in est["notes"])
