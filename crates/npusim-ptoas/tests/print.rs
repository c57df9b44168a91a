//! `pto.tprint` and `pto.print` (PTO IR manual, "pto.tprint", "pto.print"): the run collects
//! each print with its block and source line, in execution order; the texts are TPRINT's
//! device format and C printf (both checked at their own layer, npusim-pto `tests/print.rs`
//! and npusim-core `tests/printf.rs`); a format that does not fit the operand is a lowering
//! error naming the rule.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

const KERNEL: &str = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %b = pto.get_block_idx
    pto.print ins("block = %d", %b : i64)
    pto.print ins("s = %+08.3f", %s : f32)
    pto.tprint ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tprint ins(%xp : !pto.partition_tensor_view<1x8xf32>)
    return
  }
}
"#;

#[test]
fn prints_are_collected_in_order_with_block_and_line() {
    let m = parse_module(KERNEL, "k.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "k.pto", KERNEL)));
    let p = lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "k.pto", KERNEL)));
    let x: Vec<f32> = vec![1.0, -2.5, 0.125, 3.0, 4.0, 5.0, 6.0, 1e6];
    let args = vec![
        (
            "x".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![1, 8], &x)),
        ),
        ("s".to_string(), HostArg::Scalar("1.5".into())),
    ];
    let cfg = RunConfig {
        blocks: 2,
        ..RunConfig::default()
    };
    let o = p.run(None, &args, &cfg).unwrap();
    let texts: Vec<(u32, &str)> = o
        .prints
        .iter()
        .map(|p| (p.block, p.text.as_str()))
        .collect();
    assert_eq!(texts.len(), 8);
    let tile = "=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n  Shape: [1, 8], Valid Shape: [1, 8]\n  1.0000  -2.5000   0.1250   3.0000   4.0000   5.0000   6.0000 1000000.0000\n";
    let gm = "=== [TPRINT GlobalTensor] Data Type: float32, Layout: ND ===\n  Shape: [1, 1, 1, 1, 8]\n  Batch [0, 0, 0]:\n  1.0000  -2.5000   0.1250   3.0000   4.0000   5.0000   6.0000 1000000.0000\n";
    assert_eq!(
        texts,
        vec![
            (0, "block = 0"),
            (0, "s = +001.500"),
            (0, tile),
            (0, gm),
            (1, "block = 1"),
            (1, "s = +001.500"),
            (1, tile),
            (1, gm),
        ]
    );
    // On two threads the blocks run in parallel; the prints still come in block order.
    let cfg2 = RunConfig {
        blocks: 2,
        threads: 2,
        ..RunConfig::default()
    };
    let o2 = p.run(None, &args, &cfg2).unwrap();
    assert_eq!(o2.schedule.threads, 2, "{:?}", o2.schedule.fallback);
    assert_eq!(o2.prints, o.prints);
    let line = |pat: &str| KERNEL.lines().position(|l| l.contains(pat)).unwrap() + 1;
    assert_eq!(
        o.prints[1].tag("k.pto", KERNEL),
        format!("[block 0 k.pto:{}]", line("s = %+08.3f"))
    );
    assert_eq!(
        o.prints[6].tag("k.pto", KERNEL),
        format!("[block 1 k.pto:{}]", line("pto.tprint"))
    );
}

#[test]
fn a_format_that_does_not_fit_is_a_lowering_error() {
    for (fmt, rule) in [
        ("%d", "print-format"),
        ("%f %f", "print-format"),
        ("%s", "print-format"),
    ] {
        let src = KERNEL.replace("s = %+08.3f", fmt);
        let m = parse_module(&src, "k.pto").unwrap();
        let Err(d) = lower(&m, LowerOptions::default()) else {
            panic!("{fmt}: expected a lowering error");
        };
        let text = npusim_ptoas::render_all(&d, "k.pto", &src);
        assert!(
            text.contains(rule) && text.contains("pto.print"),
            "{fmt}: {text}"
        );
    }
}

#[test]
fn tprint_of_a_bf16_tile_is_a_typed_error() {
    let src = KERNEL.replace(
        "pto.tprint ins(%t : !pto.tile_buf<loc=vec, dtype=f32",
        "%h = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=bf16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>\n    pto.tprint ins(%h : !pto.tile_buf<loc=vec, dtype=bf16",
    ).replace("dtype=bf16, rows=1, cols=8, v_row=1, v_col=8", "dtype=bf16, rows=1, cols=16, v_row=1, v_col=16");
    let m = parse_module(&src, "k.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "k.pto", &src)));
    let p = lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "k.pto", &src)));
    let args = vec![
        (
            "x".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![1, 8], &[0f32; 8])),
        ),
        ("s".to_string(), HostArg::Scalar("1.5".into())),
    ];
    let e = p.run(None, &args, &RunConfig::default()).unwrap_err();
    assert!(
        e.to_string().contains("TPRINT") && e.to_string().contains("bfloat16"),
        "{e}"
    );
}
