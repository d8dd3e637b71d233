#!/usr/bin/env python3
"""Generate byte-exact oracle cases for the Sophgo data-movement API with the vendor cmodel.

Covers ``tpu_gdma_cpy_S2L``, ``tpu_gdma_cpy_L2S`` and ``tpu_bdc_set_C`` on BM1684X and BM1688:
NULL and explicit strides, start lanes, C above NPU_NUM, overlapping destinations, the
largest W strides, and calls the cmodel rejects.  The cmodel driver, the worker subprocess
handling and the chip table come from ``sophgo_cmodel_oracle.py`` (same directory); like it,
this script imports nothing from npusim, so a fixture passes only if both agree.

Usage::

    python tools/sophgo_cmodel_oracle.py fetch          # once: the cmodel libraries into tools/_cache/
    python tools/sophgo_cmodel_runtime_oracle.py generate --out-dir tests/data/sophgo

``generate`` also writes ``example_clamp_relu_bm1684x.json.gz``: the torch-tpu relu backward and
clamp kernels of ``npusim.examples.sophgo_clamp_relu_backward`` (GDMA in, BDC selects, GDMA
out; C = 100 > NPU_NUM) run on the BM1684X cmodel with FP32 data full of special values.

How a case runs (identically in the cmodel and in the npusim tests):

* every byte of local memory holds ``local_pattern(lane, offset) = (lane*131 + offset*7 + 0x3C) & 0xFF``;
* the first ``GLOBAL_WINDOW`` bytes of global memory hold ``global_pattern(a) = (a*13 + (a >> 8)*5 + 0x5A) & 0xFF``
  (global addresses are offsets from the start of DDR, which the cmodel maps at 0x100000000);
* the call runs; the case records the destination's elements in NCHW order (``dst_data``,
  located with this script's own formula) and the SHA-256 of the destination *window*:
  local: all lanes, in-lane bytes ``[lo - 64, hi + 64)`` around what the tensor spans, clipped
  to the lane; global: bytes ``[addr - 64, end + 64)``, clipped to the global window.

A case (JSON)::

    {"id", "chip", "func": "S2L" | "L2S" | "set_C", "dtype": code, "shape": [n, c, h, w],
     "dst": addr, "src": addr (GDMA), "C": u32 (set_C),
     "dst_stride": [n, c, h, w] | null, "src_stride": [...] | null (GDMA),
     "expect": {"dst_data": hex, "window_sha256": hex} | "expect_error": {"message": ...}}
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sophgo_cmodel_oracle import (  # noqa: E402  (the sibling tool is the shared cmodel driver)
    CHIPS,
    LIBS,
    WHEEL,
    Violations,
    _Dim4,
    add_generate_and_worker,
    div_up,
    find_cmodel_dir,
    generate_fixtures,
    open_cmodel,
    write_gzip_json,
)

GLOBAL_MEM_BYTES = 1 << 28  # what cmodel_init is given; the bounds cases depend on it
GLOBAL_BASE = {"BM1684X": 0x100000000, "BM1688": 0x100000000, "SG2260": 0}  # where each oracle maps DDR
GLOBAL_WINDOW = 1 << 20
GUARD_BYTES = 64
# MAX_WSTRIDE_BYTE_LEN, measured: the BM cmodels assert 0 < w_stride * size <= it.  The SG2260 emulator
# has no such assert (a W stride of 0 or of 65535 elements is computed; only the memory bounds hold).
MAX_W_STRIDE_BYTES = {"BM1684X": 128, "BM1688": 64}
# The BM cmodels' set_C asserts dst_shape[i] == 1 wherever dst_stride[i] == 0; the SG2260 emulator does not.
SET_C_ZERO_STRIDE_NEEDS_EXTENT_1 = frozenset({"BM1684X", "BM1688"})
FP8_MOVERS = frozenset({"SG2260"})  # GDMA and set_C take FP8 (the BM cmodels assert)

# vendor code -> bytes per element for the nine types both engines move (sophgo-semantics §2)
SIZES = {0: 1, 1: 1, 3: 2, 5: 4, 6: 2, 7: 2, 8: 4, 9: 4, 11: 2}
INT4, FP8E4M3, FP8E5M2, FP20, TF32 = 13, 47, 15, 17, 19
ITEMSIZE = {**SIZES, FP8E4M3: 1, FP8E5M2: 1, TF32: 4}  # what a case may move (FP8, TF32: SG2260)


def local_pattern(lanes: int, lane_bytes: int) -> np.ndarray:
    lane = np.arange(lanes, dtype=np.int64)[:, None]
    offset = np.arange(lane_bytes, dtype=np.int64)[None, :]
    return ((lane * 131 + offset * 7 + 0x3C) & 0xFF).astype(np.uint8)


def global_pattern(nbytes: int) -> np.ndarray:
    a = np.arange(nbytes, dtype=np.int64)
    return ((a * 13 + (a >> 8) * 5 + 0x5A) & 0xFF).astype(np.uint8)


# ---------------------------------------------------------------------------------- layout


def aligned_stride(shape, start_lane: int, size: int, chip: str) -> list[int]:
    """sophgo-semantics §3.3 aligned layout for a tensor starting on ``start_lane``."""
    npu, _, align = CHIPS[chip]
    n, c, h, w = shape
    eu = align // size
    cs = div_up(h * w, eu) * eu
    return [div_up(start_lane + c, npu) * cs, cs, w, 1]


def default_local_stride(case: dict) -> list[int]:
    """NULL local stride: GDMA computes the aligned layout for start lane 0; set_C for the address's lane."""
    npu, lms, _ = CHIPS[case["chip"]]
    start = 0 if case["func"] in ("S2L", "L2S") else case["dst"] // lms
    return aligned_stride(case["shape"], start, ITEMSIZE[case["dtype"]], case["chip"])


