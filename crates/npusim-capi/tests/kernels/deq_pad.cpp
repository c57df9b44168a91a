// DataCopyPad, SetPadValue, SetDeqScale and CastDequant through the C++ face (kernel_operator.h
// over the C ABI). Each kernel moves or converts one small tensor; tests/deq_pad.rs checks the
// outputs against byte models written from the pages' formulas.
#include "kernel_operator.h"
using namespace AscendC;

// GM [3 rows of 20 int16 with 3-element gaps] -> UB rows of 32 (left 2, right 3 of value 9, the
// rest of each 32-byte block also 9), dstStride 1 block; then the whole UB (128 int16) back to
// y, and the first 22 elements of the 3 UB rows back to z with 2-element gaps (UB -> GM,
// srcStride 1 block).
extern "C" __global__ __aicore__ void pad_rows(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<int16_t> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 66);
    yGm.SetGlobalBuffer((__gm__ int16_t*)y, 128);
    zGm.SetGlobalBuffer((__gm__ int16_t*)z, 72);
    pipe.InitBuffer(buf, 128 * sizeof(int16_t));
    LocalTensor<int16_t> u = buf.Get<int16_t>();
    DataCopyExtParams in(3, 20 * sizeof(int16_t), 3 * sizeof(int16_t), 1, 0);
    DataCopyPadExtParams<int16_t> pad(true, 2, 3, 9);
    DataCopyPad(u, xGm, in, pad);
    DataCopyPad(yGm, u, DataCopyExtParams(1, 128 * sizeof(int16_t), 0, 0, 0));
    DataCopyPad(zGm, u, DataCopyExtParams(3, 22 * sizeof(int16_t), 1, 2 * sizeof(int16_t), 0));
}

// SetPadValue<half>(-2) then DataCopyPad with isPad = false through the DataCopyParams /
// DataCopyPadParams form: 2 rows of 5 halves, each row padded to 16 with -2 (A2/A3, 950).
extern "C" __global__ __aicore__ void pad_value(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 10);
    yGm.SetGlobalBuffer((__gm__ half*)y, 32);
    pipe.InitBuffer(buf, 32 * sizeof(half));
    LocalTensor<half> u = buf.Get<half>();
    SetPadValue<half>(half(-2.0f));
    DataCopyPad(u, xGm, DataCopyParams(2, 5 * sizeof(half), 0, 0), DataCopyPadParams(false, 0, 0, 0));
    DataCopy(yGm, u, 32);
}

// CastDequant int16 -> int8 per tensor, count form, halfBlock = false: scale 0.5, offset 3,
// signMode true; 256 int16 give 16 blocks with their 16 bytes in bytes 0..15.
extern "C" __global__ __aicore__ void dequant_tensor(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<int16_t> xGm;
    GlobalTensor<int8_t> yGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 256);
    yGm.SetGlobalBuffer((__gm__ int8_t*)y, 512);
    pipe.InitBuffer(bx, 512);
    pipe.InitBuffer(by, 512);
    LocalTensor<int16_t> s = bx.Get<int16_t>();
    LocalTensor<int8_t> d = by.Get<int8_t>();
    DataCopy(s, xGm, 256);
    DataCopy(d, yGm, 512);
    SetDeqScale(0.5f, (int16_t)3, true);
    CastDequant<int8_t, int16_t, false, false>(d, s, 256);
    DataCopy(yGm, d, 512);
}

// CastDequant int16 -> int8 with vector quantization, mask/repeat form (mask bits all set, 2
// repeats, strides 1/1/8/8), halfBlock = true: configuration j (element j of each block) has
// scale 2^(j%4-2), offset j-8, signMode true. Bytes 0..15 of each block keep y's values.
extern "C" __global__ __aicore__ void dequant_vector(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bv;
    GlobalTensor<int16_t> xGm;
    GlobalTensor<int8_t> yGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 256);
    yGm.SetGlobalBuffer((__gm__ int8_t*)y, 512);
    pipe.InitBuffer(bx, 512);
    pipe.InitBuffer(by, 512);
    pipe.InitBuffer(bv, 128);
    LocalTensor<int16_t> s = bx.Get<int16_t>();
    LocalTensor<int8_t> d = by.Get<int8_t>();
    LocalTensor<uint64_t> v = bv.Get<uint64_t>();
    DataCopy(s, xGm, 256);
    DataCopy(d, yGm, 512);
    float sc[16];
    int16_t off[16];
    bool sg[16];
    const float pw[4] = {0.25f, 0.5f, 1.0f, 2.0f};
    for (int j = 0; j < 16; ++j) {
        sc[j] = pw[j % 4];
        off[j] = (int16_t)(j - 8);
        sg[j] = true;
    }
    SetDeqScale(v, VdeqInfo(sc, off, sg));
    uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
    CastDequant<int8_t, int16_t, true, true, true>(d, s, mask, 2, UnaryRepeatParams(1, 1, 8, 8));
    DataCopy(yGm, d, 512);
}

// CastDequant int32 -> half after SetDeqScale(half 0.5): 64 elements, count form.
extern "C" __global__ __aicore__ void dequant_s32(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<int32_t> xGm;
    GlobalTensor<half> yGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x, 64);
    yGm.SetGlobalBuffer((__gm__ half*)y, 64);
    pipe.InitBuffer(bx, 256);
    pipe.InitBuffer(by, 128);
    LocalTensor<int32_t> s = bx.Get<int32_t>();
    LocalTensor<half> d = by.Get<half>();
    DataCopy(s, xGm, 64);
    SetDeqScale(half(0.5f));
    CastDequant<half, int32_t>(d, s, 64);
    DataCopy(yGm, d, 64);
}

// A restriction through the face: signMode true needs an int8_t destination (uint8_t here).
extern "C" __global__ __aicore__ void dequant_wrong_sign(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<int16_t> xGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 256);
    (void)y;
    pipe.InitBuffer(bx, 512);
    pipe.InitBuffer(by, 512);
    LocalTensor<int16_t> s = bx.Get<int16_t>();
    LocalTensor<uint8_t> d = by.Get<uint8_t>();
    DataCopy(s, xGm, 256);
    SetDeqScale(0.5f, (int16_t)3, true);
    CastDequant<uint8_t, int16_t, false, false>(d, s, 256);
}
