//! Brcb, CreateVecIndex and the CMPMASK register: the pages' worked examples (Brcb.md: 16
//! values each filling a block; CreateVecIndex.md: 0..127), and a compare-into-CMPMASK,
//! read-back, select-mode-0 chain checked against a plain model.

use half::f16;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, NpyArray};

#[test]
fn brcb_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<f16>("src", 16).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 256).unwrap();
    let x: Vec<f16> = (1..=16).map(|i| f16::from_f32(i as f32)).collect();
    asc.write(&s, &x).unwrap();
    asc.Brcb(&d, &s, 2, 1, 8).unwrap();
    let out = asc.read::<f16>(&d).unwrap();
    for (i, v) in out.iter().enumerate() {
        assert_eq!(v.to_f32(), (i / 16 + 1) as f32, "element {i}");
    }
    // Not on Atlas training (Brcb.md lists no such product).
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    let s = asc.AllocTensor::<f16>("src", 16).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 256).unwrap();
    assert!(
        asc.Brcb(&d, &s, 2, 1, 8)
            .unwrap_err()
            .to_string()
            .contains("not supported")
    );
}

#[test]
fn create_vec_index_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let d = asc.AllocTensor::<i16>("dst", 128).unwrap();
    asc.CreateVecIndex(&d, 0i16, 128).unwrap();
    assert_eq!(asc.read::<i16>(&d).unwrap(), (0..128).collect::<Vec<i16>>());
}

#[test]
fn vcmp_into_cmpmask_then_select_mode_0() {
    let mut t = Tik::new(ChipId::Ascend910);
    let ag = t.tensor("float16", &[256], "ag", Scope::Gm).unwrap();
    let og = t.tensor("float16", &[128], "og", Scope::Gm).unwrap();
    let mg = t.tensor("uint16", &[16], "mg", Scope::Gm).unwrap();
    let a = t.tensor("float16", &[256], "a", Scope::Ubuf).unwrap();
    let m = t.tensor("uint16", &[16], "m", Scope::Ubuf).unwrap();
    let d = t.tensor("float16", &[128], "d", Scope::Ubuf).unwrap();
    t.data_move(&a, &ag, 0, 1, 16, 0, 0).unwrap();
    // CMPMASK = a[0..128] < a[128..256] on the low 100 lanes; the rest keep 0.
    t.vcmp_lt(100, &a, &a.at(128), 1, 1).unwrap();
    t.mov_cmpmask_to_tensor(&m).unwrap();
    // dst = mask ? a : b over all 128 lanes: the elementwise minimum where compared.
    t.vec_sel(128, 0, &d, &m, &a, &a.at(128), 1, 8, 8, 8)
        .unwrap();
    t.data_move(&og, &d, 0, 1, 8, 0, 0).unwrap();
    t.data_move(&mg, &m, 0, 1, 1, 0, 0).unwrap();
    t.build_cce("k", &[&ag], &[&og, &mg]).unwrap();
    let x: Vec<f16> = (0..256)
        .map(|i| f16::from_f32(((i * 37) % 101) as f32 - 50.0))
        .collect();
    let out = t
        .start_debug(&[("ag", &NpyArray::from_elems(vec![256], &x))])
        .unwrap();
    let d: Vec<f16> = out[0].1.to_elems().unwrap();
    let m: Vec<u16> = out[1].1.to_elems().unwrap();
    for e in 0..128 {
        let lt = e < 100 && x[e] < x[128 + e];
        assert_eq!(m[e / 16] >> (e % 16) & 1 == 1, lt, "mask bit {e}");
        assert_eq!(d[e], if lt { x[e] } else { x[128 + e] }, "lane {e}");
    }
}

#[test]
fn gather_follows_the_page_formula() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<f16>("src", 128).unwrap();
    let o = asc.AllocTensor::<u32>("off", 128).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 128).unwrap();
    let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32 * 0.5)).collect();
    asc.write(&s, &x).unwrap();
    // Reverse order, in bytes from a base of 2 bytes (element 1).
    let off: Vec<u32> = (0..128u32).map(|i| (126 - i.min(126)) * 2).collect();
    asc.write(&o, &off).unwrap();
    asc.Gather(&d, &s, &o, 2, 128).unwrap();
    let out = asc.read::<f16>(&d).unwrap();
    for i in 0..128 {
        assert_eq!(out[i], x[(2 + off[i] as usize) / 2], "element {i}");
    }
    // Offsets that leave src or split an element are errors.
    asc.write(&o, &[1u32]).unwrap();
    assert!(
        asc.Gather(&d, &s, &o, 0, 1)
            .unwrap_err()
            .to_string()
            .contains("multiple of sizeof")
    );
    asc.write(&o, &[256u32]).unwrap();
    assert!(asc.Gather(&d, &s, &o, 0, 1).is_err());
}

