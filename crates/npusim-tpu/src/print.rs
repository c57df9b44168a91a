//! Printing local and global memory from a kernel: `tpu_print_local_mem_data` and
//! `tpu_print_global_mem_data`, the debug helpers of Sophgo's TPU-Kernel common sources
//! (next to `tpu_print_value` and `tpu_dump_global_layer_data`; `tpu_kernel.h` itself declares
//! no `printf`: kernels print through `TPUKERNEL_LOG`, a `printf`).
//!
//! The text is what those helpers print (facts read from the vendor source, formats applied
//! with the shared printf engine [`npusim_core::cfmt`]):
//!
//! - a header, `LOCAL offset=0x<offset>, idx=<start_idx>, shape=(n c h w),
//!   stride=(n,c,h,w)` or `GLOBAL addr=0x<addr>, shape=(n c h w), stride=(n,c,h,w)`, where a NULL
//!   stride is replaced first by the aligned stride (local; `tpu_aligned_stride(start_idx,
//!   shape, dtype)`) or the continuous stride (global);
//! - one line per `(n, c, h)`: `(n,c,h): ` and the `w` elements, each followed by a space;
//!   channel `c` of a local tensor lives on NPU `(c + start_idx) % NPU_NUM` at channel slot
//!   `(c + start_idx) / NPU_NUM`;
//! - the element text of `tpu_print_value`: `0x%08x` for 32-bit integers, `0x%04x` of the value
//!   widened to `int` for 16-bit integers (so a negative `int16` prints eight hex digits, as the
//!   C promotion of `short` gives), `0x%02x` of the byte for 8-bit integers, `%f` for `fp32`
//!   and for `fp16`, `bf16` and the fp8 types after their (exact) conversion to `fp32`.
//!
//! Refused (typed [`TpuError`]): a shape dimension outside [1, 65535], a negative stride, a
//! `start_idx` outside `[0, NPU_NUM)`, a local offset outside one NPU's memory, an element past
//! the end of its NPU's memory or outside global memory, and the types the helper does not
//! print (`fp20`, and the packed 4-bit types, which have no byte of their own), and a print of
//! more than [`MAX_PRINT_ELEMS`] elements ([`TpuError::WorkBound`]; npusim's bound).

use crate::device::TpuCore;
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, check_shape, check_stride};
use crate::memory::SystemAddr;
use npusim_core::cfmt::{CArg, format};

const LOCAL_OP: &str = "tpu_print_local_mem_data";
/// Most elements one print shows (npusim's bound, so a print cannot write gigabytes; the
/// core's work bound applies too when it is lower).
pub const MAX_PRINT_ELEMS: u64 = 1 << 16;
const GLOBAL_OP: &str = "tpu_print_global_mem_data";

