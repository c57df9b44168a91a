//! The C ABI (`include/npusim.h`, ABI version [`NPUSIM_ABI_VERSION`]).
//!
//! Every entry point returns a status (`NPUSIM_OK` = 0 or an `NPUSIM_E_*` code), catches any
//! panic (`catch_unwind`) so that nothing unwinds into C, and on failure stores a message that
//! names the API call, the parameter, the rule and the value; `npusim_last_error()` returns it
//! (per thread, valid until the next failing call on that thread). The same functions are
//! reachable through one table of function pointers ([`Api`], `npusim_api_v1` in C), which is
//! how a kernel shared object built by `npusim ascendc run` reaches them without linking this
//! library.

#![allow(clippy::missing_safety_doc)]

use crate::device::{CMask, CScalar, CapiError, Device, Result, Tensor};
use npusim_core::MemSpace;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The ABI version (`NPUSIM_ABI_VERSION`): bumped on any incompatible change of a signature,
/// struct layout or the [`Api`] table.
pub const NPUSIM_ABI_VERSION: u32 = 1;
/// Success.
pub const NPUSIM_OK: i32 = 0;
/// A bad argument (null pointer, unknown name or code).
pub const NPUSIM_E_ARG: i32 = 1;
/// A documented restriction of the instruction is violated.
pub const NPUSIM_E_RULE: i32 = 2;
/// Capacity or bounds: an allocation does not fit, an access leaves its tensor or memory.
pub const NPUSIM_E_MEMORY: i32 = 3;
/// An element type the instruction does not take on this chip, or mismatched types.
pub const NPUSIM_E_TYPE: i32 = 4;
/// An address misses its alignment rule.
pub const NPUSIM_E_ALIGN: i32 = 5;
/// Misuse of the Ascend C queue discipline (reported by the C++ face through `npusim_fail`).
pub const NPUSIM_E_QUEUE: i32 = 6;
/// A panic inside the library, caught at the boundary (a bug: please report).
pub const NPUSIM_E_PANIC: i32 = 7;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// The last error message of this thread (for Rust callers).
pub fn last_error() -> String {
    LAST_ERROR.with(|e| e.borrow().to_string_lossy().into_owned())
}

/// Runs `f`, turning an error or a panic into a status and the stored message.
fn guard(f: impl FnOnce() -> Result<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => NPUSIM_OK,
        Ok(Err(e)) => {
            set_error(&e.to_string());
            e.code()
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(&CapiError::Panic(msg).to_string());
            NPUSIM_E_PANIC
        }
    }
}

fn arg_err(instr: &str, param: &str) -> CapiError {
    CapiError::rule(instr, param, "must not be null", "NULL")
}

unsafe fn dev_mut<'a>(dev: *mut Device, instr: &str) -> Result<&'a mut Device> {
    // SAFETY: the caller passes a pointer from npusim_device_new or null (checked).
    unsafe { dev.as_mut() }.ok_or_else(|| arg_err(instr, "dev"))
}

unsafe fn cstr<'a>(s: *const c_char, instr: &str, param: &str) -> Result<&'a str> {
    if s.is_null() {
        return Err(arg_err(instr, param));
    }
    // SAFETY: non-null, and the caller passes a NUL-terminated string.
    unsafe { CStr::from_ptr(s) }
        .to_str()
        .map_err(|_| CapiError::rule(instr, param, "must be UTF-8", "invalid bytes"))
}

unsafe fn tensor<'a>(t: *const Tensor, instr: &str, param: &str) -> Result<&'a Tensor> {
    // SAFETY: the caller passes a valid pointer or null (checked).
    unsafe { t.as_ref() }.ok_or_else(|| arg_err(instr, param))
}

unsafe fn slice<'a, T>(p: *const T, n: usize, instr: &str, param: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(arg_err(instr, param));
    }
    // SAFETY: non-null and the caller promises `n` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

fn space(s: u32, instr: &str) -> Result<MemSpace> {
    Tensor {
        space: s,
        ..Default::default()
    }
    .mem_space(instr, "space")
}

/// `uint32_t npusim_abi_version(void)`.
#[unsafe(no_mangle)]
pub extern "C" fn npusim_abi_version() -> u32 {
    NPUSIM_ABI_VERSION
}

/// `const char* npusim_last_error(void)`: this thread's last error message ("" if none).
#[unsafe(no_mangle)]
pub extern "C" fn npusim_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// `int npusim_device_new(const char* chip, uint64_t gm_bytes, npusim_device** out)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_device_new(
    chip: *const c_char,
    gm_bytes: u64,
    out: *mut *mut Device,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(arg_err("npusim_device_new", "out"));
        }
        // SAFETY: see cstr.
        let name = unsafe { cstr(chip, "npusim_device_new", "chip") }?;
        let d = Box::new(Device::new(name, gm_bytes)?);
        // SAFETY: out is non-null and points to writable storage (caller's contract).
        unsafe { *out = Box::into_raw(d) };
        Ok(())
    })
}

/// `void npusim_device_free(npusim_device*)` (null is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_device_free(dev: *mut Device) {
    if dev.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: dev came from npusim_device_new and is freed once (caller's contract).
        drop(unsafe { Box::from_raw(dev) });
    }));
}

