/* npusim.h: the C ABI of npusim's Ascend vector unit (crate npusim-capi).
 *
 * Every function returns NPUSIM_OK (0) or an NPUSIM_E_* code; npusim_last_error() then gives a
 * message naming the instruction, the parameter, the rule and the value (per thread, valid until
 * the next failing call). No call unwinds: panics inside the library become NPUSIM_E_PANIC.
 *
 * Link libnpusim_capi.a / libnpusim_capi.so and call the functions directly, or get the same
 * functions as one table with npusim_api(NPUSIM_ABI_VERSION) (the C++ face kernel_operator.h
 * uses the table).
 */
#ifndef NPUSIM_H
#define NPUSIM_H

#include <stdint.h>

#define NPUSIM_ABI_VERSION 1

/* Status codes. */
#define NPUSIM_OK 0
#define NPUSIM_E_ARG 1    /* null pointer, unknown name or code */
#define NPUSIM_E_RULE 2   /* a documented restriction of the instruction */
#define NPUSIM_E_MEMORY 3 /* capacity exhausted, access outside a tensor or memory */
#define NPUSIM_E_TYPE 4   /* an element type the instruction does not take on this chip */
#define NPUSIM_E_ALIGN 5  /* an address misses its alignment rule */
#define NPUSIM_E_QUEUE 6  /* misuse of the TQue discipline (reported by a face) */
#define NPUSIM_E_PANIC 7  /* internal error caught at the boundary */

/* Memory spaces. */
#define NPUSIM_GM 0
#define NPUSIM_UB 1

/* Element types (npusim_tensor.dtype). */
#define NPUSIM_DT_U8 0
#define NPUSIM_DT_I8 1
#define NPUSIM_DT_U16 2
#define NPUSIM_DT_I16 3
#define NPUSIM_DT_U32 4
#define NPUSIM_DT_I32 5
#define NPUSIM_DT_U64 6
#define NPUSIM_DT_I64 7
#define NPUSIM_DT_F16 8
#define NPUSIM_DT_BF16 9
#define NPUSIM_DT_F32 10

/* The kernel-pointer value of GM address 0: a kernel receives GM buffers as
 * (__gm__ uint8_t*)(NPUSIM_GM_VBASE + address); the face never dereferences them. */
#define NPUSIM_GM_VBASE 0x100000000000ULL

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npusim_device npusim_device;

/* A tensor view: `bytes` of `space` from `base`, viewed from element `offset`. */
typedef struct npusim_tensor {
    uint32_t space;
    uint32_t dtype;
    uint64_t base;
    uint64_t bytes;
    uint64_t offset;
} npusim_tensor;

/* A scalar: kind 0 = integer `i`, kind 1 = float `f`. */
typedef struct npusim_scalar {
    uint32_t kind;
    int64_t i;
    double f;
} npusim_scalar;

/* A mask: kind 0 = bit-wise {lo, hi}, 1 = continuous `count`, 2 = MASK_PLACEHOLDER. */
typedef struct npusim_mask {
    uint32_t kind;
    uint64_t lo;
    uint64_t hi;
    uint64_t count;
} npusim_mask;

/* A printf argument: kind 0 signed `i`, 1 unsigned (or bool) `u`, 2 float `f`, 3 string `s`,
 * 4 pointer `u`. */
typedef struct npusim_print_arg {
    uint32_t kind;
    int64_t i;
    uint64_t u;
    double f;
    const char* s;
} npusim_print_arg;

uint32_t npusim_abi_version(void);
const char* npusim_last_error(void);

/* chip: a profile name or alias ("ascend910b", "910b", "a2", "ascend910", "310p", ...). */
int npusim_device_new(const char* chip, uint64_t gm_bytes, npusim_device** out);
void npusim_device_free(npusim_device* dev);
int npusim_device_info(npusim_device* dev, uint64_t* gm_bytes, uint64_t* ub_bytes,
                       uint32_t* block_idx, uint32_t* block_num);
