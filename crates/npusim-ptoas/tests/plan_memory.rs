//! Automatic tile placement by liveness when tiles placed one after another would not fit
//! (the job of PTOAS's PlanMemory; its `planmemory` samples rely on it). Each kernel here
//! allocates more 16 KiB tiles than the 192 KiB vector memory holds; the outputs, computed in
//! the test, show that no live tile was overwritten by a reused address.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

const T: &str = "!pto.tile_buf<vec, 16x256xf32>";
const P: &str = "!pto.partition_tensor_view<16x256xf32>";

fn try_prog(src: &str) -> Result<Program, String> {
    let m = parse_module(src, "t.pto").map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))?;
    lower(&m, LowerOptions::default()).map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))
}

/// `dead` tiles each loaded from x and stored to z; `acc` (= x) and `c` (= x) live across a
/// loop of 4 iterations whose body first reads acc, then allocates, loads, scales and stores a
/// tile of its own: y = x + 4x, w = 2x, z = x.
fn kernel(dead: usize) -> String {
    let mut s = String::new();
    s += "module {\n  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>, %w: !pto.ptr<f32>) {\n";
    s += "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %c4 = arith.constant 4 : index\n";
    s += "    %c16 = arith.constant 16 : index\n    %c256 = arith.constant 256 : index\n    %two = arith.constant 2.0 : f32\n";
    for n in ["x", "y", "z", "w"] {
        s += &format!(
            "    %{n}v = pto.make_tensor_view %{n}, shape = [%c16, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>\n"
        );
        s += &format!(
            "    %{n}p = pto.partition_view %{n}v, offsets = [%c0, %c0], sizes = [%c16, %c256] : !pto.tensor_view<?x?xf32> -> {P}\n"
        );
    }
    s += &format!(
        "    %acc = pto.alloc_tile : {T}\n    pto.tload ins(%xp : {P}) outs(%acc : {T})\n"
    );
    s += &format!("    %c = pto.alloc_tile : {T}\n    pto.tload ins(%xp : {P}) outs(%c : {T})\n");
    for k in 0..dead {
        s += &format!(
            "    %d{k} = pto.alloc_tile : {T}\n    pto.tload ins(%xp : {P}) outs(%d{k} : {T})\n"
        );
        s += &format!("    pto.tstore ins(%d{k} : {T}) outs(%zp : {P})\n");
    }
    s += "    scf.for %i = %c0 to %c4 step %c1 {\n";
    s += &format!("      pto.tadd ins(%acc, %c : {T}, {T}) outs(%acc : {T})\n");
    s += &format!(
        "      %t = pto.alloc_tile : {T}\n      pto.tload ins(%xp : {P}) outs(%t : {T})\n"
    );
    s += &format!(
        "      pto.tmuls ins(%t, %two : {T}, f32) outs(%t : {T})\n      pto.tstore ins(%t : {T}) outs(%wp : {P})\n"
    );
    s += "    }\n";
    s += &format!("    pto.tstore ins(%acc : {T}) outs(%yp : {P})\n    return\n  }}\n}}\n");
    s
}

/// The first differing index, if any (keeps failure messages short).
fn diff(got: &[f32], want: &[f32]) -> Option<(usize, f32, f32)> {
    (got.len() != want.len())
        .then_some((usize::MAX, 0.0, 0.0))
        .or_else(|| {
            got.iter()
                .zip(want)
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| (i, *a, *b))
        })
}

fn run(p: &Program) -> [Vec<f32>; 4] {
    let n = 16 * 256;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
    let buf = |v: &[f32]| HostArg::Buffer(NpyArray::from_elems(vec![n], v));
    let args: Vec<(String, HostArg)> = vec![
        ("x".into(), buf(&x)),
        ("y".into(), buf(&vec![0.0; n])),
        ("z".into(), buf(&vec![0.0; n])),
        ("w".into(), buf(&vec![0.0; n])),
    ];
    let o = p.run(None, &args, &RunConfig::default()).unwrap();
    let get = |k: &str| o.buffer(k).unwrap().to_elems::<f32>().unwrap();
    [x, get("y"), get("z"), get("w")]
}

