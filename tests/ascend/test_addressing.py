"""The one address formula and the mask-register conversions (ref §1.1-§1.3)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.ascend.addressing import (
    BlockRuns,
    contiguous_mask_words,
    counter_mode_lanes,
    lane_offsets,
    mask_word_bits,
    normal_mode_lanes,
)
from npusim.engine.trace import ranges_of_addresses

from .reference_model import lane_address, set_mask_words


def test_worked_example_float32_strided():
    assert lane_offsets(2, 4, 2, 16)[1, 9] == 1 * 16 * 32 + 1 * 2 * 32 + 1 * 4 == 580


def test_counter_mode_example_half_130():
    """接口内设置Mask.md: half, 130 elements -> 2 repeats, 2 active lanes in the second."""
    lanes = counter_mode_lanes(130, 128)
    assert (lanes.repeats, lanes.count) == (2, 130)
    assert lanes.mask[1].sum() == 2 and lanes.mask[0].all()


def test_bitwise_example_mask_8_2():
    """ref §1.2: mask = [8, 2] activates lane 3 and lane 65."""
    assert np.flatnonzero(mask_word_bits((8, 2), 128)).tolist() == [3, 65]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.integers(1, 5), st.integers(0, 9), st.integers(0, 20))
def test_lane_offsets_match_the_formula(size, repeats, blk, rep):
    table = lane_offsets(repeats, size, blk, rep)
    for r in range(repeats):
        for j in range(256 // size):
            assert table[r, j] == lane_address(0, r, j, size, blk, rep)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.sampled_from([1, 2, 4]), st.integers(0, 400))
def test_contiguous_mask_words_match_setmask(size, length):
    assert contiguous_mask_words(length, size) == set_mask_words(length, size)
    active = normal_mode_lanes((*contiguous_mask_words(length, size), 0, 0), 256 // size, 1)
    n = active.count
    assert n == min(length, 256 // size) or (size == 1 and length > 128)


@settings(max_examples=200, derandomize=True, database=None)
@given(st.integers(0, 6), st.integers(0, 40), st.integers(0, 80), st.integers(0, 100))
def test_block_runs_ranges_are_the_runs_of_their_byte_addresses(blocks, nbytes, pitch, base):
    """A copy's byte ranges (its access record) are the maximal runs of the bytes it touches."""
    runs = BlockRuns(blocks, nbytes, max(pitch, nbytes))
    want = tuple(ranges_of_addresses("GM", runs.byte_index(base).reshape(-1), "x"))
    assert runs.ranges("GM", base, "x") == want
