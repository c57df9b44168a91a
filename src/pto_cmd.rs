//! `npusim run` and `npusim check`: PTO-AS kernels from the command line.
//!
//! Owned by the PTO-AS interpreter work (issue 4); the lead wires the subcommands in `main.rs`.

use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// `npusim run KERNEL.pto [--func NAME] [--target a2a3|a5] [--blocks N] --arg NAME=FILE.npy ...`
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The kernel file.
    pub kernel: PathBuf,
}

/// `npusim check KERNEL.pto`
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The kernel file.
    pub kernel: PathBuf,
}

/// Runs a kernel.
pub fn run(args: RunArgs) -> Result<bool> {
    bail!("npusim run {}: the PTO-AS interpreter is not built yet", args.kernel.display())
}

/// Parses and verifies a kernel.
pub fn check(args: CheckArgs) -> Result<bool> {
    bail!("npusim check {}: not built yet", args.kernel.display())
}

/// The PTO-AS part of `npusim demo`.
pub fn demo() -> Result<bool> {
    println!("(PTO-AS examples are not wired yet)");
    Ok(true)
}
