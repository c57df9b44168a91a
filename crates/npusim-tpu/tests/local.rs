//! Issue #16, priorities (1) and (2): the local-memory machine model and GDMA copies.
//!
//! * proptests of the layout arithmetic against a plain model written here from the
//!   TPU-Kernel reference (lane `(s + c) % NPU`, slot `(s + c) / NPU`, the four stride rules);
//! * GDMA copies against a plain element-by-element model of the same addresses;
//! * one test per restriction.

use npusim_tpu::{DataType, Dim4, HostSimd, Layout, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("NPUSIM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn align(x: i64, a: i64) -> i64 {
    (x + a - 1) / a * a
}

/// Plain stride model: (layout, start lane, shape, element bytes) -> (n, c, h, w) strides.
fn plain_stride(chip: TpuChip, layout: Layout, start: i64, s: Dim4, esize: i64) -> [i64; 4] {
    let (npu, eu) = match chip {
        TpuChip::Bm1684x => (64, 64 / esize),
        TpuChip::Bm1688 => (32, 16 / esize),
    };
    let (n, c, h, w) = (s.n as i64, s.c as i64, s.h as i64, s.w as i64);
    let slots = (start + c + npu - 1) / npu;
    match layout {
        Layout::Aligned => {
            let cs = align(h * w, eu);
            [cs * slots, cs, w, 1]
        }
        Layout::Compact => [h * w * slots, h * w, w, 1],
        Layout::LineAligned => {
            let hs = align(w, eu);
            [h * hs * slots, h * hs, hs, 1]
        }
        Layout::Continuous => {
            let _ = n;
            [c * h * w, h * w, w, 1]
        }
    }
}

fn dtype_of(esize: usize) -> DataType {
    match esize {
        1 => DataType::Int8,
        2 => DataType::Fp16,
        _ => DataType::Fp32,
    }
}

fn layout_any() -> impl Strategy<Value = Layout> {
    prop::sample::select(vec![
        Layout::Aligned,
        Layout::Compact,
        Layout::LineAligned,
        Layout::Continuous,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn layout_strides_equal_plain_model(
        bm1688: bool, layout in layout_any(), start in 0i32..64,
        n in 1i32..5, c in 1i32..200, h in 1i32..40, w in 1i32..90,
        esize in prop::sample::select(vec![1usize, 2, 4]),
    ) {
        let chip = if bm1688 { TpuChip::Bm1688 } else { TpuChip::Bm1684x };
        let p = chip.local();
        let start = start % p.npu_num as i32;
        let s = Dim4::new(n, c, h, w);
        let got = p.layout_stride(layout, start, &s, dtype_of(esize)).unwrap();
        let want = plain_stride(chip, layout, start as i64, s, esize as i64);
        prop_assert_eq!([got.n as i64, got.c as i64, got.h as i64, got.w as i64], want);
        // The vendor-named helpers give the same strides.
        let named = match layout {
            Layout::Aligned => p.tpu_aligned_stride(start, &s, dtype_of(esize)).unwrap(),
            Layout::Compact => p.tpu_compact_stride(start, &s),
            Layout::LineAligned => p.tpu_line_aligned_stride(start, &s, dtype_of(esize)).unwrap(),
            Layout::Continuous => p.tpu_continuous_stride(&s),
        };
        prop_assert_eq!(named, got);
        if layout == Layout::Aligned {
            prop_assert_eq!(
                p.tpu_aligned_feature_size(h, w, dtype_of(esize)).unwrap() as i64,
                want[1] * esize as i64
            );
        }
        // Per-lane size and the helpers built on the same rule.
        if layout == Layout::Aligned || layout == Layout::Compact {
            let size = p.tpu_get_local_size(&s, dtype_of(esize), start, layout == Layout::Aligned).unwrap();
            prop_assert_eq!(size, n as i64 * want[0] * esize as i64);
        }
        prop_assert_eq!(
            p.tpu_channle_num_per_npu(start, c) as i64,
            (start as i64 + c as i64 + p.npu_num as i64 - 1) / p.npu_num as i64
        );
    }

    /// The per-call fast path of a NULL-stride local operand (`LocalView::aligned_fast`)
    /// accepts exactly what the checked path accepts (alignment, then `layout_stride` and
    /// `LocalView::new`), and gives the same view: strides, and the byte of every row end.
    /// Shapes and addresses reach past the limits (dims 0 and 65536, addresses past local
    /// memory, footprints past the lane, every dtype).
    #[test]
    fn aligned_view_fast_equals_checked_path(
        bm1688: bool, lane in 0u32..70, offset in 0u32..(1 << 18), snap in 0u32..4,
        n in 0i32..4, c in 0i32..140, h in 0i32..80, w in 0i32..300,
        big in prop::sample::select(vec![0i32, 1, 2, 3, 4]),
        dt in 0usize..npusim_tpu::dtype::ALL_DATA_TYPES.len(), align_pow in 0u32..8, lane0: bool,
    ) {
        let chip = if bm1688 { TpuChip::Bm1688 } else { TpuChip::Bm1684x };
        let p = chip.local();
        // Offsets snapped to 64-byte, element and odd boundaries, and the lane's last bytes.
        let offset = match snap {
            0 => offset & !63,
            1 => offset & !3,
            2 => offset,
            _ => p.local_mem_per_npu - 1 - (offset & 255),
        } % p.local_mem_per_npu;
        let addr = lane * p.local_mem_per_npu + offset;
        let mut s = Dim4::new(n, c, h, w);
        match big {
            1 => s.w = 65535,
            2 => s.h = 65536,
            3 => s.c = 65535,
            4 => s.n = -1,
            _ => {}
        }
        let dtype = npusim_tpu::dtype::ALL_DATA_TYPES[dt];
        let align = 1u32 << align_pow;
        let fast = npusim_tpu::local::LocalView::aligned_fast(&p, addr, &s, dtype, align, lane0);
        let checked = (|| {
            if addr % align != 0 {
                return None;
            }
            if [s.n, s.c, s.h, s.w].iter().any(|&d| !(1..=65535).contains(&d)) {
                return None;
            }
            let start = if lane0 { 0 } else { p.tpu_npu_index(addr) as i32 };
            let stride = p.layout_stride(Layout::Aligned, start, &s, dtype).ok()?;
            let es = p.tpu_data_type_size(dtype).ok()?;
            npusim_tpu::local::LocalView::new(&p, "op", "addr", addr, s, stride, es).ok()
        })();
        prop_assert_eq!(fast.is_some(), checked.is_some(), "{:?} {:?} {:?}", addr, s, dtype);
        if let (Some(f), Some(k)) = (fast, checked) {
            prop_assert_eq!((f.start, f.offset, f.shape, f.stride, f.esize),
                (k.start, k.offset, k.shape, k.stride, k.esize));
            prop_assert_eq!(f.lane_span(), k.lane_span());
            let (nn, cc, hh) = (s.n as usize, s.c as usize, s.h as usize);
            for (i, j, k2) in [(0, 0, 0), (nn - 1, cc - 1, hh - 1), (nn / 2, cc / 2, hh / 2)] {
                prop_assert_eq!(f.row(i, j, k2), k.row(i, j, k2));
            }
        }
    }

    #[test]
    fn local_addr_arithmetic(addr in 0u32..(64 << 18)) {
        let p = TpuChip::Bm1684x.local();
        prop_assert_eq!(p.tpu_npu_index(addr), addr >> 18);
        prop_assert_eq!(p.tpu_bank_index(addr), (addr & 0x3ffff) >> 14);
        prop_assert_eq!(p.local_addr(p.tpu_npu_index(addr), p.npu_offset(addr)), addr);
    }

    /// S2L with any layout (or explicit strides) puts element (n,c,h,w) where the plain model
    /// says, L2S brings it back, and S2S / L2L with strides agree with a plain strided copy.
    #[test]
    fn gdma_copies_equal_plain_model(
        start in 0u32..64, off in 0u32..64, layout in layout_any(),
        n in 1i32..3, c in 1i32..80, h in 1i32..5, w in 1i32..9,
        esize in prop::sample::select(vec![1usize, 2, 4]), ws in 1i32..3, seed in any::<u32>(),
    ) {
        let chip = TpuChip::Bm1684x;
        let p = chip.local();
        let dtype = dtype_of(esize);
        let shape = Dim4::new(n, c, h, w);
        let count = shape.count();
        let src: Vec<u8> = (0..count * esize).map(|i| (i as u32 ^ seed).wrapping_mul(2_654_435_761).to_le_bytes()[3]).collect();
        let mut core = TpuCore::with_gm_size(chip, 1 << 20).unwrap();
        let g = core.gm_base();
        core.write_bytes(g, &src).unwrap();
        let laddr = start * p.local_mem_per_npu + off * esize as u32 * 4;
        // A NULL local stride of S2L/L2S counts slots from lane 0 (the C-model's default).
        let explicit = layout != Layout::Aligned || ws > 1;
        let st_start = if explicit { start as i64 } else { 0 };
        let st = plain_stride(chip, layout, st_start, shape, esize as i64);
        let mut dst_stride = Dim4::new(st[0] as i32, st[1] as i32, st[2] as i32, st[3] as i32);
        // A wider w stride (and h/c/n strides grown to fit it) exercises the element loop.
        if ws > 1 && layout != Layout::Continuous {
            dst_stride = Dim4::new(dst_stride.n * ws, dst_stride.c * ws, dst_stride.h * ws, ws);
        }
        core.tpu_gdma_cpy_S2L(laddr, g, &shape, explicit.then_some(&dst_stride), None, dtype).unwrap();
        let local = core.local_store().to_vec();
        for (i, e) in src.chunks_exact(esize).enumerate() {
            let (ni, ci, hi, wi) = (i / (c * h * w) as usize, (i / (h * w) as usize) % c as usize,
                (i / w as usize) % h as usize, i % w as usize);
            let lane = (start as usize + ci) % 64;
            let slot = (start as usize + ci) / 64;
            let a = lane * npusim_tpu::TpuChip::Bm1684x.local().store_pitch() as usize + laddr as usize % (256 << 10)
                + (ni * dst_stride.n as usize + slot * dst_stride.c as usize
                   + hi * dst_stride.h as usize + wi * dst_stride.w as usize) * esize;
            prop_assert_eq!(&local[a..a + esize], e, "element {}", i);
        }
        // Back to system memory, continuous.
        let g2 = g + 0x40000;
        core.tpu_gdma_cpy_L2S(g2, laddr, &shape, None, explicit.then_some(&dst_stride), dtype).unwrap();
        prop_assert_eq!(core.read_bytes(g2, src.len()).unwrap(), src.clone());
        // L2L into an aligned tensor on another lane (its default counts slots from its start
        // lane), then out again with that stride given explicitly.
        let s2 = (start + 7) % 64;
        let l2 = s2 * p.local_mem_per_npu + 0x20000;
        core.tpu_gdma_cpy_L2L(l2, laddr, &shape, None, Some(&dst_stride), dtype).unwrap();
        let a2 = plain_stride(chip, Layout::Aligned, s2 as i64, shape, esize as i64);
        let a2 = Dim4::new(a2[0] as i32, a2[1] as i32, a2[2] as i32, a2[3] as i32);
        let g3 = g + 0x80000;
        core.tpu_gdma_cpy_L2S(g3, l2, &shape, None, Some(&a2), dtype).unwrap();
        prop_assert_eq!(core.read_bytes(g3, src.len()).unwrap(), src.clone());
        // S2S with a w stride on the destination: a plain strided scatter.
        let sd = Dim4::new(c * h * w * 2, h * w * 2, w * 2, 2);
        let g4 = g + 0xC0000;
        core.fill_bytes(g4, count * 2 * esize, 0xee).unwrap();
        core.tpu_gdma_cpy_S2S(g4, g, &shape, Some(&sd), None, dtype).unwrap();
        let out = core.read_bytes(g4, count * 2 * esize).unwrap();
        for (i, e) in src.chunks_exact(esize).enumerate() {
            prop_assert_eq!(&out[2 * i * esize..(2 * i + 1) * esize], e);
            prop_assert!(out[(2 * i + 1) * esize..(2 * i + 2) * esize].iter().all(|&b| b == 0xee));
        }
    }
}

/// The C-model's default local strides: S2L/L2S put batch n at `n * cs * ceil(C / 64)` whatever
/// the start lane; L2L at `n * cs * ceil((start + C) / 64)` (see golden/tpu/gdma.json).
#[test]
fn default_local_n_stride_per_direction() {
    let mut c = core();
    let g = c.gm_base();
    let shape = Dim4::new(2, 17, 1, 2);
    let data: Vec<u32> = (1000..1068).collect();
    c.write_u32s(g, &data).unwrap();
    c.tpu_gdma_cpy_S2L(52 << 18, g, &shape, None, None, DataType::Fp32)
        .unwrap();
    // n = 1, c = 0 lands on lane 52 at element offset 16 (C-model probe: value 1034).
    let got = c.read_local((52 << 18) + 64, 8).unwrap();
    assert_eq!(got, [1034u32.to_le_bytes(), 1035u32.to_le_bytes()].concat());
    // c = 12 wraps to lane 0, slot 1: offset 16 (n = 0) and 32 (n = 1).
    assert_eq!(c.read_local(64, 4).unwrap(), 1024u32.to_le_bytes());
    assert_eq!(c.read_local(128, 4).unwrap(), 1058u32.to_le_bytes());
}

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap()
}

#[test]
fn restriction_shape_dims() {
    let mut c = core();
    let g = c.gm_base();
    for (shape, param, value) in [
        (Dim4::new(0, 1, 1, 1), "shape.n", 0),
        (Dim4::new(1, 65536, 1, 1), "shape.c", 65536),
        (Dim4::new(1, 1, -3, 1), "shape.h", -3),
        (Dim4::new(1, 1, 1, 65536), "shape.w", 65536),
    ] {
        assert_eq!(
            c.tpu_gdma_cpy_S2L(0, g, &shape, None, None, DataType::Fp32),
            Err(TpuError::DimOutOfRange {
                op: "tpu_gdma_cpy_S2L",
                param,
                value
            })
        );
    }
}

#[test]
fn restriction_w_stride_bytes() {
    let mut c = core();
    let g = c.gm_base();
    let shape = Dim4::new(1, 1, 1, 3);
    // 33 f32 = 132 bytes > 128 (the C-model's assert message: "W stride byte len = 132").
    let e = c
        .tpu_gdma_cpy_S2L(
            0,
            g,
            &shape,
            Some(&Dim4::new(99, 99, 99, 33)),
            None,
            DataType::Fp32,
        )
        .unwrap_err();
    assert_eq!(
        e,
        TpuError::WStrideOutOfRange {
            op: "tpu_gdma_cpy_S2L",
            param: "dst_stride",
            value: 33,
            bytes: 132,
            max_bytes: 128
        }
    );
    // 32 f32 = 128 bytes is accepted; 0 is not.
    c.tpu_gdma_cpy_S2L(
        0,
        g,
        &shape,
        Some(&Dim4::new(99, 99, 99, 32)),
        None,
        DataType::Fp32,
    )
    .unwrap();
    assert!(matches!(
        c.tpu_gdma_cpy_L2S(
            g,
            0,
            &shape,
            Some(&Dim4::new(3, 3, 3, 0)),
            None,
            DataType::Fp32
        ),
        Err(TpuError::WStrideOutOfRange { value: 0, .. })
    ));
}

#[test]
fn restriction_negative_stride() {
    let mut c = core();
    let g = c.gm_base();
    assert_eq!(
        c.tpu_gdma_cpy_S2S(
            g,
            g + 64,
            &Dim4::new(1, 2, 1, 1),
            None,
            Some(&Dim4::new(2, -1, 1, 1)),
            DataType::Int8
        ),
        Err(TpuError::StrideNegative {
            op: "tpu_gdma_cpy_S2S",
            param: "src_stride",
            field: "c",
            value: -1
        })
    );
}

#[test]
fn restriction_local_footprint_and_address() {
    let mut c = core();
    let g = c.gm_base();
    // 16 f32 at lane offset 0x40000 - 32 runs past the lane (the C-model asserts
    // "start=262112, len=64 is out of mem range").
    assert_eq!(
        c.tpu_gdma_cpy_S2L(
            0x40000 - 32,
            g,
            &Dim4::new(1, 1, 1, 16),
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::LocalFootprint {
            op: "tpu_gdma_cpy_S2L",
            param: "dst_addr",
            addr: 0x40000 - 32,
            end: 0x40000 + 32,
            limit: 0x40000
        })
    );
    assert_eq!(
        c.tpu_gdma_cpy_L2S(
            g,
            64 << 18,
            &Dim4::new(1, 1, 1, 1),
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::LocalAddrOutOfRange {
            op: "tpu_gdma_cpy_L2S",
            param: "src_addr",
            addr: 64 << 18,
            limit: 64 << 18
        })
    );
}

#[test]
fn restriction_system_range() {
    let mut c = core();
    let g = c.gm_base();
    assert!(matches!(
        c.tpu_gdma_cpy_S2L(
            0,
            g + (1 << 20) - 8,
            &Dim4::new(1, 1, 1, 4),
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::System {
            op: "tpu_gdma_cpy_S2L",
            param: "src_addr",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_gdma_cpy_L2S(
            0x2000,
            0,
            &Dim4::new(1, 1, 1, 4),
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::System {
            param: "dst_addr",
            ..
        })
    ));
}

#[test]
fn restriction_dtype_without_byte_size_or_eu() {
    let mut c = core();
    let g = c.gm_base();
    assert!(matches!(
        c.tpu_gdma_cpy_S2L(0, g, &Dim4::new(1, 1, 1, 2), None, None, DataType::Int4),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_data_type_size",
            ..
        })
    ));
    let p = TpuChip::Bm1684x.local();
    for d in [
        DataType::Fp8E5M2,
        DataType::Fp8E4M3,
        DataType::Fp20,
        DataType::Uint4,
    ] {
        assert!(matches!(
            p.tpu_eu_num(d),
            Err(TpuError::UnsupportedDtype {
                op: "tpu_eu_num",
                ..
            })
        ));
    }
}

#[test]
fn sync_state_machine() {
    let mut c = core();
    assert!(!c.tpu_is_parallel_state());
    assert!(matches!(
        c.tpu_parallel_end(),
        Err(TpuError::SyncState {
            op: "tpu_parallel_end",
            ..
        })
    ));
    c.tpu_parallel_start().unwrap();
    assert!(c.tpu_is_parallel_state());
    assert!(matches!(
        c.tpu_parallel_start(),
        Err(TpuError::SyncState {
            op: "tpu_parallel_start",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_sync_all(),
        Err(TpuError::SyncState {
            op: "tpu_sync_all",
            ..
        })
    ));
    c.tpu_parallel_end().unwrap();
    c.tpu_sync_all().unwrap();
    c.tpu_poll();
    assert_eq!((c.tpu_core_index(), c.tpu_core_num()), (0, 1));
}

#[test]
fn refused_copy_writes_nothing() {
    let mut c = core();
    let g = c.gm_base();
    c.write_bytes(g, &[7; 64]).unwrap();
    let _ = c.tpu_gdma_cpy_S2L(
        0x40000 - 32,
        g,
        &Dim4::new(1, 1, 1, 16),
        None,
        None,
        DataType::Fp32,
    );
    assert!(
        c.read_local(0x40000 - 32, 32)
            .unwrap()
            .iter()
            .all(|&b| b == 0)
    );
}

/// Every GDMA copy refuses a destination, then a source, address off the element grid (the
/// C-model asserts `(dst_start_offset & type_mask) == 0`, then the same of the source; see
/// golden/tpu/gdma.json), local and system sides alike, and writes nothing; an element-aligned
/// address off the 4-byte grid is accepted.
#[test]
fn restriction_gdma_element_alignment() {
    let mut c = core();
    let g = c.gm_base();
    c.write_bytes(g, &[7; 256]).unwrap();
    let shape = Dim4::new(1, 2, 1, 3);
    let l = 5u32 << 18;
    type Copy = fn(&mut TpuCore, u64, u64, &Dim4, DataType) -> Result<(), TpuError>;
    let dirs: [(&str, Copy, u64, u64); 4] = [
        (
            "tpu_gdma_cpy_S2L",
            |c, d, s, sh, t| c.tpu_gdma_cpy_S2L(d as u32, s, sh, None, None, t),
            u64::from(l),
            g,
        ),
        (
            "tpu_gdma_cpy_L2S",
            |c, d, s, sh, t| c.tpu_gdma_cpy_L2S(d, s as u32, sh, None, None, t),
            g + 0x1000,
            u64::from(l),
        ),
        (
            "tpu_gdma_cpy_S2S",
            |c, d, s, sh, t| c.tpu_gdma_cpy_S2S(d, s, sh, None, None, t),
            g + 0x1000,
            g,
        ),
        (
            "tpu_gdma_cpy_L2L",
            |c, d, s, sh, t| c.tpu_gdma_cpy_L2L(d as u32, s as u32, sh, None, None, t),
            u64::from(l) + 0x20000,
            u64::from(l),
        ),
    ];
    for (op, run, d, s) in dirs {
        for (dtype, esize, d_off, s_off, param) in [
            (DataType::Fp32, 4, 2, 0, "dst_addr"),
            (DataType::Fp32, 4, 0, 1, "src_addr"),
            (DataType::Int32, 4, 3, 2, "dst_addr"),
            (DataType::Fp16, 2, 1, 0, "dst_addr"),
            (DataType::Bfp16, 2, 0, 3, "src_addr"),
        ] {
            let before = (c.local_store().to_vec(), c.read_bytes(g, 0x2000).unwrap());
            let addr = if param == "dst_addr" {
                d + d_off
            } else {
                s + s_off
            };
            assert_eq!(
                run(&mut c, d + d_off, s + s_off, &shape, dtype),
                Err(TpuError::ElemMisaligned {
                    op,
                    param,
                    addr,
                    esize
                }),
                "{op} {dtype:?} {d_off} {s_off}"
            );
            assert_eq!(
                (c.local_store().to_vec(), c.read_bytes(g, 0x2000).unwrap()),
                before
            );
        }
        // Element-aligned, off the 4-byte grid: accepted.
        run(&mut c, d + 2, s + 6, &shape, DataType::Fp16).unwrap();
        run(&mut c, d + 3, s + 1, &shape, DataType::Int8).unwrap();
    }
}

/// The machine numbers of the helpers (BM1684X): 64 NPUs x 256 KiB in 16 banks, EU 16
/// for f32, 32 for f16/bf16, 64 for int8, one core, shape limit 65535.
#[test]
fn helper_numbers_bm1684x() {
    let p = TpuChip::Bm1684x.local();
    assert_eq!(p.tpu_npu_num(), 64);
    assert_eq!(p.tpu_local_mem_size_per_npu(), 256 << 10);
    assert_eq!(p.tpu_bank_num(), 16);
    assert_eq!(p.bank_size(), 16 << 10);
    for (d, eu, size) in [
        (DataType::Fp32, 16, 4),
        (DataType::Fp16, 32, 2),
        (DataType::Bfp16, 32, 2),
        (DataType::Int8, 64, 1),
        (DataType::Uint16, 32, 2),
        (DataType::Int32, 16, 4),
    ] {
        assert_eq!(p.tpu_eu_num(d).unwrap(), eu, "{d:?}");
        assert_eq!(p.tpu_data_type_size(d).unwrap(), size, "{d:?}");
    }
    assert_eq!(p.tpu_core_num(), 1);
    assert_eq!(
        (0..4)
            .map(|d| p.tpu_gdma_shape_limit(d))
            .collect::<Vec<_>>(),
        [65535; 4]
    );
    // local_addr_t = npu * 0x40000 + offset.
    assert_eq!(p.tpu_npu_index(5 * 0x40000 + 0x123), 5);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// S2L and L2S with NULL strides (the small-call paths at each `HostSimd` level the host
    /// has: masked AVX-512 row copies, one slice per channel) against their twin, the same copies with the default strides written out (the aligned local
    /// stride with slots counted from lane 0, the continuous system stride), which run the
    /// general path: local addresses misaligned to the element or running past their lanes,
    /// system ranges past the end of memory, now and then. Both cores start from the same
    /// bytes; the results (accepted or refused, local store and system memory) must be equal.
    #[test]
    fn gdma_default_strides_equal_written_strides(
        start in 0u32..64, off in 0u32..4096, gm_off in prop::sample::select(vec![0u64, 1, 2, 4, 0x1000, 0xf_fff0]),
        n in 1i32..3, c in 1i32..80, h in 1i32..5, w in 1i32..12,
        esize in prop::sample::select(vec![1usize, 2, 4]), l2s in any::<bool>(), seed in any::<u32>(),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx2, HostSimd::Baseline]),
    ) {
        let chip = TpuChip::Bm1684x;
        let p = chip.local();
        let dtype = dtype_of(esize);
        let shape = Dim4::new(n, c, h, w);
        let mut fast = TpuCore::with_gm_size(chip, 1 << 20).unwrap();
        // Each small-call path of the host (a level above the host's is capped).
        fast.set_host_simd(simd);
        let g = fast.gm_base();
        let bytes: Vec<u8> = (0..1u32 << 20).map(|i| (i ^ seed).wrapping_mul(2_654_435_761).to_le_bytes()[3]).collect();
        fast.write_bytes(g, &bytes).unwrap();
        for lane in 0..64u32 {
            fast.write_local(lane << 18, &bytes[(lane as usize) << 12..((lane as usize) << 12) + 0x4000]).unwrap();
        }
        let mut twin = fast.clone();
        // Offsets past 0x3c000 push larger tensors out of their lanes; odd ones misalign.
        let laddr = start * p.local_mem_per_npu + if off >= 4000 { 0x3_f000 + off } else { off * 2 };
        let ga = g + gm_off;
        let ls = p.tpu_aligned_stride(0, &shape, dtype).unwrap();
        let ss = p.tpu_continuous_stride(&shape);
        let (got, want) = if l2s {
            (fast.tpu_gdma_cpy_L2S(ga, laddr, &shape, None, None, dtype),
             twin.tpu_gdma_cpy_L2S(ga, laddr, &shape, Some(&ss), Some(&ls), dtype))
        } else {
            (fast.tpu_gdma_cpy_S2L(laddr, ga, &shape, None, None, dtype),
             twin.tpu_gdma_cpy_S2L(laddr, ga, &shape, Some(&ls), Some(&ss), dtype))
        };
        prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} / {:?}", got, want);
        prop_assert!(fast.local_store() == twin.local_store(), "local stores differ");
        prop_assert_eq!(fast.read_bytes(g, 1 << 20).unwrap(), twin.read_bytes(g, 1 << 20).unwrap());
    }
}
