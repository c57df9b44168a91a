//! Elementwise tile-tile, unary, fused and tile-scalar instructions.
//!
//! Implements pto-isa `docs/isa/{TADD,TSUB,TMUL,TDIV,TMIN,TMAX,TREM,TFMOD,TPOW,TADDC,TSUBC,TABS,
//! TNEG,TEXP,TLOG,TSQRT,TRSQRT,TRECIP,TRELU,TNOT,TAND,TOR,TXOR,TSHL,TSHR,TPRELU,TMULADDDST,
//! TFUSEDMULADD,TFUSEDMULADDRELU,TSUBRELU}.md` and the tile-scalar pages `docs/isa/{TADDS,TSUBS,
//! TMULS,TDIVS,TMAXS,TMINS,TREMS,TFMODS,TPOWS,TANDS,TORS,TXORS,TSHLS,TSHRS,TLRELU,TEXPANDS,TAXPY,
//! TADDSC,TSUBSC}.md`. Each instruction is one element function (from [`crate::num`]) handed to
//! the shared engine; the meaning per element is in the comments of the match arms. The
//! meanings are written once over a `Sink`: executed now (`Exec`) or bound to their
//! operands for a prepared op (`Compile`, see [`crate::PreparedOp`]).

use super::{Scalar, ScalarElem, StaticChecks, covers, need_loc, need_row_major};
use crate::core::TileCore;
use crate::dispatch;
use crate::engine::{CompiledRows, ElemFn};
use crate::error::PtoError;
use crate::num::{self, Cx, Elem, Num, exp_f, exp_f_lanes};
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

fn class_err(op: OpCode, t: ElemType) -> PtoError {
    PtoError::IllegalType {
        op: op.name(),
        operand: "dst",
        dtype: t,
        arch: "any",
        legal: "(not defined for this element class)".into(),
    }
}

/// TEXP of every f16 bit pattern: `f16(exp_f(x))`, the element formula of the plain path.
fn exp_f16_table() -> &'static [u16; 65536] {
    static TABLE: std::sync::OnceLock<Box<[u16; 65536]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u16; 65536]);
        for (i, o) in t.iter_mut().enumerate() {
            let x = half::f16::from_bits(i as u16).to_f32();
            *o = half::f16::from_f32(exp_f(x)).to_bits();
        }
        t
    })
}

/// TEXP's element function [`exp_f`], whose rows go eight lanes at a time through
/// [`exp_f_lanes`] (equal to `exp_f` lane by lane; a group it declines is redone by `exp_f`).
#[derive(Clone, Copy)]
struct ExpRows;

impl ElemFn<f32, 1> for ExpRows {
    #[inline(always)]
    fn elem(&self, [x]: [f32; 1]) -> f32 {
        exp_f(x)
    }
    #[inline(always)]
    fn row(&self, d: &mut [f32], [s]: [&[f32]; 1]) {
        let s = &s[..d.len()];
        let mut outs = d.chunks_exact_mut(8);
        let mut ins = s.chunks_exact(8);
        for (o, i) in (&mut outs).zip(&mut ins) {
            let o: &mut [f32; 8] = o.try_into().expect("chunks of eight");
            let i: &[f32; 8] = i.try_into().expect("chunks of eight");
            if !exp_f_lanes(i, o) {
                for (o, i) in o.iter_mut().zip(i) {
                    *o = exp_f(*i);
                }
            }
        }
        for (o, i) in outs.into_remainder().iter_mut().zip(ins.remainder()) {
            *o = exp_f(*i);
        }
    }
}

/// Where an instruction's meaning goes once its operands are checked: [`Exec`] applies the
/// element function now; [`Compile`] binds it to the operands' footprint for a
/// [`crate::PreparedOp`]. Each instruction's meaning below is written once, for both.
pub(crate) trait Sink {
    type Out;
    fn core(&self) -> &TileCore;
    /// The policy bits the element functions read.
    fn cx(&self) -> Cx {
        let p = self.core().policy();
        Cx {
            nan: p.nan_min_max,
            divs_by_reciprocal: p.divs_by_reciprocal,
        }
    }
    /// `dst(r, c) = f([src_k(r, c)])` over dst's valid region.
    #[inline]
    fn apply<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl Fn([T::C; K]) -> T::C + Send + Sync + 'static,
    ) -> Result<Self::Out, PtoError> {
        self.apply_rows::<T, K>(op, dst, srcs, f)
    }
    /// [`Sink::apply`] for any element function, including one with its own row form.
    fn apply_rows<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K> + Send + Sync + 'static,
    ) -> Result<Self::Out, PtoError>;
    /// Integer division's data check on the divisor `t`.
    fn find_zero<T: Elem>(
        &mut self,
        op: &'static str,
        operand: &'static str,
        t: &Tile,
        rows: usize,
        cols: usize,
    ) -> Result<(), PtoError>;
}

