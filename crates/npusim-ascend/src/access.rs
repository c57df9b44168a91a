//! Which bytes one decoded instruction reads and writes, lane by lane and repeat by repeat.
//!
//! This is what `npusim explain` draws. It is derived from the decoded instruction itself:
//! the same [`Walk`](crate::geometry::Walk)s (`base + r·rep_stride + (e / lanes_per_block)·
//! blk_stride + (e mod lanes_per_block)·size`) and the same resolved lane mask
//! ([`LaneMask::iterations`], [`LaneMask::lanes_of`]) that [`VecOp::execute`] and
//! [`Vcmpv::execute`] walk, so the picture cannot disagree with what the simulator runs.
//! Addressing rules: asc-devkit `SIMD计算说明/高维切分.md`; seed 000 for `vec_cmpv_xx`
//! (one bit per lane, dst packed and contiguous across repeats).

use crate::core::Operand;
use crate::error::{AscendError, Result};
use crate::mask::LaneMask;
use crate::ops::{Vcmpv, lanes_for};
use crate::vector::{MaskSource, VecOp};

/// One lane of one repeat touching one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// The repeat (iteration).
    pub repeat: u32,
    /// The lane within the repeat.
    pub lane: u32,
    /// The block of the repeat the lane belongs to (`lane / lanes_per_block` of this operand).
    pub block: u32,
    /// Byte address of the element (of the byte holding the bit, for a bit operand).
    pub addr: u64,
    /// For a bit operand: the bit within the byte at `addr` (little-endian bit order).
    pub bit: Option<u8>,
}

/// Every access of one operand.
#[derive(Clone, Debug, PartialEq)]
pub struct OperandAccess {
    /// The operand's name in the API (`dst`, `src0`, `src1`, `src`).
    pub role: &'static str,
    /// The operand.
    pub operand: Operand,
    /// Read by the instruction.
    pub read: bool,
    /// Written by the instruction.
    pub write: bool,
    /// One bit per lane (the packed result of a compare), not one element.
    pub bits: bool,
    /// Bytes between consecutive blocks of one repeat (0 for a packed bit operand).
    pub blk_stride: u64,
    /// Bytes between consecutive repeats.
    pub rep_stride: u64,
    /// The lanes, in execution order (repeat, then lane).
    pub lanes: Vec<LaneAccess>,
}

/// The accesses of one instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessMap {
    /// The instruction's name as it was called.
    pub name: &'static str,
    /// Repeats that run (counter mode: as many as the count fills).
    pub repeats: u32,
    /// Lanes of one repeat.
    pub lanes_per_repeat: u32,
    /// Destination first, then the sources.
    pub operands: Vec<OperandAccess>,
}

fn too_many(name: &'static str, n: u64, max: u64) -> AscendError {
    AscendError::Rule {
        instr: name,
        param: "repeat_times",
        value: format!("{n} lane accesses"),
        rule: if max == 0 {
            "no lane accesses allowed"
        } else {
            "too many lane accesses to draw (the limit is the caller's)"
        },
    }
}

