//! Compare with a scalar (`vcmpvs_xx`, Ascend C CompareScalar / Compares) and the legacy
//! `vcmpv_xx` with block strides: the Compares.md worked example (256 floats against
//! `src1Local.GetValue(0)`, LT; the printed 32 output bytes, all bit-exact) and a proptest
//! against a plain model.

mod common;

use half::f16;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, NpyArray};
use proptest::prelude::*;

const SRC: [f32; 256] = [
    16.604824, 45.069473, 65.108345, -59.68792, 21.043684, 75.90726, -27.046307, -40.10546,
    -5.933778, 83.56574, 58.87062, -12.77814, 28.17882, 62.549377, -22.310246, -67.69001, 81.06072,
    69.988945, 69.10082, -6.667376, 96.20256, 18.532446, -66.56364, -32.531246, 49.980835,
    35.668995, -16.847628, 1.3236234, 10.0143795, 43.878166, 26.628105, 31.774637, 47.9279,
    79.7291, -54.09651, 95.49459, -18.404795, -86.84594, 9.406091, -79.54437, 0.49116692,
    -48.151714, -12.97062, -99.89055, 23.475513, -27.366564, -69.229675, 83.613304, 52.14729,
    40.98426, -23.422009, -53.386215, 1.6576616, -62.36946, 54.693733, 66.2058, -4.0042257,
    -25.351263, 1.0000885, -6.458584, 25.447659, 71.647316, 82.31162, -7.7359715, 28.107353,
    -79.22045, 20.292479, 67.7434, -76.054085, -7.754251, 38.632687, -4.8460293, -69.791954,
    -57.574455, -99.96178, -73.29611, -68.57477, 98.200035, -55.30482, -55.590027, 79.53274,
    -1.862139, -37.60953, -12.225406, -35.2875, -24.047668, -66.07609, 21.9362, 80.603516,
    28.928387, 26.579298, 97.6649, 78.94723, -89.86824, 73.29788, 18.957182, -73.87053, -23.508097,
    -51.02931, 39.158726, -96.61422, -41.192455, 54.973663, 47.58695, -3.9818003, -81.05088,
    -67.62415, -17.491713, -34.916042, -95.993744, -3.4719822, -55.956417, 6.223455, 12.240832,
    15.055512, 94.70584, -13.33949, -50.46866, 54.612816, -28.521824, -87.63997, 59.53054,
    41.000504, -31.266075, -31.419422, -32.940186, 53.449913, 50.012768, -13.663364, 40.931725,
    -68.80396, -86.63726, 76.866585, -83.76385, 3.7227867, 58.443035, -74.333046, -92.52674,
    24.249512, -7.935491, 24.197245, -34.85033, 67.854645, 72.65312, 13.622443, -70.94266,
    15.401667, -9.332295, -86.61463, 72.659676, -83.63352, 9.279887, 81.037964, 46.285606,
    -12.967846, -48.72901, 69.07614, -40.355286, -94.257034, -45.514374, 24.966864, -9.657219,
    61.803864, -83.09603, 77.769035, -97.44226, -89.71987, -53.969315, 43.892918, 73.88798,
    67.23104, 36.65282, -93.70069, -87.48934, -27.679005, -36.825226, -30.117033, -41.579655,
    -97.325325, 77.1972, -49.883194, 33.061394, -63.844925, 89.74327, 64.549416, 80.16943,
    73.26347, -87.307175, -96.62777, 81.8532, 7.5365276, 28.357092, 59.896378, -15.95738,
    -77.42723, 0.03529428, -20.263502, 45.59324, -90.160835, 89.478004, 57.608685, 60.71819,
    45.8125, 39.94484, -48.77375, -56.897358, 5.2580256, -6.937905, -49.80309, -42.527523,
    72.91772, 89.53271, -62.181187, 18.490683, -69.40782, 6.141204, 13.938042, 75.312515,
    21.766457, -8.157599, 55.53147, -30.789118, -12.087165, 82.435684, 23.4884, 82.73172,
    -2.026827, -8.124383, -10.707488, -74.32759, -54.702602, 14.209252, 93.73145, 98.93554,
    52.803623, 32.200726, 41.823833, 90.193756, -34.512424, -85.64022, 97.47763, 33.353424,
    94.84875, 23.03139, 99.97347, -72.47978, 19.51753, -88.28579, -88.70721, -18.659292, -79.5277,
    62.90431, 21.837631, 45.989056, -9.62086, 11.4855795,
];
const SCALAR: f32 = -95.16087;
const OUT: [u8; 32] = [
    0, 0, 0, 0, 0, 8, 0, 0, 0, 4, 0, 0, 16, 32, 0, 0, 0, 0, 0, 0, 32, 0, 4, 16, 0, 0, 0, 0, 0, 0,
    0, 0,
];