def local_positions(addr: int, shape, stride, size: int, chip: str) -> tuple[np.ndarray, np.ndarray]:
    """(lane, byte offset) of every element, NCHW order (sophgo-semantics §3.3)."""
    npu, lms, _ = CHIPS[chip]
    s, base = divmod(addr, lms)
    n, c, h, w = np.meshgrid(*(np.arange(d) for d in shape), indexing="ij")
    lane = (s + c) % npu
    off = base + size * (n * stride[0] + ((s + c) // npu) * stride[1] + h * stride[2] + w * stride[3])
    return lane.ravel(), off.ravel()


def global_positions(addr: int, shape, stride, size: int) -> np.ndarray:
    n, c, h, w = np.meshgrid(*(np.arange(d) for d in shape), indexing="ij")
    return (addr + size * (n * stride[0] + c * stride[1] + h * stride[2] + w * stride[3])).ravel()


def continuous(shape) -> list[int]:
    n, c, h, w = shape
    return [c * h * w, h * w, w, 1]


def gather_bytes(flat: np.ndarray, starts: np.ndarray, size: int) -> bytes:
    return np.stack([flat[starts + k] for k in range(size)], axis=-1).tobytes()


# ---------------------------------------------------------------------------------- cmodel driver


class RuntimeCmodel:
    """An initialised cmodel with its local memory (lane-major) and DDR as numpy arrays."""

    def __init__(self, lib_path: str, chip: str) -> None:
        lib, self.lmem = open_cmodel(lib_path, chip, GLOBAL_MEM_BYTES)
        lib.get_global_memaddr.restype = ctypes.c_void_p
        lib.get_global_memaddr.argtypes = [ctypes.c_int]
        lib.cmodel_get_gmem_start_addr.restype = ctypes.c_uint64
        npu, lms, _ = CHIPS[chip]
        self.global_base = GLOBAL_BASE[chip]
        start = lib.cmodel_get_gmem_start_addr()
        if start != self.global_base:
            raise RuntimeError(f"{chip}: DDR starts at {start:#x}, not {self.global_base:#x}")
        ddr = (ctypes.c_uint8 * GLOBAL_MEM_BYTES).from_address(lib.get_global_memaddr(0))
        self.gmem = np.frombuffer(ddr, np.uint8)
        dim = ctypes.POINTER(_Dim4)
        lib.tpu_gdma_cpy_S2L.argtypes = [ctypes.c_uint32, ctypes.c_uint64, dim, dim, dim, ctypes.c_int]
        lib.tpu_gdma_cpy_L2S.argtypes = [ctypes.c_uint64, ctypes.c_uint32, dim, dim, dim, ctypes.c_int]
        lib.tpu_bdc_set_C.argtypes = [ctypes.c_uint32, ctypes.c_uint32, dim, dim, ctypes.c_int]
        self.lib, self.chip = lib, chip
        self.local_background = local_pattern(npu, lms)
        self.global_background = global_pattern(GLOBAL_WINDOW)

    def run(self, case: dict) -> dict:
        self.lmem[...] = self.local_background
        self.gmem[:GLOBAL_WINDOW] = self.global_background

        def dim(v):
            return None if v is None else ctypes.byref(_Dim4(*v))

        shape, dt = case["shape"], case["dtype"]
        if case["func"] == "S2L":
            self.lib.tpu_gdma_cpy_S2L(case["dst"], self.global_base + case["src"], dim(shape), dim(case["dst_stride"]),
                                      dim(case["src_stride"]), dt)
        elif case["func"] == "L2S":
            self.lib.tpu_gdma_cpy_L2S(self.global_base + case["dst"], case["src"], dim(shape), dim(case["dst_stride"]),
                                      dim(case["src_stride"]), dt)
        else:
            self.lib.tpu_bdc_set_C(case["dst"], case["C"], dim(shape), dim(case["dst_stride"]), dt)
        self.lib.tpu_poll()
        return self.observe(case)

    def observe(self, case: dict) -> dict:
        size, shape = ITEMSIZE[case["dtype"]], case["shape"]
        if case["func"] == "L2S":
            stride = case["dst_stride"] or continuous(shape)
            starts = global_positions(case["dst"], shape, stride, size)
            lo, hi = max(0, int(starts.min()) - GUARD_BYTES), min(GLOBAL_WINDOW, int(starts.max()) + size + GUARD_BYTES)
            window = self.gmem[lo:hi]
            return {"dst_data": gather_bytes(self.gmem, starts, size).hex(),
                    "window_sha256": hashlib.sha256(window.tobytes()).hexdigest()}
        stride = case["dst_stride"] or default_local_stride(case)
        lane, off = local_positions(case["dst"], shape, stride, size, self.chip)
        lms = self.lmem.shape[1]
        lo, hi = max(0, int(off.min()) - GUARD_BYTES), min(lms, int(off.max()) + size + GUARD_BYTES)
        data = np.stack([self.lmem[lane, off + k] for k in range(size)], axis=-1)
        return {"dst_data": data.tobytes().hex(),
                "window_sha256": hashlib.sha256(np.ascontiguousarray(self.lmem[:, lo:hi]).tobytes()).hexdigest()}


def _worker(args: argparse.Namespace) -> None:
    cases = json.loads(Path(args.cases).read_text())
    model = RuntimeCmodel(args.lib, args.chip)
    with open(args.results, "a") as out:
        for case in cases:
            out.write(json.dumps({"id": case["id"], **model.run(case)}) + "\n")
            out.flush()


# ---------------------------------------------------------------------------------- cases


class CaseMaker:
    """Random legal calls (by the measured rules) and deliberate violations, for one chip."""

    def __init__(self, chip: str, seed: int) -> None:
        self.chip = chip
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def _id(self, tag: str) -> str:
        self.count += 1
        return f"{self.chip.lower()}-{tag}-{self.count:04d}"

    def random_shape(self, big_c: bool = False) -> list[int]:
        npu = CHIPS[self.chip][0]
        r = self.rng
        c = int(r.integers(npu + 1, 2 * npu + 40)) if big_c else int(r.integers(1, npu + 10))
        return [int(r.integers(1, 4)), c, int(r.integers(1, 5)), int(r.integers(1, 10))]

    def local_addr(self, size: int, start_lane: int | None = None, align: int | None = None) -> int:
        npu, lms, _ = CHIPS[self.chip]
        lane = int(self.rng.integers(npu)) if start_lane is None else start_lane
        step = align or size
        return lane * lms + int(self.rng.integers(0, 0x2000 // step)) * step

    def global_addr(self, size: int) -> int:
        return int(self.rng.integers(0, 0x40000 // size)) * size

    def explicit_stride(self, shape, size: int, overlap: bool, local: bool, zero_ok: bool = True) -> list[int]:
        """A free-layout stride: nested (no two elements share a place) unless ``overlap``
        (then one axis of extent > 1 gets stride 1, or 0 when ``zero_ok``)."""
        r = self.rng
        max_w = MAX_W_STRIDE_BYTES.get(self.chip, 128) // size
        n, c, h, w = shape
        ws = int(r.integers(1, min(max_w, 4) + 1))
        hs = w * ws + int(r.integers(0, 5))
        cs = h * hs + int(r.integers(0, 9))
        ns = (div_up(c, CHIPS[self.chip][0]) if local else c) * cs + int(r.integers(0, 9))
        stride = [ns, cs, hs, ws]
        if overlap:  # squeeze one axis of extent > 1 so elements coincide
            axes = [i for i, d in enumerate(shape) if d > 1 and i != 3] or [0]
            stride[int(r.choice(axes))] = int(r.integers(0 if zero_ok else 1, 2))
        return stride

    def gdma(self, func: str, dtype: int, *, shape=None, start_lane=None, local_stride="null",
             global_stride="null", align=None) -> dict:  # fmt: skip
        size = ITEMSIZE[dtype]
        shape = shape or self.random_shape()
        local = self.local_addr(size, start_lane, align)
        glob = self.global_addr(size)

        def stride(kind: str, is_local: bool):
            if kind == "null":
                return None
            return self.explicit_stride(shape, size, overlap=kind == "overlap", local=is_local)

        ls, gs = stride(local_stride, True), stride(global_stride, False)
        dst, src, dst_stride, src_stride = (local, glob, ls, gs) if func == "S2L" else (glob, local, gs, ls)
        return {"id": self._id(func), "chip": self.chip, "func": func, "dtype": dtype, "shape": shape,
                "dst": dst, "src": src, "dst_stride": dst_stride, "src_stride": src_stride}

    def set_c(self, dtype: int, *, shape=None, start_lane=None, stride="null") -> dict:
        size = ITEMSIZE[dtype]
        shape = shape or self.random_shape()
        align = CHIPS[self.chip][2] if stride == "null" else size
        dst_stride = None
        if stride != "null":
            # set_C asserts dst_shape[i] == 1 wherever stride[i] == 0, so overlaps use stride 1
            dst_stride = self.explicit_stride(shape, size, overlap=stride == "overlap", local=True, zero_ok=False)
        value = int(self.rng.integers(0, 1 << 32))
        return {"id": self._id("set_C"), "chip": self.chip, "func": "set_C", "dtype": dtype, "shape": shape,
                "dst": self.local_addr(size, start_lane, align), "C": value, "dst_stride": dst_stride}


def make_cases(chip: str, seed: int) -> list[dict]:
    maker = CaseMaker(chip, seed)
    npu, lms, align = CHIPS[chip]
    cases = []
    for func in ("S2L", "L2S"):
        for dtype in SIZES:  # every type, NULL strides, random start lane and element-aligned offset
            cases.append(maker.gdma(func, dtype))
            cases.append(maker.gdma(func, dtype, shape=maker.random_shape(big_c=True)))
        for start in (0, npu // 2, npu - 1):  # the NULL-stride start-lane question, N > 1, C around NPU_NUM
            for c in (npu - start + 3, 2 * npu - 5, npu + 7):
                cases.append(maker.gdma(func, 7, shape=[3, c, 2, 3], start_lane=start))
        for local_kind, global_kind in (("nested", "null"), ("null", "nested"), ("nested", "nested"),
                                        ("overlap", "null"), ("null", "overlap"), ("overlap", "overlap")):
            for dtype in (1, 7, 5):
                cases.append(maker.gdma(func, dtype, shape=maker.random_shape(big_c=True), local_stride=local_kind,
                                        global_stride=global_kind))
        for dtype in (1, 6, 9):  # the largest W stride, on both sides (SG2260, which has no limit: 4 KiB)
            max_w = MAX_W_STRIDE_BYTES.get(chip, 4096) // SIZES[dtype]
            case = maker.gdma(func, dtype, shape=[1, 3, 2, 3], local_stride="nested", global_stride="nested")
            case["dst_stride"][3] = case["src_stride"][3] = max_w
            case["dst_stride"][2] = case["src_stride"][2] = 3 * max_w
            case["dst_stride"][1] = case["src_stride"][1] = 6 * max_w
            case["dst_stride"][0] = case["src_stride"][0] = 18 * max_w
            cases.append(case)
        cases.append(maker.gdma(func, 1, shape=[1, 1, 1, 70000], start_lane=0))  # W above 65535: split commands
    for dtype in SIZES:
        cases.append(maker.set_c(dtype))
        cases.append(maker.set_c(dtype, shape=maker.random_shape(big_c=True), start_lane=int(npu * 0.7)))
        cases.append(maker.set_c(dtype, stride="nested"))
    for dtype in (1, 7, 5):
        cases.append(maker.set_c(dtype, shape=maker.random_shape(big_c=True), stride="overlap"))
    case = maker.set_c(7, shape=[1, 3, 4, 1], stride="nested")  # zero strides are legal on axes of extent 1
    case["dst_stride"][0] = case["dst_stride"][3] = 0
    cases.append(case)
    for start in (0, npu // 2, npu - 1):
        cases.append(maker.set_c(9, shape=[2, npu - start + 3, 1, 3], start_lane=start))
    return cases + fp8_cases(maker) + zero_stride_cases(maker)


def fp8_cases(maker: CaseMaker) -> list[dict]:
    """FP8 data movement, where the chip has it: both FP8 types, NULL and explicit strides, C > NPU_NUM."""
    if maker.chip not in FP8_MOVERS:
        return []
    cases = []
    for dtype in (FP8E5M2, FP8E4M3):
        for func in ("S2L", "L2S"):
            cases.append(maker.gdma(func, dtype, shape=maker.random_shape(big_c=True)))
            cases.append(maker.gdma(func, dtype, local_stride="nested", global_stride="overlap"))
        cases.append(maker.set_c(dtype, shape=maker.random_shape(big_c=True)))
        cases.append(maker.set_c(dtype, stride="nested"))
    return cases


def zero_stride_cases(maker: CaseMaker) -> list[dict]:
    """Zero strides on axes of extent > 1, where the chip computes them (SG2260): a GDMA W stride of 0 on
    the source (one element read W times) and on the destination (the last of W writes wins), and set_C
    with a zero W or C stride."""
    chip, cases = maker.chip, []
    if chip not in MAX_W_STRIDE_BYTES:
        for func in ("S2L", "L2S"):
            for dtype, side in ((1, "src_stride"), (9, "dst_stride"), (7, "src_stride"), (5, "dst_stride")):
                case = maker.gdma(func, dtype, shape=[2, 5, 3, 4], local_stride="nested", global_stride="nested")
                case[side][3] = 0
                cases.append(case)
    if chip not in SET_C_ZERO_STRIDE_NEEDS_EXTENT_1:
        for axis, shape in ((3, [1, 2, 2, 3]), (1, [1, 70, 2, 3])):
            case = maker.set_c(7, shape=shape, start_lane=0, stride="nested")
            case["dst_stride"][axis] = 0
            cases.append(case)
    return cases


def make_error_cases(chip: str) -> list[dict]:
    """Calls the cmodel rejects (it asserts and exits); npusim must raise ConstraintError for each."""
    maker = CaseMaker(chip, 11)
    npu, lms, align = CHIPS[chip]
    cases = Violations(chip)
    add = cases.add

    small = [1, 2, 2, 3]
    for func in ("S2L", "L2S"):
        local_key, global_key = ("dst", "src") if func == "S2L" else ("src", "dst")
        local_stride_key = f"{local_key}_stride"
        c = maker.gdma(func, 7, shape=small, start_lane=0)
        c[local_key] += 1
        add(f"{func}-local-misaligned", c)
        c = maker.gdma(func, 5, shape=small, start_lane=0)
        c[global_key] += 2
        add(f"{func}-global-misaligned", c)
        if chip in MAX_W_STRIDE_BYTES:
            add(f"{func}-w-stride-0", maker.gdma(func, 7, shape=small, local_stride="nested"))
            cases[-1][local_stride_key][3] = 0
            add(f"{func}-w-stride-too-big", maker.gdma(func, 7, shape=small, global_stride="nested"))
            cases[-1][f"{global_key}_stride"][3] = MAX_W_STRIDE_BYTES[chip] // 2 + 1
        else:  # no limit of its own: a huge W stride still has to stay inside the lane
            add(f"{func}-w-stride-past-lane-end", maker.gdma(func, 7, shape=[1, 1, 1, 8], start_lane=0,
                                                            local_stride="nested"))
            cases[-1][local_stride_key][3] = 65535
        add(f"{func}-negative-h-stride", maker.gdma(func, 7, shape=[1, 1, 2, 3], start_lane=0,
                                                    local_stride="nested"))
        cases[-1][local_stride_key][2] = -3
        add(f"{func}-c-zero", maker.gdma(func, 7, shape=small), shape=[1, 0, 2, 3])
        add(f"{func}-h-zero", maker.gdma(func, 7, shape=small), shape=[1, 2, 0, 3])
        add(f"{func}-local-past-lane-end", maker.gdma(func, 7, shape=[1, 1, 1, 8]), **{local_key: lms - 8})
        add(f"{func}-global-past-end", maker.gdma(func, 7, shape=[1, 1, 1, 8]),
            **{global_key: GLOBAL_MEM_BYTES - 8})
        for name, code in (("int4", INT4), ("fp8e4m3", FP8E4M3), ("fp20", FP20), ("tf32", TF32)):
            if code != FP8E4M3 or chip not in FP8_MOVERS:
                add(f"{func}-dtype-{name}", maker.gdma(func, 1, shape=small, start_lane=0), dtype=code)
    add("set_C-aligned-misaligned", maker.set_c(7, shape=small, start_lane=0))
    cases[-1]["dst"] += align // 2
    add("set_C-free-misaligned", maker.set_c(7, shape=small, start_lane=0, stride="nested"))
    cases[-1]["dst"] += 1
    add("set_C-n-zero", maker.set_c(1, shape=small), shape=[0, 2, 2, 3])
    add("set_C-w-65536", maker.set_c(1, shape=small, start_lane=0), shape=[1, 1, 1, 65536])
    add("set_C-h-stride-2^18", maker.set_c(1, shape=[1, 1, 1, 1], start_lane=0, stride="nested"))
    cases[-1]["dst_stride"][2] = 1 << 18
    add("set_C-negative-n-stride", maker.set_c(1, shape=[2, 1, 1, 1], start_lane=0, stride="nested"))
    cases[-1]["dst"] += 64
    cases[-1]["dst_stride"][0] = -1
    if chip in SET_C_ZERO_STRIDE_NEEDS_EXTENT_1:
        add("set_C-w-stride-0-with-w-3", maker.set_c(7, shape=[1, 1, 2, 3], start_lane=0, stride="nested"))
        cases[-1]["dst_stride"][3] = 0
        add("set_C-c-stride-0-with-c-3", maker.set_c(7, shape=[1, 3, 2, 3], start_lane=0, stride="nested"))
        cases[-1]["dst_stride"][1] = 0
    add("set_C-past-lane-end", maker.set_c(7, shape=[1, 1, 1, 64], start_lane=0), dst=lms - align)
    for name, code in (("int4", INT4), ("fp8e4m3", FP8E4M3), ("fp20", FP20), ("tf32", TF32)):
        if code != FP8E4M3 or chip not in FP8_MOVERS:
            add(f"set_C-dtype-{name}", maker.set_c(1, shape=small, start_lane=0), dtype=code)
    return cases


def _generate(args: argparse.Namespace) -> None:
    cmodel_dir, out_dir = find_cmodel_dir(args.cmodel_dir, args.chips), Path(args.out_dir)
    header = {"generator": "tools/sophgo_cmodel_runtime_oracle.py", "global_mem_bytes": GLOBAL_MEM_BYTES,
              "global_window": GLOBAL_WINDOW, "local_pattern": "(lane*131 + offset*7 + 0x3C) & 0xFF",
              "global_pattern": "(a*13 + (a >> 8)*5 + 0x5A) & 0xFF", "guard_bytes": GUARD_BYTES}
    generate_fixtures(out_dir, cmodel_dir, args.seed, "runtime_oracle", make_cases, make_error_cases, header,
                      args.chips, script=__file__)
    if "BM1684X" in args.chips:
        _generate_example(cmodel_dir, out_dir, args.seed)


# ---------------------------------------------------------------------------------- the example kernels

EXAMPLE_SHAPE = [1, 100, 2, 4]
EXAMPLE_CLAMPS = [[-1.5, 2.0], [0.0, 0.5]]
FP32_SPECIALS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x7F800000, 0xFF800000, 0x0, 0x80000000, 0x1,
                 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3FC00000,
                 0xBFC00000, 0x40000000, 0x3F000000]  # fmt: skip


def example_inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """FP32 input and gradient bits: normal values around the clamp bounds, a quarter special values."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(EXAMPLE_SHAPE))
    x = (rng.standard_normal(count) * 2).astype(np.float32).view(np.uint32)
    pick = rng.random(count) < 0.25
    x[pick] = np.array(FP32_SPECIALS, np.uint32)[rng.integers(0, len(FP32_SPECIALS), int(pick.sum()))]
    grad = rng.standard_normal(count).astype(np.float32).view(np.uint32)
    grad[: len(FP32_SPECIALS)] = FP32_SPECIALS
    return x, grad


def _run_example(args: argparse.Namespace) -> None:
    """In a subprocess: the two kernels on the BM1684X cmodel; writes the fixture JSON (uncompressed)."""
    model = RuntimeCmodel(args.lib, "BM1684X")
    lib = model.lib

    class Var(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("ctx", ctypes.c_uint32)]

    var = ctypes.POINTER(Var)
    for name in ("greater", "less"):
        getattr(lib, f"tpu_bdc_{name}_select").argtypes = [ctypes.c_uint32, var, var, var, var,
                                                            ctypes.POINTER(_Dim4), ctypes.c_int, ctypes.c_int]

    def tensor(addr):
        return ctypes.byref(Var(0, addr))

    def scalar(value):
        return ctypes.byref(Var(1, int(np.float32(value).view(np.uint32))))

    fp32, bank = 5, CHIPS["BM1684X"][1] // 16
    x, grad = example_inputs(args.seed)
    shape = ctypes.byref(_Dim4(*EXAMPLE_SHAPE))
    model.gmem[: x.nbytes] = x.view(np.uint8)
    model.gmem[0x8000 : 0x8000 + grad.nbytes] = grad.view(np.uint8)
    s2l, l2s = lib.tpu_gdma_cpy_S2L, lib.tpu_gdma_cpy_L2S

    def result() -> str:
        l2s(model.global_base + 0x10000, 2 * bank, shape, None, None, fp32)
        lib.tpu_poll()
        return model.gmem[0x10000 : 0x10000 + x.nbytes].tobytes().hex()

    s2l(0, model.global_base, shape, None, None, fp32)
    s2l(bank, model.global_base + 0x8000, shape, None, None, fp32)
    lib.tpu_bdc_greater_select(2 * bank, tensor(0), scalar(0.0), tensor(bank), scalar(0.0), shape, fp32, fp32)
    outputs = {"relu_backward": result()}
    for low, high in EXAMPLE_CLAMPS:
        out = tensor(2 * bank)
        lib.tpu_bdc_greater_select(2 * bank, tensor(0), scalar(high), scalar(high), tensor(0), shape, fp32, fp32)
        lib.tpu_bdc_less_select(2 * bank, out, scalar(low), scalar(low), out, shape, fp32, fp32)
        outputs[f"clamp_{low}_{high}"] = result()
    doc = {"generator": "tools/sophgo_cmodel_runtime_oracle.py", "oracle": f"{LIBS['BM1684X']} from {WHEEL}",
           "shape": EXAMPLE_SHAPE, "clamps": EXAMPLE_CLAMPS, "input": x.tobytes().hex(), "grad": grad.tobytes().hex(),
           "outputs": outputs}
    Path(args.out).write_text(json.dumps(doc))


def _generate_example(cmodel_dir: Path, out_dir: Path, seed: int) -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "example.json"
        subprocess.run([sys.executable, __file__, "example", "--lib", str(cmodel_dir / LIBS["BM1684X"]),
                        "--out", str(raw), "--seed", str(seed)], check=True, capture_output=True)
        path = out_dir / "example_clamp_relu_bm1684x.json.gz"
        write_gzip_json(path, json.loads(raw.read_text()))
    print(f"{path}: {path.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_generate_and_worker(sub, _generate, 20250101, _worker)
    p = sub.add_parser("example", help=argparse.SUPPRESS)
    p.add_argument("--lib", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.set_defaults(func=_run_example)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
