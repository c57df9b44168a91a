//! TSORT32 and TMRGSORT (pto-isa `docs/isa/TSORT32.md`, `docs/isa/TMRGSORT.md`) against plain
//! models written here, on both archs, with NaN, ±0, ±inf and ties; against numpy's stable
//! sort on NaN-free inputs (`tests/data/sort_numpy.txt`, written by numpy 2.4.6 with
//! `np.argsort(-x, kind="stable")`); and one test per restriction.

use npusim_pto::ops::sort::MergeLists;
use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{F16, F32, I32, U32};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

/// One value per draw: NaN, ±0, ±inf, small integers (ties) or a wide number.
fn value() -> impl Strategy<Value = f32> {
    prop_oneof![
        1 => Just(f32::NAN),
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        4 => (-3i32..4).prop_map(|v| v as f32),
        4 => -1.0e4f32..1.0e4f32,
    ]
}

/// The value as the tile type's bits and back (half rounds it).
fn in_type(v: f32, t: ElemType) -> (u64, f32) {
    match t {
        F16 => {
            let h = half::f16::from_f32(v);
            (h.to_bits() as u64, h.to_f32())
        }
        _ => (v.to_bits() as u64, v),
    }
}

/// The model's order: a NaN before any number, larger before smaller, +0 == -0, then the
/// smaller index.
fn before(a: (f32, u32), b: (f32, u32)) -> bool {
    match (a.0.is_nan(), b.0.is_nan()) {
        (true, false) => true,
        (false, true) => false,
        (true, true) => a.1 < b.1,
        _ if a.0 != b.0 => a.0 > b.0,
        _ => a.1 < b.1,
    }
}

/// Stable insertion sort by [`before`].
fn model_sort(v: &mut [(f32, u32, u64)]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && before((v[j].0, v[j].1), (v[j - 1].0, v[j - 1].1)) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// "Is a's value strictly above b's" for the merge (NaN above numbers, ±0 equal).
fn above(a: f32, b: f32) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (true, false) => true,
        (_, true) => false,
        _ => a > b,
    }
}

/// The plain merge: the largest head, the lowest list on a tie.
fn model_merge(
    lists: &[Vec<(f32, u64)>],
    out_len: usize,
    exhausted: bool,
) -> (Vec<u64>, Vec<usize>) {
    let mut pos = vec![0; lists.len()];
    let mut out = vec![];
    while out.len() < out_len {
        let mut best: Option<usize> = None;
        for k in 0..lists.len() {
            if pos[k] < lists[k].len() {
                match best {
                    None => best = Some(k),
                    Some(b) if above(lists[k][pos[k]].0, lists[b][pos[b]].0) => best = Some(k),
                    _ => {}
                }
            }
        }
        let Some(k) = best else { break };
        out.push(lists[k][pos[k]].1);
        pos[k] += 1;
        if exhausted && pos[k] == lists[k].len() {
            break;
        }
    }
    (out, pos)
}

/// The 8-byte record of (value bits, index) in a tile of `t`.
fn record(vbits: u64, index: u32) -> u64 {
    vbits | ((index as u64) << 32)
}

/// A row of records as the tile's elements.
fn record_elems(recs: &[u64], t: ElemType) -> Vec<u64> {
    let k = 8 / t.size();
    let mask = if t.size() == 4 { 0xffff_ffff } else { 0xffff };
    recs.iter()
        .flat_map(|r| (0..k).map(move |i| (r >> (i * t.size() * 8)) & mask))
        .collect()
}

fn row_bits(c: &TileCore, t: &Tile, r: usize) -> Vec<u64> {
    (0..t.cols())
        .map(|k| c.get_bits(t, r, k).unwrap())
        .collect()
}

fn put_row(c: &mut TileCore, t: &Tile, r: usize, bits: &[u64]) {
    for (k, b) in bits.iter().enumerate() {
        c.set_bits(t, r, k, *b).unwrap();
    }
}

