"""npusim.tik: seed 000's two TIK examples (copied as the page prints them, only the import line
changed and a start_debug call appended) give the documented outputs; a kernel of our own with
for_range, if_scope, Scalars and several instructions matches numpy; errors name the line."""
import numpy as np
import pytest

import npusim
from npusim.tbe import tik


def test_seed000_example1_vec_cmpv_eq():
    tik_instance = tik.Tik()
    src0_gm = tik_instance.Tensor("float16", (128,), name="src0_gm", scope=tik.scope_gm)
    src1_gm = tik_instance.Tensor("float16", (128,), name="src1_gm", scope=tik.scope_gm)
    src0_ub = tik_instance.Tensor("float16", (128,), name="src0_ub", scope=tik.scope_ubuf)
    src1_ub = tik_instance.Tensor("float16", (128,), name="src1_ub", scope=tik.scope_ubuf)
    dst_gm = tik_instance.Tensor("uint16", (16,), name="dst_gm", scope=tik.scope_gm)
    dst_ub = tik_instance.Tensor("uint16", (16,), name="dst_ub", scope=tik.scope_ubuf)
    # Copy the user input to the source Unified Buffer.
    tik_instance.data_move(src0_ub, src0_gm, 0, 1, 8, 0, 0)
    tik_instance.data_move(src1_ub, src1_gm, 0, 1, 8, 0, 0)
    # Initialize dst_ub to all 5s.
    tik_instance.vector_dup(16, dst_ub, 5, 1, 1, 1)
    tik_instance.vec_cmpv_eq(dst_ub, src0_ub, src1_ub, 1, 8, 8)
    # Copy the compute result to the destination Global Memory.
    tik_instance.data_move(dst_gm, dst_ub, 0, 1, 1, 0, 0)

    tik_instance.BuildCCE(kernel_name="vec_cmpv_eq", inputs=[src0_gm, src1_gm], outputs=[dst_gm])
    # Appended: the page's inputs, src0 = 1..128, src1 = all 2.
    dst, = tik_instance.tikdb.start_debug(
        feed_dict={"src0_gm": np.arange(1, 129, dtype=np.float16),
                   "src1_gm": np.full(128, 2, np.float16)}, interactive=False)
    assert dst.tolist() == [2, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5]


def test_seed000_example2_vec_cmpv_gt():
    tik_instance = tik.Tik()
    dtype_size = {
        "int8": 1,
        "uint8": 1,
        "int16": 2,
        "uint16": 2,
        "float16": 2,
        "int32": 4,
        "uint32": 4,
        "float32": 4,
        "int64": 8,
    }
    src_shape = (2, 128)
    dst_shape = (16, )
    src_dtype = "float16"
    dst_dtype = "uint16"
    elements = 2 * 128

    repeat_times = 2
    src0_rep_stride = 8
    src1_rep_stride = 7
    src0_gm = tik_instance.Tensor(src_dtype, src_shape, name="src0_gm", scope=tik.scope_gm)
    src1_gm = tik_instance.Tensor(src_dtype, src_shape, name="src1_gm", scope=tik.scope_gm)
    dst_gm = tik_instance.Tensor(dst_dtype, dst_shape, name="dst_gm", scope=tik.scope_gm)
    src0_ub = tik_instance.Tensor(src_dtype, src_shape, name="src0_ub", scope=tik.scope_ubuf)
    src1_ub = tik_instance.Tensor(src_dtype, src_shape, name="src1_ub", scope=tik.scope_ubuf)
    dst_ub = tik_instance.Tensor(dst_dtype, dst_shape, name="dst_ub", scope=tik.scope_ubuf)
    nburst = 1
    burst = elements * dtype_size[src_dtype] // 32 // nburst
    dst_stride, src_stride = 0, 0
    tik_instance.data_move(src0_ub, src0_gm, 0, nburst, burst, src_stride, dst_stride)
    tik_instance.data_move(src1_ub, src1_gm, 0, nburst, burst, src_stride, dst_stride)
    tik_instance.vec_cmpv_gt(dst_ub, src0_ub, src1_ub, repeat_times, src0_rep_stride, src1_rep_stride)
    tik_instance.data_move(dst_gm, dst_ub, 0, nburst, 1, src_stride, dst_stride)
    tik_instance.BuildCCE(kernel_name="vec_cmpv_gt", inputs=[src0_gm, src1_gm], outputs=[dst_gm])
    # Appended: the page's inputs (both 0..255 as (2, 128)).
    x = np.arange(256, dtype=np.float16).reshape(2, 128)
    dst, = tik_instance.tikdb.start_debug(feed_dict={"src0_gm": x, "src1_gm": x.copy()},
                                          interactive=False)
    assert dst.tolist() == [0] * 8 + [65535] * 8


