"""Core(tolerance="hardware"): what the device tolerates and the documents forbid runs, with a warning.

Two tolerances pyasc's test_vadd_bits needs (docs/semantics.md §10.7), each checked here on
its own, under both policies:

* a bitwise mask for 32-bit data whose high word is set (``[2**64-1, 2**64-1]``): the device
  selects 32-bit lanes with the low word alone (:class:`MaskHighWordWarning`);
* a 16-bit instruction whose full 128-lane row runs past a 64-element LocalTensor, into the
  buffers that follow it in UB (:class:`UbPastTensorEndWarning`), including the partial
  overlap of a source's overrun with the destination.

Expected values are integer sums worked out here from the bytes written (int32 / int16
wrap-around), never read back from the code under test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.masking import mask_arg_words
from npusim.engine import caches
from npusim.errors import (
    HardwareToleranceWarning,
    MaskHighWordWarning,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    UbPastTensorEndWarning,
)

from .conftest import assert_rejected

FULL = 2**64 - 1
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
B = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
RNG = np.random.default_rng(13)


def wrapped_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two's-complement a + b in the arrays' width, from Python ints."""
    bits = 8 * a.dtype.itemsize
    total = [(int(x) + int(y)) & ((1 << bits) - 1) for x, y in zip(a, b, strict=True)]
    return np.array(total, dtype=f"u{a.dtype.itemsize}").view(a.dtype)


def int32_operands(core: asc.Core):
    x, y = RNG.integers(-2**31, 2**31, 64).astype(np.int32), RNG.integers(-2**31, 2**31, 64).astype(np.int32)
    core.ub_write(0x0, x.tobytes())
    core.ub_write(0x100, y.tobytes())
    core.ub_write(0x200, bytes(256))
    z_t = asc.LocalTensor(asc.int32, VECOUT, 0x200, 64)
    return x, y, z_t, asc.LocalTensor(asc.int32, VECIN, 0x0, 64), asc.LocalTensor(asc.int32, VECIN, 0x100, 64)


def test_a_32_bit_mask_high_word_is_ignored_with_a_warning_under_hardware():
    with asc.Core("A2", tolerance="hardware") as core:
        x, y, z, a, b = int32_operands(core)
        with pytest.warns(MaskHighWordWarning, match=r"add: mask\[1\] = 0xffffffffffffffff: .*policy 'hardware'"):
            asc.add(z, a, b, [FULL, FULL], 1, B)
        assert core.ub_read(0x200, 256) == wrapped_sum(x, y).tobytes()


def test_a_32_bit_mask_high_word_is_still_an_error_under_strict():
    with asc.Core("A2") as core:
        _x, _y, z, a, b = int32_operands(core)
        assert_rejected(core, ParameterRangeError, lambda: asc.add(z, a, b, [FULL, FULL], 1, B),
                        "high mask word must be 0", instruction="add", operand="mask[1]")


def test_the_64_bit_high_word_stays_strict_under_hardware():
    # no A2 vector instruction takes 64-bit data: the rule itself, where every mask argument goes through
    with pytest.raises(ParameterRangeError, match=r"mask\[1\]"):
        mask_arg_words("add", [0xFFFFFFFF, 1], 8, False, False, "hardware")


def int16_tiles(core: asc.Core):
    """x, y, z: 64 x int16 each, back to back at 0x0, 0x80, 0x100, as TPipe lays out three 128-byte buffers."""
    x, y = (RNG.integers(-2**15, 2**15, 64).astype(np.int16) for _ in range(2))
    past_z = np.full(64, 7, dtype=np.int16)  # the 128 bytes after z, never part of any tensor
    core.ub_write(0x0, x.tobytes() + y.tobytes())
    core.ub_write(0x100, bytes(128) + past_z.tobytes())
    tiles = [asc.LocalTensor(asc.int16, VECOUT if i == 2 else VECIN, 0x80 * i, 64) for i in range(3)]
    return x, y, tiles


def test_16_bit_rows_past_the_tensor_run_on_the_bytes_that_follow_under_hardware():
    with asc.Core("A2", tolerance="hardware") as core:
        x, y, (xt, yt, zt) = int16_tiles(core)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            asc.add(zt, xt, yt, [FULL, FULL], 1, B)
        assert {w.category for w in caught} == {UbPastTensorEndWarning}
        assert issubclass(UbPastTensorEndWarning, HardwareToleranceWarning)
        assert {str(w.message).split(" = ")[0] for w in caught} == {
            "add: dst byte range", "add: src0 byte range", "add: src1 byte range", "add: src1 / dst"}
        # lanes 0-63: z = x + y; lanes 64-127 read y (past x) and z's bytes before the call (past y, all 0)
        assert core.ub_read(0x100, 128) == wrapped_sum(x, y).tobytes()
        assert core.ub_read(0x180, 128) == y.tobytes()


def test_16_bit_rows_past_the_tensor_are_still_an_error_under_strict():
    with asc.Core("A2") as core:
        _x, _y, (xt, yt, zt) = int16_tiles(core)
        assert_rejected(core, OutOfBoundsError, lambda: asc.add(zt, xt, yt, [FULL, FULL], 1, B),
                        "outside the tensor's extent", instruction="add")


def test_a_partial_overlap_inside_both_tensors_stays_an_error_under_hardware():
    with asc.Core("A2", tolerance="hardware") as core:
        core.ub_write(0x0, bytes(0x300))
        dst = asc.LocalTensor(asc.int16, VECOUT, 0x40, 128)
        src = asc.LocalTensor(asc.int16, VECIN, 0x0, 128)
        other = asc.LocalTensor(asc.int16, VECIN, 0x200, 128)
        assert_rejected(core, OverlapError, lambda: asc.add(dst, src, other, [FULL, FULL], 1, B),
                        "partially overlap within one repeat")


