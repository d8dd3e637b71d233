"""Sophgo TPU-Kernel instructions, one module per family; importing them registers every instruction."""

from . import gdma, select, set_c

__all__ = ["gdma", "select", "set_c"]
