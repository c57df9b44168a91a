// kernel_operator.h: npusim's header-only Ascend C face (written for npusim, not CANN's header).
//
// Ascend C kernels compile with the host C++ compiler against this header and run on npusim's
// Ascend vector unit through the C ABI of npusim.h (crate npusim-capi). Every call below takes
// its call site as a defaulted last argument (npusim_face::Loc); a failing call stops the kernel
// with "file:line: instr: param = value: rule".
//
// Two ways to run:
//  - `npusim ascendc run KERNEL.cpp --kernel NAME --blocks N --arg x=x.npy --out ...` builds the
//    kernel into a shared object and runs it (the binary calls npusim_face_attach / _run below);
//  - define NPUSIM_LINKED, link libnpusim_capi.a, and call ICPU_RUN_KF(kernel, blockDim, args...)
//    with GM buffers from AscendC::GmAlloc (fill/read them with AscendC::GmWrite / GmRead).
#ifndef NPUSIM_KERNEL_OPERATOR_H
#define NPUSIM_KERNEL_OPERATOR_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <initializer_list>
#include <utility>
#include <vector>

#include "npusim.h"

#define __aicore__
#define __global__
#define __gm__
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

namespace npusim_face {

// The call site of a face call.
struct Loc {
    const char* file;
    int line;
    explicit Loc(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

struct State {
    const npusim_api_v1* api = nullptr;
    npusim_device* dev = nullptr;
};
inline State& state() {
    static thread_local State s;
    return s;
}

// Thrown by a failing face call; caught by npusim_face_run / ICPU_RUN_KF.
struct KernelError : std::exception {
    int code;
    explicit KernelError(int c) : code(c) {}
    const char* what() const noexcept override { return "npusim kernel error"; }
};

inline const npusim_api_v1* api() {
    const npusim_api_v1* a = state().api;
    if (!a) {
        std::fprintf(stderr,
                     "npusim: an AscendC call ran outside a launch (use `npusim ascendc run` or "
                     "ICPU_RUN_KF with NPUSIM_LINKED)\n");
        std::abort();
    }
    return a;
}
inline npusim_device* dev() { return (api(), state().dev); }

[[noreturn]] inline void raise(int code, const Loc& loc) {
    api()->locate(loc.file, (uint32_t)loc.line);
    throw KernelError(code);
}
inline void check(int status, const Loc& loc) {
    if (status != NPUSIM_OK) raise(status, loc);
}
[[noreturn]] inline void fail(int code, const char* instr, const char* param, const char* rule,
                              const std::string& value, const Loc& loc) {
    api()->fail(code, instr, param, rule, value.c_str());
    raise(code, loc);
}

}  // namespace npusim_face

namespace AscendC {

using npusim_face::Loc;

// ---------------------------------------------------------------- element types

struct half {
    uint16_t bits = 0;
    half() = default;
    template <class U, class = std::enable_if_t<std::is_arithmetic<U>::value>>
    half(U v) : bits(npusim_face::api()->f32_to_f16((float)v)) {}
    operator float() const { return npusim_face::api()->f16_to_f32(bits); }
    static half FromBits(uint16_t b) {
        half h;
        h.bits = b;
        return h;
    }
};

struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    template <class U, class = std::enable_if_t<std::is_arithmetic<U>::value>>
    bfloat16_t(U v) : bits(npusim_face::api()->f32_to_bf16((float)v)) {}
    operator float() const { return npusim_face::api()->bf16_to_f32(bits); }
    static bfloat16_t FromBits(uint16_t b) {
        bfloat16_t h;
        h.bits = b;
        return h;
    }
};

template <class T> struct DType;
#define NPUSIM_DTYPE(T, code) \
    template <> struct DType<T> { static constexpr uint32_t value = code; }
NPUSIM_DTYPE(uint8_t, NPUSIM_DT_U8);
NPUSIM_DTYPE(int8_t, NPUSIM_DT_I8);
NPUSIM_DTYPE(uint16_t, NPUSIM_DT_U16);
NPUSIM_DTYPE(int16_t, NPUSIM_DT_I16);
NPUSIM_DTYPE(uint32_t, NPUSIM_DT_U32);
NPUSIM_DTYPE(int32_t, NPUSIM_DT_I32);
NPUSIM_DTYPE(uint64_t, NPUSIM_DT_U64);
NPUSIM_DTYPE(int64_t, NPUSIM_DT_I64);
NPUSIM_DTYPE(half, NPUSIM_DT_F16);
NPUSIM_DTYPE(bfloat16_t, NPUSIM_DT_BF16);
NPUSIM_DTYPE(float, NPUSIM_DT_F32);
#undef NPUSIM_DTYPE

template <class T> struct Id { using type = T; };

template <class T> inline npusim_scalar ToScalar(const T& v) {
    npusim_scalar s{};
    if (std::is_integral<T>::value) {
        s.kind = 0;
        s.i = (int64_t)v;
    } else {
        s.kind = 1;
        s.f = (double)(float)v;
    }
    return s;
}

template <class T> inline T FromBits(uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}
template <class T> inline uint64_t ToBits(const T& v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

// ---------------------------------------------------------------- positions, modes

enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;

enum class CMPMODE : uint32_t { LT = 0, GT = 1, EQ = 2, LE = 3, GE = 4, NE = 5 };
enum class SELMODE : uint32_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE = 1, VSEL_TENSOR_TENSOR_MODE = 2 };
enum class RoundMode : uint32_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class MaskMode { NORMAL = 0, COUNTER = 1 };

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, uint8_t f)
        : dstBlkStride(a), src0BlkStride(b), src1BlkStride(c), dstRepStride(d), src0RepStride(e), src1RepStride(f) {}
};
struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t a, uint16_t b, uint8_t c, uint8_t d)
        : dstBlkStride(a), srcBlkStride(b), dstRepStride(c), srcRepStride(d) {}
};
struct DataCopyParams {
    uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t c, uint16_t l, uint16_t s, uint16_t d) : blockCount(c), blockLen(l), srcStride(s), dstStride(d) {}
};

// DataCopyPad parameters (blockLen and srcStride in bytes for GM, dstStride in 32-byte blocks
// for UB; see the DataCopyPad pages).
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    int64_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t c, uint32_t l, int64_t s, uint32_t d, uint32_t r = 0)
        : blockCount(c), blockLen(l), srcStride(s), dstStride(d), rsv(r) {}
};
template <class T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0, rightPadding = 0;
    T paddingValue{};
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool p, uint8_t l, uint8_t r, T v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0, rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool p, uint8_t l, uint8_t r, uint64_t v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
enum class PaddingMode : uint8_t { Normal = 0, Compact };

// SetDeqScale(vdeq, VdeqInfo): 16 configurations of CastDequant's vector quantization.
struct VdeqInfo {
    float vdeqScale[16] = {};
    int16_t vdeqOffset[16] = {};
    bool vdeqSignMode[16] = {};
    VdeqInfo() = default;
    VdeqInfo(const float s[16], const int16_t o[16], const bool m[16]) {
        for (int i = 0; i < 16; ++i) {
            vdeqScale[i] = s[i];
            vdeqOffset[i] = o[i];
            vdeqSignMode[i] = m[i];
        }
    }
};

// Ascend 950 loop mode (SetLoopModePara / ResetLoopModePara).
struct LoopModeParams {
    uint32_t loop1Size = 0;
    uint32_t loop2Size = 0;
    uint64_t loop1SrcStride = 0;
    uint64_t loop1DstStride = 0;
    uint64_t loop2SrcStride = 0;
    uint64_t loop2DstStride = 0;
};
enum class DataCopyMVType : uint8_t { UB_TO_OUT = 0, OUT_TO_UB = 1 };

// MASK_PLACEHOLDER: pass with isSetMask = false.
constexpr uint64_t MASK_PLACEHOLDER = 0;

// ---------------------------------------------------------------- tensors

template <class T> class LocalTensor;

