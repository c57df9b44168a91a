//! The access maps `npusim explain ascend` draws agree with what the instruction does when it
//! runs: over a grid of repeats, block and repeat strides and masks, executing `vec_add` writes
//! exactly the dst elements the map lists (every other byte of dst keeps its value), each the
//! sum of the two source elements the map gives for that lane; and `vec_cmpv_gt` sets exactly
//! the bits the map assigns to each lane.

use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr};
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::Vcmpv;
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};
use std::collections::BTreeMap;

const N: u64 = 4096;

fn tensor(name: &str, dtype: ElemType, base: u64, elems: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype,
        tensor_base: base,
        tensor_bytes: elems * dtype.size() as u64,
        offset: 0,
    }
}

fn f16_at(core: &VectorCore, addr: u64) -> f32 {
    let b = core.ub().bytes(addr, 2).unwrap();
    half::f16::from_le_bytes([b[0], b[1]]).to_f32()
}

fn fill(core: &mut VectorCore) {
    let mut bytes = Vec::new();
    for i in 0..3 * N {
        let v = ((i * 7919) % 61) as f32 - 30.0;
        bytes.extend_from_slice(&half::f16::from_f32(v).to_le_bytes());
    }
    core.ub_mut().write(0, &bytes).unwrap();
}

#[test]
fn vec_add_writes_exactly_the_mapped_lanes() {
    let chip = ChipProfile::get(ChipId::Ascend910);
    let (x, y, z) = (
        tensor("x", ElemType::F16, 0, N),
        tensor("y", ElemType::F16, 2 * N, N),
        tensor("z", ElemType::F16, 4 * N, N),
    );
    let masks = [
        MaskArg::Count(128),
        MaskArg::Count(37),
        MaskArg::tik_list(0xff00, 0x0f0f_0000_00ff),
    ];
    let mut checked = 0;
    for repeat in [1i64, 3] {
        for blk in [[1i64, 1, 1], [2, 1, 3], [1, 2, 1]] {
            for rep in [[8i64, 8, 8], [16, 9, 4], [24, 16, 8]] {
                for mask in masks {
                    let op = match VecOp::new(
                        chip,
                        &VecArgs {
                            instr: Instr::Add,
                            name: "vec_add",
                            face: Face::Tik,
                            dst: &z.at(16),
                            srcs: &[&x, &y.at(32)],
                            scalar: None,
                            round: CastRound::None,
                            mask,
                            is_set_mask: true,
                            repeat,
                            blk,
                            rep,
                            blk_max: 255,
                        },
                    ) {
                        Ok(op) => op,
                        Err(_) => continue,
                    };
                    let map = op.accesses(1 << 20).unwrap();
                    let mut core = VectorCore::new(ChipId::Ascend910, 0);
                    fill(&mut core);
                    let before: Vec<f32> = (0..N).map(|e| f16_at(&core, 4 * N + 2 * e)).collect();
                    let src = |k: usize, i: usize| map.operands[k].lanes[i].addr;
                    let mut want: BTreeMap<u64, f32> = BTreeMap::new();
                    for (i, l) in map.operands[0].lanes.iter().enumerate() {
                        want.insert(l.addr, f16_at(&core, src(1, i)) + f16_at(&core, src(2, i)));
                    }
                    op.execute(&mut core).unwrap();
                    for e in 0..N {
                        let a = 4 * N + 2 * e;
                        let got = f16_at(&core, a);
                        match want.get(&a) {
                            Some(w) => assert_eq!(got, *w, "z[{e}] {repeat} {blk:?} {rep:?}"),
                            None => assert_eq!(got, before[e as usize], "z[{e}] not in the map"),
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} combinations were legal");
}

#[test]
fn vec_cmpv_sets_exactly_the_mapped_bits() {
    let chip = ChipProfile::get(ChipId::Ascend910);
    let (a, b) = (
        tensor("a", ElemType::F16, 0, N),
        tensor("b", ElemType::F16, 2 * N, N),
    );
    let dst = tensor("d", ElemType::U16, 4 * N, 256);
    for (repeat, s0, s1) in [(2i64, 8i64, 7i64), (3, 0, 5), (4, 9, 8)] {
        let op = Vcmpv::new(chip, CmpMode::Gt, &dst, &a, &b, repeat, s0, s1).unwrap();
        let map = op.accesses();
        let mut core = VectorCore::new(ChipId::Ascend910, 0);
        fill(&mut core);
        op.execute(&mut core).unwrap();
        let [d, x, y] = &map.operands[..] else {
            panic!("three operands")
        };
        assert_eq!(d.lanes.len() as i64, repeat * 128);
        for i in 0..d.lanes.len() {
            let want = f16_at(&core, x.lanes[i].addr) > f16_at(&core, y.lanes[i].addr);
            let byte = core.ub().bytes(d.lanes[i].addr, 1).unwrap()[0];
            let bit = byte >> d.lanes[i].bit.unwrap() & 1 == 1;
            assert_eq!(bit, want, "lane {i} of ({repeat}, {s0}, {s1})");
        }
    }
}
