"""Sophgo TPU products as data: lane count, local-memory geometry, dtype rules.

One frozen, keyword-only :class:`Chip` per product.  Hardware constants are
stated once and derived quantities (bank size, EU count per dtype, total local
memory) are computed from them.  Every table names the document it comes from;
``sophgo-semantics §3.1`` is the lane/memory table, ``§4.1`` the dtype rules of
the fused-compare (select) instruction.

Look a chip up by name with :func:`get_chip` (case-insensitive, aliases such as
``"BM1690"`` accepted); an unknown name raises :class:`~npusim.errors.UnsupportedError`
listing the known names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnsupportedError
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

__all__ = ["CHIPS", "Chip", "get_chip", "known_chip_names"]

KiB = 1024

# The nine types whose PRECISION code is 0..5 (INT8, FP16, FP32, INT16, INT32, BF16), signed and
# unsigned.  The BM1684X and BM1688 fused-compare asserts `0 <= AB_prec <= 5` and `0 <= CD_prec <= 5`
# (sophgo-semantics §4.1; CD bound measured on both cmodels, atomic_fused_cmp_gen_cmd.c:59).
_PREC_0_TO_5 = frozenset(
    {DT_UINT8, DT_INT8, DT_FP16, DT_FP32, DT_UINT16, DT_INT16, DT_UINT32, DT_INT32, DT_BFP16}
)
_FP8 = frozenset({DT_FP8E5M2, DT_FP8E4M3})
_FLOAT_WIDER_THAN_8 = frozenset({DT_FP16, DT_BFP16, DT_FP32})


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
            oracle="libcmodel_bm1684x.so (tpu_mlir 1.30.2)",
            source="sophgo-semantics §3.1 (BM1684X.h, cmodel), §4.1 (cmodel asserts)",
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
            oracle="libcmodel_bm1688.so (tpu_mlir 1.30.2)",
            source="sophgo-semantics §3.1 (BM1688.h, cmodel), §4.1 (cmodel asserts)",
        ),
        Chip(
            name="SG2260",
            aliases=("BM1690",),
            npu_num=64,
            local_mem_bytes=256 * KiB,  # 256 KiB per lane
            bank_num=16,
            eu_bytes=64,  # "vector length 512bit"
            # FP8 compare exists only on the TPU1686 generation; FP8 may select into 16/32-bit dst.
            select_compare_dtypes=_PREC_0_TO_5 | _FP8,
            select_value_dtypes=_PREC_0_TO_5 | _FP8,
            select_equal_width_compare_dtypes=_FLOAT_WIDER_THAN_8,
            oracle=None,
            source="sophgo-semantics §3.1 (BM1690.h), §4.1 (nodechip_fused_cmp_perf_test dtype matrix)",
        ),
        Chip(
            name="CV184X",
            aliases=("MARS3",),
            npu_num=8,
            local_mem_bytes=64 * KiB,  # 64 KiB per lane
            bank_num=16,
            eu_bytes=16,
            # The mars3 build asserts AB and CD dtypes are neither FP32 nor FP16.
            select_compare_dtypes=_PREC_0_TO_5 - {DT_FP32, DT_FP16},
            select_value_dtypes=_PREC_0_TO_5 - {DT_FP32, DT_FP16},
            # carried over from BM1684X/BM1688 (a float compare cannot widen); not measured on CV184X
            select_equal_width_compare_dtypes=frozenset({DT_BFP16}),
            oracle=None,
            source="sophgo-semantics §3.1 (MARS3.h, cmodel constants), §4.1 (CV184X assert)",
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
            "tpu.Core", "chip", chip, "unknown Sophgo chip", known_chip_names()
        ) from None
