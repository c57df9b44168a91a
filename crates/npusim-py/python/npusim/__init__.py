"""npusim: a bit-exact functional simulator of AI-accelerator instruction sets.

Families reachable from Python:

* ``npusim.tik`` (also ``npusim.tbe.tik``) -- TIK kernels, recorded once and run by npusim.
* ``npusim.pto`` -- PTO-AS kernels (the PTOAS MLIR dialect) on numpy arrays.
* ``npusim.tpu`` -- the Sophgo TPU kernel API (HAU, GDMA, BDC, local memory) under the vendor's
  names, over simulated global and local memory.

Every simulator error is raised as :class:`NpusimError`, whose message is the typed error's
text (instruction, parameter, rule and value; for kernels, rustc-style against the source).
"""

from ._native import NpusimError, __version__
from . import pto, tik, tpu

__all__ = ["NpusimError", "__version__", "pto", "tik", "tpu"]
