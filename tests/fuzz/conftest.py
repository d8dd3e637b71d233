"""Prints how many examples each fuzzed entry-point family ran, and how they ended."""

from __future__ import annotations

from .harness import COUNTS, OUTCOMES

CONTRACT_OUTCOMES = ("ok", "ConstraintError", "TypeError")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not COUNTS:
        return
    terminalreporter.section("fuzz examples per entry-point family")
    for family in sorted(COUNTS):
        kinds = sorted(kind for f, kind in OUTCOMES if f == family and kind not in CONTRACT_OUTCOMES)
        if any((family, kind) in OUTCOMES for kind in CONTRACT_OUTCOMES):
            kinds = [*CONTRACT_OUTCOMES, *kinds]  # the contract's three outcomes, zeros included
        ends = ", ".join(f"{kind} {OUTCOMES[(family, kind)]}" for kind in kinds)
        terminalreporter.write_line(f"{family:32s} {COUNTS[family]:6d}  ({ends})")
    terminalreporter.write_line(f"{'total':32s} {sum(COUNTS.values()):6d}")
