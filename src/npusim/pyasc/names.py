"""The public names of pyasc's modules (hicann/pyasc at cecba26, the ``__all__`` lists; the 1.1.1 wheel has the same).

A name here that npusim does not model is still importable: using it raises an
:class:`~npusim.errors.UnsupportedError` naming the API (:mod:`npusim.pyasc.unmodelled`).
"""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


BASIC = _words("""
    ListTensorDesc TensorDesc abs add add_deq_relu add_relu add_relu_cast adds ascend_is_aic ascend_is_aiv
    axpy bilinear_interpolation bitwise_and bitwise_not bitwise_or block_reduce_max block_reduce_min
    block_reduce_sum brcb cast cast_deq check_local_memory_ia compare compare_scalar copy
    count_bits_cnt_same_as_sign_bit cross_core_set_flag cross_core_wait_flag data_cache_clean_and_invalid
    data_cache_preload data_copy data_copy_pad data_sync_barrier div dump_acc_chk_point dump_tensor duplicate
    exp fixpipe fused_mul_add fused_mul_add_relu gather gather_mask gatherb get_arch_version get_block_idx
    get_block_num get_cmp_mask get_data_block_size_in_bytes get_gather_mask_remain_count get_hccl_context
    get_icache_preload_status get_mrg_sort_result get_program_counter get_sort_len get_sort_offset
    get_store_atomic_config get_sub_block_idx get_sub_block_num get_sys_workspace get_system_cycle
    get_task_ratio ib_set ib_wait icache_preload init_const_value init_soc_state leaky_relu ln load_data
    load_data_with_sparse load_data_with_transpose load_image_to_local max maxs metrics_prof_start
    metrics_prof_stop min mins mmad mmad_with_sparse mrg_sort mrg_sort4 mul mul_add_dst mul_cast muls
    notify_next_block pair_reduce_sum pipe_barrier print_time_stamp printf proposal_concat proposal_extract
    reciprocal reduce_max reduce_min reduce_sum relu repeat_reduce_sum reset_mask rp_sort16 rsqrt scalar_cast
    scalar_count_leading_zero scalar_get_count_of_value scalar_get_sff_value scatter select set_aipp_functions
    set_atomic_add set_atomic_max set_atomic_min set_atomic_none set_atomic_type set_cmp_mask set_deq_scale
    set_fix_pipe_pre_quant_flag set_flag set_hccl_context set_hf32_mode set_hf32_trans_mode
    set_load_data_boundary set_load_data_padding_value set_load_data_repeat set_mask_count set_mask_norm
    set_mm_layout_transform set_pad_value set_store_atomic_config set_sys_workspace set_vector_mask shift_left
    shift_right sort sort32 sqrt sub sub_relu sub_relu_cast sync_all trans_data_to_5hd transpose trap
    wait_flag wait_pre_block whole_reduce_max whole_reduce_min whole_reduce_sum
""")

CORE = _words("""
    AippChannelPaddingParams AippColorSpaceConvParams AippDataTypeConvParams AippInputFormat AippPaddingParams
    AippParams AippSingleLineParams AippSwapParams AtomicDtype AtomicOp BatchMode BinaryRepeatParams BlockMode
    BrcbRepeatParams CMPMODE CO2Layout CacheLine CacheMode CacheRwMode CheckLocalMemoryIAParam ConstExpr
    CopyRepeatParams CubeFormat DEFAULT_C0_SIZE DataCopyCO12DstParams DataCopyEnhancedParams DataCopyExtParams
    DataCopyPadExtParams DataCopyPadParams DataCopyParams DataFormat DataType DcciDst DeqScale FixpipeConfig
    FixpipeParamsV220 GatherMaskMode GatherMaskParams GatherRepeatParams GlobalAddress GlobalTensor HardEvent
    Hardware InitConstValueParams IterateMode IterateOrder LayoutMode LoadData2DParams LoadData2DParamsV2
    LoadData2dTransposeParams LoadData2dTransposeParamsV2 LoadData3DParamsV1 LoadData3DParamsV2
    LoadData3DParamsV2Pro LoadDataRepeatParam LoadImageToLocalParams LocalMemAllocator LocalTensor
    LocalTensorAuto MaskMode MatmulConfigMode MemDsbT MmadParams MrgSort4Info MrgSortSrcList Nd2NzParams
    Nz2NdParamsFull ONE_BLK_SIZE PipeID QuantModes ReduceOrder RoundMode ScheduleType SelMode ShapeInfo
    SliceInfo TOTAL_L0C_SIZE TOTAL_L1_SIZE TPosition TransDataTo5HDParams TransposeParamsExt TransposeType
    UnaryRepeatParams VdeqInfo array ceildiv double float16 float32 float64 float_ get_shape_size half inline
    int16 int32 int64 int8 int_ number pad_t property range static_assert static_range uint16 uint32 uint64
    uint8 void
""")

FWK = _words("""
    TBuf TBufPool TPipe TQue TQueBind get_tpipe_ptr
""")

ADV = _words("""
    Matmul MatmulApiStaticTiling MatmulBatchParams MatmulConfig MatmulFuncParams MatmulQuantParams
    MatmulShapeParams MatmulType QuantConfig RmsNormTiling SoftmaxTiling TCubeTiling acos acosh asin asinh
    atan atanh axpy ceil concat cos cosh digamma erf erfc exp extract floor frac get_basic_config
    get_ib_share_norm_config get_matmul_api_tiling get_mdl_config get_mm_config get_normal_config
    get_special_basic_config get_special_mdl_config lgamma log power quant register_matmul rmsnorm round sign
    sin sinh softmax tan tanh trunc xor
""")

HOST = _words("""
    BatchMatmulTiling CubeFormat DataType DequantType MatmulApiTiling MatmulConfigParams MatrixMadType
    MatrixTraverse MultiCoreMatmulTiling PlatformAscendC PlatformAscendCManager ScheduleType TPosition
    get_ascendc_platform
""")

