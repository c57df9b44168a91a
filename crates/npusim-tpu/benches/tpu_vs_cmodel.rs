//! Side-by-side speed of npusim and Sophgo's BM1684X C-model in one process (issue #16,
//! acceptance 4), for `scripts/bench_tpu_cmodel.py`, which runs this binary and prints the
//! table; one JSON object per call and a `load` object before and after.
//!
//! The C-model (`libcmodel_bm1684x.so` of the PyPI wheel `tpu-mlir==1.30.2`, never committed)
//! is loaded with `dlopen` into this process, initialised like `scripts/cmodel.py` does
//! (`cmodel_init`, `tpu_initialize`, `load_lookup_tables`; the host's MXCSR, which
//! `cmodel_init` switches to flush-to-zero, is restored), and given the same data and the same
//! calls as npusim. Each call is measured as `reps` interleaved pairs: one C-model call
//! followed by `tpu_poll` (the call only queues the command; the poll waits for it), and one
//! npusim call (calls under 2 us are timed as a back-to-back batch divided by its length, so
//! the clock read is not counted), the order of the two alternating from pair to pair, so both
//! sides see the same machine load. Reported per side: minimum and median wall time per call.
//! Shapes: (1, 1, 1, 8), small (1, 4, 1, 16) as `benches/tpu_best.rs`, (1, 64, 1, 16) (h = 4
//! for the 3x3 pools), big (1, 64, 32, 64); f32 except the i16 add.
//!
//! Run: `cargo bench -p npusim-tpu --bench tpu_vs_cmodel -- --lib PATH [--reps N]
//! [--filter TEXT]`; without `--lib` (or `NPUSIM_CMODEL_LIB`) it prints a note and exits 0.

use std::ffi::{CString, c_char, c_int, c_void};
use std::hint::black_box;
use std::time::Instant;

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_logic::Variable;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore};

#[repr(C)]
#[derive(Clone, Copy)]
struct CDim4 {
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
}

#[repr(C)]
struct CDim2 {
    h: c_int,
    w: c_int,
}

#[repr(C)]
struct CPad {
    top: c_int,
    bottom: c_int,
    left: c_int,
    right: c_int,
}

/// `variable_t`: `{int type; union {local_addr_t addr; scalar_t scalar;} context;}`, type 0 a
/// tensor, 1 a scalar.
#[repr(C)]
struct CVar {
    ty: c_int,
    ctx: u32,
}

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

const RTLD_NOW: c_int = 2;

type FpAdd = unsafe extern "C" fn(
    u32,
    u32,
    u32,
    *const CDim4,
    *const CDim4,
    *const CDim4,
    *const CDim4,
    c_int,
);
type IntAdd = unsafe extern "C" fn(
    u32,
    u32,
    u32,
    *const CDim4,
    *const CDim4,
    *const CDim4,
    *const CDim4,
    c_int,
    c_int,
    c_int,
    c_char,
    c_int,
    c_int,
);
type Sel = unsafe extern "C" fn(
    u32,
    *const CVar,
    *const CVar,
    *const CVar,
    *const CVar,
    *const CDim4,
    c_int,
    c_int,
);
type Pool = unsafe extern "C" fn(
    u32,
    u32,
    *const CDim4,
    *const CDim2,
    *const CPad,
    *const CDim2,
    *const CDim2,
    c_int,
    u32,
);
type Exp = unsafe extern "C" fn(u32, u32, u32, u32, u32, u32, *const CDim4);
type Log = unsafe extern "C" fn(u32, u32, u32, u32, *const CDim4);
type S2L = unsafe extern "C" fn(u32, u64, *const CDim4, *const CDim4, *const CDim4, c_int);
type Void = unsafe extern "C" fn();
type Init = unsafe extern "C" fn(c_int, u64) -> c_int;
type Load = unsafe extern "C" fn(u32);
type GmStart = unsafe extern "C" fn() -> u64;
type GmHost = unsafe extern "C" fn(c_int) -> *mut c_void;
/// `tpu_bdc_fp32_rsqrt` / `tpu_bdc_fp32_sqrt(dst, src, shape)`.
type Root = unsafe extern "C" fn(u32, u32, *const CDim4);

