#!/usr/bin/env python3
"""Generate byte-exact oracle cases for the Sophgo BDC select instructions with the vendor cmodel.

Sophgo's cmodel (``libcmodel_<chip>.so`` in the ``tpu_mlir`` wheel on PyPI) runs the
TPU-Kernel API on a simulated local memory; it is the oracle of sophgo-semantics §5.1.
This script drives it through ctypes and writes JSON fixtures that the test suite replays
against npusim without the cmodel.  It imports nothing from npusim: its layout formula is
written out again from the reference (§3.3), so a fixture passes only if both agree.

One generator serves every chip; the chip is a parameter.  The oracles (all in the wheel's
``tpu_mlir/lib``): ``libcmodel_bm1684x.so`` (BM1684X), ``libcmodel_bm1688.so`` (BM1688) and
``libtpuv7_emulator.so`` (SG2260 / BM1690).  The SG2260 emulator needs ``libdnnl.so.3`` and
``libomp.so.5`` from the wheel's ``tpu_mlir/lib/third_party`` (the worker puts that directory on
``LD_LIBRARY_PATH``) and ``tpu_kernel_init(0)`` before ``tpu_initialize()``, without which it
segfaults (sophgo-semantics §5.1).

Usage::

    # 1. fetch the wheel (311 MB, not installed) and extract the oracle libraries
    python tools/sophgo_cmodel_oracle.py fetch                 # into tools/_cache/ (git-ignored)
    # 2. generate the committed fixtures (every chip, or --chips SG2260 ...)
    python tools/sophgo_cmodel_oracle.py generate --out-dir tests/data/sophgo
    # 3. optional: replay the committed fixtures on the cmodel (checks the oracle is reproducible)
    python tools/sophgo_cmodel_oracle.py replay tests/data/sophgo/select_oracle_bm1684x.json.gz

``SOPHGO_CMODEL_DIR`` (or ``--cmodel-dir``) points at a directory holding the libraries of the
chips asked for (with a ``third_party/`` subdirectory for the SG2260 emulator's two; the wheel's
own ``tpu_mlir/lib`` has this layout); the default is ``tools/_cache``.
Never commit the wheel or the libraries.

A case (JSON)::

    {"id": ..., "chip": "BM1684X", "func": "greater_select", "shape": [n, c, h, w],
     "dtypes": [src0_src1_dtype or dst0_dtype, dst_dtype or dst1_dtype],      # vendor codes
     "dst": [addr] or [dst0_addr, dst1_addr],
     "src": [{"kind": "TENSOR", "addr": a, "data": hex},                      # N*C*H*W elements, NCHW
             {"kind": "VECTOR", "addr": a, "data": hex},                      # min(C, NPU_NUM) elements
             {"kind": "SCALAR", "u32": v}, ...],                              # four operands
     "expect": {"dst_data": [hex, ...], "window_sha256": [hex, ...]}          # per dst
       or "expect_error": {"message": "ERROR: ASSERT ..."}}                    # the cmodel's assert

How a case runs (identically in the cmodel and in the npusim tests): every byte of local
memory is the background 0xCD (cmodel only; npusim leaves it never-written); each dst
*window* - all lanes, in-lane bytes ``[off - 64, off + N*n_stride*size + 64)`` clipped to the
lane - is filled with the sentinel ``(lane*31 + offset*7 + 0xA5) & 0xFF``; then the TENSOR
and VECTOR sources are written element by element - a TENSOR in its aligned layout, a
VECTOR's element i in lane ``(start_lane + i) % NPU_NUM`` at the vector's own offset (§3.4;
*not* as an aligned [1, C, 1, 1] tensor, whose wrapped channels would sit one channel
stride further on) - so an in-place src0 overwrites the sentinel; then the instruction
runs.  ``dst_data`` is the dst read back in NCHW order; ``window_sha256`` hashes the
window lane by lane, so padding and neighbouring bytes are checked byte for byte.
"""

from __future__ import annotations

import argparse
import ctypes
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / "tools" / "_cache"
WHEEL = "tpu_mlir==1.30.2"
LIBS = {"BM1684X": "libcmodel_bm1684x.so", "BM1688": "libcmodel_bm1688.so", "SG2260": "libtpuv7_emulator.so"}
# What an oracle needs from the wheel's tpu_mlir/lib/third_party, found through LD_LIBRARY_PATH.
THIRD_PARTY = {"SG2260": ("libdnnl.so.3", "libomp.so.5")}
# Oracles whose tpu_initialize() segfaults unless tpu_kernel_init(0) ran first.
NEEDS_KERNEL_INIT = frozenset({"SG2260"})

# NPU_NUM, LOCAL_MEM_SIZE per lane, ALIGN_BYTES (= EU bytes): sophgo-semantics §3.1; the worker
# checks them against tpu_npu_num() / tpu_local_mem_size_per_npu() / tpu_eu_num(DT_FP32).
CHIPS = {"BM1684X": (64, 256 * 1024, 64), "BM1688": (32, 128 * 1024, 16), "SG2260": (64, 256 * 1024, 64)}

FUNCS = ("greater_select", "less_select", "equal_select", "maximum_greater_select", "minimum_less_select")
MIN_MAX = {"maximum_greater_select", "minimum_less_select"}

# vendor code -> (bits, kind); kind "int"/"uint"/"float"  (sophgo-semantics §2)
DTYPES = {
    0: (8, "uint"), 1: (8, "int"), 3: (16, "float"), 5: (32, "float"), 6: (16, "uint"), 7: (16, "int"),
    8: (32, "uint"), 9: (32, "int"), 11: (16, "float"), 15: (8, "float"), 47: (8, "float"),
}  # fmt: skip
DT_NAMES = {0: "UINT8", 1: "INT8", 3: "FP16", 5: "FP32", 6: "UINT16", 7: "INT16", 8: "UINT32", 9: "INT32",
            11: "BFP16", 15: "FP8E5M2", 47: "FP8E4M3"}  # fmt: skip
