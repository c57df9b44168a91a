"""npusim.tik: TIK calls with parameters by keyword (TIK's parameter names), and
Scalar.set_as(tensor[i]) reading a tensor element at run time; results against numpy models."""
import numpy as np
import pytest

import npusim
from npusim.tbe import tik


def _io(t, dtype, n):
    g = t.Tensor(dtype, (n,), name="g", scope=tik.scope_gm)
    o = t.Tensor(dtype, (n,), name="o", scope=tik.scope_gm)
    a = t.Tensor(dtype, (n,), name="a", scope=tik.scope_ubuf)
    b = t.Tensor(dtype, (n,), name="b", scope=tik.scope_ubuf)
    return g, o, a, b


def test_vec_add_by_keyword_matches_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(256).astype(np.float16)
    t = tik.Tik()
    g, o, a, b = _io(t, "float16", 256)
    t.data_move(a, g, 0, 1, 16, 0, 0)
    t.vec_add(mask=128, dst=b, src0=a, src1=a, repeat_times=2, dst_rep_stride=8,
              src0_rep_stride=8, src1_rep_stride=8)
    t.data_move(o, b, 0, 1, 16, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[o])
    out, = t.tikdb.start_debug(feed_dict={"g": x}, interactive=False)
    assert np.array_equal(out.view(np.uint16), (x + x).view(np.uint16))


def test_mixed_positional_and_keyword_forms_match_numpy():
    # vec_muls with the strides by keyword, legacy vmuls and vadds with block strides by
    # keyword, vec_dup and vec_conv by keyword, each against its numpy model.
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, 128).astype(np.float32)
    t = tik.Tik()
    g, o, a, b = _io(t, "float32", 128)
    h = t.Tensor("float16", (128,), name="h", scope=tik.scope_ubuf)
    oh = t.Tensor("float16", (128,), name="oh", scope=tik.scope_gm)
    t.data_move(a, g, 0, 1, 16, 0, 0)
    t.vec_muls(64, b, a, 3.0, repeat_times=2, dst_rep_stride=8, src_rep_stride=8)
    t.vmuls(64, b, b, scalar=0.5, repeat_times=2, dst_blk_stride=1, src_blk_stride=1,
            dst_rep_stride=8, src_rep_stride=8, stride_unit=0)
    t.vadds(mask=64, dst=b, src=b, scalar=1.0, repeat_times=2, dst_blk_stride=1,
            src_blk_stride=1, dst_rep_stride=8, src_rep_stride=8)
    t.vec_conv(mask=64, round_mode="", dst=h, src=b, repeat_times=2, dst_rep_stride=4,
               src_rep_stride=8, deqscale=None)
    t.vec_dup(mask=64, dst=a, scalar=7.0, repeat_times=1, dst_rep_stride=8)
    t.data_move(o, a, 0, 1, 16, 0, 0)
    t.data_move(oh, h, 0, 1, 8, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[o, oh])
    out, outh = t.tikdb.start_debug(feed_dict={"g": x}, interactive=False)
    y = (x * np.float32(3.0)) * np.float32(0.5) + np.float32(1.0)
    want = x.copy()
    want[:64] = 7.0
    assert np.array_equal(out, want)
    assert np.array_equal(outh.view(np.uint16), y.astype(np.float16).view(np.uint16))


