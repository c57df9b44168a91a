// Misuse: double-buffering tiles of 128 KiB asks for 256 KiB of Unified Buffer.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    pipe.InitBuffer(inQ, 2, 128 * 1024); // ERROR HERE
}
