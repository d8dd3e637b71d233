"""Regenerate the pictures and tables of docs/explain.md from the case files in docs/explain/.

For every ``docs/explain/X.json`` (a case in the vocabulary of ``npusim golden``) this runs
``npusim explain docs/explain/X.json --svg docs/explain/X.svg`` and keeps its output as
``docs/explain/X.txt``; the seed documents' examples (:data:`SEED_CASES`) are also written
into docs/explain.md, table and picture, between the two ``seed examples`` markers.

    python3 tools/explain_docs.py           # rewrite what is stale
    python3 tools/explain_docs.py --check   # list what is stale, exit 1 if anything is

``tests/views/test_svg.py`` runs the check: it fails when a picture, a table or the page is stale.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "docs" / "explain"
PAGE = ROOT / "docs" / "explain.md"
BEGIN = "<!-- seed examples: written by tools/explain_docs.py -->"
END = "<!-- end of the seed examples -->"

#: the seed documents' examples, in the page's order: case name and title
SEED_CASES = (
    ("select_mode0_count", "Select, mode 0 (CMPMASK bits), count form"),
    ("select_mode0_repeat", "Select, mode 0, repeat form (mask 64, 4 repeats)"),
    ("select_mode1_count", "Select, mode 1 (tensor and scalar), count form"),
    ("select_mode1_repeat", "Select, mode 1, repeat form"),
    ("select_mode2_count", "Select, mode 2 (tensor and tensor), count form"),
    ("select_mode2_repeat", "Select, mode 2, repeat form"),
    ("trans_int8_high", "TransDataTo5HD, int8, high halves"),
    ("trans_int8_low", "TransDataTo5HD, int8, low halves"),
    ("trans_float16", "TransDataTo5HD, half"),
    ("trans_int32", "TransDataTo5HD, int32"),
    ("asc_ne_scalar", "asc_ne_scalar"),
    ("sophgo_greater_select_vector", "Sophgo tpu_bdc_greater_select with a VECTOR operand"),
)


def render(case: Path) -> dict[str, str]:
    """What ``npusim explain CASE --svg`` prints and draws for one case: ``{".txt": table, ".svg": picture}``."""
    from npusim.cli import main

    with tempfile.TemporaryDirectory() as scratch:
        picture = Path(scratch) / "picture.svg"
        table = io.StringIO()
        with contextlib.redirect_stdout(table):
            status = main(["explain", str(case), "--svg", str(picture)])
        if status != 0:
            raise RuntimeError(f"npusim explain {case} exited with {status}")
        return {".txt": table.getvalue(), ".svg": picture.read_text(encoding="utf-8")}


def seed_section(tables: dict[str, str]) -> str:
    """The seed-example part of docs/explain.md, from each seed case's table."""
    parts = [BEGIN, ""]
    for name, title in SEED_CASES:
        comment = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8")).get("comment", "")
        parts += [f"### {title} (`docs/explain/{name}.json`)", "", f"{comment}.", "", "```",
                  f"$ npusim explain docs/explain/{name}.json --svg docs/explain/{name}.svg",
                  tables[name].rstrip("\n"), "```", "", f"![{title}](explain/{name}.svg)", ""]
    return "\n".join([*parts, END])


def stale_files() -> dict[Path, str]:
    """Every generated file whose content differs from what the commands give now, with that content."""
    wanted: dict[Path, str] = {}
    tables: dict[str, str] = {}
    for case in sorted(CASES.glob("*.json")):
        for suffix, text in render(case).items():
            wanted[case.with_suffix(suffix)] = text
        tables[case.stem] = wanted[case.with_suffix(".txt")]
    page = PAGE.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        raise RuntimeError(f"{PAGE}: the markers {BEGIN!r} and {END!r} are missing")
    head, rest = page.split(BEGIN, 1)
    wanted[PAGE] = head + seed_section(tables) + rest.split(END, 1)[1]
    return {path: text for path, text in wanted.items()
            if not path.exists() or path.read_text(encoding="utf-8") != text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list stale files; exit 1 if there are any")
    args = parser.parse_args(argv)
    stale = stale_files()
    for path, text in stale.items():
        print(f"{'stale' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
        if not args.check:
            path.write_text(text, encoding="utf-8")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
