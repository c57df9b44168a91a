//! TIMG2COL: the image-to-column gather of a convolution's feature map into the cube's Left
//! tile (pto-isa `docs/isa/TIMG2COL.md`, canonical page
//! `docs/isa/tile/ops/layout-and-rearrangement/timg2col.md`).
//!
//! The page defers the mapping to the implementations (`include/pto/npu/*/TImg2col.hpp` and
//! the CPU simulator's `TImg2col.hpp`); npusim takes from them:
//!
//! - `src` is a Mat tile holding a feature map in NC1HWC0 order (NDC1HWC0 with `d > 1`):
//!   element `(n, d, c1, h, w, c0)` at flat position
//!   `((((n·D + d)·C1 + c1)·H + h)·W + w)·C0 + c0` from the tile's address. Its shape and the
//!   convolution's parameters (strides, dilations, filter, the pad list `[left, right, top,
//!   bottom]`, the pad value) are the [`Img2colConfig`], which pto-isa carries in the
//!   `ConvTileData` (its `FMATRIX_A_AUTO` mode programs the FMATRIX, repeat and padding
//!   registers from it; the manual mode's SETFMATRIX / SET_IMG2COL_RPT / SET_IMG2COL_PADDING
//!   program the same registers from the same config, so a functional model passes the config
//!   with the instruction).
//! - `dst` (a Left tile of the same element type) row `r` is output position `m = posM + r`
//!   (`m = (n·D + d)·outH·outW + oh·outW + ow`), column `c` is `k = posK + c` with
//!   `c1 = k / (C0·FH·FW)`, kernel position `(k mod (C0·FH·FW)) / C0` split into `(kh, kw)`
//!   row-major, and `c0 = k mod C0`. The element is the feature map's
//!   `(n, d, c1, oh·strideH + kh·dilationH − top, ow·strideW + kw·dilationW − left, c0)`, or
//!   the pad value where that lies outside the map (or `n`, `c1` outside theirs)
//!   ([`img2col_source`]). `outH = (H + top + bottom − dilationH·(FH − 1) − 1) / strideH + 1`,
//!   `outW` likewise.
//! - The FMATRIX mode ([`FmatrixMode`], pto-isa's `SetFmatrixMode`): in an auto mode (what
//!   [`TileCore::timg2col`] and `Args::Img2col` run: `FMATRIX_A_AUTO`) the instruction takes
//!   the whole config from its operand and programs the FMATRIX (A or B), repeat and padding
//!   registers from it, as the headers' auto path does. In a manual mode
//!   ([`TileCore::timg2col_mode`], `Args::Img2colMode`) it reads the feature map's H, W and the
//!   pad list from the FMATRIX register SETFMATRIX set (unset: a typed error), the pad value
//!   from the SET_IMG2COL_PADDING register (unset: 0) and the repeat from SET_IMG2COL_RPT
//!   (unset: one pass); N, D, C1, C0, strides, dilations and the filter still come from its
//!   operand (the instruction's own fields in the headers' `img2colv2` call). A repeat time of
//!   0 makes the instruction a no-op (Ascend C `SetLoadDataRepeat`); a repeat time above 1 or
//!   a non-zero A5 dst M position is a typed unsupported error (the pages do not define how
//!   the passes advance). See [`crate::ops::config`] for the register encodings.
//! - Restrictions (the implementations' static checks): `src` in Mat, `dst` in Left with the
//!   arch's layout (A2A3 boxed Zz: row-major blocks of row-major boxes; A5 Nz), equal element
//!   types from the arch's list; strides, dilations and filter sizes at least 1, a window that
//!   fits the padded map (`outH, outW >= 1`), and the feature map inside `src`.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{BLayout, SLayout, Tile, TileLoc};
use npusim_core::TileArch;

use super::config::{
    FmatrixMode, Img2colRepeat, fmatrix_fields, fmatrix_word, img2col_padding_word,
    img2col_rpt_word, padding_bits,
};
use super::{need_loc, need_type};

/// A convolution's feature-map shape and window parameters (pto-isa's `ConvTileData` /
/// `Img2colTileConfig` fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Img2colConfig {
    /// Feature map `[N, D, C1, H, W, C0]` (`D = 1` for NC1HWC0).
    pub fmap: [usize; 6],
    /// `(strideH, strideW)`.
    pub stride: (usize, usize),
    /// `(dilationH, dilationW)`.
    pub dilation: (usize, usize),
    /// `(FH, FW)`.
    pub filter: (usize, usize),
    /// `[left, right, top, bottom]`.
    pub pad: [usize; 4],
    /// The pad value's bits in the element type.
    pub pad_value: u64,
}

