"""AIPP configuration: fields checked against their C types, the configuration recorded on the core."""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.errors import ParameterRangeError
from npusim.pyasc import aipp


def test_set_aipp_functions_records_the_configuration_on_the_running_core():
    with asc.Core("A2") as core:
        gm = asc.GlobalTensor()
        gm.set_global_buffer(asc.gm_alloc(asc.uint8, 64))
        config = aipp.AippParams(dtype=asc.int8, swap_params=aipp.AippSwapParams(is_swap_rb=True))
        assert aipp.aipp_config(core) is None
        aipp.set_aipp_functions(gm, aipp.AippInputFormat.RGB888_U8, config)
        sources, input_format, recorded = aipp.aipp_config(core)
        assert sources == (gm,) and input_format is aipp.AippInputFormat.RGB888_U8 and recorded is config
        assert recorded.swap_params.is_swap_rb and recorded.csc_params == aipp.AippColorSpaceConvParams()
        with pytest.raises(TypeError, match="GlobalTensor"):
            aipp.set_aipp_functions("gm", aipp.AippInputFormat.RGB888_U8, config)
        with pytest.raises(TypeError, match="AippInputFormat"):
            aipp.set_aipp_functions(gm, 4, config)


def test_fields_are_checked_against_their_c_types():
    with pytest.raises(TypeError, match="is_swap_rb must be a bool"):
        aipp.AippSwapParams(is_swap_rb=1)
    with pytest.raises(ParameterRangeError) as caught:
        aipp.AippDataTypeConvParams(dtc_mean_ch0=256)
    assert caught.value.allowed == "[0, 255]"
    with pytest.raises(ParameterRangeError):
        aipp.AippColorSpaceConvParams(csc_matrix_r0_c0=1 << 15)
    with pytest.raises(TypeError, match="int8 or asc.float16"):
        aipp.AippParams(dtype=asc.float32)
    with pytest.raises(TypeError, match="swap_params must be"):
        aipp.AippParams(dtype=asc.float16, swap_params=aipp.AippPaddingParams())