FP16, FP32, BF16, FP8E5M2, FP8E4M3 = 3, 5, 11, 15, 47
FP8 = (FP8E5M2, FP8E4M3)
# The nine types of PRECISION 0..5 every chip's select takes; SG2260 takes FP8 (PRECISION 7) too.
SELECT_DTYPES = {chip: [0, 1, 3, 5, 6, 7, 8, 9, 11] + (list(FP8) if chip == "SG2260" else []) for chip in CHIPS}
# Chips whose select asserts AB_type_size == CD_type_size (a float compare cannot select into a wider
# dst; sophgo-semantics §4.1).  The SG2260 emulator has no such assert: only the document's rules apply.
FLOAT_NEEDS_EQUAL_WIDTH = frozenset({"BM1684X", "BM1688"})

# Special values: the 14 of sophgo-semantics §4.4 in its order, then a few more
# (largest subnormal, smallest normal, NaNs with other payloads).
SPECIALS = {
    FP32: [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
           0x7F800001, 0x7FFFFFFF, 0x1, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF,
           0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7FA5A5A5, 0xFFE12345],
    FP16: [0x0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0x1, 0x8001,
           0x7BFF, 0xFBFF, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7D55, 0xFE3C],
    BF16: [0x0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0x1, 0x8001,
           0x7F7F, 0xFF7F, 0x007F, 0x807F, 0x0080, 0x8080, 0x7FA5, 0xFFE1],
    # e5m2 (the high byte of an FP16) in the same order: ±0, ±1, ±inf, ±qnan, snan, nan2, ±smallest
    # subnormal, ±max; then ±largest subnormal, ±smallest normal, two more NaNs
    FP8E5M2: [0x00, 0x80, 0x3C, 0xBC, 0x7C, 0xFC, 0x7E, 0xFE, 0x7D, 0x7F, 0x01, 0x81, 0x7B, 0xFB,
              0x03, 0x83, 0x04, 0x84, 0xFD, 0xFF],
    # e4m3fn has no infinities and one NaN per sign (0x7F / 0xFF): ±0, ±1, ±256 (0x78, where e5m2 has
    # inf), ±NaN, ±240, ±smallest subnormal, ±max (448); then ±largest subnormal, ±smallest normal, ±2
    FP8E4M3: [0x00, 0x80, 0x38, 0xB8, 0x78, 0xF8, 0x7F, 0xFF, 0x77, 0xF7, 0x01, 0x81, 0x7E, 0xFE,
              0x07, 0x87, 0x08, 0x88, 0x40, 0xC0],
}  # fmt: skip

BACKGROUND = 0xCD
GUARD_BYTES = 64