/// A sorted list of records from values (index = `base` + position).
fn sorted_list(vals: &[f32], t: ElemType, base: u32) -> Vec<(f32, u64)> {
    let mut v: Vec<(f32, u32, u64)> = vals
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let (b, f) = in_type(*x, t);
            (f, base + i as u32, record(b, base + i as u32))
        })
        .collect();
    model_sort(&mut v);
    v.into_iter().map(|(f, _, r)| (f, r)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn tsort32_sorts_each_block(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16]),
        rows in 1usize..4,
        blocks in 1usize..4,
        tail in 0usize..32,
        broadcast in any::<bool>(),
        vals in prop::collection::vec(value(), 4 * 4 * 32),
        ids in prop::collection::vec(0u32..40, 4 * 4 * 32),
    ) {
        let mut c = core(arch);
        let k = 8 / t.size();
        let cols = blocks * 32;
        // a tail needs the tmp form; its valid columns stop inside the last block
        let vc = if tail > 0 { cols - tail } else { cols };
        let src = c.alloc(TileDesc::vec(t, rows, cols).valid(rows, vc).at(0)).unwrap();
        let irows = if broadcast { 1 } else { rows };
        let idx = c.alloc(TileDesc::vec(U32, irows, cols).valid(irows, vc).at(0x4000)).unwrap();
        let dst = c.alloc(TileDesc::vec(t, rows, cols * k).at(0x8000)).unwrap();
        let tmp = c.alloc(TileDesc::vec(t, 1, cols).at(0x10000)).unwrap();
        let mut typed = vec![vec![]; rows];
        for r in 0..rows {
            for j in 0..cols {
                let (b, f) = in_type(vals[r * cols + j], t);
                c.set_bits(&src, r, j, b).unwrap();
                typed[r].push((f, b));
            }
        }
        for r in 0..irows {
            for j in 0..cols {
                c.set_bits(&idx, r, j, ids[r * cols + j] as u64).unwrap();
            }
        }
        let fill: Vec<u64> = (0..cols * k).map(|j| 0x1234 + j as u64).collect();
        for r in 0..rows {
            put_row(&mut c, &dst, r, &fill);
        }
        c.tsort32(&dst, &src, &idx, (tail > 0).then_some(&tmp)).unwrap();
        for r in 0..rows {
            let mut want = vec![];
            for b0 in (0..vc).step_by(32) {
                let mut block: Vec<(f32, u32, u64)> = (b0..(b0 + 32).min(vc))
                    .map(|j| {
                        let id = ids[(if broadcast { 0 } else { r }) * cols + j];
                        (typed[r][j].0, id, record(typed[r][j].1, id))
                    })
                    .collect();
                model_sort(&mut block);
                want.extend(block.into_iter().map(|x| x.2));
            }
            let mut expect = record_elems(&want, t);
            expect.extend_from_slice(&fill[vc * k..]);
            prop_assert_eq!(row_bits(&c, &dst, r), expect, "row {}", r);
        }
    }

    #[test]
    fn tmrgsort_single_list_merges_four_blocks(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16]),
        bl in prop::sample::select(vec![64usize, 128]),
        repeat in 1usize..3,
        vals in prop::collection::vec(value(), 2 * 4 * 128),
    ) {
        let mut c = core(arch);
        let k = 8 / t.size();
        let per = bl / k;
        let cols = repeat * 4 * bl;
        let src = c.alloc(TileDesc::vec(t, 1, cols).at(0)).unwrap();
        let dst = c.alloc(TileDesc::vec(t, 1, cols).at(0x8000)).unwrap();
        let mut input = vec![];
        let mut want = vec![];
        for g in 0..repeat {
            let mut lists = vec![];
            for b in 0..4 {
                let base = ((g * 4 + b) * per) as u32;
                let l = sorted_list(&vals[base as usize..base as usize + per], t, base);
                input.extend(l.iter().map(|x| x.1));
                lists.push(l);
            }
            want.extend(model_merge(&lists, 4 * per, false).0);
        }
        put_row(&mut c, &src, 0, &record_elems(&input, t));
        c.tmrgsort(&dst, &src, Scalar::Int(bl as i64)).unwrap();
        prop_assert_eq!(row_bits(&c, &dst, 0), record_elems(&want, t));
    }

    #[test]
    fn tmrgsort_lists_merge_with_and_without_exhausted(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16]),
        lens in prop::collection::vec(0usize..24, 2..=4),
        out_frac in 0.0f64..=1.0,
        exhausted in any::<bool>(),
        vals in prop::collection::vec(value(), 4 * 24),
    ) {
        let mut c = core(arch);
        let k = 8 / t.size();
        let mut lists = vec![];
        let mut srcs = vec![];
        for (i, &n) in lens.iter().enumerate() {
            let l = sorted_list(&vals[i * 24..i * 24 + n], t, (i * 100) as u32);
            // tile: 24 records of columns, n of them valid
            let s = c
                .alloc(TileDesc::vec(t, 1, 24 * k).valid(1, n * k).at(0x1000 * i as u64))
                .unwrap();
            let mut elems = record_elems(&l.iter().map(|x| x.1).collect::<Vec<_>>(), t);
            elems.resize(24 * k, 0x5a);
            put_row(&mut c, &s, 0, &elems);
            srcs.push(s);
            lists.push(l);
        }
        let total: usize = lens.iter().sum();
        let out_len = (total as f64 * out_frac) as usize;
        let cols = 4 * 24 * k;
        let dst = c.alloc(TileDesc::vec(t, 1, cols).valid(1, out_len * k).at(0x8000)).unwrap();
        let tmp = c.alloc(TileDesc::vec(t, 1, cols).at(0xc000)).unwrap();
        let fill: Vec<u64> = (0..cols).map(|j| 0x77 + j as u64).collect();
        put_row(&mut c, &dst, 0, &fill);
        let got = c.tmrgsort_lists(&dst, &tmp, MergeLists { srcs: &srcs, exhausted }).unwrap();
        let (want, taken) = model_merge(&lists, out_len, exhausted);
        let mut expect = record_elems(&want, t);
        expect.extend_from_slice(&fill[want.len() * k..]);
        prop_assert_eq!(row_bits(&c, &dst, 0), expect);
        prop_assert_eq!(&row_bits(&c, &tmp, 0)[..want.len() * k], &record_elems(&want, t)[..]);
        for (i, n) in taken.iter().enumerate() {
            prop_assert_eq!(got[i] as usize, *n);
        }
    }
}

