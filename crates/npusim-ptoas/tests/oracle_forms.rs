//! Forms behind the PTOAS sample oracle's run failures (issue 10, acceptance 2; see
//! `ORACLE.md`): each test runs a kernel written here and checks it against a plain model
//! computed in the test.
//!
//! - `alloc_tile addr = %v` with a run-time address: bound unchecked for alignment (pto-isa
//!   `docs/isa/TASSIGN.md`, form 1 performs no checks), checked by each instruction that uses
//!   the tile (the `AllocTile/alloc_tile_addr` sample binds address 1 and never uses it).
//! - A tail-block matmul whose TSTORE moves an Acc tile with fewer valid columns than the ND
//!   tensor's row width: the fixpipe is programmed with `validCol / Shape4 = 0` ND matrices,
//!   a NOP per the Ascend C Fixpipe page, so nothing is stored on the hardware profiles (the
//!   `DynamicTailMatmul` sample with M = N = K = 1).

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = match parse_module(src, "t.pto") {
        Ok(m) => m,
        Err(d) => panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)),
    };
    lower(&m, LowerOptions::default()).expect("lowers")
}

fn run(p: &Program, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
}

fn scalar(v: impl ToString) -> HostArg {
    HostArg::Scalar(v.to_string())
}

const VT: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// A kernel whose first tile sits at the run-time address `%addr`; `USE` is replaced by the
/// instructions that use it (or nothing).
fn addr_kernel(body: &str) -> Program {
    let src = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %addr: i64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %va = pto.make_tensor_view %a, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %vo = pto.make_tensor_view %o, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
    %t = pto.alloc_tile addr = %addr : VT
    USE
    return
  }
}
"#
    .replace("USE", body)
    .replace("VT", VT);
    prog(&src)
}

fn addr_args(addr: u64) -> Vec<(&'static str, HostArg)> {
    let a: Vec<f32> = (0..32).map(|i| i as f32 * 1.5 - 7.0).collect();
    vec![
        ("a", HostArg::Buffer(NpyArray::from_elems(vec![32], &a))),
        (
            "o",
            HostArg::Buffer(NpyArray::from_elems(vec![32], &[-1.0f32; 32])),
        ),
        ("addr", scalar(addr)),
    ]
}

const COPY: &str = "pto.tload ins(%pa : !pto.partition_tensor_view<4x8xf32>) outs(%t : VT)
    pto.tadds ins(%t, %one : VT, f32) outs(%t : VT)
    pto.tstore ins(%t : VT) outs(%po : !pto.partition_tensor_view<4x8xf32>)";

#[test]
fn a_run_time_tile_address_is_checked_where_the_tile_is_used() {
    // Bound and never used (the AllocTile sample): runs, the output keeps its contents.
    let p = addr_kernel("");
    for addr in [1u64, 4, 0x1000, 0x1001] {
        let o = run(&p, addr_args(addr)).unwrap_or_else(|e| panic!("addr {addr:#x}: {e}"));
        let out = o.buffer("o").unwrap().to_elems::<f32>().unwrap();
        assert_eq!(out, vec![-1.0f32; 32], "addr {addr:#x}");
    }
    // Used at an aligned run-time address: a copy plus one (the model).
    let body = format!("%one = arith.constant 1.0 : f32\n    {COPY}").replace("VT", VT);
    let p = addr_kernel(&body);
    for addr in [0u64, 32, 0x1000] {
        let o = run(&p, addr_args(addr)).unwrap();
        let out = o.buffer("o").unwrap().to_elems::<f32>().unwrap();
        let model: Vec<f32> = (0..32).map(|i| i as f32 * 1.5 - 7.0 + 1.0).collect();
        assert_eq!(out, model, "addr {addr:#x}");
    }
    // Used at a misaligned one: the first instruction that uses it is the typed error.
    for addr in [1u64, 16, 0x1001] {
        let e = run(&p, addr_args(addr)).unwrap_err();
        assert_eq!(e.kind(), RunErrorKind::Pto, "{e}");
        let s = e.to_string();
        assert!(
            s.contains("TLOAD") && s.contains(&format!("{addr:#x}")) && s.contains("32-byte"),
            "{s}"
        );
    }
    // The scalar element access and a vector op check it too.
    let p = addr_kernel(
        "%x = arith.constant 2.0 : f32\n    %i = arith.constant 3 : index\n    pto.tsetval ins(%i, %x : index, f32) outs(%t : VT)"
            .replace("VT", VT)
            .as_str(),
    );
    let e = run(&p, addr_args(8)).unwrap_err().to_string();
    assert!(e.contains("tsetval") && e.contains("32-byte"), "{e}");
    assert!(run(&p, addr_args(64)).is_ok());
    let p = addr_kernel(
        "%x = arith.constant 2.0 : f32\n    pto.texpands ins(%x : f32) outs(%t : VT)"
            .replace("VT", VT)
            .as_str(),
    );
    let e = run(&p, addr_args(0x21)).unwrap_err().to_string();
    assert!(e.contains("TEXPANDS") && e.contains("32-byte"), "{e}");
}

