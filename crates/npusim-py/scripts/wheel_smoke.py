"""Checks an installed `npusim` wheel (run by the ignored test `wheel_installs_and_runs` in
tests/python.rs, from a fresh venv where `pip install <repo root>` put it): the package comes from
site-packages with the abi3 extension, and a PTO-AS kernel and a TIK kernel run and match numpy."""
import os, sys, sysconfig
import numpy as np
import npusim
from npusim.tbe import tik

site = sysconfig.get_paths()["purelib"]
assert os.path.realpath(npusim.__file__).startswith(os.path.realpath(site)), npusim.__file__
native = os.path.basename(npusim._native.__file__)
assert native.endswith(".abi3.so"), native

root = sys.argv[1]
x = np.random.default_rng(1).random((64, 256), dtype=np.float32)
y = np.random.default_rng(2).random((64, 256), dtype=np.float32)
out = npusim.pto.run(os.path.join(root, "examples/pto/vector_add.pto"),
                     args={"x": x, "y": y, "z": np.zeros_like(x), "n_rows": 64})
assert np.array_equal(out["z"], x + y)

t = tik.Tik()
g = t.Tensor("float16", (256,), name="g", scope=tik.scope_gm)
o = t.Tensor("float16", (256,), name="o", scope=tik.scope_gm)
a = t.Tensor("float16", (256,), name="a", scope=tik.scope_ubuf)
b = t.Tensor("float16", (256,), name="b", scope=tik.scope_ubuf)
t.data_move(a, g, 0, 1, 16, 0, 0)
with t.for_range(0, 2) as i:
    t.vec_mul(128, b[i * 128], a[i * 128], a[i * 128], 1, 8, 8, 8)
t.data_move(o, b, 0, 1, 16, 0, 0)
t.BuildCCE(kernel_name="sq", inputs=[g], outputs=[o])
v = (np.arange(256) % 17).astype(np.float16)
(r,) = t.tikdb.start_debug(feed_dict={"g": v}, interactive=False)
assert np.array_equal(r, v * v), r
print("wheel ok:", npusim.__file__, native)
