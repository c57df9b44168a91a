//! Partial elementwise instructions over mismatched valid regions.
//!
//! Implements pto-isa `docs/isa/{TPARTADD,TPARTMUL,TPARTMAX,TPARTMIN,TPARTARGMAX,TPARTARGMIN}.md`.
//! Over dst's valid region: where both sources are valid the operator applies, where one is
//! valid its value is copied. Where neither is (only reachable on A5, whose rule allows both
//! sources to be smaller than dst) the page says "implementation-defined"; this crate writes 0,
//! as the public CPU simulator does.
//!
//! Valid-region rules: A2A3 returns early when dst's valid region is empty and otherwise needs
//! one source's valid region equal to dst's and the other's not larger; A5 returns early when
//! any of the three is empty and needs both sources not larger than dst. Any other pattern is
//! an error here (the pages: "asserts" / "target-defined").

use super::{need_loc, need_row_major, same_type, vr_err};
use crate::core::TileCore;
use crate::dispatch;
use crate::error::PtoError;
use crate::num::{Elem, Num, max_p, min_p};
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

fn empty(t: &Tile) -> bool {
    t.valid_row() == 0 || t.valid_col() == 0
}
fn le(a: &Tile, d: &Tile) -> bool {
    a.valid_row() <= d.valid_row() && a.valid_col() <= d.valid_col()
}
fn eq(a: &Tile, d: &Tile) -> bool {
    a.valid_row() == d.valid_row() && a.valid_col() == d.valid_col()
}
/// Where a partial instruction (TPARTADD/MUL/MAX/MIN) takes element `(r, c)` of dst's valid
/// region from: the operator over both sources, one source copied, or neither (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartSource {
    /// Both sources are valid at `(r, c)`: the operator applies.
    Both,
    /// Only src0 is valid: its value is copied.
    Src0,
    /// Only src1 is valid: its value is copied.
    Src1,
    /// Neither is (A5 only): 0 is written.
    Neither,
}

/// The rule the executor applies at element `(r, c)` of dst's valid region (also what
/// `npusim explain` draws).
pub fn partial_source(s0: &Tile, s1: &Tile, r: usize, c: usize) -> PartSource {
    let in0 = r < s0.valid_row() && c < s0.valid_col();
    let in1 = r < s1.valid_row() && c < s1.valid_col();
    match (in0, in1) {
        (true, true) => PartSource::Both,
        (true, false) => PartSource::Src0,
        (false, true) => PartSource::Src1,
        (false, false) => PartSource::Neither,
    }
}

fn shape(t: &Tile) -> String {
    format!("{}x{}", t.valid_row(), t.valid_col())
}

impl TileCore {
    /// Checks the partial valid-region rules; `Ok(false)` means "return early".
    fn partial_regions(
        &self,
        op: OpCode,
        dst: &Tile,
        s0: &Tile,
        s1: &Tile,
    ) -> Result<bool, PtoError> {
        match self.arch() {
            TileArch::A2A3 => {
                if empty(dst) {
                    return Ok(false);
                }
                let ok = (eq(s0, dst) && le(s1, dst)) || (eq(s1, dst) && le(s0, dst));
                if !ok {
                    return Err(vr_err(
                        op,
                        "src0/src1",
                        "one source must equal dst's valid region and the other must not exceed it",
                        format!("src0 {}, src1 {}, dst {}", shape(s0), shape(s1), shape(dst)),
                    ));
                }
            }
            TileArch::A5 => {
                if empty(dst) || empty(s0) || empty(s1) {
                    return Ok(false);
                }
                for (n, s) in [("src0", s0), ("src1", s1)] {
                    if !le(s, dst) {
                        return Err(vr_err(
                            op,
                            n,
                            "must not exceed dst's valid region",
                            format!("{} vs dst {}", shape(s), shape(dst)),
                        ));
                    }
                }
            }
        }
        Ok(true)
    }

    fn partial_checks(
        &self,
        op: OpCode,
        tiles: &[(&'static str, &Tile)],
        first: &Tile,
    ) -> Result<(), PtoError> {
        for (n, t) in tiles {
            need_loc(op, n, t, TileLoc::Vec)?;
            if self.arch() == TileArch::A2A3 {
                need_row_major(op, n, t)?;
            }
            op.check_type(self.arch(), n, t.dtype())?;
            same_type(op, n, t, tiles[0].0, first)?;
        }
        Ok(())
    }

    /// TPARTADD / TPARTMUL / TPARTMAX / TPARTMIN.
    pub fn partial(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        self.partial_checks(op, &[("dst", dst), ("src0", src0), ("src1", src1)], dst)?;
        if !self.partial_regions(op, dst, src0, src1)? {
            return Ok(());
        }
        let t = dst.dtype();
        let p = self.policy().nan_min_max;
        dispatch!(all t, T => match op {
            OpCode::Tpartadd => self.partial_with::<T>(op, dst, src0, src1, |a, b| a.add(b)),
            OpCode::Tpartmul => self.partial_with::<T>(op, dst, src0, src1, |a, b| a.mul(b)),
            OpCode::Tpartmax => self.partial_with::<T>(op, dst, src0, src1, |a, b| max_p(a, b, p)),
            OpCode::Tpartmin => self.partial_with::<T>(op, dst, src0, src1, |a, b| min_p(a, b, p)),
            _ => Err(PtoError::Operands { op: op.name(), expected: "a partial instruction" }),
        }, else Err(PtoError::Operands { op: op.name(), expected: "a numeric tile" }))
    }

    fn partial_with<T: Elem>(
        &mut self,
        op: OpCode,
        dst: &Tile,
        s0: &Tile,
        s1: &Tile,
        f: impl Fn(T::C, T::C) -> T::C,
    ) -> Result<(), PtoError> {
        let n = op.name();
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let v = match partial_source(s0, s1, r, c) {
                    PartSource::Both => f(
                        self.getc::<T>(n, "src0", s0, r, c)?,
                        self.getc::<T>(n, "src1", s1, r, c)?,
                    ),
                    PartSource::Src0 => self.getc::<T>(n, "src0", s0, r, c)?,
                    PartSource::Src1 => self.getc::<T>(n, "src1", s1, r, c)?,
                    PartSource::Neither => T::C::zero(),
                };
                self.setc::<T>(n, "dst", dst, r, c, v)?;
            }
        }
        Ok(())
    }

