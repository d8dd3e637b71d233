"""Every ``[source]`` an error names is something a user can open (issue 11, section 5).

The suite-wide fixture of ``tests/conftest.py`` checks the source of every ConstraintError that
npusim raises in any test.  The tests here check the checker itself, the sources that no test
happens to raise (the citations written in ``src/``), and the documents that list sources.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.ascend import pages as ascend_pages
from npusim.errors import ConstraintError
from npusim.sophgo import pages as sophgo_pages
from npusim.sources import SEMANTICS_DOC, semantics
from npusim.validate import require_int

from .error_sources import ASCEND_PAGES, REPO, SOPHGO_PAGES, numbered_headings, source_problems, unopenable_sources

SRC = REPO / "src" / "npusim"
# What messages and docstrings used to cite: notes that are not shipped, or documents by an internal name.
INTERNAL_CITATION = re.compile(r"ref §|sophgo-semantics|design\.md|shared/reference|seed 00[0-3]|ascend §")


@pytest.mark.parametrize("source", [
    None,
    "",
    "ref §1.4",                                   # the internal reference notes
    "sophgo-semantics §3.2, §3.3",
    "design.md §1",
    "seed 002; TransDataTo5HD.md",                # an internal name, and a page without a path
    "Select.md 'mask'",                           # a file name, not a page path, and no section
    "SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md",  # no section
    "SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md 约束",  # not a heading of the page
    "SIMD-API/基础API/Memory矢量计算/比较与选择/Nothing.md 约束说明",  # not a listed page
    "docs/semantics.md",                          # no section
    "docs/semantics.md §99.9",                    # no such heading
    "docs/nothing.md §1.1",                       # no such file
    "docs/semantics.md §1.5; ref §1.4",           # every citation counts
    "TPU-Kernel 比较选择函数 (cmp.html) 说明",
    "tpu_defs.h variable_t",                      # declared in tpu_kernel.h, not tpu_defs.h
])
def test_a_source_a_user_cannot_open_is_rejected(source):
    assert source_problems(source)


@pytest.mark.parametrize("source", [
    "docs/semantics.md §1.5",
    "docs/semantics.md §1.6, §5.1",
    "docs/semantics.md §3",
    "SIMD-API/通用说明和约束.md 通用地址对齐约束; docs/semantics.md §1.5",
    f"{ascend_pages.SELECT} 产品支持情况, 数据类型; {semantics('2.4')}",
    f"{ascend_pages.DATA_COPY_PARAMS} 约束说明 (表4); {semantics('5.1')}",
    f"{ascend_pages.TQUE_INTRO} TQue Buffer限制",
    "TPU-Kernel GDMA 操作 (gdma.html) 注意事项; docs/semantics.md §9.1 (w stride * size <= 64 bytes on BM1688)",
    "tpu_kernel.h tpu_bdc_set_C",
])
def test_a_page_with_a_section_is_accepted(source):
    assert source_problems(source) == ()


def test_the_recorder_sees_an_unopenable_source_of_an_npusim_error():
    """The suite-wide fixture is only as good as this: an npusim check citing "ref §1.4" is caught."""
    with unopenable_sources() as found:
        with pytest.raises(ConstraintError):
            require_int("select", "repeat_times", 256, 0, 255, "ref §1.4")
        with pytest.raises(ConstraintError):
            require_int("select", "repeat_times", 256, 0, 255)  # no source at all
        with pytest.raises(ConstraintError):
            require_int("select", "repeat_times", 256, 0, 255, semantics("1.1"))
    assert set(found) == {"ref §1.4", "None"}
    assert "repeat_times = 256" in found["ref §1.4"]


def test_an_error_built_by_a_test_is_not_npusims():
    with unopenable_sources() as found:
        ConstraintError("x", "y", 1, "a rule", "nothing", "ref §1.4")
    assert found == {}


def test_the_errors_of_both_vendors_cite_openable_pages():
    """One rejected call per vendor, checked here directly (not only by the fixture)."""
    with asc.Core("A2"):
        tensor = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0x20, 128)
        with pytest.raises(ConstraintError) as ascend_err:
            asc.add(tensor, asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0x44, 128), tensor, 128)
    with tpu.Core("bm1684x"):
        scalar = tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=0))
        with pytest.raises(ConstraintError) as sophgo_err:
            tpu.tpu_bdc_greater_select(0x4, tpu.variable_t(type=tpu.TENSOR, addr=0), scalar, scalar, scalar,
                                       tpu.dim4(1, 1, 1, 1), tpu.DT_FP32, tpu.DT_FP32)
    assert ascend_err.value.source == f"{ascend_pages.GENERAL} 通用地址对齐约束; {SEMANTICS_DOC} §1.5"
    assert sophgo_err.value.source.startswith(f"{sophgo_pages.COMPARE_SELECT} 注意事项")
    for err in (ascend_err.value, sophgo_err.value):
        assert source_problems(err.source) == ()


# ------------------------------------------------------------------ sources no test raises
def _string_constants(tree: ast.AST) -> list[str]:
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_every_semantics_section_cited_in_src_exists():
    """``semantics("N.N")`` calls and ``docs/semantics.md §N.N`` texts anywhere in src/ (messages, docstrings,
    comments), including raise sites no test reaches."""
    headings = numbered_headings("docs/semantics.md")
    cited: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "semantics":
                for arg in node.args:
                    assert isinstance(arg, ast.Constant), f"{path}: semantics() takes literal section numbers"
                    cited.setdefault(arg.value, set()).add(path.name)
        for match in re.finditer(r"docs/semantics\.md((?: ?,? ?§\d+(?:\.\d+)?(?:-§?\d+(?:\.\d+)?)?)+)", text):
            for section in re.findall(r"§(\d+(?:\.\d+)?)", match[1]):
                cited.setdefault(section, set()).add(path.name)
    assert cited, "no citation found: the scan is broken"
    missing = {section: sorted(files) for section, files in cited.items() if section not in headings}
    assert not missing, f"docs/semantics.md has no heading for {missing}"


def _vendor_citations(path: Path, tree: ast.AST) -> list[str]:
    """The vendor citations written literally in a module: ``f"{pages.SELECT} 数据类型; ..."`` gives
    ``<the Select page> 数据类型``, a plain string ``"SIMD-API/... 功能说明; ..."`` its citations.  A
    citation completed at run time (``f"{pages.UTIL} {who}"``) is left to the suite-wide fixture."""
    module = sophgo_pages if "sophgo" in path.parts else ascend_pages
    found, in_fstrings = [], set()
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        in_fstrings.update(id(part) for part in parts)
        for i, (page, text) in enumerate(zip(parts, parts[1:], strict=False)):
            if (isinstance(page, ast.FormattedValue) and isinstance(page.value, ast.Attribute)
                    and getattr(page.value.value, "id", None) == "pages" and isinstance(text, ast.Constant)
                    and ("; " in text.value or i + 2 == len(parts))):
                found.append(getattr(module, page.value.attr) + text.value.split("; ")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                and id(node) not in in_fstrings):
            found += [c for c in node.value.split("; ") if c.startswith(("SIMD-API/", "guide/", "TPU-Kernel "))]
    return found


def test_every_vendor_citation_written_in_src_names_a_listed_page_and_section():
    """Citations at raise sites that no test reaches are checked here, statically."""
    checked, problems = 0, []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "pages.py":  # page names without a section; test_every_page_constant_... checks them
            continue
        for citation in _vendor_citations(path, ast.parse(path.read_text(encoding="utf-8"))):
            checked += 1
            problems += [f"{path.relative_to(REPO)}: {p}" for p in source_problems(citation)]
    assert checked > 50, "the scan found too few citations: it is broken"
    assert not problems, "\n".join(problems)


def test_every_page_constant_is_a_listed_vendor_page():
    folders = {ascend_pages.C_API, ascend_pages.C_API_DATAMOVE, ascend_pages.ARITHMETIC, ascend_pages.LOGIC,
               ascend_pages.COMPOUND, ascend_pages.REDUCE, ascend_pages.SCALAR,
               ascend_pages.C_API_SCALAR}  # a source adds "/<page>.md"
    for module, listed in ((ascend_pages, ASCEND_PAGES), (sophgo_pages, SOPHGO_PAGES)):
        for name, value in vars(module).items():
            if name.isupper() and not name.startswith("_") and isinstance(value, str) and value not in folders:
                assert value in listed, f"{module.__name__}.{name} = {value!r} is not in tests/error_sources.py"


def test_no_internal_citation_is_left_in_src_or_the_documents():
    """Sources, docstrings and comments cite what a user has: vendor pages and this repository's docs."""
    files = [*SRC.rglob("*.py"), *SRC.rglob("*.json"), REPO / "README.md", *(REPO / "docs").glob("*.md")]
    offenders = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL_CITATION.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:100]}")
    assert not offenders, "internal citations:\n" + "\n".join(offenders)


