//! Issue #16, acceptance 4: the small-call paths of `tpu_gdma_cpy_S2S` and `tpu_gdma_cpy_L2L`
//! (`crate::gdma`: NULL strides, taken at the AVX2 and AVX-512 host levels) against their
//! scalar twin, the checked path, which the same call takes at `HostSimd::Baseline`; and, for
//! the calls both accept, against the same call with its default strides written out
//! (`tpu_continuous_stride` for S2S, `tpu_aligned_stride` from each side's start lane for
//! L2L).
//!
//! Each proptest draws calls the small path takes and calls it must refuse or leave to the
//! checked path: both chips, every dtype (4-bit ones without a byte size; fp8 and fp20 without
//! an aligned layout for L2L), shapes with channels past the last lane and several batches,
//! sources equal to the destination, touching it, overlapping it partly (forwards and
//! backwards), on other lanes at the same offsets, apart; addresses off the element grid,
//! near the end of the lane or of global memory, in L2 SRAM, outside every region. The result
//! (accepted or the same error) and all of memory (the local store, global memory, L2 SRAM)
//! must be equal.

use npusim_tpu::{DataType, Dim4, HostSimd, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

const DTYPES: [DataType; 13] = [
    DataType::Fp32,
    DataType::Fp16,
    DataType::Bfp16,
    DataType::Int8,
    DataType::Uint8,
    DataType::Int16,
    DataType::Uint16,
    DataType::Int32,
    DataType::Uint32,
    DataType::Int4,
    DataType::Fp8E4M3,
    DataType::Fp8E5M2,
    DataType::Fp20,
];

/// Global memory of each core.
const GM: u64 = 1 << 20;
/// BM1684X L2 SRAM base.
const L2: u64 = 0x1000_0000;

/// One drawn call.
#[derive(Debug, Clone)]
struct Draw {
    chip: TpuChip,
    simd: HostSimd,
    shape: Dim4,
    dtype: DataType,
    dst: u64,
    src: u64,
    seed: u64,
}

fn chip() -> impl Strategy<Value = TpuChip> {
    prop::sample::select(vec![TpuChip::Bm1684x, TpuChip::Bm1684x, TpuChip::Bm1688])
}

/// The AVX-512 level half the time (capped at the host's by `set_host_simd`).
fn simd() -> impl Strategy<Value = HostSimd> {
    prop::sample::select(vec![
        HostSimd::Avx512,
        HostSimd::Avx512,
        HostSimd::Avx2,
        HostSimd::Baseline,
    ])
}

/// Small shapes mostly, now and then channels past the last lane and several batches.
fn shape() -> impl Strategy<Value = Dim4> {
    prop_oneof![
        3 => (1i32..3, 1i32..8, 1i32..3, 1i32..24),
        1 => (1i32..4, 1i32..80, 1i32..4, 1i32..12),
    ]
    .prop_map(|(n, c, h, w)| Dim4::new(n, c, h, w))
}

/// The common dtypes three times in four, any of the thirteen the rest.
fn dtype() -> impl Strategy<Value = DataType> {
    prop_oneof![
        3 => prop::sample::select(DTYPES[..9].to_vec()),
        1 => prop::sample::select(DTYPES.to_vec()),
    ]
}

/// L2L: the destination on a drawn lane at 0-5 EU rows; the source the destination itself,
/// on its lane a few elements or EU rows away (touching or overlapping it) or 4 KiB away
/// (apart), on another lane at the same offset or another; now and then an address off the
/// element grid, near the end of the lane, or past local memory.
fn l2l_draw() -> impl Strategy<Value = Draw> {
    (
        (chip(), simd(), shape(), dtype()),
        prop::array::uniform2(0u32..64),
        0u32..10,
        prop::array::uniform2(0u32..6),
        0u32..16,
        prop::array::uniform2(prop::sample::select(vec![0u32, 0, 0, 0, 0, 0, 0, 1, 2, 7])),
        any::<u64>(),
    )
        .prop_map(
            |((chip, simd, shape, dtype), lanes, rel, rows, elems, skew, seed)| {
                let p = chip.local();
                let lmem = p.local_mem_per_npu;
                let sh = lmem.trailing_zeros();
                let (eu, es) = (p.eu_bytes, 4);
                let lane = |l: u32| (l % p.npu_num) << sh;
                let dst = lane(lanes[0]) + rows[0] * eu + skew[0];
                let src = match rel {
                    0 => dst,
                    // Some elements (of 4 bytes) before or after: partial overlaps, or
                    // touching when the shape's footprint is that long.
                    1 => dst + elems * es + skew[1],
                    2 => dst.saturating_sub(elems * es) + skew[1],
                    3 => lane(lanes[0]) + 0x1000 + rows[1] * eu + skew[1],
                    4 => lane(lanes[1]) + rows[0] * eu + skew[1],
                    5 => lane(lanes[1]) + 0x1000 + rows[1] * eu + skew[1],
                    6 => lane(lanes[0]) + rows[1] * eu + skew[1],
                    // Near the end of the lane.
                    7 => lane(lanes[1]) + lmem - (elems + 1) * 16 + skew[1],
                    // Past local memory.
                    8 => p.npu_num * lmem + rows[1] * eu,
                    _ => lane(lanes[1]) + rows[1] * eu * 8 + skew[1],
                };
                // Now and then the destination is the one past the end or near it.
                let dst = match (rel, seed % 8) {
                    (9, 0) => lane(lanes[0]) + lmem - (elems + 1) * 16,
                    (9, 1) => p.npu_num * lmem + skew[0],
                    _ => dst,
                };
                Draw {
                    chip,
                    simd,
                    shape,
                    dtype,
                    dst: u64::from(dst),
                    src: u64::from(src),
                    seed,
                }
            },
        )
}

/// S2S: the destination in global memory (or L2 SRAM, which only the BM1684X has); the source
/// the destination itself, a few elements or rows before or after it (overlapping), apart in
/// global memory, in the other region; now and then an address off the element grid, near the
/// end of global memory, or outside every region.
fn s2s_draw() -> impl Strategy<Value = Draw> {
    (
        (chip(), simd(), shape(), dtype()),
        0u64..0x4000,
        0u32..12,
        0u64..64,
        prop::array::uniform2(prop::sample::select(vec![0u64, 0, 0, 0, 0, 0, 0, 1, 2, 6])),
        any::<u64>(),
    )
        .prop_map(
            |((chip, simd, shape, dtype), off, rel, elems, skew, seed)| {
                let g = chip.gm_base();
                let off = off & !63;
                let in_l2 = seed % 5 == 0;
                let dst = if in_l2 { L2 + off } else { g + off } + skew[0];
                let src = match rel {
                    0 => dst,
                    1 => dst + elems * 4 + skew[1],
                    2 => dst.saturating_sub(elems * 4) + skew[1],
                    3 => dst + elems * 64 + skew[1],
                    4 => dst.saturating_sub(elems * 64) + skew[1],
                    5 => g + 0x40000 + off + skew[1],
                    6 => L2 + 0x8000 + off + skew[1],
                    7 => g + GM - (elems + 1) * 16 + skew[1],
                    8 => [0, u64::MAX - 7, g - 64, L2 + 0x1F_B000 - 32][(seed >> 8) as usize % 4],
                    _ => g + 0x80000 + elems * 4 + skew[1],
                };
                let dst = match (rel, seed % 4) {
                    (9, 0) => g + GM - (elems + 1) * 16,
                    (9, 1) => g + GM,
                    _ => dst,
                };
                Draw {
                    chip,
                    simd,
                    shape,
                    dtype,
                    dst,
                    src,
                    seed,
                }
            },
        )
}

/// Two cores of the draw's chip with the same memory (random bytes over the first 16 KiB of
/// every lane, all of global memory, the first 64 KiB of L2 SRAM): the first at the drawn
/// level, the twin at `Baseline` (the checked path).
fn cores(d: &Draw) -> (TpuCore, TpuCore) {
    let mut fast = TpuCore::with_gm_size(d.chip, GM).unwrap();
    let p = d.chip.local();
    let mut x = d.seed | 1;
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
    for lane in 0..p.npu_num {
        fast.write_local(lane * p.local_mem_per_npu, &bytes(16 << 10))
            .unwrap();
    }
    let g = fast.gm_base();
    fast.write_bytes(g, &bytes(GM as usize)).unwrap();
    if d.chip.l2_sram().is_some() {
        fast.write_bytes(L2, &bytes(64 << 10)).unwrap();
    }
    let mut twin = fast.clone();
    fast.set_host_simd(d.simd);
    twin.set_host_simd(HostSimd::Baseline);
    (fast, twin)
}

type Outcome = Result<(), TpuError>;

/// Equal outcomes and equal memory: the local store, global memory and L2 SRAM.
fn same(a: &TpuCore, b: &TpuCore, got: &Outcome, want: &Outcome) -> Result<(), TestCaseError> {
    prop_assert_eq!(got, want);
    prop_assert!(a.local_store() == b.local_store(), "local stores differ");
    let g = a.gm_base();
    prop_assert!(
        a.read_bytes(g, GM as usize).unwrap() == b.read_bytes(g, GM as usize).unwrap(),
        "global memories differ"
    );
    if let Some(r) = a.chip().l2_sram() {
        let len = r.size as usize;
        prop_assert!(
            a.read_bytes(L2, len).unwrap() == b.read_bytes(L2, len).unwrap(),
            "L2 SRAMs differ"
        );
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("NPUSIM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// `tpu_gdma_cpy_L2L` with NULL strides at the drawn level equals the checked path
    /// (`Baseline`), and, when accepted, the same call with each side's aligned strides
    /// written out.
    #[test]
    fn small_l2l_equals_checked_path(d in l2l_draw()) {
        let (mut fast, mut twin) = cores(&d);
        let (dst, src) = (d.dst as u32, d.src as u32);
        let mut third = twin.clone();
        let got = fast.tpu_gdma_cpy_L2L(dst, src, &d.shape, None, None, d.dtype);
        let want = twin.tpu_gdma_cpy_L2L(dst, src, &d.shape, None, None, d.dtype);
        same(&fast, &twin, &got, &want)?;
        if want.is_ok() {
            let p = d.chip.local();
            let st = |a: u32| p.tpu_aligned_stride(p.tpu_npu_index(a) as i32, &d.shape, d.dtype).unwrap();
            let (ds, ss) = (st(dst), st(src));
            let r = third.tpu_gdma_cpy_L2L(dst, src, &d.shape, Some(&ds), Some(&ss), d.dtype);
            same(&fast, &third, &got, &r)?;
        }
    }

    /// `tpu_gdma_cpy_S2S` with NULL strides at the drawn level equals the checked path
    /// (`Baseline`), and, when accepted, the same call with continuous strides written out.
    #[test]
    fn small_s2s_equals_checked_path(d in s2s_draw()) {
        let (mut fast, mut twin) = cores(&d);
        let mut third = twin.clone();
        let got = fast.tpu_gdma_cpy_S2S(d.dst, d.src, &d.shape, None, None, d.dtype);
        let want = twin.tpu_gdma_cpy_S2S(d.dst, d.src, &d.shape, None, None, d.dtype);
        same(&fast, &twin, &got, &want)?;
        if want.is_ok() {
            let st = d.chip.local().tpu_continuous_stride(&d.shape);
            let r = third.tpu_gdma_cpy_S2S(d.dst, d.src, &d.shape, Some(&st), Some(&st), d.dtype);
            same(&fast, &third, &got, &r)?;
        }
    }
}

/// The bench's calls (`api gdma_cpy_S2S`, `api gdma_cpy_L2L` of `benches/tpu_small.rs`, f32 at
/// (1,1,1,8) and (1,4,1,16)), a channel-wrapping L2L and overlapping S2S moves at every level
/// write what the checked path writes; a refused call writes nothing.
#[test]
fn common_calls_equal_checked_path() {
    for simd in [HostSimd::Avx512, HostSimd::Avx2] {
        for shape in [
            Dim4::new(1, 1, 1, 8),
            Dim4::new(1, 4, 1, 16),
            Dim4::new(2, 70, 2, 5),
        ] {
            let d = Draw {
                chip: TpuChip::Bm1684x,
                simd,
                shape,
                dtype: DataType::Fp32,
                dst: 0,
                src: 0,
                seed: 11,
            };
            let (mut fast, mut twin) = cores(&d);
            let g = fast.gm_base();
            let f = DataType::Fp32;
            for (gd, gs) in [(g + (8 << 10), g), (g + 12, g), (g, g + 20), (L2 + 64, g)] {
                let got = fast.tpu_gdma_cpy_S2S(gd, gs, &shape, None, None, f);
                let want = twin.tpu_gdma_cpy_S2S(gd, gs, &shape, None, None, f);
                assert_eq!(got, Ok(()));
                same(&fast, &twin, &got, &want).unwrap();
            }
            for (ld, ls) in [(0x24000, 0), (0, 0x24000), (5 << 18, 60 << 18), (64, 0)] {
                let got = fast.tpu_gdma_cpy_L2L(ld, ls, &shape, None, None, f);
                let want = twin.tpu_gdma_cpy_L2L(ld, ls, &shape, None, None, f);
                assert_eq!(got, Ok(()));
                same(&fast, &twin, &got, &want).unwrap();
            }
            // Refused: past global memory, past the lane.
            let before = fast.clone();
            let got = fast.tpu_gdma_cpy_S2S(g + GM - 16, g, &shape, None, None, f);
            assert!(matches!(got, Err(TpuError::System { .. })), "{got:?}");
            same(&fast, &before, &Ok(()), &Ok(())).unwrap();
            let got = fast.tpu_gdma_cpy_L2L(0x40000 - 16, 0, &shape, None, None, f);
            assert!(
                matches!(got, Err(TpuError::LocalFootprint { .. })),
                "{got:?}"
            );
            same(&fast, &before, &Ok(()), &Ok(())).unwrap();
        }
    }
}