/// `int npusim_device_info(dev, uint64_t* gm_bytes, uint64_t* ub_bytes, uint32_t* block_idx,
/// uint32_t* block_num)`: any out pointer may be null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_device_info(
    dev: *mut Device,
    gm: *mut u64,
    ub: *mut u64,
    idx: *mut u32,
    num: *mut u32,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "npusim_device_info") }?;
        let (i, n) = d.block();
        // SAFETY: each pointer is null (skipped) or writable (caller's contract).
        unsafe {
            if let Some(p) = gm.as_mut() {
                *p = d.gm_size();
            }
            if let Some(p) = ub.as_mut() {
                *p = d.ub_size();
            }
            if let Some(p) = idx.as_mut() {
                *p = i;
            }
            if let Some(p) = num.as_mut() {
                *p = n;
            }
        }
        Ok(())
    })
}

/// `int npusim_alloc(dev, uint32_t space, uint64_t bytes, uint64_t* addr)`: a 32-byte aligned
/// region of GM or UB, capacity checked (UB: `TPipe::InitBuffer`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_alloc(
    dev: *mut Device,
    space_code: u32,
    bytes: u64,
    addr: *mut u64,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "npusim_alloc") }?;
        if addr.is_null() {
            return Err(arg_err("npusim_alloc", "addr"));
        }
        let a = match space(space_code, "npusim_alloc")? {
            MemSpace::Ub => d.ub_alloc(bytes)?,
            _ => d.gm_alloc(bytes)?,
        };
        // SAFETY: non-null, writable (caller's contract).
        unsafe { *addr = a };
        Ok(())
    })
}

/// `int npusim_block_begin(dev, uint32_t idx, uint32_t num)`: a fresh UB and mask state for
/// block `idx` of `num`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_block_begin(dev: *mut Device, idx: u32, num: u32) -> i32 {
    // SAFETY: see dev_mut.
    guard(|| unsafe { dev_mut(dev, "npusim_block_begin") }?.block_begin(idx, num))
}

/// `int npusim_write(dev, uint32_t space, uint64_t addr, const void* data, uint64_t len)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_write(
    dev: *mut Device,
    space_code: u32,
    addr: u64,
    data: *const u8,
    len: u64,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut / slice.
        let d = unsafe { dev_mut(dev, "npusim_write") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let s = unsafe { slice(data, len as usize, "npusim_write", "data") }?;
        d.write(space(space_code, "npusim_write")?, addr, s)
    })
}

/// `int npusim_read(dev, uint32_t space, uint64_t addr, void* data, uint64_t len)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_read(
    dev: *mut Device,
    space_code: u32,
    addr: u64,
    data: *mut u8,
    len: u64,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "npusim_read") }?;
        let v = d.read(space(space_code, "npusim_read")?, addr, len)?;
        if len > 0 && data.is_null() {
            return Err(arg_err("npusim_read", "data"));
        }
        // SAFETY: data has room for len bytes (caller's contract); v.len() == len.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), data, v.len()) };
        Ok(())
    })
}

/// `int npusim_get_value(dev, const npusim_tensor* t, uint64_t index, uint64_t* bits)`:
/// element `index` of the view, its bytes zero-extended.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_get_value(
    dev: *mut Device,
    t: *const Tensor,
    index: u64,
    bits: *mut u64,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut / tensor.
        let d = unsafe { dev_mut(dev, "GetValue") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let t = unsafe { tensor(t, "GetValue", "tensor") }?;
        let v = d.get_value(t, index)?;
        // SAFETY: bits is null (checked) or writable.
        unsafe { bits.as_mut() }
            .map(|b| *b = v)
            .ok_or_else(|| arg_err("GetValue", "bits"))
    })
}

/// `int npusim_set_value(dev, const npusim_tensor* t, uint64_t index, uint64_t bits)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_value(
    dev: *mut Device,
    t: *const Tensor,
    index: u64,
    bits: u64,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut / tensor.
        let d = unsafe { dev_mut(dev, "SetValue") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let t = unsafe { tensor(t, "SetValue", "tensor") }?;
        d.set_value(t, index, bits)
    })
}

/// `int npusim_vec_count(dev, const char* instr, const npusim_tensor* dst, const npusim_tensor*
/// srcs, uint32_t nsrcs, const npusim_scalar* scalar, uint32_t round, int64_t count)`: the count
/// form of the element-wise row named `instr` (its Ascend C name: `Add`, `Exp`, `Adds`,
/// `Cast`, `Duplicate`, ...); `scalar` may be null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_vec_count(
    dev: *mut Device,
    instr: *const c_char,
    dst: *const Tensor,
    srcs: *const Tensor,
    nsrcs: u32,
    scalar: *const CScalar,
    round: u32,
    count: i64,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers; scalar is null or valid.
        let d = unsafe { dev_mut(dev, "npusim_vec_count") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let name = unsafe { cstr(instr, "npusim_vec_count", "instr") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let dst = unsafe { tensor(dst, name, "dst") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let srcs = unsafe { slice(srcs, nsrcs as usize, name, "srcs") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let sc = unsafe { scalar.as_ref() }.copied();
        d.vec_count(name, dst, srcs, sc, round, count)
    })
}

/// `int npusim_vec_repeat(dev, instr, dst, srcs, nsrcs, scalar, round, const npusim_mask*
/// mask, uint32_t is_set_mask, int32_t repeat, const int64_t blk[3], const int64_t rep[3])`:
/// the mask/repeat form; `blk`/`rep` are the dst, src0, src1 block and repeat strides.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_vec_repeat(
    dev: *mut Device,
    instr: *const c_char,
    dst: *const Tensor,
    srcs: *const Tensor,
    nsrcs: u32,
    scalar: *const CScalar,
    round: u32,
    mask: *const CMask,
    is_set_mask: u32,
    repeat: i32,
    blk: *const i64,
    rep: *const i64,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers; blk/rep point to 3 values each.
        let d = unsafe { dev_mut(dev, "npusim_vec_repeat") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let name = unsafe { cstr(instr, "npusim_vec_repeat", "instr") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let dst = unsafe { tensor(dst, name, "dst") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let srcs = unsafe { slice(srcs, nsrcs as usize, name, "srcs") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let sc = unsafe { scalar.as_ref() }.copied();
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let m = unsafe { mask.as_ref() }.ok_or_else(|| arg_err(name, "mask"))?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let b = unsafe { slice(blk, 3, name, "blk") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let r = unsafe { slice(rep, 3, name, "rep") }?;
        d.vec_repeat(
            name,
            dst,
            srcs,
            sc,
            round,
            m,
            is_set_mask != 0,
            repeat,
            [b[0], b[1], b[2]],
            [r[0], r[1], r[2]],
        )
    })
}

/// `int npusim_data_copy(dev, const npusim_tensor* dst, const npusim_tensor* src, uint32_t
/// count)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_data_copy(
    dev: *mut Device,
    dst: *const Tensor,
    src: *const Tensor,
    count: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "DataCopy") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe {
            (
                tensor(dst, "DataCopy", "dst")?,
                tensor(src, "DataCopy", "src")?,
            )
        };
        d.data_copy(dt, st, count)
    })
}

