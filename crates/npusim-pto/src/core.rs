//! One core's view of the machine: its on-chip memories (sized by the chip profile), global
//! memory, the tile policy, and tile allocation with the TASSIGN checks.
//!
//! Implements pto-isa `docs/isa/TASSIGN.md` (a tile is bound to a byte offset inside the memory
//! of its location; the address must be 32-byte aligned and the tile must fit) and the memory
//! model of `shared/research/pto-isa.md` §2.2: every memory is a byte array and tiles are views,
//! so aliasing tiles see each other's writes.

use crate::error::PtoError;
use crate::tile::{Tile, TileDesc, TileLoc};
use npusim_core::memory::MemoryError;
use npusim_core::{ChipProfile, Element, MemSpace, Memory, TileArch, TilePolicy};
use std::sync::Mutex;

/// What a preparation's static checks depend on: the numeric policy (arch, type lists) and the
/// capacity of every on-chip memory (address checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CheckContext {
    pub(crate) policy: TilePolicy,
    pub(crate) capacities: [usize; TileLoc::COUNT],
}

/// Tile addresses must be multiples of this (TASSIGN), in every location. The compile-time
/// `TASSIGN<Addr>` of pto-isa checks 32-byte alignment and capacity, and its tile templates
/// assert 32-byte alignment; no PTO page asks more of L0A/L0B. The chip profile's per-space
/// `alignment` table (512 bytes for L0A/L0B) is the Ascend C general address rule and serves that
/// API face, not the tile ISA.
pub const TILE_ALIGN: u64 = 32;

/// One core: on-chip memories, global memory and the numeric policy.
#[derive(Clone, Debug)]
pub struct TileCore {
    profile: ChipProfile,
    policy: TilePolicy,
    mems: [Memory; TileLoc::COUNT],
    gm: Memory,
    gm_top: u64,
    reference: bool,
    /// What static checks depend on (policy, memory capacities), kept current by `set_policy`.
    context: CheckContext,
    /// Names this context (equal contexts, equal epochs; renewed at every policy change), so a
    /// [`crate::PreparedOp`] recognises a core it was checked for with one comparison.
    epoch: u64,
    /// The configuration state of SET_QUANT_SCALAR / SET_QUANT_VECTOR / SETHF32MODE /
    /// SETTF32MODE (ops::config).
    pub(crate) config: crate::ops::config::ConfigState,
}

/// Every check context seen so far; a context's epoch is its position plus one, so cores with
/// equal contexts (the lowering core and the cores that run its prepared instructions) share an
/// epoch and [`TileCore::run`] recognises them with one integer comparison.
static CONTEXTS: Mutex<Vec<CheckContext>> = Mutex::new(Vec::new());

fn epoch_of(c: &CheckContext) -> u64 {
    let mut seen = CONTEXTS.lock().unwrap_or_else(|e| e.into_inner());
    let i = match seen.iter().position(|x| x == c) {
        Some(i) => i,
        None => {
            seen.push(*c);
            seen.len() - 1
        }
    };
    i as u64 + 1
}

fn loc_index(loc: TileLoc) -> usize {
    loc as usize
}

impl TileCore {
    /// A core of `profile` with zeroed memories (a location the chip lacks gets capacity 0).
    pub fn new(profile: &ChipProfile) -> TileCore {
        let mems =
            TileLoc::ALL.map(|l| Memory::new(l.space(), profile.capacity(l.space()).unwrap_or(0)));
        let context = CheckContext {
            policy: profile.tile,
            capacities: mems.each_ref().map(|m| m.capacity()),
        };
        TileCore {
            profile: profile.clone(),
            policy: profile.tile,
            mems,
            gm: Memory::new(MemSpace::Gm, 0),
            gm_top: 0,
            reference: false,
            context,
            epoch: epoch_of(&context),
            config: Default::default(),
        }
    }

    /// A core of the chip named `name` (`a2a3`, `a5`, `ascend910b`, ...).
    pub fn by_name(name: &str) -> Option<TileCore> {
        ChipProfile::by_name(name).map(TileCore::new)
    }

