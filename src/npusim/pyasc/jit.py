"""``@asc.jit`` as pyasc has it: options checked, arguments typed as on the device, tensors copied.

npusim's own :class:`~npusim.ascend.runtime.launch.JitFunction` runs a kernel over the caller's
arrays in place.  pyasc's launch is different in three ways a kernel can see, and this
front end does what pyasc does (docs/semantics.md §10.7):

* **options**: the names of pyasc's codegen, compile and launch options are known; any
  other name is a ``TypeError`` at decoration, and so is a kernel parameter named like one.
  Codegen and compile options may also be given at the launch call.  Values are checked.
* **arguments**: a parameter annotated ``ConstExpr`` (or ``ConstExpr[T]``) is a compile-time
  Python value (``ConstExpr[int]`` requires an int); every other argument is typed from its
  value, as pyasc's launcher does: ``bool`` -> int8, ``int`` -> int32, ``float`` -> float32
  (so a float scalar reaches a half instruction as float64 -> float32 -> half, as on the
  device), numpy scalars keep their type, arrays and CPU torch tensors become GM.  The same
  narrowing applies to the arguments of jit helpers called from the kernel.
* **GM**: each tensor argument is copied into a device allocation with pyasc's slack
  (:func:`~npusim.ascend.runtime.gm.device_allocation_bytes`) and copied back after the launch.
  Under the ``"hardware"`` policy (the entry points' default) an access past the tensor but
  inside the allocation warns (:class:`~npusim.errors.GmPastEndWarning`); under ``"strict"`` it
  raises.  The blocks' cores get the same policy (``Core(tolerance=...)``): a 32-bit mask's
  high word and UB bytes past an operand's LocalTensor are tolerated with a warning too.
  With ``DRY_RUN`` set the kernel runs but nothing is copied back.
"""

from __future__ import annotations

import copy
import inspect
import os
import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ascend.runtime.gm import GlobalAddress, GmBuffer, PastEndPolicy, is_array_like
from ..ascend.runtime.launch import ConstExpr, JitFunction, Launch
from ..errors import ParameterRangeError, UnsupportedError
from ..sources import semantics
from ..validate import require_int
from . import runtime as rt
from .cint import CInt32
from .platforms import KernelType
from .struct import Struct

__all__ = ["CODEGEN_OPTIONS", "COMPILE_OPTIONS", "LAUNCH_OPTIONS", "PyascKernel", "jit", "narrow", "set_policy"]

SOURCE = semantics("10.7")
CODEGEN_OPTIONS = frozenset({"capture_exceptions", "ir_multithreading"})
COMPILE_OPTIONS = frozenset({"debug", "strip_loc", "verify_sync", "print_ir_before_all", "run_passes", "kernel_type",
                             "opt_level", "auto_sync", "auto_sync_log", "bisheng_options", "always_compile",
                             "matmul_cube_only", "insert_sync"})
LAUNCH_OPTIONS = frozenset({"core_num", "stream"})
BOOL_OPTIONS = frozenset({"capture_exceptions", "ir_multithreading", "debug", "strip_loc", "verify_sync",
                          "print_ir_before_all", "run_passes", "always_compile", "matmul_cube_only"})
OPTIONAL_BOOL_OPTIONS = frozenset({"auto_sync", "insert_sync"})
VECTOR_KERNEL_TYPES = (KernelType.AIV_ONLY, KernelType.MIX_AIV_HARD_SYNC, KernelType.MIX_AIV_1_0)
INT32 = (-(1 << 31), (1 << 31) - 1)

_policy: list[PastEndPolicy] = ["hardware"]


def set_policy(policy: PastEndPolicy) -> None:
    """The hardware-tolerance policy of pyasc launches: ``"hardware"`` (warn, the default) or ``"strict"``."""
    if policy not in ("strict", "hardware"):
        raise ValueError(f"npusim.pyasc: policy must be 'strict' or 'hardware', got {policy!r}")
    _policy[0] = policy


