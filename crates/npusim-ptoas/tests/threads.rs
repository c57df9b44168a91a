//! `RunConfig::threads` (`npusim run --threads N`): blocks on several host threads give the
//! one-thread run's outputs byte for byte (every example kernel, at several block counts), and
//! kernels that break the rule in `interp::par` (two blocks writing the same GM bytes, a block
//! reading what another writes) fall back to the in-order run with a note naming the blocks
//! and the range. The in-order run is the reference; the conflicting kernels are also checked
//! against plain models written here.

use npusim_core::{ElemType, NpyArray};
use npusim_ptoas::interp::par::{Fallback, Place};
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;
use std::path::PathBuf;

fn prog(src: &str, name: &str) -> Program {
    let m = parse_module(src, name)
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, name, src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, name, src)))
}

fn run(p: &Program, args: &[(String, HostArg)], cfg: RunConfig) -> Result<RunOutcome, RunError> {
    p.run(None, args, &cfg)
}

fn cfg(blocks: u32, threads: u32) -> RunConfig {
    RunConfig {
        blocks,
        threads,
        ..RunConfig::default()
    }
}

/// Deterministic values in [-2, 2) (an LCG), as `dtype` (f32 or f16) bytes.
fn buffer(dtype: ElemType, n: usize, seed: u64) -> HostArg {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    };
    let data: Vec<u8> = match dtype {
        ElemType::F32 => (0..n).flat_map(|_| next().to_le_bytes()).collect(),
        ElemType::F16 => (0..n)
            .flat_map(|_| {
                let v = next();
                // f16 by truncating an f32 with few mantissa bits (exactly representable).
                let q = (v * 64.0).round() / 64.0;
                f32_to_f16_bits(q).to_le_bytes()
            })
            .collect(),
        other => panic!("no generator for {other:?}"),
    };
    HostArg::Buffer(NpyArray {
        dtype,
        shape: vec![n],
        data,
    })
}

/// f32 -> f16 bits for values that are multiples of 1/64 in [-2, 2] (exact in f16).
fn f32_to_f16_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | man
}

struct Case {
    file: &'static str,
    blocks: &'static [u32],
    bufs: &'static [(&'static str, ElemType, usize)],
    scalars: &'static [(&'static str, &'static str)],
}

const F32: ElemType = ElemType::F32;
const F16: ElemType = ElemType::F16;

