//! TMATMUL / TMATMUL_ACC / TMATMUL_BIAS against a plain model written here: operands written
//! as raw bytes at offsets computed by this file's own fractal layout formulas (Nz for Left and
//! Acc, Zn for Right, as the A5 page requires and A2A3 accepts), the result read back the same
//! way, the K-sum in the order each policy names (hardware fractal K-blocks of 32 bytes; the
//! CPU simulator's one chain with the old value added after the loop). Inputs mix NaN, ±inf,
//! ±0, denormals and extreme integers. Both arches, both policies.

use npusim_core::MatmulOrder;
use npusim_pto::*;
use proptest::prelude::*;

/// Element offset of (r, c) in a `rows x cols` tile with boxes of `br x bc` elements.
/// Nz: boxes down the columns, row-major inside, a box 16 rows of 32 bytes (16 x 16 for the
/// 1024-byte Acc box). Zn: boxes along the rows, col-major inside, a box 32 bytes tall and 16
/// wide.
fn nz(r: usize, c: usize, rows: usize, br: usize, bc: usize) -> usize {
    (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc)
}
fn zn(r: usize, c: usize, cols: usize, br: usize, bc: usize) -> usize {
    (r / br) * cols * br + (c / bc) * br * bc + (c % bc) * br + (r % br)
}

fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    F16,
    Bf16,
    F32,
    I8,
}

impl Kind {
    fn input(self) -> ElemType {
        match self {
            Kind::F16 => ElemType::F16,
            Kind::Bf16 => ElemType::Bf16,
            Kind::F32 => ElemType::F32,
            Kind::I8 => ElemType::I8,
        }
    }
    fn acc(self) -> ElemType {
        match self {
            Kind::I8 => ElemType::I32,
            _ => ElemType::F32,
        }
    }
}

/// A raw input element from a selector: specials, small values, raw bits.
fn elem_bits(k: Kind, bits: u32, sel: u8) -> u32 {
    match k {
        Kind::I8 => match sel % 4 {
            0 => 0x80,
            1 => 0x7f,
            _ => bits & 0xff,
        },
        Kind::F16 => match sel % 8 {
            0 => 0x7e00,
            1 => 0x7c00 | ((bits & 1) << 15),
            2 => (bits & 1) << 15,
            3 => bits & 0x83ff,
            4..=5 => (0x3800 + (bits & 0x0fff)) | ((bits >> 16) & 0x8000),
            _ => bits & 0xffff,
        },
        Kind::Bf16 => match sel % 8 {
            0 => 0x7fc0,
            1 => 0x7f80 | ((bits & 1) << 15),
            2 => (bits & 1) << 15,
            3 => bits & 0x807f,
            4..=5 => (0x3f00 + (bits & 0x01ff)) | ((bits >> 16) & 0x8000),
            _ => bits & 0xffff,
        },
        Kind::F32 => match sel % 8 {
            0 => 0x7fc0_0000,
            1 => 0x7f80_0000 | ((bits & 1) << 31),
            2 => (bits & 1) << 31,
            3 => bits & 0x807f_ffff,
            4..=5 => (0x3f00_0000 + (bits & 0x00ff_ffff)) | (bits & 0x8000_0000),
            _ => bits,
        },
    }
}

fn to_f32(k: Kind, b: u32) -> f32 {
    match k {
        Kind::F16 => half::f16::from_bits(b as u16).to_f32(),
        Kind::Bf16 => half::bf16::from_bits(b as u16).to_f32(),
        Kind::F32 => f32::from_bits(b),
        Kind::I8 => b as u8 as i8 as f32,
    }
}

fn put(mem: &mut [u8], addr: usize, size: usize, bits: u32) {
    mem[addr..addr + size].copy_from_slice(&bits.to_le_bytes()[..size]);
}

