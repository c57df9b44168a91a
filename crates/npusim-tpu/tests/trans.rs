//! Issue #16, the layout-changing moves of `npusim_tpu::trans` (GDMA matrix, compact and
//! cw-transposing copies, BDC cw/wc transposes):
//!
//! * acceptance (2): property tests of their layout arithmetic against a plain model written
//!   here (lane `(start + c) % 64`, slot `(start + c) / 64`, strides spelled out per layout), which
//!   also checks that no other byte of local or system memory changes;
//! * one test per restriction, with the exact error variant and fields, and that a refused call
//!   writes nothing.
//!
//! Bit-exactness against the C-model is in tests/golden.rs (golden/tpu/trans.json).

use npusim_tpu::{DataType, Dim4, HostSimd, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

const LMEM: u32 = 1 << 18;
const NPU: usize = 64;
const GM: u64 = 1 << 20;

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, GM).unwrap()
}

/// Cases per property: 64, or `NPUSIM_PROPTEST_CASES` for a deeper local run.
fn cases() -> u32 {
    std::env::var("NPUSIM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn dtype_of(esize: usize) -> DataType {
    match esize {
        1 => DataType::Int8,
        2 => DataType::Fp16,
        _ => DataType::Fp32,
    }
}

fn align(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

/// Plain model of a local tensor: byte index in the flat local store of own element
/// `(n, c, h, w)`.
#[derive(Clone, Copy, Debug)]
struct LocalT {
    start: usize,
    offset: usize,
    stride: [usize; 4],
    es: usize,
}

impl LocalT {
    fn at(&self, n: usize, c: usize, h: usize, w: usize) -> usize {
        let lane = (self.start + c) % NPU;
        let slot = (self.start + c) / NPU;
        // Lanes lie `store_pitch` apart in the flat local store.
        lane * TpuChip::Bm1684x.local().store_pitch() as usize
            + self.offset
            + (n * self.stride[0] + slot * self.stride[1] + h * self.stride[2] + w * self.stride[3])
                * self.es
    }
}

/// Aligned strides of `(n, c, h, w)` from lane `start`: `cs = ALIGN(H*W, 64 / es)`.
fn aligned(start: usize, [_, c, h, w]: [usize; 4], es: usize) -> [usize; 4] {
    let cs = align(h * w, 64 / es);
    [cs * (start + c).div_ceil(NPU), cs, w, 1]
}

fn line_aligned(start: usize, [_, c, h, w]: [usize; 4], es: usize) -> [usize; 4] {
    let hs = align(w, 64 / es);
    [h * hs * (start + c).div_ceil(NPU), h * hs, hs, 1]
}

fn compact(start: usize, [_, c, h, w]: [usize; 4]) -> [usize; 4] {
    [h * w * (start + c).div_ceil(NPU), h * w, w, 1]
}

fn continuous([_, c, h, w]: [usize; 4]) -> [usize; 4] {
    [c * h * w, h * w, w, 1]
}

/// A byte index: `(in local memory, index)` (else an offset into global memory).
type Place = (bool, usize);

/// Runs `call` and checks, against snapshots, that every `(dst byte index, src byte index)`
/// pair moved `es` bytes and no other byte of local memory (`local`) or global memory changed.
/// Indices are into the local store, or into global memory offsets when the flag is false.
fn check_moves(
    core: &mut TpuCore,
    es: usize,
    pairs: &[(Place, Place)],
    call: impl FnOnce(&mut TpuCore) -> Result<(), TpuError>,
) {
    let base = core.gm_base();
    let lm0 = core.local_store().to_vec();
    let gm0 = core.read_bytes(base, GM as usize).unwrap();
    call(core).unwrap();
    let mut lm1 = lm0.clone();
    let mut gm1 = gm0.clone();
    for &((dl, d), (sl, s)) in pairs {
        let src: &[u8] = if sl { &lm0[s..s + es] } else { &gm0[s..s + es] };
        let dst: &mut [u8] = if dl {
            &mut lm1[d..d + es]
        } else {
            &mut gm1[d..d + es]
        };
        dst.copy_from_slice(src);
    }
    assert!(
        core.local_store() == lm1.as_slice(),
        "local memory differs from the model"
    );
    assert!(
        core.read_bytes(base, GM as usize).unwrap() == gm1,
        "global memory differs from the model"
    );
}

/// Fills local and global memory with a byte pattern derived from `seed`.
fn scribble(core: &mut TpuCore, seed: u64) {
    let mut x = seed | 1;
    let mut bytes = |len: usize| -> Vec<u8> {
        (0..len / 8)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect()
    };
    let lm = bytes(core.chip().local().store_size() as usize);
    core.local_store_mut().copy_from_slice(&lm);
    let gm = bytes(GM as usize);
    let base = core.gm_base();
    core.write_bytes(base, &gm).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Matrix S2L/L2S: row `r`, column `j` <-> local `(r, j / cpc, 0, j % cpc)` of the aligned
    /// `(rows, ceil(cols / cpc), 1, cpc)` tensor; system `r * row_stride + j`.
    #[test]
    fn matrix_moves_equal_plain_model(
        es in prop::sample::select(vec![1usize, 2, 4]),
        rows in 1usize..5,
        cols in 1usize..150,
        cpc_pick in 0usize..4,
        extra in 0usize..5,
        start in 0usize..64,
        off in 0usize..64,
        to_local in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let cpc = [1, 3, cols, cols + 5][cpc_pick];
        let rs = cols + extra;
        let ch = cols.div_ceil(cpc);
        let cs = align(cpc, 64 / es);
        let lt = LocalT {
            start,
            offset: off * es,
            stride: [cs * (start + ch).div_ceil(NPU), cs, cpc, 1],
            es,
        };
        let sys_off = 0x100 * es;
        let mut pairs = Vec::new();
        for r in 0..rows {
            for j in 0..cols {
                let l = (true, lt.at(r, j / cpc, 0, j % cpc));
                let s = (false, sys_off + (r * rs + j) * es);
                pairs.push(if to_local { (l, s) } else { (s, l) });
            }
        }
        let mut c = core();
        scribble(&mut c, seed);
        let la = (start as u32) * LMEM + (off * es) as u32;
        let ga = c.gm_base() + sys_off as u64;
        let (r, cl, cp, rsi) = (rows as i32, cols as i32, cpc as i32, rs as i32);
        check_moves(&mut c, es, &pairs, |c| {
            if to_local {
                c.tpu_gdma_matrix_S2L(la, ga, r, cl, cp, rsi, dtype_of(es))
            } else {
                c.tpu_gdma_matrix_L2S(ga, la, r, cl, cp, rsi, dtype_of(es))
            }
        });
    }

    /// Compact S2L/L2S: local `cs = H*W`, `ns = cs * ceil((start + C) / 64)`; system NCHW.
    #[test]
    fn compact_moves_equal_plain_model(
        es in prop::sample::select(vec![1usize, 2, 4]),
        shape in (1usize..3, 1usize..140, 1usize..4, 1usize..9),
        start in 0usize..64,
        off in 0usize..64,
        to_local in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let sh = [shape.0, shape.1, shape.2, shape.3];
        let lt = LocalT { start, offset: off * es, stride: compact(start, sh), es };
        let cont = continuous(sh);
        let mut pairs = Vec::new();
        for n in 0..sh[0] {
            for ci in 0..sh[1] {
                for h in 0..sh[2] {
                    for w in 0..sh[3] {
                        let l = (true, lt.at(n, ci, h, w));
                        let s = (false, (n * cont[0] + ci * cont[1] + h * cont[2] + w) * es);
                        pairs.push(if to_local { (l, s) } else { (s, l) });
                    }
                }
            }
        }
        let mut c = core();
        scribble(&mut c, seed);
        let la = (start as u32) * LMEM + (off * es) as u32;
        let ga = c.gm_base();
        let d = Dim4::new(sh[0] as i32, sh[1] as i32, sh[2] as i32, sh[3] as i32);
        check_moves(&mut c, es, &pairs, |c| {
            if to_local {
                c.tpu_gdma_compact_S2L(la, ga, &d, dtype_of(es))
            } else {
                c.tpu_gdma_compact_L2S(ga, la, &d, dtype_of(es))
            }
        });
    }

    /// GDMA cw transposes, every direction, NULL or explicit (w == 1, padded) strides:
    /// `dst(n, c, h, w) = src(n, w, h, c)`.
    #[test]
    fn gdma_cw_trans_equal_plain_model(
        es in prop::sample::select(vec![1usize, 2, 4]),
        // Half the time the small path's shapes: channels within one pass of the lanes.
        shape in prop_oneof![
            (1usize..3, 1usize..80, 1usize..4, 1usize..80),
            (1usize..3, 1usize..17, 1usize..3, 1usize..33),
        ],
        dir in 0usize..4,
        starts in (prop_oneof![0usize..64, 0usize..8], prop_oneof![0usize..64, 0usize..8]),
        pads in (0usize..3, 0usize..3, 0usize..3),
        explicit in prop::sample::select(vec![(false, false), (false, false), (true, false),
            (false, true), (true, true)]),
        // Destination placed to meet the source (L2L: same lane offsets; S2S: overlapping
        // bytes) a quarter of the time: the whole source is read first.
        meet in prop::sample::select(vec![None, None, None, Some(0usize), Some(64), Some(0x400)]),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx512, HostSimd::Baseline]),
        seed in any::<u64>(),
    ) {
        let [n, ch, h, w] = [shape.0, shape.1, shape.2, shape.3];
        let (d_local, s_local) = [(true, false), (false, true), (true, true), (false, false)][dir];
        let dsh = [n, ch, h, w];
        let ssh = [n, w, h, ch];
        // Explicit strides: padded versions of the default layout (w stride 1).
        let pad = |s: [usize; 4], own: [usize; 4]| -> [usize; 4] {
            let hs = s[2] + pads.0;
            let cs = own[2] * hs + pads.1;
            let slots = s[0] / s[1].max(1);
            [cs * slots.max(1) + pads.2, cs, hs, 1]
        };
        let side = |local: bool, start: usize, own: [usize; 4], layout: [usize; 4], exp: bool,
                    sys_off: usize| {
            let st = if exp { pad(layout, own) } else { layout };
            (local, LocalT { start, offset: if local { 0x100 } else { sys_off }, stride: st, es }, exp)
        };
        let dl = if d_local { aligned(starts.0, dsh, es) } else { continuous(dsh) };
        let sl = if s_local { aligned(starts.1, ssh, es) } else { continuous(ssh) };
        let (dloc, dt, dexp) = side(d_local, starts.0, dsh, dl, explicit.0, 0x80000);
        let (sloc, st, sexp) = side(s_local, starts.1, ssh, sl, explicit.1, 0x40);
        // L2L keeps the two tensors apart in each lane unless `meet` puts the destination
        // `meet` bytes past the source; S2S puts it there too.
        let dt = match (d_local, s_local, meet) {
            (true, true, None) => LocalT { offset: 0x20000, ..dt },
            (true, true, Some(m)) | (false, false, Some(m)) => LocalT { offset: st.offset + m, ..dt },
            _ => dt,
        };
        let sys_at = |t: &LocalT, i: [usize; 4]| {
            t.offset + (i[0] * t.stride[0] + i[1] * t.stride[1] + i[2] * t.stride[2] + i[3]) * es
        };
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in 0..ch {
                for y in 0..h {
                    for x in 0..w {
                        let d = if dloc { dt.at(a, b, y, x) } else { sys_at(&dt, [a, b, y, x]) };
                        let s = if sloc { st.at(a, x, y, b) } else { sys_at(&st, [a, x, y, b]) };
                        pairs.push(((dloc, d), (sloc, s)));
                    }
                }
            }
        }
        let mut c = core();
        c.set_host_simd(simd);
        scribble(&mut c, seed);
        let gm = c.gm_base();
        let addr = |local: bool, t: &LocalT| -> u64 {
            if local { u64::from(t.start as u32 * LMEM) + t.offset as u64 } else { gm + t.offset as u64 }
        };
        let (da, sa) = (addr(dloc, &dt), addr(sloc, &st));
        let dim = |s: [usize; 4]| Dim4::new(s[0] as i32, s[1] as i32, s[2] as i32, s[3] as i32);
        let dshape = dim(dsh);
        let ds = dexp.then(|| dim(dt.stride));
        let ss = sexp.then(|| dim(st.stride));
        let dtype = dtype_of(es);
        check_moves(&mut c, es, &pairs, |c| match dir {
            0 => c.tpu_gdma_cpy_cw_trans_S2L(da as u32, sa, &dshape, ds.as_ref(), ss.as_ref(), dtype),
            1 => c.tpu_gdma_cpy_cw_trans_L2S(da, sa as u32, &dshape, ds.as_ref(), ss.as_ref(), dtype),
            2 => c.tpu_gdma_cpy_cw_trans_L2L(da as u32, sa as u32, &dshape, ds.as_ref(), ss.as_ref(), dtype),
            _ => c.tpu_gdma_cpy_cw_trans_S2S(da, sa, &dshape, ds.as_ref(), ss.as_ref(), dtype),
        });
    }

    /// BDC cw transpose (source aligned on NPU 0, destination line-aligned anywhere) and wc
    /// transpose (destination aligned on NPU 0, source aligned anywhere).
    #[test]
    fn bdc_trans_equal_plain_model(
        es in prop::sample::select(vec![1usize, 2, 4]),
        // Half the time the small path's shapes: channels within one pass of the lanes.
        shape in prop_oneof![
            (1usize..3, 1usize..80, 1usize..3, 1usize..80),
            (1usize..3, 1usize..17, 1usize..3, 1usize..33),
        ],
        cw in any::<bool>(),
        other in prop_oneof![0usize..64, 0usize..8],
        // The destination's offset: apart from the source, or meeting it (on the lanes both
        // use) a third of the time.
        doff in prop::sample::select(vec![0x20000usize, 0x20000, 0x80, 0xc0]),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx512, HostSimd::Baseline]),
        seed in any::<u64>(),
    ) {
        let [n, ch, h, w] = [shape.0, shape.1, shape.2, shape.3];
        let dsh = [n, ch, h, w];
        let ssh = [n, w, h, ch];
        let (dstart, sstart) = if cw { (other, 0) } else { (0, other) };
        let dstride = if cw { line_aligned(dstart, dsh, es) } else { aligned(dstart, dsh, es) };
        let dt = LocalT { start: dstart, offset: doff, stride: dstride, es };
        let st = LocalT { start: sstart, offset: 0x40, stride: aligned(sstart, ssh, es), es };
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in 0..ch {
                for y in 0..h {
                    for x in 0..w {
                        pairs.push(((true, dt.at(a, b, y, x)), (true, st.at(a, x, y, b))));
                    }
                }
            }
        }
        let mut c = core();
        c.set_host_simd(simd);
        scribble(&mut c, seed);
        let da = dstart as u32 * LMEM + doff as u32;
        let sa = sstart as u32 * LMEM + 0x40;
        let d = Dim4::new(n as i32, ch as i32, h as i32, w as i32);
        check_moves(&mut c, es, &pairs, |c| {
            if cw {
                c.tpu_bdc_cw_trans(da, sa, &d, dtype_of(es))
            } else {
                c.tpu_bdc_wc_trans(da, sa, &d, dtype_of(es))
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() * 4))]

    /// Twin of the cw transposes' small path (`npusim_tpu::trans`, taken from
    /// `HostSimd::Avx2` up): every call, valid or not (misaligned, out of local memory, past
    /// the lanes, operands meeting, dtypes with no EU count or no byte size), gives the same
    /// result and leaves the same local and global memory at the host's level as at
    /// `HostSimd::Baseline` (the checked path and its general mover). Shapes, lanes and offsets are drawn so that the small path takes
    /// most calls.
    #[test]
    fn cw_small_calls_equal_general_path(
        op in 0usize..6,
        dt in prop::sample::select(vec![DataType::Fp32, DataType::Fp32, DataType::Fp16,
            DataType::Int8, DataType::Bfp16, DataType::Uint16, DataType::Int32, DataType::Uint8,
            DataType::Fp8E4M3, DataType::Fp20, DataType::Int4]),
        shape in prop_oneof![
            4 => (1i32..3, 1i32..17, 1i32..3, 1i32..33),
            1 => (1i32..3, 1i32..70, 1i32..4, 1i32..70),
            1 => (1i32..2, 1i32..4, 1i32..2, 1i32..4),
        ],
        lanes in (prop_oneof![0u32..64, 0u32..4], prop_oneof![0u32..64, 0u32..4]),
        lane0 in (any::<bool>(), any::<bool>()),
        offs in (0u32..64, 0u32..64),
        skew in prop::array::uniform2(prop::sample::select(vec![0u32, 0, 0, 0, 0, 0, 1, 2, 4,
            0x3_ff00])),
        meet in prop::sample::select(vec![None, None, None, Some(0u32), Some(4), Some(64),
            Some(0x100)]),
        gm_end in prop::sample::select(vec![false, false, false, false, true]),
        seed in any::<u64>(),
    ) {
        let shape = Dim4::new(shape.0, shape.1, shape.2, shape.3);
        let mut fast = core();
        scribble(&mut fast, seed);
        let mut twin = fast.clone();
        // The host's level (capped at the detected one): the small path on an x86-64 host.
        fast.set_host_simd(HostSimd::Avx512);
        twin.set_host_simd(HostSimd::Baseline);
        let g = fast.gm_base();
        let lane = |i: usize| {
            let (l, z) = if i == 0 { (lanes.0, lane0.0) } else { (lanes.1, lane0.1) };
            if z { 0 } else { l }
        };
        let local = |i: usize| (lane(i) << 18) + [offs.0, offs.1][i] * 64 + skew[i];
        // A system address 64-byte steps into global memory, or near its end.
        let sys = |i: usize| {
            let at = if gm_end && i == 1 { GM - 256 } else { u64::from([offs.0, offs.1][i]) * 64 };
            g + at + u64::from(skew[i] & 0xff)
        };
        let (mut ld, ls) = (local(0), local(1));
        let (mut sd, ss) = (sys(0) + 0x8_0000, sys(1));
        if let Some(m) = meet {
            ld = ls.wrapping_add(m);
            sd = ss + u64::from(m);
        }
        let run = |c: &mut TpuCore| match op {
            0 => c.tpu_gdma_cpy_cw_trans_S2L(ld, ss, &shape, None, None, dt),
            1 => c.tpu_gdma_cpy_cw_trans_L2S(sd, ls, &shape, None, None, dt),
            2 => c.tpu_gdma_cpy_cw_trans_L2L(ld, ls, &shape, None, None, dt),
            3 => c.tpu_gdma_cpy_cw_trans_S2S(sd, ss, &shape, None, None, dt),
            4 => c.tpu_bdc_cw_trans(ld, ls, &shape, dt),
            _ => c.tpu_bdc_wc_trans(ld, ls, &shape, dt),
        };
        let (got, want) = (run(&mut fast), run(&mut twin));
        prop_assert_eq!(got, want);
        prop_assert!(fast.local_store() == twin.local_store(), "local memory differs");
        prop_assert!(
            fast.read_bytes(g, GM as usize).unwrap() == twin.read_bytes(g, GM as usize).unwrap(),
            "global memory differs"
        );
    }
}

