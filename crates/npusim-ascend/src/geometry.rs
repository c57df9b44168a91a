//! The repeat / block / stride address engine shared by every vector instruction.
//!
//! One instruction runs `repeat` iterations; each reads or writes 8 blocks of 32 bytes. The
//! address of lane `e` of iteration `r` of an operand is
//! `base + r·rep_stride + (e / lanes_per_block)·blk_stride + (e mod lanes_per_block)·size`,
//! with both strides start-to-start in bytes here (the API layers convert from their documented
//! units: 32-byte blocks, or 128 bytes for PairReduceSum's dstRepStride). Source: asc-devkit
//! `SIMD计算说明/高维切分.md`; `shared/research/ascend-vector.md` §1.1–1.2, §1.6.
//!
//! The engine also answers the static questions every instruction asks before it touches
//! memory: which bytes an operand touches (for bounds checks) and whether two operands overlap
//! illegally.

/// Bytes in a block.
pub const BLOCK_BYTES: u64 = 32;
/// Blocks in one repeat.
pub const BLOCKS_PER_REPEAT: u32 = 8;
/// Bytes in one full repeat.
pub const REPEAT_BYTES: u64 = BLOCK_BYTES * BLOCKS_PER_REPEAT as u64;

/// How one operand walks memory across lanes and iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Byte address of lane 0 of iteration 0.
    pub base: u64,
    /// Bytes between the starts of consecutive blocks of one iteration.
    pub blk_stride: u64,
    /// Bytes between the starts of consecutive iterations.
    pub rep_stride: u64,
    /// Element size in bytes.
    pub elem_size: u64,
}

impl Walk {
    /// Lanes that share a block.
    #[inline]
    pub const fn lanes_per_block(&self) -> u64 {
        BLOCK_BYTES / self.elem_size
    }

    /// Byte address of the start of block `b` of iteration `r`.
    #[inline]
    pub const fn block_addr(&self, r: u32, b: u32) -> u64 {
        self.base + r as u64 * self.rep_stride + b as u64 * self.blk_stride
    }

    /// Byte address of lane `e` of iteration `r`.
    #[inline]
    pub const fn lane_addr(&self, r: u32, e: u32) -> u64 {
        let lpb = self.lanes_per_block();
        self.block_addr(r, (e as u64 / lpb) as u32) + (e as u64 % lpb) * self.elem_size
    }

    /// The byte range `[lo, hi)` spanned by the lanes in `lanes` of iteration `r`, or `None`
    /// when no lane is set.
    pub fn iteration_span(&self, r: u32, lanes: u128) -> Option<(u64, u64)> {
        if lanes == 0 {
            return None;
        }
        let mut lo = u64::MAX;
        let mut hi = 0;
        let mut m = lanes;
        while m != 0 {
            let e = m.trailing_zeros();
            m &= m - 1;
            let a = self.lane_addr(r, e);
            lo = lo.min(a);
            hi = hi.max(a + self.elem_size);
        }
        Some((lo, hi))
    }

    /// The byte range touched over `iterations` iterations whose lanes `lanes_of(r)` gives.
    ///
    /// Strides are non-negative, so a lane's address never decreases with `r`; lane sets differ
    /// only in the last iteration (counter mode), so iterations 0, n-2 and n-1 bound the span.
    pub fn span(&self, iterations: u32, lanes_of: impl Fn(u32) -> u128) -> Option<(u64, u64)> {
        if iterations == 0 {
            return None;
        }
        let mut out: Option<(u64, u64)> = None;
        for r in [0, iterations.saturating_sub(2), iterations - 1] {
            if let Some((lo, hi)) = self.iteration_span(r, lanes_of(r)) {
                out = Some(match out {
                    None => (lo, hi),
                    Some((a, b)) => (a.min(lo), b.max(hi)),
                });
            }
        }
        out
    }

    /// The blocks iteration `r` touches, as byte ranges (one per block that has a lane in
    /// `lanes`).
    pub fn iteration_blocks(&self, r: u32, lanes: u128) -> impl Iterator<Item = (u64, u64)> + '_ {
        let lpb = self.lanes_per_block() as u32;
        (0..BLOCKS_PER_REPEAT).filter_map(move |b| {
            let block_lanes = (lanes >> (b * lpb)) & crate::mask::prefix(lpb);
            (block_lanes != 0).then(|| {
                let a = self.block_addr(r, b);
                (a, a + BLOCK_BYTES)
            })
        })
    }
}

/// True when the half-open ranges intersect.
#[inline]
pub const fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_addresses_follow_the_formula() {
        let w = Walk {
            base: 64,
            blk_stride: 64,
            rep_stride: 7 * 32,
            elem_size: 2,
        };
        assert_eq!(w.lane_addr(0, 0), 64);
        assert_eq!(w.lane_addr(0, 15), 64 + 30);
        assert_eq!(w.lane_addr(0, 16), 128);
        assert_eq!(w.lane_addr(2, 17), 64 + 2 * 224 + 64 + 2);
        // 16 lanes of the first block only: 32 bytes.
        assert_eq!(w.iteration_span(0, 0xffff), Some((64, 96)));
        assert_eq!(w.span(3, |_| 1), Some((64, 64 + 2 * 224 + 2)));
        assert_eq!(w.iteration_blocks(0, 1 | 1 << 40).count(), 2);
    }
}