/// Executes on the core now.
pub(crate) struct Exec<'a>(pub(crate) &'a mut TileCore);

impl Sink for Exec<'_> {
    type Out = ();
    fn core(&self) -> &TileCore {
        self.0
    }
    #[inline]
    fn apply_rows<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K> + Send + Sync + 'static,
    ) -> Result<(), PtoError> {
        self.0.apply_rows::<T, K>(op, dst, srcs, f)
    }
    fn find_zero<T: Elem>(
        &mut self,
        op: &'static str,
        operand: &'static str,
        t: &Tile,
        rows: usize,
        cols: usize,
    ) -> Result<(), PtoError> {
        self.0.find_zero::<T>(op, operand, t, rows, cols)
    }
}

/// Binds the element function to the operands once. An instruction whose execution depends on
/// the data (integer division checks its divisor) is marked and not compiled.
pub(crate) struct Compile<'a> {
    pub(crate) core: &'a TileCore,
    pub(crate) data_dependent: bool,
}

impl Sink for Compile<'_> {
    type Out = Option<CompiledRows>;
    fn core(&self) -> &TileCore {
        self.core
    }
    fn apply_rows<T: Elem, const K: usize>(
        &mut self,
        _op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K> + Send + Sync + 'static,
    ) -> Result<Option<CompiledRows>, PtoError> {
        Ok(self.core.compile_rows::<T, K>(dst, srcs, f))
    }
    fn find_zero<T: Elem>(
        &mut self,
        _op: &'static str,
        _operand: &'static str,
        _t: &Tile,
        _rows: usize,
        _cols: usize,
    ) -> Result<(), PtoError> {
        self.data_dependent = true;
        Ok(())
    }
}

impl TileCore {
    /// A unary instruction (`dst, src`).
    pub fn unary(&mut self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        self.unary_with(StaticChecks::Run, op, dst, src)
    }

