"""pyasc launches: options, argument typing, device copies with pyasc's slack, the tolerance policy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.runtime import LocalTensorAuto
from npusim.ascend.runtime.gm import device_allocation_bytes
from npusim.errors import (
    GmPastEndWarning,
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
)
from npusim.pyasc import config, set_policy
from npusim.pyasc import runtime as rt
from npusim.pyasc.cint import CInt32
from npusim.pyasc.jit import jit


@pytest.fixture(autouse=True)
def hardware_policy():
    set_policy("hardware")
    yield
    set_policy("hardware")


def copy_kernel_of(count: int):
    """z[:count] = x[:count] through one VECIN buffer, whatever the tensors' own lengths."""

    @jit
    def copy_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        z_gm.set_global_buffer(z)
        local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, count)
        asc.data_copy(local, x_gm, count)
        asc.data_copy(z_gm, local, count)

    return copy_kernel


# ------------------------------------------------------------------ options
def test_unknown_options_and_parameters_named_like_options_are_type_errors():
    with pytest.raises(TypeError, match="unknown option names"):
        jit(opt_levl=2)(lambda x: None)
    with pytest.raises(TypeError, match="conflict with jit option names"):
        jit(lambda debug: None)
    with pytest.raises(ParameterRangeError):
        jit(opt_level=4)(lambda x: None)
    with pytest.raises(TypeError):
        jit(always_compile="yes")(lambda x: None)


@pytest.mark.parametrize("options", [{"kernel_type": config.KernelType.AIC_ONLY}, {"matmul_cube_only": True}])
def test_cube_kernels_are_unsupported(options):
    with pytest.raises(UnsupportedError):
        jit(**options)(lambda x: None)


def test_compile_options_at_the_call_are_accepted_and_launch_options_belong_in_brackets():
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(8, dtype=np.float32)
    kernel = jit(kernel_type=config.KernelType.AIV_ONLY)(copy_kernel_of(8).fn)
    kernel[1, rt.current_stream()](x, z, always_compile=True, insert_sync=True)
    assert z.tobytes() == x.tobytes()
    with pytest.raises(TypeError, match="inside the brackets"):
        kernel[1](x, z, core_num=2)
    with pytest.raises(TypeError, match="stream must come from"):
        kernel[1, "stream0"](x, z)
    with pytest.raises(TypeError):
        kernel[1](x, z, w=3)  # not a parameter of the kernel


# ------------------------------------------------------------------ arguments
def test_runtime_scalars_are_typed_from_their_values_and_constexpr_values_are_not():
    seen = {}

    @jit
    def kernel(flag, n, f, k: asc.ConstExpr[int], g: asc.ConstExpr):  # annotations are strings here
        seen.update(flag=flag, n=n, f=f, k=k, g=g)

    kernel[1](True, 7, 0.1, 2**40, 0.5)
    assert type(seen["flag"]) is np.int8 and type(seen["n"]) is CInt32 and type(seen["f"]) is np.float32
    assert seen["f"].tobytes() == bytes.fromhex("cdcccc3d")  # 0.1 rounded to float32: 0x3dcccccd
    assert seen["k"] == 2**40 and type(seen["k"]) is int and seen["g"] == 0.5
    with pytest.raises(ParameterRangeError) as caught:
        kernel[1](True, 2**31, 0.1, 1, 0)
    assert caught.value.operand == "n"
    with pytest.raises(TypeError, match=r"ConstExpr\[int\] is required"):
        kernel[1](True, 1, 0.1, 1.5, 0)


def test_a_float_scalar_reaches_a_half_instruction_rounded_through_float32():
    # 1 + 2**-11 + 2**-40 lies just above the midpoint of the halves 1.0 (0x3c00) and 1 + 2**-10 (0x3c01):
    # rounded once it is 0x3c01; rounded to float32 first it is the midpoint itself, which ties to even: 0x3c00.
    @jit
    def fill(z: asc.GlobalAddress, value):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z)
        local = asc.LocalTensor(asc.half, asc.TPosition.VECOUT, 0, 16)
        asc.duplicate(local, value, 16)
        asc.data_copy(z_gm, local, 16)

    z = np.zeros(16, dtype=np.float16)
    fill[1](z, 1 + 2**-11 + 2**-40)
    assert z.view(np.uint16).tolist() == [0x3C00] * 16


