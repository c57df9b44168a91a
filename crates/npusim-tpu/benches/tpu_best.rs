//! Best-of and median per-call times of npusim's TPU-Kernel calls (issue #16, acceptance 4),
//! one JSON object per line, for `scripts/bench_tpu_cmodel.py --npusim <this binary>`, which
//! runs the vendor C-model and numpy on the same calls in the same run and prints the ratios.
//!
//! Each call is timed `reps` times after a warm-up, alone (`Instant` around one call) or, for
//! calls under a microsecond, in batches of [`BATCH`] back-to-back calls divided by `BATCH`
//! (so the clock read, about a fifth of a small call, is not counted as simulation); on a
//! loaded machine the best sample is the figure least disturbed by other processes, the median
//! the typical one. Shapes: "small" is (1, 4, 1, 16) ((1, 4, 4, 16) for the 3x3 pools),
//! "big" is (1, 64, 32, 64); every tensor f32 except the i16 add.
//!
//! Run: `cargo bench -p npusim-tpu --bench tpu_best [-- REPS]` (default 200 repetitions;
//! `TPU_BEST_FILTER=text` keeps the calls whose name contains `text`).

use std::hint::black_box;
use std::time::Instant;

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_logic::Variable;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};

type Call = Box<dyn Fn(&mut TpuCore) -> Result<(), TpuError>>;

/// Back-to-back calls per timed sample for calls under a microsecond.
const BATCH: usize = 32;

fn calls(g: u64) -> Vec<(String, Call)> {
    let f = DataType::Fp32;
    let i16t = DataType::Int16;
    let (k3, one, pad) = (Dim2::new(3, 3), Dim2::new(1, 1), Padding::default());
    let mut v: Vec<(String, Call)> = Vec::new();
    for (size, s, ps) in [
        ("(1,4,1,16)", Dim4::new(1, 4, 1, 16), Dim4::new(1, 4, 4, 16)),
        (
            "(1,64,32,64)",
            Dim4::new(1, 64, 32, 64),
            Dim4::new(1, 64, 32, 64),
        ),
    ] {
        v.push((
            format!("bdc_fp_add f32 {size}"),
            Box::new(move |c| c.tpu_bdc_fp_add(0x20000, 0, 0x10000, &s, None, None, None, f)),
        ));
        v.push((
            format!("bdc_int_add i16 shift -2 sat {size}"),
            Box::new(move |c| {
                c.tpu_bdc_int_add(
                    0x20000,
                    0,
                    0x10000,
                    &s,
                    None,
                    None,
                    None,
                    i16t,
                    i16t,
                    i16t,
                    -2,
                    RoundingMode::HalfToEven,
                    true,
                )
            }),
        ));
        v.push((
            format!("bdc_greater_select f32 {size}"),
            Box::new(move |c| {
                c.tpu_bdc_greater_select(
                    0x20000,
                    &Variable::Tensor(0),
                    &Variable::Tensor(0x10000),
                    &Variable::Tensor(0x30000),
                    &Variable::Scalar(Scalar::from_f32(0.0)),
                    &s,
                    f,
                    f,
                )
            }),
        ));
        let psize = if size == "(1,4,1,16)" {
            "(1,4,4,16)"
        } else {
            size
        };
        v.push((
            format!("bdc_fp_avg_pool2d f32 3x3 {psize}"),
            Box::new(move |c| {
                c.tpu_bdc_fp_avg_pool2d(
                    0x20000,
                    0,
                    &ps,
                    &k3,
                    &pad,
                    &one,
                    &one,
                    f,
                    Scalar::from_f32(1.0 / 9.0),
                )
            }),
        ));
        v.push((
            format!("bdc_fp_max_pool2d f32 3x3 {psize}"),
            Box::new(move |c| {
                c.tpu_bdc_fp_max_pool2d(
                    0x20000,
                    0,
                    &ps,
                    &k3,
                    &pad,
                    &one,
                    &one,
                    f,
                    Scalar::from_f32(f32::NEG_INFINITY),
                )
            }),
        ));
        v.push((
            format!("bdc_fp32_exp f32 {size}"),
            Box::new(move |c| {
                c.tpu_bdc_fp32_exp(0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, &s)
            }),
        ));
        v.push((
            format!("bdc_fp32_log f32 {size}"),
            Box::new(move |c| c.tpu_bdc_fp32_log(0x20000, 0, 0x30000, 0x3fe00, &s)),
        ));
        v.push((
            format!("gdma_cpy_S2L f32 {size}"),
            Box::new(move |c| c.tpu_gdma_cpy_S2L(0x30000, g, &s, None, None, f)),
        ));
    }
    v
}

fn main() {
    let reps: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 16 << 20).expect("16 MiB");
    let g = core.gm_base();
    let big = Dim4::new(1, 64, 32, 64);
    let data: Vec<f32> = (0..big.count()).map(|i| (i as f32 * 0.25) % 7.0).collect();
    core.write_f32s(g, &data).expect("fits");
    core.tpu_gdma_cpy_S2L(0, g, &big, None, None, DataType::Fp32)
        .expect("valid");
    core.tpu_gdma_cpy_S2L(0x10000, g, &big, None, None, DataType::Fp32)
        .expect("valid");
    core.tpu_bdc_load_fp32_exp_coeff(0x3ff00).expect("valid");
    core.tpu_bdc_load_fp32_log_coeff(0x3fe00).expect("valid");
    // `TPU_BEST_FILTER=text` keeps the calls whose name contains `text` (for profiling one).
    let filter = std::env::var("TPU_BEST_FILTER").unwrap_or_default();
    for (name, call) in calls(g) {
        if !name.contains(&filter) {
            continue;
        }
        for _ in 0..reps.div_ceil(10) {
            call(black_box(&mut core)).expect("valid");
        }
        // Calls shorter than a microsecond are timed in batches of BATCH back-to-back calls
        // (the per-call figure is the batch time / BATCH): a clock read costs about a fifth of
        // a small call, which single-call timing would add to every figure.
        let t = Instant::now();
        call(black_box(&mut core)).expect("valid");
        let batch = if t.elapsed().as_secs_f64() < 1e-6 {
            BATCH
        } else {
            1
        };
        let mut ts: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..batch {
                    call(black_box(&mut core)).expect("valid");
                }
                t.elapsed().as_secs_f64() * 1e6 / batch as f64
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        println!(
            "{{\"name\":\"{name}\",\"best_us\":{:.4},\"median_us\":{:.4},\"batch\":{batch}}}",
            ts[0],
            ts[ts.len() / 2]
        );
    }
}