template <class T> class GlobalTensor {
public:
    npusim_tensor t{NPUSIM_GM, DType<T>::value, 0, 0, 0};

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize = 0, Loc loc = Loc()) {
        uint64_t v = (uint64_t)(uintptr_t)buffer;
        uint64_t gm = 0;
        npusim_face::check(npusim_face::api()->device_info(npusim_face::dev(), &gm, nullptr, nullptr, nullptr), loc);
        if (v < NPUSIM_GM_VBASE || v - NPUSIM_GM_VBASE > gm) {
            char b[40];
            std::snprintf(b, sizeof b, "%#llx", (unsigned long long)v);
            npusim_face::fail(NPUSIM_E_ARG, "SetGlobalBuffer", "buffer",
                              "must point into a GM buffer passed to the kernel", b, loc);
        }
        uint64_t addr = v - NPUSIM_GM_VBASE;
        uint64_t bytes = bufferSize ? bufferSize * sizeof(T) : gm - addr;
        if (bytes > gm - addr) {
            npusim_face::fail(NPUSIM_E_MEMORY, "SetGlobalBuffer", "bufferSize",
                              "must lie inside GM", std::to_string(bufferSize), loc);
        }
        t.base = addr;
        t.bytes = bytes;
        t.offset = 0;
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g = *this;
        g.t.offset += offset;
        return g;
    }
    T GetValue(uint64_t i, Loc loc = Loc()) const {
        uint64_t b = 0;
        npusim_face::check(npusim_face::api()->get_value(npusim_face::dev(), &t, i, &b), loc);
        return FromBits<T>(b);
    }
    void SetValue(uint64_t i, const typename Id<T>::type& v, Loc loc = Loc()) const {
        npusim_face::check(npusim_face::api()->set_value(npusim_face::dev(), &t, i, ToBits(v)), loc);
    }
    uint64_t GetSize() const { return t.bytes / sizeof(T) - t.offset; }
    __gm__ T* GetPhyAddr() const { return (__gm__ T*)(uintptr_t)(NPUSIM_GM_VBASE + t.base + t.offset * sizeof(T)); }
};

template <class T> class LocalTensor {
public:
    npusim_tensor t{NPUSIM_UB, DType<T>::value, 0, 0, 0};

    LocalTensor() = default;
    LocalTensor operator[](uint64_t offset) const {
        LocalTensor l = *this;
        l.t.offset += offset;
        return l;
    }
    T GetValue(uint64_t i, Loc loc = Loc()) const {
        uint64_t b = 0;
        npusim_face::check(npusim_face::api()->get_value(npusim_face::dev(), &t, i, &b), loc);
        return FromBits<T>(b);
    }
    void SetValue(uint64_t i, const typename Id<T>::type& v, Loc loc = Loc()) const {
        npusim_face::check(npusim_face::api()->set_value(npusim_face::dev(), &t, i, ToBits(v)), loc);
    }
    uint32_t GetSize() const { return (uint32_t)(t.bytes / sizeof(T) - t.offset); }
    template <class U> LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> u;
        u.t = t;
        u.t.dtype = DType<U>::value;
        u.t.offset = t.offset * sizeof(T) / sizeof(U);
        return u;
    }
};

// ---------------------------------------------------------------- pipe, queues, buffers

class TPipe;

template <TPosition pos, int depth> class TQue {
public:
    static constexpr int kMaxBuffers = 16;
    static_assert(depth >= 0, "TQue depth must not be negative");

    template <class T> LocalTensor<T> AllocTensor(Loc loc = Loc()) {
        ensure_init("AllocTensor", loc);
        for (int i = 0; i < num_; ++i) {
            if (state_[i] == kFree) {
                state_[i] = kHeld;
                return view<T>(i);
            }
        }
        npusim_face::fail(NPUSIM_E_QUEUE, "AllocTensor", "queue",
                          "no free buffer: every buffer of the queue is allocated or queued (FreeTensor each tensor after use)",
                          std::to_string(num_) + " buffers in use", loc);
    }
    template <class T> bool EnQue(const LocalTensor<T>& tensor, Loc loc = Loc()) {
        ensure_init("EnQue", loc);
        int i = find(tensor, "EnQue", loc);
        if (state_[i] != kHeld) {
            npusim_face::fail(NPUSIM_E_QUEUE, "EnQue", "tensor",
                              state_[i] == kQueued ? "the tensor is already queued" : "the tensor was freed (AllocTensor it first)",
                              addr_text(i), loc);
        }
        int cap = depth == 0 ? num_ : depth;
        if (count_ >= cap) {
            npusim_face::fail(NPUSIM_E_QUEUE, "EnQue", "depth",
                              "the queue is full: EnQue beyond the TQue depth without a DeQue",
                              std::to_string(count_) + " of " + std::to_string(cap) + " queued", loc);
        }
        fifo_[(head_ + count_) % kMaxBuffers] = i;
        ++count_;
        state_[i] = kQueued;
        return true;
    }
    template <class T> LocalTensor<T> DeQue(Loc loc = Loc()) {
        ensure_init("DeQue", loc);
        if (count_ == 0) {
            npusim_face::fail(NPUSIM_E_QUEUE, "DeQue", "queue",
                              "the queue is empty: DeQue needs a tensor EnQue'd before it", "0 tensors queued", loc);
        }
        int i = fifo_[head_];
        head_ = (head_ + 1) % kMaxBuffers;
        --count_;
        state_[i] = kHeld;
        return view<T>(i);
    }
    template <class T> void FreeTensor(const LocalTensor<T>& tensor, Loc loc = Loc()) {
        ensure_init("FreeTensor", loc);
        int i = find(tensor, "FreeTensor", loc);
        if (state_[i] == kFree) {
            npusim_face::fail(NPUSIM_E_QUEUE, "FreeTensor", "tensor",
                              "double free: the buffer is already free", addr_text(i), loc);
        }
        if (state_[i] == kQueued) {
            npusim_face::fail(NPUSIM_E_QUEUE, "FreeTensor", "tensor",
                              "the tensor is still queued (DeQue it first)", addr_text(i), loc);
        }
        state_[i] = kFree;
    }
    bool HasTensorInQue() const { return count_ > 0; }
    int GetTensorCountInQue() const { return count_; }

    // Used by TPipe::InitBuffer.
    void npusim_init(int num, uint32_t len, Loc loc) {
        if (num_ != 0) {
            npusim_face::fail(NPUSIM_E_QUEUE, "TPipe::InitBuffer", "que", "the queue already has buffers",
                              std::to_string(num_), loc);
        }
        if (num < 1 || num > kMaxBuffers) {
            npusim_face::fail(NPUSIM_E_ARG, "TPipe::InitBuffer", "num", "must be in [1, 16]", std::to_string(num), loc);
        }
        uint64_t al = ((uint64_t)len + 31) / 32 * 32;
        uint64_t base = 0;
        npusim_face::check(npusim_face::api()->alloc(npusim_face::dev(), NPUSIM_UB, al * (uint64_t)num, &base), loc);
        for (int i = 0; i < num; ++i) {
            addr_[i] = base + al * (uint64_t)i;
            state_[i] = kFree;
        }
        num_ = num;
        len_ = len;
    }

private:
    enum { kFree = 0, kHeld = 1, kQueued = 2 };
    int num_ = 0, head_ = 0, count_ = 0;
    uint32_t len_ = 0;
    uint64_t addr_[kMaxBuffers] = {};
    int state_[kMaxBuffers] = {};
    int fifo_[kMaxBuffers] = {};

    void ensure_init(const char* instr, const Loc& loc) const {
        if (num_ == 0) {
            npusim_face::fail(NPUSIM_E_QUEUE, instr, "queue", "TPipe::InitBuffer must give the queue its buffers first",
                              "0 buffers", loc);
        }
    }
    template <class T> LocalTensor<T> view(int i) const {
        LocalTensor<T> l;
        l.t.base = addr_[i];
        l.t.bytes = len_;
        l.t.offset = 0;
        return l;
    }
    std::string addr_text(int i) const {
        char b[48];
        std::snprintf(b, sizeof b, "UB buffer at %#llx", (unsigned long long)addr_[i]);
        return b;
    }
    template <class T> int find(const LocalTensor<T>& tensor, const char* instr, const Loc& loc) const {
        for (int i = 0; i < num_; ++i) {
            if (addr_[i] == tensor.t.base) return i;
        }
        char b[48];
        std::snprintf(b, sizeof b, "UB address %#llx", (unsigned long long)tensor.t.base);
        npusim_face::fail(NPUSIM_E_QUEUE, instr, "tensor", "the tensor is not a buffer of this queue", b, loc);
    }
};

template <TPosition pos> class TBuf {
public:
    template <class T> LocalTensor<T> Get(Loc loc = Loc()) const { return Get<T>(len_ / sizeof(T), loc); }
    template <class T> LocalTensor<T> Get(uint32_t len, Loc loc = Loc()) const {
        if (!init_) {
            npusim_face::fail(NPUSIM_E_QUEUE, "TBuf::Get", "buf", "TPipe::InitBuffer must give the TBuf its buffer first",
                              "0 bytes", loc);
        }
        if ((uint64_t)len * sizeof(T) > len_) {
            npusim_face::fail(NPUSIM_E_MEMORY, "TBuf::Get", "len", "must fit in the TBuf's buffer",
                              std::to_string(len) + " elements of " + std::to_string(sizeof(T)) + " bytes > " +
                                  std::to_string(len_) + " bytes",
                              loc);
        }
        LocalTensor<T> l;
        l.t.base = base_;
        l.t.bytes = (uint64_t)len * sizeof(T);
        return l;
    }
    template <class T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, Loc loc = Loc()) const {
        LocalTensor<T> l = Get<T>(0, loc);
        if ((uint64_t)bufOffset + (uint64_t)size * sizeof(T) > len_) {
            npusim_face::fail(NPUSIM_E_MEMORY, "TBuf::GetWithOffset", "bufOffset", "the view must fit in the TBuf's buffer",
                              std::to_string(bufOffset), loc);
        }
        l.t.base = base_ + bufOffset;
        l.t.bytes = (uint64_t)size * sizeof(T);
        return l;
    }
    void npusim_init(uint32_t len, Loc loc) {
        uint64_t al = ((uint64_t)len + 31) / 32 * 32;
        npusim_face::check(npusim_face::api()->alloc(npusim_face::dev(), NPUSIM_UB, al, &base_), loc);
        len_ = len;
        init_ = true;
    }