/// Every kernel under `examples/pto` with inputs it accepts (flat buffers).
const CASES: &[Case] = &[
    Case {
        file: "vector_add.pto",
        blocks: &[1, 2],
        bufs: &[
            ("x", F32, 64 * 256),
            ("y", F32, 64 * 256),
            ("z", F32, 64 * 256),
        ],
        scalars: &[("n_rows", "64")],
    },
    Case {
        file: "row_softmax.pto",
        blocks: &[1, 3],
        bufs: &[("x", F32, 32 * 1024), ("y", F32, 32 * 1024)],
        scalars: &[("n_rows", "32")],
    },
    Case {
        file: "rmsnorm.pto",
        blocks: &[1],
        bufs: &[
            ("x", F32, 32 * 512),
            ("gamma", F32, 512),
            ("y", F32, 32 * 512),
        ],
        scalars: &[("n_rows", "32"), ("eps", "1e-6")],
    },
    Case {
        file: "online_softmax_step.pto",
        blocks: &[1, 2],
        bufs: &[
            ("scores", F32, 16 * 128),
            ("m_prev", F32, 16),
            ("l_prev", F32, 16),
            ("o_prev", F32, 16 * 64),
            ("p", F32, 16 * 128),
            ("m_new", F32, 16),
            ("l_new", F32, 16),
            ("o_out", F32, 16 * 64),
        ],
        scalars: &[("scale", "0.125")],
    },
    Case {
        file: "multicore_split.pto",
        blocks: &[1, 3, 4, 8],
        bufs: &[("x", F32, 64 * 256), ("y", F32, 64 * 256)],
        scalars: &[("n_rows", "64"), ("alpha", "1.5"), ("beta", "-0.25")],
    },
    Case {
        file: "gemm_256x256x512.pto",
        blocks: &[1],
        bufs: &[
            ("a", F16, 256 * 512),
            ("b", F16, 512 * 256),
            ("c", F32, 256 * 256),
        ],
        scalars: &[],
    },
    Case {
        file: "attention_head.pto",
        blocks: &[1, 2],
        bufs: &[
            ("q", F16, 16 * 64),
            ("k", F16, 64 * 64),
            ("v", F16, 64 * 64),
            ("o", F32, 16 * 64),
        ],
        scalars: &[],
    },
    Case {
        file: "mixed_matmul_relu.pto",
        blocks: &[1, 2],
        bufs: &[
            ("a", F16, 16 * 32),
            ("b", F16, 32 * 32),
            ("y", F32, 16 * 32),
        ],
        scalars: &[],
    },
    Case {
        file: "bench/row_softmax_blocks.pto",
        blocks: &[1, 5, 8],
        bufs: &[("x", F32, 256 * 1024), ("y", F32, 256 * 1024)],
        scalars: &[("n_rows", "256")],
    },
    Case {
        file: "bench/tadd_loop.pto",
        blocks: &[1, 2],
        bufs: &[("a", F32, 256), ("b", F32, 256), ("c", F32, 256)],
        scalars: &[("iters", "20")],
    },
    Case {
        file: "bench/tmatmul_loop.pto",
        blocks: &[1, 2],
        bufs: &[
            ("a", F16, 128 * 128),
            ("b", F16, 128 * 128),
            ("c", F32, 128 * 128),
        ],
        scalars: &[("iters", "2")],
    },
    Case {
        file: "bench/tmov_acc_vec_loop.pto",
        blocks: &[1, 2],
        bufs: &[
            ("a", F16, 128 * 128),
            ("b", F16, 128 * 128),
            ("c", F32, 128 * 128),
        ],
        scalars: &[("iters", "2")],
    },
    Case {
        file: "bench/texp_loop.pto",
        blocks: &[1],
        bufs: &[
            ("a", F32, 64 * 128),
            ("b", F32, 64 * 128),
            ("c", F32, 64 * 128),
        ],
        scalars: &[("iters", "3")],
    },
];

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pto")
}

fn args_of(c: &Case) -> Vec<(String, HostArg)> {
    let mut a: Vec<(String, HostArg)> = c
        .bufs
        .iter()
        .enumerate()
        .map(|(i, (n, t, len))| (n.to_string(), buffer(*t, *len, i as u64 + 1)))
        .collect();
    a.extend(
        c.scalars
            .iter()
            .map(|(n, v)| (n.to_string(), HostArg::Scalar(v.to_string()))),
    );
    a
}

/// Every buffer's bytes and the statistics of a run.
fn image(o: &RunOutcome) -> (Vec<(String, Vec<u8>)>, String) {
    let bufs = o
        .buffer_names()
        .into_iter()
        .map(|n| {
            (
                n.to_string(),
                o.buffer_view(n).expect("buffer").data.to_vec(),
            )
        })
        .collect();
    let s = &o.stats;
    let stats = format!(
        "{:?} {} {} {} {}",
        s.per_op, s.steps, s.gm_to_chip, s.chip_to_gm, s.blocks
    );
    (bufs, stats)
}

