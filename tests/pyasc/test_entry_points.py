"""The three entry points, as a user runs them: npusim run, python -m npusim.pyasc, pytest -p npusim.pyasc."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from npusim.pyasc import script

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    import asc
    import asc.lib.runtime as rt
    import asc.runtime.config as config

    @asc.jit
    def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, factor, n: asc.ConstExpr[int]):
        x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
        z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, n * x.dtype.sizeof())
        t = que.alloc_tensor(x.dtype)
        asc.data_copy(t, x_gm, n)
        asc.muls(t, t, factor, n)
        asc.data_copy(z_gm, t, n)
        que.free_tensor(t)

    config.set_platform(config.Backend.Model, config.Platform.Ascend910B4)
    x = np.arange(64, dtype=np.float16)
    z = np.zeros_like(x)
    scale[4, rt.current_stream()](x, z, 0.5, 16)
    assert z.tobytes() == (x * np.float16(0.5)).tobytes()
    print("OK", rt.get_soc_version().value, *sys.argv[1:])
''')

CONFTEST = textwrap.dedent('''
    import pytest
    from asc.runtime import config

    def pytest_addoption(parser):  # the options pyasc's own kernels/conftest.py adds
        parser.addoption("--backend", default=config.Backend.Model)
        parser.addoption("--platform", default=config.Platform.Ascend910B1)

    @pytest.fixture
    def backend(request):
        return request.config.getoption("--backend")
''')

TESTS = textwrap.dedent('''
    import numpy as np
    import asc
    import asc.runtime.config as config

    @asc.jit
    def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        z_gm.set_global_buffer(z)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
        asc.data_copy(t, x_gm, n)
        asc.data_copy(z_gm, t, n)

    def test_inside_the_tensor(backend):
        config.set_platform(backend)
        x = np.arange(8, dtype=np.int32)
        z = np.zeros_like(x)
        copy[1](x, z, 8)
        assert (z == x).all()

    def test_past_the_tensor_end(backend):
        config.set_platform(backend)
        x = np.arange(4, dtype=np.int32)
        z = np.zeros_like(x)
        copy[1](x, z, 8)
        assert (z == x).all()
''')


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("NPUSIM_PYASC_POLICY", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_npusim_run_and_python_m_npusim_pyasc_run_a_pyasc_script_with_its_arguments(tmp_path):
    (tmp_path / "scale.py").write_text(SCRIPT)
    for command in (["-m", "npusim.cli", "run", "scale.py", "--", "-r", "Model"],
                    ["-m", "npusim.pyasc", "scale.py", "-r", "Model"]):
        done = run(*command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "OK Ascend910B4 -r Model"


def test_the_pytest_plugin_keeps_the_conftest_options_and_applies_the_policy(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_kernels.py").write_text(TESTS)

    def pytest_with_plugin(*options: str) -> str:
        done = run("-m", "pytest", "-p", "npusim.pyasc", "-p", "no:cacheprovider", "-q", *options, cwd=tmp_path)
        return done.stdout + done.stderr

    hardware = pytest_with_plugin("--backend", "Model")
    assert "2 passed" in hardware and "GmPastEndWarning" in hardware, hardware
    strict = pytest_with_plugin("--npusim-policy=strict")
    assert "1 failed, 1 passed" in strict and "OutOfBoundsError" in strict, strict
    if importlib.util.find_spec("xdist") is not None:  # the plugin also loads in xdist's workers
        spread = pytest_with_plugin("-n", "2")
        assert "2 passed" in spread, spread


def test_without_the_plugin_asc_is_not_npusim(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_kernels.py").write_text(TESTS)
    done = run("-m", "pytest", "-p", "no:cacheprovider", "-q", cwd=tmp_path)
    assert done.returncode != 0 and "No module named 'asc'" in done.stdout + done.stderr


@pytest.mark.parametrize(("argv", "status"), [([], 2), (["--help"], 0)])
def test_python_m_npusim_pyasc_without_a_script_prints_usage(capsys, argv, status):
    assert script.main(argv) == status
    assert "usage: python -m npusim.pyasc SCRIPT" in capsys.readouterr().out
