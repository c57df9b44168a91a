//! `npusim ascendc run`: build an Ascend C kernel with the host C++ compiler against npusim's
//! header-only face and run it on the Ascend vector unit (crate `npusim-capi`, module
//! `runner`). Outputs are written only when the whole run succeeded.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use npusim_capi::runner::{self, Launch};
use npusim_core::npy;
use std::path::PathBuf;

/// `npusim ascendc ...`.
#[derive(Subcommand)]
pub enum AscendcCommand {
    /// Build KERNEL.cpp with g++ (cached) and run its `extern "C"` entry on .npy buffers.
    #[command(after_help = "Example:\n  \
npusim ascendc run examples/ascendc/add.cpp --kernel add_custom --blocks 8 \\\n      \
--arg x=x.npy --arg y=y.npy --out 'z:float16[8,2048]=z.npy'\n\n\
Each kernel parameter (`__gm__ uint8_t* NAME`) needs a buffer: --arg NAME=FILE.npy (input),\n\
--out NAME=FILE.npy (an --arg buffer written back), or --out 'NAME:DTYPE[SHAPE]=FILE.npy'\n\
(a zeroed output buffer). The compiler is $CXX or g++; builds are cached in --cache-dir.")]
    Run(RunArgs),
}

/// Arguments of `npusim ascendc run`.
#[derive(Args)]
pub struct RunArgs {
    /// The kernel source (includes "kernel_operator.h").
    pub kernel_file: PathBuf,
    /// The `extern "C"` entry to launch.
    #[arg(long)]
    pub kernel: String,
    /// blockDim: blocks run one after another, 0..N.
    #[arg(long, default_value_t = 1)]
    pub blocks: u32,
    /// Chip profile (see `npusim chips`).
    #[arg(long, default_value = "ascend910b")]
    pub chip: String,
    /// An input buffer: NAME=FILE.npy.
    #[arg(long = "arg", value_name = "NAME=FILE.npy")]
    pub args: Vec<String>,
    /// An output buffer: NAME=FILE.npy or NAME:DTYPE[SHAPE]=FILE.npy.
    #[arg(long = "out", value_name = "NAME[:DTYPE[SHAPE]]=FILE.npy")]
    pub outs: Vec<String>,
    /// Build cache (default: $NPUSIM_CACHE_DIR or ~/.cache/npusim/ascendc).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
}

fn split(spec: &str, what: &str) -> Result<(String, PathBuf)> {
    let Some((name, file)) = spec.split_once('=') else {
        bail!("{what} {spec}: expected NAME=FILE.npy");
    };
    if name.is_empty() || file.is_empty() {
        bail!("{what} {spec}: expected NAME=FILE.npy");
    }
    Ok((name.to_string(), PathBuf::from(file)))
}

/// Runs `npusim ascendc ...`.
pub fn main(cmd: AscendcCommand) -> Result<bool> {
    let AscendcCommand::Run(a) = cmd;
    let mut buffers = Vec::new();
    for spec in &a.args {
        let (name, file) = split(spec, "--arg")?;
        if buffers.iter().any(|(n, _)| *n == name) {
            bail!("--arg {spec}: `{name}` is given twice");
        }
        let arr = npy::read_npy(&file).with_context(|| format!("--arg {name}"))?;
        buffers.push((name, arr));
    }
    let mut outs = Vec::new();
    for spec in &a.outs {
        let (lhs, file) = split(spec, "--out")?;
        let (name, fresh) = runner::parse_out_spec(&lhs)?;
        match (fresh, buffers.iter().any(|(n, _)| *n == name)) {
            (Some(_), true) => {
                bail!("--out {spec}: `{name}` is also an --arg; drop the :DTYPE[SHAPE]")
            }
            (Some(arr), false) => buffers.push((name.clone(), arr)),
            (None, true) => {}
            (None, false) => bail!(
                "--out {spec}: `{name}` has no buffer; give --arg {name}=FILE.npy or --out '{name}:DTYPE[SHAPE]=FILE.npy'"
            ),
        }
        outs.push((name, file));
    }
    let launch = Launch {
        source: a.kernel_file.clone(),
        kernel: a.kernel.clone(),
        blocks: a.blocks,
        chip: a.chip.clone(),
        args: buffers,
        cache_dir: a
            .cache_dir
            .clone()
            .unwrap_or_else(runner::default_cache_dir),
    };
    let result = runner::run(&launch)?;
    // All-or-nothing: encode every output first, then write each atomically.
    let mut encoded = Vec::new();
    for (name, file) in &outs {
        let arr = result
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
            .context("output buffer missing")?;
        encoded.push((file, npy::to_npy_bytes(arr)?));
    }
    for (file, bytes) in encoded {
        npy::write_atomic(file, &bytes).with_context(|| format!("writing {}", file.display()))?;
    }
    println!(
        "ran {} on {} block(s) of {}: wrote {}",
        a.kernel,
        a.blocks,
        a.chip,
        outs.iter()
            .map(|(n, f)| format!("{n} -> {}", f.display()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(true)
}
