"""The Sophgo TPU kernel API on numpy arrays.

``Device`` is one TPU core with global memory, driven by the vendor's function names and
parameter order over system addresses::

    dev = npusim.tpu.Device("BM1684X")
    src = dev.put(np.array([3, 1, 2], np.float32))
    dst = dev.alloc(3 * 4)
    dev.tpu_hau_sort(dst, src, 3, 3, True, "DT_FP32")
    dev.get(dst, np.float32, 3)        # array([3., 2., 1.], dtype=float32)

``sort``, ``sort_natural_index`` and ``sort_specific_index`` wrap those calls for whole arrays;
``check(path)`` replays a golden JSON file (HAU, GDMA, BDC) as ``npusim tpu check`` does.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _native

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
        dt = np.dtype(dtype)
        return np.frombuffer(self._d.read(addr, dt.itemsize * count), dtype=dt).copy()

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
