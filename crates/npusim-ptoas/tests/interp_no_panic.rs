//! No input makes the interpreter panic: mutated example kernels (deleted bytes, inserted
//! snippets, numbers replaced by odd values, swapped tokens) go through parse, lower and run
//! with small inputs. Errors are fine; panics and hangs are not (a small `max_steps` bounds
//! every run).

use npusim_core::{ElemType, NpyArray};
use npusim_ptoas::interp::{HostArg, LowerOptions, ParamInfo, RunConfig, lower};
use npusim_ptoas::lexer::tokenize;
use npusim_ptoas::parse_module;
use proptest::prelude::*;

const KERNELS: [&str; 6] = [
    include_str!("../../../examples/pto/vector_add.pto"),
    include_str!("../../../examples/pto/row_softmax.pto"),
    include_str!("../../../examples/pto/rmsnorm.pto"),
    include_str!("../../../examples/pto/online_softmax_step.pto"),
    include_str!("../../../examples/pto/multicore_split.pto"),
    include_str!("../../../examples/pto/mixed_matmul_relu.pto"),
];

/// Replacement texts: numbers at edges, `?`, other types and ops.
const SNIPPETS: [&str; 23] = [
    "0",
    "1",
    "-1",
    "7",
    "4096",
    "99999999999",
    "-9223372036854775808",
    "?",
    "i32",
    "f16",
    "i8",
    "col_major",
    "pto.tdiv",
    "pto.trowsum",
    "pto.tcvt",
    "arith.divsi",
    "scf.yield",
    "%c0",
    "%row",
    "%n_rows",
    "pto.tfree_from_aic {split = 1}",
    "pto.tpush_to_aiv",
    "pto.sync.wait <PIPE_V>, 3",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteBytes { at: usize, len: usize },
    ReplaceToken { index: usize, snippet: usize },
    InsertSnippet { index: usize, snippet: usize },
    SwapTokens { a: usize, b: usize },
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(at, len)| Mutation::DeleteBytes { at, len }),
        (any::<usize>(), 0..SNIPPETS.len())
            .prop_map(|(index, snippet)| Mutation::ReplaceToken { index, snippet }),
        (any::<usize>(), 0..SNIPPETS.len())
            .prop_map(|(index, snippet)| Mutation::InsertSnippet { index, snippet }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapTokens { a, b }),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(src: &str, m: &Mutation) -> String {
    let toks = tokenize(src);
    if toks.is_empty() {
        return src.to_string();
    }
    let tok = |i: usize| {
        let t = toks[i % toks.len()];
        (
            floor_boundary(src, t.span.start),
            floor_boundary(src, t.span.end),
        )
    };
    match *m {
        Mutation::DeleteBytes { at, len } => {
            let a = floor_boundary(src, at % (src.len() + 1));
            let b = floor_boundary(src, a + len);
            format!("{}{}", &src[..a], &src[b..])
        }
        Mutation::ReplaceToken { index, snippet } => {
            let (a, b) = tok(index);
            format!("{}{}{}", &src[..a], SNIPPETS[snippet], &src[b..])
        }
        Mutation::InsertSnippet { index, snippet } => {
            let (a, _) = tok(index);
            format!("{} {} {}", &src[..a], SNIPPETS[snippet], &src[a..])
        }
        Mutation::SwapTokens { a, b } => {
            let (mut x, mut y) = (tok(a), tok(b));
            if x.0 > y.0 {
                std::mem::swap(&mut x, &mut y);
            }
            if x.1 > y.0 || x == y {
                return src.to_string();
            }
            format!(
                "{}{}{}{}{}",
                &src[..x.0],
                &src[y.0..y.1],
                &src[x.1..y.0],
                &src[x.0..x.1],
                &src[y.1..]
            )
        }
    }
}

