//! `pto.ttrans ins(%src, %tmp) outs(%dst)` through PTO-AS (PTOAS `docs/PTO_IR_manual.md`
//! "pto.ttrans"; pto-isa `docs/isa/TTRANS.md` for the tmp size): the form with tmp lowers to
//! TTRANS's tmp form, so the A2A3 tmp rules (size, Vec, no overlap with src/dst) run; A5's
//! transpose never uses tmp. The kernel is a reduction of PTOAS `test/samples/Trans` (32x32
//! f32, src / tmp / dst in Vec), written here with a dynamic valid region and, where a case
//! needs it, explicit addresses. Expected buffers: a plain transpose written in the test.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

/// ARCH, VR x VC (src's valid region), TMPR (tmp's rows of 32 f32), TMPLOC, the three tile
/// addresses and INS (`%s, %t` or `%s`, with its types).
const KERNEL: &str = r#"
module attributes {pto.target_arch = "ARCH"} {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %cvr = arith.constant VR : index
    %cvc = arith.constant VC : index
    %as = arith.constant SADDR : i64
    %at = arith.constant TADDR : i64
    %ad = arith.constant DADDR : i64
    %ta = pto.make_tensor_view %a, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %to = pto.make_tensor_view %o, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %ta, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %po = pto.partition_view %to, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %s = pto.alloc_tile addr = %as valid_row = %cvr valid_col = %cvc : !pto.tile_buf<vec, 32x32xf32, valid=?x?>
    %t = pto.alloc_tile addr = %at : !pto.tile_buf<TMPLOC, TMPRx32xf32>
    %d = pto.alloc_tile addr = %ad : !pto.tile_buf<vec, 32x32xf32>
    pto.tload ins(%pa : !pto.partition_tensor_view<32x32xf32>) outs(%s : !pto.tile_buf<vec, 32x32xf32, valid=?x?>)
    pto.ttrans ins(INS) outs(%d : !pto.tile_buf<vec, 32x32xf32>)
    pto.tstore ins(%d : !pto.tile_buf<vec, 32x32xf32>) outs(%po : !pto.partition_tensor_view<32x32xf32>)
    return
  }
}
"#;

const WITH_TMP: &str =
    "%s, %t : !pto.tile_buf<vec, 32x32xf32, valid=?x?>, !pto.tile_buf<TMPLOC, TMPRx32xf32>";
const WITHOUT_TMP: &str = "%s : !pto.tile_buf<vec, 32x32xf32, valid=?x?>";

#[derive(Clone, Copy)]
struct Case {
    arch: &'static str,
    vr: usize,
    vc: usize,
    tmp_rows: usize,
    tmp_loc: &'static str,
    /// src, tmp, dst addresses (bytes).
    addr: [u32; 3],
    tmp: bool,
}

impl Case {
    fn new(arch: &'static str, vr: usize, vc: usize, tmp_rows: usize) -> Case {
        Case {
            arch,
            vr,
            vc,
            tmp_rows,
            tmp_loc: "vec",
            addr: [0, 8192, 4096],
            tmp: true,
        }
    }
    fn text(&self) -> String {
        let ins = if self.tmp { WITH_TMP } else { WITHOUT_TMP };
        KERNEL
            .replace("INS", ins)
            .replace("ARCH", self.arch)
            .replace("TMPLOC", self.tmp_loc)
            .replace("TMPR", &self.tmp_rows.to_string())
            .replace("VR", &self.vr.to_string())
            .replace("VC", &self.vc.to_string())
            .replace("SADDR", &self.addr[0].to_string())
            .replace("TADDR", &self.addr[1].to_string())
            .replace("DADDR", &self.addr[2].to_string())
    }
    fn run(&self) -> Result<Vec<u32>, String> {
        let a: Vec<f32> = (0..1024u32)
            .map(|k| f32::from_bits(k.wrapping_mul(0x9e37_79b9) ^ 0x3f80_0000))
            .collect();
        let args = vec![
            (
                "a".to_string(),
                HostArg::Buffer(NpyArray::from_elems(vec![1024], &a)),
            ),
            (
                "o".to_string(),
                HostArg::Buffer(NpyArray::from_elems(vec![1024], &[-1f32; 1024])),
            ),
        ];
        prog(&self.text())
            .run(None, &args, &RunConfig::default())
            .map(|o| {
                let v = o.buffer("o").unwrap().to_elems::<f32>().unwrap();
                v.iter().map(|x| x.to_bits()).collect()
            })
            .map_err(|e| e.to_string())
    }
}

