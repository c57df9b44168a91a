//! `pto.load_scalar` / `pto.store_scalar` (PTO IR manual, "Load Single Scalar Element" and
//! "Store Single Scalar Element") and the sync forms a single core runs as no-ops
//! (`pto.set_ffts`, `pto.set_flag_dyn`/`pto.wait_flag_dyn`, `pto.get_buf`/`pto.rls_buf`).
//! Expected values are computed in the test from the inputs.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn try_prog(src: &str) -> Result<Program, String> {
    let m = parse_module(src, "t.pto").map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))?;
    lower(&m, LowerOptions::default()).map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))
}

fn prog(src: &str) -> Program {
    try_prog(src).unwrap_or_else(|e| panic!("{e}"))
}

fn run(p: &Program, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
}

const COPY: &str = r#"
module {
  func.func @k(%src: !pto.ptr<T>, %dst: !pto.ptr<T>, %i: index, %j: index) {
    %c8 = arith.constant 8 : index
    %p = pto.addptr %src, %c8 : <T> -> <T>
    %v = pto.load_scalar %p[%i] : !pto.ptr<T> -> T
    pto.store_scalar %v, %dst[%j] : !pto.ptr<T>, T
    return
  }
}
"#;

/// dst[j] = src[8 + i], every other element of dst untouched, for f32 (NaN payload and -0
/// included), f16 and i32 (negative values keep their bits).
#[test]
fn load_then_store_moves_one_element() {
    let src: Vec<f32> = (0..16).map(|i| i as f32 * 1.5 - 7.0).collect();
    let mut src_nan = src.clone();
    src_nan[11] = f32::from_bits(0x7fc0_1234);
    src_nan[12] = -0.0;
    let p = prog(&COPY.replace("T", "f32"));
    for (i, j) in [(0usize, 0usize), (3, 5), (4, 7), (7, 1)] {
        let o = run(
            &p,
            vec![
                (
                    "src",
                    HostArg::Buffer(NpyArray::from_elems(vec![16], &src_nan)),
                ),
                (
                    "dst",
                    HostArg::Buffer(NpyArray::from_elems(vec![8], &[42.0f32; 8])),
                ),
                ("i", HostArg::Scalar(i.to_string())),
                ("j", HostArg::Scalar(j.to_string())),
            ],
        )
        .unwrap();
        let got = o.buffer("dst").unwrap().to_elems::<f32>().unwrap();
        let mut want = [42.0f32; 8];
        want[j] = src_nan[8 + i];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "i={i} j={j}");
    }
    let p = prog(&COPY.replace("T", "i32"));
    let s: Vec<i32> = (0..16).map(|i| i32::MIN + i * 977).collect();
    let o = run(
        &p,
        vec![
            ("src", HostArg::Buffer(NpyArray::from_elems(vec![16], &s))),
            (
                "dst",
                HostArg::Buffer(NpyArray::from_elems(vec![4], &[0i32; 4])),
            ),
            ("i", HostArg::Scalar("2".into())),
            ("j", HostArg::Scalar("3".into())),
        ],
    )
    .unwrap();
    assert_eq!(
        o.buffer("dst").unwrap().to_elems::<i32>().unwrap(),
        vec![0, 0, 0, s[10]]
    );
}

/// An index past the bound buffer is a typed bounds error, and nothing is written.
#[test]
fn out_of_bounds_index_is_a_bounds_error() {
    let p = prog(&COPY.replace("T", "f32"));
    for (i, j) in [(8usize, 0usize), (0, 8), (1000, 0)] {
        let e = run(
            &p,
            vec![
                (
                    "src",
                    HostArg::Buffer(NpyArray::from_elems(vec![16], &[1.0f32; 16])),
                ),
                (
                    "dst",
                    HostArg::Buffer(NpyArray::from_elems(vec![8], &[0.0f32; 8])),
                ),
                ("i", HostArg::Scalar(i.to_string())),
                ("j", HostArg::Scalar(j.to_string())),
            ],
        )
        .err()
        .unwrap_or_else(|| panic!("i={i} j={j} must fail"));
        assert_eq!(e.kind(), RunErrorKind::Bounds, "{e}");
        assert!(e.to_string().contains("out of bounds"), "{e}");
    }
}

/// The value's type must be the pointee's: the rule is named.
#[test]
fn value_type_must_match_pointee() {
    let bad = r#"
module {
  func.func @k(%src: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %v = pto.load_scalar %src[%c0] : !pto.ptr<f32> -> f16
    return
  }
}
"#;
    let e = try_prog(bad).expect_err("must be rejected");
    assert!(e.contains("[scalar-ptr-type]"), "{e}");
}

/// The sync forms PTOAS's Sync samples use run (as no-ops on one core) and the kernel's store
/// still happens.
#[test]
fn single_core_sync_forms_run() {
    let src = r#"
module {
  func.func @k(%ffts: memref<256xi64>, %o: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %v = arith.constant 2.5 : f32
    pto.set_ffts %ffts : memref<256xi64>
    pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_MTE3>, %c2]
    pto.wait_flag_dyn[<PIPE_MTE2>, <PIPE_MTE3>, %c2]
    pto.get_buf[#pto.pipe_event_type<TLOAD>, 0]
    pto.rls_buf[#pto.pipe_event_type<TLOAD>, 0]
    pto.store_scalar %v, %o[%c2] : !pto.ptr<f32>, f32
    return
  }
}
"#;
    let p = prog(src);
    let o = run(
        &p,
        vec![
            (
                "ffts",
                HostArg::Buffer(NpyArray::from_elems(vec![256], &[0i64; 256])),
            ),
            (
                "o",
                HostArg::Buffer(NpyArray::from_elems(vec![4], &[0.0f32; 4])),
            ),
        ],
    )
    .unwrap();
    assert_eq!(
        o.buffer("o").unwrap().to_elems::<f32>().unwrap(),
        vec![0.0, 0.0, 2.5, 0.0]
    );
}