#[test]
fn every_example_gives_the_same_bytes_on_1_2_and_3_threads() {
    let files: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .chain(std::fs::read_dir(examples().join("bench")).unwrap())
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "pto").then(|| {
                p.strip_prefix(examples())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
        })
        .collect();
    for f in &files {
        assert!(
            CASES.iter().any(|c| c.file == *f),
            "examples/pto/{f} has no case in this test"
        );
    }
    let mut parallel_runs = 0;
    for c in CASES {
        let src = std::fs::read_to_string(examples().join(c.file)).unwrap();
        let p = prog(&src, c.file);
        let args = args_of(c);
        for &blocks in c.blocks {
            let one = run(&p, &args, cfg(blocks, 1))
                .unwrap_or_else(|e| panic!("{} x{blocks}: {}", c.file, e.render(c.file, &src)));
            assert_eq!(one.schedule.threads, 1);
            assert_eq!(one.schedule.fallback, None);
            let want = image(&one);
            assert!(
                want.0.iter().any(|(_, b)| b.iter().any(|&x| x != 0)),
                "{}: all outputs zero",
                c.file
            );
            for threads in [2, 3] {
                let o = run(&p, &args, cfg(blocks, threads)).unwrap();
                assert!(
                    image(&o) == want,
                    "{} with {blocks} blocks: {threads} threads differ from 1 ({:?})",
                    c.file,
                    o.schedule
                );
                if o.schedule.threads > 1 {
                    parallel_runs += 1;
                    assert_eq!(o.schedule.threads, threads.min(blocks));
                }
                let split = c.file.contains("multicore_split") || c.file.contains("blocks.pto");
                if blocks > 1 && split {
                    // Kernels that split their rows over the blocks keep to the rule.
                    assert_eq!(o.schedule.fallback, None, "{}", c.file);
                    assert_eq!(o.schedule.threads, threads.min(blocks));
                }
                if blocks == 1 {
                    assert_eq!(o.schedule.threads, 1);
                    assert_eq!(o.schedule.fallback, None);
                }
            }
        }
    }
    assert!(
        parallel_runs >= 10,
        "only {parallel_runs} runs used threads"
    );
}

/// The 8-block row softmax on 2 threads against a plain softmax model (max |error| < 1e-6).
#[test]
fn row_softmax_over_8_blocks_on_2_threads_is_a_softmax() {
    let c = CASES
        .iter()
        .find(|c| c.file.contains("blocks.pto"))
        .unwrap();
    let src = std::fs::read_to_string(examples().join(c.file)).unwrap();
    let p = prog(&src, c.file);
    let args = args_of(c);
    let o = run(&p, &args, cfg(8, 2)).unwrap();
    assert_eq!(o.schedule.threads, 2);
    let HostArg::Buffer(x) = &args[0].1 else {
        panic!()
    };
    let x = x.to_elems::<f32>().unwrap();
    let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
    let mut worst = 0f64;
    for (xr, yr) in x.chunks(1024).zip(y.chunks(1024)) {
        let m = xr.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
        let e: Vec<f64> = xr.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        for (ev, yv) in e.iter().zip(yr) {
            worst = worst.max((ev / s - *yv as f64).abs());
        }
    }
    assert!(worst < 1e-6, "max error {worst}");
}

fn f32s(v: &[f32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(vec![v.len()], v))
}

fn named(v: Vec<(&str, HostArg)>) -> Vec<(String, HostArg)> {
    v.into_iter().map(|(k, a)| (k.to_string(), a)).collect()
}

/// Every block writes `x + block index` into the same 8x16 rows of y.
const SAME_ROWS: &str = r#"
module {
  func.func @same_rows(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %bf = arith.uitofp %b : i64 to f32
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<8x16xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<8x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x16xf32>) outs(%t : !pto.tile_buf<vec, 8x16xf32>)
    pto.tadds ins(%t, %bf : !pto.tile_buf<vec, 8x16xf32>, f32) outs(%t : !pto.tile_buf<vec, 8x16xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x16xf32>) outs(%yp : !pto.partition_tensor_view<8x16xf32>)
    return
  }
}
"#;

#[test]
fn two_blocks_writing_the_same_rows_run_in_order_with_a_note() {
    let p = prog(SAME_ROWS, "same_rows.pto");
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let args = named(vec![("x", f32s(&x)), ("y", f32s(&[0.0; 128]))]);
    for (blocks, threads) in [(2, 2), (4, 2), (4, 3), (5, 4)] {
        let o = run(&p, &args, cfg(blocks, threads)).unwrap();
        // In order, the last block's store is the one that stays.
        let want: Vec<f32> = x.iter().map(|v| v + (blocks - 1) as f32).collect();
        assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), want);
        assert_eq!(image(&o), image(&run(&p, &args, cfg(blocks, 1)).unwrap()));
        assert_eq!(o.schedule.threads, 1);
        let fb = o.schedule.fallback.expect("a fallback");
        assert_eq!(
            fb,
            Fallback::WriteWrite {
                first: 0,
                second: 1,
                place: Place {
                    gm: (512, 1024),
                    buffer: Some(("y".into(), 0, 512)),
                },
            }
        );
        assert_eq!(
            fb.to_string(),
            "blocks 0 and 1 both write bytes 0..512 of `%y`"
        );
    }
}