/// The C-model's entry points this bench calls.
struct CModel {
    fp_add: FpAdd,
    int_add: IntAdd,
    greater_select: Sel,
    avg_pool: Pool,
    max_pool: Pool,
    exp: Exp,
    log: Log,
    s2l: S2L,
    poll: Void,
    gm: u64,
    rsqrt: Root,
    sqrt: Root,
}

fn sym<T: Copy>(h: *mut c_void, name: &str) -> T {
    let c = CString::new(name).expect("no NUL");
    // SAFETY: `h` is a live dlopen handle and `c` a NUL-terminated name.
    let p = unsafe { dlsym(h, c.as_ptr()) };
    assert!(!p.is_null(), "{name} not found in the C-model");
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: `T` is the function-pointer type of the C declaration of `name`.
    unsafe { std::mem::transmute_copy(&p) }
}

#[cfg(target_arch = "x86_64")]
#[allow(deprecated)]
fn mxcsr() -> u32 {
    // SAFETY: reading MXCSR has no preconditions on x86-64.
    unsafe { std::arch::x86_64::_mm_getcsr() }
}

#[cfg(target_arch = "x86_64")]
#[allow(deprecated)]
fn set_mxcsr(v: u32) {
    // SAFETY: restores a value read from MXCSR earlier.
    unsafe { std::arch::x86_64::_mm_setcsr(v) }
}

#[cfg(not(target_arch = "x86_64"))]
fn mxcsr() -> u32 {
    0
}

#[cfg(not(target_arch = "x86_64"))]
fn set_mxcsr(_: u32) {}

fn open(path: &str, data: &[f32]) -> CModel {
    let c = CString::new(path).expect("no NUL");
    let saved = mxcsr();
    // SAFETY: loading a shared library; its constructors run here.
    let h = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
    assert!(!h.is_null(), "dlopen {path} failed");
    let init: Init = sym(h, "cmodel_init");
    let tpu_init: Void = sym(h, "tpu_initialize");
    let tables: Void = sym(h, "load_lookup_tables");
    let gm_start: GmStart = sym(h, "cmodel_get_gmem_start_addr");
    let gm_host: GmHost = sym(h, "get_global_memaddr");
    let exp_coeff: Load = sym(h, "tpu_bdc_load_fp32_exp_coeff");
    let log_coeff: Load = sym(h, "tpu_bdc_load_fp32_log_coeff");
    let m = CModel {
        fp_add: sym(h, "tpu_bdc_fp_add"),
        int_add: sym(h, "tpu_bdc_int_add"),
        greater_select: sym(h, "tpu_bdc_greater_select"),
        avg_pool: sym(h, "tpu_bdc_fp_avg_pool2d"),
        max_pool: sym(h, "tpu_bdc_fp_max_pool2d"),
        exp: sym(h, "tpu_bdc_fp32_exp"),
        log: sym(h, "tpu_bdc_fp32_log"),
        s2l: sym(h, "tpu_gdma_cpy_S2L"),
        poll: sym(h, "tpu_poll"),
        gm: 0,
        rsqrt: sym(h, "tpu_bdc_fp32_rsqrt"),
        sqrt: sym(h, "tpu_bdc_fp32_sqrt"),
    };
    // SAFETY: the C-model's documented start-up sequence, then plain calls with valid
    // arguments (the same local addresses and shapes npusim accepts); the data copy stays
    // inside the 64 MiB of global memory `cmodel_init` was given.
    unsafe {
        init(0, 64 << 20);
        tpu_init();
        tables();
        set_mxcsr(saved);
        let gm = gm_start();
        let host = gm_host(0).cast::<f32>();
        std::ptr::copy_nonoverlapping(data.as_ptr(), host, data.len());
        let big = CDim4 {
            n: 1,
            c: 64,
            h: 32,
            w: 64,
        };
        for dst in [0u32, 0x10000] {
            (m.s2l)(dst, gm, &big, std::ptr::null(), std::ptr::null(), 5);
        }
        exp_coeff(0x3ff00);
        log_coeff(0x3fe00);
        (m.poll)();
        CModel { gm, ..m }
    }
}

type NpCall = Box<dyn Fn(&mut TpuCore)>;
type CmCall = Box<dyn Fn(&CModel)>;