def check_options(where: str, options: dict, allowed: frozenset) -> None:
    """Unknown names are a TypeError; known ones must have values of their type."""
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"{where}: unknown option names {unknown}; pyasc's options are {sorted(allowed)}")
    for name, value in options.items():
        if name in BOOL_OPTIONS and not isinstance(value, bool):
            raise TypeError(f"{where}: option {name} must be a bool, got {value!r}")
        if name in OPTIONAL_BOOL_OPTIONS and value is not None and not isinstance(value, bool):
            raise TypeError(f"{where}: option {name} must be a bool or None, got {value!r}")
        if name == "opt_level" and value is not None:
            require_int(where, "opt_level", value, 1, 3, SOURCE)
        if name == "kernel_type" and value is not None:
            if not isinstance(value, KernelType):
                raise TypeError(f"{where}: option kernel_type must be a config.KernelType, got {value!r}")
            if value not in VECTOR_KERNEL_TYPES:
                raise UnsupportedError(where, "kernel_type", value.name, "npusim runs vector (AIV) kernels only; "
                                       "the cube core is not modelled",
                                       ", ".join(t.name for t in VECTOR_KERNEL_TYPES), SOURCE)
        if name == "matmul_cube_only" and value:
            raise UnsupportedError(where, "matmul_cube_only", True, "the cube core is not modelled", "False", SOURCE)
        if name in ("auto_sync_log",) and not isinstance(value, (str, type(None))):
            raise TypeError(f"{where}: option {name} must be a str, got {value!r}")


def _constexpr_type(annotation) -> tuple[bool, type | None]:
    """(is the annotation ConstExpr, the T of ConstExpr[T] or None)."""
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        for prefix in ("asc.ConstExpr", "ConstExpr"):
            if text == prefix:
                return True, None
            if text.startswith(prefix + "["):
                inner = text[len(prefix) + 1 : -1]
                return True, {"int": int, "float": float, "bool": bool, "str": str}.get(inner)
        return False, None
    if annotation is ConstExpr:
        return True, None
    if typing.get_origin(annotation) is ConstExpr:
        args = typing.get_args(annotation)
        return True, args[0] if len(args) == 1 and isinstance(args[0], type) else None
    return False, None


def narrow(who: str, name: str, value: Any) -> Any:
    """A runtime (non-ConstExpr) scalar argument as the device receives it."""
    if isinstance(value, ConstExpr):
        value = value.value
    if isinstance(value, bool):
        return np.int8(value)
    if isinstance(value, int):
        if not INT32[0] <= value <= INT32[1]:
            raise ParameterRangeError(who, name, value, "a Python int kernel argument is passed as int32",
                                      f"[{INT32[0]}, {INT32[1]}] (pass a numpy scalar for another type)", SOURCE)
        return CInt32(value)
    if isinstance(value, float):
        with np.errstate(over="ignore"):
            return np.float32(value)
    if isinstance(value, Struct):
        return copy.deepcopy(value)  # a helper works on its own copy, as on the device
    return value


def _per_block(value: Any) -> Any:
    """What one block receives: each core copies a Struct argument into its own memory at entry."""
    return copy.deepcopy(value) if isinstance(value, Struct) else value


