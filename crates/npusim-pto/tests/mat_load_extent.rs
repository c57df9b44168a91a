//! TLOAD's boxing conversions into Mat (ND -> Nz, DN -> Zn) with a valid region different from
//! the global shape, under each `MatLoadExtent` policy, against a plain model written here: the
//! Nz and Zn offsets of half tiles (16 x 16 boxes of 512 bytes) and the extent each policy
//! names (A2A3: the global rows x columns; A5: ND global rows x valid columns, DN valid rows x
//! global columns; the CPU simulator: a typed error).

use npusim_core::tile_policy::MatLoadExtent;
use npusim_pto::*;

/// Element offset of (r, c) in an Nz half tile of `rows` rows: column-major 16 x 16 boxes,
/// row-major inside.
fn nz(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 16) * 256 + (r % 16) * 16 + c % 16
}

/// Element offset of (r, c) in a Zn half tile of `cols` columns: row-major 16 x 16 boxes,
/// column-major inside.
fn zn(r: usize, c: usize, cols: usize) -> usize {
    (r / 16) * cols * 16 + (c / 16) * 256 + (c % 16) * 16 + r % 16
}

const SENTINEL: u16 = 0x7e00;

struct Case {
    arch: &'static str,
    cpu_sim: bool,
    dn: bool,
    tile: (usize, usize),
    valid: (usize, usize),
    global: (usize, usize),
}

/// Runs the load into a tile first filled with a sentinel (pad Null: nothing else is written);
/// returns the tile's bytes as halves in memory order and the GM values in logical order.
fn run(c: &Case) -> Result<(Vec<u16>, Vec<u16>), PtoError> {
    let mut core = TileCore::by_name(c.arch).unwrap();
    if c.cpu_sim {
        core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
    }
    let (rows, cols) = c.tile;
    let (b, s) = if c.dn {
        (BLayout::RowMajor, SLayout::ColMajor)
    } else {
        (BLayout::ColMajor, SLayout::RowMajor)
    };
    let t = core
        .alloc(
            TileDesc::new(TileLoc::Mat, ElemType::F16, rows, cols)
                .layout(b, s)
                .valid(c.valid.0, c.valid.1),
        )
        .unwrap();
    let (n, base) = (rows * cols, t.addr() as usize);
    for i in 0..n {
        let a = base + 2 * i;
        core.mem_mut(TileLoc::Mat)[a..a + 2].copy_from_slice(&SENTINEL.to_le_bytes());
    }
    let (gr, gc) = c.global;
    // GM holds distinct finite halves; large enough for any over-read of a row.
    let data: Vec<u16> = (0..(gr + 1) * (gc + 64))
        .map(|i| (i % 30000) as u16)
        .collect();
    let addr = core.gm_bind(&data);
    let g = if c.dn {
        GlobalTensor::dn_2d(addr, ElemType::F16, gr, gc)
    } else {
        GlobalTensor::nd_2d(addr, ElemType::F16, gr, gc)
    };
    core.tload(&t, &g)?;
    let mem = core.mem(TileLoc::Mat).as_slice();
    let out = (0..n)
        .map(|i| u16::from_le_bytes([mem[base + 2 * i], mem[base + 2 * i + 1]]))
        .collect();
    Ok((out, data))
}

/// The model: the extent the policy names is copied from GM (ND: element (r, c) at r * gc + c;
/// DN: at c * gr + r), every other element keeps the sentinel (hardware: pad Null writes
/// nothing) or is 0 (the CPU simulator's policy fills a Null-pad tile with zeros first).
fn model(c: &Case, extent: (usize, usize), data: &[u16]) -> Vec<u16> {
    let (rows, cols) = c.tile;
    let (gr, gc) = c.global;
    let mut m = vec![if c.cpu_sim { 0 } else { SENTINEL }; rows * cols];
    for r in 0..extent.0 {
        for col in 0..extent.1 {
            let (off, src) = if c.dn {
                (zn(r, col, cols), col * gr + r)
            } else {
                (nz(r, col, rows), r * gc + col)
            };
            m[off] = data[src];
        }
    }
    m
}

fn check(c: Case, extent: (usize, usize)) {
    let (got, data) = run(&c).unwrap();
    assert_eq!(got, model(&c, extent, &data), "{}", c.arch);
}

