"""The golden registrations of issue 5: Ascend compare / compare_scalar / C API / TransDataTo5HD,
and the Sophgo schema (selects, tpu_bdc_set_C, GDMA copies).

In-process checks compare each output with numpy computed from the inputs the case wrote
(IEEE compares, ref §3.1 LSB-first bit packing, ref §4.4 NC1HWC0, plain copies); the command
line round trip (golden -> verify) runs as subprocesses.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from npusim import golden
from npusim.golden import CaseError, run_case

from .ascend import reference_model as ref
from .test_cli import npusim, write_case


def outputs(result) -> dict[str, np.ndarray]:
    return {d.name: np.frombuffer(d.data, np.dtype(d.dtype) if d.dtype != "bfloat16" else np.uint16)
            for d in result.outputs}


def inputs(result) -> dict[str, np.ndarray]:
    return {d.name: np.frombuffer(d.data, d.dtype).reshape(d.shape) for d in result.inputs}


def test_every_issue_5_instruction_is_registered():
    golden._load_vendors()
    ascend = {"compare", "compare_scalar", "trans_data_to_5hd"} | {
        f"asc_{m}{s}" for m in ("eq", "ne", "lt", "le", "gt", "ge") for s in ("", "_scalar")}
    sophgo = {f"tpu_bdc_{n}_select" for n in ("greater", "less", "equal", "maximum_greater", "minimum_less")} | {
        "tpu_bdc_set_C", "tpu_gdma_cpy_S2L", "tpu_gdma_cpy_L2S"}
    assert ascend <= {n for n, e in golden.INSTRUCTIONS.items() if e.vendor == "ascend"}
    assert sophgo == {n for n, e in golden.INSTRUCTIONS.items() if e.vendor == "sophgo"}


# ------------------------------------------------------------------------------ Ascend

SPECIALS = ["nan", "-0.0", 0, "inf", "-inf", 1e-7, -1, 2.5]


def test_compare_count_form_packs_ieee_results_lsb_first():
    case = {"instruction": "compare", "tensors": {
        "dst": {"dtype": "uint8", "size": 32, "init": {"fill": 0}},
        "src0": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 2, "low": -3, "high": 3},
                                                           "values": SPECIALS}},
        "src1": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 5, "low": -3, "high": 3},
                                                           "values": [0, 0, "-0.0", "nan", "-inf", 0, -1, 2.5]}},
    }, "args": {"cmp_mode": "LE", "count": 256}}
    result = run_case(case)
    a, b = inputs(result)["src0"], inputs(result)["src1"]
    expected = np.packbits(a <= b, bitorder="little")
    assert outputs(result)["dst"].tobytes() == expected.tobytes()


def test_compare_register_form_writes_cmpmask():
    case = {"instruction": "compare", "tensors": {
        "src0": {"dtype": "float32", "size": 64, "init": {"random": {"seed": 1}}},
        "src1": {"dtype": "float32", "size": 64, "init": {"random": {"seed": 9}}},
    }, "args": {"cmp_mode": "GT", "mask": 64, "repeat_params": {}}}
    result = run_case(case)
    a, b = inputs(result)["src0"], inputs(result)["src1"]
    assert [d.name for d in result.outputs] == ["cmpmask"]
    assert outputs(result)["cmpmask"][:8].tobytes() == np.packbits(a > b, bitorder="little").tobytes()


def test_compare_scalar_and_c_api_scalar_agree_with_numpy():
    src = {"dtype": "float32", "size": 128, "init": {"random": {"seed": 4, "low": -2, "high": 2},
                                                     "values": SPECIALS}}
    cases = [
        {"instruction": "compare_scalar", "tensors": {"dst": {"dtype": "uint8", "size": 16}, "src0": src},
         "args": {"src1_scalar": 0.5, "cmp_mode": "GE", "count": 128}},
        {"instruction": "asc_ge_scalar", "tensors": {"dst": {"dtype": "uint8", "size": 16}, "src": src},
         "args": {"value": 0.5, "repeat": 2, "dst_block_stride": 1, "src_block_stride": 1,
                  "dst_repeat_stride": 8, "src_repeat_stride": 8}},
    ]
    for case in cases:
        result = run_case(case)
        x = next(iter(inputs(result).values()))
        assert outputs(result)["dst"].tobytes() == np.packbits(x >= np.float32(0.5), bitorder="little").tobytes()


def test_c_api_register_form_writes_cmpmask():
    case = {"instruction": "asc_ne", "tensors": {
        "src0": {"dtype": "float16", "size": 128, "init": {"values": SPECIALS, "fill": 1}},
        "src1": {"dtype": "float16", "size": 128, "init": {"fill": 0}},
    }, "args": {"repeat": 1, "dst_block_stride": 1, "src0_block_stride": 1, "src1_block_stride": 1,
                "dst_repeat_stride": 8, "src0_repeat_stride": 8, "src1_repeat_stride": 8}}
    result = run_case(case)
    x = inputs(result)["src0"]
    assert outputs(result)["cmpmask"].tobytes() == np.packbits(x != 0, bitorder="little").tobytes()


def test_trans_data_to_5hd_takes_element_offsets_into_its_tensors():
    """One channel group of ref §4.4: 16 channel planes of 16x16 half -> (H, W, C0)."""
    case = {"instruction": "trans_data_to_5hd", "tensors": {
        "src": {"dtype": "float16", "size": 4096, "init": {"random": {"seed": 3}}},
        "dst": {"dtype": "float16", "size": 4096, "init": {"fill": 0}},
    }, "args": {"dst_list": [16 * i for i in range(16)], "src_list": [256 * i for i in range(16)],
                "params": {"repeat_times": 16, "dst_rep_stride": 16, "src_rep_stride": 1}}}
    result = run_case(case)
    x = inputs(result)["src"].reshape(16, 16, 16)
    assert outputs(result)["dst"].tobytes() == x.transpose(1, 2, 0).tobytes()
    with pytest.raises(CaseError, match="args.dst_list"):
        run_case({**case, "args": {**case["args"], "dst_list": [0.5] * 16}})


# ------------------------------------------------------------------------------ Sophgo

SELECT = {
    "instruction": "tpu_bdc_greater_select", "chip": "BM1684X", "shape": [2, 100, 2, 3],
    "dtypes": {"src0_src1_dtype": "DT_INT16", "dst_dtype": "DT_INT32"},
    "operands": {
        "dst_addr": {"addr": "0x20000"},
        "src0": {"kind": "TENSOR", "addr": 0, "init": {"random": {"seed": 1, "low": -5, "high": 5}}},
        "src1": {"kind": "VECTOR", "addr": "0x8000", "init": {"random": {"seed": 2, "low": -5, "high": 5}}},
        "src2": {"kind": "TENSOR", "addr": "0x10000", "init": {"random": {"seed": 3}}},
        "src3": {"kind": "SCALAR", "scalar": {"s32": -7}},
    },
}


def test_select_case_with_a_vector_operand_and_c_above_npu_num():
    result = run_case(SELECT)
    given = inputs(result)
    assert given["src1"].shape == (1, 64, 1, 1)  # one value per lane
    vector = given["src1"][0, np.arange(100) % 64, 0, 0].reshape(1, 100, 1, 1)  # channel c reads lane c % 64
    expected = np.where(given["src0"] > vector, given["src2"], np.int32(-7))
    assert outputs(result)["dst"].tobytes() == expected.astype(np.int32).tobytes()


def test_minimum_less_select_dumps_both_outputs():
    case = {"instruction": "tpu_bdc_minimum_less_select", "shape": [1, 3, 1, 4],
            "dtypes": {"dst0_dtype": "DT_INT8", "dst1_dtype": "DT_UINT8"},
            "operands": {"dst0_addr": {"addr": 0}, "dst1_addr": {"addr": 64},
                         "src0": {"addr": 128, "init": {"values": [5, -3, 0, 7], "fill": 1}},
                         "src1": {"kind": "SCALAR", "scalar": {"s8": 1}},
                         "src2": {"kind": "SCALAR", "scalar": {"u8": 200}},
                         "src3": {"kind": "SCALAR", "scalar": {"u8": 100}}}}
    result = run_case(case)
    got = outputs(result)
    assert [d.name for d in result.outputs] == ["dst0", "dst1"]
    x = inputs(result)["src0"].ravel()
    assert got["dst0"].view(np.int8).tolist() == np.minimum(x, 1).tolist()
    assert got["dst1"].tolist() == np.where(x < 1, 200, 100).tolist()


def test_gdma_cases_copy_through_explicit_strides():
    s2l = {"instruction": "tpu_gdma_cpy_S2L", "chip": "BM1688", "shape": [2, 40, 2, 3],
           "dtypes": {"dtype": "DT_BFP16"}, "global_mem_bytes": 1 << 20,
           "operands": {"dst_addr": {"addr": "0x40", "stride": [200, 8, 3, 1]},
                        "src_addr": {"addr": 64, "stride": [500, 12, 4, 1], "init": {"random": {"seed": 6}}}}}
    result = run_case(s2l)
    assert outputs(result)["dst"].tobytes() == inputs(result)["src"].tobytes()
    l2s = {"instruction": "tpu_gdma_cpy_L2S", "shape": [1, 70, 1, 5], "dtypes": {"dtype": 9},
           "operands": {"dst_addr": {"addr": 4096}, "src_addr": {"addr": 0, "init": {"random": {"seed": 8}}}}}
    result = run_case(l2s)
    assert outputs(result)["dst"].tobytes() == inputs(result)["src"].tobytes()


def test_set_c_case_writes_the_low_bits_of_its_scalar():
    case = {"instruction": "tpu_bdc_set_C", "shape": [1, 65, 1, 2], "dtypes": {"dtype": "DT_FP16"},
            "operands": {"dst_addr": {"addr": 0}, "C": {"scalar": {"u32": "0xdead3c00"}}}}
    assert set(outputs(run_case(case))["dst"].view(np.uint16).tolist()) == {0x3C00}


@pytest.mark.parametrize(("patch", "where"), [
    ({"shape": [1, 2, 3]}, "shape"),
    ({"dtypes": {"dst_dtype": "DT_FP32"}}, "dtypes"),
    ({"dtypes": {"src0_src1_dtype": "DT_FP99", "dst_dtype": "DT_FP32"}}, "dtypes.src0_src1_dtype"),
    ({"operands": {k: v for k, v in SELECT["operands"].items() if k != "src3"}}, "operands"),
    ({"operands": {**SELECT["operands"], "dst_addr": {"addr": -4}}}, "operands.dst_addr.addr"),
    ({"operands": {**SELECT["operands"], "dst_addr": {"kind": "VECTOR", "addr": 0}}}, "operands.dst_addr.kind"),
    ({"operands": {**SELECT["operands"], "src3": {"kind": "SCALAR", "scalar": {"f64": 1}}}}, "operands.src3.scalar"),
    ({"operands": {**SELECT["operands"], "src0": {"addr": 0, "stride": [1, 1, 1, 1]}}}, "operands.src0.stride"),
    ({"bogus": 1}, "unknown keys"),
])  # fmt: skip
def test_malformed_sophgo_cases_name_the_json_path(patch, where):
    with pytest.raises(CaseError, match=where.replace("[", r"\[")):
        run_case({**SELECT, **patch})


# ------------------------------------------------------------------------------ command line


def test_cli_round_trip_of_an_ascend_compare_case(tmp_path):
    case = {"instruction": "asc_ne_scalar", "tensors": {
        "dst": {"dtype": "uint8", "size": 32},
        "src": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 1, "low": -1, "high": 1},
                                                          "values": ["nan", 0, "-0.0", 1e-6]}},
    }, "args": {"value": 0, "repeat": 2, "dst_block_stride": 1, "src_block_stride": 1, "dst_repeat_stride": 8,
                "src_repeat_stride": 8}}
    out = tmp_path / "g"
    assert npusim("golden", str(write_case(tmp_path, case)), "-o", str(out)).returncode == 0
    x = np.fromfile(out / "input" / "src.bin", np.float16)
    mine = tmp_path / "mine.bin"
    np.packbits(x != 0, bitorder="little").tofile(mine)  # NaN != 0 is true, -0 == 0 (IEEE)
    verdict = npusim("verify", str(mine), str(out / "output" / "golden.bin"), "--dtype", "uint8")
    assert verdict.returncode == 0 and "byte-identical" in verdict.stdout


def test_cli_round_trip_of_a_sophgo_select_case(tmp_path):
    out = tmp_path / "g"
    run = npusim("golden", str(write_case(tmp_path, SELECT)), "-o", str(out))
    assert run.returncode == 0, run.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chip"] == "BM1684X" and manifest["outputs"][0]["shape"] == [2, 100, 2, 3]
    a = np.fromfile(out / "input" / "src0.bin", np.int16).reshape(2, 100, 2, 3)
    v = np.fromfile(out / "input" / "src1.bin", np.int16)[np.arange(100) % 64].reshape(1, 100, 1, 1)
    c = np.fromfile(out / "input" / "src2.bin", np.int32).reshape(2, 100, 2, 3)
    mine = tmp_path / "mine.bin"
    np.where(a > v, c, -7).astype(np.int32).tofile(mine)
    verdict = npusim("verify", str(mine), str(out / "output" / "golden.bin"), "--dtype", "int32",
                     "--shape", "2,100,2,3")
    assert verdict.returncode == 0, verdict.stdout
    rejected = {**SELECT, "operands": {**SELECT["operands"], "dst_addr": {"addr": 8}}}
    result = npusim("golden", str(write_case(tmp_path, rejected)), "-o", str(tmp_path / "x"))
    assert result.returncode == 1 and "64-byte (EU) aligned" in result.stderr


def _docs_add(result) -> bytes:
    """docs/golden.md's add (A2, half, mask 128, 2 repeats): every lane, saturating (SetCtrlSpr(ISASI).md)."""
    a, b = (inputs(result)[name].view(np.uint16).tolist() for name in ("src0", "src1"))
    lanes = zip(a, b, strict=True)
    return b"".join(ref.result_bits("add", "float16", x, y, True).to_bytes(2, "little") for x, y in lanes)


def _docs_trans_data_to_5hd(result) -> bytes:
    """One channel group of ref §4.4: 16 planes of 256 halves -> 256 positions x 16 channels."""
    return inputs(result)["src"].reshape(16, 256).T.tobytes()


def _docs_greater_select(result) -> bytes:
    """dst = src0 > src1 ? src2 : src3, src1 one value per lane (channel c reads lane c % 64)."""
    given = inputs(result)
    vector = given["src1"][0, np.arange(100) % 64, 0, 0].reshape(1, 100, 1, 1)
    return np.where(given["src0"] > vector, given["src2"], np.int32(-7)).astype(np.int32).tobytes()


DOCS_EXPECTED = {"add": _docs_add, "trans_data_to_5hd": _docs_trans_data_to_5hd,
                 "tpu_bdc_greater_select": _docs_greater_select}


def test_the_json_examples_in_docs_golden_md_run_and_give_the_right_bytes():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "golden.md").read_text()
    cases = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    assert sorted(case["instruction"] for case in cases) == sorted(DOCS_EXPECTED)
    for case in cases:
        result = run_case(case)
        assert len(result.outputs) == 1
        assert result.outputs[0].data == DOCS_EXPECTED[case["instruction"]](result), case["instruction"]
