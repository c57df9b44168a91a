//! The HAU sort models, as pure functions over 32-bit key bit patterns.
//!
//! Implements the behaviour of `tpu_hau_sort`, `tpu_hau_sort_natural_index` and
//! `tpu_hau_sort_specific_index` (seed 003) exactly as the vendor's BM1684X C-model computes it,
//! following the validated models of the research note `shared/research/sophgo-hau.md` §2:
//!
//! * plain sort (§2a): libstdc++'s `std::partial_sort` (heap select over `[K, len)`, then heap
//!   sort of the first `K`) with the *non-strict* comparator `a <= b` (ascending) or `a >= b`
//!   (descending); for `f32` every comparison involving NaN is false;
//! * indexed sorts (§2b, §2c): non-NaN positions ordered by value *anti-stably* (later position
//!   first among equal keys, `+0 == -0`), NaN slots keep their own position, then each maximal
//!   run of bit-identical values has its indices put in ascending order (by position for the
//!   natural index; by the given index as `u32`, then position, for the specific index).
//!
//! Denormals (issue #19): under the chip's [`DenormalPolicy::CompareAsZero`] ([`KeyType::F32Daz`])
//! every `f32` pattern with a zero exponent field belongs to the zero class, so "`+0 == -0`" above
//! reads "all of `+-0` and the denormals compare equal"; the values written keep their bits.
//!
//! Keys are passed as raw bit patterns (`u32`) together with a [`KeyType`] saying how to compare
//! them (`f32`, `i32`, `u32`), so NaN payloads and `-0.0` survive untouched.
//!
//! Every model has two twins: a plain scalar reference (`*_reference`) that transcribes the
//! rules literally, and a fast one (packed `u64` keys, `select_nth_unstable`, LSD radix sort)
//! that the memory-level API uses. Property tests hold the twins equal.

use crate::chip::DenormalPolicy;
use crate::dtype::DataType;

/// How 32-bit key patterns compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// IEEE binary32 (`DT_FP32`): `<` and `<=` as on the FPU, false when NaN is involved;
    /// denormals compare by their value ([`crate::chip::DenormalPolicy::Ieee`]).
    F32,
    /// IEEE binary32 compared with denormals read as zero (x86 `DAZ`), the BM1684X C-model's
    /// comparisons ([`crate::chip::DenormalPolicy::CompareAsZero`]): every pattern with a zero
    /// exponent field (`+-0` and all denormals) equals every other one; values are still moved
    /// with their bits untouched.
    F32Daz,
    /// Signed 32-bit (`DT_INT32`).
    I32,
    /// Unsigned 32-bit (`DT_UINT32`).
    U32,
}

impl KeyType {
    /// The key type of a sort `dtype` with IEEE denormal comparisons, or `None` for types the
    /// sort unit does not take. See [`KeyType::for_policy`] for the chip's rule.
    pub const fn from_dtype(dtype: DataType) -> Option<KeyType> {
        KeyType::for_policy(dtype, DenormalPolicy::Ieee)
    }

    /// The key type of a sort `dtype` under a chip's [`DenormalPolicy`], or `None` for types the
    /// sort unit does not take.
    pub const fn for_policy(dtype: DataType, denormals: DenormalPolicy) -> Option<KeyType> {
        match dtype {
            DataType::Fp32 => Some(match denormals {
                DenormalPolicy::Ieee => KeyType::F32,
                DenormalPolicy::CompareAsZero => KeyType::F32Daz,
            }),
            DataType::Int32 => Some(KeyType::I32),
            DataType::Uint32 => Some(KeyType::U32),
            _ => None,
        }
    }
}

