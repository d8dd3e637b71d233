"""Regression tests for the bugs the fuzz suite found, one named test each.

Each was an exception the contract forbids (a bare ValueError, OverflowError, MemoryError,
or a TypeError raised by Python rather than by a parameter check), or garbage accepted.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from npusim import ascend as asc
from npusim import cli
from npusim import sophgo as tpu
from npusim.errors import ParameterRangeError, UnsupportedError

from .harness import raised_by_npusim

VECIN = asc.TPosition.VECIN


def npusim_type_error(call) -> TypeError:
    """``call()`` raises a TypeError from one of npusim's own parameter checks."""
    with pytest.raises(TypeError) as caught:
        call()
    assert raised_by_npusim(caught.value), caught.value
    return caught.value


# ------------------------------------------------------------------------ Ascend
def test_core_strict_block_idx_and_block_num_are_checked():
    npusim_type_error(lambda: asc.Core("A2", strict=np.array([1, 2])))  # was: ambiguous truth value
    with pytest.raises(ParameterRangeError, match="block_idx"):
        asc.Core("A2", block_idx=4, block_num=4)
    npusim_type_error(lambda: asc.Core("A2", block_num="4"))


def test_huge_integer_scalar_rounds_to_infinity_instead_of_overflowing():
    with asc.Core("A2"):
        dst = asc.LocalTensor(asc.float16, VECIN, 0, 16)
        asc.duplicate(dst, 10**400, 16)  # was: OverflowError: int too large to convert to float
        assert np.all(np.isposinf(dst.read()))
        asc.duplicate(dst, -(10**400), 16)
        assert np.all(np.isneginf(dst.read()))


@pytest.mark.parametrize("chip", ["A2", "950"])  # A2 ignores a compare's mask but still checks it; 950 uses it
def test_a_0d_array_is_not_a_bitwise_mask(chip):
    """Found by a random-seed fuzz run: ``list(np.array(5))`` raised Python's "iteration over a 0-d array"."""
    with asc.Core(chip) as core:
        half = [asc.LocalTensor(asc.float16, VECIN, 256 * i, 128) for i in (1, 2, 3)]
        bits = asc.LocalTensor(asc.uint8, VECIN, 0, 32)
        for tensor in (*half, bits):
            tensor.write(np.zeros(tensor.tile_size, tensor.dtype.np_dtype))
        before = core.ub.snapshot(), core.register_state()
        for call in (lambda: asc.compare(bits, half[0], half[1], asc.CMPMODE.LT, np.array(5), 1,
                                         asc.BinaryRepeatParams()),
                     lambda: asc.select(half[2], bits, half[0], half[1], asc.SelMode.VSEL_TENSOR_TENSOR_MODE,
                                        np.array(5), 1, asc.BinaryRepeatParams())):
            err = npusim_type_error(call)
            assert "mask" in str(err) and "0-d array" in str(err)
        assert (core.ub.snapshot(), core.register_state()) == before


def test_a_0d_array_is_not_an_address_list():
    with asc.Core("A2"):
        err = npusim_type_error(lambda: asc.asc_transto5hd_b16(np.array(0), np.array(512), 1, 0, 0))
        assert "address list" in str(err)  # was: "iteration over a 0-d array"


def test_set_pad_value_with_an_unhashable_position_is_a_type_error():
    with asc.Core("A2"):
        npusim_type_error(lambda: asc.set_pad_value(1.0, [1, 2]))  # was: unhashable type: 'list'


def test_global_address_arithmetic_with_a_non_integer_names_the_offset():
    address = asc.gm_alloc(asc.float32, 8)
    err = npusim_type_error(lambda: address + None)  # was: Python's "unsupported operand type(s)"
    assert "offset" in str(err)
    npusim_type_error(lambda: address - 1.5)


def test_gm_alloc_checks_its_policy_and_caps_its_size():
    with pytest.raises(ParameterRangeError, match="uninit"):
        asc.gm_alloc(asc.float32, 8, uninit="loud")  # was: accepted, then never reported anything
    with pytest.raises(ParameterRangeError, match="4 GiB"):
        asc.gm_alloc(asc.float64, 1 << 40)  # was: MemoryError


