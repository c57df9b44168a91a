//! Brcb, Transpose, Gather, CreateVecIndex, GatherMask and Compare into CMPMASK (with
//! SetCmpMask / GetCmpMask) through the C++ face (`kernel_operator.h`, the C ABI's
//! `npusim_rearrange`): `tests/kernels/rearrange.cpp` compiled with the host C++ compiler,
//! checked against plain models of the pages' formulas written here.

use npusim_core::npy::NpyArray;

mod common;
use common::arr;

fn launch(
    chip: &str,
    kernel: &str,
    args: Vec<(&str, NpyArray)>,
) -> Result<Vec<(String, NpyArray)>, String> {
    common::launch("rearrange.cpp", chip, kernel, args)
}

#[test]
fn cpp_brcb_transpose_gather() {
    let a: Vec<u16> = (0..640u32).map(|i| (i * 7919 % 65521) as u16).collect();
    let off: Vec<u32> = (0..128u32).map(|i| (i * 37 % 127) * 2).collect();
    for chip in ["ascend910b", "ascend950"] {
        let out = launch(
            chip,
            "moves16",
            vec![
                ("a", arr(&a)),
                ("off", arr(&off)),
                ("out", arr(&[0u16; 640])),
            ],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let got = out[2].1.to_elems::<u16>().expect("uint16 out");
        let mut want = a.clone();
        // Brcb: repeat r, element k fills block r*8 + k (16 elements) with a[8r + k].
        for (b, w) in want[..256].chunks_mut(16).enumerate() {
            w.fill(a[b]);
        }
        for i in 0..16 {
            for j in 0..16 {
                want[256 + i * 16 + j] = a[j * 16 + i];
            }
        }
        for i in 0..100 {
            want[512 + i] = a[(2 + off[i] as usize) / 2];
        }
        assert_eq!(got, want, "{chip}");
    }
}

#[test]
fn cpp_create_vec_index_and_gather_mask() {
    let x: Vec<u32> = (1..=256).collect();
    let out = launch(
        "ascend910b",
        "index_mask",
        vec![
            ("x", arr(&x)),
            ("y", arr(&[7i32; 128])),
            ("n", arr(&[0i32; 8])),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<i32>().expect("int32 y");
    let want_y: Vec<i32> = (0..128).map(|i| if i < 100 { i - 5 } else { 7 }).collect();
    assert_eq!(y, want_y);
    // GatherMask pattern 2 (odd lanes) over [1 .. 256]: the even values, rsvdCnt 128 (the
    // GatherMask page's example).
    let gx = out[0].1.to_elems::<u32>().expect("uint32 x");
    let want: Vec<u32> = (1..=128).map(|i| 2 * i).collect();
    assert_eq!(gx[..128], want[..]);
    assert_eq!(out[2].1.to_elems::<i32>().expect("int32 n")[0], 128);
    // Brcb is not on Atlas training: a typed refusal with the call site.
    let e = launch(
        "ascend910",
        "moves16",
        vec![
            ("a", arr(&[0u16; 640])),
            ("off", arr(&[0u32; 128])),
            ("out", arr(&[0u16; 640])),
        ],
    )
    .unwrap_err();
    assert!(e.contains("rearrange.cpp:") && e.contains("Brcb"), "{e}");
}

#[test]
fn cpp_compare_into_cmpmask() {
    let a: Vec<f32> = (0..64).map(|i| ((i * 13) % 17) as f32 - 8.0).collect();
    let b: Vec<f32> = (0..64).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let init: Vec<u8> = (0..32).map(|i| (i * 29 + 3) as u8).collect();
    let out = launch(
        "ascend910b",
        "cmpmask",
        vec![("a", arr(&a)), ("b", arr(&b)), ("m", arr(&init))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = out[2].1.to_elems::<u8>().expect("uint8 m");
    let mut reg = u128::from_le_bytes(init[..16].try_into().expect("16 bytes"));
    let active = 0xF0F0_F0F0_F0F0_F0F0u64;
    for e in 0..64 {
        if active >> e & 1 == 1 {
            if a[e] < b[e] {
                reg |= 1 << e;
            } else {
                reg &= !(1u128 << e);
            }
        }
    }
    assert_eq!(m[..16], reg.to_le_bytes()[..]);
}

#[test]
fn cpp_copy_packs_rows() {
    let x: Vec<i32> = (0..18 * 64).map(|i| i * 3 - 1000).collect();
    let out = launch(
        "ascend910b",
        "copy_rows",
        vec![("x", arr(&x)), ("y", arr(&[0i32; 18 * 8]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<i32>().expect("int32 y");
    let want: Vec<i32> = (0..18)
        .flat_map(|r| x[r * 64..r * 64 + 8].to_vec())
        .collect();
    assert_eq!(y, want);
}
