//! f8 conversions of `npusim_core::convert::F8Format` (E4M3FN, E5M2, E4M3) against ml_dtypes
//! and against a plain nearest-value model written here:
//! - `tests/data/f8_ml_dtypes.txt` (ml_dtypes 0.6.0): the value of every code, and f32 -> f8
//!   of every f32 bit pattern `(h << 16) | low` for low in {0, 1, 0x8000, 0xffff} (4 x 65536
//!   inputs per format, run-length coded);
//! - a proptest of random f32 bit patterns against the model (nearest code, ties to the even
//!   code, past the largest finite value the next code: inf, or NaN for E4M3FN);
//! - `#[ignore]`: all 2^32 f32 inputs against the model.

use npusim_core::convert::{F8Format, Saturation};
use proptest::prelude::*;

fn data() -> &'static str {
    include_str!("data/f8_ml_dtypes.txt")
}

/// The three formats this file's data covers (npusim-core's `tests/f8_reference.rs` covers
/// all six).
const FORMATS: [F8Format; 3] = [F8Format::E4M3FN, F8Format::E5M2, F8Format::E4M3];

fn name(f: F8Format) -> &'static str {
    f.elem_type().numpy_name()
}

/// ml_dtypes' value of every code (f32 bits).
fn decode_table(f: F8Format) -> Vec<u32> {
    let prefix = format!("{} decode ", name(f));
    let line = data().lines().find(|l| l.starts_with(&prefix)).unwrap();
    line[prefix.len()..]
        .split_whitespace()
        .map(|h| u32::from_str_radix(h, 16).unwrap())
        .collect()
}

#[test]
fn decode_matches_ml_dtypes_and_round_trips() {
    for f in FORMATS {
        let t = decode_table(f);
        assert_eq!(t.len(), 256);
        for c in 0..=255u8 {
            let want = f32::from_bits(t[c as usize]);
            let got = f.to_f32(c);
            if want.is_nan() {
                assert!(got.is_nan(), "{f:?} {c:#x}");
                assert!(f.to_f32(f.from_f32(got, Saturation::Off)).is_nan());
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{f:?} {c:#x}");
                assert_eq!(f.from_f32(got, Saturation::Off), c, "{f:?} {c:#x}");
            }
        }
    }
}

#[test]
fn f32_to_f8_matches_ml_dtypes_on_the_sweeps() {
    let mut checked = 0;
    for f in FORMATS {
        for low in [0u32, 1, 0x8000, 0xffff] {
            let prefix = format!("{} {:04x} ", name(f), low);
            let line = data().lines().find(|l| l.starts_with(&prefix)).unwrap();
            let mut h = 0u32;
            for run in line[prefix.len()..].split_whitespace() {
                let (code, n) = run.split_once(':').unwrap();
                let code = u8::from_str_radix(code, 16).unwrap();
                for _ in 0..n.parse::<u32>().unwrap() {
                    let x = f32::from_bits((h << 16) | low);
                    assert_eq!(
                        f.from_f32(x, Saturation::Off),
                        code,
                        "{f:?} {x:e} ({:#010x})",
                        x.to_bits()
                    );
                    h += 1;
                    checked += 1;
                }
            }
            assert_eq!(h, 65536);
        }
    }
    assert_eq!(checked, 3 * 4 * 65536);
}

/// The plain model: the code whose ml_dtypes value is nearest, ties to the even code; the
/// code after the largest finite one stands for the next value of the same spacing.
struct Model {
    vals: Vec<f64>,
    over: u8,
}

impl Model {
    fn new(f: F8Format) -> Model {
        let t = decode_table(f);
        let mut vals: Vec<f64> = vec![];
        for &b in &t[..128] {
            let v = f32::from_bits(b);
            if !v.is_finite() {
                break;
            }
            vals.push(v as f64);
        }
        let n = vals.len();
        vals.push(2.0 * vals[n - 1] - vals[n - 2]);
        // inf, or NaN for E4M3FN.
        let over = f.inf().or(f.nan()).unwrap_or(0);
        Model { vals, over }
    }
    fn convert(&self, f: F8Format, x: f32) -> u8 {
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        if x.is_nan() {
            return sign | f.nan().unwrap_or(0);
        }
        let a = (x as f64).abs();
        let last = self.vals.len() - 1;
        let hi = self.vals.partition_point(|v| *v < a).min(last);
        let c = if hi == 0 {
            0
        } else {
            let (dl, dh) = (a - self.vals[hi - 1], self.vals[hi] - a);
            if dl < dh || (dl == dh && (hi - 1) % 2 == 0) {
                hi - 1
            } else {
                hi
            }
        };
        sign | if c == last { self.over } else { c as u8 }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]
    #[test]
    fn f32_to_f8_is_the_nearest_code(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        for f in FORMATS {
            let m = Model::new(f);
            prop_assert_eq!(f.from_f32(x, Saturation::Off), m.convert(f, x), "{:?} {:e}", f, x);
        }
    }
}

#[test]
fn saturation_clamps_to_the_largest_finite_value() {
    for f in FORMATS {
        let max = f.max_code();
        for x in [1e30f32, f32::INFINITY] {
            assert_eq!(f.from_f32(x, Saturation::On), max, "{f:?}");
            assert_eq!(f.from_f32(-x, Saturation::On), 0x80 | max, "{f:?}");
        }
        assert!(f.to_f32(f.from_f32(f32::NAN, Saturation::On)).is_nan());
    }
}

/// Every f32 against the model (about 4 x 10^9 inputs per format; run with `--ignored`).
#[test]
#[ignore]
fn f32_to_f8_all_inputs() {
    for f in FORMATS {
        let m = Model::new(f);
        for bits in 0..=u32::MAX {
            let x = f32::from_bits(bits);
            assert_eq!(
                f.from_f32(x, Saturation::Off),
                m.convert(f, x),
                "{f:?} {bits:#x}"
            );
        }
    }
}