#[allow(clippy::too_many_arguments)]
fn check(
    arch: &str,
    cpu_sim: bool,
    kind: Kind,
    op: u8,
    m: usize,
    k: usize,
    n: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    // ops 3..6: the TGEMV forms of ops 0..3, with m = 1.
    let gemv = op >= 3;
    let op = op % 3;
    let m = if gemv { 1 } else { m };
    let mut core = TileCore::by_name(arch).unwrap();
    if cpu_sim {
        let a = core.arch();
        core.set_policy(TilePolicy::pto_cpu_sim(a));
    }
    let order = core.policy().matmul_order;
    let it = kind.input();
    let isz = it.size();
    let bc = 32 / isz; // input box: 16 x (32 bytes)
    let (mr, kr) = (round_up(m, 16), round_up(k, 32));
    let nr = round_up(n, 32);
    let left = core
        .alloc(
            TileDesc::new(TileLoc::Left, it, mr, kr)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .valid(m, k),
        )
        .unwrap();
    let right = core
        .alloc(
            TileDesc::new(TileLoc::Right, it, kr, nr)
                .layout(BLayout::RowMajor, SLayout::ColMajor)
                .valid(k, n),
        )
        .unwrap();
    let acc_desc = TileDesc::new(TileLoc::Acc, kind.acc(), mr, nr)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .fractal(1024)
        .valid(m, n);
    let acc = core.alloc(acc_desc).unwrap();
    let bias = core
        .alloc(TileDesc::new(TileLoc::Bias, kind.acc(), 1, nr).valid(1, n))
        .unwrap();
    // Inputs from a simple generator.
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let a: Vec<u32> = (0..m * k)
        .map(|_| {
            let r = next();
            elem_bits(kind, r as u32, (r >> 40) as u8)
        })
        .collect();
    let b: Vec<u32> = (0..k * n)
        .map(|_| {
            let r = next();
            elem_bits(kind, r as u32, (r >> 40) as u8)
        })
        .collect();
    let c0: Vec<u32> = (0..m * n)
        .map(|_| {
            let r = next();
            match kind {
                Kind::I8 => r as u32,
                _ => elem_bits(Kind::F32, r as u32, (r >> 40) as u8),
            }
        })
        .collect();
    let bv: Vec<u32> = (0..n)
        .map(|_| {
            let r = next();
            match kind {
                Kind::I8 => r as u32,
                _ => elem_bits(Kind::F32, r as u32, (r >> 40) as u8),
            }
        })
        .collect();
    {
        let mem = core.mem_mut(TileLoc::Left);
        for r in 0..m {
            for c in 0..k {
                put(mem, nz(r, c, mr, 16, bc) * isz, isz, a[r * k + c]);
            }
        }
        let mem = core.mem_mut(TileLoc::Right);
        for r in 0..k {
            for c in 0..n {
                put(mem, zn(r, c, nr, bc, 16) * isz, isz, b[r * n + c]);
            }
        }
        let mem = core.mem_mut(TileLoc::Acc);
        for r in 0..m {
            for c in 0..n {
                put(mem, nz(r, c, mr, 16, 16) * 4, 4, c0[r * n + c]);
            }
        }
        let mem = core.mem_mut(TileLoc::Bias);
        for (c, v) in bv.iter().enumerate() {
            put(mem, c * 4, 4, *v);
        }
    }
    let res = match (gemv, op) {
        (false, 0) => core.tmatmul(&acc, &left, &right),
        (false, 1) => core.tmatmul_acc(&acc, &acc, &left, &right),
        (false, _) => core.tmatmul_bias(&acc, &left, &right, &bias),
        (true, 0) => core.tgemv(&acc, &left, &right),
        (true, 1) => core.tgemv_acc(&acc, &acc, &left, &right),
        (true, _) => core.tgemv_bias(&acc, &left, &right, &bias),
    };
    prop_assert!(res.is_ok(), "{res:?}");
    let mem = core.mem(TileLoc::Acc).as_slice();
    let kb = 32 / isz;
    for i in 0..m {
        for j in 0..n {
            let o = nz(i, j, mr, 16, 16) * 4;
            let got = u32::from_le_bytes(mem[o..o + 4].try_into().unwrap());
            let seed_bits = match op {
                0 => 0,
                1 => c0[i * n + j],
                _ => bv[j],
            };
            if let Kind::I8 = kind {
                let mut c = seed_bits as i32;
                for kk in 0..k {
                    let x = a[i * k + kk] as u8 as i8 as i32;
                    let y = b[kk * n + j] as u8 as i8 as i32;
                    c = c.wrapping_add(x * y);
                }
                prop_assert_eq!(got as i32, c, "({}, {})", i, j);
                continue;
            }
            let f = |x: f32, y: f32, p: f32| match kind {
                Kind::F32 => x.mul_add(y, p),
                // half/bfloat16 products are exact in f32: p + x*y is the fused result.
                _ => p + x * y,
            };
            let x = |kk: usize| to_f32(kind, a[i * k + kk]);
            let y = |kk: usize| to_f32(kind, b[kk * n + j]);
            let c_init = f32::from_bits(seed_bits);
            let want = match order {
                MatmulOrder::FractalKBlocks => {
                    let mut c = c_init;
                    for blk in 0..k.div_ceil(kb) {
                        let mut p = 0f32;
                        for kk in blk * kb..((blk + 1) * kb).min(k) {
                            p = f(x(kk), y(kk), p);
                        }
                        c += p;
                    }
                    c
                }
                MatmulOrder::AccAfterK => {
                    let mut p = 0f32;
                    for kk in 0..k {
                        p = f(x(kk), y(kk), p);
                    }
                    if op == 0 { p } else { c_init + p }
                }
            };
            let g = f32::from_bits(got);
            prop_assert!(
                (g.is_nan() && want.is_nan()) || got == want.to_bits(),
                "{arch} {kind:?} op {op} ({i}, {j}): got {g:e} ({got:#x}), want {want:e}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn matmul_family_matches_the_model(
        arch in 0usize..2, cpu in any::<bool>(), kind in 0usize..4, op in 0u8..6,
        m in 1usize..40, k in 1usize..70, n in 1usize..40, seed in any::<u64>(),
    ) {
        let kind = [Kind::F16, Kind::Bf16, Kind::F32, Kind::I8][kind];
        check(["a2a3", "a5"][arch], cpu, kind, op, m, k, n, seed)?;
    }

    #[test]
    fn fast_kernel_equals_its_plain_twin(
        m in 1usize..20, k in 1usize..80, n in 1usize..100, exact in any::<bool>(),
        cpu in any::<bool>(), seeded in any::<bool>(), seed in any::<u64>(),
    ) {
        use npusim_pto::ops::cube::{MatShape, matmul_f32, matmul_plain};
        let mut s = seed | 1;
        let mut v = |len: usize| -> Vec<f32> {
            (0..len).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                f32::from_bits(elem_bits(Kind::F32, s as u32, (s >> 40) as u8)) }).collect()
        };
        let (a, b, c) = (v(m * k), v(k * n), v(m * n));
        let shape = MatShape { m, k, n, kb: 16, order: if cpu { MatmulOrder::AccAfterK } else { MatmulOrder::FractalKBlocks }, seeded };
        let (mut fast, mut plain) = (c.clone(), c);
        if exact { matmul_f32::<true>(&a, &b, &mut fast, shape) } else { matmul_f32::<false>(&a, &b, &mut fast, shape) }
        matmul_plain(&a, &b, &mut plain, shape, exact);
        for (x, y) in fast.iter().zip(&plain) {
            prop_assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
        }
    }

    /// TMATMUL on half inputs runs the fused kernel (`fma(a, b, p)`); the model is `p + a·b`
    /// with the product rounded to f32. A product of two halves is exact in f32, so the two
    /// agree bit for bit: half inputs with NaN, ±inf, ±0 and denormals, any f32 seed.
    #[test]
    fn half_products_fuse_exactly(
        m in 1usize..20, k in 1usize..80, n in 1usize..70,
        cpu in any::<bool>(), seeded in any::<bool>(), seed in any::<u64>(),
    ) {
        use npusim_pto::ops::cube::{MatShape, matmul_f32, matmul_plain};
        let mut s = seed | 1;
        let mut v = |len: usize, kind: Kind| -> Vec<f32> {
            (0..len).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                to_f32(kind, elem_bits(kind, s as u32, (s >> 40) as u8)) }).collect()
        };
        let (a, b, c) = (v(m * k, Kind::F16), v(k * n, Kind::F16), v(m * n, Kind::F32));
        let shape = MatShape { m, k, n, kb: 16, order: if cpu { MatmulOrder::AccAfterK } else { MatmulOrder::FractalKBlocks }, seeded };
        let (mut fused, mut plain) = (c.clone(), c);
        matmul_f32::<false>(&a, &b, &mut fused, shape);
        matmul_plain(&a, &b, &mut plain, shape, true);
        for (x, y) in fused.iter().zip(&plain) {
            prop_assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
        }
    }
}

