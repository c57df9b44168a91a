//! Every kernel in `examples/pto/` parses and verifies, and has the shape its README promises.

use std::path::PathBuf;

use npusim_ptoas::{Module, OpCode, OpKind, Type, parse_module};

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pto")
}

fn parse_example(name: &str) -> Module {
    let path = examples_dir().join(name);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match parse_module(&src, name) {
        Ok(m) => m,
        Err(diags) => panic!("{}", npusim_ptoas::render_all(&diags, name, &src)),
    }
}

fn count_ops(block: &npusim_ptoas::Block, pred: &dyn Fn(&OpKind) -> bool) -> usize {
    block
        .ops
        .iter()
        .map(|op| {
            let nested = match &op.kind {
                OpKind::For { body, .. } | OpKind::Section { body, .. } => count_ops(body, pred),
                OpKind::If {
                    then_body,
                    else_body,
                    ..
                } => count_ops(then_body, pred) + count_ops(else_body, pred),
                OpKind::While { before, after, .. } => {
                    count_ops(before, pred) + count_ops(after, pred)
                }
                _ => 0,
            };
            nested + usize::from(pred(&op.kind))
        })
        .sum()
}

fn tile_ops(m: &Module) -> Vec<OpCode> {
    fn walk(b: &npusim_ptoas::Block, out: &mut Vec<OpCode>) {
        for op in &b.ops {
            match &op.kind {
                OpKind::Tile { op, .. } => out.push(*op),
                OpKind::For { body, .. } | OpKind::Section { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(m.funcs[0].body.as_ref().expect("body"), &mut out);
    out
}

#[test]
fn every_example_file_parses() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples_dir()).expect("examples/pto exists") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "pto") {
            let name = path
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or("?")
                .to_string();
            let m = parse_example(&name);
            assert!(!m.funcs.is_empty(), "{name}");
            assert!(m.entry().is_some(), "{name}");
            n += 1;
        }
    }
    assert!(
        n >= 5,
        "expected at least the five documented kernels, found {n}"
    );
}

#[test]
fn vector_add_shape() {
    let m = parse_example("vector_add.pto");
    let f = &m.funcs[0];
    assert_eq!(f.name, "vector_add");
    let names: Vec<&str> = f.params.iter().map(|p| f.value(*p).name.as_str()).collect();
    assert_eq!(names, ["x", "y", "z", "n_rows"]);
    assert!(matches!(
        f.ty(f.params[3]),
        Type::Scalar(npusim_ptoas::ScalarType::Index)
    ));
    assert_eq!(
        tile_ops(&m),
        [OpCode::TLoad, OpCode::TLoad, OpCode::TAdd, OpCode::TStore]
    );
    let syncs = count_ops(f.body.as_ref().unwrap(), &|k| matches!(k, OpKind::Sync(_)));
    assert_eq!(syncs, 5);
}

#[test]
fn row_softmax_uses_reductions_and_broadcasts() {
    let m = parse_example("row_softmax.pto");
    assert_eq!(
        tile_ops(&m),
        [
            OpCode::TLoad,
            OpCode::TRowMax,
            OpCode::TRowExpandSub,
            OpCode::TExp,
            OpCode::TRowSum,
            OpCode::TRowExpandDiv,
            OpCode::TStore
        ]
    );
}

#[test]
fn rmsnorm_aliases_tiles_by_address() {
    let m = parse_example("rmsnorm.pto");
    let f = &m.funcs[0];
    let mut addrs = Vec::new();
    count_ops(f.body.as_ref().unwrap(), &|_| false);
    fn collect(b: &npusim_ptoas::Block, f: &npusim_ptoas::Func, out: &mut Vec<i64>) {
        for op in &b.ops {
            match &op.kind {
                OpKind::AllocTile { addr: Some(a), .. } => {
                    out.push(f.value(*a).const_int.expect("constant address"))
                }
                OpKind::For { body, .. } => collect(body, f, out),
                _ => {}
            }
        }
    }
    collect(f.body.as_ref().unwrap(), f, &mut addrs);
    assert_eq!(addrs.len(), 9);
    let mut sorted = addrs.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        7,
        "two pairs of tiles share an address: {addrs:?}"
    );
}

#[test]
fn multicore_split_reads_block_index() {
    let m = parse_example("multicore_split.pto");
    let body = m.funcs[0].body.as_ref().unwrap();
    let q = count_ops(body, &|k| matches!(k, OpKind::Runtime { .. }));
    assert_eq!(q, 2);
    let sections = count_ops(body, &|k| matches!(k, OpKind::Section { vector: true, .. }));
    assert_eq!(sections, 1);
}

#[test]
fn online_softmax_step_has_four_outputs() {
    let m = parse_example("online_softmax_step.pto");
    let stores = tile_ops(&m)
        .iter()
        .filter(|o| **o == OpCode::TStore)
        .count();
    assert_eq!(stores, 4);
    assert_eq!(m.funcs[0].params.len(), 9);
}