fn numpy_fixture() -> (Vec<f32>, Vec<usize>, Vec<usize>) {
    let text = include_str!("data/sort_numpy.txt");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let x = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|h| f32::from_bits(u32::from_str_radix(h, 16).unwrap()))
        .collect();
    let mut ints = || -> Vec<usize> {
        lines
            .next()
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let block = ints();
    let full = ints();
    (x, block, full)
}

/// 2048 f32 values (ties, ±0, ±inf, subnormals, no NaN) sorted by TSORT32 and then three
/// TMRGSORT passes (blockLen 64, 256, 1024) give numpy's stable descending order.
#[test]
fn sort_pipeline_matches_numpy_stable_sort() {
    let (x, block, full) = numpy_fixture();
    let n = x.len();
    for arch in ["a2a3", "a5"] {
        let mut c = core(arch);
        let src = c.alloc(TileDesc::vec(F32, 1, n).at(0)).unwrap();
        let idx = c.alloc(TileDesc::vec(U32, 1, n).at(0x2000)).unwrap();
        let a = c.alloc(TileDesc::vec(F32, 1, 2 * n).at(0x4000)).unwrap();
        let b = c.alloc(TileDesc::vec(F32, 1, 2 * n).at(0x8000)).unwrap();
        c.write_valid(&src, &x).unwrap();
        c.write_valid(&idx, &(0..n as u32).collect::<Vec<_>>())
            .unwrap();
        c.tsort32(&a, &src, &idx, None).unwrap();
        let order = |c: &TileCore, t: &Tile| -> Vec<usize> {
            let v = c
                .read_valid::<u32>(&t.with_valid(1, 2 * n).unwrap())
                .unwrap();
            v.chunks(2).map(|p| p[1] as usize).collect()
        };
        let values = |c: &TileCore, t: &Tile| -> Vec<u32> {
            let v = c.read_valid::<u32>(t).unwrap();
            v.chunks(2).map(|p| p[0]).collect()
        };
        assert_eq!(order(&c, &a), block, "{arch}: TSORT32 blocks");
        let mut from = a;
        let mut to = b;
        for bl in [64, 256, 1024] {
            c.tmrgsort(&to, &from, Scalar::Int(bl)).unwrap();
            std::mem::swap(&mut from, &mut to);
        }
        assert_eq!(order(&c, &from), full, "{arch}: merged order");
        let want: Vec<u32> = full.iter().map(|&i| x[i].to_bits()).collect();
        assert_eq!(values(&c, &from), want, "{arch}: merged values");
    }
}

