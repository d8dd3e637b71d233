"""Two torch-tpu style TPU-Kernel kernels on an emulated BM1684X: clamp and relu backward.

Both follow the usual TPU-Kernel kernel structure — ``tpu_initialize``, GDMA global ->
local, BDC instructions, GDMA local -> global, ``tpu_poll`` — on an FP32 tensor of shape
(2, 100, 4, 8): C = 100 channels is more than the 64 NPU lanes, so channels 64..99 take a
second channel slot in lanes 0..35 (docs/semantics.md §7.3).  The select patterns are torch-tpu's
(its ``firmware_core`` kernels):

* relu backward: ``grad_in = greater_select(input, SCALAR 0, grad, SCALAR 0)``;
* clamp: ``out = greater_select(input, max, max, input)``, then
  ``out = less_select(out, min, min, out)`` (the first result fed back as src0 and src3).

Float semantics of the golden.  The BDC compare is *not* numpy's: measured on the cmodel
(docs/semantics.md §8.3), FP32 subnormals compare as zero (flush-to-zero), ``greater`` is IEEE
ordered (false with a NaN), and ``less(a, b) = not((ordered and a >= b) or bits(a) == bits(b))``
is **true** when a NaN is involved (unless both are the same NaN pattern); selected values are
copied bit for bit (no flushing on the select path).  The golden below spells those rules out
in numpy (:func:`bdc_greater`, :func:`bdc_less`), so the data can contain every special value:
NaNs (quiet, signalling, negative), ±inf, ±0, ±subnormals, ±FLT_MIN, ±FLT_MAX.  Consequences
worth knowing when porting torch code: ``clamp(NaN) = min`` (torch gives NaN), a subnormal
input counts as 0 for relu backward (its gradient becomes +0), and a negative subnormal is
*not* below ``min = 0`` (it survives clamp to [0, ...] unchanged).
"""

from __future__ import annotations

import numpy as np

from npusim import sophgo as tpu

from . import Outcome

SHAPE = tpu.dim4(2, 100, 4, 8)
FLT_MIN = np.float32(2.0**-126)  # smallest normal float32
CLAMP_RANGES = ((-1.5, 2.0), (0.0, 0.5))

# Global-memory layout chosen by the "host": three tensors of N*C*H*W floats.
INPUT_GLOBAL, GRAD_GLOBAL, OUTPUT_GLOBAL = 0x0000, 0x8000, 0x10000


def T(addr: int) -> tpu.variable_t:
    return tpu.variable_t(type=tpu.TENSOR, addr=addr)


def S(value: float) -> tpu.variable_t:
    return tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(f32=value))


def relu_backward_kernel(grad_in_global: int, input_global: int, grad_global: int, shape: tpu.dim4) -> None:
    """``grad_in = grad where input > 0 else +0`` (torch-tpu's relu backward)."""
    bank = tpu.tpu_local_mem_size_per_npu() // tpu.tpu_bank_num()
    input_local, grad_local, out_local = 0, bank, 2 * bank  # one bank each, as vendor kernels place buffers
    tpu.tpu_initialize()
    tpu.tpu_gdma_cpy_S2L(input_local, input_global, shape, None, None, tpu.DT_FP32)
    tpu.tpu_gdma_cpy_S2L(grad_local, grad_global, shape, None, None, tpu.DT_FP32)
    tpu.tpu_bdc_greater_select(out_local, T(input_local), S(0.0), T(grad_local), S(0.0), shape,
                               tpu.DT_FP32, tpu.DT_FP32)
    tpu.tpu_gdma_cpy_L2S(grad_in_global, out_local, shape, None, None, tpu.DT_FP32)
    tpu.tpu_poll()


