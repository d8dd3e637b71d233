"""Brcb (Brcb.md): each source element fills one whole DataBlock of the destination.

Form (pyasc ``basic/vec_brcb.py``)::

    brcb(dst, src, repeat_times, BrcbRepeatParams(dst_blk_stride, dst_rep_stride))

The page's pseudo-code (功能说明): for repeat ``i`` and ``j < 8``, the 32 bytes at
``dst + (i * dst_rep_stride + j * dst_blk_stride) * 32`` all take ``src[i * 8 + j]``; src is read
contiguously, 8 elements per repeat (关键特性说明).  Elements move unchanged: bit-exact.  A
destination block written twice keeps the later repeat's value (issue order).

Rules (约束说明): src and dst may not overlap; ``dst_blk_stride`` may not be 0 (undefined); a
``repeat_times`` of 0 is a NOP on the A2/A3, not guaranteed one on the 950.

What a call leaves behind follows the lowering (``impl/basic_api``): the A2/A3 issue
``ResetMask(); vbrcb`` (the mask all ones); the 310P emulates it (``dav_m200``: ``SetMaskNorm()``,
``vadds`` + ``vtranspose`` / ``v4dtrans`` through the API scratch above ``TMP_UB_OFFSET`` when
``dst_blk_stride`` is 1, else one ``vector_dup`` per block, then ``ResetMask()``): normal mode, the
mask all ones, and for block stride 1 the 1 KiB of scratch it used left undefined (page: reserve
8 KB).  Its b16 path also saves and restores the 8 DataBlocks after each repeat's, which leaves
them as they were; npusim does not touch them.  The 950 and the Kirin chips lower through the
Reg API and leave the registers alone.
"""

from __future__ import annotations

import numpy as np

from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import ParameterRangeError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import BLOCK_BYTES, BLOCKS_PER_REPEAT, FULL_WORD
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint
from ..masking import MAX_REPEAT
from ..tensor import LocalTensor
from ..types import BrcbRepeatParams, MaskMode
from .common import is_int_arg, is_tensor, require_dtype, require_pair, require_repeat_params
from .elementwise import DST
from .index_move import IndexMove
from .vector_transpose import Nothing

__all__ = ["BRCB_DTYPES", "brcb", "brcb_move"]

NAME = "brcb"
PAGE = pages.BRCB
_B16_B32 = frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"})
#: T per product (数据类型); the 310B (Atlas 200I/500 A2) and the 910 do not have Brcb.
BRCB_DTYPES: dict[str, frozenset[str]] = {
    "A2": _B16_B32 | {"bfloat16"}, "A3": _B16_B32 | {"bfloat16"}, "310P": _B16_B32,
    "KirinX90": frozenset({"uint16", "float16", "uint32", "float32"}),
    "Kirin9030": frozenset({"uint16", "float16", "uint32", "float32"}),
    "950": _B16_B32 | {"bfloat16", "int8", "uint8", "int64", "uint64"},
}
EMULATED = frozenset({"310P"})  # dav_m200: emulated with vadds / vtranspose through the API scratch
SCRATCH_BYTES = 1024  # the 310P's tempBuf: 256 int32 (b32) or 512 int16 (b16, 1 KiB above TMP_UB_OFFSET)


def _is_params(value) -> bool:
    return isinstance(value, BrcbRepeatParams)


FORMS = (Form("", (DST, Param("src", is_tensor), Param("repeat_times", is_int_arg),
                   Param("repeat_params", _is_params))),)


def _support(chip) -> frozenset[str] | None:
    return BRCB_DTYPES.get(chip.name)


