"""TransDataTo5HD: seed 002 examples, the NCHW -> NC1HWC0 recipe, a per-element model, bad input.

The reference model (``tests/ascend/reference_model.py``) follows ref §4.2-4.3 with plain
loops over repeats, blocks and elements; it shares no code with npusim.
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import (
    AlignmentError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
    WrongCoreError,
)

from . import reference_model as ref

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
P = asc.TransDataTo5HDParams
SEED = json.loads(resources.files("npusim.data").joinpath("seed_examples.json").read_text())["trans_data_to_5hd"]
UB_BYTES = {"A2": 192 * 1024, "950": 256 * 1024, "910": 256 * 1024, "310B": 248 * 1024, "KirinX90": 118 * 1024}
# seed 002 数据类型, restated independently of chips.py
DTYPES = {
    "A2": ["int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"],
    "950": ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"],
    "910": ["int8", "uint8", "int16", "uint16", "float16"],
    "310B": ["int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"],
    "KirinX90": ["int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"],
}


# seed 002 call forms per product: no address tensor on the 910 (dav_c100 TransDataTo5HDVldVaRegImpl)
FORMS = {chip: ["tensors", "addresses"] + ([] if chip == "910" else ["address_tensor"]) for chip in DTYPES}


# ------------------------------------------------------------------ the model
model = ref.trans_data_to_5hd  # ref §4.2-4.3, tests/ascend/reference_model.py


def call_form(form: str, core, dtype, dst_list, src_list, params, addr_tensor_at: int):
    """Run trans_data_to_5hd in one of the three call forms of seed 002."""
    if form == "tensors":
        asc.trans_data_to_5hd([asc.LocalTensor(dtype, VECOUT, a) for a in dst_list],
                              [asc.LocalTensor(dtype, VECIN, a) for a in src_list], params)
    elif form == "addresses":
        asc.trans_data_to_5hd(list(dst_list), list(src_list), params, dtype=dtype)
    else:
        dst_t = asc.LocalTensor(asc.uint64, VECIN, addr_tensor_at, 16)
        src_t = asc.LocalTensor(asc.uint64, VECIN, addr_tensor_at + 128, 16)
        dst_t.write(np.array(dst_list, dtype=np.uint64))
        src_t.write(np.array(src_list, dtype=np.uint64))
        asc.trans_data_to_5hd(dst_t, src_t, params, dtype=dtype)


# --------------------------------------------------------- seed 002 examples
@pytest.mark.parametrize("form", ["tensors", "addresses", "address_tensor"])
@pytest.mark.parametrize("case", SEED, ids=[c["dtype"] for c in SEED])
def test_seed002_examples_byte_exact(case, form):
    """int8 (high/high), half and int32: 16 consecutive blocks, repeat 1, strides 0; dst zero-filled."""
    dtype = getattr(asc, case["dtype"])
    src_bytes, expected = bytes.fromhex(case["src"]["hex"]), bytes.fromhex(case["dst"]["hex"])
    width = 32 // dtype.itemsize  # seed 002: dstLocal[width * i]
    with asc.Core("A2") as core:
        core.ub_write(0x0000, src_bytes)
        core.ub_write(0x1000, bytes(len(expected)))
        params = P(case["dst_high_half"], case["src_high_half"], case["repeat_times"], case["dst_rep_stride"],
                   case["src_rep_stride"])
        src = asc.LocalTensor(dtype, VECIN, 0x0000, len(src_bytes) // dtype.itemsize)
        dst = asc.LocalTensor(dtype, VECOUT, 0x1000, len(expected) // dtype.itemsize)
        if form == "tensors":
            asc.trans_data_to_5hd([dst[width * i:] for i in range(16)], [src[width * i:] for i in range(16)], params)
        else:
            dst_list = [dst[width * i:].get_phy_addr() for i in range(16)]
            src_list = [src[width * i:].get_phy_addr() for i in range(16)]
            call_form(form, core, dtype, dst_list, src_list, params, 0x2000)
        assert core.ub_read(0x1000, len(expected)) == expected


# ------------------------------------------------ NCHW -> NC1HWC0 (seed 002)
def golden_nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    n, c, h, w = x.shape
    return x.reshape(n, c // c0, c0, h, w).transpose(0, 1, 3, 4, 2)


def run_recipe(core, dtype, shape, src_addr: int, dst_addr: int, form: str = "addresses") -> None:
    """seed 002 '将NCHW格式转换成NC1HWC0格式' (b16/b32: C0 = 16; b8: C0 = 32, four half/half calls)."""
    n, c, h, w = shape
    size, hw = dtype.itemsize, h * w
    block = 32 // size
    if size > 1:  # srcList: plane starts; dstList: consecutive blocks; repeat HW/B, dstRep 16, srcRep 1
        params = P(False, False, hw // block, 16, 1)
        for group in range(n * c // 16):
            src_list = [src_addr + (group * 16 * hw + i * hw) * size for i in range(16)]
            dst_list = [dst_addr + (group * 16 * hw + i * block) * size for i in range(16)]
            call_form(form, core, dtype, dst_list, src_list, params, 0x2F000 - 0x100)
        return
    for group in range(n * c // 32):  # C0 = 32 channels per group; 32 positions per repeat
        for dst_high in (False, True):  # channels 16*dh + k go to byte 16*dh + k of a position's block
            for src_high in (False, True):  # positions 32r + 16*sh + e
                src_list = [src_addr + (group * 32 + 16 * dst_high + k) * hw for k in range(16)]
                dst_list = [dst_addr + group * 32 * hw + (16 * src_high + e) * 32 for e in range(16)]
                call_form(form, core, dtype, dst_list, src_list, P(dst_high, src_high, hw // 32, 32, 1), 0)


@pytest.mark.parametrize("form", ["tensors", "addresses", "address_tensor"])
def test_seed002_recipe_on_2x32x16x16_half(form):
    """The seed's own loop: N=2, C=32, H=W=16 half, repeat 16, dstRep 16, srcRep 1, 4 outer loops."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 32, 16, 16)).astype(np.float16)
    with asc.Core("A2") as core:
        core.ub_write(0x0000, x.tobytes())
        core.ub_write(0x8000, bytes(x.nbytes))
        if form == "tensors":
            src = asc.LocalTensor(asc.half, VECIN, 0x0000, x.size)
            dst = asc.LocalTensor(asc.half, VECOUT, 0x8000, x.size)
            params = P(False, False, 16, 16, 1)
            for loop in range(4):
                asc.trans_data_to_5hd([dst[loop * 16 * 256 + i * 16:] for i in range(16)],
                                      [src[loop * 16 * 256 + i * 256:] for i in range(16)], params)
        else:
            run_recipe(core, asc.half, x.shape, 0x0000, 0x8000, form)
        got = np.frombuffer(core.ub_read(0x8000, x.nbytes), np.float16)
    assert got.tobytes() == golden_nc1hwc0(x, 16).tobytes()