def test_tbuf_get_of_zero_elements_is_rejected_not_the_whole_ub():
    with asc.Core("A2"):
        pipe, buf = asc.TPipe(), asc.TBuf()
        pipe.init_buffer(buf, 64)
        with pytest.raises(ParameterRangeError, match="size"):
            buf.get(asc.float16, 0)  # was: a tensor of 98304 elements, over all of UB
        with pytest.raises(ParameterRangeError, match="size"):
            buf.get_with_offset(0, 32, asc.float16)
        assert buf.get(asc.float16).get_size() == 32


def test_launch_checks_strict():
    @asc.jit
    def kernel():
        pass

    npusim_type_error(lambda: kernel.launch(1, (), strict=np.array([1, 2])))  # was: ambiguous truth value


# ------------------------------------------------------------------------ Sophgo
def test_sophgo_core_checks_its_policy():
    with pytest.raises(ParameterRangeError, match="uninit"):
        tpu.Core("CV184X", uninit="loud")  # was: bare ValueError
    npusim_type_error(lambda: tpu.Core("CV184X", uninit=3))


def test_both_vendors_take_strict_and_uninit_alike():
    """design.md §3 / issue 6: ``Core(..., strict=True)`` is strict mode on either vendor; ``uninit`` picks
    any policy; asking for both strict and another policy is rejected."""
    assert tpu.Core("CV184X", strict=True).lmem.uninit == "raise"
    assert tpu.Core("CV184X", uninit="ignore").lmem.uninit == "ignore"
    assert asc.Core("A2", uninit="ignore").ub.uninit == "ignore"
    assert asc.Core("A2", strict=True).ub.uninit == "raise"
    for make in (lambda: tpu.Core("CV184X", strict=True, uninit="warn"),
                 lambda: asc.Core("A2", strict=True, uninit="ignore")):
        with pytest.raises(ParameterRangeError, match="strict=True already means uninit='raise'"):
            make()


def test_write_local_rejects_values_and_shapes_with_constraint_errors():
    with tpu.Core("CV184X") as core:
        with pytest.raises(ParameterRangeError, match="do not fit"):
            core.write_local(0, np.full((1, 1, 1, 4), 300), tpu.DT_INT8)  # was: bare ValueError
        with pytest.raises(ParameterRangeError, match="array shape"):
            core.write_local(0, np.ones((2, 2, 2)), tpu.DT_FP32)  # was: bare ValueError
        with pytest.raises(ParameterRangeError, match="shape"):
            core.write_local(0, np.ones((1, 0, 1, 1)), tpu.DT_FP32)
        with pytest.raises(ParameterRangeError, match="at least 1"):
            core.read_local(0, (1, 0, 1, 1), tpu.DT_FP32)  # was: bare ValueError


def test_local_byte_access_checks_types_and_numpy_integers():
    with tpu.Core("CV184X") as core:
        npusim_type_error(lambda: core.write_local_bytes(0, 0, None))  # was: cannot convert 'NoneType' to bytes
        npusim_type_error(lambda: core.write_local_bytes(0, 0, 5))  # was: accepted, wrote 5 zero bytes
        npusim_type_error(lambda: core.local_bytes(None, 0, 4))  # was: '<=' not supported
        core.write_local_bytes(np.uint8(7), np.uint16(0), b"\x01\x02")  # was: OverflowError (uint8 * 65536)
        assert core.local_bytes(np.uint8(7), 0, 2) == b"\x01\x02"


def test_scalar_t_float_view_of_a_huge_integer_is_infinity():
    assert tpu.scalar_t(f32=10**400).u32 == 0x7F800000  # was: OverflowError: int too large to convert to float
    assert tpu.scalar_t(f16=-(10**400)).u16 == 0xFC00


def test_unknown_layout_is_a_constraint_error():
    with tpu.Core("CV184X") as core:
        with pytest.raises(UnsupportedError, match="layout"):
            core.read_local(0, (1, 1, 1, 1), tpu.DT_FP32, "free")  # was: bare ValueError
        npusim_type_error(lambda: core.read_local(0, (1, 1, 1, 1), tpu.DT_FP32, ["aligned"]))  # was: unhashable
        npusim_type_error(lambda: core.read_local(0, (1, 1, 1, 1), tpu.DT_FP32, np.array([1, 2])))  # was: ambiguous


