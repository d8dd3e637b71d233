#!/usr/bin/env python3
"""A mutation pass over ``src/npusim``: change the product code one small step at a time and see whether a test
notices (issue 11 §4: "a change to product code that no test notices is a missing test").

A *mutant* is the source with one change of one of these kinds:

==========  ==========================================================================================
cmp         a comparison's boundary moved (``<`` <-> ``<=``, ``>`` <-> ``>=``), flipped (``<`` -> ``>``),
            or negated (``==`` <-> ``!=``, ``in`` <-> ``not in``, ``is`` <-> ``is not``)
binop       an arithmetic or bit operator replaced (``+`` <-> ``-``, ``*`` -> ``//``, ``<<`` <-> ``>>``,
            ``&`` <-> ``|``, ``^`` -> ``|`` ...), in an expression or an augmented assignment
const       an integer constant +1 or -1, ``True`` <-> ``False``
boolop      ``and`` <-> ``or``
not         a ``not`` dropped
cond        the condition of an ``if``, ``while`` or conditional expression negated
minmax      ``min`` <-> ``max``, ``any`` <-> ``all``
raise       a ``raise`` statement replaced by ``pass`` (a check that no longer rejects)
return      a ``return`` statement replaced by ``pass`` (an early exit that falls through)
call        a call statement replaced by ``pass`` (a check or a side effect dropped)
arg         one keyword argument, or the last positional argument, dropped from a call
==========  ==========================================================================================

Docstrings, f-strings, annotations and ``__all__`` are left alone; a change that leaves the syntax tree
as it was is not a mutant.  Each mutant is written into a private copy of the repository
(``tools/_cache/mutation/``, git-ignored; the work tree is never touched) and the tests that run the
mutated lines are run against it, fastest first, with ``-x`` and a timeout.  It is *killed* when a test
fails (or the copy no longer imports), *timeout* when the tests exceed three times their normal time
(counted as detected), *survived* when every test that reaches the line still passes.

Which tests run which line comes from one run of the whole suite under coverage.py with one context
per test (the ``map`` step; coverage is the tool's only extra need and is not a project dependency).
A line that no test runs inside its own context (module-level tables, code run in threads or in
subprocesses) is tested with every test that runs any line of its module, and a module of import-time
lines only (a package's ``__init__``) with every test that runs a module of its package.

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python -m pip install coverage              # once, into .venv only
    .venv/bin/python tools/mutation_pass.py map           # ~8 min: which tests run which line
    .venv/bin/python tools/mutation_pass.py run --jobs 1  # sample mutants, test them, record results
    .venv/bin/python tools/mutation_pass.py report        # kill rate per module, survivors listed
    .venv/bin/python tools/mutation_pass.py show ID       # the diff of one mutant
    .venv/bin/python tools/mutation_pass.py retest        # survivors again, against the tests as they are now

``run`` samples each module's candidates (``--fraction``, at least ``--min-per-module``, at most
``--max-per-module``; the instruction, constraint and layout modules of ``PRIORITY`` twice the
fraction), deterministically from ``--seed``, spreading the sample over the kinds of change.  It is
resumable: results go to ``tools/_cache/mutation/results.jsonl`` and a mutant already there is skipped.
``retest`` runs each recorded survivor again with the tests that reached it plus every test file that
changed since the map (new tests live there), and records the new outcome under ``retest``.

The same module is the pytest plugin of those runs (``-p mutation_pass``): it turns the hypothesis
example database off and derandomises (every mutant sees the same examples), records per-test
contexts and durations in the ``map`` run, and keeps only the selected tests, in the given order,
in a mutant's run.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path("src/npusim")
CACHE = ROOT / "tools" / "_cache" / "mutation"
MAP_FILE = CACHE / "map.json"
RESULTS = CACHE / "results.jsonl"
COPIED = ("src", "tests", "docs", "examples", "README.md", "pyproject.toml")

# Modules whose rules a kernel author relies on most: instruction semantics, constraint checks, layouts.
PRIORITY = (
    "ascend/addressing.py", "ascend/masking.py", "ascend/footprint.py", "ascend/operands.py",
    "ascend/ops/", "ascend/chips.py", "ascend/core.py", "ascend/tensor.py",
    "sophgo/layout.py", "sophgo/placement.py", "sophgo/ops/", "sophgo/chips.py", "sophgo/types.py",
    "rounding.py", "validate.py", "memory.py", "dtypes.py",
)

# Survivors judged equivalent (no observable change), by id, with the reason; ``report`` counts them apart
# and leaves them out of the rate (docs/mutation.md).
EQUIVALENT = {
    "ascend/addressing.py:128:19:const:1": "an lru_cache size: only how many lane tables are kept",
    "ascend/addressing.py:65:1:arg:1": "an lru_cache size: only how many offset tables are kept",
    "ascend/addressing.py:145:11:arg:1": "np.arange's default integer already holds repeats * lanes <= 255 * 128",
    "ascend/addressing.py:92:7:cmp:1": "at length 64 both branches give (FULL_WORD, 0)",
    "ascend/c_api.py:120:8:call:1": "the plan cache is a speed-up: an uncached call makes the same plan again",
    "ascend/c_api.py:211:16:call:1": "the shortcut cache is a speed-up: without it the checked path runs",
    "ascend/c_api.py:250:11:cmp:1": "no shortcut is stored under a None key, so the checked path runs",
    "ascend/ops/arith.py:58:44:const:1": "astype(copy=True) returns equal bytes in a new array",
    "ascend/ops/arith.py:67:28:cmp:1": "integer min: equal signed values have equal bits, so a and b agree",
    "ascend/ops/arith.py:68:4:raise:1": "unreachable: the operation names are fixed by the callers' tables",
    "ascend/ops/arith.py:89:16:raise:1": "unreachable: the operation names are fixed by the callers' tables",
    "ascend/ops/compare.py:260:107:const:1": "zip(strict=) of form.names and the values bound to them: equal lengths",
    "ascend/ops/compare.py:609:36:boolop:1": "widening before a compare is exact: the same order, only speed differs",
    "ascend/ops/data_copy.py:206:7:boolop:1": "a key with a None part is never stored: such calls fail in planning",
}

# Environment variables between the driver and the plugin.
MAP_ENV = "NPUSIM_MUTATION_MAP"          # map run: the directory for the coverage data and durations
SELECT_ENV = "NPUSIM_MUTATION_SELECT"    # mutant run: a JSON file with the node ids to run, in order


# --------------------------------------------------------------------------------------------------
# Mutants
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mutant:
    """One change: the byte span ``[start, end)`` of module ``module`` replaced by ``text``."""

    id: str
    module: str          # path under src/npusim, e.g. "ascend/ops/select.py"
    kind: str
    line: int
    end_line: int
    start: int
    end: int
    text: str
    description: str

    def apply(self, source: bytes) -> bytes:
        return source[:self.start] + self.text.encode() + source[self.end:]


_CMP_VARIANTS = {
    ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.Gt), ast.Gt: (ast.GtE, ast.Lt), ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,),
}
_BINOP_VARIANTS = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr,
}
_SWAPPED_NAMES = {"min": "max", "max": "min", "any": "all", "all": "any"}
_SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
    ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
    ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.And: "and", ast.Or: "or",
}


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))


class _Sites(ast.NodeVisitor):
    """Collects (node, kind, replacement node or text, description) for every mutable place of a module."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.AST, str, ast.AST | str, str]] = []

    # Places never mutated -------------------------------------------------------------------------
    def visit_JoinedStr(self, node):  # f-string positions are not reliable before Python 3.12
        return

    def _body(self, body: list[ast.stmt]) -> None:
        start = 1 if body and isinstance(body[0], ast.Expr) and _is_text(body[0].value) else 0  # docstring
        for stmt in body[start:]:
            self.visit(stmt)

    def visit_Module(self, node):
        self._body(node.body)

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.visit(node.args)
        self._body(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        for item in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(item)
        self._body(node.body)

    def visit_arguments(self, node):
        for default in [*node.defaults, *(d for d in node.kw_defaults if d is not None)]:
            self.visit(default)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node):
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self.generic_visit(node)

    def visit_If(self, node):
        test = node.test
        if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
            return
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__":
            return
        self._negate(test, "if")
        self.generic_visit(node)

    # Mutations ------------------------------------------------------------------------------------
    def _add(self, node, kind, replacement, description):
        self.found.append((node, kind, replacement, description))

    def _negate(self, test, where):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return  # the `not` kind already drops it
        self._add(test, "cond", ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(test)), f"{where} condition negated")

    def visit_While(self, node):
        self._negate(node.test, "while")
        self.generic_visit(node)

    def visit_IfExp(self, node):
        self._negate(node.test, "conditional expression")
        self.generic_visit(node)

    def visit_Compare(self, node):
        if not any(_is_text(part) for part in [node.left, *node.comparators]) or all(
                isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
            for i, op in enumerate(node.ops):
                for variant in _CMP_VARIANTS.get(type(op), ()):
                    mutated = copy.deepcopy(node)
                    mutated.ops[i] = variant()
                    self._add(node, "cmp", mutated, f"{_SYMBOL[type(op)]} -> {_SYMBOL[variant]}")
        self.generic_visit(node)

    def visit_BinOp(self, node):
        variant = _BINOP_VARIANTS.get(type(node.op))
        if variant and not _is_text(node.left) and not _is_text(node.right):
            mutated = copy.deepcopy(node)
            mutated.op = variant()
            self._add(node, "binop", mutated, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[variant]}")
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name) and node.target.id == "__all__":
            return
        variant = _BINOP_VARIANTS.get(type(node.op))
        if variant and not _is_text(node.value):
            mutated = copy.deepcopy(node)
            mutated.op = variant()
            self._add(node, "binop", mutated, f"{_SYMBOL[type(node.op)]}= -> {_SYMBOL[variant]}=")
        self.generic_visit(node)

    def visit_BoolOp(self, node):
        mutated = copy.deepcopy(node)
        mutated.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self._add(node, "boolop", mutated, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[type(mutated.op)]}")
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            self._add(node, "not", copy.deepcopy(node.operand), "not dropped")
        self.generic_visit(node)

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, bool):
            self._add(node, "const", ast.Constant(not value), f"{value} -> {not value}")
        elif isinstance(value, int):
            for delta in (1, -1):
                self._add(node, "const", ast.Constant(value + delta), f"{value} -> {value + delta}")

    def visit_Raise(self, node):
        self._add(node, "raise", "pass", "raise removed")
        self.generic_visit(node)

    def visit_Return(self, node):
        self._add(node, "return", "pass", "return removed")
        self.generic_visit(node)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call):
            self._add(node, "call", "pass", f"call {ast.unparse(node.value.func)}(...) removed")
        self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in _SWAPPED_NAMES:
            mutated = copy.deepcopy(node)
            mutated.func.id = _SWAPPED_NAMES[node.func.id]
            self._add(node, "minmax", mutated, f"{node.func.id} -> {mutated.func.id}")
        name = ast.unparse(node.func)
        for i, keyword in enumerate(node.keywords):
            if keyword.arg is not None:
                mutated = copy.deepcopy(node)
                del mutated.keywords[i]
                self._add(node, "arg", mutated, f"{name}(..., {keyword.arg}=...) dropped")
        if node.args and not isinstance(node.args[-1], ast.Starred):
            mutated = copy.deepcopy(node)
            del mutated.args[-1]
            self._add(node, "arg", mutated, f"{name}(...) last positional argument dropped")
        self.generic_visit(node)