/// `int npusim_data_copy_params(dev, dst, src, uint16_t block_count, uint16_t block_len,
/// uint16_t src_stride, uint16_t dst_stride)` (`DataCopyParams`, lengths in 32-byte blocks).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_data_copy_params(
    dev: *mut Device,
    dst: *const Tensor,
    src: *const Tensor,
    block_count: u16,
    block_len: u16,
    src_stride: u16,
    dst_stride: u16,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "DataCopy") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe {
            (
                tensor(dst, "DataCopy", "dst")?,
                tensor(src, "DataCopy", "src")?,
            )
        };
        d.data_copy_params(dt, st, [block_count, block_len, src_stride, dst_stride])
    })
}

/// `int npusim_set_loop_mode(dev, uint32_t type, const uint64_t* params)`: with `params` (6
/// values: loop1Size, loop2Size, loop1SrcStride, loop1DstStride, loop2SrcStride,
/// loop2DstStride) `SetLoopModePara(params, type)`; with NULL `ResetLoopModePara(type)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_loop_mode(
    dev: *mut Device,
    path: u32,
    params: *const u64,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "SetLoopModePara") }?;
        let p = if params.is_null() {
            None
        } else {
            let mut v = [0u64; 6];
            // SAFETY: a non-null `params` points at 6 values, per the npusim.h contract.
            unsafe { std::ptr::copy_nonoverlapping(params, v.as_mut_ptr(), 6) };
            Some(v)
        };
        d.set_loop_mode(path, p)
    })
}

/// `int npusim_set_deq_scale(dev, uint32_t form, float scale, int32_t offset, uint32_t
/// sign_mode)`: form 0 `SetDeqScale(half scale)`, 1 `SetDeqScale(float scale, int16_t offset,
/// bool signMode)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_deq_scale(
    dev: *mut Device,
    form: u32,
    scale: f32,
    offset: i32,
    sign_mode: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "SetDeqScale") }?;
        d.set_deq_scale(form, scale, offset, sign_mode != 0)
    })
}

/// `int npusim_set_deq_scale_vdeq(dev, const npusim_tensor* vdeq, const float* scale, const
/// int16_t* offset, const uint8_t* sign_mode)`: `SetDeqScale(vdeq, VdeqInfo)`, 16 values each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_deq_scale_vdeq(
    dev: *mut Device,
    vdeq: *const Tensor,
    scale: *const f32,
    offset: *const i16,
    sign_mode: *const u8,
) -> i32 {
    guard(|| {
        const N: &str = "SetDeqScale";
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, N) }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let v = unsafe { tensor(vdeq, N, "vdeq") }?;
        if scale.is_null() || offset.is_null() || sign_mode.is_null() {
            return Err(arg_err(N, "vdeqInfo"));
        }
        let (mut sc, mut off, mut sg) = ([0f32; 16], [0i16; 16], [0u8; 16]);
        // SAFETY: non-null pointers at 16 values each, per the npusim.h contract.
        unsafe {
            std::ptr::copy_nonoverlapping(scale, sc.as_mut_ptr(), 16);
            std::ptr::copy_nonoverlapping(offset, off.as_mut_ptr(), 16);
            std::ptr::copy_nonoverlapping(sign_mode, sg.as_mut_ptr(), 16);
        }
        d.set_deq_scale_vdeq(v, &sc, &off, &sg.map(|b| b != 0))
    })
}

