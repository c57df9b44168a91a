//! GlobalTensor, TLOAD and TSTORE.
//!
//! Implements pto-isa `docs/isa/TLOAD.md`, `docs/isa/TSTORE.md` and `docs/coding/GlobalTensor.md`:
//! a global tensor is a GM byte address, an element type, a 5-D shape and 5-D strides counted in
//! elements, and a layout (ND, DN or NZ) that says how a tile's `(r, c)` maps to the five
//! indices. TLOAD first fills the whole tile with its pad value, then copies the valid region;
//! TSTORE copies the valid region back. Element types must have equal sizes (the bits move).
//! Both pages make the valid region the transfer size: a valid region smaller than the global
//! shape moves that window from the tensor's origin (one larger is refused).
//!
//! The boxing loads into Mat (ND → Nz, DN → Zn) move the extent the tile policy's
//! [`MatLoadExtent`] names: pto-isa's NPU code sizes those DMAs from the global shape (A2A3) or
//! from the global shape and the valid region (A5), not from the valid region alone as the
//! page says; `pto_cpu_sim` keeps the page's rule (the CPU simulator asserts it). Stores
//! from Acc into an ND tensor with as many columns as the valid region write the valid rows
//! whatever the tensor's row count ([`AccStoreRows`]); into one with more columns than the
//! valid region they store nothing (the fixpipe gets zero ND matrices, a NOP per the Ascend C
//! Fixpipe page).

use super::{Scalar, ScalarElem, vr_err};
use crate::core::TileCore;
use crate::dispatch;
use crate::engine::memory;
use crate::error::PtoError;
use crate::num::{Elem, Num};
use crate::table::OpCode;
use crate::tile::{BLayout, PadValue, SLayout, Tile, TileLoc};
use npusim_core::ElemType;
use npusim_core::tile_policy::{AccStoreRows, MatLoadExtent};

/// The GM layout of a global tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GmLayout {
    /// Row-major: rows spread over dims 0..3, columns in dim 4.
    Nd,
    /// Column-major: rows in dim 3, columns over dims 4, 2, 1, 0.
    Dn,
    /// Boxed: shape `(1, cols/C0, rows/16, 16, C0)`.
    Nz,
}

/// A GM buffer viewed as a 5-D tensor (strides in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalTensor {
    /// Byte address in GM.
    pub addr: u64,
    pub dtype: ElemType,
    pub shape: [usize; 5],
    pub stride: [usize; 5],
    pub layout: GmLayout,
}

impl GlobalTensor {
    /// A dense row-major `rows x cols` matrix at `addr` (2-D use: dims 3 and 4).
    pub fn nd_2d(addr: u64, dtype: ElemType, rows: usize, cols: usize) -> GlobalTensor {
        GlobalTensor {
            addr,
            dtype,
            shape: [1, 1, 1, rows, cols],
            stride: [rows * cols, rows * cols, rows * cols, cols, 1],
            layout: GmLayout::Nd,
        }
    }

    /// A dense row-major matrix with a row stride (a partition of a wider tensor).
    pub fn nd_2d_strided(
        addr: u64,
        dtype: ElemType,
        rows: usize,
        cols: usize,
        row_stride: usize,
    ) -> GlobalTensor {
        let mut g = GlobalTensor::nd_2d(addr, dtype, rows, cols);
        g.stride[3] = row_stride;
        g
    }

    /// A dense col-major `rows x cols` matrix.
    pub fn dn_2d(addr: u64, dtype: ElemType, rows: usize, cols: usize) -> GlobalTensor {
        GlobalTensor {
            addr,
            dtype,
            shape: [1, 1, 1, rows, cols],
            stride: [rows * cols, rows * cols, rows * cols, 1, rows],
            layout: GmLayout::Dn,
        }
    }

    /// A dense NZ tensor for a `rows x cols` matrix (`C0 = 32 / sizeof(T)`).
    pub fn nz_2d(addr: u64, dtype: ElemType, rows: usize, cols: usize) -> GlobalTensor {
        let c0 = 32 / dtype.size();
        let shape = [1, cols / c0, rows / 16, 16, c0];
        let stride = [cols * rows, rows * c0, 16 * c0, c0, 1];
        GlobalTensor {
            addr,
            dtype,
            shape,
            stride,
            layout: GmLayout::Nz,
        }
    }

    /// Element offset (from `addr`) of tile position `(r, c)`.
    pub fn offset(&self, r: usize, c: usize) -> usize {
        let s = &self.shape;
        let d = |x: usize| x.max(1);
        let i: [usize; 5] = match self.layout {
            GmLayout::Nd => [
                r / (d(s[1]) * d(s[2]) * d(s[3])),
                (r / (d(s[3]) * d(s[2]))) % d(s[1]),
                (r / d(s[3])) % d(s[2]),
                r % d(s[3]),
                c,
            ],
            GmLayout::Dn => [
                c / (d(s[1]) * d(s[2]) * d(s[4])),
                (c / (d(s[4]) * d(s[2]))) % d(s[1]),
                (c / d(s[4])) % d(s[2]),
                r,
                c % d(s[4]),
            ],
            GmLayout::Nz => {
                let outer = c / d(s[4]);
                [
                    outer / d(s[1]),
                    outer % d(s[1]),
                    r / d(s[3]),
                    r % d(s[3]),
                    c % d(s[4]),
                ]
            }
        };
        (0..5).map(|k| i[k] * self.stride[k]).sum()
    }
}