@pytest.mark.parametrize(("chip", "name"), [(chip, name) for chip in ("A2", "950") for name in DTYPES[chip]
                                            if chip == "A2" or name == "bfloat16"])
def test_recipe_on_random_data_for_every_dtype(chip, name):
    dtype = getattr(asc, name)
    size = dtype.itemsize
    shape = (2, 64, 16, 16) if size == 1 else (2, 32, 16, 16)
    rng = np.random.default_rng(size)
    raw = rng.integers(0, 256, int(np.prod(shape)) * size, dtype=np.uint8)
    x = raw.view(dtype.np_dtype).reshape(shape)
    with asc.Core(chip) as core:
        core.ub_write(0x0000, raw.tobytes())
        core.ub_write(0x10000, bytes(raw.size))
        run_recipe(core, dtype, shape, 0x0000, 0x10000)
        got = core.ub_read(0x10000, raw.size)
    assert got == golden_nc1hwc0(x, 32 if size == 1 else 16).tobytes()


# ------------------------------------------------------------ property test
@st.composite
def cases(draw):
    chip = draw(st.sampled_from(sorted(DTYPES)))
    name = draw(st.sampled_from(DTYPES[chip]))
    repeat = draw(st.sampled_from([0, 1, 2, 3, 16, 255]))
    cap = 40 if repeat <= 16 else 3
    src_stride, dst_stride = draw(st.integers(0, cap)), draw(st.integers(0, cap))
    src_blocks = draw(st.lists(st.integers(0, 47), min_size=16, max_size=16))
    # distinct, repeated (two list entries name one block: the later entry wins) or a few blocks only;
    # a dst stride below 16 (0 included) makes the repeats' destinations overlap (the later repeat wins)
    dst_blocks = draw(st.one_of(st.permutations(range(48)).map(lambda p: p[:16]),
                                st.lists(st.integers(0, 47), min_size=16, max_size=16),
                                st.lists(st.integers(0, 3), min_size=16, max_size=16)))
    halves = st.booleans() if getattr(asc, name).itemsize == 1 else st.just(False)  # 表3: int8/uint8 only
    return dict(chip=chip, name=name, repeat=repeat, src_stride=src_stride, dst_stride=dst_stride,
                src_blocks=src_blocks, dst_blocks=dst_blocks, dst_high=draw(halves), src_high=draw(halves),
                form=draw(st.sampled_from(FORMS[chip])),
                seed=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_matches_the_model(case):
    dtype = getattr(asc, case["name"])
    repeat, s_stride, d_stride = case["repeat"], case["src_stride"], case["dst_stride"]
    src_span = (48 + (s_stride if repeat == 1 else max(repeat - 1, 0) * s_stride)) * 32
    dst_base = (src_span + 1023) // 1024 * 1024
    dst_span = (48 + (d_stride if repeat == 1 else max(repeat - 1, 0) * d_stride)) * 32
    addr_tensor_at = dst_base + dst_span
    total = addr_tensor_at + 256
    assert total <= UB_BYTES[case["chip"]]
    src_list = [b * 32 for b in case["src_blocks"]]
    dst_list = [dst_base + b * 32 for b in case["dst_blocks"]]
    rng = np.random.default_rng(case["seed"])
    with asc.Core(case["chip"], trace=True) as core:
        core.ub_write(0, rng.integers(0, 256, addr_tensor_at, dtype=np.uint8).tobytes())
        before = core.ub_read(0, addr_tensor_at)
        params = P(case["dst_high"], case["src_high"], repeat, d_stride, s_stride)
        registers = core.register_state()
        call_form(case["form"], core, dtype, dst_list, src_list, params, addr_tensor_at)
        after = core.ub_read(0, addr_tensor_at)
        assert core.register_state() == registers
    assert after == model(before, dtype.itemsize, dst_list, src_list, repeat, d_stride, s_stride,
                          case["dst_high"], case["src_high"])
    reads, writes = model_touched(dtype.itemsize, dst_list, src_list, repeat, d_stride, s_stride, case["dst_high"],
                                  case["src_high"])
    if case["form"] == "address_tensor":  # both tables read; entries 0-3 of each rewritten (module docstring)
        reads |= set(range(addr_tensor_at, addr_tensor_at + 256))
        writes |= set(range(addr_tensor_at, addr_tensor_at + 32)) | set(range(addr_tensor_at + 128,
                                                                                addr_tensor_at + 160))
    (record,) = core.trace
    assert (byte_set(record.reads), byte_set(record.writes)) == (reads, writes)
    assert record.registers_read == record.registers_written == ()


def model_touched(size: int, dst_list, src_list, repeat: int, dst_stride: int, src_stride: int, dst_high: bool,
                  src_high: bool) -> tuple[set[int], set[int]]:
    """The UB bytes a call reads and writes (ref §4.2-4.3): whole blocks, or one half of each for 8-bit data."""
    reads, writes = set(), set()
    start_s, start_d, moved = (16 * src_high, 16 * dst_high, 16) if size == 1 else (0, 0, 32)
    for r in range(repeat):
        off_s = src_stride if repeat == 1 else r * src_stride
        off_d = dst_stride if repeat == 1 else r * dst_stride
        for i in range(16):
            reads |= set(range(src_list[i] + off_s * 32 + start_s, src_list[i] + off_s * 32 + start_s + moved))
            writes |= set(range(dst_list[i] + off_d * 32 + start_d, dst_list[i] + off_d * 32 + start_d + moved))
    return reads, writes


def byte_set(ranges) -> set[int]:
    assert all(r.space == "UB" for r in ranges)
    return {b for r in ranges for b in range(r.start, r.stop)}


def test_duplicate_and_overlapping_destinations_keep_the_last_write():
    """Two entries of dst_list on one block, and repeats whose destinations overlap (dst stride 1 < 16):
    writes land in issue order, repeat by repeat and, within one, entry by entry (ref §4.2)."""
    rng = np.random.default_rng(21)
    dst_list = [0x2000 + 32 * (k % 5) for k in range(16)]
    src_list = [0x100 * k for k in range(16)]
    for params in (P(False, False, 3, 1, 2), P(False, False, 4, 0, 1), P(False, False, 1, 0, 0)):
        with asc.Core("A2") as core:
            core.ub_write(0, rng.integers(0, 256, 0x3000, dtype=np.uint8).tobytes())
            before = core.ub_read(0, 0x3000)
            asc.trans_data_to_5hd(dst_list, src_list, params, dtype=asc.half)
            assert core.ub_read(0, 0x3000) == model(before, 2, dst_list, src_list, params.repeat_times,
                                                    params.dst_rep_stride, params.src_rep_stride, False, False)


def test_repeat_offset_quirk():
    """repeat_times == 1 already applies one stride; repeat_times == 2 starts at the lists (ref §4.3)."""
    src_data = np.arange(1024, dtype=np.uint16)
    for repeat, stride, first_block in ((1, 16, 16), (1, 0, 0), (2, 16, 0)):
        with asc.Core("A2") as core:
            core.ub_write(0, src_data.tobytes())
            core.ub_write(0x1000, bytes(2048))
            src_list = [32 * i for i in range(16)]
            dst_list = [0x1000 + 32 * i for i in range(16)]
            asc.trans_data_to_5hd(dst_list, src_list, P(False, False, repeat, stride, stride), dtype=asc.uint16)
            got = np.frombuffer(core.ub_read(0x1000 + first_block * 32, 512), np.uint16).reshape(16, 16)
            expected = src_data[first_block * 16 : first_block * 16 + 256].reshape(16, 16).T
            assert got.tobytes() == expected.tobytes()


def test_repeat_zero_is_a_no_op_after_checks():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(range(256)) * 8)
        before = core.ub.snapshot()
        asc.trans_data_to_5hd([0x400 + 32 * i for i in range(16)], [32 * i for i in range(16)],
                              P(True, True, 0, 5, 5), dtype=asc.int8)
        assert core.ub.snapshot() == before
        with pytest.raises(AlignmentError):
            asc.trans_data_to_5hd([0x401] * 16, [32 * i for i in range(16)], P(repeat_times=0), dtype=asc.int8)