/// `int npusim_cast_dequant(dev, dst, src, uint32_t flags, const npusim_mask* mask, uint32_t
/// is_set_mask, int32_t repeat, const int64_t* blk, const int64_t* rep, uint32_t count)`:
/// flags bit 0 `isVecDeq`, bit 1 `halfBlock`; with `mask` NULL the count form over `count`
/// elements, else the mask/repeat form (`blk`/`rep`: dst and src strides, 2 values each).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_cast_dequant(
    dev: *mut Device,
    dst: *const Tensor,
    src: *const Tensor,
    flags: u32,
    mask: *const CMask,
    is_set_mask: u32,
    repeat: i32,
    blk: *const i64,
    rep: *const i64,
    count: u32,
) -> i32 {
    guard(|| {
        const N: &str = "CastDequant";
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, N) }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe { (tensor(dst, N, "dst")?, tensor(src, N, "src")?) };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let m = unsafe { mask.as_ref() };
        let form = match m {
            None => None,
            Some(m) => {
                if blk.is_null() || rep.is_null() {
                    return Err(arg_err(N, "repeatParams"));
                }
                let (mut b, mut r) = ([0i64; 2], [0i64; 2]);
                // SAFETY: non-null pointers at 2 values each, per the npusim.h contract.
                unsafe {
                    std::ptr::copy_nonoverlapping(blk, b.as_mut_ptr(), 2);
                    std::ptr::copy_nonoverlapping(rep, r.as_mut_ptr(), 2);
                }
                Some((m, is_set_mask != 0, repeat, b, r))
            }
        };
        d.cast_dequant(dt, st, flags & 1 != 0, flags & 2 != 0, form, count)
    })
}

/// `int npusim_data_copy_pad(dev, dst, src, uint16_t block_count, uint32_t block_len, int64_t
/// src_stride, uint32_t dst_stride, uint32_t flags, uint8_t left, uint8_t right, const
/// npusim_scalar* pad_value)`: `DataCopyPad` with DataCopyExtParams; flags bit 0 pad params
/// given (GM -> UB), bit 1 `isPad`, bit 2 `PaddingMode::Compact`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_data_copy_pad(
    dev: *mut Device,
    dst: *const Tensor,
    src: *const Tensor,
    block_count: u16,
    block_len: u32,
    src_stride: i64,
    dst_stride: u32,
    flags: u32,
    left: u8,
    right: u8,
    pad_value: *const CScalar,
) -> i32 {
    guard(|| {
        const N: &str = "DataCopyPad";
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, N) }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe { (tensor(dst, N, "dst")?, tensor(src, N, "src")?) };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let v = unsafe { pad_value.as_ref() }.copied();
        let pad = (flags & 1 != 0).then_some((flags & 2 != 0, left, right, v));
        d.data_copy_pad(
            dt,
            st,
            block_count,
            block_len,
            src_stride,
            dst_stride,
            pad,
            flags & 4 != 0,
        )
    })
}

/// `int npusim_set_pad_value(dev, uint32_t dtype, const npusim_scalar* value)`:
/// `SetPadValue<T>(value)` with T's `NPUSIM_DT_*` code.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_pad_value(
    dev: *mut Device,
    dtype: u32,
    value: *const CScalar,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "SetPadValue") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let v = unsafe { value.as_ref() }.ok_or_else(|| arg_err("SetPadValue", "paddingValue"))?;
        d.set_pad_value(dtype, *v)
    })
}

/// `int npusim_reduce(dev, const char* instr, dst, src, const npusim_mask* mask, uint32_t
/// is_set_mask, int32_t repeat, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t
/// src_rep_stride)`: `WholeReduceSum/Max/Min`, `RepeatReduceSum`, `BlockReduceSum/Max/Min`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_reduce(
    dev: *mut Device,
    instr: *const c_char,
    dst: *const Tensor,
    src: *const Tensor,
    mask: *const CMask,
    is_set_mask: u32,
    repeat: i32,
    dst_rep_stride: i32,
    src_blk_stride: i32,
    src_rep_stride: i32,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "reduce") }?;
        // SAFETY: a NUL-terminated string from the C caller, or null (checked).
        let name = unsafe { cstr(instr, "reduce", "instr") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe { (tensor(dst, name, "dst")?, tensor(src, name, "src")?) };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let m = unsafe { mask.as_ref() }.ok_or_else(|| arg_err(name, "mask"))?;
        d.reduce(
            name,
            dt,
            st,
            m,
            is_set_mask != 0,
            repeat,
            [dst_rep_stride, src_blk_stride, src_rep_stride],
        )
    })
}

/// `int npusim_rearrange(dev, const char* instr, const npusim_tensor* tensors, uint32_t
/// ntensors, const int64_t* ints, uint32_t nints, const npusim_scalar* scalar, uint64_t*
/// out)`: Brcb, CreateVecIndex, Gather, GatherMask (`*out` = rsvdCnt), Transpose, Compare into
/// CMPMASK, SetCmpMask, GetCmpMask, Sort32, RpSort16, ProposalConcat/Extract, MrgSort/MrgSort4
/// and GetMrgSortResult (`*out` = the four counts), TransDataTo5HD, the reduction registers
/// (`*out` = their bits) and DataCopy with slices (operands as npusim.h lists them).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_rearrange(
    dev: *mut Device,
    instr: *const c_char,
    tensors: *const Tensor,
    ntensors: u32,
    ints: *const i64,
    nints: u32,
    scalar: *const CScalar,
    out: *mut u64,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "rearrange") }?;
        // SAFETY: a NUL-terminated string from the C caller, or null (checked).
        let name = unsafe { cstr(instr, "rearrange", "instr") }?;
        if (ntensors > 0 && tensors.is_null())
            || (nints > 0 && ints.is_null())
            || ntensors > 32
            || nints > 128
        {
            return Err(CapiError::rule(
                name,
                "operands",
                "tensors/ints must be non-null when counted (at most 32 tensors, 128 ints)",
                format!("{ntensors} tensors, {nints} ints"),
            ));
        }
        let t = if ntensors == 0 {
            &[][..]
        } else {
            // SAFETY: a non-null array of `ntensors` tensors, per the npusim.h contract.
            unsafe { std::slice::from_raw_parts(tensors, ntensors as usize) }
        };
        let v = if nints == 0 {
            &[][..]
        } else {
            // SAFETY: a non-null array of `nints` integers, per the npusim.h contract.
            unsafe { std::slice::from_raw_parts(ints, nints as usize) }
        };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let sc = unsafe { scalar.as_ref() }.copied();
        let n = d.rearrange(name, t, v, sc)?;
        // SAFETY: a valid pointer or null (checked).
        if let Some(o) = unsafe { out.as_mut() } {
            *o = n;
        }
        Ok(())
    })
}

