//! `npusim run --policy` (issue 11): under `pto-cpu-sim`, the row softmax benchmark kernel gives
//! the public pto-isa CPU simulator's output bit for bit (its default clang -O2 build, whose
//! TROWSUM is vectorised into 4 lanes x 2 partial sums); the chip's own policy does not.
//! The expected output is the simulator's, saved as numbers (`golden/pto/pto-cpu-sim/`).

use npusim_core::npy::read_npy;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the kernel under `policy`; returns the output bits.
fn row_softmax(policy: &str) -> Vec<u32> {
    let d = tempfile::tempdir().unwrap();
    let dir = root().join("golden/pto/pto-cpu-sim");
    let zeros = npusim_core::NpyArray::from_elems(vec![32, 1024], &[0f32; 32 * 1024]);
    npusim_core::npy::write_npy(&d.path().join("y.npy"), &zeros).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .arg("run")
        .arg(root().join("examples/pto/bench/row_softmax_blocks.pto"))
        .args(["--blocks", "8", "--arg", "n_rows=32", "--policy", policy])
        .arg(format!(
            "--arg=x={}",
            dir.join("row_softmax_x.npy").display()
        ))
        .arg(format!("--arg=y={}", d.path().join("y.npy").display()))
        .arg(format!("--out=y={}", d.path().join("out.npy").display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = read_npy(&d.path().join("out.npy")).unwrap();
    y.to_elems::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn peer() -> Vec<u32> {
    let y = read_npy(&root().join("golden/pto/pto-cpu-sim/row_softmax_peer_y.npy")).unwrap();
    y.to_elems::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn differing(a: &[u32], b: &[u32]) -> usize {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

#[test]
fn pto_cpu_sim_policy_reproduces_the_cpu_simulator_bit_for_bit() {
    let want = peer();
    assert_eq!(want.len(), 32 * 1024);
    let got = row_softmax("pto-cpu-sim");
    assert_eq!(
        differing(&got, &want),
        0,
        "outputs differing from the simulator"
    );
}

#[test]
fn the_hardware_policy_is_the_default_and_differs_from_the_simulator() {
    let hw = row_softmax("hw");
    // The chip sums rows as a pairwise tree: most outputs differ in the last bits.
    assert!(differing(&hw, &peer()) > 10_000);
    let out = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(["run", "k.pto", "--policy", "fast"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("unknown policy `fast`; policies: hw, pto-cpu-sim"),
        "{err}"
    );
}
