// Ascend 950 loop mode through the C++ face: GM [2, 3, 16, 128] int8 -> UB [2, 2, 16, 128]
// with DataCopyParams moving 16 rows of 128 bytes and SetLoopModePara walking the two outer
// dimensions (the shape of the DataCopyPad page's scenario 6), then back to GM in one move.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void loop_mode_copy(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<int8_t> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ int8_t*)x, 2 * 3 * 16 * 128);
    yGm.SetGlobalBuffer((__gm__ int8_t*)y, 2 * 2 * 16 * 128);
    pipe.InitBuffer(buf, 2 * 2 * 16 * 128);
    LocalTensor<int8_t> u = buf.Get<int8_t>();
    const uint64_t rows = 16 * 128;
    LoopModeParams lp;
    lp.loop1Size = 2;
    lp.loop2Size = 2;
    lp.loop1SrcStride = rows;
    lp.loop1DstStride = rows;
    lp.loop2SrcStride = 3 * rows;
    lp.loop2DstStride = 2 * rows;
    SetLoopModePara(lp, DataCopyMVType::OUT_TO_UB);
    DataCopy(u, xGm, DataCopyParams(16, 4, 0, 0));
    ResetLoopModePara(DataCopyMVType::OUT_TO_UB);
    DataCopy(yGm, u, 2 * 2 * 16 * 128);
}
