//! Layout-changing moves (issue #16): `tpu_gdma_matrix_S2L/L2S`, `tpu_gdma_compact_S2L/L2S`,
//! `tpu_gdma_cpy_cw_trans_S2L/L2S/L2L/S2S`, and the BDC transposes `tpu_bdc_cw_trans` /
//! `tpu_bdc_wc_trans`.
//!
//! Names and parameter order: `tpu_kernel.h` of `tpu_6_0` ("GDMA FUNCTIONS", "BDC COMMON
//! FUNCTIONS"). Behaviour: the BM1684X C-model (`libcmodel_bm1684x.so` of tpu-mlir 1.30.2),
//! pinned by `golden/tpu/trans.json` (`scripts/gen_tpu_golden.py --kind trans`).
//!
//! * Matrix: the system matrix `rows x cols` (row `r` at `r * row_stride` elements) is, in local
//!   memory, the aligned tensor `(rows, ceil(cols / cols_per_channel), 1, cols_per_channel)` from
//!   the address's lane: column `j` of row `r` is element `(r, j / cpc, 0, j % cpc)`. Only the
//!   `cols` real columns move; the last channel's tail is left alone.
//! * Compact: `tpu_gdma_cpy` with the local side in the compact layout from its lane
//!   (`cs = H*W`, `ns = cs * ceil((start + C) / NPU_NUM)`) and the system side continuous.
//! * cw transpose: `dst[n][c][h][w] = src[n][w][h][c]` with `shape` the destination's; the
//!   source is the tensor `(N, W, H, C)`. A NULL stride means the aligned layout from the
//!   operand's lane (local) or continuous NCHW (system) of that operand's own shape; a given
//!   stride must have `w == 1`.
//! * BDC `cw_trans` / `wc_trans` (`shape` the destination's `(N, C, H, W)`, the source
//!   `(N, W, H, C)` aligned): `cw_trans` writes the destination line-aligned
//!   (`hs = ALIGN(W, EU)`), from a source on NPU 0; `wc_trans` writes it aligned, onto NPU 0.
//!
//! Restrictions, each a [`TpuError`], as the C-model asserts them: dimensions in `[1, 65535]`;
//! `cols_per_channel >= 1` (the C-model divides by it), `row_stride >= 0` (and `>= cols`
//! for L2S of more than one row) with `row_stride * rows` elements inside system memory and `ns * rows` elements inside the lane
//! (`ns = ALIGN(cpc, EU) * ceil((start + C) / NPU_NUM)`); GDMA addresses element-aligned; BDC
//! addresses 64-byte aligned, `src != dst`, the NPU-0 operand above. Every move reads its whole
//! source before it writes.

use crate::device::TpuCore;
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView, SystemView, check_stride};
use crate::memory::SystemAddr;

/// How a logical element index `(n, c, h, w)` of a move finds its bytes in one operand's store.
///
/// `perm[d]` is the operand's own dimension that logical dimension `d` indexes (the identity
/// for a plain copy, `[0, 3, 2, 1]` for the source of a cw transpose). For a local operand the
/// own dimension 1 is the channel: it picks the lane `(start + c) % NPU_NUM` and the slot
/// `(start + c) / NPU_NUM`.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// Byte offset of element `(0, 0, 0, 0)` in the store (local: `start`'s lane base is added
    /// per element; system: 0, the store is the tensor's slice).
    base: usize,
    /// Own strides in elements `(n, c, h, w)`; for a local operand `c` is the slot stride.
    stride: [usize; 4],
    esize: usize,
    perm: [usize; 4],
    /// `(start lane, NPU_NUM, LOCAL_MEM_SIZE)` for a local operand.
    lanes: Option<(usize, usize, usize)>,
}

impl Walk {
    fn local(v: &LocalView, npu_num: u32, lmem: u32, perm: [usize; 4]) -> Walk {
        Walk {
            base: v.offset as usize,
            stride: dims(&v.stride),
            esize: v.esize as usize,
            perm,
            lanes: Some((v.start as usize, npu_num as usize, lmem as usize)),
        }
    }

    fn system(v: &SystemView, perm: [usize; 4]) -> Walk {
        Walk {
            base: 0,
            stride: dims(&v.stride),
            esize: v.esize as usize,
            perm,
            lanes: None,
        }
    }

