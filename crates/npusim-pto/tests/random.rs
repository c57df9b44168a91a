//! TRANDOM (pto-isa `docs/isa/TRANDOM.md`, the A5 header's Philox-4x32) and TALIAS against
//! independent references: Random123's published Philox4x32-10 known answers, a committed
//! stream of randomgen's Philox (scripts/gen_trandom_ref.py), and a plain model written here.

mod common;

use npusim_pto::ops::random::{RandomParams, philox4x32};
use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{F32, I32, U16, U32};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

fn says(e: PtoError, parts: &[&str]) {
    let s = e.to_string();
    for p in parts {
        assert!(s.contains(p), "{s:?} lacks {p:?}");
    }
}

/// Philox4x32-R written out from the published description (Salmon et al. 2011): S-box pairs
/// on words (0, 2), the bijection of words, a key schedule by the Weyl constants.
fn model_block(ctr: [u32; 4], key: [u32; 2], rounds: u32) -> [u32; 4] {
    let mut x = ctr;
    let mut k = key;
    for r in 0..rounds {
        if r > 0 {
            k[0] = k[0].wrapping_add(0x9E37_79B9);
            k[1] = k[1].wrapping_add(0xBB67_AE85);
        }
        let a = (x[0] as u64).wrapping_mul(0xD251_1F53);
        let b = (x[2] as u64).wrapping_mul(0xCD9E_8D57);
        x = [
            ((b >> 32) as u32) ^ x[1] ^ k[0],
            b as u32,
            ((a >> 32) as u32) ^ x[3] ^ k[1],
            a as u32,
        ];
    }
    x
}

/// The counter `c + n` (128-bit, word 0 least significant), by word-wise carries.
fn add(c: [u32; 4], n: u64) -> [u32; 4] {
    let mut out = c;
    let mut carry = n as u128;
    for w in out.iter_mut() {
        let s = *w as u128 + (carry & 0xffff_ffff_ffff_ffff);
        *w = s as u32;
        carry = (carry >> 32) + (s >> 32);
        carry &= u64::MAX as u128;
    }
    out
}

/// The element `(i, j)` of a `vc`-column valid region, in closed form: the A5 advances the
/// base counter by 64 per full 256-column chunk and by `((vc - 1) % 64) + 1` after a row's last
/// chunk; element `k` of a chunk is word `k % 4` of counter `base + k / 4`.
fn model_elem(p: RandomParams, vc: usize, i: usize, j: usize) -> u32 {
    let chunks = vc.div_ceil(256) as u64;
    let per_row = 64 * (chunks - 1) + ((vc as u64 - 1) % 64) + 1;
    let (q, k) = ((j / 256) as u64, (j % 256) as u64);
    let ctr = add(p.counter, i as u64 * per_row + 64 * q + k / 4);
    model_block(ctr, p.key, p.rounds)[(k % 4) as usize]
}

