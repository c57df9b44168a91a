//! `cfmt::format` against glibc's `snprintf` (the table in `data/printf_cases.tsv`, written by
//! `scripts/gen_printf_cases.py` through ctypes).

use npusim_core::cfmt::{CArg, format};

fn unesc(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn matches_glibc_snprintf() {
    let text = include_str!("data/printf_cases.tsv");
    let mut n = 0;
    let mut bad = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "malformed line {line:?}");
        let fmt = unesc(f[0]);
        let arg = match f[1] {
            "i" => CArg::Int(f[2].parse().expect("integer argument")),
            _ => CArg::Float(f64::from_bits(
                u64::from_str_radix(f[2], 16).expect("f64 bits"),
            )),
        };
        let want = unesc(f[3]);
        let got = format(&fmt, &[arg]).expect("a valid format");
        n += 1;
        if got != want {
            bad.push(format!("{fmt:?} {arg:?}: got {got:?}, glibc {want:?}"));
        }
    }
    assert!(n > 1500, "only {n} cases");
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
