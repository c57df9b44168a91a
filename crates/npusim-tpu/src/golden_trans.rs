//! Replay of the `trans` golden cases (`golden/tpu/trans.json`, `scripts/gen_tpu_golden.py
//! --kind trans`): the GDMA matrix, compact and cw-transposing moves and the BDC cw/wc
//! transposes of [`crate::trans`].
//!
//! A case names the vendor function (`func`, without the `tpu_` prefix), its `dtype`, `shape`
//! (for a matrix move, `matrix` = `[rows, cols, cols_per_channel, row_stride]`), optional
//! `dst_stride`/`src_stride`, and one region per operand (`dst`, `src`: `local`, `addr`,
//! `channels`, `extent`): a local region is listed lane by lane over the lanes `channels`
//! channels from `addr`'s lane use, `extent` elements from the lane offset each; a system region
//! is `extent` elements from `addr` (a byte offset into global memory). `src_data` is the source
//! region before the call, `out` the destination region after it (pre-filled with
//! `out_fill_byte`).

use serde::Deserialize;

use crate::device::TpuCore;
use crate::golden::{FailureKind, both_refused, check_len, dtype_of, first_diff, refused};
use crate::golden_bdc::{esize_of, fill_region, get_region, put_region};
use crate::local::Dim4;

/// Largest region a case may list (elements per lane or system span).
const MAX_EXTENT: u64 = 1 << 24;

#[derive(Debug, Deserialize)]
pub(crate) struct Region {
    local: bool,
    addr: u64,
    channels: i32,
    extent: u64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct TransCase {
    func: String,
    dtype: String,
    shape: [i32; 4],
    #[serde(default)]
    matrix: Option<[i32; 4]>,
    #[serde(default)]
    dst_stride: Option<[i32; 4]>,
    #[serde(default)]
    src_stride: Option<[i32; 4]>,
    dst: Region,
    src: Region,
    src_data: Vec<u32>,
    out_fill_byte: u8,
    out: Vec<u32>,
    #[serde(default)]
    expect_error: bool,
}

impl TransCase {
    /// Global memory the case needs (bytes).
    pub(crate) fn gm_need(&self) -> u64 {
        [&self.dst, &self.src]
            .iter()
            .filter(|r| !r.local)
            .map(|r| {
                r.addr
                    .saturating_add(r.extent.min(MAX_EXTENT).saturating_mul(4))
                    .saturating_add(64)
            })
            .max()
            .unwrap_or(0)
            .max(1 << 20)
    }
}

fn laddr(a: u64) -> u32 {
    u32::try_from(a).unwrap_or(u32::MAX)
}

fn words_to_bytes(v: &[u32], esize: usize) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes().into_iter().take(esize))
        .collect()
}

/// Runs one `trans` case.
pub(crate) fn run_trans_case(core: &mut TpuCore, c: &TransCase) -> Result<(), FailureKind> {
    let dtype = dtype_of(&c.dtype)?;
    let es = esize_of(dtype)?;
    for r in [&c.dst, &c.src] {
        if r.extent > MAX_EXTENT {
            return Err(FailureKind::Malformed("region too large".into()));
        }
    }
    let gm = core.gm_base();
    if !c.expect_error {
        let s = &c.src;
        if s.local {
            put_region(core, laddr(s.addr), s.extent, es, s.channels, &c.src_data)?;
        } else {
            check_len("src_data", &c.src_data, s.extent as usize)?;
            core.write_bytes(gm + s.addr, &words_to_bytes(&c.src_data, es))
                .map_err(refused)?;
        }
        let d = &c.dst;
        if d.local {
            fill_region(
                core,
                laddr(d.addr),
                d.extent,
                es,
                d.channels,
                c.out_fill_byte,
            )?;
        } else {
            core.fill_bytes(gm + d.addr, d.extent as usize * es, c.out_fill_byte)
                .map_err(refused)?;
        }
    }
    let (d, s) = (&c.dst, &c.src);
    let sys = |r: &crate::golden_trans::Region| gm + r.addr;
    let shape = Dim4::new(c.shape[0], c.shape[1], c.shape[2], c.shape[3]);
    let st = |s: &Option<[i32; 4]>| s.map(|s| Dim4::new(s[0], s[1], s[2], s[3]));
    let (ds, ss) = (st(&c.dst_stride), st(&c.src_stride));
    let m = c.matrix.unwrap_or([0; 4]);
    let result = match c.func.as_str() {
        "gdma_matrix_S2L" => {
            core.tpu_gdma_matrix_S2L(laddr(d.addr), sys(s), m[0], m[1], m[2], m[3], dtype)
        }
        "gdma_matrix_L2S" => {
            core.tpu_gdma_matrix_L2S(sys(d), laddr(s.addr), m[0], m[1], m[2], m[3], dtype)
        }
        "gdma_compact_S2L" => core.tpu_gdma_compact_S2L(laddr(d.addr), sys(s), &shape, dtype),
        "gdma_compact_L2S" => core.tpu_gdma_compact_L2S(sys(d), laddr(s.addr), &shape, dtype),
        "gdma_cpy_cw_trans_S2L" => core.tpu_gdma_cpy_cw_trans_S2L(
            laddr(d.addr),
            sys(s),
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        "gdma_cpy_cw_trans_L2S" => core.tpu_gdma_cpy_cw_trans_L2S(
            sys(d),
            laddr(s.addr),
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        "gdma_cpy_cw_trans_L2L" => core.tpu_gdma_cpy_cw_trans_L2L(
            laddr(d.addr),
            laddr(s.addr),
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        "gdma_cpy_cw_trans_S2S" => {
            core.tpu_gdma_cpy_cw_trans_S2S(sys(d), sys(s), &shape, ds.as_ref(), ss.as_ref(), dtype)
        }
        "bdc_cw_trans" => core.tpu_bdc_cw_trans(laddr(d.addr), laddr(s.addr), &shape, dtype),
        "bdc_wc_trans" => core.tpu_bdc_wc_trans(laddr(d.addr), laddr(s.addr), &shape, dtype),
        other => {
            return Err(FailureKind::Malformed(format!(
                "unknown trans function {other:?}"
            )));
        }
    };
    if both_refused(result, c.expect_error)? {
        return Ok(());
    }
    let got = if d.local {
        get_region(core, laddr(d.addr), d.extent, es, d.channels)?
    } else {
        core.read_bytes(gm + d.addr, d.extent as usize * es)
            .map_err(refused)?
            .chunks_exact(es)
            .map(|ch| {
                let mut a = [0u8; 4];
                a[..es].copy_from_slice(ch);
                u32::from_le_bytes(a)
            })
            .collect()
    };
    first_diff("out", &c.out, &got)
}
