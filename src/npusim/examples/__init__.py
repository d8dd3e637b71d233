"""Runnable examples, each checked against golden data (``npusim demo`` runs them all).

Each example module defines ``run() -> list[Outcome]``; :data:`EXAMPLES` lists
the modules in the order the demo runs them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["EXAMPLES", "Outcome", "run_all"]

EXAMPLES = (
    "seed003_select",
    "seed002_trans_data_to_5hd",
    "kernel_select",
    "nchw_to_nc1hwc0",
    "masked_fill",
    "sophgo_clamp_relu_backward",
)


@dataclass(frozen=True)
class Outcome:
    """One checked result: a name, whether it matched its golden bytes, and what to print."""

    name: str
    passed: bool
    detail: str


def run_all() -> list[Outcome]:
    outcomes: list[Outcome] = []
    for name in EXAMPLES:
        module = importlib.import_module(f"{__name__}.{name}")
        outcomes.extend(module.run())
    return outcomes
