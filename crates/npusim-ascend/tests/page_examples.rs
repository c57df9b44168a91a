//! More pages' worked examples (asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/**`,
//! 结果示例), reproduced on the simulator:
//! - Compare（结果存入寄存器）.md: 64 printed floats compared LT into CMPMASK, read back with
//!   GetCmpMask: the printed 8 bytes;
//! - Gather.md: byte offsets [254 252 ... 0] over 128 halves [0 1 ... 127] give [127 ... 0];
//! - GatherMask.md: pattern 2 over [1 2 ... 256] (32-bit elements), in place, 4 repeats, gives
//!   the even values and rsvdCnt 128.

use half::f16;
use npusim_ascend::ascendc::{AscendC, BinaryRepeatParams, CMPMODE};
use npusim_core::ChipId;

const CMP_SRC0: [f32; 64] = [
    86.72287, 9.413112, 17.033222, -64.10005, -66.2691, -65.57659, 15.898049, 94.61241, -68.920685,
    -36.16883, 15.62852, 68.078514, -59.724575, -9.4302225, -64.770935, 66.55523, -84.60122,
    57.331, 60.42026, -86.78856, 37.25265, 8.356797, -48.544407, 16.73616, 15.28083, -21.889254,
    -67.93181, -41.01825, -68.79465, 20.169441, 44.11346, -27.419518, 30.452742, -89.30283,
    -18.590672, 32.45831, 8.392082, -57.198048, 98.76846, -81.73067, -38.274437, -83.84363,
    64.30617, 6.028703, -20.77164, 93.71867, 54.190437, 94.98172, -47.447758, -65.77461, 82.21715,
    59.953922, 23.599781, -77.29708, 26.963976, -63.468987, 79.97712, -70.47842, 39.00433,
    52.36555, -63.94925, -65.77033, 26.17237, -71.904884,
];
const CMP_SRC1: [f32; 64] = [
    2.2989323, 51.8879, -81.49718, 41.189415, 6.4081917, 92.566666, 53.205498, -94.47063,
    -75.38387, 36.464787, 85.60772, -28.70681, 42.58504, -76.15293, 38.723816, 10.006577, 74.53035,
    -78.38537, 71.945404, -4.060528, -14.501523, 28.229202, 96.87876, 41.558033, -92.623215,
    43.318684, 35.387154, -16.029816, 61.544827, 3.3527017, 55.806778, -93.242096, 22.86275,
    -87.506584, 35.29523, 8.405956, 91.03445, -85.29485, 34.30078, -3.8019252, 93.40503, 15.459968,
    -57.99712, -74.39948, -59.900818, -43.132637, -13.123036, 41.246174, -93.01083, 75.476875,
    -45.437893, -99.19293, 13.543604, 76.23386, 46.192528, -39.23934, 75.9787, -38.38979, 9.807722,
    -60.610104, -23.062874, 48.1669, 89.913376, 73.78631,
];

#[test]
fn compare_to_cmpmask_page_example() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend950, ChipId::Ascend310P] {
        let mut asc = AscendC::new(chip, 0);
        let a = asc.AllocTensor::<f32>("src0", 64).unwrap();
        let b = asc.AllocTensor::<f32>("src1", 64).unwrap();
        let m = asc.AllocTensor::<u8>("mask", 32).unwrap();
        asc.write(&a, &CMP_SRC0).unwrap();
        asc.write(&b, &CMP_SRC1).unwrap();
        asc.CompareToCmpMask(
            &a,
            &b,
            CMPMODE::Lt,
            [u64::MAX, 0],
            BinaryRepeatParams::new(1, 1, 1, 8, 8, 8),
        )
        .unwrap();
        asc.GetCmpMask(&m).unwrap();
        let got = asc.read::<u8>(&m).unwrap();
        assert_eq!(got[..8], [122, 86, 237, 94, 150, 3, 226, 242], "{chip:?}");
    }
}

#[test]
fn gather_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<f16>("src", 128).unwrap();
    let o = asc.AllocTensor::<u32>("srcOffset", 128).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 128).unwrap();
    let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32)).collect();
    asc.write(&s, &x).unwrap();
    let off: Vec<u32> = (0..128u32).map(|i| 254 - 2 * i).collect();
    asc.write(&o, &off).unwrap();
    asc.write(&d, &[f16::ZERO; 128]).unwrap();
    asc.Gather(&d, &s, &o, 0, 128).unwrap();
    let want: Vec<f16> = (0..128).map(|i| f16::from_f32(127.0 - i as f32)).collect();
    assert_eq!(asc.read::<f16>(&d).unwrap(), want);
}

#[test]
fn gather_mask_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<u32>("src0", 256).unwrap();
    let x: Vec<u32> = (1..=256).collect();
    asc.write(&s, &x).unwrap();
    // GatherMask(src0Local, src0Local, 2, false, 0, {1, 4, 8, 0}, rsvdCnt).
    let n = asc.GatherMask(&s, &s, 2, false, 0, [1, 4, 8, 0]).unwrap();
    assert_eq!(n, 128);
    let got = asc.read::<u32>(&s).unwrap();
    let want: Vec<u32> = (1..=128).map(|i| 2 * i).collect();
    assert_eq!(got[..128], want[..]);
}
