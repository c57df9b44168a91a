//! Acceptance (2) of issue #5, and the twin checks: property tests of the HAU models against
//! plain models.
//!
//! * natural-index sort equals a stable sort on inputs without NaN and `+-0`;
//! * specific-index sort on integers equals a stable sort by (value, given index as `u32`);
//! * every fast model equals its plain reference twin on any input (NaN, `+-0`, duplicates);
//! * `line_gather` equals a plain nested-loop model, at slice and at memory level;
//! * denormals (issue 19): every strategy draws `f32` denormals of both signs; under the
//!   C-model's policy ([`KeyType::F32Daz`]) the models equal plain models written here with a
//!   denormals-as-zero comparator, and `line_gather` moves denormal payloads untouched.

use npusim_tpu::gather::{line_gather_reference, line_gather_rows};
use npusim_tpu::sort::{
    KeyType, indexed_order, indexed_order_reference, libstdcxx_partial_sort,
    partial_sort_nonstrict, sort_natural_index, sort_specific_index, sort_values,
};
use npusim_tpu::{DataType, DenormalPolicy, Scalar, TpuChip, TpuCore};
use proptest::prelude::*;

/// Cases per property: 64, or `NPUSIM_PROPTEST_CASES` for a deeper local run.
fn cases() -> u32 {
    std::env::var("NPUSIM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// Float bit patterns rich in duplicates, signed zeros, infinities, denormals and NaNs.
fn f32_bits_any() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => (-4i32..=4).prop_map(|v| (v as f32 * 0.5).to_bits()),
        1 => Just(0x8000_0000u32),
        1 => Just(0u32),
        1 => prop::sample::select(vec![
            0x7f80_0000u32, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0x7fff_ffff,
            0x0000_0001, 0x8000_0001, 0x0080_0000, 0x8080_0000,
        ]),
        2 => denormal_bits(),
        2 => any::<u32>(),
    ]
}

/// `f32` denormal patterns of both signs: a few fixed ones (so ties occur) and random ones.
fn denormal_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        1 => prop::sample::select(vec![0x0000_0001u32, 0x8000_0001, 0x007f_ffff, 0x807f_ffff]),
        1 => (1u32..0x80_0000, any::<bool>()).prop_map(|(m, s)| m | if s { 0x8000_0000 } else { 0 }),
    ]
}

/// The value a denormals-as-zero comparator sees (independent of the crate's key code).
fn daz_value(b: u32) -> f32 {
    if b & 0x7f80_0000 == 0 {
        0.0
    } else {
        f32::from_bits(b)
    }
}

/// Float bit patterns without NaN and without `+-0` (denormals included: IEEE orders them by
/// value).
fn f32_bits_plain() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (1i32..=6).prop_map(|v| (v as f32 * 0.75).to_bits()),
        3 => (1i32..=6).prop_map(|v| (-(v as f32) * 0.75).to_bits()),
        1 => denormal_bits(),
        2 => any::<u32>(),
    ]
    .prop_filter("no NaN, no zero", |&b| {
        let f = f32::from_bits(b);
        !f.is_nan() && f != 0.0
    })
}

fn int_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (-3i32..=3).prop_map(|v| v as u32),
        1 => any::<u32>(),
    ]
}

fn kind_and_keys(plain: bool) -> impl Strategy<Value = (KeyType, Vec<u32>)> {
    let floats = if plain {
        prop::collection::vec(f32_bits_plain(), 1..80).boxed()
    } else {
        prop::collection::vec(f32_bits_any(), 1..80).boxed()
    };
    // Under the C-model's policy a denormal equals zero, so "plain" keys lift it to a normal.
    let floats_daz = floats.clone().prop_map(move |v| {
        let v = if plain {
            v.into_iter()
                .map(|b| {
                    if b & 0x7f80_0000 == 0 {
                        b | 0x0080_0000
                    } else {
                        b
                    }
                })
                .collect()
        } else {
            v
        };
        (KeyType::F32Daz, v)
    });
    prop_oneof![
        2 => floats.prop_map(|v| (KeyType::F32, v)),
        2 => floats_daz,
        1 => prop::collection::vec(int_bits(), 1..80).prop_map(|v| (KeyType::I32, v)),
        1 => prop::collection::vec(int_bits(), 1..80).prop_map(|v| (KeyType::U32, v)),
    ]
}