    pub(crate) fn unary_with(
        &mut self,
        checks: StaticChecks,
        op: OpCode,
        dst: &Tile,
        src: &Tile,
    ) -> Result<(), PtoError> {
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src", src)])?;
        }
        unary_meaning(&mut Exec(self), op, dst, src)
    }

    /// A binary tile-tile instruction (`dst, src0, src1`).
    pub fn binary(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        self.binary_with(StaticChecks::Run, op, dst, src0, src1)
    }

    pub(crate) fn binary_with(
        &mut self,
        checks: StaticChecks,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src0", src0), ("src1", src1)])?;
        }
        binary_meaning(&mut Exec(self), op, dst, src0, src1)
    }

    /// TADDC (`a + b + c`) and TSUBC (`a - b + c`), rounded once.
    pub fn ternary(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
        src2: &Tile,
    ) -> Result<(), PtoError> {
        self.ternary_with(StaticChecks::Run, op, dst, src0, src1, src2)
    }

    pub(crate) fn ternary_with(
        &mut self,
        checks: StaticChecks,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
        src2: &Tile,
    ) -> Result<(), PtoError> {
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src0", src0), ("src1", src1), ("src2", src2)])?;
        }
        ternary_meaning(&mut Exec(self), op, dst, src0, src1, src2)
    }

    /// A tile-scalar instruction (`dst, src, scalar`); for TDIVS this is the tile/scalar form.
    pub fn tile_scalar(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src: &Tile,
        s: Scalar,
    ) -> Result<(), PtoError> {
        self.tile_scalar_with(StaticChecks::Run, op, dst, src, s)
    }

    pub(crate) fn tile_scalar_with(
        &mut self,
        checks: StaticChecks,
        op: OpCode,
        dst: &Tile,
        src: &Tile,
        s: Scalar,
    ) -> Result<(), PtoError> {
        if op == OpCode::Taxpy {
            // (its own checks: dst may be wider than src)
            return self.taxpy(dst, src, s);
        }
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src", src)])?;
        }
        tile_scalar_meaning(&mut Exec(self), op, dst, src, s)
    }

    /// TDIVS scalar/tile form: `dst = scalar / src`. Integer division by a zero element is an
    /// error.
    pub fn tdivs_scalar_tile(&mut self, dst: &Tile, s: Scalar, src: &Tile) -> Result<(), PtoError> {
        self.tdivs_scalar_tile_with(StaticChecks::Run, dst, s, src)
    }

    pub(crate) fn tdivs_scalar_tile_with(
        &mut self,
        checks: StaticChecks,
        dst: &Tile,
        s: Scalar,
        src: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tdivs;
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src", src)])?;
        }
        tdivs_scalar_tile_meaning(&mut Exec(self), dst, s, src)
    }

    /// TADDSC (`src0 + scalar + src1`) and TSUBSC (`src0 - scalar + src1`), rounded once.
    pub fn tile_scalar_tile(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        s: Scalar,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        self.tile_scalar_tile_with(StaticChecks::Run, op, dst, src0, s, src1)
    }

    pub(crate) fn tile_scalar_tile_with(
        &mut self,
        checks: StaticChecks,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        s: Scalar,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        if checks == StaticChecks::Run {
            self.check_elementwise(op, dst, &[("src0", src0), ("src1", src1)])?;
        }
        tile_scalar_tile_meaning(&mut Exec(self), op, dst, src0, s, src1)
    }

    /// TAXPY: `dst = scalar * src + dst`, rounded once; dst float with src half is allowed.
    pub fn taxpy(&mut self, dst: &Tile, src: &Tile, s: Scalar) -> Result<(), PtoError> {
        let op = OpCode::Taxpy;
        let arch = self.arch();
        for (name, t) in [("dst", dst), ("src", src)] {
            need_loc(op, name, t, TileLoc::Vec)?;
            op.check_type(arch, name, t.dtype())?;
        }
        super::same_valid(op, "src", src, dst, true)?;
        covers(op, "src", src, dst.valid_row(), dst.valid_col())?;
        let n = op.name();
        match (dst.dtype(), src.dtype()) {
            (ElemType::F32, ElemType::F32) => {
                let k = s.to_c::<f32>();
                self.apply::<f32, 2>(n, dst, [src, dst], |[x, y]| num::fma_once::<f32>(k, x, y))
            }
            (ElemType::F16, ElemType::F16) => {
                let k = s.to_c::<half::f16>();
                self.apply::<half::f16, 2>(n, dst, [src, dst], |[x, y]| {
                    num::fma_once::<half::f16>(k, x, y)
                })
            }
            (ElemType::F32, ElemType::F16) => {
                // Widening accumulation: the scalar has the source's type.
                let k = s.to_c::<half::f16>();
                for r in 0..dst.valid_row() {
                    for c in 0..dst.valid_col() {
                        let x = self.getc::<half::f16>(n, "src", src, r, c)?;
                        let y = self.getc::<f32>(n, "dst", dst, r, c)?;
                        self.setc::<f32>(n, "dst", dst, r, c, num::fma_once::<f32>(k, x, y))?;
                    }
                }
                Ok(())
            }
            (d, s) => Err(PtoError::TypeMismatch {
                op: n,
                operand: "src",
                dtype: s,
                other: "dst",
                expected: d,
            }),
        }
    }

    /// TEXPANDS: fills dst's valid region (Vec) or the whole tile (Mat) with the scalar.
    pub fn texpands(&mut self, dst: &Tile, s: Scalar) -> Result<(), PtoError> {
        let op = OpCode::Texpands;
        let arch = self.arch();
        op.check_type(arch, "dst", dst.dtype())?;
        let (rows, cols) = match dst.loc() {
            TileLoc::Vec => {
                if arch == TileArch::A5 {
                    need_row_major(op, "dst", dst)?;
                }
                (dst.valid_row(), dst.valid_col())
            }
            TileLoc::Mat => (dst.rows(), dst.cols()),
            _ => return need_loc(op, "dst", dst, TileLoc::Vec),
        };
        let full = dst.with_valid(rows, cols)?;
        let t = dst.dtype();
        dispatch!(all t, T => {
            let k = s.to_c::<T>();
            self.apply::<T, 0>(op.name(), &full, [], |[]| k)
        }, else Err(class_err(op, t)))
    }
}