/// Runs `call` on a scribbled core and checks it is refused with `want` and writes nothing.
fn refused(want: TpuError, call: impl FnOnce(&mut TpuCore, u64) -> Result<(), TpuError>) {
    let mut c = core();
    scribble(&mut c, 7);
    let base = c.gm_base();
    let lm0 = c.local_store().to_vec();
    let gm0 = c.read_bytes(base, GM as usize).unwrap();
    assert_eq!(call(&mut c, base), Err(want));
    assert!(
        c.local_store() == lm0.as_slice(),
        "a refused call wrote local memory"
    );
    assert!(
        c.read_bytes(base, GM as usize).unwrap() == gm0,
        "a refused call wrote global memory"
    );
}

const F32: DataType = DataType::Fp32;

#[test]
fn matrix_cols_per_channel_must_be_positive() {
    // The C-model divides by it (SIGFPE) for 0 and asserts `sec_size > 0` for negatives.
    for cpc in [0, -1] {
        refused(
            TpuError::ArgOutOfRange {
                op: "tpu_gdma_matrix_S2L",
                param: "cols_per_channel",
                value: cpc,
                rule: "must be >= 1",
            },
            |c, g| c.tpu_gdma_matrix_S2L(0, g, 2, 5, cpc as i32, 5, F32),
        );
    }
}

