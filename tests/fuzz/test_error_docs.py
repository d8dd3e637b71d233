"""docs/errors.md cannot drift: every error class has its section, every example message is real.

Each ``<!-- example: NAME -->`` block of the document must be exactly the message that the
call ``EXAMPLES[NAME]`` below produces today.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pkgutil
import re
import warnings
from pathlib import Path

import pytest

import npusim
from npusim import ascend as asc
from npusim import cli, errors
from npusim.errors import ConstraintError, UninitializedReadWarning

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"
VECIN = asc.TPosition.VECIN


def doc_examples() -> list[tuple[str, str]]:
    return re.findall(r"<!-- example: (\w+) -->\n```text\n(.*?)\n```", DOC.read_text(), flags=re.S)


def raised(call) -> str:
    with pytest.raises((ConstraintError, TypeError)) as caught:
        call()
    return str(caught.value)


def on_a2(call, strict: bool = False):
    def run():
        with asc.Core("A2", strict=strict) as core:
            core.ub_write(0, bytes(0x3000))
            call()
    return run


def tensor(addr: int, size: int, dtype=asc.float16) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, VECIN, addr, size)


def deque_on_an_empty_queue():
    pipe, que = asc.TPipe(), asc.TQue(VECIN, 1)
    pipe.init_buffer(que, 1, 256)
    que.deque(asc.float16)


def tensor_of_another_core():
    foreign = asc.LocalTensor(asc.float16, VECIN, 0, 128, core=asc.Core("A2"))
    asc.abs(foreign, foreign, 128)


def uninitialized_warning() -> str:
    with asc.Core("A2"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UninitializedReadWarning)
        asc.abs(tensor(0x1000, 128), tensor(0, 128), 128)
    return str(caught[0].message)


#: a kernel file whose data_copy is on line 41 and whose add is on line 47, as in the documented message
_RACY_ADD = "\n" * 40 + "asc.data_copy(x_local, x_gm, 128)\n" + "\n" * 5 + "asc.add(z_local, x_local, x_local, 128)\n"


def sync_race() -> None:
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(asc.gm_alloc(asc.float16, 128, uninit="ignore"))
    with asc.Core("A2", sync="raise"):
        names = {"asc": asc, "x_gm": x_gm, "x_local": tensor(0, 128), "z_local": tensor(0x100, 128)}
        exec(compile(_RACY_ADD, "add.py", "exec"), names)


def sync_wait() -> None:
    with asc.Core("A2", sync="raise"):
        exec(compile("\n" * 11 + "asc.wait_flag(asc.HardEvent.V_MTE3, 2)\n", "kernel.py", "exec"), {"asc": asc})


def case_error(tmp_path: Path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("case.json").write_text("")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(["golden", "case.json", "-o", "out"]) == 2
    return err.getvalue().strip()


EXAMPLES = {
    "alignment": lambda: raised(on_a2(lambda: asc.add(tensor(0x1000, 256), tensor(0x44, 256), tensor(0x2000, 256),
                                                      256))),
    "out_of_bounds": lambda: raised(on_a2(lambda: asc.add(tensor(0x1000, 128), tensor(0x2000, 256),
                                                          tensor(0x2800, 256), 256))),
    "parameter_range": lambda: raised(on_a2(lambda: asc.add(tensor(0x1000, 256), tensor(0x2000, 256),
                                                            tensor(0x2800, 256), 128, 256, asc.BinaryRepeatParams()))),
    "unsupported": lambda: raised(on_a2(lambda: asc.select(
        tensor(0, 256, asc.int8), tensor(0x1000, 32, asc.uint8), tensor(0x2000, 256, asc.int8),
        tensor(0x2800, 256, asc.int8), asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 256))),
    "overlap": lambda: raised(on_a2(lambda: asc.abs(tensor(0x20, 64, asc.float32), tensor(0, 64, asc.float32), 64,
                                                    1, asc.UnaryRepeatParams()))),
    "runtime_misuse": lambda: raised(on_a2(deque_on_an_empty_queue)),
    "no_active_core": lambda: raised(asc.set_mask_norm),
    "wrong_core": lambda: raised(on_a2(tensor_of_another_core)),
    "uninitialized_warning": uninitialized_warning,
    "uninitialized_error": lambda: raised(lambda: _strict_read()),
    "sync_race": lambda: raised(sync_race),
    "sync_wait": lambda: raised(sync_wait),
    "type_error": lambda: raised(on_a2(lambda: asc.add(5, tensor(0, 128), tensor(0x100, 128), 128))),
    "mask_high_word_warning": lambda: mask_high_word_warning(),
    "deprecated_api_warning": lambda: deprecated_api_warning(),
}


def deprecated_api_warning() -> str:
    with asc.Core("950"), pytest.warns(errors.DeprecatedApiWarning) as caught:
        asc.asc_set_gm2ub_pad(0)
    return str(caught[0].message)


def mask_high_word_warning() -> str:
    with asc.Core("A2", tolerance="hardware") as core:
        core.ub_write(0, bytes(0x300))
        with pytest.warns(errors.MaskHighWordWarning) as caught:
            asc.add(tensor(0x200, 64, asc.int32), tensor(0, 64, asc.int32), tensor(0x100, 64, asc.int32),
                    [2**64 - 1, 2**64 - 1], 1, asc.BinaryRepeatParams())
    return str(caught[0].message)


def _strict_read():
    with asc.Core("A2", strict=True):
        asc.abs(tensor(0x1000, 128), tensor(0, 128), 128)


@pytest.mark.parametrize(("name", "message"), doc_examples(), ids=[name for name, _ in doc_examples()])
def test_documented_example_is_the_message_the_code_produces(name, message, tmp_path, monkeypatch):
    produced = case_error(tmp_path, monkeypatch) if name == "case_error" else EXAMPLES[name]()
    assert produced == message


def test_every_example_the_test_knows_is_in_the_document():
    assert set(EXAMPLES) | {"case_error"} == {name for name, _ in doc_examples()}


def all_error_classes() -> set[type]:
    """Every ConstraintError subclass defined anywhere in npusim, and the classes of npusim.errors."""
    for module in pkgutil.walk_packages(npusim.__path__, "npusim."):
        importlib.import_module(module.name)
    found, todo = set(), [ConstraintError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(cls.__subclasses__())
    return found | {getattr(errors, name) for name in errors.__all__}


def test_every_error_class_has_a_section():
    headings = set(re.findall(r"^## (.+)$", DOC.read_text(), flags=re.M))
    documented = {word for heading in headings for word in re.findall(r"\w+", heading)}
    missing = sorted(cls.__name__ for cls in all_error_classes() if cls.__name__ not in documented)
    assert not missing, f"docs/errors.md has no section for {missing}"
