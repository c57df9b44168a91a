//! TLOAD / TSTORE with a tile valid region smaller than the global shape (pto-isa
//! `docs/isa/TLOAD.md`, `docs/isa/TSTORE.md`: "the implementation uses the valid row/col as the
//! transfer size", `dst[i][j] = src[r0 + i][c0 + j]`): the window at the tensor's origin moves,
//! checked against a plain model written here (GM offsets from the shape and strides, the tile
//! row-major). A valid region past the tensor's rows or columns stays a typed error; the CPU
//! simulator's policy keeps its equality rule.

use npusim_pto::*;
use proptest::prelude::*;

const STAMP: u32 = 0xdead_beef;

/// GM offset (elements) of logical `(r, c)` in an ND tensor of `rows x cols` at `row_stride`,
/// or in a DN one (columns at `row_stride` apart, rows contiguous).
fn gm_off(dn: bool, r: usize, c: usize, stride: usize) -> usize {
    if dn { c * stride + r } else { r * stride + c }
}

#[derive(Debug)]
struct Case {
    dn: bool,
    grid: (usize, usize),
    stride: usize,
    tile: (usize, usize),
    valid: (usize, usize),
    pad: PadValue,
}

fn global(c: &Case, addr: u64) -> GlobalTensor {
    let (gr, gc) = c.grid;
    if c.dn {
        let mut g = GlobalTensor::dn_2d(addr, ElemType::U32, gr, gc);
        g.stride[4] = c.stride;
        g
    } else {
        GlobalTensor::nd_2d_strided(addr, ElemType::U32, gr, gc, c.stride)
    }
}

fn tile(core: &TileCore, c: &Case) -> Tile {
    let (rows, cols) = c.tile;
    let mut d = TileDesc::vec(ElemType::U32, rows, cols)
        .valid(c.valid.0, c.valid.1)
        .pad(c.pad);
    if c.dn {
        d = d.layout(BLayout::ColMajor, SLayout::NoneBox);
    }
    core.alloc(d.at(0)).unwrap()
}

/// Byte offset of `(r, c)` in the tile (row-major, or column-major for DN).
fn tile_at(c: &Case, r: usize, col: usize) -> usize {
    4 * if c.dn {
        col * c.tile.0 + r
    } else {
        r * c.tile.1 + col
    }
}

fn gm_len(c: &Case) -> usize {
    let (gr, gc) = c.grid;
    if c.dn {
        (gc - 1) * c.stride + gr
    } else {
        (gr - 1) * c.stride + gc
    }
}

/// Loads; returns the whole tile as words in (r, c) order, or the error.
fn load(c: &Case) -> Result<Vec<u32>, PtoError> {
    let mut core = TileCore::by_name("a2a3").unwrap();
    let data: Vec<u32> = (0..gm_len(c) as u32).map(|i| 0x1000 + i).collect();
    let addr = core.gm_bind(&data);
    let t = tile(&core, c);
    let (rows, cols) = c.tile;
    for r in 0..rows {
        for col in 0..cols {
            let a = tile_at(c, r, col);
            core.mem_mut(TileLoc::Vec)[a..a + 4].copy_from_slice(&STAMP.to_le_bytes());
        }
    }
    core.tload(&t, &global(c, addr))?;
    let m = core.mem(TileLoc::Vec).as_slice();
    let mut out = Vec::new();
    for r in 0..rows {
        for col in 0..cols {
            let a = tile_at(c, r, col);
            out.push(u32::from_le_bytes(m[a..a + 4].try_into().unwrap()));
        }
    }
    Ok(out)
}

/// The model: the window from GM, the rest the pad value (Null on hardware: untouched).
fn load_model(c: &Case) -> Vec<u32> {
    let (rows, cols) = c.tile;
    let mut out = Vec::new();
    for r in 0..rows {
        for col in 0..cols {
            out.push(if r < c.valid.0 && col < c.valid.1 {
                0x1000 + gm_off(c.dn, r, col, c.stride) as u32
            } else if c.pad == PadValue::Zero {
                0
            } else {
                STAMP
            });
        }
    }
    out
}