#[test]
fn matrix_rows_and_cols_in_range() {
    for (rows, cols, param, value) in [
        (0, 5, "rows", 0),
        (70000, 5, "rows", 70000),
        (2, 0, "cols", 0),
        (2, 65536, "cols", 65536),
    ] {
        refused(
            TpuError::DimOutOfRange {
                op: "tpu_gdma_matrix_L2S",
                param,
                value,
            },
            |c, g| c.tpu_gdma_matrix_L2S(g, 0, rows, cols, 2, 70000, F32),
        );
    }
}

#[test]
fn matrix_row_stride_rules() {
    refused(
        TpuError::ArgOutOfRange {
            op: "tpu_gdma_matrix_S2L",
            param: "row_stride",
            value: -1,
            rule: "must be >= 0",
        },
        |c, g| c.tpu_gdma_matrix_S2L(0, g, 2, 5, 2, -1, F32),
    );
    refused(
        TpuError::ArgOutOfRange {
            op: "tpu_gdma_matrix_L2S",
            param: "row_stride",
            value: 4,
            rule: "must be >= cols when rows > 1 (the rows written may not overlap)",
        },
        |c, g| c.tpu_gdma_matrix_L2S(g, 0, 2, 5, 2, 4, F32),
    );
    // S2L takes overlapping source rows, and L2S one row with any stride.
    let mut c = core();
    let g = c.gm_base();
    c.tpu_gdma_matrix_S2L(0, g, 2, 5, 2, 0, F32).unwrap();
    c.tpu_gdma_matrix_L2S(g, 0, 1, 5, 2, 0, F32).unwrap();
}

