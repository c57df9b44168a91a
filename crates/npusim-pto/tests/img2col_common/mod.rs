//! The plain im2col model shared by `img2col.rs` and `img2col_fmatrix.rs`: the matrix a
//! convolution author builds, written as nested loops (one row per output position
//! `(n, d, oh, ow)`, one column per `(c1, kh, kw, c0)`), and the Left tile layout per arch.

use npusim_pto::ops::img2col::Img2colConfig;
use npusim_pto::*;

pub fn left(arch: &str, t: ElemType, rows: usize, cols: usize) -> TileDesc {
    let b = if arch == "a5" {
        BLayout::ColMajor
    } else {
        BLayout::RowMajor
    };
    TileDesc::new(TileLoc::Left, t, rows, cols).layout(b, SLayout::RowMajor)
}

/// The im2col matrix as nested loops; `None` = padding.
pub fn model(cfg: &Img2colConfig) -> Vec<Vec<Option<usize>>> {
    let [n_sz, d_sz, c1_sz, h, w, c0_sz] = cfg.fmap;
    let [left, right, top, bottom] = cfg.pad;
    let (fh, fw) = cfg.filter;
    let oh_sz = (h + top + bottom - cfg.dilation.0 * (fh - 1) - 1) / cfg.stride.0 + 1;
    let ow_sz = (w + left + right - cfg.dilation.1 * (fw - 1) - 1) / cfg.stride.1 + 1;
    let mut rows = vec![];
    for n in 0..n_sz {
        for d in 0..d_sz {
            for oh in 0..oh_sz {
                for ow in 0..ow_sz {
                    let mut row = vec![];
                    for c1 in 0..c1_sz {
                        for kh in 0..fh {
                            for kw in 0..fw {
                                for c0 in 0..c0_sz {
                                    let ih = (oh * cfg.stride.0 + kh * cfg.dilation.0) as i64
                                        - top as i64;
                                    let iw = (ow * cfg.stride.1 + kw * cfg.dilation.1) as i64
                                        - left as i64;
                                    let inside = ih >= 0
                                        && iw >= 0
                                        && (ih as usize) < h
                                        && (iw as usize) < w;
                                    row.push(inside.then(|| {
                                        let idx = [n, d, c1, ih as usize, iw as usize, c0];
                                        let dims = [n_sz, d_sz, c1_sz, h, w, c0_sz];
                                        idx.iter().zip(dims).fold(0, |a, (i, s)| a * s + i)
                                    }));
                                }
                            }
                        }
                    }
                    rows.push(row);
                }
            }
        }
    }
    rows
}