#[test]
fn dead_tiles_are_reused_and_loop_carried_tiles_are_kept() {
    // 2 + 30 + 1 tiles of 16 KiB: 528 KiB placed one after another.
    let p = try_prog(&kernel(30)).unwrap_or_else(|e| panic!("{e}"));
    let [x, y, z, w] = run(&p);
    let scaled = |k: f32| x.iter().map(|v| v * k).collect::<Vec<_>>();
    assert_eq!(diff(&y, &scaled(5.0)), None, "y");
    assert_eq!(diff(&z, &x), None, "z");
    assert_eq!(diff(&w, &scaled(2.0)), None, "w");
}

/// A kernel that fits is placed as before (one tile after another); the two placements give
/// the same outputs.
#[test]
fn a_kernel_that_fits_runs_the_same() {
    let p = try_prog(&kernel(3)).unwrap_or_else(|e| panic!("{e}"));
    let [x, y, _, w] = run(&p);
    assert_eq!(
        diff(&y, &x.iter().map(|v| v * 5.0).collect::<Vec<_>>()),
        None,
        "y"
    );
    assert_eq!(
        diff(&w, &x.iter().map(|v| v * 2.0).collect::<Vec<_>>()),
        None,
        "w"
    );
}

/// Thirteen tiles live at once cannot fit even with reuse: the placement error remains.
#[test]
fn too_many_live_tiles_is_still_an_error() {
    let mut src = kernel(0);
    let mut extra = String::new();
    let mut uses = String::new();
    for k in 0..11 {
        extra += &format!(
            "    %e{k} = pto.alloc_tile : {T}\n    pto.tload ins(%xp : {P}) outs(%e{k} : {T})\n"
        );
        uses += &format!("    pto.tstore ins(%e{k} : {T}) outs(%zp : {P})\n");
    }
    src = src.replacen("    scf.for", &format!("{extra}    scf.for"), 1);
    src = src.replacen("    return\n", &format!("{uses}    return\n"), 1);
    let e = try_prog(&src).unwrap_err();
    assert!(e.contains("does not fit in `vec`"), "{e}");
}

/// `n` functions `@f0..`, each loading x into one 16 KiB tile, scaling it by `i + 1` into a
/// second and storing that to y: 32 KiB of vector memory each, 224 KiB for seven, more than
/// the 192 KiB the memory holds. `caller` adds an entry that calls them all.
fn independent_kernels(n: usize, caller: bool) -> String {
    let mut s = String::from("module {\n");
    for i in 0..n {
        s += &format!(
            "  func.func @f{i}(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %k = arith.constant {}.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c16, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c256] : !pto.tensor_view<?x?xf32> -> {P}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c256] : !pto.tensor_view<?x?xf32> -> {P}
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    pto.tload ins(%xp : {P}) outs(%a : {T})
    pto.tmuls ins(%a, %k : {T}, f32) outs(%b : {T})
    pto.tstore ins(%b : {T}) outs(%yp : {P})
    return
  }}
",
            i + 1
        );
    }
    if caller {
        s += "  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {\n";
        for i in 0..n {
            s += &format!("    func.call @f{i}(%x, %y) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()\n");
        }
        s += "    return\n  }\n";
    }
    s + "}\n"
}

/// Functions that never run together (no calls, no shared reserved buffers) are placed each
/// from the bottom of the memory, as PTOAS places each kernel (its `tmatmul_mx_emitc` test
/// has three MX kernels whose Scaling tiles only fit that way): seven 32 KiB kernels lower
/// and each computes its own y = (i + 1) x. Called from one entry, they run together and
/// their 224 KiB do not fit: still the placement error.
#[test]
fn independent_functions_are_placed_each_from_the_bottom() {
    let p = try_prog(&independent_kernels(7, false)).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..4096).map(|i| (i % 97) as f32 - 48.0).collect();
    for i in 0..7 {
        let args = vec![
            (
                "x".to_string(),
                HostArg::Buffer(NpyArray::from_elems(vec![16, 256], &x)),
            ),
            (
                "y".to_string(),
                HostArg::Buffer(NpyArray::from_elems(vec![16, 256], &[0f32; 4096])),
            ),
        ];
        let o = p
            .run(Some(&format!("f{i}")), &args, &RunConfig::default())
            .unwrap();
        let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
        let want: Vec<f32> = x.iter().map(|v| v * (i + 1) as f32).collect();
        assert_eq!(y, want, "f{i}");
    }
    let e = try_prog(&independent_kernels(7, true)).expect_err("224 KiB in one run");
    assert!(e.contains("does not fit"), "{e}");
}
