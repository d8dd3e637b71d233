"""Chip table (sophgo-semantics §3.1, §4.1)."""

from __future__ import annotations

import dataclasses

import pytest

from npusim import sophgo as tpu
from npusim.errors import UnsupportedError

# name -> (NPU_NUM, LOCAL_MEM_SIZE, banks, EU bytes, EU_NUM fp32/fp16/int8) from §3.1
EXPECTED = {
    "BM1684X": (64, 262144, 16, 64, (16, 32, 64)),
    "BM1688": (32, 131072, 16, 16, (4, 8, 16)),
    "SG2260": (64, 262144, 16, 64, (16, 32, 64)),
    "CV184X": (8, 65536, 16, 16, (4, 8, 16)),
}


@pytest.mark.parametrize("name", list(tpu.CHIPS))
def test_every_chip_matches_the_reference_table(name):
    """Loops over the registry: a chip added without a row here fails loudly."""
    chip = tpu.CHIPS[name]
    npu, lms, banks, eu_bytes, eu_nums = EXPECTED[name]
    assert (chip.npu_num, chip.local_mem_bytes, chip.bank_num, chip.eu_bytes) == (npu, lms, banks, eu_bytes)
    assert (chip.eu_num(32), chip.eu_num(16), chip.eu_num(8)) == eu_nums
    assert chip.bank_bytes == lms // banks and chip.align_bytes == eu_bytes
    assert chip.total_local_mem_bytes == npu * lms
    assert chip.source


def test_chips_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        tpu.CHIPS["BM1684X"].npu_num = 32


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("bm1684x", "BM1684X"),
        (" BM1688 ", "BM1688"),
        ("cv186x", "BM1688"),
        ("bm1690", "SG2260"),
        ("mars3", "CV184X"),
    ],
)
def test_lookup_is_case_insensitive_with_aliases(name, canonical):
    assert tpu.get_chip(name) is tpu.CHIPS[canonical]
    assert tpu.Core(name).chip.name == canonical


def test_unknown_chip_names_the_known_ones():
    with pytest.raises(UnsupportedError) as info:
        tpu.Core("bm1686x")
    for name in ("BM1684X", "BM1688", "SG2260", "BM1690", "CV184X"):
        assert name in str(info.value)
    with pytest.raises(TypeError):
        tpu.get_chip(1684)


def test_select_dtype_rules_per_chip():
    """§4.1: precision codes 0..5 on BM1684X/BM1688, FP8 on SG2260 only, no FP32/FP16 on CV184X."""
    nine = {tpu.DT_UINT8, tpu.DT_INT8, tpu.DT_FP16, tpu.DT_FP32, tpu.DT_UINT16, tpu.DT_INT16,
            tpu.DT_UINT32, tpu.DT_INT32, tpu.DT_BFP16}  # fmt: skip
    fp8 = {tpu.DT_FP8E5M2, tpu.DT_FP8E4M3}
    for name in ("BM1684X", "BM1688"):
        assert tpu.CHIPS[name].select_compare_dtypes == tpu.CHIPS[name].select_value_dtypes == nine
        assert tpu.CHIPS[name].oracle
    assert tpu.CHIPS["SG2260"].select_compare_dtypes == nine | fp8
    assert tpu.CHIPS["SG2260"].oracle and not tpu.CHIPS["SG2260"].select_equal_width_compare_dtypes  # §5.1
    assert tpu.CHIPS["CV184X"].select_value_dtypes == nine - {tpu.DT_FP32, tpu.DT_FP16}
    for chip in tpu.CHIPS.values():
        assert tpu.DT_INT4 not in chip.select_value_dtypes | chip.select_compare_dtypes