    /// Byte index of logical element `idx`.
    #[inline]
    pub fn at(&self, idx: [usize; 4]) -> usize {
        let mut own = [0usize; 4];
        for d in 0..4 {
            own[self.perm[d]] = idx[d];
        }
        let s = &self.stride;
        match self.lanes {
            Some((start, npu, lmem)) => {
                let lc = start + own[1];
                (lc % npu) * lmem
                    + self.base
                    + (own[0] * s[0] + (lc / npu) * s[1] + own[2] * s[2] + own[3] * s[3])
                        * self.esize
            }
            None => {
                self.base
                    + (own[0] * s[0] + own[1] * s[1] + own[2] * s[2] + own[3] * s[3]) * self.esize
            }
        }
    }
}

fn dims(d: &Dim4) -> [usize; 4] {
    [d.n, d.c, d.h, d.w].map(|v| usize::try_from(v).unwrap_or(0))
}

/// Which memory an operand is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mem {
    Local,
    System(SystemAddr),
}

/// One resolved operand of a move.
struct Operand {
    mem: Mem,
    walk: Walk,
    /// Bytes of the system slice (0 for local).
    len: usize,
}

const IDENTITY: [usize; 4] = [0, 1, 2, 3];
/// Logical `(n, c, h, w)` of the destination reads the source's `(n, w, h, c)`.
const CW: [usize; 4] = [0, 3, 2, 1];