impl Img2colConfig {
    /// `(outH, outW)`, or `None` when the dilated filter does not fit the padded map.
    pub fn out_hw(&self) -> Option<(usize, usize)> {
        let [_, _, _, h, w, _] = self.fmap;
        let [left, right, top, bottom] = self.pad;
        let span = |d: usize, f: usize| d.checked_mul(f.checked_sub(1)?)?.checked_add(1);
        let oh = (h + top + bottom).checked_sub(span(self.dilation.0, self.filter.0)?)?;
        let ow = (w + left + right).checked_sub(span(self.dilation.1, self.filter.1)?)?;
        Some((oh / self.stride.0 + 1, ow / self.stride.1 + 1))
    }
}

/// The pure meaning of one Left element: the flat feature-map element that output row `m`,
/// column `k` reads, or `None` for the pad value. `cfg` must have passed the checks
/// (non-zero strides, dilations, filter, `C0`; a window that fits).
pub fn img2col_source(cfg: &Img2colConfig, m: usize, k: usize) -> Option<usize> {
    let [n_sz, d_sz, c1_sz, h_sz, w_sz, c0_sz] = cfg.fmap;
    let (oh_sz, ow_sz) = cfg.out_hw()?;
    let (fh, fw) = cfg.filter;
    let per_batch = d_sz * oh_sz * ow_sz;
    let (n, rest) = (m / per_batch, m % per_batch);
    let (d, rest) = (rest / (oh_sz * ow_sz), rest % (oh_sz * ow_sz));
    let (oh, ow) = (rest / ow_sz, rest % ow_sz);
    let kc = c0_sz * fh * fw;
    let (c1, c0) = (k / kc, k % c0_sz);
    let kpos = (k % kc) / c0_sz;
    let (kh, kw) = (kpos / fw, kpos % fw);
    if n >= n_sz || c1 >= c1_sz {
        return None;
    }
    let ih = (oh * cfg.stride.0 + kh * cfg.dilation.0).checked_sub(cfg.pad[2])?;
    let iw = (ow * cfg.stride.1 + kw * cfg.dilation.1).checked_sub(cfg.pad[0])?;
    if ih >= h_sz || iw >= w_sz {
        return None;
    }
    Some(((((n * d_sz + d) * c1_sz + c1) * h_sz + ih) * w_sz + iw) * c0_sz + c0)
}

fn cfg_err(rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: OpCode::Timg2col.name(),
        operand: "src",
        rule,
        value,
    }
}

impl TileCore {
    /// TIMG2COL (`dst, src, posM, posK` with the convolution config) in the auto FMATRIX A
    /// mode: see the module docs.
    pub fn timg2col(
        &mut self,
        dst: &Tile,
        src: &Tile,
        cfg: &Img2colConfig,
        pos_m: u16,
        pos_k: u16,
    ) -> Result<(), PtoError> {
        self.timg2col_mode(dst, src, cfg, pos_m, pos_k, FmatrixMode::AAuto)
    }

