//! Issue #16, acceptance 4: the small-call paths of `tpu_bdc_cast`, `tpu_bdc_set_C`,
//! `tpu_bdc_cpy` and `tpu_bdc_npu_bcast` (`bdc_data::small`: NULL strides, the AVX-512 host
//! level) against their scalar twin, the checked path over views (`map_elems`), which the same
//! call takes at `HostSimd::Baseline`. Each proptest draws calls the small path takes and calls
//! it must refuse (misaligned, past the lane, out of local memory, partial overlaps, different
//! start NPUs for `cpy`, `npu_bcast` channels past the lanes, rows of 64 elements or more for
//! casts, illegal dtypes, pairs and modes, pairs the vector form does not cover), both chips,
//! the host SIMD level (AVX-512 at least half the draws) and local memory full of special
//! values as bit patterns (NaN, infinities, denormals, -0, ties, values at the integer
//! targets' bounds); the result (accepted or the same error) and the whole local store must be
//! equal.

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::{DataType, Dim4, HostSimd, Scalar, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

/// Special 32-bit patterns (f32, and pairs of f16 / bf16 / 16-bit integers).
const SPECIAL: [u32; 29] = [
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0001,
    0x0000_0001,
    0x807f_ffff,
    0x0040_0000,
    0x3f00_0000,
    0xbfc0_0000,
    0x4040_0000,
    0x477f_f000,
    0x4780_0000,
    0xc77f_e000,
    0x4f00_0000,
    0xcf00_0000,
    0x4effffff,
    0x46ff_ff00,
    0xc700_0080,
    0x437f_8000,
    0x7c01_fc00,
    0x7e00_8001,
    0x03ff_8400,
    0x3c01_7bff,
    0x8000_7fff,
    0x3f80_8000,
    0x3f81_8000,
];

const DTYPES: [DataType; 12] = [
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
    DataType::Fp20,
];

const MODES: [RoundingMode; 7] = [
    RoundingMode::HalfToEven,
    RoundingMode::HalfAwayFromZero,
    RoundingMode::TowardsZero,
    RoundingMode::Down,
    RoundingMode::Up,
    RoundingMode::HalfUp,
    RoundingMode::HalfDown,
];

/// The operands of one drawn call.
#[derive(Debug, Clone)]
struct Draw {
    chip: TpuChip,
    simd: HostSimd,
    shape: Dim4,
    dst: u32,
    src: u32,
    seed: u64,
}

/// A draw: both chips, the level, dst and src on drawn lanes (the same lane five times in
/// eight), at offsets of 0-5 EU rows (so that sources near the destination often meet it
/// partly), the source 4 KiB further half the time (apart), now and then off the EU grid or
/// near the end of the lane; the source the destination itself an eighth of the time.
fn draw() -> impl Strategy<Value = Draw> {
    (
        prop::sample::select(vec![TpuChip::Bm1684x, TpuChip::Bm1684x, TpuChip::Bm1688]),
        prop::sample::select(vec![
            HostSimd::Avx512,
            HostSimd::Avx512,
            HostSimd::Avx2,
            HostSimd::Baseline,
        ]),
        (1i32..3, 1i32..70, 1i32..5, 1i32..24),
        prop::array::uniform2(0u32..64),
        0u32..8,
        prop::array::uniform2(0u32..6),
        prop::array::uniform2(prop::sample::select(vec![
            0u32, 0, 0, 0, 0, 0, 2, 4, 0x1_ffc0,
        ])),
        any::<u64>(),
    )
        .prop_map(|(chip, simd, (n, c, h, w), lanes, rel, offs, skew, seed)| {
            let p = chip.local();
            let sh = p.local_mem_per_npu.trailing_zeros();
            let eu = p.eu_bytes;
            let lane = |l: u32| l % p.npu_num;
            let dst = (lane(lanes[0]) << sh) + offs[0] * eu + (skew[0] & (p.local_mem_per_npu - 1));
            let at = |l: u32, far: u32| {
                (lane(l) << sh) + far + offs[1] * eu + (skew[1] & (p.local_mem_per_npu - 1))
            };
            let src = match rel {
                0 => dst,
                1 | 2 => at(lanes[0], 0),
                3 | 4 => at(lanes[0], 0x1000),
                5 | 6 => at(lanes[1], 0x1000),
                _ => at(lanes[1], 0),
            };
            Draw {
                chip,
                simd,
                shape: Dim4::new(n, c, h, w),
                dst,
                src,
                seed,
            }
        })
}

/// Two cores of the draw's chip with the same local memory (special values a quarter of the
/// words, random bits the rest, over the first 16 KiB of every lane): the first at the drawn
/// level, the twin at `Baseline` (the checked path).
fn cores(d: &Draw) -> (TpuCore, TpuCore) {
    let mut fast = TpuCore::with_gm_size(d.chip, 1 << 20).unwrap();
    let p = d.chip.local();
    let mut x = d.seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for lane in 0..p.npu_num {
        let bytes: Vec<u8> = (0..4096)
            .flat_map(|_| {
                let r = rnd();
                let w = if r % 4 == 0 {
                    SPECIAL[(r >> 8) as usize % SPECIAL.len()]
                } else {
                    (r >> 32) as u32
                };
                w.to_le_bytes()
            })
            .collect();
        fast.write_local(lane * p.local_mem_per_npu, &bytes)
            .unwrap();
    }
    let mut twin = fast.clone();
    fast.set_host_simd(d.simd);
    twin.set_host_simd(HostSimd::Baseline);
    (fast, twin)
}

type Outcome = Result<(), TpuError>;

fn same(
    fast: &TpuCore,
    twin: &TpuCore,
    got: &Outcome,
    want: &Outcome,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got, want);
    prop_assert!(
        fast.local_store() == twin.local_store(),
        "local stores differ"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `tpu_bdc_cast`: the common pairs (f32 <-> f16/bf16/integers) three times in four, any
    /// pair of the twelve dtypes the rest (illegal ones and pairs the vector form leaves to
    /// the checked path), every mode (HALF_UP / HALF_DOWN refused).
    #[test]
    fn small_cast_equals_checked_path(
        d in draw(),
        pair in prop_oneof![
            3 => prop::sample::select(vec![(1usize, 0usize), (2, 0), (0, 1), (0, 2), (7, 0),
                (5, 0), (3, 0), (6, 0), (4, 0), (0, 3), (0, 5), (0, 7), (0, 4), (0, 6), (0, 8),
                (8, 0)]),
            1 => (0usize..12, 0usize..12),
        ],
        mode in prop_oneof![3 => Just(0usize), 2 => 0usize..7],
    ) {
        let (mut fast, mut twin) = cores(&d);
        let (dt, st) = (DTYPES[pair.0], DTYPES[pair.1]);
        let m = MODES[mode];
        let got = fast.tpu_bdc_cast(d.dst, d.src, &d.shape, None, None, dt, st, m);
        let want = twin.tpu_bdc_cast(d.dst, d.src, &d.shape, None, None, dt, st, m);
        same(&fast, &twin, &got, &want)?;
    }

    /// `tpu_bdc_set_C`: every dtype (three illegal), any 32-bit constant.
    #[test]
    fn small_set_c_equals_checked_path(d in draw(), ty in 0usize..12, bits in any::<u32>()) {
        let (mut fast, mut twin) = cores(&d);
        let (dt, c) = (DTYPES[ty], Scalar::from_bits(bits));
        let got = fast.tpu_bdc_set_C(d.dst, c, &d.shape, None, dt);
        let want = twin.tpu_bdc_set_C(d.dst, c, &d.shape, None, dt);
        same(&fast, &twin, &got, &want)?;
    }

    /// `tpu_bdc_cpy`: every dtype (three illegal), sources on the destination's start NPU or
    /// another (refused).
    #[test]
    fn small_cpy_equals_checked_path(d in draw(), ty in 0usize..12) {
        let (mut fast, mut twin) = cores(&d);
        let dt = DTYPES[ty];
        let got = fast.tpu_bdc_cpy(d.dst, d.src, &d.shape, None, None, dt);
        let want = twin.tpu_bdc_cpy(d.dst, d.src, &d.shape, None, None, dt);
        same(&fast, &twin, &got, &want)?;
    }

    /// `tpu_bdc_npu_bcast`: every dtype (three illegal), channels past the lanes from the
    /// destination's start NPU now and then (refused).
    #[test]
    fn small_npu_bcast_equals_checked_path(d in draw(), ty in 0usize..12) {
        let (mut fast, mut twin) = cores(&d);
        let dt = DTYPES[ty];
        let got = fast.tpu_bdc_npu_bcast(d.dst, d.src, &d.shape, dt);
        let want = twin.tpu_bdc_npu_bcast(d.dst, d.src, &d.shape, dt);
        same(&fast, &twin, &got, &want)?;
    }
}

/// The bench's common casts at the AVX-512 level write what the checked path writes.
#[test]
fn small_paths_take_common_calls() {
    if HostSimd::detect() != HostSimd::Avx512 {
        return;
    }
    let d = Draw {
        chip: TpuChip::Bm1684x,
        simd: HostSimd::Avx512,
        shape: Dim4::new(1, 4, 1, 16),
        dst: 0x2000,
        src: 0,
        seed: 7,
    };
    let (mut fast, mut twin) = cores(&d);
    let rne = RoundingMode::HalfToEven;
    for (dt, st) in [
        (DataType::Fp16, DataType::Fp32),
        (DataType::Bfp16, DataType::Fp32),
        (DataType::Fp32, DataType::Fp16),
        (DataType::Int8, DataType::Fp32),
        (DataType::Fp32, DataType::Int32),
    ] {
        let got = fast.tpu_bdc_cast(d.dst, d.src, &d.shape, None, None, dt, st, rne);
        let want = twin.tpu_bdc_cast(d.dst, d.src, &d.shape, None, None, dt, st, rne);
        assert_eq!(got, want);
        assert!(got.is_ok());
        assert!(fast.local_store() == twin.local_store(), "{dt:?} <- {st:?}");
    }
}
