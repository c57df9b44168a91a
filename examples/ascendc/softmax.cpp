// Softmax over the rows of a float32 matrix [kRows, kCols]: each block takes kRows / blockDim
// rows; per row y = exp(x - max(x)) / sum(exp(x - max(x))), rows streaming through
// double-buffered queues, with a TBuf for the reduction results and work space.
// npusim ascendc run examples/ascendc/softmax.cpp --kernel softmax_rows --blocks 4 \
//     --arg x=x.npy --out 'y:float32[32,128]=y.npy'
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t kRows = 32;
constexpr int32_t kCols = 128;
constexpr int32_t kBuffers = 2;

class SoftmaxKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        rows = kRows / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ float*)x + rows * kCols * GetBlockIdx(), rows * kCols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rows * kCols * GetBlockIdx(), rows * kCols);
        pipe.InitBuffer(inX, kBuffers, kCols * sizeof(float));
        pipe.InitBuffer(outY, kBuffers, kCols * sizeof(float));
        pipe.InitBuffer(calc, (kCols + 64) * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int32_t r = 0; r < rows; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t r)
    {
        LocalTensor<float> xl = inX.AllocTensor<float>();
        DataCopy(xl, xGm[r * kCols], kCols);
        inX.EnQue(xl);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xl = inX.DeQue<float>();
        LocalTensor<float> yl = outY.AllocTensor<float>();
        LocalTensor<float> red = calc.Get<float>();      // [0, 8): reduction result
        LocalTensor<float> work = red[64];               // [64, 64 + kCols): work space
        ReduceMax(red, xl, work, kCols);
        float rowMax = red.GetValue(0);
        Adds(yl, xl, -rowMax, kCols);
        Exp(yl, yl, kCols);
        ReduceSum(red, yl, work, kCols);
        float rowSum = red.GetValue(0);
        Muls(yl, yl, 1.0f / rowSum, kCols);
        outY.EnQue<float>(yl);
        inX.FreeTensor(xl);
    }
    __aicore__ inline void CopyOut(int32_t r)
    {
        LocalTensor<float> yl = outY.DeQue<float>();
        DataCopy(yGm[r * kCols], yl, kCols);
        outY.FreeTensor(yl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBuffers> inX;
    TQue<QuePosition::VECOUT, kBuffers> outY;
    TBuf<QuePosition::VECCALC> calc;
    GlobalTensor<float> xGm, yGm;
    int32_t rows = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y)
{
    SoftmaxKernel op;
    op.Init(x, y);
    op.Process();
}
