// Misuse: DataCopy into a UB view 3 halfs (6 bytes) past a 32-byte boundary.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void unaligned_copy(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    GlobalTensor<half> xGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 64);
    pipe.InitBuffer(inQ, 1, 128 * sizeof(half));
    LocalTensor<half> a = inQ.AllocTensor<half>();
    DataCopy(a[3], xGm, 16); // ERROR HERE
}