class PyascKernel(JitFunction):
    """A kernel or helper decorated with pyasc's ``@asc.jit``; ``kernel[core_num(, stream)](*args)`` launches it."""

    def __init__(self, fn: Callable, **options) -> None:
        check_options(f"asc.jit({fn.__name__})", options, CODEGEN_OPTIONS | COMPILE_OPTIONS | LAUNCH_OPTIONS)
        super().__init__(fn, **options)
        self.signature = inspect.signature(fn)
        clashing = sorted(set(self.signature.parameters) & (CODEGEN_OPTIONS | COMPILE_OPTIONS | LAUNCH_OPTIONS))
        if clashing:
            raise TypeError(f"asc.jit({fn.__name__}): parameter names {clashing} conflict with jit option names")
        self.constexpr = {name: _constexpr_type(p.annotation) for name, p in self.signature.parameters.items()}

    def __getitem__(self, launch_options) -> Callable[..., Launch | None]:
        items = launch_options if isinstance(launch_options, tuple) else (launch_options,)
        if not 1 <= len(items) <= 2:
            raise TypeError(f"{self.fn.__name__}[...]: expected [core_num] or [core_num, stream], "
                            f"got {len(items)} items")
        core_num, stream = items[0], items[1] if len(items) == 2 else None
        if stream is not None and not isinstance(stream, rt.Stream):
            raise TypeError(f"{self.fn.__name__}[core_num, stream]: stream must come from rt.current_stream() or "
                            f"rt.create_stream(), got {type(stream).__name__}")

        def launcher(*args, **kwargs):
            return self.launch(core_num, args, kwargs)

        return launcher

    def __call__(self, *args, **kwargs):
        # A helper called from a kernel: its runtime arguments become int32 / float32 as in pyasc.
        bound = self._bind_arguments(self.fn.__name__, args, kwargs)
        return super().__call__(*bound.args, **bound.kwargs)

    def _bind_arguments(self, who: str, args: tuple, kwargs: dict) -> inspect.BoundArguments:
        bound = self.signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            is_const, kind = self.constexpr.get(name, (False, None))
            if is_const:
                value = ConstExpr.unwrap(value)
                if kind is not None and not isinstance(value, kind):
                    raise TypeError(f"{who}: ConstExpr[{kind.__name__}] is required for argument '{name}', "
                                    f"{type(value).__name__} was given: {value!r}")
                bound.arguments[name] = value
            else:
                bound.arguments[name] = narrow(who, name, value)
        return bound

    def _run_block(self, launch: Launch, core, args: list, kwargs: dict, after_block) -> None:
        super()._run_block(launch, core, [_per_block(v) for v in args], {k: _per_block(v) for k, v in kwargs.items()},
                           after_block)

    def launch(self, block_dim: int, args: tuple | list = (), kwargs: dict | None = None, **launch_kwargs) -> Launch:
        """pyasc's launch: options popped from ``kwargs``, arguments bound and typed, tensors copied in and back."""
        name = self.fn.__name__
        kwargs = dict(kwargs or {})
        call_options = {key: kwargs.pop(key) for key in list(kwargs) if key in CODEGEN_OPTIONS | COMPILE_OPTIONS}
        check_options(f"{name}[...]", call_options, CODEGEN_OPTIONS | COMPILE_OPTIONS)
        given_launch = sorted(set(kwargs) & LAUNCH_OPTIONS)
        if given_launch:
            raise TypeError(f"{name}[...](...): launch options {given_launch} go inside the brackets: "
                            f"{name}[core_num, stream](...)")
        try:
            bound = self._bind_arguments(name, tuple(args), kwargs)
        except TypeError as err:
            raise TypeError(f"{name}[...](...): {err}") from None
        buffers: list[GmBuffer] = []
        policy = _policy[0]

        def to_device(label: str, value):
            if not is_array_like(value):
                return value
            buffer = GmBuffer.device_copy(value, f"GM arg {label} of {name}", policy)
            buffers.append(buffer)
            return GlobalAddress(buffer, 0, buffer.dtype)

        arguments = {key: to_device(key, value) for key, value in bound.arguments.items()}
        bound.arguments.update(arguments)
        launch = JitFunction.launch(self, block_dim, bound.args, bound.kwargs, chip=rt.selected_chip(),
                                    tolerance=policy, **launch_kwargs)
        launch.gm.extend(buffers)
        if not os.environ.get("DRY_RUN"):
            for buffer in buffers:
                buffer.copy_back()
        return launch


def jit(fn: Callable | None = None, **options) -> PyascKernel | Callable[[Callable], PyascKernel]:
    """pyasc's ``@asc.jit`` / ``@asc.jit(**options)``."""
    if fn is None:
        return lambda f: PyascKernel(f, **options)
    return PyascKernel(fn, **options)
