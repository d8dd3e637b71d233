"""The one dispatch, on a toy vendor: plans keyed on geometry, bound per call, recorded."""

from dataclasses import dataclass, field

import pytest

from npusim.engine import caches
from npusim.engine.dispatch import PLANS, check_call, new_core_caches
from npusim.engine.registry import Instruction, OperandKind, Vendor, instructions, register, register_vendor
from npusim.engine.trace import ByteRange
from npusim.errors import ConstraintError, NoActiveCoreError, ParameterRangeError
from npusim.overloads import Form, Param


@dataclass
class ToyChip:
    name: str


@dataclass(eq=False)
class ToyCore:
    chip: ToyChip
    memory: bytearray = field(default_factory=lambda: bytearray(64))
    trace: list | None = None
    block_idx: int = 0

    def __post_init__(self):
        self.invocations, self.bindings = new_core_caches()


@dataclass(eq=False)
class Buf:
    """A toy operand: ``size`` bytes at ``addr``."""

    addr: int
    size: int
    alive: bool = True


ACTIVE: list[ToyCore] = []
COMPILES: list[tuple] = []
BINDS: list[tuple] = []


def _current(instruction):
    if not ACTIVE:
        raise NoActiveCoreError(instruction, "core", None, "no toy core", "a toy core")
    return ACTIVE[-1]


def _check(value, instruction, name, core):
    if not value.alive:
        raise ParameterRangeError(instruction, name, value.addr, "freed", "a live buffer")


register_vendor(Vendor("toy", chips=lambda: [ToyChip("T1"), ToyChip("T2")], current_core=_current,
                       operand_kinds={Buf: OperandKind(lambda b: b.size, lambda b: b.addr, _check)},
                       address_kind=OperandKind(lambda addr: addr % 4, lambda addr: addr, lambda *a: None)))


@dataclass(eq=False)
class FillPlan:
    """Fill ``dst`` with a per-call byte value."""

    size: int
    operands: tuple = ("dst",)

    def bind(self, core, operands):
        (dst,) = operands
        BINDS.append((dst.addr, self.size))
        if dst.addr % 4:
            raise ParameterRangeError("fill", "dst address", dst.addr, "4-byte aligned", "multiples of 4")
        return FillBinding(dst.addr, self.size)


@dataclass(eq=False)
class FillBinding:
    start: int
    size: int
    registers_read: tuple = ()
    registers_written: tuple = ("FILL",)

    @property
    def reads(self):
        return ()

    @property
    def writes(self):
        return (ByteRange("MEM", self.start, self.start + self.size),)

    def run(self, core, values):
        core.memory[self.start:self.start + self.size] = bytes([values[1]]) * self.size


def _compile(core, form, values):
    COMPILES.append((form, values["dst"].size))
    if values["dst"].size > 16:
        raise ParameterRangeError("fill", "dst size", values["dst"].size, "too large", "[0, 16]")
    return FillPlan(values["dst"].size)


FORMS = (Form("fill", (Param("dst", lambda v: isinstance(v, Buf)), Param("value", lambda v: type(v) is int),
                       Param("pad", lambda v: True, 0))),)

fill = register(Instruction("fill", "toy", "fill", "V", FORMS, _compile, "toy.md §1",
                            support=lambda chip: chip.name == "T1", per_call=frozenset({"value"}),
                            fast_context=lambda core: ()))


@pytest.fixture
def core():
    caches.clear_all()
    COMPILES.clear()
    BINDS.clear()
    toy = ToyCore(ToyChip("T1"))
    ACTIVE.append(toy)
    yield toy
    ACTIVE.pop()


def test_the_registry_lists_the_instruction_with_its_products_and_public_function():
    entry = instructions("toy")[0]
    assert entry.name == "fill" and entry.family == "fill" and entry.pipe == "V" and entry.source == "toy.md §1"
    assert list(entry.products) == ["T1"]
    assert entry.function is fill and fill.instruction is entry
    assert "fill(dst, value, pad=0)" in fill.__doc__


def test_registering_a_name_twice_is_an_error():
    with pytest.raises(KeyError, match="already registered"):
        register(Instruction("fill", "toy", "fill", "V", FORMS, _compile, "toy.md", support=lambda c: True))