/* A 32-byte aligned region of NPUSIM_GM or NPUSIM_UB, capacity checked. */
int npusim_alloc(npusim_device* dev, uint32_t space, uint64_t bytes, uint64_t* addr);
/* Block idx of num: zeroed UB, no UB allocation, reset mask. GM persists. */
int npusim_block_begin(npusim_device* dev, uint32_t idx, uint32_t num);
int npusim_write(npusim_device* dev, uint32_t space, uint64_t addr, const void* data, uint64_t len);
int npusim_read(npusim_device* dev, uint32_t space, uint64_t addr, void* data, uint64_t len);
/* Element `index` of a view; bits little-endian, zero-extended. */
int npusim_get_value(npusim_device* dev, const npusim_tensor* t, uint64_t index, uint64_t* bits);
int npusim_set_value(npusim_device* dev, const npusim_tensor* t, uint64_t index, uint64_t bits);

/* Element-wise rows by their Ascend C name ("Add", "Exp", "Adds", "Cast", "Duplicate", ...).
 * round: RoundMode (0 CAST_NONE, 1 RINT, 2 FLOOR, 3 CEIL, 4 ROUND, 5 TRUNC, 6 ODD); scalar may
 * be NULL. */
int npusim_vec_count(npusim_device* dev, const char* instr, const npusim_tensor* dst,
                     const npusim_tensor* srcs, uint32_t nsrcs, const npusim_scalar* scalar,
                     uint32_t round, int64_t count);
/* blk/rep: block and repeat strides of dst, src0, src1 (3 values each). */
int npusim_vec_repeat(npusim_device* dev, const char* instr, const npusim_tensor* dst,
                      const npusim_tensor* srcs, uint32_t nsrcs, const npusim_scalar* scalar,
                      uint32_t round, const npusim_mask* mask, uint32_t is_set_mask,
                      int32_t repeat, const int64_t* blk, const int64_t* rep);
/* count * sizeof(T) must be a multiple of 32 bytes. */
int npusim_data_copy(npusim_device* dev, const npusim_tensor* dst, const npusim_tensor* src,
                     uint32_t count);
int npusim_data_copy_params(npusim_device* dev, const npusim_tensor* dst,
                            const npusim_tensor* src, uint16_t block_count, uint16_t block_len,
                            uint16_t src_stride, uint16_t dst_stride);
int npusim_pair_reduce_sum(npusim_device* dev, const npusim_tensor* dst, const npusim_tensor* src,
                           int32_t repeat, const npusim_mask* mask, uint32_t is_set_mask,
                           int32_t dst_rep_stride, int32_t src_blk_stride,
                           int32_t src_rep_stride);
/* "ReduceSum", "ReduceMax", "ReduceMin". */
int npusim_reduce_all(npusim_device* dev, const char* instr, const npusim_tensor* dst,
                      const npusim_tensor* src, int32_t count);
/* Ascend 950 loop mode of DataCopy / DataCopyPad: type is DataCopyMVType (0 UB_TO_OUT, 1
 * OUT_TO_UB); params = {loop1Size, loop2Size, loop1SrcStride, loop1DstStride, loop2SrcStride,
 * loop2DstStride} arms it (SetLoopModePara), NULL resets it (ResetLoopModePara). */
int npusim_set_loop_mode(npusim_device* dev, uint32_t type, const uint64_t* params);
/* SetDeqScale: form 0 SetDeqScale(half scale) (scale rounded to half), 1 SetDeqScale(float
 * scale, int16_t offset, bool signMode). */
int npusim_set_deq_scale(npusim_device* dev, uint32_t form, float scale, int32_t offset,
                         uint32_t sign_mode);
/* SetDeqScale(vdeq, VdeqInfo): scale, offset, sign_mode point at 16 values each. */
int npusim_set_deq_scale_vdeq(npusim_device* dev, const npusim_tensor* vdeq, const float* scale,
                              const int16_t* offset, const uint8_t* sign_mode);
/* CastDequant: flags bit 0 isVecDeq, bit 1 halfBlock; mask NULL: the count form over count
 * elements; else the mask/repeat form (blk, rep: dst and src strides, 2 values each). */
