"""Every benchmark case, in table order: the one list to extend.

A case is ``Case(name, target, build)``; ``build`` returns a :class:`~registry.Bench`
(see :mod:`ascend_cases` for examples).  Targets are those of issue 7.  Rows marked
:class:`~registry.Pending` reserve a place for cases whose code is on another branch.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from ascend_cases import (
    bilinear_bench,
    c_api_add_count_bench,
    compare_bench,
    compare_count_bench,
    elementwise_bench,
    gather_bench,
    moving_copy_bench,
    ne_scalar_bench,
    reduce_all_bench,
    reduce_bench,
    select_bench,
    slice_copy_bench,
    squeeze_bench,
    trans_tile_bench,
)
from cast_cases import cast_bench, int4_bench, tiny_cast_bench
from complex_cases import complex_mul_bench
from dequant_cases import add_deq_relu_bench, cast_deq_bench, int32_to_half_bench, vdeq_bench
from fill_cases import create_vec_index_bench, max_min_spr_bench, vector_padding_bench
from isasi_cases import count_form_bench, interleave_bench, ors_bench, truncate_bench
from kernel_cases import checked_nchw_to_nc1hwc0_bench, nchw_to_nc1hwc0_bench, plain_nchw_to_nc1hwc0_bench
from mixed_cases import mixed_mul_add_dst_bench
from registry import Case, Pending, Target
from softmax_cases import softmax_bench
from sophgo_cases import greater_select_bench
from sort_cases import radix_sort_bench, sort32_bench, sort_proposals_bench
from startup_cases import import_bench

from npusim import ascend as asc
from npusim import sophgo as tpu

__all__ = ["CASES"]

PER_CALL = Target("us", 10)  # repeat 1: median <= 10 µs with every check on
DENSE = Target("ratio", 1.5)  # repeat 160, default strides
STRIDED = Target("ratio", 4)  # repeat 160, non-default strides


def _repeat_rows(label: str, build) -> list[Case]:
    """The three rows of an instruction: repeat 1, repeat 160 dense, repeat 160 strided."""
    return [
        Case(f"{label} r1", PER_CALL, partial(build, 1, False), group="repeat 1"),
        Case(f"{label} r160 dense", DENSE, partial(build, 160, False), group="repeat 160"),
        Case(f"{label} r160 strided", STRIDED, partial(build, 160, True), group="repeat 160"),
    ]


def _count_rows(label: str, build) -> list[Case]:
    """The rows of a count-form-only instruction: repeat 1 and 160 repeats' worth (contiguous, no strides)."""
    return [
        Case(f"{label} r1", PER_CALL, partial(build, 1), group="repeat 1"),
        Case(f"{label} r160 dense", DENSE, partial(build, 160), group="repeat 160"),
    ]


