"""Sign (高阶API/数学计算/Sign接口/Sign.md): -1, 0 or 1 by the sign of each element, 0 for zeros and NaN.

pyasc's ``asc.adv.sign(dst, src, count=None, temp_buffer=None, is_reuse_source=False)``; the composition is
the vendor's for the Atlas A2/A3 and the Atlas inference AI Core (``impl/adv_api/detail/math/sign/
sign_common_impl.h``, ``SignCompute`` and ``SignComputeImpl``, shared by ``__NPU_ARCH__`` 2201 and 2002).
Per chunk of ``tmp bytes / sizeof(T) / 3 / 32 * 32`` elements, in counter mode unless said:

* ``duplicate`` 0 into dst's chunk;
* in normal mode with the full mask, ``compare`` src < dst (LT) and src > dst (GT) into two bitmasks at the
  buffer's start and ``AlignUp(split / 8, 32)`` bytes later, over the chunk's whole repeats
  (``ceil(n * sizeof(T) / 256)``: the lanes past ``n`` are compared too, their bits unused);
* ``duplicate`` 1 into a T array after the bitmasks, ``set_cmp_mask`` from it, ``select`` mode 1 (the
  CMPMASK scalar, no mask argument): a second T array = LT ? 0 : 1;
* the same with -1: dst = GT ? 0 : -1; then ``add``: dst = the second array + dst.

So a negative element gives 0 + -1, a positive one 1 + 0, and a zero (either sign) or a NaN 1 + -1 = +0.
Each step is npusim's own instruction, so a call is exact (exactness class: exact, values in {-1, +0, 1})
and its access records are theirs.  Without ``temp_buffer`` the API scratch stands for the stack buffer
(:mod:`.rounding`).  The 950's and Kirin's ``sign_3510_impl.h`` (a vector function, also int64_t) is not
modelled: an :class:`~npusim.errors.UnsupportedError` (docs/semantics.md §5.37).
"""

from __future__ import annotations

from ...errors import OverlapError
from .. import pages
from ..ops.compare import compare
from ..ops.elementwise import add, duplicate
from ..ops.registers import reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, set_vector_mask
from ..ops.select import select
from ..types import CMPMODE, BinaryRepeatParams, MaskMode
from . import rounding
from .rounding import BLOCK, RoundingApi

#: the implementation npusim follows, by __NPU_ARCH__: A2/A3 and the 310P AI Core share sign_common_impl.h
ARCHES = (2201, 2002)

__all__ = ["SIGN", "sign"]

#: the buffer holds three operands' worth per element (SIGN_CALC_PROC); GetSignMaxMinTmpSize's minimum is 3 * 256
SIGN = RoundingApi("sign", pages.SIGN, pages.SIGN.replace("Sign.md", "GetSignMaxMinTmpSize.md"), None,
                   {"float16": 3 * 256, "float32": 3 * 256}, float_chunked=True)
CALC_PROC = 3
REPEAT_BYTES = 256
FULL = 0  # MASK_PLACEHOLDER: with is_set_mask=False the mask register decides


