//! # npusim-capi: a C ABI over the Ascend vector unit, and Ascend C kernels on the host
//!
//! Three layers, each on the one below:
//!
//! 1. **The C ABI** ([`abi`], header `include/npusim.h`, version macro `NPUSIM_ABI_VERSION`,
//!    currently 1): create a device by chip profile name, allocate GM/UB regions (32-byte
//!    aligned, capacity checked), run the element-wise rows of npusim-ascend's instruction table
//!    by their Ascend C name with their parameters (count form and mask/repeat form), DataCopy,
//!    PairReduceSum, ReduceSum/Max/Min, Compare, Select, the mask registers, read/write values.
//!    Every call returns a status code; the message (`npusim_last_error()`) names the
//!    instruction, the parameter, the rule and the value. Every entry point runs under
//!    `catch_unwind`: a panic becomes `NPUSIM_E_PANIC`, never an unwind into C.
//! 2. **The C++ face** (`cpp/include/kernel_operator.h`, header-only, written for npusim):
//!    namespace `AscendC` with `GlobalTensor`, `LocalTensor`, `TPipe`, `TQue` (the
//!    Alloc/EnQue/DeQue/Free discipline checked), `TBuf`, `DataCopy`, the vector APIs, `half`
//!    and `bfloat16_t` (conversions through the ABI, bit-exact), the `__aicore__` / `__global__`
//!    / `__gm__` qualifiers, and `ICPU_RUN_KF(kernel, blockDim, args...)`. Each face call takes
//!    its call site (`__builtin_FILE()` / `__builtin_LINE()` default arguments) and a failing
//!    call stops the kernel with `file:line: instr: param = value: rule`.
//! 3. **The runner** ([`runner`], `npusim ascendc run`): compiles the kernel `.cpp` with the host
//!    C++ compiler into a shared object (cached by content hash), loads it, and hands it this
//!    library's function table.
//!
//! ## Design decision: a function table, not link-time symbols
//!
//! The face never calls `npusim_*` symbols directly; it calls through one `npusim_api_v1` table
//! of function pointers that it receives at run time. So:
//! - with `npusim ascendc run`, the kernel is built as a plain shared object that links nothing
//!   of Rust; the npusim binary `dlopen`s it (libloading) and calls its
//!   `npusim_face_attach(table, device)`; blocks run in order 0..N through the face's
//!   `npusim_face_run` trampoline, which catches the face's C++ exception at the boundary;
//! - with CMake (or any build of your own), define `NPUSIM_LINKED` before including
//!   `kernel_operator.h`, link `libnpusim_capi.a` (staticlib) or `libnpusim_capi.so`
//!   (cdylib), and call `ICPU_RUN_KF(kernel, blockDim, args...)` from your `main`; the table then
//!   comes from `npusim_api(NPUSIM_ABI_VERSION)`. `examples/ascendc/CMakeLists.txt` shows it.
//!
//! One table keeps one ABI version check at attach time and lets a kernel object built once run
//! under any npusim binary of the same ABI version.
//!
//! Blocks: one device, blocks run one after another; each block starts with a zeroed UB, no UB
//! allocation and a reset mask (see [`device`]); GM is shared.
//!
//! ## Rules this layer adds (documented choices)
//! - `DataCopy(dst, src, count)` requires `count * sizeof(T)` to be a multiple of 32 bytes and
//!   reports otherwise (the chip counts in 32-byte blocks; npusim-ascend's Rust face rounds
//!   down silently, the C face reports the lost tail as an error).
//! - `TPipe::InitBuffer(que, num, len)` reserves `num` buffers of `len` rounded up to 32 bytes.
//! - Queue misuse (DeQue of an empty queue, EnQue past the depth, AllocTensor with no free
//!   buffer, FreeTensor of a buffer not allocated) is `NPUSIM_E_QUEUE`.

pub mod abi;
pub mod device;
pub mod runner;

pub use device::{CapiError, Device};
pub use runner::{Launch, RunError};
