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


PRINT_KERNEL = r"""
module {
  func.func @k(%x: !pto.ptr<f32>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %b = pto.get_block_idx
    pto.print ins("block = %d", %b : i64)
    pto.print ins("s = %+08.3f", %s : f32)
    pto.tprint ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}
"""
PRINT_X = np.array([[1.0, -2.5, 0.125, 3.0, 4.0, 5.0, 6.0, 1e6]], np.float32)


def _print_line(pat):
    return next(i for i, l in enumerate(PRINT_KERNEL.splitlines(), 1) if pat in l)


L_BLOCK = _print_line('ins("block = ')
L_S = _print_line('ins("s = ')
L_TILE = _print_line("pto.tprint")


def _expected_prints(file, blocks, s=1.5):
    """(cli line) of every print, from a plain model: printf for pto.print, the TPRINT tile
    layout (`%8.4f` per element) for pto.tprint, tagged `[block B file:line]`."""
    data = " ".join("%8.4f" % v for v in PRINT_X[0])
    tile = ("=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n"
            "  Shape: [1, 8], Valid Shape: [1, 8]\n" + data + "\n")
    out = []
    for b in range(blocks):
        out += [f"[block {b} {file}:{L_BLOCK}] {'block = %d' % b}\n",
                f"[block {b} {file}:{L_S}] {'s = %+08.3f' % s}\n",
                f"[block {b} {file}:{L_TILE}] {tile}"]
    return out


def test_kernel_prints_go_to_stdout_as_the_cli_tags_them(capsys, tmp_path):
    out = npusim.pto.run(PRINT_KERNEL, args={"x": PRINT_X, "s": 1.5}, blocks=2)
    assert np.array_equal(out["x"], PRINT_X)
    assert capsys.readouterr().out == "".join(_expected_prints("<kernel>", 2))
    # A path names the file in the tag, as `npusim run` does.
    k = tmp_path / "k.pto"
    k.write_text(PRINT_KERNEL)
    npusim.pto.run(k, args={"x": PRINT_X, "s": -0.25})
    assert capsys.readouterr().out == "".join(_expected_prints(str(k), 1, s=-0.25))


def test_on_print_receives_each_print_in_order_and_nothing_is_written(capsys):
    got = []
    npusim.pto.run(PRINT_KERNEL, args={"x": PRINT_X, "s": 1.5}, blocks=3, on_print=got.append)
    assert capsys.readouterr().out == ""
    assert [str(p) for p in got] == _expected_prints("<kernel>", 3)
    assert all(isinstance(p, npusim.pto.Print) for p in got)
    assert [p.block for p in got] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [p.line for p in got[:3]] == [L_BLOCK, L_S, L_TILE]
    assert got[0].text == "block = 0" and got[0].core is None and got[0].file == "<kernel>"
    with pytest.raises(TypeError, match="on_print must be callable"):
        npusim.pto.run(PRINT_KERNEL, args={"x": PRINT_X, "s": 1.5}, on_print="stdout")


def test_prints_made_before_a_failure_are_delivered_before_the_error():
    full = _expected_prints("<kernel>", 2)
    partial = set()
    for steps in range(1, 40):
        got = []
        try:
            npusim.pto.run(PRINT_KERNEL, args={"x": PRINT_X, "s": 1.5}, blocks=2,
                           max_steps=steps, on_print=got.append)
        except npusim.NpusimError as e:
            assert "step limit" in str(e)
            lines = [str(p) for p in got]
            assert lines == full[:len(lines)]
            assert [str(p) for p in got] == [t[4] for t in e.prints]
            partial.add(len(lines))
        else:
            assert [str(p) for p in got] == full
    # Some budgets stop the run between prints: 0 < n < 6 of them were shown.
    assert any(0 < n < len(full) for n in partial), partial
