"""What an error's source may name: pages a user can open, and how to check one (docs/semantics.md §0.1).

A source is one or more citations joined by ``"; "``.  Each citation is

* a vendor page of :data:`VENDOR_PAGES` followed by one or more of that page's headings
  (``", "``-separated), e.g. ``SIMD-API/通用说明和约束.md 通用地址对齐约束``; or
* a file of this repository followed by one or more ``§N.N`` that are headings of that file,
  e.g. ``docs/semantics.md §1.5, §1.6``;

optionally followed by a detail in parentheses (`` (表4)``, `` (w stride ...)``).

The Ascend pages and their headings were read from ``cannmirror/asc-devkit`` at commit
``0da921b91aeb2abdc6e8d74423b0bbe7040c3fd1`` (``docs/zh/api/`` for ``SIMD-API/...``,
``docs/zh/`` for ``guide/...``); the Sophgo pages from the TPU-Kernel reference manual
(doc.sophgo.com, v22.12.01-v23.09.01, ``tpu_kernel/reference/html/usage/附录1_APIs/``) and the
SDK headers (``sophgo/tpu-mlir`` ``third_party/ppl/runtime/bm1684x/TPU1686/kernel/include/tpu_defs.h``,
``sophgo/torch-tpu`` ``firmware_core/include/tpu_kernel.h``).  A new citation of a page that is
not listed fails until the page is added here, after checking it exists there.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import npusim
from npusim.errors import ConstraintError

REPO = Path(__file__).resolve().parents[1]
NPUSIM_DIR = str(Path(npusim.__file__).resolve().parent)

_BASIC = "SIMD-API/基础API"
_VECTOR = f"{_BASIC}/Memory矢量计算"
_PIPE = f"{_BASIC}/资源管理/Pipe和Que框架"
_C_API = "SIMD-API/C-API"

# The section sets most API pages share (after the page's own title).
WITH_TYPES = ("产品支持情况", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明", "约束说明", "调用示例")
WITHOUT_TYPES = ("产品支持情况", "功能说明", "函数原型", "参数说明", "返回值说明", "约束说明", "调用示例")
C_API = ("产品支持情况", "功能说明", "函数原型", "参数说明", "返回值说明", "流水类型", "约束说明", "调用示例")
FRAMEWORK = ("产品支持情况", "功能说明", "函数原型", "参数说明", "约束说明", "返回值说明", "调用示例")
FRAMEWORK_NO_PARAMETERS = ("产品支持情况", "功能说明", "函数原型", "约束说明", "返回值说明", "调用示例")

ASCEND_PAGES: dict[str, tuple[str, ...]] = {
    # 标量计算 (docs/semantics.md §5.35)
    f"{_BASIC}/标量计算/Cast（float转bfloat16_t）.md": ("Cast（float转bfloat16_t）", *WITHOUT_TYPES),
    f"{_BASIC}/标量计算/Cast（float转half-int32_t）.md": ("Cast（float转half/int32_t）", *WITH_TYPES),
    f"{_BASIC}/标量计算/Cast（多类型转float）.md": ("Cast（多类型转float）", *WITH_TYPES),
    **{f"{_BASIC}/标量计算/{name}.md": (name, *WITHOUT_TYPES)
       for name in ("CeilDivision", "CountBitsCntSameAsSignBit", "CountLeadingZero", "GetBitCount", "GetSFFValue")},
    f"{_BASIC}/标量计算/Nop.md": ("Nop", "产品支持情况", "功能说明", "函数原型", "参数说明", "约束说明", "调用示例"),
    **{f"{_C_API}/scalar_compute/{name}.md": (name, *C_API)
       for name in ("asc_clz", "asc_ffs", "asc_ffz", "asc_popc", "asc_sflbits", "asc_zero_bits_cnt", "asc_set_nthbit",
                    "asc_clear_nthbit", "asc_float2int32")},
    f"{_C_API}/reg/compare_and_select/asc_ge_scalar.md": ("asc_ge_scalar", *C_API),
    f"{_C_API}/reg/compare_and_select/asc_gt_scalar.md": ("asc_gt_scalar", *C_API),
    f"{_C_API}/reg/compare_and_select/asc_ne_scalar.md": ("asc_ne_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_bfloat162float.md": ("asc_bfloat162float", *C_API),
    f"{_C_API}/vector_compute/asc_set_deq_scale.md": ("asc_set_deq_scale", *C_API),
    f"{_C_API}/vector_compute/asc_deq_int322half.md": ("asc_deq_int322half", *C_API),
    f"{_C_API}/vector_compute/asc_deq_int162b8.md": ("asc_deq_int162b8", *C_API),
    f"{_C_API}/vector_compute/asc_vdeq_int162b8.md": ("asc_vdeq_int162b8", *C_API),
    f"{_C_API}/vector_compute/asc_bfloat162int32.md": ("asc_bfloat162int32", *C_API),
    f"{_C_API}/vector_compute/asc_float2bfloat16.md": ("asc_float2bfloat16", *C_API),
    f"{_C_API}/vector_compute/asc_float2float.md": ("asc_float2float", *C_API),
    f"{_C_API}/vector_compute/asc_float2half.md": ("asc_float2half", *C_API),
    f"{_C_API}/vector_compute/asc_float2int16.md": ("asc_float2int16", *C_API),
    f"{_C_API}/vector_compute/asc_float2int32.md": ("asc_float2int32", *C_API),
    f"{_C_API}/vector_compute/asc_float2int64.md": ("asc_float2int64", *C_API),
    f"{_C_API}/vector_compute/asc_half2float.md": ("asc_half2float", *C_API),
    f"{_C_API}/vector_compute/asc_half2int16.md": ("asc_half2int16", *C_API),
    f"{_C_API}/vector_compute/asc_half2int32.md": ("asc_half2int32", *C_API),
    f"{_C_API}/vector_compute/asc_half2int4.md": ("asc_half2int4", *C_API),
    f"{_C_API}/vector_compute/asc_half2int8.md": ("asc_half2int8", *C_API),
    f"{_C_API}/vector_compute/asc_half2uint8.md": ("asc_half2uint8", *C_API),
    f"{_C_API}/vector_compute/asc_int162float.md": ("asc_int162float", *C_API),
    f"{_C_API}/vector_compute/asc_int162half.md": ("asc_int162half", *C_API),
    f"{_C_API}/vector_compute/asc_int322float.md": ("asc_int322float", *C_API),
    f"{_C_API}/vector_compute/asc_int322int16.md": ("asc_int322int16", *C_API),
    f"{_C_API}/vector_compute/asc_int322int64.md": ("asc_int322int64", *C_API),
    f"{_C_API}/vector_compute/asc_int42half.md": ("asc_int42half", *C_API),
    f"{_C_API}/vector_compute/asc_int642float.md": ("asc_int642float", *C_API),
    f"{_C_API}/vector_compute/asc_int642int32.md": ("asc_int642int32", *C_API),
    f"{_C_API}/vector_compute/asc_int82half.md": ("asc_int82half", *C_API),
    f"{_C_API}/vector_compute/asc_uint82half.md": ("asc_uint82half", *C_API),
    **{f"{_C_API}/vector_compute/{page}.md": (page, *C_API) for page in (
        "asc_datablock_reduce_sum", "asc_datablock_reduce_max", "asc_datablock_reduce_min", "asc_pair_reduce_sum",
        "asc_repeat_reduce_sum", "asc_repeat_reduce_max", "asc_repeat_reduce_min")},
    f"{_C_API}/vector_compute/asc_brcb.md": ("asc_brcb", *C_API),
    **{f"{_C_API}/vector_compute/{page}.md": (page, *C_API) for page in (
        "asc_bitsort", "asc_mrgsort4", "asc_get_vms4_sr", "asc_get_reduce_max_cnt", "asc_get_reduce_min_cnt")},
    f"{_VECTOR}/排序组合（ISASI）/Sort32.md": ("Sort32", *WITH_TYPES),
    f"{_VECTOR}/排序组合（ISASI）/MrgSort.md": ("MrgSort", *WITH_TYPES),
    f"{_VECTOR}/排序组合（ISASI）/MrgSort4.md": ("MrgSort4", "产品支持情况", "功能说明", "函数原型", "参数说明",
                                                 "约束说明", "调用示例"),
    **{f"{_VECTOR}/排序组合（ISASI）/{page}.md": (page, *WITHOUT_TYPES)
       for page in ("ProposalConcat", "ProposalExtract")},
    f"{_VECTOR}/排序组合（ISASI）/RpSort16.md": ("RpSort16", "产品支持情况", "功能说明", "函数原型", "参数说明",
                                                 "约束说明", "调用示例"),
    f"{_VECTOR}/排序组合（ISASI）/GetMrgSortResult.md": ("GetMrgSortResult", "产品支持情况", "功能说明", "函数原型",
                                                         "参数说明", "约束说明", "调用示例"),
    f"{_BASIC.removesuffix('基础API')}高阶API/排序操作/MrgSort-93.md": ("MrgSort", *WITHOUT_TYPES),
    f"{_BASIC.removesuffix('基础API')}高阶API/排序操作/Sort.md": ("Sort", *WITHOUT_TYPES),
    **{f"{_BASIC.removesuffix('基础API')}高阶API/排序操作/{page}.md": (page, *WITHOUT_TYPES[1:])
       for page in ("GetSortLen", "GetSortOffset", "GetSortMaxMinTmpSize")},
    **{f"{_C_API}/vector_compute/{page}.md": (page, *C_API) for page in (  # the element-wise C API
        "asc_add", "asc_sub", "asc_mul", "asc_div", "asc_max", "asc_min", "asc_and", "asc_or", "asc_not",
        "asc_add_scalar", "asc_sub_scalar", "asc_mul_scalar", "asc_max_scalar", "asc_min_scalar", "asc_abs",
        "asc_exp", "asc_log", "asc_sqrt", "asc_rsqrt", "asc_rcp", "asc_relu", "asc_leakyrelu", "asc_shiftleft",
        "asc_shiftright", "asc_add_relu", "asc_sub_relu", "asc_mul_add", "asc_mul_add_relu", "asc_fma",
        "asc_axpy", "asc_duplicate", "asc_mul_cast_half2int8", "asc_mul_cast_half2uint8", "asc_set_mask_count",
        "asc_set_mask_norm", "asc_set_vector_mask",)},
    f"{_C_API}/vector_compute/asc_copy.md": ("asc_copy", *C_API),
    f"{_C_API}/vector_compute/asc_get_rsvd_count.md": ("asc_get_rsvd_count", *C_API),
    f"{_C_API}/vector_compute/asc_transpose.md": ("asc_transpose", *C_API),
    f"{_C_API}/vector_compute/asc_gather.md": ("asc_gather", *C_API),
    f"{_C_API}/vector_compute/asc_gather_datablock.md": ("asc_gather_datablock", *C_API),
    f"{_C_API}/vector_compute/asc_reduce.md": ("asc_reduce", *C_API),
    f"{_C_API}/vector_compute/asc_squeeze.md": ("asc_squeeze", *C_API),
    f"{_C_API}/vector_compute/asc_set_va_reg.md": ("asc_set_va_reg", *C_API),
    f"{_C_API}/vector_datamove/asc_set_gm2ub_pad_deprecated.md": ("asc_set_gm2ub_pad（废弃）", *C_API),
    f"{_C_API}/vector_compute/asc_eq.md": ("asc_eq", *C_API),
    f"{_C_API}/vector_compute/asc_eq_scalar.md": ("asc_eq_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_ge.md": ("asc_ge", *C_API),
    f"{_C_API}/vector_compute/asc_ge_scalar.md": ("asc_ge_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_get_cmp_mask.md": ("asc_get_cmp_mask", *C_API),
    f"{_C_API}/vector_compute/asc_gt.md": ("asc_gt", *C_API),
    f"{_C_API}/vector_compute/asc_gt_scalar.md": ("asc_gt_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_le.md": ("asc_le", *C_API),
    f"{_C_API}/vector_compute/asc_le_scalar.md": ("asc_le_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_lt.md": ("asc_lt", *C_API),
    f"{_C_API}/vector_compute/asc_lt_scalar.md": ("asc_lt_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_ne.md": ("asc_ne", *C_API),
    f"{_C_API}/vector_compute/asc_ne_scalar.md": ("asc_ne_scalar", *C_API),
    f"{_C_API}/vector_compute/asc_select.md": ("asc_select", *C_API),
    f"{_C_API}/vector_compute/asc_set_cmp_mask.md": ("asc_set_cmp_mask", *C_API),
    f"{_C_API}/vector_compute/asc_transto5hd.md": ("asc_transto5hd", *C_API),
    **{f"{_C_API}/vector_datamove/{page}/{page}_arch_{arch}.md": (page, *C_API)
       for page in ("asc_copy_gm2ub", "asc_copy_ub2gm", "asc_copy_gm2ub_align", "asc_copy_ub2gm_align")
       for arch in (2201, 3510)},
    **{f"{_C_API}/vector_datamove/{page}.md": (page, *C_API) for page in (
        "asc_copy_ub2ub", "asc_copy_ub2l1", "asc_set_copy_pad_val", "asc_set_gm2ub_loop_size",
        "asc_set_gm2ub_loop1_stride", "asc_set_gm2ub_loop2_stride", "asc_set_ub2gm_loop_size",
        "asc_set_ub2gm_loop1_stride", "asc_set_ub2gm_loop2_stride", "asc_ndim_copy_gm2ub",
        "asc_set_ndim_loop_stride", "asc_set_ndim_pad_count", "asc_set_ndim_pad_value")},
    f"{_C_API}/struct/asc_ndim_pad_count_config.md": ("asc_ndim_pad_count_config", "结构体具体定义", "字段详解"),
    f"{_C_API}/通用说明和约束.md": (
        "通用说明和约束", "通用地址对齐约束", "通用地址重叠约束", "如何使用高维切分计算API", "dataBlockStride",
        "repeatStride", "掩码操作", "以数组方式申请内存",
    ),
    f"{_VECTOR}/SIMD计算说明/掩码/接口内设置Mask.md": ("接口内设置Mask", "Counter模式", "Normal模式"),
    f"{_VECTOR}/SIMD计算说明/掩码/概述.md": ("概述", "掩码配置方式"),
    f"{_VECTOR}/SIMD计算说明/掩码/通用说明.md": ("通用说明", "接口通用参数说明"),
    f"{_VECTOR}/SIMD计算说明/连续计算.md": ("连续计算",),
    f"{_VECTOR}/SIMD计算说明/高维切分.md": ("高维切分", "迭代控制", "掩码配置", "地址间隔配置"),
    f"{_VECTOR}/Vector逻辑架构/Vector逻辑架构.md": (
        "Vector逻辑架构", "Vector逻辑架构说明", "Unified Buffer介绍", "Unified Buffer的通用约束说明",
        "Unified Buffer的内存结构与bank冲突",
    ),
    "SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax.md": (
        "SoftMax", "产品支持情况", "功能说明", "实现原理", "函数原型", "参数说明", "返回值说明", "约束说明",
        "调用示例"),
    "SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax-SimpleSoftMax-Tiling.md": (
        "SoftMax/SimpleSoftMax Tiling", "功能说明", "函数原型", "参数说明", "返回值说明", "约束说明"),
    f"{_VECTOR}/基础算术/Abs.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Add.md": WITH_TYPES,
    f"{_BASIC}/数据结构/precision_conversion.md": ("精度转换", "二进制精度舍入规则", "精度转换规则"),
    f"{_BASIC}/数据结构/内置数据类型.md": ("内置数据类型", "数据类型列表", "数据类型的产品支持情况", "布尔型", "整数",
                                      "浮点数", "复数"),
    f"{_BASIC}/Reg矢量计算/Reg数据搬入/连续对齐搬入（LoadAlign）.md": (
        "连续对齐搬入（LoadAlign）", "产品支持情况", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明",
        "约束说明", "关键特性说明", "调用示例"),
    f"{_BASIC}/Reg矢量计算/Reg数据搬出/MaskReg非对齐搬出（StoreUnAlign）.md": (
        "MaskReg非对齐搬出（StoreUnAlign）", *WITH_TYPES, "关键特性说明"),
    f"{_BASIC}/Reg矢量计算/比较与选择/Compare.md": WITH_TYPES,
    f"{_C_API}/reg/data_type_convert/asc_int4x22int16_deprecated.md": ("asc_int4x22int16 (废弃)", *C_API),
    f"{_VECTOR}/复合计算/AddReluCast.md": WITH_TYPES,
    f"{_VECTOR}/复合计算/AddDeqRelu.md": (*WITH_TYPES, "关键特性", "溢出保护"),
    f"{_VECTOR}/复合计算/CastDequant.md": ("产品支持情况", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明",
                                        "约束说明", "关键特性", "溢出保护", "调用示例"),
    f"{_VECTOR}/类型转换/寄存器配置说明/SetDeqScale.md": (
        "产品支持情况", "功能说明", "函数原型", "参数说明", "约束说明", "调用示例"),
    f"{_VECTOR}/复合计算/SubReluCast.md": WITH_TYPES,
    f"{_VECTOR}/复合计算/MulCast.md": WITH_TYPES,
    f"{_VECTOR}/类型转换/Cast.md": ("Cast", "产品支持情况", "功能说明", "函数原型", "参数说明", "RoundMode取值说明",
                                 "数据类型", "返回值说明", "约束说明", "调用示例", "更多样例"),
    f"{_BASIC}/Reg矢量计算/类型转换/Cast.md": (
        "Cast", "产品支持情况", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明", "约束说明",
        "关键特性说明", "不同类型转换场景下的不饱和模式和饱和模式", "不饱和模式和饱和模式配置",
        "不同类型转换支持的CastTrait类型取值", "float转hifloat8_t转换规则", "half转hifloat8_t转换规则", "调用示例"),
    f"{_VECTOR}/基础算术/Adds.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Max.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Min.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Mul.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Muls.md": WITH_TYPES,
    f"{_VECTOR}/基础算术/Sub.md": WITH_TYPES,
    **{f"{_VECTOR}/基础算术/{page}.md": WITH_TYPES for page in (
        "Div", "Maxs", "Mins", "LeakyRelu", "Relu", "Sqrt", "Exp", "Ln", "Reciprocal", "Rsqrt")},
    **{f"{_VECTOR}/逻辑计算/{page}.md": (page, *WITH_TYPES) for page in ("And", "Or", "Not", "Ands", "Ors")},
    **{f"{_VECTOR}/基础算术/{page}.md": WITH_TYPES for page in ("Neg(ISASI)", "Prelu(ISASI)", "Mull(ISASI)")},
    **{f"{_VECTOR}/复合计算/{page}.md": WITH_TYPES for page in ("AbsSub(ISASI)", "MulsCast(ISASI)", "ExpSub(ISASI)")},
    f"{_VECTOR}/类型转换/Truncate(ISASI).md": WITH_TYPES,
    **{f"{_VECTOR}/基础算术/{page}（灵活标量位置）.md": WITH_TYPES
       for page in ("Adds", "Subs", "Muls", "Divs", "Maxs", "Mins")},
    **{f"{_VECTOR}/数据重排（ISASI）/{page}.md": (page, *WITH_TYPES) for page in ("Interleave", "DeInterleave")},
    **{f"{_VECTOR}/逻辑计算/{page}.md": (page, *WITH_TYPES, "模板参数及接口参数说明", "scalarValue取值说明")
       for page in ("ShiftLeft", "ShiftRight")},
    **{f"{_VECTOR}/逻辑计算/{page}.md": WITH_TYPES
       for page in ("ShiftLeft（左移位数为Tensor）", "ShiftRight（右移位数为Tensor）")},
    **{f"{_VECTOR}/复合计算/{page}.md": (page, *WITH_TYPES) for page in (
        "AddRelu", "SubRelu", "FusedMulAdd", "MulAddRelu", "MulAddDst", "Axpy")},
    **{f"{_VECTOR}/归约计算/{page}.md": (page, *WITH_TYPES, "关键特性说明")
       for page in ("ReduceRepeat", "ReduceDataBlock", "ReduceSum", "ReduceMax", "ReduceMin")},
    f"{_VECTOR}/归约计算/ReducePairElem.md": ("ReducePairElem", *WITH_TYPES),
    f"{_VECTOR}/归约计算/寄存器辅助接口/GetReduceRepeatSumSpr(ISASI).md": ("GetReduceRepeatSumSpr(ISASI)", *WITH_TYPES),
    # a legacy page: docs/api/ (not docs/zh/api/) at 3825d1c98~1, removed on 2026-06-10 (npusim.ascend.pages)
    f"{_VECTOR}/归约计算/RepeatReduceSum.md": ("RepeatReduceSum", *WITHOUT_TYPES),
    f"{_VECTOR}/掩码操作/SetMaskCount.md": ("SetMaskCount", *WITHOUT_TYPES),
    f"{_VECTOR}/掩码操作/SetMaskNorm.md": ("SetMaskNorm", *WITHOUT_TYPES),
    f"{_VECTOR}/掩码操作/SetVectorMask.md": ("SetVectorMask", *WITHOUT_TYPES),
    f"{_VECTOR}/数据填充/Duplicate.md": ("Duplicate", *WITH_TYPES),
    f"{_VECTOR}/数据填充/CreateVecIndex.md": ("CreateVecIndex", *WITH_TYPES),
    f"{_VECTOR}/数据填充/VectorPadding(ISASI).md": ("VectorPadding(ISASI)", "产品支持情况", "功能说明", "函数原型",
                                                  "参数说明", "返回值说明", "约束说明", "调用示例"),
    f"{_VECTOR}/归约计算/寄存器辅助接口/GetReduceRepeatMaxMinSpr(ISASI).md": ("GetReduceRepeatMaxMinSpr(ISASI)",
                                                                           *WITH_TYPES),
    f"{_VECTOR}/数据填充/Brcb.md": ("Brcb", *WITH_TYPES, "关键特性说明", "目的操作数连续", "目的操作数非连续"),
    f"{_VECTOR}/数据搬运/UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md":
        ("UBToUB掩码式高维数据搬运(Copy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/UB与UB数据搬运/UBToUB连续数据搬运(Copy).md": ("UBToUB连续数据搬运(Copy)", *WITH_TYPES),
    f"{_VECTOR}/数据排布转换/Transpose.md": ("Transpose", *WITH_TYPES),
    f"{_VECTOR}/离散与聚合/Gather.md": ("Gather", *WITH_TYPES[:5], "约束说明", "调用示例"),
    f"{_VECTOR}/离散与聚合/Gatherb(ISASI).md": ("Gatherb(ISASI)", *WITH_TYPES[:5], "约束说明", "调用示例"),
    f"{_VECTOR}/离散与聚合/Scatter(ISASI).md": ("Scatter(ISASI)", *WITH_TYPES[:5], "约束说明", "调用示例"),
    f"{_VECTOR}/比较与选择/GatherMask.md": ("GatherMask", *WITH_TYPES),
    f"{_VECTOR}/基础算术/BilinearInterpolation(ISASI).md": (
        "BilinearInterpolation(ISASI)", *WITH_TYPES, "模板参数及接口参数说明", "sharedTmpBuffer空间说明"),
    "SIMD-API/高阶API/量化操作/AscendQuant.md": (
        "AscendQuant", "产品支持情况", "功能说明", "实现原理", "函数原型", "参数说明", "返回值说明", "约束说明",
        "调用示例"),
    "SIMD-API/高阶API/量化操作/GetAscendQuantMaxMinTmpSize.md": (
        "GetAscendQuantMaxMinTmpSize", "功能说明", "函数原型", "参数说明", "返回值说明", "约束说明", "调用示例"),
    **{f"SIMD-API/高阶API/数学计算/{name}接口/{page}.md": (page, *(("产品支持情况",) if page == name else ()),
                                                      "功能说明", "函数原型", "参数说明", "返回值说明", "约束说明",
                                                      "调用示例")
       for name in ("Floor", "Ceil", "Trunc", "Round", "Frac", "Sign") for page in (name, f"Get{name}MaxMinTmpSize")},
    f"{_VECTOR}/数据排布转换/TransDataTo5HD.md": (
        "TransDataTo5HD", "产品支持情况", "功能说明", "函数原型", "参数说明", "数据类型", "约束说明", "返回值说明",
        "关键特性说明", "单次repeat处理16个DataBlock的数据", "将NCHW格式转换成NC1HWC0格式", "调用示例",
    ),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GMToUB非对齐数据搬运(DataCopyPad).md": (
        "GMToUB非对齐数据搬运(DataCopyPad)", "产品支持情况", "不支持数据搬运模式mode的原型",
        "支持数据搬运模式mode的原型", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明", "约束说明",
        "调用示例",
    ),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md":
        ("GM与UB连续数据搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GM与UB高维切分数据搬运(DataCopy).md":
        ("GM与UB高维切分数据搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GMToUB随路转换ND2NZ搬运(DataCopy).md":
        ("GMToUB随路转换ND2NZ搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/UBToGM随路转换NZ2ND搬运(DataCopy).md":
        ("UBToGM随路转换NZ2ND搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GMToUB多维数据搬运NDDMA(DataCopy).md":
        ("GMToUB多维数据搬运NDDMA(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/寄存器配置说明/NdDmaDci.md": ("NdDmaDci", *WITHOUT_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md":
        ("GM与UB切片数据搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/UBToGM非对齐数据搬运(DataCopyPad).md": (
        "UBToGM非对齐数据搬运(DataCopyPad)", "产品支持情况", "不支持数据搬运模式mode的原型",
        "支持数据搬运模式mode的原型", "功能说明", "函数原型", "参数说明", "数据类型", "返回值说明", "约束说明",
        "调用示例",
    ),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/寄存器配置说明/SetLoopModePara.md": ("SetLoopModePara", *WITHOUT_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/寄存器配置说明/ResetLoopModePara.md": ("ResetLoopModePara", *WITHOUT_TYPES),
    f"{_VECTOR}/数据搬运/GM与UB数据搬运/寄存器配置说明/SetPadValue(ISASI).md": ("SetPadValue(ISASI)", *WITH_TYPES),
    f"{_VECTOR}/数据搬运/UB与UB数据搬运/UBToUB连续数据搬运(DataCopy).md":
        ("UBToUB连续数据搬运(DataCopy)", *WITH_TYPES),
    f"{_VECTOR}/比较与选择/Compare.md": (
        "Compare", "产品支持情况", "功能说明", "函数原型", "参数说明", "模板参数及接口参数说明",
        "mask/mask[]参数说明", "数据类型", "返回值说明", "约束说明", "调用示例",
    ),
    f"{_VECTOR}/比较与选择/Compares.md": (
        "Compares", "产品支持情况", "功能说明", "函数原型", "参数说明", "模板参数及接口参数说明",
        "mask/mask[]参数说明", "数据类型", "返回值说明", "约束说明", "调用示例",
    ),
    f"{_VECTOR}/比较与选择/Compare（结果存入寄存器）.md": ("Compare（结果存入寄存器）", *WITH_TYPES),
    f"{_VECTOR}/比较与选择/GetCmpMask(ISASI).md": ("GetCmpMask(ISASI)", *WITH_TYPES),
    f"{_VECTOR}/比较与选择/Select.md": ("Select", *WITH_TYPES),
    **{f"{_VECTOR}/比较与选择/{page}（灵活标量位置）.md": WITH_TYPES for page in ("Compares", "Select")},
    f"{_VECTOR}/比较与选择/SetCmpMask(ISASI).md": ("SetCmpMask(ISASI)", *WITH_TYPES),
    f"{_BASIC}/同步控制/核内同步/SetFlag-WaitFlag(ISASI).md": ("SetFlag/WaitFlag(ISASI)", *WITHOUT_TYPES),
    f"{_BASIC}/工具接口/系统资源与变量/GetBlockIdx.md": ("GetBlockIdx", *WITHOUT_TYPES),
    f"{_BASIC}/工具接口/系统资源与变量/GetBlockNum.md": ("GetBlockNum", *WITHOUT_TYPES),
    f"{_BASIC}/数据结构/GlobalTensor/GetValue.md": ("GetValue", *WITHOUT_TYPES),
    f"{_BASIC}/数据结构/GlobalTensor/SetGlobalBuffer.md": ("SetGlobalBuffer", *WITHOUT_TYPES),
    f"{_BASIC}/数据结构/GlobalTensor/SetValue.md": ("SetValue", *WITHOUT_TYPES),
    f"{_BASIC}/特殊寄存器访问/SetCtrlSpr(ISASI).md": ("SetCtrlSpr(ISASI)", *WITH_TYPES),
    f"{_BASIC}/特殊寄存器访问/SetSaturationFlag(ISASI).md": ("SetSaturationFlag(ISASI)", *WITHOUT_TYPES),
    f"{_PIPE}/TBuf/Get.md": ("Get", *FRAMEWORK),
    f"{_PIPE}/TBuf/GetWithOffset.md": ("GetWithOffset", *FRAMEWORK),
    f"{_PIPE}/TPipe/Destroy.md": ("Destroy", *FRAMEWORK_NO_PARAMETERS),
    f"{_PIPE}/TPipe/InitBuffer.md": ("InitBuffer", *FRAMEWORK),
    f"{_PIPE}/TPipe/Reset.md": ("Reset", *FRAMEWORK_NO_PARAMETERS),
    f"{_PIPE}/TPipe/TPipe简介.md": ("TPipe简介",),
    f"{_PIPE}/TBufPool/InitBufPool-55.md": ("InitBufPool", "产品支持情况", "功能说明", "函数原型", "参数说明",
                                            "约束说明", "返回值说明", "调用示例"),
    f"{_BASIC}/资源管理/内存管理/LocalMemAllocator/LocalMemAllocator简介.md": ("LocalMemAllocator简介", "原型定义",
                                                                     "模板参数"),
    f"{_BASIC}/资源管理/内存管理/LocalMemAllocator/LocalMemAllocator构造函数.md": ("LocalMemAllocator构造函数",
                                                                        *FRAMEWORK),
    f"{_BASIC}/资源管理/内存管理/LocalMemAllocator/Alloc.md": ("Alloc", *FRAMEWORK),
    f"{_PIPE}/TQue/AllocTensor.md": ("AllocTensor", *FRAMEWORK),
    f"{_PIPE}/TQue/DeQue.md": ("DeQue", *FRAMEWORK),
    f"{_PIPE}/TQue/EnQue.md": ("EnQue", *FRAMEWORK),
    f"{_PIPE}/TQue/FreeTensor.md": ("FreeTensor", *FRAMEWORK),
    f"{_PIPE}/TQue/TQue简介.md": ("TQue简介", "模板参数", "TQue Buffer限制", "调用示例"),
    f"{_BASIC}/辅助数据结构/BinaryRepeatParams.md": ("BinaryRepeatParams",),
    f"{_BASIC}/辅助数据结构/UnaryRepeatParams.md": ("UnaryRepeatParams",),
    "SIMD-API/通用说明和约束.md": (
        "通用说明和约束", "所需头文件和库文件", "逻辑位置和物理存储的映射关系", "通用地址对齐约束",
        "通用地址重叠约束",
    ),
    "guide/编程指南/语言扩展层/SIMD-BuiltIn关键字.md": (
        "SIMD BuiltIn关键字", "预定义宏", "函数执行空间限定符", "函数标记宏", "地址空间限定符", "内置常量",
        "内置变量", "核函数配置",
    ),
}

SOPHGO_PAGES: dict[str, tuple[str, ...]] = {
    "TPU-Kernel 比较选择函数 (cmp.html)": (
        "比较选择函数", "参数", "注意事项", "tpu_bdc_greater_select", "tpu_bdc_less_select", "tpu_bdc_equal_select",
        "tpu_bdc_maximum_greater_select", "tpu_bdc_minimum_less_select"),
    "TPU-Kernel GDMA 操作 (gdma.html)": ("GDMA 操作", "参数", "注意事项", "tpu_gdma_cpy_S2L", "tpu_gdma_cpy_L2S"),
    "TPU-Kernel 辅助函数 (util.html)": (
        "辅助函数", "参数", "返回", "tpu_data_type_size", "tpu_data_type_bits", "tpu_npu_index", "tpu_bank_index",
        "tpu_channle_num_per_npu", "tpu_aligned_feature_size", "tpu_aligned_stride", "tpu_compact_stride",
        "tpu_line_aligned_stride", "tpu_continuous_stride"),
    # headers: the names they declare
    "tpu_defs.h": ("data_type_t", "scalar_t", "dim4", "local_addr_t", "global_addr_t", "system_addr_t"),
    "tpu_kernel.h": (
        "variable_t", "var_type_t", "NPU_NUM", "LOCAL_MEM_SIZE", "tpu_eu_num", "tpu_initialize", "tpu_poll",
        "tpu_gdma_cpy_S2L", "tpu_gdma_cpy_L2S", "tpu_bdc_set_C"),
}

VENDOR_PAGES = {**ASCEND_PAGES, **SOPHGO_PAGES}
_BY_LENGTH = sorted(VENDOR_PAGES, key=len, reverse=True)  # a page name that extends another is tried first
_REPO_CITATION = re.compile(r"(?P<path>[\w./-]+\.(?:md|py)) (?P<sections>§\d+(?:\.\d+)?(?:, §\d+(?:\.\d+)?)*)")


@cache
def numbered_headings(path: str) -> frozenset[str]:
    """The section numbers of a repository file's headings (``## 1. ...`` -> ``1``, ``### 1.5 ...`` -> ``1.5``)."""
    text = (REPO / path).read_text(encoding="utf-8")
    return frozenset(re.findall(r"^#{2,4} (\d+(?:\.\d+)?)\.? ", text, flags=re.M))