def test_examples_on_maps_product_names_to_snippets_and_is_read_only():
    entry = Instruction("fill_950", "toy", "fill", "V", FORMS, _compile, "toy.md", support=lambda c: True,
                        examples_on={"950": ("toy.fill_950(0)",)})
    assert dict(entry.examples_on) == {"950": ("toy.fill_950(0)",)}
    with pytest.raises(TypeError):
        entry.examples_on["A2"] = ("toy.fill_950(1)",)  # type: ignore[index]
    for bad in ({"950": "toy.fill_950(0)"}, {"950": ()}, {950: ("toy.fill_950(0)",)}):
        with pytest.raises(ValueError, match="examples_on"):
            Instruction("fill_950", "toy", "fill", "V", FORMS, _compile, "toy.md", support=lambda c: True,
                        examples_on=bad)


def test_a_plan_is_compiled_once_per_geometry_and_bound_once_per_base(core):
    fill(Buf(0, 8), 1)
    fill(Buf(8, 8), 2)  # moved: same plan, new binding
    fill(Buf(0, 8), 3)  # back: same binding
    fill(Buf(16, 8), 4, 0)
    assert COMPILES == [("fill", 8)]
    assert BINDS == [(0, 8), (8, 8), (16, 8)]
    assert core.memory[:24] == bytes([3] * 8 + [2] * 8 + [4] * 8)


def test_the_plan_is_shared_between_cores_of_one_chip_but_not_between_chips(core):
    fill(Buf(0, 8), 1)
    other = ToyCore(ToyChip("T1"))
    ACTIVE.append(other)
    try:
        fill(Buf(0, 8), 1)
        assert COMPILES == [("fill", 8)]
        assert BINDS == [(0, 8), (0, 8)]  # each core binds its own memory
        ACTIVE[-1] = ToyCore(ToyChip("T2"))
        fill(Buf(0, 8), 1)
        assert len(COMPILES) == 2
    finally:
        ACTIVE.pop()


def test_rejected_calls_are_not_kept_and_leave_memory_alone(core):
    for _ in range(2):
        with pytest.raises(ConstraintError, match="too large"):
            fill(Buf(0, 32), 1)
    assert COMPILES == [("fill", 32), ("fill", 32)]
    fill(Buf(0, 8), 1)
    with pytest.raises(ConstraintError, match="aligned"):
        fill(Buf(2, 8), 9)  # the plan exists: only the address rule can fail, in bind
    assert core.memory[:10] == bytes([1] * 8 + [0] * 2)


def test_per_call_operand_checks_run_on_every_call(core):
    buf = Buf(0, 8)
    fill(buf, 1)
    buf.alive = False
    with pytest.raises(ConstraintError, match="freed"):
        fill(buf, 2)
    assert core.memory[:8] == bytes([1] * 8)


def test_check_call_makes_every_check_and_runs_nothing(core):
    """check_call: the plan and binding rules; nothing written or recorded, and the call that follows binds
    nothing anew."""
    core.trace = []
    for bad, match in ((Buf(0, 32), "too large"), (Buf(2, 8), "aligned")):
        with pytest.raises(ConstraintError, match=match):
            check_call(fill, bad, 1)
    check_call(fill, Buf(8, 8), 1)  # binds (8, 8)
    assert core.memory == bytearray(64) and core.trace == []
    binds = len(BINDS)
    fill(Buf(8, 8), 5)
    assert len(BINDS) == binds + (0 if caches.enabled() else 1)  # the binding check_call made, if kept
    assert core.memory[8:16] == bytes([5] * 8) and len(core.trace) == 1


def test_disabled_caches_compile_every_call_with_the_same_result(core):
    with caches.disabled():
        fill(Buf(0, 8), 5)
        fill(Buf(0, 8), 5)
    assert len(COMPILES) == 2 and len(PLANS) == 0
    assert core.memory[:8] == bytes([5] * 8)


def test_keyword_calls_take_the_same_plan(core):
    fill(Buf(0, 8), 1)
    fill(dst=Buf(0, 8), value=7)
    assert COMPILES == [("fill", 8)]
    assert core.memory[:8] == bytes([7] * 8)


def test_keyword_calls_are_found_again_by_their_raw_arguments_and_read_their_own_values(core):
    buf = Buf(0, 8)
    fill(buf, value=7)
    fill(buf, 7, pad=0)
    assert len(core.invocations) == 2  # positional and keyword calls are found again by their raw arguments
    fill(buf, value=9)  # found again: the per-call value is this call's keyword
    assert core.memory[:8] == bytes([9] * 8)
    fill(value=3, dst=Buf(8, 8))
    fill(dst=Buf(8, 8), value=4)  # the keywords in another order: another raw key, the same plan
    assert core.memory[8:16] == bytes([4] * 8) and COMPILES == [("fill", 8)]
    for value in (5, 6):  # every parameter by keyword, out of the form's order
        fill(pad=0, value=value, dst=Buf(16, 8))
        assert core.memory[16:24] == bytes([value] * 8)
    buf.alive = False
    with pytest.raises(ConstraintError, match="freed"):
        fill(buf, value=5)
    assert core.memory[:8] == bytes([9] * 8)


