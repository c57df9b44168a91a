//! Two forms PTOAS samples use, through PTO-AS text (reduced kernels written here):
//! - `pto.tpack` (A5; PTOAS `docs/PTO_IR_manual.md` "pto.tpack", pto-isa `docs/isa/TPACK.md`):
//!   each int32 keeps its low 16 bits;
//! - TLOAD / TSTORE with a tile valid region smaller than the partition (pto-isa
//!   `docs/isa/TLOAD.md`, `TSTORE.md`: the valid region is the transfer size): the window at
//!   the partition's origin moves, the rest of the tile keeps its pad value; a valid region
//!   larger than the partition is a typed error.
//!
//! Expected buffers are computed in the test from the inputs.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

const PACK: &str = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<i32>, %b: !pto.ptr<i16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %ta = pto.make_tensor_view %a, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xi32>
    %tb = pto.make_tensor_view %b, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xi16>
    %pa = pto.partition_view %ta, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<4x16xi32>
    %pb = pto.partition_view %tb, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xi16> -> !pto.partition_tensor_view<4x16xi16>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 4x16xi32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 4x16xi16>
    pto.tload ins(%pa : !pto.partition_tensor_view<4x16xi32>) outs(%s : !pto.tile_buf<vec, 4x16xi32>)
    pto.tpack ins(%s : !pto.tile_buf<vec, 4x16xi32>) outs(%d : !pto.tile_buf<vec, 4x16xi16>)
    pto.tstore ins(%d : !pto.tile_buf<vec, 4x16xi16>) outs(%pb : !pto.partition_tensor_view<4x16xi16>)
    return
  }
}
"#;

#[test]
fn tpack_keeps_the_low_half_of_each_int32() {
    let a: Vec<i32> = (0..64)
        .map(|i: i32| (i * 0x0123_4567).wrapping_sub(0x1000_0000))
        .collect();
    let args = vec![
        (
            "a".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &a)),
        ),
        (
            "b".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &[0i16; 64])),
        ),
    ];
    let o = prog(PACK).run(None, &args, &RunConfig::default()).unwrap();
    let got = o.buffer("b").unwrap().to_elems::<i16>().unwrap();
    let want: Vec<i16> = a
        .iter()
        .map(|&x| (x as u32 & 0xffff) as u16 as i16)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn tpack_on_a2a3_is_a_typed_error() {
    let src = PACK.replace("\"a5\"", "\"a2a3\"");
    let args = vec![
        (
            "a".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &[0i32; 64])),
        ),
        (
            "b".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &[0i16; 64])),
        ),
    ];
    let e = prog(&src)
        .run(None, &args, &RunConfig::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("TPACK") && e.contains("a2a3"), "{e}");
}

/// Loads the `VRxVC` window of a `PRx16` partition into a 16x16 tile of that valid region and
/// stores it to a `PRx16` partition of the output: only the window is written.
const WINDOW: &str = r#"
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %cpr = arith.constant PR : index
    %cvr = arith.constant VR : index
    %cvc = arith.constant VC : index
    %ta = pto.make_tensor_view %a, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %to = pto.make_tensor_view %o, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %ta, offsets = [%c0, %c0], sizes = [%cpr, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<PRx16xf32>
    %po = pto.partition_view %to, offsets = [%c0, %c0], sizes = [%cpr, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<PRx16xf32>
    %x = pto.alloc_tile valid_row = %cvr valid_col = %cvc : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
    pto.tload ins(%pa : !pto.partition_tensor_view<PRx16xf32>) outs(%x : !pto.tile_buf<vec, 16x16xf32, valid=?x?>)
    pto.tstore ins(%x : !pto.tile_buf<vec, 16x16xf32, valid=?x?>) outs(%po : !pto.partition_tensor_view<PRx16xf32>)
    return
  }
}
"#;

fn window(pr: usize, vr: usize, vc: usize) -> Result<Vec<f32>, String> {
    let src = WINDOW
        .replace("PR", &pr.to_string())
        .replace("VR", &vr.to_string())
        .replace("VC", &vc.to_string());
    let a: Vec<f32> = (0..256).map(|i| i as f32 + 0.25).collect();
    let args = vec![
        (
            "a".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![256], &a)),
        ),
        (
            "o".to_string(),
            HostArg::Buffer(NpyArray::from_elems(vec![256], &[-1f32; 256])),
        ),
    ];
    prog(&src)
        .run(None, &args, &RunConfig::default())
        .map(|o| o.buffer("o").unwrap().to_elems::<f32>().unwrap())
        .map_err(|e| e.to_string())
}

#[test]
fn a_valid_window_smaller_than_the_partition_moves_only_the_window() {
    for (pr, vr, vc) in [
        (16, 1, 1),
        (16, 16, 16),
        (8, 3, 16),
        (16, 5, 7),
        (12, 12, 9),
    ] {
        let got = window(pr, vr, vc).unwrap();
        let want: Vec<f32> = (0..256)
            .map(|i| {
                let (r, c) = (i / 16, i % 16);
                if r < vr && c < vc {
                    i as f32 + 0.25
                } else {
                    -1.0
                }
            })
            .collect();
        assert_eq!(got, want, "{pr} {vr} {vc}");
    }
}

#[test]
fn a_valid_region_past_the_partition_is_a_typed_error() {
    let e = window(8, 12, 16).unwrap_err();
    assert!(
        e.contains("TLOAD")
            && e.contains("must fit within the global shape")
            && e.contains("valid 12x16"),
        "{e}"
    );
}
