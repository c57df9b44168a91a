"""TIK on npusim: a TIK script runs with one import changed.

    from npusim.tbe import tik          # instead of: from tbe import tik
    tik_instance = tik.Tik()
    ...
    tik_instance.BuildCCE(kernel_name="k", inputs=[a_gm], outputs=[b_gm])
    out, = tik_instance.tikdb.start_debug(feed_dict={"a_gm": a}, interactive=False)

As in TIK, running the Python code records the kernel: ``for_range`` and ``if_scope`` bodies
are recorded once, with loop variables, ``Scalar``s and ``Expr``s left symbolic. The recorded
program is executed by npusim (``start_debug``), not unrolled in Python: it is compiled once
(names, argument counts and tensors resolved), and the instructions it builds are kept for the
next ``start_debug``. Every instruction of npusim's Ascend table is available under its TIK
names, parameters by position in TIK's order or by TIK's keyword names: the element-wise rows (``vec_add`` and the legacy
``vadd`` with block strides, ``vector_dup``, ``vec_conv``...), compares (``vec_cmpv_gt``,
``vcmpvs_gt``, ``vcmp_gt`` with ``mov_cmpmask_to_tensor``/``mov_tensor_to_cmpmask``),
``vec_sel``/``vsel``, reductions (``vcadd``, ``vcmax``, ``vcmin``, ``vcgadd``, ``vcgmax``,
``vcgmin``, ``vec_cpadd``/``vcpadd``, ``vec_reduce_add``/``_max``/``_min`` with
``cal_index``), ``vreduce``
(built-in patterns), ``vgather``, ``vgatherb``, ``vec_trans``/``vtranspose``, ``vbcb``, ``vci``,
``vbi(mask, dst, src0, src1, src0_offset, dst_blk_stride, vertical_repeat_times,
horizontal_repeat_times, repeat_mode, vertical_repeat_offset)`` (Ascend910B, float16), ``vsort32``,
``vmrgsort(dst, src_list, element_count_list, if_exhausted_suspension, repeat_times)``,
``vmrgsort4(dst, src_list, element_lengths, if_exhausted_suspension, valid_bit, repeat_times)``,
``vconcat``, ``vextract``, ``vrpsort16``, ``viou``/``vaadd(dst, src0, src1, repeat_times)``
with ``set_rpn_offset``, ``v4dtrans(chw2hwc, dst, src, m_len, channels)``,
``vnchwconv``/``vec_trans_scatter`` (lists of 16 tensors), plus ``data_move``,
``data_move_pad`` and ``set_atomic_add``. Errors raise
:class:`npusim.NpusimError` naming the Python line, the instruction, the parameter, the rule and
the value.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Optional

import numpy as np

from . import _native

scope_gm = "gm"
scope_ubuf = "ubuf"
scope_cbuf = "cbuf"
scope_ca = "ca"
scope_cb = "cb"
scope_cc = "cc"

_PRODUCTS = {
    "Ascend310": "Ascend310", "Ascend910": "Ascend910", "Ascend310P": "Ascend310P",
    "Ascend910B": "Ascend910B", "Ascend310B": "Ascend310B", "Ascend950": "Ascend950",
}


def _line() -> int:
    """The line of the user's call (the first frame outside this module)."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename == __file__:
        f = f.f_back
    return f.f_lineno if f is not None else 0


def _expr(v):
    """JSON form of an int, float, Scalar or Expr."""
    if isinstance(v, Expr):
        return v._j
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    raise TypeError(f"expected an int, float, Scalar or Expr, got {type(v).__name__}")


class Expr:
    """A symbolic scalar expression (loop variables, Scalars, arithmetic on them)."""

    def __init__(self, j):
        self._j = j

    def _bin(self, op, other, swap=False):
        a, b = _expr(self), _expr(other)
        return Expr({"op": op, "a": b, "b": a} if swap else {"op": op, "a": a, "b": b})

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("//", o)
    def __rfloordiv__(self, o): return self._bin("//", o, True)
    def __truediv__(self, o): return self._bin("/", o)
    def __rtruediv__(self, o): return self._bin("/", o, True)
    def __mod__(self, o): return self._bin("%", o)
    def __rmod__(self, o): return self._bin("%", o, True)
    def __lt__(self, o): return self._bin("<", o)
    def __le__(self, o): return self._bin("<=", o)
    def __gt__(self, o): return self._bin(">", o)
    def __ge__(self, o): return self._bin(">=", o)
    def __eq__(self, o): return self._bin("==", o)  # noqa: D105 (symbolic, as in TIK)
    def __ne__(self, o): return self._bin("!=", o)
    def __neg__(self): return Expr({"op": "-", "a": 0, "b": self._j})
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("a TIK Expr has no Python truth value; use tik_instance.if_scope(...)")

    def __index__(self):
        raise TypeError("a TIK Expr is symbolic; it cannot be used as a Python int")


