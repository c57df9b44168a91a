//! Acceptance (3) of issue #5: one test per restriction, checking the exact error variant and
//! its fields, and that a refused instruction writes nothing.

use npusim_tpu::chip::AddrRange;
use npusim_tpu::error::MaybeRange;
use npusim_tpu::{DataType, HauError, HauOp, Scalar, TpuChip, TpuCore};

const GM_SIZE: u64 = 1 << 16;

fn core() -> (TpuCore, u64) {
    let c = TpuCore::with_gm_size(TpuChip::Bm1684x, GM_SIZE).unwrap();
    let b = c.gm_base();
    (c, b)
}

fn gm() -> AddrRange {
    AddrRange {
        base: 0x1_0000_0000,
        size: GM_SIZE,
    }
}

fn l2() -> MaybeRange {
    MaybeRange(TpuChip::Bm1684x.l2_sram())
}

/// A valid line_gather call on `c` with the given overrides applied by `f`.
struct Gather {
    out: u64,
    param: u64,
    index: u64,
    line_num: i32,
    line_len: i32,
    index_len: i32,
    start: i32,
    end: i32,
    dtype: DataType,
}

impl Gather {
    fn valid(base: u64) -> Gather {
        Gather {
            out: base + 0x1000,
            param: base,
            index: base + 0x2000,
            line_num: 8,
            line_len: 4,
            index_len: 4,
            start: 2,
            end: 5,
            dtype: DataType::Fp16,
        }
    }
    fn run(&self, c: &mut TpuCore) -> Result<(), HauError> {
        c.tpu_hau_line_gather(
            self.out,
            self.param,
            self.index,
            Scalar::from_bits(0),
            self.line_num,
            self.line_len,
            self.index_len,
            self.start,
            self.end,
            self.dtype,
            true,
        )
    }
}

#[test]
fn k_zero_is_refused_and_nothing_is_written() {
    let (mut c, b) = core();
    c.fill_bytes(b + 0x100, 64, 0xab).unwrap();
    let e = c
        .tpu_hau_sort(b + 0x100, b, 8, 0, false, DataType::Fp32)
        .unwrap_err();
    assert_eq!(
        e,
        HauError::KOutOfRange {
            op: HauOp::Sort,
            k: 0,
            len: 8
        }
    );
    assert_eq!(
        e.to_string(),
        "K out of range: tpu_hau_sort: K = 0, must be in 1..=len (len = 8)"
    );
    assert!(
        c.read_bytes(b + 0x100, 64)
            .unwrap()
            .iter()
            .all(|&x| x == 0xab)
    );
    assert_eq!(c.hau_issued(), 0);
}

#[test]
fn k_above_len_is_refused() {
    let (mut c, b) = core();
    let e = c
        .tpu_hau_sort_natural_index(b + 0x100, b + 0x200, b, 8, 9, true, DataType::Int32)
        .unwrap_err();
    assert_eq!(
        e,
        HauError::KOutOfRange {
            op: HauOp::SortNaturalIndex,
            k: 9,
            len: 8
        }
    );
    let e = c
        .tpu_hau_sort_specific_index(
            b + 0x100,
            b + 0x200,
            b,
            b + 0x300,
            4,
            -1,
            true,
            DataType::Uint32,
        )
        .unwrap_err();
    assert_eq!(
        e,
        HauError::KOutOfRange {
            op: HauOp::SortSpecificIndex,
            k: -1,
            len: 4
        }
    );
}

#[test]
fn len_not_positive_is_refused() {
    let (mut c, b) = core();
    let e = c
        .tpu_hau_sort(b + 0x100, b, 0, 0, false, DataType::Fp32)
        .unwrap_err();
    assert_eq!(
        e,
        HauError::LenOutOfRange {
            op: HauOp::Sort,
            len: 0
        }
    );
}

#[test]
fn sort_dtype_other_than_fp32_int32_uint32_is_refused() {
    let (mut c, b) = core();
    for dtype in [
        DataType::Fp16,
        DataType::Bfp16,
        DataType::Int16,
        DataType::Uint8,
    ] {
        let e = c
            .tpu_hau_sort(b + 0x100, b, 8, 1, false, dtype)
            .unwrap_err();
        assert_eq!(
            e,
            HauError::UnsupportedDtype {
                op: HauOp::Sort,
                dtype,
                allowed: "DT_FP32, DT_INT32, DT_UINT32"
            }
        );
    }
}

