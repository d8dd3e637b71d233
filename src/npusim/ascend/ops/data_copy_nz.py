"""``DataCopy`` with ND <-> NZ conversion: the checked runs of a GM -> UB ND2NZ and a UB -> GM NZ2ND copy.

**ND2NZ** (GMToUB随路转换ND2NZ搬运(DataCopy).md, 表3 and figure 1): a matrix of ``nValue`` rows x
``dValue`` columns, row ``r`` at ``r * srcDValue`` elements in GM, is cut into column pieces of
C0 = 32 bytes (``32 / sizeof(T)`` elements); piece ``b`` of row ``r`` goes to UB at
``b * dstNzC0Stride + r * dstNzNStride`` DataBlocks; matrix ``k`` starts ``k * srcNdMatrixStride``
elements into GM and ``k * dstNzMatrixStride`` elements into UB; the part of the last piece past
``dValue`` is zero.

The vendor lowering of this software-emulated API (``DataCopyGM2UBND2NZImpl`` /
``DataCopyGM2UBSingleImpl`` in ``impl/basic_api/dav_c220`` and ``dav_3510``: per piece column, one
``DataCopyPad`` of up to 255 rows) does that copy only in part of the parameter space.  Elsewhere
it does something else, which npusim does not model and rejects (``UnsupportedError``, naming
what the vendor does): more than one matrix (every matrix goes to ``dst + dstNzMatrixStride``
from ``src + srcNdMatrixStride``: the matrix index is unused), a single matrix with a non-zero
matrix stride (it is offset by it), ``dstNzNStride`` other than 1 (the row pitch becomes
``1 + (dstNzNStride - 32) / 32`` DataBlocks, C division), a ``dValue`` that is not whole pieces
(the tail gets DataCopyPad's dummy bytes, not zeros), rows shorter than a piece (a negative
``uint32_t`` gap), more than 255 rows unless ``srcDValue == dValue`` (later row groups start at
``255 * dValue`` elements, in ``uint16_t``), piece offsets past ``uint16_t``; and the products
and types of ``AscendChip.nd2nz_unmodelled``.  docs/semantics.md §5.10.

**NZ2ND** (UBToGM随路转换NZ2ND搬运(DataCopy).md, 表3 and figures 1-2): ``ndNum`` NZ matrices of
``nValue`` rows x ``dValue`` columns (a multiple of 16); element ``(k, r, c)`` is read from UB at
``k * srcNdMatrixStride * 256 + (c // 16) * srcNStride * 16 + r * 16 + c % 16`` and written to GM
at ``k * dstNdMatrixStride + r * dstDStride + c``.  Every vendor lowering (``dav_c220``,
``dav_3510``, ``dav_m200`` ``DataCopyUB2GMNZ2NDImpl``) moves exactly that for 16-, 32- and (950)
64-bit types; 8-bit types on the 950 read UB rows 32 bytes apart, not 16 elements, and are not
modelled.
"""

from __future__ import annotations

from ...dtypes import DType
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import BLOCK_BYTES, SliceRuns
from ..core import Core
from ..types import Nd2NzParams, Nz2NdParamsFull
from .common import require_repeat_params

__all__ = ["nd2nz_runs", "nz2nd_runs"]

RULES = semantics("5.10")
ND2NZ_RANGES = {"nd_num": (0, 4095), "n_value": (0, 16384), "d_value": (0, 65535), "src_nd_matrix_stride": (0, 65535),
                "src_d_value": (1, 65535), "dst_nz_c0_stride": (1, 16384), "dst_nz_n_stride": (1, 16384),
                "dst_nz_matrix_stride": (1, 65535)}
NZ2ND_RANGES = {"nd_num": (0, 4095), "n_value": (1, 8192), "d_value": (1, 8192), "src_nd_matrix_stride": (1, 512),
                "src_n_stride": (0, 4096), "dst_d_stride": (1, 65535), "dst_nd_matrix_stride": (1, 65535)}
ROWS_PER_PAD = 255  # MAX_REPEAT_TIMES: rows per DataCopyPad of the ND2NZ lowering
CUBE = 16  # BLOCK_CUBE: an NZ row holds 16 elements
U16 = (1 << 16) - 1


def _fields(instruction: str, params, cls, ranges: dict, doc: str, skip: frozenset = frozenset()) -> dict:
    """The parameters' fields, each inside its page's range (表4)."""
    values = dict(zip(ranges, require_repeat_params(instruction, params, cls, "intri_params"), strict=True))
    for name, (low, high) in ranges.items():
        if name not in skip:
            require_int(instruction, f"intri_params.{name}", values[name], low, high, f"{doc} 约束说明 (表4); {RULES}")
    return values


def _unmodelled(instruction: str, operand: str, value, what_vendor_does: str,
                doc: str = pages.DATA_COPY_ND2NZ) -> UnsupportedError:
    return UnsupportedError(instruction, operand, value, f"not modelled: the vendor lowering {what_vendor_does}, "
                            "not the copy the page describes", "the parameters the page and the vendor agree on "
                            "(docs/semantics.md §5.10)", f"{doc} 参数说明; {RULES}")


