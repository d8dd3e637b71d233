"""The API reference, generated from the instruction registry: ``docs/api.md`` and ``npusim list``.

Nothing here is written by hand per instruction: the call forms, products, element types,
pipe, exactness class, source document and example of each instruction come from its
:class:`~npusim.engine.registry.Instruction` record (and its products' support rows), so the
reference cannot drift from the code; ``tests/test_api_docs.py`` fails when ``docs/api.md``
differs from :func:`render_markdown`.  Regenerate it with::

    npusim list --markdown > docs/api.md
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from .engine.registry import Instruction, instructions

__all__ = ["VENDORS", "load_vendors", "render_markdown", "render_table", "support_dtypes"]

VENDORS = ("ascend", "sophgo")
_VENDOR_TITLES = {"ascend": "Huawei Ascend C (`npusim.ascend`, pyasc names)",
                  "sophgo": "Sophgo TPU-Kernel (`npusim.sophgo`, C names)"}


def load_vendors() -> None:
    """Import both vendors, so that every instruction is registered."""
    from . import ascend, sophgo  # noqa: F401


def support_dtypes(row) -> list[str]:
    """The element types a product's support row names, sorted (empty if it names none).

    Support rows are vendor data (dataclasses); every ``frozenset`` of type names among their
    fields counts (``dtypes``, ``count_dtypes``, ``scalar_dtypes`` ...).  A bare set counts too.
    """
    if isinstance(row, (set, frozenset)):
        return sorted(str(name) for name in row)
    if not dataclasses.is_dataclass(row):
        return []
    names: set[str] = set()
    for field in dataclasses.fields(row):
        value = getattr(row, field.name)
        named_types = "dtype" in field.name or field.name == "count_only"
        if named_types and isinstance(value, (set, frozenset)) and all(isinstance(v, str) for v in value):
            names |= set(value)
    return sorted(names)


def _products_line(entry: Instruction) -> list[str]:
    rows = entry.products
    lines = ["| product | element types |", "|---|---|"]
    for product, row in rows.items():
        dtypes = support_dtypes(row)
        lines.append(f"| {product} | {', '.join(dtypes) if dtypes else 'yes'} |")
    return lines if rows else ["No product has it."]


def _section(entry: Instruction) -> list[str]:
    lines = [f"### `{entry.name}`", ""]
    if entry.summary:
        lines += [entry.summary + ("." if not entry.summary.endswith(".") else ""), ""]
    lines += ["```text", *entry.signatures(), "```", ""]
    facts = [f"family {entry.family}", f"pipe {entry.pipe}", entry.exactness]
    if entry.alias_of:
        facts.append(f"alias of `{entry.alias_of}` (the same plans)")
    lines += [" · ".join(facts), "", f"Document: {entry.source}", ""]
    lines += _products_line(entry) + [""]
    if entry.examples:
        lines += ["```python", entry.examples[0].rstrip(), "```", ""]
    return lines


def render_markdown(entries: Iterable[Instruction] | None = None) -> str:
    """``docs/api.md``: every registered instruction, by vendor and family."""
    if entries is None:
        load_vendors()
        entries = [entry for vendor_name in VENDORS for entry in instructions(vendor_name)]
    entries = list(entries)
    lines = [
        "# API reference", "",
        "Generated from the instruction registry (`npusim list --markdown > docs/api.md`); do not edit by hand.",
        "Each instruction: its call forms, what it computes, its family, pipe and exactness class "
        "(docs/architecture.md, \"Exactness\"), the vendor document it follows, the products that have it "
        "with their element types, and a short example (run by the tests).", "",
    ]
    for vendor_name in VENDORS:
        own = [e for e in entries if e.vendor == vendor_name]
        if not own:
            continue
        lines += [f"## {_VENDOR_TITLES[vendor_name]}", "", f"{len(own)} instructions.", ""]
        families: dict[str, list[Instruction]] = {}
        for entry in own:
            families.setdefault(entry.family, []).append(entry)
        for family, members in families.items():
            lines += [f"<!-- family: {family} -->", ""]
            for entry in members:
                lines += _section(entry)
    return "\n".join(lines).rstrip() + "\n"


def render_table(entries: Iterable[Instruction] | None = None) -> str:
    """``npusim list``: one line per instruction."""
    if entries is None:
        load_vendors()
        entries = instructions()
    rows = [("vendor", "instruction", "family", "pipe", "products", "exactness")]
    rows += [(e.vendor, e.name, e.family, e.pipe, str(len(e.products)), e.exactness) for e in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                     for row in rows) + "\n"