// ---- restrictions, one test per class of the pages' rules ----

fn sort_tiles(c: &TileCore) -> (Tile, Tile, Tile) {
    let src = c.alloc(TileDesc::vec(F32, 2, 64).at(0)).unwrap();
    let idx = c.alloc(TileDesc::vec(U32, 2, 64).at(0x1000)).unwrap();
    let dst = c.alloc(TileDesc::vec(F32, 2, 128).at(0x2000)).unwrap();
    (src, idx, dst)
}

#[test]
fn tsort32_rejects_element_types() {
    let mut c = core("a2a3");
    let (src, idx, dst) = sort_tiles(&c);
    let s32 = c.alloc(TileDesc::vec(I32, 2, 64).at(0x4000)).unwrap();
    let d32 = c.alloc(TileDesc::vec(I32, 2, 128).at(0x6000)).unwrap();
    let e = c.tsort32(&d32, &s32, &idx, None).unwrap_err();
    assert!(
        matches!(e, PtoError::IllegalType { operand: "dst", .. }),
        "{e}"
    );
    let sh = c.alloc(TileDesc::vec(F16, 2, 64).at(0x4000)).unwrap();
    let e = c.tsort32(&dst, &sh, &idx, None).unwrap_err();
    assert!(matches!(e, PtoError::TypeMismatch { .. }), "{e}");
    let i32x = c.alloc(TileDesc::vec(I32, 2, 64).at(0x4000)).unwrap();
    let e = c.tsort32(&dst, &src, &i32x, None).unwrap_err();
    assert!(
        matches!(e, PtoError::IllegalType { operand: "idx", .. }),
        "{e}"
    );
}

#[test]
fn tsort32_rejects_location_and_layout() {
    let mut c = core("a5");
    let (src, idx, dst) = sort_tiles(&c);
    let cm = c
        .alloc(
            TileDesc::vec(F32, 64, 2)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .at(0x4000),
        )
        .unwrap();
    let e = c.tsort32(&dst, &cm, &idx, None).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    let mat = c
        .alloc(TileDesc::new(TileLoc::Mat, F32, 2, 64).at(0))
        .unwrap();
    let e = c.tsort32(&dst, &mat, &idx, None).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    let _ = src;
}

#[test]
fn tsort32_rejects_shapes() {
    let mut c = core("a2a3");
    let (src, idx, dst) = sort_tiles(&c);
    // a tail without tmp
    let s40 = src.with_valid(2, 40).unwrap();
    let i40 = idx.with_valid(2, 40).unwrap();
    let e = c.tsort32(&dst, &s40, &i40, None).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "src", .. }),
        "{e}"
    );
    // tmp too small for the padded row
    let tiny = c.alloc(TileDesc::vec(F32, 1, 8).at(0x4000)).unwrap();
    let e = c.tsort32(&dst, &s40, &i40, Some(&tiny)).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "tmp", .. }), "{e}");
    let ok = c.alloc(TileDesc::vec(F32, 1, 64).at(0x4000)).unwrap();
    c.tsort32(&dst, &s40, &i40, Some(&ok)).unwrap();
    // dst without room for the records (the PTOAS sort32 sample's 32x32 dst for 32x32 src)
    let narrow = c.alloc(TileDesc::vec(F32, 2, 64).at(0x6000)).unwrap();
    let e = c.tsort32(&narrow, &src, &idx, None).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "dst", .. }), "{e}");
    // idx of another shape
    let i1 = idx.with_valid(2, 32).unwrap();
    let e = c.tsort32(&dst, &src, &i1, None).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "idx", .. }),
        "{e}"
    );
}