def test_past_ub_itself_stays_an_error_under_hardware():
    with asc.Core("A2", tolerance="hardware") as core:
        top = core.chip.ub_bytes - 0x80
        core.ub_write(top - 0x100, bytes(0x180))
        z = asc.LocalTensor(asc.int16, VECOUT, top, 64)
        a = asc.LocalTensor(asc.int16, VECIN, top - 0x100, 64)
        b = asc.LocalTensor(asc.int16, VECIN, top - 0x80, 64)
        assert_rejected(core, OutOfBoundsError, lambda: asc.add(z, a, b, [FULL, FULL], 1, B), "outside UB",
                        operand="dst byte address")


@pytest.mark.parametrize(("value", "error"), [("lenient", ParameterRangeError), (True, TypeError)])
def test_an_unknown_tolerance_is_rejected(value, error):
    with pytest.raises(error, match="tolerance"):
        asc.Core("A2", tolerance=value)


def test_a_plan_made_under_hardware_is_not_reused_by_a_strict_core():
    for tolerance, expect in (("hardware", None), ("strict", ParameterRangeError), ("hardware", None)):
        with asc.Core("A2", tolerance=tolerance) as core:
            _x, _y, z, a, b = int32_operands(core)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MaskHighWordWarning)
                if expect is None:
                    asc.add(z, a, b, [FULL, FULL], 1, B)
                else:
                    with pytest.raises(expect):
                        asc.add(z, a, b, [FULL, FULL], 1, B)


def test_every_core_is_told_what_is_tolerated_not_only_the_first():
    """The second core finds the first one's plan and invocation (a launch's blocks, the next launch):
    the warnings its compilation gave are given again there."""
    caches.clear_all()  # the first core compiles
    told = []
    for _ in range(2):
        with asc.Core("A2", tolerance="hardware") as core:
            _x, _y, (xt, yt, zt) = int16_tiles(core)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                asc.add(zt, xt, yt, [FULL, FULL], 1, B)
            told.append(sorted(str(w.message) for w in caught))
    assert told[0] == told[1] and len({message.split(" = ")[0] for message in told[0]}) == 4
def test_a_cross_repeat_dependency_past_both_tensors_warns_under_hardware():
    """pyasc test_copy (1,) float32: 4 repeats of 64 elements over two adjacent 32-byte tiles; repeat 1
    reads bytes repeat 0 wrote, all of them past both tensors.  Inside both tensors it stays an error."""
    data = RNG.integers(0, 256, 2048, dtype=np.uint8).tobytes()
    for policy in ("hardware", "strict"):
        with asc.Core("A2", tolerance=policy) as core:
            core.ub_write(0, data)
            wide = asc.LocalTensor(asc.float32, VECIN, 0x0, 256), asc.LocalTensor(asc.float32, VECOUT, 0x20, 256)
            assert_rejected(core, OverlapError, lambda: asc.copy(wide[1], wide[0], 64, 4,  # noqa: B023
                                                                 asc.CopyRepeatParams(1, 1, 8, 8)),
                            "repeat 1 reads a byte that repeat 0 writes")
    with asc.Core("A2", tolerance="hardware") as core:
        core.ub_write(0, data)
        x, z = asc.LocalTensor(asc.float32, VECIN, 0x0, 8), asc.LocalTensor(asc.float32, VECOUT, 0x20, 8)
        with pytest.warns(UbPastTensorEndWarning, match="repeat 1 reads a byte"):
            asc.copy(z, x, 64, 4, asc.CopyRepeatParams(1, 1, 8, 8))
        out = core.ub_read(0, 2048)
    want = bytearray(data)
    for r in range(4):  # every source read before any write
        want[0x20 + r * 256: 0x20 + r * 256 + 256] = data[r * 256: r * 256 + 256]
    assert out == bytes(want)


def test_select_mode_0_loads_16_cmpmask_bytes_past_a_shorter_sel_tensor_under_hardware():
    """Select mode 0 loads the first 16 bytes of selMask into CMPMASK whatever the tensor's extent
    (Select.md: the tensor forms load CMPMASK first); an 8-byte selMask tensor: bytes 8-15 lie past it.
    Bit 1 takes src0, bit 0 src1: lanes 0-63 by the tensor's bytes (0: src1), 64-127 by the bytes after it
    (1: src0, so a model that read nothing past the tensor would give src1 there)."""
    a = np.arange(128, dtype=np.float16)
    b = -np.arange(128, dtype=np.float16)
    for policy in ("hardware", "strict"):
        with asc.Core("A2", tolerance=policy) as core:
            core.ub_write(0x400, a.tobytes() + bytes(0x400 - a.nbytes) + b.tobytes())
            core.ub_write(0x1000, bytes([0x00] * 8 + [0xFF] * 8))
            dst, src0, src1 = (asc.LocalTensor(asc.float16, VECIN, base, 128) for base in (0x0, 0x400, 0x800))
            sel = asc.LocalTensor(asc.uint8, VECIN, 0x1000, 8)
            call = lambda: asc.select(dst, sel, src0, src1, asc.SELMODE.VSEL_CMPMASK_SPR, 128, 1,  # noqa: E731, B023
                                      asc.BinaryRepeatParams())
            if policy == "strict":
                assert_rejected(core, OutOfBoundsError, call, "outside the tensor's extent", instruction="select")
                continue
            with pytest.warns(UbPastTensorEndWarning, match="sel_mask"):
                call()
            assert core.ub_read(0x0, 256) == np.concatenate([b[:64], a[64:]]).tobytes()