def _offsets(source: bytes) -> list[int]:
    """Byte offset of the start of each line (1-based lines; ast columns are UTF-8 byte offsets)."""
    starts, total = [0, 0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def mutants_of(module: str, source: bytes) -> list[Mutant]:
    """Every mutant of one module, in source order; changes that leave the syntax tree equal are dropped."""
    tree = ast.parse(source)
    original = ast.dump(tree)
    sites = _Sites()
    sites.visit(tree)
    line_start = _offsets(source)
    found, seen = [], Counter()
    for node, kind, replacement, description in sites.found:
        start = line_start[node.lineno] + node.col_offset
        end = line_start[node.end_lineno] + node.end_col_offset
        if isinstance(replacement, str):
            text = replacement
        else:
            text = ast.unparse(replacement)
            if isinstance(node, ast.expr):
                text = f"({text})"
        mutant_source = source[:start] + text.encode() + source[end:]
        try:
            if ast.dump(ast.parse(mutant_source)) == original:
                continue
        except SyntaxError:
            continue
        key = f"{module}:{node.lineno}:{node.col_offset}:{kind}"
        seen[key] += 1
        found.append(Mutant(f"{key}:{seen[key]}", module, kind, node.lineno, node.end_lineno, start, end, text,
                            description))
    return found


def all_modules() -> list[str]:
    return sorted(str(p.relative_to(ROOT / PACKAGE)) for p in (ROOT / PACKAGE).rglob("*.py"))


def is_priority(module: str) -> bool:
    return any(module == p or (p.endswith("/") and module.startswith(p)) for p in PRIORITY)


def sample(mutants: list[Mutant], quota: int, seed: str) -> list[Mutant]:
    """``quota`` mutants spread over the kinds of change (round robin over kinds, random within a kind)."""
    rng = random.Random(seed)
    by_kind: dict[str, list[Mutant]] = defaultdict(list)
    for mutant in mutants:
        by_kind[mutant.kind].append(mutant)
    for group in by_kind.values():
        rng.shuffle(group)
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    chosen: list[Mutant] = []
    while len(chosen) < quota and any(by_kind.values()):
        for kind in kinds:
            if by_kind[kind] and len(chosen) < quota:
                chosen.append(by_kind[kind].pop())
    return sorted(chosen, key=lambda m: (m.line, m.start, m.id))


# --------------------------------------------------------------------------------------------------
# The private copy of the repository and the test map
# --------------------------------------------------------------------------------------------------

def workspace(index: int) -> Path:
    return CACHE / f"repo-{index}"


def make_workspace(index: int, parts: tuple[str, ...] = COPIED) -> Path:
    repo = workspace(index)
    repo.mkdir(parents=True, exist_ok=True)
    for part in parts:
        source, target = ROOT / part, repo / part
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        elif source.exists():
            shutil.copy2(source, target)
    return repo


def subprocess_env(repo: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPUSIM_MUTATION", "PYTEST_ADDOPTS"))}
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), str(ROOT / "tools")])
    env.update(extra)
    return env


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_files() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): file_digest(p) for p in sorted((ROOT / "tests").rglob("*.py"))}