def _without_detail(citation: str) -> str:
    """The citation without a trailing parenthesised detail (`` (表4)``)."""
    if citation.endswith(")") and " (" in citation:
        head, _, _ = citation.rpartition(" (")
        depth = 0
        for char in citation[len(head) + 1:]:  # the detail's own parentheses must balance
            depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return head
    return citation


def citation_problem(citation: str) -> str | None:
    """Why ``citation`` cannot be opened, or ``None`` when it names a page and section that exist."""
    citation = citation.strip()
    for page in _BY_LENGTH:
        if citation.startswith(page + " "):
            sections = _without_detail(citation[len(page) + 1:]).split(", ")
            unknown = [s for s in sections if s not in VENDOR_PAGES[page]]
            return f"{page} has no section {unknown}" if unknown else None
    match = _REPO_CITATION.fullmatch(_without_detail(citation))
    if match:
        path = match["path"]
        if not (REPO / path).is_file():
            return f"{path} is not a file of the repository"
        missing = [s for s in re.findall(r"§([\d.]+)", match["sections"]) if s not in numbered_headings(path)]
        return f"{path} has no heading {missing}" if missing else None
    if citation.startswith(("SIMD-API/", "guide/", "TPU-Kernel ")):
        return f"{citation!r}: the page is not in tests/error_sources.py VENDOR_PAGES (or no section follows it)"
    return f"{citation!r} names neither a vendor page with a section nor a repository file with a section"


@cache
def source_problems(source: str | None) -> tuple[str, ...]:
    """Every reason ``source`` (an error's ``source``) does not name something a user can open."""
    if not source:
        return ("the error names no source",)
    return tuple(problem for citation in source.split("; ") if (problem := citation_problem(citation)))


@contextmanager
def unopenable_sources() -> Iterator[dict[str, str]]:
    """Record, within the block, every :class:`ConstraintError` npusim creates whose source cannot be opened.

    Yields a dict filled as errors are created: source -> the first such error's message and the
    problems.  Only errors created by npusim's own code count (a test may build one by hand).
    """
    found: dict[str, str] = {}
    original = ConstraintError.__init__

    def recording_init(self, instruction, operand, value, rule, allowed, source=None):
        original(self, instruction, operand, value, rule, allowed, source)
        problems = source_problems(source)
        if problems and str(source) not in found and _created_by_npusim(sys._getframe(1)):
            found[str(source)] = f"{self}\n      " + "\n      ".join(problems)

    ConstraintError.__init__ = recording_init
    try:
        yield found
    finally:
        ConstraintError.__init__ = original


def _created_by_npusim(frame) -> bool:
    return frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(NPUSIM_DIR)