#[test]
fn philox_block_matches_random123_known_answers() {
    // Random123 tests/kat_vectors, philox4x32 10.
    let kat = [
        (
            [0u32; 4],
            [0u32; 2],
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (ctr, key, want) in kat {
        assert_eq!(philox4x32(ctr, key, 10), want);
        assert_eq!(model_block(ctr, key, 10), want);
    }
}

/// The committed randomgen streams: (key, counter, words).
fn streams() -> Vec<([u32; 2], [u32; 4], Vec<u32>)> {
    let text = include_str!("data/trandom_philox10.txt");
    let mut out: Vec<([u32; 2], [u32; 4], Vec<u32>)> = Vec::new();
    for line in text.lines() {
        let v: Vec<&str> = line.split_whitespace().collect();
        if v.first() == Some(&"case") {
            let h = |s: &str| u32::from_str_radix(s, 16).unwrap();
            out.push((
                [h(v[1]), h(v[2])],
                [h(v[3]), h(v[4]), h(v[5]), h(v[6])],
                vec![],
            ));
        } else {
            let last = out.last_mut().unwrap();
            last.2
                .extend(v.iter().map(|s| u32::from_str_radix(s, 16).unwrap()));
        }
    }
    out
}

#[test]
fn full_rows_are_randomgens_philox_stream() {
    let s = streams();
    assert_eq!(s.len(), 2);
    // A full row of 256 columns takes 64 consecutive counters, so a tile of such rows (or of
    // 1024-column rows, four chunks) is the stream itself, row after row.
    for (key, counter, want) in &s {
        for (t, rows, cols) in [(I32, want.len() / 256, 256), (U32, want.len() / 1024, 1024)] {
            let mut c = core("a5");
            let d = c.alloc(TileDesc::vec(t, rows, cols).at(0)).unwrap();
            let p = RandomParams {
                key: *key,
                counter: *counter,
                rounds: 10,
            };
            c.trandom(&d, p).unwrap();
            let got: Vec<u32> = common::all_bits(&c, &d)
                .concat()
                .into_iter()
                .map(|b| b as u32)
                .collect();
            assert_eq!(&got, want, "{rows}x{cols}");
        }
    }
    // The same through exec, with PTOAS's sample spelling of the key (a negative i32).
    let (_, _, want) = &s[0];
    let mut c = core("a5");
    let d = c.alloc(TileDesc::vec(I32, 4, 256).at(0)).unwrap();
    let i = |v: i64| Scalar::Int(v);
    c.exec(&TileOp {
        op: OpCode::Trandom,
        args: Args::Random {
            dst: d,
            key0: i(305419896),
            key1: i(-1698898192),
            counter0: i(0),
            counter1: i(1),
            counter2: i(2),
            counter3: i(3),
            rounds: 10,
        },
    })
    .unwrap();
    let got: Vec<u32> = common::all_bits(&c, &d)
        .concat()
        .into_iter()
        .map(|b| b as u32)
        .collect();
    assert_eq!(&got, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn trandom_matches_the_model(
        t in prop::sample::select(vec![I32, U32]),
        rows in 1usize..5,
        col_blocks in 1usize..80,
        vr_frac in 0.0f64..=1.0,
        vc_frac in 0.0f64..=1.0,
        key in any::<[u32; 2]>(),
        low in prop::sample::select(vec![0u32, 1, 0xffff_ff00, 0xffff_fff0, u32::MAX]),
        high in any::<[u32; 3]>(),
        all_ones in any::<bool>(),
        rounds in prop::sample::select(vec![7u32, 10]),
        seed in any::<u64>(),
    ) {
        let mut c = core("a5");
        common::scramble(&mut c, 65536, seed);
        let cols = col_blocks * 8;
        let vr = ((rows as f64) * vr_frac) as usize;
        let vc = ((cols as f64) * vc_frac) as usize;
        let d = c.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0)).unwrap();
        let counter = if all_ones { [low, u32::MAX, u32::MAX, u32::MAX] } else { [low, high[0], high[1], high[2]] };
        let p = RandomParams { key, counter, rounds };
        let before = common::all_bits(&c, &d);
        c.trandom(&d, p).unwrap();
        let after = common::all_bits(&c, &d);
        for i in 0..rows {
            for j in 0..cols {
                let want = if i < vr && j < vc { model_elem(p, vc, i, j) as u64 } else { before[i][j] };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
    }
}

#[test]
fn trandom_restrictions() {
    let p = RandomParams {
        key: [1, 2],
        counter: [3, 4, 5, 6],
        rounds: 10,
    };
    // A5 only.
    let mut a2 = core("a2a3");
    let d = a2.alloc(TileDesc::vec(I32, 4, 64).at(0)).unwrap();
    says(a2.trandom(&d, p).unwrap_err(), &["TRANDOM", "a2a3"]);
    let mut c = core("a5");
    // int32 / uint32 only.
    for t in [F32, U16] {
        let d = c.alloc(TileDesc::vec(t, 4, 64).at(0)).unwrap();
        says(c.trandom(&d, p).unwrap_err(), &["TRANDOM", "dst", "a5"]);
    }
    // Row-major only.
    let cm = c
        .alloc(
            TileDesc::vec(I32, 8, 8)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .at(0),
        )
        .unwrap();
    says(
        c.trandom(&cm, p).unwrap_err(),
        &["TRANDOM", "dst", "row-major"],
    );
    // Rounds 7 or 10.
    let d = c.alloc(TileDesc::vec(U32, 4, 64).at(0)).unwrap();
    for r in [0, 6, 8, 11] {
        says(
            c.trandom(&d, RandomParams { rounds: r, ..p }).unwrap_err(),
            &["TRANDOM", "rounds", "7 or 10", &r.to_string()],
        );
    }
    // Key and counter words are integers.
    let e = c
        .exec(&TileOp {
            op: OpCode::Trandom,
            args: Args::Random {
                dst: d,
                key0: Scalar::Float(1.5),
                key1: Scalar::Int(0),
                counter0: Scalar::Int(0),
                counter1: Scalar::Int(0),
                counter2: Scalar::Int(0),
                counter3: Scalar::Int(0),
                rounds: 10,
            },
        })
        .unwrap_err();
    says(e, &["TRANDOM", "key and counter", "1.5"]);
    // Vec location only.
    let m = c.alloc(
        TileDesc::new(TileLoc::Mat, I32, 16, 16)
            .layout(BLayout::ColMajor, SLayout::RowMajor)
            .at(0),
    );
    if let Ok(m) = m {
        says(c.trandom(&m, p).unwrap_err(), &["TRANDOM", "dst", "Vec"]);
    }
}

#[test]
fn talias_shares_storage() {
    let mut c = core("a5");
    let src = c.alloc(TileDesc::vec(F32, 8, 16).at(1024)).unwrap();
    // An int32 view of the same bytes, and a smaller uint16 view.
    let a = c.talias(&src, TileDesc::vec(I32, 8, 16)).unwrap();
    assert_eq!(a.addr(), src.addr());
    let h = c.talias(&src, TileDesc::vec(U16, 4, 16)).unwrap();
    c.write_valid::<f32>(&src, &(0..128).map(|v| v as f32 - 3.5).collect::<Vec<_>>())
        .unwrap();
    for k in 0..128 {
        let (r, col) = (k / 16, k % 16);
        let f = (k as f32 - 3.5).to_bits() as u64;
        assert_eq!(c.get_bits(&a, r, col).unwrap(), f);
    }
    for k in 0..64 {
        let (r, col) = (k / 16, k % 16);
        let w = (k / 2) as f32 - 3.5;
        let want = (w.to_bits() >> (16 * (k % 2))) & 0xffff;
        assert_eq!(c.get_bits(&h, r, col).unwrap(), want as u64);
    }
    // Writes through the alias are seen through the source.
    c.set_bits(&a, 0, 0, 0x4000_0000).unwrap();
    assert_eq!(c.get::<f32>(&src, 0, 0).unwrap(), 2.0);
    // As an instruction over two declared tiles: checks only, nothing moves.
    let before = common::all_bits(&c, &src);
    c.exec(&TileOp {
        op: OpCode::Talias,
        args: Args::Unary { dst: a, src },
    })
    .unwrap();
    assert_eq!(common::all_bits(&c, &src), before);
}

#[test]
fn talias_restrictions() {
    let c = core("a5");
    let src = c.alloc(TileDesc::vec(F32, 8, 16).at(1024)).unwrap();
    // Footprint inside the source's storage.
    says(
        c.talias(&src, TileDesc::vec(F32, 16, 16)).unwrap_err(),
        &["TALIAS", "dst", "footprint", "1024 bytes over 512"],
    );
    // Same location.
    let m = TileDesc::new(TileLoc::Mat, F32, 8, 16).layout(BLayout::ColMajor, SLayout::RowMajor);
    says(
        c.talias(&src, m).unwrap_err(),
        &["TALIAS", "dst", "location"],
    );
    // The instruction form: same address.
    let other = c.alloc(TileDesc::vec(F32, 8, 16).at(2048)).unwrap();
    let mut c2 = core("a5");
    says(
        c2.exec(&TileOp {
            op: OpCode::Talias,
            args: Args::Unary { dst: other, src },
        })
        .unwrap_err(),
        &["TALIAS", "dst", "source's address", "0x800 vs 0x400"],
    );
    // A2A3 has no 1-byte floats to alias as.
    let a2 = core("a2a3");
    let s2 = a2.alloc(TileDesc::vec(F32, 8, 16).at(0)).unwrap();
    says(
        a2.talias(&s2, TileDesc::vec(ElemType::F8E4M3FN, 8, 16))
            .unwrap_err(),
        &["TALIAS", "dst"],
    );
}