    /// TIMG2COL in FMATRIX mode `mode`: an auto mode programs the registers from `cfg`, a
    /// manual mode reads H, W, the pads, the pad value and the repeat from them (module docs).
    pub fn timg2col_mode(
        &mut self,
        dst: &Tile,
        src: &Tile,
        cfg: &Img2colConfig,
        pos_m: u16,
        pos_k: u16,
        mode: FmatrixMode,
    ) -> Result<(), PtoError> {
        let op = OpCode::Timg2col;
        let arch = self.arch();
        let (slot, shared) = (mode.slot(), mode.shared_slot(arch));
        let (cfg, rpt) = if mode.is_manual() {
            let state = self.config;
            let Some(word) = state.fmatrix[slot] else {
                return Err(cfg_err(
                    "a manual-mode TIMG2COL needs SETFMATRIX of its FMATRIX register first",
                    format!("{mode:?}: register unset"),
                ));
            };
            let (h, w, pad) = fmatrix_fields(word);
            let mut c = *cfg;
            c.fmap[3] = h;
            c.fmap[4] = w;
            c.pad = pad;
            c.pad_value = padding_bits(state.img2col_padding[shared].unwrap_or(0), src.dtype());
            let rpt = state.img2col_rpt[shared]
                .map_or_else(Img2colRepeat::default, Img2colRepeat::from_word);
            (c, rpt)
        } else {
            (*cfg, Img2colRepeat::default())
        };
        let cfg = &cfg;
        need_loc(op, "src", src, TileLoc::Mat)?;
        need_loc(op, "dst", dst, TileLoc::Left)?;
        self.check_addr(src, op.name(), "src")?;
        self.check_addr(dst, op.name(), "dst")?;
        let (b, s) = (dst.desc().blayout, dst.desc().slayout);
        let ok = match arch {
            TileArch::A2A3 => b == BLayout::RowMajor && s == SLayout::RowMajor,
            TileArch::A5 => b == BLayout::ColMajor && s == SLayout::RowMajor,
        };
        if !ok {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: match arch {
                    TileArch::A2A3 => {
                        "the a2a3 Left destination must be Zz (blayout row_major, slayout row_major)"
                    }
                    TileArch::A5 => {
                        "the a5 Left destination must be Nz (blayout col_major, slayout row_major)"
                    }
                },
                value: format!("{b:?}/{s:?}"),
            });
        }
        let legal = op.legal(arch);
        need_type(op, arch, "src", src, legal)?;
        need_type(op, arch, "dst", dst, &[src.dtype()])?;
        let pos = |x: usize| x.max(1);
        if cfg.stride != (pos(cfg.stride.0), pos(cfg.stride.1))
            || cfg.dilation != (pos(cfg.dilation.0), pos(cfg.dilation.1))
            || cfg.filter != (pos(cfg.filter.0), pos(cfg.filter.1))
            || cfg.fmap.contains(&0)
        {
            return Err(cfg_err(
                "strides, dilations, filter sizes and feature-map dimensions must be at least 1",
                format!(
                    "stride {:?}, dilation {:?}, filter {:?}, fmap {:?}",
                    cfg.stride, cfg.dilation, cfg.filter, cfg.fmap
                ),
            ));
        }
        if cfg.out_hw().is_none() {
            return Err(cfg_err(
                "the dilated filter must fit the padded feature map",
                format!(
                    "fmap {:?}, pad {:?}, filter {:?}",
                    cfg.fmap, cfg.pad, cfg.filter
                ),
            ));
        }
        let size = src.dtype().size();
        let elems = cfg.fmap.iter().try_fold(1usize, |a, x| a.checked_mul(*x));
        let need = elems.and_then(|e| e.checked_mul(size)).map(|b| b as u64);
        if need.is_none_or(|b| b > src.size_bytes()) {
            return Err(cfg_err(
                "the feature map must lie inside the src tile",
                format!("fmap {:?} in {} bytes", cfg.fmap, src.size_bytes()),
            ));
        }
        if rpt.time > 1 || rpt.dst_mposition != 0 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: format!(
                    "an IMG2COL repeat of {} passes / dst M position {} (the pages do not define \
                     how repeated passes advance; only one pass or none is modelled)",
                    rpt.time, rpt.dst_mposition
                ),
                arch: crate::table::arch_name(arch),
            });
        }
        if !mode.is_manual() {
            // The auto path programs the registers from the config (checking their fields).
            let fm = fmatrix_word(op, cfg.fmap[3], cfg.fmap[4], cfg.pad)?;
            let rw = img2col_rpt_word(op, arch, &rpt)?;
            let pw = img2col_padding_word(op, arch, src.dtype(), cfg.pad_value)?;
            self.config.fmatrix[slot] = Some(fm);
            self.config.img2col_rpt[shared] = Some(rw);
            self.config.img2col_padding[shared] = Some(pw);
        }
        if rpt.time == 0 {
            return Ok(());
        }
        let mem_err = |operand| {
            move |e| PtoError::Memory {
                op: op.name(),
                operand,
                source: e,
            }
        };
        let map = self
            .mem(TileLoc::Mat)
            .bytes(src.addr(), need.unwrap_or(0))
            .map_err(mem_err("src"))?
            .to_vec();
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let bits = match img2col_source(cfg, pos_m as usize + r, pos_k as usize + c) {
                    Some(i) => {
                        let mut v = [0u8; 8];
                        v[..size].copy_from_slice(&map[i * size..(i + 1) * size]);
                        u64::from_le_bytes(v)
                    }
                    None => cfg.pad_value,
                };
                self.set_bits(dst, r, c, bits).map_err(mem_err("dst"))?;
            }
        }
        Ok(())
    }
}
