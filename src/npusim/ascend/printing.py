"""``printf`` and ``dump_tensor``: a kernel's debug output, printed to stdout as the call runs.

On the device both write into a dump buffer that the host prints after the launch (pyasc adds
that buffer as a last kernel argument and hands it to CANN's dump library; its text format is
CANN's).  npusim prints at once, in its own format:

* ``printf(desc, *params)``: pyasc replaces every ``%s`` by the next Python ``str`` argument while
  compiling; the other specifiers are C's (``%d %u %ld %f %x ...``), here applied by Python's
  ``%`` operator, which accepts C's length modifiers.
* ``dump_tensor(tensor, desc, dump_size)``: a header line ``DumpTensor: desc=<desc>, <dtype>,
  <n> elements, <where>`` and the first ``dump_size`` elements.
"""

from __future__ import annotations

from ..sources import semantics
from ..validate import require_int
from .runtime.gm import GlobalTensor
from .shape_info import require_shape_info
from .tensor import LocalTensor, element_text

__all__ = ["dump_tensor", "printf"]

SOURCE = semantics("10.8")


def printf(desc: str, *params) -> None:
    """Print ``desc`` formatted with ``params`` (pyasc ``asc.printf``, Ascend C ``printf``)."""
    if not isinstance(desc, str):
        raise TypeError(f"printf: desc must be a str format, got {type(desc).__name__}")
    try:
        text = desc % params if params else desc
    except (TypeError, ValueError) as error:
        raise TypeError(f"printf: the format {desc!r} does not fit the {len(params)} arguments given: {error}") \
            from None
    print(text, end="")


def dump_tensor(tensor: LocalTensor | GlobalTensor, desc: int, dump_size: int, shape_info=None) -> None:
    """Print the first ``dump_size`` elements of ``tensor`` under the number ``desc`` (pyasc ``dump_tensor``)."""
    desc = require_int("dump_tensor", "desc", desc, 0, (1 << 32) - 1, SOURCE)
    if shape_info is not None:
        require_shape_info("dump_tensor", shape_info)
    if isinstance(tensor, LocalTensor):
        size, where = tensor.tile_size, f"UB {tensor.addr:#x}"
        read = tensor.read
    elif isinstance(tensor, GlobalTensor):
        size, where = tensor.get_size(), f"GM {tensor.buffer.name}+{tensor.address.byte_offset}"
        read = tensor.address.read
    else:
        raise TypeError(f"dump_tensor: tensor must be a LocalTensor or GlobalTensor, got {type(tensor).__name__}")
    dump_size = require_int("dump_tensor", "dump_size", dump_size, 0, size, SOURCE,
                            rule="more elements than the tensor has")
    print(f"DumpTensor: desc={desc}, {tensor.dtype}, {dump_size} elements, {where}")
    print(element_text(read(dump_size)))
