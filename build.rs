//! Links the `npusim` executable as a position-dependent (non-PIE) binary on x86-64 Linux.
//!
//! A PIE executable of npusim's size carries about 7,500 relative relocations that the dynamic
//! loader applies at every start, touching (and copying) the pages that hold them; a short run
//! (`npusim run` of a small kernel) spends a measurable part of its time there. The code is
//! compiled position-independent either way, so only the final link changes: the linker
//! resolves those relocations once. The cost is that the executable's own addresses are not
//! randomised (shared libraries still are). Set `NPUSIM_PIE=1` at build time to keep PIE.

fn main() {
    println!("cargo:rerun-if-env-changed=NPUSIM_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let pie = std::env::var_os("NPUSIM_PIE").is_some_and(|v| v == "1");
    if os == "linux" && arch == "x86_64" && env == "gnu" && !pie {
        println!("cargo:rustc-link-arg-bin=npusim=-no-pie");
    }
}
