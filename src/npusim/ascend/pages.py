"""The Ascend C pages npusim's rules come from, as error sources name them (``docs/semantics.md`` §0.1).

Each constant is the path of a page in the ``asc-devkit`` repository under ``docs/zh/api/``
(``guide/...``: under ``docs/zh/``); a source adds one of the page's section headings, e.g.
``f"{SELECT} 约束说明"``.  The same tree is the Ascend C API reference on hiascend.com.
"""

from __future__ import annotations

_BASIC = "SIMD-API/基础API"
_VECTOR = f"{_BASIC}/Memory矢量计算"
_SIMD = f"{_VECTOR}/SIMD计算说明"
_CMPSEL = f"{_VECTOR}/比较与选择"
_COPY = f"{_VECTOR}/数据搬运"
_PIPE = f"{_BASIC}/资源管理/Pipe和Que框架"
C_API = "SIMD-API/C-API/vector_compute"  # + "/asc_<name>.md"
C_API_DATAMOVE = "SIMD-API/C-API/vector_datamove"  # + "/asc_<name>.md" or "/asc_<name>/asc_<name>_arch_<arch>.md"
C_API_NDIM_PAD_COUNT_CONFIG = "SIMD-API/C-API/struct/asc_ndim_pad_count_config.md"
ARITHMETIC = f"{_VECTOR}/基础算术"  # + "/Add.md", "/Muls.md" ...
LOGIC = f"{_VECTOR}/逻辑计算"  # + "/And.md", "/ShiftLeft.md" ...
COMPOUND = f"{_VECTOR}/复合计算"  # + "/AddRelu.md" ...
CAST = f"{_VECTOR}/类型转换/Cast.md"
REG_CAST = f"{_BASIC}/Reg矢量计算/类型转换/Cast.md"  # the register form's page: the hifloat8_t conversion rules
BUILTIN_TYPES = f"{_BASIC}/数据结构/内置数据类型.md"  # the element types' encodings (hifloat8_t: 表6, 表7)
REDUCE = f"{_VECTOR}/归约计算"  # + "/ReduceRepeat.md" ...
# The pages of the legacy names (BlockReduceSum ... WholeReduceMax, RepeatReduceSum) were removed on 2026-06-10
# (asc-devkit 3825d1c98); they lie at the same path under docs/api/ (not docs/zh/api/) in its parent commit.
REDUCE_LEGACY = REDUCE

# general rules
GENERAL = "SIMD-API/通用说明和约束.md"
C_API_GENERAL = "SIMD-API/C-API/通用说明和约束.md"
HIGH_DIM = f"{_SIMD}/高维切分.md"
MASK_PARAMETERS = f"{_SIMD}/掩码/通用说明.md"
MASK_OVERVIEW = f"{_SIMD}/掩码/概述.md"
MASK_IN_API = f"{_SIMD}/掩码/接口内设置Mask.md"
SET_VECTOR_MASK = f"{_VECTOR}/掩码操作/SetVectorMask.md"
SET_MASK_COUNT = f"{_VECTOR}/掩码操作/SetMaskCount.md"
VECTOR_ARCHITECTURE = f"{_VECTOR}/Vector逻辑架构/Vector逻辑架构.md"
BINARY_REPEAT_PARAMS = f"{_BASIC}/辅助数据结构/BinaryRepeatParams.md"
UNARY_REPEAT_PARAMS = f"{_BASIC}/辅助数据结构/UnaryRepeatParams.md"

# compare and select
SELECT = f"{_CMPSEL}/Select.md"
COMPARE = f"{_CMPSEL}/Compare.md"
COMPARES = f"{_CMPSEL}/Compares.md"
COMPARE_TO_REGISTER = f"{_CMPSEL}/Compare（结果存入寄存器）.md"
COMPARES_FLEXIBLE = f"{_CMPSEL}/Compares（灵活标量位置）.md"
SELECT_FLEXIBLE = f"{_CMPSEL}/Select（灵活标量位置）.md"
SET_CMP_MASK = f"{_CMPSEL}/SetCmpMask(ISASI).md"
GET_CMP_MASK = f"{_CMPSEL}/GetCmpMask(ISASI).md"

