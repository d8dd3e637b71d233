"""What the fuzz families draw their arguments from: a byte tape and pools of hostile values.

Hypothesis charges roughly a tenth of a millisecond for every value it draws, and one fuzz
example makes dozens of choices (chip, dtype, four tensors, mask, strides ...).  Drawn one
by one they would cost more than the emulated call itself, and the whole suite has to run
in under two minutes.  So every example draws **one** byte string, and a :class:`Tape`
decodes it into choices:

* byte value 0 always means "the first option", and a tape that runs out reads zeros;
* every family lists its plain, valid option first (``calm`` is the first choice too).

Hypothesis shrinks a failing byte string towards fewer and smaller bytes, that is towards
first options, so a failure still shrinks to a small, mostly valid call; the tape records
every choice it made by name, and the contract prints them when an example fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.tensor import Lease

__all__ = ["HOSTILE", "HOSTILE_INTS", "HOSTILE_OTHER", "TAPES", "Tape", "tapes"]

TAPE_BYTES = 128

# Integers outside every documented range (and a few just inside, where off-by-one bugs live).
HOSTILE_INTS = (-1, -32, -(2**31), 2**31, 2**32, 2**63, 2**64, 2**64 + 1, 10**30, 10**400,
                255, 256, 65535, 65536, -(2**63) - 1)
# Values of the wrong Python type, numpy scalars and the awkward floats.
HOSTILE_OTHER = (None, "3", b"\x00", 1.5, -0.0, math.nan, -math.inf, math.inf, 1e308, True, False,
                 np.int64(3), np.uint8(7), np.uint64(2**64 - 1), np.int64(-1), np.float32(2.0), np.float16(math.nan),
                 np.array([1, 2]), np.array(5), [1], (), {"a": 1}, object(), np.bool_(True), 3 + 4j,
                 Fraction(1, 3), Decimal("2"), float, int)
HOSTILE = HOSTILE_INTS + HOSTILE_OTHER


class Tape:
    """Choices decoded from one drawn byte string (see the module docstring).

    ``calm`` is decided first: in a calm example (a third of them) :meth:`hostile` never
    mixes in a hostile value, so the success path gets its fair share of examples.
    """

    __slots__ = ("raw", "pos", "choices", "calm")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.pos = 0
        self.choices: list[tuple[str, object]] = []
        self.calm = self.pick("calm", (True, False, False))

    def __repr__(self) -> str:
        return "Tape(" + ", ".join(f"{label}={value!r}" for label, value in self.choices) + ")"

    # ---------------------------------------------------------------- decoding
    def _byte(self) -> int:
        if self.pos >= len(self.raw):
            return 0
        value = self.raw[self.pos]
        self.pos += 1
        return value

    def below(self, n: int) -> int:
        """An integer in ``[0, n)``: one byte for n <= 256, more bytes for larger n."""
        value, span = self._byte(), 256
        while span < n:
            value, span = value << 8 | self._byte(), span << 8
        return value % n

    def pick(self, label: str, options):
        """One of ``options`` (a sequence); byte 0 picks the first."""
        value = options[self.below(len(options))]
        self.choices.append((label, value))
        return value

    def integer(self, label: str, low: int, high: int) -> int:
        """An integer in ``[low, high]``; byte 0 gives ``low``."""
        value = low + self.below(high - low + 1)
        self.choices.append((label, value))
        return value

    def chance(self, label: str, one_in: int) -> bool:
        """True about once in ``one_in`` examples; byte 0 gives False."""
        hit = self._byte() >= 256 - 256 // one_in
        self.choices.append((label, hit))
        return hit

    def hostile(self, label: str, valid, one_in: int = 8, pool=HOSTILE):
        """``valid``, or (about once in ``one_in`` non-calm examples) a value from ``pool``."""
        if self.calm or self._byte() < 256 - 256 // one_in:
            return valid
        value = pool[self.below(len(pool))]
        self.choices.append((label, value))
        return value

    def hostile_int(self, label: str, low: int, high: int, one_in: int = 8, pool=HOSTILE) -> object:
        """An integer in ``[low, high]``, or sometimes a hostile value."""
        return self.hostile(label, self.integer(label, low, high), one_in, pool)


def tapes(size: int = TAPE_BYTES) -> st.SearchStrategy[Tape]:
    """Tapes of ``size`` bytes (a family needs a few bytes per choice; the rest reads as zeros)."""
    return st.binary(min_size=size, max_size=size).map(Tape)


TAPES = tapes()


# --------------------------------------------------------------------------- Ascend
ASCEND_CHIPS = ("A2", "A3", "950", "310P", "310B", "910", "KirinX90", "310P-VEC")
ASCEND_DTYPES = (asc.float16, asc.float32, asc.bfloat16, asc.int16, asc.uint8, asc.int32, asc.uint64, asc.int8)
UB_POSITIONS = (asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC)
ODD_ADDRESSES = (0, 0x1000, 0x1800, 0x20, 0x44, 0x2FFE0)
TILES = (0, 16, 64, 128, 256, 1024, 4096)


def ascend_chip(tape: Tape, supports=lambda chip: True) -> str:
    """Any Ascend product; in a calm example one for which ``supports(chip)`` holds."""
    names = ASCEND_CHIPS if not tape.calm else tuple(n for n in ASCEND_CHIPS if supports(asc.get_chip(n)))
    return tape.pick("chip", names)


@dataclass(frozen=True)
class TensorSpec:
    """How to make one LocalTensor operand; ``kind`` is plain, freed, foreign (another core's) or raw_value."""

    dtype: object
    pos: object
    addr: object
    tile: object
    kind: str = "plain"

    def make(self, other_core: asc.Core):
        """The operand (inside the call: constructing it may itself be rejected)."""
        if self.kind == "raw_value":
            return self.addr  # not a tensor at all
        if self.kind == "foreign":
            return asc.LocalTensor(self.dtype, self.pos, self.addr, self.tile, core=other_core)
        lease = Lease("fuzz") if self.kind == "freed" else None
        tensor = asc.LocalTensor(self.dtype, self.pos, self.addr, self.tile, lease=lease)
        if lease is not None:
            lease.revoke()
        return tensor


def replayed(tape: Tape, specs: list[TensorSpec]) -> list[TensorSpec]:
    """The same operands for a second call, some now freed or another core's.

    Same address, extent, dtype and position: the second call finds the first one's cached plan
    (``ascend/plans.py``), so this tests that what a plan cannot know is checked on every call.
    """
    kinds = ("plain",) * 6 + ("freed", "foreign")
    return [replace(spec, kind=tape.pick(f"replay {i} kind", kinds)) if spec.kind != "raw_value" else spec
            for i, spec in enumerate(specs)]


def tensor_spec(tape: Tape, label: str, home: int, dtype=None) -> TensorSpec:
    """A LocalTensor at ``home`` (usually), sometimes misaligned, out of UB, freed, foreign or not a tensor."""
    if tape.calm:
        return TensorSpec(dtype or tape.pick(f"{label}.dtype", ASCEND_DTYPES), asc.TPosition.VECIN, home, 0)
    addr = home if tape.pick(f"{label}.at home", (True, True, True, False)) else tape.pick(f"{label}.addr",
                                                                                         ODD_ADDRESSES)
    addr = tape.hostile(f"{label}.addr", addr)
    tile = tape.hostile(f"{label}.tile", tape.pick(f"{label}.tile", TILES), one_in=20)
    kind = tape.pick(f"{label}.kind", ("plain",) * 20 + ("freed", "foreign", "raw_value"))
    if dtype is None or tape.chance(f"{label}.other dtype", 12):
        dtype = tape.pick(f"{label}.dtype", ASCEND_DTYPES)
    pos = tape.pick(f"{label}.pos", UB_POSITIONS) if not tape.chance(f"{label}.odd pos", 8) else \
        tape.pick(f"{label}.pos", tuple(asc.TPosition))
    return TensorSpec(dtype, pos, addr, tile, kind)


def mask_arg(tape: Tape, label: str = "mask", dtype=None):
    """A mask argument: a contiguous lane count or a list of uint64 words (bitwise mode).

    Calm masks fit ``dtype`` (at most 256 / sizeof(dtype) lanes per repeat).
    """
    lanes = 256 // dtype.itemsize if dtype is not None else 128
    form = tape.pick(f"{label} form", ("count", "words", "special") if not tape.calm else ("count", "words"))
    if form == "count":
        return tape.hostile(label, tape.integer(label, 1, min(lanes, 128) if tape.calm else 300))
    if form == "words":
        low = tape.integer(f"{label}[0]", 0, 2**64 - 1)
        high = tape.integer(f"{label}[1]", 0, 2**64 - 1 if lanes > 64 or not tape.calm else 0)
        return [tape.hostile(f"{label}[0]", low), tape.hostile(f"{label}[1]", high)]
    return tape.pick(label, ([2**64 - 1, 0], [0, 0], [1, 2**64 - 1], [1, 2, 3], [1], [2**64, 0], 0,
                             np.array([1, 1], dtype=np.uint64), [-1, 0], (3, 3)))


def repeat_times(tape: Tape, label: str = "repeat_times", calm_max: int = 8):
    return tape.hostile(label, tape.integer(label, 0 if not tape.calm else 1, calm_max if tape.calm else 255))


def binary_params(tape: Tape) -> asc.BinaryRepeatParams:
    """BinaryRepeatParams: plain strides when calm, else any 8-bit field or a hostile value."""
    if tape.calm:
        return asc.BinaryRepeatParams()
    return asc.BinaryRepeatParams(*(tape.hostile(f"params.{i}", tape.integer(f"params.{i}", 0, 16))
                                    for i in range(6)))


def unary_params(tape: Tape) -> asc.UnaryRepeatParams:
    if tape.calm:
        return asc.UnaryRepeatParams()
    return asc.UnaryRepeatParams(*(tape.hostile(f"params.{i}", tape.integer(f"params.{i}", 0, 16))
                                   for i in range(4)))


SCALARS = (0, 1, -1, 2.5, -0.0, math.nan, math.inf, -math.inf, 65504.0, 1e-8, 127, -128, 255, 70000,
           np.float16(3.0), np.float32(-2.0), np.int32(7), 10**30, 1e308)


CALM_SCALARS = (0, 1, 3, 7)  # representable in every dtype


def scalar_arg(tape: Tape, label: str = "scalar"):
    return tape.hostile(label, tape.pick(label, CALM_SCALARS if tape.calm else SCALARS))


GM_ELEMS = 4096
GM_FILL = np.random.default_rng(2).integers(0, 256, GM_ELEMS * 8, dtype=np.uint8)
GM_KINDS = ("array",) * 8 + ("never written", "read-only", "other dtype", "unbound", "near the end", "sized")


def gm_tensor(tape: Tape, label: str, dtype) -> asc.GlobalTensor:
    """A GlobalTensor over a fresh GM buffer of GM_ELEMS random ``dtype`` elements (calm), or a hostile one:
    never written (gm_alloc), read-only, of another dtype, unbound, bound near the end, or bound with a size."""
    kind = "array" if tape.calm else tape.pick(f"{label} kind", GM_KINDS)
    if kind == "other dtype":
        dtype = tape.pick(f"{label} dtype", ASCEND_DTYPES)
    tensor = asc.GlobalTensor()
    if kind == "unbound":
        return tensor
    if kind == "never written":
        tensor.set_global_buffer(asc.gm_alloc(dtype, GM_ELEMS))
        return tensor
    array = GM_FILL[: GM_ELEMS * dtype.itemsize].copy().view(dtype.np_dtype)
    if kind == "read-only":
        array.flags.writeable = False
    tensor.set_global_buffer(array)
    if kind == "near the end":
        return tensor[GM_ELEMS - tape.integer(f"{label} elements left", 1, 64)]
    if kind == "sized":
        tensor.set_global_buffer(tensor.address + tape.integer(f"{label} offset", 0, 64),
                                 tape.integer(f"{label} size", 0, 512))
    return tensor


def gm_buffers(*tensors) -> list:
    """The GM buffers behind the bound GlobalTensors among ``tensors`` (for snapshots)."""
    buffers = []
    for tensor in tensors:
        if isinstance(tensor, asc.GlobalTensor) and repr(tensor) != "GlobalTensor(unbound)":
            buffers.append(tensor.buffer)
    return buffers
