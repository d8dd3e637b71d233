"""Progress bars for long runs (many blocks, large dumps), on a terminal only.

They are drawn by `tqdm <https://tqdm.github.io>`_, an optional extra
(``pip install npusim[progress]``).  Nothing is shown when stderr is not a terminal,
when tqdm is not installed, or when ``NPUSIM_PROGRESS=0``; a run of fewer than
:data:`MIN_STEPS` steps shows nothing either.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["MIN_STEPS", "progress", "wanted"]

T = TypeVar("T")
MIN_STEPS = 64


def wanted(total: int) -> bool:
    """Whether a run of ``total`` steps shows a bar here (module docstring)."""
    if total < MIN_STEPS or os.environ.get("NPUSIM_PROGRESS", "1") == "0":
        return False
    stream = sys.stderr
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


def progress(steps: Iterable[T], label: str, total: int, unit: str = "step") -> Iterator[T] | Iterable[T]:
    """``steps`` themselves, wrapped in a tqdm bar when one is :func:`wanted` and tqdm is installed."""
    if not wanted(total):
        return steps
    try:
        from tqdm import tqdm
    except ImportError:
        return steps
    return tqdm(steps, desc=label, total=total, unit=unit, leave=False)
