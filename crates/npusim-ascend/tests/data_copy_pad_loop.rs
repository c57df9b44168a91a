//! DataCopyPad in loop mode (Ascend 950; asc-devkit `SetLoopModePara.md` and the DataCopyPad
//! example's scenarios 4-6): the page's example and the three scenarios, with the expected UB
//! bytes written out from the page's description; a property test against a plain byte model
//! written here (both paths, both padding modes, overlaps predicted by the model); one test per
//! restriction class.

mod common;

use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::pad::{DataCopyMVType, LoopModeParams};
use npusim_core::ChipId;
use proptest::prelude::*;

const SENTINEL: i8 = 0x55;

fn params(l1: u32, l2: u32, s1: u64, d1: u64, s2: u64, d2: u64) -> LoopModeParams {
    LoopModeParams {
        loop1_size: l1,
        loop2_size: l2,
        loop1_src_stride: s1,
        loop1_dst_stride: d1,
        loop2_src_stride: s2,
        loop2_dst_stride: d2,
    }
}

fn source(n: usize) -> Vec<i8> {
    (0..n).map(|i| (i % 101) as i8 + 1).collect()
}

/// The page's own example: int8, 384 bytes, Compact, blockLen 48, blockCount 2, no padding;
/// loops 2 x 2, source strides 96 / 192, destination strides 128 / 288.
#[test]
fn set_loop_mode_para_page_example() {
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let x = source(384);
    let g = asc.GmAlloc::<i8>("srcGlobal", &x).unwrap();
    let u = asc.AllocTensor::<i8>("srcLocal", 576).unwrap();
    asc.write(&u, &[SENTINEL; 576]).unwrap();
    asc.SetLoopModePara(params(2, 2, 96, 128, 192, 288), DataCopyMVType::OutToUb)
        .unwrap();
    asc.DataCopyPadCompact::<i8>(&u, &g, 2, 48, 0, (false, 0, 0, 0))
        .unwrap();
    asc.ResetLoopModePara(DataCopyMVType::OutToUb).unwrap();
    let mut want = vec![SENTINEL; 576];
    for i2 in 0..2 {
        for i1 in 0..2 {
            let (s, d) = (i2 * 192 + i1 * 96, i2 * 288 + i1 * 128);
            want[d..d + 96].copy_from_slice(&x[s..s + 96]);
        }
    }
    assert_eq!(asc.read::<i8>(&u).unwrap(), want);
}

/// Scenarios 4 and 5: int8 [1, 320] -> [1, 576], blockCount 2, blockLen 40, isPad with -1,
/// loops 2 x 2, source strides 80 / 160, destination strides 128 / 288. Compact: "each inner
/// iteration moves 80 bytes, then 16 bytes of padding make it 96"; Normal: "each block moves
/// 40 bytes, then 24 bytes of padding make it 64".
#[test]
fn scenarios_4_and_5_compact_and_normal() {
    for compact in [true, false] {
        let mut asc = AscendC::new(ChipId::Ascend950, 4096);
        let x = source(320);
        let g = asc.GmAlloc::<i8>("srcGlobal", &x).unwrap();
        let u = asc.AllocTensor::<i8>("srcLocal", 576).unwrap();
        asc.write(&u, &[SENTINEL; 576]).unwrap();
        asc.SetLoopModePara(params(2, 2, 80, 128, 160, 288), DataCopyMVType::OutToUb)
            .unwrap();
        if compact {
            asc.DataCopyPadCompact::<i8>(&u, &g, 2, 40, 0, (true, 0, 0, -1))
                .unwrap();
        } else {
            asc.DataCopyPad::<i8>(&u, &g, 2, 40, 0, 0, Some((true, 0, 0, -1)))
                .unwrap();
        }
        asc.ResetLoopModePara(DataCopyMVType::OutToUb).unwrap();
        let mut want = vec![SENTINEL; 576];
        for i2 in 0..2 {
            for i1 in 0..2 {
                let (s, d) = (i2 * 160 + i1 * 80, i2 * 288 + i1 * 128);
                if compact {
                    want[d..d + 80].copy_from_slice(&x[s..s + 80]);
                    want[d + 80..d + 96].fill(-1);
                } else {
                    for b in 0..2 {
                        let (s, d) = (s + 40 * b, d + 64 * b);
                        want[d..d + 40].copy_from_slice(&x[s..s + 40]);
                        want[d + 40..d + 64].fill(-1);
                    }
                }
            }
        }
        assert_eq!(asc.read::<i8>(&u).unwrap(), want, "compact = {compact}");
    }
}