# layout conversion, data movement, fill
TRANS_DATA_TO_5HD = f"{_VECTOR}/数据排布转换/TransDataTo5HD.md"
DATA_COPY = f"{_COPY}/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md"
DATA_COPY_PARAMS = f"{_COPY}/GM与UB数据搬运/GM与UB高维切分数据搬运(DataCopy).md"
DATA_COPY_ND2NZ = f"{_COPY}/GM与UB数据搬运/GMToUB随路转换ND2NZ搬运(DataCopy).md"
DATA_COPY_NZ2ND = f"{_COPY}/GM与UB数据搬运/UBToGM随路转换NZ2ND搬运(DataCopy).md"
DATA_COPY_NDDMA = f"{_COPY}/GM与UB数据搬运/GMToUB多维数据搬运NDDMA(DataCopy).md"
ND_DMA_DCI = f"{_COPY}/GM与UB数据搬运/寄存器配置说明/NdDmaDci.md"
DATA_COPY_SLICE = f"{_COPY}/GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md"
DATA_COPY_UB = f"{_COPY}/UB与UB数据搬运/UBToUB连续数据搬运(DataCopy).md"
DATA_COPY_PAD = f"{_COPY}/GM与UB数据搬运/GMToUB非对齐数据搬运(DataCopyPad).md"
SET_LOOP_MODE_PARA = f"{_COPY}/GM与UB数据搬运/寄存器配置说明/SetLoopModePara.md"
RESET_LOOP_MODE_PARA = f"{_COPY}/GM与UB数据搬运/寄存器配置说明/ResetLoopModePara.md"
SET_PAD_VALUE = f"{_COPY}/GM与UB数据搬运/寄存器配置说明/SetPadValue(ISASI).md"
DUPLICATE = f"{_VECTOR}/数据填充/Duplicate.md"
BRCB = f"{_VECTOR}/数据填充/Brcb.md"
CREATE_VEC_INDEX = f"{_VECTOR}/数据填充/CreateVecIndex.md"
VECTOR_PADDING = f"{_VECTOR}/数据填充/VectorPadding(ISASI).md"
COPY = f"{_COPY}/UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md"
COPY_COUNT = f"{_COPY}/UB与UB数据搬运/UBToUB连续数据搬运(Copy).md"
TRANSPOSE = f"{_VECTOR}/数据排布转换/Transpose.md"
GATHER = f"{_VECTOR}/离散与聚合/Gather.md"
GET_REDUCE_REPEAT_SUM_SPR = f"{REDUCE}/寄存器辅助接口/GetReduceRepeatSumSpr(ISASI).md"
GET_REDUCE_REPEAT_MAX_MIN_SPR = f"{REDUCE}/寄存器辅助接口/GetReduceRepeatMaxMinSpr(ISASI).md"
GATHERB = f"{_VECTOR}/离散与聚合/Gatherb(ISASI).md"
SCATTER = f"{_VECTOR}/离散与聚合/Scatter(ISASI).md"
GATHER_MASK = f"{_CMPSEL}/GatherMask.md"
BILINEAR_INTERPOLATION = f"{ARITHMETIC}/BilinearInterpolation(ISASI).md"
SET_SATURATION_FLAG = f"{_BASIC}/特殊寄存器访问/SetSaturationFlag(ISASI).md"

# the high-level (adv) APIs
ASCEND_QUANT = "SIMD-API/高阶API/量化操作/AscendQuant.md"
ASCEND_QUANT_TMP_SIZE = "SIMD-API/高阶API/量化操作/GetAscendQuantMaxMinTmpSize.md"
# the 950's own (ISASI) element-wise instructions and rearranges
NEG = f"{ARITHMETIC}/Neg(ISASI).md"
PRELU = f"{ARITHMETIC}/Prelu(ISASI).md"
MULL = f"{ARITHMETIC}/Mull(ISASI).md"
ABS_SUB = f"{COMPOUND}/AbsSub(ISASI).md"
EXP_SUB = f"{COMPOUND}/ExpSub(ISASI).md"
MULS_CAST = f"{COMPOUND}/MulsCast(ISASI).md"
ANDS = f"{LOGIC}/Ands.md"
ORS = f"{LOGIC}/Ors.md"
SHIFT_LEFT_TENSOR = f"{LOGIC}/ShiftLeft（左移位数为Tensor）.md"
SHIFT_RIGHT_TENSOR = f"{LOGIC}/ShiftRight（右移位数为Tensor）.md"
TRUNCATE = f"{_VECTOR}/类型转换/Truncate(ISASI).md"
SET_DEQ_SCALE = f"{_VECTOR}/类型转换/寄存器配置说明/SetDeqScale.md"
CAST_DEQUANT = f"{COMPOUND}/CastDequant.md"
ADD_DEQ_RELU = f"{COMPOUND}/AddDeqRelu.md"
# the multiply-adds whose 数据类型 tables list half sources with a float dst (docs/semantics.md §5.26)
AXPY = f"{COMPOUND}/Axpy.md"
MUL_ADD_DST = f"{COMPOUND}/MulAddDst.md"
INTERLEAVE = f"{_VECTOR}/数据重排（ISASI）/Interleave.md"
DEINTERLEAVE = f"{_VECTOR}/数据重排（ISASI）/DeInterleave.md"

