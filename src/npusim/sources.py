"""How an error message names the document its rule comes from (``docs/semantics.md`` §0.1).

A source is one or more citations joined by ``"; "``: a vendor page and one of its section
headings (``ascend.pages``, ``sophgo.pages``), or a numbered section of ``docs/semantics.md``,
the repository's statement of every rule npusim implements.
"""

from __future__ import annotations

__all__ = ["SEMANTICS_DOC", "semantics"]

SEMANTICS_DOC = "docs/semantics.md"


def semantics(*sections: str) -> str:
    """Sections of ``docs/semantics.md``: ``semantics("1.5", "1.6")`` is ``"docs/semantics.md §1.5, §1.6"``."""
    return f"{SEMANTICS_DOC} " + ", ".join(f"§{section}" for section in sections)