def leaky_relu_kernel(n, tile, alpha):
    """y = x if x > 0 else alpha * x over n f32 elements, tile by tile, with a tail tile
    handled by if_scope; counts tiles in a Scalar."""
    t = tik.Tik()
    x_gm = t.Tensor("float32", (n,), name="x_gm", scope=tik.scope_gm)
    y_gm = t.Tensor("float32", (n,), name="y_gm", scope=tik.scope_gm)
    cnt_gm = t.Tensor("float32", (8,), name="cnt_gm", scope=tik.scope_gm)
    x_ub = t.Tensor("float32", (tile,), name="x_ub", scope=tik.scope_ubuf)
    pos = t.Tensor("float32", (tile,), name="pos", scope=tik.scope_ubuf)
    neg = t.Tensor("float32", (tile,), name="neg", scope=tik.scope_ubuf)
    cnt_ub = t.Tensor("float32", (8,), name="cnt_ub", scope=tik.scope_ubuf)
    tiles = t.Scalar("int32", name="tiles", init_value=0)
    reps = tile // 64
    with t.for_range(0, n // tile) as i:
        t.data_move(x_ub, x_gm[i * tile], 0, 1, tile * 4 // 32, 0, 0)
        t.vec_relu(64, pos, x_ub, reps, 8, 8)
        t.vec_mins(64, neg, x_ub, 0.0, reps, 8, 8)
        t.vec_muls(64, neg, neg, alpha, reps, 8, 8)
        t.vec_add(64, pos, pos, neg, reps, 8, 8, 8)
        t.data_move(y_gm[i * tile], pos, 0, 1, tile * 4 // 32, 0, 0)
        tiles.set_as(tiles + 1)
    with t.if_scope(tiles > 3):
        t.vector_dup(8, cnt_ub, 1.0, 1, 1, 8)
    with t.else_scope():
        t.vector_dup(8, cnt_ub, -1.0, 1, 1, 8)
    t.data_move(cnt_gm, cnt_ub, 0, 1, 1, 0, 0)
    t.BuildCCE(kernel_name="leaky_relu", inputs=[x_gm], outputs=[y_gm, cnt_gm])
    return t


def test_tiled_leaky_relu_matches_numpy():
    n, tile, alpha = 8192, 1024, 0.125
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(np.float32)
    x[:4] = [0.0, -0.0, np.inf, -np.inf]
    t = leaky_relu_kernel(n, tile, alpha)
    y, cnt = t.tikdb.start_debug(feed_dict={"x_gm": x}, interactive=False)
    # relu(x) + alpha * min(x, 0), each step rounded to f32 as the vector unit does.
    want = np.maximum(x, np.float32(0)) + np.minimum(x, np.float32(0)) * np.float32(alpha)
    want = want.astype(np.float32)
    # Bit for bit except the sign of zero results, which depends on how relu/min treat -0.0
    # (numpy's maximum(-0.0, 0.0) is not a model of the vector unit's).
    nz = want != 0
    assert np.array_equal(y[nz].view(np.uint32), want[nz].view(np.uint32))
    assert np.array_equal(y, want)
    assert cnt.tolist() == [1.0] * 8   # 8 tiles > 3: the then-branch ran


def test_errors_name_the_line_instruction_and_rule():
    t = tik.Tik()
    a = t.Tensor("float16", (128,), name="a", scope=tik.scope_ubuf)
    g = t.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
    t.data_move(a, g, 0, 1, 8, 0, 0)
    t.vec_add(128, a, a, a, 300, 8, 8, 8)  # repeat_times > 255
    t.BuildCCE(kernel_name="bad", inputs=[g], outputs=[g])
    with pytest.raises(npusim.NpusimError, match=r"line \d+: vec_add: .*repeat") as e:
        t.tikdb.start_debug(feed_dict={"g": np.zeros(128, np.float16)})
    assert "300" in str(e.value)
    with pytest.raises(npusim.NpusimError, match="no array for input"):
        t.tikdb.start_debug(feed_dict={})


def test_loops_stay_symbolic_and_are_bounded():
    t = tik.Tik()
    g = t.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
    a = t.Tensor("float16", (128,), name="a", scope=tik.scope_ubuf)
    with t.for_range(0, 10**12):
        t.vec_adds(128, a, a, 1.0, 1, 8, 8)
    t.BuildCCE(kernel_name="long", inputs=[g], outputs=[g])
    assert len(t._root) == 1 and len(t._root[0]["body"]) == 1
    with pytest.raises(npusim.NpusimError, match="step limit"):
        t.tikdb.start_debug(feed_dict={"g": np.zeros(128, np.float16)}, max_steps=1000)


def test_instruction_reuse_follows_changing_scalars_and_offsets():
    t = tik.Tik()
    g = t.Tensor("float32", (128,), name="g", scope=tik.scope_gm)
    a = t.Tensor("float32", (128,), name="a", scope=tik.scope_ubuf)
    s = t.Scalar("float32", name="s", init_value=0.0)
    t.data_move(a, g, 0, 1, 16, 0, 0)
    with t.for_range(0, 4) as i:
        s.set_as(i + 1)
        t.vec_adds(64, a, a, s, 2, 8, 8)       # a += 1, 2, 3, 4: the scalar changes
        t.vec_adds(8, a[i * 8], a[i * 8], 100.0, 1, 8, 8)  # one block, at a moving offset
    t.data_move(g, a, 0, 1, 16, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
    out, = t.tikdb.start_debug(feed_dict={"g": np.zeros(128, np.float32)})
    want = np.full(128, 10.0, np.float32)
    want[:32] += 100.0
    assert np.array_equal(out, want)


def test_instruction_variants_come_back_with_their_parameters():
    # The offsets alternate between two tiles: each iteration must use the instruction built
    # for its own tile (a wrong reuse would pile all six adds on one half). Run twice: the
    # second run reuses the variants the first built and must give the same result.
    t = tik.Tik()
    g = t.Tensor("float16", (256,), name="g", scope=tik.scope_gm)
    a = t.Tensor("float16", (256,), name="a", scope=tik.scope_ubuf)
    b = t.Tensor("float16", (256,), name="b", scope=tik.scope_ubuf)
    t.data_move(a, g, 0, 1, 16, 0, 0)
    with t.for_range(0, 6) as i:
        off = (i % 2) * 128
        t.vec_add(128, b[off], b[off], a[off], 1, 8, 8, 8)
        with t.if_scope(i % 3 == 0):
            t.vec_muls(16, b[off + 16], b[off + 16], 2.0, 1, 8, 8)
    t.data_move(g, b, 0, 1, 16, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
    x = np.arange(256, dtype=np.float16) % 7
    want = np.zeros(256, np.float32)
    xf = x.astype(np.float32)
    for i in range(6):
        o = (i % 2) * 128
        want[o:o + 128] += xf[o:o + 128]
        if i % 3 == 0:
            want[o + 16:o + 32] *= 2
    for _ in range(2):
        out, = t.tikdb.start_debug(feed_dict={"g": x})
        np.testing.assert_array_equal(out, want.astype(np.float16))
