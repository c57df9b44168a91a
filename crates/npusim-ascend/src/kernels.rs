//! Per-repeat compute kernels, each with a plain scalar twin.
//!
//! The fast kernels work on one repeat's bytes at a time, monomorphised per element type and
//! comparison, with no per-element dispatch. The `*_reference` twins spell the documented
//! formula element by element through `f64`/`half`; property tests hold the two equal.

use half::f16;
use npusim_core::convert::OverflowMode;
use npusim_core::fastconv;
use npusim_core::{ElemType, FloatElement};

/// The comparison of a `vec_cmpv_xx` / `Compare` instruction: the shared vocabulary's
/// [`npusim_core::vocab::CmpMode`] (IEEE: every comparison with a NaN is false except `ne`).
pub use npusim_core::vocab::CmpMode;

/// Maps an element's bits to an integer key whose order is the values' order (±0 share key 0)
/// and flags NaNs; the kernels below run it over whole repeats so the compiler vectorises.
trait OrderKey {
    const SIZE: usize;
    /// Key and NaN flag of the element starting at `b[0]`.
    fn key(b: &[u8]) -> (i32, bool);
}

struct KeyF16;
impl OrderKey for KeyF16 {
    const SIZE: usize = 2;
    #[inline(always)]
    fn key(b: &[u8]) -> (i32, bool) {
        let h = u16::from_le_bytes([b[0], b[1]]);
        let mag = (h & 0x7fff) as i32;
        (if h & 0x8000 != 0 { -mag } else { mag }, mag > 0x7c00)
    }
}

struct KeyF32;
impl OrderKey for KeyF32 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn key(b: &[u8]) -> (i32, bool) {
        let x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mag = (x & 0x7fff_ffff) as i32;
        (
            if x & 0x8000_0000 != 0 { -mag } else { mag },
            mag > 0x7f80_0000,
        )
    }
}

struct KeyI32;
impl OrderKey for KeyI32 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn key(b: &[u8]) -> (i32, bool) {
        (i32::from_le_bytes([b[0], b[1], b[2], b[3]]), false)
    }
}

/// Compares up to 128 elements: keys first (a vectorisable pass), then one bit per element.
#[inline(always)]
fn compare_with<K: OrderKey>(
    a: &[u8],
    b: &[u8],
    out: &mut [u8],
    pred: impl Fn(i32, i32) -> bool,
    nan_result: bool,
) {
    let n = (out.len() * 8)
        .min(a.len() / K::SIZE)
        .min(b.len() / K::SIZE)
        .min(128);
    let mut hits = [0u8; 128];
    for ((h, ea), eb) in hits[..n]
        .iter_mut()
        .zip(a.chunks_exact(K::SIZE))
        .zip(b.chunks_exact(K::SIZE))
    {
        let (ka, na) = K::key(ea);
        let (kb, nb) = K::key(eb);
        let nan = na | nb;
        *h = ((pred(ka, kb) & !nan) | (nan & nan_result)) as u8;
    }
    pack_bits(&hits[..n], out);
}

/// Packs 0/1 bytes eight at a time into bits, element i at bit i.
#[inline(always)]
fn pack_bits(hits: &[u8], out: &mut [u8]) {
    for (o, g) in out.iter_mut().zip(hits.chunks_exact(8)) {
        let x = u64::from_le_bytes([g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]]);
        // Byte i (0 or 1) lands on bit 56 + i; no two partial products collide.
        *o = (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
    }
}