def test_b8_leaves_the_other_half_untouched():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(range(256)) * 2)
        core.ub_write(0x400, bytes([0xEE]) * 512)
        asc.trans_data_to_5hd([0x400 + 32 * i for i in range(16)], [32 * i for i in range(16)],
                              P(False, True, 1, 0, 0), dtype=asc.uint8)
        out = core.ub_read(0x400, 512)
    for e in range(16):
        assert out[32 * e + 16 : 32 * e + 32] == bytes([0xEE]) * 16
        assert out[32 * e : 32 * e + 16] == bytes(((32 * k + 16 + e) % 256) for k in range(16))


def test_in_place_with_identical_lists():
    """Exactly the same bytes read and written in one repeat is allowed (ref §1.4): a 16x16 transpose."""
    x = np.arange(256, dtype=np.float16)
    with asc.Core("A2") as core:
        core.ub_write(0, x.tobytes())
        blocks = [32 * i for i in range(16)]
        asc.trans_data_to_5hd(blocks, blocks, P(), dtype=asc.half)
        assert core.ub_read(0, 512) == x.reshape(16, 16).T.tobytes()


def test_mask_and_mask_mode_play_no_part():
    x = np.arange(128, dtype=np.float32)
    with asc.Core("A2") as core:
        core.ub_write(0, x.tobytes())
        core.ub_write(0x400, bytes(512))
        asc.set_vector_mask(0, 1, dtype=asc.float32)
        asc.set_mask_count()
        asc.trans_data_to_5hd([0x400 + 32 * i for i in range(16)], [32 * i for i in range(16)], P(), dtype=asc.float32)
        got = np.frombuffer(core.ub_read(0x400, 512), np.float32)
    assert got.tobytes() == x.reshape(2, 8, 8).transpose(2, 0, 1).tobytes()  # D[2e+h][k] = S[8h+k][e]


