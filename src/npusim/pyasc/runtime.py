"""``asc.lib.runtime``: the device, stream and platform functions pyasc kernels' hosts call.

npusim has one emulated device (id 0) with one default stream; a launch runs to completion
before it returns, so ``synchronize`` has nothing to wait for.  What ``config.set_platform``
chose lives here, as in pyasc (``get_soc_version``); it is per thread of control
(a ``contextvars`` variable), so parallel test workers do not share it.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from ..ascend.chips import AscendChip
from ..errors import RuntimeMisuseError
from ..sources import semantics
from ..validate import require_int
from .platforms import Platform, chip_of

__all__ = ["Stream", "create_stream", "current_device", "current_stream", "destroy_stream", "device_count",
           "get_soc_version", "is_available", "is_model", "set_device", "synchronize", "synchronize_device"]

DEVICE_COUNT = 1
SOURCE = semantics("10.7")


@dataclass(frozen=True)
class Stream:
    """A stream handle (``kernel[core_num, stream]``); npusim runs every launch at once, in call order."""

    device_id: int = 0
    number: int = 0


@dataclass(frozen=True)
class _Selection:
    platform: Platform
    chip: AscendChip
    device_id: int


_SELECTED: contextvars.ContextVar[_Selection | None] = contextvars.ContextVar("npusim_pyasc_platform", default=None)
_DEFAULT_STREAM = Stream()
_streams = [0]


def select(platform, chip: AscendChip, device_id: int | None) -> None:
    """Record ``config.set_platform``'s choice."""
    _SELECTED.set(_Selection(platform, chip, 0 if device_id is None else device_id))


def selected_chip() -> AscendChip:
    """The product of the last ``set_platform`` (Ascend910B1 when none was called, pyasc's Model default)."""
    selection = _SELECTED.get()
    if selection is None:
        return chip_of(Platform.Ascend910B1)
    return selection.chip


def get_soc_version():
    """The selected ``config.Platform``."""
    selection = _SELECTED.get()
    return Platform.Ascend910B1 if selection is None else selection.platform


def is_available() -> bool:
    """The emulated device is always there."""
    return True


def is_model() -> bool:
    """npusim stands in for pyasc's Model backend."""
    return True


def device_count() -> int:
    return DEVICE_COUNT


def current_device() -> int:
    selection = _SELECTED.get()
    return 0 if selection is None else selection.device_id


def set_device(device_id: int) -> None:
    require_int("rt.set_device", "device_id", device_id, 0, DEVICE_COUNT - 1, SOURCE)


def current_stream(device_id: int | None = None) -> Stream:
    """The default stream of the device."""
    if device_id is not None:
        require_int("rt.current_stream", "device_id", device_id, 0, DEVICE_COUNT - 1, SOURCE)
    return _DEFAULT_STREAM


def create_stream(priority: int = 0) -> Stream:
    """A new stream; launches on it run at once, like those on the default stream."""
    require_int("rt.create_stream", "priority", priority, 0, 7, SOURCE)
    _streams[0] += 1
    return Stream(current_device(), _streams[0])


def destroy_stream(stream_handle: Stream) -> None:
    if not isinstance(stream_handle, Stream):
        raise TypeError(f"rt.destroy_stream: expected a Stream, got {type(stream_handle).__name__}")
    if stream_handle == _DEFAULT_STREAM:
        raise RuntimeMisuseError("rt.destroy_stream", "stream", "default", "the default stream cannot be destroyed",
                                 "a stream from rt.create_stream()", SOURCE)


def synchronize(stream_handle: Stream | None = None, timeout: int = 0) -> None:
    """Nothing to wait for: every launch has finished when it returns."""
    if stream_handle is not None and not isinstance(stream_handle, Stream):
        raise TypeError(f"rt.synchronize: expected a Stream, got {type(stream_handle).__name__}")


def synchronize_device() -> None:
    """Nothing to wait for: every launch has finished when it returns."""
