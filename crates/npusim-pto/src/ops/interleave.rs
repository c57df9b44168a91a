//! TINTERLEAVE and TDEINTERLEAVE (pto-isa `docs/isa/TINTERLEAVE.md`, `docs/isa/TDEINTERLEAVE.md`,
//! A5) and TPAIRREDUCESUM (`docs/isa/TPAIRREDUCESUM.md`, A2A3 and A5): per-row rearrangements
//! of adjacent element pairs.
//!
//! - TINTERLEAVE (`dst0, dst1, src0, src1`): each row's stream `s0[0], s1[0], s0[1], s1[1], ...`
//!   (length `2 * validCols`), its first half into dst0, its second half into dst1.
//! - TDEINTERLEAVE, two-source form (`dst0, dst1, src0, src1`): the row stream `src0 ++ src1`,
//!   its even positions into dst0 and its odd positions into dst1 (the inverse of TINTERLEAVE);
//!   single-source form (`dst0, dst1, src`): `src`'s even and odd columns, `validCols / 2` of
//!   each; the rest of each destination row is left as it was (the page: "unspecified").
//! - TPAIRREDUCESUM (`dst, src`): `dst(i, k) = src(i, 2k) + src(i, 2k + 1)` for `k <
//!   ceil(validCols / 2)`, an element past the valid columns counting as 0; positions
//!   `ceil(validCols / 2) .. validCols` of each row are 0. The sum is the element type's add
//!   (TADD's: one rounding to nearest even).
//!
//! Restrictions (typed errors): Vec tiles, row-major; the element types of each page; all
//! tiles one type; the valid shapes the pages require (equal shapes; `validCols` even for the
//! interleaves; the single-source destinations `validCols / 2` wide); A5 only for the
//! interleaves. The element moves are bit copies (no arithmetic), so every bit pattern (NaN
//! payloads, -0) is kept.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::{Elem, Num};
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use half::{bf16, f16};
use npusim_core::{ElemType, TileArch};

use super::{need_loc, need_row_major, same_type, vr_err};

/// The source of TDEINTERLEAVE: two tiles (the halves of the stream) or one (the stream).
#[derive(Clone, Copy, Debug)]
pub enum DeinterleaveSrc<'a> {
    Two(&'a Tile, &'a Tile),
    One(&'a Tile),
}

/// One row of TINTERLEAVE on element-sized chunks: `(dst0 row, dst1 row)`.
pub fn interleave_row(s0: &[u8], s1: &[u8], size: usize) -> (Vec<u8>, Vec<u8>) {
    let mut stream = Vec::with_capacity(s0.len() * 2);
    for (a, b) in s0.chunks_exact(size).zip(s1.chunks_exact(size)) {
        stream.extend_from_slice(a);
        stream.extend_from_slice(b);
    }
    let d1 = stream.split_off(s0.len());
    (stream, d1)
}

/// One row of TDEINTERLEAVE of the stream `row`: `(even elements, odd elements)`.
pub fn deinterleave_row(row: &[u8], size: usize) -> (Vec<u8>, Vec<u8>) {
    let mut even = Vec::with_capacity(row.len() / 2);
    let mut odd = Vec::with_capacity(row.len() / 2);
    for (k, e) in row.chunks_exact(size).enumerate() {
        if k % 2 == 0 {
            even.extend_from_slice(e);
        } else {
            odd.extend_from_slice(e);
        }
    }
    (even, odd)
}