#[test]
fn tmrgsort_rejects_block_len_and_shapes() {
    let mut c = core("a2a3");
    let src = c.alloc(TileDesc::vec(F32, 1, 512).at(0)).unwrap();
    let dst = c.alloc(TileDesc::vec(F32, 1, 512).at(0x1000)).unwrap();
    for bad in [
        Scalar::Int(32),
        Scalar::Int(0),
        Scalar::Int(-64),
        Scalar::Float(64.0),
    ] {
        let e = c.tmrgsort(&dst, &src, bad).unwrap_err();
        assert!(matches!(e, PtoError::Scalar { .. }), "{e}");
    }
    // 512 columns are not a multiple of 4 * 256
    let e = c.tmrgsort(&dst, &src, Scalar::Int(256)).unwrap_err();
    assert!(matches!(e, PtoError::ValidRegion { .. }), "{e}");
    c.tmrgsort(&dst, &src, Scalar::Int(128)).unwrap();
    // two rows
    let two = c.alloc(TileDesc::vec(F32, 2, 256).at(0x2000)).unwrap();
    let e = c.tmrgsort(&dst, &two, Scalar::Int(64)).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    // element types
    let i = c.alloc(TileDesc::vec(I32, 1, 512).at(0x4000)).unwrap();
    let e = c.tmrgsort(&i, &i, Scalar::Int(64)).unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
    let h = c.alloc(TileDesc::vec(F16, 1, 512).at(0x4000)).unwrap();
    let e = c.tmrgsort(&dst, &h, Scalar::Int(64)).unwrap_err();
    assert!(matches!(e, PtoError::TypeMismatch { .. }), "{e}");
    // the UB budget: src and dst columns together must stay below 192 KiB
    let big = c.alloc(TileDesc::vec(F16, 1, 65536).at(0)).unwrap();
    let big2 = c.alloc(TileDesc::vec(F16, 1, 32768).at(0x20000)).unwrap();
    let e = c.tmrgsort(&big2, &big, Scalar::Int(64)).unwrap_err();
    assert!(matches!(e, PtoError::Static { .. }), "{e}");
}

#[test]
fn tmrgsort_lists_reject_counts_and_tmp() {
    let mut c = core("a5");
    let s: Vec<Tile> = (0..5)
        .map(|i| c.alloc(TileDesc::vec(F32, 1, 64).at(0x400 * i)).unwrap())
        .collect();
    let dst = c.alloc(TileDesc::vec(F32, 1, 320).at(0x2000)).unwrap();
    let tmp = c.alloc(TileDesc::vec(F32, 1, 320).at(0x3000)).unwrap();
    for n in [1, 5] {
        let e = c
            .tmrgsort_lists(
                &dst,
                &tmp,
                MergeLists {
                    srcs: &s[..n],
                    exhausted: false,
                },
            )
            .unwrap_err();
        assert!(matches!(e, PtoError::Operands { .. }), "{e}");
    }
    let small = c.alloc(TileDesc::vec(F32, 1, 64).at(0x4000)).unwrap();
    let e = c
        .tmrgsort_lists(
            &dst,
            &small,
            MergeLists {
                srcs: &s[..2],
                exhausted: false,
            },
        )
        .unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "tmp", .. }), "{e}");
    let counts = c
        .tmrgsort_lists(
            &dst,
            &tmp,
            MergeLists {
                srcs: &s[..4],
                exhausted: false,
            },
        )
        .unwrap();
    assert_eq!(counts, [32, 32, 32, 32]);
}

/// exec with the table's class: the multi-list form through `Args::MergeLists`.
#[test]
fn exec_reaches_the_sort_handlers() {
    let mut c = core("a2a3");
    let (src, idx, dst) = sort_tiles(&c);
    c.exec(&TileOp {
        op: OpCode::Tsort32,
        args: Args::Indexed {
            dst,
            src,
            idx,
            tmp: None,
        },
    })
    .unwrap();
    let e = c
        .exec(&TileOp {
            op: OpCode::Tsort32,
            args: Args::Unary { dst, src },
        })
        .unwrap_err();
    assert!(matches!(e, PtoError::Operands { .. }), "{e}");
    let one = c.alloc(TileDesc::vec(F32, 1, 256).at(0x8000)).unwrap();
    let two = c.alloc(TileDesc::vec(F32, 1, 256).at(0x9000)).unwrap();
    c.exec(&TileOp {
        op: OpCode::Tmrgsort,
        args: Args::MergeBlocks {
            dst: two,
            src: one,
            block_len: Scalar::Int(64),
        },
    })
    .unwrap();
    let d = c.alloc(TileDesc::vec(F32, 1, 512).at(0xa000)).unwrap();
    let t = c.alloc(TileDesc::vec(F32, 1, 512).at(0xb000)).unwrap();
    c.exec(&TileOp {
        op: OpCode::Tmrgsort,
        args: Args::MergeLists {
            dst: d,
            tmp: t,
            src0: one,
            src1: two,
            src2: None,
            src3: None,
            exhausted: true,
        },
    })
    .unwrap();
}