/// Compile-time key behaviour; one zero-sized implementor per [`KeyType`], so the hot loops are
/// monomorphised and free of per-element dispatch.
trait Key {
    /// Whether two distinct bit patterns (`+0`, `-0`) share one [`Key::ord`] image.
    const SIGNED_ZERO: bool;
    /// Whether `b` is a NaN (never for integers).
    fn is_nan(b: u32) -> bool;
    /// IEEE/integer `a < b`.
    fn lt(a: u32, b: u32) -> bool;
    /// IEEE/integer `a <= b`.
    fn le(a: u32, b: u32) -> bool;
    /// Monotone map to `u32` for non-NaN keys where `+0` and `-0` collide (equal keys map to
    /// equal images).
    fn ord(b: u32) -> u32;
    /// Monotone injective map to `u32` (total order; `-0 < +0`), for non-NaN keys.
    fn total(b: u32) -> u32;
    /// Inverse of [`Key::total`].
    fn from_total(o: u32) -> u32;
    /// Whether values equal under `lt` may differ in bits (`+0`/`-0`).
    fn has_signed_zero(keys: &[u32]) -> bool;
}

struct F32Key;
struct F32DazKey;
struct I32Key;
struct U32Key;

impl Key for F32Key {
    const SIGNED_ZERO: bool = true;
    #[inline(always)]
    fn is_nan(b: u32) -> bool {
        b & 0x7fff_ffff > 0x7f80_0000
    }
    #[inline(always)]
    fn lt(a: u32, b: u32) -> bool {
        f32::from_bits(a) < f32::from_bits(b)
    }
    #[inline(always)]
    fn le(a: u32, b: u32) -> bool {
        f32::from_bits(a) <= f32::from_bits(b)
    }
    #[inline(always)]
    fn ord(b: u32) -> u32 {
        let b = if b == 0x8000_0000 { 0 } else { b };
        Self::total(b)
    }
    #[inline(always)]
    fn total(b: u32) -> u32 {
        if b & 0x8000_0000 != 0 {
            !b
        } else {
            b | 0x8000_0000
        }
    }
    #[inline(always)]
    fn from_total(o: u32) -> u32 {
        if o & 0x8000_0000 != 0 {
            o & 0x7fff_ffff
        } else {
            !o
        }
    }
    fn has_signed_zero(keys: &[u32]) -> bool {
        let (mut pos, mut neg) = (false, false);
        for &b in keys {
            pos |= b == 0;
            neg |= b == 0x8000_0000;
        }
        pos && neg
    }
}

/// `+0` for every pattern with a zero exponent field (`+-0`, denormals), else the pattern.
#[inline(always)]
const fn daz(b: u32) -> u32 {
    if b & 0x7f80_0000 == 0 { 0 } else { b }
}

impl Key for F32DazKey {
    const SIGNED_ZERO: bool = true;
    #[inline(always)]
    fn is_nan(b: u32) -> bool {
        F32Key::is_nan(b)
    }
    #[inline(always)]
    fn lt(a: u32, b: u32) -> bool {
        F32Key::lt(daz(a), daz(b))
    }
    #[inline(always)]
    fn le(a: u32, b: u32) -> bool {
        F32Key::le(daz(a), daz(b))
    }
    #[inline(always)]
    fn ord(b: u32) -> u32 {
        F32Key::total(daz(b))
    }
    #[inline(always)]
    fn total(b: u32) -> u32 {
        F32Key::total(b)
    }
    #[inline(always)]
    fn from_total(o: u32) -> u32 {
        F32Key::from_total(o)
    }
    fn has_signed_zero(keys: &[u32]) -> bool {
        // Whether two different patterns of the zero class (`+-0`, denormals) occur.
        let mut first = None;
        for &b in keys {
            if b & 0x7f80_0000 == 0 {
                match first {
                    None => first = Some(b),
                    Some(f) if f != b => return true,
                    Some(_) => {}
                }
            }
        }
        false
    }
}

impl Key for I32Key {
    const SIGNED_ZERO: bool = false;
    #[inline(always)]
    fn is_nan(_: u32) -> bool {
        false
    }
    #[inline(always)]
    fn lt(a: u32, b: u32) -> bool {
        (a as i32) < (b as i32)
    }
    #[inline(always)]
    fn le(a: u32, b: u32) -> bool {
        (a as i32) <= (b as i32)
    }
    #[inline(always)]
    fn ord(b: u32) -> u32 {
        b ^ 0x8000_0000
    }
    #[inline(always)]
    fn total(b: u32) -> u32 {
        b ^ 0x8000_0000
    }
    #[inline(always)]
    fn from_total(o: u32) -> u32 {
        o ^ 0x8000_0000
    }
    fn has_signed_zero(_: &[u32]) -> bool {
        false
    }
}

