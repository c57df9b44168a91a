//! Issue #16, acceptance 4: the small-call paths of `tpu_gdma_matrix_S2L/L2S` and
//! `tpu_gdma_compact_S2L/L2S` (`trans_matrix`: runs of contiguous bytes, constant-profile
//! checks, 64-byte masked vector copies at `HostSimd::Avx512`, `copy_nonoverlapping` at
//! `HostSimd::Avx2`) against their scalar twin, the checked path of `trans` (`move_elems`),
//! which the same call takes at `HostSimd::Baseline`.
//!
//! Each proptest draws calls the small path takes and calls it must refuse: both chips, every
//! dtype (the 4-bit ones, and for the matrix fp8 and fp20, are refused), addresses on any lane,
//! near the end of the lane, misaligned, past local memory, system addresses in global memory,
//! in L2 SRAM, near or past the end of global memory, outside both; for the matrix rows, cols
//! and cols_per_channel in and out of range (channels past the last lane, runs of several
//! vectors), row strides short, zero, negative or huge; for compact shapes with dimensions out
//! of range or channels of a whole lane; now and then a work bound below the call. Both cores
//! start from the same memory (a random pattern, or the local store not yet allocated); the
//! outcome (`Ok` or the same error), the whole local store, global memory and L2 SRAM must be
//! equal afterwards.

