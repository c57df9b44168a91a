#!/usr/bin/env python3
"""Generate TPU-Kernel golden vectors (local memory, GDMA, BDC) from Sophgo's BM1684X C-model.

What it needs
  * Python 3 (standard library only).
  * `libcmodel_bm1684x.so` from the PyPI wheel `tpu-mlir==1.30.2` (never commit it or anything
    taken from it; see the header of scripts/gen_hau_golden.py for how to fetch it).

How to run
    python3 scripts/gen_tpu_golden.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so \
        --kind gdma --out golden/tpu/gdma.json [--seed 16]
    ... --kind bdc --out golden/tpu/bdc.json; ... --kind bdc_div --out golden/tpu/bdc_div.json
    ... --kind cast --out golden/tpu/cast.json; ... --kind move --out golden/tpu/move.json
    ... --kind int --out golden/tpu/int.json; ... --kind select --out golden/tpu/select.json
    ... --kind pool --out golden/tpu/pool.json; ... --kind select2 --out golden/tpu/select2.json
    ... --kind sfu --out golden/tpu/sfu.json; ... --kind kernel --out golden/tpu/kernel.json
    ... --kind pool_min --out golden/tpu/pool_min.json
    ... --kind sqrt --out golden/tpu/sfu_sqrt.json
    ... --kind log --out golden/tpu/sfu_log.json
    ... --kind dst_stride --out golden/tpu/dst_stride.json
    ... --kind trans --out golden/tpu/trans.json
    ... --kind audit --out golden/tpu/audit.json   (the gaps scripts/tpu_audit.py found)
    ... --kind gdma_align --out golden/tpu/gdma_align.json
    ... --kind dims --out golden/tpu/dims.json   (dims outside [1, 65535], every family)

What it writes
  `{source, seed, note, cases}` as in golden/hau/README.md, replayed by the same entry point
  (`npusim_tpu::golden::replay_file`, `npusim tpu check`). Case `op` = `gdma_cpy`:
    dir         "S2L", "L2S", "S2S" or "L2L"
    dtype       short name (i8, u8, f16, bf16, i16, u16, f32, i32, u32)
    shape       [n, c, h, w]
    dst_addr, src_addr
                a local_addr_t (lane * 0x40000 + offset) for a local side, a byte offset from
                the start of global memory for a system side
    dst_stride, src_stride
                [n, c, h, w] in elements, or null (aligned layout in local memory, continuous
                NCHW in system memory)
    src         the source region before the call: for a system side the `src_extent`
                elements from src_addr; for a local side, lane by lane over the lanes the
                tensor uses ((start + i) % 64 for i in 0..min(C, 64), start = addr / 0x40000),
                the `src_extent` elements from the tensor's lane offset
    out         the destination region after the call, laid out the same way (`dst_extent`),
                which was pre-filled with `out_fill_byte`
    expect_error
                present and true when the C-model rejected the call (it asserts and exits):
                the simulator must refuse it with a typed error.
  Case `op` = `bdc_bin` (`tpu_bdc_<func>(dst, src0, src1, shape, dst_stride, src0_stride,
  src1_stride, dtype)`) or `bdc_const` (`tpu_bdc_<func>(dst, src, C, shape, dst_stride,
  src_stride, dtype)`, `c_bits` the scalar's 32-bit pattern, sign-extended for 16-bit types):
  `func`, `dtype`, `shape`, and per operand `<name>_addr` (local_addr_t), `<name>_stride`
  (or null: aligned), `<name>_extent`, input data `<name>` listed lane by lane as for GDMA;
  `out` is the destination region after the call.
  Arrays hold unsigned bit patterns of the element size.
  Case `op` = `bdc_unary` (`func` = `cast`: `tpu_bdc_cast(dst, src, shape, dst_stride,
  src_stride, dst_dtype, src_dtype, mode)`; `set_C`: `tpu_bdc_set_C(dst, C, shape, dst_stride,
  dtype)`; `cpy`: `tpu_bdc_cpy(dst, src, shape, dst_stride, src_stride, dtype)`; `npu_bcast`:
  `tpu_bdc_npu_bcast(dst, src, shape, dtype)`): `dst_dtype`, `src_dtype` (equal except for a
  cast), `mode` (rounding_mode_t code), `c_bits`, and per operand `<name>_addr`,
  `<name>_stride`, `<name>_extent` (in that operand's elements), `src_channels` (how many
  channels the source listing covers: C, or 1 for npu_bcast), `src`, `out` as above.

  Case `op` = `bdc_sfu` with `func` = `fp32_rsqrt` or `fp32_sqrt`: `tpu_bdc_<func>(dst, src,
  shape)`, f32 in the aligned layout; `dst_addr`, `dst_extent`, `src_addr`, `src_extent`, `src`
  lane by lane and `out` (dst after the call, pre-filled with out_fill_byte).
  Case `op` = `bdc_sfu` (`func` = `fp32_exp`): `tpu_bdc_load_fp32_exp_coeff(coeff_addr)`,
  `tpu_bdc_load_fp32_exp_table(table_addr)`, `tpu_poll`, then `tpu_bdc_fp32_exp(dst, src,
  work0, work1, coeff_addr, table_addr, shape)`, all f32 in the aligned layout: per operand
  `<name>_addr`, `<name>_extent`; `src` listed lane by lane; `out`, `work0_out`, `work1_out` the
  three regions after the call (pre-filled with out_fill_byte before src was written);
  `coeff_words` the ten words at coeff_addr on NPU 0 after the load.

  Case `op` = `bdc_sfu` (`func` = `fp32_log`): `tpu_bdc_load_fp32_log_coeff(coeff_addr)`,
  `tpu_poll`, then `tpu_bdc_fp32_log(dst, src, work, coeff_addr, shape)`, all f32 in the
  aligned layout: per operand `<name>_addr`, `<name>_extent`; `src` listed lane by lane; `out`
  and `work_out` the regions after the call (pre-filled with out_fill_byte before src was
  written); `coeff_words` the 16 words at coeff_addr on NPU 0 after the load.

  Case `op` = `kernel_softmax`: the call sequence of npusim's `kernels::softmax_last_axis`
  (S2L, max pool, sub, exp, avg pool as a sum, div, L2S; see `run_softmax`) on the f32 tensor
  `(n, rows, c)` `src` (channels last); `out` the result in global memory.

How it drives the C-model
  As scripts/gen_hau_golden.py: `cmodel_init` then `tpu_initialize`, the FP environment
  restored after `cmodel_init`, data only as integer bit patterns. Local memory is reached
  through `tpu_local_mem_addr(lane, 0)`. Every batch runs in a worker subprocess and each case
  of a batch that kills the model is re-run alone, so a rejected case is recorded, not lost.
"""

import argparse
import ctypes
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmodel import (DTYPE_CODE, ESIZE, FILL, dim4, get, open_lib, put, run_all,  # noqa: E402
                    worker, write_doc)

NPU, LMEM, EU_BYTES = 64, 1 << 18, 64


