//! The pipes of an AI core and the per-chip cost model that places their instructions on an
//! estimated timeline (the `npusim run --trace` timeline and `--stats` estimates).
//!
//! An AI core issues from its scalar unit into queues that run concurrently: MTE2 (GM ->
//! on-chip), MTE1 (L1 -> L0), the vector unit, the cube unit, the fixpipe (accumulator out) and
//! MTE3 (on-chip -> GM); `set_flag`/`wait_flag` between `PIPE_*` names order them (pto-isa
//! `docs/isa` synchronisation pages; Ascend C `SetFlag`/`WaitFlag`).
//!
//! **The cost model is an estimate, not measured cycles.** Each pipe has a fixed cost per
//! instruction and a bandwidth for the bytes it moves or touches: `latency_ns + bytes /
//! bytes_per_ns`, plus `issue_ns` of scalar issue per instruction. No public source gives
//! calibrated figures for these chips, so every profile carries [`CostModel::ILLUSTRATIVE`]:
//! round figures chosen so that loads and stores dominate and pipes visibly overlap. A chip
//! whose figures become known gets its own table in its profile; nothing else changes.

use std::fmt;

/// A hardware pipe (execution queue) of an AI core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    /// Scalar unit (`PIPE_S`): address arithmetic, control flow, issue of everything else.
    Scalar,
    /// MTE2 (`PIPE_MTE2`): GM -> on-chip loads.
    Mte2,
    /// MTE1 (`PIPE_MTE1`): L1 -> L0 moves.
    Mte1,
    /// Vector unit (`PIPE_V`).
    Vector,
    /// Cube unit (`PIPE_M`).
    Cube,
    /// Fixpipe (`PIPE_FIX`): accumulator out.
    Fixpipe,
    /// MTE3 (`PIPE_MTE3`): on-chip -> GM stores.
    Mte3,
}

impl Pipe {
    /// Every pipe, in track order (also the index order of [`CostModel::pipes`]).
    pub const ALL: [Pipe; 7] = [
        Pipe::Scalar,
        Pipe::Mte2,
        Pipe::Mte1,
        Pipe::Vector,
        Pipe::Cube,
        Pipe::Fixpipe,
        Pipe::Mte3,
    ];

    /// A track name: role and hardware name (`MTE2 load (PIPE_MTE2)`).
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Scalar => "scalar (PIPE_S)",
            Pipe::Mte2 => "MTE2 load (PIPE_MTE2)",
            Pipe::Mte1 => "MTE1 (PIPE_MTE1)",
            Pipe::Vector => "vector (PIPE_V)",
            Pipe::Cube => "cube (PIPE_M)",
            Pipe::Fixpipe => "fixpipe (PIPE_FIX)",
            Pipe::Mte3 => "MTE3 store (PIPE_MTE3)",
        }
    }

    /// A short name for messages (`MTE2`, `V`, `M`, ...: the `PIPE_*` suffix).
    pub fn short(self) -> &'static str {
        match self {
            Pipe::Scalar => "S",
            Pipe::Mte2 => "MTE2",
            Pipe::Mte1 => "MTE1",
            Pipe::Vector => "V",
            Pipe::Cube => "M",
            Pipe::Fixpipe => "FIX",
            Pipe::Mte3 => "MTE3",
        }
    }

    /// The pipe's position in [`Pipe::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

/// One pipe's cost: `latency_ns + bytes / bytes_per_ns` per instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipeCost {
    /// Fixed cost of one instruction, nanoseconds.
    pub latency_ns: f64,
    /// Bytes per nanosecond for the bytes an instruction moves or touches (0: no bytes term).
    pub bytes_per_ns: f64,
}

/// A chip's cost model (see the module docs: an estimate, not cycles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Nanoseconds the scalar unit takes to issue one instruction to another pipe.
    pub issue_ns: f64,
    /// Per pipe, in [`Pipe::ALL`] order.
    pub pipes: [PipeCost; 7],
    /// Whether the figures are calibrated against the chip (false for every profile today).
    pub calibrated: bool,
}

const fn pc(latency_ns: f64, bytes_per_ns: f64) -> PipeCost {
    PipeCost {
        latency_ns,
        bytes_per_ns,
    }
}

impl CostModel {
    /// Round, uncalibrated figures: GM transfers 200 ns + 64 B/ns, L1 -> L0 20 ns + 256 B/ns,
    /// vector 10 ns + 256 B/ns, cube 20 ns + 512 B/ns, fixpipe 20 ns + 128 B/ns, scalar 1 ns,
    /// issue 1 ns.
    pub const ILLUSTRATIVE: CostModel = CostModel {
        issue_ns: 1.0,
        pipes: [
            pc(1.0, 0.0),
            pc(200.0, 64.0),
            pc(20.0, 256.0),
            pc(10.0, 256.0),
            pc(20.0, 512.0),
            pc(20.0, 128.0),
            pc(200.0, 64.0),
        ],
        calibrated: false,
    };

    /// The cost of `pipe`.
    pub fn pipe(&self, pipe: Pipe) -> PipeCost {
        self.pipes[pipe.index()]
    }

    /// The estimated duration of one instruction on `pipe` touching `bytes`, nanoseconds.
    pub fn cost_ns(&self, pipe: Pipe, bytes: u64) -> f64 {
        let c = self.pipe(pipe);
        if c.bytes_per_ns > 0.0 {
            c.latency_ns + bytes as f64 / c.bytes_per_ns
        } else {
            c.latency_ns
        }
    }

    /// The table as one line (`scalar (PIPE_S): 1 ns; MTE2 load (PIPE_MTE2): 200 ns + bytes /
    /// 64 B/ns; ...`), for trace metadata and reports.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for p in Pipe::ALL {
            let c = self.pipe(p);
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str(&format!("{}: {} ns", p.name(), c.latency_ns));
            if c.bytes_per_ns > 0.0 {
                s.push_str(&format!(" + bytes / {} B/ns", c.bytes_per_ns));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_index_their_table_rows_and_costs_follow_the_formula() {
        for (i, p) in Pipe::ALL.iter().enumerate() {
            assert_eq!(p.index(), i);
        }
        let m = CostModel::ILLUSTRATIVE;
        // 4096 bytes over MTE2: 200 + 4096 / 64 = 264 ns; scalar has no bytes term.
        assert_eq!(m.cost_ns(Pipe::Mte2, 4096), 264.0);
        assert_eq!(m.cost_ns(Pipe::Vector, 512), 12.0);
        assert_eq!(m.cost_ns(Pipe::Scalar, 1 << 20), 1.0);
        let d = m.describe();
        assert!(
            d.starts_with("scalar (PIPE_S): 1 ns; MTE2 load (PIPE_MTE2): 200 ns + bytes / 64 B/ns"),
            "{d}"
        );
        assert_eq!(d.matches("; ").count(), 6);
    }
}