/// The rows and columns a tile position `(r, c)` ranges over in `gt` (see
/// [`GlobalTensor::offset`]): ND spreads rows over dims 0..=3, DN columns over dims 0, 1, 2, 4,
/// NZ is `(Shape2 * Shape3) x (Shape0 * Shape1 * Shape4)`.
pub fn global_rows_cols(gt: &GlobalTensor) -> (usize, usize) {
    let s = gt.shape;
    match gt.layout {
        GmLayout::Nd => (s[0] * s[1] * s[2] * s[3], s[4]),
        GmLayout::Dn => (s[3], s[0] * s[1] * s[2] * s[4]),
        GmLayout::Nz => (s[2] * s[3], s[0] * s[1] * s[4]),
    }
}

impl TileCore {
    fn check_gm(
        &self,
        op: OpCode,
        tile: &Tile,
        gt: &GlobalTensor,
        tile_name: &'static str,
    ) -> Result<(), PtoError> {
        let n = op.name();
        op.check_type(self.arch(), tile_name, tile.dtype())?;
        let acc_store =
            matches!(op, OpCode::Tstore | OpCode::TstoreFp) && tile.loc() == TileLoc::Acc;
        if !matches!(tile.loc(), TileLoc::Vec | TileLoc::Mat) && !acc_store {
            return Err(PtoError::Static {
                op: n,
                operand: tile_name,
                rule: if op == OpCode::Tstore {
                    "tile location must be Vec, Mat or Acc"
                } else {
                    "tile location must be Vec or Mat"
                },
                value: format!("{:?}", tile.loc()),
            });
        }
        if acc_store && op == OpCode::TstoreFp {
            super::movement::check_quant_pair(
                op,
                self.arch(),
                super::movement::QuantSite::Store,
                tile.dtype(),
                gt.dtype,
            )?;
        } else if acc_store {
            if !super::movement::fix_pair_legal(tile.dtype(), gt.dtype, false) {
                return Err(PtoError::Unsupported {
                    op: n,
                    what: format!(
                        "the Acc store conversion {} -> {} (legal: float->float/half/bfloat16, int32->int32)",
                        tile.dtype(),
                        gt.dtype
                    ),
                    arch: crate::table::arch_name(self.arch()),
                });
            }
        } else if tile.dtype().size() != gt.dtype.size() {
            return Err(PtoError::TypeMismatch {
                op: n,
                operand: "global",
                dtype: gt.dtype,
                other: tile_name,
                expected: tile.dtype(),
            });
        }
        let s = gt.shape;
        if s.contains(&0) || tile.valid_row() == 0 || tile.valid_col() == 0 {
            return Err(vr_err(
                op,
                tile_name,
                "shapes and the valid region must be > 0",
                format!(
                    "shape {s:?}, valid {}x{}",
                    tile.valid_row(),
                    tile.valid_col()
                ),
            ));
        }
        if op == OpCode::Tload && self.boxing_load(tile, gt) {
            // ND -> Nz / DN -> Zn: the global tensor is 2-D (the page), and the extent moved
            // follows the tile policy's `MatLoadExtent`.
            if s[..3] != [1, 1, 1] {
                return Err(vr_err(
                    op,
                    "src",
                    "an ND -> Nz or DN -> Zn load takes a 2-D global tensor (Shape0..2 = 1)",
                    format!("{:?} shape {s:?}", gt.layout),
                ));
            }
            if let Some((er, ec)) = self.mat_load_extent(tile, gt) {
                if er > tile.rows() || ec > tile.cols() {
                    return Err(vr_err(
                        op,
                        tile_name,
                        "the extent moved must fit the tile's static shape",
                        format!(
                            "{er}x{ec} moved ({:?} policy), tile {}x{}",
                            self.policy().mat_load_extent,
                            tile.rows(),
                            tile.cols()
                        ),
                    ));
                }
                return Ok(());
            }
        }
        let (vr, vc) = (tile.valid_row(), tile.valid_col());
        if acc_store
            && gt.layout == GmLayout::Nd
            && self.policy().acc_store_rows == AccStoreRows::ValidRows
            && s[..3] == [1, 1, 1]
            && s[4] == vc
        {
            // The fixpipe writes the valid rows at the tensor's row stride (one ND matrix).
            return Ok(());
        }
        if acc_store && self.acc_store_is_nop(tile, gt) {
            // Fewer valid columns than Shape4: zero ND matrices, a fixpipe no-op (the
            // callers store nothing; see `acc_store_is_nop`).
            return Ok(());
        }
        // The pages: the valid region is the transfer size, the window at the tensor's origin
        // (`dst[i][j] = src[r0 + i][c0 + j]`), so on the hardware profiles it must lie inside
        // the tensor's rows and columns as the layout counts them (pto-isa's NPU code asserts
        // equality in debug builds only). The CPU simulator's policy (`Documented`) and Acc
        // stores (the fixpipe's ND matrix count) keep equality.
        let exact = acc_store || self.policy().mat_load_extent == MatLoadExtent::Documented;
        let (rows, cols) = global_rows_cols(gt);
        if exact && (vr, vc) != (rows, cols) {
            let ok = match gt.layout {
                GmLayout::Nz => false,
                GmLayout::Nd | GmLayout::Dn => {
                    (tile.is_row_major() && s[0] * s[1] * s[2] * s[3] == vr && s[4] == vc)
                        || (!tile.is_row_major() && s[0] * s[1] * s[2] * s[4] == vc && s[3] == vr)
                }
            };
            if !ok {
                return Err(vr_err(
                    op,
                    tile_name,
                    "must match the global shape for the layout",
                    format!("valid {vr}x{vc}, {:?} shape {s:?}", gt.layout),
                ));
            }
        }
        if !exact && (vr > rows || vc > cols) {
            return Err(vr_err(
                op,
                tile_name,
                "must fit within the global shape for the layout (the valid region is the transfer size)",
                format!("valid {vr}x{vc}, {:?} shape {s:?}", gt.layout),
            ));
        }
        Ok(())
    }

