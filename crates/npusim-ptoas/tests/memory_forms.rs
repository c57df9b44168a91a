//! PTOAS's memory forms beyond tensor views (issue 10): `memref` arguments in GM loaded and
//! stored directly, `pto.addptr`, `pto.subset`, `pto.get_tensor_view_dim`. Each kernel's result
//! is checked against a plain model computed in the test.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = match parse_module(src, "t.pto") {
        Ok(m) => m,
        Err(d) => panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)),
    };
    lower(&m, LowerOptions::default()).expect("lowers")
}

fn f32s(shape: &[usize], v: &[f32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), v))
}

fn run(p: &Program, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
}

fn out_f32(o: &RunOutcome, name: &str) -> Vec<f32> {
    o.buffer(name).unwrap().to_elems::<f32>().unwrap()
}

fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 3.0).collect()
}

const TILE: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// `tload`/`tstore` straight on `memref<4x8xf32, gm>` arguments (PlanMemory's tests write
/// kernels this way), inside both branches of an `scf.if`.
#[test]
fn memref_arguments_are_dense_views() {
    let src = r#"
module {
  func.func @k(%a: memref<4x8xf32, #pto.address_space<gm>>, %o: memref<4x8xf32, #pto.address_space<gm>>, %flag: i1) {
    %one = arith.constant 1.0 : f32
    %t = pto.alloc_tile : TILE
    pto.tload ins(%a : memref<4x8xf32, #pto.address_space<gm>>) outs(%t : TILE)
    scf.if %flag {
      pto.tadds ins(%t, %one : TILE, f32) outs(%t : TILE)
    } else {
      pto.tmuls ins(%t, %one : TILE, f32) outs(%t : TILE)
    }
    pto.tstore ins(%t : TILE) outs(%o : memref<4x8xf32, #pto.address_space<gm>>)
    return
  }
}
"#
    .replace("TILE", TILE);
    let p = prog(&src);
    let a = ramp(32);
    for (flag, add) in [("1", 1.0f32), ("0", 0.0)] {
        let o = run(
            &p,
            vec![
                ("a", f32s(&[4, 8], &a)),
                ("o", f32s(&[4, 8], &[9.0; 32])),
                ("flag", HostArg::Scalar(flag.into())),
            ],
        )
        .unwrap();
        let want: Vec<f32> = a.iter().map(|x| x + add).collect();
        assert_eq!(out_f32(&o, "o"), want, "flag = {flag}");
    }
    // The memref's shape fixes the array's shape.
    let e = run(
        &p,
        vec![
            ("a", f32s(&[8, 4], &a)),
            ("o", f32s(&[4, 8], &a)),
            ("flag", HostArg::Scalar("1".into())),
        ],
    )
    .unwrap_err();
    assert!(e.to_string().contains("shape mismatch"), "{e}");
}

/// A `?` dimension takes its size from the array.
#[test]
fn memref_dynamic_dimension_takes_the_array_size() {
    let src = r#"
module {
  func.func @k(%a: memref<?x8xf32, #pto.address_space<gm>>, %o: memref<?x8xf32, #pto.address_space<gm>>) {
    %t = pto.alloc_tile : TILE
    pto.tload ins(%a : memref<?x8xf32, #pto.address_space<gm>>) outs(%t : TILE)
    pto.tadd ins(%t, %t : TILE, TILE) outs(%t : TILE)
    pto.tstore ins(%t : TILE) outs(%o : memref<?x8xf32, #pto.address_space<gm>>)
    return
  }
}
"#
    .replace("TILE", TILE);
    let p = prog(&src);
    let a = ramp(32);
    let o = run(
        &p,
        vec![("a", f32s(&[4, 8], &a)), ("o", f32s(&[4, 8], &[0.0; 32]))],
    )
    .unwrap();
    let want: Vec<f32> = a.iter().map(|x| x + x).collect();
    assert_eq!(out_f32(&o, "o"), want);
    // Too small a buffer: the load's window is checked, a typed error, not garbage.
    let e = run(
        &p,
        vec![
            ("a", f32s(&[2, 8], &a[..16])),
            ("o", f32s(&[4, 8], &[0.0; 32])),
        ],
    )
    .unwrap_err();
    assert!(e.to_string().contains("TLOAD"), "{e}");
}

const ROW: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// `pto.addptr` moves a pointer by elements (PTO IR manual 4.1), chained; the view made from
/// it reads from there, and an offset past the buffer is a bounds error.
#[test]
fn addptr_offsets_in_elements() {
    let src = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %off: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %p1 = pto.addptr %a, %c8 : <f32> -> <f32>
    %p2 = pto.addptr %p1, %off : !pto.ptr<f32> -> !pto.ptr<f32>
    %v = pto.make_tensor_view %p2, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %pv = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : ROW
    pto.tload ins(%pv : !pto.partition_tensor_view<1x8xf32>) outs(%t : ROW)
    %ov = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    pto.tstore ins(%t : ROW) outs(%op : !pto.partition_tensor_view<1x8xf32>)
    return
  }
}
"#
    .replace("ROW", ROW);
    let p = prog(&src);
    let a = ramp(32);
    for off in [0usize, 3, 16] {
        let o = run(
            &p,
            vec![
                ("a", f32s(&[32], &a)),
                ("o", f32s(&[8], &[0.0; 8])),
                ("off", HostArg::Scalar(off.to_string())),
            ],
        )
        .unwrap();
        assert_eq!(
            out_f32(&o, "o"),
            a[8 + off..16 + off].to_vec(),
            "off = {off}"
        );
    }
    // 8 + 17 elements: the 8-element window ends past the 32-element buffer.
    let e = run(
        &p,
        vec![
            ("a", f32s(&[32], &a)),
            ("o", f32s(&[8], &[0.0; 8])),
            ("off", HostArg::Scalar("17".into())),
        ],
    )
    .unwrap_err();
    assert!(e.to_string().contains("bound buffer of 7 elements"), "{e}");
    // An offset past the buffer itself is refused at the addptr.
    let e = run(
        &p,
        vec![
            ("a", f32s(&[32], &a)),
            ("o", f32s(&[8], &[0.0; 8])),
            ("off", HostArg::Scalar("100".into())),
        ],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("pointer offset out of bounds"),
        "{e}"
    );
}

/// `pto.get_tensor_view_dim` reads a view's run-time dimension; an index past the rank is a
/// bounds error.
#[test]
fn get_tensor_view_dim_reads_the_views_shape() {
    let src = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %n: index, %d: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %a, shape = [%c1, %n], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %w = pto.get_tensor_view_dim %v, %d : !pto.tensor_view<?x?xf32> -> index
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f32
    %t = pto.alloc_tile : ROW
    pto.texpands ins(%wf : f32) outs(%t : ROW)
    %ov = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    pto.tstore ins(%t : ROW) outs(%op : !pto.partition_tensor_view<1x8xf32>)
    return
  }
}
"#
    .replace("ROW", ROW);
    let p = prog(&src);
    let a = ramp(8);
    let go = |n: &str, d: &str| {
        run(
            &p,
            vec![
                ("a", f32s(&[8], &a)),
                ("o", f32s(&[8], &[0.0; 8])),
                ("n", HostArg::Scalar(n.into())),
                ("d", HostArg::Scalar(d.into())),
            ],
        )
    };
    assert_eq!(out_f32(&go("6", "1").unwrap(), "o"), vec![6.0; 8]);
    assert_eq!(out_f32(&go("6", "0").unwrap(), "o"), vec![1.0; 8]);
    let e = go("6", "2").unwrap_err();
    assert!(
        e.to_string().contains("dimension index out of range"),
        "{e}"
    );
}