def sign(dst, src, count: int | None = None, temp_buffer=None, is_reuse_source: bool = False) -> None:
    """Sign of ``count`` elements (default: all of src): -1 (negative, -inf), +0 (±0, NaN), 1 (positive, inf)."""
    core, dst, src, total, tmp = rounding.checked_call(SIGN, dst, src, count, temp_buffer, is_reuse_source, ARCHES,
                                                    _used_tmp)
    dtype = src.dtype
    split = _split(tmp.nbytes, dtype)
    mask_bytes = _mask_bytes(split)
    _check_whole_repeats(core, dst, src, tmp, total, split, mask_bytes)
    if total == 0:
        return
    below, above = tmp, tmp[mask_bytes:]
    stack = tmp[2 * mask_bytes:].reinterpret_cast(dtype)
    constant, low = stack, stack[split:]
    params = BinaryRepeatParams()
    set_mask_count()
    for start in range(0, total, split):
        n = min(split, total - start)
        set_vector_mask(0, n, dtype, MaskMode.COUNTER)
        d, s = dst[start:], src[start:]
        duplicate(d, 0, FULL, 1, 1, 8, False)
        set_mask_norm()
        reset_mask()
        repeats = _repeats(n, dtype)
        # the vendor's Compare<T, uint8_t, false> with MASK_PLACEHOLDER uses the full mask ResetMask left;
        # npusim's Compare keeps its reserved isSetMask at true (docs/semantics.md §3.2): the full mask given
        lanes = REPEAT_BYTES // dtype.itemsize
        compare(below, s, d, CMPMODE.LT, lanes, repeats, params)
        compare(above, s, d, CMPMODE.GT, lanes, repeats, params)
        set_mask_count()
        set_vector_mask(0, n, dtype, MaskMode.COUNTER)
        duplicate(constant, 1, FULL, 1, 1, 8, False)
        set_cmp_mask(constant)
        select(low, below, d, 1, params)
        duplicate(constant, -1, FULL, 1, 1, 8, False)
        set_cmp_mask(constant)
        select(d, above, d, 1, params)
        add(d, low, d, FULL, 1, params, False)
    set_mask_norm()
    reset_mask()


def _repeats(n: int, dtype) -> int:
    return -(-n * dtype.itemsize // REPEAT_BYTES)


def _mask_bytes(split: int) -> int:
    """Bytes of one bitmask: ``AlignUp(splitCount / SIGN_BIT, ONE_BLK_SIZE)``."""
    return -(-split // 8 // BLOCK) * BLOCK


def _check_whole_repeats(core, dst, src, tmp, total: int, split: int, mask_bytes: int) -> None:
    """The Compares read whole repeats: past ``count`` (to the repeat's end) in src and in dst, whose lanes past
    the chunk the Duplicate has not written.  Those bytes lie inside the tensors (or the tolerance policy lets
    the call read past them, docs/semantics.md §1.7), clear of the bitmasks the Compares write (a read past a
    tensor's end may reach the buffer), and, under a raising never-written policy, are written: checked up
    front, so a rejected call changes nothing."""
    size = src.dtype.itemsize
    masks = (tmp.addr, tmp.addr + 2 * mask_bytes)
    for start in range(0, total, split):
        n = min(split, total - start)
        stop = start + _repeats(n, src.dtype) * REPEAT_BYTES // size
        for label, tensor in (("src", src), ("dst", dst)):
            lo, hi = tensor.addr + start * size, tensor.addr + stop * size
            tensor.check_span(SIGN.name, label, lo, hi)
            if lo < masks[1] and masks[0] < hi:
                raise OverlapError(SIGN.name, f"{label} byte range", f"[{lo:#x}, {hi:#x})", "the Compares read "
                                   f"whole repeats of {label}, which reach the bitmask bytes [{masks[0]:#x}, "
                                   f"{masks[1]:#x}) they write (不支持sharedTmpBuffer与源操作数和目的操作数地址重叠)",
                                   "the repeats' bytes clear of the buffer", f"{SIGN.page} 约束说明; {SIGN.semantics}")
        if core.ub.raises_on_uninitialized() and stop > start + n:
            core.ub.check_initialized_span(SIGN.name, "dst", dst.addr + (start + n) * size, dst.addr + stop * size)


def _split(tmp_bytes: int, dtype) -> int:
    return tmp_bytes // dtype.itemsize // CALC_PROC // BLOCK * BLOCK


def _used_tmp(api, tmp, total: int, dtype) -> int:
    """The buffer's bytes a call uses: two bitmasks, then two T arrays of ``split`` elements."""
    split = _split(tmp.nbytes, dtype)
    return 2 * _mask_bytes(split) + 2 * split * dtype.itemsize

