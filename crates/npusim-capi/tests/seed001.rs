//! Acceptance (a): seed 001's Ascend C kernel (class `KernelReduce` and the `extern "C"` entry,
//! with the page's Compute body), compiled with the system g++ against `kernel_operator.h` and
//! run on npusim through the C ABI, fed the 128 printed inputs.

use half::f16;
use npusim_ascend::demo::{SEED001_INPUT, SEED001_OUTPUT};
use npusim_capi::runner::{self, Launch};
use npusim_core::npy::NpyArray;
use std::path::PathBuf;

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name)
}

/// The tests need the host C++ compiler; say so clearly when it is missing.
fn require_gxx() {
    if let Err(e) = runner::compiler() {
        panic!("these tests compile Ascend C kernels with the host C++ compiler: {e}");
    }
}

fn run_seed(file: &str) -> Vec<f16> {
    require_gxx();
    let cache = tempfile::tempdir().expect("temp dir");
    let input: Vec<f16> = SEED001_INPUT.iter().map(|x| f16::from_f32(*x)).collect();
    let l = Launch {
        source: kernel(file),
        kernel: "reduce_simple_kernel".into(),
        blocks: 1,
        chip: "ascend910b".into(),
        args: vec![
            ("src".into(), NpyArray::from_elems(vec![128], &input)),
            (
                "dstGm".into(),
                NpyArray::from_elems(vec![64], &[f16::ZERO; 64]),
            ),
        ],
        cache_dir: cache.path().to_path_buf(),
    };
    let out = runner::run(&l).unwrap_or_else(|e| panic!("{e}"));
    out[1].1.to_elems::<f16>().expect("f16 output")
}

fn check(got: &[f16]) -> (usize, usize) {
    let input: Vec<f16> = SEED001_INPUT.iter().map(|x| f16::from_f32(*x)).collect();
    // A plain scalar model: each output is the pair's exact sum rounded once to half.
    for (j, g) in got.iter().enumerate() {
        let want = f16::from_f64(input[2 * j].to_f64() + input[2 * j + 1].to_f64());
        assert_eq!(
            g.to_bits(),
            want.to_bits(),
            "output {j}: {g} vs model {want}"
        );
    }
    let sig4 = |x: f32| format!("{x:.3e}");
    let printed = got
        .iter()
        .zip(SEED001_OUTPUT)
        .filter(|(g, w)| sig4(g.to_f32()) == sig4(*w))
        .count();
    let exact = got
        .iter()
        .zip(SEED001_OUTPUT)
        .filter(|(g, w)| g.to_bits() == f16::from_f32(*w).to_bits())
        .count();
    // Outputs that differ from the page must be explained by the page's 4-digit inputs.
    for (j, g) in got.iter().enumerate() {
        let half_digit = |x: f32| {
            if x == 0.0 {
                0.0
            } else {
                0.5 * 10f32.powi(x.abs().log10().floor() as i32 - 3)
            }
        };
        let ulp = (f16::from_bits(g.to_bits() + 1).to_f32() - g.to_f32()).abs();
        let tol = half_digit(SEED001_INPUT[2 * j])
            + half_digit(SEED001_INPUT[2 * j + 1])
            + half_digit(SEED001_OUTPUT[j])
            + ulp;
        assert!(
            (g.to_f32() - SEED001_OUTPUT[j]).abs() <= tol,
            "output {j}: {g} vs printed {}",
            SEED001_OUTPUT[j]
        );
    }
    (printed, exact)
}

#[test]
fn seed001_kernel_continuous_mask_gives_the_printed_outputs() {
    let got = run_seed("seed001_reduce_simple.cpp");
    let (printed, exact) = check(&got);
    println!(
        "seed 001 (continuous mask): {printed}/64 equal at the printed 4 digits, {exact}/64 bit-exact"
    );
    assert!(printed >= 60, "{printed}/64 at 4 digits");
}

#[test]
fn seed001_kernel_bitwise_mask_gives_the_same_outputs() {
    let a = run_seed("seed001_reduce_simple.cpp");
    let b = run_seed("seed001_reduce_simple_bitmask.cpp");
    check(&b);
    assert_eq!(
        a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}