# -------------------------------------------------------------------- C API
@pytest.mark.parametrize("chip", ["A2", "950"])
def test_c_api_examples_of_asc_transto5hd_md(chip):
    """asc_transto5hd.md example 1 (16x16 half) and example 2 (NCHW (2,32,16,16) -> NC1HWC0), on the page's
    products (A2/A3 and the 950, docs/semantics.md §5.31)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 32, 16, 16)).astype(np.float16)
    with asc.Core(chip) as core:
        core.ub_write(0, x.tobytes())
        core.ub_write(0x8000, bytes(x.nbytes))
        asc.asc_transto5hd_b16([0x8000 + 32 * i for i in range(16)], [32 * i for i in range(16)], 1, 0, 0)
        assert core.ub_read(0x8000, 512) == x.reshape(-1)[:256].reshape(16, 16).T.tobytes()
        for j in range(4):
            src_list = [2 * (4096 * j + i * 256) for i in range(16)]
            dst_list = [0x8000 + 2 * (4096 * j + i * 16) for i in range(16)]
            asc.asc_transto5hd_b16_sync(dst_list, src_list, 16, 16, 1)
        assert core.ub_read(0x8000, x.nbytes) == golden_nc1hwc0(x, 16).tobytes()
        assert [r.kind for r in core.sync_log] == ["pipe_barrier"] * 4


@pytest.mark.parametrize("chip", ["A3", "950"])
def test_c_api_b8_and_b32_match_the_model(chip):
    rng = np.random.default_rng(9)
    for bits, halves in ((8, (True, False)), (32, ())):
        with asc.Core(chip) as core:
            core.ub_write(0, rng.integers(0, 256, 0x4000, dtype=np.uint8).tobytes())
            before = core.ub_read(0, 0x4000)
            src = [asc.LocalTensor(asc.uint8, VECIN, 64 * i) for i in range(16)]  # tensors stand for addresses
            dst = [0x2000 + 32 * i for i in range(16)]
            getattr(asc, f"asc_transto5hd_b{bits}")(dst, src, 3, 16, 2, *halves)
            expected = model(before, bits // 8, dst, [64 * i for i in range(16)], 3, 16, 2, *(halves or (0, 0)))
            assert core.ub_read(0, 0x4000) == expected


def test_c_api_errors():
    with asc.Core("310B") as core, pytest.raises(UnsupportedError, match="products that support it: 950, A3, A2"):
        asc.asc_transto5hd_b16([0] * 16, [0] * 16, 1, 0, 0)  # TransDataTo5HD, but not its C API
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x1000))
        with pytest.raises(TypeError):
            asc.asc_transto5hd_b8([0x800 + 32 * i for i in range(16)], [32 * i for i in range(16)], 1, 0, 0)
        with pytest.raises(TypeError):
            asc.asc_transto5hd_b16([0x800] * 16, [0] * 16, 1, 0, 0, True, True)
        with pytest.raises(ParameterRangeError):
            asc.asc_transto5hd_b32([0x800 + 32 * i for i in range(16)], [32 * i for i in range(16)], 256, 0, 0)


# -------------------------------------------------------------- bad input
def fresh(chip: str = "A2", strict: bool = False):
    core = asc.Core(chip, strict=strict)
    with core:
        core.ub_write(0, bytes(range(256)) * 64)  # 16 KiB written
    return core


SRC = [32 * i for i in range(16)]
DST = [0x2000 + 32 * i for i in range(16)]


def rejected(core, error, call, match=None):
    before = (core.ub.snapshot(), core.register_state())
    with core, pytest.raises(error, match=match) as info:
        call()
    assert (core.ub.snapshot(), core.register_state()) == before
    return info.value


def test_misaligned_address():
    core = fresh()
    bad = DST[:5] + [DST[5] + 16] + DST[6:]
    err = rejected(core, AlignmentError, lambda: asc.trans_data_to_5hd(bad, SRC, P(), dtype=asc.half))
    assert err.operand == "dst_list[5] address"
    with core:
        t = asc.LocalTensor(asc.half, VECIN, 0)
        odd = asc.LocalTensor(asc.half, VECIN, 0x10)
    rejected(core, AlignmentError, lambda: asc.trans_data_to_5hd([t] * 16, [t] * 15 + [odd], P()))


def test_address_outside_ub():
    core = fresh()
    rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(DST, SRC[:15] + [0x30000], P(), dtype=asc.half))
    rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(DST, SRC[:15] + [-32], P(), dtype=asc.half))


def test_strides_walk_out_of_ub():
    core = fresh()
    err = rejected(core, OutOfBoundsError,
                   lambda: asc.trans_data_to_5hd(DST, SRC, P(False, False, 2, 6000, 0), dtype=asc.half))
    assert "dst_list" in err.operand


def test_tensor_form_checks_each_tensor_extent():
    core = fresh()
    with core:
        src = [asc.LocalTensor(asc.half, VECIN, 32 * i, 16) for i in range(16)]  # one block each
        dst = [asc.LocalTensor(asc.half, VECOUT, 0x2000 + 32 * i, 16) for i in range(16)]
    rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(dst, src, P(False, False, 1, 1, 0)))
    with core:
        asc.trans_data_to_5hd(dst, src, P(False, False, 1, 0, 0))  # fits


@pytest.mark.parametrize(("params", "operand"), [
    (P(repeat_times=256), "params.repeat_times"), (P(repeat_times=-1), "params.repeat_times"),
    (P(dst_rep_stride=65536), "params.dst_rep_stride"), (P(src_rep_stride=-1), "params.src_rep_stride"),
])
def test_parameter_ranges(params, operand):
    core = fresh()
    err = rejected(core, ParameterRangeError, lambda: asc.trans_data_to_5hd(DST, SRC, params, dtype=asc.half))
    assert err.operand == operand


def test_list_length():
    core = fresh()
    rejected(core, ParameterRangeError, lambda: asc.trans_data_to_5hd(DST[:15], SRC[:15], P(), dtype=asc.half))


@pytest.mark.parametrize(("chip", "dtype"), [("910", asc.float32), ("910", asc.int32), ("A2", asc.bfloat16),
                                             ("A2", asc.int64), ("310P-VEC", asc.half)])
def test_dtype_per_product(chip, dtype):
    core = fresh(chip)
    err = rejected(core, UnsupportedError, lambda: asc.trans_data_to_5hd(DST, SRC, P(), dtype=dtype))
    assert chip in str(err)


def test_overlap_rules():
    core = fresh()
    shifted = [32 * (i + 1) for i in range(16)]  # dst blocks 1..16 against src blocks 0..15
    err = rejected(core, OverlapError, lambda: asc.trans_data_to_5hd(shifted, SRC, P(), dtype=asc.half))
    assert "partially overlap" in err.rule
    # repeat 0 writes blocks 16..31, repeat 1 reads them (src stride 16)
    err = rejected(core, OverlapError,
                   lambda: asc.trans_data_to_5hd([512 + 32 * i for i in range(16)], SRC, P(False, False, 2, 0, 16),
                                                 dtype=asc.half))
    assert "repeat 1 reads" in err.rule


def test_type_errors():
    core = fresh()
    with core:
        h = asc.LocalTensor(asc.half, VECIN, 0)
        f = asc.LocalTensor(asc.float32, VECIN, 0x1000)
        with pytest.raises(TypeError, match="dtype"):
            asc.trans_data_to_5hd(DST, SRC, P())  # address form without dtype
        with pytest.raises(TypeError, match="one dtype"):
            asc.trans_data_to_5hd([h] * 16, [h] * 15 + [f], P())
        with pytest.raises(TypeError, match="contradicts"):
            asc.trans_data_to_5hd([h] * 16, [h] * 16, P(), dtype=asc.float32)
        with pytest.raises(TypeError):
            asc.trans_data_to_5hd(DST, SRC, asc.BinaryRepeatParams(), dtype=asc.half)
        with pytest.raises(TypeError):
            asc.trans_data_to_5hd(DST, SRC, P(dst_high_half="yes"), dtype=asc.int8)


def test_call_forms_alternate_and_mixed_lists_are_type_errors():
    """Forms are told apart by list contents; consecutive calls of different forms stay correct."""
    x = np.arange(256, dtype=np.float16)
    with asc.Core("A2") as core:
        core.ub_write(0, x.tobytes())
        core.ub_write(0x1000, bytes(1024))
        tensors_src = [asc.LocalTensor(asc.half, VECIN, 32 * i) for i in range(16)]
        tensors_dst = [asc.LocalTensor(asc.half, VECOUT, 0x1000 + 32 * i) for i in range(16)]
        asc.trans_data_to_5hd(tensors_dst, tensors_src, P())
        asc.trans_data_to_5hd([0x1200 + 32 * i for i in range(16)], [32 * i for i in range(16)], P(), dtype=asc.half)
        assert core.ub_read(0x1000, 512) == core.ub_read(0x1200, 512) == x.reshape(16, 16).T.tobytes()
        with pytest.raises(TypeError, match="LocalTensors each or 16 integer"):
            asc.trans_data_to_5hd(tensors_dst[:8] + DST[8:], tensors_src, P(), dtype=asc.half)


def test_address_tensor_rules():
    core = fresh()
    with core:
        as_u32 = asc.LocalTensor(asc.uint32, VECIN, 0x1000, 32)
        short = asc.LocalTensor(asc.uint64, VECIN, 0x1000, 8)
        addrs = asc.LocalTensor(asc.uint64, VECIN, 0x1000, 16)
        good = asc.LocalTensor(asc.uint64, VECIN, 0x1100, 16)
        good.write(np.array(SRC, dtype=np.uint64))
        addrs.write(np.array(DST[:15] + [0x40000], dtype=np.uint64))
    rejected(core, UnsupportedError, lambda: asc.trans_data_to_5hd(as_u32, good, P(), dtype=asc.half))
    rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(short, good, P(), dtype=asc.half))
    err = rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(addrs, good, P(), dtype=asc.half))
    assert err.operand == "dst[15] address"


def test_wrong_core_tensor():
    core, other = fresh(), fresh()
    with other:
        foreign = asc.LocalTensor(asc.half, VECIN, 0)
    with core:
        mine = asc.LocalTensor(asc.half, VECIN, 0x2000)
    rejected(core, WrongCoreError, lambda: asc.trans_data_to_5hd([mine] * 16, [foreign] * 16, P()))


def test_uninitialised_source():
    with asc.Core("A2"), pytest.warns(UninitializedReadWarning, match="src reads never-written UB byte 0x8000"):
        asc.trans_data_to_5hd(DST, [0x8000 + 32 * i for i in range(16)], P(), dtype=asc.half)
    core = asc.Core("A2", strict=True)
    rejected(core, UninitializedReadError,
             lambda: asc.trans_data_to_5hd(DST, [0x8000 + 32 * i for i in range(16)], P(), dtype=asc.half))
    with core:
        never = asc.LocalTensor(asc.uint64, VECIN, 0x9000, 16)
    rejected(core, UninitializedReadError, lambda: asc.trans_data_to_5hd(never, never, P(), dtype=asc.half))


def test_demo_module_passes():
    """``npusim demo`` runs seed 002's three examples; each must match its golden bytes."""
    from npusim.examples import seed002_trans_data_to_5hd

    outcomes = seed002_trans_data_to_5hd.run()
    assert len(outcomes) == 3 and all(o.passed for o in outcomes)


