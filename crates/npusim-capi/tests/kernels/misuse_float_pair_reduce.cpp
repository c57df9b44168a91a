// Misuse on Atlas training (ascend910): PairReduceSum takes only half there (seed 001).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void float_pair_reduce(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    pipe.InitBuffer(inQ, 1, 64 * sizeof(float));
    pipe.InitBuffer(outQ, 1, 32 * sizeof(float));
    LocalTensor<float> a = inQ.AllocTensor<float>();
    LocalTensor<float> b = outQ.AllocTensor<float>();
    DataCopy(a, xGm, 64);
    PairReduceSum<float>(b, a, 1, 64, 1, 1, 8); // ERROR HERE
}