#[test]
fn transpose_16x16() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<u16>("src", 256).unwrap();
    let d = asc.AllocTensor::<u16>("dst", 256).unwrap();
    let x: Vec<u16> = (0..256).collect();
    asc.write(&s, &x).unwrap();
    asc.Transpose(&d, &s).unwrap();
    let out = asc.read::<u16>(&d).unwrap();
    for i in 0..16 {
        for j in 0..16 {
            assert_eq!(out[i * 16 + j], x[j * 16 + i]);
        }
    }
}

#[test]
fn gather_mask_patterns_and_modes() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<u16>("src", 256).unwrap();
    let p = asc.AllocTensor::<u16>("pat", 16).unwrap();
    let d = asc.AllocTensor::<u16>("dst", 256).unwrap();
    let x: Vec<u16> = (0..256).collect();
    asc.write(&s, &x).unwrap();
    // Pattern 1 (even elements), normal mode, 2 repeats.
    let n = asc.GatherMask(&d, &s, 1, false, 0, [1, 2, 8, 0]).unwrap();
    assert_eq!(n, 128);
    assert_eq!(
        asc.read::<u16>(&d).unwrap()[..128],
        (0..256).step_by(2).collect::<Vec<u16>>()[..]
    );
    // Pattern 6: every fourth element from offset 3.
    let n = asc.GatherMask(&d, &s, 6, false, 0, [1, 1, 8, 0]).unwrap();
    assert_eq!(n, 32);
    assert_eq!(
        asc.read::<u16>(&d).unwrap()[..32],
        (3..128).step_by(4).collect::<Vec<u16>>()[..]
    );
    // A user pattern 0x9999 (elements 0 and 3 of every four), counter mode: 70 lanes per
    // repeat, 2 repeats, src1RepeatStride 0 (GatherMask.md's figure parameters).
    asc.write(&p, &[0x9999u16; 16]).unwrap();
    let n = asc
        .GatherMaskRepeat(&d, &s, &p, true, 70, [1, 2, 8, 0])
        .unwrap();
    let mut want = Vec::new();
    for r in 0..2u16 {
        for e in 0..70u16 {
            if e % 4 == 0 || e % 4 == 3 {
                want.push(r * 128 + e);
            }
        }
    }
    assert_eq!(n as usize, want.len());
    assert_eq!(asc.read::<u16>(&d).unwrap()[..want.len()], want[..]);
    let e = asc
        .GatherMask(&d, &s, 8, false, 0, [1, 1, 8, 0])
        .unwrap_err();
    assert!(e.to_string().contains("src1Pattern"), "{e}");
}

#[test]
fn tik_vreduce_keeps_odd_elements() {
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("float16", &[128], "g", Scope::Gm).unwrap();
    let o = t.tensor("float16", &[64], "o", Scope::Gm).unwrap();
    let s = t.tensor("float16", &[128], "s", Scope::Ubuf).unwrap();
    let d = t.tensor("float16", &[64], "d", Scope::Ubuf).unwrap();
    t.data_move(&s, &g, 0, 1, 8, 0, 0).unwrap();
    t.vreduce(128, &d, &s, 2, 1, 1, 8, 0).unwrap();
    t.data_move(&o, &d, 0, 1, 4, 0, 0).unwrap();
    t.build_cce("k", &[&g], &[&o]).unwrap();
    let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32)).collect();
    let out = t
        .start_debug(&[("g", &NpyArray::from_elems(vec![128], &x))])
        .unwrap();
    let y: Vec<f16> = out[0].1.to_elems().unwrap();
    assert_eq!(
        y,
        (0..64)
            .map(|i| f16::from_f32((2 * i + 1) as f32))
            .collect::<Vec<_>>()
    );
}