def test_host_access_stride_beyond_a_c_int_is_a_range_error_even_on_a_size_1_axis():
    """A stride on an axis of size 1 moves nothing, so the bounds check passed it; the index then overflowed."""
    huge = tpu.dim4(np.uint64(2**64 - 1), 0, 0, 1)
    values = np.zeros((1, 2, 3, 4), np.float16)
    with tpu.Core("BM1684X") as core:
        before = core.gmem.snapshot(), core.lmem.snapshot()
        with pytest.raises(ParameterRangeError, match=r"write_global: stride\.n = 18446744073709551615: .*"
                                                      r"\[0, 2147483647\]"):
            core.write_global(0, values, tpu.DT_FP16, stride=huge)  # was: OverflowError
        with pytest.raises(ParameterRangeError, match=r"stride\.n"):
            core.read_global(0, (1, 2, 3, 4), tpu.DT_FP16, stride=huge)
        with pytest.raises(ParameterRangeError, match=r"write_local: stride\.n"):
            core.write_local(0, values, tpu.DT_FP16, huge)
        with pytest.raises(ParameterRangeError, match=r"stride\.w = -1"):
            core.read_local(0, (1, 2, 3, 4), tpu.DT_FP16, tpu.dim4(12, 12, 4, -1))
        assert (core.gmem.snapshot(), core.lmem.snapshot()) == before


def test_util_functions_check_their_arguments():
    with tpu.Core("CV184X"):
        npusim_type_error(lambda: tpu.tpu_npu_index(None))  # was: unsupported operand type(s) for divmod
        with pytest.raises(ParameterRangeError):
            tpu.tpu_npu_index(-1)  # was: lane -1
        npusim_type_error(lambda: tpu.tpu_aligned_stride(0, (1, 2, 3, 4), tpu.DT_FP32))  # was: AttributeError
        with pytest.raises(ParameterRangeError):
            tpu.tpu_channle_num_per_npu(-3, 4)  # was: a negative slot count
        with pytest.raises(UnsupportedError):
            tpu.tpu_eu_num(99)


# ------------------------------------------------------------------- command line
def run_cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(list(argv))
    assert "Traceback" not in err.getvalue()
    return status, err.getvalue()


@pytest.mark.parametrize(("content", "fragment"), [
    (b"\xff\xfe bad utf-8", "not valid JSON"),  # was: UnicodeDecodeError
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),  # was: RecursionError
    (b'{"instruction": ["add"]}', "unknown instruction"),  # was: unhashable type: 'list'
    (b'{"instruction": "add", "tensors": {"dst": {"dtype": "float16", "size": 16, "init": {"hex": 5}}}}',
     "does not describe a valid call"),  # was: TypeError from bytes.fromhex
])
def test_golden_malformed_case_files_exit_2_with_a_message(tmp_path, content, fragment):
    case = tmp_path / "case.json"
    case.write_bytes(content)
    status, message = run_cli("golden", str(case), "-o", str(tmp_path / "out"))
    assert status == 2 and fragment in message


def test_golden_case_path_or_output_that_is_not_usable_exits_2(tmp_path):
    assert run_cli("golden", str(tmp_path), "-o", str(tmp_path / "out"))[0] == 2  # was: IsADirectoryError
    case = tmp_path / "case.json"
    case.write_text('{"instruction": "duplicate", "tensors": {"dst": {"dtype": "float16", "size": 16}}, '
                    '"args": {"scalar": 1, "count": 16}}')
    status, message = run_cli("golden", str(case), "-o", str(case))  # the output "directory" is a file
    assert status == 2 and "cannot write" in message  # was: FileExistsError / NotADirectoryError


def test_golden_instruction_type_error_is_a_malformed_case(tmp_path):
    case = tmp_path / "case.json"
    case.write_text('{"instruction": "select", "tensors": {"dst": {"dtype": "float32", "size": 64}}, '
                    '"args": {"count": 64}}')
    status, message = run_cli("golden", str(case), "-o", str(tmp_path / "out"))
    assert status == 2 and "no call form" in message  # was: TypeError traceback
