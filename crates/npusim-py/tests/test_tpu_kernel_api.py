"""npusim.tpu's GDMA/BDC API under the vendor's names: a kernel written in Python as it is in C,
checked against numpy and against the vendor C-model's golden vectors (golden/tpu/*.json),
which are replayed here through the Python methods, arguments bound by the vendor's parameter
names (so a parameter table in the wrong order fails them)."""
import json

import numpy as np
import pytest

import npusim
from npusim import tpu

DT = {"f32": "DT_FP32", "i32": "DT_INT32", "u32": "DT_UINT32", "f16": "DT_FP16",
      "bf16": "DT_BFP16", "i16": "DT_INT16", "u16": "DT_UINT16", "i8": "DT_INT8",
      "u8": "DT_UINT8"}
WIDTH = {"f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2, "i16": 2, "u16": 2, "i8": 1, "u8": 1}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def ceil_div(a, b):
    return -(-a // b)


def softmax_last_axis(dev, dst, src, n, rows, c):
    """Softmax over the channel axis of the f32 tensor (n, rows, c) at ``src`` into ``dst``,
    written with the TPU-Kernel calls only: the positions go to the 64 lanes, the channels to
    w; the row maximum is a (1, c) max pool, the row sum a (1, c) avg pool with scale 1, and the
    per-row statistics are broadcast along w by a zero w stride. The local buffers follow
    npusim-tpu's ``kernels::SoftmaxPlan`` (the plan the C-model golden file was made with)."""
    eu = dev.tpu_eu_num(tpu.DT_FP32)
    slots = ceil_div(rows, dev.tpu_npu_num())
    big = n * slots * ceil_div(c, eu) * eu * 4
    small = n * slots * eu * 4
    at = 0

    def take(nbytes):
        nonlocal at
        addr, at = at, at + ceil_div(nbytes, 64) * 64
        return addr

    inp, mx, shifted, ex = take(big), take(small), take(big), take(big)
    work0, work1, total, out, coeff = take(big), take(big), take(small), take(big), take(64)
    assert at <= dev.tpu_local_mem_size_per_npu()
    shape = tpu.dim4(n, rows, 1, c)
    gstride = tpu.dim4(rows * c, c, c, 1)
    bcast = tpu.dim4(slots * eu, eu, 0, 0)
    window, no_pad, one = tpu.dim2(1, c), tpu.padding_t(0, 0, 0, 0), tpu.dim2(1, 1)

    dev.tpu_gdma_cpy_S2L(inp, src, shape, None, gstride, tpu.DT_FP32)
    dev.tpu_bdc_fp_max_pool2d(mx, inp, shape, window, no_pad, one, one, tpu.DT_FP32, -np.inf)
    dev.tpu_bdc_fp_sub(shifted, inp, mx, shape, None, None, bcast, tpu.DT_FP32)
    dev.tpu_bdc_load_fp32_exp_coeff(coeff)
    dev.tpu_bdc_load_fp32_exp_table(coeff)
    dev.tpu_bdc_fp32_exp(ex, shifted, work0, work1, coeff, coeff, shape)
    dev.tpu_bdc_fp_avg_pool2d(total, ex, shape, window, no_pad, one, one, tpu.DT_FP32, 1.0)
    dev.tpu_bdc_fp_div(out, ex, total, shape, None, None, bcast, tpu.DT_FP32)
    dev.tpu_gdma_cpy_L2S(dst, out, shape, gstride, None, tpu.DT_FP32)
    dev.tpu_poll()


@pytest.mark.parametrize("n,rows,c", [(1, 1, 1), (1, 64, 37), (2, 70, 256), (3, 5, 100)])
def test_softmax_kernel_in_python_matches_numpy(n, rows, c):
    rng = np.random.default_rng(n * 1000 + rows + c)
    x = (rng.standard_normal((n, rows, c)) * 4).astype(np.float32)
    dev = tpu.Device("BM1684X")
    src = dev.put(x)
    dst = dev.alloc(x.nbytes)
    softmax_last_axis(dev, dst, src, n, rows, c)
    got = dev.get(dst, tpu.DT_FP32, x.size).reshape(x.shape)
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    want = e / e.sum(axis=-1, keepdims=True)
    # f32 arithmetic: x - max rounds to f32 (after exp a relative error up to |x - max| * 2^-24,
    # about 2e-6 for these inputs), and the C-model's exp (Taylor series) and division (Newton
    # reciprocal) add a few ulp.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-30)
    assert np.allclose(got.sum(axis=-1), 1.0, rtol=1e-5)


def test_softmax_kernel_reproduces_the_c_model_bit_for_bit(root):
    cases = json.loads((root / "golden/tpu/kernel.json").read_text())["cases"]
    assert len(cases) == 7
    for case in cases:
        n, rows, c = case["n"], case["rows"], case["c"]
        dev = tpu.Device("BM1684X")
        src = dev.put(np.array(case["src"], np.uint32))
        dst = dev.alloc(4 * len(case["out"]))
        softmax_last_axis(dev, dst, src, n, rows, c)
        assert dev.get(dst, np.uint32, len(case["out"])).tolist() == case["out"], (n, rows, c)


# --- golden replay: the C-model's BDC and GDMA vectors through the vendor-named methods ------

def lanes(dev, addr, c):
    npu, lmem = dev.tpu_npu_num(), dev.tpu_local_mem_size_per_npu()
    start = addr // lmem
    return [((start + i) % npu) * lmem + addr % lmem for i in range(min(max(c, 0), npu))]


def put_region(dev, addr, extent, width, c, words):
    data = np.array(words, np.uint64).astype(UINT[width])
    at = lanes(dev, addr, c)
    assert len(data) == extent * len(at)
    for i, a in enumerate(at):
        dev.write_local(a, data[i * extent:(i + 1) * extent])


def get_region(dev, addr, extent, width, c):
    return [int(v) for a in lanes(dev, addr, c) for v in dev.read_local(a, UINT[width], extent)]


def first(case, *keys):
    for k in keys:
        if case.get(k) is not None:
            return case[k]
    raise KeyError(keys)


def dtype_key(case, param):
    """The golden file's short dtype name for a ``data_type_t`` parameter."""
    return {
        "dtype": lambda: first(case, "dtype", "dst_dtype"),
        "dst_dtype": lambda: first(case, "dst_dtype", "dtype"),
        "src_dtype": lambda: first(case, "src_dtype", "src0_dtype", "dtype"),
        "src0_dtype": lambda: first(case, "src0_dtype", "src_dtype", "dtype"),
        "src1_dtype": lambda: first(case, "src1_dtype", "src_dtype", "dtype"),
        "C_dtype": lambda: case["C_dtype"],
        "src0_src1_dtype": lambda: first(case, "src_dtype", "src0_dtype", "dtype"),
        "dst0_dtype": lambda: first(case, "dst_dtype", "dtype"),
        "dst1_dtype": lambda: case["dst1_dtype"],
    }[param]()


def bits(case, value, kind):
    """A ``scalar_t`` bit pattern as a numpy scalar as wide as the governing element type."""
    governing = kind[kind.index("(") + 1:-1]
    width = WIDTH[dtype_key(case, governing)]
    return UINT[width](value & ((1 << (8 * width)) - 1))


def argument(case, param, kind):
    """The value of a vendor parameter, looked up in a golden case by the parameter's name."""
    alias = {"output_addr": "dst_addr", "input_addr": "src_addr", "dst0_addr": "dst_addr",
             "input_shape": "shape", "rounding_mode": "mode"}
    key = alias.get(param, param)
    if kind == "Dtype":
        return DT[dtype_key(case, param)]
    if kind.startswith("Scalar"):
        return bits(case, case[{"true_val": "true_bits"}.get(param, "c_bits")], kind)
    if kind.startswith("Var"):
        if case.get(f"{param}_addr") is not None:
            return tpu.tensor(case[f"{param}_addr"])
        return tpu.scalar(bits(case, case[f"{param}_scalar"], kind))
    if kind == "Stride" and key not in case:
        return None
    if kind == "Shift":
        return case.get("shift", 0)
    if kind == "Bool":
        return bool(case.get(key, False))
    return case[key]


BDC_FILES = ["bdc", "bit", "cast", "cmp", "int", "move", "pool", "pool_min", "select",
             "select2", "dst_stride"]


def run_bdc_case(case):
    dev = tpu.Device("BM1684X")
    name = "tpu_bdc_" + case["func"]
    if case["op"] == "bdc_pool":
        name = "tpu_bdc_fp_" + case["func"]
    params = dict(_native_params()[name])
    kwargs = {p: argument(case, p, k) for p, k in params.items()}
    c = case["shape"][1]
    dst_w = WIDTH[first(case, "dst_dtype", "dtype")]
    outs = [("dst_addr", "dst_extent", dst_w, "out")]
    if case.get("dst1_addr") is not None:
        outs.append(("dst1_addr", "dst1_extent", WIDTH[case["dst1_dtype"]], "out1"))
    if case.get("expect_error"):
        with pytest.raises(npusim.NpusimError):
            getattr(dev, name)(**kwargs)
        return
    for src in ["src", "src0", "src1", "src2", "src3"]:
        if case.get(src) is None:
            continue
        w = WIDTH[first(case, f"{src}_dtype", "src_dtype", "dtype")]
        ch = case["src_channels"] if src == "src" and case.get("src_channels") else c
        put_region(dev, case[f"{src}_addr"], case[f"{src}_extent"], w, ch, case[src])
    for addr, ext, w, _ in outs:
        fill = np.full(case[ext] * w, case["out_fill_byte"], np.uint8)
        for a in lanes(dev, case[addr], c):
            dev.write_local(a, fill)
    getattr(dev, name)(**kwargs)
    dev.tpu_poll()
    for addr, ext, w, key in outs:
        assert get_region(dev, case[addr], case[ext], w, c) == case[key], key


def _native_params():
    return {n: p for n, p in npusim._native.tpu_api()}


@pytest.mark.parametrize("name", BDC_FILES)
def test_bdc_golden_file_replays_through_the_vendor_names(root, name):
    cases = json.loads((root / f"golden/tpu/{name}.json").read_text())["cases"]
    failed = []
    for i, case in enumerate(cases):
        try:
            run_bdc_case(case)
        except (AssertionError, npusim.NpusimError, KeyError, TypeError) as e:
            failed.append((i, case["func"], str(e)[:200]))
    assert failed == [], f"{len(failed)} of {len(cases)} differ: {failed[:3]}"


def test_gdma_golden_file_replays_through_the_vendor_names(root):
    cases = json.loads((root / "golden/tpu/gdma.json").read_text())["cases"]
    failed = []
    for i, case in enumerate(cases):
        dev = tpu.Device("BM1684X")
        gm = dev.alloc(0)
        w = WIDTH[case["dtype"]]
        d_local, s_local = case["dir"][2] == "L", case["dir"][0] == "L"
        dst = case["dst_addr"] if d_local else gm + case["dst_addr"]
        src = case["src_addr"] if s_local else gm + case["src_addr"]
        c = case["shape"][1]
        call = getattr(dev, "tpu_gdma_cpy_" + case["dir"])
        kw = dict(dst_addr=dst, src_addr=src, shape=tuple(case["shape"]),
                  dst_stride=case["dst_stride"], src_stride=case["src_stride"],
                  dtype=DT[case["dtype"]])
        try:
            if case.get("expect_error"):
                with pytest.raises(npusim.NpusimError):
                    call(**kw)
                continue
            dev.alloc(1 << 20)
            if s_local:
                put_region(dev, src, case["src_extent"], w, c, case["src"])
            else:
                dev.write(src, np.array(case["src"], np.uint64).astype(UINT[w]))
            if d_local:
                fill = np.full(case["dst_extent"] * w, case["out_fill_byte"], np.uint8)
                for a in lanes(dev, dst, c):
                    dev.write_local(a, fill)
            else:
                dev.write(dst, np.full(case["dst_extent"] * w, case["out_fill_byte"], np.uint8))
            call(**kw)
            dev.tpu_poll()
            if d_local:
                got = get_region(dev, dst, case["dst_extent"], w, c)
            else:
                got = dev.get(dst, UINT[w], case["dst_extent"]).tolist()
            assert got == case["out"]
        except (AssertionError, npusim.NpusimError) as e:
            failed.append((i, case["dir"], str(e)[:200]))
    assert len(cases) == 99 and failed == [], f"{len(failed)} differ: {failed[:3]}"


def test_layout_moves_reproduce_the_c_model_through_the_methods(root):
    """golden/tpu/trans.json (matrix, compact and cw-transposing GDMA moves, BDC cw/wc
    transposes) through the vendor-named methods, arguments bound by parameter name."""
    cases = json.loads((root / "golden/tpu/trans.json").read_text())["cases"]
    failed = []
    for i, case in enumerate(cases):
        dev = tpu.Device("BM1684X")
        gm = dev.alloc(0)
        w = WIDTH[case["dtype"]]
        d, s = case["dst"], case["src"]
        addr = lambda r: r["addr"] if r["local"] else gm + r["addr"]
        call = getattr(dev, "tpu_" + case["func"])
        kw = dict(dst_addr=addr(d), src_addr=addr(s), dtype=DT[case["dtype"]])
        if "matrix" in case:
            kw.update(zip(["rows", "cols", "cols_per_channel", "row_stride"], case["matrix"]))
        elif "compact" in case["func"] or case["func"].startswith("bdc_"):
            kw["shape"] = tuple(case["shape"])
        else:
            kw.update(dst_shape=tuple(case["shape"]), dst_stride=case["dst_stride"],
                      src_stride=case["src_stride"])
        try:
            if case.get("expect_error"):
                with pytest.raises(npusim.NpusimError):
                    call(**kw)
                continue
            dev.alloc(1 << 22)
            if s["local"]:
                put_region(dev, s["addr"], s["extent"], w, s["channels"], case["src_data"])
            else:
                dev.write(addr(s), np.array(case["src_data"], np.uint64).astype(UINT[w]))
            fill = np.full(d["extent"] * w, case["out_fill_byte"], np.uint8)
            if d["local"]:
                for a in lanes(dev, d["addr"], d["channels"]):
                    dev.write_local(a, fill)
            else:
                dev.write(addr(d), fill)
            call(**kw)
            dev.tpu_poll()
            if d["local"]:
                got = get_region(dev, d["addr"], d["extent"], w, d["channels"])
            else:
                got = dev.get(addr(d), UINT[w], d["extent"]).tolist()
            assert got == case["out"]
        except (AssertionError, npusim.NpusimError) as e:
            failed.append((i, case["func"], str(e)[:200]))
    assert len(cases) == 269 and failed == [], f"{len(failed)} differ: {failed[:3]}"


# --- the API surface -------------------------------------------------------------------------

def test_every_vendor_function_is_a_method_with_the_vendor_parameters():
    api = tpu.API
    for name in ["tpu_gdma_cpy_S2L", "tpu_gdma_cpy_L2S", "tpu_gdma_cpy_S2S", "tpu_gdma_cpy_L2L",
                 "tpu_bdc_fp_add", "tpu_bdc_fp_div", "tpu_bdc_fp_mul_C", "tpu_bdc_cast",
                 "tpu_bdc_fp_max_pool2d", "tpu_bdc_fp32_exp", "tpu_bdc_int_add",
                 "tpu_bdc_greater_select", "tpu_aligned_stride", "tpu_poll"]:
        assert name in api and callable(getattr(tpu.Device, name)), name
    assert api["tpu_bdc_fp_add"] == ["dst_addr", "src0_addr", "src1_addr", "shape",
                                     "dst_stride", "src0_stride", "src1_stride", "dtype"]
    assert api["tpu_bdc_cast"] == ["dst_addr", "src_addr", "shape", "dst_stride",
                                   "src_stride", "dst_dtype", "src_dtype", "mode"]
    import inspect
    assert list(inspect.signature(tpu.Device.tpu_gdma_cpy_S2L).parameters)[1:] == \
        ["dst_addr", "src_addr", "shape", "dst_stride", "src_stride", "dtype"]


def test_layout_helpers_answer_as_the_c_model():
    dev = tpu.Device("BM1684X")
    # the C-model's answer for (2, 70, 3, 5) f32 on lane 0 (npusim-tpu local.rs unit test)
    assert dev.tpu_aligned_stride(0, (2, 70, 3, 5), tpu.DT_FP32) == (32, 16, 5, 1)
    assert dev.tpu_npu_num() == 64 and dev.tpu_eu_num(tpu.DT_FP16) == 32
    assert dev.tpu_compact_stride(0, (1, 64, 3, 5)) == (15, 15, 5, 1)


def test_scalars_are_converted_to_the_element_type_of_the_call():
    dev = tpu.Device("BM1684X")
    shape = (1, 2, 1, 4)
    x = np.array([[1.0, 2.5, -3.0, 65504.0]] * 2, np.float16)
    for lane, a in enumerate(lanes(dev, 0, 2)):
        dev.write_local(a, x[lane])
    # a Python float is rounded to f16, a numpy float16 passes its bits
    dev.tpu_bdc_fp_mul_C(4096, 0, 0.5, shape, None, None, tpu.DT_FP16)
    dev.tpu_bdc_fp_add_C(8192, 0, np.float16(1.0), shape, None, None, tpu.DT_FP16)
    for lane, a in enumerate(lanes(dev, 0, 2)):
        assert np.array_equal(dev.read_local(a + 4096, np.float16, 4), x[lane] * np.float16(0.5))
        assert np.array_equal(dev.read_local(a + 8192, np.float16, 4), x[lane] + np.float16(1))
    # an int for an integer type; keyword arguments in any order
    y = np.arange(8, dtype=np.int32).reshape(2, 4)
    for lane, a in enumerate(lanes(dev, 0, 2)):
        dev.write_local(a, y[lane])
    dev.tpu_bdc_int_add_C(dst_addr=4096, src_addr=0, C=-3, shape=shape, dst_stride=None,
                          src_stride=None, dst_dtype=tpu.DT_INT32, src_dtype=tpu.DT_INT32,
                          C_dtype=tpu.DT_INT32, shift=0, rounding_mode=tpu.RM_HALF_TO_EVEN,
                          saturation=False)
    for lane, a in enumerate(lanes(dev, 0, 2)):
        assert dev.read_local(a + 4096, np.int32, 4).tolist() == (y[lane] - 3).tolist()


def test_errors_raise_with_the_typed_error_text():
    dev = tpu.Device("BM1684X")
    shape = (1, 4, 1, 8)
    # a rule of the simulator: fp_div is f32 only
    with pytest.raises(npusim.NpusimError, match="tpu_bdc_fp_div.*dtype = DT_FP16"):
        dev.tpu_bdc_fp_div(0, 1024, 2048, shape, None, None, None, tpu.DT_FP16)
    # an operand off the 64-byte grid
    with pytest.raises(npusim.NpusimError, match="tpu_bdc_fp_add.*src0_addr"):
        dev.tpu_bdc_fp_add(0, 1028, 2048, shape, None, None, None, tpu.DT_FP32)
    # argument conversion names the function and the parameter
    with pytest.raises(npusim.NpusimError, match=r"tpu_bdc_fp_add: parameter `shape`"):
        dev.tpu_bdc_fp_add(0, 1024, 2048, (1, 4, 8), None, None, None, tpu.DT_FP32)
    with pytest.raises(npusim.NpusimError, match=r"parameter `dtype` = 'DT_FP99'"):
        dev.tpu_bdc_fp_add(0, 1024, 2048, shape, None, None, None, "DT_FP99")
    with pytest.raises(npusim.NpusimError, match=r"parameter `C`.*4-byte numpy scalar.*DT_FP16"):
        dev.tpu_bdc_fp_add_C(0, 1024, np.float32(1), shape, None, None, tpu.DT_FP16)
    with pytest.raises(npusim.NpusimError, match=r"parameter `C` = 300.*out of range"):
        dev.tpu_bdc_and_C(0, 1024, 300, shape, None, None, tpu.DT_UINT8)
    with pytest.raises(npusim.NpusimError, match=r"parameter `src0`.*variable_t"):
        dev.tpu_bdc_greater_select(0, 5, tpu.tensor(64), tpu.scalar(1.0), tpu.scalar(0.0),
                                   shape, tpu.DT_FP32, tpu.DT_FP32)
    with pytest.raises(TypeError, match="tpu_bdc_fp_add.*missing"):
        dev.tpu_bdc_fp_add(0, 1024)
    with pytest.raises(npusim.NpusimError, match="tpu_gdma_cpy_S2L"):
        dev.tpu_gdma_cpy_S2L(0, 7, shape, None, None, tpu.DT_FP32)


def test_random_arguments_raise_errors_never_crash():
    """Every vendor function, called 3000 times with arguments drawn from valid, edge and
    wrong values per parameter kind: each call returns or raises NpusimError / TypeError (a
    Rust panic would surface as pyo3's PanicException, a BaseException, and fail the test)."""
    import random
    rng = random.Random(14)
    ints = [0, 64, 4096, 65536, 2**18 - 64, 2**22, 2**31, 2**32 - 1, -1, 2**64, 7, 1.5, "x"]
    dims = [(1, 64, 1, 16), (2, 70, 3, 5), (1, 1, 1, 1), (0, 1, 1, 1), (-1, 1, 1, 1),
            (65536, 1, 1, 1), (65535, 2, 1, 1), (1, 2, 3), "abcd", None]
    strides = [None, (0, 0, 0, 0), (16, 16, 4, 1), (-1, 1, 1, 1), (2**31 - 1, 1, 1, 1),
               (1, 1, 1, 2**20)]
    pool = {
        "Local": ints, "System": ints + [64 << 20], "Shape": dims, "Stride": strides,
        "Dim2": [(1, 1), (3, 3), (0, 1), (-1, 2), (70000, 1), (1,)],
        "Padding": [(0, 0, 0, 0), (1, 1, 1, 1), (-1, 0, 0, 0), (40, 0, 0, 0), (1, 2)],
        "Dtype": ["DT_FP32", "DT_FP16", "DT_BFP16", "DT_INT8", "DT_UINT16", "DT_INT32",
                  "DT_UINT4", "DT_FP20", "DT_FP8E4M3", 5, 99, "bad", None],
        "Mode": ["RM_HALF_TO_EVEN", "RM_UP", "RM_HALF_UP", 6, 7, -1, "nope"],
        "Shift": [0, 3, -128, 127, 128, -129],
        "Int": [0, 1, 64, -5, 2**31 - 1, 2**31],
        "Bool": [True, False, 0, "yes"],
        "Scalar": [0, 1.5, -np.inf, np.nan, 300, -129, np.float16(2), np.float32(2),
                   np.uint8(7), np.int16(-3), 2**40, "s"],
        "Var": [tpu.tensor(0), tpu.tensor(4096), tpu.tensor(2**31), tpu.scalar(1.0),
                tpu.scalar(np.int8(3)), ("OTHER", 1), 5],
    }
    dev = tpu.Device("BM1684X", gm_size=1 << 20)
    gm = dev.alloc(64 << 10)
    pool["System"] = pool["System"] + [gm, gm + 4096]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(3000):
        name = rng.choice(sorted(tpu.API))
        params = dict(npusim._native.tpu_api())[name]
        args = [rng.choice(pool[k.split("(")[0]]) for _, k in params]
        try:
            getattr(dev, name)(*args)
            outcomes["ok"] += 1
        except (npusim.NpusimError, TypeError):
            outcomes["error"] += 1
    assert outcomes["ok"] > 100 and outcomes["error"] > 1000, outcomes


def test_huge_calls_are_refused_quickly():
    """A caller-controlled shape cannot make one call run for hours: a 65535 x 65535 set_C on a
    zero destination stride is refused as the C-model refuses it (`dst_shape[i] == 1`), and the
    same size on overlapping non-zero strides (which the C-model accepts: 4.3e9 writes on
    128 KiB) hits the simulator's documented per-call work bound (2^28 element operations)."""
    import time
    dev = tpu.Device("BM1684X")
    t = time.perf_counter()
    with pytest.raises(npusim.NpusimError,
                       match=r"tpu_bdc_set_C: dst_stride.n = 0 with shape.n = 65535"):
        dev.tpu_bdc_set_C(0, 1.0, (65535, 65535, 1, 1), (0, 0, 0, 0), tpu.DT_FP32)
    with pytest.raises(npusim.NpusimError,
                       match=r"work bound exceeded: tpu_bdc_set_C: shape = 4294836225 .*268435456"):
        dev.tpu_bdc_set_C(0, 7, (1, 1, 65535, 65535), (0, 0, 1, 1), tpu.DT_INT8)
    # GDMA may write a zero destination stride (the C-model takes it), so only the bound stops it
    src = dev.put(np.zeros(16, dtype=np.int8))
    with pytest.raises(npusim.NpusimError, match=r"work bound exceeded: tpu_gdma_cpy_S2L"):
        dev.tpu_gdma_cpy_S2L(0, src, (65535, 1, 65535, 1), (0, 16, 0, 1), (0, 0, 0, 1),
                             tpu.DT_INT8)
    # pooling counts output elements times kernel taps (65 x 65 x 4096 x 64 = 1.1e9)
    with pytest.raises(npusim.NpusimError, match=r"shape x kernel = 1107558400"):
        dev.tpu_bdc_fp_max_pool2d(0x20000, 0, (1, 64, 128, 128), tpu.dim2(64, 64),
                                  tpu.padding_t(0, 0, 0, 0), tpu.dim2(1, 1), tpu.dim2(1, 1),
                                  tpu.DT_FP32, 0.0)
    assert time.perf_counter() - t < 2.0
    # nothing was written
    assert not dev.read_local(0, np.uint8, 4096).any()
