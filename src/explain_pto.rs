//! `npusim explain pto`: one tile instruction of a PTO-AS kernel, with the tiles the
//! interpreter built for it when it lowered the kernel (addresses, shapes, valid regions), drawn
//! cell by cell. The partial family (TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN) is drawn from
//! `npusim_pto::ops::partial::partial_source`, the rule the executor applies at each element;
//! the instruction is also executed once on a scratch core, so a valid-region pattern the chip
//! rejects is reported with the simulator's own error.

use super::svg::{Cell, Diagram, OUTSIDE, Outline, Panel, Row};
use anyhow::{Context, Result, anyhow, bail};
use npusim_pto::ops::partial::{PartSource, partial_source};
use npusim_pto::{Args, OpCode, Tile, TileOp};
use npusim_ptoas::interp::{LowerOptions, lower};
use npusim_ptoas::{ParseOptions, TargetArch, parse_module_with, render_all};
use std::path::Path;

const MAX_ROWS: usize = 64;
const MAX_COLS: usize = 64;

/// Colours of the sources and of the operator.
const SRC0: &str = "#8ecae6";
const SRC1: &str = "#ffb703";
const BOTH: &str = "#b8a1d9";
const NEITHER: &str = "#bdbdbd";

/// What was explained.
pub struct Explained {
    pub diagram: Diagram,
    pub summary: Vec<String>,
}

/// Finds the tile instruction at `line` of `file` (the `nth` one when the line holds several)
/// and draws it.
pub fn explain(
    file: &Path,
    line: usize,
    nth: usize,
    target: Option<TargetArch>,
) -> Result<Explained> {
    let src =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let fname = file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let module = parse_module_with(
        &src,
        ParseOptions {
            target,
            ..ParseOptions::default()
        },
    )
    .map_err(|d| anyhow!("{}", render_all(&d, &fname, &src).trim_end()))?;
    let prog = lower(
        &module,
        LowerOptions {
            target,
            ..Default::default()
        },
    )
    .map_err(|d| anyhow!("{}", render_all(&d, &fname, &src).trim_end()))?;
    let ops = prog.tile_ops_at_line(&src, line);
    if ops.is_empty() {
        bail!("{fname}:{line}: no tile instruction starts on this line");
    }
    let found = ops.get(nth).ok_or_else(|| {
        anyhow!(
            "{fname}:{line} has {} tile instruction(s); --nth {nth} is past them",
            ops.len()
        )
    })?;
    let args = found.args.clone().ok_or_else(|| {
        anyhow!(
            "{fname}:{line}: `{}` has operands known only at run time (a run-time address or valid region); explain draws instructions whose tiles are static so far",
            found.name
        )
    })?;
    let mut core = prog
        .scratch_core()
        .ok_or_else(|| anyhow!("no chip profile for the kernel's target"))?;
    let arch = core.arch();
    match (found.op, &args) {
        (
            OpCode::Tpartadd | OpCode::Tpartmul | OpCode::Tpartmax | OpCode::Tpartmin,
            Args::Binary { dst, src0, src1 },
        ) => {
            // The same checks the run makes (a rejected valid-region pattern is an error here).
            core.exec(&TileOp {
                op: found.op,
                args: args.clone(),
            })
            .with_context(|| format!("{fname}:{line}: `{}`", found.name))?;
            let where_ = format!(
                "{fname}:{line} in @{}, target {}",
                found.func,
                match arch {
                    npusim_core::TileArch::A2A3 => "a2a3",
                    npusim_core::TileArch::A5 => "a5",
                }
            );
            Ok(draw_partial(found.op, found.name, &where_, dst, src0, src1))
        }
        _ => bail!(
            "{fname}:{line}: explain draws TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN so far, not `{}`",
            found.name
        ),
    }
}

fn tile_title(role: &str, t: &Tile) -> String {
    format!(
        "{role}: {} {}x{} tile in {} at 0x{:04x}, valid {}x{}",
        t.dtype().mlir_name(),
        t.rows(),
        t.cols(),
        t.loc().name(),
        t.addr(),
        t.valid_row(),
        t.valid_col()
    )
}

fn grid(t: &Tile) -> (usize, usize) {
    (t.rows().min(MAX_ROWS), t.cols().min(MAX_COLS))
}

fn more(t: &Tile) -> Option<String> {
    (t.rows() > MAX_ROWS || t.cols() > MAX_COLS).then(|| {
        format!(
            "only rows 0..{} and columns 0..{} are drawn",
            grid(t).0,
            grid(t).1
        )
    })
}