/// Block b reads row b of y and writes row b + 1 (y[b + 1] = y[b] + x[b]): a chain through GM.
const CHAIN: &str = r#"
module {
  func.func @chain(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %next = arith.addi %bi, %c1 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c5, %c16], strides = [%c16, %c1] : !pto.tensor_view<5x16xf32>
    %xp = pto.partition_view %xv, offsets = [%bi, %c0], sizes = [%c1, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %yin = pto.partition_view %yv, offsets = [%bi, %c0], sizes = [%c1, %c16] : !pto.tensor_view<5x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %yout = pto.partition_view %yv, offsets = [%next, %c0], sizes = [%c1, %c16] : !pto.tensor_view<5x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%a : !pto.tile_buf<vec, 1x16xf32>)
    pto.tload ins(%yin : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tadd ins(%t, %a : !pto.tile_buf<vec, 1x16xf32>, !pto.tile_buf<vec, 1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%yout : !pto.partition_tensor_view<1x16xf32>)
    return
  }
}
"#;

#[test]
fn a_block_reading_another_blocks_write_runs_in_order() {
    let p = prog(CHAIN, "chain.pto");
    let x: Vec<f32> = (0..64).map(|i| (i % 7) as f32 - 3.0).collect();
    let y0: Vec<f32> = (0..80)
        .map(|i| if i < 16 { i as f32 } else { 0.0 })
        .collect();
    let args = named(vec![("x", f32s(&x)), ("y", f32s(&y0))]);
    // The model: running sums of x's rows onto y's first row.
    let mut want = y0.clone();
    for r in 0..4 {
        for c in 0..16 {
            want[(r + 1) * 16 + c] = want[r * 16 + c] + x[r * 16 + c];
        }
    }
    for threads in [2, 3, 4] {
        let o = run(&p, &args, cfg(4, threads)).unwrap();
        assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), want);
        assert_eq!(o.schedule.threads, 1);
        let fb = o.schedule.fallback.expect("a fallback");
        assert_eq!(
            fb,
            Fallback::ReadWrite {
                reader: 1,
                writer: 0,
                place: Place {
                    gm: (256 + 64, 256 + 128),
                    buffer: Some(("y".into(), 64, 128)),
                },
            }
        );
        assert_eq!(
            fb.to_string(),
            "block 1 reads bytes 64..128 of `%y`, which block 0 writes"
        );
    }
}

/// Scalar stores: block b writes element `b * stride` of y (stride 1: every block its own
/// element; stride 0: all the same one) from element b of x.
const SCALARS: &str = r#"
module {
  func.func @scalars(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %stride: index) {
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %j = arith.muli %bi, %stride : index
    %v = pto.load_scalar %x[%bi] : !pto.ptr<f32> -> f32
    pto.store_scalar %v, %y[%j] : !pto.ptr<f32>, f32
    return
  }
}
"#;

#[test]
fn scalar_stores_follow_the_rule_too() {
    let p = prog(SCALARS, "scalars.pto");
    let x: Vec<f32> = (0..8).map(|i| 10.0 + i as f32).collect();
    let base = |stride: &str| {
        named(vec![
            ("x", f32s(&x)),
            ("y", f32s(&[0.0; 8])),
            ("stride", HostArg::Scalar(stride.into())),
        ])
    };
    // Disjoint elements: on threads.
    let o = run(&p, &base("1"), cfg(8, 2)).unwrap();
    assert_eq!(o.schedule.threads, 2);
    assert_eq!(o.schedule.fallback, None);
    assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), x);
    // One element for all: in order, the last block's value stays.
    let o = run(&p, &base("0"), cfg(8, 3)).unwrap();
    let mut want = vec![0.0f32; 8];
    want[0] = 17.0;
    assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), want);
    assert!(matches!(
        o.schedule.fallback,
        Some(Fallback::WriteWrite {
            first: 0,
            second: 1,
            ..
        })
    ));
}

