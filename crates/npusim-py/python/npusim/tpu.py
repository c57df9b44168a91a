"""The Sophgo TPU kernel API on numpy arrays.

``Device`` is one TPU core with global memory, driven by the vendor's function names and
parameter order over system addresses::

    dev = npusim.tpu.Device("BM1684X")
    src = dev.put(np.array([3, 1, 2], np.float32))
    dst = dev.alloc(3 * 4)
    dev.tpu_hau_sort(dst, src, 3, 3, True, "DT_FP32")
    dev.get(dst, np.float32, 3)        # array([3., 2., 1.], dtype=float32)

The GDMA and BDC functions, the local-memory helpers and the synchronisation calls of
``tpu_kernel.h`` are methods too, under the vendor's names and parameter order (positional or
by the vendor's parameter names), so a kernel reads as it does in C::

    N, C, H, W = 1, 64, 1, 16
    x = dev.put(np.random.rand(N, C, H, W).astype(np.float32))
    dev.tpu_gdma_cpy_S2L(0, x, (N, C, H, W), None, None, tpu.DT_FP32)
    dev.tpu_bdc_fp_mul_C(4096, 0, 2.0, (N, C, H, W), None, None, tpu.DT_FP32)
    dev.tpu_gdma_cpy_L2S(x, 4096, (N, C, H, W), None, None, tpu.DT_FP32)

How arguments are passed: addresses are ints (``local_addr_t`` for local memory, the
``system_addr_t`` ``alloc``/``put`` return for global memory); ``dim4``/``dim2``/``padding_t``
pointers are tuples, a NULL stride is ``None``; ``data_type_t`` and ``rounding_mode_t`` are the
constants below (``DT_FP32``, ``RM_HALF_TO_EVEN``...) or the vendor's codes; a ``scalar_t`` is a
Python number (converted to the element type of the call, correctly rounded for floats) or a
numpy scalar as wide as that type (its bit pattern, as a C caller fills the union member); a
``variable_t`` is ``tensor(addr)`` or ``scalar(value)``. Functions that fill a ``dim4 *`` in C
(``tpu_aligned_stride``...) return it as ``(n, c, h, w)``. A refused call raises
:class:`npusim.NpusimError` with the typed error's text (function, parameter, rule, value).
``write_local``/``read_local`` reach one lane's local memory directly (tests, debugging).

``sort``, ``sort_natural_index`` and ``sort_specific_index`` wrap those calls for whole arrays;
``check(path)`` replays a golden JSON file (HAU, GDMA, BDC) as ``npusim tpu check`` does.
"""

from __future__ import annotations

import inspect
import sys
import os
from collections import namedtuple
from typing import Optional

import numpy as np

from . import _native

dim4 = namedtuple("dim4", "n c h w")
dim2 = namedtuple("dim2", "h w")
padding_t = namedtuple("padding_t", "top bottom left right")

# data_type_t and rounding_mode_t under the vendor's names (the native side also takes codes).
DT_UINT8, DT_INT8, DT_FP16, DT_FP32 = "DT_UINT8", "DT_INT8", "DT_FP16", "DT_FP32"
DT_UINT16, DT_INT16, DT_UINT32, DT_INT32 = "DT_UINT16", "DT_INT16", "DT_UINT32", "DT_INT32"
DT_BFP16, DT_FP8E5M2, DT_FP8E4M3 = "DT_BFP16", "DT_FP8E5M2", "DT_FP8E4M3"
RM_HALF_TO_EVEN, RM_HALF_AWAY_FROM_ZERO = "RM_HALF_TO_EVEN", "RM_HALF_AWAY_FROM_ZERO"
RM_TOWARDS_ZERO, RM_DOWN, RM_UP = "RM_TOWARDS_ZERO", "RM_DOWN", "RM_UP"
RM_HALF_UP, RM_HALF_DOWN = "RM_HALF_UP", "RM_HALF_DOWN"


def tensor(addr: int) -> tuple:
    """A ``variable_t`` of type ``TENSOR``: the local tensor at ``addr``."""
    return ("TENSOR", int(addr))


def scalar(value) -> tuple:
    """A ``variable_t`` of type ``SCALAR`` (the value as for a ``scalar_t`` parameter)."""
    return ("SCALAR", value)