fn calls(g: u64) -> Vec<(String, CmCall, NpCall)> {
    let f = DataType::Fp32;
    let i16t = DataType::Int16;
    let null = std::ptr::null::<CDim4>;
    let mut v: Vec<(String, CmCall, NpCall)> = Vec::new();
    for (size, s, ps) in [
        ("(1,1,1,8)", Dim4::new(1, 1, 1, 8), Dim4::new(1, 1, 4, 8)),
        ("(1,4,1,16)", Dim4::new(1, 4, 1, 16), Dim4::new(1, 4, 4, 16)),
        (
            "(1,64,1,16)",
            Dim4::new(1, 64, 1, 16),
            Dim4::new(1, 64, 4, 16),
        ),
        (
            "(1,64,32,64)",
            Dim4::new(1, 64, 32, 64),
            Dim4::new(1, 64, 32, 64),
        ),
    ] {
        let cs = CDim4 {
            n: s.n,
            c: s.c,
            h: s.h,
            w: s.w,
        };
        let cps = CDim4 {
            n: ps.n,
            c: ps.c,
            h: ps.h,
            w: ps.w,
        };
        let psize = format!("({},{},{},{})", ps.n, ps.c, ps.h, ps.w);
        v.push((
            format!("bdc_fp_add f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe {
                (m.fp_add)(0x20000, 0, 0x10000, &cs, null(), null(), null(), 5)
            }),
            Box::new(move |c| {
                c.tpu_bdc_fp_add(0x20000, 0, 0x10000, &s, None, None, None, f)
                    .expect("valid")
            }),
        ));
        v.push((
            format!("bdc_int_add i16 shift -2 sat {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe {
                (m.int_add)(
                    0x20000,
                    0,
                    0x10000,
                    &cs,
                    null(),
                    null(),
                    null(),
                    7,
                    7,
                    7,
                    -2,
                    0,
                    1,
                )
            }),
            Box::new(move |c| {
                c.tpu_bdc_int_add(
                    0x20000,
                    0,
                    0x10000,
                    &s,
                    None,
                    None,
                    None,
                    i16t,
                    i16t,
                    i16t,
                    -2,
                    RoundingMode::HalfToEven,
                    true,
                )
                .expect("valid")
            }),
        ));
        v.push((
            format!("bdc_greater_select f32 {size}"),
            Box::new(move |m| {
                let t = |a| CVar { ty: 0, ctx: a };
                let (a, b, d, z) = (t(0), t(0x10000), t(0x30000), CVar { ty: 1, ctx: 0 });
                // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
                unsafe { (m.greater_select)(0x20000, &a, &b, &d, &z, &cs, 5, 5) }
            }),
            Box::new(move |c| {
                c.tpu_bdc_greater_select(
                    0x20000,
                    &Variable::Tensor(0),
                    &Variable::Tensor(0x10000),
                    &Variable::Tensor(0x30000),
                    &Variable::Scalar(Scalar::from_f32(0.0)),
                    &s,
                    f,
                    f,
                )
                .expect("valid")
            }),
        ));
        let k3 = || CDim2 { h: 3, w: 3 };
        let one = || CDim2 { h: 1, w: 1 };
        let pad = || CPad {
            top: 0,
            bottom: 0,
            left: 0,
            right: 0,
        };
        for (name, max) in [("avg", false), ("max", true)] {
            v.push((
                format!("bdc_fp_{name}_pool2d f32 3x3 {psize}"),
                Box::new(move |m| {
                    let (k, p, o) = (k3(), pad(), one());
                    let (func, c) = if max {
                        (m.max_pool, 0xFF80_0000)
                    } else {
                        (m.avg_pool, 0x3DE3_8E39)
                    };
                    // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
                    unsafe { func(0x20000, 0, &cps, &k, &p, &o, &o, 5, c) }
                }),
                Box::new(move |c| {
                    let (k, p, o) = (Dim2::new(3, 3), Padding::default(), Dim2::new(1, 1));
                    if max {
                        c.tpu_bdc_fp_max_pool2d(
                            0x20000,
                            0,
                            &ps,
                            &k,
                            &p,
                            &o,
                            &o,
                            f,
                            Scalar::from_f32(f32::NEG_INFINITY),
                        )
                    } else {
                        c.tpu_bdc_fp_avg_pool2d(
                            0x20000,
                            0,
                            &ps,
                            &k,
                            &p,
                            &o,
                            &o,
                            f,
                            Scalar::from_f32(1.0 / 9.0),
                        )
                    }
                    .expect("valid")
                }),
            ));
        }
        v.push((
            format!("bdc_fp32_exp f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe {
                (m.exp)(0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, &cs)
            }),
            Box::new(move |c| {
                c.tpu_bdc_fp32_exp(0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, &s)
                    .expect("valid")
            }),
        ));
        v.push((
            format!("bdc_fp32_log f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe { (m.log)(0x20000, 0, 0x30000, 0x3fe00, &cs) }),
            Box::new(move |c| {
                c.tpu_bdc_fp32_log(0x20000, 0, 0x30000, 0x3fe00, &s)
                    .expect("valid")
            }),
        ));
        v.push((
            format!("gdma_cpy_S2L f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe { (m.s2l)(0x30000, m.gm, &cs, null(), null(), 5) }),
            Box::new(move |c| {
                c.tpu_gdma_cpy_S2L(0x30000, g, &s, None, None, f)
                    .expect("valid")
            }),
        ));
    }
    // The reciprocal square root and the square root (session 19) at the two small shapes.
    for (size, s) in [
        ("(1,1,1,8)", Dim4::new(1, 1, 1, 8)),
        ("(1,4,1,16)", Dim4::new(1, 4, 1, 16)),
    ] {
        let cs = CDim4 {
            n: s.n,
            c: s.c,
            h: s.h,
            w: s.w,
        };
        v.push((
            format!("bdc_fp32_rsqrt f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe { (m.rsqrt)(0x20000, 0, &cs) }),
            Box::new(move |c| c.tpu_bdc_fp32_rsqrt(0x20000, 0, &s).expect("valid")),
        ));
        v.push((
            format!("bdc_fp32_sqrt f32 {size}"),
            // SAFETY: the C-model's own declaration; the addresses and shapes are the ones npusim accepts.
            Box::new(move |m| unsafe { (m.sqrt)(0x20000, 0, &cs) }),
            Box::new(move |c| c.tpu_bdc_fp32_sqrt(0x20000, 0, &s).expect("valid")),
        ));
    }
    v
}

unsafe extern "C" {
    fn setpriority(which: c_int, who: u32, prio: c_int) -> c_int;
    fn sched_setscheduler(pid: c_int, policy: c_int, param: *const c_int) -> c_int;
    fn sched_setaffinity(pid: c_int, size: usize, mask: *const u64) -> c_int;
    fn sysconf(name: c_int) -> std::ffi::c_long;
}

/// The threads of this process: (tid, name).
fn threads() -> Vec<(i32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let e = e.ok()?;
        let tid: i32 = e.file_name().to_str()?.parse().ok()?;
        let name = std::fs::read_to_string(e.path().join("comm")).ok()?;
        Some((tid, name.trim().to_string()))
    })
    .collect()
}