# runtime
SET_GLOBAL_BUFFER = f"{_BASIC}/数据结构/GlobalTensor/SetGlobalBuffer.md"
INIT_BUFFER = f"{_PIPE}/TPipe/InitBuffer.md"
TPIPE_INTRO = f"{_PIPE}/TPipe/TPipe简介.md"
TBUFPOOL_INIT_BUF_POOL = f"{_PIPE}/TBufPool/InitBufPool-55.md"
_ALLOCATOR = f"{_BASIC}/资源管理/内存管理/LocalMemAllocator"
LOCAL_MEM_ALLOCATOR_INTRO = f"{_ALLOCATOR}/LocalMemAllocator简介.md"
LOCAL_MEM_ALLOCATOR_CONSTRUCTOR = f"{_ALLOCATOR}/LocalMemAllocator构造函数.md"
LOCAL_MEM_ALLOCATOR_ALLOC = f"{_ALLOCATOR}/Alloc.md"
TPIPE_DESTROY = f"{_PIPE}/TPipe/Destroy.md"
TQUE_INTRO = f"{_PIPE}/TQue/TQue简介.md"
ALLOC_TENSOR = f"{_PIPE}/TQue/AllocTensor.md"
ENQUE = f"{_PIPE}/TQue/EnQue.md"
DEQUE = f"{_PIPE}/TQue/DeQue.md"
FREE_TENSOR = f"{_PIPE}/TQue/FreeTensor.md"
TBUF_GET_WITH_OFFSET = f"{_PIPE}/TBuf/GetWithOffset.md"
SET_FLAG = f"{_BASIC}/同步控制/核内同步/SetFlag-WaitFlag(ISASI).md"
GET_BLOCK_NUM = f"{_BASIC}/工具接口/系统资源与变量/GetBlockNum.md"
GET_BLOCK_IDX = f"{_BASIC}/工具接口/系统资源与变量/GetBlockIdx.md"
KERNEL_LAUNCH = "guide/编程指南/语言扩展层/SIMD-BuiltIn关键字.md"

# high-level APIs (SIMD-API/高阶API)
SOFTMAX = "SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax.md"
SOFTMAX_TILING = "SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax-SimpleSoftMax-Tiling.md"
_MATH = "SIMD-API/高阶API/数学计算"
FLOOR = f"{_MATH}/Floor接口/Floor.md"
CEIL = f"{_MATH}/Ceil接口/Ceil.md"
TRUNC = f"{_MATH}/Trunc接口/Trunc.md"
ROUND = f"{_MATH}/Round接口/Round.md"
FRAC = f"{_MATH}/Frac接口/Frac.md"
SIGN = f"{_MATH}/Sign接口/Sign.md"
# sort (排序组合)
_SORT = f"{_VECTOR}/排序组合（ISASI）"
SORT32 = f"{_SORT}/Sort32.md"
MRG_SORT = f"{_SORT}/MrgSort.md"
MRG_SORT4 = f"{_SORT}/MrgSort4.md"
GET_MRG_SORT_RESULT = f"{_SORT}/GetMrgSortResult.md"
_SORT_HIGH_LEVEL = "SIMD-API/高阶API/排序操作"
MRG_SORT_HIGH_LEVEL = f"{_SORT_HIGH_LEVEL}/MrgSort-93.md"
SORT_HIGH_LEVEL = f"{_SORT_HIGH_LEVEL}/Sort.md"
GET_SORT_LEN = f"{_SORT_HIGH_LEVEL}/GetSortLen.md"
GET_SORT_OFFSET = f"{_SORT_HIGH_LEVEL}/GetSortOffset.md"
GET_SORT_MAX_MIN_TMP_SIZE = f"{_SORT_HIGH_LEVEL}/GetSortMaxMinTmpSize.md"
PROPOSAL_CONCAT = f"{_SORT}/ProposalConcat.md"
PROPOSAL_EXTRACT = f"{_SORT}/ProposalExtract.md"
RP_SORT16 = f"{_SORT}/RpSort16.md"

# 标量计算: the scalar unit's computations (docs/semantics.md §5.35)
SCALAR = f"{_BASIC}/标量计算"  # + "/GetBitCount.md" ...
SCALAR_CAST_HALF_INT32 = f"{SCALAR}/Cast（float转half-int32_t）.md"
SCALAR_CAST_BF16 = f"{SCALAR}/Cast（float转bfloat16_t）.md"
SCALAR_CAST_FLOAT = f"{SCALAR}/Cast（多类型转float）.md"
C_API_SCALAR = "SIMD-API/C-API/scalar_compute"  # + "/asc_<name>.md"