fn draw_partial(
    op: OpCode,
    name: &str,
    where_: &str,
    dst: &Tile,
    s0: &Tile,
    s1: &Tile,
) -> Explained {
    let (sym, word) = match op {
        OpCode::Tpartadd => ("+", "src0 + src1"),
        OpCode::Tpartmul => ("*", "src0 * src1"),
        OpCode::Tpartmax => ("max", "max(src0, src1)"),
        _ => ("min", "min(src0, src1)"),
    };
    let in_dst = |r: usize, c: usize| r < dst.valid_row() && c < dst.valid_col();
    let mut d = Diagram {
        title: format!("{name}   {where_}"),
        per_row: 2,
        ..Default::default()
    };
    d.notes.push(format!(
        "over dst's valid region {}x{}: {word} where both sources are valid, the one valid source copied elsewhere{}",
        dst.valid_row(),
        dst.valid_col(),
        " (pto-isa TPARTMIN/TPARTADD/... pages; seed 002)"
    ));
    d.notes.push(format!(
        "src0 valid {}x{}, src1 valid {}x{}; thick outline = a tile's valid region; one cell = one element, one row = one tile row",
        s0.valid_row(),
        s0.valid_col(),
        s1.valid_row(),
        s1.valid_col()
    ));
    let mut counts = [0usize; 4];
    let src_panel = |role: &'static str, t: &Tile, colour: &'static str, k: usize| {
        let (nr, nc) = grid(t);
        let mut p = Panel {
            title: tile_title(role, t),
            caption: vec![format!(
                "coloured = read by {name}; grey = outside {role}'s valid region"
            )],
            col_labels: (0..nc).map(|c| c.to_string()).collect(),
            cell_w: 24,
            more: more(t),
            ..Default::default()
        };
        let mut read_n = 0usize;
        for r in 0..nr {
            let mut row = Row {
                label: format!("r{r} 0x{:04x}", t.byte_addr(r, 0)),
                ..Default::default()
            };
            for c in 0..nc {
                let valid = r < t.valid_row() && c < t.valid_col();
                let src = partial_source(s0, s1, r, c);
                let read = valid
                    && in_dst(r, c)
                    && (src == PartSource::Both
                        || (k == 0 && src == PartSource::Src0)
                        || (k == 1 && src == PartSource::Src1));
                read_n += read as usize;
                row.cells.push(Cell {
                    text: String::new(),
                    fills: vec![if read {
                        colour
                    } else if valid {
                        "#ffffff"
                    } else {
                        OUTSIDE
                    }],
                    dim: !read,
                    tip: format!(
                        "{role}[{r},{c}] at 0x{:04x}: {}",
                        t.byte_addr(r, c),
                        if read {
                            "read"
                        } else if valid {
                            "valid, not read"
                        } else {
                            "outside the valid region, not read"
                        }
                    ),
                    data: vec![
                        ("op", role.to_string()),
                        ("r", r.to_string()),
                        ("c", c.to_string()),
                        ("valid", (valid as u8).to_string()),
                        ("read", (read as u8).to_string()),
                    ],
                });
            }
            p.rows.push(row);
        }
        p.outlines.push(Outline {
            r0: 0,
            c0: 0,
            r1: t.valid_row().min(nr),
            c1: t.valid_col().min(nc),
            label: String::new(),
        });
        (p, read_n)
    };
    let (p0, n0) = src_panel("src0", s0, SRC0, 0);
    let (p1, n1) = src_panel("src1", s1, SRC1, 1);
    d.panels.push(p0);
    d.panels.push(p1);
    let (nr, nc) = grid(dst);
    let mut p = Panel {
        title: tile_title("dst", dst),
        caption: vec![format!(
            "{sym} = {word}; s0 / s1 = copied from that source; grey = outside dst's valid region, not written"
        )],
        col_labels: (0..nc).map(|c| c.to_string()).collect(),
        cell_w: 24,
        more: more(dst),
        ..Default::default()
    };
    for r in 0..nr {
        let mut row = Row {
            label: format!("r{r} 0x{:04x}", dst.byte_addr(r, 0)),
            ..Default::default()
        };
        for c in 0..nc {
            let (text, fill, kind, tip) = if in_dst(r, c) {
                match partial_source(s0, s1, r, c) {
                    PartSource::Both => {
                        counts[0] += 1;
                        (sym, BOTH, "both", format!("{word} at [{r},{c}]"))
                    }
                    PartSource::Src0 => {
                        counts[1] += 1;
                        ("s0", SRC0, "src0", format!("src0[{r},{c}] copied"))
                    }
                    PartSource::Src1 => {
                        counts[2] += 1;
                        ("s1", SRC1, "src1", format!("src1[{r},{c}] copied"))
                    }
                    PartSource::Neither => {
                        counts[3] += 1;
                        (
                            "0",
                            NEITHER,
                            "neither",
                            "neither source valid: 0".to_string(),
                        )
                    }
                }
            } else {
                (
                    "",
                    OUTSIDE,
                    "none",
                    "outside dst's valid region: not written".to_string(),
                )
            };
            row.cells.push(Cell {
                text: text.to_string(),
                fills: vec![fill],
                dim: kind == "none",
                tip: format!("dst[{r},{c}] at 0x{:04x}: {tip}", dst.byte_addr(r, c)),
                data: vec![
                    ("op", "dst".to_string()),
                    ("r", r.to_string()),
                    ("c", c.to_string()),
                    ("src", kind.to_string()),
                ],
            });
        }
        p.rows.push(row);
    }
    p.outlines.push(Outline {
        r0: 0,
        c0: 0,
        r1: dst.valid_row().min(nr),
        c1: dst.valid_col().min(nc),
        label: String::new(),
    });
    d.panels.push(p);
    d.legend = vec![
        (BOTH, word.to_string()),
        (SRC0, "src0 (read / copied)".into()),
        (SRC1, "src1 (read / copied)".into()),
        (NEITHER, "neither valid: 0 (A5 only)".into()),
        (OUTSIDE, "outside the valid region".into()),
    ];
    let summary = vec![
        format!(
            "dst: {} elements {word}, {} copied from src0, {} copied from src1, {} zero",
            counts[0], counts[1], counts[2], counts[3]
        ),
        format!("src0: {n0} elements read; src1: {n1} elements read"),
    ];
    d.footer = summary.clone();
    d.footer.push(
        "Drawn from the tiles npusim lowered for this line and the rule its executor applies per element (npusim_pto partial_source)."
            .into(),
    );
    Explained {
        diagram: d,
        summary,
    }
}