/// The plain transpose, dst(j, i) = src(i, j), in a 32x32 row-major image: A2A3 over src's
/// `vr x vc` valid region (the loaded window of the input); A5 over the whole 32x32 tile, whose
/// elements outside the loaded window are the fresh tile's zeros.
fn transposed(arch: &str, vr: usize, vc: usize) -> Vec<(usize, u32)> {
    let a: Vec<u32> = (0..1024u32)
        .map(|k| k.wrapping_mul(0x9e37_79b9) ^ 0x3f80_0000)
        .collect();
    let (r, c) = if arch == "a5" { (32, 32) } else { (vr, vc) };
    let mut out = Vec::new();
    for i in 0..r {
        for j in 0..c {
            let v = if i < vr && j < vc { a[i * 32 + j] } else { 0 };
            out.push((j * 32 + i, v));
        }
    }
    out
}

#[test]
fn the_tmp_form_lowers_to_ttrans_with_tmp() {
    let with = prog(&Case::new("a2a3", 32, 32, 32).text()).listing();
    assert!(with.contains("TransposeTmp"), "{with}");
    let without = prog(
        &Case {
            tmp: false,
            ..Case::new("a2a3", 32, 32, 32)
        }
        .text(),
    )
    .listing();
    assert!(!without.contains("TransposeTmp"), "{without}");
}

#[test]
fn ttrans_with_tmp_transposes_like_the_form_without() {
    for arch in ["a2a3", "a5"] {
        for (vr, vc) in [(32, 32), (1, 1), (16, 32), (17, 5), (3, 32), (32, 8)] {
            let c = Case::new(arch, vr, vc, 32);
            let got = c.run().unwrap_or_else(|e| panic!("{arch} {vr}x{vc}: {e}"));
            for (k, want) in transposed(arch, vr, vc) {
                assert_eq!(got[k], want, "{arch} {vr}x{vc} at {k}");
            }
            let plain = Case { tmp: false, ..c }.run().unwrap();
            assert_eq!(got, plain, "{arch} {vr}x{vc}: tmp form vs form without tmp");
        }
    }
}

/// tmp must hold validCol * ceil(validRow / 16) * 16 * 4 bytes for f32 (TTRANS.md): a 16x32
/// f32 tmp (2048 bytes) holds it for 16 valid rows of 32, not for 17.
#[test]
fn a2a3_tmp_too_small_is_a_typed_error() {
    assert!(Case::new("a2a3", 16, 32, 16).run().is_ok());
    let e = Case::new("a2a3", 17, 32, 16).run().unwrap_err();
    assert!(
        e.contains("TTRANS") && e.contains("tmp") && e.contains("2048 bytes for 4096"),
        "{e}"
    );
    // 9 columns: 9 * 32 * 4 = 1152 bytes; a tmp of 8 rows of 32 f32 (1024 bytes) is short.
    let e = Case::new("a2a3", 17, 9, 8).run().unwrap_err();
    assert!(e.contains("1024 bytes for 1152"), "{e}");
    // A5's transpose does not use tmp.
    assert!(Case::new("a5", 17, 32, 16).run().is_ok());
}

#[test]
fn a2a3_tmp_overlapping_src_or_dst_is_a_typed_error() {
    for (addr, with) in [([0, 2048, 4096], "src"), ([0, 6144, 4096], "dst")] {
        let e = Case {
            addr,
            ..Case::new("a2a3", 32, 32, 32)
        }
        .run()
        .unwrap_err();
        assert!(
            e.contains("TTRANS") && e.contains("must not overlap") && e.contains(with),
            "{e}"
        );
    }
    // Adjacent is not overlapping.
    assert!(
        Case {
            addr: [0, 4096, 8192],
            ..Case::new("a2a3", 32, 32, 32)
        }
        .run()
        .is_ok()
    );
    assert!(
        Case {
            addr: [0, 2048, 4096],
            ..Case::new("a5", 32, 32, 32)
        }
        .run()
        .is_ok()
    );
}

#[test]
fn a2a3_tmp_outside_vec_is_a_typed_error() {
    let e = Case {
        tmp_loc: "mat",
        addr: [0, 0, 4096],
        ..Case::new("a2a3", 32, 32, 32)
    }
    .run()
    .unwrap_err();
    assert!(e.contains("TTRANS") && e.contains("tmp"), "{e}");
}