use npusim_tpu::{DataType, Dim4, HostSimd, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

const GM: u64 = 1 << 20;

const DTYPES: [DataType; 14] = [
    DataType::Uint8,
    DataType::Int8,
    DataType::Fp16,
    DataType::Fp32,
    DataType::Uint16,
    DataType::Int16,
    DataType::Uint32,
    DataType::Int32,
    DataType::Bfp16,
    DataType::Uint4,
    DataType::Int4,
    DataType::Fp8E5M2,
    DataType::Fp20,
    DataType::Fp8E4M3,
];

/// Bytes per element as `tpu_data_type_size` counts them (1 for the 4-bit types: only used to
/// place addresses).
fn esize(d: DataType) -> u64 {
    match d.bits() {
        16 => 2,
        20 | 32 => 4,
        _ => 1,
    }
}

/// What every draw shares: the chip, the fast core's level, the dtype, where the operands lie
/// and the memory pattern.
#[derive(Debug, Clone)]
struct Common {
    chip: TpuChip,
    simd: HostSimd,
    dtype: DataType,
    /// Lane, and the offset kind: 0-3 a small EU-aligned offset, 4 near the lane's end, 5 an
    /// odd offset, 6 past local memory.
    lane: u32,
    off_kind: u32,
    off: u32,
    /// System kind: 0-3 global memory, 4 near its end, 5 L2 SRAM, 6 misaligned, 7 nowhere.
    sys_kind: u32,
    sys_off: u64,
    to_local: bool,
    /// 0: default work bound; 1: a bound of 40 elements.
    small_bound: bool,
    /// Fill memory (else the local store stays unallocated).
    fill: bool,
    seed: u64,
}

fn common() -> impl Strategy<Value = Common> {
    (
        prop::sample::select(vec![TpuChip::Bm1684x, TpuChip::Bm1684x, TpuChip::Bm1688]),
        prop::sample::select(vec![
            HostSimd::Avx512,
            HostSimd::Avx512,
            HostSimd::Avx512,
            HostSimd::Avx2,
        ]),
        prop_oneof![
            3 => prop::sample::select(vec![DataType::Fp32, DataType::Fp16, DataType::Int8]),
            2 => prop::sample::select(DTYPES.to_vec()),
        ],
        (0u32..64, 0u32..7, 0u32..40),
        (0u32..8, 0u64..600),
        any::<bool>(),
        prop::sample::select(vec![false, false, false, false, false, false, false, true]),
        prop::sample::select(vec![true, true, true, true, true, true, true, false]),
        any::<u64>(),
    )
        .prop_map(
            |(
                chip,
                simd,
                dtype,
                (lane, off_kind, off),
                (sys_kind, sys_off),
                to_local,
                small_bound,
                fill,
                seed,
            )| {
                Common {
                    chip,
                    simd,
                    dtype,
                    lane,
                    off_kind,
                    off,
                    sys_kind,
                    sys_off,
                    to_local,
                    small_bound,
                    fill,
                    seed,
                }
            },
        )
}

impl Common {
    /// The local address; `lane_bytes` is the bytes the operand uses per lane (for the
    /// near-the-end kind: placed to fit exactly, or one element past, by `off`'s parity).
    fn local(&self, lane_bytes: u64) -> u32 {
        let p = self.chip.local();
        let es = esize(self.dtype) as u32;
        let lane = self.lane % p.npu_num;
        let off = match self.off_kind {
            0..=3 => self.off * p.eu_bytes,
            4 => {
                let back = (lane_bytes as u32).min(p.local_mem_per_npu);
                let fit = p.local_mem_per_npu - back;
                if self.off.is_multiple_of(2) {
                    fit / es * es
                } else {
                    (fit + es).min(p.local_mem_per_npu - es)
                }
            }
            5 => self.off * p.eu_bytes + 1,
            _ => return (p.npu_num * p.local_mem_per_npu).wrapping_add(self.off * 4),
        };
        lane * p.local_mem_per_npu + off
    }

    /// The system address; `bytes` is the span the call covers.
    fn system(&self, core: &TpuCore, bytes: u64) -> u64 {
        let es = esize(self.dtype);
        let g = core.gm_base();
        match self.sys_kind {
            0..=3 => g + self.sys_off * es,
            4 => {
                // Exactly at the end, or one element past it.
                let end = g + GM;
                end.saturating_sub(bytes) + (self.sys_off % 2) * es
            }
            5 => match self.chip.l2_sram() {
                Some(r) => r.base + self.sys_off * es,
                None => g + self.sys_off * es,
            },
            6 => g + self.sys_off * es + 1,
            _ => 0x40,
        }
    }

    /// Two cores with the same memory: the first at the drawn level, the twin at `Baseline`.
    fn cores(&self) -> (TpuCore, TpuCore) {
        let mut fast = TpuCore::with_gm_size(self.chip, GM).unwrap();
        if self.small_bound {
            fast.set_work_bound(40);
        }
        if self.fill {
            let mut x = self.seed | 1;
            // A random block of a prime length, tiled (a misplaced run meets other bytes).
            let block: Vec<u8> = (0..65521)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            let tile = |buf: &mut [u8], skip: usize| {
                for (k, chunk) in buf.chunks_mut(block.len()).enumerate() {
                    let s = (k * 7919 + skip) % 64;
                    let n = chunk.len();
                    chunk.copy_from_slice(&[&block[s..], &block[..s]].concat()[..n]);
                }
            };
            tile(fast.local_store_mut(), 0);
            let mut gm = vec![0u8; GM as usize];
            tile(&mut gm, 17);
            let g = fast.gm_base();
            fast.write_bytes(g, &gm).unwrap();
            if let Some(r) = self.chip.l2_sram() {
                let mut l2 = vec![0u8; 1 << 16];
                tile(&mut l2, 31);
                fast.write_bytes(r.base, &l2).unwrap();
            }
        }
        let mut twin = fast.clone();
        fast.set_host_simd(self.simd);
        twin.set_host_simd(HostSimd::Baseline);
        (fast, twin)
    }
}

fn same(
    fast: &TpuCore,
    twin: &TpuCore,
    got: &Result<(), TpuError>,
    want: &Result<(), TpuError>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got, want);
    prop_assert!(
        fast.local_store() == twin.local_store(),
        "local stores differ"
    );
    let g = fast.gm_base();
    prop_assert!(
        fast.read_bytes(g, GM as usize).unwrap() == twin.read_bytes(g, GM as usize).unwrap(),
        "global memories differ"
    );
    if let Some(r) = fast.chip().l2_sram() {
        prop_assert!(
            fast.read_bytes(r.base, 1 << 16).unwrap() == twin.read_bytes(r.base, 1 << 16).unwrap(),
            "L2 SRAMs differ"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// `tpu_gdma_matrix_S2L/L2S`: rows 1-4 mostly, cols up to 150 (channels past the last
    /// lane with one column per channel), cols_per_channel 1, 3, 16, cols, cols + 5 (runs of
    /// several vectors) or out of range, row strides of cols plus 0-4 or short, zero,
    /// negative, huge; dims out of range now and then.
    #[test]
    fn small_matrix_equals_checked_path(
        d in common(),
        rows in prop_oneof![6 => 1i32..5, 1 => prop::sample::select(vec![0, -1, 65535, 65536, 300])],
        cols in prop_oneof![6 => 1i32..150, 1 => prop::sample::select(vec![0, -3, 65535, 65536])],
        cpc_pick in prop_oneof![8 => 0usize..5, 1 => 5usize..7],
        rs_pick in prop_oneof![6 => 0usize..5, 1 => 5usize..10],
    ) {
        let p = d.chip.local();
        let es = esize(d.dtype);
        let cpc = [1, 3, 16, cols, cols.saturating_add(5), 0, -2][cpc_pick];
        let rs = match rs_pick {
            0..=4 => cols.saturating_add(rs_pick as i32),
            5 => cols - 1,
            6 => 0,
            7 => -1,
            8 => i32::MAX / 2,
            _ => 1 << 20,
        };
        // Bytes per lane of the local tensor (the C-model's `ns * rows`), and the system span.
        let (r64, c64, k64, s64) = (rows.max(1) as u64, cols.max(1) as u64, cpc.max(1) as u64, rs.max(0) as u64);
        let eu = u64::from(p.eu_bytes) / es;
        let ch = c64.div_ceil(k64);
        let lane = u64::from(d.lane % p.npu_num);
        let ns = k64.div_ceil(eu) * eu * (lane + ch).div_ceil(u64::from(p.npu_num));
        let lane_bytes = ns * r64 * es;
        let span = (s64 * r64).max((r64 - 1) * s64 + c64) * es;
        let (mut fast, mut twin) = d.cores();
        let local = d.local(lane_bytes);
        let system = d.system(&fast, span);
        let call = |c: &mut TpuCore| {
            if d.to_local {
                c.tpu_gdma_matrix_S2L(local, system, rows, cols, cpc, rs, d.dtype)
            } else {
                c.tpu_gdma_matrix_L2S(system, local, rows, cols, cpc, rs, d.dtype)
            }
        };
        let got = call(&mut fast);
        let want = call(&mut twin);
        same(&fast, &twin, &got, &want)?;
    }

    /// `tpu_gdma_compact_S2L/L2S`: shapes of 1-2 batches, 1-139 channels (past the last lane),
    /// channels of up to 3x40 elements, or of a whole lane (256x256 bytes-wide elements), or a
    /// dimension out of range.
    #[test]
    fn small_compact_equals_checked_path(
        d in common(),
        shape in prop_oneof![
            8 => (1i32..3, 1i32..140, 1i32..4, 1i32..40),
            1 => (1i32..3, 1i32..3, Just(256i32), prop::sample::select(vec![64, 128, 256])),
            1 => prop::sample::select(vec![
                (0, 1, 1, 8), (1, 0, 1, 8), (1, 1, -1, 8), (1, 1, 1, 65536), (65535, 1, 1, 1),
                (1, 65535, 1, 2), (2, 1, 1, 65535),
            ]),
        ],
    ) {
        let p = d.chip.local();
        let es = esize(d.dtype);
        let (n, c, h, w) = shape;
        let sh = Dim4::new(n, c, h, w);
        let [n64, c64, h64, w64] = [n, c, h, w].map(|v| v.max(1) as u64);
        let hw = h64 * w64;
        let lane = u64::from(d.lane % p.npu_num);
        let npu = u64::from(p.npu_num);
        let ns = hw * (lane + c64).div_ceil(npu);
        let lane_bytes = ((n64 - 1) * ns + (lane + c64 - 1) / npu * hw + hw) * es;
        let (mut fast, mut twin) = d.cores();
        let local = d.local(lane_bytes);
        let system = d.system(&fast, n64 * c64 * hw * es);
        let call = |core: &mut TpuCore| {
            if d.to_local {
                core.tpu_gdma_compact_S2L(local, system, &sh, d.dtype)
            } else {
                core.tpu_gdma_compact_L2S(system, local, &sh, d.dtype)
            }
        };
        let got = call(&mut fast);
        let want = call(&mut twin);
        same(&fast, &twin, &got, &want)?;
    }
}
