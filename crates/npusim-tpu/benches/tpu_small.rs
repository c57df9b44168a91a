//! Per-call cost of npusim's small TPU-Kernel calls (issue #16, acceptance 4: the fixed cost
//! of a call is what the "100x the C-model per small call" figure is about), one line per
//! call: best and median nanoseconds per call over `reps` batches of `batch` back-to-back
//! calls (the clock read is not counted). Also the loop to profile: `perf record` this binary
//! with `TPU_SMALL_FILTER=text` to keep only the calls whose name contains `text`.
//!
//! Shapes: (1,1,1,8), (1,4,1,16), (1,64,1,16) ((1,4,4,16) for the 3x3 pools), and one
//! (1,64,32,64) fp_add (the big call of the speed criterion); f32 unless named. Run: `cargo bench -p npusim-tpu --bench tpu_small [-- REPS [BATCH]]`.

use std::hint::black_box;
use std::time::Instant;

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_logic::Variable;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};

type Call = Box<dyn Fn(&mut TpuCore) -> Result<(), TpuError>>;

fn calls(g: u64) -> Vec<(String, Call)> {
    let f = DataType::Fp32;
    let h = DataType::Fp16;
    let i16t = DataType::Int16;
    let (k3, one, pad) = (Dim2::new(3, 3), Dim2::new(1, 1), Padding::default());
    let mut v: Vec<(String, Call)> = Vec::new();
    for s in [
        Dim4::new(1, 1, 1, 8),
        Dim4::new(1, 4, 1, 16),
        Dim4::new(1, 64, 1, 16),
    ] {
        let size = format!("({},{},{},{})", s.n, s.c, s.h, s.w);
        let mut push = |name: &str, c: Call| v.push((format!("{name} {size}"), c));
        push(
            "fp_add",
            Box::new(move |c| c.tpu_bdc_fp_add(0x20000, 0, 0x10000, &s, None, None, None, f)),
        );
        push(
            "fp_sub",
            Box::new(move |c| c.tpu_bdc_fp_sub(0x20000, 0, 0x10000, &s, None, None, None, f)),
        );
        push(
            "fp_mul f16",
            Box::new(move |c| c.tpu_bdc_fp_mul(0x20000, 0, 0x10000, &s, None, None, None, h)),
        );
        push(
            "fp_add_C",
            Box::new(move |c| {
                c.tpu_bdc_fp_add_C(0x20000, 0, Scalar::from_f32(1.5), &s, None, None, f)
            }),
        );
        push(
            "max",
            Box::new(move |c| c.tpu_bdc_max(0x20000, 0, 0x10000, &s, None, None, None, f)),
        );
        push(
            "greater",
            Box::new(move |c| {
                c.tpu_bdc_greater(
                    0x20000,
                    0,
                    0x10000,
                    Scalar::from_f32(1.0),
                    &s,
                    None,
                    None,
                    None,
                    f,
                    f,
                )
            }),
        );
        push(
            "greater_select",
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
        );
        push(
            "int_add i16 sat",
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
        );
        push(
            "cast f32->f16",
            Box::new(move |c| {
                c.tpu_bdc_cast(0x20000, 0, &s, None, None, h, f, RoundingMode::HalfToEven)
            }),
        );
        push(
            "exp",
            Box::new(move |c| {
                c.tpu_bdc_fp32_exp(0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, &s)
            }),
        );
        push(
            "log",
            Box::new(move |c| c.tpu_bdc_fp32_log(0x20000, 0, 0x30000, 0x3fe00, &s)),
        );
        push(
            "gdma_S2L",
            Box::new(move |c| c.tpu_gdma_cpy_S2L(0x30000, g, &s, None, None, f)),
        );
        push(
            "gdma_L2S",
            Box::new(move |c| c.tpu_gdma_cpy_L2S(g + (8 << 20), 0, &s, None, None, f)),
        );
    }
    let ps = Dim4::new(1, 4, 4, 16);
    v.push((
        "avg_pool 3x3 (1,4,4,16)".into(),
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
        "max_pool 3x3 (1,4,4,16)".into(),
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
    let big = Dim4::new(1, 64, 32, 64);
    v.push((
        "fp_add (1,64,32,64)".into(),
        Box::new(move |c| c.tpu_bdc_fp_add(0x20000, 0, 0x10000, &big, None, None, None, f)),
    ));
    // The smallest 3x3 pools of the side-by-side table (session 17).
    let ps1 = Dim4::new(1, 1, 4, 8);
    v.push((
        "avg_pool 3x3 (1,1,4,8)".into(),
        Box::new(move |c| {
            c.tpu_bdc_fp_avg_pool2d(
                0x20000,
                0,
                &ps1,
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
        "max_pool 3x3 (1,1,4,8)".into(),
        Box::new(move |c| {
            c.tpu_bdc_fp_max_pool2d(
                0x20000,
                0,
                &ps1,
                &k3,
                &pad,
                &one,
                &one,
                f,
                Scalar::from_f32(f32::NEG_INFINITY),
            )
        }),
    ));
    // The bench's own cost per call (a boxed call of the empty `tpu_poll`): the floor under
    // every line above.
    v.push((
        "floor tpu_poll".into(),
        Box::new(|c| {
            c.tpu_poll();
            Ok(())
        }),
    ));
    // The reciprocal square root and the square root of the SFU (session 19), at the
    // side-by-side's small shapes.
    for s in [Dim4::new(1, 1, 1, 8), Dim4::new(1, 4, 1, 16)] {
        let size = format!("({},{},{},{})", s.n, s.c, s.h, s.w);
        v.push((
            format!("rsqrt {size}"),
            Box::new(move |c| c.tpu_bdc_fp32_rsqrt(0x20000, 0, &s)),
        ));
        v.push((
            format!("sqrt {size}"),
            Box::new(move |c| c.tpu_bdc_fp32_sqrt(0x20000, 0, &s)),
        ));
    }
    // The (1,64,4,16) 3x3 pools of the side-by-side table (session 20).
    let ps64 = Dim4::new(1, 64, 4, 16);
    v.push((
        "avg_pool 3x3 (1,64,4,16)".into(),
        Box::new(move |c| {
            c.tpu_bdc_fp_avg_pool2d(
                0x20000,
                0,
                &ps64,
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
        "max_pool 3x3 (1,64,4,16)".into(),
        Box::new(move |c| {
            c.tpu_bdc_fp_max_pool2d(
                0x20000,
                0,
                &ps64,
                &k3,
                &pad,
                &one,
                &one,
                f,
                Scalar::from_f32(f32::NEG_INFINITY),
            )
        }),
    ));
    // The data calls of `bdc_data` (session 20): casts of the common small-tensor pairs
    // (HALF_TO_EVEN), `set_C`, `cpy` and `npu_bcast`, at the side-by-side's small shapes
    // (`TPU_SMALL_FILTER=data:` keeps only these).
    for s in [Dim4::new(1, 1, 1, 8), Dim4::new(1, 4, 1, 16)] {
        use DataType::{Bfp16, Fp16, Fp32, Int8, Int16, Int32};
        let rne = RoundingMode::HalfToEven;
        let size = format!("({},{},{},{})", s.n, s.c, s.h, s.w);
        for (name, dst, src) in [
            ("f32->f16", Fp16, Fp32),
            ("f32->bf16", Bfp16, Fp32),
            ("f16->f32", Fp32, Fp16),
            ("bf16->f32", Fp32, Bfp16),
            ("f32->i32", Int32, Fp32),
            ("f32->i16", Int16, Fp32),
            ("f32->i8", Int8, Fp32),
            ("i8->f32", Fp32, Int8),
            ("i16->f32", Fp32, Int16),
            ("i32->f32", Fp32, Int32),
        ] {
            v.push((
                format!("data: cast {name} {size}"),
                Box::new(move |c| c.tpu_bdc_cast(0x20000, 0, &s, None, None, dst, src, rne)),
            ));
        }
        v.push((
            format!("data: set_C f32 {size}"),
            Box::new(move |c| c.tpu_bdc_set_C(0x20000, Scalar::from_f32(1.5), &s, None, Fp32)),
        ));
        v.push((
            format!("data: cpy f32 {size}"),
            Box::new(move |c| c.tpu_bdc_cpy(0x20000, 0, &s, None, None, Fp32)),
        ));
        v.push((
            format!("data: npu_bcast f32 {size}"),
            Box::new(move |c| c.tpu_bdc_npu_bcast(0x20000, 0, &s, Fp32)),
        ));
    }
    // Session 20: the calls of the side-by-side's `api_rows` (every other function of the
    // issue's API list) at its two small shapes, npusim only: sources at 0 and 0x10000 (i16 and
    // i8 sources read the same bytes), local destination 0x24000, global destination 8 MiB.
    for s in [Dim4::new(1, 1, 1, 8), Dim4::new(1, 4, 1, 16)] {
        let size = format!("({},{},{},{})", s.n, s.c, s.h, s.w);
        let (d, a, b, gd) = (0x24000, 0, 0x10000, g + (8 << 20));
        let (cols, cpc) = (s.c * s.w, s.w);
        let (one_c, half_c) = (Scalar::from_f32(1.0), Scalar::from_f32(0.5));
        let i8t = DataType::Int8;
        let rows: Vec<(&str, Call)> = vec![
            (
                "api gdma_cpy_S2S",
                Box::new(move |c| c.tpu_gdma_cpy_S2S(gd, g, &s, None, None, f)),
            ),
            (
                "api gdma_cpy_L2L",
                Box::new(move |c| c.tpu_gdma_cpy_L2L(d, a, &s, None, None, f)),
            ),
            (
                "api gdma_matrix_S2L",
                Box::new(move |c| c.tpu_gdma_matrix_S2L(d, g, 1, cols, cpc, cols, f)),
            ),
            (
                "api gdma_matrix_L2S",
                Box::new(move |c| c.tpu_gdma_matrix_L2S(gd, a, 1, cols, cpc, cols, f)),
            ),
            (
                "api gdma_compact_S2L",
                Box::new(move |c| c.tpu_gdma_compact_S2L(d, g, &s, f)),
            ),
            (
                "api gdma_compact_L2S",
                Box::new(move |c| c.tpu_gdma_compact_L2S(gd, a, &s, f)),
            ),
            (
                "api gdma_cw_trans_S2L",
                Box::new(move |c| c.tpu_gdma_cpy_cw_trans_S2L(d, g, &s, None, None, f)),
            ),
            (
                "api gdma_cw_trans_L2S",
                Box::new(move |c| c.tpu_gdma_cpy_cw_trans_L2S(gd, a, &s, None, None, f)),
            ),
            (
                "api gdma_cw_trans_L2L",
                Box::new(move |c| c.tpu_gdma_cpy_cw_trans_L2L(d, a, &s, None, None, f)),
            ),
            (
                "api gdma_cw_trans_S2S",
                Box::new(move |c| c.tpu_gdma_cpy_cw_trans_S2S(gd, g, &s, None, None, f)),
            ),
            (
                "api bdc_cw_trans",
                Box::new(move |c| c.tpu_bdc_cw_trans(d, a, &s, f)),
            ),
            (
                "api bdc_wc_trans",
                Box::new(move |c| c.tpu_bdc_wc_trans(d, a, &s, f)),
            ),
            (
                "api fp_mul",
                Box::new(move |c| c.tpu_bdc_fp_mul(d, a, b, &s, None, None, None, f)),
            ),
            (
                "api fp_div",
                Box::new(move |c| c.tpu_bdc_fp_div(d, a, b, &s, None, None, None, f)),
            ),
            (
                "api min",
                Box::new(move |c| c.tpu_bdc_min(d, a, b, &s, None, None, None, f)),
            ),
            (
                "api max i16",
                Box::new(move |c| c.tpu_bdc_max(d, a, b, &s, None, None, None, i16t)),
            ),
            (
                "api min i16",
                Box::new(move |c| c.tpu_bdc_min(d, a, b, &s, None, None, None, i16t)),
            ),
            (
                "api and i16",
                Box::new(move |c| c.tpu_bdc_and(d, a, b, &s, None, None, None, i16t)),
            ),
            (
                "api int_mul i16 sat",
                Box::new(move |c| {
                    c.tpu_bdc_int_mul(
                        d,
                        a,
                        b,
                        &s,
                        None,
                        None,
                        None,
                        i16t,
                        i16t,
                        i16t,
                        0,
                        RoundingMode::HalfToEven,
                        true,
                    )
                }),
            ),
            (
                "api equal",
                Box::new(move |c| c.tpu_bdc_equal(d, a, b, one_c, &s, None, None, None, f, f)),
            ),
            (
                "api equal_C",
                Box::new(move |c| c.tpu_bdc_equal_C(d, a, half_c, one_c, &s, None, None, f, f)),
            ),
            (
                "api greater_C",
                Box::new(move |c| {
                    c.tpu_bdc_greater_C(d, a, Scalar::from_f32(0.0), one_c, &s, None, None, f, f)
                }),
            ),
            (
                "api equal_select",
                Box::new(move |c| {
                    c.tpu_bdc_equal_select(
                        d,
                        &Variable::Tensor(a),
                        &Variable::Tensor(b),
                        &Variable::Tensor(0x30000),
                        &Variable::Scalar(Scalar::from_f32(0.0)),
                        &s,
                        f,
                        f,
                    )
                }),
            ),
            (
                "api cast f32->i16 sat",
                Box::new(move |c| {
                    c.tpu_bdc_cast(d, a, &s, None, None, i16t, f, RoundingMode::HalfToEven)
                }),
            ),
            (
                "api cast i8->f32",
                Box::new(move |c| {
                    c.tpu_bdc_cast(d, a, &s, None, None, f, i8t, RoundingMode::HalfToEven)
                }),
            ),
            (
                "api set_C",
                Box::new(move |c| c.tpu_bdc_set_C(d, Scalar::from_f32(1.5), &s, None, f)),
            ),
            (
                "api cpy",
                Box::new(move |c| c.tpu_bdc_cpy(d, a, &s, None, None, f)),
            ),
            (
                "api npu_bcast",
                Box::new(move |c| c.tpu_bdc_npu_bcast(d, a, &s, f)),
            ),
        ];
        for (name, call) in rows {
            v.push((format!("{name} {size}"), call));
        }
    }
    v
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let reps = args.first().copied().unwrap_or(30);
    let batch = args.get(1).copied().unwrap_or(2000);
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 16 << 20).expect("16 MiB");
    let g = core.gm_base();
    let big = Dim4::new(1, 64, 32, 64);
    let data: Vec<f32> = (0..big.count()).map(|i| (i as f32 * 0.25) % 7.0).collect();
    core.write_f32s(g, &data).expect("fits");
    for dst in [0, 0x10000] {
        core.tpu_gdma_cpy_S2L(dst, g, &big, None, None, DataType::Fp32)
            .expect("valid");
    }
    core.tpu_bdc_load_fp32_exp_coeff(0x3ff00).expect("valid");
    core.tpu_bdc_load_fp32_log_coeff(0x3fe00).expect("valid");
    let filter = std::env::var("TPU_SMALL_FILTER").unwrap_or_default();
    for (name, call) in calls(g) {
        if !name.contains(&filter) {
            continue;
        }
        for _ in 0..batch / 10 + 1 {
            call(black_box(&mut core)).expect("valid");
        }
        let mut ts: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..batch {
                    call(black_box(&mut core)).expect("valid");
                }
                t.elapsed().as_secs_f64() * 1e9 / batch as f64
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        println!(
            "{name:<32} best {:8.1} ns  median {:8.1} ns",
            ts[0],
            ts[ts.len() / 2]
        );
    }
}
