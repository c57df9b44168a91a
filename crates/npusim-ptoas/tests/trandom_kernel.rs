//! `pto.trandom` as PTOAS prints it (`TRandomOp`: six integer words in `ins`, `rounds`
//! defaulting to 10) run end to end on A5: the tile is stored to GM and compared with the
//! committed Philox4x32-10 stream of randomgen (`crates/npusim-pto/tests/data/
//! trandom_philox10.txt`, written by `scripts/gen_trandom_ref.py`), whose first case is PTOAS
//! `test/basic/trandom_emitc.pto`'s rounds-10 kernel (key 305419896, -1698898192; counter 0, 1,
//! 2, 3; a 4x256 tile: each 256-column row uses 64 consecutive counters). The rounds-7 form is
//! checked against a plain Philox model written here; a bad `rounds` and A2A3 are refused.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

const DATA: &str = include_str!("../../npusim-pto/tests/data/trandom_philox10.txt");

/// The first case's words.
fn reference() -> Vec<u32> {
    let mut lines = DATA.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with("case 12345678 9abcdef0 00000000 00000001 00000002 00000003"));
    let n = usize::from_str_radix(head.split_whitespace().last().unwrap(), 16).unwrap();
    let words: Vec<u32> = lines
        .take_while(|l| !l.starts_with("case"))
        .flat_map(|l| l.split_whitespace())
        .map(|w| u32::from_str_radix(w, 16).unwrap())
        .collect();
    assert_eq!(words.len(), n);
    words
}

fn kernel(arch: &str, ty: &str, rows: usize, words: [i64; 6], rounds: Option<&str>) -> String {
    let tile = format!(
        "!pto.tile_buf<loc=vec, dtype={ty}, rows={rows}, cols=256, v_row={rows}, v_col=256, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    );
    let attr = rounds
        .map(|r| format!(" {{rounds = {r}}}"))
        .unwrap_or_default();
    let [k0, k1, c0, c1, c2, c3] = words;
    format!(
        r#"module attributes {{pto.target_arch = "{arch}"}} {{
  func.func @k(%y: !pto.ptr<{ty}>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant 256 : index
    %k0 = arith.constant {k0} : i32
    %k1 = arith.constant {k1} : i32
    %w0 = arith.constant {c0} : i32
    %w1 = arith.constant {c1} : i32
    %w2 = arith.constant {c2} : i32
    %w3 = arith.constant {c3} : i32
    %yv = pto.make_tensor_view %y, shape = [%cr, %cc], strides = [%cc, %c1] : !pto.tensor_view<?x?x{ty}>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%cr, %cc] : !pto.tensor_view<?x?x{ty}> -> !pto.partition_tensor_view<{rows}x256x{ty}>
    %dst = pto.alloc_tile : {tile}
    pto.trandom ins(%k0, %k1, %w0, %w1, %w2, %w3{attr} : i32, i32, i32, i32, i32, i32) outs(%dst : {tile})
    pto.tstore ins(%dst : {tile}) outs(%yp : !pto.partition_tensor_view<{rows}x256x{ty}>)
    return
  }}
}}
"#
    )
}

fn run(src: &str, rows: usize) -> Result<Vec<u32>, String> {
    let unsigned = src.contains("!pto.ptr<ui32>");
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    let p = lower(&m, LowerOptions::default())
        .map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))?;
    // The buffer's element type is the kernel's (`i32` or `ui32`).
    let y = if unsigned {
        NpyArray::from_elems(vec![rows, 256], &vec![0u32; rows * 256])
    } else {
        NpyArray::from_elems(vec![rows, 256], &vec![0i32; rows * 256])
    };
    let args = vec![("y".to_string(), HostArg::Buffer(y))];
    let out = p
        .run(None, &args, &RunConfig::default())
        .map_err(|e| e.render("t.pto", src))?;
    // The stream is compared as u32 words.
    let y = out.buffer("y").unwrap();
    Ok(if unsigned {
        y.to_elems::<u32>().unwrap()
    } else {
        y.to_elems::<i32>()
            .unwrap()
            .into_iter()
            .map(|v| v as u32)
            .collect()
    })
}

#[test]
fn trandom_kernel_matches_the_randomgen_stream() {
    // PTOAS's words: 305419896 = 0x12345678, -1698898192 = 0x9ABCDEF0 as i32.
    let src = kernel("a5", "i32", 4, [305419896, -1698898192, 0, 1, 2, 3], None);
    let got = run(&src, 4).unwrap();
    assert_eq!(got, reference());
}

/// A plain Philox-4x32 written here (Salmon et al. 2011: multipliers 0xD2511F53, 0xCD9E8D57,
/// Weyl key steps 0x9E3779B9, 0xBB67AE85).
fn philox(mut c: [u32; 4], mut k: [u32; 2], rounds: u32) -> [u32; 4] {
    for _ in 0..rounds {
        let a = u64::from(c[0]) * 0xD251_1F53;
        let b = u64::from(c[2]) * 0xCD9E_8D57;
        c = [
            ((b >> 32) as u32) ^ c[1] ^ k[0],
            b as u32,
            ((a >> 32) as u32) ^ c[3] ^ k[1],
            a as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    c
}

#[test]
fn trandom_rounds7_kernel_matches_a_plain_philox() {
    // PTOAS's rounds-7 kernel: key (324508639, 610839776), counter (16, 32, 48, 64), 2x256 u32.
    let src = kernel(
        "a5",
        "ui32",
        2,
        [324508639, 610839776, 16, 32, 48, 64],
        Some("7 : i32"),
    );
    let got = run(&src, 2).unwrap();
    let key = [324508639u32, 610839776];
    let mut want = Vec::new();
    for blk in 0..128u32 {
        // Row r uses counters C + 64 r .. C + 64 r + 63; no carry out of word 0 here.
        want.extend_from_slice(&philox([16 + blk, 32, 48, 64], key, 7));
    }
    assert_eq!(got, want);
}

#[test]
fn trandom_refusals() {
    let bad_rounds = kernel("a5", "i32", 1, [1, 2, 3, 4, 5, 6], Some("8 : i32"));
    let e = run(&bad_rounds, 1).unwrap_err();
    assert!(
        e.contains("TRANDOM") && e.contains("Rounds must be 7 or 10"),
        "{e}"
    );
    let a2 = kernel("a2a3", "i32", 1, [1, 2, 3, 4, 5, 6], None);
    let e = run(&a2, 1).unwrap_err();
    assert!(e.contains("trandom") || e.contains("TRANDOM"), "{e}");
}
