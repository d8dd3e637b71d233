"""pyasc's small language helpers under npusim: asc.property, asc.array, ShapeInfo, static_assert,
pipe_barrier with an int, set_l2_cache_hint, DType's predicate methods, printf, dump_tensor,
LocalTensor.print / to_file.

Expected values: pyasc's API as /work/helpers/pyasc's survey states it (api.md §4, §10, §11, §13)
and the Ascend C constants of dav-c220 (asc-devkit ``impl/basic_api/utils/kernel_utils_constants.h``:
DEFAULT_C0_SIZE 32, ONE_BLK_SIZE 32, TOTAL_L1_SIZE 512 KiB - 128, TOTAL_L0C_SIZE 128 KiB).
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend
from npusim.errors import ParameterRangeError, UnsupportedError


def test_property_constants_of_dav_c220(asc):
    with ascend.Core("A2"):
        values = {name: asc.property(getattr(asc, name))
                  for name in ("DEFAULT_C0_SIZE", "ONE_BLK_SIZE", "TOTAL_L1_SIZE", "TOTAL_L0C_SIZE")}
    assert values == {"DEFAULT_C0_SIZE": 32, "ONE_BLK_SIZE": 32, "TOTAL_L1_SIZE": 524160, "TOTAL_L0C_SIZE": 131072}
    assert type(values["ONE_BLK_SIZE"]) is np.int16 and type(values["TOTAL_L1_SIZE"]) is np.int32
    with pytest.raises(TypeError):
        asc.property("TOTAL_L1_SIZE")


def test_property_of_a_product_without_those_constants_is_unsupported(asc):
    with ascend.Core("310P"), pytest.raises(UnsupportedError):
        asc.property(asc.TOTAL_L1_SIZE)


def test_array_from_values_or_a_length(asc):
    shape = asc.array(asc.int32, (4, 8))
    assert len(shape) == 2 and (shape[0], shape[1]) == (4, 8) and type(shape[0]) is np.int32
    shape[1] = 9
    assert list(shape) == [4, 9]
    filled = asc.array(asc.float32, 3, fill_value=1.5)
    assert [float(v) for v in filled] == [1.5, 1.5, 1.5]
    with pytest.raises(ParameterRangeError):
        asc.array(asc.int32, 0)
    with pytest.raises(ParameterRangeError):
        shape[2]


def test_shape_info_on_tensors(asc):
    info = asc.ShapeInfo(asc.array(asc.int32, (4, 8)))
    assert (info.shape(0), info.shape(1), info.original_shape(1)) == (4, 8, 8)
    assert asc.get_shape_size(info) == 32
    other = asc.ShapeInfo(asc.array(asc.int32, (2, 3)), asc.array(asc.int32, (2, 4)), asc.DataFormat.NCHW)
    assert (other.original_shape(1), other.data_format) == (4, asc.DataFormat.NCHW)
    with ascend.Core("A2"):
        t = ascend.LocalTensor(ascend.float32, ascend.TPosition.VECIN, 0, 32)
        t.set_shape_info(info)
        assert t.get_shape_info() is info and t[8:].get_shape_info() is info
        g = ascend.GlobalTensor()
        g.set_shape_info(other)
        assert g.get_shape_info() is other
        with pytest.raises(TypeError):
            t.set_shape_info((4, 8))


def test_static_assert(asc):
    asc.static_assert(True)
    with pytest.raises(AssertionError, match="dtypes differ"):
        asc.static_assert(False, "dtypes differ")
    with pytest.raises(TypeError):
        asc.static_assert(1)


def test_pipe_barrier_takes_a_pipe_number(asc):
    with ascend.Core("A2") as core:
        asc.pipe_barrier(int(asc.PipeID.PIPE_V))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        assert [(r.kind, r.arg) for r in core.sync_log] == [("pipe_barrier", int(asc.PipeID.PIPE_V)),
                                                           ("pipe_barrier", int(asc.PipeID.PIPE_ALL))]
        with pytest.raises(ParameterRangeError):
            asc.pipe_barrier(99)


def test_set_l2_cache_hint_is_recorded_and_checked(asc):
    with ascend.Core("A2"):
        g = ascend.GlobalTensor()
        assert g.l2_cache_hint == (asc.CacheMode.CACHE_MODE_NORMAL, asc.CacheRwMode.RW)
        g.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.READ)
        assert g.l2_cache_hint == (asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.READ)
        with pytest.raises(TypeError):
            g.set_l2_cache_hint(1)


def test_dtype_predicates_are_methods_as_in_pyasc_and_still_truthy(asc):
    assert asc.int32.is_int() and asc.uint8.is_int() and not asc.half.is_int()
    assert asc.half.is_float() and not asc.int16.is_float()
    assert asc.int8.is_signed() and asc.uint16.is_unsigned() and not asc.int8.is_unsigned()
    assert asc.float32.is_numeric() and not asc.float32.is_void()
    assert asc.DataType("int32").is_int()
    assert bool(asc.float16.is_float) and not asc.int32.is_float  # npusim's own attribute use


def test_printf_replaces_str_arguments_and_formats_the_rest_as_c(asc, capsys):
    asc.printf("block %d of %s: %f %x\n", np.int32(3), "add", np.float32(1.5), 255)
    assert capsys.readouterr().out == "block 3 of add: 1.500000 ff\n"
    with pytest.raises(TypeError):
        asc.printf(7)


def test_dump_tensor_and_print_show_the_elements(asc, capsys, tmp_path):
    with ascend.Core("A2"):
        t = ascend.LocalTensor(ascend.int16, ascend.TPosition.VECIN, 0, 16)
        t.write(np.arange(16, dtype=np.int16))
        asc.dump_tensor(t, 7, 4)
        assert capsys.readouterr().out == "DumpTensor: desc=7, int16, 4 elements, UB 0x0\n[0, 1, 2, 3]\n"
        t.print(3)
        assert capsys.readouterr().out == "[0, 1, 2]\n"
        path = tmp_path / "t.bin"
        t.to_file(str(path))
        assert path.read_bytes() == np.arange(16, dtype="<i2").tobytes()
        with pytest.raises(ParameterRangeError):
            asc.dump_tensor(t, 7, 17)


def test_element_form_is_the_tensor_at_that_element(asc):
    with ascend.Core("A2"):
        t = ascend.LocalTensor(ascend.float32, ascend.TPosition.VECIN, 64, 16)
        assert (t(3).addr, t(3).tile_size) == (64 + 12, 13)