    /// Whether a TSTORE / TSTORE_FP from Acc moves nothing on this core's policy: a 2-D ND
    /// tensor with more columns (Shape4) than the tile's valid columns, under
    /// [`AccStoreRows::ValidRows`]. pto-isa's NPU code (`TStoreAccNz2nd`, A2A3 and A5) programs
    /// the fixpipe with `validCol / Shape4` ND matrices, 0 here, and the Fixpipe page of the
    /// Ascend C API (L0C -> GM, `FixpipeParamsV220`: Atlas A2/A3 and Ascend 950) says that
    /// `ndNum = 0` (like `mSize = 0` or `nSize = 0`) is not executed: a NOP. So a tail block
    /// whose valid width is below the tensor's row width stores nothing on the hardware (the
    /// PTOAS `DynamicTailMatmul` sample with M = N = K = 1). The pages and the CPU simulator
    /// (`Documented`) require the valid region to equal the global shape: a typed error there.
    fn acc_store_is_nop(&self, src: &Tile, gt: &GlobalTensor) -> bool {
        src.loc() == TileLoc::Acc
            && gt.layout == GmLayout::Nd
            && self.policy().acc_store_rows == AccStoreRows::ValidRows
            && gt.shape[..3] == [1, 1, 1]
            && src.valid_col() < gt.shape[4]
    }

    /// The tensor an Acc store writes through: a 2-D ND tensor takes the tile's valid rows as
    /// its row count (equal to Shape3 unless [`AccStoreRows::ValidRows`] let them differ), so
    /// row `r` lands at `r * Stride3`.
    fn acc_store_view(&self, src: &Tile, gt: &GlobalTensor) -> GlobalTensor {
        let mut g = *gt;
        if src.loc() == TileLoc::Acc && g.layout == GmLayout::Nd && g.shape[..3] == [1, 1, 1] {
            g.shape[3] = src.valid_row();
        }
        g
    }

    /// Whether a TLOAD is one of the boxing conversions into Mat: an ND tensor into an Nz tile
    /// (col-major boxes of row-major fractals) or a DN tensor into a Zn tile.
    fn boxing_load(&self, tile: &Tile, gt: &GlobalTensor) -> bool {
        let d = tile.desc();
        tile.loc() == TileLoc::Mat
            && match gt.layout {
                GmLayout::Nd => d.blayout == BLayout::ColMajor && d.slayout == SLayout::RowMajor,
                GmLayout::Dn => d.blayout == BLayout::RowMajor && d.slayout == SLayout::ColMajor,
                GmLayout::Nz => false,
            }
    }

    /// The rows x columns a boxing TLOAD moves under the policy's [`MatLoadExtent`] (`None`:
    /// `Documented`, the valid region, which must equal the global shape).
    fn mat_load_extent(&self, tile: &Tile, gt: &GlobalTensor) -> Option<(usize, usize)> {
        let (s3, s4) = (gt.shape[3], gt.shape[4]);
        match self.policy().mat_load_extent {
            MatLoadExtent::GlobalShape => Some((s3, s4)),
            MatLoadExtent::GlobalOuterValidInner => Some(match gt.layout {
                GmLayout::Dn => (tile.valid_row(), s4),
                _ => (s3, tile.valid_col()),
            }),
            MatLoadExtent::Documented => None,
        }
    }