/// A tail-block matmul in the form PTOAS's dynamic-tail samples write it: 32 x 32 f16
/// operands and f32 result in GM, tiles of 32 x 32 whose valid regions are the run-time
/// M x K, K x N and M x N.
fn tail_matmul() -> Program {
    prog(&tail_matmul_src())
}

fn tail_matmul_src() -> String {
    let mat = "!pto.tile_buf<mat, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>";
    let left = "!pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>";
    let right = "!pto.tile_buf<right, 32x32xf16, valid=?x?, slayout=col_major>";
    let acc = "!pto.tile_buf<acc, 32x32xf32, valid=?x?, blayout=col_major, slayout=row_major, fractal=1024>";
    r#"
module {
  func.func @tail(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>, %m: i32, %n: i32, %k: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %mi = arith.index_cast %m : i32 to index
    %ni = arith.index_cast %n : i32 to index
    %ki = arith.index_cast %k : i32 to index
    %va = pto.make_tensor_view %a, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf16>
    %vb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf16>
    %vc = pto.make_tensor_view %c, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<32x32xf16>
    %pb = pto.partition_view %vb, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<32x32xf16>
    %pc = pto.partition_view %vc, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %am = pto.alloc_tile valid_row = %mi valid_col = %ki : MAT
    %bm = pto.alloc_tile valid_row = %ki valid_col = %ni : MAT
    %al = pto.alloc_tile valid_row = %mi valid_col = %ki : LEFT
    %br = pto.alloc_tile valid_row = %ki valid_col = %ni : RIGHT
    %cc = pto.alloc_tile valid_row = %mi valid_col = %ni : ACC
    pto.tload ins(%pa : !pto.partition_tensor_view<32x32xf16>) outs(%am : MAT)
    pto.tload ins(%pb : !pto.partition_tensor_view<32x32xf16>) outs(%bm : MAT)
    pto.tmov ins(%am : MAT) outs(%al : LEFT)
    pto.tmov ins(%bm : MAT) outs(%br : RIGHT)
    pto.tmatmul ins(%al, %br : LEFT, RIGHT) outs(%cc : ACC)
    pto.tstore ins(%cc : ACC) outs(%pc : !pto.partition_tensor_view<32x32xf32>)
    return
  }
}
"#
    .replace("MAT", mat)
    .replace("LEFT", left)
    .replace("RIGHT", right)
    .replace("ACC", acc)
}

#[test]
fn a_tail_matmul_stores_its_rows_or_nothing_as_the_fixpipe_does() {
    let p = tail_matmul();
    // Small integers: every product and sum is exact in f16 inputs and f32 accumulation, so
    // the model's order does not matter.
    let a: Vec<f32> = (0..1024).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..1024).map(|i| ((i * 5) % 9) as f32 - 4.0).collect();
    let h = |v: &[f32]| {
        let x: Vec<npusim_core::f16> = v.iter().map(|&f| npusim_core::f16::from_f32(f)).collect();
        HostArg::Buffer(NpyArray::from_elems(vec![32, 32], &x))
    };
    let init = vec![0.25f32; 1024];
    for (m, n, k) in [
        (32, 32, 32),
        (5, 32, 7),
        (1, 32, 1),
        (1, 1, 1),
        (32, 31, 32),
        (7, 16, 3),
    ] {
        let o = run(
            &p,
            vec![
                ("a", h(&a)),
                ("b", h(&b)),
                (
                    "c",
                    HostArg::Buffer(NpyArray::from_elems(vec![32, 32], &init)),
                ),
                ("m", scalar(m)),
                ("n", scalar(n)),
                ("k", scalar(k)),
            ],
        )
        .unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
        let got = o.buffer("c").unwrap().to_elems::<f32>().unwrap();
        // The model: with N = 32 (the tensor's row width) the fixpipe writes the M valid rows
        // of A[:M, :K] @ B[:K, :]; with N < 32 it gets zero ND matrices and writes nothing.
        let mut model = init.clone();
        if n == 32 {
            for r in 0..m {
                for c in 0..32 {
                    model[r * 32 + c] = (0..k).map(|x| a[r * 32 + x] * b[x * 32 + c]).sum();
                }
            }
        }
        assert_eq!(got, model, "M={m} N={n} K={k}");
    }
}