def _modelled_on(instruction: str, core: Core, dtype: DType, kind: str) -> None:
    """Reject the products and types whose lowering of ``kind`` differs from its page (``nz_copy_unmodelled``)."""
    doc = pages.DATA_COPY_ND2NZ if kind == "nd2nz" else pages.DATA_COPY_NZ2ND
    for key, operand in ((f"{kind}:{dtype.name}", "dst dtype"), (f"{kind}:*", "product")):
        reason = core.chip.nz_copy_unmodelled.get(key)
        if reason is not None:
            raise _unmodelled(instruction, operand, f"{dtype} on {core.chip.name}", reason, doc)


def nd2nz_runs(instruction: str, core: Core, dtype: DType, params) -> tuple[SliceRuns, SliceRuns] | None:
    """``(src runs, dst runs)`` of an ND2NZ copy, ``None`` for a NOP (no matrix, row or column)."""
    doc = pages.DATA_COPY_ND2NZ
    f = _fields(instruction, params, Nd2NzParams, ND2NZ_RANGES, doc, frozenset({"dst_nz_matrix_stride"}))
    if f["nd_num"] > 1:  # the page's own example passes 0 with one matrix, where the stride is unused
        require_int(instruction, "intri_params.dst_nz_matrix_stride", f["dst_nz_matrix_stride"], 1, U16,
                    f"{doc} 约束说明 (表4); {RULES}")
    _modelled_on(instruction, core, dtype, "nd2nz")
    if not (f["nd_num"] and f["n_value"] and f["d_value"]):
        return None
    c0 = BLOCK_BYTES // dtype.itemsize
    pieces = -(-f["d_value"] // c0)
    if f["nd_num"] > 1:
        raise _unmodelled(instruction, "intri_params.nd_num", f["nd_num"], "writes every matrix at dst + "
                          "dstNzMatrixStride from src + srcNdMatrixStride (the matrix index is unused)")
    for name in ("src_nd_matrix_stride", "dst_nz_matrix_stride"):
        if f[name]:
            raise _unmodelled(instruction, f"intri_params.{name}", f[name], "offsets the single matrix by it")
    if f["dst_nz_n_stride"] != 1:
        raise _unmodelled(instruction, "intri_params.dst_nz_n_stride", f["dst_nz_n_stride"],
                          "spaces the rows 1 + (dstNzNStride - 32) / 32 DataBlocks apart")
    if f["d_value"] % c0:
        raise _unmodelled(instruction, "intri_params.d_value", f["d_value"], f"fills the last {c0}-element piece "
                          "past dValue with DataCopyPad's dummy bytes, not zeros")
    if f["src_d_value"] < c0:
        raise _unmodelled(instruction, "intri_params.src_d_value", f["src_d_value"], "gives rows shorter than a "
                          "32-byte piece a negative uint32_t gap")
    if f["n_value"] > ROWS_PER_PAD and (f["src_d_value"] != f["d_value"] or ROWS_PER_PAD * f["d_value"] > U16):
        raise _unmodelled(instruction, "intri_params.n_value", f["n_value"], "starts each later group of 255 "
                          "rows at 255 * dValue elements (uint16_t), not 255 * srcDValue")
    if (pieces - 1) * f["dst_nz_c0_stride"] * c0 > U16:
        raise _unmodelled(instruction, "intri_params.dst_nz_c0_stride", f["dst_nz_c0_stride"], "computes the "
                          "piece offsets in uint16_t elements, which wrap")
    if pieces > 1 and f["dst_nz_c0_stride"] < f["n_value"]:
        raise OverlapError(instruction, "intri_params.dst_nz_c0_stride", f["dst_nz_c0_stride"], "the pieces of "
                           "one column would overwrite the next column's rows", f"at least n_value = {f['n_value']}",
                           f"{doc} 参数说明 (表3); {RULES}")
    src = SliceRuns(0, (pieces,), (BLOCK_BYTES,), f["n_value"], f["src_d_value"] * dtype.itemsize, BLOCK_BYTES)
    dst = SliceRuns(0, (pieces,), (f["dst_nz_c0_stride"] * BLOCK_BYTES,), f["n_value"], BLOCK_BYTES, BLOCK_BYTES)
    return src, dst


def nz2nd_runs(instruction: str, core: Core, dtype: DType, params) -> tuple[SliceRuns, SliceRuns] | None:
    """``(src runs, dst runs)`` of an NZ2ND copy, ``None`` for a NOP (no matrix)."""
    doc = pages.DATA_COPY_NZ2ND
    f = _fields(instruction, params, Nz2NdParamsFull, NZ2ND_RANGES, doc)
    _modelled_on(instruction, core, dtype, "nz2nd")
    if f["d_value"] % CUBE:
        raise ParameterRangeError(instruction, "intri_params.d_value", f["d_value"], "dValue must be a multiple "
                                  "of 16", "multiples of 16", f"{doc} 参数说明 (表3); {RULES}")
    if not f["nd_num"]:
        return None
    size, blocks = dtype.itemsize, f["d_value"] // CUBE
    row = CUBE * size
    src = SliceRuns(0, (f["nd_num"], blocks), (f["src_nd_matrix_stride"] * CUBE * CUBE * size, f["src_n_stride"] * row),
                    f["n_value"], row, row)
    dst = SliceRuns(0, (f["nd_num"], blocks), (f["dst_nd_matrix_stride"] * size, row), f["n_value"],
                    f["dst_d_stride"] * size, row)
    return src, dst