private:
    uint64_t base_ = 0;
    uint32_t len_ = 0;
    bool init_ = false;
};

class TPipe {
public:
    template <TPosition pos, int depth>
    void InitBuffer(TQue<pos, depth>& que, int num, uint32_t len, Loc loc = Loc()) {
        que.npusim_init(num, len, loc);
    }
    template <TPosition pos> void InitBuffer(TBuf<pos>& buf, uint32_t len, Loc loc = Loc()) {
        buf.npusim_init(len, loc);
    }
    void Destroy() {}
    void Init() {}
};

// ---------------------------------------------------------------- block info, GM on the host

inline int64_t GetBlockIdx() {
    uint32_t i = 0;
    npusim_face::check(npusim_face::api()->device_info(npusim_face::dev(), nullptr, nullptr, &i, nullptr), Loc());
    return i;
}
inline int64_t GetBlockNum() {
    uint32_t n = 0;
    npusim_face::check(npusim_face::api()->device_info(npusim_face::dev(), nullptr, nullptr, nullptr, &n), Loc());
    return n;
}

// ---------------------------------------------------------------- data movement

// Ascend 950: DataCopy / DataCopyPad on the path `type` loop until ResetLoopModePara.
inline void SetLoopModePara(const LoopModeParams& p, DataCopyMVType type, Loc loc = Loc()) {
    const uint64_t v[6] = {p.loop1Size, p.loop2Size, p.loop1SrcStride, p.loop1DstStride, p.loop2SrcStride,
                           p.loop2DstStride};
    npusim_face::check(npusim_face::api()->set_loop_mode(npusim_face::dev(), (uint32_t)type, v), loc);
}
inline void ResetLoopModePara(DataCopyMVType type, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_loop_mode(npusim_face::dev(), (uint32_t)type, nullptr), loc);
}

template <class T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->data_copy(npusim_face::dev(), &dst.t, &src.t, count), loc);
}
template <class T> inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->data_copy(npusim_face::dev(), &dst.t, &src.t, count), loc);
}
template <class T> inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->data_copy(npusim_face::dev(), &dst.t, &src.t, count), loc);
}
template <class D, class S> inline void DataCopy(const D& dst, const S& src, const DataCopyParams& p, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->data_copy_params(npusim_face::dev(), &dst.t, &src.t, p.blockCount, p.blockLen,
                                                            p.srcStride, p.dstStride),
                       loc);
}

// ---------------------------------------------------------------- element-wise rows

namespace detail {
inline npusim_mask Count(uint64_t n) { return npusim_mask{1, 0, 0, n}; }
inline npusim_mask Bits(const uint64_t m[2]) { return npusim_mask{0, m[0], m[1], 0}; }
inline npusim_mask Placeholder() { return npusim_mask{2, 0, 0, 0}; }
template <class T>
inline void VecCount(const char* name, const npusim_tensor& dst, const npusim_tensor* srcs, uint32_t n,
                     const npusim_scalar* s, uint32_t round, int64_t count, const Loc& loc) {
    npusim_face::check(npusim_face::api()->vec_count(npusim_face::dev(), name, &dst, srcs, n, s, round, count), loc);
}
inline void VecRepeat(const char* name, const npusim_tensor& dst, const npusim_tensor* srcs, uint32_t n,
                      const npusim_scalar* s, uint32_t round, const npusim_mask& m, bool setMask, int32_t repeat,
                      const int64_t blk[3], const int64_t rep[3], const Loc& loc) {
    npusim_face::check(npusim_face::api()->vec_repeat(npusim_face::dev(), name, &dst, srcs, n, s, round, &m,
                                                      setMask ? 1u : 0u, repeat, blk, rep),
                       loc);
}
inline npusim_mask MaskOf(bool setMask, const npusim_mask& m) { return setMask ? m : Placeholder(); }
}  // namespace detail

namespace detail {
template <class T>
inline void CopyPad(const npusim_tensor& dst, const npusim_tensor& src, const DataCopyExtParams& p, uint32_t flags,
                    uint8_t left, uint8_t right, const T* value, const Loc& loc) {
    npusim_scalar s{};
    if (value) s = ToScalar(*value);
    npusim_face::check(npusim_face::api()->data_copy_pad(npusim_face::dev(), &dst, &src, p.blockCount, p.blockLen,
                                                         p.srcStride, p.dstStride, flags, left, right,
                                                         value ? &s : nullptr),
                       loc);
}
}  // namespace detail

// DataCopyPad GM -> UB (Normal or, on Ascend 950, Compact padding mode).
template <class T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, Loc loc = Loc()) {
    uint32_t flags = 1u | (pad.isPad ? 2u : 0u) | (mode == PaddingMode::Compact ? 4u : 0u);
    detail::CopyPad<T>(dst.t, src.t, p, flags, pad.leftPadding, pad.rightPadding, &pad.paddingValue, loc);
}
// DataCopyPad UB -> GM.
template <class T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                        Loc loc = Loc()) {
    detail::CopyPad<T>(dst.t, src.t, p, mode == PaddingMode::Compact ? 4u : 0u, 0, 0, nullptr, loc);
}
// The older DataCopyParams / DataCopyPadParams forms (paddingValue as the bits of a T).
template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, Loc loc = Loc()) {
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride);
    T v = FromBits<T>(pad.paddingValue);
    detail::CopyPad<T>(dst.t, src.t, e, 1u | (pad.isPad ? 2u : 0u), pad.leftPadding, pad.rightPadding, &v, loc);
}
template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                        Loc loc = Loc()) {
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride);
    detail::CopyPad<T>(dst.t, src.t, e, 0u, 0, 0, nullptr, loc);
}
// SetPadValue<T>(paddingValue): what DataCopyPad pads with when isPad is false (A2/A3, 950).
template <class T> inline void SetPadValue(const typename Id<T>::type& v, Loc loc = Loc()) {
    npusim_scalar s = ToScalar(v);
    npusim_face::check(npusim_face::api()->set_pad_value(npusim_face::dev(), DType<T>::value, &s), loc);
}

// ---------------------------------------------------------------- dequantization

// SetDeqScale(half): the scale of CastDequant / Cast int32 -> half.
inline void SetDeqScale(half scale, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_deq_scale(npusim_face::dev(), 0, (float)scale, 0, 0), loc);
}
// SetDeqScale(float scale, int16_t offset, bool signMode): CastDequant int16 -> b8.
inline void SetDeqScale(float scale, int16_t offset, bool signMode, Loc loc = Loc()) {
    npusim_face::check(
        npusim_face::api()->set_deq_scale(npusim_face::dev(), 1, scale, offset, signMode ? 1u : 0u), loc);
}
// SetDeqScale(vdeq, VdeqInfo): CastDequant int16 -> b8 with vector quantization.
template <class T> inline void SetDeqScale(const LocalTensor<T>& vdeq, const VdeqInfo& info, Loc loc = Loc()) {
    uint8_t sign[16];
    for (int i = 0; i < 16; ++i) sign[i] = info.vdeqSignMode[i] ? 1 : 0;
    npusim_face::check(npusim_face::api()->set_deq_scale_vdeq(npusim_face::dev(), &vdeq.t, info.vdeqScale,
                                                              info.vdeqOffset, sign),
                       loc);
}

namespace detail {
inline void Dequant(const npusim_tensor& dst, const npusim_tensor& src, bool vecDeq, bool halfBlock,
                    const npusim_mask* m, bool setMask, int32_t repeat, const UnaryRepeatParams* p, uint32_t count,
                    const Loc& loc) {
    int64_t blk[2] = {p ? p->dstBlkStride : 1, p ? p->srcBlkStride : 1};
    int64_t rep[2] = {p ? p->dstRepStride : 8, p ? p->srcRepStride : 8};
    npusim_face::check(npusim_face::api()->cast_dequant(npusim_face::dev(), &dst, &src,
                                                        (vecDeq ? 1u : 0u) | (halfBlock ? 2u : 0u), m,
                                                        setMask ? 1u : 0u, repeat, blk, rep, count),
                       loc);
}
}  // namespace detail

