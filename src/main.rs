//! `npusim`: the command-line front end.
//!
//! Subcommands: `demo` (the built-in examples of every instruction family, each compared with
//! its documented result), `tpu check` (alias `hau check`: replay a Sophgo golden-vector file), and `chips`
//! (the chip profiles and their policies).

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

mod ascendc_cmd;
mod explain;
mod pto_case;
mod pto_cmd;
mod run_svg;

#[derive(Parser)]
#[command(
    name = "npusim",
    version,
    about = "Bit-exact functional simulator of AI-accelerator instruction sets",
    long_about = "npusim runs accelerator kernels without the chip: the Ascend vector unit (TIK and \
Ascend C), the PTO tile ISA, and the Sophgo TPU HAU unit, bit-exact where documents or vendor \
models fix the result.",
    after_help = "Examples:\n  \
npusim demo                                        run the built-in examples and check them\n  \
npusim tpu check golden/hau/bm1684x-cmodel.json   replay Sophgo C-model golden vectors\n  \
npusim chips                                       list chip profiles and their policies"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the built-in examples (the seed documents' worked examples) and check each result.
    #[command(after_help = "Example:\n  npusim demo")]
    Demo,
    /// Sophgo TPU tools: golden-vector replay against the vendor C-model.
    #[command(subcommand, alias = "hau")]
    Tpu(TpuCommand),
    /// Run a PTO-AS kernel (PTOAS MLIR text) on .npy inputs.
    Run(pto_cmd::RunArgs),
    /// Parse and verify a PTO-AS kernel without running it.
    Check(pto_cmd::CheckArgs),
    /// Ascend C kernels on the host: build with g++ against npusim's face and run.
    #[command(subcommand)]
    Ascendc(ascendc_cmd::AscendcCommand),
    /// List the chip profiles and the behaviour each one carries.
    #[command(after_help = "Example:\n  npusim chips")]
    Chips,
    /// Draw one instruction's memory accesses as SVG (Ascend vector call or PTO tile op).
    #[command(subcommand)]
    Explain(explain::ExplainCommand),
}

#[derive(Subcommand)]
enum TpuCommand {
    /// Replay every case of a Sophgo golden-vector JSON file; print `N passed, M failed`.
    /// (`npusim hau check` is the same command.)
    #[command(after_help = "Example:\n  \
npusim tpu check golden/hau/bm1684x-cmodel.json     (run from the repository root)")]
    Check {
        /// The golden file (format: the `npusim_tpu::golden` module docs).
        file: PathBuf,
    },
}

fn demo() -> Result<bool> {
    let mut all_ok = true;
    println!("== Ascend vector unit ==");
    for report in npusim_ascend::demo::all() {
        let r = report.context("an Ascend example failed to run")?;
        println!("\n{}", r.title);
        for l in &r.lines {
            println!("  {l}");
        }
        println!(
            "  matches the documented result: {}",
            if r.matches { "yes" } else { "NO" }
        );
        all_ok &= r.matches;
    }
    println!("\n== PTO-AS kernels ==\n");
    all_ok &= pto_cmd::demo()?;
    println!("\n== Sophgo TPU HAU unit ==\n");
    let hau = npusim_tpu::demo::topk_demo();
    print!("{hau}");
    all_ok &= hau.contains(": yes");
    println!();
    println!(
        "{}",
        if all_ok {
            "all examples match their documented results"
        } else {
            "SOME EXAMPLES DO NOT MATCH"
        }
    );
    Ok(all_ok)
}

fn chips() {
    for p in npusim_core::chip::PROFILES.iter() {
        println!("{:<11} {}", p.name, p.products);
        println!("            aliases: {}", p.aliases.join(", "));
        let caps: Vec<String> = p
            .capacities
            .iter()
            .map(|(s, c)| format!("{s} {} KiB", c / 1024))
            .collect();
        println!("            memories: {}", caps.join(", "));
        println!(
            "            vector: overflow {:?}, counter mode {}, masked pair {:?}",
            p.vector.overflow_mode, p.vector.counter_mode, p.vector.pair_reduce_masked_pair
        );
        println!(
            "            tile: {:?}, NaN min/max {:?}, reductions {:?}",
            p.tile.arch, p.tile.nan_min_max, p.tile.reduction_order
        );
    }
}

fn run(cli: Cli) -> Result<bool> {
    match cli.command {
        Command::Demo => demo(),
        Command::Run(args) => pto_cmd::run(args),
        Command::Check(args) => pto_cmd::check(args),
        Command::Ascendc(c) => ascendc_cmd::main(c),
        Command::Explain(c) => explain::main(c),
        Command::Chips => {
            chips();
            Ok(true)
        }
        Command::Tpu(TpuCommand::Check { file }) => {
            let report = npusim_tpu::golden::replay_file(&file)
                .with_context(|| format!("cannot replay {}", file.display()))?;
            println!("{report}");
            if !report.all_passed() {
                bail!("{} golden case(s) failed", report.failed);
            }
            Ok(true)
        }
    }
}

/// The error and its causes, each printed once: a cause whose text the message already holds
/// (thiserror messages that embed their source) is not repeated.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

/// Writing to a closed pipe (`npusim tpu check FILE | head`) ends the process quietly, as it
/// does for other Unix tools, instead of panicking in `println!`.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any thread exists; `SIG_DFL` is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}