    /// Puts this core back in the state [`TileCore::new`] gives it, keeping its memories'
    /// allocations: the first `used[loc]` bytes of each location are zeroed, GM is emptied,
    /// and the policy, the reference switch and the configuration registers are the profile's
    /// defaults. `used` must cover every on-chip byte written since the core was new or last
    /// reset (the bytes past it are still zero); a reused core then costs a `memset` of what
    /// the last run touched instead of fresh pages, each faulted in and zeroed by the kernel.
    pub fn reset(&mut self, used: &[u64; TileLoc::COUNT]) {
        for (m, &u) in self.mems.iter_mut().zip(used) {
            let end = usize::try_from(u).unwrap_or(usize::MAX).min(m.capacity());
            m.as_mut_slice()[..end].fill(0);
        }
        self.gm = Memory::new(MemSpace::Gm, 0);
        self.gm_top = 0;
        self.reference = false;
        self.config = Default::default();
        self.set_policy(self.profile.tile);
    }

    /// The chip profile.
    pub fn profile(&self) -> &ChipProfile {
        &self.profile
    }
    /// The numeric policy in force.
    pub fn policy(&self) -> TilePolicy {
        self.policy
    }
    /// Replaces the numeric policy (e.g. [`TilePolicy::pto_cpu_sim`]).
    pub fn set_policy(&mut self, p: TilePolicy) {
        self.policy = p;
        self.context.policy = p;
        self.epoch = epoch_of(&self.context);
    }

    /// What static checks depend on, and the epoch naming it.
    pub(crate) fn check_context(&self) -> (&CheckContext, u64) {
        (&self.context, self.epoch)
    }
    /// The instruction-page generation.
    pub fn arch(&self) -> TileArch {
        self.policy.arch
    }
    /// Runs every instruction through the plain element-by-element path (the fast kernels'
    /// twin). Off by default.
    pub fn set_reference(&mut self, on: bool) {
        self.reference = on;
    }
    /// Whether the plain path is selected.
    pub fn reference(&self) -> bool {
        self.reference
    }

    /// The memory of a location.
    pub fn mem(&self, loc: TileLoc) -> &Memory {
        &self.mems[loc_index(loc)]
    }
    /// The bytes of a location's memory, writable (its capacity is fixed by the chip profile).
    pub fn mem_mut(&mut self, loc: TileLoc) -> &mut [u8] {
        self.mems[loc_index(loc)].as_mut_slice()
    }

    /// Validates a tile description and its address (`alloc_tile addr = ...` / TASSIGN).
    pub fn alloc(&self, desc: TileDesc) -> Result<Tile, PtoError> {
        self.alloc_named(desc, "alloc_tile", "tile")
    }

    /// [`TileCore::alloc`] with the instruction and operand names used in errors.
    pub fn alloc_named(
        &self,
        desc: TileDesc,
        op: &'static str,
        operand: &'static str,
    ) -> Result<Tile, PtoError> {
        self.declare(desc, op, operand, true)
    }

    /// [`TileCore::alloc_named`] for a run-time address (pto-isa `docs/isa/TASSIGN.md`, form
    /// 1, which performs no checks): the descriptor rules and the fit in its memory, but not
    /// the 32-byte alignment, which an instruction that uses the tile checks (a tile bound to
    /// a misaligned address and never used is legal).
    pub fn bind_named(
        &self,
        desc: TileDesc,
        op: &'static str,
        operand: &'static str,
    ) -> Result<Tile, PtoError> {
        self.declare(desc, op, operand, false)
    }

    /// The descriptor rules, the location's layout rules and the fit in its memory; with
    /// `aligned`, also the 32-byte address alignment.
    fn declare(
        &self,
        desc: TileDesc,
        op: &'static str,
        operand: &'static str,
        aligned: bool,
    ) -> Result<Tile, PtoError> {
        let t = Tile::validate(desc, op, operand)?;
        crate::ops::movement::check_declared(&desc, self.arch(), op, operand)?;
        if aligned {
            self.check_addr(&t, op, operand)?;
        } else {
            self.check_fits(&t, op, operand)?;
        }
        Ok(t)
    }

