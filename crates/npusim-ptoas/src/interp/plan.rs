//! Placement of automatically placed tiles by liveness, when placing each tile after the
//! previous one would not fit (the role of PTOAS's PlanMemory pass; its `planmemory` samples
//! allocate more tiles than a memory holds and rely on reuse).
//!
//! A function's `pto.alloc_tile` results without `addr =` are placed first fit, in definition
//! order, at the lowest 32-byte aligned address where they overlap no tile that is live at the
//! same time. A tile is live from its `alloc_tile` to its last use; a use inside a loop that
//! the tile was defined outside of lasts to the end of that loop (the next iteration reads it
//! again). Views of a tile (`pto.subset`, `pto.treshape`, `pto.bitcast`, any op with a tile
//! result) are uses of the tiles they view. A tile that flows into `scf.yield`, loop or
//! while inits, `scf.condition`, a call or `return` is live to the end of the function.
//!
//! The plan is used only when the plain one-after-another placement does not fit, so kernels
//! that fit keep their addresses; functions that reserve pipe buffers are never replanned.

use crate::ast::{Block, Func, LocExt, OpKind, TargetArch, ValueId};
use crate::ops::OpCode;
use std::collections::HashMap;

/// One auto-placed tile.
struct Alloc {
    value: ValueId,
    loc: usize,
    size: u64,
    start: usize,
    end: usize,
}

#[derive(Default)]
struct Walk {
    /// Next op index.
    next: usize,
    /// `[start, end]` op indices of each loop seen (end filled on exit).
    loops: Vec<(usize, usize)>,
    /// Loops enclosing the op being visited (indices into `loops`).
    stack: Vec<usize>,
    /// The tiles each value views (an alloc is its own root).
    roots: HashMap<ValueId, Vec<ValueId>>,
    /// Uses: (root, op index, enclosing loops).
    uses: Vec<(ValueId, usize, Vec<usize>)>,
    escaped: Vec<ValueId>,
    allocs: Vec<(ValueId, usize)>,
    /// A reserved pipe buffer or anything the plan must not move around.
    opaque_memory: bool,
}

impl Walk {
    fn use_values(&mut self, vals: &[ValueId], at: usize) {
        for v in vals {
            if let Some(rs) = self.roots.get(v) {
                for r in rs.clone() {
                    self.uses.push((r, at, self.stack.clone()));
                }
            }
        }
    }

    fn escape(&mut self, vals: &[ValueId]) {
        for v in vals {
            if let Some(rs) = self.roots.get(v) {
                self.escaped.extend(rs.iter().copied());
            }
        }
    }

    fn block(&mut self, b: &Block) {
        for op in &b.ops {
            let at = self.next;
            self.next += 1;
            match &op.kind {
                OpKind::AllocTile { result, addr, .. } => {
                    self.roots.insert(*result, vec![*result]);
                    if addr.is_none() {
                        self.allocs.push((*result, at));
                    }
                }
                OpKind::Tile { ins, outs, .. } => {
                    self.use_values(ins, at);
                    self.use_values(outs, at);
                }
                OpKind::SetValidShape { tile, .. } => self.use_values(&[*tile], at),
                OpKind::Opaque {
                    op,
                    operands,
                    results,
                    ..
                } => {
                    if matches!(
                        op,
                        OpCode::PtoReserveBuffer
                            | OpCode::PtoImportReservedBuffer
                            | OpCode::PtoAicInitializePipe
                            | OpCode::PtoAivInitializePipe
                    ) {
                        self.opaque_memory = true;
                    }
                    self.use_values(operands, at);
                    let viewed: Vec<ValueId> = operands
                        .iter()
                        .filter_map(|v| self.roots.get(v))
                        .flatten()
                        .copied()
                        .collect();
                    if !viewed.is_empty() {
                        for r in results {
                            self.roots.insert(*r, viewed.clone());
                        }
                    }
                }
                // A tile chosen at run time: both candidates stay live to the end.
                OpKind::Select {
                    on_true, on_false, ..
                } => self.escape(&[*on_true, *on_false]),
                OpKind::For { inits, body, .. } => {
                    self.escape(inits);
                    self.in_loop(at, |w| w.block(body));
                }
                OpKind::While {
                    inits,
                    before,
                    after,
                    ..
                } => {
                    self.escape(inits);
                    self.in_loop(at, |w| {
                        w.block(before);
                        w.block(after);
                    });
                }
                OpKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.block(then_body);
                    self.block(else_body);
                }
                OpKind::Section { body, .. } => self.block(body),
                OpKind::Yield { values }
                | OpKind::Condition { values, .. }
                | OpKind::Return { values } => self.escape(values),
                OpKind::Call { args, .. } => self.escape(args),
                _ => {}
            }
        }
    }

    fn in_loop(&mut self, start: usize, body: impl FnOnce(&mut Walk)) {
        let id = self.loops.len();
        self.loops.push((start, usize::MAX));
        self.stack.push(id);
        body(self);
        self.stack.pop();
        self.loops[id].1 = self.next;
    }
}