impl VecOp {
    /// The lanes every operand of this instruction touches, at most `max_lanes` lanes per
    /// operand. A mask read from the mask register at run time (`isSetMask = false`) is not
    /// known here and is an error.
    pub fn accesses(&self, max_lanes: u64) -> Result<AccessMap> {
        let m = match self.mask {
            MaskSource::Fixed(m) => m,
            MaskSource::Register => {
                return Err(AscendError::Rule {
                    instr: self.name,
                    param: "isSetMask",
                    value: "false".into(),
                    rule: "the mask comes from the mask register at run time; give the mask in the call",
                });
            }
        };
        let lanes = self.lanes;
        let n = if m.is_empty() {
            0
        } else {
            m.iterations(self.repeat, lanes)
        };
        let total = count_lanes(m, n, lanes);
        if total > max_lanes {
            return Err(too_many(self.name, total, max_lanes));
        }
        let reads_dst = self.instr.shape().reads_dst();
        let ops: Vec<&Operand> = std::iter::once(&self.dst).chain(&self.srcs).collect();
        let mut out: Vec<OperandAccess> = ops
            .iter()
            .enumerate()
            .map(|(k, op)| OperandAccess {
                role: self.names[k],
                operand: (*op).clone(),
                read: k > 0 || reads_dst,
                write: k == 0,
                bits: false,
                blk_stride: self.walks[k].blk_stride,
                rep_stride: self.walks[k].rep_stride,
                lanes: Vec::with_capacity(total as usize),
            })
            .collect();
        for r in 0..n {
            let bits = m.lanes_of(r, lanes);
            for e in 0..lanes {
                if bits >> e & 1 == 0 {
                    continue;
                }
                for (k, o) in out.iter_mut().enumerate() {
                    let w = &self.walks[k];
                    o.lanes.push(LaneAccess {
                        repeat: r,
                        lane: e,
                        block: (e as u64 / w.lanes_per_block()) as u32,
                        addr: w.lane_addr(r, e),
                        bit: None,
                    });
                }
            }
        }
        Ok(AccessMap {
            name: self.name,
            repeats: n,
            lanes_per_repeat: lanes,
            operands: out,
        })
    }
}

fn count_lanes(m: LaneMask, n: u32, lanes: u32) -> u64 {
    match m {
        LaneMask::Normal(b) => n as u64 * b.count_ones() as u64,
        LaneMask::Counter(c) => c.min(n as u64 * lanes as u64),
    }
}

impl Vcmpv {
    /// The lanes every operand of this comparison touches: every lane of every repeat of each
    /// source (no mask), and one bit per lane of dst, packed from dst's start and advancing one
    /// repeat's bits per repeat (seed 000). The scalar form has one source.
    pub fn accesses(&self) -> AccessMap {
        let lanes = lanes_for(self.src0.dtype);
        let per = self.bytes_per_repeat();
        let mut srcs = vec![("src0", &self.src0, self.walk0())];
        if self.scalar.is_none() {
            srcs.push(("src1", &self.src1, self.walk1()));
        } else {
            srcs[0].0 = "src";
        }
        let n = self.repeat;
        let total = n as usize * lanes as usize;
        let mut dst = OperandAccess {
            role: "dst",
            operand: self.dst.clone(),
            read: false,
            write: true,
            bits: true,
            blk_stride: 0,
            rep_stride: per,
            lanes: Vec::with_capacity(total),
        };
        let mut outs: Vec<OperandAccess> = srcs
            .iter()
            .map(|(role, op, w)| OperandAccess {
                role,
                operand: (*op).clone(),
                read: true,
                write: false,
                bits: false,
                blk_stride: w.blk_stride,
                rep_stride: w.rep_stride,
                lanes: Vec::with_capacity(total),
            })
            .collect();
        let base = self.dst.addr();
        for r in 0..n {
            for e in 0..lanes {
                let bit = r as u64 * per * 8 + e as u64;
                for (o, (_, _, w)) in outs.iter_mut().zip(&srcs) {
                    o.lanes.push(LaneAccess {
                        repeat: r,
                        lane: e,
                        block: (e as u64 / w.lanes_per_block()) as u32,
                        addr: w.lane_addr(r, e),
                        bit: None,
                    });
                }
                dst.lanes.push(LaneAccess {
                    repeat: r,
                    lane: e,
                    block: (e as u64 / srcs[0].2.lanes_per_block()) as u32,
                    addr: base + bit / 8,
                    bit: Some((bit % 8) as u8),
                });
            }
        }
        let mut operands = vec![dst];
        operands.append(&mut outs);
        AccessMap {
            name: self.name,
            repeats: n,
            lanes_per_repeat: lanes,
            operands,
        }
    }
}