int npusim_cast_dequant(npusim_device* dev, const npusim_tensor* dst, const npusim_tensor* src,
                        uint32_t flags, const npusim_mask* mask, uint32_t is_set_mask,
                        int32_t repeat, const int64_t* blk, const int64_t* rep, uint32_t count);
/* DataCopyPad with DataCopyExtParams: flags bit 0 pad params given (GM -> UB), bit 1 isPad,
 * bit 2 PaddingMode::Compact; pad_value is read when isPad is set. */
int npusim_data_copy_pad(npusim_device* dev, const npusim_tensor* dst, const npusim_tensor* src,
                         uint16_t block_count, uint32_t block_len, int64_t src_stride,
                         uint32_t dst_stride, uint32_t flags, uint8_t left, uint8_t right,
                         const npusim_scalar* pad_value);
/* SetPadValue<T>(value): dtype is T's NPUSIM_DT_* code. */
int npusim_set_pad_value(npusim_device* dev, uint32_t dtype, const npusim_scalar* value);
/* "WholeReduceSum", "WholeReduceMax", "WholeReduceMin", "RepeatReduceSum", "BlockReduceSum",
 * "BlockReduceMax", "BlockReduceMin" with their mask and strides. */
int npusim_reduce(npusim_device* dev, const char* instr, const npusim_tensor* dst,
                  const npusim_tensor* src, const npusim_mask* mask, uint32_t is_set_mask,
                  int32_t repeat, int32_t dst_rep_stride, int32_t src_blk_stride,
                  int32_t src_rep_stride);
/* SetAtomicAdd<T>() with T's NPUSIM_DT_* code; a negative code: SetAtomicNone(). */
int npusim_set_atomic(npusim_device* dev, int32_t dtype);
/* Data rearrangement and CMPMASK by Ascend C name; tensors / ints in this order:
 *   "Brcb": dst, src; repeatTime, dstBlkStride, dstRepStride
 *   "CreateVecIndex": dst; count; scalar = firstValue
 *   "Gather": dst, src, srcOffset; srcBaseAddr, count
 *   "GatherMask": dst, src0 [, src1Pattern tensor]; src1Pattern (built-in 1..7, ignored with a
 *      tensor), reduceMode, mask, src0BlockStride, repeatTimes, src0RepeatStride,
 *      src1RepeatStride; *out = rsvdCnt
 *   "Transpose": dst, src
 *   "Compare" (into CMPMASK): src0, src1; cmpMode, mask kind (0 bits, 1 count), lo or count, hi,
 *      src0BlkStride, src1BlkStride
 *   "SetCmpMask": src;  "GetCmpMask": dst */
int npusim_rearrange(npusim_device* dev, const char* instr, const npusim_tensor* tensors,
                     uint32_t ntensors, const int64_t* ints, uint32_t nints,
                     const npusim_scalar* scalar, uint64_t* out);
/* npusim_rearrange, further names (tensors; ints; *out):
 *   "Compare" (into CMPMASK) takes an optional 7th integer isSetMask (1 when absent; 0 reads the
 *      lanes from the mask register, normal or counter mode)
 *   "Sort32": dst, src0, src1 (uint32 indices); repeatTime
 *   "RpSort16": dst, src; repeatTime
 *   "ProposalConcat" / "ProposalExtract": dst, src; repeatTime, modeNumber
 *   "MrgSort" / "MrgSort4": dst, src1, src2, src3, src4; elementLengths[4],
 *      ifExhaustedSuspension, validBit, repeatTimes; *out = GetMrgSortResult
 *   "GetMrgSortResult": -; -; *out = the four counts, 16 bits each, list 1 lowest
 *   "TransDataTo5HD": dstList[16], srcList[16]; dstHighHalf, srcHighHalf, repeatTimes,
 *      dstRepStride, srcRepStride
 *   "GetAccVal" / "GetReduceRepeatSumSpr": -; T's NPUSIM_DT_* code; *out = the value's bits
 *   "GetReduceMaxMinCount" / "GetReduceRepeatMaxMinSpr": -; T's code, withIndex; *out = value
 *      bits | index bits << 32
 *   "DataCopySlice": dst, src; dimValue, then dimValue x {startIndex, endIndex, stride,
 *      burstLen, shapeValue} of dst, then of src
 *   "Gatherb": dst, src, offset (uint32 byte offsets); repeatTime, dstBlkStride, dstRepStride
 *   "BilinearInterpolation": dst, src0, src0Offset, src1, sharedTmpBuffer; maskMode (0: mask
 *      is a count, 1: mask[0], mask[1]), mask or mask[0], mask[1] (0 with a count), hRepeat,
 *      repeatMode, dstBlkStride, vROffset, vRepeat
 *   "CompareRepeat": dst (uint8/int8 bits), src0, src1; cmpMode, repeatTime, src0BlkStride,
 *      src1BlkStride, src0RepStride, src1RepStride (mask is reserved: not passed)
 *   "CompareScalarRepeat": dst, src0 and the scalar; cmpMode, repeatTime, srcBlkStride,
 *      srcRepStride
 * At most 32 tensors and 128 ints. */
