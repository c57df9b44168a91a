//! `pto.subset` views (PTO IR manual, "pto.subset - Subview Tile View"): a column range of a
//! row-major tile is a strided tile over the parent's bytes. Checked against a plain model
//! written here: every byte of the memory outside the view's elements keeps its value, and the
//! view's elements get the per-element result computed here from the parent's own offsets
//! (`r * cols + c`). Plus the valid-region rule PTOAS infers and one test per restriction.

mod common;

use npusim_pto::*;
use proptest::prelude::*;

const MEM: usize = 16384;

fn core() -> TileCore {
    TileCore::by_name("a2a3").unwrap()
}

/// The element `(r, c)` of a dense row-major parent at `base`, as raw little-endian bits.
fn elem(mem: &[u8], base: usize, cols: usize, size: usize, r: usize, c: usize) -> u64 {
    let a = base + (r * cols + c) * size;
    let mut v = [0u8; 8];
    v[..size].copy_from_slice(&mem[a..a + size]);
    u64::from_le_bytes(v)
}

/// `x + x` on raw bits, per type, written independently of the crate.
fn doubled(t: ElemType, x: u64) -> u64 {
    match t {
        ElemType::F32 => {
            let f = f32::from_bits(x as u32);
            (f + f).to_bits() as u64
        }
        ElemType::I32 => (x as u32 as i32).wrapping_add(x as u32 as i32) as u32 as u64,
        ElemType::I16 => (x as u16 as i16).wrapping_add(x as u16 as i16) as u16 as u64,
        _ => unreachable!(),
    }
}

fn same(t: ElemType, a: u64, b: u64) -> bool {
    a == b
        || (t == ElemType::F32
            && f32::from_bits(a as u32).is_nan()
            && f32::from_bits(b as u32).is_nan())
}