class Scalar(Expr):
    """``tik_instance.Scalar(dtype, name, init_value)``."""

    def __init__(self, tik: "Tik", dtype: str, name: str, init_value):
        self._tik = tik
        self.dtype = dtype
        self.name = name
        self._var = tik._new_var(0 if init_value is None else init_value)
        super().__init__({"var": self._var})

    def set_as(self, value, src_offset=None):
        """``scalar.set_as(value)``: an Expr, a number, or one tensor element (``t[i]``, read
        when the statement runs; floats exactly, integers as stored)."""
        if isinstance(value, TensorRef):
            ref = value if src_offset is None else value[src_offset]
            self._tik._emit({"k": "load", "var": self._var, "src": ref._json(), "line": _line()})
            return
        self._tik._emit({"k": "set", "var": self._var, "value": _expr(value), "line": _line()})


class TensorRef:
    """A tensor from a start element (``t[64]``, ``t[i * 128]``, ``t[r, c]``)."""

    def __init__(self, tensor: "Tensor", off):
        self.tensor = tensor
        self.off = off

    def _json(self):
        return {"t": self.tensor.name, "off": _expr(self.off)}

    def __getitem__(self, idx):
        return TensorRef(self.tensor, self.off + self.tensor._flat(idx))


class Tensor(TensorRef):
    """``tik_instance.Tensor(dtype, shape, name=, scope=)``."""

    def __init__(self, dtype, shape, name, scope):
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)
        self.name = name
        self.scope = scope
        super().__init__(self, 0)

    def _flat(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        off = 0
        stride = 1
        strides = []
        for s in reversed(self.shape):
            strides.append(stride)
            stride *= s
        strides.reverse()
        if len(idx) > len(self.shape):
            raise IndexError(f"{self.name}: {len(idx)} indices for a {len(self.shape)}-D tensor")
        for i, st in zip(idx, strides):
            if isinstance(i, slice):
                if i.step not in (None, 1):
                    raise IndexError("tensor slices take no step")
                i = 0 if i.start is None else i.start
            off = off + i * st
        return off

    def __getitem__(self, idx):
        return TensorRef(self, self._flat(idx))


def _arg(v):
    if isinstance(v, TensorRef):
        return v._json()
    if isinstance(v, str):
        return v
    if v is None:
        return ""  # an absent optional value (data_move_pad's padding_value)
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, TensorRef) for x in v):
            return {"tl": [x._json() for x in v]}
        return [_expr(x) for x in v]
    return _expr(v)


def _np_dtype(name: str):
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


# TIK's optional trailing parameters that npusim models, with their defaults (filled in when a
# call leaves them out).
_TRAILING_DEFAULTS = {"cal_index": False}

# TIK's optional trailing parameters that npusim accepts at their default value only.
_OPTIONAL_DEFAULTS = {
    "stride_unit": 0, "mask_mode": "normal", "round_en": False, "deqscale": None,
    "ldst_high_half": False,
}


# Calls whose trailing cal_index (default False) may be left out (6 positional arguments).
_CAL_INDEX_CALLS = ("vec_reduce_max", "vec_reduce_min")


def _by_name(name, args, kwargs):
    """Positional arguments of a TIK call given (partly) by keyword, with TIK's parameter
    names (``vec_add(mask=128, dst=..., src0=..., ...)``)."""
    names = _native.tik_param_names(name)
    if names is None:
        raise TypeError(f"{name}: pass the parameters by position, in TIK's order")
    kwargs = dict(kwargs)
    for k, v in list(kwargs.items()):
        if k in _OPTIONAL_DEFAULTS and k not in names:
            if type(v) is not type(_OPTIONAL_DEFAULTS[k]) or v != _OPTIONAL_DEFAULTS[k]:
                raise TypeError(f"{name}: {k}={v!r}: npusim.tik takes only the default "
                                f"{_OPTIONAL_DEFAULTS[k]!r}")
            del kwargs[k]
    if len(args) > len(names):
        raise TypeError(f"{name}: takes {len(names)} parameters ({', '.join(names)}), "
                        f"got {len(args)} by position")
    out = list(args)
    for k in names[:len(args)]:
        if k in kwargs:
            raise TypeError(f"{name}: {k} given by position and by keyword")
    for k in names[len(args):]:
        if k not in kwargs and k in _TRAILING_DEFAULTS:
            out.append(_TRAILING_DEFAULTS[k])
            continue
        if k not in kwargs:
            raise TypeError(f"{name}: missing parameter {k} (parameters: {', '.join(names)})")
        out.append(kwargs.pop(k))
    if kwargs:
        raise TypeError(f"{name}: unknown parameter {', '.join(sorted(kwargs))} "
                        f"(parameters: {', '.join(names)})")
    return out