// CastDequant: int16_t -> int8_t/uint8_t through the DEQSCALE register, or int32_t -> half.
template <class T, class U, bool isVecDeq = true, bool halfBlock = true>
inline void CastDequant(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint32_t count, Loc loc = Loc()) {
    detail::Dequant(dst.t, src.t, isVecDeq, halfBlock, nullptr, true, 0, nullptr, count, loc);
}
template <class T, class U, bool isSetMask = true, bool isVecDeq = true, bool halfBlock = true>
inline void CastDequant(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[], uint8_t repeatTime,
                        const UnaryRepeatParams& p, Loc loc = Loc()) {
    npusim_mask m = detail::MaskOf(isSetMask, detail::Bits(mask));
    detail::Dequant(dst.t, src.t, isVecDeq, halfBlock, &m, isSetMask, repeatTime, &p, 0, loc);
}
template <class T, class U, bool isSetMask = true, bool isVecDeq = true, bool halfBlock = true>
inline void CastDequant(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask, uint8_t repeatTime,
                        const UnaryRepeatParams& p, Loc loc = Loc()) {
    npusim_mask m = detail::MaskOf(isSetMask, detail::Count((uint64_t)(int64_t)mask));
    detail::Dequant(dst.t, src.t, isVecDeq, halfBlock, &m, isSetMask, repeatTime, &p, 0, loc);
}


#define NPUSIM_BINARY(NAME)                                                                                          \
    template <class T>                                                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                     const int32_t& count, Loc loc = Loc()) {                                                        \
        npusim_tensor s[2] = {src0.t, src1.t};                                                                       \
        detail::VecCount<T>(#NAME, dst.t, s, 2, nullptr, 0, count, loc);                                             \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                     uint64_t mask, uint8_t repeat, const BinaryRepeatParams& p, Loc loc = Loc()) {                  \
        npusim_tensor s[2] = {src0.t, src1.t};                                                                       \
        int64_t blk[3] = {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride};                                         \
        int64_t rep[3] = {p.dstRepStride, p.src0RepStride, p.src1RepStride};                                         \
        detail::VecRepeat(#NAME, dst.t, s, 2, nullptr, 0, detail::MaskOf(isSetMask, detail::Count(mask)), isSetMask, \
                          repeat, blk, rep, loc);                                                                    \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                     const uint64_t mask[2], uint8_t repeat, const BinaryRepeatParams& p, Loc loc = Loc()) {         \
        npusim_tensor s[2] = {src0.t, src1.t};                                                                       \
        int64_t blk[3] = {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride};                                         \
        int64_t rep[3] = {p.dstRepStride, p.src0RepStride, p.src1RepStride};                                         \
        detail::VecRepeat(#NAME, dst.t, s, 2, nullptr, 0, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask,  \
                          repeat, blk, rep, loc);                                                                    \
    }

NPUSIM_BINARY(Add)
NPUSIM_BINARY(Sub)
NPUSIM_BINARY(Mul)
NPUSIM_BINARY(Div)
NPUSIM_BINARY(Max)
NPUSIM_BINARY(Min)
NPUSIM_BINARY(And)
NPUSIM_BINARY(Or)
NPUSIM_BINARY(AddRelu)
NPUSIM_BINARY(SubRelu)
NPUSIM_BINARY(FusedMulAdd)
NPUSIM_BINARY(MulAddRelu)
#undef NPUSIM_BINARY

#define NPUSIM_UNARY(NAME)                                                                                           \
    template <class T>                                                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, Loc loc = Loc()) {  \
        detail::VecCount<T>(#NAME, dst.t, &src.t, 1, nullptr, 0, count, loc);                                        \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, uint8_t repeat,            \
                     const UnaryRepeatParams& p, Loc loc = Loc()) {                                                  \
        int64_t blk[3] = {p.dstBlkStride, p.srcBlkStride, 1};                                                        \
        int64_t rep[3] = {p.dstRepStride, p.srcRepStride, 0};                                                        \
        detail::VecRepeat(#NAME, dst.t, &src.t, 1, nullptr, 0, detail::MaskOf(isSetMask, detail::Count(mask)),       \
                          isSetMask, repeat, blk, rep, loc);                                                         \
    }

NPUSIM_UNARY(Exp)
NPUSIM_UNARY(Abs)
NPUSIM_UNARY(Sqrt)
NPUSIM_UNARY(Reciprocal)
NPUSIM_UNARY(Ln)
NPUSIM_UNARY(Not)
NPUSIM_UNARY(Relu)
NPUSIM_UNARY(Rsqrt)
#undef NPUSIM_UNARY

#define NPUSIM_SCALAR(NAME)                                                                                          \
    template <class T>                                                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const typename Id<T>::type& scalarValue, \
                     const int32_t& count, Loc loc = Loc()) {                                                        \
        npusim_scalar s = ToScalar(scalarValue);                                                                     \
        detail::VecCount<T>(#NAME, dst.t, &src.t, 1, &s, 0, count, loc);                                            \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const typename Id<T>::type& scalarValue, \
                     uint64_t mask, uint8_t repeat, const UnaryRepeatParams& p, Loc loc = Loc()) {                   \
        npusim_scalar s = ToScalar(scalarValue);                                                                     \
        int64_t blk[3] = {p.dstBlkStride, p.srcBlkStride, 1};                                                        \
        int64_t rep[3] = {p.dstRepStride, p.srcRepStride, 0};                                                        \
        detail::VecRepeat(#NAME, dst.t, &src.t, 1, &s, 0, detail::MaskOf(isSetMask, detail::Count(mask)), isSetMask, \
                          repeat, blk, rep, loc);                                                                    \
    }

NPUSIM_SCALAR(Adds)
NPUSIM_SCALAR(Muls)
NPUSIM_SCALAR(Maxs)
NPUSIM_SCALAR(Mins)
NPUSIM_SCALAR(LeakyRelu)
NPUSIM_SCALAR(ShiftLeft)
NPUSIM_SCALAR(ShiftRight)
#undef NPUSIM_SCALAR

// Copy (UB -> UB with a mask): strides of CopyRepeatParams in 32-byte blocks.
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t d, uint16_t s, uint16_t dr, uint16_t sr)
        : dstStride(d), srcStride(s), dstRepeatSize(dr), srcRepeatSize(sr) {}
};
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& p, Loc loc = Loc()) {
    int64_t blk[3] = {p.dstStride, p.srcStride, 1};
    int64_t rep[3] = {p.dstRepeatSize, p.srcRepeatSize, 0};
    detail::VecRepeat("Copy", dst.t, &src.t, 1, nullptr, 0, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& p, Loc loc = Loc()) {
    int64_t blk[3] = {p.dstStride, p.srcStride, 1};
    int64_t rep[3] = {p.dstRepeatSize, p.srcRepeatSize, 0};
    detail::VecRepeat("Copy", dst.t, &src.t, 1, nullptr, 0, detail::MaskOf(isSetMask, detail::Count(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}

// Axpy and MulAddDst: T the destination, U the sources (float with half: the mixed-precision
// form, 64 elements per repeat).
template <class D, class S>
inline void Axpy(const LocalTensor<D>& dst, const LocalTensor<S>& src, const S& scalarValue, const int32_t& count,
                 Loc loc = Loc()) {
    npusim_scalar s = ToScalar(scalarValue);
    detail::VecCount<D>("Axpy", dst.t, &src.t, 1, &s, 0, count, loc);
}
template <class D, class S, bool isSetMask = true>
inline void Axpy(const LocalTensor<D>& dst, const LocalTensor<S>& src, const S& scalarValue, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p, Loc loc = Loc()) {
    npusim_scalar s = ToScalar(scalarValue);
    int64_t blk[3] = {p.dstBlkStride, p.srcBlkStride, 1};
    int64_t rep[3] = {p.dstRepStride, p.srcRepStride, 0};
    detail::VecRepeat("Axpy", dst.t, &src.t, 1, &s, 0, detail::MaskOf(isSetMask, detail::Count(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}
template <class D, class S, bool isSetMask = true>
inline void Axpy(const LocalTensor<D>& dst, const LocalTensor<S>& src, const S& scalarValue, const uint64_t mask[2],
                 const uint8_t repeatTime, const UnaryRepeatParams& p, Loc loc = Loc()) {
    npusim_scalar s = ToScalar(scalarValue);
    int64_t blk[3] = {p.dstBlkStride, p.srcBlkStride, 1};
    int64_t rep[3] = {p.dstRepStride, p.srcRepStride, 0};
    detail::VecRepeat("Axpy", dst.t, &src.t, 1, &s, 0, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}
template <class T, class U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count, Loc loc = Loc()) {
    npusim_tensor s[2] = {src0.t, src1.t};
    detail::VecCount<T>("MulAddDst", dst.t, s, 2, nullptr, 0, count, loc);
}
template <class T, class U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
                      const uint8_t repeatTime, const BinaryRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor s[2] = {src0.t, src1.t};
    int64_t blk[3] = {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride};
    int64_t rep[3] = {p.dstRepStride, p.src0RepStride, p.src1RepStride};
    detail::VecRepeat("MulAddDst", dst.t, s, 2, nullptr, 0, detail::MaskOf(isSetMask, detail::Count(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}
template <class T, class U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const uint64_t mask[2], const uint8_t repeatTime, const BinaryRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor s[2] = {src0.t, src1.t};
    int64_t blk[3] = {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride};
    int64_t rep[3] = {p.dstRepStride, p.src0RepStride, p.src1RepStride};
    detail::VecRepeat("MulAddDst", dst.t, s, 2, nullptr, 0, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask,
                      repeatTime, blk, rep, loc);
}

template <class D, class S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& round, const uint32_t count,
                 Loc loc = Loc()) {
    detail::VecCount<D>("Cast", dst.t, &src.t, 1, nullptr, (uint32_t)round, count, loc);
}

template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const typename Id<T>::type& scalarValue, const int32_t& count,
                      Loc loc = Loc()) {
    npusim_scalar s = ToScalar(scalarValue);
    detail::VecCount<T>("Duplicate", dst.t, nullptr, 0, &s, 0, count, loc);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const typename Id<T>::type& scalarValue, uint64_t mask,
                      const uint8_t repeat, const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                      Loc loc = Loc()) {
    npusim_scalar s = ToScalar(scalarValue);
    int64_t blk[3] = {dstBlockStride, 1, 1};
    int64_t rep[3] = {dstRepeatStride, 0, 0};
    detail::VecRepeat("Duplicate", dst.t, nullptr, 0, &s, 0, detail::MaskOf(isSetMask, detail::Count(mask)),
                      isSetMask, repeat, blk, rep, loc);
}

// ---------------------------------------------------------------- reductions, compare, select

template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeat,
                          const int32_t maskCount, const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride, Loc loc = Loc()) {
    npusim_mask m = detail::MaskOf(isSetMask, detail::Count((uint64_t)(int64_t)maskCount));
    npusim_face::check(npusim_face::api()->pair_reduce_sum(npusim_face::dev(), &dstLocal.t, &srcLocal.t, repeat, &m,
                                                           isSetMask ? 1u : 0u, dstRepStride, srcBlkStride,
                                                           srcRepStride),
                       loc);
}
template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeat,
                          const uint64_t mask[2], const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride, Loc loc = Loc()) {
    npusim_mask m = detail::MaskOf(isSetMask, detail::Bits(mask));
    npusim_face::check(npusim_face::api()->pair_reduce_sum(npusim_face::dev(), &dstLocal.t, &srcLocal.t, repeat, &m,
                                                           isSetMask ? 1u : 0u, dstRepStride, srcBlkStride,
                                                           srcRepStride),
                       loc);
}

#define NPUSIM_REDUCE(NAME)                                                                                          \
    template <class T>                                                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                     const int32_t count, Loc loc = Loc()) {                                                         \
        (void)sharedTmpBuffer;                                                                                       \
        npusim_face::check(npusim_face::api()->reduce_all(npusim_face::dev(), #NAME, &dst.t, &src.t, count), loc);   \
    }
NPUSIM_REDUCE(ReduceSum)
NPUSIM_REDUCE(ReduceMax)
NPUSIM_REDUCE(ReduceMin)
#undef NPUSIM_REDUCE

template <class T, class U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    uint32_t count, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->compare(npusim_face::dev(), (uint32_t)mode, &dst.t, &src0.t, &src1.t,
                                                   nullptr, count),
                       loc);
}
template <class T, class U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const typename Id<T>::type& src1Scalar,
                          CMPMODE mode, uint32_t count, Loc loc = Loc()) {
    npusim_scalar s = ToScalar(src1Scalar);
    npusim_face::check(
        npusim_face::api()->compare(npusim_face::dev(), (uint32_t)mode, &dst.t, &src0.t, nullptr, &s, count), loc);
}
template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE mode, uint32_t count, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->select(npusim_face::dev(), (uint32_t)mode, &dst.t, &selMask.t, &src0.t,
                                                  &src1.t, nullptr, count),
                       loc);
}
template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const typename Id<T>::type& src1, SELMODE mode, uint32_t count, Loc loc = Loc()) {
    npusim_scalar s = ToScalar(src1);
    npusim_face::check(npusim_face::api()->select(npusim_face::dev(), (uint32_t)mode, &dst.t, &selMask.t, &src0.t,
                                                  nullptr, &s, count),
                       loc);
}

