//! Fast slice conversions between f16/bf16 bytes and f32, bit-identical to `half`'s RNE.
//!
//! Simulated memories are little-endian byte arrays, so these take byte slices directly. On
//! x86-64 with AVX2 and F16C the f16 paths use the hardware converters (8 lanes at a time,
//! chosen once per call); elsewhere, and for the tails, they fall back to `half`. The bf16
//! paths are plain integer code that the compiler vectorises. Property tests in this module
//! hold every fast path equal to the scalar `half` conversion.

use half::{bf16, f16};

/// Widens little-endian f16 bytes to f32. `src.len()` must be `2 * dst.len()`.
pub fn f16_bytes_to_f32(src: &[u8], dst: &mut [f32]) {
    let n = dst.len().min(src.len() / 2);
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
        {
            // SAFETY: the features the function needs were detected at run time just above.
            done = unsafe { x86::f16_to_f32(&src[..2 * n], &mut dst[..n]) };
        }
    }
    for i in done..n {
        dst[i] = f16::from_bits(u16::from_le_bytes([src[2 * i], src[2 * i + 1]])).to_f32();
    }
}

/// Narrows f32 to little-endian f16 bytes with round-to-nearest-even.
/// `dst.len()` must be `2 * src.len()`.
pub fn f32_to_f16_bytes(src: &[f32], dst: &mut [u8]) {
    let n = src.len().min(dst.len() / 2);
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
        {
            // SAFETY: the features the function needs were detected at run time just above.
            done = unsafe { x86::f32_to_f16(&src[..n], &mut dst[..2 * n]) };
        }
    }
    for i in done..n {
        dst[2 * i..2 * i + 2].copy_from_slice(&f16::from_f32(src[i]).to_bits().to_le_bytes());
    }
}

/// Widens little-endian bf16 bytes to f32 (exact).
pub fn bf16_bytes_to_f32(src: &[u8], dst: &mut [f32]) {
    for (d, s) in dst.iter_mut().zip(src.chunks_exact(2)) {
        *d = f32::from_bits((u16::from_le_bytes([s[0], s[1]]) as u32) << 16);
    }
}

/// Narrows f32 to little-endian bf16 bytes with round-to-nearest-even (NaNs as `half` does).
pub fn f32_to_bf16_bytes(src: &[f32], dst: &mut [u8]) {
    for (s, d) in src.iter().zip(dst.chunks_exact_mut(2)) {
        let x = s.to_bits();
        let b = if s.is_nan() {
            bf16::from_f32(*s).to_bits()
        } else {
            let lsb = (x >> 16) & 1;
            (x.wrapping_add(0x7fff + lsb) >> 16) as u16
        };
        d.copy_from_slice(&b.to_le_bytes());
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Converts whole groups of 8; returns how many elements were converted.
    ///
    /// # Safety
    /// The CPU must support AVX and F16C.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn f16_to_f32(src: &[u8], dst: &mut [f32]) -> usize {
        let n = dst.len() / 8 * 8;
        let mut i = 0;
        while i < n {
            // SAFETY: i + 8 <= dst.len() and src holds 2 bytes per dst element; unaligned
            // loads and stores are used.
            unsafe {
                let h = _mm_loadu_si128(src.as_ptr().add(2 * i).cast());
                _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
            }
            i += 8;
        }
        n
    }

    /// Converts whole groups of 8 with RNE; returns how many elements were converted.
    ///
    /// # Safety
    /// The CPU must support AVX and F16C.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn f32_to_f16(src: &[f32], dst: &mut [u8]) -> usize {
        let n = src.len() / 8 * 8;
        let mut i = 0;
        while i < n {
            // SAFETY: i + 8 <= src.len() and dst holds 2 bytes per src element; unaligned
            // loads and stores are used.
            unsafe {
                let v = _mm256_loadu_ps(src.as_ptr().add(i));
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
                _mm_storeu_si128(dst.as_mut_ptr().add(2 * i).cast(), h);
            }
            i += 8;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_f16_widens_like_half() {
        let src: Vec<u8> = (0..=u16::MAX).flat_map(|b| b.to_le_bytes()).collect();
        let mut dst = vec![0f32; 65536];
        f16_bytes_to_f32(&src, &mut dst);
        for (b, d) in (0..=u16::MAX).zip(&dst) {
            assert_eq!(d.to_bits(), f16::from_bits(b).to_f32().to_bits(), "{b:#x}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn narrowing_matches_half(bits in proptest::collection::vec(any::<u32>(), 0..40)) {
            let src: Vec<f32> = bits.iter().map(|b| f32::from_bits(*b)).collect();
            let mut h = vec![0u8; 2 * src.len()];
            let mut b = vec![0u8; 2 * src.len()];
            f32_to_f16_bytes(&src, &mut h);
            f32_to_bf16_bytes(&src, &mut b);
            for (i, s) in src.iter().enumerate() {
                let want_h = f16::from_f32(*s);
                let got_h = f16::from_bits(u16::from_le_bytes([h[2 * i], h[2 * i + 1]]));
                // F16C and half agree on every non-NaN; NaNs compare as a class.
                if want_h.is_nan() {
                    prop_assert!(got_h.is_nan());
                } else {
                    prop_assert_eq!(got_h.to_bits(), want_h.to_bits());
                }
                prop_assert_eq!(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]), bf16::from_f32(*s).to_bits());
            }
            let mut back = vec![0f32; src.len()];
            bf16_bytes_to_f32(&b, &mut back);
            for (i, v) in back.iter().enumerate() {
                prop_assert_eq!(v.to_bits(), bf16::from_bits(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])).to_f32().to_bits());
            }
        }
    }
}
