//! `pto.mgather` / `pto.mscatter` as PTO-AS kernels (PTOAS manual, "pto.mgather",
//! "pto.mscatter"): a table in GM read and written through index tiles, with the
//! `gatherOob` / `scatterAtomicOp` / `scatterOob` attributes. Results against a plain model
//! written here; the per-instruction properties are in npusim-pto `tests/gm_index.rs`.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

const T8: &str = "!pto.tile_buf<loc=vec, dtype=i32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const I1: &str = "!pto.tile_buf<loc=vec, dtype=i32, rows=4, cols=8, v_row=4, v_col=1, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

fn kernel(gather_attr: &str, scatter_attr: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%table: !pto.ptr<i32>, %eidx: !pto.ptr<i32>, %ridx: !pto.ptr<i32>, %out: !pto.ptr<i32>, %rows_out: !pto.ptr<i32>, %acc: !pto.ptr<i32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %tv = pto.make_tensor_view %table, shape = [%c10, %c8], strides = [%c8, %c1] : !pto.tensor_view<10x8xi32>
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c10, %c8] : !pto.tensor_view<10x8xi32> -> !pto.partition_tensor_view<10x8xi32>
    %ev = pto.make_tensor_view %eidx, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xi32>
    %ep = pto.partition_view %ev, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xi32> -> !pto.partition_tensor_view<4x8xi32>
    %rv = pto.make_tensor_view %ridx, shape = [%c4, %c1], strides = [%c1, %c1] : !pto.tensor_view<4x1xi32>
    %rp = pto.partition_view %rv, offsets = [%c0, %c0], sizes = [%c4, %c1] : !pto.tensor_view<4x1xi32> -> !pto.partition_tensor_view<4x1xi32>
    %ov = pto.make_tensor_view %out, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xi32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xi32> -> !pto.partition_tensor_view<4x8xi32>
    %qv = pto.make_tensor_view %rows_out, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xi32>
    %qp = pto.partition_view %qv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xi32> -> !pto.partition_tensor_view<4x8xi32>
    %av = pto.make_tensor_view %acc, shape = [%c10, %c8], strides = [%c8, %c1] : !pto.tensor_view<10x8xi32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c10, %c8] : !pto.tensor_view<10x8xi32> -> !pto.partition_tensor_view<10x8xi32>
    %ei = pto.alloc_tile : {T8}
    %ri = pto.alloc_tile : {I1}
    %d = pto.alloc_tile : {T8}
    %q = pto.alloc_tile : {T8}
    pto.tload ins(%ep : !pto.partition_tensor_view<4x8xi32>) outs(%ei : {T8})
    pto.tload ins(%rp : !pto.partition_tensor_view<4x1xi32>) outs(%ri : {I1})
    pto.mgather ins(%tp, %ei : !pto.partition_tensor_view<10x8xi32>, {T8}) outs(%d : {T8}){gather_attr}
    pto.mgather ins(%tp, %ri : !pto.partition_tensor_view<10x8xi32>, {I1}) outs(%q : {T8}){gather_attr}
    pto.tstore ins(%d : {T8}) outs(%op : !pto.partition_tensor_view<4x8xi32>)
    pto.tstore ins(%q : {T8}) outs(%qp : !pto.partition_tensor_view<4x8xi32>)
    pto.mscatter ins(%d, %ei : {T8}, {T8}) outs(%ap : !pto.partition_tensor_view<10x8xi32>){scatter_attr}
    return
  }}
}}
"#
    )
}

fn i32s(shape: &[usize], v: &[i32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), v))
}

/// `out`, `rows_out` and `acc` after the run.
type Outs = (Vec<i32>, Vec<i32>, Vec<i32>);

fn run(src: &str, eidx: &[i32], ridx: &[i32]) -> Result<Outs, String> {
    let m = parse_module(src, "k.pto").map_err(|d| npusim_ptoas::render_all(&d, "k.pto", src))?;
    let p = lower(&m, LowerOptions::default())
        .map_err(|d| npusim_ptoas::render_all(&d, "k.pto", src))?;
    let table: Vec<i32> = (0..80).map(|i| 1000 + i).collect();
    let args = vec![
        ("table".to_string(), i32s(&[10, 8], &table)),
        ("eidx".to_string(), i32s(&[4, 8], eidx)),
        ("ridx".to_string(), i32s(&[4, 1], ridx)),
        ("out".to_string(), i32s(&[4, 8], &[0; 32])),
        ("rows_out".to_string(), i32s(&[4, 8], &[0; 32])),
        ("acc".to_string(), i32s(&[10, 8], &[1; 80])),
    ];
    let o = p
        .run(None, &args, &RunConfig::default())
        .map_err(|e| e.render("k.pto", src))?;
    let get = |n: &str| o.buffer(n).unwrap().to_elems::<i32>().unwrap();
    Ok((get("out"), get("rows_out"), get("acc")))
}