/// Scenario 6: GM int8 [2, 4, 3, 128, 126] -> UB [512, 128]: the sub-block [2, 2, 2, 64, 126]
/// with each 126-byte row padded by 2 zero bytes; dims 1 and 2 by the hardware loops, dim 0 by a
/// software loop, dim 3 by blockCount.
#[test]
fn scenario_6_five_dimensional_move() {
    let (d0, d1, d2, d3, d4) = (2usize, 4usize, 3usize, 128usize, 126usize);
    let mut asc = AscendC::new(ChipId::Ascend950, d0 * d1 * d2 * d3 * d4 + 64);
    let x: Vec<i8> = (0..d0 * d1 * d2 * d3 * d4)
        .map(|i| ((i * 7 + i / 126) % 255) as i8)
        .collect();
    let g = asc.GmAlloc::<i8>("srcGlobal", &x).unwrap();
    let u = asc.AllocTensor::<i8>("srcLocal", 512 * 128).unwrap();
    asc.write(&u, &vec![SENTINEL; 512 * 128]).unwrap();
    asc.SetLoopModePara(
        params(2, 2, 128 * 126, 64 * 128, 3 * 128 * 126, 2 * 64 * 128),
        DataCopyMVType::OutToUb,
    )
    .unwrap();
    for n in 0..2u64 {
        asc.DataCopyPad::<i8>(
            &u.offset(n * 2 * 2 * 64 * 128),
            &g.offset(n * 4 * 3 * 128 * 126),
            64,
            126,
            0,
            0,
            Some((true, 0, 0, 0)),
        )
        .unwrap();
    }
    asc.ResetLoopModePara(DataCopyMVType::OutToUb).unwrap();
    // numpy: np.pad(x[:2, :2, :2, :64, :], ((0,0),)*4 + ((0, 2),)).reshape(512, 128)
    let mut want = Vec::with_capacity(512 * 128);
    for a in 0..2 {
        for b in 0..2 {
            for c in 0..2 {
                for r in 0..64 {
                    let at = (((a * d1 + b) * d2 + c) * d3 + r) * d4;
                    want.extend_from_slice(&x[at..at + 126]);
                    want.extend([0i8, 0]);
                }
            }
        }
    }
    assert_eq!(asc.read::<i8>(&u).unwrap(), want);
}