/* cmp_mode: CMPMODE LT 0, GT 1, EQ 2, LE 3, GE 4, NE 5; src1 or scalar (CompareScalar). */
int npusim_compare(npusim_device* dev, uint32_t cmp_mode, const npusim_tensor* dst,
                   const npusim_tensor* src0, const npusim_tensor* src1,
                   const npusim_scalar* scalar, uint32_t count);
/* sel_mode: SELMODE 0 CMPMASK_SPR, 1 TENSOR_SCALAR, 2 TENSOR_TENSOR. */
int npusim_select(npusim_device* dev, uint32_t sel_mode, const npusim_tensor* dst,
                  const npusim_tensor* sel_mask, const npusim_tensor* src0,
                  const npusim_tensor* src1, const npusim_scalar* scalar, uint32_t count);
/* op 0 SetVectorMask(hi = a, lo = b), 1 SetVectorMask(len = a), 2 SetMaskCount,
 * 3 SetMaskNorm, 4 ResetMask. */
int npusim_set_mask(npusim_device* dev, uint32_t op, uint64_t a, uint64_t b);
/* Records a face-detected error in the common format; returns code. */
int npusim_fail(int32_t code, const char* instr, const char* param, const char* rule,
                const char* value);
/* Prefixes this thread's last error with "file:line: ". */
void npusim_locate(const char* file, uint32_t line);

/* AscendC::printf (call "printf") / PRINTF (call "PRINTF") at file:line: the text goes to
 * stdout, each line tagged "[block B FILE:LINE]". Conversions d i u x f s p. */
int npusim_print(npusim_device* dev, const char* call, const char* file, uint32_t line,
                 const char* fmt, const npusim_print_arg* args, uint32_t nargs);
/* AscendC::DumpTensor(t, desc, dump_size[, ShapeInfo(ndim, shape)]) at file:line (shape NULL
 * and ndim 0: no ShapeInfo); printed like npusim_print. */
int npusim_dump_tensor(npusim_device* dev, const char* file, uint32_t line,
                       const npusim_tensor* t, uint32_t desc, uint32_t dump_size,
                       const uint32_t* shape, uint32_t ndim);

/* Bit-exact conversions (round to nearest even). */
uint16_t npusim_f32_to_f16(float v);
float npusim_f16_to_f32(uint16_t bits);
uint16_t npusim_f32_to_bf16(float v);
float npusim_bf16_to_f32(uint16_t bits);

