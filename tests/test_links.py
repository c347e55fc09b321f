"""Link freshness: every link of the knowledge base with the day it was last looked at
(accelgui.knowledge.links, ``accelgui --links``). Offline, and on a fixed clock."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys

import pytest

from accelgui import links_cli
from accelgui.knowledge import links, load_knowledge

DAY = dt.date(2026, 12, 2)          # the day of the last review; no test reads today's date


def _tiny():
    routes = {"r": {"id": "r", "tools": [{"name": "T", "url": "https://t.example/", "checked": "2025-01-10"}],
                    "steps": [{"id": "r.a", "resources": [
                        {"title": "A", "url": "https://a.example/", "url_zh": "https://a.example/zh",
                         "kind": "docs", "checked": "2026-11-01"},
                        {"title": "T again", "url": "https://t.example/", "kind": "docs"}]}],
                    "facts": [{"id": "r.f", "source": "https://f.example/"}]}}
    facts = {"tab": {"source": ["https://f.example/", "https://g.example/"], "rows": [
        {"x": 1, "source": "https://h.example/", "pci_id_source": "https://p.example/"}]}}
    support = {"s": {"source": "https://s.example/", "rows": []}}
    return routes, facts, support


def test_collect_finds_every_link_with_its_places_and_the_datas_own_date():
    found = {e["url"]: e for e in links.collect(*_tiny())}
    assert set(found) == {"https://t.example/", "https://a.example/", "https://a.example/zh",
                          "https://f.example/", "https://g.example/", "https://h.example/",
                          "https://p.example/", "https://s.example/"}
    assert found["https://t.example/"]["places"] == ["routes/r.json tools[0]", "routes/r.json steps[0].resources[1]"]
    assert found["https://t.example/"]["checked"] == "2025-01-10"
    assert found["https://a.example/"]["checked"] == "2026-11-01"
    assert found["https://a.example/zh"]["checked"] is None        # the date is the English page's
    assert found["https://f.example/"]["places"] == ["routes/r.json facts[0]", "facts.json tab"]
    assert found["https://p.example/"]["places"] == ["facts.json tab.rows[0]"]


def test_report_ages_statuses_staleness_and_orphans():
    records = {"https://g.example/": {"url": "https://g.example/", "verified": "2026-12-02", "how": "h", "what": "w"},
               "https://gone.example/": {"url": "https://gone.example/", "verified": "2026-12-02"}}
    doc = links.report(DAY, 365, links.collect(*_tiny()), records, expired=["facts.json x: past"])
    by = {e["url"]: e for e in doc["links"]}
    assert (by["https://g.example/"]["status"], by["https://g.example/"]["age_days"]) == ("verified", 0)
    assert (by["https://a.example/"]["status"], by["https://a.example/"]["age_days"]) == ("checked", 31)
    assert by["https://t.example/"]["stale"] and by["https://t.example/"]["age_days"] == 691
    assert by["https://h.example/"]["status"] == "unchecked" and not by["https://h.example/"]["stale"]
    assert doc["counts"] == {"verified": 1, "checked": 2, "unchecked": 5, "stale": 1}
    assert doc["orphan_records"] == ["https://gone.example/"] and doc["facts_due"] == ["facts.json x: past"]
    # a later day ages everything; a wider horizon forgives
    assert links.report(DAY + dt.timedelta(days=400), 365, links.collect(*_tiny()), records, [])["counts"]["stale"] == 3
    assert links.report(DAY, 1000, links.collect(*_tiny()), records, [])["counts"]["stale"] == 0


def test_a_verification_record_needs_a_real_date():
    recs = links.verified_records({"checks": [{"url": "https://a.example/", "verified": "2026-13-01"},
                                              {"url": "https://b.example/", "verified": "yesterday"},
                                              {"url": "https://c.example/", "verified": "2026-12-02"}, "junk"]})
    assert list(recs) == ["https://c.example/"]


def test_the_shipped_records_are_real_checks_of_links_in_use():
    records = links.verified_records()
    assert len(records) >= 12
    used = {e["url"] for e in links.collect()}
    for url, rec in records.items():
        assert url in used, f"a record for a link no longer used: {url}"
        assert rec["verified"] <= DAY.isoformat() and rec["how"].strip() and len(rec["what"]) > 20, rec
    # a resource dated the day of the review was read that day, so it has a record saying what
    for e in links.collect():
        if e["checked"] == DAY.isoformat():
            assert e["url"] in records, e


def test_the_shipped_report_on_the_review_day():
    doc = links.report(DAY)
    assert doc["facts_due"] == [] and doc["orphan_records"] == []
    assert doc["counts"]["verified"] >= 12 and doc["counts"]["stale"] == 0
    assert len(doc["links"]) > 300
    kb = load_knowledge()
    assert {e["url"] for e in doc["links"]} >= {t["url"] for t in kb.routes["gpu"]["tools"]}
    # two years on, the links dated when they were written are stale
    assert links.report(DAY + dt.timedelta(days=730))["counts"]["stale"] >= 90


def test_cli_text_json_filters_and_exit_status():
    out = io.StringIO()
    assert links_cli.run_cli("verified", "en", "text", out, today=DAY) == 0
    text = out.getvalue()
    assert "verified" in text and "https://docs.nvidia.com/dynamo/design-docs/architecture-flow" in text
    assert "unchecked  -" not in text
    out = io.StringIO()
    assert links_cli.run_cli("stale", "zh", "text", out, today=DAY) == 0
    assert "2026-12-02" in out.getvalue() and "\u6ca1\u6709\u8fc7\u671f" in out.getvalue()
    out = io.StringIO()
    later = DAY + dt.timedelta(days=800)
    assert links_cli.run_cli("stale", "en", "json", out, today=later) == 1
    doc = json.loads(out.getvalue())
    assert doc["which"] == "stale" and doc["links"] and all(e["stale"] for e in doc["links"])
    assert doc["facts_due"]                      # facts past their review date are listed too
    with pytest.raises(ValueError):
        links_cli.links_document("bogus")


def _cli(*args):
    env = dict(os.environ, ACCELGUI_DATA_DIR="/nonexistent-accelgui-test")
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_accelgui_links_command():
    proc = _cli("--links", "verified", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr          # 1 only once a fact is past its date
    doc = json.loads(proc.stdout)
    assert doc["which"] == "verified" and all(e["status"] == "verified" for e in doc["links"])
    assert _cli("--links", "bogus").returncode == 2
    bad = _cli("--links", "--format", "html")
    assert bad.returncode == 2 and "--links" in bad.stderr
