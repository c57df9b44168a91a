//! Issue #12: golden replay keeps memory bounded by one case, whatever the file's size.
//!
//! A counting global allocator records the peak of live heap bytes while a generated golden
//! file of ~12 MB (many small cases) is replayed from disk. Holding the text, a JSON document
//! tree or the list of parsed cases would each need at least the file's size; the streaming
//! replay needs a few buffers per case plus the replay core's 1 MiB global memory. This file
//! holds a single test so that no other test allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwards the caller's layout to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn replay_peak_heap_is_bounded_by_one_case() {
    // One sort case of 200 keys and its expected outputs (computed by the simulator's own
    // models; what is measured here is memory, the results are checked by tests/golden.rs).
    let keys: Vec<u32> = (0..200u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 3)
        .collect();
    let (data, idx) =
        npusim_tpu::sort::sort_natural_index(&keys, 200, false, npusim_tpu::KeyType::F32Daz);
    let list = |v: &[u32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let case = format!(
        r#"{{"op":"sort_natural_index","dtype":"f32","len":200,"k":200,"descended":false,"input":[{}],"out_fill_byte":171,"out_data":[{}],"out_idx":[{}]}}"#,
        list(&keys),
        list(&data),
        list(&idx)
    );
    let path = std::env::temp_dir().join(format!("npusim-replay-mem-{}.json", std::process::id()));
    let copies = 12_000_000 / case.len() + 1;
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write!(f, r#"{{"source":"memory test","seed":0,"cases":["#).unwrap();
        for i in 0..copies {
            if i > 0 {
                f.write_all(b",").unwrap();
            }
            f.write_all(case.as_bytes()).unwrap();
        }
        f.write_all(b"]}").unwrap();
    }
    let file_size = std::fs::metadata(&path).unwrap().len() as usize;
    drop((keys, data, idx, case));

    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let report = npusim_tpu::golden::replay_file(&path).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    std::fs::remove_file(&path).ok();

    assert_eq!((report.passed, report.failed), (copies, 0), "{report}");
    // 1 MiB global memory + L2 SRAM (2 MiB) + per-case buffers; well under the file size.
    let bound = 4 << 20;
    assert!(
        file_size > 2 * bound,
        "file too small to show anything: {file_size}"
    );
    assert!(
        peak < bound,
        "peak live heap {peak} bytes while replaying a {file_size}-byte file (bound {bound})"
    );
}