/// A parent tile and a block-aligned view of it.
fn view_case() -> impl Strategy<Value = (ElemType, usize, usize, usize, usize, usize, usize, u64)> {
    (
        prop::sample::select(vec![ElemType::F32, ElemType::I32, ElemType::I16]),
        1usize..7,
        2usize..5,
        any::<u64>(),
    )
        .prop_flat_map(|(t, rows, blocks, seed)| {
            let per = 32 / t.size();
            (
                Just(t),
                Just(rows),
                Just(blocks),
                0..rows,
                0..blocks,
                Just(per),
                Just(seed),
            )
        })
        .prop_flat_map(|(t, rows, blocks, r0, b0, per, seed)| {
            (
                Just(t),
                Just(rows),
                Just(blocks * per),
                Just(r0),
                Just(b0 * per),
                1..=rows - r0,
                (1..=blocks - b0).prop_map(move |k| k * per),
                Just(seed),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// TADD on a view changes exactly the view's elements, each to the model's `x + x`.
    #[test]
    fn elementwise_on_a_view_touches_only_its_elements(
        (t, rows, cols, r0, c0, vr, vc, seed) in view_case()
    ) {
        let mut c = core();
        common::scramble(&mut c, MEM, seed);
        let base = 0x400;
        let parent = c.alloc(TileDesc::vec(t, rows, cols).at(base as u64)).unwrap();
        let view = parent.subset(r0, c0, vr, vc).unwrap();
        prop_assert_eq!((view.valid_row(), view.valid_col()), (vr, vc));
        let before = c.mem(TileLoc::Vec).as_slice()[..MEM].to_vec();
        c.exec(&TileOp {
            op: OpCode::Tadd,
            args: Args::Binary { dst: view, src0: view, src1: view },
        })
        .unwrap();
        let after = c.mem(TileLoc::Vec).as_slice()[..MEM].to_vec();
        let size = t.size();
        let mut inside = vec![false; MEM];
        for r in r0..r0 + vr {
            for k in c0..c0 + vc {
                let want = doubled(t, elem(&before, base, cols, size, r, k));
                let got = elem(&after, base, cols, size, r, k);
                prop_assert!(same(t, got, want), "({}, {}): {:#x} != {:#x}", r, k, got, want);
                let a = base + (r * cols + k) * size;
                inside[a..a + size].iter_mut().for_each(|b| *b = true);
            }
        }
        for (i, (x, y)) in before.iter().zip(&after).enumerate() {
            prop_assert!(inside[i] || x == y, "byte {:#x} outside the view changed", i);
        }
    }

    /// TLOAD into a padded view writes the view's rows only (pad fill included), and TROWSUM
    /// over a view reads the view's rows (small integers, so any summation order is exact).
    #[test]
    fn load_and_row_sum_through_a_view(
        (rows, blocks, r0, b0, vr, vb, seed) in (1usize..6, 2usize..5, any::<u64>()).prop_flat_map(|(rows, blocks, seed)| {
            (Just(rows), Just(blocks), 0..rows, 0..blocks, Just(seed))
        }).prop_flat_map(|(rows, blocks, r0, b0, seed)| {
            (Just(rows), Just(blocks), Just(r0), Just(b0), 1..=rows - r0, 1..=blocks - b0, Just(seed))
        })
    ) {
        let t = ElemType::F32;
        let (cols, c0, vc) = (blocks * 8, b0 * 8, vb * 8);
        let mut c = core();
        common::scramble(&mut c, MEM, seed);
        let base = 0x400;
        let parent = c.alloc(TileDesc::vec(t, rows, cols).pad(PadValue::Max).at(base as u64)).unwrap();
        let mut view = parent.subset(r0, c0, vr, vc).unwrap();
        // Load a (vr) x (vc - 1) block: the last column is padded.
        let gvals: Vec<f32> = (0..vr * (vc - 1)).map(|i| (i % 13) as f32 - 6.0).collect();
        let gm_bytes: Vec<u8> = gvals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let gm = c.gm_bind(&gm_bytes);
        let g = GlobalTensor::nd_2d_strided(gm, t, vr, vc - 1, vc - 1);
        view.set_valid(vr, vc - 1).unwrap();
        let before = c.mem(TileLoc::Vec).as_slice()[..MEM].to_vec();
        c.tload(&view, &g).unwrap();
        let after = c.mem(TileLoc::Vec).as_slice()[..MEM].to_vec();
        let mut inside = vec![false; MEM];
        for r in 0..vr {
            for k in 0..vc {
                let want = if k < vc - 1 { gvals[r * (vc - 1) + k].to_bits() as u64 } else { 0x7f80_0000 };
                let got = elem(&after, base, cols, 4, r0 + r, c0 + k);
                prop_assert_eq!(got, want, "({}, {})", r, k);
                let a = base + ((r0 + r) * cols + c0 + k) * 4;
                inside[a..a + 4].iter_mut().for_each(|b| *b = true);
            }
        }
        for (i, (x, y)) in before.iter().zip(&after).enumerate() {
            prop_assert!(inside[i] || x == y, "byte {:#x} outside the view changed", i);
        }
        // Row sums of the loaded region into a one-column tile.
        let dst = c.alloc(TileDesc::vec(t, vr, 8).valid(vr, 1).at(0x3000)).unwrap();
        c.trowsum(&dst, &view).unwrap();
        for r in 0..vr {
            let want: f32 = gvals[r * (vc - 1)..(r + 1) * (vc - 1)].iter().sum();
            prop_assert_eq!(c.get_bits(&dst, r, 0).unwrap(), want.to_bits() as u64, "row {}", r);
        }
    }
}

/// PTOAS's subset type inference treats the parent's valid extent as a period: a 32x64
/// workspace with valid 32x32 gives a full 32x32 view at column 32 (its own example), half a
/// view at column 16, and nothing from a parent with no valid columns.
#[test]
fn valid_extent_is_periodic_in_the_parent_valid_extent() {
    let c = core();
    let ws = c
        .alloc(TileDesc::vec(ElemType::F32, 32, 64).valid(32, 32))
        .unwrap();
    let v = |t: &Tile| (t.valid_row(), t.valid_col());
    assert_eq!(v(&ws.subset(0, 32, 32, 32).unwrap()), (32, 32));
    assert_eq!(v(&ws.subset(0, 0, 32, 32).unwrap()), (32, 32));
    assert_eq!(v(&ws.subset(0, 16, 32, 32).unwrap()), (32, 16));
    assert_eq!(v(&ws.subset(8, 40, 16, 16).unwrap()), (16, 16));
    let narrow = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 16).valid(3, 5))
        .unwrap();
    assert_eq!(v(&narrow.subset(2, 8, 2, 8).unwrap()), (1, 2));
    let empty = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 16).valid(4, 0))
        .unwrap();
    assert_eq!(v(&empty.subset(0, 8, 4, 8).unwrap()), (4, 0));
    // The view's bytes are the parent's: (r, c) of the view is (r0 + r, c0 + c) of the parent.
    let s = ws.subset(3, 40, 8, 16).unwrap();
    assert_eq!(s.byte_addr(2, 5), ws.byte_addr(5, 45));
    assert_eq!(s.pitch(), 64);
    assert!(!s.is_dense());
    assert_eq!(s.size_bytes(), ((8 - 1) * 64 + 16) * 4);
}

/// A boxed view is whole boxes and stays dense: Zz keeps every column, Nz every row.
#[test]
fn boxed_views_are_whole_boxes() {
    let c = core();
    let zz = c
        .alloc(TileDesc::vec(ElemType::F16, 32, 32).layout(BLayout::RowMajor, SLayout::RowMajor))
        .unwrap();
    let top = zz.subset(16, 0, 16, 32).unwrap();
    assert!(top.is_dense());
    assert_eq!(top.byte_addr(0, 0), zz.byte_addr(16, 0));
    assert_eq!(top.byte_addr(3, 20), zz.byte_addr(19, 20));
    let nz = c
        .alloc(
            TileDesc::new(TileLoc::Mat, ElemType::F16, 32, 32)
                .layout(BLayout::ColMajor, SLayout::RowMajor),
        )
        .unwrap();
    let right = nz.subset(0, 16, 32, 16).unwrap();
    assert_eq!(right.byte_addr(17, 3), nz.byte_addr(17, 19));
}