/// `int npusim_set_atomic(dev, int32_t dtype)`: `SetAtomicAdd<T>()` with T's `NPUSIM_DT_*`
/// code, or with a negative code `SetAtomicNone()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_atomic(dev: *mut Device, dtype: i32) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "SetAtomicAdd") }?;
        d.set_atomic(u32::try_from(dtype).ok())
    })
}

/// `int npusim_pair_reduce_sum(dev, dst, src, int32_t repeat, const npusim_mask* mask, uint32_t
/// is_set_mask, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_pair_reduce_sum(
    dev: *mut Device,
    dst: *const Tensor,
    src: *const Tensor,
    repeat: i32,
    mask: *const CMask,
    is_set_mask: u32,
    dst_rep_stride: i32,
    src_blk_stride: i32,
    src_rep_stride: i32,
) -> i32 {
    guard(|| {
        const N: &str = "PairReduceSum";
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, N) }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe { (tensor(dst, N, "dstLocal")?, tensor(src, N, "srcLocal")?) };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let m = unsafe { mask.as_ref() }.ok_or_else(|| arg_err(N, "mask"))?;
        d.pair_reduce_sum(
            dt,
            st,
            repeat,
            m,
            is_set_mask != 0,
            [dst_rep_stride, src_blk_stride, src_rep_stride],
        )
    })
}

/// `int npusim_reduce_all(dev, const char* instr, dst, src, int32_t count)`: `ReduceSum`,
/// `ReduceMax`, `ReduceMin` over the first `count` elements (max/min write value and index).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_reduce_all(
    dev: *mut Device,
    instr: *const c_char,
    dst: *const Tensor,
    src: *const Tensor,
    count: i32,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers.
        let d = unsafe { dev_mut(dev, "npusim_reduce_all") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let name = unsafe { cstr(instr, "npusim_reduce_all", "instr") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, st) = unsafe { (tensor(dst, name, "dst")?, tensor(src, name, "src")?) };
        d.reduce_all(name, dt, st, count)
    })
}

/// `int npusim_compare(dev, uint32_t cmp_mode, dst, src0, const npusim_tensor* src1, const
/// npusim_scalar* scalar, uint32_t count)`: `Compare` when `src1` is given, else
/// `CompareScalar` with `scalar`; `cmp_mode` in Ascend C's CMPMODE numbering (LT, GT, EQ, LE,
/// GE, NE).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_compare(
    dev: *mut Device,
    cmp_mode: u32,
    dst: *const Tensor,
    src0: *const Tensor,
    src1: *const Tensor,
    scalar: *const CScalar,
    count: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers; src1/scalar may be null.
        let d = unsafe { dev_mut(dev, "Compare") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let (dt, s0) = unsafe {
            (
                tensor(dst, "Compare", "dst")?,
                tensor(src0, "Compare", "src0")?,
            )
        };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let s1 = unsafe { src1.as_ref() };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let sc = unsafe { scalar.as_ref() }.copied();
        if s1.is_none() && sc.is_none() {
            return Err(arg_err("Compare", "src1"));
        }
        d.compare(cmp_mode, dt, s0, s1, sc, count)
    })
}

/// `int npusim_select(dev, uint32_t sel_mode, dst, sel_mask, src0, const npusim_tensor* src1,
/// const npusim_scalar* scalar, uint32_t count)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_select(
    dev: *mut Device,
    sel_mode: u32,
    dst: *const Tensor,
    sel: *const Tensor,
    src0: *const Tensor,
    src1: *const Tensor,
    scalar: *const CScalar,
    count: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see the helpers; src1/scalar may be null.
        let d = unsafe { dev_mut(dev, "Select") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let dt = unsafe { tensor(dst, "Select", "dst") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let m = unsafe { tensor(sel, "Select", "selMask") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let s0 = unsafe { tensor(src0, "Select", "src0") }?;
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let s1 = unsafe { src1.as_ref() };
        // SAFETY: pointers from the C caller: valid or null (checked), per the npusim.h contract.
        let sc = unsafe { scalar.as_ref() }.copied();
        d.select(sel_mode, dt, m, s0, s1, sc, count)
    })
}

/// `int npusim_set_mask(dev, uint32_t op, uint64_t a, uint64_t b)`: op 0 `SetVectorMask(hi =
/// a, lo = b)`, 1 `SetVectorMask(len = a)`, 2 `SetMaskCount()`, 3 `SetMaskNorm()`, 4
/// `ResetMask()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_set_mask(dev: *mut Device, op: u32, a: u64, b: u64) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut.
        let d = unsafe { dev_mut(dev, "SetVectorMask") }?;
        match op {
            0 => d.set_vector_mask(a, b),
            1 => d.set_vector_mask_len(a),
            2 => d.set_mask_mode(true)?,
            3 => d.set_mask_mode(false)?,
            4 => d.reset_mask(),
            _ => {
                return Err(CapiError::rule(
                    "npusim_set_mask",
                    "op",
                    "must be 0..=4",
                    op,
                ));
            }
        }
        Ok(())
    })
}

