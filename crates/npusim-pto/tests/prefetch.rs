//! TPREFETCH: a hint that moves nothing but checks what TLOAD would (pto-isa
//! `docs/isa/TPREFETCH.md`): the tile keeps its bytes; each restriction class is a typed error.

use npusim_pto::*;
use proptest::prelude::*;

fn pf(c: &mut TileCore, dst: Tile, src: GlobalTensor) -> Result<(), PtoError> {
    c.exec(&TileOp {
        op: OpCode::Tprefetch,
        args: Args::Load { dst, src },
    })
}

#[test]
fn tprefetch_checks_and_writes_nothing() {
    for arch in ["a2a3", "a5"] {
        let mut c = TileCore::by_name(arch).unwrap();
        let g = c.gm_bind(&(0..256).map(|x| x as f32).collect::<Vec<_>>());
        let t = c.alloc(TileDesc::vec(ElemType::F32, 8, 32).at(0)).unwrap();
        let before: Vec<f32> = (0..256).map(|x| -(x as f32)).collect();
        c.write_valid(&t, &before).unwrap();
        pf(&mut c, t, GlobalTensor::nd_2d(g, ElemType::F32, 8, 32)).unwrap();
        assert_eq!(c.read_valid::<f32>(&t).unwrap(), before, "{arch}");
        // A Mat tile is a legal destination too.
        let m = c
            .alloc(TileDesc::new(TileLoc::Mat, ElemType::F32, 16, 16).at(0))
            .unwrap();
        pf(&mut c, m, GlobalTensor::nd_2d(g, ElemType::F32, 16, 16)).unwrap();
    }
}

#[test]
fn tprefetch_restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let g = c.gm_bind(&[0u8; 1024]);
    // The window runs past the end of global memory.
    let t = c.alloc(TileDesc::vec(ElemType::F32, 8, 32).at(0)).unwrap();
    let far = c.gm().capacity() as u64 - 64;
    let e = pf(&mut c, t, GlobalTensor::nd_2d(far, ElemType::F32, 8, 32)).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::Memory {
                op: "TPREFETCH",
                operand: "src",
                ..
            }
        ),
        "{e}"
    );
    // Element widths differ.
    let e = pf(&mut c, t, GlobalTensor::nd_2d(g, ElemType::F16, 8, 32)).unwrap_err();
    assert!(e.to_string().contains("element width"), "{e}");
    // An Acc destination.
    let acc = c
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .at(0),
        )
        .unwrap();
    let e = pf(&mut c, acc, GlobalTensor::nd_2d(g, ElemType::F32, 16, 16)).unwrap_err();
    assert!(e.to_string().contains("Vec or Mat"), "{e}");
    // An A5-only element type on A2A3.
    let mut a5 = TileCore::by_name("a5").unwrap();
    let f8 = a5
        .alloc(TileDesc::vec(ElemType::F8E4M3FN, 4, 32).at(0))
        .unwrap();
    let ga = a5.gm_bind(&[0u8; 128]);
    pf(
        &mut a5,
        f8,
        GlobalTensor::nd_2d(ga, ElemType::F8E4M3FN, 4, 32),
    )
    .unwrap();
    let e = pf(
        &mut c,
        f8,
        GlobalTensor::nd_2d(g, ElemType::F8E4M3FN, 4, 32),
    )
    .unwrap_err();
    assert!(e.to_string().contains("not legal on a2a3"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The plain model of TPREFETCH (the module's policy: the page defines no checks): it
    /// succeeds exactly when the global tensor's element width equals the tile's and every GM
    /// byte of the valid-region window (row-major ND, row stride = the tile's columns) lies in
    /// global memory; it changes no byte of the tile's memory either way.
    #[test]
    fn tprefetch_checks_the_window_and_writes_nothing(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![ElemType::F32, ElemType::F16, ElemType::I8, ElemType::I32]),
        gt in prop::sample::select(vec![ElemType::F32, ElemType::F16, ElemType::I8, ElemType::I32]),
        rows in 1usize..9,
        blocks in 1usize..5,
        grows in 1usize..9,
        far in any::<bool>(),
        seed in any::<u8>(),
    ) {
        let mut c = TileCore::by_name(arch).unwrap();
        let cols = blocks * 32 / t.size();
        let tile = c.alloc(TileDesc::vec(t, rows, cols).at(0)).unwrap();
        let g = c.gm_bind(&vec![seed; 4096]);
        let base = if far { c.gm().capacity() as u64 - 64 } else { g };
        let src = GlobalTensor::nd_2d(base, gt, grows, cols);
        let fill: Vec<u8> = (0..tile.size_bytes()).map(|i| (i as u8) ^ seed.wrapping_add(1)).collect();
        c.mem_mut(TileLoc::Vec)[..fill.len()].copy_from_slice(&fill);
        let end = base + (rows * cols * t.size()) as u64;
        let ok = gt.size() == t.size() && end <= c.gm().capacity() as u64;
        let got = pf(&mut c, tile, src);
        prop_assert_eq!(got.is_ok(), ok, "prefetch {:?}", got);
        prop_assert_eq!(&c.mem_mut(TileLoc::Vec)[..fill.len()], &fill[..]);
    }
}