/// The text `tpu_print_value` prints for one element (little-endian bytes), with its space.
fn value_text(dtype: DataType, e: &[u8]) -> String {
    let b = |n: usize| e.get(n).copied().unwrap_or(0);
    let f = |v: f32| format("%f ", &[CArg::Float(f64::from(v))]);
    let i = |spec: &str, v: i64| format(spec, &[CArg::Int(v)]);
    let text = match dtype {
        DataType::Int32 | DataType::Uint32 => i(
            "0x%08x ",
            i64::from(i32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        ),
        DataType::Int16 | DataType::Uint16 => {
            i("0x%04x ", i64::from(i16::from_le_bytes([b(0), b(1)])))
        }
        DataType::Int8 | DataType::Uint8 => i("0x%02x ", i64::from(b(0))),
        DataType::Fp32 => f(f32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        DataType::Fp16 => f(half::f16::from_le_bytes([b(0), b(1)]).to_f32()),
        DataType::Bfp16 => f(half::bf16::from_le_bytes([b(0), b(1)]).to_f32()),
        DataType::Fp8E5M2 => f(npusim_core::f8::F8Format::E5M2.to_f32(b(0))),
        DataType::Fp8E4M3 => f(npusim_core::f8::F8Format::E4M3FN.to_f32(b(0))),
        _ => Ok(String::new()),
    };
    // The specs are fixed and match their argument, so formatting cannot fail.
    text.unwrap_or_default()
}

fn check_dtype(op: &'static str, dtype: DataType) -> Result<usize, TpuError> {
    match dtype {
        DataType::Fp20 | DataType::Int4 | DataType::Uint4 => Err(TpuError::UnsupportedDtype {
            op,
            dtype,
            rule: "the print helpers print 8, 16 and 32-bit elements (not fp20 or packed 4-bit)",
        }),
        DataType::Int32 | DataType::Uint32 | DataType::Fp32 => Ok(4),
        DataType::Int16 | DataType::Uint16 | DataType::Fp16 | DataType::Bfp16 => Ok(2),
        _ => Ok(1),
    }
}

fn check_count(core: &TpuCore, op: &'static str, shape: &Dim4) -> Result<(), TpuError> {
    let limit = MAX_PRINT_ELEMS.min(core.work_bound());
    let value = shape.count() as u128;
    if value > u128::from(limit) {
        return Err(TpuError::WorkBound {
            op,
            param: "shape",
            value,
            limit,
        });
    }
    Ok(())
}

fn header_dims(shape: &Dim4, stride: &Dim4) -> String {
    format!(
        "shape=({} {} {} {}), stride=({},{},{},{})",
        shape.n, shape.c, shape.h, shape.w, stride.n, stride.c, stride.h, stride.w
    )
}

impl TpuCore {
    /// `tpu_print_local_mem_data(local_offset, start_idx, shape, stride, dtype)`: the text the
    /// helper prints for a local tensor (see the module docs). `local_offset` is the tensor's
    /// offset inside each NPU's memory and `start_idx` the NPU of channel 0.
    pub fn tpu_print_local_mem_data(
        &self,
        local_offset: LocalAddr,
        start_idx: i32,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<String, TpuError> {
        let op = LOCAL_OP;
        let size = check_dtype(op, dtype)?;
        check_shape(op, shape)?;
        check_count(self, op, shape)?;
        let p = self.chip().local();
        let npu_num = p.tpu_npu_num() as i32;
        if !(0..npu_num).contains(&start_idx) {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "start_idx",
                value: i64::from(start_idx),
                rule: "must be an NPU index in [0, NPU_NUM)",
            });
        }
        if local_offset >= p.local_mem_per_npu {
            return Err(TpuError::LocalAddrOutOfRange {
                op,
                param: "local_offset",
                addr: local_offset,
                limit: u64::from(p.local_mem_per_npu),
            });
        }
        let stride = match stride {
            Some(s) => {
                check_stride(op, "stride", s)?;
                *s
            }
            None => p.tpu_aligned_stride(start_idx, shape, dtype)?,
        };
        let mut out = format!(
            "LOCAL offset=0x{local_offset:x}, idx={start_idx}, {}\n",
            header_dims(shape, &stride)
        );
        for n in 0..shape.n {
            for c in 0..shape.c {
                let lane = ((c + start_idx) % npu_num) as u32;
                let slot = i64::from((c + start_idx) / npu_num) * i64::from(stride.c);
                for h in 0..shape.h {
                    out.push_str(&format!("({n},{c},{h}): "));
                    for w in 0..shape.w {
                        let elem = i64::from(n) * i64::from(stride.n)
                            + slot
                            + i64::from(h) * i64::from(stride.h)
                            + i64::from(w) * i64::from(stride.w);
                        let off = i64::from(local_offset) + elem * size as i64;
                        let end = off + size as i64;
                        if end > i64::from(p.local_mem_per_npu) {
                            return Err(TpuError::LocalFootprint {
                                op,
                                param: "local_offset",
                                addr: local_offset,
                                end,
                                limit: p.local_mem_per_npu,
                            });
                        }
                        let bytes = self.read_local(p.local_addr(lane, off as u32), size)?;
                        out.push_str(&value_text(dtype, &bytes));
                    }
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }

    /// `tpu_print_global_mem_data(addr, shape, stride, dtype)`: the text the helper prints for
    /// a global-memory tensor (a NULL stride is the continuous one).
    pub fn tpu_print_global_mem_data(
        &self,
        addr: SystemAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<String, TpuError> {
        let op = GLOBAL_OP;
        let size = check_dtype(op, dtype)?;
        check_shape(op, shape)?;
        check_count(self, op, shape)?;
        let stride = match stride {
            Some(s) => {
                check_stride(op, "stride", s)?;
                *s
            }
            None => self.chip().local().tpu_continuous_stride(shape),
        };
        let mut out = format!("GLOBAL addr=0x{addr:x}, {}\n", header_dims(shape, &stride));
        for n in 0..shape.n {
            for c in 0..shape.c {
                for h in 0..shape.h {
                    out.push_str(&format!("({n},{c},{h}): "));
                    for w in 0..shape.w {
                        let elem = u64::from(n as u32) * u64::from(stride.n as u32)
                            + u64::from(c as u32) * u64::from(stride.c as u32)
                            + u64::from(h as u32) * u64::from(stride.h as u32)
                            + u64::from(w as u32) * u64::from(stride.w as u32);
                        let a = addr + elem * size as u64;
                        let bytes =
                            self.read_bytes(a, size)
                                .map_err(|source| TpuError::System {
                                    op,
                                    param: "addr",
                                    source,
                                })?;
                        out.push_str(&value_text(dtype, &bytes));
                    }
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::TpuChip;

    #[test]
    fn local_text_follows_the_helper() {
        let mut core = TpuCore::new(TpuChip::Bm1684x);
        let p = core.chip().local();
        // Channel 0 on NPU 1 (start_idx 1), channel 1 on NPU 2, compact rows of 3 int16.
        let vals: [i16; 3] = [1, -1, 0x7fff];
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        core.write_local(p.local_addr(1, 64), &bytes).unwrap();
        core.write_local(p.local_addr(2, 64), &bytes[..2]).unwrap();
        let shape = Dim4::new(1, 2, 1, 3);
        let stride = Dim4::new(3, 3, 3, 1);
        let t = core
            .tpu_print_local_mem_data(64, 1, &shape, Some(&stride), DataType::Int16)
            .unwrap();
        assert_eq!(
            t,
            "LOCAL offset=0x40, idx=1, shape=(1 2 1 3), stride=(3,3,3,1)\n\
             (0,0,0): 0x0001 0xffffffff 0x7fff \n\
             (0,1,0): 0x0001 0x0000 0x0000 \n"
        );
        let e = core
            .tpu_print_local_mem_data(64, 64, &shape, Some(&stride), DataType::Int16)
            .unwrap_err();
        assert!(e.to_string().contains("start_idx = 64"), "{e}");
        let e = core
            .tpu_print_local_mem_data(0, 0, &shape, None, DataType::Fp20)
            .unwrap_err();
        assert!(e.to_string().contains("tpu_print_local_mem_data"), "{e}");
    }
}
