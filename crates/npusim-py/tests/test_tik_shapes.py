"""npusim.tik: every non-element-wise instruction shape of the Ascend table under its TIK name
(compare with a scalar, CMPMASK, select, reductions, gather, transposes, broadcast, index,
sort32, merge sorts, region proposals, the NCHW address-list transpose), each against a numpy
model of the documented semantics written here. Values are chosen so that every sum is exact
in the element type (so the model does not depend on the hardware's summation order)."""
import numpy as np
import pytest

import npusim
from npusim.tbe import tik

RNG = np.random.default_rng(14)


def run(body, ins, outs, soc="Ascend910B"):
    """Declares a GM and a UB tensor per input (moved in) and a UB and a GM tensor per output
    (moved out after `body(t, ub)`), runs, and returns the outputs in order."""
    t = tik.Tik(soc=soc)
    ub, gm_in, gm_out = {}, [], []
    for name, arr in ins.items():
        g = t.Tensor(arr.dtype.name, arr.shape, name=name + "_gm", scope=tik.scope_gm)
        u = t.Tensor(arr.dtype.name, arr.shape, name=name, scope=tik.scope_ubuf)
        t.data_move(u, g, 0, 1, arr.nbytes // 32, 0, 0)
        ub[name] = u
        gm_in.append(g)
    for name, (dt, shape) in outs.items():
        ub[name] = t.Tensor(dt, shape, name=name, scope=tik.scope_ubuf)
    body(t, ub)
    for name, (dt, shape) in outs.items():
        g = t.Tensor(dt, shape, name=name + "_gm", scope=tik.scope_gm)
        nbytes = np.dtype(dt).itemsize * int(np.prod(shape))
        t.data_move(g, ub[name], 0, 1, nbytes // 32, 0, 0)
        gm_out.append(g)
    t.BuildCCE(kernel_name="k", inputs=gm_in, outputs=gm_out)
    return t.tikdb.start_debug(feed_dict={n + "_gm": a for n, a in ins.items()}, interactive=False)


def small_ints(shape, lo=-8, hi=8, dtype=np.float16):
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def bits_u16(mask_bool, n_u16):
    """Packs one bit per lane, lane 0 in bit 0, into n_u16 uint16 words."""
    b = np.packbits(mask_bool.astype(np.uint8), bitorder="little")
    out = np.zeros(n_u16 * 2, np.uint8)
    out[: b.size] = b
    return out.view(np.uint16)


def test_vcmpvs_gt_packs_one_bit_per_lane():
    x = small_ints(128)
    dst, = run(lambda t, u: t.vcmpvs_gt(u["dst"], u["x"], 0.5, 1, 1, 8),
               {"x": x}, {"dst": ("uint16", (16,))})
    np.testing.assert_array_equal(dst, bits_u16(x > 0.5, 16))


def test_vcmp_lt_into_cmpmask_and_back():
    a, b = small_ints(128), small_ints(128)

    def body(t, u):
        t.vcmp_lt(128, u["a"], u["b"], 1, 1)
        t.mov_cmpmask_to_tensor(u["dst"])

    dst, = run(body, {"a": a, "b": b}, {"dst": ("uint16", (16,))})
    np.testing.assert_array_equal(dst, bits_u16(a < b, 16))


def test_mov_tensor_to_cmpmask_round_trips():
    m = RNG.integers(0, 2**16, size=16, dtype=np.uint16)

    def body(t, u):
        t.mov_tensor_to_cmpmask(u["m"])
        t.mov_cmpmask_to_tensor(u["dst"])

    dst, = run(body, {"m": m}, {"dst": ("uint16", (16,))})
    np.testing.assert_array_equal(dst[:8], m[:8])


@pytest.mark.parametrize("legacy", [False, True])
def test_vec_sel_tensor_and_scalar_modes(legacy):
    s0, s1 = small_ints(256), small_ints(256)
    lanes = RNG.integers(0, 2, size=256).astype(bool)
    sel = bits_u16(lanes, 16)

    def body(t, u):
        if legacy:
            t.vsel(128, 2, u["d2"], u["sel"], u["s0"], u["s1"], 2, 1, 1, 1, 8, 8, 8)
        else:
            t.vec_sel(128, 2, u["d2"], u["sel"], u["s0"], u["s1"], 2, 8, 8, 8)
        t.vec_sel(128, 1, u["d1"], u["sel"], u["s0"], 3.0, 2, 8, 8, 8)

    d2, d1 = run(body, {"s0": s0, "s1": s1, "sel": sel},
                 {"d2": ("float16", (256,)), "d1": ("float16", (256,))})
    np.testing.assert_array_equal(d2, np.where(lanes, s0, s1))
    np.testing.assert_array_equal(d1, np.where(lanes, s0, np.float16(3.0)))


def test_vcadd_whole_reduce_sum_per_repeat():
    x = small_ints((2, 128))
    dst, = run(lambda t, u: t.vcadd(128, u["dst"], u["x"], 2, 1, 1, 8),
               {"x": x}, {"dst": ("float16", (16,))})
    want = np.zeros(16, np.float16)
    want[:2] = x.astype(np.float32).sum(axis=1)
    np.testing.assert_array_equal(dst, want)


@pytest.mark.parametrize("name,pick", [("vcmax", np.argmax), ("vcmin", np.argmin)])
def test_vcmax_vcmin_write_value_and_index(name, pick):
    x = np.stack([RNG.permutation(128), RNG.permutation(128)]).astype(np.float16) - 64
    dst, = run(lambda t, u: getattr(t, name)(128, u["dst"], u["x"], 2, 1, 1, 8),
               {"x": x}, {"dst": ("float16", (16,))})
    for r in range(2):
        i = pick(x[r])
        assert dst[2 * r] == x[r, i]
        assert dst.view(np.uint16)[2 * r + 1] == i


def test_vcgadd_block_reduce_sum():
    x = small_ints(256)
    dst, = run(lambda t, u: t.vcgadd(128, u["dst"], u["x"], 2, 1, 1, 8),
               {"x": x}, {"dst": ("float16", (16,))})
    np.testing.assert_array_equal(dst, x.astype(np.float32).reshape(16, 16).sum(axis=1))


@pytest.mark.parametrize("name,f", [("vcgmax", np.max), ("vcgmin", np.min)])
def test_vcgmax_vcgmin_per_block(name, f):
    x = small_ints(256)
    dst, = run(lambda t, u: getattr(t, name)(128, u["dst"], u["x"], 2, 1, 1, 8),
               {"x": x}, {"dst": ("float16", (16,))})
    np.testing.assert_array_equal(dst, f(x.reshape(16, 16), axis=1))


@pytest.mark.parametrize("legacy", [False, True])
def test_vec_cpadd_pair_sums(legacy):
    x = small_ints(128)

    def body(t, u):
        if legacy:
            t.vcpadd(128, u["dst"], u["x"], 1, 1, 1, 8)
        else:
            t.vec_cpadd(128, u["dst"], u["x"], 1, 1, 8)

    dst, = run(body, {"x": x}, {"dst": ("float16", (64,))})
    np.testing.assert_array_equal(dst, x[0::2] + x[1::2])


def test_vec_reduce_add_max_min_whole_tensor():
    x = small_ints(256, 0, 4)
    y = (RNG.permutation(256).astype(np.float16) - 100)

    def body(t, u):
        t.vec_reduce_add(128, u["s"], u["x"], u["w"], 2, 8)
        t.vec_reduce_max(128, u["mx"], u["y"], u["w"], 2, 8, cal_index=True)
        t.vec_reduce_min(128, u["mn"], u["y"], u["w"], 2, 8, True)

    s, mx, mn, _ = run(body, {"x": x, "y": y},
                       {"s": ("float16", (16,)), "mx": ("float16", (16,)),
                        "mn": ("float16", (16,)), "w": ("float16", (256,))})
    assert s[0] == x.astype(np.float32).sum()
    assert mx[0] == y.max() and mx.view(np.uint16)[1] == np.argmax(y)
    assert mn[0] == y.min() and mn.view(np.uint16)[1] == np.argmin(y)


def reduce_model(vals, lanes, repeat, stride_elems, bits, is_max):
    """The plain model of vec_reduce_max/min: the active elements in repeat order, each with
    its index, the element's offset r * src_rep_stride * (32 / dtype size) + e (TIK's
    offset_num_per_rep); the best value (first NaN wins), the first in repeat order on ties."""
    elems = [(vals[r * stride_elems + e], r * stride_elems + e)
             for r in range(repeat) for e in range(lanes) if bits >> e & 1]
    nan = [p for p in elems if np.isnan(p[0])]
    if nan:
        return nan[0]
    best = elems[0]
    for v, i in elems[1:]:
        if (v > best[0]) if is_max else (v < best[0]):
            best = (v, i)
    return best


@pytest.mark.parametrize("dtype,lanes,work", [("float16", 128, 162), ("float32", 64, 146)])
def test_vec_reduce_max_min_cal_index_page_call(dtype, lanes, work):
    # The TIK page's call vec_reduce_max(128, dst, src, work_tensor, 65, 8, cal_index=True) on
    # a (65, 128) float16 src with its 162-element work_tensor (float32: (65, 64), mask 64, 146).
    x = (RNG.integers(0, 3000, size=65 * lanes) / 10 - 150).astype(dtype)
    itype = np.uint16 if dtype == "float16" else np.uint32

    def body(t, u):
        t.vec_reduce_max(lanes, u["mx"], u["x"], u["w"], 65, 8, cal_index=True)
        t.vec_reduce_min(lanes, u["mn"], u["x"], u["w"], 65, 8, cal_index=True)

    mx, mn, _ = run(body, {"x": x}, {"mx": (dtype, (16,)), "mn": (dtype, (16,)),
                                     "w": (dtype, (work,))})
    for out, is_max in [(mx, True), (mn, False)]:
        v, i = reduce_model(x, lanes, 65, lanes, (1 << lanes) - 1, is_max)
        assert out[0] == v and out.view(itype)[1] == i


def test_vec_reduce_max_cal_index_needs_the_pages_work_tensor():
    x = np.ones(65 * 128, np.float16)
    with pytest.raises(npusim.NpusimError, match="work_tensor"):
        run(lambda t, u: t.vec_reduce_max(128, u["mx"], u["x"], u["w"], 65, 8, cal_index=True),
            {"x": x}, {"mx": ("float16", (16,)), "w": ("float16", (161,))})
    with pytest.raises(npusim.NpusimError, match="repeat_times"):
        run(lambda t, u: t.vec_reduce_max(128, u["mx"], u["x"], u["w"], 512, 0, cal_index=True),
            {"x": x}, {"mx": ("float16", (16,)), "w": ("float16", (2048,))})


@pytest.mark.parametrize("how", ["default", "keyword", "position"])
def test_vec_reduce_max_without_cal_index_writes_the_value_only(how):
    # cal_index defaults to False: dst = [value]; dst[1] keeps what was moved in.
    x = (RNG.permutation(256).astype(np.float16) - 100)
    init = np.full(16, 7, np.float16)

    def body(t, u):
        if how == "default":
            t.vec_reduce_max(128, u["d"], u["x"], u["w"], 2, 8)
        elif how == "keyword":
            t.vec_reduce_max(mask=128, dst=u["d"], src=u["x"], work_tensor=u["w"],
                             repeat_times=2, src_rep_stride=8, cal_index=False)
        else:
            t.vec_reduce_max(128, u["d"], u["x"], u["w"], 2, 8, False)

    d = run_inout(body, {"x": x, "w": np.zeros(16, np.float16)}, "d", init)
    assert d[0] == x.max()
    np.testing.assert_array_equal(d[1:], init[1:])


def test_vec_reduce_min_bitwise_mask_and_stride():
    # [mask_h, mask_l] = [0, 0b0101...]: the even lanes of the low 64; 3 repeats, src_rep_stride
    # 4 blocks (64 halves) so the repeats overlap; the index is the element's offset,
    # r * 64 + lane (TIK's offset_num_per_rep = 32 // 2 * 4), not r * 128 + lane.
    x = RNG.permutation(3 * 64 + 128).astype(np.float16) - 150
    # The minimum at repeat 2, lane 10: index 2 * 64 + 10 = 138 (r * 128 + lane would say 266).
    x[2 * 64 + 10] = -1000
    bits = int("01" * 32, 2)

    def body(t, u):
        t.vec_reduce_min([0, bits], u["d"], u["x"], u["w"], 3, 4, cal_index=True)

    d = run_inout(body, {"x": x, "w": np.zeros(32, np.float16)}, "d", np.zeros(16, np.float16))
    v, i = reduce_model(x, 128, 3, 64, bits, False)
    assert (v, i) == (-1000, 138)
    assert d[0] == v and d.view(np.uint16)[1] == i


@pytest.mark.parametrize("pattern,sl", [(1, slice(0, None, 2)), (2, slice(1, None, 2)),
                                        (3, slice(0, None, 4)), (6, slice(3, None, 4)),
                                        (7, slice(None))])
def test_vreduce_builtin_patterns(pattern, sl):
    x = small_ints(128)
    dst, = run(lambda t, u: t.vreduce(128, u["dst"], u["x"], pattern, 1, 1, 8, 0),
               {"x": x}, {"dst": ("float16", (128,))})
    kept = x[sl]
    np.testing.assert_array_equal(dst[: kept.size], kept)


def test_vgather_by_byte_offsets():
    src = small_ints(128)
    perm = RNG.permutation(128)
    offs = (perm * 2).astype(np.uint32)
    dst, = run(lambda t, u: t.vgather(u["dst"], u["src"], u["off"], 0, 128),
               {"src": src, "off": offs}, {"dst": ("float16", (128,))})
    np.testing.assert_array_equal(dst, src[perm])


def test_vgatherb_page_example_reverses_blocks():
    # Gatherb(ISASI).md: offsets [224 .. 0] (bytes) over uint16 [0 .. 127], one repeat, block
    # stride 1, repeat stride 8: src's eight 32-byte blocks in reverse order.
    x = np.arange(128, dtype=np.uint16)
    off = np.array([224, 192, 160, 128, 96, 64, 32, 0], np.uint32)
    dst, = run(lambda t, u: t.vgatherb(u["dst"], u["x"], u["off"], 1, 1, 8),
               {"x": x, "off": off}, {"dst": ("uint16", (128,))})
    np.testing.assert_array_equal(dst, x.reshape(8, 16)[::-1].ravel())


def test_vgatherb_repeats_and_strides_match_numpy():
    # Two repeats, eight random source blocks each, destination block stride 2 and repeat
    # stride 16 blocks: block j of repeat i lands at block 16 i + 2 j; the gaps keep their
    # values (the output starts as zeros moved in).
    x = RNG.integers(0, 2**16, size=256).astype(np.uint16)
    blocks = RNG.integers(0, 16, size=16)
    off = (blocks * 32).astype(np.uint32)
    zeros = np.zeros(512, np.uint16)

    def body(t, u):
        t.vgatherb(u["z"], u["x"], u["off"], 2, 2, 16)

    want = zeros.copy().reshape(32, 16)
    src = x.reshape(16, 16)
    for i in range(2):
        for j in range(8):
            want[16 * i + 2 * j] = src[blocks[8 * i + j]]
    got = run_inout(body, {"x": x, "off": off}, "z", zeros)
    np.testing.assert_array_equal(got, want.ravel())


def test_vgatherb_checks_its_offsets():
    x = np.arange(128, dtype=np.uint16)
    # An offset that is not a multiple of 32 bytes.
    off = np.array([0, 32, 64, 96, 128, 160, 192, 17], np.uint32)
    with pytest.raises(npusim.NpusimError, match="vgatherb"):
        run(lambda t, u: t.vgatherb(u["dst"], u["x"], u["off"], 1, 1, 8),
            {"x": x, "off": off}, {"dst": ("uint16", (128,))})
    # A block past the end of src.
    off = np.array([0, 32, 64, 96, 128, 160, 192, 256], np.uint32)
    with pytest.raises(npusim.NpusimError, match="vgatherb"):
        run(lambda t, u: t.vgatherb(u["dst"], u["x"], u["off"], 1, 1, 8),
            {"x": x, "off": off}, {"dst": ("uint16", (128,))})


def run_inout(body, ins, name, init):
    """Like `run`, with one more tensor `name` moved in from `init` and moved out after the
    body: the instruction's destination keeps the values it does not write."""
    t = tik.Tik(soc="Ascend910B")
    ub, gm_in = {}, []
    for n, arr in list(ins.items()) + [(name, init)]:
        g = t.Tensor(arr.dtype.name, arr.shape, name=n + "_gm", scope=tik.scope_gm)
        u = t.Tensor(arr.dtype.name, arr.shape, name=n, scope=tik.scope_ubuf)
        t.data_move(u, g, 0, 1, arr.nbytes // 32, 0, 0)
        ub[n] = u
        gm_in.append(g)
    body(t, ub)
    o = t.Tensor(init.dtype.name, init.shape, name=name + "_out", scope=tik.scope_gm)
    t.data_move(o, ub[name], 0, 1, init.nbytes // 32, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=gm_in, outputs=[o])
    feed = {n + "_gm": a for n, a in list(ins.items()) + [(name, init)]}
    out, = t.tikdb.start_debug(feed_dict=feed, interactive=False)
    return out


def test_vec_trans_and_vtranspose_16x16():
    x = small_ints((2, 256), -100, 100)

    def body(t, u):
        t.vec_trans(u["d"], u["x"], 2, 1, 1)
        t.vtranspose(u["v"], u["x"])

    d, v = run(body, {"x": x}, {"d": ("float16", (2, 256)), "v": ("float16", (256,))})
    for r in range(2):
        np.testing.assert_array_equal(d[r], x[r].reshape(16, 16).T.ravel())
    np.testing.assert_array_equal(v, x[0].reshape(16, 16).T.ravel())


def test_vbcb_fills_a_block_per_element():
    x = small_ints(16)
    dst, = run(lambda t, u: t.vbcb(u["dst"], u["x"], 2, 1, 8),
               {"x": x}, {"dst": ("float16", (256,))})
    np.testing.assert_array_equal(dst, np.repeat(x, 16))


def test_vci_counts_from_first_value():
    dst, = run(lambda t, u: t.vci(u["dst"], 5, 64), {}, {"dst": ("int32", (64,))})
    np.testing.assert_array_equal(dst, 5 + np.arange(64))


def entries(scores, idx):
    """(float32 score, uint32 index) 8-byte entries as a float32 array."""
    e = np.zeros((scores.size, 2), np.uint32)
    e[:, 0] = scores.astype(np.float32).view(np.uint32)
    e[:, 1] = idx
    return e.ravel().view(np.float32)


def test_vsort32_sorts_descending_with_indices():
    s = RNG.standard_normal(64).astype(np.float32)
    s[5] = s[9]  # a tie keeps source order
    idx = (np.arange(64) * 3).astype(np.uint32)
    dst, = run(lambda t, u: t.vsort32(u["dst"], u["s"], u["i"], 2),
               {"s": s, "i": idx}, {"dst": ("float32", (128,))})
    want = []
    for r in range(2):
        sl = slice(32 * r, 32 * r + 32)
        o = np.argsort(-s[sl], kind="stable")
        want.append(entries(s[sl][o], idx[sl][o]))
    np.testing.assert_array_equal(dst.view(np.uint32), np.concatenate(want).view(np.uint32))


@pytest.mark.parametrize("nlists", [2, 4])
def test_vmrgsort_merges_sorted_lists(nlists):
    lens = [32, 20, 32, 7][:nlists]
    lists = []
    for k, n in enumerate(lens):
        sc = np.sort(RNG.integers(-20, 20, size=n).astype(np.float32))[::-1]  # ties across lists
        lists.append((sc, (np.arange(n) + 100 * k).astype(np.uint32)))
    src = np.zeros(4 * 64, np.float32)
    for k, (sc, ix) in enumerate(lists):
        src[64 * k: 64 * k + 2 * len(sc)] = entries(sc, ix)

    def body(t, u):
        t.vmrgsort(u["dst"], [u["src"][64 * k] for k in range(nlists)], lens, False, 1)

    dst, = run(body, {"src": src}, {"dst": ("float32", (256,))})
    sc = np.concatenate([s for s, _ in lists])
    ix = np.concatenate([i for _, i in lists])
    o = np.argsort(-sc, kind="stable")  # equal scores: the lower-numbered list first
    n = sum(lens)
    np.testing.assert_array_equal(dst.view(np.uint32)[: 2 * n], entries(sc[o], ix[o]).view(np.uint32))


def test_vconcat_vextract_move_one_proposal_field():
    flat = small_ints(32)
    props = small_ints((16, 8))

    def body(t, u):
        t.vconcat(u["p"], u["flat"], 1, 4)  # into the score field of 16 zero proposals
        t.vextract(u["e"], u["props"], 1, 2)  # the x2 field out of 16 proposals

    p, e = run(body, {"flat": flat, "props": props},
               {"p": ("float16", (16, 8)), "e": ("float16", (32,))}, soc="Ascend310P")
    want = np.zeros((16, 8), np.float16)
    want[:, 4] = flat[:16]
    np.testing.assert_array_equal(p, want)
    np.testing.assert_array_equal(e[:16], props[:, 2])


def test_vrpsort16_sorts_proposals_by_score():
    props = small_ints((32, 8), -50, 50)
    props[:, 4] = np.concatenate([RNG.permutation(16), RNG.permutation(16)]) - 8
    props[3, 4] = props[7, 4]  # a tie keeps source order
    dst, = run(lambda t, u: t.vrpsort16(u["dst"], u["p"], 2),
               {"p": props}, {"dst": ("float16", (32, 8))}, soc="Ascend310P")
    for r in range(2):
        blk = props[16 * r: 16 * r + 16]
        np.testing.assert_array_equal(dst[16 * r: 16 * r + 16],
                                      blk[np.argsort(-blk[:, 4].astype(np.float32), kind="stable")])


def test_vmrgsort4_merges_proposal_lists():
    lists = []
    for k in range(4):
        p = small_ints((16, 8), -50, 50)
        p[:, 4] = np.sort(RNG.integers(-30, 30, size=16))[::-1]
        lists.append(p)
    src = np.concatenate(lists)

    def body(t, u):
        t.vmrgsort4(u["dst"], [u["src"][16 * k] for k in range(4)], [16] * 4, False, 15, 1)

    dst, = run(body, {"src": src}, {"dst": ("float16", (64, 8))}, soc="Ascend310P")
    o = np.argsort(-src[:, 4].astype(np.float32), kind="stable")
    np.testing.assert_array_equal(dst, src[o])


@pytest.mark.parametrize("name", ["vnchwconv", "vec_trans_scatter"])
def test_vnchwconv_transposes_16_blocks(name):
    x = small_ints(256, -100, 100)

    def body(t, u):
        getattr(t, name)(False, False, [u["dst"][16 * j] for j in range(16)],
                         [u["x"][16 * i] for i in range(16)], 1, 0, 0)

    dst, = run(body, {"x": x}, {"dst": ("float16", (256,))})
    np.testing.assert_array_equal(dst, x.reshape(16, 16).T.ravel())


def test_new_shapes_check_their_rules():
    # vconcat is not on Atlas A2 (Ascend910B): a typed error names the instruction and chip.
    with pytest.raises(npusim.NpusimError, match="vconcat"):
        run(lambda t, u: t.vconcat(u["p"], u["x"], 1, 4), {"x": small_ints(32)},
            {"p": ("float16", (16, 8))})
    # modeNumber outside [0, 5].
    with pytest.raises(npusim.NpusimError, match="modeNumber"):
        run(lambda t, u: t.vconcat(u["p"], u["x"], 1, 6), {"x": small_ints(32)},
            {"p": ("float16", (16, 8))}, soc="Ascend310P")
    # vnchwconv takes 16 addresses per list.
    with pytest.raises(npusim.NpusimError, match="16 expected"):
        run(lambda t, u: t.vnchwconv(False, False, [u["d"]] * 15, [u["x"]] * 16, 1, 0, 0),
            {"x": small_ints(256)}, {"d": ("float16", (256,))})
    # A wrong argument count is reported when the kernel is compiled.
    with pytest.raises(npusim.NpusimError, match="takes 4 arguments"):
        run(lambda t, u: t.vsort32(u["d"], u["x"], u["x"]), {"x": small_ints(32)},
            {"d": ("float16", (64,))})


def test_data_move_pad_pads_rows_to_32_bytes():
    # Two GM rows of 10 halves, 4 bytes apart; each lands in UB as 2 left pads, the data, 4
    # right pads (16 halves = one 32-byte block), pads = 7.
    src = small_ints(24, -100, 100)
    t = tik.Tik()
    g = t.Tensor("float16", (24,), name="g", scope=tik.scope_gm)
    u = t.Tensor("float16", (32,), name="u", scope=tik.scope_ubuf)
    o = t.Tensor("float16", (32,), name="o", scope=tik.scope_gm)
    t.data_move_pad(u, g, 2, 20, 0, 4, 4, 2, 7.0)
    t.data_move(o, u, 0, 1, 2, 0, 0)
    t.BuildCCE(kernel_name="k", inputs=[g], outputs=[o])
    out, = t.tikdb.start_debug(feed_dict={"g": src})
    seven = np.full(2, 7, np.float16)
    want = np.concatenate([seven, src[0:10], np.full(4, 7, np.float16),
                           seven, src[12:22], np.full(4, 7, np.float16)])
    np.testing.assert_array_equal(out, want)


def atomic_kernel(dtype, mode, x, y):
    t = tik.Tik()
    n = x.size
    gx = t.Tensor(dtype, (n,), name="gx", scope=tik.scope_gm)
    gy = t.Tensor(dtype, (n,), name="gy", scope=tik.scope_gm)
    u = t.Tensor(dtype, (n,), name="u", scope=tik.scope_ubuf)
    t.data_move(u, gx, 0, 1, x.nbytes // 32, 0, 0)
    t.set_atomic_add(mode)
    with t.for_range(0, 2):
        t.data_move(gy, u, 0, 1, x.nbytes // 32, 0, 0)  # gy += x, twice
    t.set_atomic_add(0)
    t.data_move(gx, u, 0, 1, x.nbytes // 32, 0, 0)  # no longer accumulates
    t.BuildCCE(kernel_name="k", inputs=[gx, gy], outputs=[gy, gx])
    return t.tikdb.start_debug(feed_dict={"gx": x, "gy": y})


def test_set_atomic_add_float16_accumulates_moves_into_gm():
    x, y = small_ints(16), small_ints(16)
    gy, gx = atomic_kernel("float16", 2, x, y)
    np.testing.assert_array_equal(gy, y + x + x)
    np.testing.assert_array_equal(gx, x)


def test_set_atomic_add_float32_accumulates_moves_into_gm():
    x = RNG.standard_normal(8).astype(np.float32)
    y = RNG.standard_normal(8).astype(np.float32)
    gy, _ = atomic_kernel("float32", 1, x, y)
    np.testing.assert_array_equal(gy, (y + x) + x)


def vbi_model(dst, src0, src1, off, lanes, hr, mode, blk, vro, vr):
    """BilinearInterpolation / vbi in the A2/A3 vendor emulation's order: each product rounded
    to half, the products of a vertical repeat added one after the other in half, then + 0."""
    out = dst.copy()
    for v in range(vr):
        for lane in range(128):
            if not lanes[lane]:
                continue
            j, e = divmod(lane, 16)
            acc = None
            for k in range(hr):
                i = v * hr + k
                x = src0[off[8 * i + j] // 2 + e]
                w = src1[8 * i + j] if mode else src1[i]
                p = np.float16(x * w)
                acc = p if acc is None else np.float16(p + acc)
            out[v * vro + j * blk * 16 + e] = np.float16(acc + np.float16(0))
    return out


def test_vbi_page_example():
    # BilinearInterpolation(ISASI).md: src0 [1 .. 512], src1 [2 .. 17], offsets [0, 32, .., 992],
    # mask 128, hRepeat 2, repeatMode false, dstBlkStride 1, vROffset 128, vRepeat 2 -> printed
    # [389, 394, 399, 404, ..., 4096].
    x0 = np.arange(1, 513).astype(np.float16)
    x1 = np.arange(2, 18).astype(np.float16)
    off = (np.arange(32) * 32).astype(np.uint32)
    dst, = run(lambda t, u: t.vbi(128, u["dst"], u["x0"], u["x1"], u["off"], 1, 2, 2, False, 128),
               {"x0": x0, "x1": x1, "off": off}, {"dst": ("float16", (256,))})
    assert list(dst[:4]) == [389, 394, 399, 404] and dst[255] == 4096
    want = vbi_model(np.zeros(256, np.float16), x0, x1, off, [True] * 128, 2, False, 1, 128, 2)
    np.testing.assert_array_equal(dst, want)
    assert dst[128] == 2952  # 4 * 257 + 5 * 385 = 2953, rounded to half


def test_vbi_repeat_mode_strides_and_bitwise_mask_match_numpy():
    # repeatMode true (8 weights per iteration), 3 horizontal x 2 vertical repeats, dst block
    # stride 2 (a vertical repeat spans 15 blocks = 240 halves), vertical offset 256, mask
    # [mask_h, mask_l] with random bits, keyword arguments; untouched halves keep their values.
    x0 = RNG.uniform(-4, 4, 640).astype(np.float16)
    x1 = RNG.uniform(-2, 2, 48).astype(np.float16)
    off = (RNG.integers(0, 40, 48) * 32).astype(np.uint32)
    mh, ml = (int(v) for v in RNG.integers(0, 2**63, 2))
    init = RNG.uniform(-9, 9, 512).astype(np.float16)

    def body(t, u):
        t.vbi([mh, ml], u["z"], u["x0"], u["x1"], u["off"], dst_blk_stride=2,
              vertical_repeat_times=2, horizontal_repeat_times=3, repeat_mode=True,
              vertical_repeat_offset=256)

    got = run_inout(body, {"x0": x0, "x1": x1, "off": off}, "z", init)
    lanes = [bool((ml >> k) & 1) for k in range(64)] + [bool((mh >> k) & 1) for k in range(64)]
    np.testing.assert_array_equal(got, vbi_model(init, x0, x1, off, lanes, 3, True, 2, 256, 2))


def test_vbi_restrictions():
    x0 = np.arange(1, 513).astype(np.float16)
    x1 = np.arange(2, 18).astype(np.float16)
    off = (np.arange(32) * 32).astype(np.uint32)

    def call(vro, soc="Ascend910B", off=off):
        return run(lambda t, u: t.vbi(128, u["dst"], u["x0"], u["x1"], u["off"], 1, 2, 2, False,
                                      vro),
                   {"x0": x0, "x1": x1, "off": off}, {"dst": ("float16", (512,))}, soc=soc)

    with pytest.raises(npusim.NpusimError, match="vbi.*vROffset.*136"):
        call(136)  # vROffset * 2 not a multiple of 32
    with pytest.raises(npusim.NpusimError, match="vbi.*vROffset.*64"):
        call(64)  # below 128
    bad = off.copy()
    bad[7] = 17
    with pytest.raises(npusim.NpusimError, match="vbi.*src0Offset"):
        call(128, off=bad)
    with pytest.raises(npusim.NpusimError, match="vbi.*not supported"):
        call(128, soc="Ascend310P")


def _iou_model(a, b, offset):
    """Plain numpy model of viou: rows are src0's proposals, columns src1's 16; each side
    `min(x2) - max(x1) + offset`, a non-positive side counts as 0; computed in float32 and
    rounded once to the type."""
    a32, b32 = a.astype(np.float32)[:, None, :], b.astype(np.float32)[None, :, :]
    w = np.minimum(a32[..., 2], b32[..., 2]) - np.maximum(a32[..., 0], b32[..., 0]) + np.float32(offset)
    h = np.minimum(a32[..., 3], b32[..., 3]) - np.maximum(a32[..., 1], b32[..., 1]) + np.float32(offset)
    return (np.where(w > 0, w, 0) * np.where(h > 0, h, 0)).astype(a.dtype).reshape(-1)


@pytest.mark.parametrize("soc,offset", [("Ascend310", None), ("Ascend310P", 0.0), ("Ascend910", 0.5)])
def test_viou_and_vaadd_match_numpy(soc, offset):
    a = small_ints((48, 8), 0, 40)
    b = small_ints((16, 8), 0, 40)
    for p in (a, b):  # x2 >= x1 - 3, y2 >= y1 - 3: some empty, some overlapping boxes
        p[:, 2] = p[:, 0] + small_ints(p.shape[0], -3, 12)
        p[:, 3] = p[:, 1] + small_ints(p.shape[0], -3, 12)
    area0, area1 = small_ints(48, 0, 200), small_ints(16, 0, 200)

    def body(t, u):
        if offset is not None:
            t.set_rpn_offset(offset)
        t.viou(u["iou"], u["a"], u["b"], 3)
        t.vaadd(u["sum"], u["s0"], u["s1"], 3)

    iou, s = run(body, {"a": a, "b": b, "s0": area0, "s1": area1},
                 {"iou": ("float16", (48, 16)), "sum": ("float16", (48, 16))}, soc=soc)
    np.testing.assert_array_equal(iou.reshape(-1), _iou_model(a, b, 1.0 if offset is None else offset))
    np.testing.assert_array_equal(s.reshape(-1), (area0[:, None] + area1[None, :]).reshape(-1))


@pytest.mark.parametrize("chw2hwc", [True, False])
def test_v4dtrans_matches_numpy(chw2hwc):
    m, c = 64, 5
    x = RNG.integers(0, 60000, size=m * c).astype(np.uint16)
    dst, = run(lambda t, u: t.v4dtrans(chw2hwc, u["dst"], u["x"], m, c),
               {"x": x}, {"dst": ("uint16", (m * c,))}, soc="Ascend310P")
    want = x.reshape(c, m).T.reshape(-1) if chw2hwc else x.reshape(m, c).T.reshape(-1)
    np.testing.assert_array_equal(dst, want)


def test_viou_v4dtrans_and_set_rpn_offset_restrictions():
    a = small_ints((16, 8), 0, 40)
    with pytest.raises(npusim.NpusimError, match="repeat_times"):
        run(lambda t, u: t.viou(u["d"], u["a"], u["a"], 256), {"a": a},
            {"d": ("float16", (16, 16))}, soc="Ascend310P")
    with pytest.raises(npusim.NpusimError, match="set_rpn_offset"):
        run(lambda t, u: t.set_rpn_offset(0.0), {"a": a}, {}, soc="Ascend310")
    with pytest.raises(npusim.NpusimError, match="viou"):
        run(lambda t, u: t.viou(u["d"], u["a"], u["a"], 1), {"a": a},
            {"d": ("float16", (16, 16))}, soc="Ascend910B")
    with pytest.raises(npusim.NpusimError, match="overlap"):
        run(lambda t, u: t.v4dtrans(True, u["f"][16], u["f"], 8, 8), {"f": small_ints(128)}, {},
            soc="Ascend310P")
