//! An A5 PTO-AS kernel running the microscaled matmul end to end: f8 A (E4M3FN) and B (E5M2)
//! and their E8M0 scales loaded from GM (ND) into Mat tiles (the scales into pto-isa's MX
//! layouts, fractal 32), moved to Left / Right / Scaling, `pto.tmatmul.mx`, then
//! `pto.tmatmul.mx.acc` on top of it, stored from Acc.
//!
//! The inputs are chosen so that every partial sum is exact in f32 (values in {0, ±0.5, ±1,
//! ±1.5, ±2}, scales 2^-1..2^1): the result is then the plain formula
//! `C[i,j] = Σ_k a·2^(sa[i,k/32]-127) · b·2^(sb[k/32,j]-127)` in f64 whatever the K order, and
//! the second pass doubles it.

use npusim_ptoas::interp::{LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

mod mx_common;
use mx_common::*;

fn prog_mx(src: &str) -> Program {
    prog(src, "mx.pto")
}

fn kernel() -> String {
    let t = |loc: &str, ty: &str, r: usize, c: usize, b: &str, s: &str, f: usize| {
        format!(
            "!pto.tile_buf<loc={loc}, dtype={ty}, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout={b}, slayout={s}, fractal={f}, pad=0>"
        )
    };
    let am = t("mat", "f8E4M3FN", M, K, "col_major", "row_major", 512);
    let bm = t("mat", "f8E5M2", K, N, "col_major", "row_major", 512);
    let sam = t("mat", "f8E8M0FNU", M, G, "row_major", "row_major", 32);
    let sbm = t("mat", "f8E8M0FNU", G, N, "col_major", "col_major", 32);
    let l = t("left", "f8E4M3FN", M, K, "col_major", "row_major", 512);
    let r = t("right", "f8E5M2", K, N, "row_major", "col_major", 512);
    let sa = t("scaling", "f8E8M0FNU", M, G, "row_major", "row_major", 32);
    let sb = t("scaling", "f8E8M0FNU", G, N, "col_major", "col_major", 32);
    let acc = t("acc", "f32", M, N, "col_major", "row_major", 1024);
    let pv = |r: usize, c: usize, ty: &str| format!("!pto.partition_tensor_view<{r}x{c}x{ty}>");
    let tv = |ty: &str| format!("!pto.tensor_view<?x?x{ty}>");
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @mx(%a: !pto.ptr<f8E4M3FN>, %b: !pto.ptr<f8E5M2>, %sa: !pto.ptr<f8E8M0FNU>, %sb: !pto.ptr<f8E8M0FNU>, %c: !pto.ptr<f32>)
      attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cm = arith.constant {M} : index
    %ck = arith.constant {K} : index
    %cn = arith.constant {N} : index
    %cg = arith.constant {G} : index
    %av = pto.make_tensor_view %a, shape = [%cm, %ck], strides = [%ck, %c1] : {tva}
    %bv = pto.make_tensor_view %b, shape = [%ck, %cn], strides = [%cn, %c1] : {tvb}
    %sav = pto.make_tensor_view %sa, shape = [%cm, %cg], strides = [%cg, %c1] : {tvs}
    %sbv = pto.make_tensor_view %sb, shape = [%cg, %cn], strides = [%cn, %c1] : {tvs}
    %cv = pto.make_tensor_view %c, shape = [%cm, %cn], strides = [%cn, %c1] : {tvc}
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%cm, %ck] : {tva} -> {pa}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%ck, %cn] : {tvb} -> {pb}
    %sap = pto.partition_view %sav, offsets = [%c0, %c0], sizes = [%cm, %cg] : {tvs} -> {psa}
    %sbp = pto.partition_view %sbv, offsets = [%c0, %c0], sizes = [%cg, %cn] : {tvs} -> {psb}
    %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%cm, %cn] : {tvc} -> {pc}
    %am = pto.alloc_tile : {am}
    %bm = pto.alloc_tile : {bm}
    %sam = pto.alloc_tile : {sam}
    %sbm = pto.alloc_tile : {sbm}
    %l = pto.alloc_tile : {l}
    %r = pto.alloc_tile : {r}
    %sat = pto.alloc_tile : {sa}
    %sbt = pto.alloc_tile : {sb}
    %acc = pto.alloc_tile : {acc}
    pto.tload ins(%ap : {pa}) outs(%am : {am})
    pto.tload ins(%bp : {pb}) outs(%bm : {bm})
    pto.tload ins(%sap : {psa}) outs(%sam : {sam})
    pto.tload ins(%sbp : {psb}) outs(%sbm : {sbm})
    pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]
    pto.tmov ins(%am : {am}) outs(%l : {l})
    pto.tmov ins(%bm : {bm}) outs(%r : {r})
    pto.tmov ins(%sam : {sam}) outs(%sat : {sa})
    pto.tmov ins(%sbm : {sbm}) outs(%sbt : {sb})
    pto.set_flag[<PIPE_MTE1>, <PIPE_M>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE1>, <PIPE_M>, <EVENT_ID0>]
    pto.tmatmul.mx ins(%l, %sat, %r, %sbt : {l}, {sa}, {r}, {sb}) outs(%acc : {acc})
    pto.tmatmul.mx.acc ins(%acc, %l, %sat, %r, %sbt : {acc}, {l}, {sa}, {r}, {sb}) outs(%acc : {acc})
    pto.set_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID0>]
    pto.tstore ins(%acc : {acc}) outs(%cp : {pc})
    return
  }}
}}
"#,
        tva = tv("f8E4M3FN"),
        tvb = tv("f8E5M2"),
        tvs = tv("f8E8M0FNU"),
        tvc = tv("f32"),
        pa = pv(M, K, "f8E4M3FN"),
        pb = pv(K, N, "f8E5M2"),
        psa = pv(M, G, "f8E8M0FNU"),
        psb = pv(G, N, "f8E8M0FNU"),
        pc = pv(M, N, "f32"),
    )
}

/// E4M3FN and E5M2 codes of {0, ±0.5, ±1, ±1.5, ±2}, with their values.
#[test]
fn tmatmul_mx_kernel_runs_on_a5() {
    let (args, a, b, sa, sb) = inputs();
    let p = prog_mx(&kernel());
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    let mut nonzero = 0;
    for i in 0..M {
        for j in 0..N {
            let mut want = 0f64;
            for k in 0..K {
                let ea = sa[i * G + k / 32] as i32 - 127;
                let eb = sb[(k / 32) * N + j] as i32 - 127;
                want += a[i * K + k].1 * 2f64.powi(ea) * b[k * N + j].1 * 2f64.powi(eb);
            }
            let want = (2.0 * want) as f32;
            nonzero += (want != 0.0) as usize;
            assert_eq!(c[i * N + j], want, "C[{i}, {j}]");
        }
    }
    assert!(nonzero > M * N / 2);
}

/// The MX forms are A5 instructions: the same kernel for a2a3 is refused with a typed error
/// (at lowering or at run time), never run.
#[test]
fn tmatmul_mx_kernel_is_refused_on_a2a3() {
    let src = kernel().replace("\"a5\"", "\"a2a3\"");
    let m = parse_module(&src, "mx.pto").unwrap();
    let msg = match lower(&m, LowerOptions::default()) {
        Err(d) => npusim_ptoas::render_all(&d, "mx.pto", &src),
        Ok(p) => match p.run(None, &inputs().0, &RunConfig::default()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("an MX kernel ran on a2a3"),
        },
    };
    assert!(msg.contains("a2a3"), "{msg}");
}