def test_trace_records_each_call_with_its_ranges_params_and_source_line(core):
    core.trace = []
    fill(Buf(8, 4), 6)
    (record,) = core.trace
    assert record.instruction == "fill" and record.vendor == "toy" and record.pipe == "V" and record.seq == 0
    assert record.writes == (ByteRange("MEM", 8, 12),) and record.reads == ()
    assert record.registers_written == ("FILL",)
    assert record.params["value"] == 6 and record.params["pad"] == 0
    assert record.source.startswith("test_dispatch.py:")


def test_no_active_core_is_a_clear_error():
    caches.clear_all()
    with pytest.raises(NoActiveCoreError):
        fill(Buf(0, 8), 1)


def test_no_form_fitting_is_a_type_error_listing_the_forms(core):
    with pytest.raises(TypeError, match=r"fill\(dst, value, pad=0\)"):
        fill(Buf(0, 8), "x")


@dataclass(eq=False)
class PokePlan:
    """Write one per-call byte at an integer address (a Sophgo-style ``dst_addr``)."""

    phase: int
    operands: tuple = ("addr",)

    def bind(self, core, operands):
        (addr,) = operands
        BINDS.append((addr, "poke"))
        return FillBinding(addr, 1)


def _compile_poke(core, form, values):
    COMPILES.append((form, values["addr"] % 4))
    return PokePlan(values["addr"] % 4)


poke = register(Instruction(
    "poke", "toy", "fill", "V", (Form("poke", (Param("addr", lambda v: type(v) is int),
                                               Param("value", lambda v: type(v) is int))),),
    _compile_poke, "toy.md §2", support=lambda chip: True, per_call=frozenset({"value"}),
    address_params=frozenset({"addr"})))


def test_integer_address_parameters_key_by_geometry_and_bind_per_call(core):
    poke(0, 1)
    poke(8, 2)  # same geometry (addr % 4 == 0): same plan, new binding
    poke(9, 3)  # other geometry: compiled again
    assert COMPILES == [("poke", 0), ("poke", 1)]
    assert BINDS == [(0, "poke"), (8, "poke"), (9, "poke")]
    assert core.memory[:10] == bytes([1, 0, 0, 0, 0, 0, 0, 0, 2, 3])


@dataclass(eq=False)
class PipedBinding(FillBinding):
    pipe: str = "MTE3"


@dataclass(eq=False)
class PipedPlan(FillPlan):
    def bind(self, core, operands):
        (dst,) = operands
        return PipedBinding(dst.addr, self.size)


piped = register(Instruction(
    "piped_fill", "toy", "fill", "MTE2", FORMS, lambda core, form, values: PipedPlan(values["dst"].size),
    "toy.md §3", support=lambda chip: True, per_call=frozenset({"value"})))


def test_a_binding_with_a_pipe_of_its_own_is_recorded_on_it(core):
    """A copy issues on the pipe of its direction: the record takes the binding's pipe over the instruction's."""
    core.trace = []
    piped(Buf(0, 4), 1)
    fill(Buf(0, 4), 1)
    assert [record.pipe for record in core.trace] == ["MTE3", "V"]


def test_a_new_core_of_the_chip_reuses_the_invocation_but_binds_its_own_memory(core, monkeypatch):
    """Each launch runs its blocks on new cores: the raw-argument lookup is shared between the
    cores of one chip (templates without any core's binding), the bindings are not."""
    from npusim.engine import dispatch

    fill(Buf(0, 8), 1)
    made = []
    original = dispatch._invocation
    monkeypatch.setattr(dispatch, "_invocation", lambda *a: made.append(a) or original(*a))
    for chip, expected_new in (("T1", 0), ("T2", 1)):
        other = ToyCore(ToyChip(chip))
        ACTIVE.append(other)
        try:
            fill(Buf(0, 8), 1)  # the raw arguments of the first core's call
        finally:
            ACTIVE.pop()
        assert len(made) == expected_new  # T2 is another chip: its own invocation (and plan)
        assert other.memory[:8] == bytes([1] * 8) and len(other.invocations) == 1
    assert BINDS == [(0, 8), (0, 8), (0, 8)]
