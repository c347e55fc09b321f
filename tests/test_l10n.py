"""The message catalogue: every id in every language, with the same fields."""

import string

import pytest

from accelgui import l10n


def _fields(template: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_id_has_every_language_with_the_same_fields():
    en = l10n.catalogue("en")
    for lang in l10n.LANGUAGES:
        cat = l10n.catalogue(lang)
        missing = sorted(set(en) - set(cat))
        assert not missing, f"ids missing in {lang}: {missing[:20]}"
        extra = sorted(set(cat) - set(en))
        assert not extra, f"ids in {lang} that English lacks: {extra[:20]}"
        for id_, template in cat.items():
            assert _fields(template) == _fields(en[id_]), f"{lang} {id_}: fields differ from English"


def test_every_catalogue_file_exists_in_every_language():
    names = {lang: set(l10n._files(lang)) for lang in l10n.LANGUAGES}
    assert names["en"] == names["zh"]


def test_render_in_both_languages_and_nested_params():
    inner = l10n.msg("common.redacted")
    m = l10n.msg("common.unknown")
    assert l10n.render(m, "en") == "unknown"
    assert l10n.render(m, "zh_CN") == "\u672a\u77e5"
    assert l10n.render({"en": "a", "zh": "\u7532"}, "zh") == "\u7532"
    assert l10n.render({"en": "a"}, "zh") == "a"
    assert l10n._param(inner, "zh") == "\u5df2\u9690\u53bb"


def test_unknown_id_is_refused_when_made():
    with pytest.raises(KeyError):
        l10n.msg("no.such.message")


def test_field_text_prefers_the_message_then_the_old_zh_twin():
    dev = {"fix": "Install it", "fix_zh": "\u5b89\u88c5\u5b83"}
    assert l10n.field_text(dev, "fix", "zh") == "\u5b89\u88c5\u5b83"
    assert l10n.field_text(dev, "fix", "en") == "Install it"
    dev["fix_msg"] = l10n.msg("common.unknown")
    assert l10n.field_text(dev, "fix", "zh") == "\u672a\u77e5"


def test_no_chinese_text_in_python_sources():
    """Chinese text lives in the catalogue and the knowledge/device data (JSON), never in code:
    a reworded message then cannot silently fall back to English in one place."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cjk = re.compile("[\u3000-\u9fff\uff00-\uffef]")
    found = []
    for top in ("accelgui", "probes", "knowledge", "resources", "tests", "packaging"):
        for path in (root / top).rglob("*.py"):
            if "fixtures/machines" in path.as_posix():
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if cjk.search(line):
                    found.append(f"{path.relative_to(root)}:{n}")
    assert not found, found[:20]
