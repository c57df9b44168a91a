//! TTRANS on convolution tiles (ConvTile): the layout conversions of pto-isa
//! `docs/isa/TTRANS.md` ("ConvTile", the tmp size formulas), with the index math of pto-isa's
//! NPU implementations (`include/pto/npu/a2a3/TTrans.hpp`, `include/pto/npu/a5/TTrans.hpp`,
//! `TTransImplConvTile`) and the shape checks of its CPU simulator
//! (`include/pto/cpu/TTrans.hpp` `CheckValidConvShape`) and of the A2A3 debug checks
//! (`CheckConvTile`, `CheckGroupConvTile`, `CheckConv3DTile`).
//!
//! A ConvTile (pto-isa `include/pto/common/pto_tile.hpp` `ConvTile<Loc, T, BufferSize, Layout,
//! Shape>`) is a buffer with a format and 1..6 dims; npusim describes it as a Vec [`Tile`] (the
//! buffer: address, element type, capacity) plus a [`ConvShape`] (format and dims), and the
//! elements are packed row-major in the dims' order from the tile's address. PTOAS has no
//! ConvTile type (`include/PTO/IR`, `docs/PTO_IR_manual.md`), so these forms are a Rust API
//! ([`TileCore::ttrans_conv`], `Args::TransposeConv`) with no PTO-AS spelling.
//!
//! Forms (`src -> dst`, dims in brackets; `C1 = ceil(C / C0)`, `N1 = ceil(N / N0)`, `HW = H *
//! W`, `b = 32 / sizeof(T)` elements per 32-byte block):
//! - NCHW `[N, C, H, W]` -> NC1HWC0 `[N, C1, H, W, C0]` and GNCHW `[G, N, C, H, W]` ->
//!   GNC1HWC0 `[G, N, C1, H, W, C0]` (both archs): per `(g, n, c1)` the `C0 x HW` block of the
//!   source at element `((g * N + n) * C1 + c1) * C0 * HW` is transposed into the `HW x C0`
//!   block at the same offset of dst. So the source is read as if it had `C1 * C0` channels
//!   (both NPU implementations stride `n` by `C1 * C0 * HW`): when `C0` does not divide `C`, the
//!   padded channels of dst receive whatever the source buffer holds past each `n`'s `C`
//!   channels (neither zeros nor untouched), and the source buffer must hold `G * N * C1 * C0
//!   * HW` elements. The CPU simulator instead reads a dense NCHW and leaves the padded
//!   channels untouched; npusim follows the NPU code (the two agree when `C0` divides `C`).
//! - NC1HWC0 -> NCHW and GNC1HWC0 -> GNCHW (A2A3 only; A5's `TTRANS_IMPL` has no reverse
//!   form): the inverse block transpose; dst's `C` is `C1 * C0` (the CPU check), and the group
//!   form's `C0` is `b` (the A2A3 code fixes it to `BLOCK_BYTE_SIZE / sizeof(T)`).
//! - NC1HWC0 -> FRACTAL_Z `[C1 * H * W, N1, N0, C0]` (both archs): `dst(i, n, c0) = src(n, i,
//!   c0)` for `n < N`; the padded `n` in `[N, N1 * N0)` are left untouched (neither NPU
//!   implementation writes them).
//! - GNC1HWC0 -> FRACTAL_Z `[G * C1 * H * W, N1, N0, C0]` (both archs): `dst(g * C1HW + i, n,
//!   c0) = src_mem[g * N1 * N0 * C1HW * C0 + n * C1HW * C0 + i * C0 + c0]` for `n < N` (both
//!   NPU implementations stride the source's groups by the padded `N1 * N0`, the CPU simulator
//!   by `N`; they agree for one group or `N0 | N`), and the padded `n` are written with zeros.
//! - NCDHW `[N, C, D, H, W]` -> FRACTAL_Z_3D `[D * C1 * H * W, N1, N0, C0]` (A2A3 only):
//!   `dst(d * C1HW + c1 * HW + hw, n, c0) = src(n, c1 * C0 + c0, d, hw)`, zero where `n >= N`
//!   or `c1 * C0 + c0 >= C` (the code pads the channel plane and the `N` rows with zeros).
//!
//! Checked (typed errors naming TTRANS, the operand, the rule and the value): src and dst Vec
//! tiles with TTRANS's element types and one element type; each shape's rank for its format
//! and every dim at least 1; the form legal on the arch; the shape relations above (`N`, `G`,
//! `H`, `W` equal, `C1 = ceil(C / C0)`, `N1 = ceil(N / N0)`, `C0` and dim 0 matching); `C0 = b`
//! or 4 for NCHW <-> NC1HWC0 and GNCHW -> GNC1HWC0 (the page: "C0 * sizeof(T) == 32, C0 can also
//! be 4"), `C0 = b` for GNC1HWC0 -> GNCHW and FRACTAL_Z_3D (the page's C0 by element width; no
//! 4-bit type is a TTRANS type), `N0 = 16` for the FRACTAL_Z forms; `H * W * sizeof(T)` a
//! multiple of 32 for the forward NC1HWC0 forms (the page's HW alignment); every element read
//! or written inside its tile's bytes. The tmp operand on A2A3 (A5 never uses it): NCHW ->
//! NC1HWC0 and GNCHW -> GNC1HWC0 use it when `C0` and `HW` are multiples of `b` and `HW / b <=
//! 255`, needing `HW * ceil(C0 / R) * R * sizeof(T)` bytes (`R` = 32 for 1-byte types, 16
//! otherwise); the reverse forms when `HW` and `C0` are multiples of `b` and `C0 / b <= 255`,
//! needing `C0 * ceil(HW / R) * R * sizeof(T)`; NCDHW -> FRACTAL_Z_3D always, needing
//! `(P + max(P, HW * ceil(C0 / R) * R)) * sizeof(T)` with `P = N * C1 * C0 * HW`; the
//! FRACTAL_Z forms never. A used tmp must be a Vec tile of that size not overlapping src or dst. As for the
//! 2-D form, tmp's contents afterwards are scratch: npusim leaves them unchanged. The A2A3
//! debug check that src + dst + tmp fit the 192 KiB UB is implied by the tiles fitting the
//! Vec memory.

