"""Write the RULE part of knowledge/schema.json from the operator registry of accelgui.rules.

The registry (``rules._op`` / ``rules._filter``, each with the schema of its argument) is the one
place an operator or device filter is defined; the route schema's ``$defs/rule`` and
``$defs/deviceFilter`` are written from it, so a route file is checked against what the
evaluator knows. tests/test_rules_schema.py fails while they differ and names this tool:

    python tests/tools/sync_rule_schema.py          # rewrite the two definitions in place
    python tests/tools/sync_rule_schema.py --check  # exit 1 when they are stale

Only the text of the two definitions is replaced (the rest of the file is left as it is).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "knowledge", "schema.json")
sys.path.insert(0, os.path.join(HERE, "..", ".."))


def wanted() -> dict:
    """{definition name: its schema} as the registry gives them."""
    from accelgui import rules

    return {"rule": rules.rule_schema(), "deviceFilter": rules.device_filter_schema()}


def _format(value: dict, indent: str) -> str:
    """A definition with one line per key, and one per property of ``properties``."""
    lines = []
    for key, item in value.items():
        if key == "properties":
            inner = ",\n".join(f'{indent}    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}'
                               for k, v in item.items())
            lines.append(f'{indent}  "properties": {{\n{inner}\n{indent}  }}')
        else:
            lines.append(f"{indent}  {json.dumps(key)}: {json.dumps(item, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + f"\n{indent}}}"


def _span(text: str, name: str) -> tuple[int, int]:
    """Where the value of ``$defs/<name>`` (a key indented four spaces) lies in the schema text."""
    key = f'\n    "{name}": '
    start = text.index(key) + len(key)
    _, length = json.JSONDecoder().raw_decode(text[start:])
    return start, start + length


def synced(text: str) -> str:
    """The schema text with both definitions written from the registry."""
    for name, value in wanted().items():
        start, end = _span(text, name)
        text = text[:start] + _format(value, "    ") + text[end:]
    return text


def stale(text: str) -> list[str]:
    """The names of the definitions that differ from the registry's."""
    defs = json.loads(text)["$defs"]
    return [name for name, value in wanted().items() if defs.get(name) != value]


def main(argv: list[str]) -> int:
    with open(SCHEMA, encoding="utf-8") as f:
        text = f.read()
    if "--check" in argv:
        names = stale(text)
        if names:
            print(f"knowledge/schema.json: $defs {', '.join(names)} differ from accelgui.rules; "
                  "run python tests/tools/sync_rule_schema.py")
        return 1 if names else 0
    new = synced(text)
    if new != text:
        from accelgui.atomic import write_atomic

        write_atomic(SCHEMA, new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
