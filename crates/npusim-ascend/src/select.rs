//! Select / `vec_sel` / `vsel`: per-lane choice between src0 and src1 (or a scalar) by a bit
//! mask (asc-devkit `比较与选择/Select.md`; `shared/research/ascend-vector.md` §2, §3).
//!
//! - Bit 1 picks src0, bit 0 picks src1; the vector mask then filters, and masked-off lanes
//!   keep dst.
//! - Mode 0 (VSEL_CMPMASK_SPR): every repeat uses the same first 256/sizeof(T) bits of `sel`.
//!   Mode 1 (VSEL_TENSOR_SCALAR_MODE): src1 is a scalar; `sel` is consumed continuously, one
//!   repeat's bits after another. Mode 2 (VSEL_TENSOR_TENSOR_MODE): two tensors, `sel`
//!   consumed continuously. Atlas 200/300/500 inference and Atlas training have mode 0 only.
//! - The selected element's bits are copied unchanged.
//! - Not checked: overlap between dst and the sources (the general rule is not restated).

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::{BLOCK_BYTES, Walk};
use crate::isa::Instr;
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::ops::Scalar;
use crate::ops::ScalarBits;
use crate::vector::MaskSource;
use npusim_core::{ChipId, ChipProfile, MemSpace};

/// src1 of a Select: a tensor (modes 0 and 2) or a scalar (mode 1).
#[derive(Clone, Copy, Debug)]
pub enum Src1<'a> {
    Tensor(&'a Operand),
    Scalar(Scalar),
}

impl<'a> From<&'a Operand> for Src1<'a> {
    fn from(o: &'a Operand) -> Self {
        Src1::Tensor(o)
    }
}
impl From<f64> for Src1<'_> {
    fn from(v: f64) -> Self {
        Src1::Scalar(Scalar::Float(v))
    }
}
impl From<f32> for Src1<'_> {
    fn from(v: f32) -> Self {
        Src1::Scalar(Scalar::Float(v as f64))
    }
}
impl From<i32> for Src1<'_> {
    fn from(v: i32) -> Self {
        Src1::Scalar(Scalar::Int(v as i64))
    }
}

/// A checked Select.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectOp {
    pub name: &'static str,
    pub mode: u8,
    pub dst: Operand,
    pub sel: Operand,
    pub src0: Operand,
    pub src1: Option<Operand>,
    pub scalar_bits: u64,
    pub repeat: u32,
    pub mask: MaskSource,
    walks: [Walk; 3],
}

