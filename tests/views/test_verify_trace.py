"""npusim verify --trace: a planted wrong byte is mapped to the instruction and lane that wrote it."""

import numpy as np

from npusim import ascend as asc
from npusim.cli import main
from npusim.engine.trace import AccessRecord, ByteRange, CoreTrace
from npusim.views.chrome import write_trace
from npusim.views.provenance import provenance

from .helpers import waits_on

KERNEL = '''
import numpy as np
from npusim import ascend as asc

@asc.jit
def kernel(x: asc.GlobalAddress) -> None:
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
    asc.duplicate(a, float(asc.get_block_idx()), 256)
    asc.adds(c, a, 1.0, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.muls(c, c, 2.0, 64, 2, asc.UnaryRepeatParams(1, 1, 8, 8))

def save(core):
    if core.block_idx == 1:
        open("out.bin", "wb").write(core.ub_read(1024, 512))

kernel.launch(2, (np.zeros(4, np.float16),), chip="A2", after_block=save)
'''


def test_a_planted_wrong_byte_in_a_ub_dump_names_the_instruction_repeat_datablock_and_lane(tmp_path, monkeypatch,
                                                                                             capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.py").write_text(KERNEL)
    assert main(["run", "--trace", "t.json", "kernel.py"]) == 0
    good = (tmp_path / "out.bin").read_bytes()
    # block 1: c = (1 + 1) * 2 = 4 where muls ran (lanes 0-63 of each repeat), 2 elsewhere
    expected = np.full(256, 2, np.float16)
    expected[0:64] = expected[128:192] = 4
    assert good == expected.tobytes()
    bad = bytearray(good)
    bad[2 * 200 + 1] ^= 0x01  # element 200 = repeat 1, lane 72 of adds (muls covers lanes 0-63 only)
    bad[2 * 130] ^= 0x80  # element 130 = repeat 1, lane 2 of muls, DataBlock 0
    (tmp_path / "bad.bin").write_bytes(bad)
    (tmp_path / "good.bin").write_bytes(good)
    capsys.readouterr()
    status = main(["verify", "bad.bin", "good.bin", "--dtype", "float16", "--trace", "t.json", "--ub", "0x400",
                   "--block", "1"])
    out = capsys.readouterr().out
    assert status == 1
    lines = out.splitlines()
    assert lines[1].startswith("  index 130:")
    assert lines[2] == ("      last written by muls (seq 2, block 1, kernel.py:11) at UB byte 0x504: "
                        "dst repeat 1, DataBlock 0, lane 2")
    assert lines[3].startswith("  index 200:")
    assert lines[4] == ("      last written by adds (seq 1, block 1, kernel.py:10) at UB byte 0x591: "
                        "dst repeat 1, DataBlock 4, lane 72")


def _rec(seq, name, pipe, reads, writes, params=None):
    return AccessRecord(seq, name, "ascend", pipe, tuple(reads), tuple(writes), (), (), f"k.py:{10 + seq}",
                        params or {}, 0)


ADDS = {"dst": "LocalTensor(float16, VECOUT, addr=0x400, tile_size=256)",
        "src": "LocalTensor(float16, VECIN, addr=0x0, tile_size=256)", "scalar": 1.0, "count": 256}


def test_a_gm_byte_is_followed_back_through_the_copy_to_the_lane_that_computed_it(tmp_path, capsys):
    records = [
        _rec(0, "adds", "V", [ByteRange("UB", 0, 512)], [ByteRange("UB", 0x400, 0x600)], ADDS),
        _rec(1, "data_copy", "MTE3", [ByteRange("UB", 0x400, 0x600)], [ByteRange("GM", 64, 576, "y")]),
    ]
    cores = [CoreTrace("ascend", "A2", 0, records)]
    steps = provenance(cores, "GM", 64 + 2 * 130, "y")
    assert [(s.record.instruction, s.space, s.byte) for s in steps] == [("data_copy", "GM", 324),
                                                                          ("adds", "UB", 0x400 + 260)]
    assert (steps[1].operand, steps[1].repeat, steps[1].data_block, steps[1].lane) == ("dst", 1, 0, 2)
    write_trace(tmp_path / "t.json", cores)
    golden = bytes(576)
    out = bytearray(golden)
    out[64 + 2 * 130] = 1
    (tmp_path / "o.bin").write_bytes(out)
    (tmp_path / "g.bin").write_bytes(golden)
    assert main(["verify", str(tmp_path / "o.bin"), str(tmp_path / "g.bin"), "--dtype", "float16", "--trace",
                 str(tmp_path / "t.json")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:4] == [
        "      last written by data_copy (seq 1, block 0, k.py:11) at GM:y byte 0x144",
        "      copied from, which was last written by adds (seq 0, block 0, k.py:10) at UB byte 0x504: "
        "dst repeat 1, DataBlock 0, lane 2"]


def test_a_byte_nothing_wrote_says_so_and_an_ambiguous_dump_asks_for_its_buffer(tmp_path, capsys):
    cores = [CoreTrace("ascend", "A2", 0, [_rec(0, "adds", "V", [], [ByteRange("UB", 0x400, 0x600)], ADDS)])]
    write_trace(tmp_path / "t.json", cores)
    (tmp_path / "o.bin").write_bytes(b"\x01\x00")
    (tmp_path / "g.bin").write_bytes(b"\x00\x00")
    args = [str(tmp_path / "o.bin"), str(tmp_path / "g.bin"), "--dtype", "float16", "--trace", str(tmp_path / "t.json")]
    assert main(["verify", *args]) == 2
    assert "writes 0 GM buffers" in capsys.readouterr().err
    assert main(["verify", *args, "--ub", "0"]) == 1
    assert "not written by any traced instruction" in capsys.readouterr().out


@waits_on("data_copy", "data movement (data_copy)")
def test_a_kernel_writing_gm_maps_a_wrong_output_byte_to_its_vector_instruction():
    @asc.jit
    def kernel(y: asc.GlobalAddress) -> None:
        out = asc.GlobalTensor()
        out.set_global_buffer(y, 256)
        c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 256)
        asc.duplicate(c, 3.0, 256)
        asc.data_copy(out, c, 256)

    y = np.zeros(256, np.float16)
    launch = kernel.launch(1, (y,), chip="A2", trace=True)
    (buffer,) = {r.buffer for c in launch.trace for rec in c.records for r in rec.writes if r.space == "GM"}
    steps = provenance(launch.trace, "GM", 2 * 200, buffer)
    assert [s.record.instruction for s in steps] == ["data_copy", "duplicate"]
    assert (steps[1].repeat, steps[1].data_block, steps[1].lane) == (1, 4, 72)


def test_verify_without_a_trace_is_unchanged(tmp_path, capsys):
    (tmp_path / "o.bin").write_bytes(b"\x01\x00")
    (tmp_path / "g.bin").write_bytes(b"\x00\x00")
    assert main(["verify", str(tmp_path / "o.bin"), str(tmp_path / "g.bin"), "--dtype", "float16"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].startswith("  index 0: expected ") and lines[1].endswith("(0x0001)")
