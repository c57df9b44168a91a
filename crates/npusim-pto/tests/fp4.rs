//! TCVT's packed 4-bit pairs on A5 (pto-isa `docs/isa/TCVT.md`: bf16 <-> float4_e2m1x2_t /
//! float4_e1m2x2_t), against ml_dtypes on every bf16 (scripts/gen_fp4_ref.py) and a plain
//! model written here; one test per restriction.

mod common;

use npusim_core::f8::F8Format;
use npusim_pto::ops::fp4::{FP4_PAIRS, bf16_to_fp4, fp4_to_bf16};
use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{Bf16, F4E1M2X2, F4E2M1X2, F32, U8};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

fn says(e: PtoError, parts: &[&str]) {
    let s = e.to_string();
    for p in parts {
        assert!(s.contains(p), "{s:?} lacks {p:?}");
    }
}

/// The magnitudes of codes 0..8 (the codes are monotonic in magnitude; bit 3 is the sign).
fn mags(f: F8Format) -> [f64; 8] {
    match f {
        F8Format::E2M1 => [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0],
        _ => [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75],
    }
}

fn format_of(t: ElemType) -> F8Format {
    if t == F4E2M1X2 {
        F8Format::E2M1
    } else {
        F8Format::E1M2
    }
}

/// The model: the value set of the format, each mode's choice between the neighbours,
/// overflow and ±inf to ±max (no inf in either format), NaN as ml_dtypes' E2M1 (+NaN -> -0).
fn model(f: F8Format, v: f64, mode: RoundMode) -> u8 {
    if v.is_nan() {
        return if v.is_sign_negative() { 0x0 } else { 0x8 };
    }
    let neg = v.is_sign_negative();
    let s = if neg { 8 } else { 0 };
    let m = mags(f);
    let a = v.abs();
    if a >= m[7] {
        return s | 7;
    }
    let hi = m.iter().position(|&x| x >= a).unwrap();
    if m[hi] == a {
        return s | hi as u8;
    }
    let lo = hi - 1;
    let (dl, dh) = (a - m[lo], m[hi] - a);
    let pick = match mode {
        RoundMode::Trunc => lo,
        RoundMode::Floor => {
            if neg {
                hi
            } else {
                lo
            }
        }
        RoundMode::Ceil => {
            if neg {
                lo
            } else {
                hi
            }
        }
        RoundMode::Rint => {
            if dl < dh || (dl == dh && lo % 2 == 0) {
                lo
            } else {
                hi
            }
        }
        RoundMode::Round => {
            if dl < dh {
                lo
            } else {
                hi
            }
        }
        RoundMode::Odd => {
            if lo % 2 == 1 {
                lo
            } else {
                hi
            }
        }
    };
    s | pick as u8
}

fn bf16_value(b: u16) -> f64 {
    half::bf16::from_bits(b).to_f64()
}

#[test]
fn bf16_to_e2m1_is_ml_dtypes_on_every_bf16() {
    let table: Vec<u8> = include_str!("data/fp4_bf16_e2m1.txt")
        .lines()
        .flat_map(|l| l.chars().map(|c| c.to_digit(16).unwrap() as u8))
        .collect();
    assert_eq!(table.len(), 65536);
    for (b, want) in table.iter().enumerate() {
        for sat in [Saturation::Off, Saturation::On] {
            let got = bf16_to_fp4(b as u16, F8Format::E2M1, RoundMode::Rint, sat);
            assert_eq!(got, *want, "bf16 {b:#06x} {sat:?}");
        }
    }
}

#[test]
fn every_bf16_in_every_mode_is_the_model() {
    for f in [F8Format::E2M1, F8Format::E1M2] {
        for b in 0..=u16::MAX {
            for mode in RoundMode::ALL {
                let want = model(f, bf16_value(b), mode);
                assert_eq!(
                    bf16_to_fp4(b, f, mode, Saturation::Off),
                    want,
                    "{f:?} {b:#06x} {mode:?}"
                );
            }
        }
    }
}

