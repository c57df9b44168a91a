// Misuse: Compute DeQues from the input queue, but CopyIn forgot its EnQue.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void deque_empty(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xGm, 64);
    LocalTensor<float> b = inQ.DeQue<float>(); // ERROR HERE
    inQ.FreeTensor(b);
}
