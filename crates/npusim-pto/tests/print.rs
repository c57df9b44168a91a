//! TPRINT (pto-isa `docs/isa/TPRINT.md`): the device's text for a Vec tile. A hand-written
//! expected text for a partial valid region (the `|` and dash markers), a property that the
//! printed grid reads back as the tile's integers at their layout positions, and the
//! restrictions.

mod common;

use npusim_pto::*;
use proptest::prelude::*;

fn core() -> TileCore {
    TileCore::by_name("a2a3").unwrap()
}

fn put(c: &mut TileCore, addr: usize, bytes: &[u8]) {
    c.mem_mut(TileLoc::Vec)[addr..addr + bytes.len()].copy_from_slice(bytes);
}

#[test]
fn partial_valid_region_is_marked() {
    let mut c = core();
    let t = c
        .alloc(TileDesc::vec(ElemType::F32, 2, 8).valid(1, 2).at(0))
        .unwrap();
    let vals: [f32; 16] = [
        1.5, -2.25, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
        4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 100000.0,
    ];
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    put(&mut c, 0, &bytes);
    let text = c.tprint(&t, PrintFormat::default()).unwrap();
    let want = concat!(
        "=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n",
        "  Shape: [2, 8], Valid Shape: [1, 2]\n",
        "  1.5000  -2.2500|   3.0000   0.0000   0.0000   0.0000   0.0000   0.0000\n",
        "-------- --------| -------- -------- -------- -------- -------- --------\n",
        "  4.0000   5.0000|   6.0000   7.0000   8.0000   9.0000  10.0000 100000.0000\n",
    );
    assert_eq!(text, want);
    let wide = c.tprint(&t, PrintFormat::Width10Precision6).unwrap();
    assert!(wide.contains("  1.500000  -2.250000|"), "{wide}");
    assert!(wide.contains("---------- ----------|"), "{wide}");
}

#[test]
fn full_valid_region_has_no_markers_and_names_the_layout() {
    let c = core();
    let t = c
        .alloc(
            TileDesc::vec(ElemType::F16, 16, 16)
                .layout(BLayout::RowMajor, SLayout::RowMajor)
                .at(0),
        )
        .unwrap();
    let text = c.tprint(&t, PrintFormat::Width8Precision2).unwrap();
    assert!(text.starts_with(
        "=== [TPRINT Tile] Data Type: float16, Layout: Zz, TileType: Vec ===\n  Shape: [16, 16], Valid Shape: [16, 16]\n"
    ));
    assert!(!text.contains('|') && !text.contains("--"));
    assert_eq!(text.lines().count(), 2 + 16);
    assert!(
        text.lines()
            .nth(2)
            .unwrap()
            .starts_with("    0.00     0.00")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn printed_integers_read_back_at_their_positions(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![ElemType::I8, ElemType::U8, ElemType::I16, ElemType::U16, ElemType::I32, ElemType::U32]),
        rows in 1usize..5,
        blocks in 1usize..3,
        vr_sel in any::<u16>(),
        vc_sel in any::<u16>(),
        seed in any::<u64>(),
    ) {
        let cols = blocks * 32 / t.size();
        let (vr, vc) = (1 + vr_sel as usize % rows, 1 + vc_sel as usize % cols);
        let mut c = TileCore::by_name(arch).unwrap();
        let tile = c.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x100)).unwrap();
        let n = rows * cols * t.size();
        let mut x = seed;
        let bytes: Vec<u8> = (0..n).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 56) as u8 }).collect();
        put(&mut c, 0x100, &bytes);
        let text = c.tprint(&tile, PrintFormat::default()).unwrap();
        prop_assert!(text.lines().count() > 2, "{}", text);
        let lines: Vec<&str> = text.lines().skip(2).collect();
        let sep = usize::from(vr < rows);
        prop_assert_eq!(lines.len(), rows + sep);
        let mut r = 0;
        for line in lines {
            if line.starts_with("--") {
                prop_assert_eq!(r, vr);
                continue;
            }
            let cells: Vec<&str> = line.split(' ').filter(|s| !s.is_empty()).collect();
            prop_assert_eq!(cells.len(), cols);
            for (col, cell) in cells.iter().enumerate() {
                prop_assert_eq!(cell.ends_with('|'), vc < cols && col + 1 == vc);
                let v: i64 = cell.trim_end_matches('|').parse().unwrap();
                let e = &bytes[(r * cols + col) * t.size()..][..t.size()];
                let want = match t {
                    ElemType::I8 => e[0] as i8 as i64,
                    ElemType::U8 => e[0] as i64,
                    ElemType::I16 => i16::from_le_bytes([e[0], e[1]]) as i64,
                    ElemType::U16 => u16::from_le_bytes([e[0], e[1]]) as i64,
                    ElemType::I32 => i32::from_le_bytes([e[0], e[1], e[2], e[3]]) as i64,
                    _ => u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as i64,
                };
                prop_assert_eq!(v, want);
            }
            r += 1;
        }
    }
}