/// UB -> GM in loop mode: the blocks of each iteration land at the GM loop strides; the
/// GM -> UB register does not apply to it, and after ResetLoopModePara the move runs once.
#[test]
fn ub_to_gm_loop_and_reset() {
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let g = asc.GmAlloc::<i8>("dstGlobal", &[SENTINEL; 1024]).unwrap();
    let u = asc.AllocTensor::<i8>("srcLocal", 512).unwrap();
    let x = source(512);
    asc.write(&u, &x).unwrap();
    // An armed GM -> UB loop must not affect UB -> GM moves.
    asc.SetLoopModePara(params(3, 3, 0, 0, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    asc.SetLoopModePara(params(2, 3, 64, 100, 128, 300), DataCopyMVType::UbToOut)
        .unwrap();
    // two 20-byte blocks per move, 32-byte UB rows, GM gap 5 bytes
    asc.DataCopyPad::<i8>(&g, &u, 2, 20, 0, 5, None).unwrap();
    let mut want = vec![SENTINEL; 1024];
    for i2 in 0..3 {
        for i1 in 0..2 {
            for b in 0..2 {
                let s = i2 * 128 + i1 * 64 + b * 32;
                let d = i2 * 300 + i1 * 100 + b * 25;
                want[d..d + 20].copy_from_slice(&x[s..s + 20]);
            }
        }
    }
    assert_eq!(asc.read::<i8>(&g).unwrap(), want);
    asc.ResetLoopModePara(DataCopyMVType::UbToOut).unwrap();
    asc.write(&g, &[SENTINEL; 1024]).unwrap();
    asc.DataCopyPad::<i8>(&g, &u, 2, 20, 0, 5, None).unwrap();
    let mut once = vec![SENTINEL; 1024];
    once[..20].copy_from_slice(&x[..20]);
    once[25..45].copy_from_slice(&x[32..52]);
    assert_eq!(asc.read::<i8>(&g).unwrap(), once);
}

/// A loop size of 0 moves nothing.
#[test]
fn zero_loop_size_moves_nothing() {
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let g = asc.GmAlloc::<i8>("g", &source(64)).unwrap();
    let u = asc.AllocTensor::<i8>("u", 64).unwrap();
    asc.write(&u, &[SENTINEL; 64]).unwrap();
    asc.SetLoopModePara(params(0, 1, 0, 0, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    asc.DataCopyPad::<i8>(&u, &g, 1, 32, 0, 0, None).unwrap();
    assert_eq!(asc.read::<i8>(&u).unwrap(), vec![SENTINEL; 64]);
}

#[test]
fn loop_mode_restrictions() {
    // Only on Ascend 950.
    for chip in [ChipId::Ascend910B, ChipId::Ascend310B, ChipId::Ascend310P] {
        let mut asc = AscendC::new(chip, 64);
        assert_eq!(
            asc.SetLoopModePara(params(1, 1, 0, 0, 0, 0), DataCopyMVType::OutToUb),
            Err(AscendError::NotSupported {
                instr: "SetLoopModePara",
                chip
            })
        );
        assert_eq!(
            asc.ResetLoopModePara(DataCopyMVType::OutToUb),
            Err(AscendError::NotSupported {
                instr: "ResetLoopModePara",
                chip
            })
        );
    }
    let mut asc = AscendC::new(ChipId::Ascend950, 1 << 16);
    let out_of_range = |param: &'static str, value: i64, range: &'static str| {
        Err(AscendError::OutOfRange {
            instr: "SetLoopModePara",
            param,
            value,
            range,
        })
    };
    // Sizes in [0, 2^21).
    assert_eq!(
        asc.SetLoopModePara(params(1 << 21, 1, 0, 0, 0, 0), DataCopyMVType::OutToUb),
        out_of_range("loop1Size", 1 << 21, "[0, 2^21)")
    );
    assert_eq!(
        asc.SetLoopModePara(params(1, 1 << 21, 0, 0, 0, 0), DataCopyMVType::UbToOut),
        out_of_range("loop2Size", 1 << 21, "[0, 2^21)")
    );
    // UB side: [0, 2^21) and a multiple of 32; GM side: [0, 2^40).
    assert_eq!(
        asc.SetLoopModePara(params(1, 1, 0, 48, 0, 0), DataCopyMVType::OutToUb),
        Err(AscendError::Rule {
            instr: "SetLoopModePara",
            param: "loop1DstStride",
            value: "48".into(),
            rule: "a UB-side loop stride must be a multiple of 32 bytes",
        })
    );
    assert_eq!(
        asc.SetLoopModePara(params(1, 1, 0, 0, 0, 1 << 21), DataCopyMVType::OutToUb),
        out_of_range("loop2DstStride", 1 << 21, "[0, 2^21) on the UB side")
    );
    assert_eq!(
        asc.SetLoopModePara(params(1, 1, 0, 0, 40, 0), DataCopyMVType::UbToOut),
        Err(AscendError::Rule {
            instr: "SetLoopModePara",
            param: "loop2SrcStride",
            value: "40".into(),
            rule: "a UB-side loop stride must be a multiple of 32 bytes",
        })
    );
    assert_eq!(
        asc.SetLoopModePara(params(1, 1, 1 << 40, 0, 0, 0), DataCopyMVType::OutToUb),
        out_of_range("loop1SrcStride", 1 << 40, "[0, 2^40) on the GM side")
    );
    assert_eq!(
        asc.SetLoopModePara(params(1, 1, 0, 1 << 40, 0, 0), DataCopyMVType::UbToOut),
        out_of_range("loop1DstStride", 1 << 40, "[0, 2^40) on the GM side")
    );
    // GM-side strides need no alignment.
    asc.SetLoopModePara(params(1, 1, 0, 7, 0, 3), DataCopyMVType::UbToOut)
        .unwrap();
    asc.ResetLoopModePara(DataCopyMVType::UbToOut).unwrap();

    let g = asc.GmAlloc::<i8>("g", &source(1024)).unwrap();
    let u = asc.AllocTensor::<i8>("u", 256).unwrap();
    // Iterations writing the same bytes: a 64-byte row every 32 bytes.
    asc.SetLoopModePara(params(2, 1, 40, 32, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    let overlap = Err(AscendError::IllegalOverlap {
        instr: "DataCopyPad",
        dst: "dst",
        src: "dst",
        rule: "loop mode: the iterations' destination data must not overlap (SetLoopModePara)",
    });
    assert_eq!(
        asc.DataCopyPad::<i8>(&u, &g, 1, 40, 0, 0, Some((true, 0, 0, 0))),
        overlap
    );
    // Interleaving without overlap is allowed: 32-byte rows 64 apart, iterations 32 apart.
    asc.SetLoopModePara(params(2, 1, 20, 32, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    asc.DataCopyPad::<i8>(&u, &g, 2, 20, 0, 1, Some((true, 0, 0, 0)))
        .unwrap();
    // The last iteration past the end of the UB tensor.
    asc.SetLoopModePara(params(5, 1, 0, 64, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    assert_eq!(
        asc.DataCopyPad::<i8>(&u, &g, 1, 40, 0, 0, Some((true, 0, 0, 0))),
        Err(AscendError::TensorOverflow {
            instr: "DataCopyPad",
            param: "dst",
            tensor: "u".into(),
            start: 0,
            end: 320,
            size: 256,
        })
    );
    // ... and past the end of the GM tensor on the source side.
    asc.SetLoopModePara(params(2, 1, 1000, 64, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    assert_eq!(
        asc.DataCopyPad::<i8>(&u, &g, 1, 40, 0, 0, Some((true, 0, 0, 0))),
        Err(AscendError::TensorOverflow {
            instr: "DataCopyPad",
            param: "src",
            tensor: "g".into(),
            start: 0,
            end: 1040,
            size: 1024,
        })
    );
}

/// The byte model: `Err(())` when some destination byte is written twice.
#[allow(clippy::too_many_arguments)]
fn model(
    to_ub: bool,
    compact: bool,
    x: &[i8],
    dst: &mut [i8],
    count: usize,
    len: usize,
    sgap: usize,
    dgap: usize,
    right: usize,
    pad: i8,
    l: &LoopModeParams,
) -> Result<(), ()> {
    let mut hits = vec![0u8; dst.len()];
    let mut put = |at: usize, v: i8, dst: &mut [i8]| {
        hits[at] += 1;
        dst[at] = v;
    };
    for i2 in 0..l.loop2_size as usize {
        for i1 in 0..l.loop1_size as usize {
            let s0 = i2 * l.loop2_src_stride as usize + i1 * l.loop1_src_stride as usize;
            let d0 = i2 * l.loop2_dst_stride as usize + i1 * l.loop1_dst_stride as usize;
            if !to_ub {
                // UB rows of ceil32(len) bytes + sgap blocks; GM blocks len + dgap bytes apart.
                for b in 0..count {
                    let s = s0 + b * (len.div_ceil(32) * 32 + 32 * sgap);
                    let d = d0 + b * (len + dgap);
                    for e in 0..len {
                        put(d + e, x[s + e], dst);
                    }
                }
            } else if compact {
                let total = (count * len + right).div_ceil(32) * 32;
                for e in 0..total {
                    put(d0 + e, pad, dst);
                }
                for b in 0..count {
                    for e in 0..len {
                        dst[d0 + b * len + e] = x[s0 + b * (len + sgap) + e];
                    }
                }
            } else {
                let row = (len + right).div_ceil(32) * 32;
                for b in 0..count {
                    let d = d0 + b * (row + 32 * dgap);
                    for e in 0..row {
                        put(d + e, pad, dst);
                    }
                    for e in 0..len {
                        dst[d + e] = x[s0 + b * (len + sgap) + e];
                    }
                }
            }
        }
    }
    if hits.iter().any(|&h| h > 1) {
        Err(())
    } else {
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]

    /// Both paths and both padding modes against the byte model, loop sizes 0..4 and strides
    /// that may overlap (then the model predicts the IllegalOverlap error).
    #[test]
    fn loop_mode_matches_byte_model(
        to_ub in any::<bool>(), compact_pick in any::<bool>(),
        count in 1usize..4, len in 1usize..70, sgap in 0usize..3, dgap in 0usize..3,
        right in 0usize..17, l1 in 0u32..4, l2 in 0u32..4,
        s1 in 0u64..200, s2 in 0u64..400, k1 in 0u64..8, k2 in 0u64..16,
    ) {
        let compact = compact_pick && to_ub;
        let right = if to_ub { right } else { 0 };
        let (ub_1, ub_2) = (32 * k1, 32 * k2);
        let l = if to_ub {
            params(l1, l2, s1, ub_1, s2, ub_2)
        } else {
            params(l1, l2, ub_1, s1, ub_2, s2)
        };
        let mut asc = AscendC::new(ChipId::Ascend950, 1 << 16);
        let ub_len = 4096usize;
        let gm_len = 4096usize;
        let x = source(if to_ub { gm_len } else { ub_len });
        let g = asc.GmAlloc::<i8>("g", &if to_ub { x.clone() } else { vec![SENTINEL; gm_len] })
            .unwrap();
        let u = asc.AllocTensor::<i8>("u", ub_len as u64).unwrap();
        asc.write(&u, &if to_ub { vec![SENTINEL; ub_len] } else { x.clone() }).unwrap();
        asc.SetLoopModePara(l, if to_ub { DataCopyMVType::OutToUb } else { DataCopyMVType::UbToOut })
            .unwrap();
        let (c, n) = (count as u16, len as u32);
        let got = if !to_ub {
            asc.DataCopyPad::<i8>(&g, &u, c, n, sgap as i64, dgap as u32, None)
        } else if compact {
            asc.DataCopyPadCompact::<i8>(&u, &g, c, n, sgap as i64, (true, 0, right as u8, -3))
        } else {
            asc.DataCopyPad::<i8>(&u, &g, c, n, sgap as i64, dgap as u32,
                Some((true, 0, right as u8, -3)))
        };
        let mut want = vec![SENTINEL; if to_ub { ub_len } else { gm_len }];
        let expect = model(to_ub, compact, &x, &mut want, count, len, sgap, dgap, right, -3, &l);
        match expect {
            Err(()) => prop_assert!(
                matches!(got, Err(AscendError::IllegalOverlap { .. })),
                "the model sees an overlap, the simulator says {got:?}"
            ),
            Ok(()) => {
                prop_assert_eq!(got, Ok(()));
                let mem = if to_ub { asc.read::<i8>(&u) } else { asc.read::<i8>(&g) };
                prop_assert_eq!(mem.unwrap(), want);
            }
        }
    }
}

/// Loop mode for DataCopy (the page names DataCopy and DataCopyPad): a 4-D move in the shape
/// of scenario 6, GM [2, 3, 16, 128] int8 -> UB [2, 2, 16, 128], with the DataCopyParams
/// form moving 16 rows of 128 bytes and the two loops walking the outer dimensions.
#[test]
fn data_copy_loops_like_scenario_6() {
    let mut asc = AscendC::new(ChipId::Ascend950, 1 << 16);
    let x = source(2 * 3 * 16 * 128);
    let g = asc.GmAlloc::<i8>("srcGlobal", &x).unwrap();
    let u = asc.AllocTensor::<i8>("srcLocal", 2 * 2 * 16 * 128).unwrap();
    asc.write(&u, &vec![SENTINEL; 8192]).unwrap();
    let row = 16 * 128;
    asc.SetLoopModePara(
        params(2, 2, row as u64, row as u64, 3 * row as u64, 2 * row as u64),
        DataCopyMVType::OutToUb,
    )
    .unwrap();
    asc.DataCopyParams(&u, &g, 16, 4, 0, 0).unwrap();
    let mut want = vec![SENTINEL; 8192];
    for i2 in 0..2 {
        for i1 in 0..2 {
            let (s, d) = (i2 * 3 * row + i1 * row, (i2 * 2 + i1) * row);
            want[d..d + row].copy_from_slice(&x[s..s + row]);
        }
    }
    assert_eq!(asc.read::<i8>(&u).unwrap(), want);
    // The count form loops too: 64 elements (two blocks) per iteration.
    asc.write(&u, &vec![SENTINEL; 8192]).unwrap();
    asc.DataCopy::<i8>(&u, &g, 64).unwrap();
    let mut want = vec![SENTINEL; 8192];
    for i2 in 0..2 {
        for i1 in 0..2 {
            let (s, d) = (i2 * 3 * row + i1 * row, i2 * 2 * row + i1 * row);
            want[d..d + 64].copy_from_slice(&x[s..s + 64]);
        }
    }
    assert_eq!(asc.read::<i8>(&u).unwrap(), want);
    // After the reset the same call moves once.
    asc.ResetLoopModePara(DataCopyMVType::OutToUb).unwrap();
    asc.write(&u, &vec![SENTINEL; 8192]).unwrap();
    asc.DataCopy::<i8>(&u, &g, 64).unwrap();
    let mut want = vec![SENTINEL; 8192];
    want[..64].copy_from_slice(&x[..64]);
    assert_eq!(asc.read::<i8>(&u).unwrap(), want);
}

/// DataCopy in loop mode is DataCopyPad with the same move in bytes (gaps in 32-byte units
/// on both sides become DataCopyPad's units), on both paths, and a plain byte model agrees.
#[test]
fn data_copy_in_loop_mode_equals_data_copy_pad_and_the_model() {
    let cases: [(u16, u16, u16, u16, LoopModeParams); 4] = [
        (2, 1, 1, 2, params(3, 2, 64, 256, 512, 1024)),
        (3, 2, 0, 1, params(2, 2, 96, 320, 640, 1280)),
        (1, 3, 2, 0, params(1, 3, 0, 96, 4096, 128)),
        // Interleaved iterations (the page allows them): blocks 64 bytes apart, iterations 32.
        (4, 1, 3, 1, params(2, 1, 32, 32, 0, 0)),
    ];
    for (count, len, sgap, dgap, lp) in cases {
        for path in [DataCopyMVType::OutToUb, DataCopyMVType::UbToOut] {
            let run = |pad: bool| {
                let mut asc = AscendC::new(ChipId::Ascend950, 1 << 16);
                let x = source(16384);
                let g = asc.GmAlloc::<i8>("g", &x).unwrap();
                let u = asc.AllocTensor::<i8>("u", 16384).unwrap();
                asc.write(&u, &x.iter().rev().copied().collect::<Vec<_>>())
                    .unwrap();
                asc.SetLoopModePara(lp, path).unwrap();
                let (blen, to_ub) = (len as u32 * 32, path == DataCopyMVType::OutToUb);
                match (pad, to_ub) {
                    (false, true) => asc.DataCopyParams(&u, &g, count, len, sgap, dgap),
                    (false, false) => asc.DataCopyParams(&g, &u, count, len, sgap, dgap),
                    (true, true) => asc.DataCopyPad::<i8>(
                        &u,
                        &g,
                        count,
                        blen,
                        sgap as i64 * 32,
                        dgap as u32,
                        Some((false, 0, 0, 0)),
                    ),
                    (true, false) => asc.DataCopyPad::<i8>(
                        &g,
                        &u,
                        count,
                        blen,
                        sgap as i64,
                        dgap as u32 * 32,
                        None,
                    ),
                }
                .unwrap();
                let out = if to_ub {
                    asc.read::<i8>(&u)
                } else {
                    asc.read::<i8>(&g)
                };
                (x, out.unwrap())
            };
            let (x, got) = run(false);
            let (_, pad) = run(true);
            assert_eq!(got, pad, "{count} {len} {sgap} {dgap} {lp:?} {path:?}");
            // Model: block b of iteration (i2, i1) moves len*32 bytes.
            let ub0: Vec<i8> = x.iter().rev().copied().collect();
            let (mut want, src) = if path == DataCopyMVType::OutToUb {
                (ub0, x.clone())
            } else {
                (x.clone(), ub0)
            };
            let n = len as usize * 32;
            for i2 in 0..lp.loop2_size as usize {
                for i1 in 0..lp.loop1_size as usize {
                    let so = i1 * lp.loop1_src_stride as usize + i2 * lp.loop2_src_stride as usize;
                    let dof = i1 * lp.loop1_dst_stride as usize + i2 * lp.loop2_dst_stride as usize;
                    for b in 0..count as usize {
                        let s = so + b * (n + sgap as usize * 32);
                        let d = dof + b * (n + dgap as usize * 32);
                        want[d..d + n].copy_from_slice(&src[s..s + n]);
                    }
                }
            }
            assert_eq!(got, want, "{count} {len} {sgap} {dgap} {lp:?} {path:?}");
        }
    }
}

#[test]
fn data_copy_loop_mode_restrictions_name_data_copy() {
    let mut asc = AscendC::new(ChipId::Ascend950, 8192);
    let g = asc.GmAlloc::<i8>("g", &source(4096)).unwrap();
    let u = asc.AllocTensor::<i8>("u", 1024).unwrap();
    // Iterations writing the same UB bytes.
    asc.SetLoopModePara(params(2, 1, 64, 32, 0, 0), DataCopyMVType::OutToUb)
        .unwrap();
    let e = asc.DataCopyParams(&u, &g, 1, 2, 0, 0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "DataCopy",
                ..
            }
        ),
        "{e}"
    );
    // Iterations reaching past the UB tensor.
    asc.SetLoopModePara(params(2, 2, 64, 512, 128, 1024), DataCopyMVType::OutToUb)
        .unwrap();
    let e = asc.DataCopyParams(&u, &g, 1, 2, 0, 0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "DataCopy",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // The other path is not armed: UB -> GM moves once.
    asc.DataCopyParams(&g, &u, 1, 2, 0, 0).unwrap();
}