class _Debugger:
    def __init__(self, tik: "Tik"):
        self._tik = tik
        self._kernel = None
        self._version = -1

    def _compiled(self):
        """The native kernel, compiled once per recorded program (again only if more was
        recorded since)."""
        t = self._tik
        if self._kernel is None or self._version != t._version:
            program = {
                "chip": t._chip,
                "decls": [{"name": d.name, "dtype": d.dtype, "shape": list(d.shape),
                           "scope": d.scope} for d in t._tensors],
                "body": t._root,
                "vars": t._vars,
                "inputs": [x.name for x in t._inputs],
                "outputs": [x.name for x in t._outputs],
            }
            self._kernel = _native.TikKernel(json.dumps(program))
            self._version = t._version
        return self._kernel

    def start_debug(self, feed_dict, interactive=False, max_steps: int = 100_000_000):
        """Runs the kernel with ``feed_dict`` ({input tensor name: ndarray}); returns the
        outputs given to ``BuildCCE``, in order, as numpy arrays."""
        t = self._tik
        if t._outputs is None:
            raise _native.NpusimError("start_debug: call BuildCCE(kernel_name, inputs, outputs) first")
        kernel = self._compiled()
        feed = {}
        for k, v in feed_dict.items():
            a = np.ascontiguousarray(v)
            if a.dtype.byteorder == ">":
                a = a.astype(a.dtype.newbyteorder("<"))
            feed[k] = (a.dtype.name, a.tobytes())
        try:
            outs = kernel.run(feed, max_steps)
        finally:
            # tik_instance.printf: each print, in execution order, tagged with its block and
            # the file and line of the call; kept in `self.prints` as well.
            self.prints = []
            for block, line, text, site in kernel.prints():
                file = t._print_sites[site][0] if site < len(t._print_sites) else "?"
                self.prints.append((block, file, line, text))
                tag = f"[block {block} {os.path.basename(file)}:{line}]"
                body = text[:-1] if text.endswith("\n") else text
                sys.stdout.write("".join(f"{tag} {l}\n" for l in body.split("\n")))
            sys.stdout.flush()
        return [np.frombuffer(b, dtype=_np_dtype(dt)).reshape(shape) for _, dt, shape, b in outs]


