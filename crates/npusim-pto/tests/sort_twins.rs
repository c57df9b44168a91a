//! The fast TSORT32 block sort (`sort_block32`) against the plain stable sort it replaces
//! (`sort_block`), on blocks full of ties, ±0 and NaN payloads, small and full-range indices,
//! both record types.

use npusim_pto::ElemType;
use npusim_pto::ops::sort::{sort_block, sort_block32};
use proptest::prelude::*;

/// Value bits from a small set, so that ties, ±0 and several NaNs are common.
fn value(t: ElemType, pick: u8) -> u64 {
    let f32s = [
        0u32,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0001,
        0x4120_0000,
    ];
    let f16s = [
        0u16, 0x8000, 0x3c00, 0xbc00, 0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x0001, 0x4900,
    ];
    match t {
        ElemType::F16 => u64::from(f16s[usize::from(pick) % f16s.len()]),
        _ => u64::from(f32s[usize::from(pick) % f32s.len()]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sort_block32_is_sort_block(
        half in any::<bool>(),
        recs in prop::collection::vec((any::<u8>(), prop_oneof![0u32..6, any::<u32>()]), 0..=40),
    ) {
        let t = if half { ElemType::F16 } else { ElemType::F32 };
        let block: Vec<u64> = recs.iter().map(|(v, i)| value(t, *v) | (u64::from(*i) << 32)).collect();
        let mut a = block.clone();
        let mut b = block;
        sort_block(&mut a, t);
        sort_block32(&mut b, t);
        prop_assert_eq!(a, b);
    }
}