# ------------------------------------------- the address-tensor form on the NPU
# kernel_operator_vec_transpose_intf_impl.h, TransDataTo5HD(LocalTensor<uint64_t>, ...), NPU build: for
# i = 0..3, entry i of dst and then entry i of src is overwritten in place with
#   ((e[4i] >> 5) & 0x1fff) | ((e[4i+1] >> 5) & 0x1fff) << 16 | ((e[4i+2] >> 5) & 0x1fff) << 32 | ... << 48,
# and vld_va_reg then loads VA0/VA1 (VA2/VA3) from the 32 bytes of entries 0-3: 16 fields of 16 bits,
# each a DataBlock number.  The words below are worked out by hand from that formula.
ADDR_T, ADDR_S = 0x8000, 0x8100


def address_tensors(dst_list, src_list, dst_at=ADDR_T, src_at=ADDR_S):
    dst_t = asc.LocalTensor(asc.uint64, VECIN, dst_at, 16)
    src_t = asc.LocalTensor(asc.uint64, VECIN, src_at, 16)
    dst_t.write(np.array(dst_list, dtype=np.uint64))
    src_t.write(np.array(src_list, dtype=np.uint64))
    return dst_t, src_t


def entries(core, at: int) -> list[int]:
    return [int.from_bytes(core.ub_read(at + 8 * k, 8), "little") for k in range(16)]