    /// TLOAD: fills `dst` with its pad value, then copies the valid region from GM (for the
    /// boxing conversions ND -> Nz and DN -> Zn, the extent the tile policy's
    /// [`MatLoadExtent`] names).
    pub fn tload(&mut self, dst: &Tile, gt: &GlobalTensor) -> Result<(), PtoError> {
        let op = OpCode::Tload;
        self.check_gm(op, dst, gt, "dst")?;
        let t = dst.dtype();
        let fill = dst.desc().pad != PadValue::Null || self.policy().pad_null_fills_zero;
        if let Some(rows) = self.nd_rows(dst, gt, self.gm().capacity()) {
            let size = t.size();
            let pad = dispatch!(all t, T => pad_bits::<T>(dst.desc().pad), else narrow_pad_bits(t, dst.desc().pad)).to_le_bytes();
            let (gm, mem) = self.gm_and_mem_mut(dst.loc());
            if fill {
                // Row by row: a strided view's rows have its neighbours' bytes between them.
                for r in 0..dst.rows() {
                    let a = dst.byte_addr(r, 0) as usize;
                    for e in mem[a..a + dst.cols() * size].chunks_exact_mut(size) {
                        e.copy_from_slice(&pad[..size]);
                    }
                }
            }
            for (g, m, n) in rows {
                let from = gm
                    .bytes(g as u64, n as u64)
                    .map_err(memory(op.name(), "src"))?;
                mem[m..m + n].copy_from_slice(from);
            }
            return Ok(());
        }
        if fill {
            let bits = dispatch!(all t, T => pad_bits::<T>(dst.desc().pad), else narrow_pad_bits(t, dst.desc().pad));
            let whole = dst.with_valid(dst.rows(), dst.cols())?;
            for r in 0..whole.rows() {
                for c in 0..whole.cols() {
                    self.set_bits(&whole, r, c, bits)
                        .map_err(memory(op.name(), "dst"))?;
                }
            }
        }
        let size = t.size() as u64;
        let (er, ec) = if self.boxing_load(dst, gt) {
            self.mat_load_extent(dst, gt)
        } else {
            None
        }
        .unwrap_or((dst.valid_row(), dst.valid_col()));
        let moved = dst.with_valid(er, ec)?;
        for r in 0..er {
            for c in 0..ec {
                let a = gt.addr + gt.offset(r, c) as u64 * size;
                let mut v = [0u8; 8];
                let b = self.gm().bytes(a, size).map_err(memory(op.name(), "src"))?;
                v[..size as usize].copy_from_slice(b);
                self.set_bits(&moved, r, c, u64::from_le_bytes(v))
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }

    /// The fast form of a transfer: when the tile is plain row-major, the GM tensor is ND with
    /// contiguous rows (last stride 1), and every row of the valid region lies inside both
    /// memories, the rows as `(GM byte, tile byte, bytes)`, one per valid row. `None` sends
    /// the transfer element by element (which also reports any fault), as does the plain
    /// reference mode.
    fn nd_rows(
        &self,
        tile: &Tile,
        gt: &GlobalTensor,
        gm_cap: usize,
    ) -> Option<impl Iterator<Item = (usize, usize, usize)> + use<>> {
        if self.reference()
            || !tile.is_row_major_plain()
            || gt.layout != GmLayout::Nd
            || gt.stride[4] != 1
        {
            return None;
        }
        let size = tile.dtype().size();
        let n = tile.valid_col() * size;
        let mem_cap = self.mem(tile.loc()).capacity();
        let row = move |r: usize| {
            let g = (gt.addr as usize).checked_add(gt.offset(r, 0).checked_mul(size)?)?;
            let m = tile.byte_addr(r, 0) as usize;
            (g.checked_add(n)? <= gm_cap && m.checked_add(n)? <= mem_cap).then_some((g, m, n))
        };
        // Every row in bounds (checked first, so nothing is written by a failing transfer
        // before the element path reports it).
        if (0..tile.valid_row()).any(|r| row(r).is_none()) {
            return None;
        }
        // The fill covers the whole tile.
        if (tile.addr() + tile.size_bytes()) as usize > mem_cap {
            return None;
        }
        let (tile, gt) = (*tile, *gt);
        let row = move |r: usize| {
            let g = gt.addr as usize + gt.offset(r, 0) * size;
            (g, tile.byte_addr(r, 0) as usize, n)
        };
        Some((0..tile.valid_row()).map(row))
    }

    /// TSTORE: copies `src`'s valid region to GM.
    pub fn tstore(&mut self, gt: &GlobalTensor, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tstore;
        self.check_gm(op, src, gt, "src")?;
        if self.acc_store_is_nop(src, gt) {
            return Ok(());
        }
        let gt = &self.acc_store_view(src, gt);
        if src.loc() == TileLoc::Acc && src.dtype() != gt.dtype {
            return self.tstore_acc(gt, src);
        }
        if let Some(rows) = self.nd_rows(src, gt, self.gm().capacity()) {
            let (gm, mem) = self.gm_and_mem_mut(src.loc());
            for (g, m, n) in rows {
                gm.bytes_mut(g as u64, n as u64)
                    .map_err(memory(op.name(), "dst"))?
                    .copy_from_slice(&mem[m..m + n]);
            }
            return Ok(());
        }
        let size = src.dtype().size();
        for r in 0..src.valid_row() {
            for c in 0..src.valid_col() {
                let bits = self.get_bits(src, r, c).map_err(memory(op.name(), "src"))?;
                let a = gt.addr + (gt.offset(r, c) * size) as u64;
                self.gm_mut()
                    .write(a, &bits.to_le_bytes()[..size])
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }
}

impl TileCore {
    /// TSTORE_FP (pto-isa `docs/isa/TSTORE_FP.md`): TSTORE from Acc through the fixpipe with
    /// a Scaling tile of per-column quant words (the TMOV fp conversion: scale, optional ReLU,
    /// narrowing to half, bfloat16, int8 or float). Only an Acc source of int32 or float, with
    /// 1..=4095 columns and at most 8192 rows (ND), per the page.
    pub fn tstore_fp(
        &mut self,
        gt: &GlobalTensor,
        src: &Tile,
        fp: &Tile,
        relu: bool,
    ) -> Result<(), PtoError> {
        let op = OpCode::TstoreFp;
        if src.loc() != TileLoc::Acc {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "src",
                rule: "the source must be an Acc tile",
                value: format!("{:?}", src.loc()),
            });
        }
        if !(1..=4095).contains(&src.cols()) || !(1..=8192).contains(&src.rows()) {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "src",
                rule: "1 <= Cols <= 4095 and 1 <= Rows <= 8192",
                value: format!("{}x{}", src.rows(), src.cols()),
            });
        }
        self.check_gm(op, src, gt, "src")?;
        if self.acc_store_is_nop(src, gt) {
            return Ok(());
        }
        let gt = &self.acc_store_view(src, gt);
        // Valid columns <= Cols <= 4095, and check_gm rejects an empty valid region.
        let (vr, vc) = (src.valid_row(), src.valid_col());
        let mode = super::movement::MovMode {
            relu,
            scalar: None,
            fp: Some(fp),
        };
        let bytes = self.fix_convert(src, gt.dtype, mode, (vr, vc), op)?;
        let size = gt.dtype.size();
        for r in 0..vr {
            for c in 0..vc {
                let a = gt.addr + (gt.offset(r, c) * size) as u64;
                let k = (r * vc + c) * size;
                self.gm_mut()
                    .write(a, &bytes[k..k + size])
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }

    /// TSTORE from Acc through the fixpipe: float narrows to half or bfloat16 (nearest even;
    /// overflow and NaN by `movement::float_overflow`, CTRL[48]).
    fn tstore_acc(&mut self, gt: &GlobalTensor, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tstore;
        let (vr, vc) = (src.valid_row(), src.valid_col());
        let v = self.read_rect_at::<f32>(src, (0, 0), vr, vc);
        let size = gt.dtype.size();
        let fo = super::movement::float_overflow(
            self.arch(),
            src.dtype(),
            gt.dtype,
            false,
            self.sat_ctrl(),
        );
        for r in 0..vr {
            for c in 0..vc {
                let x = v[r * vc + c];
                let bits = super::movement::fix_cast(x, gt.dtype, fo);
                let a = gt.addr + (gt.offset(r, c) * size) as u64;
                self.gm_mut()
                    .write(a, &bits.to_le_bytes()[..size])
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }
}

impl TileCore {
    /// TFILLPAD / TFILLPAD_INPLACE / TFILLPAD_EXPAND (pto-isa `docs/isa/TFILLPAD.md`): every
    /// element of dst's static shape is src's where inside src's valid region, else dst's pad
    /// value (+/-inf for floats, the type's extremes for integers). Nothing is written when
    /// dst's valid region is empty.
    pub fn tfillpad(&mut self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        use super::{need_loc, same_type};
        for (n, t) in [("dst", dst), ("src", src)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            op.check_type(self.arch(), n, t.dtype())?;
            self.check_addr(t, op.name(), n)?;
        }
        same_type(op, "src", src, "dst", dst)?;
        if dst.desc().pad == PadValue::Null {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: "the pad value of a Vec destination must not be Null",
                value: "pad=0 (Null)".into(),
            });
        }
        let expand = op == OpCode::TfillpadExpand;
        let shape_ok = if expand {
            dst.rows() >= src.rows() && dst.cols() >= src.cols()
        } else {
            dst.rows() == src.rows() && dst.cols() == src.cols()
        };
        if !shape_ok {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: if expand {
                    "dst's static shape must be at least src's"
                } else {
                    "dst and src must have the same static shape"
                },
                value: format!(
                    "dst {}x{}, src {}x{}",
                    dst.rows(),
                    dst.cols(),
                    src.rows(),
                    src.cols()
                ),
            });
        }
        if dst.valid_row() == 0 || dst.valid_col() == 0 {
            return Ok(());
        }
        let t = dst.dtype();
        let size = t.size();
        let pad = dispatch!(all t, T => pad_bits::<T>(dst.desc().pad), else 0).to_le_bytes();
        let (vr, vc) = (src.valid_row(), src.valid_col());
        // src's valid region is read first: dst may be src (in place) or overlap it.
        let kept = self.read_bytes(src, (0, 0), vr, vc, size);
        let (rows, cols) = (dst.rows(), dst.cols());
        let mut out = vec![0u8; rows * cols * size];
        for e in out.chunks_exact_mut(size) {
            e.copy_from_slice(&pad[..size]);
        }
        for r in 0..vr {
            let row = r * cols * size;
            out[row..row + vc * size].copy_from_slice(&kept[r * vc * size..(r + 1) * vc * size]);
        }
        self.write_bytes(dst, (0, 0), rows, cols, size, &out);
        Ok(())
    }
}

