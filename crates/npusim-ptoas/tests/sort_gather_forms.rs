//! TGATHER's mask form and TSCATTER as PTOAS prints them (generic form), lowered to
//! npusim-pto's operand forms and run; expected values computed here from the inputs with the
//! pto-isa pages' formulas (TGATHER: `P0101` keeps the even columns, packed row by row;
//! TSCATTER: `dst(idx(i, j), j) = src(i, j)` over a cleared dst).

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

fn run(src: &str, args: Vec<(&str, HostArg)>) -> npusim_ptoas::interp::RunOutcome {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    let p = lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{}", e.render("t.pto", src)))
}

#[test]
fn tgather_mask_form_keeps_the_pattern_columns() {
    let src = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32> -> !pto.partition_tensor_view<4x8xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<4x16xf32>) outs(%s : !pto.tile_buf<vec, 4x16xf32>)
    pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<vec, 4x16xf32>) outs(%d : !pto.tile_buf<vec, 4x8xf32>)
    pto.tstore ins(%d : !pto.tile_buf<vec, 4x8xf32>) outs(%yp : !pto.partition_tensor_view<4x8xf32>)
    return
  }
}
"#;
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 1.5 - 20.0).collect();
    let o = run(
        src,
        vec![
            ("x", HostArg::Buffer(NpyArray::from_elems(vec![4, 16], &x))),
            (
                "y",
                HostArg::Buffer(NpyArray::from_elems(vec![4, 8], &[0f32; 32])),
            ),
        ],
    );
    let want: Vec<f32> = (0..4)
        .flat_map(|r| (0..8).map(move |k| (r, 2 * k)))
        .map(|(r, c)| x[r * 16 + c])
        .collect();
    assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), want);
}

#[test]
fn tscatter_places_rows_by_index() {
    let src = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %ix: !pto.ptr<i32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<8x8xf32>
    %iv = pto.make_tensor_view %ix, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<8x8xi32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<8x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<8x8xf32> -> !pto.partition_tensor_view<8x8xf32>
    %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<8x8xi32> -> !pto.partition_tensor_view<8x8xi32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<8x8xf32> -> !pto.partition_tensor_view<8x8xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
    %i = pto.alloc_tile : !pto.tile_buf<vec, 8x8xi32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%s : !pto.tile_buf<vec, 8x8xf32>)
    pto.tload ins(%ip : !pto.partition_tensor_view<8x8xi32>) outs(%i : !pto.tile_buf<vec, 8x8xi32>)
    pto.tscatter ins(%s, %i : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xi32>) outs(%d : !pto.tile_buf<vec, 8x8xf32>)
    pto.tstore ins(%d : !pto.tile_buf<vec, 8x8xf32>) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    return
  }
}
"#;
    let x: Vec<f32> = (0..64).map(|i| i as f32 + 0.5).collect();
    // A permutation of the rows per column: row i goes to (i * 3 + j) % 8 in column j.
    let idx: Vec<i32> = (0..64).map(|k| ((k / 8) * 3 + k % 8) % 8).collect();
    let o = run(
        src,
        vec![
            ("x", HostArg::Buffer(NpyArray::from_elems(vec![8, 8], &x))),
            (
                "ix",
                HostArg::Buffer(NpyArray::from_elems(vec![8, 8], &idx)),
            ),
            (
                "y",
                HostArg::Buffer(NpyArray::from_elems(vec![8, 8], &[-1f32; 64])),
            ),
        ],
    );
    let mut want = [0f32; 64];
    for i in 0..8 {
        for j in 0..8 {
            want[idx[i * 8 + j] as usize * 8 + j] = x[i * 8 + j];
        }
    }
    assert_eq!(
        o.buffer("y").unwrap().to_elems::<f32>().unwrap(),
        want.to_vec()
    );
}

