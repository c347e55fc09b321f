"""What the Windows platform probe knows beyond the common platform fields
(``platform.windows``), as rows of label and value for the human faces of a report."""

from __future__ import annotations


def _wsl_text(wsl: dict, lang: str) -> str:
    from accelgui import l10n

    rows = []
    for d in wsl.get("distributions") or ():
        if not isinstance(d, dict) or not d.get("name"):
            continue
        words = [l10n.tr("windows.fact.wsl_version", lang, version=d.get("version") or "?")]
        if d.get("state"):
            words.append(str(d["state"]))
        if d.get("default"):
            words.append(l10n.tr("windows.fact.wsl_default", lang))
        rows.append(l10n.tr("windows.fact.wsl_distribution", lang, name=d["name"], about=", ".join(words)))
    if rows:
        return "; ".join(rows)
    if wsl.get("feature_state"):
        return l10n.tr("windows.fact.wsl_feature", lang, state=wsl["feature_state"])
    return l10n.tr("windows.fact.wsl_none", lang)


def windows_rows(windows, lang: str = "en") -> list[list[str]]:
    """[label, value] rows of ``platform.windows`` (none for a report of another OS): a
    remote desktop session, WSL seen from Windows, the virtual display adapters
    left out of the devices."""
    from accelgui import l10n

    if not isinstance(windows, dict):
        return []
    rows = []           # (the build is the kernel's third number, on its own row already)
    if windows.get("remote_session"):       # (false only says no Remote Display adapter was seen)
        rows.append([l10n.tr("windows.fact.remote_session", lang), l10n.tr("windows.fact.yes", lang)])
    if isinstance(windows.get("wsl"), dict):
        rows.append([l10n.tr("windows.fact.wsl", lang), _wsl_text(windows["wsl"], lang)])
    virtual = [str(n) for n in windows.get("virtual_display_adapters") or () if n]
    if virtual:
        rows.append([l10n.tr("windows.fact.virtual_adapters", lang), ", ".join(virtual)])
    return rows