/// `pto.treshape` and `pto.bitcast` see the same bytes through another tile type: a 4x8 f32
/// tile stored as 1x32 keeps row-major order, and as i32 keeps the bit patterns.
#[test]
fn treshape_and_bitcast_alias_the_bytes() {
    let t48 = TILE;
    let t132 = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let i48 = "!pto.tile_buf<loc=vec, dtype=i32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let src = r#"
module {
  func.func @k(%a: memref<4x8xf32, #pto.address_space<gm>>, %o: memref<1x32xf32, #pto.address_space<gm>>, %b: memref<4x8xi32, #pto.address_space<gm>>) {
    %t = pto.alloc_tile : T48
    pto.tload ins(%a : memref<4x8xf32, #pto.address_space<gm>>) outs(%t : T48)
    %r = pto.treshape %t : T48 -> T132
    pto.tstore ins(%r : T132) outs(%o : memref<1x32xf32, #pto.address_space<gm>>)
    %i = pto.bitcast %t : T48 -> I48
    pto.tstore ins(%i : I48) outs(%b : memref<4x8xi32, #pto.address_space<gm>>)
    return
  }
}
"#
    .replace("T48", t48)
    .replace("T132", t132)
    .replace("I48", i48);
    let p = prog(&src);
    let a = ramp(32);
    let o = run(
        &p,
        vec![
            ("a", f32s(&[4, 8], &a)),
            ("o", f32s(&[1, 32], &[0.0; 32])),
            (
                "b",
                HostArg::Buffer(NpyArray::from_elems(vec![4, 8], &[0i32; 32])),
            ),
        ],
    )
    .unwrap();
    assert_eq!(out_f32(&o, "o"), a);
    let bits: Vec<i32> = o.buffer("b").unwrap().to_elems::<i32>().unwrap();
    let want: Vec<i32> = a.iter().map(|x| x.to_bits() as i32).collect();
    assert_eq!(bits, want);

    // TRESHAPE keeps the byte size: 4x8 f32 is not 1x16 f32.
    let bad = src
        .replace("cols=32, v_row=1, v_col=32", "cols=16, v_row=1, v_col=16")
        .replace("memref<1x32xf32", "memref<1x16xf32");
    let p = prog(&bad);
    let e = run(
        &p,
        vec![
            ("a", f32s(&[4, 8], &a)),
            ("o", f32s(&[1, 16], &[0.0; 16])),
            (
                "b",
                HostArg::Buffer(NpyArray::from_elems(vec![4, 8], &[0i32; 32])),
            ),
        ],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("TRESHAPE") && e.to_string().contains("64 bytes from 128"),
        "{e}"
    );
}
