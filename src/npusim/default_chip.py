"""The default chip, chosen by name for whichever vendor has it (``npusim run --chip NAME``).

Ascend and Sophgo keep separate defaults (``npusim.ascend.set_default_chip``,
``npusim.sophgo.set_default_chip``): an Ascend name changes what ``asc.Core()`` and kernel
launches run on, a Sophgo name what ``tpu.Core()`` runs on.  No name belongs to both.
"""

from __future__ import annotations

from .errors import UnsupportedError

__all__ = ["set_default_chip"]


def set_default_chip(name: str) -> str:
    """Make ``name`` the default chip of its vendor; return ``"<vendor> <canonical name>"``.

    Raises:
        UnsupportedError: neither vendor knows the name; the message lists both vendors' chips.
    """
    from . import ascend, sophgo

    rejections = []
    for vendor, module in (("Ascend", ascend), ("Sophgo", sophgo)):
        try:
            chip = module.get_chip(name)
        except UnsupportedError as err:
            rejections.append(f"{vendor}: {err.allowed}")
            continue
        module.set_default_chip(chip)
        return f"{vendor} {chip.name}"
    raise UnsupportedError("set_default_chip", "chip", name, "no Ascend or Sophgo chip has this name",
                           "; ".join(rejections))
