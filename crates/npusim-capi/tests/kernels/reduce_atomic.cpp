// WholeReduce*, BlockReduce*, RepeatReduceSum and SetAtomicAdd through the C++ face
// (kernel_operator.h over the C ABI); tests/reduce_atomic.rs checks each output against a plain
// model.
#include "kernel_operator.h"
using namespace AscendC;

// x: 256 floats. y[0..4]: WholeReduceSum of 4 repeats of 64 (mask 64, dstRepStride 1);
// y[8..16]: WholeReduceMax of repeats 0 and 1 as (value, index) pairs with mask bits
// {UINT64_MAX, 0}; y[16..24]: BlockReduceSum of repeat 0 (8 block sums, mask 64);
// y[24..26]: RepeatReduceSum of 2 repeats (mask 64, dstRepStride 1); y[32..40]:
// BlockReduceMin of repeat 1 with mask 40 (blocks 5..7 have no active lane).
extern "C" __global__ __aicore__ void reductions(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 64);
    pipe.InitBuffer(bx, 256 * sizeof(float));
    pipe.InitBuffer(by, 64 * sizeof(float));
    LocalTensor<float> s = bx.Get<float>();
    LocalTensor<float> d = by.Get<float>();
    DataCopy(s, xGm, 256);
    DataCopy(d, yGm, 64);
    WholeReduceSum<float>(d, s, 64, 4, 1, 1, 8);
    uint64_t bits[2] = {UINT64_MAX, 0};
    WholeReduceMax<float>(d[8], s, bits, 2, 1, 1, 8);
    BlockReduceSum<float>(d[16], s, 1, 64, 1, 1, 8);
    RepeatReduceSum<float>(d[24], s, 2, 64, 0, 1, 1, 8);
    BlockReduceMin<float>(d[32], s[64], 1, 40, 1, 1, 8);
    DataCopy(yGm, d, 64);
}

// SetAtomicAdd<float>: y += x (64 floats) through DataCopy UB -> GM, then SetAtomicNone and a
// plain copy of x into y[64..128].
extern "C" __global__ __aicore__ void atomic_add(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    yGm.SetGlobalBuffer((__gm__ float*)y, 128);
    pipe.InitBuffer(bx, 64 * sizeof(float));
    LocalTensor<float> s = bx.Get<float>();
    DataCopy(s, xGm, 64);
    SetAtomicAdd<float>();
    DataCopy(yGm, s, 64);
    SetAtomicNone();
    DataCopy(yGm[64], s, 64);
}

// SetAtomicAdd<int8_t> is refused on Atlas training (float only there).
extern "C" __global__ __aicore__ void atomic_int8(GM_ADDR x)
{
    (void)x;
    SetAtomicAdd<int8_t>();
}