#[test]
fn a2a3_moves_the_global_shape() {
    let p = TileCore::by_name("a2a3").unwrap().policy();
    assert_eq!(p.mat_load_extent, MatLoadExtent::GlobalShape);
    // The DynamicTailMatmul sample's shape: valid 1x1, global 32x32.
    for dn in [false, true] {
        for (valid, global) in [((1, 1), (32, 32)), ((5, 7), (32, 32)), ((32, 32), (20, 24))] {
            let c = Case {
                arch: "a2a3",
                cpu_sim: false,
                dn,
                tile: (32, 32),
                valid,
                global,
            };
            check(c, global);
        }
    }
}

#[test]
fn a5_takes_the_global_outer_and_the_valid_inner_length() {
    let p = TileCore::by_name("a5").unwrap().policy();
    assert_eq!(p.mat_load_extent, MatLoadExtent::GlobalOuterValidInner);
    for (valid, global) in [((1, 1), (32, 32)), ((5, 7), (24, 32)), ((32, 16), (20, 24))] {
        let nd = Case {
            arch: "a5",
            cpu_sim: false,
            dn: false,
            tile: (32, 32),
            valid,
            global,
        };
        check(nd, (global.0, valid.1));
        let dn = Case {
            arch: "a5",
            cpu_sim: false,
            dn: true,
            tile: (32, 32),
            valid,
            global,
        };
        check(dn, (valid.0, global.1));
    }
}

#[test]
fn equal_shapes_load_the_same_under_every_policy() {
    for (arch, cpu_sim) in [("a2a3", false), ("a5", false), ("a2a3", true), ("a5", true)] {
        for dn in [false, true] {
            let c = Case {
                arch,
                cpu_sim,
                dn,
                tile: (48, 32),
                valid: (40, 24),
                global: (40, 24),
            };
            check(c, (40, 24));
        }
    }
}