#[test]
fn matrix_local_bound_is_ns_times_rows() {
    // ns = ALIGN(1, 16) * 1 = 16 elements: 65535 rows need 4 MiB of a 256 KiB lane.
    refused(
        TpuError::LocalFootprint {
            op: "tpu_gdma_matrix_S2L",
            param: "dst_addr",
            addr: 0,
            end: 16 * 65535 * 4,
            limit: LMEM,
        },
        |c, g| c.tpu_gdma_matrix_S2L(0, g, 65535, 1, 1, 1, F32),
    );
    // The C-model counts the whole last n stride: 4 bytes before the lane's end is too late.
    refused(
        TpuError::LocalFootprint {
            op: "tpu_gdma_matrix_S2L",
            param: "dst_addr",
            addr: LMEM - 4,
            end: i64::from(LMEM) - 4 + 2 * 16 * 4,
            limit: LMEM,
        },
        |c, g| c.tpu_gdma_matrix_S2L(LMEM - 4, g, 2, 5, 2, 5, F32),
    );
}

#[test]
fn gdma_addresses_must_be_element_aligned() {
    refused(
        TpuError::ElemMisaligned {
            op: "tpu_gdma_matrix_S2L",
            param: "dst_addr",
            addr: u64::from(LMEM) + 1,
            esize: 4,
        },
        |c, g| c.tpu_gdma_matrix_S2L(LMEM + 1, g, 2, 5, 2, 5, F32),
    );
    let mut c = core();
    let g = c.gm_base();
    assert_eq!(
        c.tpu_gdma_matrix_L2S(g + 2, 0x40, 2, 5, 2, 5, DataType::Int16),
        Ok(())
    );
    assert_eq!(
        c.tpu_gdma_compact_L2S(g + 6, 0, &Dim4::new(1, 3, 2, 3), F32),
        Err(TpuError::ElemMisaligned {
            op: "tpu_gdma_compact_L2S",
            param: "dst_addr",
            addr: g + 6,
            esize: 4,
        })
    );
    assert_eq!(
        c.tpu_gdma_cpy_cw_trans_S2L(0, g + 2, &Dim4::new(1, 3, 2, 4), None, None, F32),
        Err(TpuError::ElemMisaligned {
            op: "tpu_gdma_cpy_cw_trans_S2L",
            param: "src_addr",
            addr: g + 2,
            esize: 4,
        })
    );
}

