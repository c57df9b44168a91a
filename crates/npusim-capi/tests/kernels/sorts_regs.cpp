// Sort32, MrgSort, GetMrgSortResult, ProposalConcat/RpSort16/ProposalExtract, TransDataTo5HD,
// the reduction registers (GetAccVal, GetReduceMaxMinCount), DataCopy with slices and the
// mixed-precision MulAddDst / Axpy through the C++ face (kernel_operator.h over the C ABI's
// npusim_rearrange and npusim_vec_*); tests/sorts_regs.rs checks each output against a plain
// model.
#include "kernel_operator.h"
using namespace AscendC;

// s: 64 float scores, ix: 64 uint32 indices. o: Sort32 of 2 repeats (64 (score, index) pairs,
// as 128 floats); m: MrgSort of the two sorted halves (elementLengths {32, 32}, validBit 3);
// n[0..4]: GetMrgSortResult.
extern "C" __global__ __aicore__ void sorts(GM_ADDR s, GM_ADDR ix, GM_ADDR o, GM_ADDR m, GM_ADDR n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bi, bo, bm;
    GlobalTensor<float> sGm, oGm, mGm;
    GlobalTensor<uint32_t> iGm;
    GlobalTensor<int32_t> nGm;
    sGm.SetGlobalBuffer((__gm__ float*)s, 64);
    iGm.SetGlobalBuffer((__gm__ uint32_t*)ix, 64);
    oGm.SetGlobalBuffer((__gm__ float*)o, 128);
    mGm.SetGlobalBuffer((__gm__ float*)m, 128);
    nGm.SetGlobalBuffer((__gm__ int32_t*)n, 8);
    pipe.InitBuffer(bs, 64 * 4);
    pipe.InitBuffer(bi, 64 * 4);
    pipe.InitBuffer(bo, 128 * 4);
    pipe.InitBuffer(bm, 128 * 4);
    LocalTensor<float> ls = bs.Get<float>();
    LocalTensor<uint32_t> li = bi.Get<uint32_t>();
    LocalTensor<float> lo = bo.Get<float>();
    LocalTensor<float> lm = bm.Get<float>();
    DataCopy(ls, sGm, 64);
    DataCopy(li, iGm, 64);
    Sort32(lo, ls, li, 2);
    DataCopy(oGm, lo, 128);
    uint16_t lens[4] = {32, 32, 0, 0};
    MrgSort(lm, MrgSortSrcList<float>(lo, lo[64]), MrgSort4Info(lens, false, 3, 1));
    DataCopy(mGm, lm, 128);
    uint16_t c[4];
    GetMrgSortResult(c[0], c[1], c[2], c[3]);
    for (int i = 0; i < 4; ++i) nGm.SetValue(i, c[i]);
}

// a: 16 half scores. p: ProposalConcat of a into field 4 of 16 region proposals, 128 halves
// loaded from p beforehand; q: RpSort16 of p; e: ProposalExtract of field 4 of q (16 halves).
extern "C" __global__ __aicore__ void proposal_ops(GM_ADDR a, GM_ADDR p, GM_ADDR q, GM_ADDR e)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bp, bq, be;
    GlobalTensor<half> aGm, pGm, qGm, eGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, 16);
    pGm.SetGlobalBuffer((__gm__ half*)p, 128);
    qGm.SetGlobalBuffer((__gm__ half*)q, 128);
    eGm.SetGlobalBuffer((__gm__ half*)e, 16);
    pipe.InitBuffer(ba, 16 * 2);
    pipe.InitBuffer(bp, 128 * 2);
    pipe.InitBuffer(bq, 128 * 2);
    pipe.InitBuffer(be, 16 * 2);
    LocalTensor<half> la = ba.Get<half>();
    LocalTensor<half> lp = bp.Get<half>();
    LocalTensor<half> lq = bq.Get<half>();
    LocalTensor<half> le = be.Get<half>();
    DataCopy(la, aGm, 16);
    DataCopy(lp, pGm, 128);
    ProposalConcat(lp, la, 1, 4);
    RpSort16(lq, lp, 1);
    ProposalExtract(le, lq, 1, 4);
    DataCopy(pGm, lp, 128);
    DataCopy(qGm, lq, 128);
    DataCopy(eGm, le, 16);
}

