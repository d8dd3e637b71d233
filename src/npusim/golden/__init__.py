"""Golden data for one instruction call described in JSON (``npusim golden CASE.json -o DIR``).

A *case* names an instruction and gives its operands; running it writes the vendor
samples' layout (docs/golden.md): raw little-endian dumps, C order, no header::

    DIR/input/<tensor>.bin      every initialised operand, before the call
    DIR/output/golden.bin       the (first) output after the call
    DIR/output/golden_<name>.bin  any further outputs
    DIR/manifest.json           instruction, chip, and per file: dtype, shape, sha256

Instructions register themselves in :data:`INSTRUCTIONS` (one table for every vendor);
the schema is documented in ``docs/golden.md``.  Vendor drivers live in submodules
(:mod:`.ascend`, :mod:`.sophgo`) and are imported on first use.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConstraintError

__all__ = ["INSTRUCTIONS", "CaseError", "GoldenInstruction", "GoldenResult", "Dump", "load_case", "register",
           "run_case", "write_result"]

VENDOR_MODULES = ("ascend", "sophgo")  # submodules that register instructions


class CaseError(ValueError):
    """The case file is malformed; the message names the JSON path at fault."""


@dataclass(frozen=True)
class Dump:
    """One array written to a ``.bin`` file."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    data: bytes


@dataclass
class GoldenResult:
    """What running a case produced."""

    instruction: str
    chip: str
    inputs: list[Dump] = field(default_factory=list)
    outputs: list[Dump] = field(default_factory=list)


@dataclass(frozen=True)
class GoldenInstruction:
    """One registered instruction.

    Attributes:
        name: the ``"instruction"`` value of a case (the Python API name).
        vendor: ``"ascend"`` or ``"sophgo"``.
        run: computes a case: ``run(case_dict) -> GoldenResult``.
        summary: one line for listings.
    """

    name: str
    vendor: str
    run: Callable[[dict], GoldenResult]
    summary: str = ""


INSTRUCTIONS: dict[str, GoldenInstruction] = {}


def register(entry: GoldenInstruction) -> GoldenInstruction:
    """Add an instruction to :data:`INSTRUCTIONS`; a second entry of the same name is an error."""
    if entry.name in INSTRUCTIONS:
        raise KeyError(f"golden instruction {entry.name!r} is already registered")
    INSTRUCTIONS[entry.name] = entry
    return entry


def _load_vendors() -> None:
    for module in VENDOR_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def load_case(path: str | Path) -> dict:
    """Read a case file (JSON object)."""
    try:
        case = json.loads(Path(path).read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CaseError(f"{path}: not valid JSON ({err})") from None
    except RecursionError:
        raise CaseError(f"{path}: not valid JSON (nested too deeply)") from None
    if not isinstance(case, dict):
        raise CaseError(f"{path}: a case is a JSON object")
    return case


def run_case(case: dict) -> GoldenResult:
    """Run one case with the instruction's registered driver."""
    _load_vendors()
    name = case.get("instruction")
    if not isinstance(name, str) or name not in INSTRUCTIONS:
        known = ", ".join(sorted(INSTRUCTIONS))
        raise CaseError(f"instruction: unknown instruction {name!r}; registered: {known}")
    try:
        return INSTRUCTIONS[name].run(case)
    except (CaseError, ConstraintError):
        raise
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        # a value of the wrong JSON type or range that the driver or the instruction could not use
        raise CaseError(f"{name}: the case does not describe a valid call ({type(err).__name__}: {err})") from err


OWNED = ("input", "output", "manifest.json")  # what write_result creates in its directory


def write_result(result: GoldenResult, out_dir: str | Path, force: bool = False) -> list[Path]:
    """Write inputs, outputs and the manifest under ``out_dir``; return the files written.

    A directory that already holds an earlier output (any of ``input/``, ``output/``,
    ``manifest.json``) is refused, so no stale file of another case can sit next to the new
    ones; with ``force`` the files the earlier ``manifest.json`` lists are removed first.
    Other files in the directory are never touched.

    Raises:
        FileExistsError: an earlier output is there and ``force`` is false, or ``input/`` or
            ``output/`` hold a file the earlier manifest does not list (then nothing is removed).
    """
    root = Path(out_dir)
    _clear_earlier_output(root, force)
    (root / "input").mkdir(parents=True, exist_ok=True)
    (root / "output").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    manifest = {"instruction": result.instruction, "chip": result.chip, "inputs": [], "outputs": []}
    for dump in result.inputs:
        written.append(_dump(root, f"input/{dump.name}.bin", dump, manifest["inputs"]))
    for i, dump in enumerate(result.outputs):
        filename = "output/golden.bin" if i == 0 else f"output/golden_{dump.name}.bin"
        written.append(_dump(root, filename, dump, manifest["outputs"]))
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    written.append(root / "manifest.json")
    return written


def _clear_earlier_output(root: Path, force: bool) -> None:
    """Make ``root`` ready for a new output: see :func:`write_result`."""
    present = [name for name in OWNED if (root / name).exists()]
    if not present:
        return
    if not force:
        raise FileExistsError(f"{root} already holds golden output ({', '.join(present)}); pass --force to "
                              "replace it, or choose another directory")
    found = {path.relative_to(root).as_posix() for folder in ("input", "output") if (root / folder).is_dir()
             for path in (root / folder).rglob("*") if not path.is_dir()}
    stray = sorted(found - _manifest_files(root / "manifest.json"))
    if stray:
        raise FileExistsError(f"{root}: {stray[0]} was not written by npusim golden (manifest.json does not list "
                              "it); --force replaces only npusim's own files: move it away first")
    for relative in sorted(found):
        (root / relative).unlink()
    (root / "manifest.json").unlink(missing_ok=True)


def _manifest_files(manifest: Path) -> set[str]:
    """The files an earlier ``manifest.json`` lists (none if it is missing or not a manifest)."""
    try:
        entries = json.loads(manifest.read_bytes())
        return {entry["file"] for key in ("inputs", "outputs") for entry in entries[key]
                if isinstance(entry["file"], str)}
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return set()


def _dump(root: Path, relative: str, dump: Dump, entries: list) -> Path:
    path = root / relative
    path.write_bytes(dump.data)
    entries.append({"name": dump.name, "file": relative, "dtype": dump.dtype, "shape": list(dump.shape),
                    "sha256": hashlib.sha256(dump.data).hexdigest()})
    return path


def as_dump(name: str, array: np.ndarray, dtype_name: str) -> Dump:
    """A dump of ``array`` as raw little-endian bytes."""
    return Dump(name, dtype_name, tuple(array.shape), np.ascontiguousarray(array).tobytes())
