//! `docs/ascend-audit.md` follows the instruction table: every row of `Instr::ALL` has its
//! line (`| n | `Row` | ...`, in table order), and every test the document names
//! (`file::function` in this crate's tests, `capi::file::function` in npusim-capi's) exists.

use npusim_ascend::isa::Instr;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn audit_lists_every_row_in_table_order() {
    let doc =
        std::fs::read_to_string(root().join("docs/ascend-audit.md")).expect("docs/ascend-audit.md");
    let rows: Vec<String> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 3 && cells[1].parse::<usize>().is_ok())
                .then(|| cells[2].trim_matches('`').to_string())
        })
        .collect();
    let want: Vec<String> = Instr::ALL.iter().map(|i| format!("{i:?}")).collect();
    assert_eq!(
        rows, want,
        "docs/ascend-audit.md rows vs the instruction table"
    );
}

#[test]
fn audit_names_only_existing_tests() {
    let doc =
        std::fs::read_to_string(root().join("docs/ascend-audit.md")).expect("docs/ascend-audit.md");
    let mut missing = Vec::new();
    let mut checked = 0;
    for (k, part) in doc.split('`').enumerate() {
        if k % 2 == 0 {
            continue; // outside backticks
        }
        let segs: Vec<&str> = part.split("::").collect();
        let (dir, file, func) = match segs.as_slice() {
            ["capi", file, func] => ("crates/npusim-capi/tests", *file, *func),
            [file, func] => ("crates/npusim-ascend/tests", *file, *func),
            _ => continue,
        };
        if !func
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            || !file
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            continue; // a type path (`Instr::Add`), not a test
        }
        let path = root().join(dir).join(format!("{file}.rs"));
        let ok = std::fs::read_to_string(&path).is_ok_and(|s| s.contains(&format!("fn {func}(")));
        checked += 1;
        if !ok {
            missing.push(part.to_string());
        }
    }
    assert!(checked > 100, "only {checked} test names found");
    assert!(
        missing.is_empty(),
        "named in docs/ascend-audit.md but not found: {missing:?}"
    );
}