/// The bits of a pad value in `T`.
fn pad_bits<T: Elem>(p: PadValue) -> u64 {
    let fl = T::C::FLOAT;
    let v: Scalar = match p {
        PadValue::Null | PadValue::Zero => return 0,
        PadValue::Max if fl => Scalar::Float(f64::INFINITY),
        PadValue::Min if fl => Scalar::Float(f64::NEG_INFINITY),
        PadValue::Max => return int_extreme(T::TYPE, true),
        PadValue::Min => return int_extreme(T::TYPE, false),
        PadValue::Custom(b) => Scalar::Float(f32::from_bits(b) as f64),
    };
    T::narrow(v.to_c::<T>()).to_bits_u64()
}

/// The pad code of a narrow float tile (`npusim_core::f8`): Zero is the all-zero byte, Max /
/// Min ±inf where the format has one, else its largest / smallest finite value, a custom
/// value its f32 converted as `F8Format::from_f32` does. 0 for any other type.
pub(crate) fn narrow_pad_bits(t: ElemType, p: PadValue) -> u64 {
    use npusim_core::f8::F8Format;
    let Some(f) = F8Format::of(t) else {
        return 0;
    };
    let neg = |c: u8| c | f.sign_bit();
    let code = match p {
        PadValue::Null | PadValue::Zero => 0,
        PadValue::Max => f.inf().unwrap_or(f.max_code()),
        // E8M0 has no sign: its smallest value is code 0.
        PadValue::Min if f == F8Format::E8M0 => 0,
        PadValue::Min => neg(f.inf().unwrap_or(f.max_code())),
        PadValue::Custom(b) => f.from_f32(f32::from_bits(b), npusim_core::Saturation::Off),
    };
    code as u64
}

fn int_extreme(t: ElemType, max: bool) -> u64 {
    let bits = t.bits();
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match (t.is_signed_int(), max) {
        (true, true) => mask >> 1,
        (true, false) => (mask >> 1) + 1,
        (false, true) => mask,
        (false, false) => 0,
    }
}

