"""Entering and leaving cores, both vendors: the innermost entered core is the active one.

A ``with`` block enters and leaves in order; code that calls ``__enter__`` / ``__exit__``
itself (a fixture, an ExitStack unwound by hand) may leave them in another order, or leave
a core it never entered.  Neither may leave a wrong core active or escape as IndexError.
"""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.errors import NoActiveCoreError, RuntimeMisuseError
from npusim.sophgo.core import current_core as sophgo_current_core

VENDORS = [
    pytest.param(lambda: asc.Core("A2"), asc.current_core, "Core.__exit__", id="ascend"),
    pytest.param(lambda: tpu.Core("BM1684X"), sophgo_current_core, "tpu.Core.__exit__", id="sophgo"),
]


def active(current):
    try:
        return current("test")
    except NoActiveCoreError:
        return None


@pytest.mark.parametrize(("make", "current", "method"), VENDORS)
def test_exit_without_enter_is_a_runtime_misuse_error(make, current, method):
    core = make()
    with pytest.raises(RuntimeMisuseError) as err:
        core.__exit__(None, None, None)  # was: IndexError from an empty token list
    assert (err.value.instruction, err.value.operand) == (method, "core")
    assert "without a matching __enter__" in err.value.rule
    with core:
        pass
    with pytest.raises(RuntimeMisuseError):
        core.__exit__(None, None, None)  # a second exit of one enter
    assert active(current) is None


@pytest.mark.parametrize(("make", "current", "method"), VENDORS)
def test_cores_left_out_of_order_leave_exactly_the_others_active(make, current, method):
    outer, inner = make(), make()
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)
    assert active(current) is inner
    inner.__exit__(None, None, None)
    assert active(current) is None  # was: the outer core active again


@pytest.mark.parametrize(("make", "current", "method"), VENDORS)
def test_a_core_entered_twice_stays_active_until_its_last_exit(make, current, method):
    first, second = make(), make()
    with first:
        with second, first:
            assert active(current) is first
            second.__exit__(None, None, None)  # out of order, inside the with blocks
            assert active(current) is first
            second.__enter__()  # the with block's exit leaves it again
        assert active(current) is first
    assert active(current) is None