// x: 256 uint16 as a 16 x 16 matrix; y: TransDataTo5HD with srcList[i] = x[16 i], dstList[j] =
// y[16 j], repeatTimes 1, strides 0 (the 16 x 16 transpose).
extern "C" __global__ __aicore__ void trans5hd(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<uint16_t> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, 256);
    yGm.SetGlobalBuffer((__gm__ uint16_t*)y, 256);
    pipe.InitBuffer(bx, 512);
    pipe.InitBuffer(by, 512);
    LocalTensor<uint16_t> lx = bx.Get<uint16_t>();
    LocalTensor<uint16_t> ly = by.Get<uint16_t>();
    DataCopy(lx, xGm, 256);
    LocalTensor<uint16_t> src[NCHW_CONV_ADDR_LIST_SIZE], dst[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < 16; ++i) {
        src[i] = lx[16 * i];
        dst[i] = ly[16 * i];
    }
    TransDataTo5HD<uint16_t>(dst, src, TransDataTo5HDParams(false, false, 1, 0, 0));
    DataCopy(yGm, ly, 256);
}

// x: 128 floats. r[0]: ReduceSum of x[0..100); r[1]: GetAccVal<float>(); r[2], r[3]:
// WholeReduceMax of 2 contiguous repeats of 64 (mask 64), then GetReduceMaxMinCount (value,
// index bits); r[4]: GetReduceRepeatMaxMinSpr value only.
extern "C" __global__ __aicore__ void regs(GM_ADDR x, GM_ADDR r)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bd, bt;
    GlobalTensor<float> xGm, rGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 128);
    rGm.SetGlobalBuffer((__gm__ float*)r, 8);
    pipe.InitBuffer(bx, 128 * 4);
    pipe.InitBuffer(bd, 64 * 4);
    pipe.InitBuffer(bt, 128 * 4);
    LocalTensor<float> lx = bx.Get<float>();
    LocalTensor<float> ld = bd.Get<float>();
    LocalTensor<float> lt = bt.Get<float>();
    DataCopy(lx, xGm, 128);
    ReduceSum(ld, lx, lt, 100);
    rGm.SetValue(0, ld.GetValue(0));
    rGm.SetValue(1, GetAccVal<float>());
    WholeReduceMax<float>(ld, lx, 64, 2, 1, 1, 8);
    float v = 0, i = 0, w = 0;
    GetReduceMaxMinCount<float>(v, i);
    GetReduceRepeatMaxMinSpr<float>(w);
    rGm.SetValue(2, v);
    rGm.SetValue(3, i);
    rGm.SetValue(4, w);
}

// x: 4 x 64 uint16 in GM; y: rows 0 and 2, columns 0..31, into a 2 x 32 UB tensor by DataCopy
// with slices, then UB -> GM into y[0..64] by the slice form back (the same 2 x 32 shape).
extern "C" __global__ __aicore__ void slice(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    GlobalTensor<uint16_t> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, 256);
    yGm.SetGlobalBuffer((__gm__ uint16_t*)y, 64);
    pipe.InitBuffer(b, 64 * 2);
    LocalTensor<uint16_t> l = b.Get<uint16_t>();
    SliceInfo srcS[2] = {SliceInfo(0, 31, 0, 2, 64), SliceInfo(0, 2, 1, 1, 4)};
    SliceInfo dstS[2] = {SliceInfo(0, 31, 0, 2, 32), SliceInfo(0, 1, 0, 1, 2)};
    DataCopy(l, xGm, dstS, srcS, 2);
    DataCopy(yGm, l, dstS, dstS, 2);
}

// a, b: 256 half; d: 256 float. MulAddDst d += a * b (mask 64 x 4 repeats, {1, 1, 1, 8, 4, 4});
// then Axpy d[..] += 2 * a as the count form over 256.
extern "C" __global__ __aicore__ void mixed(GM_ADDR a, GM_ADDR b, GM_ADDR d, GM_ADDR e)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bd, be;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> dGm, eGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, 256);
    bGm.SetGlobalBuffer((__gm__ half*)b, 256);
    dGm.SetGlobalBuffer((__gm__ float*)d, 256);
    eGm.SetGlobalBuffer((__gm__ float*)e, 256);
    pipe.InitBuffer(ba, 512);
    pipe.InitBuffer(bb, 512);
    pipe.InitBuffer(bd, 1024);
    pipe.InitBuffer(be, 1024);
    LocalTensor<half> la = ba.Get<half>();
    LocalTensor<half> lb = bb.Get<half>();
    LocalTensor<float> ld = bd.Get<float>();
    LocalTensor<float> le = be.Get<float>();
    DataCopy(la, aGm, 256);
    DataCopy(lb, bGm, 256);
    DataCopy(ld, dGm, 256);
    DataCopy(le, eGm, 256);
    MulAddDst(ld, la, lb, 64, 4, BinaryRepeatParams(1, 1, 1, 8, 4, 4));
    Axpy(le, la, (half)2.0, 256);
    DataCopy(dGm, ld, 256);
    DataCopy(eGm, le, 256);
}

