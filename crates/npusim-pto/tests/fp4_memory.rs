//! TLOAD and TSTORE of packed fp4 tiles (A5 `float4_e2m1x2_t` / `float4_e1m2x2_t`, one byte
//! per pair of 4-bit codes): the bytes move unchanged, the pad is 0 whatever the pad value
//! (pto-isa's A5 `PadValueMap` for both packed types), and a loaded tile converts to bf16 as a
//! plain nibble model written here says (low nibble first). A2A3 refuses the types.

use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{Bf16, F4E1M2X2, F4E2M1X2};

/// The value of a 4-bit code (bit 3 the sign).
fn value(t: ElemType, code: u8) -> f32 {
    let mags: [f32; 8] = if t == F4E2M1X2 {
        [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    } else {
        [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]
    };
    let m = mags[(code & 7) as usize];
    if code & 8 != 0 { -m } else { m }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn packed_fp4_tiles_load_store_and_convert(
        e2m1 in any::<bool>(),
        vr in 1usize..8,
        vc in 1usize..=64,
        pad in 0usize..4,
        bytes in prop::collection::vec(any::<u8>(), 8 * 64),
    ) {
        let t = if e2m1 { F4E2M1X2 } else { F4E1M2X2 };
        let pad = [PadValue::Zero, PadValue::Max, PadValue::Min, PadValue::Custom(1f32.to_bits())][pad];
        let mut c = TileCore::by_name("a5").unwrap();
        // GM: an 8x64-byte matrix; the tile: 8x64 pairs (64 bytes a row), valid vr x vc.
        let src = c.gm_bind(&bytes);
        let out = c.gm_bind(&vec![0xa5u8; 8 * 64]);
        let tile = c.alloc(TileDesc::vec(t, 8, 64).valid(vr, vc).pad(pad).at(0)).unwrap();
        c.tload(&tile, &GlobalTensor::nd_2d_strided(src, t, vr, vc, 64)).unwrap();
        for r in 0..8 {
            for k in 0..64 {
                let want = if r < vr && k < vc { bytes[r * 64 + k] as u64 } else { 0 };
                prop_assert_eq!(c.get_bits(&tile, r, k).unwrap(), want, "({}, {})", r, k);
            }
        }
        c.tstore(&GlobalTensor::nd_2d_strided(out, t, vr, vc, 64), &tile).unwrap();
        let got: Vec<u8> = c.gm_read(out, 8 * 64).unwrap();
        for r in 0..8 {
            for k in 0..64 {
                let want = if r < vr && k < vc { bytes[r * 64 + k] } else { 0xa5 };
                prop_assert_eq!(got[r * 64 + k], want);
            }
        }
        // TCVT to bf16: 2 * vc values a row, low nibble first.
        let d = c.alloc(TileDesc::vec(Bf16, 8, 128).valid(vr, 2 * vc).at(0x1000)).unwrap();
        c.exec(&TileOp { op: OpCode::Tcvt, args: Args::Convert { dst: d, src: tile, mode: RoundMode::Rint, sat: Saturation::Off } }).unwrap();
        for r in 0..vr {
            for j in 0..2 * vc {
                let b = bytes[r * 64 + j / 2];
                let code = if j % 2 == 0 { b & 0xf } else { b >> 4 };
                let got = half::bf16::from_bits(c.get_bits(&d, r, j).unwrap() as u16).to_f32();
                prop_assert_eq!(got.to_bits(), value(t, code).to_bits(), "({}, {})", r, j);
            }
        }
    }
}

#[test]
fn packed_fp4_memory_is_a5_only() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let g = c.gm_bind(&[0u8; 64]);
    let tile = c.alloc(TileDesc::vec(F4E2M1X2, 2, 32).at(0)).unwrap();
    let e = c
        .tload(&tile, &GlobalTensor::nd_2d(g, F4E2M1X2, 2, 32))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("TLOAD") && e.contains("not legal on a2a3"),
        "{e}"
    );
    let e = c
        .tstore(&GlobalTensor::nd_2d(g, F4E2M1X2, 2, 32), &tile)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("TSTORE") && e.contains("not legal on a2a3"),
        "{e}"
    );
}
