"""Sophgo TPU-Kernel instructions, one module per family."""

from .gdma import tpu_gdma_cpy_L2S, tpu_gdma_cpy_S2L
from .select import (
    tpu_bdc_equal_select,
    tpu_bdc_greater_select,
    tpu_bdc_less_select,
    tpu_bdc_maximum_greater_select,
    tpu_bdc_minimum_less_select,
)
from .set_c import tpu_bdc_set_C

__all__ = [
    "tpu_bdc_equal_select",
    "tpu_bdc_greater_select",
    "tpu_bdc_less_select",
    "tpu_bdc_maximum_greater_select",
    "tpu_bdc_minimum_less_select",
    "tpu_bdc_set_C",
    "tpu_gdma_cpy_L2S",
    "tpu_gdma_cpy_S2L",
]
