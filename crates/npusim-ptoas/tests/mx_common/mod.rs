//! What `mx_kernel.rs`, `scale_addr.rs` and `scale_memories.rs` share: the A5 MX matmul's
//! sizes, its f8 inputs with exactly representable values, the plain formula of its result,
//! and the kernel of the scale-memory tests (`scale_kernel`).
#![allow(dead_code)]

use npusim_core::{ElemType, NpyArray};
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, lower};
use npusim_ptoas::parse_module;
pub const M: usize = 16;
pub const K: usize = 128;
pub const N: usize = 32;
pub const G: usize = K / 32;

pub fn prog(src: &str, name: &str) -> Program {
    let m = parse_module(src, name)
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, name, src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, name, src)))
}

pub const E4M3: [(u8, f64); 9] = [
    (0x00, 0.0),
    (0x30, 0.5),
    (0xb0, -0.5),
    (0x38, 1.0),
    (0xb8, -1.0),
    (0x3c, 1.5),
    (0xbc, -1.5),
    (0x40, 2.0),
    (0xc0, -2.0),
];
pub const E5M2: [(u8, f64); 9] = [
    (0x00, 0.0),
    (0x38, 0.5),
    (0xb8, -0.5),
    (0x3c, 1.0),
    (0xbc, -1.0),
    (0x3e, 1.5),
    (0xbe, -1.5),
    (0x40, 2.0),
    (0xc0, -2.0),
];

pub fn buf(t: ElemType, shape: Vec<usize>, data: Vec<u8>) -> HostArg {
    HostArg::Buffer(NpyArray {
        dtype: t,
        shape,
        data,
    })
}

pub type Inputs = (
    Vec<(String, HostArg)>,
    Vec<(u8, f64)>,
    Vec<(u8, f64)>,
    Vec<u8>,
    Vec<u8>,
);

/// The host arguments and the values behind them.
pub fn inputs() -> Inputs {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s as usize
    };
    let a: Vec<(u8, f64)> = (0..M * K).map(|_| E4M3[next() % 9]).collect();
    let b: Vec<(u8, f64)> = (0..K * N).map(|_| E5M2[next() % 9]).collect();
    let sa: Vec<u8> = (0..M * G).map(|_| 126 + (next() % 3) as u8).collect();
    let sb: Vec<u8> = (0..G * N).map(|_| 126 + (next() % 3) as u8).collect();
    let args: Vec<(String, HostArg)> = vec![
        (
            "a".into(),
            buf(
                ElemType::F8E4M3FN,
                vec![M, K],
                a.iter().map(|x| x.0).collect(),
            ),
        ),
        (
            "b".into(),
            buf(
                ElemType::F8E5M2,
                vec![K, N],
                b.iter().map(|x| x.0).collect(),
            ),
        ),
        ("sa".into(), buf(ElemType::F8E8M0, vec![M, G], sa.clone())),
        ("sb".into(), buf(ElemType::F8E8M0, vec![G, N], sb.clone())),
        (
            "c".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![M, N], &vec![0f32; M * N])),
        ),
    ];
    (args, a, b, sa, sb)
}

pub fn expected(a: &[(u8, f64)], b: &[(u8, f64)], sa: &[u8], sb: &[u8]) -> Vec<f32> {
    let mut out = vec![0f32; M * N];
    for i in 0..M {
        for j in 0..N {
            let mut want = 0f64;
            for k in 0..K {
                let ea = sa[i * G + k / 32] as i32 - 127;
                let eb = sb[(k / 32) * N + j] as i32 - 127;
                want += a[i * K + k].1 * 2f64.powi(ea) * b[k * N + j].1 * 2f64.powi(eb);
            }
            out[i * N + j] = (2.0 * want) as f32;
        }
    }
    out
}

/// The A5 MX matmul kernel of `scale_addr.rs` (TLOAD into Mat, TMOV to Left/Right and the
/// scale tiles, `pto.tget_scale_addr` rebinding them, TMATMUL_MX), its A and B scale tiles in
/// `sl` and `sr` (`scaling`, PTOAS's spelling, or npusim's `scale_left` / `scale_right`).
pub fn scale_kernel(sl: &str, sr: &str) -> String {
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
