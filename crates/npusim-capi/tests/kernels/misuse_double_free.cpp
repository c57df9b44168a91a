// Misuse: the same tensor freed twice.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void double_free(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(outQ, 1, 256);
    LocalTensor<float> a = outQ.AllocTensor<float>();
    outQ.FreeTensor(a);
    outQ.FreeTensor(a); // ERROR HERE
}
