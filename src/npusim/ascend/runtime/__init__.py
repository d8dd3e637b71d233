"""The Ascend C runtime: global memory, the TPipe/TQue framework, kernel launches (no instruction: those
are in :mod:`npusim.ascend.ops`).

* :mod:`.gm` — ``GlobalTensor``, ``GlobalAddress``: global memory over the caller's arrays;
* :mod:`.pipe` — ``TPipe``, ``TQue``, ``TBuf``: Unified Buffer allocation with leases;
* :mod:`.launch` — ``@jit`` kernels, ``kernel[block_dim](...)``, block index and count;
* :mod:`.auto` — ``LocalTensorAuto``: UB tensors with compiler-provided buffers (pyasc insert_sync);
* :mod:`.allocator` — ``LocalMemAllocator``: UB tensors for static-Tensor programming (no TPipe).
"""

from .allocator import Hardware, LocalMemAllocator
from .auto import LocalTensorAuto
from .gm import GlobalAddress, GlobalTensor, GmBuffer, gm_alloc, gm_codes
from .launch import ConstExpr, JitFunction, Launch, get_block_idx, get_block_num, jit
from .pipe import TBuf, TBufPool, TPipe, TQue, TQueBind, get_tpipe_ptr

__all__ = [
    "ConstExpr", "GlobalAddress", "GlobalTensor", "GmBuffer", "Hardware", "JitFunction", "Launch", "LocalMemAllocator",
    "LocalTensorAuto", "TBuf",
    "TBufPool", "TPipe", "TQue", "TQueBind", "get_block_idx", "get_block_num", "get_tpipe_ptr", "gm_alloc", "gm_codes",
    "jit",
]