#[test]
fn compact_shape_and_footprint() {
    refused(
        TpuError::DimOutOfRange {
            op: "tpu_gdma_compact_S2L",
            param: "shape.n",
            value: 0,
        },
        |c, g| c.tpu_gdma_compact_S2L(0, g, &Dim4::new(0, 3, 2, 3), F32),
    );
    refused(
        TpuError::LocalFootprint {
            op: "tpu_gdma_compact_S2L",
            param: "dst_addr",
            addr: LMEM - 64,
            end: i64::from(LMEM) - 64 + 60 * 4,
            limit: LMEM,
        },
        |c, g| c.tpu_gdma_compact_S2L(LMEM - 64, g, &Dim4::new(1, 3, 2, 30), F32),
    );
}

#[test]
fn cw_trans_given_strides_need_unit_w() {
    refused(
        TpuError::ArgOutOfRange {
            op: "tpu_gdma_cpy_cw_trans_S2L",
            param: "dst_stride.w",
            value: 2,
            rule: "must be 1 (a cw transpose moves unit-stride lines)",
        },
        |c, g| {
            let s = Dim4::new(64, 16, 4, 2);
            c.tpu_gdma_cpy_cw_trans_S2L(0, g, &Dim4::new(1, 3, 2, 4), Some(&s), None, F32)
        },
    );
    refused(
        TpuError::ArgOutOfRange {
            op: "tpu_gdma_cpy_cw_trans_S2S",
            param: "src_stride.w",
            value: 0,
            rule: "must be 1 (a cw transpose moves unit-stride lines)",
        },
        |c, g| {
            let s = Dim4::new(24, 6, 3, 0);
            c.tpu_gdma_cpy_cw_trans_S2S(g + 0x1000, g, &Dim4::new(1, 3, 2, 4), None, Some(&s), F32)
        },
    );
}

