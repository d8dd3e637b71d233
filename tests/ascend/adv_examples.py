"""Examples of the 950's AscendQuant and SoftMax forms, for the generated fuzz and access-record tests.

The ``asc.adv`` APIs are not registry instructions (compositions of instructions on the A2/A3, one vector
function on the 950: docs/semantics.md §5.30, docs/softmax.md §2), so they carry no ``Instruction.examples_on``;
:data:`ENTRIES` gives each the few fields those tests read of a registry entry (name, vendor, pipe, function,
``examples_on``), and ``tests/fuzz/test_fuzz_registry_950.py`` and ``tests/engine/test_access_records.py`` run
them as they run the registry's 950 examples.  One example per 950 form: per tensor (fp8 dst), per channel
(hifloat8_t dst), PER_TOKEN (bfloat16 src, float parameters), PER_GROUP (fp8 dst); SoftMax of float and of half
data with float sum/max, in place, on the paths whose call is one record (not the packed ForBlk ones, which
set the mask register first).
"""

from __future__ import annotations

from types import MappingProxyType, SimpleNamespace

from npusim import ascend as asc

_FP8 = "from npusim.dtypes import DTYPES\n"
_SHAPE = "from npusim.ascend.shape_info import ShapeInfo\n"
_TOKEN = ("asc.adv.QuantConfig(has_offset=True, k_dim=1, round_mode=asc.RoundMode.CAST_RINT), "
          "policy=asc.adv.AscendQuantPolicy.PER_TOKEN, para=asc.adv.AscendQuantParam(4, 32, 128, 0)")
_GROUP = ("asc.adv.QuantConfig(has_offset=False, k_dim=1), policy=asc.adv.AscendQuantPolicy.PER_GROUP, "
          "para=asc.adv.AscendQuantParam(2, 64, 128, 32)")

QUANT_950 = (
    _FP8 + "x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
    'z = asc.LocalTensor(DTYPES["float8_e4m3fn"], asc.TPosition.VECOUT, 2048, 256)\n'
    "asc.adv.quant(z, x, 2.0, 0.5, 128)",
    "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
    "s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 64)\n"
    "o = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1536, 64)\n"
    "z = asc.LocalTensor(asc.hifloat8, asc.TPosition.VECOUT, 2048, 256)\n"
    "asc.adv.quant(z, x, s, o, 128, scale_count=64, offset_count=64)",
    "x = asc.LocalTensor(asc.bfloat16, asc.TPosition.VECIN, 0, 128)\n"
    "s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 8)\n"
    "o = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1536, 8)\n"
    "z = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 2048, 128)\n"
    f"asc.adv.quant(z, x, s, o, config={_TOKEN})",
    _FP8 + "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)\n"
    "s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 16)\n"
    'z = asc.LocalTensor(DTYPES["float8_e5m2"], asc.TPosition.VECOUT, 2048, 128)\n'
    f"asc.adv.quant(z, x, s, 0.0, config={_GROUP})",
)
SOFTMAX_950 = (
    _SHAPE + "x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 120)\n"
    "x.set_shape_info(ShapeInfo((3, 40), (3, 37)))\n"
    "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 512, 120)\n"
    "total = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 24)\n"
    "peak = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1536, 24)\n"
    "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, 1632)\n"
    "asc.adv.softmax(z, total, peak, x, asc.adv.SoftmaxTiling(), tmp)",
    _SHAPE + "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
    "x.set_shape_info(ShapeInfo((2, 128), (2, 100)))\n"
    "total = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 16)\n"
    "peak = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1536, 16)\n"
    "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, 4096)\n"
    "asc.adv.softmax(x, total, peak, x, asc.adv.SoftmaxTiling(), tmp)",
)


def _entry(name: str, examples: tuple[str, ...]) -> SimpleNamespace:
    return SimpleNamespace(name=name, vendor="ascend", pipe="V", function=getattr(asc.adv, name),
                           examples=(), examples_on=MappingProxyType({"950": examples}))


ENTRIES = (_entry("quant", QUANT_950), _entry("softmax", SOFTMAX_950))
