"""Struct kernel arguments: members typed as declared, nested structs copied, the kernel gets a copy."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError
from npusim.pyasc.jit import jit
from npusim.pyasc.namespaces import KnownTypes as KT
from npusim.pyasc.struct import Field, Struct, StructField


class Tile(Struct):
    length = Field(dtype=KT.int32, default=0)
    scale = Field(dtype=KT.float32, default=0.1)


class Config(Struct):
    count = Field(dtype=KT.uint8)
    tile = StructField(Tile)


def test_members_are_stored_as_their_element_type():
    config = Config(count=200)
    assert type(config.count) is np.uint8 and config.count == 200
    assert type(config.tile.length) is np.int32 and config.tile.scale.tobytes() == bytes.fromhex("cdcccc3d")
    with pytest.raises(ParameterRangeError) as caught:
        config.count = 256
    assert caught.value.allowed == "[0, 255]" and config.count == 200
    with pytest.raises(TypeError, match="has no default"):
        Config()
    with pytest.raises(TypeError, match="has no member 'size'"):
        Config(count=1, size=2)
    with pytest.raises(AttributeError):
        config.size = 3


def test_assigning_a_nested_struct_copies_it():
    tile = Tile(length=64)
    config = Config(count=1, tile=tile)
    tile.length = 128
    assert config.tile.length == 64
    config.tile = tile
    tile.length = 256
    assert config.tile.length == 128


def test_declarations_are_checked():
    with pytest.raises(TypeError, match="at least one"):
        type("Empty", (Struct,), {})
    with pytest.raises(UnsupportedError):
        Field(dtype=KT.half)


def test_a_kernel_reads_the_members_and_its_writes_stay_in_its_copy():
    seen = []

    @jit
    def kernel(config: Config):
        seen.append((type(config.tile.length), int(config.tile.length)))
        config.tile.length = 7

    config = Config(count=1, tile=Tile(length=512))
    kernel[2](config)
    assert seen == [(np.int32, 512), (np.int32, 512)]  # each block starts from the host's values
    assert config.tile.length == 512
    assert asc.int32 is KT.int32