/// Stores a tile of distinct words into a GM of sentinels; returns the GM words.
fn store(c: &Case) -> Result<Vec<u32>, PtoError> {
    let mut core = TileCore::by_name("a2a3").unwrap();
    let data = vec![STAMP; gm_len(c)];
    let addr = core.gm_bind(&data);
    let t = tile(&core, c);
    let (rows, cols) = c.tile;
    for r in 0..rows {
        for col in 0..cols {
            let a = tile_at(c, r, col);
            let w = (r * 1000 + col) as u32;
            core.mem_mut(TileLoc::Vec)[a..a + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    core.tstore(&global(c, addr), &t)?;
    Ok(core.gm_read::<u32>(addr, data.len()).unwrap())
}

fn store_model(c: &Case) -> Vec<u32> {
    let mut out = vec![STAMP; gm_len(c)];
    for r in 0..c.valid.0 {
        for col in 0..c.valid.1 {
            out[gm_off(c.dn, r, col, c.stride)] = (r * 1000 + col) as u32;
        }
    }
    out
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        1usize..12,
        1usize..20,
        0usize..5,
        any::<bool>(),
    )
        .prop_flat_map(|(dn, gr, gc, extra, zero)| {
            // Tiles: 32-byte rows (8 words) for ND, 32-byte columns for DN.
            let (tr, tc) = if dn {
                (gr.div_ceil(8) * 8, gc)
            } else {
                (gr, gc.div_ceil(8) * 8)
            };
            (1..=gr, 1..=gc).prop_map(move |(vr, vc)| Case {
                dn,
                grid: (gr, gc),
                stride: if dn { gr + extra } else { gc + extra },
                tile: (tr, tc),
                valid: (vr, vc),
                pad: if zero { PadValue::Zero } else { PadValue::Null },
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn tload_moves_the_valid_window(c in case()) {
        prop_assert_eq!(load(&c).unwrap(), load_model(&c));
    }

    #[test]
    fn tstore_writes_only_the_valid_window(c in case()) {
        prop_assert_eq!(store(&c).unwrap(), store_model(&c));
    }
}

#[test]
fn a_valid_region_past_the_tensor_is_a_typed_error() {
    for dn in [false, true] {
        // One row (ND) / one column (DN) more than the tensor has.
        let (valid, tile) = if dn {
            ((4, 9), (8, 9))
        } else {
            ((9, 4), (9, 8))
        };
        let c = Case {
            dn,
            grid: if dn { (4, 8) } else { (8, 4) },
            stride: 4,
            tile,
            valid,
            pad: PadValue::Null,
        };
        for e in [load(&c).unwrap_err(), store(&c).unwrap_err()] {
            let s = e.to_string();
            assert!(
                matches!(
                    e,
                    PtoError::ValidRegion {
                        rule: "must fit within the global shape for the layout (the valid region is the transfer size)",
                        ..
                    }
                ),
                "{s}"
            );
            assert!(s.contains("valid 9x4") || s.contains("valid 4x9"), "{s}");
        }
    }
}

#[test]
fn the_cpu_simulator_policy_keeps_equality() {
    let mut core = TileCore::by_name("a2a3").unwrap();
    core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
    let addr = core.gm_bind(&[0u32; 64]);
    let t = core
        .alloc(TileDesc::vec(ElemType::U32, 8, 8).valid(1, 8))
        .unwrap();
    let e = core
        .tload(&t, &GlobalTensor::nd_2d(addr, ElemType::U32, 8, 8))
        .unwrap_err();
    assert!(e.to_string().contains("must match the global shape"), "{e}");
    // The equal window loads.
    let t = core
        .alloc(TileDesc::vec(ElemType::U32, 8, 8).valid(8, 8))
        .unwrap();
    core.tload(&t, &GlobalTensor::nd_2d(addr, ElemType::U32, 8, 8))
        .unwrap();
}
