"""config.set_platform and the runtime: pyasc's backends and SoCs mapped to npusim's products."""

from __future__ import annotations

import pytest

from npusim.errors import ParameterRangeError, UnsupportedError
from npusim.pyasc import config
from npusim.pyasc import runtime as rt


@pytest.fixture(autouse=True)
def default_platform():
    yield
    config.set_platform(config.Backend.Model)


def test_model_without_a_soc_is_ascend910b1_on_the_a2_row():
    config.set_platform("Model")
    assert rt.get_soc_version() is config.Platform.Ascend910B1
    assert rt.selected_chip().name == "A2"


@pytest.mark.parametrize(("platform", "row"), [("Ascend910B3", "A2"), ("Ascend910_9391", "A3")])
def test_a_modelled_soc_selects_its_product_row(platform, row):
    config.set_platform(config.Backend.Model, config.Platform(platform))
    assert rt.selected_chip().name == row
    assert rt.get_soc_version().value == platform


def test_every_platform_pyasc_lists_is_modelled_or_a_clear_error():
    modelled = []
    for platform in config.Platform:
        try:
            config.set_platform("Model", platform)
            modelled.append(platform.value)
        except UnsupportedError as err:
            assert err.operand == "soc_version" and err.value == platform.value
            assert "Ascend910B1" in err.allowed
    assert len(modelled) == 9  # every name but Ascend910B2C, Ascend910B4-1 and Ascend910_9362


def test_npu_backend_is_unsupported_and_unknown_names_are_value_errors():
    with pytest.raises(UnsupportedError) as caught:
        config.set_platform(config.Backend.NPU)
    assert caught.value.allowed == "Backend.Model"
    with pytest.raises(ValueError):
        config.set_platform("Simulator")
    with pytest.raises(ValueError):
        config.set_platform("Model", "Ascend310")


def test_device_ids_and_streams():
    with pytest.raises(ParameterRangeError):
        config.set_platform("Model", device_id=1)
    config.set_platform("Model", device_id=0)
    assert rt.current_device() == 0 and rt.device_count() == 1
    stream = rt.create_stream()
    assert stream != rt.current_stream()
    rt.synchronize(stream)
    rt.destroy_stream(stream)
    with pytest.raises(TypeError):
        rt.synchronize("stream")
