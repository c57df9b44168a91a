// Misuse: two EnQues into a depth-1 queue without a DeQue between them.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void depth_overflow(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    pipe.InitBuffer(inQ, 2, 256);
    LocalTensor<float> a = inQ.AllocTensor<float>();
    LocalTensor<float> b = inQ.AllocTensor<float>();
    inQ.EnQue(a);
    inQ.EnQue(b); // ERROR HERE
}