impl Key for U32Key {
    const SIGNED_ZERO: bool = false;
    #[inline(always)]
    fn is_nan(_: u32) -> bool {
        false
    }
    #[inline(always)]
    fn lt(a: u32, b: u32) -> bool {
        a < b
    }
    #[inline(always)]
    fn le(a: u32, b: u32) -> bool {
        a <= b
    }
    #[inline(always)]
    fn ord(b: u32) -> u32 {
        b
    }
    #[inline(always)]
    fn total(b: u32) -> u32 {
        b
    }
    #[inline(always)]
    fn from_total(o: u32) -> u32 {
        o
    }
    fn has_signed_zero(_: &[u32]) -> bool {
        false
    }
}

macro_rules! dispatch {
    ($kind:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $kind {
            KeyType::F32 => $f::<F32Key>($($arg),*),
            KeyType::F32Daz => $f::<F32DazKey>($($arg),*),
            KeyType::I32 => $f::<I32Key>($($arg),*),
            KeyType::U32 => $f::<U32Key>($($arg),*),
        }
    };
}

// ---------------------------------------------------------------------------------------------
// libstdc++ heap algorithms

/// libstdc++'s `std::partial_sort(v, v + k, v + len, less)`, transcribed step by step
/// (`__heap_select` = `__make_heap` + pop-heap loop, then `__sort_heap`, with `__adjust_heap`'s
/// "second child" walk, its even-length tail case, and `__push_heap`).
///
/// `less` need not be a strict weak order: the HAU passes `<=`, and NaN makes it partial; the
/// element moves are those libstdc++ performs, whatever `less` answers. `k` is clamped to
/// `v.len()`.
pub fn libstdcxx_partial_sort<T: Copy>(v: &mut [T], k: usize, less: impl Fn(T, T) -> bool) {
    let k = k.min(v.len());
    // __heap_select
    make_heap(&mut v[..k], &less);
    for i in k..v.len() {
        if less(v[i], v[0]) {
            // __pop_heap(first, middle, i)
            let value = v[i];
            v[i] = v[0];
            adjust_heap(&mut v[..k], 0, k, value, &less);
        }
    }
    // __sort_heap
    let mut last = k;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(&mut v[..last], 0, last, value, &less);
    }
}

fn make_heap<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let len = v.len();
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[parent];
        adjust_heap(v, parent, len, value, less);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

fn adjust_heap<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(T, T) -> bool,
) {
    let top = hole;
    let mut second = hole;
    while second < len.saturating_sub(1) / 2 {
        second = 2 * (second + 1);
        if less(v[second], v[second - 1]) {
            second -= 1;
        }
        v[hole] = v[second];
        hole = second;
    }
    if len & 1 == 0 && len >= 2 && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        v[hole] = v[second - 1];
        hole = second - 1;
    }
    // __push_heap(first, hole, top, value)
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(v[parent], value) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = value;
}

// ---------------------------------------------------------------------------------------------
// Plain sort (values only)

/// Reference model of `tpu_hau_sort`: the first `k` values of libstdc++'s `partial_sort` with the
/// non-strict comparator (`<=` ascending, `>=` descending). `k` is clamped to `keys.len()`.
pub fn partial_sort_nonstrict(keys: &[u32], k: usize, descended: bool, kind: KeyType) -> Vec<u32> {
    dispatch!(kind, partial_sort_nonstrict_impl(keys, k, descended))
}

fn partial_sort_nonstrict_impl<K: Key>(keys: &[u32], k: usize, descended: bool) -> Vec<u32> {
    let mut v = keys.to_vec();
    if descended {
        libstdcxx_partial_sort(&mut v, k, |a, b| K::le(b, a));
    } else {
        libstdcxx_partial_sort(&mut v, k, K::le);
    }
    v.truncate(k);
    v
}