// WholeReduce* / RepeatReduceSum / BlockReduce* (Max/Min write value and index,
// ORDER_VALUE_INDEX).
enum class ReduceOrder { ORDER_VALUE_INDEX = 0 };
namespace detail {
inline void Reduce(const char* name, const npusim_tensor& dst, const npusim_tensor& src, const npusim_mask& m,
                   bool setMask, int32_t repeat, int32_t dstRep, int32_t srcBlk, int32_t srcRep, const Loc& loc) {
    npusim_face::check(npusim_face::api()->reduce(npusim_face::dev(), name, &dst, &src, &m, setMask ? 1u : 0u, repeat,
                                                  dstRep, srcBlk, srcRep),
                       loc);
}
}  // namespace detail
#define NPUSIM_WHOLE_REDUCE(NAME)                                                                                    \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                      \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,               \
                     const int32_t srcRepStride, ReduceOrder = ReduceOrder::ORDER_VALUE_INDEX, Loc loc = Loc()) {   \
        detail::Reduce(#NAME, dst.t, src.t, detail::MaskOf(isSetMask, detail::Count((uint64_t)(int64_t)mask)),      \
                       isSetMask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);                        \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                   \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,               \
                     const int32_t srcRepStride, ReduceOrder = ReduceOrder::ORDER_VALUE_INDEX, Loc loc = Loc()) {   \
        detail::Reduce(#NAME, dst.t, src.t, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask, repeatTime,    \
                       dstRepStride, srcBlkStride, srcRepStride, loc);                                               \
    }
NPUSIM_WHOLE_REDUCE(WholeReduceSum)
NPUSIM_WHOLE_REDUCE(WholeReduceMax)
NPUSIM_WHOLE_REDUCE(WholeReduceMin)
#undef NPUSIM_WHOLE_REDUCE
#define NPUSIM_BLOCK_REDUCE(NAME)                                                                                    \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                     \
                     const int32_t srcRepStride, Loc loc = Loc()) {                                                  \
        detail::Reduce(#NAME, dst.t, src.t, detail::MaskOf(isSetMask, detail::Count((uint64_t)(int64_t)mask)),      \
                       isSetMask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);                        \
    }                                                                                                                \
    template <class T, bool isSetMask = true>                                                                        \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                  \
                     const int32_t srcRepStride, Loc loc = Loc()) {                                                  \
        detail::Reduce(#NAME, dst.t, src.t, detail::MaskOf(isSetMask, detail::Bits(mask)), isSetMask, repeatTime,    \
                       dstRepStride, srcBlkStride, srcRepStride, loc);                                               \
    }
NPUSIM_BLOCK_REDUCE(BlockReduceSum)
NPUSIM_BLOCK_REDUCE(BlockReduceMax)
NPUSIM_BLOCK_REDUCE(BlockReduceMin)
#undef NPUSIM_BLOCK_REDUCE
// RepeatReduceSum: continuous mask only; dstBlkStride is ignored (the page).
template <class T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride, Loc loc = Loc()) {
    (void)dstBlkStride;
    detail::Reduce("RepeatReduceSum", dst.t, src.t, detail::MaskOf(isSetMask, detail::Count((uint64_t)(int64_t)mask)),
                   isSetMask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);
}

// ---------------------------------------------------------------- data rearrangement, CMPMASK

namespace detail {
inline uint64_t Rearrange(const char* name, const npusim_tensor* t, uint32_t nt, const int64_t* v, uint32_t nv,
                          const npusim_scalar* s, const Loc& loc) {
    uint64_t out = 0;
    npusim_face::check(npusim_face::api()->rearrange(npusim_face::dev(), name, t, nt, v, nv, s, &out), loc);
    return out;
}
}  // namespace detail

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t b, uint16_t r) : dstBlkStride(b), dstRepStride(r) {}
};
struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 0;
    uint8_t src1RepeatStride = 0;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t b, uint16_t r, uint16_t s0, uint8_t s1)
        : src0BlockStride(b), repeatTimes(r), src0RepeatStride(s0), src1RepeatStride(s1) {}
};

