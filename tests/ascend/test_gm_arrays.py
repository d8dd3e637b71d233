"""The caller's arrays as global memory: byte order, strided views, aliasing, failed launches, torch.

What the kernel sees and what lands back in the caller's array must not depend on how the
array is stored: a big-endian array, a strided view and a contiguous array holding the same
values give the same results, also when arguments share memory and when a launch fails.
Expected bytes are built with :mod:`struct` from the values, not read back from npusim.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, ParameterRangeError, UnsupportedError

F32 = asc.float32
VECIN = asc.TPosition.VECIN


def floats(values, order: str = "<") -> bytes:
    return struct.pack(f"{order}{len(values)}f", *values)


@asc.jit
def add_one_twice(a: asc.GlobalAddress, na: int, b: asc.GlobalAddress, nb: int):
    """a += 1 (all ``na`` elements), then b += 1: through GM, so b sees a's writes where they alias."""
    for address, n in ((a, na), (b, nb)):
        g = asc.GlobalTensor()
        g.set_global_buffer(address, n)
        ub = asc.LocalTensor(F32, VECIN, 0, n)
        asc.data_copy(ub, g, n)
        asc.adds(ub, ub, 1.0, n)
        asc.data_copy(g, ub, n)


@asc.jit
def add_one_per_block(x: asc.GlobalAddress, n: int, failing_block: int):
    """Block i adds 1 to elements [8i, 8i + 8); block ``failing_block`` then overruns its slice."""
    idx = asc.get_block_idx()
    g = asc.GlobalTensor()
    g.set_global_buffer(x + 8 * idx, 8)
    ub = asc.LocalTensor(F32, VECIN, 0, 16)
    asc.data_copy(ub, g, 8)
    asc.adds(ub, ub, 1.0, 8)
    asc.data_copy(g, ub, 8)
    if idx == failing_block:
        asc.data_copy(g, ub, 16)  # 16 elements into a GlobalTensor of 8: OutOfBoundsError


# ------------------------------------------------------------------ byte order
def test_big_endian_array_reads_as_its_values_in_a_global_tensor():
    array = np.arange(4, dtype=">f4")
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    assert struct.pack("<f", g.get_value(1)) == floats([1.0])  # was 4.6e-41: the bytes read little-endian
    assert g.address.read().tobytes() == floats([0.0, 1.0, 2.0, 3.0])
    g.set_value(2, 7.5)
    assert array.tobytes() == floats([0.0, 1.0, 7.5, 3.0], ">")  # written back in the array's byte order


def test_big_endian_arrays_in_a_launch_give_the_results_of_little_endian_ones():
    values = [float(i) for i in range(16)]
    big, little = np.array(values, dtype=">f4"), np.array(values, dtype="<f4")
    add_one_twice.launch(1, (big, 16, big[8:], 8), chip="A2")
    add_one_twice.launch(1, (little, 16, little[8:], 8), chip="A2")
    expected = [v + 1 for v in values[:8]] + [v + 2 for v in values[8:]]
    assert little.tobytes() == floats(expected)
    assert big.tobytes() == floats(expected, ">")


def test_big_endian_host_writes_of_local_tensors_and_ub_store_values():
    with asc.Core("A2") as core:
        t = asc.LocalTensor(F32, VECIN, 0, 8)
        t.write(np.array([1.5, -2.0], dtype=">f4"))
        assert core.ub_read(0, 8) == floats([1.5, -2.0])
        core.ub_write(32, np.array([3.25], dtype=">f4"))  # raw bytes: the elements' little-endian encoding
        assert core.ub_read(32, 4) == floats([3.25])
        t.set_value(1, np.array([4.0], dtype=">f4")[0])
        assert core.ub_read(4, 4) == floats([4.0])


def test_byte_swapping_keeps_nan_payloads():
    bits = np.array([0x7F800001, 0xFFC00123], dtype=">u4")  # a signalling NaN and a negative quiet NaN
    array = bits.view(">f4").copy()
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    assert g.address.read().view("<u4").tolist() == [0x7F800001, 0xFFC00123]
    g.set_value(0, g.get_value(1))
    assert array.view(">u4").tolist() == [0xFFC00123, 0xFFC00123]


# --------------------------------------------------- strided views and aliasing
def test_the_same_strided_view_passed_twice_is_one_memory():
    """``k[1](y, y)``: the second argument sees the first one's writes, as with a contiguous ``y``."""
    base = np.arange(32, dtype=np.float32)
    strided = base[::2]
    contiguous = np.arange(0, 32, 2, dtype=np.float32)
    add_one_twice[1](strided, 16, strided, 16)
    add_one_twice[1](contiguous, 16, contiguous, 16)
    assert contiguous.tobytes() == floats([v + 2.0 for v in range(0, 32, 2)])
    assert strided.tobytes() == contiguous.tobytes()
    assert base[1::2].tobytes() == floats([float(v) for v in range(1, 32, 2)])  # the gaps are untouched


def test_an_array_and_a_strided_view_of_it_are_one_memory():
    """``k[1](base, base[::2])``: writes through either argument land in the same bytes."""
    base = np.arange(16, dtype=np.float32)
    add_one_twice[1](base, 16, base[::2], 8)
    assert base.tobytes() == floats([v + (2.0 if v % 2 == 0 else 1.0) for v in range(16)])


def test_a_strided_view_then_the_array_is_one_memory():
    base = np.arange(16, dtype=np.float32)
    add_one_twice[1](base[::2], 8, base, 16)
    assert base.tobytes() == floats([v + (2.0 if v % 2 == 0 else 1.0) for v in range(16)])


