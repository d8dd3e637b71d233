"""Sort with SortConfig (高阶API/排序操作/Sort.md, the 950): the page's printed example, the reference model of
``sort_config_reference.py`` across types, both algorithms, both orders, special values and every form, the
page's rules (rejected calls change nothing) and interrupted calls.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.registry import BIT_EXACT, by_name
from npusim.errors import AlignmentError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_config_reference as ref
from .conftest import assert_rejected, fill
from .interrupts import Machine, sweep

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
RADIX, MERGE = asc.SortType.RADIX_SORT, asc.SortType.MERGE_SORT
SRC, DST, DST_INDEX, SRC_INDEX, TMP = 0x0, 0x8000, 0x10000, 0x18000, 0x20000
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def t(fmt: str, addr: int, size: int, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(getattr(asc, fmt), position, addr, size)


def put(core: asc.Core, addr: int, fmt: str, bits: list[int]) -> None:
    core.ub_write(addr, np.array(bits, dtype=UNSIGNED[ref.BYTES[fmt]]).tobytes())


def get(core: asc.Core, addr: int, fmt: str, count: int) -> list[int]:
    width = ref.BYTES[fmt]
    return np.frombuffer(core.ub_read(addr, count * width), UNSIGNED[width]).tolist()


def run_sort(fmt: str, bits: list[int], merge: bool, descending: bool, form: str, tmp: bool, reuse: bool = False,
             index_fmt: str = "uint32", src_index: list[int] | None = None):
    """One call on a 950 core with random bytes everywhere else: (UB before, core after)."""
    count = len(bits)
    size = -(-count // 32) * 32
    core = asc.Core("950")
    with core:
        fill(core, 0, 0x28000, seed=count)
        put(core, SRC, fmt, bits)
        if src_index is not None:
            put(core, SRC_INDEX, index_fmt, src_index)
        dst_size = size * 8 // ref.BYTES[fmt] if merge else size
        tensors = [t(fmt, DST, dst_size, VECOUT)]
        if form != "values":
            tensors.append(t(index_fmt, DST_INDEX, size, VECOUT))
        tensors.append(t(fmt, SRC, size))
        if form == "src_index":
            tensors.append(t(index_fmt, SRC_INDEX, size))
        if tmp:
            tensors.append(t("uint8", TMP, 0x8000, VECCALC))
        before = core.ub_read(0, 0x28000)
        config = asc.SortConfig(MERGE if merge else RADIX, descending)
        asc.sort_with_config(*tensors, count, config=config, is_reuse_source=reuse)
    return before, core


def check(fmt, bits, merge, descending, form, tmp, reuse=False, index_fmt="uint32", src_index=None):
    before, core = run_sort(fmt, bits, merge, descending, form, tmp, reuse, index_fmt, src_index)
    count = len(bits)
    want = ref.expected(bits, fmt, merge, descending, src_index if form == "src_index" else None, reuse)
    assert get(core, DST, fmt, count) == want["dst"]
    if form != "values":
        assert get(core, DST_INDEX, index_fmt, count) == want["dst_index"]
    assert get(core, SRC, fmt, count) == (want["src"] if want["src"] is not None else bits)
    if form == "src_index":
        after_index = want["src_index"] if want["src_index"] is not None else src_index
        assert get(core, SRC_INDEX, index_fmt, count) == after_index
    after = core.ub_read(0, 0x28000)
    if tmp:  # the scratch's contents are not modelled: npusim leaves them
        assert after[TMP:TMP + 0x8000] == before[TMP:TMP + 0x8000]
    width = ref.BYTES[fmt]
    if merge:  # the 8-byte element space past the values: not modelled, left as it was
        assert after[DST + count * width:DST + 8 * count] == before[DST + count * width:DST + 8 * count]


# ------------------------------------------------------------------ the page's example
def test_the_page_radix_example_of_1024_halves():
    """调用示例 (带SortConfig): RADIX_SORT ascending, 1024 halves 1023 ... 0 -> dst 0 ... 1023, dstIndex 1023 ... 0;
    the form the page calls (dst, dst_index, src) and the one with its printed srcIndex 0 ... 1023."""
    src = np.arange(1023, -1, -1).astype(np.float16)
    for with_index in (False, True):
        with asc.Core("950") as core:
            s, zi, z = t("float16", 0, 1024), t("uint32", 0x1000, 1024, VECOUT), t("float16", 0x2000, 1024, VECOUT)
            core.ub_write(0, src.tobytes())
            config = asc.SortConfig(RADIX, False)
            if with_index:
                si = t("uint32", 0x3000, 1024)
                core.ub_write(0x3000, np.arange(1024, dtype="<u4").tobytes())
                asc.sort_with_config(z, zi, s, si, 1024, config=config)
            else:
                asc.sort_with_config(z, zi, s, 1024, config=config)
            assert core.ub_read(0x2000, 2048) == np.arange(1024).astype(np.float16).tobytes()
            assert core.ub_read(0x1000, 4096) == np.arange(1023, -1, -1, dtype="<u4").tobytes()


def test_the_default_config_is_radix_ascending():
    assert asc.DEFAULT_SORT_CONFIG == asc.SortConfig() == asc.SortConfig(RADIX, False)
    with asc.Core("950") as core:
        s, z = t("int16", 0, 16), t("int16", 0x100, 16, VECOUT)
        put(core, 0, "int16", [5, 0xFFFF, 3, 0x8000] + [7] * 12)  # 5, -1, 3, -32768, 7 ...
        asc.sort_with_config(z, s, 16)
        assert get(core, 0x100, "int16", 16) == [0x8000, 0xFFFF, 3, 5] + [7] * 12


# ------------------------------------------------------------------ special values, by hand
HALF_SPECIAL = [0x0000, 0x8000, 0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7C00, 0xFC00, 0x3C00, 0xBC00, 0x0001, 0x8001]


def test_radix_half_orders_signed_zero_and_nans_by_their_bits():
    # ascending: -NaN(0x7E00 payload larger first) ... -inf, -1, -min, -0, +0, +min, 1, +inf, NaNs by payload
    order = [0xFE00, 0xFC01, 0xFC00, 0xBC00, 0x8001, 0x8000, 0x0000, 0x0001, 0x3C00, 0x7C00, 0x7C01, 0x7E00]
    bits = HALF_SPECIAL * 3 + [0] * 4  # 40 values: ties of equal bits
    before, core = run_sort("float16", bits, False, False, "dst_index", True)
    out = get(core, DST, "float16", 40)
    assert [b for i, b in enumerate(out) if i == 0 or out[i - 1] != b] == order
    index = get(core, DST_INDEX, "uint32", 40)
    assert index[out.index(0x0000):out.index(0x0000) + 7] == [0, 12, 24, 36, 37, 38, 39]  # ties in input order
    _, core = run_sort("float16", bits, False, True, "dst_index", False)
    down = get(core, DST, "float16", 40)
    assert [b for i, b in enumerate(down) if i == 0 or down[i - 1] != b] == order[::-1]
    index = get(core, DST_INDEX, "uint32", 40)
    assert index[down.index(0x0000):down.index(0x0000) + 7] == [0, 12, 24, 36, 37, 38, 39]  # stable, not reversed


def test_merge_ties_signed_zeros_and_puts_every_nan_first():
    bits = (HALF_SPECIAL * 3)[:32]
    for descending in (False, True):
        _, core = run_sort("float16", bits, True, descending, "dst_index", True)
        out, index = get(core, DST, "float16", 32), get(core, DST_INDEX, "uint32", 32)
        nans = [i for i, b in enumerate(bits) if (b & 0x7C00) == 0x7C00 and b & 0x3FF]
        assert index[:len(nans)] == nans  # NaNs of both signs first, in input order, ascending too
        zeros = [i for i, b in enumerate(bits) if b & 0x7FFF == 0]
        position = index.index(zeros[0])
        assert index[position:position + len(zeros)] == zeros  # ±0 tie
        assert out == ref.expected(bits, "float16", True, descending)["dst"]


# ------------------------------------------------------------------ the reference model, by hypothesis
RADIX_TYPES = sorted(ref.BYTES)
SPECIAL = {"float16": HALF_SPECIAL, "bfloat16": [0, 0x8000, 0x7FC0, 0xFFC0, 0x7F81, 0x7F80, 0xFF80, 0x3F80],
           "float32": [0, 0x80000000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0x3F800000, 1]}


@st.composite
def sort_cases(draw, merge: bool):
    fmt = draw(st.sampled_from(["float16", "float32"] if merge else RADIX_TYPES))
    width = 8 * ref.BYTES[fmt]
    count = draw(st.sampled_from([32, 64, 96, 160]) if merge else st.integers(1, 300))
    pool = draw(st.lists(st.integers(0, (1 << width) - 1), min_size=1, max_size=12)) + SPECIAL.get(fmt, [])
    pool += [0, (1 << width) - 1, 1 << (width - 1)]
    bits = draw(st.lists(st.one_of(st.sampled_from(pool), st.integers(0, (1 << width) - 1)),
                         min_size=count, max_size=count))
    form = draw(st.sampled_from(["values", "dst_index", "src_index"]))
    index_fmt = "uint32" if merge or form != "src_index" else draw(st.sampled_from(["uint32", "int32", "uint64",
                                                                                     "int64"]))
    index_width = 8 * ref.BYTES[index_fmt]
    src_index = draw(st.lists(st.integers(0, (1 << index_width) - 1), min_size=count, max_size=count))
    return fmt, bits, draw(st.booleans()), form, draw(st.booleans()), draw(st.booleans()), index_fmt, src_index


@SETTINGS
@given(sort_cases(merge=False))
def test_radix_sort_matches_the_reference_model(case):
    fmt, bits, descending, form, tmp, reuse, index_fmt, src_index = case
    check(fmt, bits, False, descending, form, tmp, reuse, index_fmt, src_index)


@SETTINGS
@given(sort_cases(merge=True))
def test_merge_sort_matches_the_reference_model(case):
    fmt, bits, descending, form, tmp, reuse, index_fmt, src_index = case
    check(fmt, bits, True, descending, form, tmp, reuse, index_fmt, src_index)


@pytest.mark.parametrize("fmt", RADIX_TYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_radix_of_every_type_with_reused_source(fmt, descending):
    rng = np.random.default_rng(ref.BYTES[fmt])
    width = 8 * ref.BYTES[fmt]
    bits = [int(v) for v in rng.integers(0, 1 << min(width, 62), 100)] + SPECIAL.get(fmt, [])[:8] * 2
    check(fmt, bits, False, descending, "src_index", True, True, "int64", list(range(500, 500 + len(bits))))


# ------------------------------------------------------------------ forms
def test_forms_of_one_shape_are_told_apart_as_cpp_does():
    """(u32, u32, u8, n): values with a sharedTmpBuffer; (u32, u32, u32, n): dst_index; (u8, u32, u8, n):
    dst_index of uint8 values; (dst, dst_index, src, u8, n): a tmp; (..., u32, n): src_index."""
    with asc.Core("950") as core:
        put(core, 0, "uint32", [3, 1, 2] + [9] * 29)
        s, a, z = t("uint32", 0, 32), t("uint32", 0x100, 32, VECOUT), t("uint32", 0x200, 32, VECOUT)
        w = t("uint8", 0x1000, 4096, VECCALC)
        asc.sort_with_config(z, s, w, 3)
        assert get(core, 0x200, "uint32", 3) == [1, 2, 3]
        asc.sort_with_config(z, a, s, 3)
        assert get(core, 0x100, "uint32", 3) == [1, 2, 0]
        put(core, 0x300, "uint8", [5, 4] + [0] * 30)
        asc.sort_with_config(t("uint8", 0x400, 32, VECOUT), a, t("uint8", 0x300, 32), 2)
        assert get(core, 0x400, "uint8", 2) == [4, 5] and get(core, 0x100, "uint32", 2) == [1, 0]
        put(core, 0x500, "uint32", list(range(100, 132)))
        asc.sort_with_config(z, a, s, t("uint32", 0x500, 32), 3)
        assert get(core, 0x100, "uint32", 3) == [101, 102, 100]
        asc.sort_with_config(z, a, s, w, 3, config=asc.SortConfig(RADIX, True))
        assert get(core, 0x100, "uint32", 3) == [0, 2, 1]


def test_the_registry_entry():
    entry = by_name("ascend", "sort_with_config")
    assert [chip for chip in asc.CHIPS if entry.support(asc.CHIPS[chip])] == ["950"]
    assert entry.exactness == BIT_EXACT and len(entry.forms) == 6


# ------------------------------------------------------------------ rules
def rule_core() -> asc.Core:
    core = asc.Core("950")
    with core:
        fill(core, 0, 0x10000, seed=5)
    return core


H, U32 = "float16", "uint32"
M_DOWN = asc.SortConfig(MERGE, True)
REJECTED = [
    ("another product", "A2", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), 64)),
    ("merge of int16", "950", UnsupportedError,
     lambda: asc.sort_with_config(t("int16", 0x1000, 256, VECOUT), t("int16", 0, 256), 64, config=M_DOWN)),
    ("radix of float64", "950", UnsupportedError,
     lambda: asc.sort_with_config(t("float64", 0x1000, 64, VECOUT), t("float64", 0, 64), 64)),
    ("dst of another type", "950", UnsupportedError,
     lambda: asc.sort_with_config(t("uint16", 0x1000, 64, VECOUT), t(H, 0, 64), 64)),
    ("a dst_index of int32 without src_index", "950", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t("int32", 0x2000, 64, VECOUT), t(H, 0, 64), 64)),
    ("a merge src_index of int32", "950", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 256, VECOUT), t("int32", 0x2000, 64, VECOUT), t(H, 0, 64),
                                  t("int32", 0x3000, 64), 64, config=M_DOWN)),
    ("src_index of uint16", "950", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t("uint16", 0x2000, 64, VECOUT), t(H, 0, 64),
                                  t("uint16", 0x3000, 64), 64)),
    ("index types differ", "950", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t("uint32", 0x2000, 64, VECOUT), t(H, 0, 64),
                                  t("int32", 0x3000, 64), 64)),
    ("cal_count 0", "950", ParameterRangeError, lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), 0)),
    ("cal_count past src", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), 65)),
    ("sizes differ", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t(H, 0x1000, 128, VECOUT), t(H, 0, 64), 64)),
    ("a size of 30 bytes", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t(H, 0x1000, 15, VECOUT), t(H, 0, 15), 15)),
    ("merge of 48", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t(H, 0x1000, 256, VECOUT), t(H, 0, 64), 48, config=M_DOWN)),
    ("merge past 8160", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t("float32", 0x10000, 16384, VECOUT), t("float32", 0, 8192), 8192,
                                  config=M_DOWN)),
    ("merge dst of 4 bytes per element", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t("float32", 0x1000, 64, VECOUT), t("float32", 0, 64), 64, config=M_DOWN)),
    ("a small tmp", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), t("uint8", 0x2000, 512, VECCALC), 64)),
    ("a tmp of int8", "950", UnsupportedError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), t("int8", 0x2000, 4096, VECCALC), 64)),
    ("framework scratch past UB", "950", ParameterRangeError,
     lambda: asc.sort_with_config(t("uint8", 0x10000, 40000, VECOUT), t("uint8", 0, 40000), 40000)),
    ("dst over src", "950", OverlapError, lambda: asc.sort_with_config(t(H, 0x40, 64, VECOUT), t(H, 0, 64), 64)),
    ("tmp over dst", "950", OverlapError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), t("uint8", 0x1000, 4096, VECCALC), 64)),
    ("dst_index over dst", "950", OverlapError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(U32, 0x1020, 64, VECOUT), t(H, 0, 64), 64)),
    ("dst_index over src_index", "950", OverlapError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(U32, 0x2000, 64, VECOUT), t(H, 0, 64),
                                  t(U32, 0x2000, 64), 64)),
    ("src_index over the src an ascending merge flips", "950", OverlapError,
     lambda: asc.sort_with_config(t("float32", 0x1000, 128, VECOUT), t(U32, 0x2000, 64, VECOUT), t("float32", 0, 64),
                                  t(U32, 0x80, 64), 64, config=asc.SortConfig(MERGE, False))),
    ("src_index over the src a radix sort reuses", "950", OverlapError,
     lambda: asc.sort_with_config(t("float32", 0x1000, 64, VECOUT), t(U32, 0x2000, 64, VECOUT), t("float32", 0, 64),
                                  t(U32, 0, 64), 64, is_reuse_source=True)),
    ("a misaligned src", "950", AlignmentError,
     lambda: asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0x10, 64), 64)),
]


@pytest.mark.parametrize(("what", "chip", "error", "call"), REJECTED, ids=[r[0] for r in REJECTED])
def test_a_broken_rule_is_rejected_and_changes_nothing(what, chip, error, call):
    core = rule_core() if chip == "950" else asc.Core(chip)
    with core:
        fill(core, 0, 0x10000, seed=5)
        assert_rejected(core, error, call, "sort_with_config", instruction="sort_with_config")


@pytest.mark.parametrize("config", [asc.SortConfig(MERGE, True), asc.SortConfig(RADIX, False)])
def test_src_index_may_share_src_bytes_the_call_only_reads(config):
    """Without an ascending merge or a reused source the call only reads src and src_index: the same bytes as
    both give the order of the values and, as indices, their bits in that order."""
    values = [3.0, -1.0, 2.0, 0.5] * 16
    with asc.Core("950"):
        src = t("float32", 0, 64)
        src.write(np.array(values, np.float32))
        dst = t("float32", 0x1000, 128 if config.type == MERGE else 64, VECOUT)  # a merge: 8 bytes an element
        dst_index = t(U32, 0x2000, 64, VECOUT)
        asc.sort_with_config(dst, dst_index, src, src.reinterpret_cast(asc.uint32), 64, config=config)
        order = sorted(range(64), key=lambda i: values[i], reverse=config.is_descend)  # stable: ties keep order
        assert dst.read(64).tolist() == [values[i] for i in order]
        assert dst_index.read().tolist() == [int(np.float32(values[i]).view(np.uint32)) for i in order]


def test_a_wrong_python_type_is_a_type_error():
    with asc.Core("950"):
        with pytest.raises(TypeError):
            asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), 64, config=(RADIX, False))
        with pytest.raises(TypeError):
            asc.sort_with_config(t(H, 0x1000, 64, VECOUT), t(H, 0, 64), 64.0)


def test_the_tmp_sizes_follow_get_sort_max_min_tmp_size():
    """The smallest accepted sharedTmpBuffer is the reference's minValue, per form, reuse and type."""
    for fmt, form, reuse in (("float16", "values", False), ("uint8", "dst_index", False),
                             ("float32", "src_index", True), ("int64", "src_index", False)):
        need = ref.tmp_min_bytes(100, fmt, False, 4, form == "src_index", form != "values", reuse)
        need = -(-need // 32) * 32
        for size, ok in ((need, True), (need - 32, False)):
            with asc.Core("950") as core:
                fill(core, 0, 0x30000)
                tensors = [t(fmt, 0x4000, 128, VECOUT)]
                if form != "values":
                    tensors.append(t("uint32", 0x5000, 128, VECOUT))
                tensors.append(t(fmt, 0, 128))
                if form == "src_index":
                    tensors.append(t("uint32", 0x6000, 128))
                tensors.append(t("uint8", 0x8000, size, VECCALC))
                if ok:
                    asc.sort_with_config(*tensors, 100, is_reuse_source=reuse)
                else:
                    def call(ts=tuple(tensors), r=reuse):
                        asc.sort_with_config(*ts, 100, is_reuse_source=r)

                    assert_rejected(core, ParameterRangeError, call, operand="shared_tmp_buffer bytes")


# ------------------------------------------------------------------ interruptions (the access records of the
# registered examples: tests/ascend/test_sort_access_records.py, the sort family)
INTERRUPTED = {
    "radix, src and dst index (dst, dst_index)": lambda: asc.sort_with_config(
        t("int32", 0x1000, 64, VECOUT), t("uint32", 0x2000, 64, VECOUT), t("int32", 0, 64), t("uint32", 0x3000, 64),
        t("uint8", 0x4000, 4096, VECCALC), 60, config=asc.SortConfig(RADIX, True)),
    "radix, reused source (dst, src, src_index)": lambda: asc.sort_with_config(
        t(H, 0x1000, 64, VECOUT), t("uint32", 0x2000, 64, VECOUT), t(H, 0, 64), t("uint32", 0x3000, 64), 64,
        is_reuse_source=True),
    "merge ascending (dst, dst_index, src)": lambda: asc.sort_with_config(
        t(H, 0x1000, 256, VECOUT), t("uint32", 0x2000, 64, VECOUT), t(H, 0, 64), 64, config=asc.SortConfig(MERGE)),
}


@pytest.mark.parametrize("form", sorted(INTERRUPTED))
def test_an_interrupted_call_changes_nothing(form):
    core = asc.Core("950")
    with core:
        fill(core, 0, 0x8000, seed=3)
    assert sweep(Machine(core), INTERRUPTED[form], fresh_plans=True)
    assert sweep(Machine(core), INTERRUPTED[form], fresh_plans=False)