/// Fast model of `tpu_hau_sort`, equal to [`partial_sort_nonstrict`].
///
/// When no key is NaN and `+0`/`-0` do not both occur, every pair of equal keys is bit-identical,
/// so the heap's output is just the sorted `k` extreme values: select them with
/// `select_nth_unstable` on order-preserving `u32` images and sort those. Otherwise the
/// libstdc++ transcription runs, since only it places NaNs and signed zeros the same way.
pub fn sort_values(keys: &[u32], k: usize, descended: bool, kind: KeyType) -> Vec<u32> {
    dispatch!(kind, sort_values_impl(keys, k, descended))
}

fn sort_values_impl<K: Key>(keys: &[u32], k: usize, descended: bool) -> Vec<u32> {
    let k = k.min(keys.len());
    if keys.iter().any(|&b| K::is_nan(b)) || K::has_signed_zero(keys) {
        return partial_sort_nonstrict_impl::<K>(keys, k, descended);
    }
    if k == 0 {
        return Vec::new();
    }
    let flip = if descended { u32::MAX } else { 0 };
    let mut o: Vec<u32> = keys.iter().map(|&b| K::total(b) ^ flip).collect();
    if k < o.len() {
        o.select_nth_unstable(k - 1);
        o.truncate(k);
    }
    o.sort_unstable();
    o.into_iter().map(|x| K::from_total(x ^ flip)).collect()
}

// ---------------------------------------------------------------------------------------------
// Indexed sorts

/// Reference model of the index order of `tpu_hau_sort_natural_index` (with `tie = None`) and
/// `tpu_hau_sort_specific_index` (with `tie = Some(input_idx)`): the positions `i_0 .. i_{k-1}`
/// into `keys`, computed literally by the four steps of research note §2b/§2c.
///
/// `tie`, when given, must be as long as `keys` (shorter slices are read as 0 past their end).
/// `k` is clamped to `keys.len()`.
pub fn indexed_order_reference(
    keys: &[u32],
    tie: Option<&[u32]>,
    k: usize,
    descended: bool,
    kind: KeyType,
) -> Vec<u32> {
    dispatch!(kind, indexed_order_reference_impl(keys, tie, k, descended))
}

