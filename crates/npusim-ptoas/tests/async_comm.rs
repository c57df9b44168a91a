//! The asynchronous communication ops on a single device (pto-isa `docs/isa/comm/TPUT_ASYNC.md`
//! and `TGET_ASYNC.md`): `pto.build_async_session` checks its UB scratch tile,
//! `pto.tput_async` / `pto.tget_async` copy a flat contiguous 1-D view into another (both sides
//! are this device's GM, the copy complete when issued), `pto.wait_async_event` and
//! `pto.test_async_event` return true. Expected buffers are built in the test from the inputs;
//! the rules (scratch tile, 1-D flat views, same type and count) are typed errors.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

fn run(p: &Program, a: &[f32], b: &[f32], flag: Option<&[i32]>) -> Result<RunOutcome, RunError> {
    let mut args: Vec<(String, HostArg)> = vec![
        (
            "a".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![a.len()], a)),
        ),
        (
            "b".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![b.len()], b)),
        ),
        (
            "ws".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &[0i8; 64])),
        ),
    ];
    if let Some(f) = flag {
        args.push((
            "flag".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![f.len()], f)),
        ));
    }
    p.run(None, &args, &RunConfig::default())
}

/// `b[0..N) = a[OFF..OFF+N)` by TPUT_ASYNC, then `a[0..N) = b[N..2N)` by TGET_ASYNC; the
/// wait's and the test's results are stored to `flag[0]` and `flag[1]`.
const KERNEL: &str = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %ws: !pto.ptr<i8>, %flag: !pto.ptr<i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %coff = arith.constant OFF : index
    %cn = arith.constant N : index
    %c64 = arith.constant 64 : index
    %ta = pto.make_tensor_view %a, shape = [%c64], strides = [%c1] : !pto.tensor_view<64xf32>
    %tb = pto.make_tensor_view %b, shape = [%c64], strides = [%c1] : !pto.tensor_view<64xf32>
    %src = pto.partition_view %ta, offsets = [%coff], sizes = [%cn] : !pto.tensor_view<64xf32> -> !pto.partition_tensor_view<Nxf32>
    %dst = pto.partition_view %tb, offsets = [%c0], sizes = [%cn] : !pto.tensor_view<64xf32> -> !pto.partition_tensor_view<Nxf32>
    %back = pto.partition_view %tb, offsets = [%cn], sizes = [%cn] : !pto.tensor_view<64xf32> -> !pto.partition_tensor_view<Nxf32>
    %head = pto.partition_view %ta, offsets = [%c0], sizes = [%cn] : !pto.tensor_view<64xf32> -> !pto.partition_tensor_view<Nxf32>
    %s = pto.alloc_tile : !pto.tile_buf<LOC, 1x256xi8>
    %sess = pto.build_async_session(%s, %ws : !pto.tile_buf<LOC, 1x256xi8>, !pto.ptr<i8>) {sync_id = 0 : i32} -> !pto.async_session
    %e0 = pto.tput_async(%dst, %src, %sess : !pto.partition_tensor_view<Nxf32>, !pto.partition_tensor_view<Nxf32>, !pto.async_session) -> !pto.async_event
    %w = pto.wait_async_event(%e0, %sess : !pto.async_event, !pto.async_session) -> i1
    %e1 = pto.tget_async(%head, %back, %sess : !pto.partition_tensor_view<Nxf32>, !pto.partition_tensor_view<Nxf32>, !pto.async_session) -> !pto.async_event
    %t = pto.test_async_event(%e1, %sess : !pto.async_event, !pto.async_session) -> i1
    %wi = arith.extui %w : i1 to i32
    %ti = arith.extui %t : i1 to i32
    pto.store_scalar %wi, %flag[%c0] : !pto.ptr<i32>, i32
    pto.store_scalar %ti, %flag[%c1] : !pto.ptr<i32>, i32
    return
  }
}
"#;

fn kernel(off: usize, n: usize, loc: &str) -> String {
    KERNEL
        .replace("OFF", &off.to_string())
        .replace("LOC", loc)
        .replace("N", &n.to_string())
}

#[test]
fn put_then_get_copy_the_windows_and_complete() {
    let a: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.0).collect();
    let b: Vec<f32> = (0..64).map(|i| 1000.0 + i as f32).collect();
    for (off, n) in [(0usize, 8usize), (5, 16), (32, 32)] {
        let p = prog(&kernel(off, n, "vec"));
        let o = run(&p, &a, &b, Some(&[7, 7])).unwrap();
        let mut want_b = b.clone();
        want_b[..n].copy_from_slice(&a[off..off + n]);
        let mut want_a = a.clone();
        want_a[..n].copy_from_slice(&want_b[n..2 * n]);
        assert_eq!(
            o.buffer("b").unwrap().to_elems::<f32>().unwrap(),
            want_b,
            "{off} {n}"
        );
        assert_eq!(
            o.buffer("a").unwrap().to_elems::<f32>().unwrap(),
            want_a,
            "{off} {n}"
        );
        assert_eq!(
            o.buffer("flag").unwrap().to_elems::<i32>().unwrap(),
            vec![1, 1]
        );
    }
}

#[test]
fn a_scratch_tile_outside_ub_is_a_typed_error() {
    let a = vec![0f32; 64];
    let p = prog(&kernel(0, 8, "mat"));
    let e = run(&p, &a, &a, Some(&[0, 0])).unwrap_err().to_string();
    assert!(
        e.contains("BuildAsyncSession") && e.contains("scratchTile") && e.contains("Vec (UB)"),
        "{e}"
    );
}

/// A 2-D window is not a flat contiguous 1-D view: the verifier refuses it with a named rule.
#[test]
fn a_2d_view_is_refused_by_the_verifier() {
    let src = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %ws: !pto.ptr<i8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %ta = pto.make_tensor_view %a, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<8x8xf32>
    %tb = pto.make_tensor_view %b, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<8x8xf32>
    %src = pto.partition_view %ta, offsets = [%c0, %c0], sizes = [%c4, %c4] : !pto.tensor_view<8x8xf32> -> !pto.partition_tensor_view<4x4xf32>
    %dst = pto.partition_view %tb, offsets = [%c0, %c0], sizes = [%c4, %c4] : !pto.tensor_view<8x8xf32> -> !pto.partition_tensor_view<4x4xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 1x256xi8>
    %sess = pto.build_async_session(%s, %ws : !pto.tile_buf<vec, 1x256xi8>, !pto.ptr<i8>) {sync_id = 0 : i32} -> !pto.async_session
    %e0 = pto.tput_async(%dst, %src, %sess : !pto.partition_tensor_view<4x4xf32>, !pto.partition_tensor_view<4x4xf32>, !pto.async_session) -> !pto.async_event
    return
  }
}
"#;
    let e = match parse_module(src, "t.pto") {
        Err(d) => npusim_ptoas::render_all(&d, "t.pto", src),
        Ok(m) => match lower(&m, LowerOptions::default()) {
            Err(d) => npusim_ptoas::render_all(&d, "t.pto", src),
            Ok(_) => panic!("accepted"),
        },
    };
    assert!(
        e.contains("async-flat-1d") && e.contains("pto.tput_async"),
        "{e}"
    );
}
