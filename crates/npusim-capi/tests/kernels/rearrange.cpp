// Brcb, CreateVecIndex, Gather, GatherMask, Transpose and Compare into CMPMASK with
// SetCmpMask / GetCmpMask through the C++ face (kernel_operator.h over the C ABI's
// npusim_rearrange); tests/rearrange.rs checks each output against a plain model.
#include "kernel_operator.h"
using namespace AscendC;

// a: 256 uint16. out: [0..256) Brcb of a[0..16] (2 repeats, params {1, 8}); [256..512)
// Transpose of a as 16x16; [512..640) Gather of a[1 + off[i] / 2] for 100 lanes (the rest of
// that slice keeps a[512..640] as loaded).
extern "C" __global__ __aicore__ void moves16(GM_ADDR a, GM_ADDR off, GM_ADDR out)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bo, bd;
    GlobalTensor<uint16_t> aGm, outGm;
    GlobalTensor<uint32_t> offGm;
    aGm.SetGlobalBuffer((__gm__ uint16_t*)a, 640);
    offGm.SetGlobalBuffer((__gm__ uint32_t*)off, 128);
    outGm.SetGlobalBuffer((__gm__ uint16_t*)out, 640);
    pipe.InitBuffer(ba, 640 * 2);
    pipe.InitBuffer(bo, 128 * 4);
    pipe.InitBuffer(bd, 640 * 2);
    LocalTensor<uint16_t> s = ba.Get<uint16_t>();
    LocalTensor<uint32_t> o = bo.Get<uint32_t>();
    LocalTensor<uint16_t> d = bd.Get<uint16_t>();
    DataCopy(s, aGm, 640);
    DataCopy(o, offGm, 128);
    DataCopy(d, aGm, 640);
    Brcb(d, s, 2, BrcbRepeatParams(1, 8));
    Transpose(d[256], s);
    Gather(d[512], s, o, 2, 100);
    DataCopy(outGm, d, 640);
}

// CreateVecIndex<int32_t>(dst, -5, 100) over 128 elements loaded from y; GatherMask pattern 2
// over x (256 uint32, in place, 4 repeats) with rsvdCnt stored in n[0].
extern "C" __global__ __aicore__ void index_mask(GM_ADDR x, GM_ADDR y, GM_ADDR n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<uint32_t> xGm;
    GlobalTensor<int32_t> yGm, nGm;
    xGm.SetGlobalBuffer((__gm__ uint32_t*)x, 256);
    yGm.SetGlobalBuffer((__gm__ int32_t*)y, 128);
    nGm.SetGlobalBuffer((__gm__ int32_t*)n, 8);
    pipe.InitBuffer(bx, 256 * 4);
    pipe.InitBuffer(by, 128 * 4);
    LocalTensor<uint32_t> s = bx.Get<uint32_t>();
    LocalTensor<int32_t> d = by.Get<int32_t>();
    DataCopy(d, yGm, 128);
    CreateVecIndex(d, -5, 100);
    DataCopy(yGm, d, 128);
    DataCopy(s, xGm, 256);
    uint64_t rsvdCnt = 0;
    GatherMask(s, s, 2, false, 0, GatherMaskParams(1, 4, 8, 0), rsvdCnt);
    DataCopy(xGm, s, 256);
    nGm.SetValue(0, (int32_t)rsvdCnt);
}

// CMPMASK = the 16 bytes of m; Compare LT of a[0..64] with b[0..64] (floats) on the lanes of
// mask bits {0xF0F0F0F0F0F0F0F0, 0}; then GetCmpMask back into m.
extern "C" __global__ __aicore__ void cmpmask(GM_ADDR a, GM_ADDR b, GM_ADDR m)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bm;
    GlobalTensor<float> aGm, bGm;
    GlobalTensor<uint8_t> mGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, 64);
    bGm.SetGlobalBuffer((__gm__ float*)b, 64);
    mGm.SetGlobalBuffer((__gm__ uint8_t*)m, 32);
    pipe.InitBuffer(ba, 256);
    pipe.InitBuffer(bb, 256);
    pipe.InitBuffer(bm, 32);
    LocalTensor<float> x = ba.Get<float>();
    LocalTensor<float> y = bb.Get<float>();
    LocalTensor<uint8_t> r = bm.Get<uint8_t>();
    DataCopy(x, aGm, 64);
    DataCopy(y, bGm, 64);
    DataCopy(r, mGm, 32);
    SetCmpMask(r);
    uint64_t mask[2] = {0xF0F0F0F0F0F0F0F0ull, 0};
    Compare(x, y, CMPMODE::LT, mask, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    GetCmpMask(r);
    DataCopy(mGm, r, 32);
}

// Copy (UB -> UB with a mask), the page's second call shape: 18 repeats of the first 8 int32 of
// each 64-element source row (mask 8), srcRepeatSize 8, dstRepeatSize 1 (rows packed).
extern "C" __global__ __aicore__ void copy_rows(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<int32_t> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x, 18 * 64);
    yGm.SetGlobalBuffer((__gm__ int32_t*)y, 18 * 8);
    pipe.InitBuffer(bx, 18 * 64 * 4);
    pipe.InitBuffer(by, 18 * 8 * 4);
    LocalTensor<int32_t> s = bx.Get<int32_t>();
    LocalTensor<int32_t> d = by.Get<int32_t>();
    DataCopy(s, xGm, 18 * 64);
    uint64_t mask = 8;
    Copy(d, s, mask, 18, CopyRepeatParams(1, 1, 1, 8));
    DataCopy(yGm, d, 18 * 8);
}
