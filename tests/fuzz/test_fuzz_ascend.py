"""Fuzzing every Ascend entry point with valid and hostile arguments (see ``harness``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.tensor import Lease

from .harness import FUZZ_SETTINGS, hostile, run_contract

CALM = [True, False, False]  # a third of the examples draw only valid values
CHIPS = ["A2", "A3", "950", "310P", "310B", "910", "KirinX90", "310P-VEC"]
DTYPES = [asc.float16, asc.float32, asc.bfloat16, asc.int16, asc.uint8, asc.int32, asc.uint64, asc.int8]
POSITIONS = list(asc.TPosition)
UB_FILL = np.random.default_rng(0).integers(0, 256, 256 * 1024, dtype=np.uint8)


def fresh_core(chip: str, strict: bool = False) -> asc.Core:
    core = asc.Core(chip, strict=strict)
    core.ub.data[:] = UB_FILL[: core.ub.size_bytes]
    core.ub.written[:] = 1
    return core


def state(core: asc.Core):
    return core.ub.snapshot(), core.register_state()


def maybe(valid: st.SearchStrategy, calm: bool) -> st.SearchStrategy:
    """``valid`` itself in a calm example, else mostly valid with hostile values mixed in."""
    return valid if calm else hostile(valid)


@st.composite
def tensor_spec(draw, home: int = 0x1000, usual_dtype=None, calm: bool = False):
    """A LocalTensor description: mostly at ``home``, sometimes misaligned, huge, freed or foreign."""
    if calm:
        return usual_dtype or draw(st.sampled_from(DTYPES)), asc.TPosition.VECIN, home, 0, "plain"
    addr = draw(hostile(st.one_of(st.just(home), st.just(home), st.just(home),
                                  st.sampled_from([0, 0x1000, 0x1800, 0x20, 0x44, 0x2FFE0]))))
    tile = draw(hostile(st.sampled_from([0, 16, 64, 128, 256, 1024, 4096]), weight_valid=20))
    kind = draw(st.sampled_from(["plain"] * 20 + ["freed", "foreign", "raw_value"]))
    dtype = draw(st.sampled_from([usual_dtype] * 12 + DTYPES) if usual_dtype is not None else st.sampled_from(DTYPES))
    return dtype, draw(st.sampled_from(POSITIONS[9:12] * 8 + POSITIONS)), addr, tile, kind


def make_tensor(spec, core_for_foreign: asc.Core):
    dtype, pos, addr, tile, kind = spec
    if kind == "raw_value":
        return addr  # not a tensor at all
    if kind == "foreign":
        return asc.LocalTensor(dtype, pos, addr, tile, core=core_for_foreign)
    lease = Lease("fuzz") if kind == "freed" else None
    tensor = asc.LocalTensor(dtype, pos, addr, tile, lease=lease)
    if lease is not None:
        lease.revoke()
    return tensor


MASKS = st.one_of(
    st.integers(0, 300), st.lists(st.integers(0, 2**64 - 1), min_size=2, max_size=2),
    st.sampled_from([[2**64 - 1, 0], [0, 0], [1, 2**64 - 1], 64, 128, [1, 2, 3], [1]]),
)
PARAMS = st.builds(asc.BinaryRepeatParams, *[st.integers(0, 16) for _ in range(6)])
HOSTILE_PARAMS = st.builds(asc.BinaryRepeatParams, *[hostile(st.integers(0, 16)) for _ in range(6)])
SCALARS = st.one_of(st.floats(allow_nan=True), st.integers(-70000, 70000))


@FUZZ_SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM),
       form=st.sampled_from(["count", "mask", "no_mask_scalar", "no_mask", "keywords", "garbage"]),
       counter=st.booleans(), cmpmask=st.binary(min_size=16, max_size=16))
def test_fuzz_select(data, chip, calm, form, counter, cmpmask):
    draw = data.draw
    dtype = draw(st.sampled_from(DTYPES[:2] if calm else DTYPES[:3] + [asc.int16]))
    specs = [draw(tensor_spec(home, usual, calm)) for home, usual in
             ((0x0000, dtype), (0x18000, asc.uint8), (0x8000, dtype), (0x10000, dtype))]
    mode = draw(maybe(st.sampled_from(list(asc.SelMode)), calm))
    count = draw(st.integers(1, 1024) if calm else hostile(st.integers(1, 20000)))
    mask = draw(maybe(MASKS, calm))
    repeat = draw(st.integers(0, 8) if calm else hostile(st.integers(0, 255)))
    params = draw(PARAMS if calm else hostile(HOSTILE_PARAMS))
    scalar = draw(maybe(SCALARS, calm))
    other = fresh_core("A2")
    with fresh_core(chip) as core:
        core.cmpmask = cmpmask
        if counter and core.chip.counter_mode:
            asc.set_mask_count()

        def call():
            dst, sel, src0, src1 = [make_tensor(spec, other) for spec in specs]
            if isinstance(mode, int) and mode == 1 and form in ("count", "mask", "keywords"):
                src1 = scalar
            if form == "count":
                asc.select(dst, sel, src0, src1, mode, count)
            elif form == "mask":
                asc.select(dst, sel, src0, src1, mode, mask, repeat, params)
            elif form == "no_mask_scalar":
                asc.select(dst, sel, src0, repeat, params)
            elif form == "no_mask":
                asc.select(dst, src0, src1, repeat, params, mode)
            elif form == "keywords":
                asc.select(dst, sel_mask=sel, src0=src0, src1=src1, sel_mode=mode, mask=mask,
                           repeat_times=repeat, repeat_params=params)
            else:
                asc.select(dst, sel, src0, src1, mode, mask, repeat, params, count)

        run_contract("ascend.select", lambda: state(core), call)


@FUZZ_SETTINGS
@given(chip=st.sampled_from(CHIPS), specs=st.tuples(tensor_spec(0x1000), tensor_spec(0x2000), tensor_spec(0x3000)),
       which=st.sampled_from(["set_vector_mask1", "set_vector_mask2", "set_mask_count", "set_mask_norm",
                              "reset_mask", "set_cmp_mask", "get_cmp_mask", "asc_select_count",
                              "asc_select_strided", "asc_set_cmp_mask", "asc_get_cmp_mask"]),
       a=hostile(st.integers(0, 2**64 - 1)), b=hostile(st.integers(0, 2**64 - 1)),
       dtype=hostile(st.sampled_from(DTYPES)), mode=hostile(st.sampled_from(list(asc.MaskMode))),
       strides=st.lists(hostile(st.integers(0, 255)), min_size=7, max_size=7))
def test_fuzz_registers_and_c_api(chip, specs, which, a, b, dtype, mode, strides):
    other = fresh_core("A2")
    with fresh_core(chip) as core:
        core.cmpmask = bytes(16)
        def call():
            t0, t1, t2 = [make_tensor(spec, other) for spec in specs]
            calls[which](t0, t1, t2)

        calls = {
            "set_vector_mask1": lambda t0, t1, t2: asc.set_vector_mask(a, dtype=dtype, mode=mode),
            "set_vector_mask2": lambda t0, t1, t2: asc.set_vector_mask(a, b, dtype=dtype, mode=mode),
            "set_mask_count": lambda t0, t1, t2: asc.set_mask_count(),
            "set_mask_norm": lambda t0, t1, t2: asc.set_mask_norm(),
            "reset_mask": lambda t0, t1, t2: asc.reset_mask(),
            "set_cmp_mask": lambda t0, t1, t2: asc.set_cmp_mask(t0),
            "get_cmp_mask": lambda t0, t1, t2: asc.get_cmp_mask(t0),
            "asc_select_count": lambda t0, t1, t2: asc.asc_select(t0, t1, t2, a),
            "asc_select_strided": lambda t0, t1, t2: asc.asc_select_sync(t0, t1, t2, *strides),
            "asc_set_cmp_mask": lambda t0, t1, t2: asc.asc_set_cmp_mask(t0),
            "asc_get_cmp_mask": lambda t0, t1, t2: asc.asc_get_cmp_mask(t0),
        }
        run_contract("ascend.registers+c_api", lambda: state(core), call)


@FUZZ_SETTINGS
@given(chip=hostile(st.sampled_from(CHIPS + ["Ascend910B1", "ascend950pr_9599"])), strict=st.booleans(),
       dtype=hostile(st.sampled_from(DTYPES)), pos=hostile(st.sampled_from(POSITIONS)),
       addr=hostile(st.integers(0, 300_000)), tile=hostile(st.integers(0, 100_000)),
       offset=hostile(st.integers(0, 5000)), values=hostile(st.lists(st.floats(), max_size=40)),
       method=st.sampled_from(["construct", "write", "read", "get_value", "set_value", "slice", "index",
                               "get_phy_addr", "reinterpret", "ub_write", "ub_read", "cmpmask"]))
def test_fuzz_core_and_local_tensor(chip, strict, dtype, pos, addr, tile, offset, values, method):
    cores = []
    run_contract("ascend.Core", lambda: None, lambda: cores.append(asc.Core(chip, strict=strict)))
    if not cores:
        return
    core = cores[0]
    core.ub.written[:] = 1
    with core:
        def call():
            tensor = asc.LocalTensor(dtype, pos, addr, tile)
            action = {
                "construct": lambda: None,
                "write": lambda: tensor.write(values),
                "read": lambda: tensor.read(offset),
                "get_value": lambda: tensor.get_value(offset),
                "set_value": lambda: tensor.set_value(offset, values),
                "slice": lambda: tensor[offset:],
                "index": lambda: tensor[offset],
                "get_phy_addr": lambda: tensor.get_phy_addr(offset),
                "reinterpret": lambda: tensor.reinterpret_cast(dtype),
                "ub_write": lambda: core.ub_write(addr, bytes(offset) if isinstance(offset, int) and 0 <= offset
                                                  < 10**6 else offset),
                "ub_read": lambda: core.ub_read(addr, offset),
                "cmpmask": lambda: setattr(core, "cmpmask", values if not isinstance(values, list) else bytes(16)),
            }
            action[method]()

        run_contract("ascend.Core+LocalTensor", lambda: state(core), call)


UNARY = st.builds(asc.UnaryRepeatParams, *[st.integers(0, 16) for _ in range(4)])
HOSTILE_UNARY = st.builds(asc.UnaryRepeatParams, *[hostile(st.integers(0, 70000)) for _ in range(4)])
CMP_MODES = st.sampled_from(list(asc.CMPMODE))


@FUZZ_SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM),
       form=st.sampled_from(["count", "mask", "register", "scalar_count", "scalar_mask", "keywords", "c_api",
                             "c_api_scalar", "c_api_register"]),
       counter=st.booleans())
def test_fuzz_compare(data, chip, calm, form, counter):
    draw = data.draw
    dtype = draw(st.sampled_from(DTYPES[:2] if calm else DTYPES[:3] + [asc.int32]))
    specs = [draw(tensor_spec(home, usual, calm)) for home, usual in
             ((0x0000, asc.uint8), (0x8000, dtype), (0x10000, dtype))]
    mode = draw(maybe(CMP_MODES, calm))
    count = draw(st.sampled_from([64, 128, 256, 512, 1024]) if calm else hostile(st.integers(0, 20000)))
    mask = draw(maybe(MASKS, calm))
    repeat = draw(st.integers(0, 8) if calm else hostile(st.integers(0, 255)))
    params = draw(PARAMS if calm else hostile(HOSTILE_PARAMS))
    unary = draw(UNARY if calm else hostile(HOSTILE_UNARY))
    scalar = draw(maybe(SCALARS, calm))
    strides = [draw(st.integers(1, 8) if calm else hostile(st.integers(0, 70000))) for _ in range(6)]
    other = fresh_core("A2")
    with fresh_core(chip) as core:
        core.cmpmask = bytes(16)
        if counter and core.chip.counter_mode:
            asc.set_mask_count()

        def call():
            dst, src0, src1 = [make_tensor(spec, other) for spec in specs]
            if form == "count":
                asc.compare(dst, src0, src1, mode, count)
            elif form == "mask":
                asc.compare(dst, src0, src1, mode, mask, repeat, params)
            elif form == "register":
                asc.compare(src0, src1, mode, mask, params)
            elif form == "scalar_count":
                asc.compare_scalar(dst, src0, scalar, mode, count)
            elif form == "scalar_mask":
                asc.compare_scalar(dst, src0, scalar, mode, mask, repeat, unary)
            elif form == "keywords":
                asc.compare_scalar(dst, src0, cmp_mode=mode, src1_scalar=scalar, count=count)
            elif form == "c_api":
                asc.asc_lt(dst, src0, src1, repeat, *strides)
            elif form == "c_api_scalar":
                asc.asc_ne_scalar_sync(dst, src0, scalar, repeat, *strides[:4])
            else:
                asc.asc_ge(src0, src1, repeat, *strides)
                asc.get_cmp_mask(dst)

        run_contract("ascend.compare", lambda: state(core), call)


@FUZZ_SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM),
       form=st.sampled_from(["tensor_list", "addr_list", "addr_tensor", "c_api"]))
def test_fuzz_trans_data_to_5hd(data, chip, calm, form):
    draw = data.draw
    dtype = draw(st.sampled_from([asc.float16, asc.int8, asc.float32, asc.uint16]))
    block = 32 // dtype.itemsize
    shift = draw(st.sampled_from([0, 0, 0, 32, 64] if calm else [0, 0, 1, 32, 4096, -0x10020, 0x30000]))
    src_addrs = [0x4000 + i * 0x200 for i in range(16)]
    dst_addrs = [0x10000 + i * 32 + shift for i in range(16)]
    if not calm and draw(st.booleans()):
        index = draw(st.integers(0, 15))
        (src_addrs if draw(st.booleans()) else dst_addrs)[index] = draw(hostile(st.integers(0, 0x40000)))
    length = draw(st.sampled_from([16, 16, 15, 17]) if not calm else st.just(16))
    params = asc.TransDataTo5HDParams(
        draw(maybe(st.booleans(), calm)), draw(maybe(st.booleans(), calm)),
        draw(st.integers(0, 8) if calm else hostile(st.integers(0, 255))),
        draw(st.integers(0, 16) if calm else hostile(st.integers(0, 70000))),
        draw(st.integers(0, 16) if calm else hostile(st.integers(0, 70000))),
    )
    explicit = draw(maybe(st.sampled_from([dtype, asc.int8, asc.float16, asc.bfloat16]), calm))
    with fresh_core(chip) as core:
        def call():
            if form == "tensor_list":
                dsts = [asc.LocalTensor(dtype, asc.TPosition.VECOUT, a, block) for a in dst_addrs[:length]]
                srcs = [asc.LocalTensor(dtype, asc.TPosition.VECIN, a, 256) for a in src_addrs[:length]]
                asc.trans_data_to_5hd(dsts, srcs, params)
            elif form == "addr_list":
                asc.trans_data_to_5hd(dst_addrs[:length], src_addrs[:length], params, dtype=explicit)
            elif form == "addr_tensor":
                holder_d = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x2000, 16)
                holder_s = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x2100, 16)
                for i in range(16):
                    holder_d.set_value(i, dst_addrs[i] % 2**64 if isinstance(dst_addrs[i], int) else 0)
                    holder_s.set_value(i, src_addrs[i] % 2**64 if isinstance(src_addrs[i], int) else 0)
                asc.trans_data_to_5hd(holder_d, holder_s, params, dtype=explicit)
            else:
                asc.asc_transto5hd_b16(dst_addrs[:length], src_addrs[:length], params.repeat_times,
                                       params.dst_rep_stride, params.src_rep_stride)

        if form == "addr_tensor":  # host set_value writes are part of the call; compare after them
            run_contract("ascend.trans_data_to_5hd", lambda: core.register_state(), call)
        else:
            run_contract("ascend.trans_data_to_5hd", lambda: state(core), call)