CASES: list[Case | Pending] = [
    *_repeat_rows("select mode 0 (CMPMASK)", partial(select_bench, 0)),
    *_repeat_rows("select mode 1 (scalar)", partial(select_bench, 1)),
    *_repeat_rows("select mode 2 (tensor)", partial(select_bench, 2)),
    *_repeat_rows("compare LT", partial(compare_bench, scalar=False)),
    *_repeat_rows("compare_scalar LT", partial(compare_bench, scalar=True)),
    *_repeat_rows("asc_ne_scalar", ne_scalar_bench),
    Case("compare LT float32 count 10240", DENSE, partial(compare_count_bench, 10240), group="float32 (issue 12)"),
    Case("asc_ne_scalar float32 r160 dense", DENSE, partial(ne_scalar_bench, 160, False, np.float32),
         group="float32 (issue 12)"),
    *_repeat_rows("div float32 (binary arith)", partial(elementwise_bench, "div")),
    *_repeat_rows("maxs half (binary-scalar)", partial(elementwise_bench, "maxs")),
    *_repeat_rows("sqrt float32 (unary)", partial(elementwise_bench, "sqrt")),
    *_repeat_rows("bitwise_and int16 (logic)", partial(elementwise_bench, "bitwise_and")),
    *_repeat_rows("add_relu float32 (compound)", partial(elementwise_bench, "add_relu")),
    Case("asc_add float32 count 10240 (C API count form)", DENSE, partial(c_api_add_count_bench, 10240),
         group="float32 (C API)"),
    *_repeat_rows("cast float32 -> half RINT (cast)", cast_bench),
    Case("cast float32 -> half RINT, values near 1e-5: subnormal results (cast) r160 dense", None,
         partial(tiny_cast_bench, 160, False), group="repeat 160"),
    *_repeat_rows("cast half -> int4b_t RINT (cast, packed dst)", int4_bench),
    Case("cast_deq int16 -> int8 per tensor (dequant) r160 dense", DENSE, partial(cast_deq_bench, 160),
         group="repeat 160"),
    Case("cast_deq int16 -> uint8 per lane, vdeq table (dequant) r160 dense", DENSE, partial(vdeq_bench, 160),
         group="repeat 160"),
    Case("cast_deq int32 -> half count 10240 (dequant)", DENSE, partial(int32_to_half_bench, 10240),
         group="repeat 160"),
    Case("add_deq_relu int32 -> half (dequant, compound) r1", PER_CALL, partial(add_deq_relu_bench, 1),
         group="repeat 1"),
    Case("add_deq_relu int32 -> half (dequant, compound) r160 dense", DENSE, partial(add_deq_relu_bench, 160),
         group="repeat 160"),
    *_repeat_rows("whole_reduce_max half (reduce, per repeat)", partial(reduce_bench, "whole_reduce_max")),
    *_repeat_rows("block_reduce_sum half (reduce, per DataBlock)", partial(reduce_bench, "block_reduce_sum")),
    *_repeat_rows("whole_reduce_sum half (reduce, per repeat)", partial(reduce_bench, "whole_reduce_sum")),
    *_repeat_rows("repeat_reduce_sum half (reduce, per repeat)", partial(reduce_bench, "repeat_reduce_sum")),
    *_repeat_rows("pair_reduce_sum half (reduce, per pair)", partial(reduce_bench, "pair_reduce_sum")),
    *_repeat_rows("whole_reduce_min half (reduce, per repeat)", partial(reduce_bench, "whole_reduce_min")),
    *_repeat_rows("block_reduce_max half (reduce, per DataBlock)", partial(reduce_bench, "block_reduce_max")),
    Case("reduce_sum half count 128 (reduce, whole tensor)", PER_CALL, partial(reduce_all_bench, "reduce_sum", 128),
         group="repeat 1"),
    Case("reduce_sum half count 20480 (reduce, whole tensor)", DENSE,
         partial(reduce_all_bench, "reduce_sum", 20480), group="repeat 160"),
    Case("reduce_max half with index count 128 (reduce, whole tensor)", PER_CALL,
         partial(reduce_all_bench, "reduce_max", 128), group="repeat 1"),
    Case("reduce_max half with index count 20480 (reduce, whole tensor)", DENSE,
         partial(reduce_all_bench, "reduce_max", 20480), group="repeat 160"),
    *_repeat_rows("copy float32 (data movement)", partial(elementwise_bench, "copy")),
    *_repeat_rows("create_vec_index float32 (fill)", create_vec_index_bench),
    Case("get_reduce_repeat_max_min_spr float32 (register read)", PER_CALL, max_min_spr_bench, group="repeat 1"),
    *_repeat_rows("vector_padding half mode 1, 310P (fill)", vector_padding_bench),
    *_repeat_rows("ors int16 scalar, 950 (logic, flexible scalar)", ors_bench),
    *_repeat_rows("mul_add_dst half -> float32 (compound, mixed precision)", mixed_mul_add_dst_bench),
    *_count_rows("prelu float32, 950 (arith, count form)", partial(count_form_bench, "prelu")),
    *_count_rows("abs_sub float32, 950 (compound, count form)", partial(count_form_bench, "abs_sub")),
    *_count_rows("interleave half, 950 (rearrange)", interleave_bench),
    *_count_rows("truncate float32 CAST_FLOOR, 950 (cast)", truncate_bench),
    Case("mul complex64, 950 (arith, count form) r1", None, partial(complex_mul_bench, 1), group="repeat 1"),
    Case("mul complex64, 950 (arith, count form) r160 dense", None, partial(complex_mul_bench, 160),
         group="repeat 160"),
    *_repeat_rows("gather half count (gather/scatter)", gather_bench),
    *_repeat_rows("asc_squeeze uint16 (C API, GatherMask by src1's bits)", squeeze_bench),
    *_repeat_rows("bilinear_interpolation half (arith, gather + weight + sum)", bilinear_bench),
    Case("sort32 float32 (sort) r1", PER_CALL, partial(sort32_bench, 1), group="repeat 1"),
    Case("sort32 float32 (sort) r160 dense", DENSE, partial(sort32_bench, 160), group="repeat 160"),
    Case("sort_with_config RADIX_SORT 1024 halves + indices, 950 (sort)", Target("ratio", 2), radix_sort_bench,
         group="sort"),
    Case("trans_data_to_5hd 16x32x32 half tile", Target("ratio", 2), trans_tile_bench, group="TransDataTo5HD"),
    Case("data_copy GM->UB 256 halves, GM offset moving every call (kernel loop)", Target("us", 3),
         moving_copy_bench, group="data_copy"),
    Case("data_copy GM->UB 256 float32, GM offset moving every call (kernel loop)", Target("us", 3),
         partial(moving_copy_bench, asc.float32), group="data_copy"),
    Case("asc_copy_gm2ub GM->UB 256 halves (C API, A2), GM offset moving every call (kernel loop)",
         Target("us", 3), partial(moving_copy_bench, c_api=True), group="data_copy"),
    Case("data_copy SliceInfo GM->UB float32, 2 dims: 160 rows x 4 runs of 24 (the page's example scaled)",
         STRIDED, partial(slice_copy_bench, 160), group="data_copy"),
    Case("data_copy SliceInfo GM->UB float32, the page's example (2 rows x 2 runs of 24)", PER_CALL,
         partial(slice_copy_bench, 2), group="data_copy"),
    Case("trans_data_to_5hd 16x32x32 float32 tile", Target("ratio", 2), partial(trans_tile_bench, asc.float32),
         group="TransDataTo5HD"),
    Case("NCHW->NC1HWC0 kernel 1x64x56x56 half, end to end", Target("ratio", 3), nchw_to_nc1hwc0_bench,
         group="kernels"),
    Case("NCHW->NC1HWC0 kernel 1x64x56x56 half, written plainly (a data_copy per channel row, tensor lists)",
         Target("ratio", 12), plain_nchw_to_nc1hwc0_bench, group="kernels"),
    Case("NCHW->NC1HWC0 kernel, sync checker on (the numpy column: the same launch with sync='off')",
         Target("ratio", 2), checked_nchw_to_nc1hwc0_bench, group="kernels"),
    Case("sophgo greater_select BM1684X (4,64,56,56) fp32", Target("ratio", 2),
         partial(greater_select_bench, tpu.DT_FP32), group="sophgo"),
    Case("sophgo greater_select BM1684X (4,64,56,56) fp16", None, partial(greater_select_bench, tpu.DT_FP16),
         group="sophgo"),
    Case("sophgo greater_select BM1684X (4,64,56,56) bf16", None, partial(greater_select_bench, tpu.DT_BFP16),
         group="sophgo"),
    Case("sophgo greater_select BM1684X (2,64,56,56) fp32 from lane 5 (3 runs)", None,
         partial(greater_select_bench, tpu.DT_FP32, shape=(2, 64, 56, 56), start_lane=5), group="sophgo"),
    Case("sophgo greater_select BM1684X (1,256,28,28) fp32, 4 slots per lane", None,
         partial(greater_select_bench, tpu.DT_FP32, shape=(1, 256, 28, 28)), group="sophgo"),
    Case("sophgo greater_select BM1684X (4,64,56,56) fp32, VECTOR src1", None,
         partial(greater_select_bench, tpu.DT_FP32, vector_src1=True), group="sophgo"),
    Case("sophgo maximum_greater_select BM1684X (2,64,56,56) fp32", None,
         partial(greater_select_bench, tpu.DT_FP32, shape=(2, 64, 56, 56), maximum=True), group="sophgo"),
    Case("sophgo greater_select BM1688 (2,32,56,56) fp32", None,
         partial(greater_select_bench, tpu.DT_FP32, chip="BM1688", shape=(2, 32, 56, 56)), group="sophgo"),
    Case("asc.adv.softmax float32 8x1024 (high-level API: 57 vector instructions, 100 calls)", None, softmax_bench,
         group="high-level APIs"),
    Case("asc.adv.softmax 310P float32 8x1024 (high-level API: 61 vector instructions, 110 calls)", None,
         partial(softmax_bench, chip="310P"), group="high-level APIs"),
    Case("asc.adv.softmax 950 float32 8x1024", None, partial(softmax_bench, chip="950"), group="high-level APIs"),
    Case("asc.sort 310P half, full sort of 64 x 16 proposals (high-level API: 17 instructions, 38 calls)", None,
         sort_proposals_bench, group="high-level APIs"),
    Case("import npusim (fresh interpreter)", Target("ms", 300), partial(import_bench, "import npusim"),
         group="start-up"),
    Case("import npusim.ascend (fresh interpreter)", Target("ms", 300), partial(import_bench, "import npusim.ascend"),
         group="start-up"),
    Case("import npusim; from npusim import ascend, sophgo (fresh interpreter)", Target("ratio", 2.5),
         partial(import_bench, "import npusim; from npusim import ascend, sophgo"), group="start-up"),
]