    /// TASSIGN: binds `tile` to byte address `addr` of its memory.
    pub fn tassign(
        &self,
        tile: &mut Tile,
        addr: u64,
        operand: &'static str,
    ) -> Result<(), PtoError> {
        let mut d = *tile.desc();
        d.addr = addr;
        *tile = self.alloc_named(d, "TASSIGN", operand)?;
        Ok(())
    }

    /// The TASSIGN address rules (32-byte aligned, fits in its memory), also checked when an
    /// instruction uses a tile, since [`Tile::validate`] does not check the address.
    pub(crate) fn check_addr(
        &self,
        t: &Tile,
        op: &'static str,
        operand: &'static str,
    ) -> Result<(), PtoError> {
        let addr = t.addr();
        if !addr.is_multiple_of(TILE_ALIGN) {
            return Err(PtoError::Misaligned {
                op,
                operand,
                addr,
                align: TILE_ALIGN,
            });
        }
        self.check_fits(t, op, operand)
    }

    /// The tile lies inside its memory.
    fn check_fits(
        &self,
        t: &Tile,
        op: &'static str,
        operand: &'static str,
    ) -> Result<(), PtoError> {
        let addr = t.addr();
        let cap = self.mem(t.loc()).capacity() as u64;
        let size = t.size_bytes();
        if addr.checked_add(size).is_none_or(|end| end > cap) {
            return Err(PtoError::OutOfCapacity {
                op,
                operand,
                space: t.loc().space(),
                addr,
                size,
                capacity: cap,
            });
        }
        Ok(())
    }

    /// Reads element `(r, c)` of a tile as its raw bits (any element type).
    pub fn get_bits(&self, t: &Tile, r: usize, c: usize) -> Result<u64, MemoryError> {
        let size = t.dtype().size();
        let b = self.mem(t.loc()).bytes(t.byte_addr(r, c), size as u64)?;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    }

    /// Writes element `(r, c)` of a tile from raw bits.
    pub fn set_bits(&mut self, t: &Tile, r: usize, c: usize, bits: u64) -> Result<(), MemoryError> {
        let size = t.dtype().size();
        let b = self.mems[loc_index(t.loc())].bytes_mut(t.byte_addr(r, c), size as u64)?;
        b.copy_from_slice(&bits.to_le_bytes()[..size]);
        Ok(())
    }

    /// Reads element `(r, c)` as `T` (whose size must match the tile's element type).
    pub fn get<T: Element>(&self, t: &Tile, r: usize, c: usize) -> Result<T, MemoryError> {
        Ok(T::from_bits_u64(self.get_bits(t, r, c)?))
    }

    /// Writes element `(r, c)` as `T`.
    pub fn set<T: Element>(
        &mut self,
        t: &Tile,
        r: usize,
        c: usize,
        v: T,
    ) -> Result<(), MemoryError> {
        self.set_bits(t, r, c, v.to_bits_u64())
    }

    /// Writes row-major values into the tile's valid region (`data.len() >= vr * vc`).
    pub fn write_valid<T: Element>(&mut self, t: &Tile, data: &[T]) -> Result<(), MemoryError> {
        let vc = t.valid_col();
        for r in 0..t.valid_row() {
            for c in 0..vc {
                if let Some(v) = data.get(r * vc + c) {
                    self.set(t, r, c, *v)?;
                }
            }
        }
        Ok(())
    }

    /// Reads the tile's valid region, row-major.
    pub fn read_valid<T: Element>(&self, t: &Tile) -> Result<Vec<T>, MemoryError> {
        let mut out = Vec::with_capacity(t.valid_row() * t.valid_col());
        for r in 0..t.valid_row() {
            for c in 0..t.valid_col() {
                out.push(self.get(t, r, c)?);
            }
        }
        Ok(out)
    }

