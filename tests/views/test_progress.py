"""Progress bars: drawn by tqdm on a terminal, nothing when stderr is no terminal."""

import io
import sys

import numpy as np

from npusim import ascend as asc
from npusim.views import progress as progress_module


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@asc.jit
def _noop(y: asc.GlobalAddress) -> None:
    asc.get_block_idx()


def test_a_long_launch_draws_a_bar_on_a_terminal_and_nothing_otherwise(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("NPUSIM_PROGRESS", raising=False)
    _noop.launch(100, (np.zeros(1, np.float16),), chip="A2")
    drawn = terminal.getvalue()
    assert "_noop[100]" in drawn

    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    _noop.launch(100, (np.zeros(1, np.float16),), chip="A2")
    assert piped.getvalue() == ""


def test_short_runs_and_the_opt_out_show_nothing(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert progress_module.wanted(progress_module.MIN_STEPS)
    assert not progress_module.wanted(progress_module.MIN_STEPS - 1)
    monkeypatch.setenv("NPUSIM_PROGRESS", "0")
    assert not progress_module.wanted(10_000)
    steps = range(100)
    assert progress_module.progress(steps, "x", 100) is steps
