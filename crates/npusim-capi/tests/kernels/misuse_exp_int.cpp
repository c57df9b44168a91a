// Misuse: Exp takes half and float only.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void exp_int(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<int32_t> a = buf.Get<int32_t>();
    Exp(a, a, 64); // ERROR HERE
}
