"""The Sophgo documents npusim's rules come from, as error sources name them (``docs/semantics.md`` §0.1).

The pages are those of the TPU-Kernel reference manual, appendix 1 (APIs), on doc.sophgo.com
(``tpu_kernel/reference/html/usage/附录1_APIs/<file>.html``); a source adds one of the page's
headings (``注意事项``, ``参数`` or a function name), e.g. ``f"{COMPARE_SELECT} 注意事项"``.
The headers are the TPU-Kernel SDK's; a source adds the name declared there.
"""

from __future__ import annotations

COMPARE_SELECT = "TPU-Kernel 比较选择函数 (cmp.html)"
GDMA = "TPU-Kernel GDMA 操作 (gdma.html)"
UTIL = "TPU-Kernel 辅助函数 (util.html)"
TPU_KERNEL_H = "tpu_kernel.h"
TPU_DEFS_H = "tpu_defs.h"