#[test]
fn gather_then_scatter_add_matches_the_model() {
    // Element indices over the 80-element table, with repeats (the scatter-add accumulates).
    let eidx: Vec<i32> = (0..32).map(|k| (k * 7 + 3) % 80 / 2 * 2).collect();
    let ridx = [9, 0, 4, 4];
    let src = kernel("", " {scatterAtomicOp = #pto<scatter_atomic_op add>}");
    let (out, rows, acc) = run(&src, &eidx, &ridx).unwrap();
    let table: Vec<i32> = (0..80).map(|i| 1000 + i).collect();
    let want_out: Vec<i32> = eidx.iter().map(|&i| table[i as usize]).collect();
    assert_eq!(out, want_out);
    let want_rows: Vec<i32> = (0..32)
        .map(|k| table[ridx[k / 8] as usize * 8 + k % 8])
        .collect();
    assert_eq!(rows, want_rows);
    let mut want_acc = vec![1i32; 80];
    for (k, &i) in eidx.iter().enumerate() {
        want_acc[i as usize] += want_out[k];
    }
    assert_eq!(acc, want_acc);
}

#[test]
fn out_of_range_indices_follow_the_mode() {
    let mut eidx: Vec<i32> = (0..32).collect();
    eidx[5] = 80; // one past the table
    eidx[6] = -1; // 2^32 - 1 as an unsigned index
    let ridx = [0, 10, 2, 3];
    // Default mode: a typed error naming the index position, nothing stored.
    let e = run(&kernel("", ""), &eidx, &ridx).unwrap_err();
    assert!(e.contains("MGATHER") && e.contains("idx at (0, 5)"), "{e}");
    // Zero: out-of-range elements and rows read as 0; skip drops the scatter's writes.
    let src = kernel(
        " {gatherOob = #pto<gather_oob zero>}",
        " {scatterOob = #pto<scatter_oob skip>}",
    );
    let (out, rows, acc) = run(&src, &eidx, &ridx).unwrap();
    let want: Vec<i32> = (0..32)
        .map(|k| if k == 5 || k == 6 { 0 } else { 1000 + k })
        .collect();
    assert_eq!(out, want);
    assert!(rows[8..16].iter().all(|&v| v == 0) && rows[0] == 1000 && rows[16] == 1016);
    let want_acc: Vec<i32> = (0..80)
        .map(|i| {
            if i < 32 && i != 5 && i != 6 {
                1000 + i
            } else {
                1
            }
        })
        .collect();
    assert_eq!(acc, want_acc);
    // Clamp reads the last slot; wrap reads modulo the capacity.
    let (out, rows, _) = run(
        &kernel(
            " {gatherOob = #pto<gather_oob clamp>}",
            " {scatterOob = #pto<scatter_oob clamp>}",
        ),
        &eidx[..]
            .iter()
            .map(|&i| if i < 0 { 3 } else { i })
            .collect::<Vec<_>>(),
        &ridx,
    )
    .unwrap();
    assert_eq!(out[5], 1079);
    assert_eq!(rows[8], 1072);
    let (out, _, _) = run(
        &kernel(
            " {gatherOob = #pto<gather_oob wrap>}",
            " {scatterOob = #pto<scatter_oob wrap>}",
        ),
        &eidx,
        &ridx,
    )
    .unwrap();
    assert_eq!(
        (out[5], out[6]),
        (1000, 1000 + ((u32::MAX as u64) % 80) as i32)
    );
}

#[test]
fn an_unknown_mode_is_a_lowering_error() {
    for (g, sc, key) in [
        (" {gatherOob = #pto<gather_oob skip>}", "", "gatherOob"),
        ("", " {scatterOob = #pto<scatter_oob zero>}", "scatterOob"),
        (
            "",
            " {scatterAtomicOp = #pto<scatter_atomic_op mul>}",
            "scatterAtomicOp",
        ),
    ] {
        let src = kernel(g, sc);
        let e = run(&src, &[0; 32], &[0; 4]).unwrap_err();
        assert!(e.contains("[mode-attr]") && e.contains(key), "{e}");
    }
}
