//! THISTOGRAM (pto-isa `docs/isa/THISTOGRAM.md`) against a plain model written here from the
//! page's formula: per row, count the elements whose upper bytes equal the filter bytes, by
//! the value of the selected byte, then accumulate the 256 bins (the cumulative form the CPU
//! simulator and the A5 path write). Plus one test per restriction.

use npusim_pto::*;
use proptest::prelude::*;

fn model(vals: &[u32], byte: u32, filters: &[(u32, u8)]) -> Vec<u32> {
    let mut counts = vec![0u32; 256];
    for &v in vals {
        if filters
            .iter()
            .all(|&(k, f)| ((v >> (8 * k)) & 0xff) as u8 == f)
        {
            counts[((v >> (8 * byte)) & 0xff) as usize] += 1;
        }
    }
    let mut acc = 0;
    counts
        .iter()
        .map(|c| {
            acc += c;
            acc
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn histogram_matches_the_model(
        wide in any::<bool>(),
        byte in 0u8..4,
        rows in 1usize..6,
        blocks in 1usize..3,
        seed in prop::collection::vec(any::<u32>(), 6 * 32),
        filt in prop::collection::vec(0u8..3, 32),
    ) {
        let mut c = TileCore::by_name("a5").unwrap();
        let (t, top) = if wide { (ElemType::U32, 3u8) } else { (ElemType::U16, 1u8) };
        let byte = byte.min(top);
        let cols = blocks * 32 / t.size();
        // Upper bytes drawn from {0, 1, 2} so the filters pass often.
        let vals: Vec<u32> = (0..rows * cols)
            .map(|k| {
                let s = seed[k % seed.len()].rotate_left(k as u32);
                let small = |x: u32| x % 3;
                if wide {
                    (small(s >> 24) << 24) | (small(s >> 16) << 16) | (small(s >> 8) << 8) | (s & 0xff)
                } else {
                    (small(s >> 8) << 8) | (s & 0xff)
                }
            })
            .collect();
        let src = c.alloc(TileDesc::vec(t, rows, cols).at(0)).unwrap();
        for (k, v) in vals.iter().enumerate() {
            c.set_bits(&src, k / cols, k % cols, *v as u64).unwrap();
        }
        let dst = c.alloc(TileDesc::vec(ElemType::U32, rows, 256).at(0x1000)).unwrap();
        let idx = if wide {
            c.alloc(TileDesc::vec(ElemType::U8, 3, 32).at(0x3000)).unwrap()
        } else {
            c.alloc(
                TileDesc::vec(ElemType::U8, 32, 1)
                    .layout(BLayout::ColMajor, SLayout::NoneBox)
                    .valid(rows, 1)
                    .at(0x3000),
            )
            .unwrap()
        };
        for (r, f) in filt.iter().enumerate().take(idx.valid_row()) {
            c.set_bits(&idx, r, 0, *f as u64).unwrap();
        }
        c.exec(&TileOp { op: OpCode::Thistogram, args: Args::Histogram { dst, src, idx, byte } }).unwrap();
        for r in 0..rows {
            let row = &vals[r * cols..(r + 1) * cols];
            let filters: Vec<(u32, u8)> = if wide {
                (0..(3 - byte as usize)).map(|i| (3 - i as u32, filt[i])).collect()
            } else if byte == 0 {
                vec![(1, filt[r])]
            } else {
                vec![]
            };
            let want = model(row, byte as u32, &filters);
            for (b, w) in want.iter().enumerate() {
                prop_assert_eq!(c.get_bits(&dst, r, b).unwrap(), *w as u64, "row {} bin {}", r, b);
            }
        }
    }
}

#[test]
fn histogram_restrictions() {
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    let run = |c: &mut TileCore, dst, src, idx, byte| {
        c.exec(&TileOp {
            op: OpCode::Thistogram,
            args: Args::Histogram {
                dst,
                src,
                idx,
                byte,
            },
        })
        .unwrap_err()
    };
    let mut a3 = TileCore::by_name("a2a3").unwrap();
    let src = a3.alloc(TileDesc::vec(ElemType::U16, 2, 16).at(0)).unwrap();
    let dst = a3
        .alloc(TileDesc::vec(ElemType::U32, 2, 256).at(0x1000))
        .unwrap();
    let idx = a3
        .alloc(TileDesc::vec(ElemType::U8, 2, 32).at(0x3000))
        .unwrap();
    says(run(&mut a3, dst, src, idx, 1), &["THISTOGRAM", "A5 only"]);
    let mut c = TileCore::by_name("a5").unwrap();
    says(
        run(&mut c, dst, src, idx, 2),
        &["THISTOGRAM", "byte", "byte 2 of uint16"],
    );
    let narrow = c
        .alloc(TileDesc::vec(ElemType::U32, 2, 128).at(0x1000))
        .unwrap();
    says(
        run(&mut c, narrow, src, idx, 1),
        &["THISTOGRAM", "dst", "at least 256", "2x128"],
    );
    let f32src = c.alloc(TileDesc::vec(ElemType::F32, 2, 16).at(0)).unwrap();
    says(
        run(&mut c, dst, f32src, idx, 1),
        &["THISTOGRAM", "src", "float"],
    );
    let src32 = c.alloc(TileDesc::vec(ElemType::U32, 2, 16).at(0)).unwrap();
    let one = c
        .alloc(TileDesc::vec(ElemType::U8, 2, 32).valid(1, 32).at(0x3000))
        .unwrap();
    says(
        run(&mut c, dst, src32, one, 0),
        &["THISTOGRAM", "idx", "1x32 for 3x1"],
    );
}
