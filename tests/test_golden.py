"""The golden-case registry and schema details not covered through the command line."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import golden
from npusim.engine.registry import instructions
from npusim.golden import CaseError, GoldenInstruction, register, run_case


def test_registry_rejects_duplicates_and_lists_instructions():
    golden._load_vendors()
    expected = {"select", "add", "sub", "mul", "max", "min", "abs", "adds", "muls", "duplicate"}
    assert expected <= golden.INSTRUCTIONS.keys()
    with pytest.raises(KeyError, match="already registered"):
        register(GoldenInstruction("add", "ascend", lambda case: None))


def test_every_registered_ascend_instruction_that_writes_memory_has_golden_cases():
    """Golden data enumerates the instruction registry: nothing to add by hand for a new instruction."""
    golden._load_vendors()
    from npusim.golden.ascend import NO_GOLDEN_FAMILIES

    registered = {e.name for e in instructions("ascend") if e.family not in NO_GOLDEN_FAMILIES}
    assert registered == {n for n, e in golden.INSTRUCTIONS.items() if e.vendor == "ascend"}
    assert {"set_vector_mask", "get_cmp_mask", "set_saturation_flag"} <= {e.name for e in instructions("ascend")
                                                                       if e.family in NO_GOLDEN_FAMILIES}
    sophgo = {n for n, e in golden.INSTRUCTIONS.items() if e.vendor == "sophgo"}
    assert {e.name for e in instructions("sophgo")} == sophgo


def test_the_outputs_are_the_tensors_the_access_record_says_were_written():
    case = {"instruction": "adds", "chip": "A2",
            "tensors": {"src": {"dtype": "int16", "size": 32, "init": {"fill": 3}},
                        "dst": {"dtype": "int16", "size": 32, "init": {"fill": 0}}},
            "args": {"scalar": 2, "count": 32}}
    result = run_case(case)
    assert [d.name for d in result.outputs] == ["dst"]
    assert result.outputs[0].data == (5).to_bytes(2, "little") * 32
    in_place = {**case, "tensors": {"src": case["tensors"]["src"]}, "args": {**case["args"], "dst": {"tensor": "src"}}}
    assert [d.name for d in run_case(in_place).outputs] == ["src"]


def test_scalar_operands_registers_and_bits():
    case = {
        "instruction": "muls",
        "chip": "310P",
        "tensors": {
            "dst": {"dtype": "float16", "size": 16, "init": {"fill": 0}},
            "src": {"dtype": "float16", "size": 16, "init": {"bits": [0x7BFF, 0x3C00, 0x8001]}},
        },
        "args": {"scalar": 2, "count": 16},
    }
    result = run_case(case)
    out = np.frombuffer(result.outputs[0].data, np.uint16)
    assert out[:3].tolist() == [0x7C00, 0x4000, 0x8002]  # 310P: IEEE overflow to inf, subnormal doubles exactly


def test_no_mask_select_reads_registers_from_the_case():
    case = {
        "instruction": "select",
        "tensors": {
            "dst": {"dtype": "float32", "size": 64, "init": {"fill": 0}},
            "src0": {"dtype": "float32", "size": 64, "init": {"fill": 1}},
            "src1": {"dtype": "float32", "size": 64, "init": {"fill": 2}},
        },
        "registers": {"cmpmask": "05" + "00" * 15, "vector_mask": [0, 4]},
        "args": {"repeat_times": 1, "repeat_params": {}, "sel_mode": 0},
    }
    out = np.frombuffer(run_case(case).outputs[0].data, np.float32)
    assert out[:4].tolist() == [0.0, 0.0, 1.0, 0.0]  # only lane 2 active; CMPMASK bit 2 set -> src0


@pytest.mark.parametrize("bad, where", [
    ({"tensors": {}}, "tensors"),
    ({"tensors": {"dst": {"dtype": "int16", "size": 4, "init": {"values": [70000]}}}}, "tensors.dst.init.values[0]"),
    ({"tensors": {"dst": {"dtype": "int16", "size": 4, "init": {"fill": "lots"}}}}, "tensors.dst.init.fill"),
    ({"tensors": {"dst": {"dtype": "int16", "size": 4}}, "args": {"repeat_params": {"x": 1}}}, "args.repeat_params"),
    ({"tensors": {"dst": {"dtype": "int16", "size": 4}}, "oops": 1}, "unknown keys"),
])
def test_malformed_cases_name_the_json_path(bad, where):
    with pytest.raises(CaseError, match=where.replace("[", r"\[").replace("]", r"\]")):
        run_case({"instruction": "abs", **bad})