/// `int npusim_fail(int32_t code, const char* instr, const char* param, const char* rule, const
/// char* value)`: records an error detected by a face (queue discipline, ...) in the same
/// message format; returns `code`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_fail(
    code: i32,
    instr: *const c_char,
    param: *const c_char,
    rule: *const c_char,
    value: *const c_char,
) -> i32 {
    let r = guard(|| {
        let f = |p, n| -> Result<String> {
            // SAFETY: see cstr.
            Ok(unsafe { cstr(p, "npusim_fail", n) }?.to_string())
        };
        Err(CapiError::rule(
            &f(instr, "instr")?,
            &f(param, "param")?,
            &f(rule, "rule")?,
            f(value, "value")?,
        ))
    });
    if r == NPUSIM_E_RULE { code } else { r }
}

/// `void npusim_locate(const char* file, uint32_t line)`: prefixes this thread's last error
/// with `file:line: ` (the call site in the kernel source).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_locate(file: *const c_char, line: u32) {
    let _ = catch_unwind(|| {
        // SAFETY: see cstr.
        let f = unsafe { cstr(file, "npusim_locate", "file") }.unwrap_or("?");
        let msg = format!("{f}:{line}: {}", last_error());
        set_error(&msg);
    });
}

/// `uint16_t npusim_f32_to_f16(float)`: IEEE binary16, round to nearest even.
#[unsafe(no_mangle)]
pub extern "C" fn npusim_f32_to_f16(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

/// `float npusim_f16_to_f32(uint16_t)`: exact.
#[unsafe(no_mangle)]
pub extern "C" fn npusim_f16_to_f32(b: u16) -> f32 {
    half::f16::from_bits(b).to_f32()
}

/// `uint16_t npusim_f32_to_bf16(float)`: bfloat16, round to nearest even.
#[unsafe(no_mangle)]
pub extern "C" fn npusim_f32_to_bf16(v: f32) -> u16 {
    half::bf16::from_f32(v).to_bits()
}

/// `float npusim_bf16_to_f32(uint16_t)`: exact.
#[unsafe(no_mangle)]
pub extern "C" fn npusim_bf16_to_f32(b: u16) -> f32 {
    half::bf16::from_bits(b).to_f32()
}

/// The function table of ABI version 1 (`npusim_api_v1` in `npusim.h`; same order).
#[repr(C)]
pub struct Api {
    pub abi_version: u32,
    pub last_error: extern "C" fn() -> *const c_char,
    pub device_info:
        unsafe extern "C" fn(*mut Device, *mut u64, *mut u64, *mut u32, *mut u32) -> i32,
    pub alloc: unsafe extern "C" fn(*mut Device, u32, u64, *mut u64) -> i32,
    pub write: unsafe extern "C" fn(*mut Device, u32, u64, *const u8, u64) -> i32,
    pub read: unsafe extern "C" fn(*mut Device, u32, u64, *mut u8, u64) -> i32,
    pub get_value: unsafe extern "C" fn(*mut Device, *const Tensor, u64, *mut u64) -> i32,
    pub set_value: unsafe extern "C" fn(*mut Device, *const Tensor, u64, u64) -> i32,
    #[allow(clippy::type_complexity)]
    pub vec_count: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        *const Tensor,
        *const Tensor,
        u32,
        *const CScalar,
        u32,
        i64,
    ) -> i32,
    #[allow(clippy::type_complexity)]
    pub vec_repeat: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        *const Tensor,
        *const Tensor,
        u32,
        *const CScalar,
        u32,
        *const CMask,
        u32,
        i32,
        *const i64,
        *const i64,
    ) -> i32,
    pub data_copy: unsafe extern "C" fn(*mut Device, *const Tensor, *const Tensor, u32) -> i32,
    pub data_copy_params:
        unsafe extern "C" fn(*mut Device, *const Tensor, *const Tensor, u16, u16, u16, u16) -> i32,
    #[allow(clippy::type_complexity)]
    pub pair_reduce_sum: unsafe extern "C" fn(
        *mut Device,
        *const Tensor,
        *const Tensor,
        i32,
        *const CMask,
        u32,
        i32,
        i32,
        i32,
    ) -> i32,
    pub reduce_all:
        unsafe extern "C" fn(*mut Device, *const c_char, *const Tensor, *const Tensor, i32) -> i32,
    #[allow(clippy::type_complexity)]
    pub compare: unsafe extern "C" fn(
        *mut Device,
        u32,
        *const Tensor,
        *const Tensor,
        *const Tensor,
        *const CScalar,
        u32,
    ) -> i32,
    #[allow(clippy::type_complexity)]
    pub select: unsafe extern "C" fn(
        *mut Device,
        u32,
        *const Tensor,
        *const Tensor,
        *const Tensor,
        *const Tensor,
        *const CScalar,
        u32,
    ) -> i32,
    pub set_mask: unsafe extern "C" fn(*mut Device, u32, u64, u64) -> i32,
    pub fail: unsafe extern "C" fn(
        i32,
        *const c_char,
        *const c_char,
        *const c_char,
        *const c_char,
    ) -> i32,
    pub locate: unsafe extern "C" fn(*const c_char, u32),
    pub f32_to_f16: extern "C" fn(f32) -> u16,
    pub f16_to_f32: extern "C" fn(u16) -> f32,
    pub f32_to_bf16: extern "C" fn(f32) -> u16,
    pub bf16_to_f32: extern "C" fn(u16) -> f32,
    /// Appended after the first release of version 1 (new entries only ever go at the end).
    pub set_loop_mode: unsafe extern "C" fn(*mut Device, u32, *const u64) -> i32,
    /// Appended: SetDeqScale (half / float, offset, signMode).
    pub set_deq_scale: unsafe extern "C" fn(*mut Device, u32, f32, i32, u32) -> i32,
    /// Appended: SetDeqScale(vdeq, VdeqInfo).
    pub set_deq_scale_vdeq:
        unsafe extern "C" fn(*mut Device, *const Tensor, *const f32, *const i16, *const u8) -> i32,
    /// Appended: CastDequant (count and mask/repeat forms).
    pub cast_dequant: unsafe extern "C" fn(
        *mut Device,
        *const Tensor,
        *const Tensor,
        u32,
        *const CMask,
        u32,
        i32,
        *const i64,
        *const i64,
        u32,
    ) -> i32,
    /// Appended: DataCopyPad.
    pub data_copy_pad: unsafe extern "C" fn(
        *mut Device,
        *const Tensor,
        *const Tensor,
        u16,
        u32,
        i64,
        u32,
        u32,
        u8,
        u8,
        *const CScalar,
    ) -> i32,
    /// Appended: SetPadValue.
    pub set_pad_value: unsafe extern "C" fn(*mut Device, u32, *const CScalar) -> i32,
    /// Appended: WholeReduce*, RepeatReduceSum, BlockReduce*.
    pub reduce: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        *const Tensor,
        *const Tensor,
        *const CMask,
        u32,
        i32,
        i32,
        i32,
        i32,
    ) -> i32,
    /// Appended: SetAtomicAdd / SetAtomicNone.
    pub set_atomic: unsafe extern "C" fn(*mut Device, i32) -> i32,
    /// Appended: Brcb, CreateVecIndex, Gather, GatherMask, Transpose, CMPMASK calls.
    pub rearrange: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        *const Tensor,
        u32,
        *const i64,
        u32,
        *const CScalar,
        *mut u64,
    ) -> i32,
    /// Appended: `AscendC::printf` / `PRINTF`.
    pub print: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        *const c_char,
        u32,
        *const c_char,
        *const PrintArg,
        u32,
    ) -> i32,
    /// Appended: `AscendC::DumpTensor`.
    pub dump_tensor: unsafe extern "C" fn(
        *mut Device,
        *const c_char,
        u32,
        *const Tensor,
        u32,
        u32,
        *const u32,
        u32,
    ) -> i32,
}

