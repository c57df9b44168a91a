//! Acceptance (1) of issue #5 and issue #19: the simulator reproduces every case of the BM1684X
//! C-model golden files committed in `golden/hau/` bit for bit: `bm1684x-cmodel.json` (the
//! regenerated vendor file with real denormals) and `denormals.json` (written by
//! `scripts/gen_hau_golden.py`).

use std::path::PathBuf;

use npusim_tpu::golden::replay_file;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden/hau")
}

#[test]
fn bm1684x_cmodel_golden_all_pass() {
    let path = golden_dir().join("bm1684x-cmodel.json");
    assert!(
        path.is_file(),
        "golden file missing: {} (committed in golden/hau/)",
        path.display()
    );
    let report = replay_file(&path).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert_eq!(report.failed, 0, "{report}");
    assert_eq!(report.passed, 382, "{report}");
    assert!(report.to_string().ends_with("382 passed, 0 failed"));
}

#[test]
fn denormal_golden_all_pass() {
    let report =
        replay_file(&golden_dir().join("denormals.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("427 passed, 0 failed"),
        "{report}"
    );
}

/// The denormal policy is what makes the files pass: under IEEE comparisons the denormal cases
/// fail (so the golden tests above can fail).
#[test]
fn ieee_denormal_policy_fails_the_cmodel_vectors() {
    use npusim_tpu::DenormalPolicy;
    use npusim_tpu::golden::replay_file_with_policy;
    for (file, min_failed) in [("denormals.json", 100), ("bm1684x-cmodel.json", 14)] {
        let report = replay_file_with_policy(&golden_dir().join(file), DenormalPolicy::Ieee)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.failed >= min_failed, "{file}: {report}");
    }
}

#[test]
fn every_golden_file_in_the_directory_passes() {
    let dir = golden_dir();
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files = 0;
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            files += 1;
            let report = replay_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                report.failed == 0 && report.passed > 0,
                "{}: {report}",
                path.display()
            );
        }
    }
    assert!(files >= 1, "no golden files in {}", dir.display());
}

/// The plain reference twins (not only the fast models the memory-level API uses) reproduce
/// the C-model's first K outputs of every sort case.
#[test]
fn reference_twins_match_golden_sort_cases() {
    assert_eq!(reference_twins_on("bm1684x-cmodel.json"), 328);
    assert_eq!(reference_twins_on("denormals.json"), 409);
}

fn reference_twins_on(file: &str) -> usize {
    use npusim_tpu::sort::{KeyType, indexed_order_reference, partial_sort_nonstrict};
    let path = golden_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("golden file missing: {}: {e}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).expect("golden JSON");
    let words = |v: &serde_json::Value| -> Vec<u32> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|x| u32::try_from(x.as_u64().expect("u64")).expect("u32"))
            .collect()
    };
    let mut checked = 0;
    for case in doc["cases"].as_array().expect("cases") {
        let op = case["op"].as_str().expect("op");
        if op == "line_gather" {
            continue;
        }
        let kind = match case["dtype"].as_str().expect("dtype") {
            "f32" => KeyType::F32Daz,
            "i32" => KeyType::I32,
            "u32" => KeyType::U32,
            other => panic!("unexpected sort dtype {other}"),
        };
        let k = case["k"].as_u64().expect("k") as usize;
        let desc = case["descended"].as_bool().expect("descended");
        let input = words(&case["input"]);
        let out_data = words(&case["out_data"]);
        if op == "sort" {
            assert_eq!(
                partial_sort_nonstrict(&input, k, desc, kind),
                out_data[..k],
                "{case}"
            );
        } else {
            let tie = (op == "sort_specific_index").then(|| words(&case["input_idx"]));
            let order = indexed_order_reference(&input, tie.as_deref(), k, desc, kind);
            let data: Vec<u32> = order.iter().map(|&p| input[p as usize]).collect();
            let idx: Vec<u32> = match &tie {
                Some(t) => order.iter().map(|&p| t[p as usize]).collect(),
                None => order.clone(),
            };
            assert_eq!(data, out_data[..k], "{op} data");
            assert_eq!(idx, words(&case["out_idx"])[..k], "{op} idx");
        }
        checked += 1;
    }
    checked
}

