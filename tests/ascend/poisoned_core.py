"""Ascend's part of the registry-generated tests (``tests/fuzz/test_fuzz_registry.py``, and the
access-record tests): its cores, memories, state, and how a tensor operand is mutated.

A core for an instruction example is an A2 core (the default chip, which the examples are written
for) whose whole UB holds random bytes, all marked written, tracing.  Its memories, by the record
space their byte ranges name: ``"UB"``.

:func:`on_product` is the same helper with cores of another product: for the examples an instruction
registers for one product (``Instruction.examples_on``) and for the instructions only it has.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from npusim import ascend as asc
from npusim.ascend.tensor import Lease
from npusim.memory import Memory

VENDOR = "ascend"
NAMESPACE = {"asc": asc}  # the module name the examples use
_UB_FILL = np.random.default_rng(7).integers(0, 256, 1 << 20, dtype=np.uint8)
_OTHER_TYPES = (asc.int8, asc.uint8, asc.int16, asc.float16, asc.int32, asc.float32, asc.uint32, asc.int4b_t)


def new_core() -> asc.Core:
    core = asc.Core("A2", trace=True)
    core.ub.data[:] = _UB_FILL[: core.ub.size_bytes]
    core.ub.written[:] = 1
    return core


#: element types only some products have, which a mutated tensor operand of theirs may take too
_PRODUCT_TYPES = {"950": (asc.complex32, asc.complex64, asc.hifloat8, asc.fp4x2_e2m1_t)}


def on_product(chip: str) -> SimpleNamespace:
    """This module's helper whose cores are ``chip``'s (the whole UB random bytes, all marked written, tracing),
    whose mutated tensors may also take the product's own element types."""
    types = _OTHER_TYPES + _PRODUCT_TYPES.get(chip, ())

    def mutated_product_operand(tape, label: str, value, core: asc.Core):
        return mutated_operand(tape, label, value, core, types)

    def new_product_core() -> asc.Core:
        core = asc.Core(chip, trace=True)
        core.ub.data[:] = np.random.default_rng(7).integers(0, 256, core.ub.size_bytes, dtype=np.uint8)
        core.ub.written[:] = 1
        return core

    return SimpleNamespace(VENDOR=VENDOR, NAMESPACE=NAMESPACE, new_core=new_product_core, memories=memories,
                           setup_memories=setup_memories, registers=registers, state=state,
                           mutated_operand=mutated_product_operand)


def memories(core: asc.Core) -> dict[tuple[str, str | None], Memory]:
    """Every memory the core has, by ``(space, buffer)`` of the byte ranges that index it."""
    return {("UB", None): core.ub}


def setup_memories(namespace: dict) -> dict[tuple[str, str | None], Memory]:
    """The GM allocations an example's setup left in ``namespace`` (``asc.gm_alloc`` / ``asc.gm_codes`` addresses,
    GlobalTensors over them), by the ``("GM", buffer name)`` of the byte ranges that index them."""
    found = {}
    for value in namespace.values():
        buffer = value.bound_buffer if isinstance(value, asc.GlobalTensor) else getattr(value, "buffer", None)
        if isinstance(value, (asc.GlobalTensor, asc.GlobalAddress)) and buffer is not None:
            found[("GM", buffer.name)] = buffer.memory
    return found


def registers(core: asc.Core) -> dict[str, object]:
    return {"CMPMASK": bytes(core._cmpmask), "MASK": core.mask_words, "MASK_MODE": core.mask_mode,
            "PAD": core.pad_value, "CTRL": core.float_saturation, "RSVD_CNT": core.rsvd_cnt,
            "LOOP_OUTTOUB": core.loop_gm_to_ub, "LOOP_UBTOOUT": core.loop_ub_to_gm, "ACC": core.acc,
            "VMS4_SR": core.vms4_sr, "MAX_MIN_CNT": core.max_min_cnt, "DEQSCALE": core.deqscale}


def state(core: asc.Core) -> tuple:
    """Everything a rejected call must leave as it was."""
    return core.ub.snapshot(), core.register_state(), tuple(core.sync_log)


def mutated_operand(tape, label: str, value, core: asc.Core, types: tuple = _OTHER_TYPES):
    """A changed LocalTensor for ``value`` (``types``: the element types an "other type" one may take), or
    ``None`` if ``value`` is not one."""
    if not isinstance(value, asc.LocalTensor):
        return None
    how = tape.pick(f"{label}: tensor", ("further in", "other type", "freed", "other core", "end of UB"))
    if how == "further in":
        return lambda: value[tape.integer(f"{label}: offset", 1, max(1, value.get_size()))]  # may be rejected
    if how == "other type":
        dtype = tape.pick(f"{label}: dtype", types)
        return lambda: asc.LocalTensor(dtype, value.position, value.addr)
    if how == "freed":
        lease = Lease("fuzz")
        tensor = asc.LocalTensor(value.dtype, value.position, value.addr, value.tile_size, lease=lease)
        lease.revoke()
        return tensor
    if how == "other core":
        return asc.LocalTensor(value.dtype, value.position, value.addr, value.tile_size, core=asc.Core(core.chip.name))
    last = core.ub.size_bytes - 32
    return asc.LocalTensor(value.dtype, value.position, last)
