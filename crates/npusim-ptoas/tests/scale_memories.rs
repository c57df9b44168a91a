//! `pto.tget_scale_addr` into npusim's own spellings of pto-isa's MX scale memories,
//! `loc=scale_left` / `loc=scale_right` (A5 L0A_MX / L0B_MX, `npusim_pto::ops::mx` "Where the
//! scales live"; PTOAS itself writes `loc=scaling`): the kernel of `scale_addr.rs` with its
//! scale tiles in the two memories. The Left tile at 8192 binds its scales to 512 of
//! L0A_MX, the Right tile at 16384 to 1024 of L0B_MX; the matmul reads them through tiles
//! placed there by hand, so the result is right only if the rebinding and the moves reached
//! the scale memories (without the rebinding the scales stay at 0 and 2048 and the result
//! differs). A crossed binding (a Left src into a scale_right tile) is a typed error.

use npusim_ptoas::interp::RunConfig;

mod mx_common;
use mx_common::*;

#[test]
fn scale_memories_in_pto_as() {
    let (args, a, b, sa, sb) = inputs();
    let want = expected(&a, &b, &sa, &sb);
    let src = scale_kernel("scale_left", "scale_right");
    let p = prog(&src, "scale_mem.pto");
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert!(want.iter().filter(|x| **x != 0.0).count() > M * N / 2);
    assert_eq!(c, want);
    // The same kernel without the two rebindings: the scales stay at 0 / 2048.
    let unbound: String = src
        .lines()
        .filter(|l| !l.contains("pto.tget_scale_addr"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = prog(&unbound, "scale_mem.pto")
        .run(None, &args, &RunConfig::default())
        .unwrap();
    let c = out.buffer("c").unwrap().to_elems::<f32>().unwrap();
    assert_ne!(c, want);
}

#[test]
fn crossed_scale_memories_are_errors() {
    let (args, ..) = inputs();
    // Left's scales (a Zz tile) declared in scale_right, Right's (Nn) in scale_left: the
    // layout rule of each memory refuses them.
    let src = scale_kernel("scale_right", "scale_left");
    let m = npusim_ptoas::parse_module(&src, "x.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "x.pto", &src)));
    let msg = match npusim_ptoas::interp::lower(&m, npusim_ptoas::interp::LowerOptions::default()) {
        Err(d) => npusim_ptoas::render_all(&d, "x.pto", &src),
        Ok(p) => match p.run(None, &args, &RunConfig::default()) {
            Ok(_) => panic!("crossed scale memories ran"),
            Err(e) => e.to_string(),
        },
    };
    assert!(
        msg.contains("TileRightScale") || msg.contains("TileLeftScale"),
        "{msg}"
    );
}
