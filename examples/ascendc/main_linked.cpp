// A host program that links libnpusim_capi (no npusim binary): runs add.cpp's kernel with
// ICPU_RUN_KF and prints z[0..4). Build: see CMakeLists.txt.
#define NPUSIM_LINKED
#include "add.cpp"

int main()
{
    const uint64_t n = 8 * 2048, bytes = n * sizeof(uint16_t);
    uint8_t* x = AscendC::GmAlloc(bytes);
    uint8_t* y = AscendC::GmAlloc(bytes);
    uint8_t* z = AscendC::GmAlloc(bytes);
    uint16_t* hx = new uint16_t[n];
    uint16_t* hy = new uint16_t[n];
    for (uint64_t i = 0; i < n; i++) {
        hx[i] = AscendC::half((float)(i % 64) * 0.5f).bits;
        hy[i] = AscendC::half(1.25f).bits;
    }
    AscendC::GmWrite(x, hx, bytes);
    AscendC::GmWrite(y, hy, bytes);
    if (ICPU_RUN_KF(add_custom, 8, x, y, z) != NPUSIM_OK) return 1;
    AscendC::GmRead(z, hx, bytes);
    for (int i = 0; i < 4; i++) std::printf("z[%d] = %g\n", i, (float)AscendC::half::FromBits(hx[i]));
    // Every sum is exact in f16 (multiples of 0.25 below 34), so each must equal x + y exactly.
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < n; i++)
        if ((float)AscendC::half::FromBits(hx[i]) != (float)(i % 64) * 0.5f + 1.25f) wrong++;
    std::printf("checked %llu elements, %llu wrong\n", (unsigned long long)n, (unsigned long long)wrong);
    delete[] hx;
    delete[] hy;
    return wrong == 0 ? 0 : 1;
}
