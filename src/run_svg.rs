//! `npusim run KERNEL.pto --svg DIR [--svg-count K]`: an SVG per executed tile instruction for
//! the first K of a run (K <= `FIRST_TILE_OPS`), drawn from the operands the interpreter
//! executed (run-time addresses, shapes and valid regions; the trace recording keeps them,
//! `npusim_ptoas::interp::trace::Recording::first_tiles`). One panel per on-chip tile operand,
//! read or written as `interp::hazard::tile_accesses` says (the same operand roles the
//! sync-hazard checker uses): the cells of its valid region coloured, the rest grey, the valid
//! region outlined. A global-memory operand (TLOAD/TSTORE, gathers) is named in the notes.
//! The element-level pictures (which element of which source lands where, per repeat and
//! block) are `npusim explain`'s, for the instructions it knows.

use crate::explain::svg::{Cell, Diagram, OUTSIDE, Outline, Panel, Row};
use anyhow::{Context, Result};
use npusim_pto::{GlobalTensor, OperandMap, Scalar, Tile};
use npusim_ptoas::interp::Program;
use npusim_ptoas::interp::hazard::tile_accesses;
use npusim_ptoas::interp::trace::{Recording, TileRun};
use std::path::{Path, PathBuf};

const MAX_ROWS: usize = 32;
const MAX_COLS: usize = 64;
const READ: &str = "#8ecae6";
const WRITE: &str = "#f4978e";

struct Globals(Vec<GlobalTensor>);

impl OperandMap<Tile, Tile> for Globals {
    type Error = std::convert::Infallible;
    fn tile(&mut self, t: &Tile) -> Result<Tile, Self::Error> {
        Ok(*t)
    }
    fn scalar(&mut self, s: &Scalar) -> Result<Scalar, Self::Error> {
        Ok(*s)
    }
    fn global(&mut self, g: &GlobalTensor) -> Result<GlobalTensor, Self::Error> {
        self.0.push(*g);
        Ok(*g)
    }
}

fn line_of(src: &str, pos: usize) -> usize {
    src.get(..pos).unwrap_or(src).matches('\n').count() + 1
}

/// The diagram of one executed tile instruction; `n` is its index among the run's tile ops.
fn draw(
    prog: &Program,
    rec: &Recording,
    file: &str,
    src: &str,
    n: usize,
    t: &TileRun,
) -> (Diagram, String, usize) {
    let e = &rec.events[t.event];
    let (name, line) = rec
        .op_at(prog, t.event)
        .map_or(("?", 0), |(n, at)| (n, line_of(src, at)));
    let mut acc = Vec::new();
    tile_accesses(&t.args, &mut acc);
    let mut g = Globals(Vec::new());
    let Ok(_) = t.args.try_map(&mut g);
    let core = if e.core == 0 {
        String::new()
    } else {
        format!(
            " {}",
            ["core", "AIC", "AIV0", "AIV1"][e.core.min(3) as usize]
        )
    };
    // The file's name only: the title is one line and a long path ran past the picture.
    let file = Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |f| f.to_string_lossy().into_owned());
    let mut d = Diagram {
        title: format!(
            "#{n}: {name} at {file}:{line}, block {}{core}, {} pipe",
            e.block,
            e.pipe.name()
        ),
        // One panel per row: a narrow tile's title would run into its neighbour's.
        per_row: 1,
        ..Default::default()
    };
    for gt in &g.0 {
        d.notes.push(format!(
            "global memory operand: {} at GM 0x{:x}, shape {:?}, strides {:?} (not drawn)",
            gt.dtype.mlir_name(),
            gt.addr,
            gt.shape,
            gt.stride
        ));
    }
    d.notes.push(
        "one cell = one element, one row = one tile row; coloured = inside the tile's valid region (the elements the op reads or writes), grey = outside it; thick outline = valid region"
            .into(),
    );
    let (mut reads, mut writes) = (0usize, 0usize);
    for (k, (tile, w)) in acc.iter().enumerate() {
        let (nr, nc) = (tile.rows().min(MAX_ROWS), tile.cols().min(MAX_COLS));
        let role = if *w { "written" } else { "read" };
        let colour = if *w { WRITE } else { READ };
        let mut p = Panel {
            title: format!(
                "operand {k} ({role}): {} {}x{} tile in {} at 0x{:04x}, valid {}x{}",
                tile.dtype().mlir_name(),
                tile.rows(),
                tile.cols(),
                tile.loc().name(),
                tile.addr(),
                tile.valid_row(),
                tile.valid_col()
            ),
            col_labels: (0..nc).map(|c| c.to_string()).collect(),
            cell_w: 14,
            more: (tile.rows() > MAX_ROWS || tile.cols() > MAX_COLS)
                .then(|| format!("only rows 0..{nr} and columns 0..{nc} are drawn")),
            ..Default::default()
        };
        let elems = tile.valid_row() * tile.valid_col();
        if *w {
            writes += elems;
        } else {
            reads += elems;
        }
        for r in 0..nr {
            let mut row = Row {
                label: format!("r{r} 0x{:04x}", tile.byte_addr(r, 0)),
                ..Default::default()
            };
            for c in 0..nc {
                let valid = r < tile.valid_row() && c < tile.valid_col();
                row.cells.push(Cell {
                    text: String::new(),
                    fills: vec![if valid { colour } else { OUTSIDE }],
                    dim: !valid,
                    tip: format!(
                        "operand {k}[{r},{c}] at 0x{:04x}: {}",
                        tile.byte_addr(r, c),
                        if valid {
                            role
                        } else {
                            "outside the valid region"
                        }
                    ),
                    data: vec![
                        ("op", k.to_string()),
                        ("r", r.to_string()),
                        ("c", c.to_string()),
                        ("access", if valid { role } else { "none" }.to_string()),
                    ],
                });
            }
            p.rows.push(row);
        }
        p.outlines.push(Outline {
            r0: 0,
            c0: 0,
            r1: tile.valid_row().min(nr),
            c1: tile.valid_col().min(nc),
            label: String::new(),
        });
        d.panels.push(p);
    }
    d.legend = vec![
        (WRITE, "written (valid region)".into()),
        (READ, "read (valid region)".into()),
        (OUTSIDE, "outside the valid region".into()),
    ];
    d.footer = vec![
        format!("{writes} element(s) written, {reads} read over the tile operands' valid regions"),
        "Drawn from the operands as this run executed them (npusim run --svg). Per-element and per-repeat pictures: npusim explain."
            .into(),
    ];
    let stem = name.trim_start_matches("pto.").to_string();
    (d, stem, line)
}

/// Writes the diagrams of the first `count` tile instructions of `rec` to `dir`; returns the
/// files written.
pub fn write_all(
    dir: &Path,
    count: usize,
    prog: &Program,
    rec: &Recording,
    file: &str,
    src: &str,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--svg: cannot create {}", dir.display()))?;
    let mut out = Vec::new();
    for (n, t) in rec.first_tiles.iter().take(count).enumerate() {
        let (d, stem, line) = draw(prog, rec, file, src, n, t);
        let path = dir.join(format!("{n:03}_{stem}_line{line}.svg"));
        std::fs::write(&path, d.svg())
            .with_context(|| format!("--svg: cannot write {}", path.display()))?;
        out.push(path);
    }
    Ok(out)
}
