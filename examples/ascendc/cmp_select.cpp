// Compare + Select on float32: z[i] = x[i] > y[i] ? x[i] : y[i]. Compare writes one bit per
// element into a uint8_t mask (a TBuf), Select (tensor-tensor mode) picks by it; tiles stream
// through double-buffered queues, blocks take equal slices.
// npusim ascendc run examples/ascendc/cmp_select.cpp --kernel cmp_select --blocks 4 \
//     --arg x=x.npy --arg y=y.npy --out 'z:float32[8192]=z.npy'
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t kTotal = 8192;
constexpr int32_t kBuffers = 2;
constexpr int32_t kTile = 256;   // 1 KiB of float: a whole number of 256-byte repeats

class CmpSelectKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z)
    {
        perBlock = kTotal / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ float*)x + perBlock * GetBlockIdx(), perBlock);
        yGm.SetGlobalBuffer((__gm__ float*)y + perBlock * GetBlockIdx(), perBlock);
        zGm.SetGlobalBuffer((__gm__ float*)z + perBlock * GetBlockIdx(), perBlock);
        pipe.InitBuffer(inX, kBuffers, kTile * sizeof(float));
        pipe.InitBuffer(inY, kBuffers, kTile * sizeof(float));
        pipe.InitBuffer(outZ, kBuffers, kTile * sizeof(float));
        pipe.InitBuffer(maskBuf, kTile / 8);
    }
    __aicore__ inline void Process()
    {
        for (int32_t i = 0; i < perBlock / kTile; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t i)
    {
        LocalTensor<float> xl = inX.AllocTensor<float>();
        LocalTensor<float> yl = inY.AllocTensor<float>();
        DataCopy(xl, xGm[i * kTile], kTile);
        DataCopy(yl, yGm[i * kTile], kTile);
        inX.EnQue(xl);
        inY.EnQue(yl);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xl = inX.DeQue<float>();
        LocalTensor<float> yl = inY.DeQue<float>();
        LocalTensor<float> zl = outZ.AllocTensor<float>();
        LocalTensor<uint8_t> gt = maskBuf.Get<uint8_t>();
        Compare(gt, xl, yl, CMPMODE::GT, kTile);
        Select(zl, gt, xl, yl, SELMODE::VSEL_TENSOR_TENSOR_MODE, kTile);
        outZ.EnQue<float>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }
    __aicore__ inline void CopyOut(int32_t i)
    {
        LocalTensor<float> zl = outZ.DeQue<float>();
        DataCopy(zGm[i * kTile], zl, kTile);
        outZ.FreeTensor(zl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBuffers> inX, inY;
    TQue<QuePosition::VECOUT, kBuffers> outZ;
    TBuf<QuePosition::VECCALC> maskBuf;
    GlobalTensor<float> xGm, yGm, zGm;
    int32_t perBlock = 0;
};

extern "C" __global__ __aicore__ void cmp_select(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    CmpSelectKernel op;
    op.Init(x, y, z);
    op.Process();
}