impl TpuCore {
    /// A local/system GDMA pair's address rules (matrix and compact forms): the local address
    /// inside local memory, both element-aligned.
    fn local_system_addrs(
        p: &crate::chip::LocalProfile,
        op: &'static str,
        (lparam, local): (&'static str, u32),
        (sparam, system): (&'static str, u64),
        esize: u32,
    ) -> Result<(), TpuError> {
        if u64::from(local) >= p.local_space() {
            return Err(TpuError::LocalAddrOutOfRange {
                op,
                param: lparam,
                addr: local,
                limit: p.local_space(),
            });
        }
        Self::elem_aligned(op, lparam, u64::from(local), esize)?;
        Self::elem_aligned(op, sparam, system, esize)
    }

    pub(crate) fn elem_aligned(
        op: &'static str,
        param: &'static str,
        addr: u64,
        esize: u32,
    ) -> Result<(), TpuError> {
        if !addr.is_multiple_of(u64::from(esize)) {
            return Err(TpuError::ElemMisaligned {
                op,
                param,
                addr,
                esize,
            });
        }
        Ok(())
    }

    /// A local operand of own shape `shape` and stride `stride` (`None`: aligned from its lane).
    #[allow(clippy::too_many_arguments)]
    fn trans_local(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<Dim4>,
        dtype: DataType,
        perm: [usize; 4],
    ) -> Result<Operand, TpuError> {
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let stride = match stride {
            Some(s) => s,
            None => p.tpu_aligned_stride(p.tpu_npu_index(addr) as i32, shape, dtype)?,
        };
        let v = LocalView::new(&p, op, param, addr, *shape, stride, esize)?;
        Ok(Operand {
            mem: Mem::Local,
            walk: Walk::local(&v, p.npu_num, p.store_pitch(), perm),
            len: 0,
        })
    }

    /// A system operand of own shape `shape` and stride `stride` (`None`: continuous NCHW).
    #[allow(clippy::too_many_arguments)]
    fn trans_system(
        &self,
        op: &'static str,
        param: &'static str,
        addr: SystemAddr,
        shape: &Dim4,
        stride: Option<Dim4>,
        esize: u32,
        perm: [usize; 4],
    ) -> Result<Operand, TpuError> {
        let stride = stride.unwrap_or_else(|| self.chip().local().tpu_continuous_stride(shape));
        let v = SystemView {
            shape: *shape,
            stride,
            esize,
        };
        let len = v.footprint() as usize;
        self.memory()
            .bytes(addr, len)
            .map_err(|source| TpuError::System { op, param, source })?;
        Ok(Operand {
            mem: Mem::System(addr),
            walk: Walk::system(&v, perm),
            len,
        })
    }

    /// Moves every element of the logical `shape` for which `keep` holds from `src` to `dst`
    /// (the whole source is read first).
    fn move_elems(
        &mut self,
        dst: &Operand,
        src: &Operand,
        shape: &Dim4,
        keep: impl Fn([usize; 4]) -> bool,
    ) {
        let es = src.walk.esize;
        let [nn, cc, hh, ww] = dims(shape);
        let mut idx = Vec::with_capacity(shape.count());
        for n in 0..nn {
            for c in 0..cc {
                for h in 0..hh {
                    for w in 0..ww {
                        if keep([n, c, h, w]) {
                            idx.push([n, c, h, w]);
                        }
                    }
                }
            }
        }
        if dst.mem == Mem::Local || src.mem == Mem::Local {
            self.local_store_mut();
        }
        let mut buf = std::mem::take(&mut self.gdma_buf);
        buf.clear();
        buf.resize(idx.len() * es, 0);
        {
            let store: &[u8] = match src.mem {
                Mem::Local => self.local_store(),
                Mem::System(a) => self.memory().bytes(a, src.len).unwrap_or(&[]),
            };
            for (k, &i) in idx.iter().enumerate() {
                let b = src.walk.at(i);
                if let (Some(s), Some(d)) =
                    (store.get(b..b + es), buf.get_mut(k * es..(k + 1) * es))
                {
                    d.copy_from_slice(s);
                }
            }
        }
        {
            let store: &mut [u8] = match dst.mem {
                Mem::Local => self.local_store_mut(),
                Mem::System(a) => self.memory_mut().bytes_mut(a, dst.len).unwrap_or(&mut []),
            };
            for (k, &i) in idx.iter().enumerate() {
                let b = dst.walk.at(i);
                if let (Some(d), Some(s)) =
                    (store.get_mut(b..b + es), buf.get(k * es..(k + 1) * es))
                {
                    d.copy_from_slice(s);
                }
            }
        }
        self.gdma_buf = buf;
    }

    /// Shared body of `tpu_gdma_matrix_S2L/L2S`: `(local, system)` addresses.
    #[allow(clippy::too_many_arguments)]
    fn gdma_matrix(
        &mut self,
        op: &'static str,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call path (`crate::trans_matrix`); the checked path below names any error.
        let m = (rows, cols, cols_per_channel, row_stride);
        if self.matrix_small(to_local, local, system, m, dtype) {
            return Ok(());
        }
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let eu = p.tpu_eu_num(dtype)?;
        let (lparam, sparam) = if to_local {
            ("dst_addr", "src_addr")
        } else {
            ("src_addr", "dst_addr")
        };
        if cols_per_channel < 1 {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "cols_per_channel",
                value: i64::from(cols_per_channel),
                rule: "must be >= 1",
            });
        }
        for (param, v) in [("rows", rows), ("cols", cols)] {
            if !(1..=65535).contains(&v) {
                return Err(TpuError::DimOutOfRange {
                    op,
                    param,
                    value: i64::from(v),
                });
            }
        }
        // c <= cols <= 65535.
        let c = ((i64::from(cols) + i64::from(cols_per_channel) - 1) / i64::from(cols_per_channel))
            as i32;
        self.check_work(op, "rows x cols", rows as u128 * cols as u128)?;
        Self::local_system_addrs(&p, op, (lparam, local), (sparam, system), esize)?;
        // The C-model's local bound: `offset + ns * rows * size <= LOCAL_MEM_SIZE`.
        let start = p.tpu_npu_index(local);
        let eu = i64::from(eu);
        let cs = (i64::from(cols_per_channel) + eu - 1) / eu * eu;
        let npu = i64::from(p.npu_num);
        let slots = (i64::from(start) + i64::from(c) + npu - 1) / npu;
        let ns = cs * slots;
        let end = i64::from(p.npu_offset(local)) + ns * i64::from(rows) * i64::from(esize);
        if end > i64::from(p.local_mem_per_npu) {
            return Err(TpuError::LocalFootprint {
                op,
                param: lparam,
                addr: local,
                end,
                limit: p.local_mem_per_npu,
            });
        }
        if row_stride < 0 {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "row_stride",
                value: i64::from(row_stride),
                rule: "must be >= 0",
            });
        }
        if !to_local && rows > 1 && row_stride < cols {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "row_stride",
                value: i64::from(row_stride),
                rule: "must be >= cols when rows > 1 (the rows written may not overlap)",
            });
        }
        let shape = Dim4::new(rows, c, 1, cols_per_channel);
        let lstride = Dim4::new(
            i32::try_from(ns).unwrap_or(i32::MAX),
            i32::try_from(cs).unwrap_or(i32::MAX),
            cols_per_channel,
            1,
        );
        let loc = self.trans_local(op, lparam, local, &shape, Some(lstride), dtype, IDENTITY)?;
        // The C-model checks `row_stride * rows` elements of system memory; the rows read are
        // `(rows - 1) * row_stride + cols` (more when row_stride < cols).
        let span = (i64::from(row_stride) * i64::from(rows))
            .max(i64::from(rows - 1) * i64::from(row_stride) + i64::from(cols));
        let sys_shape = Dim4::new(1, 1, 1, i32::try_from(span).unwrap_or(i32::MAX));
        let sys_stride = Dim4::new(0, 0, 0, 1);
        let mut sys = self.trans_system(
            op,
            sparam,
            system,
            &sys_shape,
            Some(sys_stride),
            esize,
            IDENTITY,
        )?;
        sys.walk.stride = [row_stride as usize, cols_per_channel as usize, 0, 1];
        let cpc = cols_per_channel as usize;
        let cols = cols as usize;
        let keep = |i: [usize; 4]| i[1] * cpc + i[3] < cols;
        if to_local {
            self.move_elems(&loc, &sys, &shape, keep);
        } else {
            self.move_elems(&sys, &loc, &shape, keep);
        }
        Ok(())
    }

    /// `tpu_gdma_matrix_S2L(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride,
    /// dtype)`: the system matrix into local memory, `cols_per_channel` columns per channel.
    #[allow(non_snake_case, clippy::too_many_arguments)]
    pub fn tpu_gdma_matrix_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_matrix(
            "tpu_gdma_matrix_S2L",
            true,
            dst_addr,
            src_addr,
            rows,
            cols,
            cols_per_channel,
            row_stride,
            dtype,
        )
    }

    /// `tpu_gdma_matrix_L2S(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride,
    /// dtype)`: the local matrix back to system memory.
    #[allow(non_snake_case, clippy::too_many_arguments)]
    pub fn tpu_gdma_matrix_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_matrix(
            "tpu_gdma_matrix_L2S",
            false,
            src_addr,
            dst_addr,
            rows,
            cols,
            cols_per_channel,
            row_stride,
            dtype,
        )
    }

    fn gdma_compact(
        &mut self,
        op: &'static str,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call path (`crate::trans_matrix`); the checked path below names any error.
        if self.compact_small(to_local, local, system, shape, dtype) {
            return Ok(());
        }
        self.check_dims(op, shape)?;
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let (lparam, sparam) = if to_local {
            ("dst_addr", "src_addr")
        } else {
            ("src_addr", "dst_addr")
        };
        Self::local_system_addrs(&p, op, (lparam, local), (sparam, system), esize)?;
        let stride = p.tpu_compact_stride(p.tpu_npu_index(local) as i32, shape);
        let loc = self.trans_local(op, lparam, local, shape, Some(stride), dtype, IDENTITY)?;
        let sys = self.trans_system(op, sparam, system, shape, None, esize, IDENTITY)?;
        if to_local {
            self.move_elems(&loc, &sys, shape, |_| true);
        } else {
            self.move_elems(&sys, &loc, shape, |_| true);
        }
        Ok(())
    }

    /// `tpu_gdma_compact_S2L(dst_addr, src_addr, shape, dtype)`: continuous system tensor into
    /// the compact local layout.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_compact_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_compact(
            "tpu_gdma_compact_S2L",
            true,
            dst_addr,
            src_addr,
            shape,
            dtype,
        )
    }

    /// `tpu_gdma_compact_L2S(dst_addr, src_addr, shape, dtype)`: compact local tensor to a
    /// continuous system tensor.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_compact_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_compact(
            "tpu_gdma_compact_L2S",
            false,
            src_addr,
            dst_addr,
            shape,
            dtype,
        )
    }

    /// Shared body of the four `tpu_gdma_cpy_cw_trans_*`: `(is local, address)` per side.
    #[allow(clippy::too_many_arguments)]
    fn gdma_cw_trans(
        &mut self,
        op: &'static str,
        dst: (bool, u64),
        src: (bool, u64),
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.check_dims(op, dst_shape)?;
        let esize = self.chip().local().tpu_data_type_size(dtype)?;
        for (param, s) in [("dst_stride", dst_stride), ("src_stride", src_stride)] {
            if let Some(s) = s {
                check_stride(op, param, s)?;
                if s.w != 1 {
                    return Err(TpuError::ArgOutOfRange {
                        op,
                        param: if param == "dst_stride" {
                            "dst_stride.w"
                        } else {
                            "src_stride.w"
                        },
                        value: i64::from(s.w),
                        rule: "must be 1 (a cw transpose moves unit-stride lines)",
                    });
                }
            }
        }
        let src_shape = Dim4::new(dst_shape.n, dst_shape.w, dst_shape.h, dst_shape.c);
        let side = |core: &TpuCore,
                    (local, addr): (bool, u64),
                    param: &'static str,
                    shape: &Dim4,
                    stride: Option<&Dim4>,
                    perm|
         -> Result<Operand, TpuError> {
            Self::elem_aligned(op, param, addr, esize)?;
            if local {
                let a = u32::try_from(addr).unwrap_or(u32::MAX);
                core.trans_local(op, param, a, shape, stride.copied(), dtype, perm)
            } else {
                core.trans_system(op, param, addr, shape, stride.copied(), esize, perm)
            }
        };
        let d = side(self, dst, "dst_addr", dst_shape, dst_stride, IDENTITY)?;
        let s = side(self, src, "src_addr", &src_shape, src_stride, CW)?;
        self.move_elems(&d, &s, dst_shape, |_| true);
        Ok(())
    }

    /// `tpu_gdma_cpy_cw_trans_S2L(dst_addr, src_addr, dst_shape, dst_stride, src_stride,
    /// dtype)`: `dst[n][c][h][w] = src[n][w][h][c]`, system to local.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_S2L",
            (true, u64::from(dst_addr)),
            (false, src_addr),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_L2S`: the cw transpose, local to system.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_L2S",
            (false, dst_addr),
            (true, u64::from(src_addr)),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_L2L`: the cw transpose, local to local.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_L2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_L2L",
            (true, u64::from(dst_addr)),
            (true, u64::from(src_addr)),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_S2S`: the cw transpose, system to system.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_S2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: SystemAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_S2S",
            (false, dst_addr),
            (false, src_addr),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    fn bdc_trans(
        &mut self,
        op: &'static str,
        cw: bool,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        if !matches!(dtype.bits(), 8 | 16 | 32) {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype,
                rule: "must be an 8-, 16- or 32-bit type",
            });
        }
        self.check_dims(op, shape)?;
        let p = self.chip().local();
        let eu = p.eu_bytes;
        for (param, a) in [("dst_addr", dst_addr), ("src_addr", src_addr)] {
            if !a.is_multiple_of(eu) {
                return Err(TpuError::Misaligned {
                    op,
                    param,
                    addr: a,
                    align: eu,
                });
            }
        }
        let (param, a) = if cw {
            ("src_addr", src_addr)
        } else {
            ("dst_addr", dst_addr)
        };
        if u64::from(a) < p.local_space() && p.tpu_npu_index(a) != 0 {
            return Err(TpuError::NpuRequired {
                op,
                param,
                addr: a,
                npu: p.tpu_npu_index(a),
                rule: if cw {
                    "the cw transpose reads its source from NPU 0"
                } else {
                    "the wc transpose writes its destination from NPU 0"
                },
            });
        }
        if dst_addr == src_addr {
            return Err(TpuError::SameAddress {
                op,
                param: "dst_addr",
                addr: dst_addr,
                other: "src_addr",
                rule: "the transpose does not run in place",
            });
        }
        let dst_stride = if cw {
            Some(p.tpu_line_aligned_stride(p.tpu_npu_index(dst_addr) as i32, shape, dtype)?)
        } else {
            None
        };
        let src_shape = Dim4::new(shape.n, shape.w, shape.h, shape.c);
        let d = self.trans_local(op, "dst_addr", dst_addr, shape, dst_stride, dtype, IDENTITY)?;
        let s = self.trans_local(op, "src_addr", src_addr, &src_shape, None, dtype, CW)?;
        self.move_elems(&d, &s, shape, |_| true);
        Ok(())
    }

    /// `tpu_bdc_cw_trans(dst_addr, src_addr, shape, dtype)`: `dst[n][c][h][w] =
    /// src[n][w][h][c]`, `shape` the destination's; the source (aligned, on NPU 0) has shape
    /// `(N, W, H, C)`, the destination is written line-aligned.
    pub fn tpu_bdc_cw_trans(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_trans("tpu_bdc_cw_trans", true, dst_addr, src_addr, shape, dtype)
    }

    /// `tpu_bdc_wc_trans(dst_addr, src_addr, shape, dtype)`: the same transpose with the
    /// destination aligned and on NPU 0 (the source may start on any NPU).
    pub fn tpu_bdc_wc_trans(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_trans("tpu_bdc_wc_trans", false, dst_addr, src_addr, shape, dtype)
    }
}