/// Plain stable sort model: ascending (value, position) or descending value with ascending
/// position, compared by the dtype's own order.
fn stable_order(keys: &[u32], tie: Option<&[u32]>, descended: bool, kind: KeyType) -> Vec<u32> {
    let mut pos: Vec<usize> = (0..keys.len()).collect();
    pos.sort_by(|&a, &b| {
        let (x, y) = (keys[a], keys[b]);
        let ord = match kind {
            KeyType::F32 => f32::from_bits(x)
                .partial_cmp(&f32::from_bits(y))
                .expect("no NaN"),
            KeyType::F32Daz => daz_value(x).partial_cmp(&daz_value(y)).expect("no NaN"),
            KeyType::I32 => (x as i32).cmp(&(y as i32)),
            KeyType::U32 => x.cmp(&y),
        };
        let ord = if descended { ord.reverse() } else { ord };
        ord.then_with(|| match tie {
            Some(t) => t[a].cmp(&t[b]),
            None => std::cmp::Ordering::Equal,
        })
    });
    pos.into_iter().map(|p| p as u32).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn natural_index_is_stable_sort_without_nan_or_zero(
        (kind, keys) in kind_and_keys(true), kfrac in 0.0f64..1.0, descended: bool,
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let want = stable_order(&keys, None, descended, kind);
        let (data, idx) = sort_natural_index(&keys, k, descended, kind);
        prop_assert_eq!(&idx[..], &want[..k]);
        let want_data: Vec<u32> = want[..k].iter().map(|&p| keys[p as usize]).collect();
        prop_assert_eq!(data, want_data);
        prop_assert_eq!(indexed_order_reference(&keys, None, k, descended, kind), want[..k].to_vec());
    }

    #[test]
    fn specific_index_on_ints_is_stable_sort_by_value_then_index(
        keys in prop::collection::vec(int_bits(), 1..80), seed in any::<u64>(),
        kfrac in 0.0f64..1.0, descended: bool, signed: bool,
    ) {
        let kind = if signed { KeyType::I32 } else { KeyType::U32 };
        let n = keys.len();
        let idx: Vec<u32> = (0..n as u64)
            .map(|i| (((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed) >> 61) as u32).wrapping_mul(0x3000_0001))
            .collect();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let order = stable_order(&keys, Some(&idx), descended, kind);
        let (data, out_idx) = sort_specific_index(&keys, &idx, k, descended, kind);
        let want_idx: Vec<u32> = order[..k].iter().map(|&p| idx[p as usize]).collect();
        let want_data: Vec<u32> = order[..k].iter().map(|&p| keys[p as usize]).collect();
        prop_assert_eq!(out_idx, want_idx);
        prop_assert_eq!(data, want_data);
    }

    #[test]
    fn indexed_fast_equals_reference(
        (kind, keys) in kind_and_keys(false), kfrac in 0.0f64..1.0, descended: bool,
        with_tie: bool, tie_seed in any::<u32>(),
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let tie: Vec<u32> = (0..n as u32).map(|i| (i ^ tie_seed).wrapping_mul(2_654_435_761) % 5).collect();
        let t = with_tie.then_some(&tie[..]);
        let reference = indexed_order_reference(&keys, t, k, descended, kind);
        prop_assert_eq!(indexed_order(&keys, t, k, descended, kind), reference.clone());
        // The emitted values (recovered from packed keys) and indices, too.
        let ref_data: Vec<u32> = reference.iter().map(|&p| keys[p as usize]).collect();
        let (data, idx) = match t {
            None => sort_natural_index(&keys, k, descended, kind),
            Some(t) => sort_specific_index(&keys, t, k, descended, kind),
        };
        let ref_idx: Vec<u32> = match t {
            None => reference.clone(),
            Some(t) => reference.iter().map(|&p| t[p as usize]).collect(),
        };
        prop_assert_eq!(data, ref_data);
        prop_assert_eq!(idx, ref_idx);
    }

    #[test]
    fn indexed_fast_equals_reference_large_full_sort(
        keys in prop::collection::vec(f32_bits_any(), 256..1200), descended: bool,
        kfrac in 0.0f64..1.0, with_tie: bool,
    ) {
        // Long enough for the radix sort (K = len) and for the histogram select (other K).
        let n = keys.len();
        let tie: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 30).collect();
        let t = with_tie.then_some(&tie[..]);
        for k in [n, n / 2, 1, 1 + ((n - 1) as f64 * kfrac) as usize] {
            for kind in [KeyType::F32, KeyType::F32Daz] {
                prop_assert_eq!(
                    indexed_order(&keys, t, k, descended, kind),
                    indexed_order_reference(&keys, t, k, descended, kind)
                );
            }
        }
    }

    #[test]
    fn plain_sort_fast_equals_libstdcxx_port(
        (kind, keys) in kind_and_keys(false), kfrac in 0.0f64..1.0, descended: bool,
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        prop_assert_eq!(
            sort_values(&keys, k, descended, kind),
            partial_sort_nonstrict(&keys, k, descended, kind)
        );
    }

    #[test]
    fn plain_sort_without_nan_is_sorted_prefix(
        (kind, keys) in kind_and_keys(true), kfrac in 0.0f64..1.0, descended: bool,
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let order = stable_order(&keys, None, descended, kind);
        let want: Vec<u32> = order[..k].iter().map(|&p| keys[p as usize]).collect();
        prop_assert_eq!(partial_sort_nonstrict(&keys, k, descended, kind), want);
    }

    #[test]
    fn line_gather_slices_equal_plain_model(
        esize in prop::sample::select(vec![1usize, 2, 4]),
        line_num in 1usize..12, line_len in 1usize..9,
        se in (0usize..12, 0usize..12), index in prop::collection::vec(0u32..16, 1..20),
        c in any::<u32>(), fill_const: bool, fill in any::<u8>(), table_seed in any::<u32>(),
    ) {
        let start = se.0.min(line_num - 1);
        let end = (start + se.1).min(line_num - 1);
        let mask = if esize == 4 { u32::MAX } else { (1u32 << (8 * esize)) - 1 };
        let table: Vec<u32> = (0..(line_num * line_len) as u32)
            .map(|i| (i ^ table_seed).wrapping_mul(0x0101_0101 ^ table_seed) & mask)
            .collect();
        // Plain model over the whole table.
        let fill_elem = u32::from_le_bytes([fill; 4]) & mask;
        let mut want = vec![fill_elem; index.len() * line_len];
        for (h, &ix) in index.iter().enumerate() {
            for w in 0..line_len {
                let ix = ix as usize;
                if ix >= start && ix <= end {
                    want[h * line_len + w] = table[ix * line_len + w];
                } else if fill_const {
                    want[h * line_len + w] = c & mask;
                }
            }
        }
        let window = &table[start * line_len..(end + 1) * line_len];
        let mut got_ref = vec![fill_elem; index.len() * line_len];
        line_gather_reference(&mut got_ref, window, &index, c & mask, line_len,
            start as u32, end as u32, fill_const);
        prop_assert_eq!(&got_ref, &want);
        let to_bytes = |v: &[u32]| -> Vec<u8> {
            v.iter().flat_map(|x| x.to_le_bytes().into_iter().take(esize)).collect()
        };
        let mut out = vec![fill; index.len() * line_len * esize];
        line_gather_rows(&mut out, &to_bytes(window), &index, &c.to_le_bytes()[..esize],
            line_len * esize, start as u32, end as u32, fill_const);
        prop_assert_eq!(out, to_bytes(&want));

        // Memory level, on a simulated BM1684X.
        let dtype = match esize { 1 => DataType::Int8, 2 => DataType::Fp16, _ => DataType::Uint32 };
        let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 16).unwrap();
        let base = core.gm_base();
        let (pa, ia, oa) = (base, base + 0x4000, base + 0x8000);
        core.write_bytes(pa, &to_bytes(window)).unwrap();
        core.write_u32s(ia, &index).unwrap();
        core.fill_bytes(oa, index.len() * line_len * esize, fill).unwrap();
        core.tpu_hau_line_gather(oa, pa, ia, Scalar::from_bits(c), line_num as i32,
            line_len as i32, index.len() as i32, start as i32, end as i32, dtype, fill_const).unwrap();
        prop_assert_eq!(core.read_bytes(oa, index.len() * line_len * esize).unwrap(), to_bytes(&want));
    }

    #[test]
    fn memory_level_sort_writes_only_k(
        (kind, keys) in kind_and_keys(false), kfrac in 0.0f64..1.0, descended: bool,
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let dtype = match kind { KeyType::F32 | KeyType::F32Daz => DataType::Fp32, KeyType::I32 => DataType::Int32, KeyType::U32 => DataType::Uint32 };
        let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 16).unwrap();
        if kind == KeyType::F32 {
            core.set_denormal_policy(DenormalPolicy::Ieee);
        }
        let b = core.gm_base();
        let (ia, od, oi) = (b, b + 0x1000, b + 0x2000);
        core.write_u32s(ia, &keys).unwrap();
        core.fill_bytes(od, 0x2000, 0x5a).unwrap();
        core.tpu_hau_sort_natural_index(od, oi, ia, n as i32, k as i32, descended, dtype).unwrap();
        let (data, idx) = sort_natural_index(&keys, k, descended, kind);
        let got_d = core.read_u32s(od, n).unwrap();
        let got_i = core.read_u32s(oi, n).unwrap();
        prop_assert_eq!(&got_d[..k], &data[..]);
        prop_assert_eq!(&got_i[..k], &idx[..]);
        prop_assert!(got_d[k..].iter().chain(&got_i[k..]).all(|&w| w == 0x5a5a_5a5a));
    }

    #[test]
    fn daz_indexed_sort_equals_plain_denormals_as_zero_model(
        keys in prop::collection::vec(f32_bits_any(), 1..120), kfrac in 0.0f64..1.0,
        descended: bool, with_tie: bool, tie_seed in any::<u32>(),
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let tie: Vec<u32> = (0..n as u32).map(|i| (i ^ tie_seed).wrapping_mul(2_654_435_761) % 7).collect();
        let t = with_tie.then_some(&tie[..]);
        let want = plain_daz_indexed(&keys, t, k, descended);
        prop_assert_eq!(indexed_order(&keys, t, k, descended, KeyType::F32Daz), want.clone());
        prop_assert_eq!(indexed_order_reference(&keys, t, k, descended, KeyType::F32Daz), want);
    }

    #[test]
    fn daz_plain_sort_equals_heap_with_denormals_as_zero(
        keys in prop::collection::vec(f32_bits_any(), 1..120), kfrac in 0.0f64..1.0,
        descended: bool,
    ) {
        let n = keys.len();
        let k = 1 + ((n - 1) as f64 * kfrac) as usize;
        let mut v = keys.clone();
        if descended {
            libstdcxx_partial_sort(&mut v, k, |a, b| daz_value(a) >= daz_value(b));
        } else {
            libstdcxx_partial_sort(&mut v, k, |a, b| daz_value(a) <= daz_value(b));
        }
        v.truncate(k);
        prop_assert_eq!(sort_values(&keys, k, descended, KeyType::F32Daz), v.clone());
        prop_assert_eq!(partial_sort_nonstrict(&keys, k, descended, KeyType::F32Daz), v);
    }

    #[test]
    fn line_gather_moves_denormal_payloads_untouched(
        payload in prop::collection::vec(denormal_bits(), 1..64), c in denormal_bits(),
        fill_const: bool,
    ) {
        // One 32-bit line per payload element; index every line, plus one out of range.
        let n = payload.len();
        let mut index: Vec<u32> = (0..n as u32).rev().collect();
        index.push(n as u32);
        let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 16).unwrap();
        let base = core.gm_base();
        let (pa, ia, oa) = (base, base + 0x4000, base + 0x8000);
        core.write_u32s(pa, &payload).unwrap();
        core.write_u32s(ia, &index).unwrap();
        core.fill_bytes(oa, 4 * (n + 1), 0xab).unwrap();
        core.tpu_hau_line_gather(oa, pa, ia, Scalar::from_bits(c), n as i32, 1, (n + 1) as i32,
            0, n as i32 - 1, DataType::Fp32, fill_const).unwrap();
        let got = core.read_u32s(oa, n + 1).unwrap();
        let mut want: Vec<u32> = payload.iter().rev().copied().collect();
        want.push(if fill_const { c } else { 0xabab_abab });
        prop_assert_eq!(got, want);
    }
}

