"""The results table: one row per case, printed as GitHub-flavoured Markdown."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Row", "render"]

HEADER = ("case", "npusim", "numpy", "ratio", "target", "met?")


@dataclass(frozen=True)
class Row:
    """One printed row; ``npusim`` and ``numpy`` are seconds per call (``None`` when not measured)."""

    case: str
    npusim: float | None
    numpy: float | None
    target: str
    met: str

    @property
    def ratio(self) -> float | None:
        if self.npusim is None or not self.numpy:
            return None
        return self.npusim / self.numpy


def format_seconds(seconds: float | None) -> str:
    """``12.3 µs`` / ``4.56 ms`` / ``1.23 s``, three significant digits."""
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def _cells(row: Row) -> tuple[str, ...]:
    ratio = "—" if row.ratio is None else f"{row.ratio:.2f}x"
    return (row.case, format_seconds(row.npusim), format_seconds(row.numpy), ratio, row.target, row.met)


def render(rows: list[Row]) -> str:
    """The table as Markdown, columns padded so it also reads well in a terminal."""
    cells = [HEADER, *(_cells(r) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADER))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |" for line in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