use super::{need_loc, same_type, vr_err};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::TileArch;

/// A ConvTile's format (pto-isa's `Layout` values for convolution tiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvFormat {
    /// `[N, C, H, W]`.
    Nchw,
    /// `[N, C1, H, W, C0]`.
    Nc1hwc0,
    /// `[G, N, C, H, W]`.
    Gnchw,
    /// `[G, N, C1, H, W, C0]`.
    Gnc1hwc0,
    /// `[C1 * H * W (times G), N1, N0, C0]`.
    FractalZ,
    /// `[N, C, D, H, W]`.
    Ncdhw,
    /// `[D * C1 * H * W, N1, N0, C0]`.
    FractalZ3d,
}

impl ConvFormat {
    /// The number of dims of the format.
    pub fn rank(self) -> usize {
        match self {
            ConvFormat::Nchw | ConvFormat::FractalZ | ConvFormat::FractalZ3d => 4,
            ConvFormat::Nc1hwc0 | ConvFormat::Gnchw | ConvFormat::Ncdhw => 5,
            ConvFormat::Gnc1hwc0 => 6,
        }
    }
    /// pto-isa's name.
    pub fn name(self) -> &'static str {
        match self {
            ConvFormat::Nchw => "NCHW",
            ConvFormat::Nc1hwc0 => "NC1HWC0",
            ConvFormat::Gnchw => "GNCHW",
            ConvFormat::Gnc1hwc0 => "GNC1HWC0",
            ConvFormat::FractalZ => "FRACTAL_Z",
            ConvFormat::Ncdhw => "NCDHW",
            ConvFormat::FractalZ3d => "FRACTAL_Z_3D",
        }
    }
}

/// A ConvTile's format and dims (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvShape {
    /// The format.
    pub format: ConvFormat,
    /// The dims (the first `len`).
    pub dims: [usize; 6],
    /// How many dims were given.
    pub len: usize,
}