def _np_dtype(dtype) -> np.dtype:
    """A numpy dtype from a numpy dtype or a ``DT_*`` name."""
    if isinstance(dtype, str) and dtype.upper().startswith("DT_"):
        name = dtype.upper()
        if name == "DT_BFP16":
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        table = {"DT_UINT8": np.uint8, "DT_INT8": np.int8, "DT_FP16": np.float16,
                 "DT_FP32": np.float32, "DT_UINT16": np.uint16, "DT_INT16": np.int16,
                 "DT_UINT32": np.uint32, "DT_INT32": np.int32}
        if name not in table:
            raise _native.NpusimError(f"no numpy dtype for {dtype}")
        return np.dtype(table[name])
    return np.dtype(dtype)

_DTYPES = {
    np.dtype(np.float32): "DT_FP32",
    np.dtype(np.int32): "DT_INT32",
    np.dtype(np.uint32): "DT_UINT32",
}


class Device:
    """A TPU core (``"BM1684X"`` or ``"BM1688"``) with ``gm_size`` bytes of global memory."""

    def __init__(self, chip: str = "BM1684X", gm_size: int = 64 << 20):
        self._d = _native.TpuDevice(chip, gm_size)

    def alloc(self, nbytes: int) -> int:
        """Reserves global memory (128-byte aligned); returns the system address."""
        return self._d.alloc(nbytes)

    def put(self, a: np.ndarray) -> int:
        """Copies an array into fresh global memory; returns its address."""
        a = np.ascontiguousarray(a)
        addr = self._d.alloc(a.nbytes)
        self._d.write(addr, a.tobytes())
        return addr

    def write(self, addr: int, a: np.ndarray) -> None:
        self._d.write(addr, np.ascontiguousarray(a).tobytes())

    def get(self, addr: int, dtype, count: int) -> np.ndarray:
        """``count`` elements of ``dtype`` (numpy dtype or ``DT_*`` name) at ``addr``."""
        dt = _np_dtype(dtype)
        return np.frombuffer(self._d.read(addr, dt.itemsize * count), dtype=dt).copy()

    def write_local(self, addr: int, a) -> None:
        """Writes an array's bytes into local memory at ``addr`` (inside one lane)."""
        self._d.write_local(addr, np.ascontiguousarray(a).tobytes())

    def read_local(self, addr: int, dtype, count: int) -> np.ndarray:
        """``count`` elements of ``dtype`` from local memory at ``addr`` (inside one lane)."""
        dt = _np_dtype(dtype)
        return np.frombuffer(self._d.read_local(addr, dt.itemsize * count), dtype=dt).copy()

    def tpu_hau_sort(self, output_addr, input_addr, len, k, descended, dtype) -> None:
        self._d.tpu_hau_sort(output_addr, input_addr, len, k, descended, dtype)

    def tpu_hau_sort_natural_index(
        self, output_data_addr, output_idx_addr, input_addr, len, k, descended, dtype
    ) -> None:
        self._d.tpu_hau_sort_natural_index(
            output_data_addr, output_idx_addr, input_addr, len, k, descended, dtype
        )

    def tpu_hau_sort_specific_index(
        self,
        output_data_addr,
        output_idx_addr,
        input_data_addr,
        input_idx_addr,
        len,
        k,
        descended,
        dtype,
    ) -> None:
        self._d.tpu_hau_sort_specific_index(
            output_data_addr,
            output_idx_addr,
            input_data_addr,
            input_idx_addr,
            len,
            k,
            descended,
            dtype,
        )

    def tpu_hau_line_gather(self, output_addr, param_addr, index_addr, c, line_num, line_len,
                            index_len, start, end, dtype, fill_const) -> None:
        """``c``: the constant as a Python float (``DT_FP32``), int, or ``numpy`` scalar of
        the element type; it is passed as its bit pattern, sign-extended from 8/16 bits."""
        self._d.tpu_hau_line_gather(output_addr, param_addr, index_addr, _scalar_bits(c),
                                    line_num, line_len, index_len, start, end, dtype,
                                    fill_const)

    def tpu_hau_poll(self) -> int:
        return self._d.tpu_hau_poll()