// Brcb: each of 8 source elements per repeat fills one 32-byte block.
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                 const BrcbRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src.t};
    int64_t v[3] = {repeatTime, p.dstBlkStride, p.dstRepStride};
    detail::Rearrange("Brcb", t, 2, v, 3, nullptr, loc);
}
// CreateVecIndex: dst[i] = firstValue + i for the first count elements.
template <class T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const typename Id<T>::type& firstValue, uint32_t count,
                           Loc loc = Loc()) {
    npusim_scalar s = ToScalar(firstValue);
    int64_t v[1] = {count};
    detail::Rearrange("CreateVecIndex", &dst.t, 1, v, 1, &s, loc);
}
// Gather: dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)].
template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count, Loc loc = Loc()) {
    npusim_tensor t[3] = {dst.t, src.t, srcOffset.t};
    int64_t v[2] = {srcBaseAddr, count};
    detail::Rearrange("Gather", t, 3, v, 2, nullptr, loc);
}
// GatherMask with a built-in pattern (1..7) or a pattern tensor; rsvdCnt = elements kept.
template <class T>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt,
                       Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src0.t};
    int64_t v[7] = {src1Pattern, reduceMode, mask, p.src0BlockStride, p.repeatTimes, p.src0RepeatStride,
                    p.src1RepeatStride};
    rsvdCnt = detail::Rearrange("GatherMask", t, 2, v, 7, nullptr, loc);
}
template <class T, class U>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt,
                       Loc loc = Loc()) {
    npusim_tensor t[3] = {dst.t, src0.t, src1Pattern.t};
    int64_t v[7] = {0, reduceMode, mask, p.src0BlockStride, p.repeatTimes, p.src0RepeatStride, p.src1RepeatStride};
    rsvdCnt = detail::Rearrange("GatherMask", t, 3, v, 7, nullptr, loc);
}
// Gatherb: 8 blocks of 32 bytes per repeat from src + offset[k] (uint32 byte offsets).
struct GatherRepeatParams {
    uint32_t blockNumber = 8;
    uint16_t dstRepStride = 8;
    uint8_t dstBlkStride = 1;
    uint8_t src0BlkStride = 1, src1BlkStride = 1, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    GatherRepeatParams() = default;
    GatherRepeatParams(uint8_t blk, uint8_t rep) : dstRepStride(rep), dstBlkStride(blk) {}
};
template <class T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor t[3] = {dst.t, src.t, offset.t};
    int64_t v[3] = {repeatTime, p.dstBlkStride, p.dstRepStride};
    detail::Rearrange("Gatherb", t, 3, v, 3, nullptr, loc);
}
// BilinearInterpolation: weighted sums of gathered 32-byte blocks (half; Atlas A2/A3).
template <class T>
inline void BilinearInterpolation(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                  const LocalTensor<uint32_t>& src0Offset, const LocalTensor<T>& src1, uint64_t mask[],
                                  uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset,
                                  uint8_t vRepeat, const LocalTensor<uint8_t>& sharedTmpBuffer, Loc loc = Loc()) {
    npusim_tensor t[5] = {dst.t, src0.t, src0Offset.t, src1.t, sharedTmpBuffer.t};
    int64_t v[8] = {1, (int64_t)mask[0], (int64_t)mask[1], hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat};
    detail::Rearrange("BilinearInterpolation", t, 5, v, 8, nullptr, loc);
}
template <class T>
inline void BilinearInterpolation(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                  const LocalTensor<uint32_t>& src0Offset, const LocalTensor<T>& src1, uint64_t mask,
                                  uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset,
                                  uint8_t vRepeat, const LocalTensor<uint8_t>& sharedTmpBuffer, Loc loc = Loc()) {
    npusim_tensor t[5] = {dst.t, src0.t, src0Offset.t, src1.t, sharedTmpBuffer.t};
    int64_t v[8] = {0, (int64_t)mask, 0, hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat};
    detail::Rearrange("BilinearInterpolation", t, 5, v, 8, nullptr, loc);
}
// Transpose: one 16x16 transpose of 2-byte elements.
template <class T> inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src.t};
    detail::Rearrange("Transpose", t, 2, nullptr, 0, nullptr, loc);
}
// The high-dimension forms (Compare.md / CompareScalar.md): mask is a reserved parameter
// (ignored), the destination strides are not used, the bit stream is packed.
template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& p, Loc loc = Loc()) {
    (void)mask;
    npusim_tensor t[3] = {dst.t, src0.t, src1.t};
    int64_t v[6] = {(int64_t)mode, repeatTime, p.src0BlkStride, p.src1BlkStride, p.src0RepStride, p.src1RepStride};
    detail::Rearrange("CompareRepeat", t, 3, v, 6, nullptr, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& p, Loc loc = Loc()) {
    (void)mask;
    npusim_tensor t[3] = {dst.t, src0.t, src1.t};
    int64_t v[6] = {(int64_t)mode, repeatTime, p.src0BlkStride, p.src1BlkStride, p.src0RepStride, p.src1RepStride};
    detail::Rearrange("CompareRepeat", t, 3, v, 6, nullptr, loc);
}
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const typename Id<T>::type& src1Scalar,
                          CMPMODE mode, const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& p,
                          Loc loc = Loc()) {
    (void)mask;
    npusim_scalar s = ToScalar(src1Scalar);
    npusim_tensor t[2] = {dst.t, src0.t};
    int64_t v[4] = {(int64_t)mode, repeatTime, p.srcBlkStride, p.srcRepStride};
    detail::Rearrange("CompareScalarRepeat", t, 2, v, 4, &s, loc);
}
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const typename Id<T>::type& src1Scalar,
                          CMPMODE mode, const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams& p,
                          Loc loc = Loc()) {
    (void)mask;
    npusim_scalar s = ToScalar(src1Scalar);
    npusim_tensor t[2] = {dst.t, src0.t};
    int64_t v[4] = {(int64_t)mode, repeatTime, p.srcBlkStride, p.srcRepStride};
    detail::Rearrange("CompareScalarRepeat", t, 2, v, 4, &s, loc);
}
// Compare into CMPMASK: one repeat (block strides from the params).
template <class T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode, const uint64_t mask[],
                    const BinaryRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor t[2] = {src0.t, src1.t};
    int64_t v[7] = {(int64_t)mode, 0, (int64_t)mask[0], (int64_t)mask[1], p.src0BlkStride, p.src1BlkStride, isSetMask};
    detail::Rearrange("Compare", t, 2, v, 7, nullptr, loc);
}
template <class T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode, const uint64_t mask,
                    const BinaryRepeatParams& p, Loc loc = Loc()) {
    npusim_tensor t[2] = {src0.t, src1.t};
    int64_t v[7] = {(int64_t)mode, 1, (int64_t)mask, 0, p.src0BlkStride, p.src1BlkStride, isSetMask};
    detail::Rearrange("Compare", t, 2, v, 7, nullptr, loc);
}
// SetCmpMask / GetCmpMask: 128 bits of CMPMASK from / into UB.
template <class T> inline void SetCmpMask(const LocalTensor<T>& src, Loc loc = Loc()) {
    detail::Rearrange("SetCmpMask", &src.t, 1, nullptr, 0, nullptr, loc);
}
template <class T> inline void GetCmpMask(const LocalTensor<T>& dst, Loc loc = Loc()) {
    detail::Rearrange("GetCmpMask", &dst.t, 1, nullptr, 0, nullptr, loc);
}

// ---------------------------------------------------------------- sorting, address-list transpose,
// reduction registers, slice moves (npusim_rearrange by name)

// Sort32: 32 scores per repeat sorted descending into (score, uint32 index) pairs.
template <class T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime, Loc loc = Loc()) {
    npusim_tensor t[3] = {dst.t, src0.t, src1.t};
    int64_t v[1] = {repeatTime};
    detail::Rearrange("Sort32", t, 3, v, 1, nullptr, loc);
}
// RpSort16: 16 region proposals sorted by score per repeat.
template <class T>
inline void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src.t};
    int64_t v[1] = {repeatTime};
    detail::Rearrange("RpSort16", t, 2, v, 1, nullptr, loc);
}
// ProposalConcat / ProposalExtract: 16 elements per repeat into / out of field modeNumber.
template <class T>
inline void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                           const int32_t modeNumber, Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src.t};
    int64_t v[2] = {repeatTime, modeNumber};
    detail::Rearrange("ProposalConcat", t, 2, v, 2, nullptr, loc);
}
template <class T>
inline void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t modeNumber, Loc loc = Loc()) {
    npusim_tensor t[2] = {dst.t, src.t};
    int64_t v[2] = {repeatTime, modeNumber};
    detail::Rearrange("ProposalExtract", t, 2, v, 2, nullptr, loc);
}
// MrgSortSrcList / MrgSort4Info (unused lists may stay default-constructed).
template <class T> struct MrgSortSrcList {
    LocalTensor<T> src1, src2, src3, src4;
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c = LocalTensor<T>(),
                   const LocalTensor<T>& d = LocalTensor<T>())
        : src1(a), src2(b), src3(c), src4(d) {}
};
struct MrgSort4Info {
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 15;
    uint16_t repeatTimes = 1;
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t lens[4], bool stop, uint16_t valid, uint16_t repeat)
        : ifExhaustedSuspension(stop), validBit(valid), repeatTimes(repeat) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = lens[i];
    }
};
namespace detail {
template <class T>
inline void Merge(const char* name, const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& p,
                  const Loc& loc) {
    npusim_tensor t[5] = {dst.t, src.src1.t, src.src2.t, src.src3.t, src.src4.t};
    int64_t v[7] = {p.elementLengths[0], p.elementLengths[1], p.elementLengths[2], p.elementLengths[3],
                    p.ifExhaustedSuspension, p.validBit, p.repeatTimes};
    Rearrange(name, t, 5, v, 7, nullptr, loc);
}
}  // namespace detail
// MrgSort (A2/A3, 310B, 950) / MrgSort4 (Atlas training, 310P): up to 4 sorted lists merged.
template <class T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& p, Loc loc = Loc()) {
    detail::Merge("MrgSort", dst, src, p, loc);
}
template <class T>
inline void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& p, Loc loc = Loc()) {
    detail::Merge("MrgSort4", dst, src, p, loc);
}
// GetMrgSortResult: how many entries of each list the last merge wrote out.
inline void GetMrgSortResult(uint16_t& l1, uint16_t& l2, uint16_t& l3, uint16_t& l4, Loc loc = Loc()) {
    uint64_t r = detail::Rearrange("GetMrgSortResult", nullptr, 0, nullptr, 0, nullptr, loc);
    l1 = (uint16_t)r;
    l2 = (uint16_t)(r >> 16);
    l3 = (uint16_t)(r >> 32);
    l4 = (uint16_t)(r >> 48);
}

