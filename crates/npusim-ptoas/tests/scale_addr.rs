//! `pto.tget_scale_addr` (A5) in a PTO-AS kernel: the MX kernel of `mx_kernel.rs` with its two
//! Scaling tiles declared at addresses 0 and 2048 and rebound by TGET_SCALE_ADDR to the scale addresses of
//! the Left and Right tiles (their addresses shifted right by 4, pto-isa
//! `docs/isa/TGET_SCALE_ADDR.md`) before the scales are moved in. The matmul reads the scales
//! through two more Scaling tiles placed by hand at those shifted addresses, so the result is
//! right only if the rebinding moved the tiles there (unbound, the scales land at 0 and 2048
//! and the matmul reads zero codes, 2^-127).

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, Program, RunConfig};

mod mx_common;
use mx_common::*;

fn prog_sa(src: &str) -> Program {
    prog(src, "scale_addr.pto")
}

fn kernel() -> String {
    scale_kernel("scaling", "scaling")
}

/// E4M3FN and E5M2 codes of {0, ±0.5, ±1, ±1.5, ±2}, with their values.

#[test]
fn tget_scale_addr_rebinds_the_scaling_tiles() {
    let (args, a, b, sa, sb) = inputs();
    let want = expected(&a, &b, &sa, &sb);
    let p = prog_sa(&kernel());
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert!(want.iter().filter(|x| **x != 0.0).count() > M * N / 2);
    assert_eq!(c, want);
    // Without the rebinding the scales stay at address 0: the same kernel with the two
    // tget_scale_addr lines taken out gives another result (the check discriminates).
    let src: String = kernel()
        .lines()
        .filter(|l| !l.contains("pto.tget_scale_addr"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = prog_sa(&src)
        .run(None, &args, &RunConfig::default())
        .unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert_ne!(c, want);
}

/// The rebound tile must fit the Scaling memory (4 KiB on A5), as TASSIGN checks: a 4 KiB
/// Scaling tile rebound from a Left tile at 8192 (scale address 512) ends past it, a typed
/// run-time error naming the instruction; from a Left tile at 0 it fits.
#[test]
fn tget_scale_addr_past_the_scaling_memory_is_an_error() {
    let src = |addr: u32| {
        format!(
            "module attributes {{pto.target_arch = \"a5\"}} {{
  func.func @k() {{
    %a = arith.constant {addr} : i64
    %l = pto.alloc_tile addr = %a : !pto.tile_buf<loc=left, dtype=f8E4M3FN, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %s = pto.alloc_tile : !pto.tile_buf<loc=scaling, dtype=f16, rows=1, cols=2048, v_row=1, v_col=2048, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tget_scale_addr ins(%l : !pto.tile_buf<loc=left, dtype=f8E4M3FN, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%s : !pto.tile_buf<loc=scaling, dtype=f16, rows=1, cols=2048, v_row=1, v_col=2048, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }}
}}
"
        )
    };
    let ok = prog_sa(&src(0)).run(None, &[], &RunConfig::default());
    assert!(ok.is_ok(), "{:?}", ok.err().map(|e| e.to_string()));
    let err = match prog_sa(&src(8192)).run(None, &[], &RunConfig::default()) {
        Ok(_) => panic!("a Scaling tile rebound past the Scaling memory ran"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("TGET_SCALE_ADDR"), "{err}");
}

/// The kernel above with the two rebindings inside `scf.if %flag` and a second matmul that
/// reads the scales through Scaling tiles placed by hand at the tiles' own addresses (0 and
/// 2048) into a second output `d`. The scales are moved in after the branch, through the
/// rebindable tiles: where they land depends on whether the branch ran.
fn kernel_in_branch() -> String {
    let k = kernel();
    let ty_of = |name: &str| -> String {
        let l = k
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} = ")))
            .unwrap();
        l.rsplit(" : ").next().unwrap().to_string()
    };
    let (sa, sb) = (ty_of("%sal"), ty_of("%sbl"));
    let acc = ty_of("%acc");
    let mut out = String::new();
    let mut second = String::new();
    for l in k.lines() {
        let t = l.trim_start();
        if t.starts_with("func.func @mx") {
            out += &l.replace(
                "%c: !pto.ptr<f32>)",
                "%c: !pto.ptr<f32>, %d: !pto.ptr<f32>, %flag: i1)",
            );
        } else if t.starts_with("pto.tget_scale_addr") {
            out += &format!("    scf.if %flag {{\n  {l}\n    }}");
        } else if t.starts_with("return") {
            out += &second;
            out += "    pto.set_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID1>]\n";
            out += "    pto.wait_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID1>]\n";
            out += &l
                .replace("return", "pto.tstore ins(%acc2 : ACC) outs(%dp : PC)")
                .replace("ACC", &acc)
                .replace("PC", ty_of("%cp").rsplit(" -> ").next().unwrap());
            out += "\n";
            out += l;
        } else {
            out += l;
            if t.starts_with("%cv = ") || t.starts_with("%cp = ") {
                out += "\n";
                out += &l
                    .replace("%cv", "%dv")
                    .replace("%cp", "%dp")
                    .replace("%c,", "%d,");
            } else if t.starts_with("%sbl = ") {
                out += &format!(
                    "\n    %sa0 = pto.alloc_tile addr = %a_0 : {sa}\n    %sb0 = pto.alloc_tile addr = %a_2k : {sb}"
                );
            } else if t.starts_with("%acc = ") {
                out += &format!("\n    %acc2 = pto.alloc_tile : {acc}");
            } else if t.starts_with("pto.tmatmul.mx") {
                second += &l
                    .replace("%sal", "%sa0")
                    .replace("%sbl", "%sb0")
                    .replace("%acc", "%acc2");
                second += "\n";
            }
        }
        out += "\n";
    }
    out
}

/// `tget_scale_addr` inside `scf.if`, both outcomes: taken, the scales moved in after the
/// branch land at the shifted addresses (`c` is the scaled matmul, `d` reads the untouched
/// Scaling memory at 0 / 2048: zero codes); not taken, they land at the tiles' own addresses
/// (`d` is the scaled matmul, `c` reads zero codes). Both against the plain model of
/// `mx_common::expected`. (Lowering once put the rebound tile into the frame template, so the
/// ops after the branch used it even when the branch was not taken.)
#[test]
fn tget_scale_addr_in_a_branch_rebinds_only_when_taken() {
    let (mut args, a, b, sa, sb) = inputs();
    let scaled = expected(&a, &b, &sa, &sb);
    let zero = expected(&a, &b, &vec![0; sa.len()], &vec![0; sb.len()]);
    assert!(scaled.iter().filter(|x| **x != 0.0).count() > M * N / 2);
    assert_ne!(scaled, zero);
    let src = kernel_in_branch();
    let p = prog_sa(&src);
    args.push((
        "d".into(),
        HostArg::Buffer(NpyArray::from_elems(vec![M, N], &vec![7f32; M * N])),
    ));
    for (flag, want_c, want_d) in [("1", &scaled, &zero), ("0", &zero, &scaled)] {
        let mut args = args.clone();
        args.push(("flag".into(), HostArg::Scalar(flag.into())));
        let out = p
            .run(None, &args, &RunConfig::default())
            .unwrap_or_else(|e| panic!("flag = {flag}: {e}\n{src}"));
        let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
        let d = out.buffer("d").unwrap().to_elems::<f32>().unwrap();
        assert_eq!(&c, want_c, "c, flag = {flag}");
        assert_eq!(&d, want_d, "d, flag = {flag}");
    }
}