/// `pto.thistogram` (A5; PTO IR manual "pto.thistogram") as PTOAS prints it, uint16 form: the
/// default `isMSB = true` histograms the high byte; `isMSB = false` the low byte of the
/// elements whose high byte equals the row's idx byte. Bins are cumulative (see
/// `npusim_pto::ops::histogram`); the expected bins are computed here.
#[test]
fn thistogram_msb_then_filtered_lsb() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<ui16>, %f: !pto.ptr<ui8>, %hi: !pto.ptr<ui32>, %lo: !pto.ptr<ui32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %xv = pto.make_tensor_view %x, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xui16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c32, %c16] : !pto.tensor_view<?x?xui16> -> !pto.partition_tensor_view<32x16xui16>
    %fv = pto.make_tensor_view %f, shape = [%c32, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xui8>
    %fp = pto.partition_view %fv, offsets = [%c0, %c0], sizes = [%c32, %c1] : !pto.tensor_view<?x?xui8> -> !pto.partition_tensor_view<32x1xui8>
    %hv = pto.make_tensor_view %hi, shape = [%c32, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xui32>
    %hp = pto.partition_view %hv, offsets = [%c0, %c0], sizes = [%c32, %c256] : !pto.tensor_view<?x?xui32> -> !pto.partition_tensor_view<32x256xui32>
    %lv = pto.make_tensor_view %lo, shape = [%c32, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xui32>
    %lp = pto.partition_view %lv, offsets = [%c0, %c0], sizes = [%c32, %c256] : !pto.tensor_view<?x?xui32> -> !pto.partition_tensor_view<32x256xui32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 32x16xui16>
    %i = pto.alloc_tile : !pto.tile_buf<vec, 32x1xui8, blayout=col_major>
    %h = pto.alloc_tile : !pto.tile_buf<vec, 32x256xui32>
    %l = pto.alloc_tile : !pto.tile_buf<vec, 32x256xui32>
    pto.tload ins(%xp : !pto.partition_tensor_view<32x16xui16>) outs(%s : !pto.tile_buf<vec, 32x16xui16>)
    pto.tload ins(%fp : !pto.partition_tensor_view<32x1xui8>) outs(%i : !pto.tile_buf<vec, 32x1xui8, blayout=col_major>)
    pto.thistogram ins(%s, %i : !pto.tile_buf<vec, 32x16xui16>, !pto.tile_buf<vec, 32x1xui8, blayout=col_major>) outs(%h : !pto.tile_buf<vec, 32x256xui32>)
    pto.thistogram ins(%s, %i : !pto.tile_buf<vec, 32x16xui16>, !pto.tile_buf<vec, 32x1xui8, blayout=col_major>) outs(%l : !pto.tile_buf<vec, 32x256xui32>) {isMSB = false}
    pto.tstore ins(%h : !pto.tile_buf<vec, 32x256xui32>) outs(%hp : !pto.partition_tensor_view<32x256xui32>)
    pto.tstore ins(%l : !pto.tile_buf<vec, 32x256xui32>) outs(%lp : !pto.partition_tensor_view<32x256xui32>)
    return
  }
}
"#;
    let x: Vec<u16> = (0..512u32)
        .map(|k| ((((k * 7) % 3) << 8) | ((k * 37) % 256)) as u16)
        .collect();
    let f: Vec<u8> = (0..32u8).map(|r| r % 3).collect();
    let o = run(
        src,
        vec![
            ("x", HostArg::Buffer(NpyArray::from_elems(vec![512], &x))),
            ("f", HostArg::Buffer(NpyArray::from_elems(vec![32], &f))),
            (
                "hi",
                HostArg::Buffer(NpyArray::from_elems(vec![8192], &[0u32; 8192])),
            ),
            (
                "lo",
                HostArg::Buffer(NpyArray::from_elems(vec![8192], &[0u32; 8192])),
            ),
        ],
    );
    let hi = o.buffer("hi").unwrap().to_elems::<u32>().unwrap();
    let lo = o.buffer("lo").unwrap().to_elems::<u32>().unwrap();
    for r in 0..32 {
        let row = &x[r * 16..(r + 1) * 16];
        for b in 0..256usize {
            let hi_want = row.iter().filter(|v| (**v >> 8) as usize <= b).count() as u32;
            let lo_want = row
                .iter()
                .filter(|v| (**v >> 8) as u8 == f[r] && (**v & 0xff) as usize <= b)
                .count() as u32;
            assert_eq!(hi[r * 256 + b], hi_want, "hi row {r} bin {b}");
            assert_eq!(lo[r * 256 + b], lo_want, "lo row {r} bin {b}");
        }
    }
}