def _vendor_method(name: str, params: list) -> None:
    """Adds ``Device.<name>``: the vendor function with its parameter names (keywords too)."""
    names = [p for p, _ in params]
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
        + [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in names])
    n = len(names)

    def method(self, *args, **kwargs):
        if kwargs or len(args) != n:
            try:
                bound = sig.bind(self, *args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{name}({', '.join(names)}): {e}") from None
            args = bound.args[1:]
        return self._d.call(name, *args)

    method.__name__ = name
    method.__qualname__ = f"Device.{name}"
    method.__signature__ = sig
    method.__doc__ = f"``{name}({', '.join(f'{p}: {k}' for p, k in params)})`` (TPU-Kernel API)."
    setattr(Device, name, method)


API = {name: [p for p, _ in params] for name, params in _native.tpu_api()}
"""Every TPU-Kernel function ``Device`` has beyond the HAU ones: name -> parameter names."""
for _name, _params in _native.tpu_api():
    _vendor_method(_name, _params)


def _print_method(name: str) -> None:
    """``Device.<name>`` for the print helpers: the vendor text, tagged ``[core C FILE:LINE]``
    (the core index and the caller's line) on stdout and kept in ``Device.prints`` as
    ``(core, file, line, text)``; returns None as the C helper does."""
    native = getattr(Device, name)

    def method(self, *args, **kwargs):
        text = native(self, *args, **kwargs)
        f = sys._getframe(1)
        core = self._d.call("tpu_core_index")
        rec = (core, f.f_code.co_filename, f.f_lineno, text)
        if not hasattr(self, "prints"):
            self.prints = []
        self.prints.append(rec)
        tag = f"[core {core} {os.path.basename(rec[1])}:{rec[2]}]"
        sys.stdout.write("".join(f"{tag} {l}\n" for l in text.splitlines()))
        sys.stdout.flush()

    for a in ("__name__", "__qualname__", "__signature__", "__doc__"):
        setattr(method, a, getattr(native, a))
    setattr(Device, name, method)


for _name in ("tpu_print_local_mem_data", "tpu_print_global_mem_data"):
    _print_method(_name)


def _scalar_bits(c) -> int:
    """The 32-bit pattern of a ``scalar_t`` constant."""
    if isinstance(c, np.generic):
        raw = int(np.frombuffer(c.tobytes(), dtype={1: np.int8, 2: np.int16, 4: np.uint32}
                                [c.dtype.itemsize])[0])
        return raw & 0xFFFFFFFF
    if isinstance(c, float):
        return int(np.float32(c).view(np.uint32))
    return int(c) & 0xFFFFFFFF


def _dtype_name(a: np.ndarray) -> str:
    try:
        return _DTYPES[a.dtype]
    except KeyError:
        raise _native.NpusimError(
            f"HAU sorts take float32, int32 or uint32 arrays, not {a.dtype}"
        ) from None


def sort(x: np.ndarray, k: Optional[int] = None, descended: bool = False,
         chip: str = "BM1684X") -> np.ndarray:
    """``tpu_hau_sort`` on a 1-D array: the first ``k`` (default all) values in order."""
    x = np.ascontiguousarray(x).reshape(-1)
    k = x.size if k is None else k
    d = Device(chip)
    src = d.put(x)
    dst = d.alloc(max(k, 0) * x.itemsize)
    d.tpu_hau_sort(dst, src, x.size, k, descended, _dtype_name(x))
    return d.get(dst, x.dtype, k)


def sort_natural_index(x: np.ndarray, k: Optional[int] = None, descended: bool = False,
                       chip: str = "BM1684X") -> tuple[np.ndarray, np.ndarray]:
    """``tpu_hau_sort_natural_index``: (values, positions) of the first ``k`` in order."""
    x = np.ascontiguousarray(x).reshape(-1)
    k = x.size if k is None else k
    d = Device(chip)
    src = d.put(x)
    dv = d.alloc(max(k, 0) * 4)
    di = d.alloc(max(k, 0) * 4)
    d.tpu_hau_sort_natural_index(dv, di, src, x.size, k, descended, _dtype_name(x))
    return d.get(dv, x.dtype, k), d.get(di, np.uint32, k)


def sort_specific_index(x: np.ndarray, idx: np.ndarray, k: Optional[int] = None,
                        descended: bool = False, chip: str = "BM1684X"
                        ) -> tuple[np.ndarray, np.ndarray]:
    """``tpu_hau_sort_specific_index``: (values, given indices) of the first ``k`` in order."""
    x = np.ascontiguousarray(x).reshape(-1)
    idx = np.ascontiguousarray(idx, dtype=np.uint32).reshape(-1)
    k = x.size if k is None else k
    d = Device(chip)
    src = d.put(x)
    si = d.put(idx)
    dv = d.alloc(max(k, 0) * 4)
    di = d.alloc(max(k, 0) * 4)
    d.tpu_hau_sort_specific_index(dv, di, src, si, x.size, k, descended, _dtype_name(x))
    return d.get(dv, x.dtype, k), d.get(di, np.uint32, k)


def check(path: str) -> tuple[int, int, str]:
    """Replays a golden JSON file: (passed, failed, report text)."""
    return _native.tpu_check(path)