// TransDataTo5HD with LocalTensor address lists (NCHW -> NC1HWC0).
constexpr int NCHW_CONV_ADDR_LIST_SIZE = 16;
struct TransDataTo5HDParams {
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dh, bool sh, uint8_t r, uint16_t dr, uint16_t sr)
        : dstHighHalf(dh), srcHighHalf(sh), repeatTimes(r), dstRepStride(dr), srcRepStride(sr) {}
};
template <class T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams& p,
                           Loc loc = Loc()) {
    npusim_tensor t[32];
    for (int i = 0; i < 16; ++i) {
        t[i] = dstList[i].t;
        t[16 + i] = srcList[i].t;
    }
    int64_t v[5] = {p.dstHighHalf, p.srcHighHalf, p.repeatTimes, p.dstRepStride, p.srcRepStride};
    detail::Rearrange("TransDataTo5HD", t, 32, v, 5, nullptr, loc);
}

// The reduction registers: the sum of the last count-form ReduceSum (A2/A3, 950), and the
// best value (and index) of the last contiguous WholeReduceMax/Min or ReduceMax/Min.
template <class T> inline T GetReduceRepeatSumSpr(Loc loc = Loc()) {
    int64_t v[1] = {(int64_t)DType<T>::value};
    return FromBits<T>(detail::Rearrange("GetReduceRepeatSumSpr", nullptr, 0, v, 1, nullptr, loc));
}
template <class T> inline T GetAccVal(Loc loc = Loc()) {
    int64_t v[1] = {(int64_t)DType<T>::value};
    return FromBits<T>(detail::Rearrange("GetAccVal", nullptr, 0, v, 1, nullptr, loc));
}
template <class T> inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex, Loc loc = Loc()) {
    int64_t v[2] = {(int64_t)DType<T>::value, 1};
    uint64_t r = detail::Rearrange("GetReduceRepeatMaxMinSpr", nullptr, 0, v, 2, nullptr, loc);
    maxMinValue = FromBits<T>(r & 0xffffffffu);
    maxMinIndex = FromBits<T>(r >> 32);
}
template <class T> inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, Loc loc = Loc()) {
    int64_t v[2] = {(int64_t)DType<T>::value, 0};
    maxMinValue = FromBits<T>(detail::Rearrange("GetReduceRepeatMaxMinSpr", nullptr, 0, v, 2, nullptr, loc) & 0xffffffffu);
}
template <class T> inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex, Loc loc = Loc()) {
    int64_t v[2] = {(int64_t)DType<T>::value, 1};
    uint64_t r = detail::Rearrange("GetReduceMaxMinCount", nullptr, 0, v, 2, nullptr, loc);
    maxMinValue = FromBits<T>(r & 0xffffffffu);
    maxMinIndex = FromBits<T>(r >> 32);
}

// DataCopy with slices (GM <-> UB): {startIndex, endIndex, stride, burstLen, shapeValue} per
// dimension.
struct SliceInfo {
    uint32_t startIndex = 0, endIndex = 0, stride = 0, burstLen = 0, shapeValue = 0;
    SliceInfo() = default;
    SliceInfo(uint32_t s, uint32_t e, uint32_t st, uint32_t b, uint32_t sh)
        : startIndex(s), endIndex(e), stride(st), burstLen(b), shapeValue(sh) {}
};
namespace detail {
inline void Slice(const npusim_tensor& dst, const npusim_tensor& src, const SliceInfo* d, const SliceInfo* s,
                  uint32_t dim, const Loc& loc) {
    std::vector<int64_t> v;
    v.push_back(dim);
    for (const SliceInfo* l : {d, s})
        for (uint32_t k = 0; k < dim; ++k) {
            v.push_back(l[k].startIndex);
            v.push_back(l[k].endIndex);
            v.push_back(l[k].stride);
            v.push_back(l[k].burstLen);
            v.push_back(l[k].shapeValue);
        }
    npusim_tensor t[2] = {dst, src};
    Rearrange("DataCopySlice", t, 2, v.data(), (uint32_t)v.size(), nullptr, loc);
}
}  // namespace detail
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1, Loc loc = Loc()) {
    detail::Slice(dst.t, src.t, dstSliceInfo, srcSliceInfo, dimValue, loc);
}
template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1, Loc loc = Loc()) {
    detail::Slice(dst.t, src.t, dstSliceInfo, srcSliceInfo, dimValue, loc);
}

// ---------------------------------------------------------------- atomic moves into GM

// SetAtomicAdd<T>(): later DataCopy / DataCopyPad into GM add elements of T.
template <class T> inline void SetAtomicAdd(Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_atomic(npusim_face::dev(), (int32_t)DType<T>::value), loc);
}
inline void SetAtomicNone(Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_atomic(npusim_face::dev(), -1), loc);
}
inline void DisableDmaAtomic(Loc loc = Loc()) { SetAtomicNone(loc); }

// ---------------------------------------------------------------- mask registers

template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_mask(npusim_face::dev(), 0, maskHigh, maskLow), loc);
}
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len, Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_mask(npusim_face::dev(), 1, (uint64_t)(int64_t)len, 0), loc);
}
inline void SetMaskCount(Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_mask(npusim_face::dev(), 2, 0, 0), loc);
}
inline void SetMaskNorm(Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_mask(npusim_face::dev(), 3, 0, 0), loc);
}
inline void ResetMask(Loc loc = Loc()) {
    npusim_face::check(npusim_face::api()->set_mask(npusim_face::dev(), 4, 0, 0), loc);
}

// Synchronisation is implicit (calls run in program order).
inline void PipeBarrier() {}
template <int pipe> inline void PipeBarrier() {}

}  // namespace AscendC

using AscendC::bfloat16_t;
using AscendC::half;

// ---------------------------------------------------------------- the launch boundary

namespace npusim_face {

template <std::size_t I> using ArgT = uint8_t*;

template <std::size_t... I> inline void call(const void* f, const uint64_t* a, std::index_sequence<I...>) {
    using F = void (*)(ArgT<I>...);
    reinterpret_cast<F>(const_cast<void*>(f))(reinterpret_cast<uint8_t*>((uintptr_t)a[I])...);
}

template <std::size_t N> inline void call_n(const void* f, uint32_t n, const uint64_t* a) {
    if (n == N) {
        call(f, a, std::make_index_sequence<N>{});
    } else if constexpr (N < 16) {
        call_n<N + 1>(f, n, a);
    }
}

// Runs `body` and turns any exception into a status (nothing unwinds past this point).
template <class F> inline int guarded(F body) {
    try {
        body();
        return NPUSIM_OK;
    } catch (const KernelError& e) {
        return e.code;
    } catch (const std::exception& e) {
        state().api->fail(NPUSIM_E_PANIC, "kernel", "C++ exception", "a kernel must not throw", e.what());
        return NPUSIM_E_PANIC;
    } catch (...) {
        state().api->fail(NPUSIM_E_PANIC, "kernel", "C++ exception", "a kernel must not throw", "unknown exception");
        return NPUSIM_E_PANIC;
    }
}

}  // namespace npusim_face

// Called by the npusim binary: attach the library's table and device (null detaches).
extern "C" __attribute__((weak, visibility("default"))) int npusim_face_attach(const npusim_api_v1* api,
                                                                                npusim_device* dev) {
    if (api && api->abi_version != NPUSIM_ABI_VERSION) return NPUSIM_E_ARG;
    npusim_face::state().api = api;
    npusim_face::state().dev = dev;
    return NPUSIM_OK;
}