/// One full repeat of 128 f16 lanes with 16-bit keys, so the key pass runs 16 lanes per AVX2
/// instruction.
#[inline(always)]
fn compare_f16_repeat(
    a: &[u8],
    b: &[u8],
    out: &mut [u8],
    pred: impl Fn(i16, i16) -> bool,
    nan_result: bool,
) {
    let a: [u16; 128] = bytemuck::pod_read_unaligned(&a[..256]);
    let b: [u16; 128] = bytemuck::pod_read_unaligned(&b[..256]);
    let mut hits = [0u8; 128];
    for i in 0..128 {
        let (x, y) = (u16::from_le(a[i]), u16::from_le(b[i]));
        let (mx, my) = ((x & 0x7fff) as i16, (y & 0x7fff) as i16);
        let kx = if x & 0x8000 != 0 { -mx } else { mx };
        let ky = if y & 0x8000 != 0 { -my } else { my };
        let nan = (mx > 0x7c00) | (my > 0x7c00);
        hits[i] = ((pred(kx, ky) & !nan) | (nan & nan_result)) as u8;
    }
    pack_bits(&hits, out);
}

fn compare_f16(mode: CmpMode, a: &[u8], b: &[u8], out: &mut [u8]) {
    for ((ca, cb), co) in a.chunks(256).zip(b.chunks(256)).zip(out.chunks_mut(16)) {
        if ca.len() < 256 || cb.len() < 256 || co.len() < 16 {
            compare_keyed::<KeyF16>(mode, ca, cb, co);
            continue;
        }
        match mode {
            CmpMode::Lt => compare_f16_repeat(ca, cb, co, |x, y| x < y, false),
            CmpMode::Gt => compare_f16_repeat(ca, cb, co, |x, y| x > y, false),
            CmpMode::Ge => compare_f16_repeat(ca, cb, co, |x, y| x >= y, false),
            CmpMode::Eq => compare_f16_repeat(ca, cb, co, |x, y| x == y, false),
            CmpMode::Ne => compare_f16_repeat(ca, cb, co, |x, y| x != y, true),
            CmpMode::Le => compare_f16_repeat(ca, cb, co, |x, y| x <= y, false),
        }
    }
}

fn compare_keyed<K: OrderKey>(mode: CmpMode, a: &[u8], b: &[u8], out: &mut [u8]) {
    // One repeat (at most 128 elements, 16 output bytes) at a time.
    let group = 128 * K::SIZE;
    for ((ca, cb), co) in a.chunks(group).zip(b.chunks(group)).zip(out.chunks_mut(16)) {
        match mode {
            CmpMode::Lt => compare_with::<K>(ca, cb, co, |x, y| x < y, false),
            CmpMode::Gt => compare_with::<K>(ca, cb, co, |x, y| x > y, false),
            CmpMode::Ge => compare_with::<K>(ca, cb, co, |x, y| x >= y, false),
            CmpMode::Eq => compare_with::<K>(ca, cb, co, |x, y| x == y, false),
            CmpMode::Ne => compare_with::<K>(ca, cb, co, |x, y| x != y, true),
            CmpMode::Le => compare_with::<K>(ca, cb, co, |x, y| x <= y, false),
        }
    }
}

/// Compares the elements of `a` and `b` (little-endian `dtype` bytes) and packs one bit per
/// element into `out`, bit i of byte k for element 8k + i. `a.len()` must equal `b.len()` and be
/// `8 · out.len()` elements. Returns false for an element type without a kernel.
pub fn compare_pack(mode: CmpMode, dtype: ElemType, a: &[u8], b: &[u8], out: &mut [u8]) -> bool {
    match dtype {
        ElemType::F16 => compare_f16(mode, a, b, out),
        ElemType::F32 => compare_keyed::<KeyF32>(mode, a, b, out),
        ElemType::I32 => compare_keyed::<KeyI32>(mode, a, b, out),
        _ => return false,
    }
    true
}

/// The plain twin of [`compare_pack`]: each element to f64, IEEE comparison, one bit at a time.
pub fn compare_pack_reference(mode: CmpMode, dtype: ElemType, a: &[u8], b: &[u8], out: &mut [u8]) {
    let size = dtype.size();
    out.fill(0);
    let value = |bytes: &[u8]| -> f64 {
        match dtype {
            ElemType::F16 => f16::from_le_bytes([bytes[0], bytes[1]]).to_f64(),
            ElemType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
            ElemType::I32 => i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
            _ => f64::NAN,
        }
    };
    for i in 0..out.len() * 8 {
        let x = value(&a[i * size..]);
        let y = value(&b[i * size..]);
        if mode.holds(x, y) {
            out[i / 8] |= 1 << (i % 8);
        }
    }
}