def command_map(args) -> int:
    repo = make_workspace(0)
    out = CACHE / "map-run"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    started = time.monotonic()
    status = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "mutation_pass", "-p", "no:cacheprovider",
                             "-p", "no:randomly"], cwd=repo, env=subprocess_env(repo, **{MAP_ENV: str(out)})).returncode
    if status != 0:
        print(f"the suite does not pass under the map run (exit {status}); fix that first", file=sys.stderr)
        return 1
    import coverage

    data = coverage.CoverageData(basename=str(out / "coverage.data"))
    data.read()
    durations = json.loads((out / "durations.json").read_text())
    tests = sorted(durations)
    index = {nodeid: i for i, nodeid in enumerate(tests)}
    package = (repo / PACKAGE).resolve()
    lines: dict[str, dict[str, list[int]]] = {}
    for measured in data.measured_files():
        path = Path(measured).resolve()
        if package not in path.parents:
            continue
        per_line = {}
        for line, contexts in data.contexts_by_lineno(measured).items():
            per_line[str(line)] = sorted({index[c] for c in contexts if c in index})
        lines[str(path.relative_to(package))] = per_line
    MAP_FILE.write_text(json.dumps({"tests": tests, "durations": [durations[t] for t in tests], "lines": lines,
                                    "test_files": test_files(), "seconds": time.monotonic() - started}))
    print(f"map: {len(tests)} tests, {len(lines)} modules, {time.monotonic() - started:.0f} s -> {MAP_FILE}")
    return 0


