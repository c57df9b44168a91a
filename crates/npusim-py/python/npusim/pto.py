"""PTO-AS kernels on numpy arrays.

    import numpy as np, npusim
    x = np.random.rand(64, 256).astype(np.float32)
    y = np.ones_like(x)
    out = npusim.pto.run("examples/pto/vector_add.pto",
                         args={"x": x, "y": y, "z": np.zeros_like(x), "n_rows": 64})
    assert np.array_equal(out["z"], x + y)

Arguments bind kernel parameters by name: numpy arrays for pointer parameters (the element
type must match; bf16 through ``ml_dtypes.bfloat16``), Python numbers (or strings such as
``"nan"``) for scalars. ``run`` returns the final contents of every array argument, by name.
"""

from __future__ import annotations

import io
import os
from typing import Mapping, Optional, Union

import numpy as np

from . import _native

Kernel = Union[str, "os.PathLike[str]"]


def _source(kernel: Kernel) -> tuple[str, str]:
    """(text, file name) of a kernel given as PTO-AS text or as a path."""
    if isinstance(kernel, os.PathLike) or ("\n" not in kernel and os.path.isfile(kernel)):
        path = os.fspath(kernel)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    return kernel, "<kernel>"


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def _scalar_text(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, str):
        return v
    raise TypeError(f"cannot pass {type(v).__name__} as a scalar argument")


def check(kernel: Kernel, target: Optional[str] = None) -> list[str]:
    """Parses, verifies and lowers a kernel; raises NpusimError with the diagnostics on errors.

    Returns warnings (ops ``run`` cannot execute yet) as rendered text.
    """
    src, name = _source(kernel)
    return _native.pto_check(src, name, target)


def run(
    kernel: Kernel,
    args: Mapping[str, object],
    func: Optional[str] = None,
    target: Optional[str] = None,
    blocks: int = 1,
    max_steps: int = 100_000_000,
    policy: Optional[str] = None,
) -> dict[str, np.ndarray]:
    """Runs ``func`` (default: the kernel's entry) for ``blocks`` blocks.

    ``target`` is a chip name from ``npusim chips`` (``"a2a3"``, ``"Ascend910B"``, ``"a5"``...)
    and overrides the module's ``pto.target_arch``. ``policy`` is a numeric policy of
    ``npusim run --policy``: ``"hw"`` (the chip's own numerics, the default) or
    ``"pto-cpu-sim"`` (the public pto-isa CPU simulator's summation order).
    """
    src, name = _source(kernel)
    native_args = {}
    shapes = {}
    for k, v in args.items():
        k = k.lstrip("%")
        if isinstance(v, np.ndarray):
            native_args[k] = _npy_bytes(v)
            shapes[k] = v.shape
        else:
            native_args[k] = _scalar_text(v)
    out = _native.pto_run(src, name, native_args, func, target, blocks, max_steps, policy)
    return {k: np.load(io.BytesIO(b), allow_pickle=False) for k, b in out.items()}