#[test]
fn line_gather_dtype_not_8_16_32_bit_is_refused() {
    let (mut c, b) = core();
    for dtype in [DataType::Int4, DataType::Uint4, DataType::Fp20] {
        let g = Gather {
            dtype,
            ..Gather::valid(b)
        };
        match g.run(&mut c).unwrap_err() {
            HauError::UnsupportedDtype { op, dtype: d, .. } => {
                assert_eq!((op, d), (HauOp::LineGather, dtype));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn sort_address_not_4_byte_aligned_is_refused() {
    let (mut c, b) = core();
    let e = c
        .tpu_hau_sort(b + 0x100, b + 2, 8, 1, false, DataType::Fp32)
        .unwrap_err();
    assert_eq!(
        e,
        HauError::Misaligned {
            op: HauOp::Sort,
            param: "input_addr",
            addr: b + 2,
            align: 4
        }
    );
    let e = c
        .tpu_hau_sort_natural_index(b + 0x100, b + 0x201, b, 8, 1, false, DataType::Fp32)
        .unwrap_err();
    assert_eq!(
        e,
        HauError::Misaligned {
            op: HauOp::SortNaturalIndex,
            param: "output_idx_addr",
            addr: b + 0x201,
            align: 4
        }
    );
    let e = c
        .tpu_hau_sort_specific_index(
            b + 0x100,
            b + 0x200,
            b,
            b + 0x303,
            8,
            1,
            false,
            DataType::Fp32,
        )
        .unwrap_err();
    assert_eq!(
        e,
        HauError::Misaligned {
            op: HauOp::SortSpecificIndex,
            param: "input_idx_addr",
            addr: b + 0x303,
            align: 4
        }
    );
    // 4-byte alignment is enough.
    c.tpu_hau_sort(b + 0x104, b + 4, 8, 1, false, DataType::Fp32)
        .unwrap();
}

#[test]
fn line_gather_address_not_64_byte_aligned_is_refused() {
    let (mut c, b) = core();
    for (param, g) in [
        (
            "output_addr",
            Gather {
                out: b + 0x1020,
                ..Gather::valid(b)
            },
        ),
        (
            "param_addr",
            Gather {
                param: b + 4,
                ..Gather::valid(b)
            },
        ),
        (
            "index_addr",
            Gather {
                index: b + 0x2010,
                ..Gather::valid(b)
            },
        ),
    ] {
        let addr = match param {
            "output_addr" => g.out,
            "param_addr" => g.param,
            _ => g.index,
        };
        assert_eq!(
            g.run(&mut c).unwrap_err(),
            HauError::Misaligned {
                op: HauOp::LineGather,
                param,
                addr,
                align: 64
            }
        );
    }
    Gather::valid(b).run(&mut c).unwrap();
}

#[test]
fn address_outside_memory_is_refused() {
    let (mut c, b) = core();
    // Past the end of global memory: 8 floats starting 16 bytes before the end.
    let near_end = b + GM_SIZE - 16;
    assert_eq!(
        c.tpu_hau_sort(b, near_end, 8, 1, false, DataType::Fp32)
            .unwrap_err(),
        HauError::AddressOutOfRange {
            op: HauOp::Sort,
            param: "input_addr",
            addr: near_end,
            bytes: 32,
            gm: gm(),
            l2: l2()
        }
    );
    // Below global memory, in the gap above L2 SRAM.
    let gap = 0x8000_0000;
    assert_eq!(
        c.tpu_hau_sort(gap, b, 8, 1, false, DataType::Fp32)
            .unwrap_err(),
        HauError::AddressOutOfRange {
            op: HauOp::Sort,
            param: "output_addr",
            addr: gap,
            bytes: 4,
            gm: gm(),
            l2: l2()
        }
    );
    // Straddling the end of L2 SRAM.
    let l2_tail = 0x1000_0000 + 0x1F_B000 - 64;
    let g = Gather {
        param: l2_tail,
        line_len: 32,
        ..Gather::valid(b)
    };
    assert_eq!(
        g.run(&mut c).unwrap_err(),
        HauError::AddressOutOfRange {
            op: HauOp::LineGather,
            param: "param_addr",
            addr: l2_tail,
            bytes: 4 * 32 * 2,
            gm: gm(),
            l2: l2()
        }
    );
    // The top of the address space does not wrap around.
    assert!(matches!(
        c.tpu_hau_sort(b, u64::MAX - 3, 8, 1, false, DataType::Fp32),
        Err(HauError::AddressOutOfRange { .. })
    ));
    // BM1688 has no L2 SRAM in its profile.
    let mut c2 = TpuCore::with_gm_size(TpuChip::Bm1688, GM_SIZE).unwrap();
    let b2 = c2.gm_base();
    assert_eq!(
        c2.tpu_hau_sort(b2, 0x1000_0000, 8, 1, false, DataType::Fp32)
            .unwrap_err(),
        HauError::AddressOutOfRange {
            op: HauOp::Sort,
            param: "input_addr",
            addr: 0x1000_0000,
            bytes: 32,
            gm: AddrRange {
                base: 1 << 39,
                size: GM_SIZE
            },
            l2: MaybeRange(None)
        }
    );
}

#[test]
fn l2_sram_buffers_are_accepted() {
    let (mut c, b) = core();
    let l2 = 0x1000_0000;
    c.write_f32s(l2, &[3.0, 1.0, 2.0]).unwrap();
    c.tpu_hau_sort_natural_index(b, l2 + 64, l2, 3, 3, false, DataType::Fp32)
        .unwrap();
    assert_eq!(c.read_f32s(b, 3).unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(c.read_i32s(l2 + 64, 3).unwrap(), vec![1, 2, 0]);
}

#[test]
fn line_gather_negative_start_is_refused() {
    let (mut c, b) = core();
    let g = Gather {
        start: -1,
        ..Gather::valid(b)
    };
    assert_eq!(
        g.run(&mut c).unwrap_err(),
        HauError::StartNegative {
            op: HauOp::LineGather,
            start: -1
        }
    );
}

#[test]
fn line_gather_start_after_end_is_refused() {
    let (mut c, b) = core();
    let g = Gather {
        start: 5,
        end: 4,
        ..Gather::valid(b)
    };
    assert_eq!(
        g.run(&mut c).unwrap_err(),
        HauError::StartAfterEnd {
            op: HauOp::LineGather,
            start: 5,
            end: 4
        }
    );
}

#[test]
fn line_gather_end_not_below_line_num_is_refused() {
    let (mut c, b) = core();
    let g = Gather {
        end: 8,
        ..Gather::valid(b)
    };
    let e = g.run(&mut c).unwrap_err();
    assert_eq!(
        e,
        HauError::EndOutOfRange {
            op: HauOp::LineGather,
            end: 8,
            line_num: 8
        }
    );
    assert_eq!(
        e.to_string(),
        "end out of range: tpu_hau_line_gather: end = 8, must be < line_num (line_num = 8)"
    );
}

#[test]
fn line_gather_empty_line_or_index_is_refused() {
    let (mut c, b) = core();
    let g = Gather {
        line_len: 0,
        ..Gather::valid(b)
    };
    assert_eq!(
        g.run(&mut c).unwrap_err(),
        HauError::CountOutOfRange {
            op: HauOp::LineGather,
            param: "line_len",
            value: 0
        }
    );
    let g = Gather {
        index_len: -3,
        ..Gather::valid(b)
    };
    assert_eq!(
        g.run(&mut c).unwrap_err(),
        HauError::CountOutOfRange {
            op: HauOp::LineGather,
            param: "index_len",
            value: -3
        }
    );
}

#[test]
fn extreme_parameters_never_panic() {
    let (mut c, b) = core();
    for (len, k) in [
        (i32::MAX, 1),
        (i32::MAX, i32::MAX),
        (i32::MIN, i32::MIN),
        (1, i32::MAX),
    ] {
        assert!(
            c.tpu_hau_sort_natural_index(b, b + 64, b + 128, len, k, false, DataType::Fp32)
                .is_err()
        );
    }
    let g = Gather {
        line_num: i32::MAX,
        line_len: i32::MAX,
        index_len: i32::MAX,
        start: 0,
        end: i32::MAX - 1,
        ..Gather::valid(b)
    };
    assert!(matches!(
        g.run(&mut c),
        Err(HauError::AddressOutOfRange { .. })
    ));
}

#[test]
fn poll_retires_issued_commands() {
    let (mut c, b) = core();
    c.write_u32s(b, &[2, 1]).unwrap();
    c.tpu_hau_sort(b + 64, b, 2, 1, false, DataType::Uint32)
        .unwrap();
    Gather::valid(b).run(&mut c).unwrap();
    assert_eq!(c.hau_outstanding(), 2);
    assert_eq!(c.tpu_hau_poll(), 2);
    assert_eq!(c.tpu_hau_poll(), 0);
    assert_eq!(c.hau_issued(), 2);
}

/// Issue #12: an absurd global-memory size is a typed error, not an abort of the process.
#[test]
fn gm_size_above_limit_is_a_typed_error() {
    use npusim_tpu::{CoreError, MAX_GM_SIZE};
    for requested in [MAX_GM_SIZE + 1, u64::MAX] {
        let e = TpuCore::with_gm_size(TpuChip::Bm1684x, requested).unwrap_err();
        assert_eq!(
            e,
            CoreError::GmSizeTooLarge {
                requested,
                limit: MAX_GM_SIZE
            }
        );
        assert!(e.to_string().contains("gm_size"), "{e}");
    }
    // The limit itself is accepted (allocated lazily by the host, nothing touched here) and
    // the simulated memory has exactly that size.
    let c = TpuCore::with_gm_size(TpuChip::Bm1688, MAX_GM_SIZE).unwrap();
    assert_eq!(c.memory().gm_range().size, MAX_GM_SIZE);
}