fn err_of(c: Case) -> String {
    match run(&c) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn cpu_sim_policy_keeps_the_pages_rule() {
    for arch in ["a2a3", "a5"] {
        let e = err_of(Case {
            arch,
            cpu_sim: true,
            dn: false,
            tile: (32, 32),
            valid: (1, 1),
            global: (32, 32),
        });
        assert!(e.contains("TLOAD") && e.contains("global shape"), "{e}");
    }
}

#[test]
fn an_extent_past_the_tile_is_a_typed_error() {
    for arch in ["a2a3", "a5"] {
        let e = err_of(Case {
            arch,
            cpu_sim: false,
            dn: false,
            tile: (32, 32),
            valid: (32, 32),
            global: (48, 32),
        });
        assert!(
            e.contains("TLOAD") && e.contains("static shape") && e.contains("48x32"),
            "{e}"
        );
    }
}

#[test]
fn a_non_2d_global_tensor_is_a_typed_error() {
    let mut core = TileCore::by_name("a2a3").unwrap();
    let t = core
        .alloc(
            TileDesc::new(TileLoc::Mat, ElemType::F16, 32, 32)
                .layout(BLayout::ColMajor, SLayout::RowMajor),
        )
        .unwrap();
    let addr = core.gm_bind(&vec![0u16; 1024]);
    let mut g = GlobalTensor::nd_2d(addr, ElemType::F16, 16, 32);
    g.shape[2] = 2;
    g.stride[2] = 512;
    let e = core.tload(&t, &g).unwrap_err().to_string();
    assert!(e.contains("TLOAD") && e.contains("2-D"), "{e}");
}

// ---- TSTORE from Acc into an ND tensor whose row count differs from the valid rows
// (`AccStoreRows`): the model writes the valid rows at the tensor's row stride, element
// (r, c) from the Acc tile's Nz offset (16 x 16 f32 boxes down the columns).

/// Stores a 32 x 16 f32 Acc tile with `valid` rows x 16 columns (values r * 100 + c) into a
/// `grows` x 16 ND view with row stride 16, narrowing to `out` (F32 or F16); GM starts as
/// 0xAB bytes. Returns the GM bytes.
fn acc_store(
    arch: &str,
    cpu_sim: bool,
    out: ElemType,
    valid: (usize, usize),
    grows: usize,
) -> Result<Vec<u8>, PtoError> {
    let mut core = TileCore::by_name(arch).unwrap();
    if cpu_sim {
        core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
    }
    let acc = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 32, 16)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(valid.0, valid.1),
        )
        .unwrap();
    let base = acc.addr() as usize;
    for r in 0..32 {
        for c in 0..16 {
            let a = base + 4 * (r * 16 + c); // one 16-column box: Nz offset r * 16 + c
            let v = (r * 100 + c) as f32;
            core.mem_mut(TileLoc::Acc)[a..a + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let bytes = 40 * 16 * out.size();
    let gm = core.gm_bind(&vec![0xABu8; bytes]);
    let g = GlobalTensor::nd_2d_strided(gm, out, grows, 16, 16);
    core.tstore(&g, &acc)?;
    Ok(core.gm().bytes(gm, bytes as u64).unwrap().to_vec())
}

fn acc_store_model(out: ElemType, rows: usize) -> Vec<u8> {
    let size = out.size();
    let mut m = vec![0xABu8; 40 * 16 * size];
    for r in 0..rows {
        for c in 0..16 {
            let v = (r * 100 + c) as f32;
            let b = match out {
                ElemType::F16 => half::f16::from_f32(v).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            };
            let o = (r * 16 + c) * size;
            m[o..o + size].copy_from_slice(&b);
        }
    }
    m
}

#[test]
fn acc_store_writes_the_valid_rows_at_the_row_stride() {
    for arch in ["a2a3", "a5"] {
        assert_eq!(
            TileCore::by_name(arch).unwrap().policy().acc_store_rows,
            npusim_core::tile_policy::AccStoreRows::ValidRows
        );
        for out in [ElemType::F32, ElemType::F16] {
            // Fewer valid rows than the tensor (the Storefp sample: valid 1 of 32), equal, and
            // more (rows past Shape3 continue at the row stride).
            for (vr, grows) in [(1, 32), (3, 8), (8, 8), (12, 8)] {
                let got = acc_store(arch, false, out, (vr, 16), grows).unwrap();
                assert_eq!(
                    got,
                    acc_store_model(out, vr),
                    "{arch} {out} {vr} of {grows}"
                );
            }
        }
    }
}

#[test]
fn acc_store_rules_that_stay_typed_errors() {
    for arch in ["a2a3", "a5"] {
        // The CPU simulator's policy keeps the page's rule.
        let e = acc_store(arch, true, ElemType::F32, (3, 16), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("TSTORE") && e.contains("global shape"), "{e}");
        // ... also for fewer valid columns than Shape4 (the hardware's no-op below).
        let e = acc_store(arch, true, ElemType::F32, (3, 8), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("TSTORE") && e.contains("global shape"), "{e}");
        // More valid columns than Shape4: several ND matrices (not modelled).
        let e = acc_store_cols(arch, (3, 32), 16).unwrap_err().to_string();
        assert!(e.contains("TSTORE") && e.contains("global shape"), "{e}");
    }
}

/// Stores a 32 x 32 f32 Acc tile with valid region `valid` into an 8 x `gcols` ND view (row
/// stride `gcols`); GM starts as 0xAB bytes. Returns the GM bytes.
fn acc_store_cols(arch: &str, valid: (usize, usize), gcols: usize) -> Result<Vec<u8>, PtoError> {
    let mut core = TileCore::by_name(arch).unwrap();
    let acc = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 32, 32)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(valid.0, valid.1),
        )
        .unwrap();
    let bytes = 8 * gcols * 4;
    let gm = core.gm_bind(&vec![0xABu8; bytes]);
    let g = GlobalTensor::nd_2d_strided(gm, ElemType::F32, 8, gcols, gcols);
    core.tstore(&g, &acc)?;
    Ok(core.gm().bytes(gm, bytes as u64).unwrap().to_vec())
}

// Fewer valid columns than the ND tensor's Shape4: pto-isa's NPU code programs the fixpipe
// with validCol / Shape4 = 0 ND matrices, which the Ascend C Fixpipe page (L0C -> GM,
// FixpipeParamsV220) defines as a NOP: GM keeps every byte (the PTOAS DynamicTailMatmul
// sample with M = N = K = 1: a 1 x 1 valid region into a 32 x 32 tensor).
#[test]
fn acc_store_with_fewer_valid_columns_than_shape4_stores_nothing() {
    for arch in ["a2a3", "a5"] {
        for (valid, gcols) in [((1, 1), 32), ((3, 8), 16), ((8, 15), 16), ((1, 31), 32)] {
            let got = acc_store_cols(arch, valid, gcols).unwrap();
            assert_eq!(
                got,
                vec![0xABu8; 8 * gcols * 4],
                "{arch} {valid:?} into 8x{gcols}"
            );
        }
        // The plain case next to it still writes (valid columns = Shape4).
        let got = acc_store_cols(arch, (1, 16), 16).unwrap();
        assert_ne!(got, vec![0xABu8; 8 * 16 * 4], "{arch}");
    }
}