fn indexed_order_reference_impl<K: Key>(
    keys: &[u32],
    tie: Option<&[u32]>,
    k: usize,
    descended: bool,
) -> Vec<u32> {
    let n = keys.len();
    let lt = |a: u32, b: u32| if descended { K::lt(b, a) } else { K::lt(a, b) };
    // Step 1: the non-NaN positions, reversed, stably sorted by value.
    let mut order: Vec<usize> = (0..n).rev().filter(|&i| !K::is_nan(keys[i])).collect();
    order.sort_by(|&a, &b| {
        if lt(keys[a], keys[b]) {
            std::cmp::Ordering::Less
        } else if lt(keys[b], keys[a]) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    // Step 2: NaN slots keep their own position; other slots take the next sorted position.
    let mut seq = Vec::with_capacity(n);
    let mut next = order.into_iter();
    for (slot, &b) in keys.iter().enumerate() {
        if K::is_nan(b) {
            seq.push(slot);
        } else if let Some(p) = next.next() {
            seq.push(p);
        }
    }
    // Step 3: inside each run of bit-identical values, ascending (tie index, position).
    let tie_of = |p: usize| tie.and_then(|t| t.get(p).copied()).unwrap_or(0);
    let mut s = 0;
    while s < seq.len() {
        let mut e = s + 1;
        while e < seq.len() && keys[seq[e]] == keys[seq[s]] {
            e += 1;
        }
        seq[s..e].sort_by_key(|&p| (tie_of(p), p));
        s = e;
    }
    // Step 4: the first k.
    seq.truncate(k);
    seq.into_iter().map(|p| p as u32).collect()
}

/// Fast model of the index order, equal to [`indexed_order_reference`].
///
/// Non-NaN keys are packed as `u64 = (order image of value) << 32 | (u32::MAX - position)`, so
/// ascending packed order is the anti-stable value order of step 1 and all packed keys are
/// distinct (deterministic with unstable algorithms). A full sort uses an LSD radix sort on the
/// value image. A top-K needs only the `m` elements that fill the non-NaN slots among the first
/// `k`, plus the rest of the last one's equal-value group (a run of bit-identical values may
/// continue past slot `k - 1`): a 16-bit histogram of the value image finds the bucket holding
/// the `m`-th element, only elements up to that bucket are packed, and `select_nth_unstable`
/// plus a sort of the head finish the job.
pub fn indexed_order(
    keys: &[u32],
    tie: Option<&[u32]>,
    k: usize,
    descended: bool,
    kind: KeyType,
) -> Vec<u32> {
    let mut sc = SortScratch::default();
    sc.indexed(keys, tie, k, descended, kind);
    sc.pos
}

/// Reusable buffers of the fast indexed sort, so that a simulated core running many commands
/// does not allocate (and page-fault in) fresh megabytes for every one.
#[derive(Clone, Debug, Default)]
pub struct SortScratch {
    packed: Vec<u64>,
    tmp: Vec<u64>,
    hist: Vec<u32>,
    /// Values of the first `k` outputs after [`SortScratch::natural_index`] and friends.
    pub vals: Vec<u32>,
    /// Positions (into the input) of the first `k` outputs.
    pub pos: Vec<u32>,
}

impl SortScratch {
    /// Runs the fast indexed model ([`indexed_order`]) and leaves the first `k` output values
    /// in [`SortScratch::vals`] and their input positions in [`SortScratch::pos`].
    pub fn indexed(
        &mut self,
        keys: &[u32],
        tie: Option<&[u32]>,
        k: usize,
        descended: bool,
        kind: KeyType,
    ) {
        dispatch!(kind, indexed_core(keys, tie, k, descended, self))
    }
}

/// The fast indexed model; results in `sc.vals` / `sc.pos`.
fn indexed_core<K: Key>(
    keys: &[u32],
    tie: Option<&[u32]>,
    k: usize,
    descended: bool,
    sc: &mut SortScratch,
) {
    let n = keys.len();
    let k = k.min(n);
    sc.vals.clear();
    sc.pos.clear();
    if k == 0 || n >= u32::MAX as usize {
        // Positions are 32-bit on the chip; longer inputs cannot be addressed by a command.
        let pos = indexed_order_reference_impl::<K>(keys, tie, k, descended);
        sc.vals.extend(pos.iter().map(|&p| keys[p as usize]));
        sc.pos.extend(pos);
        return;
    }
    let flip = if descended { u32::MAX } else { 0 };
    let image = |b: u32| K::ord(b) ^ flip;
    let pack = |i: usize, b: u32| (u64::from(image(b)) << 32) | u64::from(u32::MAX - i as u32);
    // Number of non-NaN slots among the first k (filled from the step-1 order).
    let m = keys[..k].iter().filter(|&&b| !K::is_nan(b)).count();

    let take: usize;
    // Histogram of the top 16 image bits, only needed (and only built) for a partial sort; its
    // total is the number of non-NaN keys.
    let hist = &mut sc.hist;
    hist.clear();
    let mut non_nan = n;
    if m > 0 && m < n {
        hist.resize(1 << 16, 0);
        for &b in keys {
            if !K::is_nan(b) {
                hist[(image(b) >> 16) as usize] += 1;
            }
        }
        non_nan = hist.iter().map(|&h| h as usize).sum();
    }
    if m == 0 {
        sc.packed.clear();
        take = 0;
    } else if m == n || m == non_nan {
        radix_sorted_packed::<K>(keys, flip, &mut sc.packed, &mut sc.tmp);
        take = m;
    } else {
        // Radix select: keep only elements whose top 16 image bits are at most those of the
        // m-th smallest; every other element is larger than all kept ones.
        let mut below = 0usize;
        let mut bucket = hist.len() - 1;
        for (i, &h) in hist.iter().enumerate() {
            if below + h as usize >= m {
                bucket = i;
                break;
            }
            below += h as usize;
        }
        let bucket = bucket as u32;
        let p = &mut sc.packed;
        p.clear();
        for (i, &b) in keys.iter().enumerate() {
            if !K::is_nan(b) && image(b) >> 16 <= bucket {
                p.push(pack(i, b));
            }
        }
        let (head, nth, tail) = p.select_nth_unstable(m - 1);
        head.sort_unstable();
        let group = *nth >> 32;
        // Bring the rest of the boundary element's value group to the front of the tail.
        let mut g = 0;
        for j in 0..tail.len() {
            if tail[j] >> 32 == group {
                tail.swap(g, j);
                g += 1;
            }
        }
        tail[..g].sort_unstable();
        take = m + g;
    }
    let packed = &sc.packed[..take];
    // Value bits come back from the image, except for zeros (+0 and -0 share one image).
    let zero_image = K::ord(0) ^ flip;
    let unpack = |x: u64| -> (u32, u32) {
        let pos = u32::MAX - x as u32;
        let o = (x >> 32) as u32;
        let v = if K::SIGNED_ZERO && o == zero_image {
            keys[pos as usize]
        } else {
            K::from_total(o ^ flip)
        };
        (v, pos)
    };

    // Step 2 for the first k slots, continued while the run of bit-identical values at slot
    // k - 1 continues (step 3 then needs the whole run).
    let (vals, pos) = (&mut sc.vals, &mut sc.pos);
    vals.reserve(take + 1);
    pos.reserve(take + 1);
    let mut it = 0;
    for (slot, &b) in keys.iter().enumerate() {
        let (v, p) = if K::is_nan(b) {
            (b, slot as u32)
        } else if it < take {
            unpack(packed[it])
        } else {
            break;
        };
        if slot >= k && vals.last() != Some(&v) {
            break;
        }
        if !K::is_nan(b) {
            it += 1;
        }
        vals.push(v);
        pos.push(p);
    }
    // Step 3.
    let mut s = 0;
    while s < vals.len() {
        let v = vals[s];
        let mut e = s + 1;
        while e < vals.len() && vals[e] == v {
            e += 1;
        }
        if e - s > 1 {
            match tie {
                None => pos[s..e].sort_unstable(),
                Some(t) => pos[s..e]
                    .sort_unstable_by_key(|&p| (t.get(p as usize).copied().unwrap_or(0), p)),
            }
        }
        s = e;
    }
    vals.truncate(k);
    pos.truncate(k);
}

/// All non-NaN keys packed as in [`indexed_order`], in ascending packed order, left in `a`
/// (`b` is the ping-pong buffer).
///
/// Elements are laid out by descending position, then stably LSD-radix-sorted on the 32-bit
/// value image (passes of 8 bits, skipping digits all elements share), which yields the same
/// order as sorting the packed `u64`s.
fn radix_sorted_packed<K: Key>(keys: &[u32], flip: u32, a: &mut Vec<u64>, b: &mut Vec<u64>) {
    a.clear();
    for (i, &x) in keys.iter().enumerate().rev() {
        if !K::is_nan(x) {
            a.push((u64::from(K::ord(x) ^ flip) << 32) | u64::from(u32::MAX - i as u32));
        }
    }
    if a.len() < 256 {
        a.sort_unstable();
        return;
    }
    let mut counts = [[0usize; 256]; 4];
    for &x in a.iter() {
        let h = (x >> 32) as u32;
        for (d, c) in counts.iter_mut().enumerate() {
            c[((h >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    b.resize(a.len(), 0);
    for (d, c) in counts.iter().enumerate() {
        // A digit where every element agrees needs no pass.
        if c.contains(&a.len()) {
            continue;
        }
        let mut offs = [0usize; 256];
        let mut sum = 0;
        for (o, &cnt) in offs.iter_mut().zip(c.iter()) {
            *o = sum;
            sum += cnt;
        }
        let shift = 32 + 8 * d;
        for &x in a.iter() {
            let digit = ((x >> shift) & 0xff) as usize;
            b[offs[digit]] = x;
            offs[digit] += 1;
        }
        std::mem::swap(a, b);
    }
}

/// `tpu_hau_sort_natural_index` on a slice: `(output_data, output_idx)` for the first `k`
/// outputs (fast model).
pub fn sort_natural_index(
    keys: &[u32],
    k: usize,
    descended: bool,
    kind: KeyType,
) -> (Vec<u32>, Vec<u32>) {
    let mut sc = SortScratch::default();
    sc.indexed(keys, None, k, descended, kind);
    (sc.vals, sc.pos)
}

/// `tpu_hau_sort_specific_index` on slices: `(output_data, output_idx)` for the first `k`
/// outputs (fast model). `idx` must be as long as `keys`.
pub fn sort_specific_index(
    keys: &[u32],
    idx: &[u32],
    k: usize,
    descended: bool,
    kind: KeyType,
) -> (Vec<u32>, Vec<u32>) {
    let mut sc = SortScratch::default();
    sc.indexed(keys, Some(idx), k, descended, kind);
    let (data, order) = (sc.vals, sc.pos);
    let out_idx = order
        .iter()
        .map(|&p| idx.get(p as usize).copied().unwrap_or(0))
        .collect();
    (data, out_idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P0: u32 = 0;
    const N0: u32 = 0x8000_0000;
    const NAN: u32 = 0x7fc0_0000;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn research_note_examples() {
        // [+0, -0] -> indices [1, 0] for asc and desc.
        for desc in [false, true] {
            let r = indexed_order_reference(&[P0, N0], None, 2, desc, KeyType::F32);
            assert_eq!(r, vec![1, 0]);
            assert_eq!(indexed_order(&[P0, N0], None, 2, desc, KeyType::F32), r);
        }
        // [+0, +0, -0] -> [2, 0, 1].
        let r = indexed_order_reference(&[P0, P0, N0], None, 3, false, KeyType::F32);
        assert_eq!(r, vec![2, 0, 1]);
        // asc [3, 1, NaN, 2] -> values [1, 2, NaN, 3].
        let keys = [f(3.0), f(1.0), NAN, f(2.0)];
        let (d, i) = sort_natural_index(&keys, 4, false, KeyType::F32);
        assert_eq!(d, vec![f(1.0), f(2.0), NAN, f(3.0)]);
        assert_eq!(i, vec![1, 3, 2, 0]);
    }

    #[test]
    fn boundary_run_is_completed() {
        // Bit-identical duplicates straddling slot k - 1 take their smallest positions.
        let keys = [f(5.0), f(1.0), f(1.0), f(1.0), f(0.5)];
        assert_eq!(
            indexed_order(&keys, None, 2, false, KeyType::F32),
            vec![4, 1]
        );
        assert_eq!(
            indexed_order_reference(&keys, None, 2, false, KeyType::F32),
            vec![4, 1]
        );
    }

    #[test]
    fn heap_port_sorts_total_orders() {
        let mut v: Vec<i32> = (0..50).map(|i| (i * 37) % 23 - 11).collect();
        let mut s = v.clone();
        s.sort();
        libstdcxx_partial_sort(&mut v, 20, |a, b| a <= b);
        assert_eq!(v[..20], s[..20]);
    }

    #[test]
    fn radix_matches_sort() {
        let keys: Vec<u32> = (0..5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 977)
            .collect();
        for desc in [false, true] {
            let flip = if desc { u32::MAX } else { 0 };
            let (mut r, mut tmp) = (Vec::new(), Vec::new());
            radix_sorted_packed::<U32Key>(&keys, flip, &mut r, &mut tmp);
            let mut s: Vec<u64> = keys
                .iter()
                .enumerate()
                .map(|(i, &b)| (u64::from(b ^ flip) << 32) | u64::from(u32::MAX - i as u32))
                .collect();
            s.sort_unstable();
            assert_eq!(r, s);
        }
    }
}
