//! The `tpu_hau_line_gather` model, as pure functions over element slices.
//!
//! Seed 003 defines `output(h, w) = param(index(h) - start, w)` when `index(h)` is a valid index
//! and `C` otherwise if `fill_const` is set; the research note
//! (`shared/research/sophgo-hau.md` §0.5, §1.4) adds what the C-model does: `param` points at
//! line `start` (only the `end - start + 1` lines of the window are read), an index is valid when
//! `start <= index <= end` compared as `u32`, and with `fill_const` off an invalid index leaves
//! its output line untouched. Elements are 8, 16 or 32 bits wide and are moved as bit patterns;
//! `C` is the low `8`/`16`/`32` bits of the `scalar_t`.
//!
//! [`line_gather_reference`] is the plain element-by-element model; [`line_gather_rows`] is the
//! fast twin working on whole byte rows, used by the memory-level API.

/// Plain reference model: element by element.
///
/// `out` holds `index.len()` lines of `line_len` elements, `param` holds the window of lines
/// `start..=end`. Lines whose index is valid but whose window line is missing from `param`, and
/// output lines missing from `out`, are skipped (the memory-level API never passes such slices).
#[allow(clippy::too_many_arguments)] // the vendor instruction's own parameter list
pub fn line_gather_reference<T: Copy>(
    out: &mut [T],
    param: &[T],
    index: &[u32],
    c: T,
    line_len: usize,
    start: u32,
    end: u32,
    fill_const: bool,
) {
    let at = |row: usize, w: usize| row.checked_mul(line_len).and_then(|x| x.checked_add(w));
    for (h, &ix) in index.iter().enumerate() {
        for w in 0..line_len {
            let Some(o) = at(h, w).and_then(|i| out.get_mut(i)) else {
                return;
            };
            if start <= ix && ix <= end {
                let line = (ix - start) as usize;
                if let Some(&p) = at(line, w).and_then(|i| param.get(i)) {
                    *o = p;
                }
            } else if fill_const {
                *o = c;
            }
        }
    }
}

/// Fast model on raw bytes: whole rows of `row_bytes` bytes are copied or filled.
///
/// `c_elem` is the byte pattern of one element of `C` (1, 2 or 4 bytes, little-endian); a
/// `row_bytes` that is not a multiple of its length fills the tail with a prefix of the pattern.
/// Same skipping rules as [`line_gather_reference`].
#[allow(clippy::too_many_arguments)] // the vendor instruction's own parameter list
pub fn line_gather_rows(
    out: &mut [u8],
    param: &[u8],
    index: &[u32],
    c_elem: &[u8],
    row_bytes: usize,
    start: u32,
    end: u32,
    fill_const: bool,
) {
    if row_bytes == 0 {
        return;
    }
    let fill_row: Vec<u8> = if fill_const && !c_elem.is_empty() {
        c_elem.iter().copied().cycle().take(row_bytes).collect()
    } else {
        Vec::new()
    };
    for (row, &ix) in out.chunks_exact_mut(row_bytes).zip(index) {
        if start <= ix && ix <= end {
            let src = ((ix - start) as usize)
                .checked_mul(row_bytes)
                .and_then(|off| param.get(off..off.checked_add(row_bytes)?));
            if let Some(src) = src {
                row.copy_from_slice(src);
            }
        } else if fill_const && !fill_row.is_empty() {
            row.copy_from_slice(&fill_row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_fill_and_untouched() {
        // Lines 2..=3 of a table; param points at line 2.
        let param = [20u16, 21, 30, 31];
        let index = [3, 1, 2, 4, u32::MAX];
        let mut out = [0xaaaau16; 10];
        line_gather_reference(&mut out, &param, &index, 7, 2, 2, 3, false);
        assert_eq!(
            out,
            [
                30, 31, 0xaaaa, 0xaaaa, 20, 21, 0xaaaa, 0xaaaa, 0xaaaa, 0xaaaa
            ]
        );
        let mut out2 = [0xaaaau16; 10];
        line_gather_reference(&mut out2, &param, &index, 7, 2, 2, 3, true);
        assert_eq!(out2, [30, 31, 7, 7, 20, 21, 7, 7, 7, 7]);
        let pb: Vec<u8> = param.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut ob = vec![0xaau8; 20];
        line_gather_rows(&mut ob, &pb, &index, &7u16.to_le_bytes(), 4, 2, 3, true);
        let ob16: Vec<u16> = ob
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(ob16, out2);
    }
}
