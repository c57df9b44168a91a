//! TALIAS: a second tile view over a tile's storage (pto-isa `docs/isa/tile/ops/sync-and-config/
//! talias.md` and the family page `docs/isa/tile/sync-and-config.md`).
//!
//! The pages give the meaning and nothing else: the alias "shares the original tile storage",
//! "changes the visible tile view, not the underlying bytes", and "must keep the source
//! tile's payload identity"; constraints are left to the backends, and pto-isa's headers and
//! PTOAS have no TALIAS yet. This crate's reading, each rule a typed error:
//! - the alias lives in the source's location and starts at the source's address (the
//!   payload identity);
//! - its footprint (static shape times element size) fits in the source's, so every access
//!   through the alias stays inside the source's storage;
//! - it may change the element type, shape, valid region and layout (a view, like TRESHAPE
//!   and the bitcast); its own declaration rules are checked as at `alloc_tile`.
//!
//! No byte moves: writes through either view are seen through the other, because both name
//! the same bytes of the location's memory.

use super::need_loc;
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileDesc};

fn rule(operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: OpCode::Talias.name(),
        operand,
        rule,
        value,
    }
}

impl TileCore {
    /// TALIAS: `dst` (its declared type, shape, valid region and layout) as a view of `src`'s
    /// storage, at `src`'s address.
    pub fn talias(&self, src: &Tile, dst: TileDesc) -> Result<Tile, PtoError> {
        let op = OpCode::Talias;
        self.check_addr(src, op.name(), "src")?;
        let d = TileDesc {
            addr: src.addr(),
            ..dst
        };
        if d.loc != src.loc() {
            return Err(rule(
                "dst",
                "the alias must be in the source's location",
                format!("{:?} over {:?}", d.loc, src.loc()),
            ));
        }
        let t = self.alloc_named(d, op.name(), "dst")?;
        self.talias_check(&t, src)?;
        Ok(t)
    }

    /// TALIAS as an instruction over two declared tiles: checks that `dst` is a view of
    /// `src`'s storage (same location, same address, footprint inside src's); moves nothing.
    pub fn talias_check(&self, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Talias;
        need_loc(op, "dst", dst, src.loc()).map_err(|_| {
            rule(
                "dst",
                "the alias must be in the source's location",
                format!("{:?} over {:?}", dst.loc(), src.loc()),
            )
        })?;
        op.check_type(self.arch(), "dst", dst.dtype())?;
        op.check_type(self.arch(), "src", src.dtype())?;
        self.check_addr(src, op.name(), "src")?;
        self.check_addr(dst, op.name(), "dst")?;
        if dst.addr() != src.addr() {
            return Err(rule(
                "dst",
                "the alias must start at the source's address",
                format!("{:#x} vs {:#x}", dst.addr(), src.addr()),
            ));
        }
        if dst.size_bytes() > src.size_bytes() {
            return Err(rule(
                "dst",
                "the alias's footprint must fit in the source's storage",
                format!("{} bytes over {}", dst.size_bytes(), src.size_bytes()),
            ));
        }
        Ok(())
    }
}
