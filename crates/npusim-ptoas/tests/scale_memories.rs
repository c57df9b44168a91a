//! `pto.tget_scale_addr` into npusim's own spellings of pto-isa's MX scale memories,
//! `loc=scale_left` / `loc=scale_right` (A5 L0A_MX / L0B_MX, `npusim_pto::ops::mx` "Where the
//! scales live"; PTOAS itself writes `loc=scaling`): the kernel of `scale_addr.rs` with its
//! scale tiles in the two memories. The Left tile at 8192 binds its scales to 512 of
//! L0A_MX, the Right tile at 16384 to 1024 of L0B_MX; the matmul reads them through tiles
//! placed there by hand, so the result is right only if the rebinding and the moves reached
//! the scale memories (without the rebinding the scales stay at 0 and 2048 and the result
//! differs). A crossed binding (a Left src into a scale_right tile) is a typed error.

use npusim_ptoas::interp::RunConfig;

mod mx_common;
use mx_common::*;

fn kernel(sl: &str, sr: &str) -> String {
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
    let sa = t(sl, "f8E8M0FNU", M, G, "row_major", "row_major", 32);
    let sb = t(sr, "f8E8M0FNU", G, N, "col_major", "col_major", 32);
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
    %a_l = arith.constant 8192 : i64
    %a_r = arith.constant 16384 : i64
    %a_0 = arith.constant 0 : i64
    %a_2k = arith.constant 2048 : i64
    %a_sl = arith.constant 512 : i64
    %a_sr = arith.constant 1024 : i64
    %l = pto.alloc_tile addr = %a_l : {l}
    %r = pto.alloc_tile addr = %a_r : {r}
    %sat = pto.alloc_tile addr = %a_0 : {sa}
    %sbt = pto.alloc_tile addr = %a_2k : {sb}
    %sal = pto.alloc_tile addr = %a_sl : {sa}
    %sbl = pto.alloc_tile addr = %a_sr : {sb}
    pto.tget_scale_addr ins(%l : {l}) outs(%sat : {sa})
    pto.tget_scale_addr ins(%r : {r}) outs(%sbt : {sb})
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
    pto.tmatmul.mx ins(%l, %sal, %r, %sbl : {l}, {sa}, {r}, {sb}) outs(%acc : {acc})
    pto.tmatmul.mx.acc ins(%acc, %l, %sal, %r, %sbl : {acc}, {l}, {sa}, {r}, {sb}) outs(%acc : {acc})
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

#[test]
fn scale_memories_in_pto_as() {
    let (args, a, b, sa, sb) = inputs();
    let want = expected(&a, &b, &sa, &sb);
    let src = kernel("scale_left", "scale_right");
    let p = prog(&src, "scale_mem.pto");
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert!(want.iter().filter(|x| **x != 0.0).count() > M * N / 2);
    assert_eq!(c, want);
    // The same kernel without the two rebindings: the scales stay at 0 / 2048.
    let unbound: String = src
        .lines()
        .filter(|l| !l.contains("pto.tget_scale_addr"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = prog(&unbound, "scale_mem.pto")
        .run(None, &args, &RunConfig::default())
        .unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert_ne!(c, want);
}

#[test]
fn crossed_scale_memories_are_errors() {
    let (args, ..) = inputs();
    // Left's scales (a Zz tile) declared in scale_right, Right's (Nn) in scale_left: the
    // layout rule of each memory refuses them.
    let src = kernel("scale_right", "scale_left");
    let m = npusim_ptoas::parse_module(&src, "x.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "x.pto", &src)));
    let msg = match npusim_ptoas::interp::lower(&m, npusim_ptoas::interp::LowerOptions::default()) {
        Err(d) => npusim_ptoas::render_all(&d, "x.pto", &src),
        Ok(p) => match p.run(None, &args, &RunConfig::default()) {
            Ok(_) => panic!("crossed scale memories ran"),
            Err(e) => e.to_string(),
        },
    };
    assert!(
        msg.contains("TileRightScale") || msg.contains("TileLeftScale"),
        "{msg}"
    );
}
