//! f32 -> narrow float conversions against `ml_dtypes` (and `en_dtypes` for HiFloat8).
//!
//! `f8_table_matches_ml_dtypes` checks the committed table `tests/data/f8_table.txt`
//! (13 099 inputs: scattered patterns, every value of every format, the midpoints and their
//! f32 neighbours, the specials) written by `scripts/gen_f8_ref.py`.
//!
//! `f8_full_sweep` (ignored: run with `cargo test --release -p npusim-core --test
//! f8_reference -- --ignored`) converts all 2^32 f32 patterns into every format and compares a
//! digest per chunk of 2^24 inputs with `tests/data/f8_sweep_digests.txt` (the same script
//! with `--digests`). Digests rather than a call to Python: the test needs nothing outside the
//! repository, and 2^32 x 6 codes (24 GiB) could not be committed; a mismatching chunk is
//! named, and `ml_dtypes` on that chunk finds the input.

use npusim_core::Saturation;
use npusim_core::f8::F8Format;

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s, 16).expect("hex field")
}

#[test]
fn f8_table_matches_ml_dtypes() {
    let text = include_str!("data/f8_table.txt");
    let mut n = 0;
    let mut bad = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.split_whitespace();
        let bits = hex(fields.next().expect("input"));
        let v = f32::from_bits(bits);
        for (f, want) in F8Format::ALL.iter().zip(fields) {
            let want = hex(want) as u8;
            let got = f.from_f32(v, Saturation::Off);
            if got != want && bad.len() < 20 {
                bad.push(format!(
                    "{f:?} of {v:e} ({bits:#010x}): got {got:#04x}, ml_dtypes {want:#04x}"
                ));
            }
        }
        n += 1;
    }
    assert_eq!(n, 13_099);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn chunk_digests(c: u64) -> [u64; 6] {
    let mut d = [0u64; 6];
    for x in c << 24..(c + 1) << 24 {
        let w = splitmix64(x);
        let v = f32::from_bits(x as u32);
        for (k, f) in F8Format::ALL.iter().enumerate() {
            let code = f.from_f32(v, Saturation::Off) as u64;
            d[k] = d[k].wrapping_add((code + 1).wrapping_mul(w));
        }
    }
    d
}

#[test]
#[ignore = "all 2^32 f32 inputs: minutes in release mode"]
fn f8_full_sweep() {
    let text = include_str!("data/f8_sweep_digests.txt");
    let want: Vec<(u64, Vec<u64>)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split_whitespace();
            let c = it.next().and_then(|s| s.parse().ok()).expect("chunk");
            let ds = it
                .map(|s| u64::from_str_radix(s, 16).expect("digest"))
                .collect();
            (c, ds)
        })
        .collect();
    assert_eq!(want.len(), 256);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let bad = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((c, ds)) = want.get(i) else { break };
                    let got = chunk_digests(*c);
                    for (k, f) in F8Format::ALL.iter().enumerate() {
                        if got[k] != ds[k] {
                            bad.lock()
                                .expect("lock")
                                .push(format!("chunk {c} ({f:?}) differs from ml_dtypes"));
                        }
                    }
                }
            });
        }
    });
    let bad = bad.into_inner().expect("lock");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
