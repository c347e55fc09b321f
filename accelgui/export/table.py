"""The section tables every human-readable format renders (plain, cleaned, unescaped cells)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Table:
    key: str
    title: str
    headers: list[str] | None = None   # None: a key/value table
    rows: list[list[str]] = field(default_factory=list)
    note: str | None = None
    level: int = 2                     # heading level (2 = section, 3 = subsection)
    status_col: int | None = None      # column holding a readiness/status word (for colour)
    status_keys: list[str] = field(default_factory=list)  # the untranslated word per row
    wide_cols: list[int] = field(default_factory=list)     # columns left out on paper (pdf)
    col_widths: list[int] = field(default_factory=list)    # column widths in % (html, pdf)
    on_paper: bool = True              # False: left out of the PDF (reference material)
    in_summary: bool = True            # False: left out of the terminal summary (detail grids)

    def narrow(self) -> "Table":
        """The same table without its ``wide_cols`` (for A4 output)."""
        if not self.wide_cols or self.headers is None:
            return self
        keep = [i for i in range(len(self.headers)) if i not in self.wide_cols]
        status = keep.index(self.status_col) if self.status_col in keep else None
        widths = [self.col_widths[i] for i in keep] if len(self.col_widths) == len(self.headers) else []
        return Table(self.key, self.title, [self.headers[i] for i in keep],
                     [[row[i] for i in keep if i < len(row)] for row in self.rows], self.note,
                     self.level, status, self.status_keys, [], widths, self.on_paper,
                     self.in_summary)