def _compile(core: Core, form: str, bound: dict) -> IndexMove | Nothing:
    dst, src = require_pair(NAME, core, bound["dst"], bound["src"], f"{PAGE} 参数说明")
    allowed = _support(core.chip)
    if allowed is None:
        raise unsupported_on(core.chip, NAME, NAME, lambda c: _support(c) is not None, f"{PAGE} 产品支持情况")
    require_dtype(NAME, "dst", dst.dtype, allowed, f"brcb does not support this data type on {core.chip.product}",
                  f"{PAGE} 数据类型")
    repeats = require_int(NAME, "repeat_times", bound["repeat_times"], 0, MAX_REPEAT, f"{PAGE} 参数说明")
    blk, rep = require_repeat_params(NAME, bound["repeat_params"], BrcbRepeatParams)
    if blk == 0:
        raise ParameterRangeError(NAME, "repeat_params.dst_blk_stride", 0, "dstBlkStride = 0 may give undefined "
                                  "behaviour", "at least 1", f"{PAGE} 约束说明")
    if repeats == 0:
        if not core.chip.zero_repeat_nop:
            raise ParameterRangeError(NAME, "repeat_times", 0, f"repeat_times = 0 is not guaranteed to be a NOP on "
                                      f"{core.chip.product}", "at least 1", f"{PAGE} 约束说明; {semantics('1.9')}")
        return Nothing(("dst", "src"))
    return brcb_move(core, NAME, dst, src, repeats, blk, rep)


def brcb_move(core: Core, name: str, dst: LocalTensor, src: LocalTensor, repeats: int, blk: int,
              rep: int) -> IndexMove:
    """The checked move of ``repeats`` > 0 repeats with these destination strides (``blk`` > 0)."""
    itemsize = dst.dtype.itemsize
    per_block = BLOCK_BYTES // itemsize
    i, j = np.divmod(np.arange(repeats * BLOCKS_PER_REPEAT, dtype=np.int64), BLOCKS_PER_REPEAT)
    blocks = (i * rep + j * blk) * BLOCK_BYTES
    dst_addrs = (blocks[:, None] + np.arange(per_block, dtype=np.int64) * itemsize).reshape(-1)
    src_addrs = np.repeat(np.arange(repeats * BLOCKS_PER_REPEAT, dtype=np.int64) * itemsize, per_block)
    repeat_of = np.repeat(i, per_block)
    emulated = core.chip.name in EMULATED
    native = core.chip.vector_lowering == "native"
    scratch = None
    if emulated and blk == 1:
        top = core.chip.vec_local_bytes + (SCRATCH_BYTES if itemsize == 2 else 0)  # TMP_UB_OFFSET (+ 1 KiB for b16)
        scratch = (top, top + SCRATCH_BYTES)
    plan = IndexMove(name, dst.dtype, Footprint("dst", dst_addrs, repeat_of, itemsize),
                     Footprint("src", src_addrs, repeat_of, itemsize), "disjoint", f"{PAGE} 约束说明",
                     mask_words_after=(FULL_WORD, FULL_WORD, 0, 0) if native else None,
                     mask_mode_after=MaskMode.NORMAL if emulated else None,
                     scratch_source=f"{PAGE} 约束说明", fixed_scratch=scratch)
    plan.placed(dst, src)
    return plan


brcb = register(Instruction(
    NAME, "ascend", "fill", "V", FORMS, _compile, f"{PAGE} 功能说明, 约束说明", support=_support,
    exactness=BIT_EXACT,
    summary="dst DataBlock (i * dst_rep_stride + j * dst_blk_stride) = src[8i + j] repeated (j < 8)",
    examples=(
        "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)\n"
        "x.write(list(range(1, 17)))\n"
        "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)\n"
        "asc.brcb(z, x, 2, asc.BrcbRepeatParams(1, 8))",
        "x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 24)\n"
        "x.write(list(range(24)))\n"
        "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 1024, 1024)\n"
        "asc.brcb(z, x, 3, asc.BrcbRepeatParams(2, 16))",
    ),
    fast_context=lambda core: (),
    doc=f"``brcb(dst, src, repeat_times, BrcbRepeatParams(dst_blk_stride, dst_rep_stride))`` ({PAGE}).",
))
