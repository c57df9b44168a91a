"""npusim.pto on every examples/pto kernel, checked by the example's own numpy reference script
(``NAME_ref.py gen`` writes the inputs, ``NAME_ref.py check`` applies its tolerance), plus
errors and argument forms."""
import subprocess
import sys

import numpy as np
import pytest

import npusim

# example: (scalar arguments, output arguments in the order `check` takes them, blocks)
EXAMPLES = {
    "vector_add": ({"n_rows": 64}, ["z"], 1),
    "row_softmax": ({"n_rows": 32}, ["y"], 1),
    "rmsnorm": ({"n_rows": 32, "eps": 1e-6}, ["y"], 1),
    "online_softmax_step": ({"scale": 0.125}, ["p", "m_new", "l_new", "o_out"], 1),
    "multicore_split": ({"n_rows": 64, "alpha": 1.5, "beta": -0.25}, ["y"], 3),
    "gemm_256x256x512": ({}, ["c"], 1),
    "attention_head": ({}, ["o"], 1),
    "mixed_matmul_relu": ({}, ["y"], 1),
}


def test_every_example_is_covered(root):
    kernels = {p.stem for p in (root / "examples/pto").glob("*.pto")}
    assert kernels == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_matches_its_numpy_reference(root, tmp_path, name):
    ex = root / "examples/pto"
    scalars, outs, blocks = EXAMPLES[name]
    subprocess.run([sys.executable, f"{name}_ref.py", "gen", str(tmp_path)], cwd=ex, check=True,
                   capture_output=True)
    args = {p.stem: np.load(p) for p in tmp_path.glob("*.npy")}
    args.update(scalars)
    got = npusim.pto.run(ex / f"{name}.pto", args=args, blocks=blocks)
    files = []
    for o in outs:
        f = tmp_path / f"{o}_npusim.npy"
        np.save(f, got[o])
        files.append(str(f))
    r = subprocess.run([sys.executable, f"{name}_ref.py", "check", str(tmp_path), *files],
                       cwd=ex, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_vector_add_is_exact_and_inputs_are_untouched(root):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 256), dtype=np.float32)
    y = rng.standard_normal((64, 256), dtype=np.float32)
    x0 = x.copy()
    out = npusim.pto.run(str(root / "examples/pto/vector_add.pto"),
                         args={"x": x, "y": y, "z": np.zeros_like(x), "%n_rows": 64})
    assert out["z"].dtype == np.float32 and out["z"].shape == (64, 256)
    assert np.array_equal(out["z"].view(np.uint32), (x + y).view(np.uint32))
    assert np.array_equal(out["x"], x0) and np.array_equal(x, x0)


def test_kernel_as_text_and_check(root):
    src = (root / "examples/pto/vector_add.pto").read_text()
    assert npusim.pto.check(src) == []
    x = np.ones((16, 256), np.float32)
    out = npusim.pto.run(src, args={"x": x, "y": x, "z": x, "n_rows": 16}, target="Ascend910B")
    assert np.all(out["z"] == 2.0)


def test_errors_carry_the_typed_error_text(root):
    k = root / "examples/pto/vector_add.pto"
    x = np.ones((64, 256), np.float32)
    with pytest.raises(npusim.NpusimError, match="element type mismatch"):
        npusim.pto.run(k, args={"x": x.astype(np.float16), "y": x, "z": x, "n_rows": 64})
    with pytest.raises(npusim.NpusimError, match="missing argument for parameter `%n_rows`"):
        npusim.pto.run(k, args={"x": x, "y": x, "z": x})
    with pytest.raises(npusim.NpusimError, match="overflows f32"):
        npusim.pto.run(root / "examples/pto/multicore_split.pto",
                       args={"x": x, "y": x, "n_rows": 64, "alpha": "1e39", "beta": 0.0})
    with pytest.raises(npusim.NpusimError, match="unknown chip"):
        npusim.pto.run(k, args={}, target="nosuchchip")
    with pytest.raises(npusim.NpusimError, match=r"<kernel>:\d+:\d+"):
        npusim.pto.check(k.read_text().replace("pto.tadd", "pto.tnosuchop"))
    with pytest.raises(npusim.NpusimError, match="step limit"):
        npusim.pto.run(k, args={"x": x, "y": x, "z": x, "n_rows": 64}, max_steps=5)


def test_policy_pto_cpu_sim_reproduces_the_cpu_simulator(root):
    """``policy="pto-cpu-sim"`` gives the pto-isa CPU simulator's row softmax bit for bit (its
    output saved as numbers in golden/pto/pto-cpu-sim); the default ``hw`` does not."""
    g = root / "golden/pto/pto-cpu-sim"
    x = np.load(g / "row_softmax_x.npy")
    peer = np.load(g / "row_softmax_peer_y.npy").view(np.uint32)
    kernel = root / "examples/pto/bench/row_softmax_blocks.pto"

    def run(**kw):
        y = np.zeros((32, 1024), np.float32)
        out = npusim.pto.run(kernel, args={"x": x, "y": y, "n_rows": 32}, blocks=8, **kw)
        return out["y"].view(np.uint32)

    assert np.array_equal(run(policy="pto-cpu-sim"), peer)
    assert (run() != peer).sum() > 1000
    assert np.array_equal(run(policy="hw"), run())
    with pytest.raises(npusim.NpusimError, match="unknown numeric policy `fast`"):
        run(policy="fast")