def test_address_tensor_entries_0_to_3_are_rewritten_in_place():
    """dst blocks 128..143 (0x1000 + 32k), src blocks 0..15: the words of the packed DataBlock numbers."""
    x = np.arange(256, dtype=np.float16)
    dst_list, src_list = [0x1000 + 32 * k for k in range(16)], [32 * k for k in range(16)]
    with asc.Core("A2") as core:
        core.ub_write(0, x.tobytes())
        core.ub_write(0x1000, bytes(512))
        dst_t, src_t = address_tensors(dst_list, src_list)
        asc.trans_data_to_5hd(dst_t, src_t, P(), dtype=asc.half)
        assert core.ub_read(0x1000, 512) == x.reshape(16, 16).T.tobytes()
        assert entries(core, ADDR_T) == [0x0083_0082_0081_0080, 0x0087_0086_0085_0084, 0x008B_008A_0089_0088,
                                         0x008F_008E_008D_008C, *dst_list[4:]]
        assert entries(core, ADDR_S) == [0x0003_0002_0001_0000, 0x0007_0006_0005_0004, 0x000B_000A_0009_0008,
                                         0x000F_000E_000D_000C, *src_list[4:]]
        assert core.ub.written[ADDR_T : ADDR_T + 128].all() and core.ub.written[ADDR_S : ADDR_S + 128].all()

        # A second call with the same tensors reads entry 0 = 0x0083008200810080 as dst[0]: not a UB address.
        err = rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(dst_t, src_t, P(), dtype=asc.half))
        assert (err.instruction, err.operand, err.value) == ("trans_data_to_5hd", "dst[0] address",
                                                             0x0083_0082_0081_0080)
        assert "rewritten in place" in err.rule


