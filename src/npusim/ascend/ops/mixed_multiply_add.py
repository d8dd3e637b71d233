"""The half-source, float-dst forms of Axpy and MulAddDst (docs/semantics.md §5.26).

Axpy.md and MulAddDst.md list ``half | half | float | PAR 64`` on most products, and the C API's
``asc_axpy`` / ``asc_fma`` print the same prototypes.  They run on the element-wise plan
(:mod:`.elementwise`) with three differences, each from a page or the lowering:

* a repeat has dst's 64 lanes (``SetMask<T>`` with T = float), and lane ``j`` of a half source
  lies in its DataBlock ``j // 16``: a source repeat uses its first 4 DataBlocks (Axpy.md 调用示例,
  "每次迭代选取源操作数前4个datablock"); so the count forms step the sources 4 blocks a repeat
  (dav_c220 ``HALF_DEFAULT_REPEAT_STRIDE``, ``DEFAULT_REPEAT_STRIDE / 2``);
* a mask argument selects at most 64 lanes (约束说明: "一个迭代处理内最多处理64个输入数据");
* a source and dst share no byte at all (约束说明: "...的情况下，不支持地址重叠").

Each half value is exact in float, and so is the product of two (22 significant bits): the lane
is the exact ``x * y + z`` rounded once to float, to nearest even, whether the product is rounded
first (``vmla`` / ``vaxpy``) or fused (the 950's Reg ``MulAddDst``) — the widened sources go
through float32 arithmetic (:func:`widened`).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...sources import semantics
from ...validate import is_list_like
from .. import pages
from ..arith_dtypes import MIXED_SOURCES, mixed_pairs
from ..chips import AscendChip, unsupported_on
from ..core import Core
from ..footprint import Footprint, first_common
from ..tensor import LocalTensor
from ..types import MaskMode
from .arith import MULTIPLY_ADD
from .common import is_bool_arg, is_int_arg

__all__ = ["LANES", "SOURCE_REPEAT_STRIDE", "check_disjoint", "check_mask", "finite_sums", "mixed_source", "page_of",
           "widened"]

LANES = 64  # dst's lanes: a float repeat
SOURCE_REPEAT_STRIDE = 4  # the count forms: 64 halves, 4 DataBlocks, a repeat
PAGES = {"axpy": pages.AXPY, "mul_add_dst": pages.MUL_ADD_DST}


def page_of(row: str) -> str:
    """The Memory-level page whose 数据类型 and 约束说明 state the mixed form's rules."""
    return PAGES[row]


def mixed_source(name: str, row: str, doc: str, labels: tuple[str, ...], chip: AscendChip, dst: LocalTensor,
                 tensors: list[LocalTensor]) -> DType | None:
    """The sources' type when this is a mixed-precision call of ``row`` (``axpy``, ``mul_add_dst``),
    ``None`` when every source has dst's type; otherwise the call is rejected: sources of two types
    (both are U of the prototype), a pair no product lists, or a product whose table lacks the row."""
    first = tensors[0].dtype
    for label, tensor in zip(labels[1:], tensors[1:], strict=True):
        if tensor.dtype != first:
            raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{label} has {labels[0]}'s type "
                                   "(both are U of the prototype)", first.name, f"{doc} 函数原型; {semantics('5.26')}")
    if first == dst.dtype:
        return None
    pair = (first.name, dst.dtype.name)
    if pair in mixed_pairs(chip, row):
        return first
    source = f"{page_of(row)} 数据类型; {semantics('5.26')}"
    if any(pair in pairs for pairs in MIXED_SOURCES[row].values()):
        raise unsupported_on(chip, name, f"{name} with {first.name} sources and a {dst.dtype.name} dst",
                             lambda c: pair in mixed_pairs(c, row), source)
    listed = ", ".join(f"{s} -> {d}" for s, d in sorted(set().union(*MIXED_SOURCES[row].values())))
    raise UnsupportedError(name, f"{labels[0]} dtype", first.name, f"{labels[0]} has dst's type ({dst.dtype.name}), "
                           "or the types of a mixed-precision row", f"{dst.dtype.name}; {listed}", source)


def check_mask(name: str, row: str, core: Core, bound: dict) -> None:
    """A mask argument in normal mode selects at most dst's 64 lanes: a contiguous mask at most 64, a
    bit-wise mask's high word 0 (约束说明).  In counter mode it is taken as any float form's (§1.4); with
    ``is_set_mask`` false the register supplies the lanes and only its low 64 bits select any."""
    setting = bound["is_set_mask"]
    if core.mask_mode == MaskMode.COUNTER or not (is_bool_arg(setting) and setting):
        return
    mask = bound["mask"]
    source = f"{page_of(row)} 约束说明; {semantics('5.26')}"
    rule = "a half-source float-dst call processes at most 64 elements a repeat (a float dst's lanes)"
    if is_int_arg(mask) and int(mask) > LANES:
        raise ParameterRangeError(name, "mask", int(mask), rule, f"at most {LANES}", source)
    if is_list_like(mask) and len(mask) == 2 and is_int_arg(mask[1]) and int(mask[1]) != 0:
        raise ParameterRangeError(name, "mask[1]", int(mask[1]), f"{rule}: lanes 64-127 do not exist", "0", source)