/// A float element the vector unit computes on, with fast slice conversions to and from f32.
pub trait VecFloat: FloatElement {
    /// Widens little-endian bytes to f32.
    fn load(bytes: &[u8], out: &mut [f32]);
    /// Narrows f32 to little-endian bytes (round to nearest even).
    fn store(vals: &[f32], out: &mut [u8]);
}

impl VecFloat for f16 {
    #[inline]
    fn load(bytes: &[u8], out: &mut [f32]) {
        fastconv::f16_bytes_to_f32(bytes, out)
    }
    #[inline]
    fn store(vals: &[f32], out: &mut [u8]) {
        fastconv::f32_to_f16_bytes(vals, out)
    }
}

impl VecFloat for f32 {
    #[inline]
    fn load(bytes: &[u8], out: &mut [f32]) {
        for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
    #[inline]
    fn store(vals: &[f32], out: &mut [u8]) {
        for (v, c) in vals.iter().zip(out.chunks_exact_mut(4)) {
            c.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Applies the overflow mode to f32 results about to be rounded to `T`: in saturating mode NaN
/// becomes 0 and anything beyond ±max(T) becomes ±max(T) (which is what rounding then
/// saturating the rounded value gives, since values between max and the rounding boundary round
/// down to max anyway).
#[inline]
fn saturate_into<T: FloatElement>(vals: &mut [f32], mode: OverflowMode) {
    if mode == OverflowMode::Saturate {
        let max = T::MAX.to_f32();
        for v in vals.iter_mut() {
            *v = if v.is_nan() { 0.0 } else { v.clamp(-max, max) };
        }
    }
}

/// One repeat of PairReduceSum: `out[j] = src[2j] + src[2j+1]` over the `lanes` elements of
/// `src` (little-endian `T` bytes), with masked-off lanes counting as 0, rounded once to `T`.
/// `out` receives `lanes / 2` results as bytes; which of them are stored is the caller's
/// business (pairs with no active lane follow the chip's policy).
pub fn pair_sum<T: VecFloat>(src: &[u8], lanes: u128, mode: OverflowMode, out: &mut [u8]) {
    let n = src.len() / std::mem::size_of::<T>();
    let mut vals = [0f32; 128];
    let vals = &mut vals[..n];
    T::load(src, vals);
    if lanes != crate::mask::prefix(n as u32) {
        for (i, v) in vals.iter_mut().enumerate() {
            if lanes >> i & 1 == 0 {
                *v = 0.0;
            }
        }
    }
    let mut sums = [0f32; 64];
    let sums = &mut sums[..n / 2];
    for (s, p) in sums.iter_mut().zip(vals.chunks_exact(2)) {
        *s = p[0] + p[1];
    }
    saturate_into::<T>(sums, mode);
    T::store(sums, out);
}

/// The plain twin of [`pair_sum`]: one pair at a time through `half`/`f32`, rounding first and
/// saturating the rounded value.
pub fn pair_sum_reference<T: VecFloat>(
    src: &[u8],
    lanes: u128,
    mode: OverflowMode,
    out: &mut [u8],
) {
    let size = std::mem::size_of::<T>();
    let elem = |i: usize| -> f32 {
        if lanes >> i & 1 == 0 {
            0.0
        } else {
            bytemuck::pod_read_unaligned::<T>(&src[i * size..(i + 1) * size]).to_f32()
        }
    };
    for j in 0..src.len() / size / 2 {
        let mut r = T::from_f32_rne(elem(2 * j) + elem(2 * j + 1));
        if mode == OverflowMode::Saturate {
            let f = r.to_f32();
            if f.is_nan() {
                r = T::ZERO;
            } else if f.is_infinite() {
                r = if f > 0.0 { T::MAX } else { T::MIN };
            }
        }
        out[j * size..(j + 1) * size].copy_from_slice(bytemuck::bytes_of(&r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn interesting_f16() -> impl Strategy<Value = u16> {
        prop_oneof![
            any::<u16>(),
            Just(0x0000u16),
            Just(0x8000),
            Just(0x7c00),
            Just(0xfc00),
            Just(0x7e00),
            Just(0x7c01),
            Just(0x0001),
            Just(0x7bff),
            Just(0x3c00),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn compare_f16_matches_reference(a in proptest::collection::vec(interesting_f16(), 128),
                                         b in proptest::collection::vec(interesting_f16(), 128)) {
            let a: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
            let b: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
            for mode in CmpMode::ALL {
                let mut fast = [0u8; 16];
                let mut slow = [0u8; 16];
                prop_assert!(compare_pack(mode, ElemType::F16, &a, &b, &mut fast));
                compare_pack_reference(mode, ElemType::F16, &a, &b, &mut slow);
                prop_assert_eq!(fast, slow, "{:?}", mode);
            }
        }

        #[test]
        fn compare_f32_and_i32_match_reference(a in proptest::collection::vec(any::<u32>(), 64),
                                               b in proptest::collection::vec(any::<u32>(), 64),
                                               pick in proptest::collection::vec(any::<bool>(), 64)) {
            // Mix in equal pairs and ±0 so that equality paths are exercised.
            let b: Vec<u32> = b.iter().zip(&a).zip(&pick).map(|((y, x), p)| if *p { *x ^ (x & 0x8000_0000 & (y << 31)) } else { *y }).collect();
            let a8: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
            let b8: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
            for dtype in [ElemType::F32, ElemType::I32] {
                for mode in CmpMode::ALL {
                    let mut fast = [0u8; 8];
                    let mut slow = [0u8; 8];
                    compare_pack(mode, dtype, &a8, &b8, &mut fast);
                    compare_pack_reference(mode, dtype, &a8, &b8, &mut slow);
                    prop_assert_eq!(fast, slow, "{:?} {:?}", dtype, mode);
                }
            }
        }

        #[test]
        fn pair_sum_matches_reference(v in proptest::collection::vec(interesting_f16(), 128),
                                      w in proptest::collection::vec(any::<u32>(), 64),
                                      lo in any::<u64>(), hi in any::<u64>(), full in any::<bool>()) {
            let lanes16 = if full { u128::MAX } else { (hi as u128) << 64 | lo as u128 };
            let src: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            for mode in [OverflowMode::Ieee, OverflowMode::Saturate] {
                let mut fast = [0u8; 128];
                let mut slow = [0u8; 128];
                pair_sum::<f16>(&src, lanes16, mode, &mut fast);
                pair_sum_reference::<f16>(&src, lanes16, mode, &mut slow);
                for j in 0..64 {
                    let f = f16::from_le_bytes([fast[2 * j], fast[2 * j + 1]]);
                    let s = f16::from_le_bytes([slow[2 * j], slow[2 * j + 1]]);
                    prop_assert!(f.to_bits() == s.to_bits() || (f.is_nan() && s.is_nan()), "pair {} {:?}: {:?} vs {:?}", j, mode, f, s);
                }
            }
            let src32: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            let lanes32 = lanes16 & u64::MAX as u128;
            for mode in [OverflowMode::Ieee, OverflowMode::Saturate] {
                let mut fast = [0u8; 128];
                let mut slow = [0u8; 128];
                pair_sum::<f32>(&src32, lanes32, mode, &mut fast);
                pair_sum_reference::<f32>(&src32, lanes32, mode, &mut slow);
                for j in 0..32 {
                    let f = f32::from_le_bytes(fast[4 * j..4 * j + 4].try_into().unwrap());
                    let s = f32::from_le_bytes(slow[4 * j..4 * j + 4].try_into().unwrap());
                    prop_assert!(f.to_bits() == s.to_bits() || (f.is_nan() && s.is_nan()), "pair {} {:?}: {} vs {}", j, mode, f, s);
                }
            }
        }
    }
}