#[test]
fn restrictions() {
    let c = core();
    let bf = c
        .alloc(TileDesc::vec(ElemType::Bf16, 16, 16).at(0))
        .unwrap();
    let e = c
        .tprint(&bf, PrintFormat::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("TPRINT") && e.contains("bfloat16"), "{e}");
    let mat = c
        .alloc(
            TileDesc::new(TileLoc::Mat, ElemType::F32, 16, 16)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .at(0),
        )
        .unwrap();
    let e = c
        .tprint(&mat, PrintFormat::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("TPRINT") && e.contains("Vec"), "{e}");
}

#[test]
fn global_tensors_print_in_their_layout() {
    let mut c = core();
    c.gm_reserve(4096).unwrap();
    let a = c.gm_alloc(64).unwrap();
    let vals: [i32; 6] = [1, -2, 3, 4, 5, 6];
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    c.gm_mut().write(a, &bytes).unwrap();
    let nd = GlobalTensor::nd_2d(a, ElemType::I32, 2, 3);
    let want = concat!(
        "=== [TPRINT GlobalTensor] Data Type: int32, Layout: ND ===\n",
        "  Shape: [1, 1, 1, 2, 3]\n",
        "  Batch [0, 0, 0]:\n",
        "       1       -2        3\n",
        "       4        5        6\n",
    );
    assert_eq!(c.tprint_global(&nd, PrintFormat::default()).unwrap(), want);
    // The same bytes as a DN (column-major) 3x2 matrix: element (r, c) at r + 3c.
    let dn = GlobalTensor::dn_2d(a, ElemType::I32, 3, 2);
    let text = c.tprint_global(&dn, PrintFormat::default()).unwrap();
    assert!(
        text.starts_with("=== [TPRINT GlobalTensor] Data Type: int32, Layout: DN ===\n"),
        "{text}"
    );
    assert!(
        text.ends_with("       1        4\n      -2        5\n       3        6\n"),
        "{text}"
    );
    let f16 = GlobalTensor::nd_2d(a, ElemType::Bf16, 2, 8);
    let e = c
        .tprint_global(&f16, PrintFormat::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("TPRINT") && e.contains("bfloat16"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// f32 and f16 tiles drawn with special values (±0, ±inf, NaN, denormals, ±max, ±1:
    /// `common::special`), both archs, the default `%8.4f` format: every cell reads back as
    /// its element, checked without reimplementing printf: a NaN prints `nan` (`-nan` with the
    /// sign bit), an infinity `inf` / `-inf`, any other value a decimal within half a unit of
    /// the fourth decimal of the exact value, with a minus sign exactly when the sign bit is
    /// set (so `-0.0000` for -0 and for negative values that round to zero).
    #[test]
    fn printed_floats_read_back_with_their_specials(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        f16 in any::<bool>(),
        rows in 1usize..4,
        draws in prop::collection::vec((any::<u64>(), 0u8..8), 3 * 16),
    ) {
        let t = if f16 { ElemType::F16 } else { ElemType::F32 };
        let cols = 32 / t.size();
        let mut c = TileCore::by_name(arch).unwrap();
        let tile = c.alloc(TileDesc::vec(t, rows, cols).at(0x100)).unwrap();
        let mut vals = vec![];
        for r in 0..rows {
            for j in 0..cols {
                let (b, s) = draws[r * cols + j];
                let bits = common::special(t, b, s);
                c.set_bits(&tile, r, j, bits).unwrap();
                vals.push(if f16 { half::f16::from_bits(bits as u16).to_f64() } else { f64::from(f32::from_bits(bits as u32)) });
            }
        }
        let text = c.tprint(&tile, PrintFormat::default()).unwrap();
        let lines: Vec<&str> = text.lines().skip(2).collect();
        prop_assert_eq!(lines.len(), rows, "{}", text);
        for (r, line) in lines.iter().enumerate() {
            let cells: Vec<&str> = line.split(' ').filter(|s| !s.is_empty()).collect();
            prop_assert_eq!(cells.len(), cols, "{}", line);
            for (j, cell) in cells.iter().enumerate() {
                let v = vals[r * cols + j];
                let neg = cell.starts_with('-');
                prop_assert_eq!(neg, v.is_sign_negative(), "{} for {:?}", cell, v);
                let body = cell.trim_start_matches('-');
                if v.is_nan() {
                    prop_assert_eq!(body, "nan");
                } else if v.is_infinite() {
                    prop_assert_eq!(body, "inf");
                } else {
                    let p: f64 = cell.parse().unwrap();
                    prop_assert!((p - v).abs() <= 0.5e-4 + v.abs() * 1e-15, "{} for {}", cell, v);
                    prop_assert_eq!(body.split('.').nth(1).map(str::len), Some(4), "{}", cell);
                }
            }
        }
    }
}
