// AscendC::printf / PRINTF / DumpTensor through the C++ face (tests/print.rs compares the
// output with the same formats printed by the host C library).
#include "kernel_operator.h"
using namespace AscendC;

// x: 256 floats, x[i] = i * 0.5 - 1.25 (set by the test); y: unused output.
extern "C" __global__ __aicore__ void print_kernel(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    pipe.InitBuffer(bx, 64 * 4);
    LocalTensor<float> lx = bx.Get<float>();
    DataCopy(lx, xGm, 64);
    AscendC::printf("block %d of %d\n", GetBlockIdx(), GetBlockNum()); // P1
    AscendC::PRINTF("int %d %i %u %x|%5d|%-5d|%05d|%+d\n", -7, 42, 7u, 255, 3, 4, -5, 6); // P2
    AscendC::printf("neg %x %u\n", -1, (uint64_t)18446744073709551615ull); // P3
    AscendC::printf("float %f %.2f %10.3f %-10.1f| %f %f\n", 3.14f, -2.5, 1e6f, 0.25f, half(1.5f), bfloat16_t(-0.5f)); // P4
    AscendC::printf("str %s %% %s %d\n", "abc", "xyz", true); // P5
    for (int i = 0; i < 3; ++i) {
        AscendC::printf("x[%d] = %f\n", i, xGm.GetValue(i + 8 * GetBlockIdx())); // P6
    }
    DumpTensor(lx, 7, 8); // P7
    uint32_t shape[] = {2, 3};
    DumpTensor(lx[8], 9, 8, ShapeInfo(2, shape)); // P8
    DumpTensor(xGm, 10, 4); // P9
}

extern "C" __global__ __aicore__ void print_bad_arg(GM_ADDR x, GM_ADDR y)
{
    AscendC::printf("value %d\n", 1.5f); // ERROR HERE
}

extern "C" __global__ __aicore__ void dump_too_big(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    pipe.InitBuffer(bx, 64 * 4);
    LocalTensor<float> lx = bx.Get<float>();
    DumpTensor(lx, 1, 65); // ERROR HERE
}