/// The table of this library.
pub static API: Api = Api {
    abi_version: NPUSIM_ABI_VERSION,
    last_error: npusim_last_error,
    device_info: npusim_device_info,
    alloc: npusim_alloc,
    write: npusim_write,
    read: npusim_read,
    get_value: npusim_get_value,
    set_value: npusim_set_value,
    vec_count: npusim_vec_count,
    vec_repeat: npusim_vec_repeat,
    data_copy: npusim_data_copy,
    data_copy_params: npusim_data_copy_params,
    pair_reduce_sum: npusim_pair_reduce_sum,
    reduce_all: npusim_reduce_all,
    compare: npusim_compare,
    select: npusim_select,
    set_mask: npusim_set_mask,
    fail: npusim_fail,
    locate: npusim_locate,
    f32_to_f16: npusim_f32_to_f16,
    f16_to_f32: npusim_f16_to_f32,
    f32_to_bf16: npusim_f32_to_bf16,
    bf16_to_f32: npusim_bf16_to_f32,
    set_loop_mode: npusim_set_loop_mode,
    set_deq_scale: npusim_set_deq_scale,
    set_deq_scale_vdeq: npusim_set_deq_scale_vdeq,
    cast_dequant: npusim_cast_dequant,
    data_copy_pad: npusim_data_copy_pad,
    set_pad_value: npusim_set_pad_value,
    reduce: npusim_reduce,
    set_atomic: npusim_set_atomic,
    rearrange: npusim_rearrange,
    print: npusim_print,
    dump_tensor: npusim_dump_tensor,
};

/// `const npusim_api_v1* npusim_api(uint32_t version)`: the function table, or null when
/// `version` is not [`NPUSIM_ABI_VERSION`].
#[unsafe(no_mangle)]
pub extern "C" fn npusim_api(version: u32) -> *const Api {
    if version == NPUSIM_ABI_VERSION {
        &API
    } else {
        set_error(&format!(
            "npusim_api: version = {version}: this library implements ABI version {NPUSIM_ABI_VERSION}"
        ));
        std::ptr::null()
    }
}

// ---------------------------------------------------------------------------------------------
// Print calls (npusim_ascend::print): AscendC::printf / PRINTF and DumpTensor. Each text is
// written to stdout at once, every line tagged `[block B FILE:LINE]` (blocks run in order, so
// the prints come in execution order).

/// `npusim_print_arg`: one `printf` argument. `kind`: 0 a signed integer `i`, 1 an unsigned
/// integer (or bool) `u`, 2 a float `f` (half and bfloat16 widened), 3 a string `s`, 4 a
/// pointer `u`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PrintArg {
    pub kind: u32,
    pub i: i64,
    pub u: u64,
    pub f: f64,
    pub s: *const c_char,
}