    /// Two different locations' memories: `src` to read, `dst` to write (`None` when equal).
    pub(crate) fn two_mems(&mut self, src: TileLoc, dst: TileLoc) -> Option<(&[u8], &mut [u8])> {
        let [s, d] = self
            .mems
            .get_disjoint_mut([loc_index(src), loc_index(dst)])
            .ok()?;
        Some((s.as_slice(), d.as_mut_slice()))
    }

    /// Global memory and a location's memory, both writable (the GM transfers). GM is
    /// handed out as the space, not as one slice, so that a transfer borrows only the GM
    /// bytes it moves: a worker of a multi-threaded run holds an alias of the one GM
    /// ([`Memory::alias`]) that other threads write elsewhere at the same time.
    pub(crate) fn gm_and_mem_mut(&mut self, loc: TileLoc) -> (&mut Memory, &mut [u8]) {
        (&mut self.gm, self.mems[loc_index(loc)].as_mut_slice())
    }

    // ---- global memory ----

    /// Reserves `len` bytes of global memory (32-byte aligned); returns the byte address.
    /// Grows GM to exactly the new end (size it once with [`TileCore::gm_reserve`] to avoid
    /// copies); fails with an error, never an abort, when the host cannot provide the memory.
    pub fn gm_alloc(&mut self, len: u64) -> Result<u64, MemoryError> {
        let base = self.gm_top.div_ceil(TILE_ALIGN) * TILE_ALIGN;
        let end = base
            .checked_add(len)
            .filter(|e| usize::try_from(*e).is_ok());
        let end = end.ok_or(MemoryError::AllocFailed {
            space: MemSpace::Gm,
            bytes: len,
        })?;
        self.gm_reserve(end)?;
        self.gm_top = end;
        Ok(base)
    }

    /// Makes a still-empty GM `capacity` bytes in one allocation whose contents are not
    /// specified ([`Memory::try_new_for_overwrite`]): the caller writes every byte of it before
    /// a kernel can read it. A GM that already holds bytes is grown as by
    /// [`TileCore::gm_reserve`] (contents kept, the rest zero).
    pub fn gm_reserve_for_overwrite(&mut self, capacity: u64) -> Result<(), MemoryError> {
        let cap = usize::try_from(capacity).map_err(|_| MemoryError::AllocFailed {
            space: MemSpace::Gm,
            bytes: capacity,
        })?;
        if self.gm.capacity() == 0 && cap > 0 {
            self.gm = Memory::try_new_for_overwrite(MemSpace::Gm, cap)?;
            return Ok(());
        }
        self.gm_reserve(capacity)
    }

    /// Makes GM at least `capacity` bytes in one allocation (contents kept).
    pub fn gm_reserve(&mut self, capacity: u64) -> Result<(), MemoryError> {
        let cap = usize::try_from(capacity).map_err(|_| MemoryError::AllocFailed {
            space: MemSpace::Gm,
            bytes: capacity,
        })?;
        if cap > self.gm.capacity() {
            let mut grown = Memory::try_new(MemSpace::Gm, cap)?;
            grown.as_mut_slice()[..self.gm.capacity()].copy_from_slice(self.gm.as_slice());
            self.gm = grown;
        }
        Ok(())
    }

    /// Binds a GM buffer holding `data`; returns its byte address.
    /// The host already holds `data`, so this only fails when it cannot hold a second copy
    /// (then it panics); [`TileCore::try_gm_bind`] returns that as an error.
    pub fn gm_bind<T: Element>(&mut self, data: &[T]) -> u64 {
        match self.try_gm_bind(data) {
            Ok(a) => a,
            Err(e) => panic!("gm_bind: {e}"),
        }
    }

