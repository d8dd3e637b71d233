"""docs/worked-examples.md, the inventory of the pages' printed worked examples, checked against the repository.

Every test it cites exists (the file, and a test function of that name in it); its totals are the counts of its
rows; every page that docs/api.md cites in the Memory-level / C API vector scope is listed, with or without an
example; every erratum a row names is defined in its Errata list and every defined one is used.  Removing a row
or renaming a cited test makes this fail.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "worked-examples.md"
SCOPE = ("SIMD-API/基础API/Memory矢量计算/", "SIMD-API/C-API/vector_compute/", "SIMD-API/C-API/vector_datamove/")
STATUSES = ("reproduced", "reproduced-with-erratum", "not reproduced")
TEST_ID = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
ERRATUM = re.compile(r"\bE(\d+)\b")


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def table(block: str, columns: int) -> list[list[str]]:
    """The body rows of the first markdown table in block, cells unescaped (``\\|`` is a literal bar)."""
    rows = []
    for line in block.splitlines():
        if not line.startswith("|") or set(line) <= {"|", "-"}:
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        assert len(cells) == columns, line
        rows.append(cells)
    return rows[1:]  # the header


def unquote(cell: str) -> str:
    return cell.strip("`")


@pytest.fixture(scope="module")
def inventory():
    text = PAGE.read_text(encoding="utf-8")
    totals = {key: int(value) for key, value in table(section(text, "Totals"), 2)}
    examples = table(section(text, "Printed examples"), 5)
    without = table(section(text, "Pages without a printed example"), 2)
    return text, totals, examples, without


def test_the_totals_are_the_counts_of_the_rows(inventory):
    _, totals, examples, without = inventory
    pages_with = {unquote(r[0]) for r in examples}
    pages_without = {unquote(r[0]) for r in without}
    assert not pages_with & pages_without
    assert len(pages_without) == len(without)  # each page listed once
    statuses = Counter(r[3] for r in examples)
    assert set(statuses) <= set(STATUSES)
    assert totals == {
        "pages in scope": len(pages_with | pages_without),
        "pages with printed examples": len(pages_with),
        "examples": len(examples),
        "reproduced": statuses["reproduced"],
        "reproduced-with-erratum": statuses["reproduced-with-erratum"],
        "not reproduced": statuses["not reproduced"],
    }
    assert len({tuple(r[:2]) for r in examples}) == len(examples)  # no row twice


def _defined(path: str) -> set[str]:
    return set(re.findall(r"^\s*(?:async )?def (test\w*)\(", (ROOT / path).read_text(encoding="utf-8"), re.M))


def test_every_cited_test_exists(inventory):
    text, _, examples, _ = inventory
    cited = TEST_ID.findall(text)
    assert len(cited) > 100
    missing = [f"{path}::{name}" for path, name in cited if not (ROOT / path).is_file() or name not in _defined(path)]
    assert not missing
    for page, example, test, status, note in examples:
        if status != "not reproduced":  # a reproduced example names the one test that reproduces it
            assert TEST_ID.fullmatch(unquote(test)), (page, example)
        else:
            assert note, (page, example)  # and a reason


def test_every_erratum_named_is_defined_and_every_defined_one_named(inventory):
    text, _, examples, _ = inventory
    errata = section(text, "Errata")
    defined = set(re.findall(r"\*\*E(\d+)\*\*", errata))
    named = {n for r in examples for n in ERRATUM.findall(r[4])}
    assert named == defined
    for page, example, _test, status, note in examples:
        if status == "reproduced-with-erratum":
            assert ERRATUM.search(note), (page, example)


def test_every_in_scope_page_docs_api_cites_is_listed(inventory):
    _, _, examples, without = inventory
    listed = {unquote(r[0]) for r in examples} | {unquote(r[0]) for r in without}
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    cited = {page for line in re.findall(r"^Document: (.*)$", api, re.M)
             for page in re.findall(r"SIMD-API/\S+?\.md", line)}
    in_scope = {page for page in cited if page.startswith(SCOPE)}
    assert len(in_scope) > 150
    assert not in_scope - listed
    high_level = {page for page in cited if page.startswith("SIMD-API/高阶API/")}
    assert not high_level - listed


def test_the_readme_quotes_the_totals(inventory):
    _, totals, _, _ = inventory
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    done = totals["reproduced"] + totals["reproduced-with-erratum"]
    assert f"{done} of {totals['examples']} reproduced ({totals['reproduced-with-erratum']} of them" in readme
    assert f"the {totals['not reproduced']} others explained" in readme
    assert f"({totals['examples']} in {totals['pages with printed examples']} pages)" in readme