class Tik:
    """``tik.Tik()``: a kernel under construction. ``soc`` picks the chip by product name."""

    def __init__(self, disable_debug=False, soc: str = "Ascend910B", **_):
        self._chip = _PRODUCTS.get(soc, soc)
        self._tensors: list[Tensor] = []
        self._vars: list = []
        self._root: list = []
        self._stack = [self._root]
        self._last_if: Optional[dict] = None
        self._inputs = None
        self._outputs = None
        self._version = 0  # bumped by every recording step (the compiled kernel's cache key)
        self.tikdb = _Debugger(self)
        self._blocks: list = []  # loop variables of the enclosing block_num > 1 for_ranges
        self._print_sites: list = []  # (file, line) of each printf, in recording order
        self._printf_max: Optional[int] = None  # set_printf_params: single_print_length - 32

    # -- recording ------------------------------------------------------------------------
    def _emit(self, stmt):
        self._version += 1
        self._stack[-1].append(stmt)
        self._last_if = stmt if stmt.get("k") == "if" else None

    def _new_var(self, init):
        self._version += 1
        self._vars.append(_expr(init))
        return len(self._vars) - 1

    def Tensor(self, dtype, shape, name, scope=scope_ubuf, **_):
        if any(t.name == name for t in self._tensors):
            raise _native.NpusimError(f"Tensor: the name `{name}` is already used")
        t = Tensor(dtype, shape, name, scope)
        self._version += 1
        self._tensors.append(t)
        return t

    def Scalar(self, dtype="int64", name="reg_buf", init_value=None):
        return Scalar(self, dtype, name, init_value)

    @contextlib.contextmanager
    def for_range(self, begin, end=None, name="i", thread_num=1, block_num=1, **_):
        if end is None:
            begin, end = 0, begin
        var = self._new_var(0)
        body: list = []
        self._emit({"k": "for", "var": var, "begin": _expr(begin), "end": _expr(end),
                    "body": body, "line": _line()})
        self._stack.append(body)
        is_block = not isinstance(block_num, Expr) and int(block_num) > 1
        if is_block:
            self._blocks.append(var)
        try:
            yield Expr({"var": var})
        finally:
            if is_block:
                self._blocks.pop()
            self._stack.pop()
            self._last_if = None

    @contextlib.contextmanager
    def if_scope(self, cond):
        then: list = []
        stmt = {"k": "if", "cond": _expr(cond), "then": then, "else": [], "line": _line()}
        self._emit(stmt)
        self._stack.append(then)
        try:
            yield
        finally:
            self._stack.pop()
            self._last_if = stmt

    @contextlib.contextmanager
    def else_scope(self):
        stmt = self._last_if
        if stmt is None:
            raise _native.NpusimError("else_scope must follow an if_scope directly")
        self._stack.append(stmt["else"])
        try:
            yield
        finally:
            self._stack.pop()
            self._last_if = None

    @contextlib.contextmanager
    def new_stmt_scope(self, disable_sync=False):
        yield

    def _call(self, name, *args):
        self._emit({"k": "call", "name": name, "args": [_arg(a) for a in args], "line": _line()})

    def data_move(self, dst, src, sid, nburst, burst, src_stride, dst_stride, *_, **__):
        self._call("data_move", dst, src, sid, nburst, burst, src_stride, dst_stride)

    def data_move_pad(self, dst, src, nburst, burst, dst_gap, src_gap, right_padding=0,
                      left_padding=0, padding_value=None, *_, **__):
        self._call("data_move_pad", dst, src, nburst, burst, dst_gap, src_gap, right_padding,
                   left_padding, padding_value)

    def set_atomic_add(self, mode):
        self._call("set_atomic_add", mode)

    def set_rpn_offset(self, number):
        self._call("set_rpn_offset", number)

    def mov_tensor_to_cmpmask(self, src):
        self._call("mov_tensor_to_cmpmask", src)

    def mov_cmpmask_to_tensor(self, dst):
        self._call("mov_cmpmask_to_tensor", dst)

    def __getattr__(self, name):
        if name.startswith("v"):
            def instr(*args, **kwargs):
                if kwargs:
                    args = _by_name(name, args, kwargs)
                elif name in _CAL_INDEX_CALLS and len(args) == 6:
                    args = (*args, _TRAILING_DEFAULTS["cal_index"])
                self._call(name, *args)
            return instr
        raise AttributeError(name)

    def printf(self, format_string, *arg):
        """``printf(format_string, *arg)``: prints Scalars, Exprs, numbers and Tensors when the
        debugger runs (Python ``%`` formatting; a Tensor prints as the list of its elements from
        the given one). Tagged with the block (the loop variable of the enclosing
        ``for_range(..., block_num=N)``) and the line of this call."""
        if not isinstance(format_string, str):
            raise TypeError("printf: format_string must be a str (an immediate string)")
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename == __file__:
            f = f.f_back
        site = len(self._print_sites)
        self._print_sites.append((f.f_code.co_filename if f else "?", f.f_lineno if f else 0))
        stmt = {"k": "print", "fmt": format_string, "args": [_arg(a) for a in arg],
                "block": self._blocks[-1] if self._blocks else None, "site": site,
                "line": _line()}
        if self._printf_max is not None:
            stmt["max_chars"] = self._printf_max
        self._emit(stmt)

    def set_printf_params(self, print_workspace_size=128, single_print_length=512):
        """``set_printf_params``: workspace in MiB (1..32768), length of one print in bytes
        (at least 64, a multiple of 32); a format then has at most ``single_print_length - 32``
        characters."""
        if not isinstance(print_workspace_size, int) or not 1 <= print_workspace_size <= 32768:
            raise _native.NpusimError(
                f"set_printf_params: print_workspace_size = {print_workspace_size!r}: "
                "must be an int in [1, 32768] (MiB)")
        if (not isinstance(single_print_length, int) or single_print_length < 64
                or single_print_length % 32 != 0
                or single_print_length > print_workspace_size * 1024 * 1024 - 32):
            raise _native.NpusimError(
                f"set_printf_params: single_print_length = {single_print_length!r}: must be an "
                "int of at least 64, a multiple of 32, below the workspace")
        self._version += 1
        self._printf_max = single_print_length - 32

    def BuildCCE(self, kernel_name, inputs, outputs, **_):
        for t in list(inputs) + list(outputs):
            if t.scope != scope_gm:
                raise _native.NpusimError(
                    f"BuildCCE: `{t.name}` is in {t.scope}; inputs and outputs live in GM")
        self._version += 1
        self._inputs = list(inputs)
        self._outputs = list(outputs)
        self.kernel_name = kernel_name