/// The fused kernel is not the model for bfloat16 (why TMATMUL keeps `p + a·b` there): a
/// product past f32's range overflows when rounded, and the fused form keeps it exact.
#[test]
fn bfloat16_products_do_not_fuse() {
    use npusim_pto::ops::cube::{MatShape, matmul_f32, matmul_plain};
    let big = half::bf16::from_bits(0x7f00).to_f32(); // 2^127
    let (a, b) = (vec![big, big], vec![-1.0f32, 2.0]);
    let shape = MatShape {
        m: 1,
        k: 2,
        n: 1,
        kb: 16,
        order: MatmulOrder::FractalKBlocks,
        seeded: false,
    };
    let (mut fused, mut plain) = (vec![0f32], vec![0f32]);
    matmul_f32::<false>(&a, &b, &mut fused, shape);
    matmul_plain(&a, &b, &mut plain, shape, true);
    // p = -2^127, then the product 2^128 rounds to inf in the model (p + inf = inf); fused,
    // -2^127 + 2^128 = 2^127 exactly.
    assert_eq!(plain[0], f32::INFINITY);
    assert_eq!(fused[0], big);
}

fn tiles(core: &TileCore, it: ElemType, ct: ElemType) -> (Tile, Tile, Tile) {
    let l = core
        .alloc(
            TileDesc::new(TileLoc::Left, it, 16, 32)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .valid(16, 32),
        )
        .unwrap();
    let r = core
        .alloc(
            TileDesc::new(TileLoc::Right, it, 32, 32)
                .layout(BLayout::RowMajor, SLayout::ColMajor)
                .valid(32, 32),
        )
        .unwrap();
    let c = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ct, 16, 32)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(16, 32),
        )
        .unwrap();
    (l, r, c)
}