// ---- each instruction's meaning, once for executing and for compiling ----
//
// Derived from the instruction table: every row's `(elem)` cell becomes one arm per operand
// form below (an `(own)` row, or an element rule that does not fit the form, is an operand
// error). The arms own the element-type dispatch and the data checks; the rule itself is the
// pure function `crate::num::f` the row names.

/// TEXP's fast rows: f16 through a table of every input, f32/bf16 eight lanes at a time
/// (both equal to `num::exp` element by element).
fn fast_unary<T: Elem<C = f32>, S: Sink>(
    sink: &mut S,
    op: OpCode,
    dst: &Tile,
    src: &Tile,
) -> Option<Result<S::Out, PtoError>> {
    if op != OpCode::Texp {
        return None;
    }
    let n = op.name();
    Some(if T::TYPE == ElemType::F16 && !sink.core().reference() {
        // Every f16 input has its result in a table built once from the same formula.
        let table = exp_f16_table();
        sink.apply::<u16, 1>(n, dst, [src], move |[a]| table[a as usize])
    } else {
        sink.apply_rows::<T, 1>(n, dst, [src], ExpRows)
    })
}

/// One row's arm in one operand form: `(form (elem) sink op t n cx operands...)`.
macro_rules! elem_arm {
    // dst = f(src)
    (unary (e1 float $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident) => {
        dispatch!(float $t, T => match fast_unary::<T, S>($sink, $op, $dst, $src) {
            Some(r) => r,
            None => $sink.apply::<T, 1>($n, $dst, [$src], move |[a]| num::$f::<T>(a, $cx)),
        }, else Err(class_err($op, $t)))
    };
    (unary (e1 $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident) => {
        dispatch!($d $t, T => $sink.apply::<T, 1>($n, $dst, [$src], move |[a]| num::$f::<T>(a, $cx)),
            else Err(class_err($op, $t)))
    };
    (unary (e1z $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident) => {
        dispatch!($d $t, T => {
            if !<<T as Elem>::C as Num>::FLOAT {
                $sink.find_zero::<T>($n, "src", $src, $dst.valid_row(), $dst.valid_col())?;
            }
            $sink.apply::<T, 1>($n, $dst, [$src], move |[a]| num::$f::<T>(a, $cx))
        }, else Err(class_err($op, $t)))
    };
    // dst = f(src0, src1)
    (binary (e2z $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        dispatch!($d $t, T => {
            if !<<T as Elem>::C as Num>::FLOAT {
                $sink.find_zero::<T>($n, "src1", $b, $dst.valid_row(), $dst.valid_col())?;
            }
            $sink.apply::<T, 2>($n, $dst, [$a, $b], move |[x, y]| num::$f::<T>(x, y, $cx))
        }, else Err(class_err($op, $t)))
    };
    (binary ($e:ident $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        elem_arm!(@binary $e $d $f $sink $op $t $n $cx $dst $a $b)
    };
    (@binary e2 $d:ident $f:ident $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        dispatch!($d $t, T => $sink.apply::<T, 2>($n, $dst, [$a, $b], move |[x, y]| num::$f::<T>(x, y, $cx)),
            else Err(class_err($op, $t)))
    };
    (@binary e2n $d:ident $f:ident $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        elem_arm!(@binary e2 $d $f $sink $op $t $n $cx $dst $a $b)
    };
    // dst = f(src0, src1, dst)
    (@binary e2d $d:ident $f:ident $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        dispatch!($d $t, T => $sink.apply::<T, 3>($n, $dst, [$a, $b, $dst], move |[x, y, z]| num::$f::<T>(x, y, z, $cx)),
            else Err(class_err($op, $t)))
    };
    (@binary $e:ident $d:ident $f:ident $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a binary instruction" })
    };
    // dst = f(src, scalar)
    (scalar (e2 $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident $s:ident) => {
        dispatch!($d $t, T => {
            let k = $s.to_c::<T>();
            $sink.apply::<T, 1>($n, $dst, [$src], move |[x]| num::$f::<T>(x, k, $cx))
        }, else Err(class_err($op, $t)))
    };
    (scalar (e2z $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident $s:ident) => {
        dispatch!($d $t, T => {
            let k = $s.to_c::<T>();
            if !<<T as Elem>::C as Num>::FLOAT && k.is_zero() && $dst.valid_row() * $dst.valid_col() > 0 {
                return Err(PtoError::DivByZero { op: $n, operand: "scalar", row: 0, col: 0 });
            }
            $sink.apply::<T, 1>($n, $dst, [$src], move |[x]| num::$f::<T>(x, k, $cx))
        }, else Err(class_err($op, $t)))
    };
    (scalar (e2n $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident $s:ident) => {
        dispatch!($d $t, T => {
            let k = $s.to_c::<T>();
            if k.sign_neg() {
                return Err(PtoError::Scalar {
                    op: $n,
                    rule: "shift amount must be zero or positive",
                    value: format!("{:?}", $s),
                });
            }
            $sink.apply::<T, 1>($n, $dst, [$src], move |[x]| num::$f::<T>(x, k, $cx))
        }, else Err(class_err($op, $t)))
    };
    (scalar $e:tt $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident $s:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a tile-scalar instruction" })
    };
    // dst = f(src0, src1, src2)
    (ternary (e3 $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident $c:ident) => {
        dispatch!($d $t, T => $sink.apply::<T, 3>($n, $dst, [$a, $b, $c], move |[x, y, z]| num::$f::<T>(x, y, z, $cx)),
            else Err(class_err($op, $t)))
    };
    (ternary $e:tt $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident $c:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a ternary instruction" })
    };
    // dst = f(src0, scalar, src1)
    (scalar_tile (e3 $d:ident $f:ident) $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $s:ident $b:ident) => {
        dispatch!($d $t, T => {
            let k = $s.to_c::<T>();
            $sink.apply::<T, 2>($n, $dst, [$a, $b], move |[x, y]| num::$f::<T>(x, k, y, $cx))
        }, else Err(class_err($op, $t)))
    };
    (scalar_tile $e:tt $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $s:ident $b:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a tile-scalar-tile instruction" })
    };
    (unary $e:tt $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $src:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a unary instruction" })
    };
    (binary $e:tt $sink:ident $op:ident $t:ident $n:ident $cx:ident $dst:ident $a:ident $b:ident) => {
        Err(PtoError::Operands { op: $n, expected: "a binary instruction" })
    };
}

macro_rules! meanings {
    ($(($v:ident $alias:ident, $name:literal, $mlir:literal, $class:ident, $tmp:tt, $elem:tt, $($rest:tt)*)),* $(,)?) => {
        /// The unary element rules of the table (`(e1 ..)`, `(e1z ..)`).
        pub(crate) fn unary_meaning<S: Sink>(
            sink: &mut S,
            op: OpCode,
            dst: &Tile,
            src: &Tile,
        ) -> Result<S::Out, PtoError> {
            let (t, n, cx) = (dst.dtype(), op.name(), sink.cx());
            match op {
                $(OpCode::$v => elem_arm!(unary $elem sink op t n cx dst src),)*
            }
        }

        /// The tile-tile element rules of the table (`(e2 ..)`, `(e2z ..)`, `(e2d ..)`).
        pub(crate) fn binary_meaning<S: Sink>(
            sink: &mut S,
            op: OpCode,
            dst: &Tile,
            src0: &Tile,
            src1: &Tile,
        ) -> Result<S::Out, PtoError> {
            let (t, n, cx) = (dst.dtype(), op.name(), sink.cx());
            match op {
                $(OpCode::$v => elem_arm!(binary $elem sink op t n cx dst src0 src1),)*
            }
        }

        /// The three-source element rules (`(e3 ..)`): TADDC, TSUBC.
        pub(crate) fn ternary_meaning<S: Sink>(
            sink: &mut S,
            op: OpCode,
            dst: &Tile,
            src0: &Tile,
            src1: &Tile,
            src2: &Tile,
        ) -> Result<S::Out, PtoError> {
            let (t, n, cx) = (dst.dtype(), op.name(), sink.cx());
            match op {
                $(OpCode::$v => elem_arm!(ternary $elem sink op t n cx dst src0 src1 src2),)*
            }
        }

        /// The tile-scalar element rules (`(e2 ..)` with the scalar as second operand; TAXPY
        /// and TEXPANDS have their own handlers).
        pub(crate) fn tile_scalar_meaning<S: Sink>(
            sink: &mut S,
            op: OpCode,
            dst: &Tile,
            src: &Tile,
            s: Scalar,
        ) -> Result<S::Out, PtoError> {
            let (t, n, cx) = (dst.dtype(), op.name(), sink.cx());
            match op {
                $(OpCode::$v => elem_arm!(scalar $elem sink op t n cx dst src s),)*
            }
        }

        /// The tile-scalar-tile element rules (`(e3 ..)` with the scalar in the middle):
        /// TADDSC, TSUBSC.
        pub(crate) fn tile_scalar_tile_meaning<S: Sink>(
            sink: &mut S,
            op: OpCode,
            dst: &Tile,
            src0: &Tile,
            s: Scalar,
            src1: &Tile,
        ) -> Result<S::Out, PtoError> {
            let (t, n, cx) = (dst.dtype(), op.name(), sink.cx());
            match op {
                $(OpCode::$v => elem_arm!(scalar_tile $elem sink op t n cx dst src0 s src1),)*
            }
        }
    };
}
crate::for_each_tile_op!(meanings);

/// TDIVS scalar/tile: `dst = scalar / src`.
pub(crate) fn tdivs_scalar_tile_meaning<S: Sink>(
    sink: &mut S,
    dst: &Tile,
    s: Scalar,
    src: &Tile,
) -> Result<S::Out, PtoError> {
    let op = OpCode::Tdivs;
    let t = dst.dtype();
    dispatch!(all t, T => {
        let k = s.to_c::<T>();
        if !<<T as Elem>::C as Num>::FLOAT {
            sink.find_zero::<T>(op.name(), "src", src, dst.valid_row(), dst.valid_col())?;
        }
        sink.apply::<T, 1>(op.name(), dst, [src], move |[a]| k.div(a))
    }, else Err(class_err(op, t)))
}

macro_rules! entries {
    ($kind:ident: $($f:ident $v:ident),*) => { entries!(@$kind $($f $v),*); };
    (@unary $($f:ident $v:ident),*) => {
        impl TileCore { $(
            #[doc = concat!("`", stringify!($v), "`: see [`TileCore::unary`].")]
            pub fn $f(&mut self, dst: &Tile, src: &Tile) -> Result<(), PtoError> { self.unary(OpCode::$v, dst, src) }
        )* }
    };
    (@binary $($f:ident $v:ident),*) => {
        impl TileCore { $(
            #[doc = concat!("`", stringify!($v), "`: see [`TileCore::binary`].")]
            pub fn $f(&mut self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> { self.binary(OpCode::$v, dst, src0, src1) }
        )* }
    };
    (@scalar $($f:ident $v:ident),*) => {
        impl TileCore { $(
            #[doc = concat!("`", stringify!($v), "`: see [`TileCore::tile_scalar`].")]
            pub fn $f(&mut self, dst: &Tile, src: &Tile, scalar: impl Into<Scalar>) -> Result<(), PtoError> { self.tile_scalar(OpCode::$v, dst, src, scalar.into()) }
        )* }
    };
}
entries!(unary: tabs Tabs, tneg Tneg, texp Texp, tlog Tlog, tsqrt Tsqrt, trsqrt Trsqrt, trecip Trecip, trelu Trelu, tnot Tnot);
entries!(binary: tadd Tadd, tsub Tsub, tmul Tmul, tdiv Tdiv, tmin Tmin, tmax Tmax, trem Trem, tfmod Tfmod, tpow Tpow,
    tand Tand, tor Tor, txor Txor, tshl Tshl, tshr Tshr, tprelu Tprelu, tmuladddst Tmuladddst, tfusedmuladd Tfusedmuladd,
    tfusedmuladdrelu Tfusedmuladdrelu, tsubrelu Tsubrelu);
entries!(scalar: tadds Tadds, tsubs Tsubs, tmuls Tmuls, tdivs Tdivs, tmaxs Tmaxs, tmins Tmins, trems Trems, tfmods Tfmods,
    tpows Tpows, tands Tands, tors Tors, txors Txors, tshls Tshls, tshrs Tshrs, tlrelu Tlrelu);