def test_a_second_call_uses_the_rewritten_entries():
    """Addresses whose packed words are themselves 32-byte aligned UB addresses: the second call runs.

    dst[4i..4i+3] = (a, b, 0, 0) packs to a/32 + (b/32 << 16): (0x400, 0x20) -> 0x10020, (0x800, 0x40) ->
    0x20040, (0xC00, 0) -> 0x60, (0x1000, 0x20) -> 0x10080.  The second call's dst list is therefore
    [0x10020, 0x20040, 0x60, 0x10080, dst[4:]...], and entry 0 becomes the blocks of those four:
    0x801 | 0x1002 << 16 | 0x3 << 32 | 0x804 << 48.
    """
    dst_list = [0x400, 0x20, 0, 0, 0x800, 0x40, 0, 0, 0xC00, 0, 0, 0, 0x1000, 0x20, 0, 0]
    src_list = [0x4000 + 32 * k for k in range(16)]
    rng = np.random.default_rng(11)
    with asc.Core("A2") as core:
        core.ub_write(0, rng.integers(0, 256, 0x8000, dtype=np.uint8).tobytes())
        dst_t, src_t = address_tensors(dst_list, src_list)
        asc.trans_data_to_5hd(dst_t, src_t, P(), dtype=asc.half)
        assert entries(core, ADDR_T) == [0x10020, 0x20040, 0x60, 0x10080, *dst_list[4:]]

        src_t2 = asc.LocalTensor(asc.uint64, VECIN, 0x8200, 16)  # a fresh source table
        src_t2.write(np.array(src_list, dtype=np.uint64))
        core.ub_write(0x10000, rng.integers(0, 256, 0x10100, dtype=np.uint8).tobytes())
        before = bytearray(core.ub_read(0, core.ub.size_bytes))
        asc.trans_data_to_5hd(dst_t, src_t2, P(), dtype=asc.half)
        second = [0x10020, 0x20040, 0x60, 0x10080, *dst_list[4:]]
        expected = bytearray(model(bytes(before), 2, second, src_list, 1, 0, 0, False, False))
        words = [0x0804_0003_1002_0801, 0x20040, 0x60, 0x10080]
        expected[ADDR_T : ADDR_T + 32] = b"".join(w.to_bytes(8, "little") for w in words)
        expected[0x8200 : 0x8200 + 32] = b"".join(
            w.to_bytes(8, "little") for w in (0x0203_0202_0201_0200, 0x0207_0206_0205_0204, 0x020B_020A_0209_0208,
                                              0x020F_020E_020D_020C))
        assert core.ub_read(0, core.ub.size_bytes) == bytes(expected)