// x: 128 uint16, off: 8 uint32 byte offsets; y: Gatherb of x by off (repeatTime 1, {1, 8}).
extern "C" __global__ __aicore__ void gatherb(GM_ADDR x, GM_ADDR off, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bo, by;
    GlobalTensor<uint16_t> xGm, yGm;
    GlobalTensor<uint32_t> oGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, 128);
    oGm.SetGlobalBuffer((__gm__ uint32_t*)off, 8);
    yGm.SetGlobalBuffer((__gm__ uint16_t*)y, 128);
    pipe.InitBuffer(bx, 256);
    pipe.InitBuffer(bo, 32);
    pipe.InitBuffer(by, 256);
    LocalTensor<uint16_t> lx = bx.Get<uint16_t>();
    LocalTensor<uint32_t> lo = bo.Get<uint32_t>();
    LocalTensor<uint16_t> ly = by.Get<uint16_t>();
    DataCopy(lx, xGm, 128);
    DataCopy(lo, oGm, 8);
    Gatherb<uint16_t>(ly, lx, lo, 1, GatherRepeatParams{1, 8});
    DataCopy(yGm, ly, 128);
}

// BilinearInterpolation.md's call: x0 512 halves, x1 16 halves, off 32 uint32 byte offsets;
// y with mask 128 (the page's continuous form), z with mask[2] = {UINT64_MAX, 0} (lanes 0-63:
// z's other lanes keep what was copied in).
extern "C" __global__ __aicore__ void bilinear(GM_ADDR x0, GM_ADDR x1, GM_ADDR off, GM_ADDR y, GM_ADDR z)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, bo, by, bz, bt;
    GlobalTensor<half> x0Gm, x1Gm, yGm, zGm;
    GlobalTensor<uint32_t> oGm;
    x0Gm.SetGlobalBuffer((__gm__ half*)x0, 512);
    x1Gm.SetGlobalBuffer((__gm__ half*)x1, 16);
    oGm.SetGlobalBuffer((__gm__ uint32_t*)off, 32);
    yGm.SetGlobalBuffer((__gm__ half*)y, 256);
    zGm.SetGlobalBuffer((__gm__ half*)z, 256);
    pipe.InitBuffer(b0, 1024);
    pipe.InitBuffer(b1, 32);
    pipe.InitBuffer(bo, 128);
    pipe.InitBuffer(by, 512);
    pipe.InitBuffer(bz, 512);
    pipe.InitBuffer(bt, 512 * 32 + 16 * 32);
    LocalTensor<half> l0 = b0.Get<half>();
    LocalTensor<half> l1 = b1.Get<half>();
    LocalTensor<uint32_t> lo = bo.Get<uint32_t>();
    LocalTensor<half> ly = by.Get<half>();
    LocalTensor<half> lz = bz.Get<half>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    DataCopy(l0, x0Gm, 512);
    DataCopy(l1, x1Gm, 16);
    DataCopy(lo, oGm, 32);
    DataCopy(lz, zGm, 256);
    uint64_t mask = 128;
    BilinearInterpolation(ly, l0, lo, l1, mask, 2, false, 1, 128, 2, tmp);
    uint64_t bits[2] = {UINT64_MAX, 0};
    BilinearInterpolation(lz, l0, lo, l1, bits, 2, false, 1, 128, 2, tmp);
    DataCopy(yGm, ly, 256);
    DataCopy(zGm, lz, 256);
}

// The high-dimension Compare / CompareScalar forms on float: y = Compare(a, b, LT, mask 64,
// repeat 2, {1, 1, 2, 8, 8, 16}) (src1 every other block, repeat stride 16 blocks) in bytes
// 0..15; CompareScalar(a, 0.5, GT, mask[2], repeat 2, {1, 1, 8, 8}) in bytes 32..47 (dst
// 32-byte aligned).
extern "C" __global__ __aicore__ void cmp_repeat(GM_ADDR a, GM_ADDR b, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, by;
    GlobalTensor<float> aGm, bGm;
    GlobalTensor<uint8_t> yGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, 128);
    bGm.SetGlobalBuffer((__gm__ float*)b, 256);
    yGm.SetGlobalBuffer((__gm__ uint8_t*)y, 64);
    pipe.InitBuffer(ba, 512);
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(by, 64);
    LocalTensor<float> la = ba.Get<float>();
    LocalTensor<float> lb = bb.Get<float>();
    LocalTensor<uint8_t> ly = by.Get<uint8_t>();
    DataCopy(la, aGm, 128);
    DataCopy(lb, bGm, 256);
    uint64_t mask = 64;
    Compare(ly, la, lb, CMPMODE::LT, mask, 2, BinaryRepeatParams(1, 1, 2, 8, 8, 16));
    uint64_t bits[2] = {UINT64_MAX, 0};
    CompareScalar(ly[32], la, 0.5f, CMPMODE::GT, bits, 2, UnaryRepeatParams(1, 1, 8, 8));
    DataCopy(yGm, ly, 64);
}
