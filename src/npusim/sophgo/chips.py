"""Sophgo TPU products as data: lane count, local-memory geometry, dtype rules.

One frozen, keyword-only :class:`Chip` per product.  Hardware constants are
stated once and derived quantities (bank size, EU count per dtype, total local
memory) are computed from them.  Every table names the document it comes from;
``docs/semantics.md`` §7.1 is the lane/memory table, §8.4 the dtype rules of the
fused-compare (select) instruction, §9 those of GDMA and ``tpu_bdc_set_C``.

Look a chip up by name with :func:`get_chip` (case-insensitive, aliases such as
``"BM1690"`` accepted); an unknown name raises :class:`~npusim.errors.UnsupportedError`
listing the known names.  A :class:`~npusim.sophgo.core.Core` created without a chip
runs on the default chip (:func:`get_default_chip`, initially BM1684X;
``npusim run --chip`` changes it with :func:`set_default_chip`).

Every rule of BM1684X, BM1688 and SG2260 was measured on the vendor's own simulator from the PyPI wheel
``tpu_mlir==1.30.2``: ``libcmodel_bm1684x.so``, ``libcmodel_bm1688.so`` and the SG2260 emulator
``libtpuv7_emulator.so`` (select instructions: ``tests/data/sophgo/select_oracle_*.json.gz``; GDMA and
``tpu_bdc_set_C``: ``runtime_oracle_*.json.gz``).  CV184X's select dtype rules were checked on
``libcmodel_cv184x.so``; its data-movement rules carry the BM1688 values over, unmeasured.

Where the SG2260 emulator and the vendor document disagree
------------------------------------------------------------
The emulator's select checks only that src2/src3 are not VECTOR: it computes a compare type wider
than ``dst_dtype`` and maximum/minimum with ``bits(dst0_dtype) != bits(dst1_dtype)``, which the
document (TPU-Kernel 比较选择函数, 注意事项) forbids.  npusim follows the document and rejects both on
every chip; the fixtures keep such calls as ``forbidden_by`` cases (docs/sophgo.md).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..context import VendorDefault
from ..errors import UnsupportedError
from ..sources import semantics
from .types import (
    DT_BFP16,
    DT_FP8E4M3,
    DT_FP8E5M2,
    DT_FP16,
    DT_FP32,
    DT_INT8,
    DT_INT16,
    DT_INT32,
    DT_UINT8,
    DT_UINT16,
    DT_UINT32,
    data_type_t,
)

__all__ = [
    "CHIPS", "DEFAULT_CHIP", "Chip", "get_chip", "get_default_chip", "known_chip_names", "set_default_chip",
    "using_chip",
]

KiB = 1024
INT32_MAX = (1 << 31) - 1  # dim4 fields are C ints

# The nine types whose PRECISION code is 0..5 (INT8, FP16, FP32, INT16, INT32, BF16), signed and
# unsigned.  The BM1684X and BM1688 fused-compare asserts `0 <= AB_prec <= 5` and `0 <= CD_prec <= 5`
# (docs/semantics.md §8.4; CD bound measured on both cmodels, atomic_fused_cmp_gen_cmd.c:59).
_PREC_0_TO_5 = frozenset(
    {DT_UINT8, DT_INT8, DT_FP16, DT_FP32, DT_UINT16, DT_INT16, DT_UINT32, DT_INT32, DT_BFP16}
)
_FP8 = frozenset({DT_FP8E5M2, DT_FP8E4M3})
_FLOAT_WIDER_THAN_8 = frozenset({DT_FP16, DT_BFP16, DT_FP32})
_NO_EQUAL_WIDTH_RULE: frozenset[data_type_t] = frozenset()

# GDMA and the BDC arithmetic unit (tpu_bdc_set_C) take the same nine types on both BM cmodels: INT4, FP8 and
# FP20 assert ("tpu_eu_num: Assertion", "get_eu_num: ERROR PREC"), and so does TF32 except in a GDMA copy
# with both strides explicit, which moves it as 32-bit data; npusim has no TF32 storage and rejects it
# everywhere [cmodel, runtime oracle].  The SG2260 emulator also moves and writes FP8 (and TF32).
_DATA_MOVE_DTYPES = _PREC_0_TO_5


@dataclass(frozen=True, kw_only=True)
class Chip:
    """One Sophgo TPU product.

    Attributes:
        name: canonical product name, upper case (``"BM1684X"``).
        aliases: other names accepted by :func:`get_chip`.
        npu_num: NPU lanes (``NPU_NUM``).
        local_mem_bytes: local memory per lane (``LOCAL_MEM_SIZE``).
        bank_num: local-memory banks per lane (``LOCAL_MEM_BANKS``).
        eu_bytes: bytes one execution-unit row holds; equals ``ALIGN_BYTES``, the
            alignment of "64-byte aligned" tensors (64 on BM1684X, 16 on BM1688).
        select_compare_dtypes: dtypes accepted as the compare type of the BDC select
            instructions (``src0_src1_dtype``; ``dst0_dtype`` of maximum/minimum).
        select_value_dtypes: dtypes accepted for dst/src2/src3 (``dst_dtype``, ``dst1_dtype``).
        select_equal_width_compare_dtypes: compare dtypes whose width must equal the
            dst width (a float compare cannot select into a wider dst).
        gdma_dtypes: element types ``tpu_gdma_cpy_S2L`` / ``_L2S`` move.
        gdma_max_w_stride_bytes: largest W stride of a GDMA copy, in bytes, on either side
            (``MAX_WSTRIDE_BYTE_LEN``; the BM cmodels assert ``0 < w_stride * size <= it``), or None
            where there is no limit of its own (SG2260: only the memory bounds hold).
        gdma_zero_w_stride: a GDMA W stride of 0 is computed (SG2260: the source element is read
            W times, or the last of W writes to one destination element wins) instead of rejected.
        set_c_dtypes: element types ``tpu_bdc_set_C`` writes.
        set_c_max_stride: largest element stride (each of n, c, h, w) of a free-layout
            ``tpu_bdc_set_C`` (BM1684X and SG2260: an 18-bit field, ``stride < 1 << 18``; BM1688: no
            field limit was found, only the bounds of the lane).
        set_c_zero_stride_needs_extent_1: a zero ``tpu_bdc_set_C`` stride is only accepted on an
            axis of extent 1 (the BM cmodels assert ``dst_shape[i] == 1``; SG2260 does not).
        oracle: the vendor cmodel library that measured this chip's behaviour, or None
            when npusim's semantics for it are carried over from BM1684X/BM1688 unmeasured.
        source: where the numbers come from.
    """

    name: str
    aliases: tuple[str, ...] = ()
    npu_num: int
    local_mem_bytes: int
    bank_num: int
    eu_bytes: int
    select_compare_dtypes: frozenset[data_type_t]
    select_value_dtypes: frozenset[data_type_t]
    select_equal_width_compare_dtypes: frozenset[data_type_t]
    gdma_dtypes: frozenset[data_type_t] = _DATA_MOVE_DTYPES
    gdma_max_w_stride_bytes: int | None
    gdma_zero_w_stride: bool = False
    set_c_dtypes: frozenset[data_type_t] = _DATA_MOVE_DTYPES
    set_c_max_stride: int
    set_c_zero_stride_needs_extent_1: bool = True
    oracle: str | None
    source: str

    @property
    def bank_bytes(self) -> int:
        """``BANK_SIZE = LOCAL_MEM_SIZE / LOCAL_MEM_BANKS``."""
        return self.local_mem_bytes // self.bank_num

    @property
    def align_bytes(self) -> int:
        """``ALIGN_BYTES = EU_NUM(fp32) * sizeof(float)``, i.e. :attr:`eu_bytes`."""
        return self.eu_bytes

    @property
    def total_local_mem_bytes(self) -> int:
        """Size of the local address space: every lane's memory, lane-major."""
        return self.npu_num * self.local_mem_bytes

    def eu_num(self, bits: int) -> int:
        """Elements of ``bits`` width per EU row (``tpu_eu_num``): ``eu_bytes * 8 / bits``."""
        return self.eu_bytes * 8 // bits

    def __str__(self) -> str:
        return self.name