/// Replaces the value of the `which`-th integer `arith.constant` (sizes, strides, addresses)
/// with `value`: the kernel still parses, and the interpreter sees odd shapes and addresses.
fn set_int_constant(src: &str, which: usize, value: &str) -> String {
    let key = "arith.constant ";
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(i) = src[from..].find(key) {
        let at = from + i + key.len();
        let end = at
            + src[at..]
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .unwrap_or(0);
        if end > at && src[end..].starts_with(" : i") {
            starts.push((at, end));
        }
        from = at;
    }
    if starts.is_empty() {
        return src.to_string();
    }
    let (a, b) = starts[which % starts.len()];
    format!("{}{}{}", &src[..a], value, &src[b..])
}

fn buffer(e: ElemType, n: usize) -> NpyArray {
    NpyArray {
        dtype: e,
        shape: vec![n],
        data: (0..n * e.size()).map(|i| (i * 131 % 251) as u8).collect(),
    }
}

/// Parses, lowers and runs; returns how far it got (for the statistics printed at the end).
fn exercise(src: &str, n_rows: &str, blocks: u32, buf_len: usize) -> u8 {
    let Ok(m) = parse_module(src, "m.pto") else {
        return 0;
    };
    let Ok(p) = lower(&m, LowerOptions::default()) else {
        return 1;
    };
    let Ok(params) = p.params(None) else {
        return 1;
    };
    let args: Vec<(String, HostArg)> = params
        .into_iter()
        .map(|(name, info)| {
            let a = match info {
                ParamInfo::Pointer(d) => {
                    HostArg::Buffer(buffer(d.elem_type().unwrap_or(ElemType::U8), buf_len))
                }
                ParamInfo::Scalar(s) if s.is_float() => HostArg::Scalar("0.5".into()),
                ParamInfo::Scalar(_) => HostArg::Scalar(n_rows.into()),
                ParamInfo::Other(_) => HostArg::Scalar("0".into()),
            };
            (name, a)
        })
        .collect();
    let cfg = RunConfig {
        blocks,
        max_steps: 2_000,
        ..RunConfig::default()
    };
    match p.run(None, &args, &cfg) {
        Ok(_) => 3,
        Err(e) => {
            let _ = e.render("m.pto", src);
            2
        }
    }
}

#[test]
fn unmutated_examples_run() {
    for k in KERNELS {
        assert_eq!(exercise(k, "16", 2, 64 * 1024), 3, "{k}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn mutated_kernels_never_panic(
        k in 0..KERNELS.len(),
        muts in proptest::collection::vec(arb_mutation(), 1..4),
        n_rows in prop_oneof![Just("0"), Just("8"), Just("16"), Just("-16"), Just("17"), Just("1000000")],
        blocks in 1u32..4,
    ) {
        let mut src = KERNELS[k].to_string();
        for m in &muts {
            src = apply(&src, m);
        }
        let lvl = exercise(&src, n_rows, blocks, 64 * 1024);
        if std::env::var_os("INTERP_NO_PANIC_STATS").is_some() { eprintln!("level {lvl}"); }
    }

    #[test]
    fn odd_constants_and_arguments_never_panic(
        k in 0..KERNELS.len(),
        consts in proptest::collection::vec(
            (any::<usize>(), prop_oneof![
                Just("0"), Just("1"), Just("-1"), Just("3"), Just("32"), Just("96"),
                Just("4096"), Just("65504"), Just("1000000"), Just("9223372036854775807"),
            ]),
            0..3,
        ),
        n_rows in prop_oneof![Just("0"), Just("8"), Just("16"), Just("-16"), Just("17"), Just("1000000")],
        blocks in 1u32..4,
        buf_len in prop_oneof![Just(0usize), Just(17), Just(4096), Just(64 * 1024)],
    ) {
        let mut src = KERNELS[k].to_string();
        for (which, value) in &consts {
            src = set_int_constant(&src, *which, value);
        }
        let lvl = exercise(&src, n_rows, blocks, buf_len);
        if std::env::var_os("INTERP_NO_PANIC_STATS").is_some() { eprintln!("level {lvl}"); }
    }
}