/// Block 2 traps; the others store their row.
const TRAP: &str = r#"
module {
  func.func @trap(%y: !pto.ptr<f32>) {
    %c2 = arith.constant 2 : index
    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %bad = arith.cmpi eq, %bi, %c2 : index
    scf.if %bad {
      pto.trap
    }
    %one = arith.constant 1.0 : f32
    pto.store_scalar %one, %y[%bi] : !pto.ptr<f32>, f32
    return
  }
}
"#;

#[test]
fn a_failing_block_gives_the_one_thread_error() {
    let p = prog(TRAP, "trap.pto");
    let args = named(vec![("y", f32s(&[0.0; 8]))]);
    let one = run(&p, &args, cfg(8, 1)).unwrap_err();
    assert_eq!(one.kind(), RunErrorKind::Trap);
    for threads in [2, 3] {
        let e = run(&p, &args, cfg(8, threads)).unwrap_err();
        assert_eq!(e.kind(), one.kind());
        assert_eq!(e.diagnostic(), one.diagnostic());
    }
    // The step budget counts over all blocks, as in order.
    let p = prog(SCALARS, "scalars.pto");
    let args = named(vec![
        ("x", f32s(&[1.0; 8])),
        ("y", f32s(&[0.0; 8])),
        ("stride", HostArg::Scalar("1".into())),
    ]);
    let steps = run(&p, &args, cfg(8, 1)).unwrap().stats.steps;
    for max_steps in [steps - 1, steps / 2, 3] {
        let c = |threads| RunConfig {
            max_steps,
            ..cfg(8, threads)
        };
        let one = run(&p, &args, c(1)).unwrap_err();
        let two = run(&p, &args, c(2)).unwrap_err();
        assert_eq!(one.kind(), RunErrorKind::StepLimit);
        assert_eq!(two.diagnostic(), one.diagnostic());
    }
    let o = run(
        &p,
        &args,
        RunConfig {
            max_steps: steps,
            ..cfg(8, 2)
        },
    )
    .unwrap();
    assert_eq!((o.stats.steps, o.schedule.threads), (steps, 2));
}

#[test]
fn traced_runs_stay_in_order_and_memory_bound_ones_do_not() {
    let p = prog(SCALARS, "scalars.pto");
    let args = named(vec![
        ("x", f32s(&[1.0; 8])),
        ("y", f32s(&[0.0; 8])),
        ("stride", HostArg::Scalar("1".into())),
    ]);
    let o = run(
        &p,
        &args,
        RunConfig {
            trace: true,
            ..cfg(8, 2)
        },
    )
    .unwrap();
    assert_eq!(o.schedule.fallback, Some(Fallback::Traced));
    assert!(o.trace.is_some());
    // 64 bytes of GM under a 100-byte budget: the workers write the one GM in place (no
    // private copies), so the budget does not keep the run on one thread.
    let o = run(
        &p,
        &args,
        RunConfig {
            max_memory: 100,
            ..cfg(8, 2)
        },
    )
    .unwrap();
    assert_eq!(o.schedule.fallback, None);
    assert_eq!(o.schedule.threads, 2);
    assert_eq!(o.buffer("y").unwrap().to_elems::<f32>().unwrap(), [1.0; 8]);
}

/// The issue-11 benchmark kernel (8 blocks of a 1024-row softmax, the 8-row tiles dealt
/// round-robin) keeps to the rule: every repetition runs on 2 threads without a fallback, with
/// the one-thread run's bytes. (Blocks claim GM ranges as they go, so a false conflict would
/// show up as a fallback on some repetitions only.)
#[test]
fn the_block_softmax_runs_on_two_threads_every_time() {
    let src = include_str!("../../../examples/pto/bench/row_softmax_blocks.pto");
    let p = prog(src, "row_softmax_blocks.pto");
    let rows = 256;
    let args = named(vec![
        ("x", buffer(ElemType::F32, rows * 1024, 7)),
        ("y", f32s(&vec![0.0; rows * 1024])),
        ("n_rows", HostArg::Scalar(rows.to_string())),
    ]);
    let one = run(&p, &args, cfg(8, 1)).unwrap();
    for _ in 0..20 {
        let two = run(&p, &args, cfg(8, 2)).unwrap();
        assert_eq!(two.schedule.fallback, None);
        assert_eq!(two.schedule.threads, 2);
        assert!(image(&two) == image(&one));
    }
}