def test_two_overlapping_strided_views_are_one_memory():
    base = np.arange(32, dtype=np.float32).reshape(4, 8)
    columns = base[:, :4]  # rows of 4, 8 apart
    add_one_twice[1](columns, 16, base[1:3, :4], 8)
    expected = np.arange(32, dtype=np.float64).reshape(4, 8)
    expected[:, :4] += 1
    expected[1:3, :4] += 1
    assert base.tobytes() == floats(expected.reshape(-1).tolist())


@pytest.mark.parametrize("layout", ["contiguous", "strided", "big-endian"])
def test_a_failed_launch_keeps_what_the_finished_blocks_wrote(layout):
    """docs/errors.md: when block k is rejected, GM holds what blocks 0 .. k-1 wrote, whatever the array."""
    values = [float(i) for i in range(32)]
    if layout == "contiguous":
        array = np.array(values, dtype=np.float32)
        view = array
    elif layout == "strided":
        array = np.zeros(64, dtype=np.float32)
        array[::2] = values
        view = array[::2]
    else:
        array = np.array(values, dtype=">f4")
        view = array
    with pytest.raises(OutOfBoundsError, match="8 elements given to set_global_buffer"):
        add_one_per_block[4](view, 32, 2)
    order = ">" if layout == "big-endian" else "<"
    # blocks 0 and 1 finished; block 2 wrote its slice before it overran; block 3 never ran
    expected = [v + 1 for v in values[:24]] + values[24:]
    assert np.ascontiguousarray(view).tobytes() == floats(expected, order)


# ------------------------------------------------------------------------ torch
TORCH_REASON = ("torch is the optional [torch] extra and CI does not install it (a wheel of hundreds of MB); "
                "`pip install torch` runs these checks of torch tensors as GM arguments")


def test_torch_float8_and_strided_tensors_are_gm_arguments():
    torch = pytest.importorskip("torch", reason=TORCH_REASON)

    @asc.jit
    def store_one_and_a_half(x: asc.GlobalAddress, seen: list):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        seen.append(bytes(g.address.read().view(np.uint8)))
        g.set_value(0, 1.5)

    bits = list(range(0, 256, 8))  # 32 float8 bit patterns, NaNs and subnormals among them
    for name, one_and_a_half in (("float8_e4m3fn", 0x3C), ("float8_e5m2", 0x3E)):  # 1.5 = 1.1b x 2^0
        x = torch.tensor(bits, dtype=torch.uint8).view(getattr(torch, name))  # was torch's TypeError
        seen: list = []
        store_one_and_a_half[1](x, seen)
        assert seen == [bytes(bits)]
        assert x.view(torch.uint8).tolist() == [one_and_a_half, *bits[1:]]

    @asc.jit
    def copy_through_ub(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
        gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x, n)
        gy.set_global_buffer(y, n)
        ub = asc.LocalTensor(F32, VECIN, 0, n)
        asc.data_copy(ub, gx, n)
        asc.data_copy(gy, ub, n)

    strided = torch.zeros(64, dtype=torch.float32)[::2]
    copy_through_ub[1](torch.arange(32, dtype=torch.float32), strided, 32)
    assert strided.numpy().tobytes() == floats([float(i) for i in range(32)])


def test_torch_tensors_npusim_cannot_hold_are_unsupported_errors_naming_the_argument():
    torch = pytest.importorskip("torch", reason=TORCH_REASON)
    complex_values = torch.zeros(8, dtype=torch.complex64)
    cases = [
        (complex_values.conj(), "conjugate bit"),  # a lazily conjugated view: was torch's RuntimeError
        (torch.zeros(8, dtype=torch.complex128), "dtype"),  # npusim has complex64 and complex32 only
        (complex_values.conj().imag, "negative bit"),  # float32 with the negative bit: was a RuntimeError
        (torch.zeros(8, dtype=torch.float8_e5m2fnuz), "dtype"),  # was torch's TypeError
        (torch.zeros(8).to_sparse(), "layout"),  # was torch's TypeError
    ]
    for tensor, operand in cases:
        g = asc.GlobalTensor()
        with pytest.raises(UnsupportedError) as err:
            g.set_global_buffer(tensor)
        assert err.value.operand == f"set_global_buffer buffer {operand}"
    g = asc.GlobalTensor()  # a plain complex64 tensor is GM memory of complex64 elements (docs/semantics.md §5.29)
    g.set_global_buffer(torch.tensor([1 + 2j, -3j], dtype=torch.complex64))
    assert g.dtype is asc.complex64


def test_host_write_of_gm_converts_as_local_tensor_write():
    """GlobalAddress.write: floats rounded once to nearest even, integers in range, nothing written on a rejection;
    the bytes are those LocalTensor.write stores for the same values."""
    half = asc.gm_alloc(asc.float16, 4)
    half.write([1.0, 2049.0, -0.0])  # 2049 is a tie between 2048 and 2050: even mantissa, 2048
    assert half.read(3).view(np.uint16).tolist() == [0x3C00, 0x6800, 0x8000]
    codes = np.zeros(4, np.int8)
    g = asc.GlobalTensor()
    g.set_global_buffer(codes)
    address = g.address
    (address + 1).write([-128, 127])
    assert codes.tolist() == [0, -128, 127, 0]
    with pytest.raises(ParameterRangeError):
        address.write([1, 300])
    with pytest.raises(OutOfBoundsError):
        (address + 3).write([1, 2])
    assert codes.tolist() == [0, -128, 127, 0]
    with asc.Core("A2") as core:
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)
        t.write([1.0, 2049.0, -0.0])
        assert core.ub_read(0, 6) == half.read(3).tobytes()