impl ConvShape {
    /// A shape of `format` with `dims` (at most 6 are kept; the rank is checked by the op).
    pub fn new(format: ConvFormat, dims: &[usize]) -> ConvShape {
        let mut d = [1usize; 6];
        let len = dims.len().min(6);
        d[..len].copy_from_slice(&dims[..len]);
        ConvShape {
            format,
            dims: d,
            len: dims.len(),
        }
    }
    fn text(&self) -> String {
        let d: Vec<String> = self.dims[..self.len.min(6)]
            .iter()
            .map(|x| x.to_string())
            .collect();
        format!("{} [{}]", self.format.name(), d.join(", "))
    }
}

/// One element move of a conversion: dst element index from a source element index, or zero.
enum Src {
    At(usize),
    Zero,
}

fn shape_err(operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: OpCode::Ttrans.name(),
        operand,
        rule,
        value,
    }
}

impl TileCore {
    /// TTRANS on ConvTiles (see the module docs): `src` (with `src_shape`) converted into `dst`
    /// (with `dst_shape`); `tmp` follows the A2A3 tmp rules of the form.
    pub fn ttrans_conv(
        &mut self,
        dst: &Tile,
        dst_shape: ConvShape,
        src: &Tile,
        src_shape: ConvShape,
        tmp: &Tile,
    ) -> Result<(), PtoError> {
        use ConvFormat::*;
        let op = OpCode::Ttrans;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            op.check_type(arch, n, t.dtype())?;
            self.check_addr(t, op.name(), n)?;
        }
        self.check_addr(tmp, op.name(), "tmp")?;
        same_type(op, "dst", dst, "src", src)?;
        for (n, s) in [("src", &src_shape), ("dst", &dst_shape)] {
            if s.len != s.format.rank() {
                return Err(shape_err(
                    n,
                    "a ConvTile shape has the rank of its format",
                    format!("{} dims for {}", s.len, s.format.name()),
                ));
            }
            if s.dims[..s.len].contains(&0) {
                return Err(shape_err(
                    n,
                    "every ConvTile dim must be at least 1",
                    s.text(),
                ));
            }
        }
        let size = src.dtype().size();
        let b = 32 / size;
        let rs = if size == 1 { 32 } else { 16 };
        let (sf, df) = (src_shape.format, dst_shape.format);
        let form = format!("{} -> {}", sf.name(), df.name());
        let both = matches!(
            (sf, df),
            (Nchw, Nc1hwc0) | (Gnchw, Gnc1hwc0) | (Nc1hwc0, FractalZ) | (Gnc1hwc0, FractalZ)
        );
        let a2a3_only = matches!(
            (sf, df),
            (Nc1hwc0, Nchw) | (Gnc1hwc0, Gnchw) | (Ncdhw, FractalZ3d)
        );
        if !(both || (a2a3_only && arch == TileArch::A2A3)) {
            return Err(shape_err(
                "dst",
                if a2a3_only {
                    "a5 ConvTile transposes: NCHW->NC1HWC0, GNCHW->GNC1HWC0, NC1HWC0->FRACTAL_Z, GNC1HWC0->FRACTAL_Z"
                } else {
                    "ConvTile transposes: NCHW<->NC1HWC0, GNCHW<->GNC1HWC0, NC1HWC0->FRACTAL_Z, GNC1HWC0->FRACTAL_Z, NCDHW->FRACTAL_Z_3D"
                },
                form,
            ));
        }
        let (s, d) = (&src_shape.dims, &dst_shape.dims);
        let mismatch = |rule: &'static str| {
            shape_err(
                "dst",
                rule,
                format!("{} for {}", dst_shape.text(), src_shape.text()),
            )
        };
        let c0_rule = |c0: usize, four: bool| -> Result<(), PtoError> {
            if c0 == b || (four && c0 == 4) {
                Ok(())
            } else {
                Err(shape_err(
                    if matches!(sf, Nc1hwc0 | Gnc1hwc0) {
                        "src"
                    } else {
                        "dst"
                    },
                    if four {
                        "C0 must be 32 / sizeof(T) or 4"
                    } else {
                        "C0 must be 32 / sizeof(T)"
                    },
                    format!("C0 {c0} for {}-byte elements", size),
                ))
            }
        };
        let hw_rule = |h: usize, w: usize| -> Result<(), PtoError> {
            if (h * w * size).is_multiple_of(32) {
                Ok(())
            } else {
                Err(shape_err(
                    "src",
                    "H * W * sizeof(T) must be a multiple of 32 bytes",
                    format!("{h} * {w} * {size}"),
                ))
            }
        };
        // (G, N, C (logical), C1, C0, H, W, D, N1 * N0) and the element moves.
        let mut moves: Vec<(usize, Src)> = Vec::new();
        let src_read;
        let dst_len = dst_shape.dims[..dst_shape.len].iter().product::<usize>();
        // tmp: (used, bytes needed).
        let mut tmp_need: Option<usize> = None;
        match (sf, df) {
            (Nchw, Nc1hwc0) | (Gnchw, Gnc1hwc0) | (Nc1hwc0, Nchw) | (Gnc1hwc0, Gnchw) => {
                let fwd = matches!(sf, Nchw | Gnchw);
                let grouped = matches!(sf, Gnchw | Gnc1hwc0);
                // plain = the NCHW-side shape, boxed = the NC1HWC0-side shape.
                let (plain, boxed) = if fwd { (s, d) } else { (d, s) };
                let o = usize::from(grouped);
                let g = if grouped { plain[0] } else { 1 };
                let (n, c, h, w) = (plain[o], plain[o + 1], plain[o + 2], plain[o + 3]);
                let (c1, c0) = (boxed[o + 1], boxed[o + 4]);
                let same = (!grouped || boxed[0] == g)
                    && boxed[o] == n
                    && boxed[o + 2] == h
                    && boxed[o + 3] == w;
                if !same {
                    return Err(mismatch("N, H, W (and G) of the two shapes must be equal"));
                }
                c0_rule(c0, !grouped || fwd)?;
                if fwd {
                    if c1 != c.div_ceil(c0) {
                        return Err(mismatch("C1 must be ceil(C / C0)"));
                    }
                    hw_rule(h, w)?;
                } else if c != c1 * c0 {
                    return Err(mismatch("the NCHW side's C must be C1 * C0"));
                }
                let hw = h * w;
                let blocks = g * n * c1;
                for blk in 0..blocks {
                    let base = blk * c0 * hw;
                    for k in 0..c0 {
                        for j in 0..hw {
                            // NCHW side (k, j) <-> NC1HWC0 side (j, k) of the block.
                            let (pi, bi) = (base + k * hw + j, base + j * c0 + k);
                            if fwd {
                                moves.push((bi, Src::At(pi)));
                            } else {
                                moves.push((pi, Src::At(bi)));
                            }
                        }
                    }
                }
                src_read = blocks * c0 * hw;
                let (dst_stride, src_stride) = if fwd { (c0, hw) } else { (hw, c0) };
                if dst_stride.is_multiple_of(b)
                    && src_stride.is_multiple_of(b)
                    && src_stride / b <= 255
                {
                    tmp_need = Some(if fwd {
                        hw * c0.div_ceil(rs) * rs * size
                    } else {
                        c0 * hw.div_ceil(rs) * rs * size
                    });
                }
            }
            (Nc1hwc0, FractalZ) | (Gnc1hwc0, FractalZ) => {
                let grouped = sf == Gnc1hwc0;
                let o = usize::from(grouped);
                let g = if grouped { s[0] } else { 1 };
                let (n, c1, h, w, c0) = (s[o], s[o + 1], s[o + 2], s[o + 3], s[o + 4]);
                let (rows, n1, n0, dc0) = (d[0], d[1], d[2], d[3]);
                if n0 != 16 {
                    return Err(shape_err("dst", "N0 must be 16", n0.to_string()));
                }
                if rows != g * c1 * h * w || dc0 != c0 || n1 != n.div_ceil(n0) {
                    return Err(mismatch(
                        "FRACTAL_Z must be [G * C1 * H * W, ceil(N / N0), N0, C0] of the source",
                    ));
                }
                let c1hw = c1 * h * w;
                let np = n1 * n0;
                // the source's groups are strided by the padded N (NPU code)
                let gs = if grouped { np } else { n } * c1hw * c0;
                for gi in 0..g {
                    for i in 0..c1hw {
                        for nn in 0..np {
                            for k in 0..c0 {
                                let di = ((gi * c1hw + i) * np + nn) * c0 + k;
                                if nn < n {
                                    moves.push((di, Src::At(gi * gs + (nn * c1hw + i) * c0 + k)));
                                } else if grouped {
                                    moves.push((di, Src::Zero));
                                }
                            }
                        }
                    }
                }
                src_read = (g - 1) * gs + n * c1hw * c0;
            }
            (Ncdhw, FractalZ3d) => {
                let (n, c, dd, h, w) = (s[0], s[1], s[2], s[3], s[4]);
                let (rows, n1, n0, c0) = (d[0], d[1], d[2], d[3]);
                if n0 != 16 {
                    return Err(shape_err("dst", "N0 must be 16", n0.to_string()));
                }
                c0_rule(c0, false)?;
                let c1 = c.div_ceil(c0);
                if rows != dd * c1 * h * w || n1 != n.div_ceil(n0) {
                    return Err(mismatch(
                        "FRACTAL_Z_3D must be [D * ceil(C / C0) * H * W, ceil(N / N0), N0, C0] of the source",
                    ));
                }
                let hw = h * w;
                let np = n1 * n0;
                for di in 0..dd {
                    for ci in 0..c1 {
                        for j in 0..hw {
                            for nn in 0..np {
                                for k in 0..c0 {
                                    let row = (di * c1 + ci) * hw + j;
                                    let at = (row * np + nn) * c0 + k;
                                    let ch = ci * c0 + k;
                                    if nn < n && ch < c {
                                        moves.push((
                                            at,
                                            Src::At(((nn * c + ch) * dd + di) * hw + j),
                                        ));
                                    } else {
                                        moves.push((at, Src::Zero));
                                    }
                                }
                            }
                        }
                    }
                }
                src_read = n * c * dd * hw;
                let plane = n * c1 * c0 * hw;
                tmp_need = Some((plane + plane.max(hw * c0.div_ceil(rs) * rs)) * size);
            }
            _ => unreachable!("form checked above"),
        }
        for (n, t, elems) in [("src", src, src_read), ("dst", dst, dst_len)] {
            let need = (elems * size) as u64;
            if need > t.size_bytes() {
                return Err(vr_err(
                    op,
                    n,
                    "the ConvTile's elements (as the conversion reads or writes them) must lie inside its tile",
                    format!("{need} bytes in a {}-byte tile", t.size_bytes()),
                ));
            }
        }
        if arch == TileArch::A2A3
            && let Some(need) = tmp_need
        {
            need_loc(op, "tmp", tmp, TileLoc::Vec)?;
            if tmp.size_bytes() < need as u64 {
                return Err(vr_err(
                    op,
                    "tmp",
                    "tmp must hold the ConvTile form's tmpSize (TTRANS.md) when the a2a3 conversion goes through it",
                    format!("{} bytes for {need}", tmp.size_bytes()),
                ));
            }
            let (t0, t1) = (tmp.addr(), tmp.addr() + need as u64);
            for (n, t) in [("src", src), ("dst", dst)] {
                let (a0, a1) = (t.addr(), t.addr() + t.size_bytes());
                if t0 < a1 && a0 < t1 {
                    return Err(vr_err(
                        op,
                        "tmp",
                        "tmp must not overlap src or dst (the a2a3 conversion writes tmp before dst)",
                        format!("tmp [{t0:#x}, {t1:#x}) and {n} [{a0:#x}, {a1:#x})"),
                    ));
                }
            }
        }
        // Read the whole source first (dst may alias it), then write element by element.
        let sa = src.addr() as usize;
        let from = self.mem(TileLoc::Vec).as_slice()[sa..sa + src_read * size].to_vec();
        let da = dst.addr() as usize;
        let mem = self.mem_mut(TileLoc::Vec);
        for (to, what) in moves {
            let o = da + to * size;
            match what {
                Src::At(i) => mem[o..o + size].copy_from_slice(&from[i * size..(i + 1) * size]),
                Src::Zero => mem[o..o + size].fill(0),
            }
        }
        Ok(())
    }
}