fn print_err(e: npusim_ascend::print::PrintError) -> CapiError {
    CapiError::rule(e.call, &e.param, &e.rule, e.value)
}

thread_local! {
    /// This thread's collected prints while [`capture_prints`] runs.
    static PRINTS: RefCell<Option<Vec<(String, npusim_ascend::print::PrintRec)>>> =
        const { RefCell::new(None) };
}

/// Runs `f` with this thread's prints (file base name, record) collected instead of written to
/// stdout; returns `f`'s result and the prints in execution order (kept also when `f` fails).
pub fn capture_prints<R>(
    f: impl FnOnce() -> R,
) -> (R, Vec<(String, npusim_ascend::print::PrintRec)>) {
    let before = PRINTS.with(|p| p.borrow_mut().replace(Vec::new()));
    let r = f();
    let got = PRINTS.with(|p| std::mem::replace(&mut *p.borrow_mut(), before));
    (r, got.unwrap_or_default())
}

fn emit(d: &Device, file: &str, line: u32, text: String) {
    use std::io::Write as _;
    let rec = npusim_ascend::print::PrintRec {
        block: d.block().0,
        line,
        text,
    };
    let base = std::path::Path::new(file)
        .file_name()
        .map_or(file.to_string(), |f| f.to_string_lossy().into_owned());
    let rec = match PRINTS.with(|p| match p.borrow_mut().as_mut() {
        Some(v) => {
            v.push((base.clone(), rec));
            None
        }
        None => Some(rec),
    }) {
        Some(r) => r,
        None => return,
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(rec.tagged(&base).as_bytes());
    let _ = out.flush();
}

/// `int npusim_print(dev, const char* call, const char* file, uint32_t line, const char* fmt,
/// const npusim_print_arg* args, uint32_t nargs)`: `AscendC::printf` (call `"printf"`) or
/// `PRINTF` at `file:line`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn npusim_print(
    dev: *mut Device,
    call: *const c_char,
    file: *const c_char,
    line: u32,
    fmt: *const c_char,
    args: *const PrintArg,
    nargs: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut / cstr / slice: pointers from the C caller, valid or null (checked).
        let d = unsafe { dev_mut(dev, "printf") }?;
        // SAFETY: as above.
        let call = match unsafe { cstr(call, "printf", "call") }? {
            "PRINTF" => "PRINTF",
            _ => "printf",
        };
        // SAFETY: as above.
        let file = unsafe { cstr(file, call, "file") }?;
        // SAFETY: as above.
        let fmt = unsafe { cstr(fmt, call, "fmt") }?;
        // SAFETY: as above.
        let args = unsafe { slice(args, nargs as usize, call, "args") }?;
        let mut fargs = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            use npusim_core::cfmt::Arg;
            fargs.push(match a.kind {
                0 => Arg::Int(a.i),
                1 => Arg::UInt(a.u),
                2 => Arg::Float(a.f),
                // SAFETY: as above.
                3 => Arg::Str(unsafe { cstr(a.s, call, "args") }?),
                4 => Arg::Ptr(a.u),
                k => {
                    return Err(CapiError::rule(
                        call,
                        &format!("args[{i}].kind"),
                        "0 signed, 1 unsigned, 2 float, 3 string, 4 pointer",
                        k,
                    ));
                }
            });
        }
        let text = npusim_ascend::print::ascendc_printf(call, fmt, &fargs).map_err(print_err)?;
        emit(d, file, line, text);
        Ok(())
    })
}

/// `int npusim_dump_tensor(dev, const char* file, uint32_t line, const npusim_tensor* t,
/// uint32_t desc, uint32_t dump_size, const uint32_t* shape, uint32_t ndim)`: `DumpTensor(t,
/// desc, dumpSize[, ShapeInfo(ndim, shape)])`; `shape` NULL and `ndim` 0 without a ShapeInfo.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn npusim_dump_tensor(
    dev: *mut Device,
    file: *const c_char,
    line: u32,
    t: *const Tensor,
    desc: u32,
    dump_size: u32,
    shape: *const u32,
    ndim: u32,
) -> i32 {
    guard(|| {
        // SAFETY: see dev_mut / cstr / tensor / slice.
        let d = unsafe { dev_mut(dev, "DumpTensor") }?;
        // SAFETY: as above.
        let file = unsafe { cstr(file, "DumpTensor", "file") }?;
        // SAFETY: as above.
        let t = unsafe { tensor(t, "DumpTensor", "tensor") }?;
        let shape = if shape.is_null() && ndim == 0 {
            None
        } else {
            // SAFETY: as above.
            Some(unsafe { slice(shape, ndim as usize, "DumpTensor", "shapeInfo") }?)
        };
        let op = t.operand("DumpTensor", "tensor")?;
        let size = op.dtype.size() as u64;
        let start = op.tensor_base + op.offset.saturating_mul(size);
        let len = op
            .tensor_bytes
            .saturating_sub(op.offset.saturating_mul(size));
        let data = d.read(op.space, start, len)?;
        let text = npusim_ascend::print::dump_tensor(&npusim_ascend::print::Dump {
            desc,
            addr: start,
            dtype: op.dtype,
            space: op.space,
            dump_size,
            data: &data,
            shape,
        })
        .map_err(print_err)?;
        emit(d, file, line, text);
        Ok(())
    })
}