def clamp_kernel(output_global: int, input_global: int, shape: tpu.dim4, low: float, high: float) -> None:
    """``out = min where (input > high ? high : input) < min``, the torch-tpu select pair."""
    bank = tpu.tpu_local_mem_size_per_npu() // tpu.tpu_bank_num()
    input_local, out_local = 0, bank
    tpu.tpu_initialize()
    tpu.tpu_gdma_cpy_S2L(input_local, input_global, shape, None, None, tpu.DT_FP32)
    tpu.tpu_bdc_greater_select(out_local, T(input_local), S(high), S(high), T(input_local), shape,
                               tpu.DT_FP32, tpu.DT_FP32)
    tpu.tpu_bdc_less_select(out_local, T(out_local), S(low), S(low), T(out_local), shape,
                            tpu.DT_FP32, tpu.DT_FP32)
    tpu.tpu_gdma_cpy_L2S(output_global, out_local, shape, None, None, tpu.DT_FP32)
    tpu.tpu_poll()


# ------------------------------------------------------------------------------ golden


def _flush(x: np.ndarray) -> np.ndarray:
    """What the compare unit sees: FP32 subnormals as a zero of the same sign (docs/semantics.md §8.3)."""
    return np.where(np.abs(x) < FLT_MIN, np.copysign(np.float32(0), x), x)


def bdc_greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE ordered ``a > b`` after flushing subnormals (numpy's ``>`` is false for NaN)."""
    with np.errstate(invalid="ignore"):
        return _flush(a) > _flush(b)


def bdc_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``not((ordered and a >= b) or bits(a) == bits(b))`` after flushing subnormals."""
    same_bits = a.view(np.uint32) == np.broadcast_to(b, a.shape).view(np.uint32)
    with np.errstate(invalid="ignore"):
        return ~((_flush(a) >= _flush(b)) | same_bits)


def relu_backward_golden(x: np.ndarray, grad: np.ndarray) -> np.ndarray:
    return np.where(bdc_greater(x, np.float32(0)), grad, np.float32(0))


def clamp_golden(x: np.ndarray, low: float, high: float) -> np.ndarray:
    low32, high32 = np.float32(low), np.float32(high)
    upper = np.where(bdc_greater(x, high32), high32, x)
    return np.where(bdc_less(upper, low32), low32, upper)


def example_input(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Normal values around the clamp bounds, and every FP32 special value class."""
    rng = np.random.default_rng(seed)
    shape = SHAPE.as_tuple()
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    specials = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x7F800000, 0xFF800000, 0x00000000,
                         0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
                         0x7F7FFFFF, 0xFF7FFFFF, 0x3FC00000, 0xBFC00000, 0x40000000, 0x3F000000],
                        np.uint32).view(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 800, replace=False)] = np.resize(specials, 800)
    grad = rng.standard_normal(shape).astype(np.float32)
    grad.reshape(-1)[:20] = specials  # gradients are copied bit for bit, NaN payloads included
    return x, grad


def run() -> list[Outcome]:
    x, grad = example_input()
    shape = SHAPE.as_tuple()
    outcomes = []
    with tpu.Core("BM1684X") as core:
        core.write_global(INPUT_GLOBAL, x)
        core.write_global(GRAD_GLOBAL, grad)
        relu_backward_kernel(OUTPUT_GLOBAL, INPUT_GLOBAL, GRAD_GLOBAL, SHAPE)
        got = core.read_global(OUTPUT_GLOBAL, shape, tpu.DT_FP32)
        outcomes.append(_outcome("relu backward", got, relu_backward_golden(x, grad)))
        for low, high in CLAMP_RANGES:
            clamp_kernel(OUTPUT_GLOBAL, INPUT_GLOBAL, SHAPE, low, high)
            got = core.read_global(OUTPUT_GLOBAL, shape, tpu.DT_FP32)
            outcomes.append(_outcome(f"clamp [{low}, {high}]", got, clamp_golden(x, low, high)))
    return outcomes


def _outcome(what: str, got: np.ndarray, want: np.ndarray) -> Outcome:
    differ = int(np.count_nonzero(got.view(np.uint32) != want.view(np.uint32)))
    detail = (f"FP32 (2, 100, 4, 8) on BM1684X (C > NPU_NUM = 64), GDMA in and out, NaN/inf/subnormal data: "
              f"{differ} differ from the numpy golden of docs/semantics.md §8.3")
    return Outcome(f"Sophgo {what} (BDC selects, GDMA)", got.tobytes() == want.tobytes(), detail)