def check_disjoint(name: str, row: str, dst: Footprint, sources: list[Footprint]) -> None:
    """No byte of a source is a byte of dst (约束说明, the mixed form: not even in place, which
    elements of two sizes cannot be anyway); the sources may overlap each other (they are only read)."""
    written = None
    for fp in sources:
        if dst.empty or fp.empty or dst.hi <= fp.lo or fp.hi <= dst.lo:
            continue
        written = dst.byte_addrs()[0] if written is None else written
        byte = first_common(written, fp.byte_addrs()[0])
        if byte is not None:
            raise OverlapError(name, f"{fp.name} / dst", f"byte {byte:#x}", "a half source and the float dst "
                               "share a byte (the mixed form allows no overlap)", "no common byte",
                               f"{page_of(row)} 约束说明; {semantics('5.26')}")


def widened(raw: np.ndarray, source: DType, dst: DType) -> np.ndarray:
    """Half lanes as float bits.  Exact, every half being a float (NaN stays NaN; the result's NaN is made
    canonical by the arithmetic), so numpy's widening cast is the conversion and the lane's one rounding
    is the sum's; as :func:`.arith.compute` widens its own half operands.  From :data:`MANY_HALVES` lanes, by
    :func:`floats_of_halves` where it applies."""
    if raw.size >= MANY_HALVES and source.name == "float16" and dst.name == "float32":
        bits = floats_of_halves(raw)
        if bits is not None:
            return bits
    return raw.view(source.np_dtype).astype(dst.np_dtype).view(dst.raw)


MANY_HALVES = 2048  # below, numpy's cast (one call) is the quicker; at 10240 lanes it takes 13 µs, the steps 10
# the exponent field all ones: a positive half's bits as an int16 from here, a negative one's as a uint16 (the
# largest int16 is a positive half's, the largest uint16 a negative one's when there is one)
_POSITIVE_SPECIAL, _NEGATIVE_SPECIAL = np.int16(0x7C00), np.uint16(0xFC00)
_SIGN_AND_HALF_FIELDS = np.int32(0x8FFFE000 - (1 << 32))  # bit 31, and a half's 15 bits moved up by 13
_SCALE = np.float32(2.0 ** 112)  # 2**(127 - 15): from float's exponent bias to half's
_TINY, _TINY_SCALED = np.float32(2.0 ** -149), np.float32(2.0 ** -37)


def floats_of_halves(raw: np.ndarray) -> np.ndarray | None:
    """Half bit patterns (uint16) as float32 bit patterns, exact, or ``None`` when a lane is infinite or NaN (or
    the CPU reads subnormal floats as zero, which nothing in npusim or numpy sets up).

    A half's exponent and fraction fields, moved up 13 bits into a float32 with the half's sign, are a float32 of
    the half's value times 2**-112: a normal half's exponent field (1-30) as a float32's is the same power of two
    less 112, and a subnormal half's fraction ``m`` (value ``m * 2**-24``) becomes the subnormal float
    ``m * 2**-136``.  Multiplying by 2**112 is exact (every result is a normal float32) and gives the half's
    value, zeros with their sign included.  Infinities and NaNs (exponent field 31) would come out finite, so
    they are left to numpy's cast."""
    signed = raw.view(np.int16)
    if (np.maximum.reduce(signed, axis=None) >= _POSITIVE_SPECIAL
            or np.maximum.reduce(raw, axis=None) >= _NEGATIVE_SPECIAL or _TINY * _SCALE != _TINY_SCALED):
        return None
    bits = signed.astype(np.int32)  # sign-extended: the sign in bits 15-31
    np.left_shift(bits, 13, out=bits)
    np.bitwise_and(bits, _SIGN_AND_HALF_FIELDS, out=bits)
    values = bits.view(np.float32)
    np.multiply(values, _SCALE, out=values)
    return bits.view(np.uint32)


def finite_sums(operation: str, operands: list[np.ndarray]) -> np.ndarray | None:
    """The float bits of a mixed-form multiply-add from its widened operands (:data:`.arith.MULTIPLY_ADD`'s order;
    Axpy's scalar of shape ``(1,)``): the exact product plus the old dst, rounded once, which is both the rounded
    product's sum and the fused one (module docstring); or ``None`` when a lane is NaN or infinite, whose rules
    :func:`.arith.compute` applies.  A float lane never saturates (no product lists float32 among its
    ``float_saturation_dtypes``)."""
    x, y, z = (operands[i].view(np.float32) for i in MULTIPLY_ADD[operation])
    total = _sum_of_product(x, y, z)
    return total.view(np.uint32) if np.logical_and.reduce(np.isfinite(total), axis=None) else None


@np.errstate(all="ignore")  # as a decorator numpy's errstate costs less than a ``with`` block, which makes it anew
def _sum_of_product(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    total = np.multiply(x, y)
    return np.add(total, z, out=total)
