"""``tik_instance.printf`` (TIK API reference, printf): values in execution order, tagged with
the block and the line of the call; each conversion checked against Python's own ``%``
operator (which TIK's debugger applies); broken rules are errors naming the call, the
parameter, the rule and the value."""

import inspect

import numpy as np
import pytest

import npusim
from npusim.tbe import tik


def _here():
    return inspect.currentframe().f_back.f_lineno


def _run(kernel_body, feed=None):
    t = tik.Tik()
    x = t.Tensor("float32", (8,), name="x", scope=tik.scope_gm)
    y = t.Tensor("float32", (8,), name="y", scope=tik.scope_gm)
    kernel_body(t, x, y)
    t.BuildCCE("k", [x], [y])
    xs = np.arange(8, dtype=np.float32) * 1.5 - 2 if feed is None else feed
    t.tikdb.start_debug({"x": xs})
    return t.tikdb.prints


def test_prints_come_in_order_with_block_and_line(capsys):
    lines = {}

    def body(t, x, y):
        ub = t.Tensor("float32", (8,), name="ub", scope=tik.scope_ubuf)
        s = t.Scalar("float32", init_value=0.0)
        with t.for_range(0, 2, block_num=2) as b:
            t.data_move(ub, x, 0, 1, 1, 0, 0)
            t.printf("block %d\n", b); lines["b"] = _here()
            with t.for_range(0, 3) as i:
                s.set_as(ub[i])
                t.printf("x[%d] = %.2f\n", i, s); lines["i"] = _here()
            t.printf("ub = %f\n", ub[5]); lines["t"] = _here()
            t.data_move(y, ub, 0, 1, 1, 0, 0)

    xs = np.arange(8, dtype=np.float32) * 1.5 - 2
    prints = _run(body, xs)
    want = []
    for blk in range(2):
        want.append((blk, lines["b"], "block %d\n" % blk))
        for i in range(3):
            want.append((blk, lines["i"], "x[%d] = %.2f\n" % (i, float(xs[i]))))
        want.append((blk, lines["t"],
                     "ub = [" + ", ".join("%f" % float(v) for v in xs[5:]) + "]\n"))
    assert [(b, line, text) for b, _, line, text in prints] == want
    assert all(f.endswith("test_tik_print.py") for _, f, _, _ in prints)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"[block 0 test_tik_print.py:{lines['b']}] block 0"
    assert out[-1].startswith(f"[block 1 test_tik_print.py:{lines['t']}] ub = [")
    assert len(out) == len(want)


INT_FORMATS = ["%d", "%5d", "%05d", "%o", "%#o", "%x", "%#x", "%08x", "%#010x", "%f", "%.3f",
               "%12.4f", "%012.5f", "%s", "v=%d%%"]
INT_VALUES = [0, 7, -7, 255, -255, 123456789, -2**31, 2**40]
FLOAT_FORMATS = ["%f", "%.1f", "%.10f", "%15.3f", "%015.2f", "%d", "%5d", "%s"]
FLOAT_VALUES = [0.0, -0.0, 1.5, -2.25, 1e-7, 123456.789, 3.0e20, -1.0 / 3.0]


def test_conversions_match_python_percent():
    cases = [(f, v, "int64") for f in INT_FORMATS for v in INT_VALUES]
    cases += [(f, v, "float32") for f in FLOAT_FORMATS for v in FLOAT_VALUES]
    cases += [("%c", v, "int32") for v in (65, 0x7e, 200, 255)]

    def body(t, x, y):
        for fmt, v, dt in cases:
            t.printf(fmt, t.Scalar(dt, init_value=v))

    prints = _run(body)
    got = [text for _, _, _, text in prints]
    want = [fmt % v for fmt, v, _ in cases]
    bad = [(c, g, w) for c, g, w in zip(cases, got, want) if g != w]
    assert len(got) == len(cases) and not bad, bad[:10]


def test_tensor_elements_use_the_conversion():
    xs = np.array([1, -2, 3, 40, 5, 6, 7, 255], dtype=np.int32)

    def body(t, x, y):
        g = t.Tensor("int32", (8,), name="g", scope=tik.scope_gm)
        ub = t.Tensor("int32", (8,), name="ubi", scope=tik.scope_ubuf)
        t.data_move(ub, g, 0, 1, 1, 0, 0)
        t.printf("%#x|%3d\n", ub[6], ub)
        t.BuildCCE("k", [g], [y])

    t = tik.Tik()
    x = t.Tensor("float32", (8,), name="x", scope=tik.scope_gm)
    y = t.Tensor("float32", (8,), name="y", scope=tik.scope_gm)
    body(t, x, y)
    t.tikdb.start_debug({"g": xs})
    (_, _, _, text), = t.tikdb.prints
    want = ("[" + ", ".join("%#x" % v for v in xs[6:]) + "]|["
            + ", ".join("%3d" % v for v in xs) + "]\n")
    assert text == want


@pytest.mark.parametrize("fmt,args,param,rule", [
    ("%-5d", ("i",), "format_string", "flags are `#` and `0`"),
    ("%x", ("f",), "arg 1", "does not print float data"),
    ("%c", (300,), "arg 1", "[0, 255]"),
    ("%.2d", ("i",), "format_string", "precision is given to %f only"),
    ("%d %d", ("i",), "*arg", "one argument per conversion"),
    ("%e", ("f",), "format_string", "d o x f s c"),
    ("", (), "format_string", "must not be empty"),
    ("a" * 129, (), "format_string", "at most 128 characters"),
])
def test_broken_rules_name_call_parameter_rule_and_value(fmt, args, param, rule):
    lines = {}

    def body(t, x, y):
        vals = []
        for a in args:
            if a == "i":
                vals.append(t.Scalar("int32", init_value=3))
            elif a == "f":
                vals.append(t.Scalar("float32", init_value=1.5))
            else:
                vals.append(t.Scalar("int32", init_value=a))
        t.printf(fmt, *vals); lines["p"] = _here()

    with pytest.raises(npusim.NpusimError) as e:
        _run(body)
    msg = str(e.value)
    assert f"line {lines['p']}: printf: {param} = " in msg, msg
    assert rule in msg, msg


def test_set_printf_params_changes_the_format_limit():
    def body(t, x, y):
        t.set_printf_params(1, 64)
        t.printf("a" * 33)

    with pytest.raises(npusim.NpusimError, match="at most 32 characters"):
        _run(body)
    t = tik.Tik()
    with pytest.raises(npusim.NpusimError, match="single_print_length"):
        t.set_printf_params(1, 100)
