//! The cube kernels of `examples/pto/` (and the mixed cube/vector one) through `npusim run`,
//! against plain models written here.
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

/// `attention_head.pto` (A5): `o = softmax((q · kᵀ) · 0.125, axis=1)` rounded to f16, times `v`.
/// The reference is this file's f64 model: the scores, the softmax and the second product in
/// f64, with `p` rounded to f16 as the kernel does before the second matmul. The kernel computes
/// in f32 (cube products under the K-block order, TEXP/TROWSUM/TROWEXPANDDIV on the vector
/// unit), so the comparison has a stated tolerance: |o - ref| <= 1e-3 · Σ_k |p_k · v_kj| + 1e-6
/// per element (one f16 rounding of a `p` value may land on the other side of the f64 model's),
/// and the mean absolute error over the tile must stay below 1e-5.
#[test]
fn attention_head_matches_an_f64_model() {
    let (s, d, n) = (16usize, 64usize, 64usize);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let gen_ = |len: usize, seed: u64| -> Vec<half::f16> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                half::f16::from_f32(((x >> 40) % 4001) as f32 / 1000.0 - 2.0)
            })
            .collect()
    };
    let q = gen_(s * d, 0x5151);
    let k = gen_(n * d, 0x7373);
    let v = gen_(n * d, 0x9191);
    write_npy(&p.join("q.npy"), vec![s, d], &q);
    write_npy(&p.join("k.npy"), vec![n, d], &k);
    write_npy(&p.join("v.npy"), vec![n, d], &v);
    write_npy(&p.join("o.npy"), vec![s, d], &vec![0f32; s * d]);
    let arg = |name: &str| format!("{name}={}", p.join(format!("{name}.npy")).display());
    let out = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .arg("run")
        .arg(root().join("examples/pto/attention_head.pto"))
        .args(["--arg", &arg("q"), "--arg", &arg("k"), "--arg", &arg("v")])
        .args(["--arg", &arg("o")])
        .args(["--out", &format!("o={}", p.join("out.npy").display())])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<f32> = read_npy(&p.join("out.npy")).unwrap().to_elems().unwrap();
    assert_eq!(got.len(), s * d);
    let f = |x: &half::f16| x.to_f64();
    let mut err_sum = 0f64;
    for i in 0..s {
        // scores: row i of q times key j (row j of k)
        let sc: Vec<f64> = (0..n)
            .map(|j| {
                (0..d)
                    .map(|t| f(&q[i * d + t]) * f(&k[j * d + t]))
                    .sum::<f64>()
                    * 0.125
            })
            .collect();
        let mx = sc.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = sc.iter().map(|x| (x - mx).exp()).collect();
        let tot: f64 = e.iter().sum();
        let pr: Vec<f64> = e
            .iter()
            .map(|x| half::f16::from_f64(x / tot).to_f64())
            .collect();
        for c in 0..d {
            let (mut want, mut mag) = (0f64, 0f64);
            for j in 0..n {
                let t = pr[j] * f(&v[j * d + c]);
                want += t;
                mag += t.abs();
            }
            let g = got[i * d + c] as f64;
            let err = (g - want).abs();
            err_sum += err;
            assert!(
                err <= 1e-3 * mag + 1e-6,
                "o[{i}, {c}] = {g}, model {want} (scale {mag})"
            );
        }
    }
    let mean = err_sum / (s * d) as f64;
    assert!(mean < 1e-5, "mean abs error {mean}");
}

fn run_mixed(kernel: &Path, d: &Path) -> std::process::Output {
    let arg = |name: &str| format!("{name}={}", d.join(format!("{name}.npy")).display());
    Command::new(env!("CARGO_BIN_EXE_npusim"))
        .arg("run")
        .arg(kernel)
        .args(["--arg", &arg("a"), "--arg", &arg("b"), "--arg", &arg("y")])
        .args(["--out", &format!("y={}", d.join("out.npy").display())])
        .output()
        .unwrap()
}

/// `mixed_matmul_relu.pto` (A5): the cube core pushes two 16x16 f32 accumulator tiles through
/// the cube-to-vector pipe split top/bottom; each vector core applies relu and 0.5 to its half
/// and stores it. The reference is a plain model here: the K-block order of the cube unit (two
/// blocks of 16 for K = 32), then relu and the scale (exact), compared bit for bit. A variant
/// with one pop more than the cube pushes must fail with the deadlock error naming both vector
/// cores, and write no output file.
#[test]
fn mixed_cube_vector_kernel_matches_and_its_deadlocked_variant_is_reported() {
    let (m, k, n) = (16, 32, 32);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = gen_f16(m * k, 0x0bad_cafe);
    let b = gen_f16(k * n, 0x5eed_1234);
    write_npy(&d.join("a.npy"), vec![m, k], &a);
    write_npy(&d.join("b.npy"), vec![k, n], &b);
    write_npy(&d.join("y.npy"), vec![m, n], &vec![0f32; m * n]);
    let kernel = root().join("examples/pto/mixed_matmul_relu.pto");
    let out = run_mixed(&kernel, d);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<f32> = read_npy(&d.join("out.npy")).unwrap().to_elems().unwrap();
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    let mut positive = 0;
    for i in 0..m {
        for j in 0..n {
            let mut c = 0f32;
            for k0 in (0..k).step_by(16) {
                let mut p = 0f32;
                for kk in k0..k0 + 16 {
                    p += af[i * k + kk] * bf[kk * n + j];
                }
                c += p;
            }
            let want = c.max(0.0) * 0.5;
            positive += usize::from(want > 0.0);
            assert_eq!(
                got[i * n + j].to_bits(),
                want.to_bits(),
                "y[{i}][{j}]: {} vs {want}",
                got[i * n + j]
            );
        }
    }
    // Both halves of both column blocks carry data (relu keeps some of each).
    assert!(positive > 100 && positive < m * n - 100, "{positive}");

    // One pop too many: the vector loop runs to 48 while the cube pushes twice.
    let src = std::fs::read_to_string(&kernel).unwrap();
    let bad = src
        .replacen(
            "    %half = arith.constant 0.5 : f32\n",
            "    %half = arith.constant 0.5 : f32\n    %c48 = arith.constant 48 : index\n",
            1,
        )
        .replacen(
            "    scf.for %j = %c0 to %c32 step %c16 {\n      %t = pto.tpop_from_aic",
            "    scf.for %j = %c0 to %c48 step %c16 {\n      %t = pto.tpop_from_aic",
            1,
        );
    assert_eq!(
        bad.matches("%c48").count(),
        2,
        "the variant edit did not apply"
    );
    let bad_path = d.join("deadlock.pto");
    std::fs::write(&bad_path, bad).unwrap();
    std::fs::remove_file(d.join("out.npy")).unwrap();
    let out = run_mixed(&bad_path, d);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    for want in [
        "deadlock: no core can go on",
        "AIV0 waits at `pto.tpop_from_aic`",
        "AIV1 waits at `pto.tpop_from_aic`",
        "the cube-to-vector pipe is empty",
        "finished: AIC",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(!d.join("out.npy").exists(), "a failed run wrote its output");
}
