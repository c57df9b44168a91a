"""npusim.tpu against the vendor's HAU golden vectors (golden/hau/*.json, produced by Sophgo's
C-model), through the Python API with the vendor's names, not through the replay code."""
import json

import numpy as np
import pytest

import npusim

NP = {"f32": np.uint32, "i32": np.uint32, "u32": np.uint32, "f16": np.uint16,
      "bf16": np.uint16, "i16": np.uint16, "u16": np.uint16, "i8": np.uint8, "u8": np.uint8}
DT = {"f32": "DT_FP32", "i32": "DT_INT32", "u32": "DT_UINT32", "f16": "DT_FP16",
      "bf16": "DT_BFP16", "i16": "DT_INT16", "u16": "DT_UINT16", "i8": "DT_INT8",
      "u8": "DT_UINT8"}


def cases(root):
    out = []
    for f in ["bm1684x-cmodel.json", "denormals.json"]:
        d = json.loads((root / "golden/hau" / f).read_text())
        out += [(f, i, c) for i, c in enumerate(d["cases"])]
    return out


def run_case(c):
    dev = npusim.tpu.Device("BM1684X")
    el = NP[c["dtype"]]
    size = np.dtype(el).itemsize
    op = c["op"]
    if op == "line_gather":
        param = dev.put(np.array(c["param"], dtype=el))
        index = dev.put(np.array(c["index"], dtype=np.uint32))
        n = len(c["out"])
        out = dev.alloc(n * size)
        dev.write(out, np.full(n * size, c["out_fill_byte"], np.uint8))
        dev.tpu_hau_line_gather(out, param, index, np.uint32(c["c_bits"]), c["line_num"],
                                c["line_len"], c["index_len"], c["start"], c["end"],
                                DT[c["dtype"]], c["fill_const"])
        dev.tpu_hau_poll()
        return {"out": dev.get(out, el, n).tolist()}
    src = dev.put(np.array(c["input"], dtype=np.uint32))
    k = c["k"]
    # The files record the whole output buffers (pre-filled with out_fill_byte), which may be
    # longer than the k elements the instruction writes.
    nd = len(c["out_data"])
    data = dev.alloc(nd * 4)
    dev.write(data, np.full(nd * 4, c["out_fill_byte"], np.uint8))
    if op == "sort":
        dev.tpu_hau_sort(data, src, c["len"], k, c["descended"], DT[c["dtype"]])
        dev.tpu_hau_poll()
        return {"out_data": dev.get(data, np.uint32, nd).tolist()}
    ni = len(c["out_idx"])
    idx = dev.alloc(ni * 4)
    dev.write(idx, np.full(ni * 4, c["out_fill_byte"], np.uint8))
    if op == "sort_natural_index":
        dev.tpu_hau_sort_natural_index(data, idx, src, c["len"], k, c["descended"],
                                       DT[c["dtype"]])
    else:
        sidx = dev.put(np.array(c["input_idx"], dtype=np.uint32))
        dev.tpu_hau_sort_specific_index(data, idx, src, sidx, c["len"], k, c["descended"],
                                        DT[c["dtype"]])
    dev.tpu_hau_poll()
    return {"out_data": dev.get(data, np.uint32, nd).tolist(),
            "out_idx": dev.get(idx, np.uint32, ni).tolist()}


def test_hau_golden_files_through_the_python_api(root):
    all_cases = cases(root)
    assert len(all_cases) > 400
    failed = []
    for f, i, c in all_cases:
        got = run_case(c)
        want = {k: c[k] for k in got}
        if got != want:
            failed.append((f, i, c["op"]))
    assert failed == [], f"{len(failed)} of {len(all_cases)} differ: {failed[:5]}"


def test_tpu_check_replays_the_files(root):
    for f in ["bm1684x-cmodel.json", "denormals.json"]:
        passed, failed, report = npusim.tpu.check(str(root / "golden/hau" / f))
        assert failed == 0 and passed > 0, report


def test_array_helpers_match_numpy_on_distinct_keys():
    rng = np.random.default_rng(3)
    x = rng.permutation(1000).astype(np.float32) - 500
    assert np.array_equal(npusim.tpu.sort(x, descended=True), np.sort(x)[::-1])
    v, i = npusim.tpu.sort_natural_index(x, k=10)
    assert np.array_equal(v, np.sort(x)[:10]) and np.array_equal(x[i], v)


def test_hau_errors_are_raised_with_the_rule():
    dev = npusim.tpu.Device()
    a = dev.put(np.zeros(8, np.float32))
    with pytest.raises(npusim.NpusimError, match="DT_FP16"):
        dev.tpu_hau_sort(a, a, 8, 8, False, "DT_FP16")
    with pytest.raises(npusim.NpusimError, match="unknown data type"):
        dev.tpu_hau_sort(a, a, 8, 8, False, "DT_NOPE")
    with pytest.raises(npusim.NpusimError, match="HAU sorts take"):
        npusim.tpu.sort(np.zeros(4, np.float64))


# Every golden/tpu file (a test below checks the list is complete).
TPU_FILES = ["bdc", "bdc_div", "bit", "cast", "cmp", "gdma", "int", "kernel", "move", "pool",
             "pool_min", "select", "select2", "sfu", "sfu_log", "sfu_sqrt", "dst_stride", "trans",
             "audit", "gdma_align", "dims"]


def test_gdma_bdc_golden_files_replay_from_python(root):
    present = {p.stem for p in (root / "golden/tpu").glob("*.json")}
    assert present == set(TPU_FILES), "a new golden file: add it here"
    for f in TPU_FILES:
        passed, failed, report = npusim.tpu.check(str(root / "golden/tpu" / f"{f}.json"))
        assert failed == 0 and passed > 0, report
