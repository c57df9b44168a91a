//! TIK `v4dtrans(chw2hwc, dst, src, m_len, channels)`: one image transposed between CHW and
//! HWC layouts (TIK only; no modelled chip has an Ascend C spelling).
//!
//! Sources (no page with a printed example was found; facts from TIK's own source and callers):
//! - TIK's debugger decorator documents the parameters: `chw2hwc` True is CHW -> HWC, False
//!   HWC -> CHW; `m_len` is the H·W dimension, `channels` the size of C. The callers agree:
//!   `v4dtrans(False, net, trans, 256, 4)` turns a (256, 4) tensor into (4, 256) (DeePMD
//!   kernels); asc-devkit `impl/basic_api/dav_l300/kernel_operator_vec_transpose_impl.h` calls
//!   the same instruction with `(dst, src, H·W, C, false)` for NCHW -> NHWC per image.
//! - So, with `M = m_len`, `C = channels`: CHW -> HWC writes `dst[m·C + c] = src[c·M + m]`,
//!   HWC -> CHW writes `dst[c·M + m] = src[m·C + c]`, for every m < M, c < C
//!   ([`trans4d_index`], the row's element function).
//! - Overlap (TIK `check_addr_overlap_v4dtrans`): when dst and src share a buffer and the
//!   `M·C` elements span more than 256 bytes they may not overlap; at 256 bytes or less they
//!   may also be exactly the same address (in place); anything else is an error.
//! - Types: the TIK callers use uint8, float16 and float32; the Ascend C caller takes 1-, 2- and
//!   4-byte types: policy `b8/b16/b32` (int8, uint8, int16, uint16, half, int32, uint32,
//!   float).
//! - Chips (policy): Atlas inference (310P) only. The FastRCNN prediction kernel calls
//!   v4dtrans in its "V200" branch and not in its Ascend 310 / Atlas training branch, and other
//!   kernels guard it with `api_check_support("tik.v4dtrans")`; no source lists A2/A3, 310B or
//!   950, which refuse with NotSupported.
//! - Policies where no source speaks: `m_len` and `channels` in [1, 65535] (the Ascend C
//!   caller passes H·W as uint16_t; an empty transpose is refused), UB operands, 32-byte
//!   alignment (the general rule).

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::isa::Instr;
use npusim_core::MemSpace;

/// The source element index that `dst[k]` takes in a `v4dtrans` of `m_len` x `channels`
/// elements: CHW -> HWC (`chw2hwc`) reads `src[c·M + m]` for `k = m·C + c`; HWC -> CHW reads
/// `src[m·C + c]` for `k = c·M + m`.
#[inline]
pub fn trans4d_index(chw2hwc: bool, k: u64, m_len: u64, channels: u64) -> u64 {
    if chw2hwc {
        let (m, c) = (k / channels, k % channels);
        c * m_len + m
    } else {
        let (c, m) = (k / m_len, k % m_len);
        m * channels + c
    }
}

/// TIK `v4dtrans(chw2hwc, dst, src, m_len, channels)`.
pub fn v4dtrans(
    core: &mut VectorCore,
    name: &'static str,
    chw2hwc: bool,
    dst: &Operand,
    src: &Operand,
    m_len: i64,
    channels: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::V4dtrans.check_type(name, chip.id, "src", src.dtype)?;
    check::same_type(name, "dst", dst, "src", src.dtype)?;
    for (p, op) in [("dst", dst), ("src", src)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    let m = check::range(name, "m_len", m_len, 1, 65535, "[1, 65535]")? as u64;
    let c = check::range(name, "channels", channels, 1, 65535, "[1, 65535]")? as u64;
    let size = src.dtype.size() as u64;
    let bytes = m * c * size;
    let s_span = (src.addr(), src.addr() + bytes);
    let d_span = (dst.addr(), dst.addr() + bytes);
    check::within(name, "src", src, Some(s_span))?;
    check::within(name, "dst", dst, Some(d_span))?;
    let overlap = d_span.0 < s_span.1 && s_span.0 < d_span.1;
    if overlap && !(bytes <= 256 && d_span.0 == s_span.0) {
        return Err(AscendError::IllegalOverlap {
            instr: name,
            dst: "dst",
            src: "src",
            rule: if bytes > 256 {
                "above 256 bytes (m_len·channels·size) dst and src may not overlap"
            } else {
                "at 256 bytes or less dst and src may overlap only when they are the same address"
            },
        });
    }
    let data = core.ub().bytes(src.addr(), bytes)?.to_vec();
    let s = size as usize;
    let mut out = vec![0u8; bytes as usize];
    for k in 0..m * c {
        let from = trans4d_index(chw2hwc, k, m, c) as usize;
        out[k as usize * s..(k as usize + 1) * s].copy_from_slice(&data[from * s..(from + 1) * s]);
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}
