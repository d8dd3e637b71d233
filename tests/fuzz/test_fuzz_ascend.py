"""Fuzzing every Ascend instruction and the core itself with valid and hostile arguments.

One test per entry-point family; each example decodes its arguments from a tape
(``strategies.Tape``), builds its operands *inside* the call (constructing a tensor may
itself be rejected) and runs under ``harness.run_contract``.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
from hypothesis import given

from npusim import ascend as asc
from npusim.ascend.arith_dtypes import vector_support
from npusim.ascend.ops.elementwise import VECTOR_OPS
from npusim.ascend.ops.transpose import has_transto5hd_c_api
from npusim.dtypes import by_name
from npusim.errors import ConstraintError

from .harness import FUZZ_SETTINGS, run_contract
from .state import ascend_core, ascend_state
from .strategies import (
    ASCEND_CHIPS,
    ASCEND_DTYPES,
    TAPES,
    Tape,
    TensorSpec,
    ascend_chip,
    binary_params,
    gm_buffers,
    gm_tensor,
    mask_arg,
    repeat_times,
    replayed,
    scalar_arg,
    tensor_spec,
    unary_params,
)

FLOAT_DTYPES = (asc.float16, asc.float32)


def other_core() -> asc.Core:
    """The core that "foreign" tensors belong to."""
    return asc.Core("A2")


# ------------------------------------------------------------------- the core
@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_core_and_local_tensor(tape: Tape):
    chip = tape.hostile("chip", tape.pick("chip", ASCEND_CHIPS + ("Ascend910B1", "ascend950pr_9599")))
    strict = tape.hostile("strict", tape.chance("strict", 2))
    block_num = tape.integer("block_num", 1, 8)
    block_idx = tape.hostile("block_idx", tape.integer("block_idx", 0, block_num - 1))
    block_num = tape.hostile("block_num", block_num)
    cores = []
    run_contract("ascend.Core", lambda: None, lambda: cores.append(
        asc.Core(chip, strict=strict, block_idx=block_idx, block_num=block_num)), tape)
    core = cores[0] if cores else asc.Core("A2")  # a rejected construction still fuzzes the tensor calls
    core.ub.written[:] = 1
    dtype = tape.hostile("dtype", tape.pick("dtype", ASCEND_DTYPES + (asc.int4b_t, asc.fp4x2_e2m1_t)))  # packed
    pos = tape.hostile("pos", tape.pick("pos", tuple(asc.TPosition)))
    if tape.calm:  # an aligned tensor inside the smallest UB, and offsets within it
        addr, tile, offset = 32 * tape.integer("addr / 32", 0, 2048), tape.integer("tile", 64, 2048), \
            tape.integer("offset", 0, 63)
    else:
        addr, tile = tape.hostile_int("addr", 0, 300_000), tape.hostile_int("tile", 0, 100_000)
        offset = tape.hostile_int("offset", 0, 5000)
    values = tape.hostile("values", [tape.pick("value", (0.5, -1, 3, math.nan, 1e9)) for _ in range(
        tape.integer("length", 0, 40))])
    method = tape.pick("method", ("construct", "write", "read", "get_value", "set_value", "slice", "index",
                                  "get_phy_addr", "reinterpret", "ub_write", "ub_read", "cmpmask"))
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

        run_contract("ascend.Core+LocalTensor", lambda: ascend_state(core), call, tape)


# --------------------------------------------------------------------- select
@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_select(tape: Tape):
    chip = ascend_chip(tape, lambda c: c.select is not None)
    modes = tuple(asc.get_chip(chip).select.modes) if tape.calm else tuple(asc.SelMode)
    mode = tape.hostile("mode", tape.pick("mode", modes))
    forms = ("count", "mask", "keywords", "no_mask_scalar") + (("no_mask",) if mode is asc.SelMode(0) else ())
    form = tape.pick("form", forms if tape.calm else forms + ("no_mask", "garbage"))
    counter = not tape.calm and tape.chance("counter mode", 3)
    cmpmask = bytes(tape.below(256) for _ in range(16))
    dtype = tape.pick("dtype", FLOAT_DTYPES if tape.calm else FLOAT_DTYPES + (asc.bfloat16, asc.int16))
    specs = [tensor_spec(tape, name, home, usual) for name, home, usual in
             (("dst", 0x0000, dtype), ("sel", 0x18000, asc.uint8), ("src0", 0x8000, dtype),
              ("src1", 0x10000, dtype))]
    count = tape.integer("count", 1, 1024) if tape.calm else tape.hostile_int("count", 1, 20000)
    mask, repeat, params = mask_arg(tape, dtype=dtype), repeat_times(tape), binary_params(tape)
    scalar = scalar_arg(tape)
    other = other_core()
    with ascend_core(chip) as core:
        core.cmpmask = cmpmask
        if counter and core.chip.counter_mode:
            asc.set_mask_count()

        def call():
            dst, sel, src0, src1 = [spec.make(other) for spec in specs]
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

        run_contract("ascend.select", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):  # the same call again, from its cached plan, with per-call values changed
            specs, scalar = replayed(tape, specs), scalar_arg(tape)
            core.cmpmask = bytes(tape.below(256) for _ in range(16))
            run_contract("ascend.select", lambda: ascend_state(core), call, tape)


# ------------------------------------------------------ registers and C API
@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_registers_and_c_api(tape: Tape):
    which = tape.pick("which", ("set_vector_mask1", "set_vector_mask2", "set_mask_count", "set_mask_norm",
                                "reset_mask", "set_cmp_mask", "get_cmp_mask", "asc_select_count",
                                "asc_select_strided", "asc_set_cmp_mask", "asc_get_cmp_mask"))
    chip = ascend_chip(tape, lambda c: c.counter_mode and c.cmpmask_api and (c.c_api or "asc_" not in which))
    specs = [tensor_spec(tape, f"t{i}", home, asc.uint8 if i == 0 else asc.float16)
             for i, home in enumerate((0x1000, 0x2000, 0x3000))]
    a = tape.hostile_int("a", 0, 2**64 - 1)
    b = tape.hostile_int("b", 0, 2**64 - 1)
    dtype = tape.hostile("dtype", tape.pick("dtype", ASCEND_DTYPES))
    mode = tape.hostile("mode", tape.pick("mode", tuple(asc.MaskMode)))
    strides = [tape.hostile_int(f"stride{i}", 0, 255) for i in range(7)]
    other = other_core()
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
    with ascend_core(chip) as core:
        core.cmpmask = bytes(16)

        def call():
            calls[which](*[spec.make(other) for spec in specs])

        run_contract("ascend.registers+c_api", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):
            specs = replayed(tape, specs)
            run_contract("ascend.registers+c_api", lambda: ascend_state(core), call, tape)


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_squeeze_and_va_registers(tape: Tape):
    """asc_squeeze (§5.24) under either mask mode, and asc_set_va_reg (§5.25) with addresses, tensors or both."""
    which = tape.pick("which", ("asc_squeeze", "asc_squeeze counter", "asc_set_va_reg"))
    chip = ascend_chip(tape, lambda c: c.c_api)
    dtype = tape.pick("dtype", (asc.uint16, asc.uint32))
    specs = [tensor_spec(tape, f"t{i}", home, dtype) for i, home in enumerate((0x8000, 0x1000, 0x4000))]
    repeat = tape.hostile("repeat", tape.pick("repeat", (0, 1, 2, 5, 255)))
    strides = [tape.hostile_int(f"stride{i}", 0, 255) if tape.chance(f"stride{i} varies", 4) else default
               for i, default in enumerate((1, 1, 1, 8, 8, 1))]
    register = tape.hostile("register", tape.pick("register", (*asc.VaReg, 0, 7, 8)))
    entries = [tape.pick(f"entry{i}", (0x1000 + 32 * i, 0x1000 + 32 * i, 0x1001, 0x40000, 1.5))
               for i in range(tape.pick("entries", (8, 8, 16, 7)))]
    as_tensor = [tape.chance(f"entry{i} a tensor", 4) for i in range(len(entries))]
    count = tape.pick("count", (1, 100, 128, 300))
    other = other_core()
    with ascend_core(chip) as core:
        if which == "asc_squeeze counter" and core.chip.counter_mode:
            asc.set_mask_count()
            asc.set_vector_mask(0, count)

        def call():
            tensors = [spec.make(other) for spec in specs]
            if which == "asc_set_va_reg":
                asc.asc_set_va_reg(register, [tensors[1] if t else e for t, e in zip(as_tensor, entries, strict=True)])
            else:
                asc.asc_squeeze(*tensors, repeat, *strides)

        run_contract("ascend.squeeze+va_reg", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):
            specs = replayed(tape, specs)
            run_contract("ascend.squeeze+va_reg", lambda: ascend_state(core), call, tape)


# -------------------------------------------------------------------- compare
@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_compare(tape: Tape):
    form = tape.pick("form", ("count", "mask", "register", "scalar_count", "scalar_mask", "keywords", "c_api",
                              "c_api_scalar", "c_api_register"))
    chip = ascend_chip(tape, lambda c: c.compare is not None and bool(c.compare.scalar_dtypes) and (
        c.c_api or "c_api" not in form))
    counter = not tape.calm and tape.chance("counter mode", 3)
    dtype = tape.pick("dtype", FLOAT_DTYPES if tape.calm else FLOAT_DTYPES + (asc.bfloat16, asc.int32))
    specs = [tensor_spec(tape, name, home, usual) for name, home, usual in
             (("dst", 0x0000, asc.uint8), ("src0", 0x8000, dtype), ("src1", 0x10000, dtype))]
    mode = tape.hostile("cmp_mode", tape.pick("cmp_mode", tuple(asc.CMPMODE)))
    count = (tape.pick("count", (64, 128, 256, 512, 1024)) if tape.calm else tape.hostile_int("count", 0, 20000))
    mask, repeat, params, unary = mask_arg(tape, dtype=dtype), repeat_times(tape), binary_params(tape), unary_params(
        tape)
    scalar = scalar_arg(tape)
    strides = [tape.integer(f"stride{i}", 1, 8) if tape.calm else tape.hostile_int(f"stride{i}", 0, 70000)
               for i in range(6)]
    c_mode = tape.pick("C API compare", ("lt", "gt", "eq", "le", "ge", "ne"))
    sync = tape.pick("C API sync", ("", "_sync"))
    other = other_core()
    with ascend_core(chip) as core:
        core.cmpmask = bytes(16)
        if counter and core.chip.counter_mode:
            asc.set_mask_count()

        def call():
            dst, src0, src1 = [spec.make(other) for spec in specs]
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
                getattr(asc, f"asc_{c_mode}{sync}")(dst, src0, src1, repeat, *strides)
            elif form == "c_api_scalar":
                getattr(asc, f"asc_{c_mode}_scalar{sync}")(dst, src0, scalar, repeat, *strides[:4])
            else:  # to CMPMASK (get_cmp_mask is the registers family's)
                getattr(asc, f"asc_{c_mode}{sync}")(src0, src1, repeat, *strides)

        run_contract("ascend.compare", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):
            specs, scalar = replayed(tape, specs), scalar_arg(tape)
            run_contract("ascend.compare", lambda: ascend_state(core), call, tape)


# ------------------------------------------------------------ TransDataTo5HD
@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_trans_data_to_5hd(tape: Tape):
    form = tape.pick("form", ("tensor_list", "addr_list", "addr_tensor", "c_api", "c_api VA registers"))
    chip = ascend_chip(tape, lambda c: "float16" in c.transdata_dtypes and (has_transto5hd_c_api(c)
                                                                            or not form.startswith("c_api")))
    dtype = tape.pick("dtype", (asc.float16, asc.int8, asc.float32, asc.uint16) if not tape.calm else (asc.float16,))
    block = 32 // dtype.itemsize
    shift = tape.pick("shift", (0, 0, 0, 32, 64) if tape.calm else (0, 0, 1, 32, 4096, -0x10020, 0x30000))
    src_addrs = [0x4000 + i * 0x200 for i in range(16)]
    # destinations: consecutive blocks, some entries on one block, every entry on one block, or the
    # sources themselves (in place); with repeat > 1 and a dst stride below 16 the repeats overlap too
    layout = tape.pick("dst layout", ("consecutive", "repeated", "one block", "in place", "on the sources"))
    dst_addrs = {"consecutive": [0x10000 + i * 32 + shift for i in range(16)],
                 "repeated": [0x10000 + (i % 3) * 32 + shift for i in range(16)],
                 "one block": [0x10000 + shift] * 16,
                 "in place": list(src_addrs),
                 "on the sources": [0x4000 + i * 32 for i in range(16)]}[layout]
    if not tape.calm and tape.chance("one bad address", 2):
        index = tape.integer("index", 0, 15)
        addrs = src_addrs if tape.chance("in src", 2) else dst_addrs
        addrs[index] = tape.hostile_int("address", 0, 0x40000, one_in=2)
    length = 16 if tape.calm else tape.pick("length", (16, 16, 15, 17))
    if tape.calm:  # one repeat at the lists, or three whose destinations overlap (dst stride 1 < 16 blocks)
        repeat, strides = tape.pick("calm repeats", ((1, [0, 0]), (3, [1, 16])))
    else:
        repeat = tape.hostile_int("repeat", 0, 255)
        strides = [tape.hostile_int("stride", 0, 70000) for _ in range(2)]
    params = asc.TransDataTo5HDParams(tape.hostile("dst_high_half", tape.chance("dst_high_half", 2)),
                                      tape.hostile("src_high_half", tape.chance("src_high_half", 2)),
                                      repeat, *strides)
    sync = tape.pick("C API sync", ("", "_sync"))
    halves = (params.dst_high_half, params.src_high_half) if dtype.itemsize == 1 else ()  # b8 takes the halves
    explicit = tape.hostile("dtype=", tape.pick("dtype=", (dtype, asc.int8, asc.float16, asc.bfloat16)
                                                if not tape.calm else (dtype,)))
    with ascend_core(chip) as core:
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
                asc.trans_data_to_5hd(holder_d, holder_s, params, dtype=explicit)
            else:
                registers = form.endswith("VA registers")
                getattr(asc, f"asc_transto5hd_b{8 * dtype.itemsize}{sync}")(
                    asc.VA0 if registers else dst_addrs[:length], asc.VA2 if registers else src_addrs[:length],
                    params.repeat_times, params.dst_rep_stride, params.src_rep_stride, *halves)

        if form == "c_api VA registers":  # asc_set_va_reg before the call; a rejected load leaves a register unset
            for first, addrs in ((0, dst_addrs[:length]), (2, src_addrs[:length])):
                for register, part in ((first, addrs), (first + 1, addrs[8:])):
                    with contextlib.suppress(ConstraintError, TypeError):
                        asc.asc_set_va_reg(register, part)
        if form == "addr_tensor":  # the address tables are host writes made before the call
            for table, addrs in ((0x2000, dst_addrs), (0x2100, src_addrs)):
                words = [a % 2**64 if isinstance(a, int) else 0 for a in addrs]
                core.ub_write(table, np.array(words, dtype=np.uint64).tobytes())
        run_contract("ascend.trans_data_to_5hd", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):  # the same call again, from its cached plan
            run_contract("ascend.trans_data_to_5hd", lambda: ascend_state(core), call, tape)


# ------------------------------------------------------------- element-wise
SOURCE_NAMES = {name: op.sources for name, op in VECTOR_OPS.items()}
SCALAR_OPS = tuple(name for name, op in VECTOR_OPS.items() if op.scalar)
COUNT_SETS_MASK = {name: "is_set_mask" in op.forms[1].names for name, op in VECTOR_OPS.items()}
# Where a source sits relative to dst: elsewhere, exactly in place, or partly overlapping (ref §1.4).
SOURCE_PLACES = {"apart": None, "in place": 0, "dst + 32": 32, "dst + 256": 256}


def elementwise_call(name: str, form: str, srcs: list, scalar, count, mask, repeat, params, dup_strides,
                     is_set_mask) -> tuple[list, dict]:
    """Positional and keyword arguments after ``dst`` for one call form of instruction ``name``."""
    operands = [*srcs, scalar] if name in SCALAR_OPS else list(srcs)
    if form == "keywords":
        kwargs = dict(zip(SOURCE_NAMES[name], srcs, strict=False))
        if name in SCALAR_OPS:
            kwargs["scalar"] = scalar
        return [], {**kwargs, "count": count}
    if form == "count":
        return operands + [count] + ([is_set_mask] if COUNT_SETS_MASK[name] else []), {}
    if name == "duplicate":
        return operands + [mask, repeat, *dup_strides, is_set_mask], {}
    return operands + [mask, repeat, params, is_set_mask], {}


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_elementwise(tape: Tape):
    name = tape.pick("op", tuple(SOURCE_NAMES))
    chip = ascend_chip(tape, lambda c: vector_support(c, name) is not None)
    form = tape.pick("form", ("count", "mask") if tape.calm else ("count", "mask", "keywords", "no core"))
    supported = sorted(vector_support(asc.get_chip(chip), name).for_form(form == "count")) if tape.calm else ()
    dtype = asc.float16 if tape.calm and not supported else tape.pick("dtype", tuple(
        by_name(n) for n in supported) if tape.calm else ASCEND_DTYPES)
    specs = [tensor_spec(tape, "dst", 0x0000, dtype)]
    for i, src in enumerate(SOURCE_NAMES[name]):
        places = ("apart", "apart", "in place") if tape.calm else ("apart",) * 3 + tuple(SOURCE_PLACES)[1:]
        place = tape.pick(f"{src} place", places)
        home = SOURCE_PLACES[place] if place != "apart" else 0x8000 * (i + 1)
        specs.append(tensor_spec(tape, src, home, dtype))
    count = tape.integer("count", 1, 2048) if tape.calm else tape.hostile_int("count", 0, 70000)
    mask, repeat, scalar = mask_arg(tape, dtype=dtype), repeat_times(tape), scalar_arg(tape)
    params = binary_params(tape) if len(SOURCE_NAMES[name]) == 2 else unary_params(tape)
    dup_strides = [tape.integer("dup stride", 1, 8) if tape.calm else tape.hostile_int("dup stride", 0, 70000)
                   for _ in range(2)]
    is_set_mask = tape.hostile("is_set_mask", not tape.chance("is_set_mask=False", 6))
    function = getattr(asc, name)
    other = other_core()
    core = ascend_core(chip)
    if form == "no core":  # the operands exist, but no core is active when the instruction runs
        with core:
            tensor = asc.LocalTensor(dtype, asc.TPosition.VECCALC, 0)
        args, kwargs = elementwise_call(name, "count", [tensor] * len(SOURCE_NAMES[name]), scalar, count, mask,
                                        repeat, params, dup_strides, is_set_mask)
        run_contract("ascend.elementwise", lambda: ascend_state(core), lambda: function(tensor, *args, **kwargs),
                     tape)
        return

    def call():
        dst, *srcs = [spec.make(other) for spec in specs]
        args, kwargs = elementwise_call(name, form, srcs, scalar, count, mask, repeat, params, dup_strides,
                                        is_set_mask)
        function(dst, *args, **kwargs)

    with core:
        run_contract("ascend.elementwise", lambda: ascend_state(core), call, tape)
        if tape.chance("replay", 2):
            specs, scalar = replayed(tape, specs), scalar_arg(tape)
            run_contract("ascend.elementwise", lambda: ascend_state(core), call, tape)


# ------------------------------------------------------------------ data copy
DIRECTIONS = ("GM -> UB", "UB -> GM", "UB -> UB", "GM -> GM")


def copy_endpoints(tape: Tape, direction: str, dtype) -> tuple[object, object]:
    """(dst spec or GlobalTensor, src spec or GlobalTensor) of a copy in ``direction``."""
    src_kind, dst_kind = direction.split(" -> ")
    dst = gm_tensor(tape, "dst", dtype) if dst_kind == "GM" else tensor_spec(tape, "dst", 0x0000, dtype)
    src = gm_tensor(tape, "src", dtype) if src_kind == "GM" else tensor_spec(tape, "src", 0x8000, dtype)
    return dst, src


def made(endpoint, other: asc.Core):
    return endpoint.make(other) if isinstance(endpoint, TensorSpec) else endpoint


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_data_copy(tape: Tape):
    chip = ascend_chip(tape)
    direction = tape.pick("direction", DIRECTIONS[:3] if tape.calm else DIRECTIONS)
    form = tape.pick("form", ("count", "params", "keywords") if tape.calm else ("count", "params", "keywords",
                                                                                  "garbage"))
    supported = sorted(asc.get_chip(chip).data_copy_dtypes)
    dtype = tape.pick("dtype", tuple(by_name(n) for n in supported) if tape.calm else ASCEND_DTYPES)
    dst, src = copy_endpoints(tape, direction, dtype)
    per_block = 32 // dtype.itemsize
    count = per_block * tape.integer("count / block", 1, 64) if tape.calm else tape.hostile_int("count", 0, 5000)
    fields = [tape.integer("block_count", 1, 8), tape.integer("block_len", 1, 8), tape.integer("src_stride", 0, 4),
              tape.integer("dst_stride", 0, 4)]
    params = asc.DataCopyParams(*(tape.hostile(f"params.{i}", v) for i, v in enumerate(fields)))
    other = other_core()
    with ascend_core(chip) as core:
        def call():
            d, s = made(dst, other), made(src, other)
            if form == "count":
                asc.data_copy(d, s, count)
            elif form == "params":
                asc.data_copy(d, s, params)
            elif form == "keywords":
                asc.data_copy(dst=d, src=s, repeat_params=params)
            else:
                asc.data_copy(d, s, count, params)

        run_contract("ascend.data_copy", lambda: ascend_state(core, *gm_buffers(dst, src)), call, tape)


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_data_copy_pad(tape: Tape):
    chip = ascend_chip(tape, lambda c: bool(c.data_copy_pad_dtypes))
    direction = tape.pick("direction", DIRECTIONS[:2] if tape.calm else DIRECTIONS)
    ext = tape.chance("DataCopyExtParams", 2)
    supported = sorted(asc.get_chip(chip).data_copy_pad_dtypes)
    dtype = tape.pick("dtype", tuple(by_name(n) for n in supported) if tape.calm else ASCEND_DTYPES)
    dst, src = copy_endpoints(tape, direction, dtype)
    size = dtype.itemsize
    block_len = size * tape.integer("block_len / sizeof(T)", 1, 64) if tape.calm else tape.hostile_int(
        "block_len", 0, 300)
    fields = [tape.integer("block_count", 1, 4), block_len, tape.integer("src_stride", 0, 64 if ext else 2),
              tape.integer("dst_stride", 0, 2)]
    fields = [tape.hostile(f"copy params.{i}", v) for i, v in enumerate(fields)]
    copy_params = asc.DataCopyExtParams(*fields) if ext else asc.DataCopyParams(*fields)
    is_pad = tape.hostile("is_pad", tape.chance("is_pad", 2))
    sides = [tape.hostile(f"padding {i}", tape.integer(f"padding {i}", 0, 32 // size - 1 if tape.calm else 40))
             for i in range(2)]
    value = tape.hostile("padding_value", tape.pick("padding_value", (0, 1, 3) if tape.calm or size == 8 else
                                                     (0, 1, -2, 2.5, math.nan, 65504.0, 1e10)))
    pad_dtype = dtype if tape.calm else tape.pick("pad dtype", (dtype, dtype, None, asc.int8, asc.float32))
    pad = (asc.DataCopyPadExtParams(pad_dtype, is_pad, *sides, value) if ext else
           asc.DataCopyPadParams(is_pad, *sides, value))
    with_pad = direction == "GM -> UB" if tape.calm else tape.chance("pad params", 2)
    pad_register = tape.pick("set_pad_value", (None, 0, 7) if tape.calm else (None, 0, 7, -1.5, math.inf))
    other = other_core()
    with ascend_core(chip) as core:
        if pad_register is not None and core.chip.pad_value_api:
            asc.set_pad_value(pad_register)

        def call():
            d, s = made(dst, other), made(src, other)
            if with_pad:
                asc.data_copy_pad(d, s, copy_params, pad)
            else:
                asc.data_copy_pad(d, s, copy_params)

        run_contract("ascend.data_copy_pad", lambda: ascend_state(core, *gm_buffers(dst, src)), call, tape)


# ----------------------------------------------------- control registers and sync
CONTROL_CALLS = ("set_pad_value", "set_saturation_flag", "get_saturation_flag", "get_block_idx", "get_block_num",
                 "set_flag", "wait_flag", "pipe_barrier")


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_control_and_sync(tape: Tape):
    which = tape.pick("which", CONTROL_CALLS)
    chip = ascend_chip(tape, lambda c: (c.pad_value_api or which != "set_pad_value") and (
        c.saturation_flag_api or "saturation" not in which))
    value = tape.hostile("value", tape.pick("value", (0, 1, -1, 2.5, 65504, math.nan, -math.inf)))
    pos = tape.hostile("pos", tape.pick("pos", (asc.TPosition.MAX, asc.TPosition.VECIN, asc.TPosition.VECOUT)
                                        if tape.calm else tuple(asc.TPosition)))
    flag = tape.hostile("enable_sat", tape.chance("enable_sat", 2))
    event = tape.hostile("event", tape.pick("event", tuple(asc.HardEvent)))
    event_id = tape.integer("event_id", 0, 3) if tape.calm else tape.hostile_int("event_id", 0, 9)
    pipe = tape.hostile("pipe", tape.pick("pipe", tuple(asc.PipeID)))
    no_core = not tape.calm and tape.chance("no core", 12)
    calls = {
        "set_pad_value": lambda: asc.set_pad_value(value, pos),
        "set_saturation_flag": lambda: asc.set_saturation_flag(flag),
        "get_saturation_flag": asc.get_saturation_flag,
        "get_block_idx": asc.get_block_idx,
        "get_block_num": asc.get_block_num,
        "set_flag": lambda: asc.set_flag(event, event_id),
        "wait_flag": lambda: asc.wait_flag(event, event_id),
        "pipe_barrier": lambda: asc.pipe_barrier(pipe),
    }
    core = ascend_core(chip, block_idx=1, block_num=4)
    if no_core:
        run_contract("ascend.control+sync", lambda: ascend_state(core), calls[which], tape)
        return
    with core:
        run_contract("ascend.control+sync", lambda: ascend_state(core), calls[which], tape)