/// The liveness placement of `f`'s auto-placed tiles, starting at `base` in each memory, or
/// `None` when plain placement fits (or no plan can help). Returns the addresses and the new
/// end of the used part of each memory.
pub(crate) fn plan(
    f: &Func,
    target: TargetArch,
    base: [u64; 7],
) -> Option<(HashMap<ValueId, u64>, [u64; 7])> {
    let body = f.body.as_ref()?;
    let mut w = Walk::default();
    w.block(body);
    if w.opaque_memory || w.allocs.is_empty() {
        return None;
    }
    let align = npusim_pto::TILE_ALIGN;
    let up = |a: u64| a.div_ceil(align) * align;
    let mut allocs = Vec::new();
    let mut caps = [0u64; 7];
    let mut plain = base;
    for &(value, start) in &w.allocs {
        let tt = f.ty(value).as_tile()?;
        let loc = super::lower::tile_desc(tt).loc as usize;
        caps[loc] = tt.loc.capacity(target);
        let size = tt.size_bytes();
        plain[loc] = up(plain[loc]).saturating_add(size);
        allocs.push(Alloc {
            value,
            loc,
            size,
            start,
            end: start,
        });
    }
    if (0..7).all(|l| plain[l] <= caps[l] || caps[l] == 0) {
        return None;
    }
    let index: HashMap<ValueId, usize> = allocs
        .iter()
        .enumerate()
        .map(|(i, a)| (a.value, i))
        .collect();
    for (root, at, loops) in &w.uses {
        let Some(&i) = index.get(root) else { continue };
        let a = &mut allocs[i];
        let mut end = *at;
        for &l in loops {
            let (ls, le) = w.loops[l];
            // Defined before the loop began: live for the whole loop.
            if a.start < ls {
                end = end.max(le);
            }
        }
        a.end = a.end.max(end);
    }
    for r in &w.escaped {
        if let Some(&i) = index.get(r) {
            allocs[i].end = usize::MAX;
        }
    }
    let mut placed: Vec<(usize, u64)> = Vec::new();
    let mut out = HashMap::new();
    let mut used = base;
    for (i, a) in allocs.iter().enumerate() {
        // Busy ranges of tiles of this memory live at the same time, by address.
        let mut busy: Vec<(u64, u64)> = placed
            .iter()
            .filter(|(j, _)| {
                let b = &allocs[*j];
                b.loc == a.loc && b.start <= a.end && a.start <= b.end
            })
            .map(|&(j, addr)| (addr, addr + allocs[j].size))
            .collect();
        busy.sort_unstable();
        let mut addr = up(base[a.loc]);
        for (s, e) in busy {
            if addr + a.size <= s {
                break;
            }
            addr = addr.max(up(e));
        }
        if addr.saturating_add(a.size) > caps[a.loc] {
            return None;
        }
        placed.push((i, addr));
        out.insert(a.value, addr);
        used[a.loc] = used[a.loc].max(addr + a.size);
    }
    Some((out, used))
}
