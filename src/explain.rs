//! `npusim explain`: an SVG access diagram of one instruction with the user's own parameters:
//! which elements of each operand it reads and writes, per repeat and block (Ascend vector
//! unit) or per valid region (PTO tile ISA). The pictures come from the simulator's decoded
//! instructions (see `explain_tik.rs` and `explain_pto.rs`), drawn by `explain_svg.rs`.

#[path = "explain_pto.rs"]
mod pto;
#[path = "explain_svg.rs"]
pub mod svg;
#[path = "explain_tik.rs"]
mod tik;

use anyhow::Result;
use clap::{Args, Subcommand};
use npusim_ptoas::TargetArch;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `npusim explain ascend|pto ...`
#[derive(Subcommand)]
pub enum ExplainCommand {
    /// One TIK vector call: which elements each repeat and block reads and writes.
    #[command(
        alias = "tik",
        after_help = "Examples:\n  \
npusim explain ascend 'vec_cmpv_gt(dst_ub, src0_ub, src1_ub, 2, 8, 7)' \\\n      \
--tensor src0_ub=float16[2,128] --tensor src1_ub=float16[2,128] --tensor dst_ub=uint16[16] \\\n      \
--chip ascend910 -o cmpv.svg                 (seed 000, example 2: src1_rep_stride = 7)\n  \
npusim explain ascend 'vec_add([0, 0xff00ff00ff00ff00], z, x, y[16], 2, 8, 8, 4)' \\\n      \
--tensor x=float16[512] --tensor y=float16[512] --tensor z=float16[256] -o add.svg\n\n\
The call is TIK's (`vec_*`, or the legacy `v*` name with block strides); keyword arguments \
and `mask_mode=\"counter\"` work as in TIK. Tensors are declared in UB, 32-byte aligned, one \
after another in the order given; `name[k]` starts an operand at element k. Every restriction \
is checked as in a run. Without -o the SVG goes to stdout; the per-repeat element lists are \
printed either way (stderr when the SVG goes to stdout)."
    )]
    Ascend(AscendArgs),
    /// One tile instruction of a PTO-AS kernel: which elements of each tile it reads and writes.
    #[command(after_help = "Example:\n  \
npusim explain pto tests/explain_data/tpartmin_mismatched.pto --line 28 -o tpartmin.svg\n\n\
The instruction is the one lowered from that line, with the tiles (addresses, shapes, valid \
regions) the interpreter built for it; it is also executed once on a scratch core, so a \
pattern the chip rejects is reported. Drawn so far: TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN.")]
    Pto(PtoArgs),
}

#[derive(Args)]
pub struct AscendArgs {
    /// The TIK call, e.g. `vec_cmpv_gt(dst_ub, src0_ub, src1_ub, 2, 8, 7)`.
    pub call: String,
    /// A UB tensor: NAME=DTYPE[SHAPE] (TIK dtype names: float16, float32, uint16, ...).
    #[arg(long = "tensor", value_name = "NAME=DTYPE[SHAPE]")]
    pub tensors: Vec<String>,
    /// Chip profile (`npusim chips`).
    #[arg(long, default_value = "ascend910")]
    pub chip: String,
    /// Output SVG file (`-` or absent: stdout).
    #[arg(short, long, value_name = "FILE.svg")]
    pub output: Option<PathBuf>,
}

#[derive(Args)]
pub struct PtoArgs {
    /// The PTO-AS kernel.
    pub file: PathBuf,
    /// The source line of the instruction (1-based).
    #[arg(long)]
    pub line: usize,
    /// Which tile instruction of the line, when it holds several (0-based).
    #[arg(long, default_value_t = 0)]
    pub nth: usize,
    /// Target chip (a2a3, a5, or a chip name); overrides the module's `pto.target_arch`.
    #[arg(long, value_parser = parse_target, value_name = "CHIP")]
    pub target: Option<TargetArch>,
    /// Output SVG file (`-` or absent: stdout).
    #[arg(short, long, value_name = "FILE.svg")]
    pub output: Option<PathBuf>,
}

fn parse_target(s: &str) -> Result<TargetArch, String> {
    let p = npusim_core::ChipProfile::by_name(s).ok_or_else(|| format!("unknown chip `{s}`"))?;
    [TargetArch::A2A3, TargetArch::A5]
        .into_iter()
        .find(|t| t.chip() == p.id)
        .ok_or_else(|| format!("chip `{}` has no PTO tile target (a2a3, a5)", p.name))
}

/// Writes `text` to `path` through a temporary file renamed into place (no partial file).
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    npusim_core::npy::write_atomic(path, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

fn emit(svg: &str, summary: &[String], output: Option<&Path>) -> Result<()> {
    match output.filter(|p| p.as_os_str() != "-") {
        Some(p) => {
            write_atomic(p, svg)?;
            for l in summary {
                println!("{l}");
            }
            println!("wrote {}", p.display());
        }
        None => {
            for l in summary {
                eprintln!("{l}");
            }
            std::io::stdout().write_all(svg.as_bytes())?;
        }
    }
    Ok(())
}

/// Runs `npusim explain ...`.
pub fn main(c: ExplainCommand) -> Result<bool> {
    match c {
        ExplainCommand::Ascend(a) => {
            let e = tik::explain(&a.call, &a.tensors, &a.chip)?;
            emit(&e.diagram.svg(), &e.summary, a.output.as_deref())?;
        }
        ExplainCommand::Pto(a) => {
            let e = pto::explain(&a.file, a.line, a.nth, a.target)?;
            emit(&e.diagram.svg(), &e.summary, a.output.as_deref())?;
        }
    }
    Ok(true)
}
