//! `.npy` interoperability with numpy and ml_dtypes: files npusim writes load in numpy with the
//! right dtype and values (bf16 through ml_dtypes, as `<V2`), and files numpy writes load in
//! npusim. Python packages come from `scripts/ensure-python-deps.sh`.

use half::{bf16, f16};
use npusim_core::npy::{NpyArray, read_npy, write_npy};
use std::path::Path;
use std::process::Command;

fn ensure_python() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ensure-python-deps.sh");
    let st = Command::new("bash").arg(script).status().expect("bash");
    assert!(st.success(), "could not install numpy/ml_dtypes");
}

fn python(code: &str) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(code)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn numpy_reads_what_npusim_writes_and_back() {
    ensure_python();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h: Vec<f16> = [1.5f32, -0.0, 65504.0, 6e-8]
        .iter()
        .map(|x| f16::from_f32(*x))
        .collect();
    let b: Vec<bf16> = [1.5f32, -2.0, 3.0e38, 1e-3]
        .iter()
        .map(|x| bf16::from_f32(*x))
        .collect();
    write_npy(&d.join("h.npy"), &NpyArray::from_elems(vec![2, 2], &h)).unwrap();
    write_npy(&d.join("b.npy"), &NpyArray::from_elems(vec![4], &b)).unwrap();
    write_npy(
        &d.join("i.npy"),
        &NpyArray::from_elems(vec![3], &[-1i64, 0, i64::MAX]),
    )
    .unwrap();
    let code = format!(
        "import numpy as np, ml_dtypes\n\
         h = np.load('{0}/h.npy'); b = np.load('{0}/b.npy').view(ml_dtypes.bfloat16); i = np.load('{0}/i.npy')\n\
         print(h.dtype, h.shape, h.view(np.uint16).ravel().tolist(), b.view(np.uint16).tolist(), i.dtype, i.tolist())\n\
         np.save('{0}/from_np.npy', np.arange(6, dtype=np.float32).reshape(2, 3) / 3)\n\
         np.save('{0}/bf_np.npy', np.array([1.0, -3.5], dtype=ml_dtypes.bfloat16))",
        d.display()
    );
    let printed = python(&code);
    let hb: Vec<u16> = h.iter().map(|x| x.to_bits()).collect();
    let bb: Vec<u16> = b.iter().map(|x| x.to_bits()).collect();
    assert_eq!(
        printed,
        format!("float16 (2, 2) {hb:?} {bb:?} int64 [-1, 0, {}]", i64::MAX)
    );

    let a = read_npy(&d.join("from_np.npy")).unwrap();
    assert_eq!(a.shape, vec![2, 3]);
    let want: Vec<f32> = (0..6).map(|i| i as f32 / 3.0).collect();
    assert_eq!(a.to_elems::<f32>().unwrap(), want);
    let bf = read_npy(&d.join("bf_np.npy")).unwrap();
    assert_eq!(
        bf.to_elems::<bf16>().unwrap(),
        vec![bf16::from_f32(1.0), bf16::from_f32(-3.5)]
    );
}
