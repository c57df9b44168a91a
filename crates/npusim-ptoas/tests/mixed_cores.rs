//! Mixed cube/vector kernels (npusim-ptoas `interp::coop`): the frontend pipes of PTO IR
//! manual 4.18 in both directions and all split modes, cross-core `pto.sync.set`/`wait`, a
//! full pipe that makes the producer wait for the consumer's `tfree`, and the typed errors.
//! Each kernel moves known values; the expected outputs are computed here from the inputs.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

fn run(p: &Program, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
}

fn f32s(shape: &[usize], v: &[f32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), v))
}

fn vt(r: usize, c: usize) -> String {
    format!(
        "!pto.tile_buf<loc=vec, dtype=f32, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )
}

fn mt(r: usize, c: usize) -> String {
    format!(
        "!pto.tile_buf<loc=mat, dtype=f32, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout=col_major, slayout=row_major, fractal=512, pad=0>"
    )
}

/// A kernel: `@k(%x, %y)`; the cube function loads x (16x16) into a Mat tile (Nz layout) and
/// pushes it `pushes` times with `split`; each vector core pops `pops` times into a vector tile
/// of `vr x vc` and stores it at (row0, col0) of y (16x16) given by its subblock index.
fn c2v_kernel(split: u8, pushes: usize, pops: usize, free: bool) -> String {
    let (vr, vc) = match split {
        0 => (16, 16),
        1 => (8, 16),
        _ => (16, 8),
    };
    let (ro, co) = match split {
        1 => ("%off", "%c0"),
        2 => ("%c0", "%off"),
        _ => ("%c0", "%c0"),
    };
    let m = mt(16, 16);
    let v = vt(vr, vc);
    let free_op = if free {
        format!("pto.tfree_from_aic {{split = {split}}}")
    } else {
        String::new()
    };
    format!(
        r#"
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%x) : (!pto.ptr<f32>) -> ()
    func.call @vec(%y) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%x: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %n = arith.constant {pushes} : index
    %imp = pto.import_reserved_buffer {{name = "fifo", peer_func = @vec}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 1, slot_size = 1024}} (c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %c0_i32 : i32)
    %t = pto.alloc_tile : {m}
    %xv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%t : {m})
    scf.for %i = %c0 to %n step %c1 {{
      pto.tpush_to_aiv(%t : {m}) {{split = {split}}}
    }}
    return
  }}
  func.func private @vec(%y: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %half = arith.constant {half} : index
    %n = arith.constant {pops} : index
    %buf = pto.reserve_buffer {{name = "fifo", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 1, slot_size = 1024}} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %c0_i32 : i32)
    %s64 = pto.get_subblock_idx
    %s = arith.index_cast %s64 : i64 to index
    %off = arith.muli %s, %half : index
    %yv = pto.make_tensor_view %y, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    scf.for %i = %c0 to %n step %c1 {{
      %p = pto.tpop_from_aic {{split = {split}}} -> {v}
      %yp = pto.partition_view %yv, offsets = [{ro}, {co}], sizes = [%c{vr}, %c{vc}] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<{vr}x{vc}xf32>
      %store = arith.cmpi {cmp}, %s, %c0 : index
      scf.if %store {{
        pto.tstore ins(%p : {v}) outs(%yp : !pto.partition_tensor_view<{vr}x{vc}xf32>)
      }}
      {free_op}
    }}
    return
  }}
}}
"#,
        half = if split == 1 { vr } else { vc },
        // Split 0 feeds AIV0 only: only AIV0 stores. Otherwise both do.
        cmp = if split == 0 { "eq" } else { "sge" },
    )
    .replace("%c8, %c16]", "%c8_, %c16]")
    .replace(
        "%c16 = arith.constant 16 : index\n    %half",
        "%c16 = arith.constant 16 : index\n    %c8 = arith.constant 8 : index\n    %half",
    )
    .replace("%c8_, %c16]", "%c8, %c16]")
}

fn ramp() -> Vec<f32> {
    (0..256).map(|i| i as f32 * 0.25 - 17.0).collect()
}

