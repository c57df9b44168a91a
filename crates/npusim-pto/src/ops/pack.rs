//! TPACK (pto-isa `docs/isa/TPACK.md`; its forms and rules in hw-native-sys/PTOAS
//! `docs/PTO_IR_manual.md`, "pto.tpack"): A5 only, `dst, src` Vec tiles, row-major, of the same
//! valid shape; the source elements are wider than the destination's, in the size pairs
//! 4 -> 2, 4 -> 1 and 2 -> 1 bytes. Each element of the valid region is narrowed to its
//! low-order bytes (the A5 pack stores `PK_B32`, `PK4_B32`, `PK_B16` keep the low half /
//! quarter of each lane) and stored packed at the destination's element size: a bit operation,
//! no rounding or saturation, the same for integer and float types.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use npusim_core::TileArch;

use super::{need_loc, need_row_major, same_valid};

/// The element function: the low `to` bytes of one little-endian element.
pub fn pack_elem(src: &[u8], to: usize) -> &[u8] {
    &src[..to]
}

impl TileCore {
    /// TPACK: `dst(i, j) = low bytes of src(i, j)` over the (equal) valid regions.
    pub fn tpack(&mut self, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tpack;
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: "TPACK (an A5 instruction)".into(),
                arch: arch_name(arch),
            });
        }
        for (n, t) in [("dst", dst), ("src", src)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            need_row_major(op, n, t)?;
        }
        op.check_type(arch, "src", src.dtype())?;
        let (from, to) = (src.dtype().size(), dst.dtype().size());
        if !matches!((from, to), (4, 2) | (4, 1) | (2, 1)) || dst.dtype().is_packed_fp4() {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: "element sizes src -> dst must be 4 -> 2, 4 -> 1 or 2 -> 1 bytes",
                value: format!("{} -> {}", src.dtype(), dst.dtype()),
            });
        }
        same_valid(op, "src", src, dst, true)?;
        let (rows, cols) = (dst.valid_row(), dst.valid_col());
        let bytes = self.read_bytes(src, (0, 0), rows, cols, from);
        let out: Vec<u8> = bytes
            .chunks_exact(from)
            .flat_map(|e| pack_elem(e, to).iter().copied())
            .collect();
        self.write_bytes(dst, (0, 0), rows, cols, to, &out);
        Ok(())
    }
}
