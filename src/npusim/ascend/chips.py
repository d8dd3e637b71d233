"""Ascend products as data.

One frozen :class:`AscendChip` per product row of the seed documents.  Every
behaviour that differs between products (UB size, where the API scratch lives,
which dtypes and modes an instruction accepts, whether a compare honours its
mask, whether CMPMASK keeps old bits) is a field here, never an ``if chip ==``
in instruction code.

Sources (paths in ``cannmirror/asc-devkit`` @0da921b9; the rules are stated, with the pages
they come from, in ``docs/semantics.md``, cited below as "§N"):

* UB sizes and ``TMP_UB_OFFSET``: ``impl/basic_api/utils/kernel_utils_constants.h`` (§1.7).
* Select modes/dtypes: ``Select.md`` and ``impl/basic_api/dav_*/kernel_operator_vec_*sel*_impl.h`` (§2.3, §2.4).
* Compare: ``Compare.md``, ``Compares.md``, ``Compare（结果存入寄存器）.md`` (§3.2-§3.5) and the
  lowerings in ``impl/basic_api/dav_{c220,m200,m300,3510}/kernel_operator_vec_cmp*_impl.h``;
  float semantics §3.7 (:data:`IEEE_COMPARE_SOURCE`).
* TransDataTo5HD dtypes: ``TransDataTo5HD.md`` "数据类型" (§4.4).
* TPipe pool size: ``TOTAL_VEC_LOCAL_SIZE`` in ``kernel_utils_constants.h``; queue buffer and
  event-ID limits: ``资源管理/Pipe和Que框架/TQue/TQue简介.md`` ("TQue Buffer限制") and ``AllocTensor.md``.
* Vector arithmetic dtypes: ``Memory矢量计算/基础算术/{Add,Sub,Mul,Max,Min,Abs,Adds,Muls}.md`` and
  ``数据填充/Duplicate.md`` ("数据类型"); count/repeat 0 as NOP: the same pages ("约束说明").
* Floating-point saturation default: ``特殊寄存器访问/SetCtrlSpr(ISASI).md`` (CTRL[48], tables 3-5).
* Data movement dtypes: ``数据搬运/GM与UB数据搬运/*(DataCopy).md`` and ``*(DataCopyPad).md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from ..context import VendorDefault
from ..errors import UnsupportedError
from ..sources import semantics

__all__ = [
    "AscendChip",
    "CHIPS",
    "COMPLEX",
    "CompareSupport",
    "DequantSupport",
    "IEEE_COMPARE_SOURCE",
    "OpDtypes",
    "SelectSupport",
    "get_chip",
    "get_default_chip",
    "products_where",
    "set_default_chip",
    "unsupported_on",
    "using_chip",
]

KIB = 1024

HALF_FLOAT = frozenset({"float16", "float32"})
B8_TO_B32 = frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"})
SEL_MASK_DTYPES = frozenset({"uint8", "uint16", "uint32", "uint64"})
B8_TO_B64 = B8_TO_B32 | {"bfloat16", "int64", "uint64", "float64"}
B8_TO_B64_NO_BF16 = B8_TO_B64 - {"bfloat16"}

# The Memory-level Compare pages are silent on NaN; the 950 register-level C API pages state IEEE-754
# unordered semantics, and the 950 double emulation (CompareEqualDoubleImpl) treats NaN as unequal and
# +0 == -0.  Assumed for every product; not confirmed on A2 hardware.
IEEE_COMPARE_SOURCE = (
    "SIMD-API/C-API/reg/compare_and_select/asc_ne_scalar.md 功能说明; "
    "SIMD-API/C-API/reg/compare_and_select/asc_gt_scalar.md 功能说明; " + semantics("3.7")
)


@dataclass(frozen=True, kw_only=True)
class SelectSupport:
    """How ``Select`` behaves on one product (docs/semantics.md §2.3, §2.4).

    Attributes:
        modes: SELMODE values accepted.
        dtypes: data types T of the high-dimensional (mask + repeat) forms.
        count_dtypes: data types T of the count (calCount) forms.
        lowering: ``"native"``: the API issues the ``vsel`` instruction (A2/A3, 310P, 910).
            Its tensor forms load CMPMASK first (mode 0: the first 16 bytes of selMask;
            mode 1: scalar copies; mode 2: the selMask address), clobbering any earlier
            compare result; its mask forms leave the mask in the vector mask register; its
            count forms end with the register reset to all ones in normal mode (docs/semantics.md §2.3).
            ``"vf"``: the API is a vector function on the register ISA (950, 310B, Kirin):
            mode 0 reads its bits straight from selMask, CMPMASK is left alone, the vector
            mask register too except where ``bitwise_mask_sets_register``, and in counter mode
            an integer mask is the count itself.
        scratch_offset_bytes: UB byte offset of the API scratch that modes 1 and 2 write
            (32 scalar copies, or 32 copies of the 32-bit selMask address); ``None`` if the
            product's lowering writes no scratch inside UB (docs/semantics.md §2.3).
        no_mask_modes: modes of the no-mask forms (vector mask and CMPMASK set beforehand).
        no_mask_spill_offset_bytes: UB offset where the software-emulated no-mask mode 0
            stores a copy of CMPMASK (950: ``GetRuntimeUBSize()``), ``None`` if none.
        bitwise_mask_sets_register: a ``"vf"`` lowering whose bitwise-mask (``mask[]``) forms call
            ``SetVectorMask<T>(mask[1], mask[0])`` before the vector function and leave it there,
            in normal and counter mode (``VselImpl`` in ``dav_3510/kernel_operator_vec_sel_impl.h``,
            ``dav_l300`` / ``dav_l311`` ``kernel_operator_vec_cmpsel_impl.h``); their contiguous-mask
            and count forms do not touch the register.  The native lowering always leaves its mask.
    """

    modes: frozenset[int]
    dtypes: frozenset[str]
    count_dtypes: frozenset[str]
    lowering: Literal["native", "vf"]
    scratch_offset_bytes: int | None
    no_mask_modes: frozenset[int]
    no_mask_spill_offset_bytes: int | None = None
    bitwise_mask_sets_register: bool = False


@dataclass(frozen=True, kw_only=True)
class CompareSupport:
    """How the Compare family behaves on one product (docs/semantics.md §3.2-§3.5, §3.7).

    Attributes:
        dtypes: T of ``Compare`` (tensor-tensor, to a UB bitmask).
        scalar_dtypes: T of ``Compares`` / ``compare_scalar``.
        eq_only_dtypes: dtypes ``Compare`` accepts only with ``CMPMODE.EQ``.
        scalar_eq_only_dtypes: dtypes ``Compares`` accepts only with ``CMPMODE.EQ``.
        count_only_dtypes: dtypes only accepted by the count forms.
        dst_dtypes: U, the bitmask tensor type of ``Compare`` (Compare.md 数据类型).
        scalar_dst_dtypes: U of ``Compares`` (Compares.md 数据类型).
        register_dtypes: T of compare-to-CMPMASK (Compare（结果存入寄存器）.md: half, float).
        mask_honoured: the high-dim mask selects lanes (masked-off bits written as 0);
            ``False``: the mask is a reserved parameter and every bit is computed (docs/semantics.md §3.2).
        counter_mode_modelled: in counter mask mode the high-dim forms take their element
            count from the mask (950 VF emulation, ``CompareLevel0CounterMode``); ``False``:
            the product's ``vcmpv``/``vcmp`` has no documented counter-mode behaviour (docs/semantics.md §3.8),
            so npusim rejects any compare issued in counter mode instead of guessing.
        mask_arg_sets_register: the call forms whose ``mask`` argument (with ``is_set_mask``)
            is left in the vector mask register: ``"compare_bits"``, ``"compares_bits"``,
            ``"register_bits"`` (bitwise ``mask[]`` forms) and ``"register_len"`` (contiguous).
            A2: ``VcmpImpl`` calls ``SetMask`` in both register forms; 950: the ``mask[]``
            forms call ``SetVectorMask``; 310B: only ``Compares`` with ``mask[]`` does.
        register_compare: compare-to-CMPMASK is available.
        register_keeps_masked_bits: compare-to-CMPMASK leaves masked-off bits unchanged
            (hardware ``vcmp``, ``asc_lt.md``); ``False``: the whole register is rewritten,
            inactive bits 0 (950 emulation, docs/semantics.md §3.5).
        register_scratch_offset_bytes: UB offset where compare-to-CMPMASK stages its result
            bits (950: ``GetTemporaryBufferAddr(GetRuntimeUBSize())``), ``None`` if none.
        float_semantics: how floating-point lanes compare. ``"ieee754"``: unordered NaN
            (NE true, every other mode false) and +0 == -0 (:data:`IEEE_COMPARE_SOURCE`).
    """

    dtypes: frozenset[str]
    scalar_dtypes: frozenset[str]
    eq_only_dtypes: frozenset[str] = frozenset()
    scalar_eq_only_dtypes: frozenset[str] = frozenset()
    count_only_dtypes: frozenset[str] = frozenset()
    dst_dtypes: frozenset[str] = frozenset({"int8", "uint8"})
    scalar_dst_dtypes: frozenset[str] = frozenset({"uint8"})
    register_dtypes: frozenset[str] = HALF_FLOAT
    mask_honoured: bool = False
    counter_mode_modelled: bool = False
    mask_arg_sets_register: frozenset[str] = frozenset()
    register_compare: bool = False
    register_keeps_masked_bits: bool = True
    register_scratch_offset_bytes: int | None = None
    float_semantics: Literal["ieee754"] = "ieee754"


@dataclass(frozen=True)
class OpDtypes:
    """Element types one vector instruction accepts on one product.

    Attributes:
        dtypes: T of every form (count, mask and no-mask).
        count_only: extra T accepted only by the count (first n elements) form.
    """

    dtypes: frozenset[str]
    count_only: frozenset[str] = frozenset()

    def for_form(self, count_form: bool) -> frozenset[str]:
        return self.dtypes | self.count_only if count_form else self.dtypes


@dataclass(frozen=True, kw_only=True)
class DequantSupport:
    """SetDeqScale, CastDequant and Cast's int32 -> half dequantisation on one product (docs/semantics.md §5.21).

    Attributes:
        shared_register: the half scale and the int16 -> b8 word are one hardware register, DEQSCALE, so
            each prototype of SetDeqScale replaces what the other left (dav_c220, dav_m200 ``set_deqscale``);
            on the 950 the API keeps them in two variables (dav_3510 ``g_deqValue``, ``g_deqScale``).
        vdeq_address_shift: the vector prototype stores the table's UB address shifted right by this
            (5: in 32-byte units, dav_c220 / dav_m200; 0: the address itself, dav_3510).
        cast_dequant_pairs: the (src, dst) dtype pairs of CastDequant (CastDequant.md 数据类型).
        b8_unmodelled: why npusim does not model int16 -> b8 here (``""``: it does).
        mask_forms_unmodelled: why npusim does not model CastDequant's mask forms here (``""``: it does).
        half_saturates: the float -> half step of int32 -> half follows the CTRL[48] saturation switch, as
            Cast does; ``False``: it never saturates (dav_3510 ``f322F16CastTrait`` is ``NO_SAT``).
        add_deq_relu: how AddDeqRelu runs (AddDeqRelu.md 产品支持情况, docs/semantics.md §5.22): ``"staged"``, the
            A2/A3 API's instruction sequence, which leaves intermediates in src0, src1 and the API scratch
            (dav_c220 ``AddDeqReluCompute``); ``"native"``, one ``vadddeqrelu`` (dav_m200); ``"vf"``, a vector
            function (dav_3510); ``None``: not supported.
    """

    shared_register: bool
    vdeq_address_shift: int
    cast_dequant_pairs: frozenset[tuple[str, str]]
    b8_unmodelled: str = ""
    mask_forms_unmodelled: str = ""
    half_saturates: bool = True
    add_deq_relu: Literal["staged", "native", "vf"] | None = None


_DEQ_B8 = frozenset({("int16", "int8"), ("int16", "uint8")})
_NATIVE_DEQUANT = DequantSupport(shared_register=True, vdeq_address_shift=5,
                                 cast_dequant_pairs=_DEQ_B8 | {("int32", "float16")}, add_deq_relu="staged")
_950_DEQUANT = DequantSupport(
    shared_register=False, vdeq_address_shift=0, cast_dequant_pairs=_DEQ_B8 | {("int32", "float16")},
    b8_unmodelled="the 950 emulates int16 -> b8 with vector functions that store whole 256-byte repeats "
                  "(the other half-blocks and the lanes past count included, dav_3510 CastDeqImplVF), which "
                  "npusim does not model",
    mask_forms_unmodelled="on the 950 the mask forms use 8 KB of UB as scratch (CastDequant.md 约束说明), "
                          "which npusim does not model",
    half_saturates=False, add_deq_relu="vf")


@dataclass(frozen=True, kw_only=True)
class AscendChip:
    """One Ascend product.

    Attributes:
        name: short name (``"A2"``).
        product: the product as the documents name it.
        soc_names: CANN SoC names that select this row.
        npu_arch: ``__NPU_ARCH__`` of its vector core, ``None`` if not documented.
        ub_bytes: Unified Buffer size modelled, in bytes.
        counter_mode: the hardware has the counter mask mode (910 emulates count forms).
        zero_mask_allowed: a normal-mode contiguous mask of 0 is a NOP (310P rejects it).
        cmpmask_api: ``SetCmpMask`` / ``GetCmpMask`` are available (``SetCmpMask(ISASI).md``,
            ``GetCmpMask(ISASI).md`` 产品支持情况: not on 310B, the 310P Vector Core or the 910).
        c_api: the ``asc_*`` C API exists (A2/A3 only, docs/semantics.md §2.6, §3.6); the functions whose pages
            list the 950 too (asc_set_va_reg, asc_transto5hd, the GM copies) go by ``npu_arch`` instead (§5.31).
        select: Select support, ``None`` where the documents say "not supported".
        compare: Compare support, ``None`` where not supported.
        transdata_dtypes: TransDataTo5HD dtypes, empty where not supported.
        transdata_address_tensor: TransDataTo5HD takes its address lists from ``LocalTensor<uint64_t>``
            (``TransDataTo5HDVldVaRegImpl``); ``False`` on the 910, whose ``dav_c100`` implementation
            asserts "use LocalTensor for storage address in TransDataTo5HD is not supported".
        vec_local_bytes: UB bytes ``TPipe.init_buffer`` may hand out, from address 0
            (``TOTAL_VEC_LOCAL_SIZE``); above it lies the API scratch (``TMP_UB_OFFSET``, docs/semantics.md §1.7).
            ``None`` where the TPipe/TQue framework is not supported (310P Vector Core).
        hard_event_ids: hardware event IDs per pipe pair (8, 4 on the 910); this also bounds the
            queue buffers allocated at once on one TPosition (``TQue简介.md``, ``AllocTensor.md``)
            and the ``event_id`` of ``set_flag``/``wait_flag``.
        vector_lowering: ``"native"``: vector APIs issue the instruction and leave their mask in the
            vector mask register, count forms end in normal mode with the register all ones (A2/A3,
            310P, 910); ``"vf"``: the APIs are vector functions on the register ISA and leave the
            mask registers alone (950, 310B, Kirin) (docs/semantics.md §1.4, §2.3).
        zero_repeat_nop: ``count = 0`` / ``repeat_times = 0`` of a vector instruction is a NOP; on
            the 950 the documents say a NOP is not guaranteed (Add.md "约束说明").
        vector_dtypes: per vector instruction (``"add"``, ``"abs"``, ``"duplicate"`` ...), its dtypes.
        float_saturation_dtypes: float types whose computed inf results saturate to ±MAX and NaN
            results to 0 in the power-on control-register state (CTRL[48] = 0, SetCtrlSpr(ISASI).md).
        saturation_flag_api: ``SetSaturationFlag`` exists (A2/A3).
        data_copy_dtypes: dtypes of ``DataCopy`` (GM<->UB, UB<->UB).
        data_copy_pad_dtypes: dtypes of ``DataCopyPad``; empty where it is not supported.
        data_copy_slice_dtypes: dtypes of ``DataCopy`` with ``SliceInfo`` (GM与UB切片数据搬运(DataCopy).md
            数据类型); empty where it is not supported.
        nd2nz_dtypes, nz2nd_dtypes: dtypes of ``DataCopy`` with ``Nd2NzParams`` / ``Nz2NdParamsFull``
            (their pages' 数据类型); empty where not supported.
        nz_copy_unmodelled: ``"nd2nz:<dtype>"`` / ``"nz2nd:<dtype>"`` (``*``: every dtype) whose lowering on
            this product does something other than the page describes, with what it does; npusim rejects
            them (docs/semantics.md §5.10).
        reduce_sum_spr: a count-form ``ReduceSum`` of half/float leaves its result where
            ``GetReduceRepeatSumSpr`` reads it (A2/A3: the ACC register; 950: a block-local copy).
        gatherb_dtypes: dtypes of ``Gatherb`` (Gatherb(ISASI).md 数据类型); empty where not supported.
        pad_value_api: ``SetPadValue`` exists.
        copy_pad_fills_first: ``DataCopyPad`` GM -> UB with ``isPad`` false and left/right padding fills the
            pads with each block's first element, not the padding register its page names (the 950: dav_3510
            ``DataCopyPadGm2UBImpl`` passes ``isPad`` as ``copy_gm_to_ubuf_align_v2``'s ``enable_constant_pad``,
            whose false is "填充值为输入数据的第一个值", asc_copy_gm2ub_align_arch_3510.md 参数说明); npusim does
            so under the hardware policy and rejects the call under strict (docs/semantics.md §5.2).
        loop_mode_api: ``SetLoopModePara`` / ``ResetLoopModePara`` exist, and GM <-> UB copies follow the
            loop-mode registers (950 only).
        data_copy_zero_nop: ``block_count = 0`` or ``block_len = 0`` is a NOP (A2/A3, 950); on the
            other products the documents do not say, and npusim rejects it.
        dequant: SetDeqScale / CastDequant support (:class:`DequantSupport`), ``None`` where SetDeqScale.md
            says 不支持 (310B, the 310P Vector Core, the 910, Kirin).
        local_mem_allocator: LocalMemAllocator exists (its pages: the 950, A2/A3 and the 310P AI Core and Vector
            Core; not the 310B, the 910 or Kirin, which they do not list; docs/semantics.md §5.36).
        scalar_compute: the scalar-unit computations (标量计算, docs/semantics.md §5.35) the product has, by page
            group (each page's 产品支持情况): ``"bits"`` (GetBitCount, CountLeadingZero, CountBitsCntSameAsSignBit,
            GetSFFValue, Cast（float转half-int32_t）), ``"bfloat16"`` (Cast（float转bfloat16_t）,
            Cast（多类型转float）), ``"950_float"`` (Cast（多类型转float）from hifloat8_t, fp8, fp4),
            ``"regbase"`` (CeilDivision, Nop), ``"c_api"`` (asc_clz ... asc_clear_nthbit), ``"c_api_float2int32"``
            (asc_float2int32_*'s scalar form).
        source: where this row's numbers come from.
    """

    name: str
    product: str
    soc_names: tuple[str, ...]
    npu_arch: int | None
    ub_bytes: int
    counter_mode: bool = True
    zero_mask_allowed: bool = True
    cmpmask_api: bool = True
    c_api: bool = False
    select: SelectSupport | None = None
    compare: CompareSupport | None = None
    transdata_dtypes: frozenset[str] = field(default_factory=frozenset)
    transdata_address_tensor: bool = True
    vec_local_bytes: int | None = None
    hard_event_ids: int = 8
    vector_lowering: Literal["native", "vf"] = "native"
    zero_repeat_nop: bool = True
    vector_dtypes: dict[str, OpDtypes] = field(default_factory=dict, hash=False)
    float_saturation_dtypes: frozenset[str] = frozenset()
    saturation_flag_api: bool = False
    data_copy_dtypes: frozenset[str] = B8_TO_B64_NO_BF16
    data_copy_pad_dtypes: frozenset[str] = frozenset()
    data_copy_slice_dtypes: frozenset[str] = frozenset()
    nd2nz_dtypes: frozenset[str] = frozenset()
    nz2nd_dtypes: frozenset[str] = frozenset()
    nz_copy_unmodelled: dict[str, str] = field(default_factory=dict, hash=False)
    gatherb_dtypes: frozenset[str] = frozenset()
    reduce_sum_spr: bool = False
    pad_value_api: bool = False
    copy_pad_fills_first: bool = False
    loop_mode_api: bool = False
    data_copy_zero_nop: bool = False
    dequant: DequantSupport | None = None
    local_mem_allocator: bool = False
    scalar_compute: frozenset[str] = frozenset()
    source: str = ""


# -------------------------------------------------------------------- rows
_A2_A3_SELECT = SelectSupport(
    modes=frozenset({0, 1, 2}),
    dtypes=HALF_FLOAT,
    count_dtypes=HALF_FLOAT,
    lowering="native",
    scratch_offset_bytes=184 * KIB,  # TMP_UB_OFFSET on 2201 (docs/semantics.md §1.7, §2.3)
    no_mask_modes=frozenset({0, 1, 2}),
)
_A2_A3_COMPARE = CompareSupport(
    dtypes=HALF_FLOAT | {"int32"},
    scalar_dtypes=HALF_FLOAT | {"int32"},
    eq_only_dtypes=frozenset({"int32"}),
    scalar_eq_only_dtypes=frozenset({"int32"}),
    mask_honoured=False,
    mask_arg_sets_register=frozenset({"register_bits", "register_len"}),  # dav_c220 VcmpImpl: SetMask
    register_compare=True,
    register_keeps_masked_bits=True,
)

# ------------------------------------------------- vector arithmetic and fill dtypes
# "数据类型" sections of 基础算术/{Add,Sub,Mul,Max,Min,Abs,Adds,Muls}.md and 数据填充/Duplicate.md.
# The 950's 4/8-bit float types are not modelled here (hifloat8_t: only Cast's lines, docs/semantics.md §5.32;
# fp4x2_e2m1_t: only Cast's lines, §5.33);
# its complex32/complex64 (count forms only) are (docs/semantics.md §5.29).
_INT16_HALF_INT32_FLOAT = frozenset({"int16", "float16", "int32", "float32"})
_B16_B32 = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
_B8_B64_INT = frozenset({"int8", "uint8", "int64", "uint64"})
COMPLEX = frozenset({"complex32", "complex64"})


def _vector_dtypes(*, binary: frozenset[str], abs_: frozenset[str], scalar: frozenset[str],
                   duplicate: frozenset[str]) -> dict[str, OpDtypes]:
    """The table of one product whose forms all take the same dtypes (every product but the 950)."""
    return {
        "add": OpDtypes(binary), "sub": OpDtypes(binary), "mul": OpDtypes(binary),
        "max": OpDtypes(binary), "min": OpDtypes(binary), "abs": OpDtypes(abs_),
        "adds": OpDtypes(scalar), "muls": OpDtypes(scalar), "duplicate": OpDtypes(duplicate),
    }


_A2_A3_VECTOR = _vector_dtypes(binary=_INT16_HALF_INT32_FLOAT, abs_=HALF_FLOAT, scalar=_INT16_HALF_INT32_FLOAT,
                               duplicate=_B16_B32)
_950_VECTOR = {
    "add": OpDtypes(_B16_B32, _B8_B64_INT | COMPLEX),
    "sub": OpDtypes(_B16_B32, _B8_B64_INT | COMPLEX),
    "mul": OpDtypes(_B16_B32, frozenset({"int64", "uint64"}) | COMPLEX),
    "max": OpDtypes(_B16_B32, _B8_B64_INT),
    "min": OpDtypes(_B16_B32, _B8_B64_INT),
    "abs": OpDtypes(_INT16_HALF_INT32_FLOAT, frozenset({"int8", "int64"})),  # complex sources: COMPLEX_ABS
    "adds": OpDtypes(_INT16_HALF_INT32_FLOAT | {"bfloat16"}, _B8_B64_INT | COMPLEX),
    "muls": OpDtypes(_INT16_HALF_INT32_FLOAT | {"bfloat16"}, frozenset({"int64", "uint64"}) | COMPLEX),
    # Duplicate.md: hifloat8_t in the count form only; its scalar is a hifloat8_t value (scalars.py, §5.32)
    # and fp8_e8m0_t (npusim's float8_e8m0fnu) the same way (§5.34)
    "duplicate": OpDtypes(_B16_B32, _B8_B64_INT | {"float8_e5m2", "float8_e4m3fn", "hifloat8", "float8_e8m0fnu"}
                          | COMPLEX),
}
# the data-movement pages of the 950 (DataCopy GM<->UB, UB->UB, DataCopyPad, SetPadValue, the slice copy, NZ2ND)
# list complex32 and complex64: their elements move as bytes of their size (docs/semantics.md §5.29)
_DATA_COPY_PAD_950 = B8_TO_B64 | COMPLEX

KIB_184 = 184 * KIB  # TOTAL_VEC_LOCAL_SIZE on 2201 and 3002 (kernel_utils_constants.h)
KIB_248 = 248 * KIB  # TOTAL_VEC_LOCAL_SIZE on 1001, 2002 and 3510

_950_SELECT_T = frozenset({"float16", "int16", "uint16", "int32", "uint32", "float32", "bfloat16"})
_950_COMPARE_T = _950_SELECT_T | {"int8", "uint8", "int64", "uint64", "float64"}

_A2 = AscendChip(
    name="A2",
    product="Atlas A2 training/inference series",
    soc_names=("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"),
    npu_arch=2201,
    ub_bytes=192 * KIB,
    c_api=True,
    select=_A2_A3_SELECT,
    compare=_A2_A3_COMPARE,
    transdata_dtypes=B8_TO_B32,
    vec_local_bytes=KIB_184,
    vector_dtypes=_A2_A3_VECTOR,
    float_saturation_dtypes=frozenset({"float16", "bfloat16"}),  # CTRL[48] = 0 at power-on (table 4/5)
    saturation_flag_api=True,
    data_copy_dtypes=B8_TO_B64,
    data_copy_pad_dtypes=B8_TO_B64,
    data_copy_slice_dtypes=B8_TO_B32 | {"bfloat16"},
    gatherb_dtypes=frozenset({"uint16", "uint32"}),
    reduce_sum_spr=True,
    nd2nz_dtypes=B8_TO_B32 | {"bfloat16"},
    nz2nd_dtypes=_B16_B32,
    nz_copy_unmodelled={"nd2nz:float32": "in its float specialisation (dav_c220 DataCopyGM2UBND2NZImpl<float>) "
                                         "cuts rows into 16-element pieces, the page into 32 bytes"},
    pad_value_api=True,
    data_copy_zero_nop=True,
    dequant=_NATIVE_DEQUANT,
    local_mem_allocator=True,
    scalar_compute=frozenset({"bits", "bfloat16", "c_api"}),
    source=semantics("1.7", "2.4", "3.4", "4.4"),
)

_KIRIN_X90 = AscendChip(
    name="KirinX90",
    product="Kirin X90",
    soc_names=("KirinX90", "kirinx90"),
    npu_arch=3003,
    ub_bytes=118 * KIB,
    select=SelectSupport(
        modes=frozenset({0, 1, 2}),
        dtypes=frozenset({"float16", "int16", "uint16", "int32", "uint32", "float32"}),
        count_dtypes=B8_TO_B32,
        lowering="vf",
        scratch_offset_bytes=None,  # TMP_UB_OFFSET = 118 KiB = end of UB
        no_mask_modes=frozenset({0, 1, 2}),
        bitwise_mask_sets_register=True,  # dav_l300 / dav_l311 VselImpl(mask[]): SetVectorMask
    ),
    compare=CompareSupport(
        dtypes=HALF_FLOAT | {"int32"},
        scalar_dtypes=HALF_FLOAT | {"int32"},
        eq_only_dtypes=frozenset({"int32"}),
        scalar_eq_only_dtypes=frozenset({"int32"}),
        dst_dtypes=frozenset({"uint8"}),  # Compare.md: Kirin U is uint8_t only
        register_compare=False,
    ),
    transdata_dtypes=B8_TO_B32,
    vec_local_bytes=118 * KIB,
    vector_lowering="vf",
    vector_dtypes=_vector_dtypes(binary=_INT16_HALF_INT32_FLOAT, abs_=HALF_FLOAT,
                                 scalar=_INT16_HALF_INT32_FLOAT, duplicate=frozenset({"float16"})),
    scalar_compute=frozenset({"bits"}),
    source=semantics("0.2", "1.7", "2.4", "3.4", "4.4"),
)

_ROWS = (
    AscendChip(
        name="950",
        product="Ascend 950PR/Ascend 950DT",
        soc_names=("Ascend950PR_9599", "Ascend950DT_9599", "Ascend950PR", "Ascend950DT"),
        npu_arch=3510,
        ub_bytes=256 * KIB,
        select=SelectSupport(
            modes=frozenset({0, 1, 2}),
            dtypes=_950_SELECT_T,
            count_dtypes=_950_SELECT_T | {"int8", "uint8", "int64", "uint64"} | COMPLEX,  # Select.md 数据类型
            lowering="vf",
            scratch_offset_bytes=None,
            no_mask_modes=frozenset({0, 1, 2}),
            no_mask_spill_offset_bytes=248 * KIB,  # GetRuntimeUBSize() = 256 KiB - 8 KiB
            bitwise_mask_sets_register=True,  # dav_3510 VselImpl(mask[]) L422, L572, L700, L912
        ),
        compare=CompareSupport(
            dtypes=_950_COMPARE_T,
            scalar_dtypes=_950_COMPARE_T,
            # Compare.md lists double with every CMPMODE; only Compares.md restricts it to EQ.
            scalar_eq_only_dtypes=frozenset({"float64"}),
            count_only_dtypes=frozenset({"int8", "uint8", "int64", "uint64", "float64"}),
            mask_honoured=True,
            counter_mode_modelled=True,
            mask_arg_sets_register=frozenset({"compare_bits", "compares_bits", "register_bits"}),
            register_compare=True,
            register_keeps_masked_bits=False,
            register_scratch_offset_bytes=248 * KIB,  # GetRuntimeUBSize() = 256 KiB - 8 KiB
        ),
        transdata_dtypes=B8_TO_B32 | {"bfloat16"},
        vec_local_bytes=KIB_248,
        vector_lowering="vf",
        zero_repeat_nop=False,
        vector_dtypes=_950_VECTOR,
        float_saturation_dtypes=frozenset({"float16"}),  # CTRL[60] = 1 and CTRL[48] = 0 at power-on
        # UBToUB连续数据搬运 / UBToUB高维切分数据搬运(DataCopy).md list hifloat8_t (its codes move as bytes, §5.32);
        # GM与UB连续 / 高维切分数据搬运(DataCopy).md say b8, which hifloat8_t and fp8_e8m0_t are (GM buffers of them:
        # gm_codes, gm_alloc; §5.32, §5.34)
        data_copy_dtypes=B8_TO_B64 | COMPLEX | {"hifloat8", "float8_e8m0fnu"},
        data_copy_pad_dtypes=_DATA_COPY_PAD_950,
        loop_mode_api=True,
        gatherb_dtypes=B8_TO_B64 - {"float64"},
        reduce_sum_spr=True,
        # the pages' bool is not modelled; their hifloat8_t and fp8_e8m0_t move as 1-byte codes (GM buffers of them:
        # gm_codes / gm_alloc; docs/semantics.md §5.32 "Moving hifloat8_t elements", §5.34)
        data_copy_slice_dtypes=B8_TO_B64 | {"float8_e4m3fn", "float8_e5m2", "hifloat8", "float8_e8m0fnu"} | COMPLEX,
        nd2nz_dtypes=B8_TO_B32 | {"bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8", "float8_e8m0fnu",
                                  "complex32"},
        nz2nd_dtypes=B8_TO_B64 | {"float8_e4m3fn", "float8_e5m2", "hifloat8", "float8_e8m0fnu"} | COMPLEX,
        nz_copy_unmodelled={f"nz2nd:{name}": "(dav_3510 DataCopyUB2GMNZ2NDImplBase) reads 8-bit NZ rows 32 bytes "
                                             "apart, the page 16 elements"
                            for name in ("int8", "uint8", "float8_e4m3fn", "float8_e5m2", "hifloat8",
                                         "float8_e8m0fnu")},  # one template for every T: any 1-byte type
        pad_value_api=True,
        copy_pad_fills_first=True,
        data_copy_zero_nop=True,
        dequant=_950_DEQUANT,
        local_mem_allocator=True,
        scalar_compute=frozenset({"bits", "bfloat16", "950_float", "regbase", "c_api", "c_api_float2int32"}),
        source=semantics("0.2", "1.7", "2.4", "3.4", "4.4"),
    ),
    replace(
        _A2,
        name="A3",
        product="Atlas A3 training/inference series",
        soc_names=("Ascend910_9391", "Ascend910_9392", "Ascend910_9381", "Ascend910_9382", "Ascend910_9372"),
    ),
    _A2,
    AscendChip(
        name="310B",
        product="Atlas 200I/500 A2 inference",
        soc_names=("Ascend310B1", "Ascend310B"),
        npu_arch=3002,
        ub_bytes=248 * KIB,  # TOTAL_UB_SIZE; its TMP_UB_OFFSET (248 KiB) lies past the modelled UB
        cmpmask_api=False,  # dav_m300 GetCmpMaskImpl/SetCmpMaskImpl report "not support"
        select=SelectSupport(
            modes=frozenset({0, 1, 2}),
            dtypes=HALF_FLOAT,
            count_dtypes=HALF_FLOAT,
            lowering="vf",
            scratch_offset_bytes=None,
            no_mask_modes=frozenset(),  # dav_m300 SelectCal asserts
        ),
        compare=CompareSupport(
            dtypes=HALF_FLOAT,
            scalar_dtypes=frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"}),
            mask_honoured=True,
            mask_arg_sets_register=frozenset({"compares_bits"}),  # dav_m300 VcmpvsImpl(mask[]): SetVectorMask
            register_compare=False,  # dav_m300 VcmpImpl: "Compare written to CMPMASK" not supported
        ),
        transdata_dtypes=B8_TO_B32,
        vec_local_bytes=KIB_184,
        vector_lowering="vf",
        vector_dtypes=_vector_dtypes(binary=_INT16_HALF_INT32_FLOAT, abs_=HALF_FLOAT | {"int16"},
                                     scalar=_INT16_HALF_INT32_FLOAT, duplicate=_B16_B32),
        data_copy_dtypes=B8_TO_B64,
        data_copy_pad_dtypes=B8_TO_B32,
        gatherb_dtypes=B8_TO_B64 - {"float64", "uint64"},
        source=semantics("1.7", "2.4", "3.2", "3.4", "4.4"),
    ),
    AscendChip(
        name="310P",
        product="Atlas inference series AI Core",
        soc_names=("Ascend310P1", "Ascend310P3", "Ascend310P"),
        npu_arch=2002,
        ub_bytes=256 * KIB,
        zero_mask_allowed=False,  # CheckMaskValue: "mask cannot be 0 in normal mode" on 2002 (docs/semantics.md §1.3)
        select=SelectSupport(
            modes=frozenset({0, 1, 2}),
            dtypes=HALF_FLOAT,
            count_dtypes=HALF_FLOAT,
            lowering="native",
            scratch_offset_bytes=248 * KIB,
            no_mask_modes=frozenset({0, 1, 2}),
        ),
        compare=CompareSupport(
            dtypes=HALF_FLOAT,
            scalar_dtypes=HALF_FLOAT,
            mask_arg_sets_register=frozenset({"register_bits", "register_len"}),  # dav_m200 VcmpImpl: SetMask
            register_compare=True,
            register_keeps_masked_bits=True,
        ),
        transdata_dtypes=B8_TO_B32,
        vec_local_bytes=KIB_248,
        vector_dtypes=_A2_A3_VECTOR,
        data_copy_slice_dtypes=B8_TO_B32,
        nd2nz_dtypes=B8_TO_B32,
        nz2nd_dtypes=_B16_B32 - {"bfloat16"},
        nz_copy_unmodelled={"nd2nz:*": "(dav_m200 DataCopyGM2UBSingleImpl) takes srcDValue in DataBlocks, the "
                                       "page in elements"},
        dequant=replace(_NATIVE_DEQUANT, cast_dequant_pairs=_DEQ_B8, add_deq_relu="native"),
        local_mem_allocator=True,
        scalar_compute=frozenset({"bits"}),
        source=semantics("1.7", "2.4", "3.4", "4.4"),
    ),
    AscendChip(
        name="310P-VEC",
        product="Atlas inference series Vector Core",
        soc_names=("Ascend310P1-VEC", "Ascend310P3-VEC"),
        npu_arch=None,
        ub_bytes=256 * KIB,  # not documented; assumed equal to the AI Core's
        cmpmask_api=False,
        local_mem_allocator=True,
        source=semantics("2.4", "4.4"),  # Select and TransDataTo5HD not supported on the Vector Core
    ),
    AscendChip(
        name="910",
        product="Atlas training series",
        soc_names=("Ascend910A", "Ascend910ProA", "Ascend910PremiumA", "Ascend910"),
        npu_arch=1001,
        ub_bytes=256 * KIB,
        counter_mode=False,  # count forms are emulated with full repeats + a tail repeat (docs/semantics.md §1.4)
        cmpmask_api=False,  # SetCmpMask(ISASI).md / GetCmpMask(ISASI).md: Atlas 训练系列产品 不支持
        select=SelectSupport(
            modes=frozenset({0}),
            dtypes=HALF_FLOAT,
            count_dtypes=HALF_FLOAT,
            lowering="native",
            scratch_offset_bytes=None,
            no_mask_modes=frozenset({0}),
        ),
        compare=CompareSupport(dtypes=HALF_FLOAT, scalar_dtypes=frozenset(), register_compare=False),
        transdata_dtypes=frozenset({"int8", "uint8", "int16", "uint16", "float16"}),
        transdata_address_tensor=False,  # dav_c100 TransDataTo5HDVldVaRegImpl: "not supported"
        vec_local_bytes=KIB_248,
        hard_event_ids=4,  # TQue简介.md: 4 event IDs on the Atlas training series
        vector_dtypes=_vector_dtypes(binary=frozenset({"float16", "int32", "float32"}), abs_=HALF_FLOAT,
                                     scalar=HALF_FLOAT, duplicate=_B16_B32),
        source=semantics("1.7", "2.4", "3.4", "4.4"),
    ),
    _KIRIN_X90,
    replace(_KIRIN_X90, name="Kirin9030", product="Kirin 9030", soc_names=("Kirin9030", "kirin9030"), npu_arch=3113,
            source=semantics("0.2", "1.7", "2.4", "3.4", "4.4")),
)

CHIPS: dict[str, AscendChip] = {row.name: row for row in _ROWS}
_LOOKUP: dict[str, AscendChip] = {}
for _row in _ROWS:
    for _key in (_row.name, *_row.soc_names):
        _LOOKUP[_key.lower()] = _row
DEFAULT_CHIP = "A2"


def get_chip(name: str | AscendChip) -> AscendChip:
    """The product row for a short name (``"A2"``) or CANN SoC name (``"Ascend910B1"``).

    Raises:
        UnsupportedError: for an unknown name, listing the known ones.
    """
    if isinstance(name, AscendChip):
        return name
    if not isinstance(name, str):
        raise TypeError(f"Core: chip must be a product name (str), got {type(name).__name__}")
    try:
        return _LOOKUP[name.lower()]
    except KeyError:
        raise UnsupportedError(
            "Core",
            "chip",
            name,
            "unknown Ascend product",
            ", ".join(f"{r.name} ({'/'.join(r.soc_names[:1])})" for r in _ROWS),
            semantics("0.2", "10.5"),
        ) from None


def products_where(predicate: Callable[[AscendChip], bool]) -> str:
    """Short names of the products for which ``predicate`` holds, for error messages."""
    names = [row.name for row in _ROWS if predicate(row)]
    return ", ".join(names) if names else "none"


def unsupported_on(
    chip: AscendChip, instruction: str, what: str, predicate: Callable[[AscendChip], bool],
    source: str | None = None,
) -> UnsupportedError:
    """An :class:`UnsupportedError` saying ``what`` is not available on ``chip``.

    ``predicate`` tells which products do support it, so the message can list them;
    ``source`` is the page that says so (its ``产品支持情况`` table, as a rule).
    """
    return UnsupportedError(
        instruction,
        "product",
        f"{chip.name} ({chip.product})",
        f"{what} is not supported on this product",
        f"products that support it: {products_where(predicate)}",
        source,
    )


_DEFAULT: VendorDefault[AscendChip] = VendorDefault("npusim_ascend_default_chip", DEFAULT_CHIP, get_chip)


def get_default_chip() -> AscendChip:
    """The product a ``Core()`` or a kernel launch without an explicit chip runs on (initially A2)."""
    return _DEFAULT.get()


def set_default_chip(name: str | AscendChip) -> None:
    """Make ``name`` the product of every later ``Core()`` and launch that names no chip.

    ``npusim run FILE.py --chip NAME`` calls this before running the script.

    Raises:
        UnsupportedError: for an unknown product name.
    """
    _DEFAULT.set(name)


def using_chip(name: str | AscendChip) -> contextlib.AbstractContextManager[AscendChip]:
    """Within the block, ``Core()`` and launches without a chip run on ``name``."""
    return _DEFAULT.using(name)