CHIPS: dict[str, Chip] = {
    chip.name: chip
    for chip in (
        Chip(
            name="BM1684X",
            npu_num=64,
            local_mem_bytes=256 * KiB,  # 256 KiB per lane
            bank_num=16,
            eu_bytes=64,
            select_compare_dtypes=_PREC_0_TO_5,
            select_value_dtypes=_PREC_0_TO_5,
            select_equal_width_compare_dtypes=_FLOAT_WIDER_THAN_8,
            gdma_max_w_stride_bytes=128,
            set_c_max_stride=(1 << 18) - 1,
            oracle="libcmodel_bm1684x.so (tpu_mlir 1.30.2)",
            source=semantics("7.1", "8.4", "9.1"),  # BM1684X.h and the cmodel's asserts
        ),
        Chip(
            name="BM1688",
            aliases=("CV186X",),
            npu_num=32,
            local_mem_bytes=128 * KiB,  # 128 KiB per lane
            bank_num=16,
            eu_bytes=16,
            select_compare_dtypes=_PREC_0_TO_5,
            select_value_dtypes=_PREC_0_TO_5,
            select_equal_width_compare_dtypes=_FLOAT_WIDER_THAN_8,
            gdma_max_w_stride_bytes=64,
            set_c_max_stride=INT32_MAX,
            oracle="libcmodel_bm1688.so (tpu_mlir 1.30.2)",
            source=semantics("7.1", "8.4", "9.1"),  # BM1688.h and the cmodel's asserts
        ),
        Chip(
            name="SG2260",
            aliases=("BM1690",),
            npu_num=64,
            local_mem_bytes=256 * KiB,  # 256 KiB per lane
            bank_num=16,
            eu_bytes=64,  # "vector length 512bit"
            # FP8 compare (e5m2, e4m3fn; subnormals not flushed) exists only on the TPU1686 generation.
            select_compare_dtypes=_PREC_0_TO_5 | _FP8,
            select_value_dtypes=_PREC_0_TO_5 | _FP8,
            # No AB_type_size == CD_type_size assert: FP16 -> FP32, BF16 -> INT32, FP8 -> 16/32-bit dst
            # compute as the document allows (bits(compare) <= bits(dst)).  The emulator computes the
            # mixes the document forbids, too (a wider compare type; max/min of unequal widths): npusim
            # rejects those by the document (module docstring).
            select_equal_width_compare_dtypes=_NO_EQUAL_WIDTH_RULE,
            gdma_dtypes=_DATA_MOVE_DTYPES | _FP8,
            gdma_max_w_stride_bytes=None,
            gdma_zero_w_stride=True,
            set_c_dtypes=_DATA_MOVE_DTYPES | _FP8,
            set_c_max_stride=(1 << 18) - 1,  # a stride of 1 << 18 asserts, as on BM1684X
            set_c_zero_stride_needs_extent_1=False,
            oracle="libtpuv7_emulator.so (tpu_mlir 1.30.2)",
            # BM1690.h; measured on the SG2260 emulator (tests/data/sophgo/*_oracle_sg2260.json.gz)
            source=semantics("7.1", "8.4"),
        ),
        Chip(
            name="CV184X",
            aliases=("MARS3",),
            npu_num=8,
            local_mem_bytes=64 * KiB,  # 64 KiB per lane
            bank_num=16,
            eu_bytes=16,
            # The mars3 build asserts AB and CD dtypes are neither FP32 nor FP16, and 0 <= prec <= 5
            # (FP8 asserts in both positions: atomic_fused_cmp_gen_cmd.c:60/61, libcmodel_cv184x.so).
            select_compare_dtypes=_PREC_0_TO_5 - {DT_FP32, DT_FP16},
            select_value_dtypes=_PREC_0_TO_5 - {DT_FP32, DT_FP16},
            # BF16 into a 32-bit dst asserts AB_type_size == CD_type_size (atomic_fused_cmp_gen_cmd.c:73,
            # libcmodel_cv184x.so), as on BM1684X/BM1688
            select_equal_width_compare_dtypes=frozenset({DT_BFP16}),
            gdma_max_w_stride_bytes=64,  # carried over from BM1688
            set_c_max_stride=INT32_MAX,  # carried over from BM1688
            oracle=None,
            source=semantics("7.1", "8.4"),  # MARS3.h, the cmodel's constants and its assert
        ),
    )
}

