"""npusim: a bit-exact CPU emulator of NPU vector instructions.

Vendors live in sub-packages: ``npusim.ascend`` (Huawei Ascend C) and
``npusim.sophgo`` (Sophgo TPU-Kernel).  They share :mod:`npusim.errors`,
:mod:`npusim.dtypes` and :mod:`npusim.memory`.
"""

from .errors import ConstraintError, UninitializedReadWarning

__version__ = "0.1.0"
__all__ = ["ConstraintError", "UninitializedReadWarning", "__version__", "explain"]


def explain(record, chip=None):
    """What one traced call touched, per repeat (Sophgo: per lane): ``print(npusim.explain(core.trace[0]))``;
    ``.svg()`` gives its access picture (:mod:`npusim.views.explain`; ``chip``: a Sophgo record's chip)."""
    from .views.explain import explain as explain_record

    return explain_record(record, chip)
