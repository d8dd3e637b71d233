"""The import graph of src/npusim: no cycles, no vendor reaching the other, a neutral shared core.

Read statically from the source (``ast``), so an import inside a function counts as much as one
at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import npusim

PACKAGE = Path(npusim.__file__).resolve().parent
SHARED_CORE = ("npusim.errors", "npusim.dtypes", "npusim.memory", "npusim.validate", "npusim.rounding",
               "npusim.lazy", "npusim.sources", "npusim.context", "npusim.overloads", "npusim.engine")
VENDORS = ("npusim.ascend", "npusim.sophgo")


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = _modules()


def _imported(module: str, node: ast.AST) -> set[str]:
    """The npusim modules an import statement of ``module`` names (a package for a name it re-exports)."""
    is_package = MODULES[module].name == "__init__.py"
    package = module if is_package else module.rsplit(".", 1)[0]
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        targets = [f"{prefix}.{alias.name}" for alias in node.names] + [prefix]
    found = set()
    for target in targets:
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        if target.startswith("npusim") and target != module:
            found.add(target)
    if isinstance(node, ast.ImportFrom):  # "from .x import name": the module x, unless name is a submodule
        prefix_hits = {t for t in found if any(t == f"{p}" for p in targets[-1:])}
        named = found - prefix_hits
        if named:
            return named
    return found


def _graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _imported(module, node)
        graph[module] = edges
    return graph


GRAPH = _graph()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def _within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_graph_is_read():
    assert "npusim.engine.dispatch" in GRAPH["npusim.ascend.core"]
    assert "npusim.ascend.chips" in GRAPH["npusim.ascend.core"]


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_no_vendor_imports_the_other():
    for module, targets in GRAPH.items():
        for vendor in VENDORS:
            if _within(module, (vendor,)):
                others = [v for v in VENDORS if v != vendor]
                assert not [t for t in targets if _within(t, others)], module


def test_the_shared_core_imports_no_vendor():
    for module, targets in GRAPH.items():
        if _within(module, SHARED_CORE):
            assert not [t for t in targets if _within(t, VENDORS)], module


def test_the_ascend_runtime_imports_no_instruction_module():
    """GM, TPipe and launches are the instructions' ground: none of them may need an instruction (before:
    ``runtime/gm.py`` imported ``ops.common`` while ``ops/data_copy.py`` imported ``runtime.gm``)."""
    for module, targets in GRAPH.items():
        if _within(module, ("npusim.ascend.runtime",)):
            assert not [t for t in targets if _within(t, ("npusim.ascend.ops",))], module