/* The same functions as one table (same order as the Rust `Api` struct). */
typedef struct npusim_api_v1 {
    uint32_t abi_version;
    const char* (*last_error)(void);
    int (*device_info)(npusim_device*, uint64_t*, uint64_t*, uint32_t*, uint32_t*);
    int (*alloc)(npusim_device*, uint32_t, uint64_t, uint64_t*);
    int (*write)(npusim_device*, uint32_t, uint64_t, const void*, uint64_t);
    int (*read)(npusim_device*, uint32_t, uint64_t, void*, uint64_t);
    int (*get_value)(npusim_device*, const npusim_tensor*, uint64_t, uint64_t*);
    int (*set_value)(npusim_device*, const npusim_tensor*, uint64_t, uint64_t);
    int (*vec_count)(npusim_device*, const char*, const npusim_tensor*, const npusim_tensor*,
                     uint32_t, const npusim_scalar*, uint32_t, int64_t);
    int (*vec_repeat)(npusim_device*, const char*, const npusim_tensor*, const npusim_tensor*,
                      uint32_t, const npusim_scalar*, uint32_t, const npusim_mask*, uint32_t,
                      int32_t, const int64_t*, const int64_t*);
    int (*data_copy)(npusim_device*, const npusim_tensor*, const npusim_tensor*, uint32_t);
    int (*data_copy_params)(npusim_device*, const npusim_tensor*, const npusim_tensor*, uint16_t,
                            uint16_t, uint16_t, uint16_t);
    int (*pair_reduce_sum)(npusim_device*, const npusim_tensor*, const npusim_tensor*, int32_t,
                           const npusim_mask*, uint32_t, int32_t, int32_t, int32_t);
    int (*reduce_all)(npusim_device*, const char*, const npusim_tensor*, const npusim_tensor*,
                      int32_t);
    int (*compare)(npusim_device*, uint32_t, const npusim_tensor*, const npusim_tensor*,
                   const npusim_tensor*, const npusim_scalar*, uint32_t);
    int (*select)(npusim_device*, uint32_t, const npusim_tensor*, const npusim_tensor*,
                  const npusim_tensor*, const npusim_tensor*, const npusim_scalar*, uint32_t);
    int (*set_mask)(npusim_device*, uint32_t, uint64_t, uint64_t);
    int (*fail)(int32_t, const char*, const char*, const char*, const char*);
    void (*locate)(const char*, uint32_t);
    uint16_t (*f32_to_f16)(float);
    float (*f16_to_f32)(uint16_t);
    uint16_t (*f32_to_bf16)(float);
    float (*bf16_to_f32)(uint16_t);
    /* appended: new entries only ever go at the end */
    int (*set_loop_mode)(npusim_device*, uint32_t, const uint64_t*);
    int (*set_deq_scale)(npusim_device*, uint32_t, float, int32_t, uint32_t);
    int (*set_deq_scale_vdeq)(npusim_device*, const npusim_tensor*, const float*, const int16_t*,
                              const uint8_t*);
    int (*cast_dequant)(npusim_device*, const npusim_tensor*, const npusim_tensor*, uint32_t,
                        const npusim_mask*, uint32_t, int32_t, const int64_t*, const int64_t*,
                        uint32_t);
    int (*data_copy_pad)(npusim_device*, const npusim_tensor*, const npusim_tensor*, uint16_t,
                         uint32_t, int64_t, uint32_t, uint32_t, uint8_t, uint8_t,
                         const npusim_scalar*);
    int (*set_pad_value)(npusim_device*, uint32_t, const npusim_scalar*);
    int (*reduce)(npusim_device*, const char*, const npusim_tensor*, const npusim_tensor*,
                  const npusim_mask*, uint32_t, int32_t, int32_t, int32_t, int32_t);
    int (*set_atomic)(npusim_device*, int32_t);
    int (*rearrange)(npusim_device*, const char*, const npusim_tensor*, uint32_t, const int64_t*,
                     uint32_t, const npusim_scalar*, uint64_t*);
    int (*print)(npusim_device*, const char*, const char*, uint32_t, const char*,
                 const npusim_print_arg*, uint32_t);
    int (*dump_tensor)(npusim_device*, const char*, uint32_t, const npusim_tensor*, uint32_t,
                       uint32_t, const uint32_t*, uint32_t);
} npusim_api_v1;

/* The table, or NULL when version != NPUSIM_ABI_VERSION. */
const npusim_api_v1* npusim_api(uint32_t version);

#ifdef __cplusplus
}
#endif

#endif /* NPUSIM_H */