def test_compare_and_select_by_keyword():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(128).astype(np.float16)
    y = rng.standard_normal(128).astype(np.float16)
    t = tik.Tik()
    gx = t.Tensor("float16", (128,), name="gx", scope=tik.scope_gm)
    gy = t.Tensor("float16", (128,), name="gy", scope=tik.scope_gm)
    o = t.Tensor("float16", (128,), name="o", scope=tik.scope_gm)
    ux = t.Tensor("float16", (128,), name="ux", scope=tik.scope_ubuf)
    uy = t.Tensor("float16", (128,), name="uy", scope=tik.scope_ubuf)
    uo = t.Tensor("float16", (128,), name="uo", scope=tik.scope_ubuf)
    sel = t.Tensor("uint16", (16,), name="sel", scope=tik.scope_ubuf)
    t.data_move(ux, gx, 0, 1, 8, 0, 0)
    t.data_move(uy, gy, 0, 1, 8, 0, 0)
    t.vec_cmpv_gt(dst=sel, src0=ux, src1=uy, repeat_times=1, src0_rep_stride=8,
                  src1_rep_stride=8)
    t.vec_sel(mask=128, mode=0, dst=uo, sel=sel, src0=ux, src1=uy, repeat_times=1,
              dst_rep_stride=8, src0_rep_stride=8, src1_rep_stride=8)
    t.data_move(o, uo, 0, 1, 8, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[gx, gy], outputs=[o])
    out, = t.tikdb.start_debug(feed_dict={"gx": x, "gy": y}, interactive=False)
    assert np.array_equal(out.view(np.uint16), np.maximum(x, y).view(np.uint16))


@pytest.mark.parametrize("call, msg", [
    (lambda t, a, b: t.vec_add(128, b, a, a, 1, 8, 8, 8, src2_rep_stride=8), "unknown parameter"),
    (lambda t, a, b: t.vec_add(128, b, a, a, 1, 8, src0_rep_stride=8),
     "missing parameter src1_rep_stride"),
    (lambda t, a, b: t.vec_add(128, b, a, a, 1, 8, 8, 8, dst=b), "by position and by keyword"),
    (lambda t, a, b: t.vmuls(128, b, a, 2.0, 1, 1, 1, 8, 8, stride_unit=1), "stride_unit=1"),
    (lambda t, a, b: t.vec_muls(128, b, a, 2.0, 1, 8, 8, mask_mode="counter"), "mask_mode"),
    (lambda t, a, b: t.vmrgsort(dst=b, src_list=[a], element_count_list=[4],
                                if_exhausted_suspension=False, repeat_times=1), "by position"),
])
def test_bad_keywords_raise_type_errors_naming_the_parameter(call, msg):
    t = tik.Tik()
    a = t.Tensor("float16", (128,), name="a", scope=tik.scope_ubuf)
    b = t.Tensor("float16", (128,), name="b", scope=tik.scope_ubuf)
    with pytest.raises(TypeError, match=msg):
        call(t, a, b)


def test_keyword_names_cover_every_arity_the_native_side_checks():
    # For each shape's spelling, the name list has as many entries as the call takes: a
    # keyword call with every parameter compiles past the argument-count check.
    from npusim import _native
    for name, n in [("vec_add", 8), ("vadd", 11), ("vec_exp", 6), ("vexp", 8),
                    ("vec_conv", 7), ("vconv", 9), ("vec_muls", 7), ("vmuls", 9),
                    ("vec_dup", 5), ("vector_dup", 6), ("vec_sel", 10), ("vsel", 13),
                    ("vec_cmpv_eq", 6), ("vcmpv_eq", 8), ("vcmpvs_gt", 6),
                    ("vec_reduce_add", 6), ("vec_reduce_max", 7), ("vec_reduce_min", 7)]:
        names = _native.tik_param_names(name)
        assert names is not None and len(names) == n, (name, names)
        assert len(set(names)) == n
    assert _native.tik_param_names("vmrgsort") is None
    assert _native.tik_param_names("not_an_instruction") is None


