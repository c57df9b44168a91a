//! `AscendC::printf`, `PRINTF` and `DumpTensor` through the C++ face (asc-devkit
//! `docs/api/context/printf.md`, `DumpTensor.md`): every print comes in execution order, tagged
//! with its block and the kernel source line of the call; each text is compared with the same
//! format printed by the host C library (a C program built here with the system C compiler,
//! with the arguments widened as the device's printf takes them: `%x`/`%u` of 64 bits);
//! broken rules stop the kernel with an error naming the call, the parameter, the rule, the
//! value and the source line.

use npusim_capi::abi::capture_prints;
use npusim_capi::runner::{self, Launch, RunError};
use npusim_core::npy::NpyArray;
use std::path::PathBuf;
use std::process::Command;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/print.cpp")
}

fn line_of(marker: &str) -> u32 {
    let text = std::fs::read_to_string(src()).unwrap();
    text.lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("marker {marker}")) as u32
        + 1
}

fn x_values() -> Vec<f32> {
    (0..256).map(|i| i as f32 * 0.5 - 1.25).collect()
}

/// A run's result and what it printed.
type Launched = (
    Result<Vec<(String, NpyArray)>, RunError>,
    Vec<(String, npusim_ascend::print::PrintRec)>,
);

fn launch(entry: &str, blocks: u32) -> Launched {
    if let Err(e) = runner::compiler() {
        panic!("this test compiles an Ascend C kernel with the host C++ compiler: {e}");
    }
    let cache = tempfile::tempdir().unwrap();
    let l = Launch {
        source: src(),
        kernel: entry.into(),
        blocks,
        chip: "ascend910b".into(),
        args: vec![
            ("x".into(), NpyArray::from_elems(vec![256], &x_values())),
            ("y".into(), NpyArray::from_elems(vec![256], &[0.0f32; 256])),
        ],
        cache_dir: cache.path().to_path_buf(),
    };
    capture_prints(|| runner::run(&l))
}

/// The texts of the host C library for the prints of `print_kernel` in block `b`, with the
/// GM address of `x` given.
fn reference(blocks: u32, gm_x: u64) -> Vec<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("ref.c");
    let exe = dir.path().join("ref");
    let prog = format!(
        r#"#include <stdio.h>
static float x(int i) {{ return (float)i * 0.5f - 1.25f; }}
#define SEP fputc(30, stdout)
static void list(int from, int n, const char* open, const char* sep, const char* close) {{
    fputs(open, stdout);
    for (int j = 0; j < n; ++j) {{ if (j) fputs(sep, stdout); printf("%f", (double)x(from + j)); }}
    fputs(close, stdout);
}}
int main(void) {{
  for (int b = 0; b < {blocks}; ++b) {{
    printf("block %d of %d\n", b, {blocks}); SEP;
    printf("int %d %i %u %x|%5d|%-5d|%05d|%+d\n", -7, 42, 7u, 255, 3, 4, -5, 6); SEP;
    printf("neg %llx %llu\n", (unsigned long long)-1LL, 18446744073709551615ull); SEP;
    printf("float %f %.2f %10.3f %-10.1f| %f %f\n", (double)3.14f, -2.5, (double)1e6f, (double)0.25f, 1.5, -0.5); SEP;
    printf("str %s %% %s %d\n", "abc", "xyz", 1); SEP;
    for (int i = 0; i < 3; ++i) {{ printf("x[%d] = %f\n", i, (double)x(i + 8 * b)); SEP; }}
    printf("DumpTensor: desc=7, addr=0, data_type=float32, position=UB, dump_size=8\n");
    list(0, 8, "[", ", ", "]\n"); SEP;
    printf("DumpTensor: desc=9, addr=20, data_type=float32, position=UB, dump_size=8\n");
    printf("shape is [2, 3], dumpSize is 8, dumpSize is greater than shapeSize.\n");
    fputs("[", stdout); list(8, 3, "[", ",", "],\n"); list(11, 3, "[", ",", "]"); fputs("]\n", stdout); SEP;
    printf("DumpTensor: desc=10, addr=%llx, data_type=float32, position=GM, dump_size=4\n", {gm_x}ull);
    list(0, 4, "[", ", ", "]\n"); SEP;
  }}
  return 0;
}}
"#
    );
    std::fs::write(&c, prog).unwrap();
    let st = Command::new(&cc)
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("the reference needs the system C compiler `{cc}`: {e}"));
    assert!(st.success(), "compiling the C reference failed");
    let out = Command::new(&exe).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut v: Vec<String> = text.split('\u{1e}').map(str::to_string).collect();
    assert_eq!(v.pop().as_deref(), Some(""));
    v
}

#[test]
fn prints_come_in_order_with_block_line_and_the_c_library_text() {
    let (r, prints) = launch("print_kernel", 2);
    r.unwrap_or_else(|e| panic!("{e}"));
    let gm_x = prints
        .iter()
        .find_map(|(_, p)| {
            p.text
                .strip_prefix("DumpTensor: desc=10, addr=")
                .and_then(|t| t.split(',').next())
                .map(|a| u64::from_str_radix(a, 16).expect("hex address"))
        })
        .expect("the GM dump");
    assert_eq!(gm_x % 32, 0, "GM buffers are 32-byte aligned");
    let want = reference(2, gm_x);
    let per_block = [
        "P1", "P2", "P3", "P4", "P5", "P6", "P6", "P6", "P7", "P8", "P9",
    ];
    assert_eq!(prints.len(), want.len());
    assert_eq!(want.len(), 2 * per_block.len());
    for (k, ((file, p), w)) in prints.iter().zip(&want).enumerate() {
        let block = (k / per_block.len()) as u32;
        let line = line_of(&format!("// {}", per_block[k % per_block.len()]));
        assert_eq!(file, "print.cpp");
        assert_eq!((p.block, p.line), (block, line), "print {k}: {:?}", p.text);
        assert_eq!(&p.text, w, "print {k} (block {block}, line {line})");
    }
    // The tagged form `npusim ascendc run` writes to stdout.
    assert_eq!(
        prints[0].1.tagged("print.cpp"),
        format!("[block 0 print.cpp:{}] block 0 of 2\n", line_of("// P1"))
    );
}

fn error_of(entry: &str) -> String {
    let (r, _) = launch(entry, 1);
    let e = r.expect_err("the kernel must fail");
    let RunError::Kernel { message, .. } = &e else {
        panic!("not a kernel error: {e}");
    };
    let text = std::fs::read_to_string(src()).unwrap();
    let err_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("// ERROR HERE"))
        .map(|(i, _)| i + 1)
        .collect();
    assert!(
        err_lines
            .iter()
            .any(|l| message.starts_with(&format!("{}:{l}: ", src().display()))),
        "`{message}` does not name the marked line"
    );
    message.clone()
}

#[test]
fn a_float_for_percent_d_names_call_parameter_rule_and_value() {
    let m = error_of("print_bad_arg");
    assert!(
        m.contains("printf: args[0] = the float 1.5: %d (byte 6) takes an integer"),
        "{m}"
    );
}

#[test]
fn a_dump_beyond_the_tensor_names_dump_size() {
    let m = error_of("dump_too_big");
    assert!(
        m.contains(
            "DumpTensor: dumpSize = 65: lies within the tensor (64 elements from its start)"
        ),
        "{m}"
    );
}