_BY_NAME: dict[str, Chip] = {}
for _chip in CHIPS.values():
    for _name in (_chip.name, *_chip.aliases):
        _BY_NAME[_name.upper()] = _chip


def known_chip_names() -> str:
    """``"BM1684X, BM1688 (CV186X), ..."``: every canonical name with its aliases."""
    return ", ".join(c.name + (f" ({'/'.join(c.aliases)})" if c.aliases else "") for c in CHIPS.values())


DEFAULT_CHIP = "BM1684X"


def get_chip(chip: str | Chip) -> Chip:
    """The :class:`Chip` called ``chip`` (case-insensitive; aliases accepted).

    Raises:
        TypeError: ``chip`` is neither a string nor a :class:`Chip`.
        UnsupportedError: no chip has that name; the message lists the known chips.
    """
    if isinstance(chip, Chip):
        return chip
    if not isinstance(chip, str):
        raise TypeError(f"chip must be a chip name (str) or a Chip, got {type(chip).__name__}")
    try:
        return _BY_NAME[chip.strip().upper()]
    except KeyError:
        raise UnsupportedError(
            "tpu.Core", "chip", chip, "unknown Sophgo chip", known_chip_names(), semantics("7.1", "10.5")
        ) from None


_DEFAULT: VendorDefault[Chip] = VendorDefault("npusim_sophgo_default_chip", DEFAULT_CHIP, get_chip)


def get_default_chip() -> Chip:
    """The chip a ``Core()`` created without a chip runs on (initially BM1684X)."""
    return _DEFAULT.get()


def set_default_chip(chip: str | Chip) -> None:
    """Make ``chip`` the chip of every later ``Core()`` that names none (``npusim run --chip``).

    Raises:
        UnsupportedError: for an unknown chip name.
    """
    _DEFAULT.set(chip)


def using_chip(chip: str | Chip) -> contextlib.AbstractContextManager[Chip]:
    """Within the block, ``Core()`` without a chip runs on ``chip``."""
    return _DEFAULT.using(chip)