def test_scalar_set_as_tensor_element_drives_a_loop():
    # Scalars read from tensor elements: a float scale from a UB element and an int count from
    # a GM element; the loop adds the scale to tile i for i < count. Model in numpy.
    rng = np.random.default_rng(4)
    x = rng.standard_normal(512).astype(np.float32)
    p = np.array([2.5, 0, 0, 0, 0, 0, 0, 0], np.float32)
    cnt = np.array([3, 0, 0, 0, 0, 0, 0, 0], np.int32)
    t = tik.Tik()
    gx = t.Tensor("float32", (512,), name="gx", scope=tik.scope_gm)
    gp = t.Tensor("float32", (8,), name="gp", scope=tik.scope_gm)
    gc = t.Tensor("int32", (8,), name="gc", scope=tik.scope_gm)
    o = t.Tensor("float32", (512,), name="o", scope=tik.scope_gm)
    ux = t.Tensor("float32", (512,), name="ux", scope=tik.scope_ubuf)
    up = t.Tensor("float32", (8,), name="up", scope=tik.scope_ubuf)
    scale = t.Scalar("float32", name="scale")
    n = t.Scalar("int32", name="n")
    t.data_move(ux, gx, 0, 1, 64, 0, 0)
    t.data_move(up, gp, 0, 1, 1, 0, 0)
    scale.set_as(up[0])
    n.set_as(gc[0])
    with t.for_range(0, 8) as i:
        with t.if_scope(i < n):
            t.vec_adds(64, ux[i * 64], ux[i * 64], scale, 1, 8, 8)
    t.data_move(o, ux, 0, 1, 64, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[gx, gp, gc], outputs=[o])
    out, = t.tikdb.start_debug(feed_dict={"gx": x, "gp": p, "gc": cnt}, interactive=False)
    want = x.copy()
    want[:192] += np.float32(2.5)
    assert np.array_equal(out, want)


def test_set_as_with_src_offset_and_negative_int():
    x = np.arange(-8, 8, dtype=np.int16)
    t = tik.Tik()
    g = t.Tensor("int16", (16,), name="g", scope=tik.scope_gm)
    o = t.Tensor("int16", (16,), name="o", scope=tik.scope_gm)
    u = t.Tensor("int16", (16,), name="u", scope=tik.scope_ubuf)
    s = t.Scalar("int16", name="s")
    t.data_move(u, g, 0, 1, 1, 0, 0)
    s.set_as(u, src_offset=1)             # -7
    t.vec_dup(16, u, s, 1, 8)
    t.data_move(o, u, 0, 1, 1, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[o])
    out, = t.tikdb.start_debug(feed_dict={"g": x}, interactive=False)
    assert out.tolist() == [-7] * 16


def test_set_as_outside_the_tensor_is_an_error_naming_the_line():
    t = tik.Tik()
    g = t.Tensor("float32", (8,), name="g", scope=tik.scope_gm)
    s = t.Scalar("float32", name="s")
    with t.for_range(0, 2) as i:
        s.set_as(g[i * 8])
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
    with pytest.raises(npusim.NpusimError, match=r"line \d+: set_as: element 8 is outside tensor `g`"):
        t.tikdb.start_debug(feed_dict={"g": np.zeros(8, np.float32)})


def test_every_vector_instruction_is_reachable_under_both_tik_names():
    """Every row of the Ascend instruction table (npusim-ascend `isa.rs`) except the moves is a
    TIK call under its ``vec_*`` name and its legacy name: recorded through ``Tik.<name>`` and
    compiled by the native side, which checks its argument count (so the name resolved to the
    row; an unknown name fails with "not an instruction")."""
    from npusim import _native
    rows = _native.tik_instructions()
    assert len(rows) >= 60, len(rows)
    seen = set()
    for tik_name, legacy, shape in rows:
        for name in {tik_name, legacy}:
            t = tik.Tik()
            g = t.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
            getattr(t, name)()  # zero arguments: every instruction takes some
            t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
            with pytest.raises(npusim.NpusimError, match=r"takes \d+ arguments, got 0") as e:
                t.tikdb.start_debug(feed_dict={"g": np.zeros(128, np.float16)})
            assert name in str(e.value), (name, str(e.value))
            seen.add(name)
    assert {"vec_add", "vadd", "vec_conv", "vconv", "vcmpv_eq", "vsel", "vcadd", "vnchwconv",
            "vec_cpadd", "vmrgsort4", "vector_dup"} <= seen
    t = tik.Tik()
    t.vec_no_such_thing()
    g = t.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
    with pytest.raises(npusim.NpusimError, match="not an instruction npusim.tik knows"):
        t.tikdb.start_debug(feed_dict={"g": np.zeros(128, np.float16)})
