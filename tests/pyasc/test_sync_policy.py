"""The pyasc entry points run the pipe sync checker: "warn" by default, --npusim-sync / NPUSIM_SYNC choose.

The kernel is written after pyasc's tutorial 01_add (raw LocalTensors at fixed UB addresses,
double-buffered tiles ordered by hand with set_flag / wait_flag), not copied from it: it
subtracts, on four blocks of 512 halves, in tiles of 64.  With every wait in place the
checker finds nothing; without the MTE2 -> V wait the subtraction reads what the copy-in is
still writing, and the SyncError names both calls and their lines.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNEL = textwrap.dedent('''
    import numpy as np
    import asc
    import asc.lib.runtime as rt
    import asc.runtime.config as config

    BLOCKS, TILES, SLOTS = 4, 8, 2

    @asc.jit
    def vsub_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, out: asc.GlobalAddress, per_block: int):
        a_gm, b_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        start = asc.get_block_idx() * per_block
        a_gm.set_global_buffer(a + start, per_block)
        b_gm.set_global_buffer(b + start, per_block)
        out_gm.set_global_buffer(out + start, per_block)
        tile = per_block // TILES
        slot_bytes = tile * SLOTS * a.dtype.sizeof()
        a_ub = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 0, tile * SLOTS)
        b_ub = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, slot_bytes, tile * SLOTS)
        out_ub = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 2 * slot_bytes, tile * SLOTS)
        for t in range(TILES):
            slot = t % SLOTS
            here = slot * tile
            asc.data_copy(a_ub[here:], a_gm[t * tile:], tile)  # COPY_IN
            asc.data_copy(b_ub[here:], b_gm[t * tile:], tile)
            asc.set_flag(asc.HardEvent.MTE2_V, slot)
            asc.wait_flag(asc.HardEvent.MTE2_V, slot)  # WAIT_MTE2_V
            asc.sub(out_ub[here:], a_ub[here:], b_ub[here:], tile)  # COMPUTE
            asc.set_flag(asc.HardEvent.V_MTE3, slot)
            asc.wait_flag(asc.HardEvent.V_MTE3, slot)
            asc.data_copy(out_gm[t * tile:], out_ub[here:], tile)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, slot)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, slot)

    config.set_platform(config.Backend.Model)
    a = np.arange(BLOCKS * 512, dtype=np.float16) / np.float16(8)
    b = np.full_like(a, 0.5)
    out = np.zeros_like(a)
    vsub_kernel[BLOCKS, rt.current_stream()](a, b, out, 512)
    assert out.tobytes() == (a - b).tobytes()
    print("vsub OK")
''')


def line_of(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


def write_kernel(directory: Path, racy: bool) -> tuple[Path, str]:
    text = KERNEL
    if racy:  # the one edit: the MTE2 -> V wait removed
        text = "\n".join(line for line in text.splitlines() if "WAIT_MTE2_V" not in line) + "\n"
    path = directory / ("vsub_racy.py" if racy else "vsub.py")
    path.write_text(text)
    return path, text


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for name in ("NPUSIM_SYNC", "NPUSIM_PYASC_POLICY"):
        base.pop(name, None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env={**base, **(env or {})}, timeout=300)


def test_the_tutorial_style_kernel_is_clean_under_sync_raise(tmp_path):
    path, _ = write_kernel(tmp_path, racy=False)
    done = run("-m", "npusim.pyasc", path.name, cwd=tmp_path, env={"NPUSIM_SYNC": "raise"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "vsub OK" and "SyncWarning" not in done.stderr


def test_without_one_wait_flag_python_m_npusim_pyasc_names_both_calls_and_lines(tmp_path):
    path, text = write_kernel(tmp_path, racy=True)
    done = run("-m", "npusim.pyasc", path.name, cwd=tmp_path, env={"NPUSIM_SYNC": "raise"})
    assert done.returncode != 0
    copy_in, compute = line_of(text, "COPY_IN"), line_of(text, "COMPUTE")
    assert "SyncError" in done.stderr, done.stderr
    assert (f"missing set_flag/wait_flag(MTE2_V) between data_copy at {path.name}:{copy_in} and "
            f"sub at {path.name}:{compute}") in done.stderr, done.stderr


def test_python_m_npusim_pyasc_warns_by_default_and_nothing_with_sync_off(tmp_path):
    path, _ = write_kernel(tmp_path, racy=True)
    warned = run("-m", "npusim.pyasc", path.name, cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr  # in program order the bytes are right: only the checker sees it
    assert "SyncWarning" in warned.stderr and "MTE2_V" in warned.stderr, warned.stderr
    quiet = run("-m", "npusim.pyasc", path.name, cwd=tmp_path, env={"NPUSIM_SYNC": "off"})
    assert quiet.returncode == 0 and "SyncWarning" not in quiet.stderr, quiet.stderr


def test_an_unknown_npusim_sync_value_is_a_usage_error(tmp_path):
    path, _ = write_kernel(tmp_path, racy=False)
    done = run("-m", "npusim.pyasc", path.name, cwd=tmp_path, env={"NPUSIM_SYNC": "loud"})
    assert done.returncode == 2 and "NPUSIM_SYNC" in done.stderr and "'loud'" in done.stderr, done.stderr


TEST_FILE = textwrap.dedent('''
    import runpy
    from pathlib import Path

    def test_vsub():
        runpy.run_path(str(Path(__file__).with_name("{kernel}")))
''')


@pytest.mark.parametrize(("options", "env", "outcome"), [
    ((), {}, "warn"),
    (("--npusim-sync=raise",), {}, "raise"),
    ((), {"NPUSIM_SYNC": "raise"}, "raise"),
    (("--npusim-sync=off",), {"NPUSIM_SYNC": "raise"}, "off"),  # the option wins over the variable
])
def test_the_pytest_plugin_chooses_the_sync_policy(tmp_path, options, env, outcome):
    path, _ = write_kernel(tmp_path, racy=True)
    (tmp_path / "test_vsub.py").write_text(TEST_FILE.format(kernel=path.name))
    done = run("-m", "pytest", "-p", "npusim.pyasc", "-p", "no:cacheprovider", "-q", "-rw", *options,
               "test_vsub.py", cwd=tmp_path, env=env)
    output = done.stdout + done.stderr
    if outcome == "raise":
        assert "1 failed" in output and "SyncError" in output, output
    else:
        assert "1 passed" in output, output
        assert ("SyncWarning" in output) == (outcome == "warn"), output