/// Every split mode moves the tile to the right vector core(s) and place(s): split 0 to AIV0
/// whole (only AIV0 stores: AIV1's pop takes nothing), split 1 the top rows to AIV0 and the bottom rows to AIV1, split 2 the left and right
/// columns. The Mat tile is Nz, the vector tiles row-major: the values arrive by position.
#[test]
fn cube_to_vector_split_modes() {
    let x = ramp();
    for split in 0..=2u8 {
        let p = prog(&c2v_kernel(split, 1, 1, true));
        let o = run(
            &p,
            vec![
                ("x", f32s(&[16, 16], &x)),
                ("y", f32s(&[16, 16], &[0.0; 256])),
            ],
        )
        .unwrap_or_else(|e| panic!("split {split}: {e}"));
        let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
        assert_eq!(y, x, "split {split}");
    }
}

/// Nine pushes through an 8-slot pipe: the cube waits at the ninth until a vector core frees a
/// slot, and the run still completes (the cores take turns). Without `tfree`, the ninth push
/// can never go on: a typed deadlock naming the cube.
#[test]
fn full_pipe_waits_for_free_and_deadlocks_without_it() {
    let x = ramp();
    let p = prog(&c2v_kernel(1, 9, 9, true));
    run(
        &p,
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .unwrap();
    let p = prog(&c2v_kernel(1, 9, 9, false));
    let e = run(
        &p,
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .expect_err("must deadlock");
    assert_eq!(e.kind(), RunErrorKind::Deadlock, "{e}");
    let msg = format!("{e} {:?}", e.diagnostic());
    assert!(msg.contains("AIC waits at `pto.tpush_to_aiv`"), "{msg}");
    assert!(msg.contains("is full (8 slots busy)"), "{msg}");
}

/// Popping more than was pushed is a deadlock naming both vector cores; freeing a slot that
/// was never popped is a typed error.
#[test]
fn pop_without_push_deadlocks_and_free_without_pop_fails() {
    let x = ramp();
    let p = prog(&c2v_kernel(1, 1, 2, true));
    let e = run(
        &p,
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .expect_err("must deadlock");
    assert_eq!(e.kind(), RunErrorKind::Deadlock, "{e}");
    let msg = format!("{e} {:?}", e.diagnostic());
    assert!(msg.contains("the cube-to-vector pipe is empty"), "{msg}");
    assert!(msg.contains("AIV1"), "{msg}");
    let src = c2v_kernel(1, 1, 1, true).replace(
        "pto.tfree_from_aic {split = 1}",
        "pto.tfree_from_aic {split = 1}\n      pto.tfree_from_aic {split = 1}",
    );
    let e = run(
        &prog(&src),
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .expect_err("must fail");
    assert!(e.to_string().contains("[pipe-free]"), "{e}");
}

/// Vector to cube with split 1: each vector core pushes its own 8x16 half (filled with its
/// subblock index + 1 times x's half); the cube pops the joined 16x16 tile into a Mat tile,
/// moves nothing else and stores it through a vector-free path: TSTORE from Mat is not a
/// path, so the cube pushes the joined tile back split the same way (PTOAS's rule: one
/// bidirectional pipe uses one split mode), and each vector core stores the half it gets.
#[test]
fn vector_to_cube_joins_halves() {
    let m = mt(16, 16);
    let v = vt(8, 16);
    let src = format!(
        r#"
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube() : () -> ()
    func.call @vec(%x, %y) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0_i32 = arith.constant 0 : i32
    %v2c = pto.reserve_buffer {{name = "v2c", size = 4096, location = #pto.address_space<mat>, auto = true}} -> i32
    %imp = pto.import_reserved_buffer {{name = "c2v", peer_func = @vec}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %v2c : i32)
    %t = pto.tpop_from_aiv {{split = 1}} -> {m}
    pto.tpush_to_aiv(%t : {m}) {{split = 1}}
    pto.tfree_from_aiv {{split = 1}}
    return
  }}
  func.func private @vec(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c2v = pto.reserve_buffer {{name = "c2v", size = 4096, location = #pto.address_space<vec>, auto = true}} -> i32
    %imp = pto.import_reserved_buffer {{name = "v2c", peer_func = @cube}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %imp : i32)
    %s64 = pto.get_subblock_idx
    %s = arith.index_cast %s64 : i64 to index
    %row = arith.muli %s, %c8 : index
    %xv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<8x16xf32>
    %h = pto.alloc_tile : {v}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x16xf32>) outs(%h : {v})
    %sf = arith.index_cast %s : index to i64
    %sfi = arith.sitofp %sf : i64 to f32
    %one = arith.constant 1.0 : f32
    %k = arith.addf %sfi, %one : f32
    pto.tmuls ins(%h, %k : {v}, f32) outs(%h : {v})
    pto.tpush_to_aic(%h : {v}) {{split = 1}}
    %back = pto.tpop_from_aic {{split = 1}} -> {v}
    %yp = pto.partition_view %yv, offsets = [%row, %c0], sizes = [%c8, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<8x16xf32>
    pto.tstore ins(%back : {v}) outs(%yp : !pto.partition_tensor_view<8x16xf32>)
    pto.tfree_from_aic {{split = 1}}
    return
  }}
}}
"#
    );
    let x = ramp();
    let o = run(
        &prog(&src),
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .unwrap();
    let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
    let want: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, v)| if i < 128 { *v } else { v * 2.0 })
        .collect();
    assert_eq!(y, want);
}

/// `pto.sync.set` on the cube signals each vector core; a vector core's wait takes it. In the
/// other direction the cube's wait needs a signal from every vector core. The stores happen
/// only after the waits, and the value the cube stores is read by the vector cores after
/// the signal: the order is observable.
#[test]
fn cross_core_sync_orders_cores() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%o: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %two = arith.constant 2.0 : f32
    pto.section.vector {
      pto.sync.wait <PIPE_MTE3>, 1
      %v = pto.load_scalar %o[%c0] : !pto.ptr<f32> -> f32
      %s64 = pto.get_subblock_idx
      %s = arith.index_cast %s64 : i64 to index
      %i = arith.addi %s, %c1 : index
      pto.store_scalar %v, %o[%i] : !pto.ptr<f32>, f32
      pto.sync.set <PIPE_MTE3>, 2
    }
    pto.section.cube {
      pto.store_scalar %two, %o[%c0] : !pto.ptr<f32>, f32
      pto.sync.set <PIPE_FIX>, 1
      pto.sync.wait <PIPE_FIX>, 2
      %a = pto.load_scalar %o[%c1] : !pto.ptr<f32> -> f32
      %b = pto.load_scalar %o[%c2] : !pto.ptr<f32> -> f32
      %sum = arith.addf %a, %b : f32
      pto.store_scalar %sum, %o[%c3] : !pto.ptr<f32>, f32
    }
    return
  }
}
"#;
    let o = run(&prog(src), vec![("o", f32s(&[4], &[0.0; 4]))]).unwrap();
    assert_eq!(
        o.buffer("o").unwrap().to_elems::<f32>().unwrap(),
        vec![2.0, 2.0, 2.0, 4.0]
    );
    // Without the cube's signal, every core waits: a deadlock.
    let bad = src.replace("      pto.sync.set <PIPE_FIX>, 1\n", "");
    let e = run(&prog(&bad), vec![("o", f32s(&[4], &[0.0; 4]))]).expect_err("must deadlock");
    assert_eq!(e.kind(), RunErrorKind::Deadlock, "{e}");
    let msg = format!("{e} {:?}", e.diagnostic());
    assert!(msg.contains("event 1 is not set by the cube core"), "{msg}");
    assert!(msg.contains("event 2 is not set by AIV0"), "{msg}");
}

/// A slot size far past any memory: the second pop's slot lies outside the vector core's
/// memory, a typed error (the slot address arithmetic saturates, so it cannot wrap).
#[test]
fn huge_slot_size_is_a_typed_error() {
    let x = ramp();
    let src = c2v_kernel(1, 2, 2, true).replace(
        "{dir_mask = 1, slot_size = 1024}",
        "{dir_mask = 1, slot_size = 4611686018427387904}",
    );
    let e = run(
        &prog(&src),
        vec![
            ("x", f32s(&[16, 16], &x)),
            ("y", f32s(&[16, 16], &[0.0; 256])),
        ],
    )
    .expect_err("must fail");
    assert_eq!(e.kind(), RunErrorKind::Pto, "{e}");
}