# --------------------------------------------------------------------------------------------------
# Running one mutant
# --------------------------------------------------------------------------------------------------

class TestMap:
    def __init__(self) -> None:
        data = json.loads(MAP_FILE.read_text())
        self.tests: list[str] = data["tests"]
        self.durations: list[float] = data["durations"]
        self.lines: dict[str, dict[str, list[int]]] = data["lines"]
        self.test_files: dict[str, str] = data["test_files"]

    def module_tests(self, module: str) -> set[int]:
        return {t for tests in self.lines.get(module, {}).values() for t in tests}

    def selection(self, mutant: Mutant, extra_files: tuple[str, ...] = ()) -> tuple[list[str], str]:
        """Node ids to run for ``mutant``, fastest first, and how they were chosen."""
        per_line = self.lines.get(mutant.module, {})
        chosen = {t for line in range(mutant.line, mutant.end_line + 1) for t in per_line.get(str(line), ())}
        how = "line"
        if not chosen:
            chosen, how = self.module_tests(mutant.module), "module"
        if not chosen:  # only import-time lines (a package's __init__, tables): the tests of its package
            package = str(Path(mutant.module).parent)
            chosen, how = {t for m in self.lines if str(Path(m).parent) == package
                           for t in self.module_tests(m)}, "package"
        nodeids = [self.tests[t] for t in sorted(chosen, key=lambda t: (self.durations[t], self.tests[t]))]
        nodeids += list(extra_files)  # whole files, also where some of their tests were selected by line
        return nodeids, how

    def budget(self, nodeids: list[str]) -> float:
        known = dict(zip(self.tests, self.durations, strict=True))
        return 60 + 3 * sum(known.get(n, 10.0) for n in nodeids)