#[test]
fn every_code_round_trips_through_bf16() {
    for f in [F8Format::E2M1, F8Format::E1M2] {
        for code in 0..16u8 {
            let b = fp4_to_bf16(code, f);
            let v = mags(f)[usize::from(code & 7)];
            let want = if code & 8 != 0 { -v } else { v };
            assert_eq!(bf16_value(b).to_bits(), want.to_bits(), "{f:?} {code:#x}");
            for mode in RoundMode::ALL {
                for sat in [Saturation::Off, Saturation::On] {
                    assert_eq!(
                        bf16_to_fp4(b, f, mode, sat),
                        code,
                        "{f:?} {code:#x} {mode:?}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn tcvt_packs_and_unpacks_pairs(
        packed in prop::sample::select(vec![F4E2M1X2, F4E1M2X2]),
        rows in 1usize..5,
        blocks in 1usize..4,
        vr_frac in 0.0f64..=1.0,
        vc_frac in 0.0f64..=1.0,
        mode in prop::sample::select(RoundMode::ALL.to_vec()),
        sat in any::<bool>(),
        data in prop::collection::vec(any::<u16>(), 4 * 3 * 64),
        seed in any::<u64>(),
    ) {
        let f = format_of(packed);
        let sat = if sat { Saturation::On } else { Saturation::Off };
        let mut c = core("a5");
        common::scramble(&mut c, 32768, seed);
        // A pair is one byte: 32 pairs a 32-byte block, from 64 bf16 columns.
        let pcols = blocks * 32;
        let bcols = 2 * pcols;
        let vr = ((rows as f64) * vr_frac) as usize;
        let vc = ((pcols as f64) * vc_frac) as usize;
        let src = c.alloc(TileDesc::vec(Bf16, rows, bcols).at(0)).unwrap();
        let bits: Vec<half::bf16> = data[..rows * bcols].iter().map(|b| half::bf16::from_bits(*b)).collect();
        c.write_valid(&src, &bits).unwrap();
        let dst = c.alloc(TileDesc::vec(packed, rows, pcols).valid(vr, vc).at(16384)).unwrap();
        let before = common::all_bits(&c, &dst);
        c.tcvt(&dst, &src, mode, sat).unwrap();
        let after = common::all_bits(&c, &dst);
        for i in 0..rows {
            for j in 0..pcols {
                let want = if i < vr && j < vc {
                    let lo = model(f, bf16_value(data[i * bcols + 2 * j]), mode);
                    let hi = model(f, bf16_value(data[i * bcols + 2 * j + 1]), mode);
                    u64::from(lo | (hi << 4))
                } else {
                    before[i][j]
                };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
        // And back: dst(i, j) is nibble j % 2 of the pair j / 2, over a bf16 valid region.
        let vc2 = ((bcols as f64) * vc_frac) as usize;
        let back = c.alloc(TileDesc::vec(Bf16, rows, bcols).valid(vr, vc2).at(24576)).unwrap();
        let whole = c.alloc(TileDesc::vec(packed, rows, pcols).at(16384)).unwrap();
        let b0 = common::all_bits(&c, &back);
        c.tcvt(&back, &whole, RoundMode::Rint, Saturation::Off).unwrap();
        let b1 = common::all_bits(&c, &back);
        for i in 0..rows {
            for j in 0..bcols {
                let want = if i < vr && j < vc2 {
                    let code = (after[i][j / 2] >> (4 * (j % 2))) as u8 & 0xf;
                    let v = mags(f)[usize::from(code & 7)];
                    let v = if code & 8 != 0 { -v } else { v };
                    u64::from(half::bf16::from_f64(v).to_bits())
                } else {
                    b0[i][j]
                };
                prop_assert_eq!(b1[i][j], want, "back ({}, {})", i, j);
            }
        }
    }
}

#[test]
fn fp4_restrictions() {
    let a5 = core("a5");
    let b = a5.alloc(TileDesc::vec(Bf16, 2, 64).at(0)).unwrap();
    let p = a5.alloc(TileDesc::vec(F4E2M1X2, 2, 32).at(4096)).unwrap();
    // The page's pairs only: bf16 <-> the two packed types.
    assert_eq!(FP4_PAIRS.len(), 4);
    let f = a5.alloc(TileDesc::vec(F32, 2, 32).at(8192)).unwrap();
    let pf = a5.alloc(TileDesc::vec(F4E2M1X2, 2, 32).at(8192)).unwrap();
    let q = a5.alloc(TileDesc::vec(F4E1M2X2, 2, 32).at(12288)).unwrap();
    let u = a5.alloc(TileDesc::vec(U8, 2, 32).at(12288)).unwrap();
    let mut c = core("a5");
    for (d, s, what) in [
        (&p, &f, "float -> float4_e2m1x2"),
        (&f, &p, "float4_e2m1x2 -> float"),
        (&q, &pf, "float4_e2m1x2 -> float4_e1m2x2"),
        (&u, &p, "float4_e2m1x2 -> uint8"),
    ] {
        says(
            c.tcvt(d, s, RoundMode::Rint, Saturation::Off).unwrap_err(),
            &["TCVT", what, "not supported on a5"],
        );
    }
    // A5 only.
    let mut a2 = core("a2a3");
    says(
        a2.tcvt(&p, &b, RoundMode::Rint, Saturation::Off)
            .unwrap_err(),
        &["TCVT", "bfloat16 -> float4_e2m1x2", "a2a3"],
    );
    // The source covers two bf16 columns per pair.
    let narrow = c.alloc(TileDesc::vec(Bf16, 2, 32).at(0)).unwrap();
    says(
        c.tcvt(&p, &narrow, RoundMode::Rint, Saturation::Off)
            .unwrap_err(),
        &["TCVT", "src", "2x32 for domain 2x64"],
    );
    // Unpacking: the source covers half the columns, rounded up.
    let wide = c
        .alloc(TileDesc::vec(Bf16, 2, 128).valid(2, 65).at(16384))
        .unwrap();
    says(
        c.tcvt(&wide, &p, RoundMode::Rint, Saturation::Off)
            .unwrap_err(),
        &["TCVT", "src", "2x32 for domain 2x33"],
    );
    c.tcvt(&b, &p, RoundMode::Rint, Saturation::Off).unwrap();
}

#[test]
fn packed_tiles_as_npy_bytes() {
    // ml_dtypes has no packed fp4: the file holds the pair bytes as `<V1`.
    for t in [F4E2M1X2, F4E1M2X2] {
        let a = NpyArrayAlias {
            dtype: t,
            shape: vec![2, 2],
            data: vec![0x21, 0x9f, 0x70, 0x08],
        };
        let bytes = npusim_core::npy::to_npy_bytes(&a).unwrap();
        assert!(String::from_utf8_lossy(&bytes).contains("'<V1'"));
        let mut back = npusim_core::npy::parse_npy(&bytes).unwrap();
        back.retag(t).unwrap();
        assert_eq!(back, a);
    }
}

use npusim_core::NpyArray as NpyArrayAlias;
