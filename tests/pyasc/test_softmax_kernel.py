"""A pyasc kernel calling asc.adv.softmax as pyasc's insert_sync softmax test does, run through the import hook.

Each block copies its rows tile by tile into a LocalTensorAuto, gives src/dst the tile's
(rows, width) ShapeInfo and sum/max a (rows, 8) one, calls ``asc.adv.softmax`` in place with a
default-constructed ``SoftmaxTiling`` (the kernel then derives its own, docs/softmax.md §1.2),
copies the result UB -> UB with the count form of ``data_copy`` and back to GM.  The result is
compared byte for byte with tests/ascend/softmax_reference.py and, as pyasc's test does, with a
plain softmax within an absolute 1/size.
"""

import numpy as np

from tests.ascend import softmax_reference as ref


def _softmax_kernel(asc, config):
    @asc.jit(kernel_type=config.KernelType.AIV_ONLY, insert_sync=True)
    def kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, rows: asc.ConstExpr[int], width: asc.ConstExpr[int],
               tiles: asc.ConstExpr[int], blocks: asc.ConstExpr[int]):
        tile_rows = rows // blocks // tiles
        tile = tile_rows * width
        src_gm, dst_gm = asc.GlobalTensor(), asc.GlobalTensor()
        src_gm.set_global_buffer(src)
        dst_gm.set_global_buffer(dst)
        for t in asc.range(tiles):
            start = (asc.get_block_idx() * tiles + t) * tile
            data = asc.LocalTensorAuto(src.dtype, tile)
            row_sum = asc.LocalTensorAuto(src.dtype, tile_rows * 8)
            row_max = asc.LocalTensorAuto(src.dtype, tile_rows * 8)
            out = asc.LocalTensorAuto(dst.dtype, tile)
            asc.data_copy(data, src_gm[start:], count=tile)
            data.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (tile_rows, width))))
            out.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (tile_rows, width))))
            reduced = asc.ShapeInfo(asc.array(asc.int32, (tile_rows, 8)))
            row_sum.set_shape_info(reduced)
            row_max.set_shape_info(reduced)
            asc.adv.softmax(data, row_sum, row_max, data, asc.adv.SoftmaxTiling())
            asc.data_copy(out, data, count=tile)
            asc.data_copy(dst_gm[start:], out, count=tile)

    return kernel


def test_in_place_softmax_with_a_default_tiling_over_blocks_and_tiles(asc):
    import asc.lib.runtime as rt
    import asc.runtime.config as config

    config.set_platform(config.Backend.Model)
    rows, width, tiles, blocks = 64, 512, 2, 4
    src = (np.random.default_rng(2025).random((rows, width), dtype=np.float32) * np.float32(5)).astype(np.float32)
    dst = np.zeros_like(src)
    _softmax_kernel(asc, config)[blocks, rt.current_stream()](src, dst, rows, width, tiles, blocks)
    expected, _, _ = ref.softmax_rows(src, width)
    assert dst.tobytes() == expected.tobytes()
    shifted = np.exp(src.astype(np.float64) - src.max())
    np.testing.assert_allclose(dst, shifted / shifted.sum(axis=1, keepdims=True), atol=1 / src.size)