/// The MX scale layouts of a global tensor (pto-isa `Layout::MX_*`, `include/pto/common/
/// pto_tile.hpp`), loaded by TLOAD into a Mat tile on A5 (`docs/isa/TLOAD.md`, "Mat loads also
/// handle loads for mx format"): the `A` layouts into a ZZ scale tile (outer and inner
/// row-major, [`crate::tile::MX_FRACTAL`] boxes of 16 x 2), the `B` layouts into an NN one
/// (outer and inner col-major, boxes of 2 x 16). A scale matrix of A is `M x K/32`, of B
/// `K/32 x N`; the 5-D index of its element `(r, c)` is (`MX_ROW_LEN` = 16, `MX_COL_LEN` = 2):
///
/// | layout | dense shape | index `(i0, i1, i2, i3, i4)` |
/// |---|---|---|
/// | `MX_A_ZZ` | `[1, M/16, K'/2, 16, 2]` | `(r/(S1·16), (r/16)%S1, c/2, r%16, c%2)` |
/// | `MX_A_ND` | `[1, 1, M, K'/2, 2]` | `(0, 0, r, c/2, c%2)` |
/// | `MX_A_DN` | `[1, 1, K'/2, M, 2]` | `(0, 0, c/2, r, c%2)` |
/// | `MX_B_NN` | `[1, N/16, K'/2, 16, 2]` | `(c/(S1·16), (c/16)%S1, r/2, c%16, r%2)` |
/// | `MX_B_ND` | `[1, 1, K'/2, N, 2]` | `(0, 0, r/2, c, r%2)` |
/// | `MX_B_DN` | `[1, 1, N, K'/2, 2]` | `(0, 0, c, r/2, r%2)` |
///
/// (`K' = K/32`.) The CPU simulator (`cpu/tile_offsets.hpp`) sets `i0 = 0` and `i1 = r/16`
/// (ZZ; `c/16` for NN); the NPU code (`a5/TLoad.hpp`, `TLoadMxCubeZZ2ZZ` / `NN2NN`) stitches
/// Shape0 copies of Shape1 boxes, as the formula above; the two agree whenever Stride0 =
/// Shape1 · Stride1 (a dense tensor) or Shape0 = 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MxGmLayout {
    /// `MX_A_ZZ`: A's scales already boxed 16 x 2, boxes row-major.
    AZz,
    /// `MX_A_ND`: A's scales row-major.
    ANd,
    /// `MX_A_DN`: A's scales as column pairs, each pair's rows contiguous.
    ADn,
    /// `MX_B_NN`: B's scales already boxed (16 columns x 2 rows), boxes column-major.
    BNn,
    /// `MX_B_ND`: B's scales as row pairs, each pair's columns contiguous.
    BNd,
    /// `MX_B_DN`: B's scales column-major.
    BDn,
}

impl MxGmLayout {
    /// Every MX layout.
    pub const ALL: [MxGmLayout; 6] = [
        MxGmLayout::AZz,
        MxGmLayout::ANd,
        MxGmLayout::ADn,
        MxGmLayout::BNn,
        MxGmLayout::BNd,
        MxGmLayout::BDn,
    ];

    /// pto-isa's name.
    pub fn name(self) -> &'static str {
        match self {
            MxGmLayout::AZz => "MX_A_ZZ",
            MxGmLayout::ANd => "MX_A_ND",
            MxGmLayout::ADn => "MX_A_DN",
            MxGmLayout::BNn => "MX_B_NN",
            MxGmLayout::BNd => "MX_B_ND",
            MxGmLayout::BDn => "MX_B_DN",
        }
    }

    /// A layout of A's scales (loaded into ZZ), else of B's (into NN).
    pub fn is_a(self) -> bool {
        matches!(self, MxGmLayout::AZz | MxGmLayout::ANd | MxGmLayout::ADn)
    }

    /// `MX_A_ZZ` / `MX_B_NN`: the boxed layouts.
    pub fn is_boxed(self) -> bool {
        matches!(self, MxGmLayout::AZz | MxGmLayout::BNn)
    }
}

/// A GM buffer of `float8_e8m0_t` MX scales viewed as a 5-D tensor in one of the
/// [`MxGmLayout`]s (strides in elements, i.e. bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MxGlobalTensor {
    /// Byte address in GM.
    pub addr: u64,
    pub shape: [usize; 5],
    pub stride: [usize; 5],
    pub layout: MxGmLayout,
}

impl MxGlobalTensor {
    /// The dense tensor of a `rows x cols` scale matrix (pto-isa's `TileShape2D` /
    /// `BaseShape2D` for the layout; rows a multiple of 16 for `MX_A_ZZ`, of 2 for the `B`
    /// layouts; cols even for the `A` layouts, a multiple of 16 for `MX_B_NN`).
    pub fn dense(addr: u64, layout: MxGmLayout, rows: usize, cols: usize) -> MxGlobalTensor {
        let all = rows * cols;
        let (shape, stride) = match layout {
            MxGmLayout::AZz => ([1, rows / 16, cols / 2, 16, 2], [all, cols * 16, 32, 2, 1]),
            MxGmLayout::ANd => ([1, 1, rows, cols / 2, 2], [all, all, cols, 2, 1]),
            MxGmLayout::ADn => ([1, 1, cols / 2, rows, 2], [all, all, rows * 2, 2, 1]),
            MxGmLayout::BNn => ([1, cols / 16, rows / 2, 16, 2], [all, rows * 16, 32, 2, 1]),
            MxGmLayout::BNd => ([1, 1, rows / 2, cols, 2], [all, all, cols * 2, 2, 1]),
            MxGmLayout::BDn => ([1, 1, cols, rows / 2, 2], [all, all, rows, 2, 1]),
        };
        MxGlobalTensor {
            addr,
            shape,
            stride,
            layout,
        }
    }

