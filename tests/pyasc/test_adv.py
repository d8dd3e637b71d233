"""asc.language.adv under npusim: quant and QuantConfig are npusim's, with pyasc's scalar conversion."""

from __future__ import annotations

import numpy as np

from npusim import ascend as asc
from npusim.ascend import adv
from npusim.pyasc import adv as pyasc_adv
from npusim.pyasc.namespaces import module_names

# 1 + 2**-11 is a tie between two halves; this double lies just above it.  As a half constant (pyasc's
# _mat(scale, half)) it rounds up; through a C float first (AscendQuant's own parameter) it lands on the
# tie and rounds to even, down to 1.0.
SCALE = 1 + 2.0 ** -11 + 2.0 ** -40


def test_the_adv_module_serves_npusims_quant():
    names = module_names("asc.language.adv")
    assert names["quant"] is pyasc_adv.quant and names["QuantConfig"] is adv.QuantConfig


def quantise(function, dtype, chip="A2"):
    with asc.Core(chip):
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 32)
        src.write(np.full(32, 64.5, dtype.np_dtype))
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 1024, 32)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, 512)
        function(dst, src, SCALE, 0.0, 32, tmp)
        return dst.read()[0]


def test_pyasc_rounds_a_half_sources_scale_to_half_once():
    assert np.float16(SCALE) == np.float16(1 + 2.0 ** -10) and np.float16(np.float32(SCALE)) == 1.0
    assert quantise(pyasc_adv.quant, asc.float16) == 65  # 64.5 * 1.0009765625 = 64.5625 (half) -> 65
    assert quantise(adv.quant, asc.float16) == 64        # 64.5 * 1 -> a tie, to even


def test_a_float_sources_scale_goes_through_float_as_in_the_c_api():
    assert quantise(pyasc_adv.quant, asc.float32) == quantise(adv.quant, asc.float32) == 64


def test_the_register_isa_products_give_the_same_rounding():
    """The 950 and Kirin run one vector function (docs/semantics.md §5.30), with the same half steps here."""
    for chip in ("950", "KirinX90", "Kirin9030"):
        assert quantise(pyasc_adv.quant, asc.float16, chip) == 65
        assert quantise(adv.quant, asc.float16, chip) == 64
        assert quantise(pyasc_adv.quant, asc.float32, chip) == 64