def test_helpers_called_from_a_kernel_get_int32_arguments():
    seen = []

    @jit
    def helper(i, n: asc.ConstExpr[int]):
        seen.append((type(i), type(n)))

    @jit
    def kernel():
        for i in range(2):
            helper(i, 4)

    kernel[1]()
    assert seen == [(CInt32, int)] * 2  # int32 with C's arithmetic (docs/semantics.md §10.9)


# ------------------------------------------------------------------ GM
@pytest.mark.parametrize(("nbytes", "allocation"), [(4, 4096), (3584, 2 << 20), (2048, 4096), (2049, 2 << 20),
                                                    ((2 << 20) - 512, 2 << 20), ((2 << 20) - 511, 4 << 20)])
def test_device_allocations_are_the_tensor_plus_512_bytes_in_whole_pages(nbytes, allocation):
    assert device_allocation_bytes(nbytes) == allocation


def test_hardware_policy_reads_past_a_tensor_with_a_warning_and_copies_back_only_the_tensor():
    x = np.arange(1, 5, dtype=np.float32)  # 16 bytes; the kernel moves 64
    z = np.full(4, -1, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copy_kernel_of(16)[1](x, z)
    assert z.tobytes() == x.tobytes()
    past = [w for w in caught if issubclass(w.category, GmPastEndWarning)]
    assert len(past) == 2  # the read of x and the write of z
    assert "runs 48 bytes past the 16-byte host tensor" in str(past[0].message)
    assert "data_copy" in str(past[0].message) and "[0x0, 0x40)" in str(past[0].message)


def test_strict_policy_raises_and_leaves_the_host_tensor_unchanged():
    set_policy("strict")
    x = np.arange(1, 5, dtype=np.float32)
    z = np.full(4, -1, dtype=np.float32)
    with pytest.raises(OutOfBoundsError) as caught:
        copy_kernel_of(16)[1](x, z)
    assert caught.value.instruction == "data_copy" and "policy 'strict'" in caught.value.rule
    assert z.tolist() == [-1, -1, -1, -1]


def test_an_access_past_the_allocation_is_an_error_under_either_policy():
    x = np.zeros(8, dtype=np.float32)  # 32 bytes in a 4096-byte allocation
    z = np.zeros(8, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match="outside GM arg x"):
        copy_kernel_of(1032)[1](x, z)


def test_torch_and_strided_numpy_tensors_are_copied_back_in_their_own_layout():
    torch = pytest.importorskip("torch")
    x = torch.arange(8, dtype=torch.float32)
    z = torch.zeros(8)
    copy_kernel_of(8)[1](x, z)
    assert z.numpy().tobytes() == x.numpy().tobytes()
    base = np.zeros(16, dtype=np.int32)
    copy_kernel_of(8)[1](np.arange(8, dtype=np.int32), base[::2])
    assert base.tolist() == [0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0]


def test_dry_run_runs_the_kernel_but_copies_nothing_back(monkeypatch):
    monkeypatch.setenv("DRY_RUN", "1")
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(8, dtype=np.float32)
    copy_kernel_of(8)[1](x, z)
    assert not z.any()
    with pytest.raises(OutOfBoundsError):  # kernel errors still surface
        copy_kernel_of(1032)[1](x, z)


# ------------------------------------------------------------------ LocalTensorAuto
def test_local_tensor_auto_has_one_buffer_per_place_and_the_previous_tensor_made_there_dies():
    addresses = []

    @jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        z_gm.set_global_buffer(z)
        for i in range(4):
            a = LocalTensorAuto(asc.float32, 8)
            b = LocalTensorAuto(asc.float32, (2, 4))
            addresses.append((a.addr, b.addr))
            asc.data_copy(a, x_gm[i * 8:], 8)
            asc.adds(b, a, 1.0, 8)
            asc.data_copy(z_gm[i * 8:], b, 8)
            if i == 0:
                view = b[4:]
        with pytest.raises(RuntimeMisuseError, match="LocalTensorAuto at"):
            view.get_value(0)  # the view of iteration 0's tensor died when iteration 1 made its own

    x = np.arange(32, dtype=np.float32)
    z = np.zeros(32, dtype=np.float32)
    kernel[1](x, z)
    assert z.tobytes() == (x + 1).tobytes()
    top = asc.get_chip("A2").vec_local_bytes
    assert addresses[0] == (top - 32, top - 64)
    assert len(set(addresses)) == 1  # every iteration reuses the two buffers