def sentinel(lane: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """The byte pre-filled into dst windows (see module docstring)."""
    return ((lane * 31 + offset * 7 + 0xA5) & 0xFF).astype(np.uint8)


# ---------------------------------------------------------------------------------- layout (§3.3)


def div_up(x: int, y: int) -> int:
    return -(-x // y)


def aligned_stride(shape, start_lane: int, itemsize: int, chip: str) -> tuple[int, int, int, int]:
    npu, _, align = CHIPS[chip]
    n, c, h, w = shape
    cs = div_up(h * w, align // itemsize) * (align // itemsize)
    return div_up(start_lane + c, npu) * cs, cs, w, 1


def positions(addr: int, shape, itemsize: int, chip: str) -> tuple[np.ndarray, np.ndarray]:
    """(lane, byte offset) of every element of an aligned-layout tensor, flattened in NCHW order."""
    npu, lms, _ = CHIPS[chip]
    s, base = divmod(addr, lms)
    ns, cs, hs, ws = aligned_stride(shape, s, itemsize, chip)
    n, c, h, w = np.meshgrid(*(np.arange(d) for d in shape), indexing="ij")
    lane = (s + c) % npu
    off = base + itemsize * (n * ns + ((s + c) // npu) * cs + h * hs + w * ws)
    return lane.ravel(), off.ravel()


def window(addr: int, shape, itemsize: int, chip: str) -> tuple[int, int]:
    """In-lane byte range of a dst window: the tensor's n-stride extent plus guard bands."""
    npu, lms, _ = CHIPS[chip]
    s, base = divmod(addr, lms)
    ns = aligned_stride(shape, s, itemsize, chip)[0]
    return max(0, base - GUARD_BYTES), min(lms, base + shape[0] * ns * itemsize + GUARD_BYTES)


# codes used only by the error cases (no chip's select takes them): INT4
REJECTED_DTYPES = {13: (4, "int")}


def raw_dtype(code: int) -> np.dtype:
    bits = (DTYPES.get(code) or REJECTED_DTYPES[code])[0]
    return np.dtype(f"<u{max(1, bits // 8)}")


# ---------------------------------------------------------------------------------- cmodel driver


class _Var(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("ctx", ctypes.c_uint32)]


class _Dim4(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("c", ctypes.c_int), ("h", ctypes.c_int), ("w", ctypes.c_int)]


class _LocalMem(ctypes.Structure):
    _fields_ = [
        ("raw_ptr", ctypes.c_void_p),
        ("mem_arr", ctypes.c_void_p),
        ("count", ctypes.c_int),
        ("size_per_mem", ctypes.c_int),
        ("align_num", ctypes.c_int),
        ("need_free", ctypes.c_int),
    ]


KIND_CODES = {"TENSOR": 0, "SCALAR": 1, "VECTOR": 2}


def open_cmodel(lib_path: str, chip: str, global_mem_bytes: int = 1 << 28) -> tuple[ctypes.CDLL, np.ndarray]:
    """Load and initialise the chip's oracle; returns the library and its lane-major local memory
    as a writable ``[NPU_NUM, LOCAL_MEM_SIZE]`` array, after checking the geometry against CHIPS."""
    lib = ctypes.CDLL(lib_path, ctypes.RTLD_GLOBAL)
    lib.cmodel_init.argtypes = [ctypes.c_int, ctypes.c_int64]
    lib.get_local_mem.restype = ctypes.POINTER(_LocalMem)
    if lib.cmodel_init(0, global_mem_bytes) != 0:
        raise RuntimeError("cmodel_init failed")
    if chip in NEEDS_KERNEL_INIT:
        lib.tpu_kernel_init(0)
    lib.tpu_initialize()
    lm = lib.get_local_mem(0).contents
    npu, lms, align = CHIPS[chip]
    got = (lib.tpu_npu_num(), lib.tpu_local_mem_size_per_npu(), lib.tpu_eu_num(FP32) * 4)
    if got != (npu, lms, align) or (lm.count, lm.size_per_mem) != (npu, lms):
        raise RuntimeError(f"{chip}: cmodel reports NPU_NUM/LMEM/ALIGN {got}, table says {(npu, lms, align)}")
    buf = (ctypes.c_uint8 * (npu * lms)).from_address(lm.raw_ptr)
    return lib, np.frombuffer(buf, dtype=np.uint8).reshape(npu, lms)


class Cmodel:
    """One initialised cmodel; ``lmem`` is its lane-major local memory as a writable numpy array."""

    def __init__(self, lib_path: str, chip: str) -> None:
        lib, self.lmem = open_cmodel(lib_path, chip)
        self.lib, self.chip = lib, chip
        for name in FUNCS:
            fn = getattr(lib, f"tpu_bdc_{name}")
            dsts = [ctypes.c_uint32] * (2 if name in MIN_MAX else 1)
            fn.argtypes = [
                *dsts,
                *[ctypes.POINTER(_Var)] * 4,
                ctypes.POINTER(_Dim4),
                ctypes.c_int,
                ctypes.c_int,
            ]
            fn.restype = None

    def run(self, case: dict) -> dict:
        chip, shape = self.chip, case["shape"]
        mem = self.lmem
        mem[...] = BACKGROUND
        cmp_dt, val_dt = case["dtypes"]
        dst_dtypes = [cmp_dt, val_dt] if case["func"] in MIN_MAX else [val_dt]
        windows = []
        for addr, dt in zip(case["dst"], dst_dtypes, strict=True):
            lo, hi = window(addr, shape, raw_dtype(dt).itemsize, chip)
            lanes, offs = np.meshgrid(np.arange(mem.shape[0]), np.arange(lo, hi), indexing="ij")
            mem[:, lo:hi] = sentinel(lanes, offs)
            windows.append((lo, hi))
        src_dtypes = [cmp_dt, cmp_dt, val_dt, val_dt]
        variables = []
        for src, dt in zip(case["src"], src_dtypes, strict=True):
            if src["kind"] == "SCALAR":
                variables.append(_Var(1, src["u32"]))
                continue
            values = np.frombuffer(bytes.fromhex(src["data"]), dtype=raw_dtype(dt))
            if src["kind"] == "TENSOR":
                lane, off = positions(src["addr"], shape, values.itemsize, chip)
            else:  # one element per lane, all at the vector's own in-lane offset (sophgo-semantics §3.4)
                npu, lms, _ = CHIPS[chip]
                lane = (src["addr"] // lms + np.arange(len(values))) % npu
                off = np.full(len(values), src["addr"] % lms)
            for k in range(values.itemsize):  # little-endian bytes of every element
                mem[lane, off + k] = ((values >> (8 * k)) & 0xFF).astype(np.uint8)
            variables.append(_Var(KIND_CODES[src["kind"]], src["addr"]))
        fn = getattr(self.lib, f"tpu_bdc_{case['func']}")
        fn(*case["dst"], *(ctypes.byref(v) for v in variables), ctypes.byref(_Dim4(*shape)), cmp_dt, val_dt)
        self.lib.tpu_poll()
        dst_data, hashes = [], []
        for addr, dt, (lo, hi) in zip(case["dst"], dst_dtypes, windows, strict=True):
            size = raw_dtype(dt).itemsize
            lane, off = positions(addr, shape, size, chip)
            raw = np.stack([mem[lane, off + k] for k in range(size)], axis=-1)
            dst_data.append(raw.tobytes().hex())
            hashes.append(hashlib.sha256(np.ascontiguousarray(mem[:, lo:hi]).tobytes()).hexdigest())
        return {"dst_data": dst_data, "window_sha256": hashes}


def _worker(args: argparse.Namespace) -> None:
    """Run cases from a JSON file, appending one JSON line per finished case (flushed)."""
    cases = json.loads(Path(args.cases).read_text())
    model = Cmodel(args.lib, args.chip)
    with open(args.results, "a") as out:
        for case in cases:
            result = model.run(case)
            out.write(json.dumps({"id": case["id"], **result}) + "\n")
            out.flush()


def oracle_files(chip: str) -> list[str]:
    """The chip's oracle library and its third-party libraries, as paths relative to the cmodel directory."""
    return [LIBS[chip], *(f"third_party/{dep}" for dep in THIRD_PARTY.get(chip, ()))]


def find_cmodel_dir(explicit: str | None = None, chips=tuple(LIBS)) -> Path:
    """The first of ``explicit``, ``$SOPHGO_CMODEL_DIR`` and ``tools/_cache`` holding every file of ``chips``."""
    wanted = [name for chip in chips for name in oracle_files(chip)]
    for candidate in (explicit, os.environ.get("SOPHGO_CMODEL_DIR"), str(DEFAULT_CACHE)):
        if candidate and all((Path(candidate) / name).is_file() for name in wanted):
            return Path(candidate)
    raise FileNotFoundError(f"no directory with {', '.join(wanted)}; run `fetch` or set SOPHGO_CMODEL_DIR")


def worker_env(cmodel_dir: Path) -> dict[str, str]:
    """The environment of a worker: the cmodel directory's third_party/ first on LD_LIBRARY_PATH, and
    one OpenMP thread.  The SG2260 emulator runs a GDMA copy on several threads, and where two
    elements of the destination coincide, which write lands last then depends on the thread count
    (and, from a few threads on, on the run); with one thread the last in NCHW order wins, as on the
    BM cmodels, which are single-threaded."""
    paths = [str(Path(cmodel_dir) / "third_party"), os.environ.get("LD_LIBRARY_PATH", "")]
    return {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(p for p in paths if p), "OMP_NUM_THREADS": "1"}


def run_cases(chip: str, cases: list[dict], cmodel_dir: Path, script: str = __file__) -> dict[str, dict]:
    """Run cases on the chip's cmodel in worker subprocesses; a case that kills its worker
    (an assert exits with 233/255) becomes ``{"expect_error": {...}}`` and the rest continue.

    ``script`` is the tool whose ``worker`` subcommand runs the cases (this one by default)."""
    lib = str(Path(cmodel_dir) / LIBS[chip])
    results: dict[str, dict] = {}
    pending = list(cases)
    with tempfile.TemporaryDirectory() as tmp:
        while pending:
            cases_path, results_path = Path(tmp) / "cases.json", Path(tmp) / "results.jsonl"
            cases_path.write_text(json.dumps(pending))
            results_path.write_text("")
            proc = subprocess.run(
                [
                    sys.executable,
                    script,
                    "worker",
                    "--chip",
                    chip,
                    "--lib",
                    lib,
                    "--cases",
                    str(cases_path),
                    "--results",
                    str(results_path),
                ],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=3600,
                env=worker_env(cmodel_dir),
            )
            done = [json.loads(line) for line in results_path.read_text().splitlines() if line]
            for item in done:
                results[item.pop("id")] = {"expect": item}
            pending = pending[len(done) :]
            if proc.returncode == 0:
                break
            if not pending:
                raise RuntimeError(f"worker failed after all cases: {proc.stderr[-2000:]}")
            if "Traceback (most recent call last)" in proc.stderr:  # the driver failed, not the oracle
                raise RuntimeError(f"worker failed on {pending[0]['id']}: {proc.stderr[-2000:]}")
            output = (proc.stdout + proc.stderr).splitlines()
            asserts = [
                line.strip()
                for line in output
                if ("ASSERT" in line and "ASSERT info" not in line) or "Assertion" in line
            ]
            message = asserts[-1] if asserts else f"process died without an assert (exit {proc.returncode})"
            # Only the message is kept: the BM1688 cmodel sometimes segfaults while exiting after its
            # assert (exit -11 instead of 233), which would make the fixtures differ run to run.
            results[pending[0]["id"]] = {"expect_error": {"message": message}}
            pending = pending[1:]
    return results


# ---------------------------------------------------------------------------------- case generation


def fp8_from_small(values: np.ndarray, code: int) -> np.ndarray:
    """FP8 bits of small half-integers (|x| < 2**8, as ``values`` are), mantissa truncated.

    e5m2 is the high byte of an FP16; e4m3fn re-biases the FP16 exponent (15 -> 7) and keeps
    the top three mantissa bits (every nonzero value here is >= 0.5, a normal number in both)."""
    half = values.astype(np.float16).view(np.uint16).astype(np.int64)
    if code == FP8E5M2:
        return (half >> 8).astype(np.uint8)
    sign, exponent, mantissa = half >> 15, (half >> 10) & 0x1F, (half >> 7) & 0x7
    bits = (sign << 7) | ((exponent - 8) << 3) | mantissa
    return np.where(half & 0x7FFF == 0, sign << 7, bits).astype(np.uint8)


class CaseMaker:
    """Random, legal-by-the-reference select cases for one chip (plus deliberate violations)."""

    def __init__(self, chip: str, seed: int) -> None:
        self.chip = chip
        self.rng = np.random.default_rng(seed)
        self.count = 0

    # -- values
    def values(self, code: int, count: int, like: np.ndarray | None = None) -> np.ndarray:
        """Raw bits: ~35% special values for floats, boundary/small values for ints,
        and (given ``like``) ~30% copies of the other operand so equal pairs occur."""
        rng = self.rng
        bits, kind = DTYPES[code]
        raw = raw_dtype(code)
        out = rng.integers(0, 1 << bits, size=count, dtype=np.uint64).astype(raw)
        if kind == "float":
            pool = np.array(SPECIALS[code], dtype=raw)
            normal = np.round(rng.normal(0, 3, size=count) * 2) / 2  # small, often-equal values
            if code == FP32:
                normal_bits = normal.astype(np.float32).view(np.uint32)
            elif code == FP16:
                normal_bits = normal.astype(np.float16).view(np.uint16)
            elif code == BF16:
                normal_bits = (normal.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            else:
                normal_bits = fp8_from_small(normal, code)
            pick = rng.random(count)
            out = np.where(pick < 0.35, pool[rng.integers(0, len(pool), count)], out)
            out = np.where((pick >= 0.35) & (pick < 0.75), normal_bits, out)
        else:
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "int" else (0, (1 << bits) - 1)
            edges = np.array([lo, hi, 0, 1, lo + 1, hi - 1] + ([-1, -2] if kind == "int" else [2, 3]))
            small = rng.integers(-3 if kind == "int" else 0, 4, size=count)
            pick = rng.random(count)
            out = np.where(
                pick < 0.2, (edges[rng.integers(0, len(edges), count)] & ((1 << bits) - 1)).astype(raw), out
            )
            out = np.where((pick >= 0.2) & (pick < 0.6), (small & ((1 << bits) - 1)).astype(raw), out)
        if like is not None:
            out = np.where(rng.random(count) < 0.3, like, out)
        return out.astype(raw)

    def scalar(self, code: int, value: int) -> int:
        """A u32 whose low bits are ``value`` and whose high bits are garbage (§4.5)."""
        bits = DTYPES[code][0]
        garbage = int(self.rng.integers(0, 1 << (32 - bits))) if bits < 32 else 0
        return (garbage << bits) | int(value)

    # -- cases
    def case(
        self,
        func: str,
        cmp_dt: int,
        val_dt: int,
        *,
        shape=None,
        start_lane=None,
        kinds=None,
        in_place: bool = False,
        at_lane_end: bool = False,
        src_values=None,
    ) -> dict:
        rng, chip = self.rng, self.chip
        npu, lms, align = CHIPS[chip]
        if start_lane is None:
            start_lane = int(rng.choice([0, 0, npu // 2, int(rng.integers(1, npu)), npu - 1]))
        if shape is None:
            c = int(
                rng.choice(
                    [
                        1,
                        2,
                        int(rng.integers(1, npu)),
                        npu - start_lane,
                        npu,
                        int(rng.integers(npu + 1, 2 * npu + 8)),
                    ]
                )
            )
            shape = [int(rng.choice([1, 1, 1, 2, 3])), c, int(rng.integers(1, 5)), int(rng.integers(1, 7))]
        n, c, h, w = shape
        if kinds is None:
            kinds = [str(rng.choice(["TENSOR", "TENSOR", "VECTOR", "SCALAR"])) for _ in range(2)]
            kinds += [str(rng.choice(["TENSOR", "TENSOR", "SCALAR"])) for _ in range(2)]
        min_max = func in MIN_MAX
        dst_dtypes = [cmp_dt, val_dt] if min_max else [val_dt]
        src_dtypes = [cmp_dt, cmp_dt, val_dt, val_dt]

        cursor = int(rng.integers(0, 64)) * align

        def place(kind: str, size: int) -> int:  # in-lane offset for a new operand
            nonlocal cursor
            if kind == "VECTOR":  # element-aligned only; often deliberately not EU-aligned
                off = cursor + size * int(rng.integers(0, max(1, align // size)))
                cursor = div_up(off + size, align) * align + align * int(rng.integers(0, 3))
                return off
            off = cursor
            ns = aligned_stride(shape, start_lane, size, chip)[0]
            cursor = div_up(off + n * ns * size, align) * align + align * int(rng.integers(0, 3))
            return off

        base = start_lane * lms
        dst = [base + place("TENSOR", raw_dtype(dt).itemsize) for dt in dst_dtypes]
        if at_lane_end:  # the last dst ends as near the end of the lane as alignment allows
            size = raw_dtype(dst_dtypes[-1]).itemsize
            ns, cs, _, _ = aligned_stride(shape, start_lane, size, chip)
            span = size * ((n - 1) * ns + ((start_lane + c - 1) // npu) * cs + h * w)
            dst[-1] = base + (lms - span) // align * align
        srcs = []
        for i, (kind, dt) in enumerate(zip(kinds, src_dtypes, strict=True)):
            count = n * c * h * w if kind == "TENSOR" else min(c, npu)
            like = None
            if i == 1 and kinds[0] == kinds[1] and srcs[0]["kind"] != "SCALAR":
                like = np.frombuffer(bytes.fromhex(srcs[0]["data"]), dtype=raw_dtype(dt))
            values = src_values[i] if src_values else self.values(dt, count if kind != "SCALAR" else 1, like)
            values = np.asarray(values, dtype=raw_dtype(dt))
            if kind == "SCALAR":
                srcs.append({"kind": "SCALAR", "u32": self.scalar(dt, int(values[0]))})
                continue
            addr = base + place(kind, raw_dtype(dt).itemsize)
            srcs.append({"kind": kind, "addr": addr, "data": values.tobytes().hex()})
        if in_place:
            # dst == src0 (and dst1 == src2 for max/min) when the widths make the layouts identical
            if kinds[0] == "TENSOR" and DTYPES[cmp_dt][0] == DTYPES[dst_dtypes[0]][0]:
                srcs[0]["addr"] = dst[0]
            if min_max and kinds[2] == "TENSOR":
                srcs[2]["addr"] = dst[1]
        self.count += 1
        return {
            "id": f"{chip.lower()}-{func}-{self.count:04d}",
            "chip": chip,
            "func": func,
            "shape": [int(v) for v in shape],
            "dtypes": [cmp_dt, val_dt],
            "dst": dst,
            "src": srcs,
        }


def legal_dtype_pairs(func: str, chip: str) -> list[tuple[int, int]]:
    """(compare or dst0 dtype, dst or dst1 dtype) pairs the reference allows on ``chip`` (§4.1).

    The document (seed 000): max/min need equal widths, the other selects a dst at least as wide as
    the compare type.  BM1684X/BM1688 also need an equal-width dst for a float compare.
    """

    def legal(a: int, b: int) -> bool:
        (abits, akind), (bbits, _) = DTYPES[a], DTYPES[b]
        must_be_equal = func in MIN_MAX or (akind == "float" and chip in FLOAT_NEEDS_EQUAL_WIDTH)
        return abits == bbits if must_be_equal else abits <= bbits

    codes = SELECT_DTYPES[chip]
    return [(a, b) for a in codes for b in codes if legal(a, b)]


def make_cases(chip: str, seed: int) -> list[dict]:
    maker = CaseMaker(chip, seed)
    rng = maker.rng
    npu = CHIPS[chip][0]
    cases = []
    for func in FUNCS:
        pairs = legal_dtype_pairs(func, chip)
        # every compare dtype at least twice, with a random legal dst dtype
        for cmp_dt in SELECT_DTYPES[chip]:
            options = [p for p in pairs if p[0] == cmp_dt]
            for _ in range(2):
                cases.append(maker.case(func, *options[int(rng.integers(len(options)))]))
        # narrow compare into wider dst, explicitly (not for max/min: widths must match); a float
        # compare only where the chip has no equal-width assert
        if func not in MIN_MAX:
            widening = [(1, 7), (1, 9), (0, 5), (6, 9), (7, 8), (0, 11)]
            if chip not in FLOAT_NEEDS_EQUAL_WIDTH:
                widening += [(FP16, FP32), (BF16, 9), (FP8E5M2, 7), (FP8E4M3, FP32), (FP8E5M2, BF16),
                             (FP8E4M3, FP16)]
            for cmp_dt, val_dt in (p for p in widening if p in pairs):
                cases.append(maker.case(func, cmp_dt, val_dt))
        # start lane 0 / middle / last with C below and above NPU_NUM, N > 1
        for start in (0, npu // 2, npu - 1):
            for c in (npu // 2 - 3, npu + 5):
                pair = pairs[int(rng.integers(len(pairs)))]
                cases.append(maker.case(func, *pair, start_lane=start, shape=[2, c, 2, 3]))
        # every operand-kind mix of src0/src1 with a TENSOR and a SCALAR payload
        for k0 in ("TENSOR", "VECTOR", "SCALAR"):
            for k1 in ("TENSOR", "VECTOR", "SCALAR"):
                pair = pairs[int(rng.integers(len(pairs)))]
                cases.append(maker.case(func, *pair, kinds=[k0, k1, "TENSOR", "SCALAR"]))
        # in place, and a dst that ends at the end of the lane
        for cmp_dt in (FP32, 7, BF16):
            pair = (cmp_dt, cmp_dt)
            cases.append(
                maker.case(func, *pair, kinds=["TENSOR", "TENSOR", "TENSOR", "SCALAR"], in_place=True)
            )
        cases.append(maker.case(func, FP32, FP32, at_lane_end=True, start_lane=npu - 1, shape=[1, 3, 3, 5]))
        # the special-value grid of §4.4 (all 20 x 20 pairs), one case per float dtype
        for code in (c for c in (FP32, FP16, BF16, *FP8) if c in SELECT_DTYPES[chip]):
            specials = np.array(SPECIALS[code], dtype=raw_dtype(code))
            k = len(specials)
            a = np.repeat(specials, k)
            b = np.tile(specials, k)
            payload_c = (np.arange(k * k) + 100).astype(raw_dtype(code))  # wraps around for 8-bit types
            payload_d = (np.arange(k * k) + 1000).astype(raw_dtype(code))
            cases.append(
                maker.case(
                    func,
                    code,
                    code,
                    shape=[1, k, 1, k],
                    start_lane=int(rng.integers(npu)),
                    kinds=["TENSOR"] * 4,
                    src_values=[a, b, payload_c, payload_d],
                )
            )
    # dst0 == dst1 for maximum/minimum (legal, widths are equal): the cmodel writes dst1 last
    for func in sorted(MIN_MAX):
        for cmp_dt, val_dt in ((FP32, 9), (7, 6)):
            case = maker.case(func, cmp_dt, val_dt)
            case["dst"][1] = case["dst"][0]
            cases.append(case)
    return cases + multi_row_cases(maker) + fp8_cases(maker)


def multi_row_cases(maker: CaseMaker) -> list[dict]:
    """H*W beyond EU_NUM: a channel spans several EU rows and the c-stride pads the last one.

    Per function, an 8-, a 16- and a 32-bit compare type with H*W of 1.4 to 3 rows of the
    8-bit EU_NUM (so wider types span more), a few channels (wrapping past the last lane from a
    late start lane), N up to 2.
    """
    chip, rng = maker.chip, maker.rng
    npu, _, align = CHIPS[chip]
    cases = []
    for func in FUNCS:
        pairs = legal_dtype_pairs(func, chip)
        for bits in (8, 16, 32):
            options = [p for p in pairs if DTYPES[p[0]][0] == bits]
            pair = options[int(rng.integers(len(options)))]
            h = int(rng.integers(1, 4))
            w = int(rng.integers(-(-align * 7 // 5 // h), 3 * align // h + 1))
            c = int(rng.choice([2, 5, 9]))
            start = int(rng.choice([0, npu - 3]))
            cases.append(maker.case(func, *pair, shape=[int(rng.integers(1, 3)), c, h, w], start_lane=start))
    return cases


def fp8_cases(maker: CaseMaker) -> list[dict]:
    """FP8 compare operands (SG2260 only): every operand-kind mix, and all 256 x 256 pairs of codes.

    The exhaustive grid puts src0 = code i and src1 = code j at element (i, j) of a
    [1, 256, 1, 256] tensor and selects between two SCALAR payloads, so dst holds the whole truth
    table (and dst0 of maximum/minimum every chosen code: FP8 subnormals are not flushed).
    """
    chip, rng = maker.chip, maker.rng
    if not set(FP8) <= set(SELECT_DTYPES[chip]):
        return []
    npu = CHIPS[chip][0]
    cases = []
    codes = np.arange(256, dtype=np.uint8)
    for func in FUNCS:
        pairs = legal_dtype_pairs(func, chip)
        for code in FP8:
            options = [p for p in pairs if p[0] == code]
            for kinds in (["VECTOR", "TENSOR", "TENSOR", "SCALAR"], ["TENSOR", "SCALAR", "SCALAR", "TENSOR"],
                          ["SCALAR", "VECTOR", "TENSOR", "TENSOR"]):
                cases.append(maker.case(func, *options[int(rng.integers(len(options)))], kinds=kinds))
            payload = [0x5A, 0xA5]
            cases.append(maker.case(func, code, code, shape=[1, 256, 1, 256], start_lane=int(rng.integers(npu)),
                                    kinds=["TENSOR", "TENSOR", "SCALAR", "SCALAR"],
                                    src_values=[np.repeat(codes, 256), np.tile(codes, 256), payload[:1],
                                                payload[1:]]))
    return cases


class Violations(list):
    """Calls the cmodel should reject, collected in order, each with the id ``<chip>-error-<name>``.

    ``forbidden_by`` names a rule of the vendor's document that the call breaks: such a call stays
    in the fixture even when an oracle computes it anyway (npusim follows the document).
    """

    def __init__(self, chip: str) -> None:
        super().__init__()
        self.chip = chip

    def add(self, name: str, case: dict, forbidden_by: str | None = None, **patch) -> None:
        case.update(patch)
        case["id"] = f"{self.chip.lower()}-error-{name}"
        if forbidden_by:
            case["forbidden_by"] = forbidden_by
        self.append(case)


SEED_000 = "seed 000 (比较选择函数, 注意事项)"


def make_error_cases(chip: str) -> list[dict]:
    """Calls the cmodel rejects (it asserts and exits); npusim must raise ConstraintError for each."""
    maker = CaseMaker(chip, 7)
    npu, lms, align = CHIPS[chip]
    cases = Violations(chip)
    add = cases.add

    small = dict(shape=[1, 2, 1, 4], start_lane=0, kinds=["TENSOR", "TENSOR", "SCALAR", "SCALAR"])
    scalars = dict(shape=[1, 2, 1, 4], start_lane=0, kinds=["SCALAR"] * 4)  # no data tied to the shape
    shape_rule = f"{SEED_000}: n, c, h, w in [1, 65535]"
    add("n-zero", maker.case("greater_select", 1, 1, **scalars), shape_rule, shape=[0, 2, 1, 4])
    add("w-65536", maker.case("less_select", 1, 1, **scalars), shape_rule, shape=[1, 2, 1, 65536])
    if chip in FLOAT_NEEDS_EQUAL_WIDTH:  # legal by the document; the BM cmodels assert
        add("fp16-into-fp32", maker.case("greater_select", FP16, FP32, **small))
        add("bf16-into-int32", maker.case("equal_select", BF16, 9, **small))
    add("int32-into-int16", maker.case("less_select", 9, 7, **small),
        f"{SEED_000}: bits(src0_src1_dtype) <= bits(dst_dtype)")
    add("max-widths-differ", maker.case("maximum_greater_select", 1, 7, **small),
        f"{SEED_000}: bits(dst0_dtype) == bits(dst1_dtype)")
    if FP8E4M3 not in SELECT_DTYPES[chip]:
        add("fp8-dst", maker.case("greater_select", 1, 1, **scalars), dtypes=[1, 47])
        add("fp8-compare", maker.case("greater_select", 1, 1, **scalars), dtypes=[47, 47])
        add("fp8e5m2-compare", maker.case("equal_select", 1, 1, **scalars), dtypes=[15, 15])
    else:  # the document's width rules with an FP8 compare type
        add("fp8-min-widths-differ", maker.case("minimum_less_select", FP8E5M2, FP16, **small),
            f"{SEED_000}: bits(dst0_dtype) == bits(dst1_dtype)")
        add("fp16-into-fp8", maker.case("greater_select", FP16, FP8E4M3, **small),
            f"{SEED_000}: bits(src0_src1_dtype) <= bits(dst_dtype)")
    add("int4-dst", maker.case("greater_select", 1, 1, **scalars), dtypes=[1, 13])
    c = maker.case("greater_select", 1, 1, **small)
    c["src"][0]["addr"] += align // 2
    add("src0-misaligned", c)
    c = maker.case("minimum_less_select", FP32, 9, **small)
    c["dst"][1] += align // 2
    add("dst1-misaligned", c)
    c = maker.case(
        "greater_select",
        7,
        7,
        shape=[1, 2, 1, 4],
        start_lane=0,
        kinds=["VECTOR", "TENSOR", "SCALAR", "SCALAR"],
    )
    c["src"][0]["addr"] = (c["src"][0]["addr"] // align) * align + 1
    add("vector-odd-address", c)
    add(
        "src2-vector",
        maker.case(
            "greater_select",
            1,
            1,
            shape=[1, 2, 1, 4],
            start_lane=0,
            kinds=["TENSOR", "TENSOR", "VECTOR", "SCALAR"],
        ),
    )
    add(
        "dst-past-lane-end",
        maker.case("equal_select", 1, 1, **scalars),
        shape=[1, 2, 1, 512],
        dst=[lms - align],
    )
    return cases


def write_gzip_json(path: Path, doc: dict) -> None:
    """Write ``doc`` as compact JSON, gzipped reproducibly (no timestamp, no file name)."""
    data = json.dumps(doc, separators=(",", ":")).encode()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(data)


def keep_measured(valid: list[dict], errors: list[dict], results: dict[str, dict]) -> list[dict]:
    """The cases to commit, each updated with its result: valid cases the cmodel ran, violations it
    rejected, and violations of the document (``forbidden_by``) it computed anyway (their ``expect``
    records what it wrote).  The others are reported on stderr and dropped."""
    unexpected = [c["id"] for c in valid if "expect_error" in results[c["id"]]]
    accepted = [c["id"] for c in errors if "expect_error" not in results[c["id"]] and "forbidden_by" not in c]
    for cid in unexpected:
        print(f"warning: legal-by-reference case {cid} was rejected: {results[cid]}", file=sys.stderr)
    for cid in accepted:
        print(f"note: cmodel accepted the violation {cid}; dropped", file=sys.stderr)
    for case in errors:
        if "forbidden_by" in case and "expect_error" not in results[case["id"]]:
            print(f"note: cmodel computed {case['id']}, which the document forbids; kept", file=sys.stderr)
    cases = [c for c in valid + errors if c["id"] not in unexpected and c["id"] not in accepted]
    for case in cases:
        case.update(results[case["id"]])
    return cases


def generate_fixtures(out_dir: Path, cmodel_dir: Path, seed: int, prefix: str, make_valid, make_errors,
                      header: dict, chips=tuple(LIBS), script: str = __file__) -> None:
    """For each of ``chips``: make the cases, run them on its cmodel, write ``<prefix>_<chip>.json.gz``.

    ``make_valid(chip, seed)`` and ``make_errors(chip)`` return case lists; ``header`` holds the
    fixture's own fields (generator, set-up conventions), to which the chip, the oracle and the
    measured cases are added.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    for chip in chips:
        valid, errors = make_valid(chip, seed + list(LIBS).index(chip)), make_errors(chip)
        cases = keep_measured(valid, errors, run_cases(chip, valid + errors, cmodel_dir, script))
        path = out_dir / f"{prefix}_{chip.lower()}.json.gz"
        oracle = f"{LIBS[chip]} from the PyPI wheel {WHEEL}"
        write_gzip_json(path, {"generator": header["generator"], "oracle": oracle, "chip": chip,
                               **{k: v for k, v in header.items() if k != "generator"}, "cases": cases})
        valid_count = sum("expect" in c and "forbidden_by" not in c for c in cases)
        print(f"{path}: {len(cases)} cases ({valid_count} valid), {path.stat().st_size} bytes")


def _generate(args: argparse.Namespace) -> None:
    header = {"generator": "tools/sophgo_cmodel_oracle.py", "background": BACKGROUND,
              "sentinel": "(lane*31 + offset*7 + 0xA5) & 0xFF", "guard_bytes": GUARD_BYTES}
    generate_fixtures(Path(args.out_dir), find_cmodel_dir(args.cmodel_dir, args.chips), args.seed, "select_oracle",
                      make_cases, make_error_cases, header, args.chips)


def _replay(args: argparse.Namespace) -> None:
    for path in args.fixtures:
        doc = json.loads(gzip.decompress(Path(path).read_bytes()))
        cases = [{k: v for k, v in c.items() if k not in ("expect", "expect_error")} for c in doc["cases"]]
        results = run_cases(doc["chip"], cases, find_cmodel_dir(args.cmodel_dir, [doc["chip"]]))
        bad = [
            c["id"]
            for c in doc["cases"]
            if {k: c.get(k) for k in ("expect", "expect_error")}
            != {k: results[c["id"]].get(k) for k in ("expect", "expect_error")}
        ]
        print(f"{path}: {len(doc['cases']) - len(bad)}/{len(doc['cases'])} reproduced; differing: {bad}")


def _fetch(args: argparse.Namespace) -> None:
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob("tpu_mlir-1.30.2-*.whl"))
    if not wheels:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--python-version",
                "3.10",
                "--only-binary=:all:",
                WHEEL,
                "-d",
                str(cache),
            ],
            check=True,
        )
        wheels = list(cache.glob("tpu_mlir-1.30.2-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        for name in (name for chip in LIBS for name in oracle_files(chip)):
            (cache / name).parent.mkdir(exist_ok=True)
            (cache / name).write_bytes(wheel.read(f"tpu_mlir/lib/{name}"))
    print(f"cmodel libraries in {cache}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fetch", help="download the tpu_mlir wheel and extract the cmodel libraries")
    p.add_argument("--cache", default=str(DEFAULT_CACHE))
    p.set_defaults(func=_fetch)
    add_generate_and_worker(sub, _generate, 20240601, _worker)
    p = sub.add_parser("replay", help="re-run fixture files on the cmodel and compare")
    p.add_argument("fixtures", nargs="+")
    p.add_argument("--cmodel-dir")
    p.set_defaults(func=_replay)
    args = parser.parse_args(argv)
    args.func(args)


def add_generate_and_worker(sub, generate, default_seed: int, worker) -> None:
    """The ``generate`` command and the hidden ``worker`` command that :func:`run_cases` starts."""
    p = sub.add_parser("generate", help="generate the fixture files")
    p.add_argument("--out-dir", default=str(ROOT / "tests" / "data" / "sophgo"))
    p.add_argument("--cmodel-dir")
    p.add_argument("--seed", type=int, default=default_seed)
    p.add_argument("--chips", nargs="+", choices=list(LIBS), default=list(LIBS))
    p.set_defaults(func=generate)
    p = sub.add_parser("worker", help=argparse.SUPPRESS)
    for flag in ("--chip", "--lib", "--cases", "--results"):
        p.add_argument(flag, required=True)
    p.set_defaults(func=worker)


if __name__ == "__main__":
    main()
