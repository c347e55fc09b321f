"""JSON: the report contract itself."""


def render(report, lang: str = "en") -> str:
    return report.to_json(indent=2) + "\n"