impl TileCore {
    fn interleave_checks(
        &self,
        op: OpCode,
        tiles: &[(&'static str, &Tile)],
    ) -> Result<(), PtoError> {
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: format!("{} (its page lists A5 checks only)", op.name()),
                arch: arch_name(arch),
            });
        }
        let (n0, t0) = tiles[0];
        for &(n, t) in tiles {
            need_loc(op, n, t, TileLoc::Vec)?;
            need_row_major(op, n, t)?;
            op.check_type(arch, n, t.dtype())?;
            same_type(op, n, t, n0, t0)?;
            self.check_addr(t, op.name(), n)?;
        }
        Ok(())
    }

    /// TINTERLEAVE: `dst0`/`dst1` the first/second half of each row's interleaved stream of
    /// `src0` and `src1`.
    pub fn tinterleave(
        &mut self,
        dst0: &Tile,
        dst1: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tinterleave;
        let tiles = [
            ("dst0", dst0),
            ("dst1", dst1),
            ("src0", src0),
            ("src1", src1),
        ];
        let (rows, cols) =
            self.two_source_shape(op, &tiles, "all tiles must have dst0's valid shape")?;
        let size = dst0.dtype().size();
        let a = self.read_bytes(src0, (0, 0), rows, cols, size);
        let b = self.read_bytes(src1, (0, 0), rows, cols, size);
        let (mut o0, mut o1) = (Vec::with_capacity(a.len()), Vec::with_capacity(a.len()));
        let w = cols * size;
        for r in 0..rows {
            let (x, y) = interleave_row(&a[r * w..(r + 1) * w], &b[r * w..(r + 1) * w], size);
            o0.extend(x);
            o1.extend(y);
        }
        self.write_bytes(dst0, (0, 0), rows, cols, size, &o0);
        self.write_bytes(dst1, (0, 0), rows, cols, size, &o1);
        Ok(())
    }

    /// The two-source forms' shared rules: [`TileCore::interleave_checks`], every tile with
    /// dst0's valid shape (`rule` names the form), and an even valid column count; returns
    /// that shape.
    fn two_source_shape(
        &self,
        op: OpCode,
        tiles: &[(&'static str, &Tile)],
        rule: &'static str,
    ) -> Result<(usize, usize), PtoError> {
        self.interleave_checks(op, tiles)?;
        let (rows, cols) = (tiles[0].1.valid_row(), tiles[0].1.valid_col());
        for (n, t) in &tiles[1..] {
            if (t.valid_row(), t.valid_col()) != (rows, cols) {
                return Err(vr_err(
                    op,
                    n,
                    rule,
                    format!("{}x{} for {rows}x{cols}", t.valid_row(), t.valid_col()),
                ));
            }
        }
        if cols % 2 != 0 {
            return Err(vr_err(
                op,
                "dst0",
                "validCol must be even",
                cols.to_string(),
            ));
        }
        Ok((rows, cols))
    }

    /// TDEINTERLEAVE: `dst0`/`dst1` the even/odd elements of each row's stream.
    pub fn tdeinterleave(
        &mut self,
        dst0: &Tile,
        dst1: &Tile,
        src: DeinterleaveSrc<'_>,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tdeinterleave;
        let size = dst0.dtype().size();
        let (rows, out_cols, stream) = match src {
            DeinterleaveSrc::Two(s0, s1) => {
                let tiles = [("dst0", dst0), ("dst1", dst1), ("src0", s0), ("src1", s1)];
                let (rows, cols) = self.two_source_shape(
                    op,
                    &tiles,
                    "two-source form: all tiles must have dst0's valid shape",
                )?;
                let a = self.read_bytes(s0, (0, 0), rows, cols, size);
                let b = self.read_bytes(s1, (0, 0), rows, cols, size);
                let w = cols * size;
                let mut stream = Vec::with_capacity(2 * a.len());
                for r in 0..rows {
                    stream.extend_from_slice(&a[r * w..(r + 1) * w]);
                    stream.extend_from_slice(&b[r * w..(r + 1) * w]);
                }
                (rows, cols, stream)
            }
            DeinterleaveSrc::One(s) => {
                let tiles = [("dst0", dst0), ("dst1", dst1), ("src", s)];
                self.interleave_checks(op, &tiles)?;
                let (rows, cols) = (s.valid_row(), s.valid_col());
                if cols % 2 != 0 {
                    return Err(vr_err(op, "src", "validCol must be even", cols.to_string()));
                }
                for (n, t) in &tiles[..2] {
                    if (t.valid_row(), t.valid_col()) != (rows, cols / 2) {
                        return Err(vr_err(
                            op,
                            n,
                            "single-source form: dst0/dst1 must have src's valid rows and half its valid columns",
                            format!("{}x{} for src {rows}x{cols}", t.valid_row(), t.valid_col()),
                        ));
                    }
                }
                (rows, cols / 2, self.read_bytes(s, (0, 0), rows, cols, size))
            }
        };
        let w = 2 * out_cols * size;
        let (mut o0, mut o1) = (
            Vec::with_capacity(w * rows / 2),
            Vec::with_capacity(w * rows / 2),
        );
        for r in 0..rows {
            let (e, o) = deinterleave_row(&stream[r * w..(r + 1) * w], size);
            o0.extend(e);
            o1.extend(o);
        }
        self.write_bytes(dst0, (0, 0), rows, out_cols, size, &o0);
        self.write_bytes(dst1, (0, 0), rows, out_cols, size, &o1);
        Ok(())
    }

    /// TPAIRREDUCESUM: adjacent pairs of each row summed into its first `ceil(validCols / 2)`
    /// positions, zeros after them up to validCols.
    pub fn tpairreducesum(&mut self, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tpairreducesum;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            need_row_major(op, n, t)?;
            op.check_type(arch, n, t.dtype())?;
            self.check_addr(t, op.name(), n)?;
        }
        same_type(op, "src", src, "dst", dst)?;
        let (rows, cols) = (dst.valid_row(), dst.valid_col());
        if (src.valid_row(), src.valid_col()) != (rows, cols) {
            return Err(vr_err(
                op,
                "src",
                "src must have dst's valid shape",
                format!("{}x{} for {rows}x{cols}", src.valid_row(), src.valid_col()),
            ));
        }
        match dst.dtype() {
            ElemType::F32 => self.pair_sum::<f32>(dst, src, rows, cols),
            ElemType::F16 => self.pair_sum::<f16>(dst, src, rows, cols),
            ElemType::Bf16 => self.pair_sum::<bf16>(dst, src, rows, cols),
            t => return Err(super::illegal(op, arch, "dst", t, op.legal(arch))),
        }
        Ok(())
    }

    fn pair_sum<T: Elem>(&mut self, dst: &Tile, src: &Tile, rows: usize, cols: usize) {
        let v = self.read_rect_at::<T>(src, (0, 0), rows, cols);
        let mut out = vec![T::C::default(); rows * cols];
        for r in 0..rows {
            let row = &v[r * cols..(r + 1) * cols];
            for k in 0..cols.div_ceil(2) {
                let b = row.get(2 * k + 1).copied().unwrap_or_default();
                out[r * cols + k] = pair_add::<T>(row[2 * k], b);
            }
        }
        let size = T::TYPE.size();
        let mut bytes = vec![0u8; rows * cols * size];
        T::store(&out, &mut bytes);
        self.write_bytes(dst, (0, 0), rows, cols, size, &bytes);
    }
}

/// One pair of TPAIRREDUCESUM: the element type's add (as TADD).
pub fn pair_add<T: Elem>(a: T::C, b: T::C) -> T::C {
    T::narrow(a.add(b)).widen()
}
