"""Fuzzing the Sophgo entry points: the core and its host access, layouts and utilities, and the
five BDC select instructions, with every operand kind (TENSOR, VECTOR, SCALAR) and hostile values.

Sophgo cores are *canonical* (``state.sophgo_core``): one fresh core per example, its operands
within the first ``LANE_FILL`` bytes of each lane, which keeps the exact snapshot cheap even
for the 16 MiB local memory of the BM1684X.  Chips with a small local memory are drawn more
often for the same reason.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import find, given, settings

from npusim import sophgo as tpu

from .harness import FUZZ_SETTINGS, run_contract
from .state import LANE_FILL, sophgo_core, sophgo_state
from .strategies import HOSTILE, Tape, tapes

# Local memory: CV184X 512 KiB, BM1688 4 MiB, BM1684X and SG2260 16 MiB (python3 dev.py fuzz, with ten
# times the examples, gives the big two more than a thousand examples each).
CHIPS = ("CV184X",) * 10 + ("BM1688",) * 4 + ("BM1684X", "SG2260")
CHIP_NAMES = ("BM1684X", "BM1688", "SG2260", "CV184X", "bm1684x", "bm1690", "cv184x", "BM1686", "", "sg2380")
DTYPES = tuple(tpu.data_type_t)
STORED_DTYPES = (tpu.DT_FP32, tpu.DT_FP16, tpu.DT_BFP16, tpu.DT_INT8, tpu.DT_UINT8, tpu.DT_INT16, tpu.DT_UINT16,
                 tpu.DT_INT32, tpu.DT_UINT32)
HOSTILE_DTYPES = (-1, 99, 12, tpu.DT_INT4, tpu.DT_FP20, tpu.DT_TF32, 2**40, "DT_FP32", None, 3.0, np.int8(3))


def sophgo_dtype(tape: Tape, label: str, choices=STORED_DTYPES):
    return tape.hostile(label, tape.pick(label, choices), pool=HOSTILE_DTYPES + HOSTILE)


def small_shape(tape: Tape, label: str, chip: tpu.Chip) -> tpu.dim4:
    """A shape whose tensors fit in the first LANE_FILL / 4 bytes of every lane: many channels of short
    rows, or (one in four) a few channels of long rows, H*W up to 3 EU rows even of an 8-bit type, so
    that the c stride pads the last row of every channel."""
    if tape.chance(f"{label} long rows", 4):
        h = tape.integer(f"{label}.h", 1, 2)
        return tpu.dim4(tape.integer(f"{label}.n", 1, 2), tape.integer(f"{label}.c", 1, 3), h,
                        tape.integer(f"{label}.w", chip.eu_bytes // h + 1, 3 * chip.eu_bytes // h))
    return tpu.dim4(tape.integer(f"{label}.n", 1, 2), tape.integer(f"{label}.c", 1, 2 * chip.npu_num),
                    tape.integer(f"{label}.h", 1, 4), tape.integer(f"{label}.w", 1, 8))


def hostile_shape(tape: Tape, label: str, chip: tpu.Chip):
    """Mostly a small shape; sometimes out-of-range or huge dimensions, or not a dim4 at all."""
    if tape.calm or not tape.chance(f"{label} hostile", 4):
        return small_shape(tape, label, chip)
    dims = [tape.pick(f"{label}[{i}]", (1, 2, 0, -1, 65535, 65536, 2**31, 3)) for i in range(4)]
    return tape.pick(f"{label} form", (lambda: tpu.dim4(*dims), lambda: tuple(dims), lambda: dims[:3],
                                       lambda: None, lambda: np.array(dims)))()


# ---------------------------------------------------------------- the core
@FUZZ_SETTINGS
@given(tape=tapes(64))
def test_fuzz_core_and_host_access(tape: Tape):
    chip_name = tape.hostile("chip", tape.pick("chip", CHIP_NAMES[:4] if tape.calm else CHIP_NAMES))
    gmem_bytes = tape.hostile("global_mem_bytes", tape.pick("global_mem_bytes", (1 << 20, 4096, 8)))
    uninit = tape.hostile("uninit", tape.pick("uninit", ("warn", "raise", "ignore") if tape.calm else
                                              ("warn", "raise", "ignore", "loud", "")))
    run_contract("sophgo.Core", lambda: None, lambda: tpu.Core(chip_name, global_mem_bytes=gmem_bytes,
                                                               uninit=uninit), tape)
    chip = tpu.get_chip(tape.pick("core chip", CHIPS))
    core = sophgo_core(chip.name, uninit=tape.pick("core uninit", ("warn", "raise", "ignore")))
    method = tape.pick("method", ("write_local", "read_local", "local_bytes", "write_local_bytes"))
    dtype = sophgo_dtype(tape, "dtype")
    layout = tape.hostile("layout", tape.pick("layout", tpu.LAYOUTS if tape.calm else tpu.LAYOUTS + (
        "free", "ALIGNED", tpu.dim4(1, 1, 1, 1))))
    lane = tape.integer("lane", 0, chip.npu_num - 1)
    align = 64
    addr = tape.hostile("addr", lane * chip.local_mem_bytes + align * tape.integer("offset / 64", 0, 64))
    shape = hostile_shape(tape, "shape", chip)
    offset = tape.hostile_int("offset", 0, LANE_FILL)
    nbytes = tape.hostile_int("nbytes", 0, 256)
    payload = tape.hostile("payload", bytes(tape.integer("payload length", 0, 64)))
    values = tape.pick("values", ("fit", "fit", "fit", "too big", "floats for ints", "nan", "3-D", "empty",
                                  "objects") if not tape.calm else ("fit",))

    def array():
        dims = shape.as_tuple() if isinstance(shape, tpu.dim4) else (1, 1, 1, 1)
        dims = dims if all(0 < d < 65 for d in dims) else (1, 1, 1, 1)
        data = {"fit": lambda: np.ones(dims, np.int8), "too big": lambda: np.full(dims, 10**10),
                "floats for ints": lambda: np.full(dims, 1.5), "nan": lambda: np.full(dims, math.nan),
                "3-D": lambda: np.ones(dims[1:]), "empty": lambda: np.ones((0, 1, 1, 1)),
                "objects": lambda: np.array([[[[None]]]])}[values]()
        return data

    def call():
        with core:
            if method == "write_local":
                core.write_local(addr, array(), dtype, layout)
            elif method == "read_local":
                core.read_local(addr, shape, dtype, layout)
            elif method == "local_bytes":
                core.local_bytes(lane if tape.calm else addr, offset, nbytes)
            else:
                core.write_local_bytes(lane if tape.calm else addr, offset, payload)

    run_contract("sophgo.Core+host access", lambda: sophgo_state(core), call, tape)


# ------------------------------------------------------- layouts and util
UTIL_CALLS = ("tpu_npu_num", "tpu_local_mem_size_per_npu", "tpu_bank_num", "tpu_eu_num", "tpu_npu_index",
              "tpu_npu_addr", "tpu_bank_index", "tpu_channle_num_per_npu", "tpu_aligned_stride",
              "tpu_compact_stride", "tpu_line_aligned_stride", "tpu_continuous_stride", "tpu_data_type_bits",
              "tpu_data_type_size", "dim4", "scalar_t", "variable_t", "get_chip")
SCALAR_VIEWS = ("f32", "f16", "bf16", "u8", "s8", "u16", "s16", "u32", "s32")


@FUZZ_SETTINGS
@given(tape=tapes(48))
def test_fuzz_layout_and_util(tape: Tape):
    chip = tpu.get_chip(tape.pick("chip", CHIPS))
    which = tape.pick("which", UTIL_CALLS)
    dtype = sophgo_dtype(tape, "dtype", DTYPES)
    addr = tape.hostile_int("addr", 0, chip.total_local_mem_bytes - 1)
    start = tape.hostile_int("start_idx", 0, chip.npu_num - 1)
    channels = tape.hostile_int("num_channels", 1, 300)
    shape = hostile_shape(tape, "shape", chip)
    dims = [tape.hostile_int(f"dim{i}", 1, 100) for i in range(4)]
    view = tape.pick("view", SCALAR_VIEWS if tape.calm else SCALAR_VIEWS + ("f64", "x", "U32", ""))
    value = tape.hostile("value", tape.pick("value", (0, 1, 7) if tape.calm else (0, 1, -1, 255, 256, 1.5, math.nan,
                                                                                     math.inf, 1e40, 2**32)))
    kind = tape.hostile("type", tape.pick("type", tuple(tpu.var_type_t)))
    operand = tape.pick("operand", ("addr", "scalar") if tape.calm else ("addr", "scalar", "both", "neither"))
    calls = {
        "tpu_npu_num": tpu.tpu_npu_num,
        "tpu_local_mem_size_per_npu": tpu.tpu_local_mem_size_per_npu,
        "tpu_bank_num": tpu.tpu_bank_num,
        "tpu_eu_num": lambda: tpu.tpu_eu_num(dtype),
        "tpu_npu_index": lambda: tpu.tpu_npu_index(addr),
        "tpu_npu_addr": lambda: tpu.tpu_npu_addr(addr),
        "tpu_bank_index": lambda: tpu.tpu_bank_index(addr),
        "tpu_channle_num_per_npu": lambda: tpu.tpu_channle_num_per_npu(start, channels),
        "tpu_aligned_stride": lambda: tpu.tpu_aligned_stride(start, shape, dtype),
        "tpu_compact_stride": lambda: tpu.tpu_compact_stride(start, shape),
        "tpu_line_aligned_stride": lambda: tpu.tpu_line_aligned_stride(start, shape, dtype),
        "tpu_continuous_stride": lambda: tpu.tpu_continuous_stride(shape),
        "tpu_data_type_bits": lambda: tpu.tpu_data_type_bits(dtype),
        "tpu_data_type_size": lambda: tpu.tpu_data_type_size(dtype),
        "dim4": lambda: tpu.dim4(*dims),
        "scalar_t": lambda: getattr(tpu.scalar_t(**{view: value}), view),
        "variable_t": lambda: tpu.variable_t(kind, **{"addr": {"addr": addr}, "scalar": {"scalar": tpu.scalar_t()},
                                                    "both": {"addr": addr, "scalar": tpu.scalar_t()},
                                                    "neither": {}}[operand]),
        "get_chip": lambda: tpu.get_chip(tape.hostile("name", tape.pick("name", CHIP_NAMES))),
    }
    core = sophgo_core(chip.name)
    no_core = not tape.calm and tape.chance("no core", 16)

    def call():
        if no_core:
            calls[which]()
        else:
            with core:
                calls[which]()

    run_contract("sophgo.layout+util", lambda: sophgo_state(core), call, tape)


# ------------------------------------------------------------- BDC select
SELECTS = ("tpu_bdc_greater_select", "tpu_bdc_less_select", "tpu_bdc_equal_select",
           "tpu_bdc_maximum_greater_select", "tpu_bdc_minimum_less_select")
SRC_HOMES = (0x1000, 0x2000, 0x3000, 0x3800)  # in-lane offsets of src0..src3 (dst0 at 0, dst1 at 0x800)
SCALAR_VALUES = (0, 1, 0x3F800000, 0x7FC00000, 0x80000000, 0xFFFFFFFF, 0x00000001)


def select_dtypes(tape: Tape, chip: tpu.Chip, min_max: bool) -> tuple:
    """(compare dtype, value dtype): legal widths when calm, anything (often hostile) otherwise."""
    compare = tape.pick("compare dtype", sorted(chip.select_compare_dtypes))
    if tape.calm:
        same_width = [d for d in sorted(chip.select_value_dtypes)
                      if tpu.tpu_data_type_bits(d) == tpu.tpu_data_type_bits(compare)]
        return compare, tape.pick("value dtype", same_width)
    return (sophgo_dtype(tape, "compare dtype", DTYPES) if tape.chance("any compare dtype", 3) else compare,
            sophgo_dtype(tape, "value dtype", DTYPES))


def operand(tape: Tape, label: str, lane_base: int, home: int, allow_vector: bool):
    """How to make a variable_t (inside the call): a TENSOR at ``home`` (usually), a VECTOR or a SCALAR;
    sometimes at a shifted or hostile address, or something that is not a variable_t at all."""
    kinds = (tpu.TENSOR,) * 3 + (tpu.SCALAR,) + ((tpu.VECTOR,) if allow_vector or not tape.calm else ())
    kind = tape.pick(f"{label} kind", kinds)
    if kind is tpu.SCALAR:
        bits = tape.pick(f"{label} scalar", SCALAR_VALUES)
        return lambda: tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=bits))
    addr = lane_base + home
    if not tape.calm:
        addr = tape.hostile(f"{label} addr", addr + tape.pick(f"{label} shift", (0, 0, 0, 0, 2, 16, 64, -64)))
        if tape.chance(f"{label} not a variable_t", 16):
            bad = tape.pick(f"{label}", (None, 3, "tensor", tpu.scalar_t(u32=1), (0, 0x1000)))
            return lambda: bad
    return lambda: tpu.variable_t(type=kind, addr=addr)


@FUZZ_SETTINGS
@given(tape=tapes(96))
def test_fuzz_bdc_select(tape: Tape):
    chip = tpu.get_chip(tape.pick("chip", CHIPS))
    name = tape.pick("instruction", SELECTS)
    min_max = "maximum" in name or "minimum" in name
    lane = tape.integer("start lane", 0, chip.npu_num - 1) if tape.chance("start lane > 0", 3) else 0
    base = lane * chip.local_mem_bytes
    dst_addrs = [tape.hostile(f"dst{i} addr", base + offset) for i, offset in enumerate((0, 0x800))]
    if not tape.calm and tape.chance("dst on another lane", 12):
        dst_addrs[1] = (lane + 1) % chip.npu_num * chip.local_mem_bytes + 0x800
    sources = [operand(tape, f"src{i}", base, home, i < 2) for i, home in enumerate(SRC_HOMES)]
    shape = hostile_shape(tape, "shape", chip)
    compare, value = select_dtypes(tape, chip, min_max)
    no_core = not tape.calm and tape.chance("no core", 16)
    function = getattr(tpu, name)
    core = sophgo_core(chip.name, uninit=tape.pick("uninit", ("warn", "ignore", "raise")))

    def call():
        srcs = [make() for make in sources]
        dsts = dst_addrs if min_max else dst_addrs[:1]
        if no_core:
            function(*dsts, *srcs, shape, compare, value)
            return
        with core:
            function(*dsts, *srcs, shape, compare, value)

    run_contract("sophgo.bdc_select", lambda: sophgo_state(core), call, tape)


@pytest.mark.parametrize("chip", ["BM1684X", "SG2260", "BM1688"])
def test_the_select_shapes_reach_channels_of_several_eu_rows(chip):
    """H*W beyond twice the 8-bit EU_NUM (= EU bytes): multi-row c-stride padding is fuzzed too."""
    eu_bytes = tpu.get_chip(chip).eu_bytes

    def multi_row(tape: Tape) -> bool:
        shape = small_shape(tape, "shape", tpu.get_chip(chip))
        return shape.h * shape.w > 2 * eu_bytes

    found = find(tapes(16), multi_row, settings=settings(database=None, max_examples=2000))
    assert multi_row(Tape(found.raw))  # a fresh tape over the same bytes: the same choices