#[test]
fn the_cpu_simulator_policy_keeps_the_tail_windows_an_error() {
    let src = parse_module(&tail_matmul_src(), "t.pto").unwrap();
    let opts = LowerOptions {
        policy: npusim_core::PolicyName::PtoCpuSim,
        ..LowerOptions::default()
    };
    let p = lower(&src, opts).expect("lowers");
    let z = || {
        HostArg::Buffer(NpyArray::from_elems(
            vec![32, 32],
            &[npusim_core::f16::ZERO; 1024],
        ))
    };
    let args = vec![
        ("a", z()),
        ("b", z()),
        (
            "c",
            HostArg::Buffer(NpyArray::from_elems(vec![32, 32], &[0f32; 1024])),
        ),
        ("m", scalar(1)),
        ("n", scalar(1)),
        ("k", scalar(1)),
    ];
    // The CPU simulator's policy keeps the pages' equality rule for every transfer, so the
    // first 1 x 1 window (the TLOAD of A) already fails there.
    let e = run(&p, args).unwrap_err().to_string();
    assert!(
        e.contains("TLOAD") && e.contains("must match the global shape"),
        "{e}"
    );
}

/// Block b loads row pair b of x (2 x 16) into a tile whose valid region is 1 x `%w`, adds
/// the block index, and stores that window into row pair b of y: each store writes `w` of the
/// 32 elements of its partition (the TLOAD/TSTORE valid window).
const WINDOW_BLOCKS: &str = r#"
module {
  func.func @win(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %w: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %wi = arith.index_cast %w : i32 to index
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %bf = arith.uitofp %b : i64 to f32
    %r = arith.muli %bi, %c2 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %xp = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c2, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<2x16xf32>
    %yp = pto.partition_view %yv, offsets = [%r, %c0], sizes = [%c2, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<2x16xf32>
    %t = pto.alloc_tile valid_col = %wi : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<2x16xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tadds ins(%t, %bf : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<2x16xf32>)
    return
  }
}
"#;

// A store that writes less than its footprint, on several threads: the bytes it leaves are
// the input's, as in the one-thread run (with the private GMs of session 14 the untouched
// part of the footprint once came back as zeros; workers now write GM in place).
#[test]
fn partial_stores_on_several_threads_keep_the_untouched_bytes() {
    let p = prog(WINDOW_BLOCKS);
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 0.25 - 9.0).collect();
    let y0: Vec<f32> = (0..128).map(|i| 100.0 + i as f32).collect();
    for w in [3usize, 16] {
        let args: Vec<(String, HostArg)> = vec![
            (
                "x".into(),
                HostArg::Buffer(NpyArray::from_elems(vec![128], &x)),
            ),
            (
                "y".into(),
                HostArg::Buffer(NpyArray::from_elems(vec![128], &y0)),
            ),
            ("w".into(), scalar(w)),
        ];
        // The model: block b writes x[32 b + j] + b at y[32 b + j] for j < w.
        let mut model = y0.clone();
        for b in 0..4 {
            for j in 0..w {
                model[32 * b + j] = x[32 * b + j] + b as f32;
            }
        }
        for threads in [1u32, 2, 4] {
            let cfg = RunConfig {
                blocks: 4,
                threads,
                ..RunConfig::default()
            };
            let o = p.run(None, &args, &cfg).unwrap();
            let got = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
            assert_eq!(got, model, "w={w} threads={threads}");
        }
    }
}