    /// The scale matrix's rows and columns as the layout counts them (products saturate, so
    /// an absurd shape reads as a huge matrix, which the load's shape rules refuse).
    pub fn rows_cols(&self) -> (usize, usize) {
        let s = self.shape;
        let p = |xs: &[usize]| xs.iter().fold(1usize, |a, &x| a.saturating_mul(x));
        match self.layout {
            MxGmLayout::AZz => (p(&[s[0], s[1], s[3]]), p(&[s[2], s[4]])),
            MxGmLayout::ANd => (s[2], p(&[s[3], s[4]])),
            MxGmLayout::ADn => (s[3], p(&[s[2], s[4]])),
            MxGmLayout::BNn => (p(&[s[2], s[4]]), p(&[s[0], s[1], s[3]])),
            MxGmLayout::BNd => (p(&[s[2], s[4]]), s[3]),
            MxGmLayout::BDn => (p(&[s[3], s[4]]), s[2]),
        }
    }

    /// Element (byte) offset from `addr` of scale `(r, c)` (the table of [`MxGmLayout`]);
    /// saturates at `usize::MAX` (absurd strides: the load then reports a GM fault).
    pub fn offset(&self, r: usize, c: usize) -> usize {
        let s = self.shape;
        let d = |x: usize| x.max(1);
        // The boxed layouts' outer index: Shape0 stitched copies of Shape1 bands of Shape3.
        let bands = |x: usize| {
            (
                x / d(s[1]).saturating_mul(d(s[3])),
                (x / d(s[3])) % d(s[1]),
                x % d(s[3]),
            )
        };
        let i: [usize; 5] = match self.layout {
            MxGmLayout::AZz => {
                let (i0, i1, i3) = bands(r);
                [i0, i1, c / d(s[4]), i3, c % d(s[4])]
            }
            MxGmLayout::BNn => {
                let (i0, i1, i3) = bands(c);
                [i0, i1, r / d(s[4]), i3, r % d(s[4])]
            }
            MxGmLayout::ANd => [0, 0, r, c / d(s[4]), c % d(s[4])],
            MxGmLayout::ADn => [0, 0, c / d(s[4]), r, c % d(s[4])],
            MxGmLayout::BNd => [0, 0, r / d(s[4]), c, r % d(s[4])],
            MxGmLayout::BDn => [0, 0, c, r / d(s[4]), r % d(s[4])],
        };
        (0..5).fold(0usize, |a, k| {
            a.saturating_add(i[k].saturating_mul(self.stride[k]))
        })
    }
}

/// pto-isa `a5/TLoad.hpp` `TLoadMxCubeCheck`: a scale tile in L1 holds at most this many
/// elements (`Rows * Cols <= 512 * 1024`).
pub const MX_LOAD_MAX_ELEMS: usize = 512 * 1024;