#[test]
fn subset_restrictions() {
    let c = core();
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    let nd = c.alloc(TileDesc::vec(ElemType::F32, 8, 16)).unwrap();
    says(
        nd.subset(0, 0, 0, 8).unwrap_err(),
        &["pto.subset", "sizes", "positive", "[0, 8]"],
    );
    says(
        nd.subset(4, 8, 8, 8).unwrap_err(),
        &[
            "pto.subset",
            "offsets",
            "inside the source tile",
            "[4, 8] + [8, 8]",
        ],
    );
    says(
        nd.subset(usize::MAX, 0, 1, 8).unwrap_err(),
        &["inside the source tile"],
    );
    let zz = c
        .alloc(TileDesc::vec(ElemType::F16, 32, 32).layout(BLayout::RowMajor, SLayout::RowMajor))
        .unwrap();
    // PTOAS's own invalid sample: a 16x16 view of a Zz tile.
    says(
        zz.subset(0, 16, 16, 16).unwrap_err(),
        &["pto.subset", "full extent", "columns"],
    );
    says(
        zz.subset(8, 0, 16, 32).unwrap_err(),
        &["pto.subset", "multiples of its box", "16x16 boxes"],
    );
    // A line stride shorter than the line, and a stride on a boxed tile.
    let e = Tile::validate(
        TileDesc {
            stride: Some(8),
            ..TileDesc::vec(ElemType::F32, 4, 16)
        },
        "TASSIGN",
        "dst",
    )
    .unwrap_err();
    says(e, &["TASSIGN", "dst", "line stride", "stride 8 for 16"]);
    let e = Tile::validate(
        TileDesc {
            stride: Some(64),
            ..TileDesc::vec(ElemType::F16, 16, 16).layout(BLayout::RowMajor, SLayout::RowMajor)
        },
        "TASSIGN",
        "dst",
    )
    .unwrap_err();
    says(e, &["boxed tile has no line stride"]);
    // A view's columns need not be a 32-byte multiple; its stride must.
    assert!(nd.subset(0, 0, 8, 4).is_ok());
}

/// TSUBVIEW, the page's example: a 4x64 f32 tile split into four 2x32 subtiles (declared 4x64,
/// valid 2x32) at (0, 0), (0, 32), (2, 0), (2, 32); each reads `src(row + i, col + j)`, and an
/// op on one writes only its quadrant of src.
#[test]
fn subview_splits_a_tile_into_quadrants() {
    let mut c = core();
    let src = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 64).at(0x800))
        .unwrap();
    for r in 0..4 {
        for k in 0..64 {
            c.set_bits(&src, r, k, ((r * 64 + k) as f32).to_bits() as u64)
                .unwrap();
        }
    }
    let dst = TileDesc::vec(ElemType::F32, 4, 64).valid(2, 32);
    for (r0, c0) in [(0, 0), (0, 32), (2, 0), (2, 32)] {
        let v = src.subview(dst, r0, c0).unwrap();
        for i in 0..2 {
            for j in 0..32 {
                assert_eq!(
                    c.get_bits(&v, i, j).unwrap(),
                    c.get_bits(&src, r0 + i, c0 + j).unwrap()
                );
            }
        }
    }
    let q = src.subview(dst, 2, 32).unwrap();
    c.exec(&TileOp {
        op: OpCode::Tadds,
        args: Args::TileScalar {
            dst: q,
            src: q,
            scalar: Scalar::Float(1000.0),
        },
    })
    .unwrap();
    for r in 0..4 {
        for k in 0..64 {
            let base = (r * 64 + k) as f32;
            let want = if r >= 2 && k >= 32 {
                base + 1000.0
            } else {
                base
            };
            assert_eq!(
                c.get_bits(&src, r, k).unwrap(),
                want.to_bits() as u64,
                "({r}, {k})"
            );
        }
    }
    // A narrower declared dst keeps src's line stride.
    let narrow = src
        .subview(TileDesc::vec(ElemType::F32, 2, 8), 1, 16)
        .unwrap();
    assert_eq!(narrow.byte_addr(1, 3), src.byte_addr(2, 19));
}

#[test]
fn subview_restrictions() {
    let c = core();
    let src = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 64).valid(4, 48))
        .unwrap();
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    let dst = TileDesc::vec(ElemType::F32, 4, 64).valid(2, 32);
    says(
        src.subview(dst, 2, 32).unwrap_err(),
        &[
            "TSUBVIEW",
            "dst",
            "src's valid region",
            "valid 2x32 at (2, 32) in valid 4x48",
        ],
    );
    says(
        src.subview(TileDesc::vec(ElemType::F16, 4, 64).valid(2, 32), 0, 0)
            .unwrap_err(),
        &["TSUBVIEW", "location and element type"],
    );
    says(
        src.subview(
            TileDesc::new(TileLoc::Mat, ElemType::F32, 4, 64).valid(2, 32),
            0,
            0,
        )
        .unwrap_err(),
        &["TSUBVIEW", "location"],
    );
    says(
        src.subview(dst.layout(BLayout::ColMajor, SLayout::NoneBox), 0, 0)
            .unwrap_err(),
        &["TSUBVIEW", "layout"],
    );
}