    /// TPARTARGMAX / TPARTARGMIN: values and their indices. On a tie the second source wins
    /// (`src1 >= src0` selects src1 for max; `src1 <= src0` for min).
    #[allow(clippy::too_many_arguments)]
    pub fn partial_arg(
        &mut self,
        op: OpCode,
        dst_val: &Tile,
        dst_idx: &Tile,
        src0_val: &Tile,
        src0_idx: &Tile,
        src1_val: &Tile,
        src1_idx: &Tile,
    ) -> Result<(), PtoError> {
        let max = match op {
            OpCode::Tpartargmax => true,
            OpCode::Tpartargmin => false,
            _ => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "TPARTARGMAX or TPARTARGMIN",
                });
            }
        };
        self.partial_checks(
            op,
            &[
                ("dst_val", dst_val),
                ("src0_val", src0_val),
                ("src1_val", src1_val),
            ],
            dst_val,
        )?;
        let it = dst_idx.dtype();
        let legal_idx: &[ElemType] = if dst_val.dtype() == ElemType::F16 {
            &[ElemType::I16, ElemType::U16, ElemType::I32, ElemType::U32]
        } else {
            &[ElemType::I32, ElemType::U32]
        };
        for (n, t) in [
            ("dst_idx", dst_idx),
            ("src0_idx", src0_idx),
            ("src1_idx", src1_idx),
        ] {
            need_loc(op, n, t, TileLoc::Vec)?;
            if !legal_idx.contains(&t.dtype()) {
                return Err(PtoError::IllegalType {
                    op: op.name(),
                    operand: n,
                    dtype: t.dtype(),
                    arch: crate::table::arch_name(self.arch()),
                    legal: crate::error::type_list(legal_idx),
                });
            }
            same_type(op, n, t, "dst_idx", dst_idx)?;
        }
        for (n, v, i) in [
            ("dst_idx", dst_val, dst_idx),
            ("src0_idx", src0_val, src0_idx),
            ("src1_idx", src1_val, src1_idx),
        ] {
            if !eq(v, i) {
                return Err(vr_err(
                    op,
                    n,
                    "must equal its value tile's valid region",
                    format!("{} vs {}", shape(i), shape(v)),
                ));
            }
        }
        if empty(dst_val) {
            return Ok(());
        }
        if !eq(src0_val, dst_val) && !eq(src1_val, dst_val) {
            return Err(vr_err(
                op,
                "dst_val",
                "must equal src0's or src1's valid region",
                format!(
                    "dst {}, src0 {}, src1 {}",
                    shape(dst_val),
                    shape(src0_val),
                    shape(src1_val)
                ),
            ));
        }
        for (n, s) in [("src0_val", src0_val), ("src1_val", src1_val)] {
            super::covers(op, n, s, s.valid_row(), s.valid_col())?;
        }
        let n = op.name();
        let vt = dst_val.dtype();
        dispatch!(float vt, V => dispatch!(int it, I => {
            for r in 0..dst_val.valid_row() {
                for c in 0..dst_val.valid_col() {
                    let in0 = r < src0_val.valid_row() && c < src0_val.valid_col();
                    let in1 = r < src1_val.valid_row() && c < src1_val.valid_col();
                    let pick1 = match (in0, in1) {
                        (true, true) => {
                            let a = self.getc::<V>(n, "src0_val", src0_val, r, c)?;
                            let b = self.getc::<V>(n, "src1_val", src1_val, r, c)?;
                            let src0_wins = if max { a > b } else { a < b };
                            !src0_wins
                        }
                        (true, false) => false,
                        (false, true) => true,
                        (false, false) => continue,
                    };
                    let (sv, si) = if pick1 { (src1_val, src1_idx) } else { (src0_val, src0_idx) };
                    let v = self.get::<V>(sv, r, c).map_err(crate::engine::memory(n, "src_val"))?;
                    let i = self.get::<I>(si, r, c).map_err(crate::engine::memory(n, "src_idx"))?;
                    self.set::<V>(dst_val, r, c, v).map_err(crate::engine::memory(n, "dst_val"))?;
                    self.set::<I>(dst_idx, r, c, i).map_err(crate::engine::memory(n, "dst_idx"))?;
                }
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "an integer index tile" })),
        else Err(PtoError::Operands { op: n, expected: "a float value tile" }))
    }
}

macro_rules! entries {
    ($($f:ident $v:ident),*) => {
        impl TileCore { $(
            #[doc = concat!("`", stringify!($v), "`: see [`TileCore::partial`].")]
            pub fn $f(&mut self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> { self.partial(OpCode::$v, dst, src0, src1) }
        )* }
    };
}
entries!(tpartadd Tpartadd, tpartmul Tpartmul, tpartmax Tpartmax, tpartmin Tpartmin);