impl TileCore {
    /// The rules of an MX TLOAD (see [`TileCore::tload_mx`]).
    fn check_mx_load(&self, dst: &Tile, gt: &MxGlobalTensor) -> Result<(), PtoError> {
        let op = OpCode::Tload;
        let n = op.name();
        let st = |operand: &'static str, rule: &'static str, value: String| PtoError::Static {
            op: n,
            operand,
            rule,
            value,
        };
        if self.arch() != npusim_core::TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: n,
                what: format!("the MX GM layout {} (A5 Mat loads only)", gt.layout.name()),
                arch: crate::table::arch_name(self.arch()),
            });
        }
        if dst.loc() != TileLoc::Mat {
            return Err(st(
                "dst",
                "an MX scale load's destination must be a Mat tile",
                format!("{:?}", dst.loc()),
            ));
        }
        if dst.dtype() != ElemType::F8E8M0 {
            return Err(PtoError::IllegalType {
                op: n,
                operand: "dst",
                dtype: dst.dtype(),
                arch: crate::table::arch_name(self.arch()),
                legal: "float8_e8m0 (an MX scale load)".to_string(),
            });
        }
        let d = dst.desc();
        let (want_b, want_s, rule) = if gt.layout.is_a() {
            (
                BLayout::RowMajor,
                SLayout::RowMajor,
                "MX_A_ZZ/MX_A_ND/MX_A_DN load into a ZZ tile (outer and inner row-major, fractal 32)",
            )
        } else {
            (
                BLayout::ColMajor,
                SLayout::ColMajor,
                "MX_B_NN/MX_B_ND/MX_B_DN load into an NN tile (outer and inner col-major, fractal 32)",
            )
        };
        if d.blayout != want_b || d.slayout != want_s || d.fractal != crate::tile::MX_FRACTAL {
            return Err(st(
                "dst",
                rule,
                format!(
                    "{}: {:?}/{:?} fractal {}",
                    gt.layout.name(),
                    d.blayout,
                    d.slayout,
                    d.fractal
                ),
            ));
        }
        if dst.rows() * dst.cols() > MX_LOAD_MAX_ELEMS {
            return Err(st(
                "dst",
                "an MX scale tile's static shape must be at most 512 KiB (Rows * Cols <= 524288)",
                format!("{}x{}", dst.rows(), dst.cols()),
            ));
        }
        let s = gt.shape;
        let shp = format!("{} shape {s:?}", gt.layout.name());
        if gt.layout.is_boxed() {
            if s[3] != 16 || s[4] != 2 {
                return Err(st(
                    "src",
                    "MX_A_ZZ / MX_B_NN: Shape3 must be 16 and Shape4 2 (the [16, 2] box)",
                    shp,
                ));
            }
        } else if s[0] != 1 || s[1] != 1 || s[4] != 2 {
            return Err(st(
                "src",
                "MX_A_ND / MX_A_DN / MX_B_ND / MX_B_DN: Shape0 and Shape1 must be 1 and Shape4 2",
                shp,
            ));
        }
        if s.contains(&0) || dst.valid_row() == 0 || dst.valid_col() == 0 {
            return Err(vr_err(
                op,
                "dst",
                "shapes and the valid region must be > 0",
                format!("{shp}, valid {}x{}", dst.valid_row(), dst.valid_col()),
            ));
        }
        if gt.layout.is_a() && !dst.valid_col().is_multiple_of(2) {
            return Err(vr_err(
                op,
                "dst",
                "scaleA: the valid column count must be even",
                dst.valid_col().to_string(),
            ));
        }
        if !gt.layout.is_a() && !dst.valid_row().is_multiple_of(2) {
            return Err(vr_err(
                op,
                "dst",
                "scaleB: the valid row count must be even",
                dst.valid_row().to_string(),
            ));
        }
        let (rows, cols) = gt.rows_cols();
        if gt.layout.is_boxed() && (rows > dst.rows() || cols > dst.cols()) {
            return Err(vr_err(
                op,
                "dst",
                "MX_A_ZZ / MX_B_NN: the tile's static shape must hold the global scale matrix",
                format!("{rows}x{cols} into a {}x{} tile", dst.rows(), dst.cols()),
            ));
        }
        if dst.valid_row() > rows || dst.valid_col() > cols {
            return Err(vr_err(
                op,
                "dst",
                "must fit within the global scale matrix (the valid region is the transfer size)",
                format!("valid {}x{}, {shp}", dst.valid_row(), dst.valid_col()),
            ));
        }
        self.check_addr(dst, n, "dst")
    }

    /// The rows x columns an MX TLOAD moves: the valid region (the page; the NPU's
    /// ND/DN paths), except `MX_A_ZZ` / `MX_B_NN` on the hardware profiles, whose NPU paths
    /// (`TLoadMxCubeZZ2ZZ` / `NN2NN`) copy the whole global scale matrix (the extent the
    /// tile policy's [`MatLoadExtent`] already follows for the boxing loads; `Documented`, the
    /// CPU simulator's policy, keeps the valid region).
    fn mx_load_extent(&self, dst: &Tile, gt: &MxGlobalTensor) -> (usize, usize) {
        if gt.layout.is_boxed() && self.policy().mat_load_extent != MatLoadExtent::Documented {
            gt.rows_cols()
        } else {
            (dst.valid_row(), dst.valid_col())
        }
    }

    /// TLOAD of MX scales (A5, pto-isa `docs/isa/TLOAD.md`): `dst(r, c) = gm[gt.offset(r, c)]`
    /// over the extent [`Self::mx_load_extent`] names, after the TLOAD fill (the whole tile
    /// with its pad value unless the pad is Null and the policy leaves Null unfilled; E8M0 has
    /// no sign nor infinity: Zero and Min are code 0, Max 0xfe). Rust API only: PTO-AS has no
    /// spelling of the MX layouts.
    ///
    /// Checked, each a typed error: A5; dst a Mat `float8_e8m0` tile, ZZ for the `A` layouts
    /// and NN for the `B` ones (fractal 32), at most 512 K elements; `MX_A_ZZ` / `MX_B_NN`
    /// Shape3 = 16, Shape4 = 2 and a tile shape holding the global matrix; the other four
    /// Shape0 = Shape1 = 1, Shape4 = 2; scaleA's valid columns even, scaleB's valid rows even;
    /// the valid region non-empty and inside the global matrix; the address. GM faults are
    /// reported before anything is written.
    pub fn tload_mx(&mut self, dst: &Tile, gt: &MxGlobalTensor) -> Result<(), PtoError> {
        let op = OpCode::Tload;
        self.check_mx_load(dst, gt)?;
        let (er, ec) = self.mx_load_extent(dst, gt);
        let mut vals = Vec::with_capacity(er * ec);
        for r in 0..er {
            for c in 0..ec {
                let a = gt.addr.checked_add(gt.offset(r, c) as u64).ok_or_else(|| {
                    vr_err(
                        op,
                        "src",
                        "the GM address must not overflow",
                        format!("{:#x}", gt.addr),
                    )
                })?;
                vals.push(self.gm().bytes(a, 1).map_err(memory(op.name(), "src"))?[0]);
            }
        }
        if dst.desc().pad != PadValue::Null || self.policy().pad_null_fills_zero {
            let code = narrow_pad_bits(ElemType::F8E8M0, dst.desc().pad);
            let whole = dst.with_valid(dst.rows(), dst.cols())?;
            for r in 0..whole.rows() {
                for c in 0..whole.cols() {
                    self.set_bits(&whole, r, c, code)
                        .map_err(memory(op.name(), "dst"))?;
                }
            }
        }
        let moved = dst.with_valid(er, ec)?;
        for r in 0..er {
            for c in 0..ec {
                self.set_bits(&moved, r, c, u64::from(vals[r * ec + c]))
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }
}
