"""Prints how many examples each fuzzed entry-point family ran, and how they ended."""

from __future__ import annotations

from .harness import COUNTS, OUTCOMES


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not COUNTS:
        return
    terminalreporter.section("fuzz examples per entry-point family")
    for family in sorted(COUNTS):
        ends = ", ".join(f"{kind} {OUTCOMES[(family, kind)]}" for kind in ("ok", "ConstraintError", "TypeError"))
        terminalreporter.write_line(f"{family:32s} {COUNTS[family]:6d}  ({ends})")
    terminalreporter.write_line(f"{'total':32s} {sum(COUNTS.values()):6d}")
