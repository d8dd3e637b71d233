"""Sophgo TPU-Kernel instructions, one module per family."""

from .select import (
    tpu_bdc_equal_select,
    tpu_bdc_greater_select,
    tpu_bdc_less_select,
    tpu_bdc_maximum_greater_select,
    tpu_bdc_minimum_less_select,
)

__all__ = [
    "tpu_bdc_equal_select",
    "tpu_bdc_greater_select",
    "tpu_bdc_less_select",
    "tpu_bdc_maximum_greater_select",
    "tpu_bdc_minimum_less_select",
]