#[test]
fn compares_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<f32>("src0", 256).unwrap();
    let d = asc.AllocTensor::<u8>("dst", 32).unwrap();
    asc.write(&s, &SRC).unwrap();
    asc.CompareScalar(&d, &s, SCALAR, CmpMode::Lt, 256).unwrap();
    assert_eq!(asc.read::<u8>(&d).unwrap(), OUT);
}

const MODES: [CmpMode; 6] = CmpMode::ALL;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn vcmpvs_and_legacy_vcmpv_match_the_model(m in 0usize..6, repeat in 1u32..4, blk0 in 0u32..3, blk1 in 0u32..3,
                                               rep0 in 0u32..10, rep1 in 0u32..10, scalar_bits in any::<u16>(),
                                               vals in proptest::collection::vec(any::<u16>(), 2048), use_scalar in any::<bool>(),
                                               chip_i in 0usize..6) {
        let mode = MODES[m];
        let n = 2048usize;
        let mut t = Tik::new(common::CHIPS[chip_i]);
        let ag = t.tensor("float16", &[n], "ag", Scope::Gm).unwrap();
        let dg = t.tensor("uint8", &[64], "dg", Scope::Gm).unwrap();
        let a = t.tensor("float16", &[n], "a", Scope::Ubuf).unwrap();
        let b = t.tensor("float16", &[n], "b", Scope::Ubuf).unwrap();
        let d = t.tensor("uint8", &[64], "d", Scope::Ubuf).unwrap();
        t.data_move(&a, &ag, 0, 1, (n * 2 / 32) as i64, 0, 0).unwrap();
        t.data_move(&b, &ag, 0, 1, (n * 2 / 32) as i64, 0, 0).unwrap();
        let scalar = f16::from_bits(scalar_bits);
        // Keep the scalar finite (a NaN scalar has no place in a TIK program).
        let scalar = if scalar.is_nan() { f16::from_f32(1.0) } else { scalar };
        let name = mode.name();
        let r = repeat as i64;
        let res = if use_scalar {
            match name {
                "lt" => t.vcmpvs_lt(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
                "gt" => t.vcmpvs_gt(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
                "ge" => t.vcmpvs_ge(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
                "eq" => t.vcmpvs_eq(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
                "ne" => t.vcmpvs_ne(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
                _ => t.vcmpvs_le(&d, &a, scalar, r, blk0 as i64, rep0 as i64),
            }
        } else {
            let (b0, b1, r0, r1) = (blk0 as i64, blk1 as i64, rep0 as i64, rep1 as i64);
            match name {
                "lt" => t.vcmpv_lt(&d, &a, &b.at(16), r, b0, b1, r0, r1),
                "gt" => t.vcmpv_gt(&d, &a, &b.at(16), r, b0, b1, r0, r1),
                "ge" => t.vcmpv_ge(&d, &a, &b.at(16), r, b0, b1, r0, r1),
                "eq" => t.vcmpv_eq(&d, &a, &b.at(16), r, b0, b1, r0, r1),
                "ne" => t.vcmpv_ne(&d, &a, &b.at(16), r, b0, b1, r0, r1),
                _ => t.vcmpv_le(&d, &a, &b.at(16), r, b0, b1, r0, r1),
            }
        };
        res.unwrap();
        t.data_move(&dg, &d, 0, 1, 2, 0, 0).unwrap();
        t.build_cce("k", &[&ag], &[&dg]).unwrap();
        let x: Vec<f16> = vals.iter().map(|v| f16::from_bits(*v)).collect();
        let out = t.start_debug(&[("ag", &NpyArray::from_elems(vec![n], &x))]).unwrap();
        let got = out[0].1.to_elems::<u8>().unwrap();
        // Model: lane e of repeat r at block e/16 with the block and repeat strides; the bit
        // stream advances 16 bytes per repeat; bytes not written stay 0.
        let mut want = vec![0u8; 64];
        for rr in 0..repeat as usize {
            for e in 0..128usize {
                let ia = rr * rep0 as usize * 16 + (e / 16) * blk0 as usize * 16 + e % 16;
                let x0 = x[ia].to_f64();
                let y = if use_scalar {
                    scalar.to_f64()
                } else {
                    x[16 + rr * rep1 as usize * 16 + (e / 16) * blk1 as usize * 16 + e % 16].to_f64()
                };
                if mode.holds(x0, y) {
                    let bit = rr * 128 + e;
                    want[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        prop_assert_eq!(got, want);
    }
}