/// Plain model of the indexed sorts under the denormals-as-zero comparator, written from the
/// rule (research note section 2b/2c plus issue 19): non-NaN positions ordered anti-stably by
/// the zero-flushed value, NaN slots keep their position, runs of bit-identical values ordered
/// by (tie index, position).
fn plain_daz_indexed(keys: &[u32], tie: Option<&[u32]>, k: usize, descended: bool) -> Vec<u32> {
    let n = keys.len();
    let is_nan = |b: u32| f32::from_bits(b).is_nan();
    let mut order: Vec<usize> = (0..n).filter(|&i| !is_nan(keys[i])).collect();
    // Anti-stable: equal values, later position first.
    order.sort_by(|&a, &b| {
        let o = daz_value(keys[a])
            .partial_cmp(&daz_value(keys[b]))
            .expect("no NaN");
        let o = if descended { o.reverse() } else { o };
        o.then(b.cmp(&a))
    });
    let mut it = order.into_iter();
    let mut seq: Vec<usize> = (0..n)
        .map(|slot| {
            if is_nan(keys[slot]) {
                slot
            } else {
                it.next().expect("enough")
            }
        })
        .collect();
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n && keys[seq[e]] == keys[seq[s]] {
            e += 1;
        }
        seq[s..e].sort_by_key(|&p| (tie.map_or(0, |t| t[p]), p));
        s = e;
    }
    seq.truncate(k);
    seq.into_iter().map(|p| p as u32).collect()
}