/// `--boost`: gives the C-model its best case on a shared host. The C-model runs each command
/// on one of five engine threads (`TPU_BD`, `TPU_GDMA`, `TPU_GDE`, `TPU_SORT`, `TPU_NMS`) that
/// spin while idle; with fewer free cores than spinning threads a command waits for its engine
/// to be scheduled. Here the engine that runs the measured call (`engine`) and this process's
/// main thread (which issues the calls, polls, and runs npusim) get nice -20 and a CPU each
/// (main on the first CPU, the engine on the second: both spin, so on one CPU each would wait
/// for the other's time slice), and the other engines `SCHED_IDLE` (they run only on an
/// otherwise idle core). Needs root (or CAP_SYS_NICE); returns what was done.
fn boost(engine: &str) -> String {
    const SCHED_OTHER: c_int = 0;
    const SCHED_IDLE: c_int = 5;
    let main = std::process::id() as i32;
    let zero: c_int = 0;
    let mut done = Vec::new();
    for (tid, name) in threads() {
        let (policy, nice) = if tid == main || name == engine {
            (SCHED_OTHER, -20)
        } else if name.starts_with("TPU_") {
            (SCHED_IDLE, 0)
        } else {
            continue;
        };
        // The host's CPUs online (`_SC_NPROCESSORS_ONLN`), not this thread's affinity (which
        // an earlier boost narrowed).
        // SAFETY: sysconf has no preconditions.
        let cpus = (unsafe { sysconf(84) }).clamp(1, 64) as usize;
        let mask: u64 = match (policy, tid == main) {
            (SCHED_IDLE, _) => u64::MAX >> (64 - cpus.min(64)),
            (_, true) => 1,
            _ => 1 << (1 % cpus),
        };
        // SAFETY: plain system calls on a thread of this process.
        let ok = unsafe {
            sched_setscheduler(tid, policy, &zero) == 0
                && (policy != SCHED_OTHER || setpriority(0, tid as u32, nice) == 0)
                && sched_setaffinity(tid, 8, &mask) == 0
        };
        let what = if policy == SCHED_IDLE {
            "idle".to_string()
        } else {
            format!("nice {nice} cpu{}", mask.trailing_zeros())
        };
        done.push(format!(
            "{}={}{}",
            if tid == main { "main" } else { &name },
            what,
            if ok { "" } else { " (refused)" }
        ));
    }
    done.join(" ")
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let Some(lib) = opt("--lib").or_else(|| std::env::var("NPUSIM_CMODEL_LIB").ok()) else {
        println!(
            "tpu_vs_cmodel: no C-model given (--lib PATH or NPUSIM_CMODEL_LIB); see \
             scripts/bench_tpu_cmodel.py"
        );
        return;
    };
    let reps: usize = opt("--reps").and_then(|r| r.parse().ok()).unwrap_or(200);
    let filter = opt("--filter").unwrap_or_default();
    let boosted = args.iter().any(|a| a == "--boost");
    let big = Dim4::new(1, 64, 32, 64);
    let data: Vec<f32> = (0..big.count()).map(|i| (i as f32 * 0.25) % 7.0).collect();
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 16 << 20).expect("16 MiB");
    let g = core.gm_base();
    core.write_f32s(g, &data).expect("fits");
    for dst in [0, 0x10000] {
        core.tpu_gdma_cpy_S2L(dst, g, &big, None, None, DataType::Fp32)
            .expect("valid");
    }
    core.tpu_bdc_load_fp32_exp_coeff(0x3ff00).expect("valid");
    core.tpu_bdc_load_fp32_log_coeff(0x3fe00).expect("valid");
    let m = open(&lib, &data);
    println!(
        "{{\"load\":\"{}\",\"when\":\"before\",\"reps\":{reps},\"cpus\":{}}}",
        load(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    for (name, cm, np) in calls(g) {
        if !name.contains(&filter) {
            continue;
        }
        if boosted {
            let engine = if name.starts_with("gdma") {
                "TPU_GDMA"
            } else {
                "TPU_BD"
            };
            println!("{{\"boost\":\"{}\"}}", boost(engine));
        }
        let cm_call = |m: &CModel| {
            cm(m);
            // SAFETY: `tpu_poll` takes no arguments.
            unsafe { (m.poll)() };
        };
        for _ in 0..3 {
            cm_call(&m);
            np(black_box(&mut core));
        }
        // npusim batch length: calls under 2 us are timed in batches lasting about 2 us.
        let t = Instant::now();
        for _ in 0..8 {
            np(black_box(&mut core));
        }
        let one = t.elapsed().as_secs_f64() / 8.0;
        let batch = ((2e-6 / one).ceil() as usize).clamp(1, 256);
        let (mut cw, mut nw) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
        for i in 0..reps {
            let mut run_cm = || {
                let t = Instant::now();
                cm_call(&m);
                cw.push(t.elapsed().as_secs_f64() * 1e6);
            };
            let mut run_np = |core: &mut TpuCore| {
                let t = Instant::now();
                for _ in 0..batch {
                    np(black_box(&mut *core));
                }
                nw.push(t.elapsed().as_secs_f64() * 1e6 / batch as f64);
            };
            if i % 2 == 0 {
                run_cm();
                run_np(&mut core);
            } else {
                run_np(&mut core);
                run_cm();
            }
        }
        let (cmin, nmin) = (
            cw.iter().copied().fold(f64::INFINITY, f64::min),
            nw.iter().copied().fold(f64::INFINITY, f64::min),
        );
        let (cmed, nmed) = (median(&mut cw), median(&mut nw));
        println!(
            "{{\"name\":\"{name}\",\"cmodel_min_us\":{cmin:.4},\"cmodel_median_us\":{cmed:.4},\
             \"npusim_min_us\":{nmin:.4},\"npusim_median_us\":{nmed:.4},\
             \"npusim_batch\":{batch},\"pairs\":{reps}}}",
        );
    }
    println!("{{\"load\":\"{}\",\"when\":\"after\"}}", load());
}
