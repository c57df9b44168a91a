//! A small worked example for `npusim demo`: top-K with natural indices on a simulated BM1684X.
//!
//! Runs `tpu_hau_sort_natural_index` (seed 003) through the memory-level API and checks the
//! result against an independently computed expectation: a plain stable sort of
//! `(value, index)` pairs, which is what the instruction must return for inputs without NaN and
//! signed zeros (research note `shared/research/sophgo-hau.md` §2b).

use std::fmt::Write as _;

use crate::chip::TpuChip;
use crate::device::TpuCore;
use crate::dtype::DataType;

/// The demo's input vector (with a tie between positions 1 and 6).
pub const DEMO_INPUT: [f32; 10] = [0.5, 2.25, -1.0, 3.0, 0.0, 1.5, 2.25, -7.5, 9.0, 1.0];
/// How many of the largest values the demo asks for.
pub const DEMO_K: usize = 4;

/// Runs the demo and returns its printable report (one line per item, ending with a line that
/// says whether the simulator matched the stable-sort expectation).
pub fn topk_demo() -> String {
    let mut s = String::new();
    match run() {
        Ok((values, idx, expected)) => {
            let _ = writeln!(
                s,
                "HAU top-{DEMO_K} on a simulated {} (tpu_hau_sort_natural_index, descending, DT_FP32)",
                TpuChip::Bm1684x
            );
            let _ = writeln!(s, "  input:   {DEMO_INPUT:?}");
            let _ = writeln!(s, "  values:  {values:?}");
            let _ = writeln!(s, "  indices: {idx:?}");
            let got: Vec<(f32, i32)> = values.iter().copied().zip(idx.iter().copied()).collect();
            let ok = got == expected;
            let _ = writeln!(
                s,
                "  matches a stable sort of (value, index): {}",
                if ok { "yes" } else { "NO" }
            );
            if !ok {
                let _ = writeln!(s, "  expected: {expected:?}");
            }
        }
        Err(e) => {
            let _ = writeln!(s, "HAU top-{DEMO_K} demo failed: {e}");
        }
    }
    s
}

type DemoResult = (Vec<f32>, Vec<i32>, Vec<(f32, i32)>);

fn run() -> Result<DemoResult, Box<dyn std::error::Error>> {
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 4096)?;
    let base = core.gm_base();
    let (input, out_data, out_idx) = (base, base + 256, base + 512);
    let n = DEMO_INPUT.len();
    core.write_f32s(input, &DEMO_INPUT)?;
    core.tpu_hau_sort_natural_index(
        out_data,
        out_idx,
        input,
        n as i32,
        DEMO_K as i32,
        true,
        DataType::Fp32,
    )?;
    core.tpu_hau_poll();
    let values = core.read_f32s(out_data, DEMO_K)?;
    let idx = core.read_i32s(out_idx, DEMO_K)?;

    let mut expected: Vec<(f32, i32)> = DEMO_INPUT
        .iter()
        .copied()
        .zip(0..)
        .collect::<Vec<(f32, i32)>>();
    // Stable: equal values keep ascending index order.
    expected.sort_by(|a, b| b.0.total_cmp(&a.0));
    expected.truncate(DEMO_K);
    Ok((values, idx, expected))
}

#[cfg(test)]
mod tests {
    #[test]
    fn demo_matches() {
        let text = super::topk_demo();
        println!("{text}");
        assert!(text.contains("indices: [8, 3, 1, 6]"), "{text}");
        assert!(
            text.contains("stable sort of (value, index): yes"),
            "{text}"
        );
    }
}