class CModel:
    def __init__(self, lib_path):
        lib = open_lib(lib_path, sfu=True)
        U64, I, U32, P = ctypes.c_ulonglong, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p
        for name, d, s in (("S2L", U32, U64), ("L2S", U64, U32), ("S2S", U64, U64),
                           ("L2L", U32, U32)):
            getattr(lib, "tpu_gdma_cpy_" + name).argtypes = [d, s, P, P, P, I]
        self.lib = lib
        self.gm = lib.get_global_memaddr(0)
        self.gm_dev = lib.cmodel_get_gmem_start_addr()
        self.lm = lib.tpu_local_mem_addr(0, 0)

    def put(self, host, words, es):
        put(host, words, es)

    def get(self, host, n, es):
        return get(host, n, es)

    def region_put(self, local, addr, extent, es, words, c):
        if local:
            off = addr % LMEM
            for i, lane in enumerate(lanes(addr, c)):
                self.put(self.lm + lane * LMEM + off, words[i * extent:(i + 1) * extent], es)
        else:
            self.put(self.gm + addr, words, es)

    def region_fill(self, local, addr, extent, es, c):
        if local:
            off = addr % LMEM
            for lane in lanes(addr, c):
                ctypes.memset(self.lm + lane * LMEM + off, FILL, extent * es)
        else:
            ctypes.memset(self.gm + addr, FILL, extent * es)

    def region_get(self, local, addr, extent, es, c):
        if local:
            off = addr % LMEM
            out = []
            for lane in lanes(addr, c):
                out += self.get(self.lm + lane * LMEM + off, extent, es)
            return out
        return self.get(self.gm + addr, extent, es)

    def run(self, c):
        if c["op"] in ("bdc_bin", "bdc_const"):
            return self.run_bdc(c)
        if c["op"] == "bdc_unary":
            return self.run_unary(c)
        if c["op"] == "bdc_cmp":
            return self.run_cmp(c)
        if c["op"] == "bdc_int":
            return self.run_int(c)
        if c["op"] == "bdc_sel":
            return self.run_sel(c)
        if c["op"] == "bdc_sel2":
            return self.run_sel2(c)
        if c["op"] == "bdc_pool":
            return self.run_pool(c)
        if c["op"] == "bdc_sfu" and c["func"] in ("fp32_rsqrt", "fp32_sqrt"):
            return self.run_sqrt(c)
        if c["op"] == "bdc_sfu" and c["func"] == "fp32_log":
            return self.run_log(c)
        if c["op"] == "bdc_sfu":
            return self.run_sfu(c)
        if c["op"] == "kernel_softmax":
            return self.run_softmax(c)
        if c["op"] == "trans":
            return run_trans(self, c)
        es = ESIZE[c["dtype"]]
        d_local, s_local = c["dir"][2] == "L", c["dir"][0] == "L"
        ch = c["shape"][1]
        self.region_put(s_local, c["src_addr"], c["src_extent"], es, c["src"], ch)
        self.region_fill(d_local, c["dst_addr"], c["dst_extent"], es, ch)
        shape = dim4(*c["shape"])
        ds = dim4(*c["dst_stride"]) if c["dst_stride"] else None
        ss = dim4(*c["src_stride"]) if c["src_stride"] else None
        dst = c["dst_addr"] if d_local else self.gm_dev + c["dst_addr"]
        src = c["src_addr"] if s_local else self.gm_dev + c["src_addr"]
        getattr(self.lib, "tpu_gdma_cpy_" + c["dir"])(
            dst, src, ctypes.byref(shape), ctypes.byref(ds) if ds else None,
            ctypes.byref(ss) if ss else None, DTYPE_CODE[c["dtype"]])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(d_local, c["dst_addr"], c["dst_extent"], es, ch)
        return c


    def run_bdc(self, c):
        es = ESIZE[c["dtype"]]
        ch = c["shape"][1]
        names = ["src0", "src1"] if c["op"] == "bdc_bin" else ["src"]
        for nm in names:
            self.region_put(True, c[nm + "_addr"], c[nm + "_extent"], es, c[nm], ch)
        self.region_fill(True, c["dst_addr"], c["dst_extent"], es, ch)
        shape = dim4(*c["shape"])
        st = lambda k: ctypes.byref(dim4(*c[k])) if c.get(k) else None
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        if c["op"] == "bdc_bin":
            f.argtypes = [U32, U32, U32, P, P, P, P, I]
            f(c["dst_addr"], c["src0_addr"], c["src1_addr"], ctypes.byref(shape),
              st("dst_stride"), st("src0_stride"), st("src1_stride"), DTYPE_CODE[c["dtype"]])
        else:
            f.argtypes = [U32, U32, U32, P, P, P, I]
            f(c["dst_addr"], c["src_addr"], c["c_bits"], ctypes.byref(shape),
              st("dst_stride"), st("src_stride"), DTYPE_CODE[c["dtype"]])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], es, ch)
        return c


    def run_cmp(self, c):
        """`bdc_cmp`: tpu_bdc_equal/greater/less (dst, src0, src1, true_val, ...) and the `_C`
        forms (dst, src, C, true_val, ...), dst_dtype then src_dtype."""
        des, ses = ESIZE[c["dst_dtype"]], ESIZE[c["src_dtype"]]
        ch = c["shape"][1]
        const = c["func"].endswith("_C")
        names = ["src"] if const else ["src0", "src1"]
        for nm in names:
            self.region_put(True, c[nm + "_addr"], c[nm + "_extent"], ses, c[nm], ch)
        self.region_fill(True, c["dst_addr"], c["dst_extent"], des, ch)
        shape = ctypes.byref(dim4(*c["shape"]))
        st = lambda k: ctypes.byref(dim4(*c[k])) if c.get(k) else None
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        dt, sdt = DTYPE_CODE[c["dst_dtype"]], DTYPE_CODE[c["src_dtype"]]
        if const:
            f.argtypes = [U32, U32, U32, U32, P, P, P, I, I]
            f(c["dst_addr"], c["src_addr"], c["c_bits"], c["true_bits"], shape,
              st("dst_stride"), st("src_stride"), dt, sdt)
        else:
            f.argtypes = [U32, U32, U32, U32, P, P, P, P, I, I]
            f(c["dst_addr"], c["src0_addr"], c["src1_addr"], c["true_bits"], shape,
              st("dst_stride"), st("src0_stride"), st("src1_stride"), dt, sdt)
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], des, ch)
        return c

    def run_int(self, c):
        """`bdc_int`: tpu_bdc_int_add/sub/mul (dst, src0, src1, shape, strides, dst_dtype,
        src0_dtype, src1_dtype, shift, rounding_mode, saturation) and the `_C` forms
        (dst, src, C, shape, strides, dst_dtype, src_dtype, C_dtype, shift, mode, saturation)."""
        ch = c["shape"][1]
        const = c["func"].endswith("_C") or c["func"] == "int_C_sub"
        names = ["src"] if const else ["src0", "src1"]
        for nm in names:
            self.region_put(True, c[nm + "_addr"], c[nm + "_extent"], ESIZE[c[nm + "_dtype"]],
                            c[nm], ch)
        des = ESIZE[c["dst_dtype"]]
        self.region_fill(True, c["dst_addr"], c["dst_extent"], des, ch)
        shape = ctypes.byref(dim4(*c["shape"]))
        st = lambda k: ctypes.byref(dim4(*c[k])) if c.get(k) else None
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P, B, CH = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p, ctypes.c_bool, \
            ctypes.c_byte
        D = DTYPE_CODE
        if c["func"] in ("int_max_C", "int_min_C"):
            f.argtypes = [U32, U32, U32, P, P, P, I, CH, I]
            f(c["dst_addr"], c["src_addr"], c["c_bits"], shape, st("dst_stride"),
              st("src_stride"), D[c["dst_dtype"]], c["shift"], c["mode"])
        elif const:
            f.argtypes = [U32, U32, U32, P, P, P, I, I, I, CH, I, B]
            f(c["dst_addr"], c["src_addr"], c["c_bits"], shape, st("dst_stride"),
              st("src_stride"), D[c["dst_dtype"]], D[c["src_dtype"]], D[c["C_dtype"]],
              c["shift"], c["mode"], c["saturation"])
        else:
            f.argtypes = [U32, U32, U32, P, P, P, P, I, I, I, CH, I, B]
            f(c["dst_addr"], c["src0_addr"], c["src1_addr"], shape, st("dst_stride"),
              st("src0_stride"), st("src1_stride"), D[c["dst_dtype"]], D[c["src0_dtype"]],
              D[c["src1_dtype"]], c["shift"], c["mode"], c["saturation"])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], des, ch)
        return c

    def run_sel(self, c):
        """`bdc_sel`: tpu_bdc_<greater|less|equal>_select(dst, &src0, &src1, &src2, &src3,
        shape, src0_src1_dtype, dst_dtype); each source a tensor (aligned layout) or a scalar."""
        ch = c["shape"][1]
        names = ["src0", "src1", "src2", "src3"]
        for nm in names:
            if nm + "_addr" in c:
                self.region_put(True, c[nm + "_addr"], c[nm + "_extent"],
                                ESIZE[c[nm + "_dtype"]], c[nm], ch)
        des = ESIZE[c["dst_dtype"]]
        self.region_fill(True, c["dst_addr"], c["dst_extent"], des, ch)
        shape = ctypes.byref(dim4(*c["shape"]))
        vs = []
        for nm in names:
            if nm + "_addr" in c:
                vs.append(variable(0, c[nm + "_addr"]))
            else:
                vs.append(variable(1, c[nm + "_scalar"]))
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        f.argtypes = [U32, P, P, P, P, P, I, I]
        f(c["dst_addr"], *[ctypes.byref(v) for v in vs], shape, DTYPE_CODE[c["src_dtype"]],
          DTYPE_CODE[c["dst_dtype"]])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], des, ch)
        return c

    def run_sel2(self, c):
        """`bdc_sel2`: tpu_bdc_maximum_greater_select / minimum_less_select(dst0, dst1, &src0,
        &src1, &src2, &src3, shape, dst0_dtype, dst1_dtype); `out` is dst0 after the call,
        `out1` dst1."""
        ch = c["shape"][1]
        names = ["src0", "src1", "src2", "src3"]
        for nm in names:
            if nm + "_addr" in c:
                self.region_put(True, c[nm + "_addr"], c[nm + "_extent"],
                                ESIZE[c[nm + "_dtype"]], c[nm], ch)
        d0, d1 = ESIZE[c["dst_dtype"]], ESIZE[c["dst1_dtype"]]
        self.region_fill(True, c["dst_addr"], c["dst_extent"], d0, ch)
        self.region_fill(True, c["dst1_addr"], c["dst1_extent"], d1, ch)
        vs = [variable(0, c[nm + "_addr"]) if nm + "_addr" in c else
              variable(1, c[nm + "_scalar"]) for nm in names]
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        f.argtypes = [U32, U32, P, P, P, P, P, I, I]
        f(c["dst_addr"], c["dst1_addr"], *[ctypes.byref(v) for v in vs],
          ctypes.byref(dim4(*c["shape"])), DTYPE_CODE[c["dst_dtype"]],
          DTYPE_CODE[c["dst1_dtype"]])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], d0, ch)
        c["out1"] = self.region_get(True, c["dst1_addr"], c["dst1_extent"], d1, ch)
        return c

    def run_pool(self, c):
        """`bdc_pool`: tpu_bdc_fp_<max|avg>_pool2d(output, input, input_shape, kernel, padding,
        stride, dilation, dtype, pad_val | scale); input and output in the aligned layout."""
        ch = c["shape"][1]
        es = ESIZE[c["dtype"]]
        self.region_put(True, c["src_addr"], c["src_extent"], es, c["src"], ch)
        self.region_fill(True, c["dst_addr"], c["dst_extent"], es, ch)
        d2 = lambda v: ctypes.byref(dim2(*v))
        f = getattr(self.lib, "tpu_bdc_fp_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        f.argtypes = [U32, U32, P, P, P, P, P, I, U32]
        f(c["dst_addr"], c["src_addr"], ctypes.byref(dim4(*c["shape"])), d2(c["kernel"]),
          ctypes.byref(padding(*c["padding"])), d2(c["stride"]), d2(c["dilation"]),
          DTYPE_CODE[c["dtype"]], c["c_bits"])
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], es, ch)
        return c

    def run_sfu(self, c):
        """`bdc_sfu`: `tpu_bdc_load_fp32_exp_coeff(coeff_addr)`, `tpu_bdc_load_fp32_exp_table(
        table_addr)`, then `tpu_bdc_fp32_exp(dst, src, work0, work1, coeff_addr, table_addr,
        shape)`; every tensor f32 in the aligned layout. Outputs are pre-filled first, then the
        source is written (so an output equal to the source starts with the source)."""
        ch = c["shape"][1]
        U32, P = ctypes.c_uint32, ctypes.c_void_p
        for nm in ("dst", "work0", "work1"):
            self.region_fill(True, c[nm + "_addr"], c[nm + "_extent"], 4, ch)
        self.region_put(True, c["src_addr"], c["src_extent"], 4, c["src"], ch)
        for nm in ("coeff", "table"):
            f = getattr(self.lib, "tpu_bdc_load_fp32_exp_" + nm)
            f.argtypes = [U32]
            f(c[nm + "_addr"])
        self.lib.tpu_poll()
        f = self.lib.tpu_bdc_fp32_exp
        f.argtypes = [U32] * 6 + [P]
        f(c["dst_addr"], c["src_addr"], c["work0_addr"], c["work1_addr"], c["coeff_addr"],
          c["table_addr"], ctypes.byref(dim4(*c["shape"])))
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        for nm, key in (("dst", "out"), ("work0", "work0_out"), ("work1", "work1_out")):
            c[key] = self.region_get(True, c[nm + "_addr"], c[nm + "_extent"], 4, ch)
        c["coeff_words"] = self.get(self.lm + c["coeff_addr"] % LMEM, 10, 4)
        return c

    def run_sqrt(self, c):
        """`bdc_sfu` with `func` `fp32_rsqrt` or `fp32_sqrt`: `tpu_bdc_fp32_<func>(dst, src,
        shape)`, f32 in the aligned layout; dst is pre-filled, then the source written."""
        ch = c["shape"][1]
        U32, P = ctypes.c_uint32, ctypes.c_void_p
        self.region_fill(True, c["dst_addr"], c["dst_extent"], 4, ch)
        self.region_put(True, c["src_addr"], c["src_extent"], 4, c["src"], ch)
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        f.argtypes = [U32, U32, P]
        f(c["dst_addr"], c["src_addr"], ctypes.byref(dim4(*c["shape"])))
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], 4, ch)
        return c

    def run_log(self, c):
        """`bdc_sfu` with `func` `fp32_log`: `tpu_bdc_load_fp32_log_coeff(coeff_addr)`, then
        `tpu_bdc_fp32_log(dst, src, work, coeff_addr, shape)`; every tensor f32 in the aligned
        layout. Outputs are pre-filled first, then the source is written."""
        ch = c["shape"][1]
        U32, P = ctypes.c_uint32, ctypes.c_void_p
        for nm in ("dst", "work"):
            self.region_fill(True, c[nm + "_addr"], c[nm + "_extent"], 4, ch)
        self.region_put(True, c["src_addr"], c["src_extent"], 4, c["src"], ch)
        self.lib.tpu_bdc_load_fp32_log_coeff.argtypes = [U32]
        self.lib.tpu_bdc_load_fp32_log_coeff(c["coeff_addr"])
        self.lib.tpu_poll()
        f = self.lib.tpu_bdc_fp32_log
        f.argtypes = [U32] * 4 + [P]
        f(c["dst_addr"], c["src_addr"], c["work_addr"], c["coeff_addr"],
          ctypes.byref(dim4(*c["shape"])))
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        for nm, key in (("dst", "out"), ("work", "work_out")):
            c[key] = self.region_get(True, c[nm + "_addr"], c[nm + "_extent"], 4, ch)
        c["coeff_words"] = self.get(self.lm + c["coeff_addr"] % LMEM, 16, 4)
        return c

    def run_softmax(self, c):
        """`kernel_softmax`: the call sequence of npusim's `kernels::softmax_last_axis` (same
        local buffer plan: in, max, shifted, exp, work0, work1, sum, out, coefficients, one
        after the other from offset 0, 64-byte aligned)."""
        n, rows, ch = c["n"], c["rows"], c["c"]
        U32, U64, P, I = ctypes.c_uint32, ctypes.c_ulonglong, ctypes.c_void_p, ctypes.c_int
        L, B = self.lib, ctypes.byref
        slots = (rows + NPU - 1) // NPU
        big = n * slots * align(ch, 16) * 4
        small = n * slots * 16 * 4
        plan, at = [], 0
        for size in (big, small, big, big, big, big, small, big, 64):
            plan.append(at)
            at += align(size, 64)
        inp, mx, sh_, ex, w0, w1, sm, out, co = plan
        L.tpu_gdma_cpy_S2L.argtypes = [U32, U64, P, P, P, I]
        L.tpu_gdma_cpy_L2S.argtypes = [U64, U32, P, P, P, I]
        for f in ("max", "avg"):
            getattr(L, "tpu_bdc_fp_%s_pool2d" % f).argtypes = [U32, U32, P, P, P, P, P, I, U32]
        for f in ("sub", "div"):
            getattr(L, "tpu_bdc_fp_" + f).argtypes = [U32, U32, U32, P, P, P, P, I]
        L.tpu_bdc_fp32_exp.argtypes = [U32] * 6 + [P]
        L.tpu_bdc_load_fp32_exp_coeff.argtypes = [U32]
        L.tpu_bdc_load_fp32_exp_table.argtypes = [U32]
        total = n * rows * ch
        self.put(self.gm, c["src"], 4)
        out_off = align(total * 4, 4096)
        ctypes.memset(self.gm + out_off, FILL, total * 4)
        shape, g = dim4(n, rows, 1, ch), dim4(rows * ch, ch, ch, 1)
        bc = dim4(slots * 16, 16, 0, 0)
        row, one, nopad = dim2(1, ch), dim2(1, 1), padding(0, 0, 0, 0)
        L.tpu_gdma_cpy_S2L(inp, self.gm_dev, B(shape), None, B(g), 5)
        L.tpu_bdc_fp_max_pool2d(mx, inp, B(shape), B(row), B(nopad), B(one), B(one), 5,
                                0xFF800000)
        L.tpu_bdc_fp_sub(sh_, inp, mx, B(shape), None, None, B(bc), 5)
        L.tpu_bdc_load_fp32_exp_coeff(co)
        L.tpu_bdc_load_fp32_exp_table(co)
        L.tpu_bdc_fp32_exp(ex, sh_, w0, w1, co, co, B(shape))
        L.tpu_bdc_fp_avg_pool2d(sm, ex, B(shape), B(row), B(nopad), B(one), B(one), 5,
                                0x3F800000)
        L.tpu_bdc_fp_div(out, ex, sm, B(shape), None, None, B(bc), 5)
        L.tpu_gdma_cpy_L2S(self.gm_dev + out_off, out, B(shape), B(g), None, 5)
        L.tpu_poll()
        c["out"] = self.get(self.gm + out_off, total, 4)
        return c

    def run_unary(self, c):
        """`bdc_unary`: tpu_bdc_cast / set_C / cpy / npu_bcast."""
        des, ses = ESIZE[c["dst_dtype"]], ESIZE[c["src_dtype"]]
        ch = c["shape"][1]
        if c["func"] != "set_C":
            self.region_put(True, c["src_addr"], c["src_extent"], ses, c["src"],
                            c["src_channels"])
        self.region_fill(True, c["dst_addr"], c["dst_extent"], des, ch)
        shape = ctypes.byref(dim4(*c["shape"]))
        st = lambda k: ctypes.byref(dim4(*c[k])) if c.get(k) else None
        f = getattr(self.lib, "tpu_bdc_" + c["func"])
        U32, I, P = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
        dt, sdt = DTYPE_CODE[c["dst_dtype"]], DTYPE_CODE[c["src_dtype"]]
        if c["func"] == "cast":
            f.argtypes = [U32, U32, P, P, P, I, I, I]
            f(c["dst_addr"], c["src_addr"], shape, st("dst_stride"), st("src_stride"), dt, sdt,
              c["mode"])
        elif c["func"] == "set_C":
            f.argtypes = [U32, U32, P, P, I]
            f(c["dst_addr"], c["c_bits"], shape, st("dst_stride"), dt)
        elif c["func"] == "cpy":
            f.argtypes = [U32, U32, P, P, P, I]
            f(c["dst_addr"], c["src_addr"], shape, st("dst_stride"), st("src_stride"), dt)
        else:
            f.argtypes = [U32, U32, P, I]
            f(c["dst_addr"], c["src_addr"], shape, dt)
        self.lib.tpu_poll()
        c["out_fill_byte"] = FILL
        c["out"] = self.region_get(True, c["dst_addr"], c["dst_extent"], des, ch)
        return c


class dim2(ctypes.Structure):
    _fields_ = [(c, ctypes.c_int) for c in "hw"]


class padding(ctypes.Structure):
    _fields_ = [(c, ctypes.c_int) for c in ("top", "bottom", "left", "right")]


class variable(ctypes.Structure):
    """`variable_t`: `{var_type_t type; union {scalar_t scalar; local_addr_t addr;} context}`
    (type 0 = TENSOR, 1 = SCALAR)."""
    _fields_ = [("type", ctypes.c_int), ("context", ctypes.c_uint32)]


# ---------------------------------------------------------------------------------------------
# Plain layout model (TPU-Kernel reference) used to size regions.

def lanes(addr, c):
    """Lanes a local tensor of c channels at addr uses, in channel order."""
    start = addr // LMEM
    return [(start + i) % NPU for i in range(min(c, NPU))]


def align(x, a):
    return (x + a - 1) // a * a