#[test]
fn matmul_restrictions_are_typed_errors() {
    for arch in ["a2a3", "a5"] {
        let mut core = TileCore::by_name(arch).unwrap();
        let (l, r, c) = tiles(&core, ElemType::F16, ElemType::F32);
        assert!(core.tmatmul(&c, &l, &r).is_ok());
        // roles
        let e = core.tmatmul(&c, &r, &r).unwrap_err();
        assert!(e.to_string().contains("must be Left"), "{e}");
        let e = core.tmatmul(&l, &l, &r).unwrap_err();
        assert!(e.to_string().contains("must be Acc"), "{e}");
        // type triple
        let (l8, r8, _) = tiles(&core, ElemType::I8, ElemType::F32);
        let e = core.tmatmul(&c, &l8, &r8).unwrap_err();
        assert!(e.to_string().contains("type triple"), "{e}");
        // K mismatch
        let r_bad = core
            .alloc(
                TileDesc::new(TileLoc::Right, ElemType::F16, 32, 32)
                    .layout(BLayout::RowMajor, SLayout::ColMajor)
                    .valid(16, 32),
            )
            .unwrap();
        let e = core.tmatmul(&c, &l, &r_bad).unwrap_err();
        assert!(e.to_string().contains("valid rows must equal"), "{e}");
        // C shape
        let c_bad = core
            .alloc(
                TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 32)
                    .layout(BLayout::ColMajor, SLayout::RowMajor)
                    .fractal(1024)
                    .valid(16, 16),
            )
            .unwrap();
        let e = core.tmatmul(&c_bad, &l, &r).unwrap_err();
        assert!(e.to_string().contains("M x N"), "{e}");
        // bias location
        let e = core.tmatmul_bias(&c, &l, &r, &c).unwrap_err();
        assert!(e.to_string().contains("must be Bias"), "{e}");
        // TGEMV: m must be 1 (the shared tiles have 16 valid rows)
        let e = core.tgemv(&c, &l, &r).unwrap_err();
        assert!(
            e.to_string().contains("TGEMV") && e.to_string().contains("must be 1"),
            "{e}"
        );
        let e = core.tgemv_acc(&c, &c, &l, &r).unwrap_err();
        assert!(e.to_string().contains("TGEMV_ACC"), "{e}");
    }
    // A boxed Zz Left tile is accepted when declared on both arches (PTOAS's verifier accepts
    // it on A5 too). On A2A3 TMATMUL reads it by position (the same product as the Nz Left
    // tile); on A5 TMATMUL itself requires Nz (pto-isa's A5 TMATMUL rule).
    for (arch, ok) in [("a2a3", true), ("a5", true)] {
        let mut core = TileCore::by_name(arch).unwrap();
        let (l, r, c) = tiles(&core, ElemType::F16, ElemType::F32);
        let zz = core.alloc(
            TileDesc::new(TileLoc::Left, ElemType::F16, 16, 32)
                .layout(BLayout::RowMajor, SLayout::RowMajor)
                .valid(16, 32)
                .at(l.addr() + l.size_bytes()),
        );
        match zz {
            Ok(zz) => {
                assert!(ok, "{arch}: Zz Left accepted at declaration");
                let a: Vec<half::f16> = (0..512)
                    .map(|i| half::f16::from_f32((i % 13) as f32 - 6.0))
                    .collect();
                core.write_valid(&l, &a).unwrap();
                core.write_valid(&zz, &a).unwrap();
                let b: Vec<half::f16> = (0..r.valid_row() * r.valid_col())
                    .map(|i| half::f16::from_f32((i % 7) as f32 * 0.5))
                    .collect();
                core.write_valid(&r, &b).unwrap();
                core.tmatmul(&c, &l, &r).unwrap();
                let want = core.read_valid::<f32>(&c).unwrap();
                let res = core.tmatmul(&c, &zz, &r);
                if arch == "a5" {
                    let e = res.unwrap_err().to_string();
                    assert!(e.contains("A5 Left tile must be Nz"), "{e}");
                } else {
                    assert!(res.is_ok(), "{arch}: {res:?}");
                    assert_eq!(core.read_valid::<f32>(&c).unwrap(), want, "{arch}");
                }
            }
            Err(e) => {
                assert!(!ok, "{arch}: {e}");
                assert!(e.to_string().contains("must be Nz"), "{e}");
            }
        }
    }
}
