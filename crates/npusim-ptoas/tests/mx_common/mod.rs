//! What `mx_kernel.rs` and `scale_addr.rs` share: the A5 MX matmul's sizes, its f8 inputs
//! with exactly representable values, and the plain formula of its result.
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