#[test]
fn bdc_trans_operands_on_the_64_byte_grid() {
    refused(
        TpuError::Misaligned {
            op: "tpu_bdc_cw_trans",
            param: "dst_addr",
            addr: 0x20004,
            align: 64,
        },
        |c, _| c.tpu_bdc_cw_trans(0x20004, 0, &Dim4::new(1, 3, 2, 4), F32),
    );
    refused(
        TpuError::Misaligned {
            op: "tpu_bdc_wc_trans",
            param: "src_addr",
            addr: 0x20044,
            align: 64,
        },
        |c, _| c.tpu_bdc_wc_trans(0x40, 0x20044, &Dim4::new(1, 3, 2, 4), F32),
    );
}

#[test]
fn bdc_cw_source_and_wc_destination_on_npu_0() {
    refused(
        TpuError::NpuRequired {
            op: "tpu_bdc_cw_trans",
            param: "src_addr",
            addr: LMEM,
            npu: 1,
            rule: "the cw transpose reads its source from NPU 0",
        },
        |c, _| c.tpu_bdc_cw_trans(0x20000, LMEM, &Dim4::new(1, 3, 2, 4), DataType::Int8),
    );
    refused(
        TpuError::NpuRequired {
            op: "tpu_bdc_wc_trans",
            param: "dst_addr",
            addr: LMEM,
            npu: 1,
            rule: "the wc transpose writes its destination from NPU 0",
        },
        |c, _| c.tpu_bdc_wc_trans(LMEM, 0x20000, &Dim4::new(1, 3, 2, 4), DataType::Fp16),
    );
    // The other operand may start anywhere.
    let mut c = core();
    c.tpu_bdc_cw_trans(5 * LMEM, 0, &Dim4::new(1, 3, 2, 4), F32)
        .unwrap();
    c.tpu_bdc_wc_trans(0, 5 * LMEM, &Dim4::new(1, 3, 2, 4), F32)
        .unwrap();
}

