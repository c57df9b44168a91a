//! WholeReduceSum/Max, BlockReduceSum/Min, RepeatReduceSum and SetAtomicAdd/SetAtomicNone
//! through the C++ face (`kernel_operator.h`, the C ABI's `npusim_reduce` and
//! `npusim_set_atomic`): `tests/kernels/reduce_atomic.cpp` compiled with the host C++ compiler,
//! checked against plain models written here. The inputs are small integers, so every sum is
//! exact whatever order the hardware adds in; maxima are unique.

use npusim_core::npy::NpyArray;

mod common;
use common::arr;

fn launch(
    chip: &str,
    kernel: &str,
    args: Vec<(&str, NpyArray)>,
) -> Result<Vec<(String, NpyArray)>, String> {
    common::launch("reduce_atomic.cpp", chip, kernel, args)
}

#[test]
fn cpp_reductions_match_the_model() {
    // Distinct small integers: x[i] = (i * 37) % 256 - 128.
    let x: Vec<f32> = (0..256).map(|i| ((i * 37) % 256) as f32 - 128.0).collect();
    for chip in ["ascend910b", "ascend950", "ascend310p"] {
        let out = launch(
            chip,
            "reductions",
            vec![("x", arr(&x)), ("y", arr(&[-1.0f32; 64]))],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let y = out[1].1.to_elems::<f32>().expect("float y");
        let mut want = vec![-1.0f32; 64];
        for r in 0..4 {
            want[r] = x[r * 64..r * 64 + 64].iter().sum();
        }
        for r in 0..2 {
            let rep = &x[r * 64..r * 64 + 64];
            let (i, v) =
                rep.iter().enumerate().fold(
                    (0, f32::MIN),
                    |m, (i, v)| if *v > m.1 { (i, *v) } else { m },
                );
            want[8 + 2 * r] = v;
            // The index is stored as the raw bits of an integer in the float slot.
            want[8 + 2 * r + 1] = f32::from_bits(i as u32);
        }
        for b in 0..8 {
            want[16 + b] = x[b * 8..b * 8 + 8].iter().sum();
        }
        for r in 0..2 {
            want[24 + r] = x[r * 64..r * 64 + 64].iter().sum();
        }
        // BlockReduceMin over x[64..128] with the first 40 lanes active: blocks 0..4 have 8
        // lanes, block 4 has 8 (lanes 32..40); blocks 5..7 have none.
        for b in 0..5 {
            want[32 + b] = x[64 + b * 8..64 + b * 8 + 8]
                .iter()
                .copied()
                .fold(f32::MAX, f32::min);
        }
        for (i, (g, w)) in y.iter().zip(&want).enumerate() {
            if (32 + 5..32 + 8).contains(&i) {
                // A block with no active lane: the chip's policy (kept or zero), not checked.
                continue;
            }
            assert_eq!(g.to_bits(), w.to_bits(), "{chip}: y[{i}] = {g}, model {w}");
        }
    }
    // Atlas training has RepeatReduceSum in half only (ReduceRepeat.md).
    let e = launch(
        "ascend910",
        "reductions",
        vec![("x", arr(&x)), ("y", arr(&[-1.0f32; 64]))],
    )
    .unwrap_err();
    assert!(
        e.contains("reduce_atomic.cpp:29")
            && e.contains("RepeatReduceSum")
            && e.contains("float16"),
        "{e}"
    );
}

#[test]
fn cpp_atomic_add_accumulates_into_gm() {
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 7.0).collect();
    let y0: Vec<f32> = (0..128).map(|i| 100.0 + i as f32).collect();
    for chip in ["ascend910b", "ascend910"] {
        let out = launch(chip, "atomic_add", vec![("x", arr(&x)), ("y", arr(&y0))])
            .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let y = out[1].1.to_elems::<f32>().expect("float y");
        let mut want = y0.clone();
        for (w, v) in want.iter_mut().zip(&x) {
            *w += v;
        }
        want[64..].copy_from_slice(&x);
        assert_eq!(y, want, "{chip}");
    }
    let e = launch("ascend910", "atomic_int8", vec![("x", arr(&[0i8; 32]))]).unwrap_err();
    assert!(
        e.contains("reduce_atomic.cpp:") && e.contains("SetAtomicAdd") && e.contains("int8"),
        "{e}"
    );
}
