"""Random, often invalid, calls of the right Python types: a ConstraintError naming the instruction, or
success; a rejected call changes nothing.  (Every argument here has a valid type, so a TypeError would be
a wrong report; the fuzz suite covers arguments of the wrong type.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ConstraintError, UninitializedReadWarning

SETTINGS = settings(max_examples=150, derandomize=True, deadline=None)
DTYPES = [asc.float16, asc.float32, asc.int16, asc.int32, asc.bfloat16, asc.uint8]


def _state(core: asc.Core, gm: np.ndarray) -> tuple:
    return core.ub.snapshot(), core.register_state(), gm.tobytes()


def _call_or_reject(core, gm, instruction: str, action) -> None:
    before = _state(core, gm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UninitializedReadWarning)
        try:
            action()
        except ConstraintError as err:
            assert err.instruction == instruction and err.operand and err.allowed, err
            assert _state(core, gm) == before
        except Exception as err:  # pragma: no cover - the assertion message is the point
            pytest.fail(f"{type(err).__name__} escaped: {err}")


@SETTINGS
@given(chip=st.sampled_from(["A2", "950", "910", "310P"]),
       op=st.sampled_from(["add", "max", "muls", "abs", "duplicate"]),
       dtype=st.sampled_from(DTYPES),
       addr=st.sampled_from([0, 32, 48, 4096, 190 * 1024]),
       size=st.integers(1, 512),
       count=st.integers(-2, 1 << 20),
       mask=st.one_of(st.integers(-1, 300), st.lists(st.integers(-1, (1 << 64)), min_size=1, max_size=5)),
       repeat=st.integers(-1, 300),
       strides=st.lists(st.integers(-1, 300), min_size=6, max_size=6),
       form=st.sampled_from(["count", "mask"]))
def test_vector_ops_reject_cleanly(chip, op, dtype, addr, size, count, mask, repeat, strides, form):
    gm = np.zeros(1)
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(range(256)) * 64)
        dst = asc.LocalTensor(dtype, asc.TPosition.VECCALC, addr, size)  # every drawn extent fits UB
        src = asc.LocalTensor(dtype, asc.TPosition.VECCALC, 8192, 4096 // dtype.itemsize)
        function = getattr(asc, op)
        operands = {"add": (src, src), "max": (src, src), "muls": (src, 3), "abs": (src,), "duplicate": (1,)}[op]
        if form == "count":
            _call_or_reject(core, gm, op, lambda: function(dst, *operands, count))
        elif op == "duplicate":
            _call_or_reject(core, gm, op, lambda: function(dst, *operands, mask, repeat, strides[0], strides[1]))
        else:
            params = asc.BinaryRepeatParams(*strides) if len(operands) == 2 and op != "muls" else \
                asc.UnaryRepeatParams(*strides[:4])
            _call_or_reject(core, gm, op, lambda: function(dst, *operands, mask, repeat, params))


@SETTINGS
@given(chip=st.sampled_from(["A2", "310P"]), dtype=st.sampled_from(DTYPES), addr=st.sampled_from([0, 16, 1024]),
       count=st.integers(-1, 1 << 33), offset=st.integers(-8, 80),
       params=st.tuples(st.integers(-1, 5000), st.integers(-1, 70000), st.integers(-1, 70000), st.integers(-1, 9)),
       pad=st.tuples(st.booleans(), st.integers(-1, 40), st.integers(0, 40), st.integers(1, 200)),
       which=st.sampled_from(["count_in", "count_out", "params_in", "pad_in", "pad_out"]))
def test_data_movement_rejects_cleanly(chip, dtype, addr, count, offset, params, pad, which):
    gm = np.arange(64, dtype=dtype.np_dtype)
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(4096))
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, addr, 1024 // dtype.itemsize)
        g = asc.GlobalTensor()
        g.set_global_buffer(gm)
        view = g[offset:]
        if which == "count_in":
            _call_or_reject(core, gm, "data_copy", lambda: asc.data_copy(ub, view, count))
        elif which == "count_out":
            _call_or_reject(core, gm, "data_copy", lambda: asc.data_copy(view, ub, count))
        elif which == "params_in":
            _call_or_reject(core, gm, "data_copy", lambda: asc.data_copy(ub, view, asc.DataCopyParams(*params)))
        else:
            is_pad, left, right, length = pad
            ext = asc.DataCopyExtParams(params[0] % 8, length, params[3], params[3])
            if which == "pad_in":
                _call_or_reject(core, gm, "data_copy_pad", lambda: asc.data_copy_pad(
                    ub, view, ext, asc.DataCopyPadExtParams(dtype, is_pad, left, right, 1)))
            else:
                _call_or_reject(core, gm, "data_copy_pad", lambda: asc.data_copy_pad(view, ub, ext))