#[test]
fn bdc_trans_not_in_place() {
    refused(
        TpuError::SameAddress {
            op: "tpu_bdc_cw_trans",
            param: "dst_addr",
            addr: 0,
            other: "src_addr",
            rule: "the transpose does not run in place",
        },
        |c, _| c.tpu_bdc_cw_trans(0, 0, &Dim4::new(1, 3, 2, 4), F32),
    );
}

#[test]
fn bdc_trans_dims_dtype_and_footprint() {
    refused(
        TpuError::DimOutOfRange {
            op: "tpu_bdc_wc_trans",
            param: "shape.c",
            value: 65536,
        },
        |c, _| c.tpu_bdc_wc_trans(0, 0x20000, &Dim4::new(1, 65536, 1, 1), DataType::Uint16),
    );
    refused(
        TpuError::UnsupportedDtype {
            op: "tpu_bdc_cw_trans",
            dtype: DataType::Int4,
            rule: "must be an 8-, 16- or 32-bit type",
        },
        |c, _| c.tpu_bdc_cw_trans(0x20000, 0, &Dim4::new(1, 3, 2, 4), DataType::Int4),
    );
    // Line-aligned destination: h stride ALIGN(100, 16) = 112, two rows of 4-byte elements.
    let r = {
        let mut c = core();
        c.tpu_bdc_cw_trans(LMEM - 256, 0, &Dim4::new(1, 3, 2, 100), F32)
    };
    assert!(
        matches!(
            r,
            Err(TpuError::LocalFootprint {
                op: "tpu_bdc_cw_trans",
                param: "dst_addr",
                ..
            })
        ),
        "{r:?}"
    );
}
