//! TPREFETCH (pto-isa `docs/isa/TPREFETCH.md`, tile tree `memory-and-data-movement/
//! tprefetch.md`): a prefetch hint from a global tensor towards a tile.
//!
//! The page calls the transfer advisory on A2A3 and A5 ("the hardware may populate the tile
//! buffer"; "some targets may ignore prefetches or treat them as hints"; a program must not
//! rely on its data), while the pto-isa CPU simulator copies as TLOAD does. npusim models the
//! hardware hint as a no-op that still checks its operands, so a kernel that reads the tile
//! without a TLOAD sees stale data here as it may on A5: the destination's element type
//! (TLOAD's list for the arch), its location (Vec or Mat) and address, the global tensor's
//! element width (equal to the tile's), and every GM byte of the tile's valid region inside
//! global memory. Nothing is written.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::ops::memory::GlobalTensor;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};

impl TileCore {
    /// TPREFETCH (`dst, src`): the operand checks of a prefetch; moves nothing.
    pub fn tprefetch(&mut self, dst: &Tile, gt: &GlobalTensor) -> Result<(), PtoError> {
        let op = OpCode::Tprefetch;
        op.check_type(self.arch(), "dst", dst.dtype())?;
        if !matches!(dst.loc(), TileLoc::Vec | TileLoc::Mat) {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: "tile location must be Vec or Mat",
                value: format!("{:?}", dst.loc()),
            });
        }
        self.check_addr(dst, op.name(), "dst")?;
        let size = dst.dtype().size();
        if gt.dtype.size() != size {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "src",
                rule: "the global tensor's element width must equal the tile's",
                value: format!("{} for a {} tile", gt.dtype, dst.dtype()),
            });
        }
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let mut last = None::<usize>;
        for r in 0..vr {
            for c in 0..vc {
                let o = gt.offset(r, c);
                last = Some(last.map_or(o, |m| m.max(o)));
            }
        }
        if let Some(o) = last {
            // The farthest element's bytes (offsets grow with every index of each layout, so
            // the whole window lies between addr and this element).
            let a = gt.addr + (o * size) as u64;
            self.gm()
                .bytes(a, size as u64)
                .map_err(|e| PtoError::Memory {
                    op: op.name(),
                    operand: "src",
                    source: e,
                })?;
        }
        Ok(())
    }
}