# ------------------------------------------------------------------ the documents
def test_every_source_in_docs_errors_md_can_be_opened():
    """The last column of every rule table, and the bracket of every example message."""
    text = (REPO / "docs" / "errors.md").read_text(encoding="utf-8")
    sources = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith(("| rule", "|---")):
            sources.append(line.rstrip(" |").rsplit(" | ", 1)[1])
    sources += re.findall(r"\[([^\[\]]*(?:§|\.md |\.h |\.html\) )[^\[\]]*)\]$", text, flags=re.M)
    assert len(sources) > 40, "the tables were not found"
    problems = {source: source_problems(source) for source in sources if source_problems(source)}
    assert not problems, problems


def test_the_readme_lists_every_document():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\* `(docs/[\w.-]+\.md)`", readme, flags=re.M))
    assert listed == {f"docs/{path.name}" for path in (REPO / "docs").glob("*.md")}


def test_semantics_md_cites_a_vendor_page_in_every_numbered_section_with_a_vendor_origin():
    """Sections 1-9 state vendor rules: each ends with the pages it comes from ("Documents: ...")."""
    text = (REPO / SEMANTICS_DOC).read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    without = [s.split("\n", 1)[0] for s in sections
               if re.match(r"[1-9]\.", s) and "Documents:" not in s]
    assert not without, f"sections without their documents: {without}"
    cited_pages = set(re.findall(r"`((?:SIMD-API|guide)/[^`]+\.md)`", text))
    unknown = {page for page in cited_pages if page not in ASCEND_PAGES}
    assert not unknown, f"docs/semantics.md cites pages tests/error_sources.py does not list: {unknown}"

