"""The golden-case registry and schema details not covered through the command line."""

from __future__ import annotations

import warnings

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


def test_a_vector_operand_from_a_later_start_lane_is_one_value_per_lane_at_its_own_offset():
    """docs/semantics.md §8.2: a VECTOR is one value per lane at the vector's address; channel c reads lane
    (s + c) % NPU_NUM.  With start lane 5 the vector's values for channels 59-63 lie in lanes 0-4 at the
    same offset (the golden driver wrote them one channel stride further, and the call read never-written
    bytes).  Expected values from that rule, in numpy."""
    lane_bytes, npu, start = 262144, 64, 5
    channels, hw = 70, 2
    vector = [float(k) - 32.0 for k in range(npu)]  # value k for channel k (k < 64)
    src0 = np.arange(channels * hw, dtype=np.float32).reshape(1, channels, 1, hw) / 4.0 - 8.0

    def at(offset):
        return hex(start * lane_bytes + offset)

    case = {"instruction": "tpu_bdc_greater_select", "chip": "BM1684X", "shape": [1, channels, 1, hw],
            "dtypes": {"src0_src1_dtype": "DT_FP32", "dst_dtype": "DT_FP32"},
            "operands": {"dst_addr": {"addr": at(0x8000)},
                         "src0": {"kind": "TENSOR", "addr": at(0), "init": {"values": src0.reshape(-1).tolist()}},
                         "src1": {"kind": "VECTOR", "addr": at(0x1000), "init": {"values": vector}},
                         "src2": {"kind": "SCALAR", "scalar": {"f32": 1.0}},
                         "src3": {"kind": "SCALAR", "scalar": {"f32": -1.0}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no never-written byte is read
        result = run_case(case)
    per_channel = np.array([vector[c % npu] for c in range(channels)], np.float32).reshape(1, channels, 1, 1)
    want = np.where(src0 > per_channel, np.float32(1.0), np.float32(-1.0)).astype(np.float32)
    (out,) = result.outputs
    assert out.data == want.tobytes()