def run_mutant(mutant: Mutant, repo: Path, tests: TestMap, extra_files: tuple[str, ...] = ()) -> dict:
    target = repo / PACKAGE / mutant.module
    original = (ROOT / PACKAGE / mutant.module).read_bytes()
    nodeids, how = tests.selection(mutant, extra_files)
    result = {**asdict(mutant), "selected": how, "tests": len(nodeids)}
    if not nodeids:
        return {**result, "status": "survived", "why": "no test runs this module", "seconds": 0.0}
    select = repo / "selection.json"
    select.write_text(json.dumps(nodeids))
    files = sorted({n.split("::")[0] for n in nodeids})
    for pyc in (target.parent / "__pycache__").glob(target.stem + ".*.pyc"):
        pyc.unlink()
    target.write_bytes(mutant.apply(original))
    started = time.monotonic()
    timeout = tests.budget(nodeids)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "mutation_pass", "-p", "no:cacheprovider",
             "-p", "no:randomly", "--tb=line", *files],
            cwd=repo, capture_output=True, text=True, timeout=timeout,
            env=subprocess_env(repo, **{SELECT_ENV: str(select), "PYTHONDONTWRITEBYTECODE": "1"}))
        status = {0: "survived", 1: "killed", 2: "killed"}.get(done.returncode, f"error-{done.returncode}")
        tail = [line for line in done.stdout.splitlines() if line.strip()][-4:]
        if done.returncode == 4 and "ImportError while loading conftest" in done.stderr:
            status = "killed"  # pytest's usage-error code: conftest.py could not import the mutated package
            tail = ["the copy no longer imports:"] + [line for line in done.stderr.splitlines() if line.strip()][-1:]
        why = " | ".join(tail)[-600:]
    except subprocess.TimeoutExpired:
        status, why = "timeout", f"over {timeout:.0f} s"
    finally:
        target.write_bytes(original)
    return {**result, "status": status, "why": why, "seconds": round(time.monotonic() - started, 1)}


def read_results() -> dict[str, dict]:
    results = {}
    if RESULTS.exists():
        for line in RESULTS.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                results[record["id"]] = {**results.get(record["id"], {}), **record}
    return results


