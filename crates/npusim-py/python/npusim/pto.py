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

What the kernel prints (``pto.tprint``, ``pto.print``) goes to ``sys.stdout`` in execution
order, each print tagged as ``npusim run`` tags it: ``[block 0 kernel.pto:12] text`` (the file
is the path given, or ``<kernel>`` for kernel text). Pass ``on_print=callable`` to receive
each print as a :class:`Print` instead (``on_print=lambda p: None`` silences them). The prints
a kernel made before it failed are delivered before ``NpusimError`` is raised.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Callable, Mapping, NamedTuple, Optional, Union

import numpy as np

from . import _native

Kernel = Union[str, "os.PathLike[str]"]


class Print(NamedTuple):
    """One print of a kernel (``pto.tprint`` / ``pto.print``)."""

    block: int
    """The block that printed."""
    core: Optional[str]
    """In a mixed cube + vector kernel, the core (``"cube"``, ``"vector 0"``...), else None."""
    file: str
    """The kernel's file name (``"<kernel>"`` for kernel text)."""
    line: int
    """The line of the print op in the kernel source (1-based)."""
    text: str
    """What the kernel printed (a tile print ends in a newline; a scalar print is printf's)."""
    cli_line: str
    """The print as ``npusim run`` shows it: ``[block B file:line] text``, newline-terminated."""

    def __str__(self) -> str:
        return self.cli_line


def _deliver(prints, file: str, on_print: Optional[Callable[[Print], object]]) -> None:
    for block, core, line, text, cli in prints:
        if on_print is None:
            sys.stdout.write(cli)
        else:
            on_print(Print(block, core, file, line, text, cli))


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
    on_print: Optional[Callable[[Print], object]] = None,
) -> dict[str, np.ndarray]:
    """Runs ``func`` (default: the kernel's entry) for ``blocks`` blocks.

    ``target`` is a chip name from ``npusim chips`` (``"a2a3"``, ``"Ascend910B"``, ``"a5"``...)
    and overrides the module's ``pto.target_arch``. ``policy`` is a numeric policy of
    ``npusim run --policy``: ``"hw"`` (the chip's own numerics, the default) or
    ``"pto-cpu-sim"`` (the public pto-isa CPU simulator's summation order).

    Kernel prints go to ``sys.stdout`` (``[block B file:line] text``), or to ``on_print``, which
    is called with each :class:`Print` in execution order (block after block).
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
    if on_print is not None and not callable(on_print):
        raise TypeError(f"on_print must be callable, not {type(on_print).__name__}")
    try:
        out, prints = _native.pto_run(
            src, name, native_args, func, target, blocks, max_steps, policy
        )
    except _native.NpusimError as e:
        _deliver(getattr(e, "prints", ()), name, on_print)
        raise
    _deliver(prints, name, on_print)
    return {k: np.load(io.BytesIO(b), allow_pickle=False) for k, b in out.items()}