// Called by the npusim binary: one block of `entry` with `nargs` GM pointers.
extern "C" __attribute__((weak, visibility("default"))) int npusim_face_run(const void* entry, uint32_t nargs,
                                                                             const uint64_t* args, uint32_t idx,
                                                                             uint32_t num) {
    (void)idx;
    (void)num;
    if (!npusim_face::state().api || nargs > 16) return NPUSIM_E_ARG;
    return npusim_face::guarded([&] { npusim_face::call_n<0>(entry, nargs, args); });
}

#ifdef NPUSIM_LINKED
// Linking libnpusim_capi: a process-wide device (chip from $NPUSIM_CHIP, default ascend910b;
// GM size from $NPUSIM_GM_BYTES, default 64 MiB), GM buffers, and the CPU-debug-style launcher.
namespace npusim_face {
inline void attach_linked() {
    if (state().api) return;
    const npusim_api_v1* a = npusim_api(NPUSIM_ABI_VERSION);
    const char* chip = std::getenv("NPUSIM_CHIP");
    const char* gm = std::getenv("NPUSIM_GM_BYTES");
    npusim_device* d = nullptr;
    if (!a || npusim_device_new(chip ? chip : "ascend910b", gm ? std::strtoull(gm, nullptr, 0) : (64u << 20), &d)) {
        std::fprintf(stderr, "npusim: %s\n", npusim_last_error());
        std::exit(1);
    }
    state().api = a;
    state().dev = d;
}
template <class... A> inline int run_kf(const char* name, void (*kernel)(A...), uint32_t blocks, const char* file,
                                        int line, A... args) {
    attach_linked();
    for (uint32_t b = 0; b < blocks; ++b) {
        int s = npusim_block_begin(state().dev, b, blocks);
        if (s == NPUSIM_OK) s = guarded([&] { kernel(args...); });
        if (s != NPUSIM_OK) {
            std::fprintf(stderr, "%s:%d: ICPU_RUN_KF(%s) block %u of %u: %s\n", file, line, name, b, blocks,
                         npusim_last_error());
            return s;
        }
    }
    return NPUSIM_OK;
}
}  // namespace npusim_face
namespace AscendC {
// A GM buffer of `bytes` (32-byte aligned), as the kernel receives it.
inline uint8_t* GmAlloc(uint64_t bytes) {
    npusim_face::attach_linked();
    uint64_t a = 0;
    if (npusim_alloc(npusim_face::state().dev, NPUSIM_GM, bytes, &a)) {
        std::fprintf(stderr, "npusim: GmAlloc: %s\n", npusim_last_error());
        std::exit(1);
    }
    return reinterpret_cast<uint8_t*>((uintptr_t)(NPUSIM_GM_VBASE + a));
}
inline void GmFree(void*) {}
inline int GmWrite(uint8_t* gm, const void* data, uint64_t bytes) {
    return npusim_write(npusim_face::state().dev, NPUSIM_GM, (uint64_t)(uintptr_t)gm - NPUSIM_GM_VBASE, data, bytes);
}
inline int GmRead(const uint8_t* gm, void* data, uint64_t bytes) {
    return npusim_read(npusim_face::state().dev, NPUSIM_GM, (uint64_t)(uintptr_t)gm - NPUSIM_GM_VBASE, data, bytes);
}
}  // namespace AscendC
// ICPU_RUN_KF(kernel, blockDim, args...): runs blocks 0..blockDim-1 in order; on error prints
// "file:line: ICPU_RUN_KF(kernel) block b of n: <call site>: <message>" and yields the status.
#define ICPU_RUN_KF(kernel, blockDim, ...) \
    npusim_face::run_kf(#kernel, kernel, (uint32_t)(blockDim), __FILE__, __LINE__, __VA_ARGS__)
#endif  // NPUSIM_LINKED

// ---------------------------------------------------------------- printf, PRINTF, DumpTensor
// (asc-devkit docs/api/context/printf.md, DumpTensor.md). The text goes to stdout tagged with
// the block and the call's file:line (taken at the call, as __LINE__ would be).
namespace npusim_face {
// The format string with the call site of the print (the conversion happens at the call).
struct FmtLoc {
    const char* fmt;
    Loc loc;
    FmtLoc(const char* f, Loc l = Loc()) : fmt(f), loc(l) {}
};
inline npusim_print_arg parg(bool v) { return {1u, 0, (uint64_t)v, 0.0, nullptr}; }
inline npusim_print_arg parg(AscendC::half v) { return {2u, 0, 0, (double)(float)v, nullptr}; }
inline npusim_print_arg parg(AscendC::bfloat16_t v) { return {2u, 0, 0, (double)(float)v, nullptr}; }
inline npusim_print_arg parg(const char* s) { return {3u, 0, 0, 0.0, s}; }
inline npusim_print_arg parg(char* s) { return {3u, 0, 0, 0.0, s}; }
template <class T>
inline typename std::enable_if<std::is_integral<T>::value && std::is_signed<T>::value, npusim_print_arg>::type
parg(T v) { return {0u, (int64_t)v, 0, 0.0, nullptr}; }
template <class T>
inline typename std::enable_if<std::is_integral<T>::value && !std::is_signed<T>::value && !std::is_same<T, bool>::value, npusim_print_arg>::type
parg(T v) { return {1u, 0, (uint64_t)v, 0.0, nullptr}; }
template <class T>
inline typename std::enable_if<std::is_floating_point<T>::value, npusim_print_arg>::type
parg(T v) { return {2u, 0, 0, (double)v, nullptr}; }
template <class T>
inline typename std::enable_if<!std::is_same<typename std::remove_cv<T>::type, char>::value, npusim_print_arg>::type
parg(T* p) { return {4u, 0, (uint64_t)(uintptr_t)p, 0.0, nullptr}; }
template <class... Args>
inline void print(const char* call, const FmtLoc& f, Args&&... args) {
    npusim_print_arg a[sizeof...(Args) + 1] = {parg(args)..., npusim_print_arg{0u, 0, 0, 0.0, nullptr}};
    check(api()->print(dev(), call, f.loc.file, (uint32_t)f.loc.line, f.fmt, a, (uint32_t)sizeof...(Args)), f.loc);
}
inline void dump(const npusim_tensor& t, uint32_t desc, uint32_t dumpSize, const uint32_t* shape,
                 uint32_t ndim, const Loc& loc) {
    check(api()->dump_tensor(dev(), loc.file, (uint32_t)loc.line, &t, desc, dumpSize, shape, ndim), loc);
}
inline void dump_shaped(const npusim_tensor& t, uint32_t desc, uint32_t dumpSize, uint32_t ndim,
                        const uint32_t* shape, const Loc& loc) {
    if (ndim > 8) {
        fail(NPUSIM_E_RULE, "DumpTensor", "shapeInfo", "a shape has 1 to 8 dimensions",
             std::to_string(ndim) + " dimensions", loc);
    }
    dump(t, desc, dumpSize, shape, ndim, loc);
}
}  // namespace npusim_face

namespace AscendC {
template <class... Args>
inline void printf(npusim_face::FmtLoc fmt, Args&&... args) {
    npusim_face::print("printf", fmt, std::forward<Args>(args)...);
}
template <class... Args>
inline void PRINTF(npusim_face::FmtLoc fmt, Args&&... args) {
    npusim_face::print("PRINTF", fmt, std::forward<Args>(args)...);
}
// ShapeInfo(dim, shape): the shape DumpTensor arranges the dumped elements by (at most 8 dims).
struct ShapeInfo {
    uint32_t shapeDim = 0;
    uint32_t shape[8] = {};
    ShapeInfo() = default;
    ShapeInfo(uint32_t dim, const uint32_t* s) : shapeDim(dim) {
        for (uint32_t i = 0; i < dim && i < 8; ++i) shape[i] = s[i];
    }
};
template <class T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, Loc loc = Loc()) {
    npusim_face::dump(tensor.t, desc, dumpSize, nullptr, 0, loc);
}
template <class T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, Loc loc = Loc()) {
    npusim_face::dump(tensor.t, desc, dumpSize, nullptr, 0, loc);
}
template <class T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                       const ShapeInfo& shapeInfo, Loc loc = Loc()) {
    npusim_face::dump_shaped(tensor.t, desc, dumpSize, shapeInfo.shapeDim, shapeInfo.shape, loc);
}
template <class T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                       const ShapeInfo& shapeInfo, Loc loc = Loc()) {
    npusim_face::dump_shaped(tensor.t, desc, dumpSize, shapeInfo.shapeDim, shapeInfo.shape, loc);
}
}  // namespace AscendC

#endif  // NPUSIM_KERNEL_OPERATOR_H