def default_stride(local, start, shape, es):
    n, c, h, w = shape
    if local:
        cs = align(h * w, EU_BYTES // es)
        return [cs * ((start + c + NPU - 1) // NPU), cs, w, 1]
    return [c * h * w, h * w, w, 1]


def extent(local, start, shape, stride):
    n, c, h, w = shape
    cslots = (start + c - 1) // NPU if local else c - 1
    return (n - 1) * stride[0] + cslots * stride[1] + (h - 1) * stride[2] + (w - 1) * stride[3] + 1


def gdma_case(rng, direction, dtype, shape, d_stride=None, s_stride=None, d_addr=None,
              s_addr=None):
    es = ESIZE[dtype]
    d_local, s_local = direction[2] == "L", direction[0] == "L"

    def pick(local, given):
        if given is not None:
            return given
        if local:
            return rng.randrange(NPU) * LMEM + rng.randrange(0, 0x800, 4)
        return rng.randrange(0, 0x1000, 4)

    d_addr = pick(d_local, d_addr)
    s_addr = pick(s_local, s_addr)
    if not d_local and not s_local:
        d_addr += 0x200000  # keep S2S regions apart
    if d_local and s_local:
        d_addr = (d_addr // LMEM) * LMEM + 0x20000 + (d_addr % LMEM)  # keep L2L regions apart
    ds = d_stride or default_stride(d_local, d_addr // LMEM, shape, es)
    ss = s_stride or default_stride(s_local, s_addr // LMEM, shape, es)
    d_ext = extent(d_local, d_addr // LMEM, shape, ds)
    s_ext = extent(s_local, s_addr // LMEM, shape, ss)
    s_words = s_ext * (min(shape[1], NPU) if s_local else 1)
    return {"op": "gdma_cpy", "dir": direction, "dtype": dtype, "shape": list(shape),
            "dst_addr": d_addr, "src_addr": s_addr, "dst_stride": d_stride,
            "src_stride": s_stride, "dst_extent": d_ext, "src_extent": s_ext,
            "src": [rng.getrandbits(8 * es) for _ in range(s_words)]}


def random_stride(rng, local, start, shape, es):
    """An explicit stride: compact, line-aligned or free with a w stride of 1..max."""
    n, c, h, w = shape
    kind = rng.randrange(3)
    slots = (start + c + NPU - 1) // NPU if local else c
    if kind == 0:  # compact
        cs = h * w
        return [cs * slots, cs, w, 1]
    if kind == 1:  # line-aligned
        hs = align(w, EU_BYTES // es)
        return [h * hs * slots, h * hs, hs, 1]
    ws = rng.choice([1, 2, 3, 128 // es]) if rng.random() < 0.9 else rng.randint(1, 128 // es)
    hs = w * ws + rng.randrange(3)
    cs = h * hs + rng.randrange(3)
    return [cs * slots + rng.randrange(3), cs, hs, ws]


def gdma_cases(rng):
    cases = []
    dtypes = list(DTYPE_CODE)
    for direction in ("S2L", "L2S", "S2S", "L2L"):
        for i in range(24):
            dtype = dtypes[i % len(dtypes)]
            es = ESIZE[dtype]
            shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 65, 70, rng.randint(1, 140)]),
                     rng.randint(1, 3), rng.randint(1, 11))
            d_local, s_local = direction[2] == "L", direction[0] == "L"
            dstart, sstart = rng.randrange(NPU), rng.randrange(NPU)
            if i % 3 == 0:
                cases.append(gdma_case(rng, direction, dtype, shape))
                continue
            ds = random_stride(rng, d_local, dstart, shape, es) if rng.random() < 0.7 else None
            ss = random_stride(rng, s_local, sstart, shape, es) if rng.random() < 0.7 else None
            c = gdma_case(rng, direction, dtype, shape, ds, ss,
                          dstart * LMEM + rng.randrange(0, 0x400, 4) if d_local else None,
                          sstart * LMEM + rng.randrange(0, 0x400, 4) if s_local else None)
            lanes_used = min(shape[1], NPU)
            if (c["dst_extent"] * (lanes_used if d_local else 1) + len(c["src"])) > 40000:
                # keep the file small: wide strides on a big tensor take the default layouts
                c = gdma_case(rng, direction, dtype, shape)
            cases.append(c)
    # Expected rejections: w stride over 128 bytes, local tensor past its lane.
    cases.append(gdma_case(rng, "S2L", "f32", (1, 1, 1, 3), [99, 99, 99, 33], None, 0, 0))
    cases.append(gdma_case(rng, "L2S", "i8", (1, 2, 1, 3), None, [999, 999, 999, 129], 0, 0))
    cases.append(gdma_case(rng, "S2L", "f32", (1, 1, 1, 16), None, None, LMEM - 32, 0))
    return cases


def gdma_align_cases(rng):
    """`--kind gdma_align` (golden/tpu/gdma_align.json): element alignment of the GDMA copies."""
    cases = []
    # Element alignment (the C-model asserts `(dst_start_offset & type_mask) == 0`, then the
    # same of the source, local and system sides alike): every direction with a destination,
    # then a source, one to three bytes off the element grid (refused), and element-aligned
    # addresses off the 4-byte grid (accepted).
    for direction in ("S2L", "L2S", "S2S", "L2L"):
        d_local, s_local = direction[2] == "L", direction[0] == "L"
        base = lambda local, start: start * LMEM + 0x100 if local else 0x300
        ds, ss = rng.randrange(NPU), rng.randrange(NPU)
        for dtype, d_off, s_off in (("f32", 2, 0), ("f32", 0, 1), ("f32", 3, 0),
                                    ("i32", 0, 2), ("f16", 1, 0), ("bf16", 0, 3),
                                    ("u16", 0, 1), ("f16", 2, 6), ("i16", 6, 2),
                                    ("i8", 3, 5), ("u8", 1, 7)):
            shape = (1, rng.choice([1, 3, 65]), rng.randint(1, 2), rng.randint(1, 7))
            cases.append(gdma_case(rng, direction, dtype, shape, None, None,
                                   base(d_local, ds) + d_off, base(s_local, ss) + s_off))
    return cases


F32_SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
               0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
               0x3F800000, 0xBF800000, 0x40000000]
H_SPECIAL = {"f16": [0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
                     0x7E00, 0xFE01, 0x7C01, 0x3C00, 0xBC00, 0x4000],
             "bf16": [0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80,
                      0x7FC0, 0xFFC1, 0x7F81, 0x3F80, 0xBF80, 0x4000]}


def fp_value(rng, dtype):
    r = rng.random()
    if dtype == "f32":
        if r < 0.25:
            return rng.choice(F32_SPECIAL)
        if r < 0.35:
            return rng.randrange(1, 0x800000) | (rng.getrandbits(1) << 31)
        if r < 0.7:
            # moderate magnitudes, so sums and products round
            return ((rng.randrange(0x3C000000, 0x43000000)) | (rng.getrandbits(1) << 31))
        return rng.getrandbits(32)
    if r < 0.25:
        return rng.choice(H_SPECIAL[dtype])
    if r < 0.35:
        return rng.randrange(1, 0x400 if dtype == "f16" else 0x80) | (rng.getrandbits(1) << 15)
    if r < 0.7:
        lo, hi = (0x2C00, 0x5400) if dtype == "f16" else (0x3C00, 0x4300)
        return rng.randrange(lo, hi) | (rng.getrandbits(1) << 15)
    return rng.getrandbits(16)


BDC_BIN = ["fp_add", "fp_sub", "fp_mul", "fp_div", "max", "min"]
BDC_CONST = ["fp_add_C", "fp_sub_C", "fp_C_sub", "fp_mul_C", "fp_div_C", "fp_C_div", "max_C",
             "min_C"]


def bdc_case(rng, func, dtype, shape, starts, const, strides=None, gen=None):
    gen = gen or fp_value
    es = ESIZE[dtype]
    names = ["dst", "src"] if const else ["dst", "src0", "src1"]
    c = {"op": "bdc_const" if const else "bdc_bin", "func": func, "dtype": dtype,
         "shape": list(shape)}
    offs = [0x100, 0x10000, 0x20000]
    for i, nm in enumerate(names):
        start = starts[i]
        addr = start * LMEM + offs[i]
        st = strides[i] if strides else None
        stride = st or default_stride(True, start, shape, es)
        stride = [max(stride[0], default_stride(True, start, shape, es)[0])] + stride[1:] \
            if st is None else stride
        c[nm + "_addr"] = addr
        c[nm + "_stride"] = st
        c[nm + "_extent"] = extent(True, start, shape, stride)
        if nm != "dst":
            c[nm] = [gen(rng, dtype) for _ in range(c[nm + "_extent"] * min(shape[1], NPU))]
    if const:
        v = gen(rng, dtype)
        c["c_bits"] = v if dtype == "f32" else (v | 0xFFFF0000 if v & 0x8000 else v)
    return c


def bdc_cases(rng, div=False):
    """Elementwise cases; `div` selects the fp_div family (its own file: not yet bit-exact)."""
    cases = []
    funcs = [f for f in BDC_BIN + BDC_CONST if ("div" in f) == div]
    for dtype in ("f32", "f16", "bf16"):
        for func in funcs:
            const = func in BDC_CONST
            for i in range(3):
                shape = (rng.randint(1, 2), rng.choice([1, 5, 64, 70]), rng.randint(1, 3),
                         rng.randint(1, 12))
                s = rng.randrange(NPU) if i else 0
                starts = [s, s] if const else [s, s, s]
                strides = None
                if i == 2:
                    n, ch, h, w = shape
                    comp = [h * w * ((s + ch + NPU - 1) // NPU), h * w, w, 1]
                    strides = [comp] * len(starts)
                cases.append(bdc_case(rng, func, dtype, shape, starts, const, strides))
    if div:
        return cases + div_extra_cases(rng)
    # Operands on different start lanes, a misaligned local address, an int dtype for fp_add.
    cases.append(bdc_case(rng, "fp_add", "f32", (1, 3, 1, 4), [0, 5, 0], False))
    cases.append(bdc_case(rng, "fp_add", "f32", (1, 3, 1, 4), [0, 0, 7], False))
    c = bdc_case(rng, "fp_add", "f32", (1, 3, 1, 4), [0, 0, 0], False)
    c["src0_addr"] += 4
    cases.append(c)
    c = bdc_case(rng, "fp_add", "f32", (1, 3, 1, 4), [0, 0, 0], False)
    c["dtype"] = "i32"
    cases.append(c)
    return cases


DIV_SPECIAL = [0x3F800000, 0xBF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFC12345,
               0x7F800001, 0, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x80000001, 0x7F7FFFFF,
               0x00800000, 0x40000000, 0x3F000000]


def div_extra_cases(rng):
    """fp_div: every pair of specials; mantissas of [1, 2) against [1, 2) and random
    magnitudes (the reciprocal's error pattern); start NPUs 0 and 37."""
    cases = []
    n = len(DIV_SPECIAL)
    a = [x for x in DIV_SPECIAL for _ in range(n)]
    b = [y for _ in range(n) for y in DIV_SPECIAL]
    for start in (0, 37):
        for vals in ((a, b), None):
            shape = (1, 3, 1, 97) if vals else (1, 70, 2, 37)
            c = bdc_case(rng, "fp_div", "f32", shape, [start] * 3, False)
            if vals:
                m = len(c["src0"])
                c["src0"] = [vals[0][i % len(vals[0])] for i in range(m)]
                c["src1"] = [vals[1][i % len(vals[1])] for i in range(m)]
            else:
                m = len(c["src0"])
                c["src0"] = [rng.randrange(0x3F800000, 0x40000000) if i % 2 else
                             rng.getrandbits(32) for i in range(m)]
                c["src1"] = [rng.randrange(0x3F800000, 0x40000000) if i % 3 else
                             rng.getrandbits(32) for i in range(m)]
            cases.append(c)
    return cases


def bits_of_f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


INT_RANGE = {"u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767),
             "u32": (0, (1 << 32) - 1), "i32": (-(1 << 31), (1 << 31) - 1)}


def any_value(rng, dtype):
    """A bit pattern of `dtype`: adversarial for floats (specials, ties, denormals) and ints
    (extremes)."""
    es = ESIZE[dtype]
    mask = (1 << (8 * es)) - 1
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        r = rng.random()
        if r < 0.3:
            v = rng.choice([lo, hi, 0, 1, -1 if lo < 0 else 2, lo + 1, hi - 1, 127, 128, 255,
                            256, 32767, 32768, 65535, 65536, 16777217])
            v = min(max(v, lo), hi)
        elif r < 0.6:
            v = rng.randint(-300, 300)
            v = min(max(v, lo), hi)
        else:
            v = rng.randint(lo, hi)
        return v & mask
    r = rng.random()
    if dtype == "f32" and r < 0.3:
        # halves and near-halves (float -> int ties), f16/bf16 rounding ties, big values
        k = rng.choice([0, 1, 2, 3])
        if k == 0:
            return bits_of_f32(rng.randint(-300, 300) + 0.5)
        if k == 1:
            return (rng.randrange(0x38800000, 0x47800000) & ~0x1FFF | 0x1000) | \
                (rng.getrandbits(1) << 31)
        if k == 2:
            return (rng.getrandbits(31) & ~0xFFFF | 0x8000) | (rng.getrandbits(1) << 31)
        return bits_of_f32(rng.choice([2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 65504.0, 65520.0,
                                       65519.0, 3.0e9, -3.0e9, 1e10, -1e10, 255.5, -128.5,
                                       127.5, 32767.5, -32768.5, 0.49999997, -0.5, 0.5, 1.5,
                                       2.5, -1.5, -2.5]))
    if dtype in ("f16", "bf16") and r < 0.15:
        return ((rng.randint(-300, 300) if dtype == "f16" else rng.randint(-100, 100)) * 2
                + 1) & mask
    return fp_value(rng, dtype) & mask


def unary_case(rng, func, dst_dtype, src_dtype, shape, starts, mode=0, strides=None,
               src_channels=None):
    c = {"op": "bdc_unary", "func": func, "dst_dtype": dst_dtype, "src_dtype": src_dtype,
         "shape": list(shape)}
    if func == "cast":
        c["mode"] = mode
    chs = {"dst": shape[1], "src": src_channels or shape[1]}
    offs = {"dst": 0x10000, "src": 0x200}
    names = ["dst"] if func == "set_C" else ["dst", "src"]
    for i, nm in enumerate(names):
        dtype = dst_dtype if nm == "dst" else src_dtype
        es = ESIZE[dtype]
        start = starts[i]
        addr = start * LMEM + offs[nm]
        sh = [shape[0], chs[nm], shape[2], shape[3]]
        st = strides[i] if strides else None
        stride = st or default_stride(True, start, sh, es)
        c[nm + "_addr"] = addr
        if nm == "src":
            c["src_channels"] = chs[nm]
        if func != "npu_bcast":
            c[nm + "_stride"] = st
        c[nm + "_extent"] = extent(True, start, sh, stride)
        if nm == "src":
            vals = []
            n = c["src_extent"] * min(chs[nm], NPU)
            while len(vals) < n:
                vals.append(any_value(rng, dtype))
            # put the specials of the type first so every case sees them
            if dtype in ("f32", "f16", "bf16"):
                sp = F32_SPECIAL if dtype == "f32" else H_SPECIAL[dtype]
                vals[:min(n, len(sp))] = sp[:n]
            c["src"] = vals
    if func == "set_C":
        v = any_value(rng, dst_dtype)
        es = ESIZE[dst_dtype]
        c["c_bits"] = v | (0xFFFF0000 if es == 2 and v & 0x8000 else 0) | \
            (0xFFFFFF00 if es == 1 and v & 0x80 else 0)
    return c


def compact_stride(start, shape):
    n, ch, h, w = shape
    return [h * w * ((start + ch + NPU - 1) // NPU), h * w, w, 1]


def cast_cases(rng):
    cases = []
    dts = list(DTYPE_CODE)
    for sdt in dts:
        for ddt in dts:
            if sdt == ddt:
                continue
            for mode in range(7):
                shape = (1, rng.choice([1, 3, 5]), rng.randint(1, 2), rng.randint(8, 24))
                s = rng.randrange(NPU) if mode % 2 else 0
                cases.append(unary_case(rng, "cast", ddt, sdt, shape, [s, s], mode))
    # odd shapes, explicit strides, start lanes past 0 and channels across the wrap
    for i in range(12):
        sdt, ddt = rng.choice([("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("f32", "i8"),
                               ("f32", "i32"), ("i32", "f32"), ("i16", "i8"), ("u8", "f16")])
        shape = (rng.randint(1, 2), rng.choice([64, 65, 70]), rng.randint(1, 3),
                 rng.randint(1, 7))
        s = rng.randrange(NPU)
        st = [compact_stride(s, shape)] * 2 if i % 2 else None
        cases.append(unary_case(rng, "cast", ddt, sdt, shape, [s, s], rng.randrange(7), st))
    # rejections: a misaligned address, operands on different start lanes, a bad mode
    c = unary_case(rng, "cast", "f16", "f32", (1, 2, 1, 4), [0, 0])
    c["src_addr"] += 4
    cases.append(c)
    cases.append(unary_case(rng, "cast", "f16", "f32", (1, 2, 1, 4), [0, 3]))
    cases.append(unary_case(rng, "cast", "f16", "f32", (1, 2, 1, 4), [0, 0], 7))
    return cases


def move_cases(rng):
    cases = []
    for dtype in DTYPE_CODE:
        for i in range(3):
            shape = (rng.randint(1, 2), rng.choice([1, 5, 64, 70]), rng.randint(1, 3),
                     rng.randint(1, 9))
            s = rng.randrange(NPU) if i else 0
            st = [compact_stride(s, shape)] if i == 2 else None
            cases.append(unary_case(rng, "set_C", dtype, dtype, shape, [s], strides=st))
            st2 = [compact_stride(s, shape)] * 2 if i == 2 else None
            cases.append(unary_case(rng, "cpy", dtype, dtype, shape, [s, s], strides=st2))
            t = rng.randrange(NPU) if i == 1 else s
            cases.append(unary_case(rng, "cpy", dtype, dtype, shape, [s, t]))
            bshape = (shape[0], rng.choice([1, 7, 64]), shape[2], shape[3])
            cases.append(unary_case(rng, "npu_bcast", dtype, dtype, bshape, [s, t],
                                    src_channels=1))
    # rejections and edges
    c = unary_case(rng, "cpy", "f32", "f32", (1, 2, 1, 4), [0, 0])
    c["dst_addr"] += 4
    cases.append(c)
    cases.append(unary_case(rng, "npu_bcast", "f32", "f32", (1, 65, 1, 4), [0, 0],
                            src_channels=1))
    cases.append(unary_case(rng, "npu_bcast", "f32", "f32", (1, 64, 1, 4), [5, 0],
                            src_channels=1))
    return cases


def sext(v, es):
    """A bit pattern of `es` bytes as the 32-bit scalar_t callers pass (sign-extended)."""
    if es == 2 and v & 0x8000:
        return v | 0xFFFF0000
    if es == 1 and v & 0x80:
        return v | 0xFFFFFF00
    return v


def cmp_case(rng, func, dst_dtype, src_dtype, shape, starts, strides=None):
    const = func.endswith("_C")
    names = ["dst", "src"] if const else ["dst", "src0", "src1"]
    c = {"op": "bdc_cmp", "func": func, "dst_dtype": dst_dtype, "src_dtype": src_dtype,
         "shape": list(shape)}
    offs = [0x100, 0x10000, 0x20000]
    for i, nm in enumerate(names):
        dtype = dst_dtype if nm == "dst" else src_dtype
        es = ESIZE[dtype]
        start = starts[i]
        st = strides[i] if strides else None
        stride = st or default_stride(True, start, shape, es)
        c[nm + "_addr"] = start * LMEM + offs[i]
        c[nm + "_stride"] = st
        c[nm + "_extent"] = extent(True, start, shape, stride)
    n = c[names[1] + "_extent"] * min(shape[1], NPU)
    es = ESIZE[src_dtype]
    if const:
        c["src"] = [any_value(rng, src_dtype) for _ in range(n)]
        c["c_bits"] = sext(rng.choice(c["src"]) if rng.random() < 0.7
                           else any_value(rng, src_dtype), es)
    else:
        a = [any_value(rng, src_dtype) for _ in range(n)]
        # a third of the pairs equal, so equal/greater/less all fire; specials against specials
        b = [x if rng.random() < 0.3 else any_value(rng, src_dtype) for x in a]
        if src_dtype in ("f32", "f16", "bf16"):
            sp = F32_SPECIAL if src_dtype == "f32" else H_SPECIAL[src_dtype]
            k = min(n, len(sp) * len(sp))
            for j in range(k):
                a[j], b[j] = sp[j // len(sp)], sp[j % len(sp)]
        c["src0"], c["src1"] = a, b
    tv = rng.choice([1, 0xFFFFFFFF, 0x3F800000, rng.getrandbits(32)])
    c["true_bits"] = tv
    return c


CMP_FUNCS = ["equal", "greater", "less", "equal_C", "greater_C", "less_C"]


def cmp_cases(rng):
    cases = []
    dts = list(DTYPE_CODE)
    for func in CMP_FUNCS:
        for sdt in dts:
            for k in range(2):
                ddt = sdt if k == 0 else rng.choice(dts)
                shape = (1, rng.choice([1, 3, 5]), rng.randint(1, 3),
                         rng.randint(8, 24) if sdt in ("f32", "f16", "bf16") else
                         rng.randint(1, 12))
                if sdt in ("f32", "f16", "bf16") and not func.endswith("_C"):
                    shape = (1, 1, 15, 16)  # room for every special pair
                s = rng.randrange(NPU) if k else 0
                starts = [s] * (2 if func.endswith("_C") else 3)
                cases.append(cmp_case(rng, func, ddt, sdt, shape, starts))
    for i in range(6):
        func = rng.choice(CMP_FUNCS)
        sdt = rng.choice(dts)
        shape = (rng.randint(1, 2), rng.choice([64, 65, 70]), rng.randint(1, 2), rng.randint(1, 5))
        s = rng.randrange(NPU)
        nops = 2 if func.endswith("_C") else 3
        st = [compact_stride(s, shape)] * nops if i % 2 else None
        cases.append(cmp_case(rng, func, sdt, sdt, shape, [s] * nops, st))
    # rejections: misaligned source, operands on different start NPUs
    c = cmp_case(rng, "greater", "f32", "f32", (1, 2, 1, 4), [0, 0, 0])
    c["src1_addr"] += 4
    cases.append(c)
    cases.append(cmp_case(rng, "less", "i8", "i8", (1, 2, 1, 4), [0, 0, 9]))
    return cases


BIT_FUNCS = ["and", "or", "xor", "and_C", "or_C", "xor_C"]


def bit_cases(rng):
    cases = []
    for func in BIT_FUNCS:
        const = func.endswith("_C")
        for dtype in DTYPE_CODE:
            for i in range(2):
                shape = (rng.randint(1, 2), rng.choice([1, 5, 17, 70]), 1, rng.randint(1, 9))
                s = rng.randrange(NPU) if i else 0
                starts = [s, s] if const else [s, s, s]
                n, ch, h, w = shape
                st = [compact_stride(s, shape)] * len(starts)  # small file: compact layout
                cases.append(bdc_case(rng, func, dtype, shape, starts, const, st, any_value))
    return cases


INT_TYPES = ["u8", "i8", "u16", "i16", "u32", "i32"]


def int_case(rng, func, dst_dtype, src_dtypes, shape, starts, shift, mode, sat,
             aligned=False):
    const = func.endswith("_C") or func == "int_C_sub"
    names = ["dst", "src"] if const else ["dst", "src0", "src1"]
    c = {"op": "bdc_int", "func": func, "dst_dtype": dst_dtype, "shape": list(shape),
         "shift": shift, "mode": mode, "saturation": sat}
    offs = [0x100, 0x10000, 0x20000]
    for i, nm in enumerate(names):
        dtype = dst_dtype if nm == "dst" else src_dtypes[i - 1]
        es = ESIZE[dtype]
        start = starts[i]
        st = None if aligned else compact_stride(start, shape)
        c[nm + "_addr"] = start * LMEM + offs[i]
        c[nm + "_stride"] = st
        c[nm + "_extent"] = extent(True, start, shape,
                                   st or default_stride(True, start, shape, es))
        if nm != "dst":
            c[nm + "_dtype"] = dtype
            c[nm] = [any_value(rng, dtype) for _ in range(c[nm + "_extent"] * min(shape[1], NPU))]
    if const:
        c["C_dtype"] = src_dtypes[1]
        c["c_bits"] = sext(any_value(rng, src_dtypes[1]), ESIZE[src_dtypes[1]])
    return c


INT_FUNCS = ["int_add", "int_sub", "int_mul", "int_add_C", "int_sub_C", "int_C_sub",
             "int_mul_C", "int_max_C", "int_min_C"]
SHIFTS = [0, 0, 0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 127, -1, -2, -5, -7, -8, -9, -15, -16,
          -17, -31, -32, -33, -128]


def int_cases(rng):
    """tpu_bdc_int_add/sub/mul (+ _C), int_max_C/int_min_C: every legal signedness pattern,
    every rounding_mode_t, shifts -128..127 (positive: left), saturation on and off, start
    NPUs 0..63, compact and aligned layouts; rejected calls (destination signedness); an
    operand address off the 64-byte grid (accepted by the C-model for these functions)."""
    cases = []
    for func in INT_FUNCS:
        for k in range(24):
            if func in ("int_max_C", "int_min_C"):
                a = rng.choice(INT_TYPES)
                b, d = a, a
            else:
                a, b = rng.choice(INT_TYPES), rng.choice(INT_TYPES)
                if k < 4:  # same type in and out
                    b = a
                signed = (a[0] == "i" or b[0] == "i") if "sub" not in func else True
                d = rng.choice([t for t in INT_TYPES if (t[0] == "i") == signed])
            shift = rng.choice(SHIFTS)
            mode = k % 7
            sat = bool(k % 2)
            shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 70]), rng.randint(1, 2),
                     rng.randint(1, 12))
            s = rng.randrange(NPU) if k % 4 else 0
            starts = [s, s] if func.endswith("_C") or func == "int_C_sub" else [s, s, s]
            cases.append(int_case(rng, func, d, [a, b], shape, starts, shift, mode, sat,
                                  aligned=k % 3 == 0))
    # rejections: destination signedness; a source off the 64-byte grid (accepted)
    cases.append(int_case(rng, "int_add", "u8", ["i8", "u8"], (1, 2, 1, 4), [0, 0, 0], 0, 0,
                          False))
    cases.append(int_case(rng, "int_mul_C", "i16", ["u16", "u8"], (1, 2, 1, 4), [0, 0], 0, 0,
                          False))
    cases.append(int_case(rng, "int_sub", "u32", ["u32", "u32"], (1, 2, 1, 4), [0, 0, 0], 0,
                          0, False))
    cases.append(int_case(rng, "int_sub_C", "u8", ["i8", "i8"], (1, 2, 1, 4), [0, 0], 0, 0,
                          True))
    cases.append(int_case(rng, "int_C_sub", "u8", ["u8", "u8"], (1, 2, 1, 4), [0, 0], 0, 0,
                          False))
    c = int_case(rng, "int_add", "i32", ["i32", "i32"], (1, 2, 1, 4), [0, 0, 0], 0, 0, False)
    c["src1_addr"] += 4
    cases.append(c)
    # tpu_bdc_max/min and _C on integer dtypes (the float functions take them too)
    for func in ["max", "min", "max_C", "min_C"]:
        const = func.endswith("_C")
        for dtype in INT_TYPES:
            shape = (rng.randint(1, 2), rng.choice([1, 5, 17, 70]), rng.randint(1, 2),
                     rng.randint(1, 9))
            s = rng.randrange(NPU)
            starts = [s, s] if const else [s, s, s]
            st = [compact_stride(s, shape)] * len(starts) if rng.random() < 0.5 else None
            cases.append(bdc_case(rng, func, dtype, shape, starts, const, st, any_value))
    return cases


SEL_FUNCS = ["greater_select", "less_select", "equal_select"]


def sel_case(rng, func, src_dtype, dst_dtype, shape, start, tensors, gen=None):
    """Sources src0/src1 (`src_dtype`), src2/src3 (`dst_dtype`): a tensor (aligned layout, on
    the destination's start NPU) where `tensors[i]`, else a scalar (`<name>_scalar`)."""
    c = {"op": "bdc_sel", "func": func, "src_dtype": src_dtype, "dst_dtype": dst_dtype,
         "shape": list(shape)}
    offs = {"dst": 0x100, "src0": 0x10000, "src1": 0x20000, "src2": 0x30000, "src3": 0x8000}
    es = ESIZE[dst_dtype]
    c["dst_addr"] = start * LMEM + offs["dst"]
    c["dst_extent"] = extent(True, start, shape, default_stride(True, start, shape, es))
    n = None
    for i, nm in enumerate(["src0", "src1", "src2", "src3"]):
        dt = src_dtype if i < 2 else dst_dtype
        if tensors[i]:
            c[nm + "_addr"] = start * LMEM + offs[nm]
            c[nm + "_dtype"] = dt
            c[nm + "_extent"] = extent(True, start, shape,
                                       default_stride(True, start, shape, ESIZE[dt]))
            cnt = c[nm + "_extent"] * min(shape[1], NPU)
            if nm == "src1" and "src0" in c and rng.random() < 0.7:
                # a third of the pairs equal where the layouts match
                c[nm] = [x if rng.random() < 0.35 else any_value(rng, dt) for x in c["src0"]]
            else:
                c[nm] = [any_value(rng, dt) for _ in range(cnt)]
            if nm == "src1" and "src0" in c and dt in ("f32", "f16", "bf16"):
                sp = F32_SPECIAL if dt == "f32" else H_SPECIAL[dt]
                k = min(cnt, len(sp) * len(sp))
                for j in range(k):
                    c["src0"][j], c["src1"][j] = sp[j // len(sp)], sp[j % len(sp)]
        else:
            c[nm + "_scalar"] = sext(any_value(rng, dt), ESIZE[dt])
    return c


def sel2_case(rng, func, d0, d1, shape, start, tensors):
    """src0/src1 in `d0` (the compared type, also dst0's), src2/src3 in `d1` (dst1's)."""
    c = sel_case(rng, func, d0, d1, shape, start, tensors)
    c["op"] = "bdc_sel2"
    del c["src_dtype"]
    c["dst_dtype"], c["dst1_dtype"] = d0, d1
    es0 = ESIZE[d0]
    c["dst_extent"] = extent(True, start, shape, default_stride(True, start, shape, es0))
    c["dst1_addr"] = start * LMEM + 0x38000
    c["dst1_extent"] = extent(True, start, shape, default_stride(True, start, shape, ESIZE[d1]))
    return c


def sel2_cases(rng):
    """tpu_bdc_maximum_greater_select / minimum_less_select: dst0 = max/min(src0, src1),
    dst1 = src0 >/< src1 ? src2 : src3; every dtype pair, tensors and scalars, start NPUs
    0..63, every pair of float specials; rejections."""
    cases = []
    dts = list(DTYPE_CODE)
    for func in ["maximum_greater_select", "minimum_less_select"]:
        for d0 in dts:
            for k in range(4):
                same = [t for t in dts if ESIZE[t] == ESIZE[d0]]
                d1 = d0 if k == 0 else rng.choice(same) if k < 3 else rng.choice(dts)
                if d0 in ("f32", "f16", "bf16") and k == 0:
                    shape = (1, 1, 15, 16)
                else:
                    shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 70]),
                             rng.randint(1, 2), rng.randint(1, 9))
                s = rng.randrange(NPU) if k else 0
                tensors = [True] * 4 if k == 0 else \
                    [True, rng.random() < 0.6, rng.random() < 0.6, rng.random() < 0.6]
                cases.append(sel2_case(rng, func, d0, d1, shape, s, tensors))
    c = sel2_case(rng, "maximum_greater_select", "f32", "f32", (1, 2, 1, 4), 0, [True] * 4)
    c["src1_addr"] += 4
    cases.append(c)
    return cases


def sel_cases(rng):
    """tpu_bdc_greater/less/equal_select: every 8/16/32-bit compare dtype and destination
    dtype, tensor and scalar operands in every position, start NPUs 0..63, NaN/inf/+-0/
    denormal pairs; misaligned operands."""
    cases = []
    dts = list(DTYPE_CODE)
    for func in SEL_FUNCS:
        for sdt in dts:
            for k in range(3):
                ddt = sdt if k == 0 else rng.choice(dts)
                if sdt in ("f32", "f16", "bf16") and k == 0:
                    shape = (1, 1, 15, 16)
                else:
                    shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 70]),
                             rng.randint(1, 2), rng.randint(1, 9))
                s = rng.randrange(NPU) if k else 0
                tensors = [True, True, True, True] if k == 0 else \
                    [True, rng.random() < 0.6, rng.random() < 0.6, rng.random() < 0.6]
                cases.append(sel_case(rng, func, sdt, ddt, shape, s, tensors))
    # src0 as a scalar; misaligned operands
    cases.append(sel_case(rng, "greater_select", "i16", "i16", (1, 3, 1, 5), 2,
                          [False, True, True, True]))
    c = sel_case(rng, "less_select", "f32", "f32", (1, 2, 1, 4), 0, [True] * 4)
    c["src1_addr"] += 4
    cases.append(c)
    c = sel_case(rng, "equal_select", "i8", "i8", (1, 2, 1, 4), 0, [True] * 4)
    c["dst_addr"] += 4
    cases.append(c)
    return cases


POOL_FUNCS = ["max_pool2d", "avg_pool2d"]


def pool_case(rng, func, dtype, shape, kernel, pad, stride, dil, start, c_bits=None):
    """Input `src` (aligned, `shape`), output `dst` (aligned, (n, c, oh, ow)); `c_bits` is
    pad_val (max) or scale (avg), an f32/f16/bf16 bit pattern."""
    n, ch, h, w = shape
    es = ESIZE[dtype]
    oh = (h + pad[0] + pad[1] - dil[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - dil[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    c = {"op": "bdc_pool", "func": func, "dtype": dtype, "shape": list(shape),
         "kernel": list(kernel), "padding": list(pad), "stride": list(stride),
         "dilation": list(dil), "out_shape": [n, ch, oh, ow]}
    c["src_addr"] = start * LMEM + 0x10000
    c["src_extent"] = extent(True, start, shape, default_stride(True, start, shape, es))
    c["dst_addr"] = start * LMEM + 0x100
    oshape = (n, ch, max(oh, 1), max(ow, 1))
    c["dst_extent"] = extent(True, start, oshape, default_stride(True, start, oshape, es))
    vals = [fp_value(rng, dtype) if rng.random() < 0.5 else
            (rng.randrange(0x3C000000, 0x43000000) | rng.getrandbits(1) << 31
             if dtype == "f32" else rng.randrange(0x2C00, 0x5400) | rng.getrandbits(1) << 15
             if dtype == "f16" else rng.randrange(0x3C00, 0x4300) | rng.getrandbits(1) << 15)
            for _ in range(c["src_extent"] * min(ch, NPU))]
    c["src"] = vals
    if c_bits is None:
        if func == "max_pool2d":
            c_bits = {"f32": 0xFF800000, "f16": 0xFC00, "bf16": 0xFF80}[dtype]
        elif func == "min_pool2d":
            c_bits = {"f32": 0x7F800000, "f16": 0x7C00, "bf16": 0x7F80}[dtype]
        else:
            kk = kernel[0] * kernel[1]
            c_bits = {"f32": bits_of_f32(1.0 / kk),
                      "f16": bits_of_f32(1.0 / kk) >> 16,
                      "bf16": bits_of_f32(1.0 / kk) >> 16}[dtype]
            if dtype == "f16":
                c_bits = f16_bits(1.0 / kk)
    c["c_bits"] = c_bits
    return c


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def pool_min_cases(rng):
    """tpu_bdc_fp_min_pool2d: as pool_cases for max (its own file, pool_min.json), every pair
    of float specials in a 1x2 window, +inf and other pad values, rejected calls."""
    cases = []
    for dtype in ("f32", "f16", "bf16"):
        for k in range(10):
            kh, kw = rng.randint(1, 5), rng.randint(1, 4)
            sh, sw = rng.randint(1, 3), rng.randint(1, 3)
            dh, dw = (1, 1) if k % 3 else (rng.randint(1, 2), rng.randint(1, 2))
            pad = [0, 0, 0, 0] if k % 2 == 0 else [rng.randint(0, kh - 1), rng.randint(0, kh - 1),
                                                   rng.randint(0, kw - 1), rng.randint(0, kw - 1)]
            h = rng.randint(dh * (kh - 1) + 1, dh * (kh - 1) + 8)
            w = rng.randint(dw * (kw - 1) + 1, dw * (kw - 1) + 8)
            shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 70]), h, w)
            s = rng.randrange(NPU) if k % 4 else 0
            cb = any_value(rng, dtype) if k == 7 else None
            cases.append(pool_case(rng, "min_pool2d", dtype, shape, (kh, kw), pad, (sh, sw),
                                   (dh, dw), s, cb))
        # every ordered pair of specials in a 1x2 window (stride 2), and a padding-only window
        sp = F32_SPECIAL if dtype == "f32" else H_SPECIAL[dtype]
        pairs = [v for a in sp for b in sp for v in (a, b)]
        c = pool_case(rng, "min_pool2d", dtype, (1, 1, 1, len(pairs)), (1, 2), [0] * 4,
                      (1, 2), (1, 1), 0)
        c["src"] = pairs + c["src"][len(pairs):]
        cases.append(c)
        cases.append(pool_case(rng, "min_pool2d", dtype, (1, 2, 3, 3), (2, 2), [2, 0, 0, 0],
                               (1, 1), (1, 1), 5))
    c = pool_case(rng, "min_pool2d", "f32", (1, 2, 4, 4), (2, 2), [0] * 4, (1, 1), (1, 1), 0)
    c["dtype"] = "i32"
    cases.append(c)
    c = pool_case(rng, "min_pool2d", "f32", (1, 2, 4, 4), (2, 2), [0] * 4, (1, 1), (1, 1), 0)
    c["src_addr"] += 4
    cases.append(c)
    cases.append(pool_case(rng, "min_pool2d", "f32", (1, 2, 40, 4), (1, 1), [0] * 4, (16, 1),
                           (1, 1), 0))
    return cases


def pool_cases(rng):
    """tpu_bdc_fp_max_pool2d / fp_avg_pool2d: f32/f16/bf16, kernels 1x1..5x4, paddings,
    strides and dilations, start NPUs 0..63, C up to 70, specials in the input; max with a
    -inf and a finite pad value, avg with 1/(kh*kw) and other scales; rejected calls."""
    cases = []
    for func in POOL_FUNCS:
        for dtype in ("f32", "f16", "bf16"):
            for k in range(10):
                kh, kw = rng.randint(1, 5), rng.randint(1, 4)
                sh, sw = rng.randint(1, 3), rng.randint(1, 3)
                dh, dw = (1, 1) if k % 3 else (rng.randint(1, 2), rng.randint(1, 2))
                pad = [0, 0, 0, 0] if k % 2 == 0 else [rng.randint(0, kh - 1),
                                                       rng.randint(0, kh - 1),
                                                       rng.randint(0, kw - 1),
                                                       rng.randint(0, kw - 1)]
                h = rng.randint(dh * (kh - 1) + 1, dh * (kh - 1) + 8)
                w = rng.randint(dw * (kw - 1) + 1, dw * (kw - 1) + 8)
                shape = (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 70]), h, w)
                s = rng.randrange(NPU) if k % 4 else 0
                cb = None
                if k == 7:
                    cb = any_value(rng, dtype) if func == "max_pool2d" else fp_value(rng, dtype)
                cases.append(pool_case(rng, func, dtype, shape, (kh, kw), pad, (sh, sw),
                                       (dh, dw), s, cb))
    # rejections: integer dtype, misaligned input, zero kernel
    cases.append(pool_case(rng, "max_pool2d", "f32", (1, 2, 4, 4), (2, 2), [0] * 4, (1, 1),
                           (1, 1), 0))
    cases[-1]["dtype"] = "i32"
    c = pool_case(rng, "avg_pool2d", "f32", (1, 2, 4, 4), (2, 2), [0] * 4, (1, 1), (1, 1), 0)
    c["src_addr"] += 4
    cases.append(c)
    # field limits: stride, dilation and padding below 16 (15 accepted, 16 rejected); a
    # padding larger than the kernel and a 16x16 kernel are accepted
    for func, shape, k, pad, st, dil in [
            ("max_pool2d", (1, 2, 40, 4), (1, 1), [0, 0, 0, 0], (15, 1), (1, 1)),
            ("avg_pool2d", (1, 2, 40, 4), (1, 1), [0, 0, 0, 0], (1, 16), (1, 1)),
            ("max_pool2d", (1, 2, 40, 4), (2, 1), [0, 0, 0, 0], (1, 1), (15, 1)),
            ("avg_pool2d", (1, 2, 4, 40), (1, 2), [0, 0, 0, 0], (1, 1), (1, 16)),
            ("max_pool2d", (1, 2, 4, 4), (1, 1), [15, 0, 0, 0], (1, 1), (1, 1)),
            ("avg_pool2d", (1, 2, 4, 4), (1, 1), [0, 0, 0, 16], (1, 1), (1, 1)),
            ("avg_pool2d", (1, 2, 4, 4), (2, 2), [5, 5, 0, 0], (1, 1), (1, 1)),
            ("max_pool2d", (1, 1, 20, 20), (16, 16), [0, 0, 0, 0], (1, 1), (1, 1))]:
        cases.append(pool_case(rng, func, "f32", shape, k, pad, st, dil, 0))
    return cases


EXP_SPECIAL = [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0, 0x80000000, 1,
               0x80000001, 0x7FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF,
               0x42B17217, 0x42B17218, 0x42B17219, 0xC2AEAC4F, 0xC2AEAC50, 0xC2B00000,
               0xC2FE0000, 0x43000000, 0xC3000000, 0x34000000, 0xB4000000, 0x3F317217,
               0x3F317218, 0xBF317218, 0x4F000000, 0xCF000000, 0x501502F9, 0xD01502F9]


def exp_value(rng):
    r = rng.random()
    if r < 0.15:
        return rng.choice(EXP_SPECIAL)
    if r < 0.45:
        return bits_of_f32(rng.uniform(-110.0, 100.0))
    if r < 0.65:
        return bits_of_f32(rng.uniform(-2.0, 2.0))
    if r < 0.75:
        # whole multiples of ln 2 and their neighbours (the floor boundary)
        return (bits_of_f32(rng.randint(-150, 130) * 0.6931471805599453)
                + rng.randint(-2, 2)) & 0xFFFFFFFF
    if r < 0.85:
        return rng.randrange(0x4B000000, 0x7F800000) | (rng.getrandbits(1) << 31)
    return rng.getrandbits(32)


def sfu_case(rng, shape, starts, coeff=0x0, table=0x40, values=None):
    """One tpu_bdc_fp32_exp case; `starts` = start NPUs of dst, src, work0, work1."""
    c = {"op": "bdc_sfu", "func": "fp32_exp", "dtype": "f32", "shape": list(shape),
         "coeff_addr": coeff, "table_addr": table}
    offs = {"dst": 0x10000, "src": 0x1000, "work0": 0x20000, "work1": 0x30000}
    for nm, start in zip(("dst", "src", "work0", "work1"), starts):
        c[nm + "_addr"] = start * LMEM + offs[nm]
        c[nm + "_extent"] = extent(True, start, shape, default_stride(True, start, shape, 4))
    m = c["src_extent"] * min(shape[1], NPU)
    c["src"] = [values[i % len(values)] for i in range(m)] if values else \
        [exp_value(rng) for _ in range(m)]
    return c


def sfu_cases(rng):
    cases = []
    cases.append(sfu_case(rng, (1, 2, 1, len(EXP_SPECIAL)), [0, 0, 0, 0], values=EXP_SPECIAL))
    cases.append(sfu_case(rng, (1, 3, 1, len(EXP_SPECIAL)), [41] * 4, values=EXP_SPECIAL))
    for i in range(10):
        shape = (rng.randint(1, 2), rng.choice([1, 3, 64, 70]), rng.randint(1, 3),
                 rng.randint(1, 40))
        s = rng.randrange(NPU) if i % 2 else 0
        cases.append(sfu_case(rng, shape, [s] * 4, coeff=rng.randrange(0, 64) * 64))
    cases.append(sfu_case(rng, (1, 64, 16, 64), [0] * 4))
    # Operands on other start NPUs (accepted: src and work0 anywhere; work1 with dst).
    cases.append(sfu_case(rng, (1, 5, 1, 9), [3, 0, 9, 3]))
    cases.append(sfu_case(rng, (1, 5, 1, 9), [0, 60, 0, 0]))
    # In place: dst == src, work0 == src.
    c = sfu_case(rng, (1, 4, 2, 5), [0] * 4)
    c["dst_addr"], c["dst_extent"] = c["src_addr"], c["src_extent"]
    cases.append(c)
    c = sfu_case(rng, (1, 4, 2, 5), [7] * 4)
    c["work0_addr"], c["work0_extent"] = c["src_addr"], c["src_extent"]
    cases.append(c)
    # Rejected: misaligned operands, work1 on another NPU than dst, coeff off NPU 0 or the
    # 64-byte grid, dims outside [1, 65535].
    for nm, delta in (("src", 4), ("dst", 4), ("work0", 4), ("work1", 32)):
        c = sfu_case(rng, (1, 4, 1, 4), [0] * 4)
        c[nm + "_addr"] += delta
        cases.append(c)
    cases.append(sfu_case(rng, (1, 4, 1, 4), [0, 0, 0, 1]))
    cases.append(sfu_case(rng, (1, 4, 1, 4), [1, 0, 0, 0]))
    cases.append(sfu_case(rng, (1, 4, 1, 4), [0] * 4, coeff=0x20))
    cases.append(sfu_case(rng, (1, 4, 1, 4), [0] * 4, coeff=LMEM))
    c = sfu_case(rng, (1, 4, 1, 4), [0] * 4)
    c["shape"] = [1, 4, 1, 0]
    c["src"] = []
    cases.append(c)
    return cases


SQRT_SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
                0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x3F800001, 0x40000000,
                0xC0000000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
                0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xBE6EB3BE, 0xBE6EB3C0,
                0xBDCCCCCD, 0x8D000000, 0x3E800000, 0x40490FDB]


def sqrt_value(rng):
    r = rng.random()
    if r < 0.15:
        return rng.choice(SQRT_SPECIAL)
    if r < 0.45:
        return bits_of_f32(rng.uniform(0.0, 100.0))
    if r < 0.6:
        # negatives around the magic constant's wrap point (|x| near 0.233)
        return bits_of_f32(-rng.uniform(0.0, 0.5))
    if r < 0.7:
        return rng.randrange(0, 0x800000) | (rng.getrandbits(1) << 31)
    return rng.getrandbits(32)


def sqrt_case(rng, func, shape, starts, values=None):
    """One tpu_bdc_fp32_rsqrt / _sqrt case; `starts` = start NPUs of dst, src."""
    c = {"op": "bdc_sfu", "func": func, "dtype": "f32", "shape": list(shape)}
    for nm, start, off in zip(("dst", "src"), starts, (0x10000, 0x1000)):
        c[nm + "_addr"] = start * LMEM + off
        c[nm + "_extent"] = extent(True, start, shape, default_stride(True, start, shape, 4))
    m = c["src_extent"] * min(shape[1], NPU)
    c["src"] = [values[i % len(values)] for i in range(m)] if values else \
        [sqrt_value(rng) for _ in range(m)]
    return c


def sqrt_cases(rng):
    cases = []
    for func in ("fp32_rsqrt", "fp32_sqrt"):
        cases.append(sqrt_case(rng, func, (1, 2, 1, len(SQRT_SPECIAL)), [0, 0],
                               values=SQRT_SPECIAL))
        cases.append(sqrt_case(rng, func, (1, 3, 1, len(SQRT_SPECIAL)), [41, 41],
                               values=SQRT_SPECIAL))
        for i in range(6):
            shape = (rng.randint(1, 2), rng.choice([1, 3, 64, 70]), rng.randint(1, 3),
                     rng.randint(1, 40))
            s = rng.randrange(NPU) if i % 2 else 0
            cases.append(sqrt_case(rng, func, shape, [s, s]))
        cases.append(sqrt_case(rng, func, (1, 64, 8, 64), [0, 0]))
        cases.append(sqrt_case(rng, func, (1, 5, 1, 9), [3, 0]))
        c = sqrt_case(rng, func, (1, 4, 2, 5), [5, 5])
        c["dst_addr"], c["dst_extent"] = c["src_addr"], c["src_extent"]
        cases.append(c)
        # Candidates for rejection: misaligned operands, dims outside [1, 65535].
        for nm in ("dst", "src"):
            c = sqrt_case(rng, func, (1, 4, 1, 4), [0, 0])
            c[nm + "_addr"] += 4
            cases.append(c)
        c = sqrt_case(rng, func, (1, 4, 1, 4), [0, 0])
        c["shape"] = [1, 4, 1, 0]
        c["src"] = []
        cases.append(c)
    return cases


LOG_SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
               0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF,
               0x40000000, 0xC0000000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
               0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x3FAAAAAB,
               0x3FAAAAAC, 0x3F2AAAAB, 0x3F2AAAAC, 0x7F2AAAAB, 0x7F2AAAAC, 0x7F000000,
               0x00AAAAAB, 0x00AAAAAC, 0x40490FDB, 0x402DF854, 0x3DCCCCCD, 0x4B800000]


def log_value(rng):
    r = rng.random()
    if r < 0.1:
        return rng.choice(LOG_SPECIAL)
    if r < 0.35:
        return bits_of_f32(rng.uniform(0.0, 10.0))
    if r < 0.5:
        # near 1 (the Taylor argument near 0) and near 4/3, 2/3 (the exponent rounding)
        return bits_of_f32(rng.choice([1.0, 4.0 / 3.0, 2.0 / 3.0]) * rng.uniform(0.999, 1.001))
    if r < 0.6:
        return (rng.choice([0x3FAAAAAB, 0x3F2AAAAB, 0x3F800000]) + rng.randint(-3, 3))
    if r < 0.7:
        return rng.randrange(0, 0x800000) | (rng.getrandbits(1) << 31)
    if r < 0.8:
        return rng.randrange(0x7E800000, 0x7F800000)
    return rng.getrandbits(32)


def log_case(rng, shape, starts, coeff=0x0, values=None):
    """One tpu_bdc_fp32_log case; `starts` = start NPUs of dst, src, work."""
    c = {"op": "bdc_sfu", "func": "fp32_log", "dtype": "f32", "shape": list(shape),
         "coeff_addr": coeff}
    offs = {"dst": 0x10000, "src": 0x1000, "work": 0x20000}
    for nm, start in zip(("dst", "src", "work"), starts):
        c[nm + "_addr"] = start * LMEM + offs[nm]
        c[nm + "_extent"] = extent(True, start, shape, default_stride(True, start, shape, 4))
    m = c["src_extent"] * min(shape[1], NPU)
    c["src"] = [values[i % len(values)] for i in range(m)] if values else \
        [log_value(rng) for _ in range(m)]
    return c


def log_cases(rng):
    cases = []
    cases.append(log_case(rng, (1, 2, 1, len(LOG_SPECIAL)), [0, 0, 0], values=LOG_SPECIAL))
    cases.append(log_case(rng, (1, 3, 1, len(LOG_SPECIAL)), [41] * 3, values=LOG_SPECIAL))
    for i in range(10):
        shape = (rng.randint(1, 2), rng.choice([1, 3, 64, 70]), rng.randint(1, 3),
                 rng.randint(1, 40))
        s = rng.randrange(NPU) if i % 2 else 0
        cases.append(log_case(rng, shape, [s] * 3, coeff=rng.randrange(0, 64) * 64))
    cases.append(log_case(rng, (1, 64, 16, 64), [0] * 3))
    # Operands on other start NPUs.
    cases.append(log_case(rng, (1, 5, 1, 9), [3, 0, 3]))
    cases.append(log_case(rng, (1, 5, 1, 9), [3, 3, 0]))
    cases.append(log_case(rng, (1, 5, 1, 9), [0, 60, 9]))
    # In place: dst == src (special values), work == src.
    c = log_case(rng, (1, 4, 2, len(LOG_SPECIAL)), [0] * 3, values=LOG_SPECIAL)
    c["dst_addr"], c["dst_extent"] = c["src_addr"], c["src_extent"]
    cases.append(c)
    c = log_case(rng, (1, 4, 2, len(LOG_SPECIAL)), [7] * 3, values=LOG_SPECIAL)
    c["work_addr"], c["work_extent"] = c["src_addr"], c["src_extent"]
    cases.append(c)
    # Candidates for rejection: misaligned operands, dst == work, coeff off NPU 0 or the
    # 64-byte grid, dims outside [1, 65535].
    for nm, delta in (("src", 4), ("dst", 4), ("work", 4), ("work", 32)):
        c = log_case(rng, (1, 4, 1, 4), [0] * 3)
        c[nm + "_addr"] += delta
        cases.append(c)
    c = log_case(rng, (1, 4, 1, 4), [0] * 3)
    c["work_addr"], c["work_extent"] = c["dst_addr"], c["dst_extent"]
    cases.append(c)
    cases.append(log_case(rng, (1, 4, 1, 4), [0] * 3, coeff=0x20))
    cases.append(log_case(rng, (1, 4, 1, 4), [0] * 3, coeff=0x4))
    cases.append(log_case(rng, (1, 4, 1, 4), [0] * 3, coeff=LMEM))
    c = log_case(rng, (1, 4, 1, 4), [0] * 3)
    c["shape"] = [1, 4, 1, 0]
    c["src"] = []
    cases.append(c)
    c = log_case(rng, (1, 4, 1, 4), [0] * 3)
    c["shape"] = [0, 4, 1, 4]
    cases.append(c)
    return cases


def dst_stride_cases(rng):
    """Zero and overlapping destination strides: the C-model's BDC arithmetic asserts
    `dst_shape[i] == 1` when `dst_stride[i] == 0` (fp/int arithmetic, casts, moves, set_C,
    compares); a zero stride on a dimension of size 1 and overlapping non-zero strides are
    accepted (the last write of an address wins). Includes the 65535 x 65535 set_C."""
    cases = []
    # accepted: zero n stride with n = 1, zero c stride with c = 1
    cases.append(bdc_case(rng, "fp_add", "f32", (1, 3, 2, 16), [0, 0, 0], False,
                          [[0, 32, 16, 1], None, None]))
    cases.append(unary_case(rng, "set_C", "i16", "i16", (1, 1, 2, 16), [0],
                            strides=[[0, 0, 16, 1]]))
    # accepted: overlapping destination rows (h stride 1, w stride 1): last write wins
    cases.append(unary_case(rng, "cpy", "i8", "i8", (1, 1, 4, 16), [0, 0],
                            strides=[[0, 0, 1, 1], None]))
    cases.append(unary_case(rng, "cast", "i8", "i32", (1, 2, 3, 8), [0, 0], 0,
                            strides=[[8, 64, 2, 1], None]))
    # rejected: a zero stride on a dimension of more than one element
    cases.append(bdc_case(rng, "fp_add", "f32", (1, 3, 2, 16), [0, 0, 0], False,
                          [[32, 32, 0, 1], None, None]))
    cases.append(bdc_case(rng, "fp_mul_C", "f32", (1, 3, 1, 16), [0, 0], True,
                          [[16, 16, 16, 0], None]))
    cases.append(bdc_case(rng, "fp_add", "f16", (2, 3, 1, 32), [0, 0, 0], False,
                          [[0, 32, 32, 1], None, None]))
    cases.append(unary_case(rng, "set_C", "f32", "f32", (1, 64, 1, 16), [0],
                            strides=[[16, 0, 16, 1]]))
    cases.append(unary_case(rng, "cpy", "i32", "i32", (1, 2, 2, 16), [0, 0],
                            strides=[[32, 32, 0, 1], None]))
    cases.append(unary_case(rng, "cast", "f16", "f32", (2, 2, 1, 16), [0, 0], 0,
                            strides=[[0, 32, 16, 1], None]))
    c = int_case(rng, "int_add", "i16", ["i16", "i16"], (1, 2, 2, 16), [0, 0, 0], 0, 0, False)
    c["dst_stride"] = [64, 32, 0, 1]
    c["dst_extent"] = extent(True, 0, (1, 2, 2, 16), c["dst_stride"])
    cases.append(c)
    cases.append(cmp_case(rng, "greater", "f32", "f32", (1, 2, 2, 16), [0, 0, 0],
                          [[64, 32, 0, 1], None, None]))
    # the 65535 x 65535 set_C on zero strides (refused before any work)
    c = unary_case(rng, "set_C", "f32", "f32", (1, 1, 1, 1), [0], strides=[[0, 0, 0, 0]])
    c["shape"] = [65535, 65535, 1, 1]
    cases.append(c)
    return cases


def kernel_cases(rng):
    """Softmax over the channel axis (npusim kernels::softmax_last_axis) on the C-model."""
    cases = []
    shapes = [(1, 64, 37), (2, 70, 19), (1, 3, 100), (1, 1, 1), (1, 130, 16), (2, 5, 256),
              (1, 64, 64)]
    for i, (n, rows, ch) in enumerate(shapes):
        total = n * rows * ch
        if i == 1:
            # special rows: an inf, a -inf, a NaN, huge and denormal values, all equal
            vals = []
            for r in range(n * rows):
                kind = r % 7
                row = [bits_of_f32(rng.gauss(0.0, 3.0)) for _ in range(ch)]
                if kind == 1:
                    row[rng.randrange(ch)] = 0x7F800000
                elif kind == 2:
                    row[rng.randrange(ch)] = 0xFF800000
                elif kind == 3:
                    row[rng.randrange(ch)] = 0x7FC00000
                elif kind == 4:
                    row = [bits_of_f32(rng.uniform(-1e30, 1e30)) for _ in range(ch)]
                elif kind == 5:
                    row = [rng.randrange(1, 0x800000) | (rng.getrandbits(1) << 31)
                           for _ in range(ch)]
                elif kind == 6:
                    row = [bits_of_f32(2.5)] * ch
                vals += row
        else:
            scale = [3.0, 3.0, 10.0, 1.0, 0.5, 20.0, 1.0][i]
            vals = [bits_of_f32(rng.gauss(0.0, scale)) for _ in range(total)]
        cases.append({"op": "kernel_softmax", "n": n, "rows": rows, "c": ch, "src": vals})
    return cases


# ---------------------------------------------------------------------------------------------
# Layout-changing moves (`--kind trans`): GDMA matrix/compact/cw transposes, BDC cw/wc.

TRANS_ARGS = {
    "gdma_matrix_S2L": "u32 u64 i i i i i", "gdma_matrix_L2S": "u64 u32 i i i i i",
    "gdma_compact_S2L": "u32 u64 p i", "gdma_compact_L2S": "u64 u32 p i",
    "gdma_cpy_cw_trans_S2L": "u32 u64 p p p i", "gdma_cpy_cw_trans_L2S": "u64 u32 p p p i",
    "gdma_cpy_cw_trans_L2L": "u32 u32 p p p i", "gdma_cpy_cw_trans_S2S": "u64 u64 p p p i",
    "bdc_cw_trans": "u32 u32 p i", "bdc_wc_trans": "u32 u32 p i",
}


def line_stride(start, shape, es):
    n, c, h, w = shape
    hs = align(w, EU_BYTES // es)
    return [h * hs * ((start + c + NPU - 1) // NPU), h * hs, hs, 1]


def trans_sides(func):
    """(dst is local, src is local) of a trans function."""
    if func.startswith("bdc_"):
        return True, True
    d = func[-3:]
    return d[2] == "L", d[0] == "L"


def trans_region(local, addr, shape, stride, es, whole=None):
    """Region listing of one operand: lanes from addr's lane over min(C, 64) channels, or a
    system span; `whole` (elements) widens a local lane's listing to the padded footprint."""
    start = addr // LMEM if local else 0
    ext = max(extent(local, start, shape, stride), 1)
    if local and whole and (addr % LMEM) + whole * es <= LMEM:
        ext = max(ext, whole)
    return {"local": local, "addr": addr, "channels": shape[1] if local else 1, "extent": ext}


def trans_case(rng, func, dtype, shape=None, matrix=None, d_addr=None, s_addr=None,
               d_stride=None, s_stride=None):
    """One case; regions sized with the plain layout model of this file."""
    es = ESIZE[dtype]
    d_local, s_local = trans_sides(func)

    def pick(local, given, bdc):
        if given is not None:
            return given
        if local:
            step = 64 if bdc else es
            return rng.randrange(NPU) * LMEM + rng.randrange(0, 0x800, step)
        return rng.randrange(0, 0x1000, es)

    bdc = func.startswith("bdc_")
    d_addr = pick(d_local, d_addr, bdc)
    s_addr = pick(s_local, s_addr, bdc)
    if not d_local and not s_local:
        d_addr += 0x200000
    if d_local and s_local and d_addr % LMEM < 0x20000:
        d_addr = (d_addr // LMEM) * LMEM + 0x20000 + (d_addr % LMEM)
    c = {"op": "trans", "func": func, "dtype": dtype, "dst_stride": d_stride,
         "src_stride": s_stride}
    if matrix:
        rows, cols, cpc, rs = matrix
        ch = max(1, -(-cols // max(cpc, 1)))
        loc, sysa = (d_addr, s_addr) if d_local else (s_addr, d_addr)
        cs = align(max(cpc, 1), EU_BYTES // es)
        ns = cs * ((loc // LMEM + ch + NPU - 1) // NPU)
        lshape = [rows, ch, 1, max(cpc, 1)]
        lreg = trans_region(True, loc, lshape, [ns, cs, cpc, 1], es, ns * rows)
        span = max(rs * rows, (rows - 1) * rs + cols, 1)
        sreg = {"local": False, "addr": sysa, "channels": 1, "extent": span}
        c["matrix"] = list(matrix)
        c["shape"] = lshape
        c["dst"], c["src"] = (lreg, sreg) if d_local else (sreg, lreg)
    else:
        n, ch, h, w = shape
        c["shape"] = list(shape)
        src_shape = list(shape) if "compact" in func else [n, w, h, ch]
        if "compact" in func:
            loc = d_addr if d_local else s_addr
            lst = compact_stride(loc // LMEM, shape)
            ds = lst if d_local else default_stride(False, 0, shape, es)
            ss = lst if s_local else default_stride(False, 0, shape, es)
        elif func == "bdc_cw_trans":
            ds = line_stride(d_addr // LMEM, shape, es)
            ss = default_stride(True, s_addr // LMEM, src_shape, es)
        else:
            ds = d_stride or default_stride(d_local, d_addr // LMEM, shape, es)
            ss = s_stride or default_stride(s_local, s_addr // LMEM, src_shape, es)
        c["dst"] = trans_region(d_local, d_addr, shape, ds, es, ds[0] * n)
        c["src"] = trans_region(s_local, s_addr, src_shape, ss, es, ss[0] * n)
    sr = c["src"]
    words = sr["extent"] * (min(sr["channels"], NPU) if sr["local"] else 1)
    c["src_data"] = [rng.getrandbits(8 * es) for _ in range(words)]
    return c


def run_trans(model, c):
    es = ESIZE[c["dtype"]]
    d, s = c["dst"], c["src"]
    model.region_put(s["local"], s["addr"], s["extent"], es, c["src_data"], s["channels"])
    model.region_fill(d["local"], d["addr"], d["extent"], es, d["channels"])
    f = getattr(model.lib, "tpu_" + c["func"])
    T = {"u32": ctypes.c_uint32, "u64": ctypes.c_ulonglong, "i": ctypes.c_int,
         "p": ctypes.c_void_p}
    f.argtypes = [T[t] for t in TRANS_ARGS[c["func"]].split()]
    addr = lambda r: r["addr"] if r["local"] else model.gm_dev + r["addr"]
    st = lambda k: ctypes.byref(dim4(*c[k])) if c.get(k) else None
    code = DTYPE_CODE[c["dtype"]]
    if "matrix" in c:
        rows, cols, cpc, rs = c["matrix"]
        f(addr(d), addr(s), rows, cols, cpc, rs, code)
    elif "compact" in c["func"] or c["func"].startswith("bdc_"):
        f(addr(d), addr(s), ctypes.byref(dim4(*c["shape"])), code)
    else:
        f(addr(d), addr(s), ctypes.byref(dim4(*c["shape"])), st("dst_stride"), st("src_stride"),
          code)
    model.lib.tpu_poll()
    c["out_fill_byte"] = FILL
    c["out"] = model.region_get(d["local"], d["addr"], d["extent"], es, d["channels"])
    return c


def free_stride(rng, local, start, shape, es):
    """An explicit stride with w == 1 (what the cw transposes take): compact, line-aligned or
    padded."""
    n, c, h, w = shape
    slots = (start + c + NPU - 1) // NPU if local else c
    k = rng.randrange(3)
    if k == 0:
        cs = h * w
        return [cs * slots, cs, w, 1]
    if k == 1:
        hs = align(w, EU_BYTES // es)
        return [h * hs * slots, h * hs, hs, 1]
    hs = w + rng.randrange(4)
    cs = h * hs + rng.randrange(4)
    return [cs * slots + rng.randrange(4), cs, hs, 1]


def trans_cases(rng):
    cases = []
    dtypes = list(DTYPE_CODE)
    small = lambda: (rng.randint(1, 2), rng.choice([1, 3, 17, 64, 65, 70, rng.randint(1, 100)]),
                     rng.randint(1, 3), rng.randint(1, 13))
    # Matrix moves: odd rows/cols, cols_per_channel below, at and above cols, row strides
    # below (overlapping rows), equal to and above cols, start lanes 0..63.
    for func in ("gdma_matrix_S2L", "gdma_matrix_L2S"):
        for i in range(27):
            dtype = dtypes[i % len(dtypes)]
            rows = rng.choice([1, 2, 3, 5, rng.randint(1, 9)])
            cols = rng.choice([1, 5, 16, 33, 70, 130, rng.randint(1, 300)])
            cpc = rng.choice([1, 2, 3, cols, cols + 3, rng.randint(1, 40)])
            if -(-cols // cpc) > 140:
                cpc = -(-cols // 140)
            rs = rng.choice([cols, cols + rng.randint(1, 9), max(0, cols - 2), 0])
            if func.endswith("L2S") and rows > 1 and i % 9 != 8:
                rs = max(rs, cols)  # L2S rows may not overlap (a few cases keep the rejection)
            cases.append(trans_case(rng, func, dtype, matrix=(rows, cols, cpc, rs)))
    # Compact moves.
    for func in ("gdma_compact_S2L", "gdma_compact_L2S"):
        for i in range(27):
            cases.append(trans_case(rng, func, dtypes[i % len(dtypes)], shape=small()))
    # cw transposes: default layouts and explicit strides (w == 1) on either side.
    for d in ("S2L", "L2S", "L2L", "S2S"):
        func = "gdma_cpy_cw_trans_" + d
        dl, sl = trans_sides(func)
        for i in range(18):
            dtype = dtypes[i % len(dtypes)]
            es = ESIZE[dtype]
            n, ch, h, w = small()
            shape = (n, ch, h, w)
            ds = ss = None
            dstart, sstart = rng.randrange(NPU), rng.randrange(NPU)
            if i % 3 == 1:
                ds = free_stride(rng, dl, dstart, shape, es)
            if i % 3 == 2:
                ss = free_stride(rng, sl, sstart, (n, w, h, ch), es)
            if i % 6 == 5:
                ds = free_stride(rng, dl, dstart, shape, es)
            c = trans_case(rng, func, dtype, shape=shape, d_stride=ds, s_stride=ss,
                           d_addr=dstart * LMEM + rng.randrange(0, 0x400, es) if dl else None,
                           s_addr=sstart * LMEM + rng.randrange(0, 0x400, es) if sl else None)
            cases.append(c)
    # BDC transposes: every dtype, source (cw) / destination (wc) on NPU 0, the other anywhere.
    for func in ("bdc_cw_trans", "bdc_wc_trans"):
        for i in range(27):
            dtype = dtypes[i % len(dtypes)]
            ch = rng.choice([1, 3, 16, 64, 65, 70, rng.randint(1, 90)])
            w = rng.choice([1, 3, 5, rng.randint(1, 9)] if ch >= 64 else
                           [1, 3, 17, 64, 65, rng.randint(1, 40)])
            shape = (rng.choice([1, 1, 2]), ch, rng.randint(1, 2), w)
            other = rng.randrange(NPU) * LMEM + rng.randrange(0, 0x400, 64)
            zero = rng.randrange(0, 0x400, 64) + 0x20000
            if func == "bdc_cw_trans":
                cases.append(trans_case(rng, func, dtype, shape=shape, d_addr=other, s_addr=zero))
            else:
                cases.append(trans_case(rng, func, dtype, shape=shape, d_addr=zero, s_addr=other))
    # Calls the C-model rejects (each a typed error in npusim).
    m = lambda f, dt, mat, **k: trans_case(rng, f, dt, matrix=mat, **k)
    cases += [
        m("gdma_matrix_S2L", "f32", (2, 5, 0, 5), d_addr=0, s_addr=0),      # cpc 0 (SIGFPE)
        m("gdma_matrix_S2L", "f32", (2, 5, -1, 5), d_addr=0, s_addr=0),     # cpc < 0
        m("gdma_matrix_L2S", "f32", (0, 5, 2, 5), d_addr=0, s_addr=0),      # rows 0
        m("gdma_matrix_S2L", "i8", (2, 0, 2, 5), d_addr=0, s_addr=0),       # cols 0
        m("gdma_matrix_S2L", "f16", (70000, 5, 2, 5), d_addr=0, s_addr=0),  # rows > 65535
        m("gdma_matrix_L2S", "u8", (2, 70000, 9000, 70000), d_addr=0, s_addr=0),
        m("gdma_matrix_S2L", "f32", (2, 5, 2, -1), d_addr=0, s_addr=0),     # row_stride < 0
        m("gdma_matrix_S2L", "f32", (2, 5, 2, 5), d_addr=LMEM + 1, s_addr=0),  # misaligned
        m("gdma_matrix_L2S", "i16", (2, 5, 2, 5), d_addr=2, s_addr=0x40),   # gm misaligned
        m("gdma_matrix_L2S", "i16", (2, 5, 2, 5), d_addr=1, s_addr=0x40),
        m("gdma_matrix_S2L", "f32", (2, 5, 2, 5), d_addr=LMEM - 4, s_addr=0),  # past the lane
        m("gdma_matrix_S2L", "f32", (65535, 1, 1, 1), d_addr=0, s_addr=0),  # ns * rows too big
        m("gdma_matrix_S2L", "f32", (2, 5, 70000, 5), d_addr=0, s_addr=0),  # cpc too wide
    ]
    t = lambda f, dt, sh, **k: trans_case(rng, f, dt, shape=sh, **k)
    cases += [
        t("gdma_compact_S2L", "f32", (1, 3, 2, 3), d_addr=5 * LMEM + 2, s_addr=0),
        t("gdma_compact_L2S", "f32", (1, 3, 2, 3), d_addr=6, s_addr=0),
        t("gdma_compact_S2L", "u8", (0, 3, 2, 3), d_addr=0, s_addr=0),
        t("gdma_compact_L2S", "u8", (1, 3, 70000, 1), d_addr=0, s_addr=0),
        t("gdma_compact_S2L", "f32", (1, 3, 2, 30), d_addr=LMEM - 64, s_addr=0),
        t("gdma_cpy_cw_trans_S2L", "f32", (1, 3, 2, 4), d_addr=0, s_addr=0,
          d_stride=[64, 16, 4, 2]),
        t("gdma_cpy_cw_trans_L2S", "f32", (1, 3, 2, 4), d_addr=0, s_addr=0,
          s_stride=[64, 16, 3, 2]),
        t("gdma_cpy_cw_trans_S2S", "f32", (1, 3, 2, 4), d_addr=0x200000, s_addr=0,
          d_stride=[24, 8, 4, 0]),
        t("gdma_cpy_cw_trans_L2L", "f16", (1, 3, 0, 4), d_addr=0x20000, s_addr=0),
        t("gdma_cpy_cw_trans_S2L", "f16", (1, 3, 2, 4), d_addr=1, s_addr=0),
        t("gdma_cpy_cw_trans_S2L", "f32", (1, 3, 2, 4), d_addr=0, s_addr=2),
        t("gdma_cpy_cw_trans_S2L", "f32", (1, 3, 2, 40), d_addr=LMEM - 64, s_addr=0),
        t("bdc_cw_trans", "f32", (1, 3, 2, 4), d_addr=0x20004, s_addr=0),
        t("bdc_cw_trans", "f32", (1, 3, 2, 4), d_addr=0x20000, s_addr=4),
        t("bdc_cw_trans", "i8", (1, 3, 2, 4), d_addr=0x20000, s_addr=LMEM),
        t("bdc_cw_trans", "f32", (1, 3, 2, 4), d_addr=0, s_addr=0),
        t("bdc_cw_trans", "f32", (0, 3, 2, 4), d_addr=0x20000, s_addr=0),
        t("bdc_cw_trans", "f32", (1, 3, 2, 100), d_addr=LMEM - 256, s_addr=0),
        t("bdc_wc_trans", "f16", (1, 3, 2, 4), d_addr=LMEM, s_addr=0x20000),
        t("bdc_wc_trans", "f32", (1, 3, 2, 4), d_addr=0x40, s_addr=0x20044),
        t("bdc_wc_trans", "f32", (1, 3, 2, 4), d_addr=0x40, s_addr=0x40),
        t("bdc_wc_trans", "u16", (1, 65536, 1, 1), d_addr=0, s_addr=0x20000),
    ]
    return cases


# ---------------------------------------------------------------------------------------------
# Gaps the acceptance-1 audit found (`--kind audit`, golden/tpu/audit.json; see
# scripts/tpu_audit.py and docs/tpu-audit.md): special values (NaN, +-inf, +-0, denormals;
# integer MIN/MAX/0/-1) through every move and transpose, start NPU 0 and non-zero on every
# local side, set_C with special constants, integer compares against MIN and -1, and a softmax
# over +-0 rows.

def specials_of(dtype):
    """Every special bit pattern of `dtype` (floats: the F32_SPECIAL/H_SPECIAL lists; integers:
    MIN, MAX, 0, -1 (or 1), MIN + 1, MAX - 1)."""
    if dtype == "f32":
        return list(F32_SPECIAL)
    if dtype in H_SPECIAL:
        return list(H_SPECIAL[dtype])
    lo, hi = INT_RANGE[dtype]
    mask = (1 << (8 * ESIZE[dtype])) - 1
    return [lo & mask, hi & mask, 0, -1 & mask if lo < 0 else 1, (lo + 1) & mask,
            (hi - 1) & mask]


def seed_specials(words, local, channels, ext, dtype, row):
    """Writes `dtype`'s specials into a region listing (in place): into the first `row`
    elements of every listed lane of a local region (channel i's first row, rotated by i), or
    the first elements of a system region."""
    sp = specials_of(dtype)
    if local:
        for i in range(min(channels, NPU)):
            for j in range(min(row, ext)):
                words[i * ext + j] = sp[(i + j) % len(sp)]
    else:
        for j in range(min(len(words), 4 * len(sp))):
            words[j] = sp[j % len(sp)]


def audit_cases(rng):
    cases = []
    # GDMA copies: specials, start NPU 0 and non-zero on the local sides, every direction.
    for direction in ("S2L", "L2S", "S2S", "L2L"):
        d_local, s_local = direction[2] == "L", direction[0] == "L"
        for dtype in ("f32", "f16", "bf16", "i8", "u16", "i32"):
            for start in (0, rng.randrange(1, NPU)):
                shape = (1, rng.choice([16, 17, 70]), rng.randint(1, 2), 17)
                c = gdma_case(rng, direction, dtype, shape,
                              d_addr=start * LMEM + 0x100 if d_local else None,
                              s_addr=start * LMEM + 0x2000 if s_local else None)
                seed_specials(c["src"], s_local, shape[1], c["src_extent"], dtype, shape[3])
                cases.append(c)
    # Matrix, compact and cw moves, BDC cw/wc transposes: specials, local sides on NPU 0 and
    # on another NPU.
    for func in ("gdma_matrix_S2L", "gdma_matrix_L2S", "gdma_compact_S2L", "gdma_compact_L2S",
                 "gdma_cpy_cw_trans_S2L", "gdma_cpy_cw_trans_L2S", "gdma_cpy_cw_trans_L2L",
                 "gdma_cpy_cw_trans_S2S", "bdc_cw_trans", "bdc_wc_trans"):
        d_local, s_local = trans_sides(func)
        for dtype in ("f32", "f16", "bf16", "i16"):
            for start in (0, rng.randrange(1, NPU)):
                es = ESIZE[dtype]
                if func == "bdc_cw_trans":  # source on NPU 0, destination anywhere
                    d_addr, s_addr = start * LMEM + 0x20000, 0x100
                elif func == "bdc_wc_trans":  # destination on NPU 0, source anywhere
                    d_addr, s_addr = 0x20000, start * LMEM + 0x100
                else:
                    d_addr = start * LMEM + 0x100 if d_local else None
                    s_addr = start * LMEM + 0x2000 if s_local else None
                if func.startswith("gdma_matrix"):
                    cols = rng.choice([17, 20, 33])
                    cpc = rng.choice([cols, 16, 5])
                    c = trans_case(rng, func, dtype, matrix=(3, cols, cpc, cols),
                                   d_addr=d_addr, s_addr=s_addr)
                    row = cpc if s_local else cols * 3
                else:
                    shape = (1, 17, 2, 16) if "compact" in func else (1, 16, 1, 17)
                    c = trans_case(rng, func, dtype, shape=shape, d_addr=d_addr, s_addr=s_addr)
                    row = shape[3] if "compact" in func else shape[1]
                sr = c["src"]
                seed_specials(c["src_data"], sr["local"], sr["channels"], sr["extent"], dtype,
                              row)
                cases.append(c)
    # set_C with every special constant, start NPU 0 and non-zero.
    for dtype in DTYPE_CODE:
        for k, v in enumerate(specials_of(dtype)):
            start = 0 if k % 2 == 0 else rng.randrange(1, NPU)
            c = unary_case(rng, "set_C", dtype, dtype, (1, rng.choice([3, 65]), 2, 5), [start])
            c["c_bits"] = sext(v, ESIZE[dtype])
            cases.append(c)
    # Integer compares against MIN, MAX, 0 and -1 (tensor and scalar forms), specials in the
    # sources.
    for func in CMP_FUNCS:
        for dtype in ("i8", "u8", "i16", "u16", "i32", "u32"):
            for k, v in enumerate(specials_of(dtype)[:4]):
                start = 0 if k % 2 == 0 else rng.randrange(1, NPU)
                nops = 2 if func.endswith("_C") else 3
                c = cmp_case(rng, func, dtype, dtype, (1, 7, 1, 9), [start] * nops)
                for nm in ("src", "src0", "src1"):
                    if nm in c:
                        seed_specials(c[nm], True, 7, c[nm + "_extent"], dtype, 9)
                if "src1" in c:
                    c["src1"] = [v if j % 3 == 0 else x for j, x in enumerate(c["src1"])]
                if "c_bits" in c:
                    c["c_bits"] = sext(v, ESIZE[dtype])
                cases.append(c)
    # Softmax over rows of +-0 (all +0, all -0, mixed with normal and denormal values).
    n, rows, ch = 1, 6, 33
    vals = []
    for r in range(rows):
        if r == 0:
            row = [0] * ch
        elif r == 1:
            row = [0x80000000] * ch
        elif r == 2:
            row = [rng.choice([0, 0x80000000]) for _ in range(ch)]
        elif r == 3:
            row = [rng.choice([0, 0x80000000, bits_of_f32(rng.gauss(0.0, 2.0))])
                   for _ in range(ch)]
        elif r == 4:
            row = [rng.choice([0, 0x80000000, rng.randrange(1, 0x800000)]) for _ in range(ch)]
        else:
            row = [rng.choice([0x80000000, bits_of_f32(-1.0), bits_of_f32(1.0)])
                   for _ in range(ch)]
        vals += row
    cases.append({"op": "kernel_softmax", "n": n, "rows": rows, "c": ch, "src": vals})
    return cases


# Dims outside [1, 65535] (`--kind dims`, golden/tpu/dims.json): the C-model's shape assert
# probed on every family the other files cover only inside the range (GDMA copies, BDC
# arithmetic and `_C` forms, cast, set_C, cpy, the integer forms, compares, selects, pools):
# a zero h, w or c (c = 0 on a non-zero start NPU, so every extent stays >= 0) and an h of
# 65536 (8- and 16-bit types, so the tensor still fits in its lane).

def dims_cases(rng):
    cases = []
    zeros = [((1, 3, 0, 8), 0), ((1, 3, 2, 0), 7), ((1, 0, 2, 8), 5)]
    big = (1, 1, 65536, 1)
    for direction in ("S2L", "L2S", "S2S", "L2L"):
        d_local, s_local = direction[2] == "L", direction[0] == "L"
        for shape, start in zeros:
            cases.append(gdma_case(rng, direction, "f32", shape,
                                   d_addr=start * LMEM + 0x100 if d_local else None,
                                   s_addr=start * LMEM + 0x2000 if s_local else None))
    for shape, start in zeros + [(big, 3)]:
        small = shape == big
        fdt = "f16" if small else "f32"
        cases.append(bdc_case(rng, "fp_add", fdt, shape, [start] * 3, False))
        cases.append(bdc_case(rng, "fp_mul_C", fdt, shape, [start] * 2, True))
        cases.append(unary_case(rng, "cast", "f16", "i8" if small else "f32", shape,
                                [start, start]))
        cases.append(unary_case(rng, "set_C", "i8", "i8", shape, [start]))
        cases.append(unary_case(rng, "cpy", "u16", "u16", shape, [start, start]))
        cases.append(int_case(rng, "int_add", "i16", ("i8", "i8") if small else ("i16", "i16"),
                              shape, [start] * 3, 0, 0, False, aligned=True))
        cases.append(cmp_case(rng, "greater", "u8" if small else "f32",
                              "u8" if small else "f32", shape, [start] * 3))
        cases.append(sel_case(rng, "greater_select", "u8" if small else "f32",
                              "u8" if small else "f32", shape, start, [True, True, True, False]))
    for shape, start in [((1, 2, 3, 0), 0), ((1, 2, 0, 5), 9), ((1, 0, 3, 5), 4)]:
        for func in ("max_pool2d", "avg_pool2d"):
            cases.append(pool_case(rng, func, "f32", shape, (1, 1), (0, 0, 0, 0), (1, 1),
                                   (1, 1), start))
    return cases


def killed_dims(i, c, rc):
    """`killed` for `--kind dims`: the sources of a rejected BDC call are left out (never read
    by the replay of a rejected call; a 65536-element source would only make the file big)."""
    c = killed(i, c, rc)
    if c["op"] != "gdma_cpy":
        for k in ("src", "src0", "src1", "src2", "src3"):
            if k in c and isinstance(c[k], list):
                c[k] = []
    return c


def killed(_i, c, rc):
    """A case the C-model rejected (it asserted and exited): recorded as an expected error."""
    c = dict(c)
    c["expect_error"] = True
    c["cmodel_exit"] = rc
    c["out_fill_byte"] = FILL
    c["out"] = []
    if c["op"] == "trans":
        c["src_data"] = []  # never read by the replay of a rejected call
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libcmodel_bm1684x.so")
    ap.add_argument("--out", help="output JSON file")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--kind", choices=["gdma", "bdc", "bdc_div", "cast", "move", "cmp", "bit", "int", "select", "select2", "pool", "pool_min", "sfu", "sqrt", "log", "kernel", "dst_stride", "trans", "audit", "gdma_align", "dims"], default="gdma",
                    help="which file: gdma (golden/tpu/gdma.json), bdc (golden/tpu/bdc.json) "
                         "or bdc_div (golden/tpu/bdc_div.json)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(lambda: CModel(a.lib))
        return
    if not a.out:
        ap.error("--out is required")
    rng = random.Random(a.seed)
    ap_cases = {"gdma": gdma_cases, "bdc": bdc_cases,
                "bdc_div": lambda r: bdc_cases(r, True),
                "cast": cast_cases, "move": move_cases, "cmp": cmp_cases,
                "bit": bit_cases, "int": int_cases, "select": sel_cases, "select2": sel2_cases,
                "pool": pool_cases, "sfu": sfu_cases, "sqrt": sqrt_cases, "log": log_cases, "pool_min": pool_min_cases,
                "kernel": kernel_cases, "dst_stride": dst_stride_cases,
                "trans": trans_cases, "audit": audit_cases,
                "gdma_align": gdma_align_cases, "dims": dims_cases}[a.kind](rng)
    done = run_all(os.path.abspath(__file__), a.lib, ap_cases, 32,
                   killed_dims if a.kind == "dims" else killed)
    write_doc(a.out, a.seed, "arrays are bit patterns of the element size; local regions are "
              "listed lane by lane over the lanes the tensor uses; outputs were pre-filled with "
              "out_fill_byte", done, "scripts/gen_tpu_golden.py")
    rejected = sum(1 for c in done if c.get("expect_error"))
    print("%d cases (%d rejected by the C-model) written to %s" % (len(done), rejected, a.out),
          file=sys.stderr)


if __name__ == "__main__":
    main()
