"""The import hook: active only when started, ahead of a real pyasc, with pyasc's module names."""

from __future__ import annotations

import importlib
import sys

import pytest

from npusim import ascend, pyasc
from npusim.errors import UnsupportedError


def test_import_asc_fails_without_the_hook(tmp_path, monkeypatch):
    pyasc.deactivate()
    monkeypatch.syspath_prepend(str(tmp_path))  # an empty directory: no pyasc anywhere
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("asc")


def test_the_hook_wins_over_a_real_pyasc_on_sys_path_and_leaves_it_when_removed(tmp_path, monkeypatch):
    fake = tmp_path / "asc"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL_PYASC = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    pyasc.deactivate()
    assert importlib.import_module("asc").REAL_PYASC
    pyasc.activate()
    try:
        module = importlib.import_module("asc")
        assert not hasattr(module, "REAL_PYASC")
        assert module.add is ascend.add
    finally:
        pyasc.deactivate()
    assert importlib.import_module("asc").REAL_PYASC
    del sys.modules["asc"]


def test_the_modules_tests_and_tutorials_import_have_pyasc_names(asc):
    import asc.language.core.dtype as dtype_module
    import asc.lib.runtime as rt
    import asc.runtime.config as config

    assert asc.__name__ == "asc" and asc.language.__name__ == "asc.language"
    assert config.Backend("Model") is config.Backend.Model
    assert rt.current_stream() == rt.current_stream()
    assert dtype_module.KnownTypes.int32 is asc.int32 is ascend.int32
    assert asc.DataType("float16") is asc.half
    assert asc.adv.__name__ == "asc.language.adv"
    assert asc.GlobalTensor is ascend.GlobalTensor and asc.TQue is ascend.TQue


def test_a_module_pyasc_has_and_npusim_does_not_is_a_clear_import_error(asc):
    with pytest.raises(ModuleNotFoundError, match="npusim's pyasc stand-in has no such module"):
        importlib.import_module("asc.codegen")


@pytest.mark.parametrize("path", ["asc.mmad", "asc.fixpipe", "asc.load_data", "asc.language.adv.Matmul",
                                  "asc.lib.host.MultiCoreMatmulTiling"])
def test_an_unmodelled_pyasc_api_raises_unsupported_error_naming_it_when_called(asc, path):
    module, _, name = path.rpartition(".")
    target = getattr(importlib.import_module(module), name)
    with pytest.raises(UnsupportedError) as caught:
        target(1, 2)
    assert caught.value.instruction == path
    assert "not model" in caught.value.rule
    with pytest.raises(UnsupportedError):
        target.ND  # noqa: B018 - an enum member of an unmodelled class: same error, not AttributeError


def test_a_name_pyasc_does_not_have_is_an_attribute_error(asc):
    with pytest.raises(AttributeError):
        asc.no_such_api  # noqa: B018
