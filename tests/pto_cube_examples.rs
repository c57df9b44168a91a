//! The cube kernels of `examples/pto/` through `npusim run`, against plain models written here.
//!
//! `gemm_256x256x512.pto`: inputs from a deterministic generator (f16 values, including ±0,
//! denormals and large magnitudes), written as .npy; the reference is this file's own
//! triple loop in the documented hardware order (npusim-pto crate docs, `MatmulOrder::
//! FractalKBlocks`): the f32 accumulator receives one partial sum per K-block of 16 halves, each
//! partial a chain `p = p + a·b` from 0 (products of halves are exact in f32). Under that order
//! the result is compared bit for bit; numpy's float32 matmul (another summation order) is within
//! a stated tolerance, checked here against an f64 sum: |c - exact| <= 1e-5 · Σ|a·b| + 1e-30.

use npusim_core::npy::{NpyArray, read_npy, to_npy_bytes};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write_npy<T: npusim_core::Element>(path: &Path, shape: Vec<usize>, v: &[T]) {
    let a = NpyArray::from_elems(shape, v);
    std::fs::write(path, to_npy_bytes(&a).unwrap()).unwrap();
}

fn gen_f16(n: usize, seed: u64) -> Vec<half::f16> {
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match i % 97 {
                0 => half::f16::from_bits(0x8000), // -0
                1 => half::f16::from_bits(0x0003), // denormal
                2 => half::f16::from_f32(300.0),
                _ => half::f16::from_f32(((s >> 40) % 2001) as f32 / 1000.0 - 1.0),
            }
        })
        .collect()
}

#[test]
fn gemm_256x256x512_is_bit_exact_under_the_hardware_order() {
    let (m, k, n) = (256, 512, 256);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = gen_f16(m * k, 0x1234_5678);
    let b = gen_f16(k * n, 0x9abc_def1);
    write_npy(&d.join("a.npy"), vec![m, k], &a);
    write_npy(&d.join("b.npy"), vec![k, n], &b);
    write_npy(&d.join("c.npy"), vec![m, n], &vec![0f32; m * n]);
    let arg = |name: &str| format!("{name}={}", d.join(format!("{name}.npy")).display());
    let out = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .arg("run")
        .arg(root().join("examples/pto/gemm_256x256x512.pto"))
        .args(["--arg", &arg("a"), "--arg", &arg("b"), "--arg", &arg("c")])
        .args(["--out", &format!("c={}", d.join("out.npy").display())])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<f32> = read_npy(&d.join("out.npy")).unwrap().to_elems().unwrap();
    assert_eq!(got.len(), m * n);
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    let mut mismatches = 0;
    // The test must tell orders apart: a single chain over all of K (the CPU simulator's
    // order) differs from the hardware order on some elements of these inputs.
    let mut chain_differs = 0;
    for i in 0..m {
        for j in 0..n {
            // The documented hardware order: K-blocks of 16, each chain from 0.
            let mut c = 0f32;
            let (mut exact, mut mag) = (0f64, 0f64);
            for k0 in (0..k).step_by(16) {
                let mut p = 0f32;
                for kk in k0..k0 + 16 {
                    let prod = af[i * k + kk] * bf[kk * n + j];
                    p += prod;
                    exact += prod as f64;
                    mag += (prod as f64).abs();
                }
                c += p;
            }
            let mut chain = 0f32;
            for kk in 0..k {
                chain += af[i * k + kk] * bf[kk * n + j];
            }
            let g = got[i * n + j];
            if g.to_bits() != chain.to_bits() {
                chain_differs += 1;
            }
            if g.to_bits() != c.to_bits() {
                mismatches += 1;
            }
            assert!(
                ((g as f64) - exact).abs() <= 1e-5 * mag + 1e-30,
                "({i}, {j}): {g} vs exact {exact}"
            );
        }
    }
    assert!(
        chain_differs > 0,
        "inputs do not separate the summation orders"
    );
    assert_eq!(
        mismatches, 0,
        "elements differing from the hardware-order model"
    );
}