fn tpu_golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden/tpu")
}

/// Issue #16: GDMA copies (S2L/L2S/S2S/L2L, every 8/16/32-bit dtype, start lanes 0..63,
/// default, compact, line-aligned and free strides) reproduce the C-model, and the calls it
/// rejects are refused.
#[test]
fn tpu_gdma_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("gdma.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("99 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: BDC elementwise float instructions (add/sub/mul and their `_C` forms, max/min
/// and `_C`), f32/f16/bf16, NaN/inf/denormal operands, start lanes 0..63, default and compact
/// strides, and the calls the C-model rejects (misaligned operand, int dtype).
#[test]
fn tpu_bdc_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("bdc.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("103 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_cast` over every ordered pair of the nine 8/16/32-bit dtypes and all
/// seven rounding modes (RM_HALF_UP/RM_HALF_DOWN and fp16<->bf16 are rejected by the C-model
/// and must be refused), NaN/inf/+-0/denormal/tie inputs, start NPUs 0..63, compact strides,
/// a source on another start NPU.
#[test]
fn tpu_bdc_cast_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("cast.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("519 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_set_C`, `tpu_bdc_cpy`, `tpu_bdc_npu_bcast` for every 8/16/32-bit dtype,
/// start NPUs 0..63, C up to 70, default and compact strides, and the calls the C-model
/// rejects (operands on different start NPUs, misaligned address, bcast past the last NPU).
#[test]
fn tpu_bdc_move_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("move.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("111 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_equal/greater/less` and `_C` over every 8/16/32-bit source dtype
/// (every pair of f32/f16/bf16 specials), narrower destination dtypes, true values of every
/// width, start NPUs 0..63, compact strides, and the calls the C-model rejects (a destination
/// wider than the source, a misaligned operand).
#[test]
fn tpu_bdc_cmp_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("cmp.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("116 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_and/or/xor` and `_C` on every 8/16/32-bit dtype.
#[test]
fn tpu_bdc_bit_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("bit.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("108 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: the fp_div family bit for bit (the C-model's reciprocal: three Newton steps of
/// `1/sqrt`, squared), every pair of f32 specials, mantissas of [1, 2), start NPUs 0 and
/// non-zero, and the DT_FP32-only rule (18 rejected f16/bf16 calls).
#[test]
fn tpu_bdc_div_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("bdc_div.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("31 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_fp32_exp` after `tpu_bdc_load_fp32_exp_coeff/table`: dst, work0 and
/// work1 bit for bit on NaN/inf/+-0/denormal/overflow/underflow inputs, odd shapes, start NPUs
/// 0 and non-zero, operands on other NPUs, in-place calls, and the 9 calls the C-model rejects.
#[test]
fn tpu_bdc_sfu_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("sfu.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("26 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_fp32_rsqrt` and `tpu_bdc_fp32_sqrt` bit for bit on NaN/inf/+-0/
/// denormal/negative inputs (around the magic constant's wrap point), odd shapes, start NPUs 0
/// and non-zero, in place, and the 8 calls the C-model rejects.
#[test]
fn tpu_bdc_sqrt_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("sfu_sqrt.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("28 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_fp32_log` after `tpu_bdc_load_fp32_log_coeff`: dst and work bit for
/// bit on NaN/inf/+-0/denormal/negative inputs, values near 1 and at the exponent rounding
/// point (mantissa 4/3), odd shapes, start NPUs 0 and non-zero, operands on other NPUs, in-place
/// calls (dst == src, work == src), and the 12 calls the C-model rejects.
#[test]
fn tpu_bdc_log_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("sfu_log.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("28 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16 acceptance 3: our softmax kernel (`kernels::softmax_last_axis`: S2L, max pool,
/// sub, exp, avg pool as a sum, div, L2S) against the same call sequence on the C-model, bit
/// for bit, on 7 shapes (C from 1 to 256, rows across the 64 lanes, N = 2) including rows with
/// inf, -inf, NaN, huge, denormal and all-equal values.
#[test]
fn tpu_kernel_softmax_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("kernel.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("7 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_fp_min_pool2d` is refused with a typed error, as the C-model asserts on
/// every call (39 calls: f32/f16/bf16, every kernel, padding, stride and start NPU tried).
#[test]
fn tpu_bdc_min_pool_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("pool_min.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("39 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_int_add/sub/mul`, `_C`, `int_C_sub`, `int_max_C/min_C` with mixed
/// source and destination dtypes, every rounding mode, shifts -128..127, saturation on and
/// off, start NPUs 0..63, compact and aligned layouts, and the calls the C-model rejects
/// (destination signedness).
#[test]
fn tpu_bdc_int_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("int.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("246 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_greater/less/equal_select` over every 8/16/32-bit compare dtype and
/// destination dtype, tensor and scalar sources in every position, start NPUs 0..63, every
/// pair of f32/f16/bf16 specials, and the calls the C-model rejects (a destination narrower
/// than the compared type, a float compared into another width, misaligned operands).
#[test]
fn tpu_bdc_select_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("select.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("84 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_fp_max_pool2d` / `tpu_bdc_fp_avg_pool2d`, f32/f16/bf16, kernels up to
/// 5x4, paddings, strides, dilations, start NPUs 0..63, C up to 70, NaN/inf/denormal inputs,
/// pad values and scales; the calls the C-model rejects.
#[test]
fn tpu_bdc_pool_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("pool.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("70 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: `tpu_bdc_maximum_greater_select` / `tpu_bdc_minimum_less_select` (two outputs:
/// the max/min and the selected value), every dtype with same-width and other second
/// destinations, tensor and scalar sources, float specials, and the calls the C-model
/// rejects (destinations of different widths, a misaligned operand).
#[test]
fn tpu_bdc_select2_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("select2.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("73 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16, the work-budget item: zero and overlapping destination strides against the
/// C-model (`golden/tpu/dst_stride.json`, 13 cases). The 9 calls it rejects (a zero
/// destination stride on a dimension of more than one element, across fp/int arithmetic,
/// casts, moves, set_C and compares, including the 65535 x 65535 set_C) are refused; the 4 it
/// accepts (zero strides on size-1 dimensions, overlapping rows where the last write wins)
/// match bit for bit.
#[test]
fn tpu_dst_stride_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("dst_stride.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("13 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: the layout-changing moves (`golden/tpu/trans.json`, `--kind trans`):
/// `tpu_gdma_matrix_S2L/L2S` (odd rows/cols, cols_per_channel below, at and above cols, row
/// strides 0, below and above cols), `tpu_gdma_compact_S2L/L2S`, `tpu_gdma_cpy_cw_trans_*` in
/// all four directions with default and explicit strides, `tpu_bdc_cw_trans` /
/// `tpu_bdc_wc_trans`; every 8/16/32-bit dtype, start lanes 0..63, C past 64; and the calls the
/// C-model rejects (each refused with a typed error).
#[test]
fn tpu_trans_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("trans.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("269 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16, acceptance 1 gaps (`golden/tpu/audit.json`, `--kind audit`, listed per function
/// in docs/tpu-audit.md): special values through every GDMA copy, matrix/compact/cw move and
/// BDC transpose, local sides on NPU 0 and on other NPUs, `tpu_bdc_set_C` with every special
/// constant, integer compares against MIN/MAX/0/-1, and a softmax over +-0 rows.
#[test]
fn tpu_audit_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("audit.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("354 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16: element alignment of the GDMA copies (`golden/tpu/gdma_align.json`, `--kind
/// gdma_align`): in every direction, a destination or source address 1 to 3 bytes off the
/// element grid, local and system sides, is refused as the C-model refuses it (28 cases), and
/// element-aligned addresses off the 4-byte grid are copied as the C-model copies them (16).
#[test]
fn tpu_gdma_align_golden_all_pass() {
    let report =
        replay_file(&tpu_golden_dir().join("gdma_align.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("44 passed, 0 failed"),
        "{report}"
    );
}

/// Issue #16, acceptance 1: dims outside [1, 65535] on every family (`golden/tpu/dims.json`,
/// `--kind dims`): the C-model asserted on all 50 calls (a zero h, w or c; h = 65536), npusim
/// refuses each (with `DimOutOfRange`: `tpu_refusals_by_assert_class`).
#[test]
fn tpu_dims_golden_all_pass() {
    let report = replay_file(&tpu_golden_dir().join("dims.json")).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert!(
        report.to_string().ends_with("50 passed, 0 failed"),
        "{report}"
    );
    assert_eq!(report.refusals.len(), 50);
    for r in &report.refusals {
        assert_eq!(
            assert_class(&r.error),
            Some("dims outside [1, 65535]"),
            "{r:?}"
        );
    }
}

/// The assert class of a simulator error text (its `Display` kind), as listed in
/// docs/tpu-audit.md, "Assert classes"; `None` for a text of no known class.
fn assert_class(e: &str) -> Option<&'static str> {
    let starts = |p: &str| e.starts_with(p);
    Some(if e.contains("must be in [1, 65535]") {
        "dims outside [1, 65535]"
    } else if starts("misaligned local address") || starts("address not element-aligned") {
        "misaligned address"
    } else if starts("unsupported dtype") {
        "dtype not legal for the op"
    } else if starts("unsupported rounding mode") {
        "rounding mode not legal"
    } else if starts("operands on different NPUs")
        || starts("operand on the wrong NPU")
        || starts("channels past the last NPU")
    {
        "start NPU rules"
    } else if starts("local address out of range")
        || starts("local tensor")
        || starts("system tensor out of range")
    {
        "address or footprint out of range"
    } else if starts("negative stride")
        || starts("zero destination stride")
        || e.contains("w stride")
    {
        "stride rules"
    } else if e.contains(" out of range: ") {
        "parameter out of range"
    } else if starts("operands overlap") {
        "operands overlap"
    } else if starts("not supported") {
        "not supported on the chip"
    } else {
        return None;
    })
}

/// Issue #16, acceptance 1 ("every assert the C-model kills the process on ... is a typed
/// error"): every golden case the C-model refused is refused by the simulator with a typed
/// error of a known class, each class the issue names (misaligned local address, dtype not
/// legal for the op, dims outside [1, 65535], operands on different start NPUs) has golden
/// refusal cases, and the per-class counts are the ones docs/tpu-audit.md states.
#[test]
fn tpu_refusals_by_assert_class() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tpu_golden_dir())
        .expect("golden/tpu")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut counts: std::collections::BTreeMap<&str, (usize, Vec<String>)> = Default::default();
    let mut total = 0;
    for path in &files {
        let report = replay_file(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.failed, 0, "{}: {report}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for r in &report.refusals {
            let class = assert_class(&r.error).unwrap_or_else(|| {
                panic!("{name} case {}: unclassified error {:?}", r.case, r.error)
            });
            let entry = counts.entry(class).or_default();
            entry.0 += 1;
            if !entry.1.contains(&name) {
                entry.1.push(name.clone());
            }
            total += 1;
        }
    }
    for (class, (n, files)) in &counts {
        println!("| {class} | {n} | {} |", files.join(", "));
    }
    // Every case the C-model refused (457 in the 21 files) was refused with a classified error.
    assert_eq!(total, 457);
    for class in [
        "misaligned address",
        "dtype not legal for the op",
        "dims outside [1, 65535]",
        "start NPU rules",
    ] {
        assert!(
            counts.get(class).is_some_and(|c| c.0 > 0),
            "no golden refusal of class {class}"
        );
    }
    // The audit states the same counts (its table rows read `| class | count | files |`).
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tpu-audit.md"),
    )
    .expect("docs/tpu-audit.md");
    for (class, (n, _)) in &counts {
        let row = format!("| {class} | {n} |");
        assert!(
            doc.contains(&row),
            "docs/tpu-audit.md lacks the row {row:?}"
        );
    }
}
