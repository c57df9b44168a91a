"""``tpu_print_local_mem_data`` / ``tpu_print_global_mem_data`` (the TPU-Kernel print helpers):
the text of the vendor helper, checked against a plain model written here with Python's ``%``
(C's formats, with C's promotion of ``short`` to ``int`` done by hand); prints come in order,
tagged with the core and the caller's line; bad calls name the function, parameter and value."""

import inspect

import numpy as np
import pytest

import npusim
from npusim import tpu


def _here():
    return inspect.currentframe().f_back.f_lineno


def _c_value(dt, v):
    """tpu_print_value's text for one element (the model)."""
    if dt in ("int32", "uint32"):
        return "0x%08x " % (int(v) & 0xFFFFFFFF)
    if dt in ("int16", "uint16"):
        s = int(np.array(v).astype(np.uint16).view(np.int16))  # (short)
        return "0x%04x " % (s & 0xFFFFFFFF)  # promoted to int, printed as unsigned
    if dt in ("int8", "uint8"):
        return "0x%02x " % (int(v) & 0xFF)
    return "%f " % float(v)


def _model_local(a, offset, start_idx, stride, dt, npu_num=64):
    n, c, h, w = a.shape
    out = ["LOCAL offset=0x%x, idx=%d, shape=(%d %d %d %d), stride=(%d,%d,%d,%d)\n"
           % ((offset, start_idx, n, c, h, w) + tuple(stride))]
    for i in range(n):
        for j in range(c):
            for k in range(h):
                out.append("(%d,%d,%d): " % (i, j, k)
                           + "".join(_c_value(dt, a[i, j, k, x]) for x in range(w)) + "\n")
    return "".join(out)


@pytest.mark.parametrize("dt,npdt", [("DT_FP32", np.float32), ("DT_FP16", np.float16),
                                      ("DT_INT16", np.int16), ("DT_UINT8", np.uint8),
                                      ("DT_INT32", np.int32)])
def test_local_print_matches_the_helper_model(dt, npdt, capsys):
    dev = tpu.Device("BM1684X")
    rng = np.random.default_rng(5)
    shape = (2, 3, 2, 5)
    if np.issubdtype(npdt, np.floating):
        a = (rng.standard_normal(shape) * 100).astype(npdt)
    else:
        info = np.iinfo(npdt)
        a = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(npdt)
    x = dev.put(a)
    dtype = getattr(tpu, dt)
    dev.tpu_gdma_cpy_S2L(4096, x, shape, None, None, dtype)
    stride = dev.tpu_aligned_stride(0, shape, dtype)
    dev.tpu_print_local_mem_data(4096, 0, shape, None, dtype); line = _here()
    (core, file, ln, text), = dev.prints
    assert (core, ln) == (0, line) and file.endswith("test_tpu_print.py")
    assert text == _model_local(a, 4096, 0, stride, np.dtype(npdt).name)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"[core 0 test_tpu_print.py:{line}] " + text.splitlines()[0]
    assert len(out) == len(text.splitlines())


def test_prints_in_order_and_global_print():
    dev = tpu.Device("BM1684X")
    a = np.arange(12, dtype=np.int32).reshape(1, 3, 1, 4) - 5
    g = dev.put(a)
    lines = []
    dev.tpu_print_global_mem_data(g, (1, 3, 1, 4), None, tpu.DT_INT32); lines.append(_here())
    # start_idx 2: channel 0 lives on NPU 2 (the local offset is the same on every NPU)
    lane = dev.tpu_local_mem_size_per_npu()
    dev.tpu_gdma_cpy_S2L(lane * 2 + 256, g, (1, 3, 1, 4), None, None, tpu.DT_INT32)
    dev.tpu_print_local_mem_data(256, 2, (1, 3, 1, 4), (12, 4, 4, 1), tpu.DT_INT32); lines.append(_here())
    assert [p[2] for p in dev.prints] == lines
    want_g = ("GLOBAL addr=0x%x, shape=(1 3 1 4), stride=(12,4,4,1)\n" % g
              + "".join("(0,%d,0): " % c + "".join(_c_value("int32", v) for v in a[0, c, 0]) + "\n"
                        for c in range(3)))
    assert dev.prints[0][3] == want_g
    assert dev.prints[1][3] == _model_local(a, 256, 2, (12, 4, 4, 1), "int32")


@pytest.mark.parametrize("args,match", [
    ((0, 64, (1, 1, 1, 1), None, tpu.DT_FP32), r"tpu_print_local_mem_data: start_idx = 64"),
    ((0, 0, (1, 0, 1, 1), None, tpu.DT_FP32), r"tpu_print_local_mem_data: shape.c = 0"),
    ((1 << 20, 0, (1, 1, 1, 1), None, tpu.DT_FP32), r"local_offset = 0x100000"),
    ((0, 0, (1, 1, 1, 1), None, 17), r"dtype = DT_FP20"),
    ((0, 0, (1, 64, 256, 256), None, tpu.DT_FP32), r"work bound exceeded: tpu_print_local_mem_data"),
])
def test_bad_calls_name_function_parameter_and_value(args, match):
    dev = tpu.Device("BM1684X")
    with pytest.raises(npusim.NpusimError, match=match):
        dev.tpu_print_local_mem_data(*args)