impl SelectOp {
    /// Checks a call for `chip`: blk and rep strides of dst, src0, src1 in 32-byte blocks.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        mode: i64,
        dst: &Operand,
        sel: &Operand,
        src0: &Operand,
        src1: Src1<'_>,
        mask: MaskArg,
        is_set_mask: bool,
        repeat: i64,
        blk: [i64; 3],
        rep: [i64; 3],
    ) -> Result<SelectOp> {
        Instr::Select.check_type(name, chip.id, "dst", dst.dtype)?;
        check::same_type(name, "src0", src0, "dst", dst.dtype)?;
        let mode = check::range(name, "mode", mode, 0, 2, "[0, 2]")? as u8;
        if mode != 0 && matches!(chip.id, ChipId::Ascend310 | ChipId::Ascend910) {
            return Err(AscendError::Rule {
                instr: name,
                param: "mode",
                value: mode.to_string(),
                rule: "Atlas 200/300/500 inference and Atlas training products support mode 0 only",
            });
        }
        if !sel.dtype.is_unsigned_int() {
            return Err(AscendError::IllegalType {
                instr: name,
                param: "sel",
                dtype: sel.dtype,
                chip: chip.id,
                legal: "uint8, uint16, uint32, uint64".into(),
            });
        }
        let (src1, scalar_bits) = match (mode, src1) {
            (1, Src1::Scalar(s)) => (None, s.to_bits(name, "src1", dst.dtype)?),
            (1, Src1::Tensor(_)) => {
                return Err(AscendError::Rule {
                    instr: name,
                    param: "src1",
                    value: "a tensor".into(),
                    rule: "mode 1 takes a scalar src1",
                });
            }
            (_, Src1::Tensor(t)) => {
                check::same_type(name, "src1", t, "dst", dst.dtype)?;
                (Some(t.clone()), 0)
            }
            (_, Src1::Scalar(_)) => {
                return Err(AscendError::Rule {
                    instr: name,
                    param: "src1",
                    value: "a scalar".into(),
                    rule: "modes 0 and 2 take a tensor src1",
                });
            }
        };
        let repeat = check::range(name, "repeat_times", repeat, 0, 255, "[0, 255]")?;
        let names = ["dst", "src0", "src1"];
        let mut walks = [Walk {
            base: 0,
            blk_stride: BLOCK_BYTES,
            rep_stride: 0,
            elem_size: 1,
        }; 3];
        let ops: Vec<&Operand> = [Some(dst), Some(src0), src1.as_ref()]
            .into_iter()
            .flatten()
            .collect();
        for (k, op) in ops.iter().enumerate() {
            let b = check::range(
                name,
                ["dst_blk_stride", "src0_blk_stride", "src1_blk_stride"][k],
                blk[k],
                0,
                255,
                "[0, 255]",
            )?;
            let r = check::range(
                name,
                ["dst_rep_stride", "src0_rep_stride", "src1_rep_stride"][k],
                rep[k],
                0,
                255,
                "[0, 255]",
            )?;
            check::scope(name, names[k], op, MemSpace::Ub)?;
            check::align(chip, name, names[k], op)?;
            walks[k] = Walk {
                base: op.addr(),
                blk_stride: b as u64 * BLOCK_BYTES,
                rep_stride: r as u64 * BLOCK_BYTES,
                elem_size: op.dtype.size() as u64,
            };
        }
        check::scope(name, "sel", sel, MemSpace::Ub)?;
        check::align(chip, name, "sel", sel)?;
        let lanes = 256 / dst.dtype.size() as u32;
        let mask = if is_set_mask {
            MaskSource::Fixed(mask::resolve(
                name,
                mask,
                lanes,
                true,
                MaskRegister::default(),
            )?)
        } else {
            mask::resolve(name, mask, lanes, false, MaskRegister::default())?;
            MaskSource::Register
        };
        let op = SelectOp {
            name,
            mode,
            dst: dst.clone(),
            sel: sel.clone(),
            src0: src0.clone(),
            src1,
            scalar_bits,
            repeat,
            mask,
            walks,
        };
        if let MaskSource::Fixed(m) = mask {
            op.check_bounds(m)?;
        }
        Ok(op)
    }

    fn lanes(&self) -> u32 {
        256 / self.dst.dtype.size() as u32
    }

    fn check_bounds(&self, m: LaneMask) -> Result<()> {
        let lanes = self.lanes();
        let n = m.iterations(self.repeat, lanes);
        if n == 0 {
            return Ok(());
        }
        let ops = [Some(&self.dst), Some(&self.src0), self.src1.as_ref()];
        for (k, op) in ops.iter().enumerate() {
            if let Some(op) = op {
                check::within(
                    self.name,
                    ["dst", "src0", "src1"][k],
                    op,
                    self.walks[k].span(n, |r| m.lanes_of(r, lanes)),
                )?;
            }
        }
        let sel_bits = if self.mode == 0 {
            lanes as u64
        } else {
            n as u64 * lanes as u64
        };
        let a = self.sel.addr();
        check::within(
            self.name,
            "sel",
            &self.sel,
            Some((a, a + sel_bits.div_ceil(8))),
        )
    }

    /// Runs the selection with the core's current mask state.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let lanes = self.lanes();
        let m = match self.mask {
            MaskSource::Fixed(m) => m,
            MaskSource::Register => {
                let m = mask::resolve(self.name, MaskArg::Placeholder, lanes, false, core.mask)?;
                self.check_bounds(m)?;
                m
            }
        };
        let n = m.iterations(self.repeat, lanes);
        let size = self.dst.dtype.size();
        let per = lanes as u64 / 8;
        let mut out = [0u8; 8];
        for r in 0..n {
            let active = m.lanes_of(r, lanes);
            if active == 0 {
                continue;
            }
            let sel_at = self.sel.addr() + if self.mode == 0 { 0 } else { r as u64 * per };
            let mut sb = [0u8; 16];
            sb[..per as usize].copy_from_slice(core.ub().bytes(sel_at, per)?);
            let bits = u128::from_le_bytes(sb);
            for e in 0..lanes {
                if active >> e & 1 == 0 {
                    continue;
                }
                let from_src0 = bits >> e & 1 == 1;
                if from_src0 {
                    out[..size].copy_from_slice(
                        core.ub()
                            .bytes(self.walks[1].lane_addr(r, e), size as u64)?,
                    );
                } else if self.src1.is_some() {
                    out[..size].copy_from_slice(
                        core.ub()
                            .bytes(self.walks[2].lane_addr(r, e), size as u64)?,
                    );
                } else {
                    out[..size].copy_from_slice(&self.scalar_bits.to_le_bytes()[..size]);
                }
                core.ub_mut()
                    .write(self.walks[0].lane_addr(r, e), &out[..size])?;
            }
        }
        Ok(())
    }
}
