// Element-wise add of two half vectors, z = x + y, in the usual Ascend C shape: each block takes
// its slice of GM, and tiles stream through double-buffered queues (CopyIn -> Compute -> CopyOut).
// npusim ascendc run examples/ascendc/add.cpp --kernel add_custom --blocks 8 \
//     --arg x=x.npy --arg y=y.npy --out 'z:float16[16384]=z.npy'
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t kTotal = 8 * 2048;   // elements in x, y, z
constexpr int32_t kBuffers = 2;        // double buffering
constexpr int32_t kTile = 128;         // elements per tile

class AddKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z)
    {
        perBlock = kTotal / GetBlockNum();
        tiles = perBlock / kTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + perBlock * GetBlockIdx(), perBlock);
        yGm.SetGlobalBuffer((__gm__ half*)y + perBlock * GetBlockIdx(), perBlock);
        zGm.SetGlobalBuffer((__gm__ half*)z + perBlock * GetBlockIdx(), perBlock);
        pipe.InitBuffer(inX, kBuffers, kTile * sizeof(half));
        pipe.InitBuffer(inY, kBuffers, kTile * sizeof(half));
        pipe.InitBuffer(outZ, kBuffers, kTile * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (int32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t i)
    {
        LocalTensor<half> xl = inX.AllocTensor<half>();
        LocalTensor<half> yl = inY.AllocTensor<half>();
        DataCopy(xl, xGm[i * kTile], kTile);
        DataCopy(yl, yGm[i * kTile], kTile);
        inX.EnQue(xl);
        inY.EnQue(yl);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<half> xl = inX.DeQue<half>();
        LocalTensor<half> yl = inY.DeQue<half>();
        LocalTensor<half> zl = outZ.AllocTensor<half>();
        Add(zl, xl, yl, kTile);
        outZ.EnQue<half>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }
    __aicore__ inline void CopyOut(int32_t i)
    {
        LocalTensor<half> zl = outZ.DeQue<half>();
        DataCopy(zGm[i * kTile], zl, kTile);
        outZ.FreeTensor(zl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBuffers> inX, inY;
    TQue<QuePosition::VECOUT, kBuffers> outZ;
    GlobalTensor<half> xGm, yGm, zGm;
    int32_t perBlock = 0;
    int32_t tiles = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    AddKernel op;
    op.Init(x, y, z);
    op.Process();
}
