"""docs/api.md is generated from the instruction registry and must not be stale."""

from pathlib import Path

from npusim import ascend, sophgo
from npusim.apidoc import render_markdown, render_table, support_dtypes
from npusim.engine.registry import instructions

API_MD = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_docs_api_md_is_what_the_registry_generates():
    entries = instructions("ascend") + instructions("sophgo")  # not the test suite's own toy vendor
    assert API_MD.read_text(encoding="utf-8") == render_markdown(entries), (
        "docs/api.md is stale: regenerate it with `npusim list --markdown > docs/api.md`")


def test_every_instruction_is_documented_with_forms_source_summary_and_an_example():
    for entry in instructions("ascend") + instructions("sophgo"):
        assert entry.forms and entry.source and entry.summary and entry.examples, entry.name
        assert entry.pipe and entry.family and entry.products, entry.name


def test_every_instruction_is_in_its_vendor_module_and_listed():
    table = render_table()
    for module, vendor in ((ascend, "ascend"), (sophgo, "sophgo")):
        for entry in instructions(vendor):
            assert getattr(module, entry.name) is entry.function, entry.name
            assert f" {entry.name} " in table
    assert ascend.instructions() == instructions("ascend")


def test_support_rows_give_their_element_types():
    add = next(e for e in ascend.instructions() if e.name == "add")
    assert "float16" in support_dtypes(add.products["A2"])
    assert support_dtypes(True) == [] and support_dtypes(frozenset({"int8"})) == ["int8"]


def test_npusim_list_prints_the_table_and_the_markdown(capsys):
    from npusim import cli

    assert cli.main(["list", "--vendor", "ascend"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["vendor", "instruction", "family", "pipe", "products", "exactness"]
    assert len(out.splitlines()) == 1 + len(instructions("ascend"))
    assert cli.main(["list", "--vendor", "ascend", "--markdown"]) == 0
    assert capsys.readouterr().out == render_markdown(instructions("ascend"))
