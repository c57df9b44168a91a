//! MGATHER / MSCATTER (pto-isa `docs/isa/MGATHER.md`, `docs/isa/MSCATTER.md`; PTOAS manual
//! `pto.mgather`, `pto.mscatter`) against a plain model written here from the pages' math:
//! row mode `dst[r, :] = table[idx[r], :]`, element mode `dst[r, c] = flat(table)[idx[r, c]]`,
//! the out-of-range modes (clamp, wrap, zero / skip), and for the scatter the row-major "last
//! writer wins" order and the atomic combines. Plus one test per restriction.

mod common;

use npusim_pto::*;
use proptest::prelude::*;

/// The GM address of a table written with `vals` (i32 bits), `rows x width` dense.
fn put_table(c: &mut TileCore, vals: &[i32]) -> u64 {
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    c.gm_reserve(1 << 16).unwrap();
    let a = c.gm_alloc(bytes.len() as u64).unwrap();
    c.gm_mut().write(a, &bytes).unwrap();
    a
}

fn table_now(c: &TileCore, a: u64, n: usize) -> Vec<i32> {
    c.gm()
        .bytes(a, (n * 4) as u64)
        .unwrap()
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn put_tile(c: &mut TileCore, t: &Tile, vals: &[i32], cols: usize) {
    for (k, v) in vals.iter().enumerate() {
        c.set_bits(t, k / cols, k % cols, *v as u32 as u64).unwrap();
    }
}

fn oob_modes() -> impl Strategy<Value = IndexOob> {
    prop::sample::select(vec![
        IndexOob::Undefined,
        IndexOob::Clamp,
        IndexOob::Wrap,
        IndexOob::Zero,
    ])
}

/// The model's slot for index `i` of a table with `cap` slots: `Err(())` when the default
/// mode must report it, `Ok(None)` for zero / skip.
fn model_slot(i: u32, cap: u64, oob: IndexOob) -> Result<Option<u64>, ()> {
    let i = i as u64;
    if i < cap {
        return Ok(Some(i));
    }
    match oob {
        IndexOob::Clamp => Ok(Some(cap - 1)),
        IndexOob::Wrap => Ok(Some(i % cap)),
        IndexOob::Zero | IndexOob::Skip => Ok(None),
        IndexOob::Undefined => Err(()),
    }
}

fn case() -> impl Strategy<Value = (usize, usize, usize, bool, Vec<i32>, Vec<u32>, Vec<i32>)> {
    (1usize..6, 1usize..9, 1usize..12, any::<bool>()).prop_flat_map(|(rows, cols, trows, row)| {
        let row = row && cols > 1;
        let width = cols + 2; // table rows wider than the tile
        let cap = if row { trows } else { trows * width } as u32;
        let nidx = if row { rows } else { rows * cols };
        (
            Just(rows),
            Just(cols),
            Just(trows),
            Just(row),
            prop::collection::vec(any::<i32>(), trows * width),
            prop::collection::vec(0..cap + cap / 3 + 2, nidx),
            prop::collection::vec(any::<i32>(), rows * cols),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn mgather_matches_the_model(
        (rows, cols, trows, row, table, idx, _src) in case(),
        oob in oob_modes(),
        a5 in any::<bool>(),
    ) {
        let oob = if a5 { oob } else { IndexOob::Undefined };
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        let width = cols + 2;
        let ta = put_table(&mut c, &table);
        let g = GlobalTensor::nd_2d(ta, ElemType::I32, trows, width);
        let dst = c.alloc(TileDesc::vec(ElemType::I32, rows, 8).valid(rows, cols).at(0)).unwrap();
        let icols = if row { 1 } else { cols };
        let it = c.alloc(TileDesc::vec(ElemType::I32, rows, 8).valid(rows, icols).at(0x400)).unwrap();
        put_tile(&mut c, &it, &idx.iter().map(|v| *v as i32).collect::<Vec<_>>(), icols);
        let cap = if row { trows as u64 } else { (trows * width) as u64 };
        let mut want = vec![0i32; rows * cols];
        let mut fails = false;
        for r in 0..rows {
            for col in 0..cols {
                let i = if row { idx[r] } else { idx[r * cols + col] };
                match model_slot(i, cap, oob) {
                    Err(()) => fails = true,
                    Ok(None) => want[r * cols + col] = 0,
                    Ok(Some(s)) => {
                        let flat = if row { s as usize * width + col } else { s as usize };
                        want[r * cols + col] = table[flat];
                    }
                }
            }
        }
        let res = c.mgather(&dst, &g, &it, oob);
        if fails {
            let e = res.unwrap_err().to_string();
            prop_assert!(e.contains("MGATHER") && e.contains("idx"), "{}", e);
        } else {
            res.unwrap();
            for r in 0..rows {
                for col in 0..cols {
                    prop_assert_eq!(c.get_bits(&dst, r, col).unwrap() as u32 as i32, want[r * cols + col]);
                }
            }
        }
    }

    #[test]
    fn mscatter_matches_the_model(
        (rows, cols, trows, row, table, idx, src) in case(),
        oob in prop::sample::select(vec![IndexOob::Undefined, IndexOob::Clamp, IndexOob::Wrap, IndexOob::Skip]),
        atomic in prop::sample::select(vec![ScatterAtomic::None, ScatterAtomic::Add, ScatterAtomic::Max, ScatterAtomic::Min]),
    ) {
        let mut c = TileCore::by_name("a5").unwrap();
        let width = cols + 2;
        let ta = put_table(&mut c, &table);
        let g = GlobalTensor::nd_2d(ta, ElemType::I32, trows, width);
        let st = c.alloc(TileDesc::vec(ElemType::I32, rows, 8).valid(rows, cols).at(0)).unwrap();
        put_tile(&mut c, &st, &src, cols);
        let icols = if row { 1 } else { cols };
        let it = c.alloc(TileDesc::vec(ElemType::I32, rows, 8).valid(rows, icols).at(0x400)).unwrap();
        put_tile(&mut c, &it, &idx.iter().map(|v| *v as i32).collect::<Vec<_>>(), icols);
        let cap = if row { trows as u64 } else { (trows * width) as u64 };
        let mut want = table.clone();
        let mut fails = false;
        for r in 0..rows {
            for col in 0..cols {
                let i = if row { idx[r] } else { idx[r * cols + col] };
                match model_slot(i, cap, oob) {
                    Err(()) => fails = true,
                    Ok(None) => {}
                    Ok(Some(s)) => {
                        let flat = if row { s as usize * width + col } else { s as usize };
                        let v = src[r * cols + col];
                        want[flat] = match atomic {
                            ScatterAtomic::None => v,
                            ScatterAtomic::Add => want[flat].wrapping_add(v),
                            ScatterAtomic::Max => want[flat].max(v),
                            ScatterAtomic::Min => want[flat].min(v),
                        };
                    }
                }
            }
        }
        let res = c.mscatter(&g, &st, &it, atomic, oob);
        if fails {
            prop_assert!(res.is_err());
            // Nothing was written.
            prop_assert_eq!(table_now(&c, ta, table.len()), table);
        } else {
            res.unwrap();
            prop_assert_eq!(table_now(&c, ta, table.len()), want);
        }
    }
}

#[test]
fn f16_atomic_add_rounds_once_per_addition() {
    let mut c = TileCore::by_name("a5").unwrap();
    // table[0] = 1.0; three adds of 2^-11 (half an ulp of 1.0 each) round to even every time.
    let one = half::f16::from_f32(1.0).to_bits();
    let tiny = half::f16::from_f32(2f32.powi(-11)).to_bits();
    c.gm_reserve(4096).unwrap();
    let ta = c.gm_alloc(32).unwrap();
    c.gm_mut().write(ta, &one.to_le_bytes()).unwrap();
    let g = GlobalTensor::nd_2d(ta, ElemType::F16, 1, 16);
    let st = c
        .alloc(TileDesc::vec(ElemType::F16, 1, 16).valid(1, 3).at(0))
        .unwrap();
    for k in 0..3 {
        c.set_bits(&st, 0, k, tiny as u64).unwrap();
    }
    let it = c
        .alloc(TileDesc::vec(ElemType::I32, 1, 8).valid(1, 3).at(0x400))
        .unwrap();
    c.mscatter(&g, &st, &it, ScatterAtomic::Add, IndexOob::Undefined)
        .unwrap();
    let b = c.gm().bytes(ta, 2).unwrap();
    assert_eq!(
        u16::from_le_bytes([b[0], b[1]]),
        one,
        "1 + 2^-11 ties to even (1.0) each time"
    );
}

#[test]
fn restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    c.gm_reserve(1 << 14).unwrap();
    let ta = c.gm_alloc(4096).unwrap();
    let g = GlobalTensor::nd_2d(ta, ElemType::F32, 4, 16);
    let dst = c.alloc(TileDesc::vec(ElemType::F32, 4, 16).at(0)).unwrap();
    let idx = c
        .alloc(TileDesc::vec(ElemType::I32, 4, 8).valid(4, 1).at(0x800))
        .unwrap();
    let err = |r: Result<(), PtoError>| r.unwrap_err().to_string();
    // OOB modes are A5 only.
    let e = err(c.mgather(&dst, &g, &idx, IndexOob::Clamp));
    assert!(e.contains("A5 only"), "{e}");
    let e = err(c.mscatter(&g, &dst, &idx, ScatterAtomic::Add, IndexOob::Undefined));
    assert!(e.contains("A5 only"), "{e}");
    // Index type.
    let fidx = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 8).valid(4, 1).at(0x800))
        .unwrap();
    let e = err(c.mgather(&dst, &g, &fidx, IndexOob::Undefined));
    assert!(e.contains("idx") && e.contains("float"), "{e}");
    // Index rows and columns.
    let short = c
        .alloc(TileDesc::vec(ElemType::I32, 3, 8).valid(3, 1).at(0x800))
        .unwrap();
    let e = err(c.mgather(&dst, &g, &short, IndexOob::Undefined));
    assert!(e.contains("index rows"), "{e}");
    let mid = c
        .alloc(TileDesc::vec(ElemType::I32, 4, 8).valid(4, 3).at(0x800))
        .unwrap();
    let e = err(c.mgather(&dst, &g, &mid, IndexOob::Undefined));
    assert!(e.contains("index columns"), "{e}");
    // Table type and layout.
    let gi = GlobalTensor::nd_2d(ta, ElemType::I32, 4, 16);
    let e = err(c.mgather(&dst, &gi, &idx, IndexOob::Undefined));
    assert!(e.contains("table"), "{e}");
    let gdn = GlobalTensor::dn_2d(ta, ElemType::F32, 4, 16);
    let e = err(c.mgather(&dst, &gdn, &idx, IndexOob::Undefined));
    assert!(e.contains("ND"), "{e}");
    // Index past the table in the default mode: typed error, nothing written.
    c.set_bits(&idx, 2, 0, 4).unwrap();
    let e = err(c.mgather(&dst, &g, &idx, IndexOob::Undefined));
    assert!(
        e.contains("MGATHER") && e.contains("(2, 0)") && e.contains('4'),
        "{e}"
    );
    // Mode names that belong to the other instruction.
    let a5 = TileCore::by_name("a5").unwrap();
    let mut a5 = a5;
    a5.gm_reserve(1 << 14).unwrap();
    let ta = a5.gm_alloc(4096).unwrap();
    let g = GlobalTensor::nd_2d(ta, ElemType::F32, 4, 16);
    let dst = a5.alloc(TileDesc::vec(ElemType::F32, 4, 16).at(0)).unwrap();
    let idx = a5
        .alloc(TileDesc::vec(ElemType::I32, 4, 8).valid(4, 1).at(0x800))
        .unwrap();
    assert!(err(a5.mgather(&dst, &g, &idx, IndexOob::Skip)).contains("gatherOob"));
    assert!(
        err(a5.mscatter(&g, &dst, &idx, ScatterAtomic::None, IndexOob::Zero))
            .contains("scatterOob")
    );
    let bf = a5
        .alloc(TileDesc::vec(ElemType::Bf16, 4, 16).at(0x1000))
        .unwrap();
    let gbf = GlobalTensor::nd_2d(ta, ElemType::Bf16, 4, 16);
    let e = err(a5.mscatter(&gbf, &bf, &idx, ScatterAtomic::Max, IndexOob::Undefined));
    assert!(e.contains("MSCATTER") && e.contains("bfloat16"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The float atomic forms (A5) on tables and data drawn with special values (±0, ±inf, NaN,
    /// denormals, ±max, ±1: `common::special`), several elements hitting one slot, against the
    /// module's rules written here: `add` is the sum computed exactly (in f64) and rounded once
    /// to the element type, `max`/`min` replace the table value only when the new value
    /// compares greater / smaller (so a NaN on either side keeps the table value). A NaN result
    /// is compared as NaN (its payload is not specified by the pages).
    #[test]
    fn mscatter_float_atomics_with_specials(
        f16 in any::<bool>(),
        atomic in prop::sample::select(vec![ScatterAtomic::Add, ScatterAtomic::Max, ScatterAtomic::Min]),
        table in prop::collection::vec((any::<u64>(), 0u8..8), 8),
        src in prop::collection::vec((any::<u64>(), 0u8..8), 16),
        idx in prop::collection::vec(0u32..8, 16),
    ) {
        // max/min are f32-only (the manual); add covers f16 and f32.
        let atomic = if f16 { ScatterAtomic::Add } else { atomic };
        let t = if f16 { ElemType::F16 } else { ElemType::F32 };
        let size = t.size();
        let tb: Vec<u64> = table.iter().map(|(b, s)| common::special(t, *b, *s)).collect();
        let sb: Vec<u64> = src.iter().map(|(b, s)| common::special(t, *b, *s)).collect();
        let mut c = TileCore::by_name("a5").unwrap();
        let bytes: Vec<u8> = tb.iter().flat_map(|v| v.to_le_bytes()[..size].to_vec()).collect();
        c.gm_reserve(1 << 16).unwrap();
        let ta = c.gm_alloc(bytes.len() as u64).unwrap();
        c.gm_mut().write(ta, &bytes).unwrap();
        let g = GlobalTensor::nd_2d(ta, t, 1, 8);
        let st = c.alloc(TileDesc::vec(t, 2, 32 / size).valid(2, 8).at(0)).unwrap();
        let it = c.alloc(TileDesc::vec(ElemType::I32, 2, 8).at(0x400)).unwrap();
        for k in 0..16 {
            c.set_bits(&st, k / 8, k % 8, sb[k]).unwrap();
            c.set_bits(&it, k / 8, k % 8, u64::from(idx[k])).unwrap();
        }
        let val = |b: u64| if f16 { half::f16::from_bits(b as u16).to_f64() } else { f64::from(f32::from_bits(b as u32)) };
        let bits = |v: f64| if f16 { u64::from(half::f16::from_f64(v).to_bits()) } else { u64::from((v as f32).to_bits()) };
        let mut want = tb.clone();
        for k in 0..16 {
            let s = idx[k] as usize;
            let (a, b) = (val(want[s]), val(sb[k]));
            want[s] = match atomic {
                ScatterAtomic::Add => bits(a + b),
                ScatterAtomic::Max => if b > a { sb[k] } else { want[s] },
                _ => if b < a { sb[k] } else { want[s] },
            };
        }
        c.mscatter(&g, &st, &it, atomic, IndexOob::Undefined).unwrap();
        let now = c.gm().bytes(ta, (8 * size) as u64).unwrap().to_vec();
        for (s, w) in want.iter().enumerate() {
            let mut v = [0u8; 8];
            v[..size].copy_from_slice(&now[s * size..(s + 1) * size]);
            let got = u64::from_le_bytes(v);
            if val(*w).is_nan() {
                prop_assert!(val(got).is_nan(), "slot {}: {:#x}, want NaN", s, got);
            } else {
                prop_assert_eq!(got, *w, "slot {}", s);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// MGATHER of every element type on both archs, the table drawn with special values (±0,
    /// ±inf, NaN, denormals, ±max, ±1 for the floats; extremes for the integers:
    /// `common::special`), element mode: each element is the table's bits at its index,
    /// unchanged (the page's `dst[r, c] = flat(table)[idx[r, c]]`).
    #[test]
    fn mgather_moves_special_values_bit_exact(
        a5 in any::<bool>(),
        t in prop::sample::select(vec![ElemType::I8, ElemType::I16, ElemType::I32, ElemType::F16, ElemType::Bf16, ElemType::F32]),
        table in prop::collection::vec((any::<u64>(), 0u8..8), 16),
        idx in prop::collection::vec(0u32..16, 16),
    ) {
        let size = t.size();
        let tb: Vec<u64> = table.iter().map(|(b, s)| common::special(t, *b, *s)).collect();
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        let bytes: Vec<u8> = tb.iter().flat_map(|v| v.to_le_bytes()[..size].to_vec()).collect();
        c.gm_reserve(1 << 16).unwrap();
        let ta = c.gm_alloc(bytes.len() as u64).unwrap();
        c.gm_mut().write(ta, &bytes).unwrap();
        let g = GlobalTensor::nd_2d(ta, t, 1, 16);
        let dst = c.alloc(TileDesc::vec(t, 2, 32 / size).valid(2, 8).at(0)).unwrap();
        let it = c.alloc(TileDesc::vec(ElemType::I32, 2, 8).at(0x400)).unwrap();
        for (k, i) in idx.iter().enumerate() {
            c.set_bits(&it, k / 8, k % 8, u64::from(*i)).unwrap();
        }
        c.mgather(&dst, &g, &it, IndexOob::Undefined).unwrap();
        for (k, i) in idx.iter().enumerate() {
            prop_assert_eq!(c.get_bits(&dst, k / 8, k % 8).unwrap(), tb[*i as usize], "element {}", k);
        }
    }
}