def chosen_mutants(args) -> list[Mutant]:
    chosen = []
    for module in all_modules():
        if args.modules and not any(module.startswith(m) for m in args.modules):
            continue
        mutants = mutants_of(module, (ROOT / PACKAGE / module).read_bytes())
        fraction = args.fraction * (2 if is_priority(module) else 1)
        quota = min(len(mutants), max(args.min_per_module, min(args.max_per_module, round(fraction * len(mutants)))))
        chosen += sample(mutants, quota, f"{args.seed}:{module}")
    return chosen


def run_all(jobs: list[tuple[Mutant, tuple[str, ...]]], workers: int, tests: TestMap, label: str) -> None:
    repos = [make_workspace(i) for i in range(workers)]
    free = list(repos)
    lock = threading.Lock()
    counts: Counter[str] = Counter()
    started = time.monotonic()

    def one(job):
        mutant, extra = job
        with lock:
            repo = free.pop()
        try:
            record = run_mutant(mutant, repo, tests, extra)
        finally:
            with lock:
                free.append(repo)
        with lock:
            if label == "retest":
                record = {"id": mutant.id, "retest": record["status"], "retest_why": record["why"],
                          "retest_seconds": record["seconds"]}
            with RESULTS.open("a") as out:
                out.write(json.dumps(record) + "\n")
            status = record.get("retest", record.get("status"))
            counts[status] += 1
            done = sum(counts.values())
            print(f"[{done}/{len(jobs)} {time.monotonic() - started:6.0f}s] {status:9s} {mutant.id} "
                  f"({mutant.description})", flush=True)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, jobs))
    print(dict(counts))


def command_run(args) -> int:
    done = read_results()
    mutants = [m for m in chosen_mutants(args) if m.id not in done]
    print(f"{len(mutants)} mutants to run ({len(done)} already recorded)")
    if args.dry_run:
        for kind, n in sorted(Counter(m.kind for m in mutants).items()):
            print(f"  {kind:8s} {n}")
        for module, n in sorted(Counter(m.module for m in mutants).items()):
            print(f"  {module:40s} {n}")
        return 0
    run_all([(m, ()) for m in mutants], args.jobs, TestMap(), "run")
    return 0


def current_mutants() -> dict[str, Mutant]:
    """Every mutant of the source as it is now, by id (a survivor's id is stable while its module is)."""
    return {m.id: m for module in all_modules() for m in mutants_of(module, (ROOT / PACKAGE / module).read_bytes())}


def command_retest(args) -> int:
    tests = TestMap()
    changed = tuple(sorted(f for f, digest in test_files().items()
                           if tests.test_files.get(f) != digest and Path(f).name.startswith("test_")))
    print("test files changed since the map:", ", ".join(changed) or "none")
    mutants = current_mutants()
    results = read_results()
    jobs = []
    for mid, record in results.items():
        if record["status"] == "survived" and (args.ids == [] or mid in args.ids):
            if mid not in mutants or mutants[mid].text != record["text"]:
                print(f"skipped {mid}: its module changed, the mutant no longer exists as recorded")
                continue
            jobs.append((mutants[mid], changed))
    run_all(jobs, args.jobs, tests, "retest")
    return 0


def command_report(args) -> int:
    results = read_results()
    rows: dict[str, Counter] = defaultdict(Counter)
    for record in results.values():
        final = record.get("retest", record["status"])
        equivalent = final == "survived" and record["id"] in EQUIVALENT
        for key in (record["module"], "TOTAL"):
            rows[key]["tried"] += 1
            rows[key]["before"] += record["status"] in ("killed", "timeout")
            rows[key]["after"] += final in ("killed", "timeout")
            rows[key]["timeout"] += final == "timeout"
            rows[key]["equivalent"] += equivalent
    print(f"{'module':40s} {'tried':>5s} {'killed':>6s} {'rate':>6s} {'after':>6s} {'equiv':>5s} {'rate':>6s}")
    for module in sorted(rows, key=lambda m: (m == "TOTAL", m)):
        row = rows[module]
        print(f"{module:40s} {row['tried']:5d} {row['before']:6d} {row['before'] / row['tried']:6.1%} "
              f"{row['after']:6d} {row['equivalent']:5d} {row['after'] / (row['tried'] - row['equivalent']):6.1%}")
    print("rate after: killed or timed out among the mutants not judged equivalent (EQUIVALENT)")
    if args.survivors:
        for record in sorted(results.values(), key=lambda r: r["id"]):
            if record.get("retest", record["status"]) not in ("killed", "timeout"):
                note = f"  equivalent: {EQUIVALENT[record['id']]}" if record["id"] in EQUIVALENT else ""
                print(f"{record['id']:55s} {record['description']}  [{record['selected']}, {record['tests']} tests]"
                      f"{note}")
    return 0