    /// [`TileCore::gm_bind`], failing with an error when GM cannot grow.
    pub fn try_gm_bind<T: Element>(&mut self, data: &[T]) -> Result<u64, MemoryError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let addr = self.gm_alloc(bytes.len() as u64)?;
        self.gm.write(addr, bytes)?;
        Ok(addr)
    }

    /// Global memory.
    pub fn gm(&self) -> &Memory {
        &self.gm
    }
    /// Global memory, writable.
    pub fn gm_mut(&mut self) -> &mut Memory {
        &mut self.gm
    }
    /// Reads `count` elements of GM at `addr`.
    pub fn gm_read<T: Element>(&self, addr: u64, count: usize) -> Result<Vec<T>, MemoryError> {
        self.gm.read_elems(addr, count)
    }
    /// Writes elements to GM at `addr`.
    pub fn gm_write<T: Element>(&mut self, addr: u64, data: &[T]) -> Result<(), MemoryError> {
        self.gm.write_elems(addr, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npusim_core::ElemType;

    /// A core used every way (memories written, GM bound, policy, reference switch and
    /// configuration registers changed) and reset is byte for byte and field for field a new
    /// core of its chip.
    #[test]
    fn a_reset_core_is_a_new_core() {
        for chip in ["a2a3", "a5"] {
            let fresh = TileCore::by_name(chip).unwrap();
            let mut c = TileCore::by_name(chip).unwrap();
            let mut used = [0u64; TileLoc::COUNT];
            for (i, loc) in TileLoc::ALL.into_iter().enumerate() {
                let n = c.mem(loc).capacity().min(3000 + 1000 * i);
                c.mem_mut(loc)[..n].fill(0xab);
                used[loc as usize] = n as u64;
            }
            c.gm_bind(&[1.5f32; 40]);
            c.set_reference(true);
            c.set_policy(TilePolicy::pto_cpu_sim(c.arch()));
            c.config.quant_scalar = Some(7);
            c.config.fmatrix = [Some(1), Some(2)];
            assert_ne!(c.policy(), fresh.policy());
            c.reset(&used);
            for loc in TileLoc::ALL {
                assert!(
                    c.mem(loc).as_slice() == fresh.mem(loc).as_slice(),
                    "{chip} {loc:?}"
                );
            }
            assert_eq!(c.gm().capacity(), 0);
            assert_eq!(c.gm_alloc(16).unwrap(), 0);
            assert!(!c.reference());
            assert_eq!(c.policy(), fresh.policy());
            assert_eq!(c.check_context(), fresh.check_context());
            assert_eq!(c.config_state(), fresh.config_state());
        }
    }

    #[test]
    fn tassign_checks_alignment_and_capacity() {
        let core = TileCore::by_name("a2a3").unwrap();
        let d = TileDesc::vec(ElemType::F32, 16, 16);
        let mut t = core.alloc(d.at(0x1000)).unwrap();
        let e = core.tassign(&mut t, 0x1010, "src0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "TASSIGN: address 0x1010 of tile src0 is not 32-byte aligned"
        );
        // 192 KiB UB on a2a3: the last 1 KiB tile fits, one more byte does not.
        assert!(core.tassign(&mut t, 192 * 1024 - 1024, "src0").is_ok());
        let e = core.tassign(&mut t, 192 * 1024 - 992, "src0").unwrap_err();
        assert!(matches!(e, PtoError::OutOfCapacity { .. }), "{e}");
        // a5 has 256 KiB of UB.
        let a5 = TileCore::by_name("a5").unwrap();
        assert!(a5.alloc(d.at(192 * 1024)).is_ok());
    }

    #[test]
    fn aliasing_tiles_share_bytes() {
        let mut core = TileCore::by_name("a2a3").unwrap();
        let col = core
            .alloc(
                TileDesc::vec(ElemType::F32, 16, 1)
                    .layout(crate::BLayout::ColMajor, crate::SLayout::NoneBox)
                    .at(2048),
            )
            .unwrap();
        let row = core
            .alloc(TileDesc::vec(ElemType::F32, 1, 16).at(2048))
            .unwrap();
        for i in 0..16 {
            core.set(&col, i, 0, i as f32).unwrap();
        }
        assert_eq!(
            core.read_valid::<f32>(&row).unwrap(),
            (0..16).map(|i| i as f32).collect::<Vec<_>>()
        );
    }
}