def test_one_tensor_for_dst_and_src_reads_its_own_rewrite():
    """dst entry 0 is rewritten before src entry 0 is read: with one tensor for both, src[0] reads the packed
    word 0 | 1 << 16 | 2 << 32 | 3 << 48 (blocks of 0x0, 0x20, 0x40, 0x60), which is no UB address."""
    core = fresh()
    with core:
        table = asc.LocalTensor(asc.uint64, VECIN, ADDR_T, 16)
        table.write(np.array([32 * k for k in range(16)], dtype=np.uint64))
    err = rejected(core, OutOfBoundsError, lambda: asc.trans_data_to_5hd(table, table, P(), dtype=asc.half))
    assert (err.operand, err.value) == ("src[0] address", 0x0003_0002_0001_0000)


def test_address_tensor_form_is_unsupported_on_the_910():
    core = fresh("910")
    with core:
        dst_t, src_t = address_tensors(DST, SRC)
    err = rejected(core, UnsupportedError, lambda: asc.trans_data_to_5hd(dst_t, src_t, P(), dtype=asc.half))
    assert (err.instruction, err.operand) == ("trans_data_to_5hd", "product")
    assert "LocalTensor<uint64_t>" in err.rule and "A2" in err.allowed and "910" not in err.allowed.split(": ")[1]
    with core:
        asc.trans_data_to_5hd(DST, SRC, P(), dtype=asc.half)  # the address-list form is supported


@pytest.mark.parametrize("dtype", [asc.half, asc.int16, asc.uint16, asc.float32, asc.int32, asc.uint32])
@pytest.mark.parametrize("form", ["tensors", "addresses", "address_tensor"])
@pytest.mark.parametrize("flag", ["dst_high_half", "src_high_half"])
def test_high_half_flags_are_for_8_bit_data_only(dtype, form, flag):
    """TransDataTo5HD.md 表3: dstHighHalf / srcHighHalf '该配置只支持int8_t、uint8_t的数据类型'."""
    core = fresh()
    params = P(**{flag: True})
    with core:
        if form == "tensors":
            args = ([asc.LocalTensor(dtype, VECOUT, a) for a in DST], [asc.LocalTensor(dtype, VECIN, a) for a in SRC])
        else:
            args = address_tensors(DST, SRC) if form == "address_tensor" else (DST, SRC)
    kwargs = {} if form == "tensors" else {"dtype": dtype}
    err = rejected(core, ParameterRangeError, lambda: asc.trans_data_to_5hd(*args, params, **kwargs))
    assert (err.instruction, err.operand, err.value) == ("trans_data_to_5hd", f"params.{flag}", True)
    assert "int8" in err.rule and err.allowed == "False"


@pytest.mark.parametrize("bits", [0, 31, 64, 2048])
@pytest.mark.parametrize("form", ["addresses", "address_tensor"])
def test_a_forged_element_type_is_a_type_error_and_changes_nothing(bits, form):
    """A DType that only borrows a supported type's name (other width) is no element type of npusim."""
    forged = dataclasses.replace(asc.int32, bits=bits)
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(range(256)) * 64)
        call_form(form, core, asc.int32, [0x1000 + 32 * i for i in range(16)], [32 * i for i in range(16)], P(),
                  0x3000)  # the real type runs
        core.ub_write(0, bytes(range(256)) * 64)
        before = core.ub.snapshot()
        with pytest.raises(TypeError, match="element types"):
            call_form(form, core, forged, [0x1000 + 32 * i for i in range(16)], [32 * i for i in range(16)], P(),
                      0x3000)
        if form == "addresses":
            assert core.ub.snapshot() == before