def command_show(args) -> int:
    mutants = current_mutants()
    for mid in args.ids:
        mutant = mutants[mid]
        source = (ROOT / PACKAGE / mutant.module).read_bytes()
        before = source.decode().splitlines(keepends=True)
        after = mutant.apply(source).decode().splitlines(keepends=True)
        print(f"# {mid}: {mutant.description}")
        sys.stdout.writelines(difflib.unified_diff(before, after, f"a/{mutant.module}", f"b/{mutant.module}", n=2))
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("map")
    run = sub.add_parser("run")
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--seed", default="11")
    run.add_argument("--fraction", type=float, default=0.04)
    run.add_argument("--min-per-module", type=int, default=3)
    run.add_argument("--max-per-module", type=int, default=30)
    run.add_argument("--modules", nargs="*", default=[], help="module path prefixes under src/npusim")
    run.add_argument("--dry-run", action="store_true")
    retest = sub.add_parser("retest")
    retest.add_argument("--jobs", type=int, default=1)
    retest.add_argument("ids", nargs="*", default=[])
    report = sub.add_parser("report")
    report.add_argument("--survivors", action="store_true")
    show = sub.add_parser("show")
    show.add_argument("ids", nargs="+")
    args = parser.parse_args(argv)
    CACHE.mkdir(parents=True, exist_ok=True)
    return {"map": command_map, "run": command_run, "retest": command_retest, "report": command_report,
            "show": command_show}[args.command](args)


# --------------------------------------------------------------------------------------------------
# The pytest plugin of the map and mutant runs (-p mutation_pass)
# --------------------------------------------------------------------------------------------------

_coverage = None
if os.environ.get(MAP_ENV):  # start before conftest.py imports npusim, so import-time lines are measured too
    import coverage as _coverage_module

    _coverage = _coverage_module.Coverage(data_file=str(Path(os.environ[MAP_ENV]) / "coverage.data"),
                                          source=[str(Path.cwd() / PACKAGE)], branch=False)
    _coverage.start()
_durations: dict[str, float] = {}


def pytest_configure(config) -> None:
    from hypothesis import settings

    settings.register_profile("mutation-pass", database=None, derandomize=True)
    settings.load_profile("mutation-pass")


def pytest_collection_modifyitems(session, config, items) -> None:
    if not os.environ.get(SELECT_ENV):
        return
    order = {nodeid: i for i, nodeid in enumerate(json.loads(Path(os.environ[SELECT_ENV]).read_text()))}
    files = {nodeid for nodeid in order if "::" not in nodeid}  # whole files (retest: changed test files)
    kept = [item for item in items if item.nodeid in order or item.nodeid.split("::")[0] in files]
    kept_ids = {id(item) for item in kept}
    dropped = [item for item in items if id(item) not in kept_ids]
    kept.sort(key=lambda item: order.get(item.nodeid, order.get(item.nodeid.split("::")[0], len(order))))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_runtest_protocol(item, nextitem):
    if _coverage is None:
        return None
    _coverage.switch_context(item.nodeid)
    started = time.monotonic()
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    _durations[item.nodeid] = time.monotonic() - started
    _coverage.switch_context("")
    return True


def pytest_unconfigure(config) -> None:
    if _coverage is not None:
        _coverage.stop()
        _coverage.save()
        (Path(os.environ[MAP_ENV]) / "durations.json").write_text(json.dumps(_durations))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
