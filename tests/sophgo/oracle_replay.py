"""Replay a cmodel oracle case (tools/sophgo_cmodel_oracle.py) on npusim.

A case is set up exactly as the generator set it up on the cmodel: each dst window is
filled with the sentinel, then the TENSOR/VECTOR sources are written, then the
instruction runs.  :func:`replay` returns what the fixture records: the dst values in
NCHW order and the SHA-256 of every dst window (all lanes, guard bands included).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

from npusim import sophgo as tpu

from .reference_model import CHIPS

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "sophgo"
GUARD_BYTES = 64
MIN_MAX = ("maximum_greater_select", "minimum_less_select")
_RAW = {0: 1, 1: 1, 3: 2, 5: 4, 6: 2, 7: 2, 8: 4, 9: 4, 11: 2, 13: 1, 15: 1, 47: 1}  # bytes per element


def load_fixture(name: str) -> dict:
    return json.loads(gzip.decompress((DATA_DIR / name).read_bytes()))


def sentinel(lane: int, lo: int, hi: int) -> bytes:
    """``(lane*31 + offset*7 + 0xA5) & 0xFF`` for offsets lo..hi-1 of one lane (fixture header)."""
    offsets = np.arange(lo, hi, dtype=np.int64)
    return ((lane * 31 + offsets * 7 + 0xA5) & 0xFF).astype(np.uint8).tobytes()


def dst_window(chip: str, addr: int, shape, size: int) -> tuple[int, int]:
    """In-lane byte range hashed for a dst: its N*n_stride extent plus guard bands, inside the lane."""
    npu, lms, eu_bytes = CHIPS[chip]
    s, base = divmod(addr, lms)
    eu_num = eu_bytes // size
    cs = -(-(shape[2] * shape[3]) // eu_num) * eu_num
    ns = -(-(s + shape[1]) // npu) * cs
    return max(0, base - GUARD_BYTES), min(lms, base + shape[0] * ns * size + GUARD_BYTES)


def variables(case: dict) -> list[tpu.variable_t]:
    out = []
    for src in case["src"]:
        kind = getattr(tpu, src["kind"])
        if src["kind"] == "SCALAR":
            out.append(tpu.variable_t(type=kind, scalar=tpu.scalar_t(u32=src["u32"])))
        else:
            out.append(tpu.variable_t(type=kind, addr=src["addr"]))
    return out


def dst_dtypes(case: dict) -> list[int]:
    cmp_dt, val_dt = case["dtypes"]
    return [cmp_dt, val_dt] if case["func"] in MIN_MAX else [val_dt]


def setup(core: tpu.Core, case: dict) -> list[tuple[int, int]]:
    """Sentinel-fill the dst windows and write the sources; returns the windows."""
    chip, shape = case["chip"], case["shape"]
    windows = []
    for addr, dt in zip(case["dst"], dst_dtypes(case), strict=True):
        lo, hi = dst_window(chip, addr, shape, _RAW[dt])
        for lane in range(core.chip.npu_num):
            core.write_local_bytes(lane, lo, sentinel(lane, lo, hi))
        windows.append((lo, hi))
    cmp_dt, val_dt = case["dtypes"]
    for src, dt in zip(case["src"], [cmp_dt, cmp_dt, val_dt, val_dt], strict=True):
        if src["kind"] == "TENSOR":
            storage = tpu.types.storage_dtype(tpu.data_type_t(dt), "test", "dtype").np_dtype
            values = np.frombuffer(bytes.fromhex(src["data"]), dtype=storage)
            core.write_local(src["addr"], values.reshape(shape), dt)
        elif src["kind"] == "VECTOR":
            write_vector(core, src["addr"], bytes.fromhex(src["data"]), _RAW[dt])
    return windows


def write_vector(core: tpu.Core, addr: int, payload: bytes, size: int) -> None:
    """Element i into lane ``(start_lane + i) % NPU_NUM`` at the vector's own offset (§3.4)."""
    start_lane, offset = divmod(addr, core.chip.local_mem_bytes)
    for i in range(len(payload) // size):
        lane = (start_lane + i) % core.chip.npu_num
        core.write_local_bytes(lane, offset, payload[i * size : (i + 1) * size])


def call(case: dict) -> None:
    """Issue the case's instruction on the active core."""
    fn = getattr(tpu, f"tpu_bdc_{case['func']}")
    fn(*case["dst"], *variables(case), tpu.dim4(*case["shape"]), *case["dtypes"])


def replay(case: dict) -> dict:
    """Run a valid case on a fresh npusim core; returns ``{"dst_data": [...], "window_sha256": [...]}``."""
    with tpu.Core(case["chip"]) as core:
        windows = setup(core, case)
        call(case)
        dst_data, hashes = [], []
        for addr, dt, (lo, hi) in zip(case["dst"], dst_dtypes(case), windows, strict=True):
            dst_data.append(core.read_local(addr, tuple(case["shape"]), dt).tobytes().hex())
            window = b"".join(core.local_bytes(lane, lo, hi - lo) for lane in range(core.chip.npu_num))
            hashes.append(hashlib.sha256(window).hexdigest())
    return {"dst_data": dst_data, "window_sha256": hashes}
