//! DataCopyPad, SetPadValue, SetDeqScale and CastDequant through the C++ face
//! (`kernel_operator.h`, the C ABI's `npusim_data_copy_pad`, `npusim_set_pad_value`,
//! `npusim_set_deq_scale`, `npusim_set_deq_scale_vdeq`, `npusim_cast_dequant`): kernels in
//! `tests/kernels/deq_pad.cpp` compiled with the host C++ compiler, each output checked against
//! a plain model written here from the pages' formulas (DataCopyPad: rows padded to 32 bytes,
//! strides in bytes on GM and in 32-byte blocks on UB; CastDequant: `src * scale` rounded to
//! int16, clamped to 9 bits, plus the offset, saturated to int8, into one half of each
//! 32-byte destination block).

use npusim_core::npy::NpyArray;

mod common;
use common::arr;

fn launch(
    chip: &str,
    kernel: &str,
    args: Vec<(&str, NpyArray)>,
) -> Result<Vec<(String, NpyArray)>, String> {
    common::launch("deq_pad.cpp", chip, kernel, args)
}

#[test]
fn cpp_data_copy_pad_pads_rows_both_ways() {
    for chip in ["ascend910b", "ascend950"] {
        let x: Vec<i16> = (0..66).map(|i| 100 + i as i16).collect();
        let out = launch(
            chip,
            "pad_rows",
            vec![
                ("x", arr(&x)),
                ("y", arr(&[-1i16; 128])),
                ("z", arr(&[-1i16; 72])),
            ],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        // GM -> UB: row r reads x[r*23 .. r*23+20] (20 elements, then a 3-element gap) into
        // UB row r at r*48 (32 elements padded + one 16-element block of dstStride): 2 pad
        // values, the 20 elements, then pad values to the 32-byte boundary (32 elements).
        let mut ub = vec![-1i16; 128];
        for r in 0..3 {
            let row = &mut ub[r * 48..r * 48 + 32];
            row.fill(9);
            row[2..22].copy_from_slice(&x[r * 23..r * 23 + 20]);
        }
        // Rows 0 and 1 leave 16 elements of the dstStride gap untouched: UB starts as it was
        // (the kernel never wrote it), so compare only the rows and then the whole y where
        // the gap is the UB's initial contents.
        let y = out[1].1.to_elems::<i16>().expect("int16 y");
        for r in 0..3 {
            assert_eq!(
                &y[r * 48..r * 48 + 32],
                &ub[r * 48..r * 48 + 32],
                "{chip} row {r}"
            );
        }
        // UB -> GM: 3 rows of 22 elements (44 bytes, rounded up to 64 in UB, + srcStride 1
        // block = 48 elements per UB row) to z with 2-element gaps (row stride 24).
        let z = out[2].1.to_elems::<i16>().expect("int16 z");
        let mut want = vec![-1i16; 72];
        for r in 0..3 {
            want[r * 24..r * 24 + 22].copy_from_slice(&ub[r * 48..r * 48 + 22]);
        }
        assert_eq!(z, want, "{chip}");
    }
}

#[test]
fn cpp_set_pad_value_fills_the_block_tail() {
    let x: Vec<half::f16> = (0..10)
        .map(|i| half::f16::from_f32(i as f32 + 0.5))
        .collect();
    let out = launch(
        "ascend910b",
        "pad_value",
        vec![("x", arr(&x)), ("y", arr(&[half::f16::ZERO; 32]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<half::f16>().expect("half y");
    let mut want = vec![half::f16::from_f32(-2.0); 32];
    want[..5].copy_from_slice(&x[..5]);
    want[16..21].copy_from_slice(&x[5..]);
    assert_eq!(y, want);
    // SetPadValue is an A2/A3 and Ascend 950 call.
    let e = launch(
        "ascend310p",
        "pad_value",
        vec![("x", arr(&x)), ("y", arr(&[half::f16::ZERO; 32]))],
    )
    .unwrap_err();
    assert!(
        e.contains("deq_pad.cpp:") && e.contains("SetPadValue"),
        "{e}"
    );
}

/// The s16 -> s8 element model: `src * scale` rounded to nearest even into int16, clamped to
/// [-256, 255], plus the offset, saturated to int8.
fn deq(x: i16, scale: f32, offset: i32) -> i8 {
    let v = (x as f32 * scale).round_ties_even();
    let v = (v.clamp(-32768.0, 32767.0) as i32).clamp(-256, 255) + offset;
    v.clamp(-128, 127) as i8
}

fn s16_source() -> Vec<i16> {
    (0..256).map(|i| ((i * 37) % 1201) as i16 - 600).collect()
}

#[test]
fn cpp_cast_dequant_per_tensor_count_form() {
    let x = s16_source();
    for chip in ["ascend910b", "ascend950", "ascend310p"] {
        let out = launch(
            chip,
            "dequant_tensor",
            vec![("x", arr(&x)), ("y", arr(&[0x55i8; 512]))],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let y = out[1].1.to_elems::<i8>().expect("int8 y");
        let mut want = vec![0x55i8; 512];
        for (i, &v) in x.iter().enumerate() {
            // halfBlock = false: block b's 16 results in bytes 0..15 of destination block b.
            want[(i / 16) * 32 + i % 16] = deq(v, 0.5, 3);
        }
        assert_eq!(y, want, "{chip}");
    }
}

#[test]
fn cpp_cast_dequant_vector_quantization_repeat_form() {
    let x = s16_source();
    let out = launch(
        "ascend910b",
        "dequant_vector",
        vec![("x", arr(&x)), ("y", arr(&[0x55i8; 512]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<i8>().expect("int8 y");
    let mut want = vec![0x55i8; 512];
    for (i, &v) in x.iter().enumerate() {
        let j = i % 16;
        let scale = [0.25f32, 0.5, 1.0, 2.0][j % 4];
        // halfBlock = true: bytes 16..31 of the block; bytes 0..15 keep their value.
        want[(i / 16) * 32 + 16 + j] = deq(v, scale, j as i32 - 8);
    }
    assert_eq!(y, want);
}

#[test]
fn cpp_cast_dequant_int32_to_half() {
    let x: Vec<i32> = (0..64).map(|i| (i * 3853 % 240001) - 120000).collect();
    let out = launch(
        "ascend910b",
        "dequant_s32",
        vec![("x", arr(&x)), ("y", arr(&[half::f16::ZERO; 64]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<half::f16>().expect("half y");
    let want: Vec<half::f16> = x
        .iter()
        .map(|&v| half::f16::from_f64(v as f64 * 0.5))
        .collect();
    assert_eq!(y, want);
    // Atlas inference AI Core has no int32 -> half CastDequant.
    let e = launch(
        "ascend310p",
        "dequant_s32",
        vec![("x", arr(&x)), ("y", arr(&[half::f16::ZERO; 64]))],
    )
    .unwrap_err();
    assert!(
        e.contains("deq_pad.cpp:") && e.contains("CastDequant"),
        "{e}"
    );
}

#[test]
fn cpp_cast_dequant_sign_mode_must_match_the_destination() {
    let e = launch(
        "ascend910b",
        "dequant_wrong_sign",
        vec![("x", arr(&s16_source())), ("y", arr(&[0u8; 512]))],
    )
    .unwrap_err();
    assert!(
        e.contains("deq_pad.cpp:") && e.contains("CastDequant") && e.contains("signMode"),
        "{e}"
    );
}
