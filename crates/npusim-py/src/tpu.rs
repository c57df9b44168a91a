//! The Sophgo TPU-Kernel API (GDMA, BDC, local-memory helpers, synchronisation) for
//! `npusim.tpu.Device`, under the vendor's function names and parameter order (`tpu_kernel.h`).
//!
//! One table, [`tpu_api!`]: a row per vendor function names its parameters and their kinds;
//! from it come the list Python builds its methods from ([`API`]) and the dispatch ([`call`]).
//! Exposing another function of `npusim-tpu` is one row.
//!
//! Kinds and what Python passes for them:
//! * `Local` (`local_addr_t`), `System` (`system_addr_t`): ints;
//! * `Shape` (`const dim4 *`): `(n, c, h, w)`; `Stride` (`const dim4 *`, may be NULL): the same
//!   or `None`; `Dim2` (`const dim2 *`): `(h, w)`; `Padding` (`const padding_t *`):
//!   `(top, bottom, left, right)`;
//! * `Dtype` (`data_type_t`): `"DT_FP32"`... or the vendor's code; `Mode` (`rounding_mode_t`):
//!   `"RM_HALF_TO_EVEN"`... or the code; `Shift` (`char`), `Int` (`int`), `Bool`;
//! * `Scalar(d)` (`scalar_t`): a Python number is converted to the element type named by the
//!   parameter `d` (floats correctly rounded to f32/f16/bf16; ints range-checked); a numpy scalar
//!   of 1, 2 or 4 bytes passes its bit pattern, and must be as wide as that type (the union
//!   member a C caller would fill);
//! * `Var(d)` (`variable_t`): `("TENSOR", local_addr)` or `("SCALAR", value)`, the value as for
//!   `Scalar(d)`.
//!
//! A bad argument raises `NpusimError` naming the function, the parameter and the value; a call
//! the simulator refuses raises it with the typed error's text.

use npusim_core::RoundMode;
use npusim_core::convert::{f64_to_bf16_bits, f64_to_f16_bits, f64_to_f32};
use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_logic::Variable;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuCore};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::err;

/// The arguments of one call: the row's parameters and the Python values, read in order.
pub(crate) struct Args<'a, 'py> {
    func: &'static str,
    params: &'static [(&'static str, &'static str)],
    vals: &'a [Bound<'py, PyAny>],
    next: usize,
}

impl<'a, 'py> Args<'a, 'py> {
    /// The next argument and its parameter name.
    fn take(&mut self) -> PyResult<(&'static str, &'a Bound<'py, PyAny>)> {
        let i = self.next;
        self.next += 1;
        let (p, _) = self
            .params
            .get(i)
            .ok_or_else(|| err(format!("{}: too many parameters read", self.func)))?;
        let vals: &'a [Bound<'py, PyAny>] = self.vals;
        let v = vals
            .get(i)
            .ok_or_else(|| err(format!("{}: missing argument `{p}`", self.func)))?;
        Ok((p, v))
    }

    fn bad(&self, p: &str, want: &str, v: &Bound<'py, PyAny>) -> PyErr {
        let shown = v
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        err(format!(
            "{}: parameter `{p}` = {shown}: expected {want}",
            self.func
        ))
    }

    fn int<T: for<'b> FromPyObject<'b, 'py>>(&mut self, want: &str) -> PyResult<T> {
        let (p, v) = self.take()?;
        v.extract::<T>().map_err(|_| self.bad(p, want, v))
    }

    fn local(&mut self) -> PyResult<u32> {
        self.int("a local address (local_addr_t, 0..2^32)")
    }
    fn system(&mut self) -> PyResult<u64> {
        self.int("a system address (system_addr_t, 0..2^64)")
    }
    fn i32(&mut self) -> PyResult<i32> {
        self.int("an int (32-bit)")
    }
    fn shift(&mut self) -> PyResult<i8> {
        self.int("a shift (char, -128..127)")
    }
    fn flag(&mut self) -> PyResult<bool> {
        let (p, v) = self.take()?;
        v.extract::<bool>()
            .map_err(|_| self.bad(p, "True or False", v))
    }

    fn ints<const N: usize>(
        &self,
        p: &str,
        v: &Bound<'py, PyAny>,
        want: &str,
    ) -> PyResult<[i32; N]> {
        v.extract::<Vec<i32>>()
            .ok()
            .and_then(|x| <[i32; N]>::try_from(x).ok())
            .ok_or_else(|| self.bad(p, want, v))
    }
    fn dim4(&mut self) -> PyResult<Dim4> {
        let (p, v) = self.take()?;
        let [n, c, h, w] = self.ints::<4>(p, v, "a dim4 (n, c, h, w) of ints")?;
        Ok(Dim4::new(n, c, h, w))
    }
    fn stride(&mut self) -> PyResult<Option<Dim4>> {
        let (p, v) = self.take()?;
        if v.is_none() {
            return Ok(None);
        }
        let [n, c, h, w] = self.ints::<4>(p, v, "a dim4 (n, c, h, w) of ints or None (NULL)")?;
        Ok(Some(Dim4::new(n, c, h, w)))
    }
    fn dim2(&mut self) -> PyResult<Dim2> {
        let (p, v) = self.take()?;
        let [h, w] = self.ints::<2>(p, v, "a dim2 (h, w) of ints")?;
        Ok(Dim2::new(h, w))
    }
    fn padding(&mut self) -> PyResult<Padding> {
        let (p, v) = self.take()?;
        let [top, bottom, left, right] =
            self.ints::<4>(p, v, "a padding (top, bottom, left, right) of ints")?;
        Ok(Padding {
            top,
            bottom,
            left,
            right,
        })
    }

    fn dtype(&mut self) -> PyResult<DataType> {
        let (p, v) = self.take()?;
        self.dtype_of(p, v)
    }
    fn dtype_of(&self, p: &str, v: &Bound<'py, PyAny>) -> PyResult<DataType> {
        data_type_of(v)
            .ok_or_else(|| self.bad(p, "a data_type_t (\"DT_FP32\", ... or its code)", v))
    }
    fn mode(&mut self) -> PyResult<RoundingMode> {
        let (p, v) = self.take()?;
        let m = if let Ok(s) = v.cast::<PyString>() {
            let s = s.to_string();
            (0..8)
                .filter_map(RoundingMode::from_code)
                .find(|m| m.vendor_name().eq_ignore_ascii_case(&s))
        } else {
            v.extract::<i32>().ok().and_then(RoundingMode::from_code)
        };
        m.ok_or_else(|| self.bad(p, "a rounding_mode_t (\"RM_HALF_TO_EVEN\", ... or 0..6)", v))
    }

    /// The element type named by parameter `d` of this row (read from the raw arguments).
    fn governing(&self, d: &str) -> PyResult<DataType> {
        let i = self
            .params
            .iter()
            .position(|(p, _)| *p == d)
            .ok_or_else(|| err(format!("{}: no parameter `{d}`", self.func)))?;
        let v = self
            .vals
            .get(i)
            .ok_or_else(|| err(format!("{}: missing argument `{d}`", self.func)))?;
        self.dtype_of(d, v)
    }

    fn scalar(&mut self, d: &str) -> PyResult<Scalar> {
        let (p, v) = self.take()?;
        let dt = self.governing(d)?;
        self.scalar_of(p, v, dt, d)
    }

    fn scalar_of(&self, p: &str, v: &Bound<'py, PyAny>, dt: DataType, d: &str) -> PyResult<Scalar> {
        scalar_bits(v, dt).map(Scalar::from_bits).map_err(|why| {
            let shown = v
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into());
            err(format!(
                "{}: parameter `{p}` = {shown}: {why} ({d} = {})",
                self.func,
                dt.vendor_name()
            ))
        })
    }

    fn var(&mut self, d: &str) -> PyResult<Variable> {
        let (p, v) = self.take()?;
        let want = "a variable_t: (\"TENSOR\", local_addr) or (\"SCALAR\", value)";
        let (kind, x): (String, Bound<'py, PyAny>) =
            v.extract().map_err(|_| self.bad(p, want, v))?;
        match kind.to_ascii_uppercase().as_str() {
            "TENSOR" => Ok(Variable::Tensor(
                x.extract::<u32>().map_err(|_| self.bad(p, want, v))?,
            )),
            "SCALAR" => {
                let dt = self.governing(d)?;
                Ok(Variable::Scalar(self.scalar_of(p, &x, dt, d)?))
            }
            _ => Err(self.bad(p, want, v)),
        }
    }
}

/// A `data_type_t` from its vendor name (`"DT_FP32"`, any case) or code.
pub(crate) fn data_type_of(v: &Bound<'_, PyAny>) -> Option<DataType> {
    if let Ok(s) = v.cast::<PyString>() {
        let s = s.to_string();
        return npusim_tpu::dtype::ALL_DATA_TYPES
            .into_iter()
            .find(|d| d.vendor_name().eq_ignore_ascii_case(&s));
    }
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return None;
    }
    v.extract::<i32>()
        .ok()
        .and_then(|c| DataType::try_from(c).ok())
}

fn is_float(dt: DataType) -> bool {
    matches!(
        dt,
        DataType::Fp32
            | DataType::Fp16
            | DataType::Bfp16
            | DataType::Fp8E4M3
            | DataType::Fp8E5M2
            | DataType::Fp20
    )
}

/// The 32-bit `scalar_t` pattern of a Python value for element type `dt` (module docs).
fn scalar_bits(v: &Bound<'_, PyAny>, dt: DataType) -> Result<u32, String> {
    let width = match dt.bits() {
        8 => 1usize,
        16 => 2,
        32 => 4,
        b => return Err(format!("no {b}-bit constants")),
    };
    // A numpy scalar (not float64/int64, which behave as Python numbers): its bit pattern.
    if let (Ok(_), Ok(b)) = (v.getattr("dtype"), v.call_method0("tobytes"))
        && let Ok(bytes) = b.extract::<Vec<u8>>()
        && bytes.len() != 8
    {
        if bytes.len() != width {
            return Err(format!(
                "a {}-byte numpy scalar for a {width}-byte element type",
                bytes.len()
            ));
        }
        let mut a = [0u8; 4];
        a[..width].copy_from_slice(&bytes);
        let raw = u32::from_le_bytes(a);
        return Ok(match width {
            1 => Scalar::from_bits8(raw as u8).bits(),
            2 => Scalar::from_bits16(raw as u16).bits(),
            _ => raw,
        });
    }
    // An int (Python or numpy int64) for an integer type: its value, range-checked.
    if !is_float(dt)
        && let Ok(x) = v.extract::<i128>()
    {
        let bits = 8 * width as u32;
        let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
        if x < lo || x > hi {
            return Err(format!("out of range [{lo}, {hi}] of the element type"));
        }
        let raw = (x as i64 as u64 & ((1u64 << bits) - 1)) as u32;
        return Ok(match width {
            1 => Scalar::from_bits8(raw as u8).bits(),
            2 => Scalar::from_bits16(raw as u16).bits(),
            _ => raw,
        });
    }
    let x: f64 = v
        .extract()
        .map_err(|_| "expected a number or a numpy scalar".to_string())?;
    match dt {
        DataType::Fp32 => Ok(f64_to_f32(x, RoundMode::Rint).to_bits()),
        DataType::Fp16 => Ok(Scalar::from_bits16(f64_to_f16_bits(x, RoundMode::Rint)).bits()),
        DataType::Bfp16 => Ok(Scalar::from_bits16(f64_to_bf16_bits(x, RoundMode::Rint)).bits()),
        _ if is_float(dt) => Err("pass this type's bit pattern as a numpy uint scalar".into()),
        _ => Err("a float constant for an integer element type".into()),
    }
}

/// A vendor function's result as a Python value.
pub(crate) trait Ret {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Ret for () {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
}

macro_rules! ret_plain {
    ($($t:ty),*) => {$(
        impl Ret for $t {
            fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.into_py_any(py)
            }
        }
    )*};
}
ret_plain!(bool, u32, i32, u64, i64);
ret_plain!(String);

impl Ret for Dim4 {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        (self.n, self.c, self.h, self.w).into_py_any(py)
    }
}

impl<T: Ret, E: std::fmt::Display> Ret for Result<T, E> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Ok(v) => v.into_py(py),
            Err(e) => Err(err(e.to_string())),
        }
    }
}

/// One argument, read by its kind.
macro_rules! arg {
    ($a:ident, Local) => {
        $a.local()?
    };
    ($a:ident, System) => {
        $a.system()?
    };
    ($a:ident, Shape) => {
        &$a.dim4()?
    };
    ($a:ident, Stride) => {
        $a.stride()?.as_ref()
    };
    ($a:ident, Dim2) => {
        &$a.dim2()?
    };
    ($a:ident, Padding) => {
        &$a.padding()?
    };
    ($a:ident, Dtype) => {
        $a.dtype()?
    };
    ($a:ident, Mode) => {
        $a.mode()?
    };
    ($a:ident, Shift) => {
        $a.shift()?
    };
    ($a:ident, Int) => {
        $a.i32()?
    };
    ($a:ident, Bool) => {
        $a.flag()?
    };
    ($a:ident, Scalar, $d:ident) => {
        $a.scalar(stringify!($d))?
    };
    ($a:ident, Var, $d:ident) => {
        &$a.var(stringify!($d))?
    };
}

/// The receiver of a row: the core (`core.f(...)`) or its local-memory profile (`local.f(...)`).
macro_rules! recv {
    (core, $c:ident) => {
        $c
    };
    (local, $c:ident) => {
        $c.chip().local()
    };
}

macro_rules! tpu_api {
    ($( $recv:ident . $name:ident ( $( $p:ident : $k:ident $( ( $d:ident ) )? ),* ) ; )*) => {
        /// Every exposed vendor function: name and `(parameter, kind)` in the vendor's order
        /// (a `Scalar`/`Var` kind names the parameter holding its element type: `Scalar(dtype)`).
        pub(crate) const API: &[(&str, &[(&str, &str)])] = &[
            $( (stringify!($name), &[ $( (stringify!($p),
                concat!(stringify!($k) $(, "(", stringify!($d), ")")?)) ),* ]) ),*
        ];

        /// Calls the vendor function `name` with the Python arguments `vals` (in order).
        pub(crate) fn call(
            core: &mut TpuCore,
            py: Python<'_>,
            name: &str,
            vals: &[Bound<'_, PyAny>],
        ) -> PyResult<Py<PyAny>> {
            let Some(&(func, params)) = API.iter().find(|(n, _)| *n == name) else {
                return Err(err(format!("`{name}` is not a TPU-Kernel function npusim has")));
            };
            if vals.len() != params.len() {
                return Err(err(format!(
                    "{func}: takes {} arguments ({}), got {}",
                    params.len(),
                    params.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", "),
                    vals.len()
                )));
            }
            #[allow(unused_mut, unused_variables)]
            let mut a = Args { func, params, vals, next: 0 };
            match func {
                $( stringify!($name) => {
                    #[allow(unused_parens)]
                    let r = recv!($recv, core).$name( $( arg!(a, $k $(, $d)?) ),* );
                    Ret::into_py(r, py)
                } )*
                _ => Err(err(format!("`{name}` has no dispatch row"))),
            }
        }
    };
}

tpu_api! {
    // GDMA (tpu_kernel.h "GDMA")
    core.tpu_gdma_cpy_S2L(dst_addr: Local, src_addr: System, shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_L2S(dst_addr: System, src_addr: Local, shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_S2S(dst_addr: System, src_addr: System, shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_L2L(dst_addr: Local, src_addr: Local, shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_matrix_S2L(dst_addr: Local, src_addr: System, rows: Int, cols: Int, cols_per_channel: Int, row_stride: Int, dtype: Dtype);
    core.tpu_gdma_matrix_L2S(dst_addr: System, src_addr: Local, rows: Int, cols: Int, cols_per_channel: Int, row_stride: Int, dtype: Dtype);
    core.tpu_gdma_compact_S2L(dst_addr: Local, src_addr: System, shape: Shape, dtype: Dtype);
    core.tpu_gdma_compact_L2S(dst_addr: System, src_addr: Local, shape: Shape, dtype: Dtype);
    core.tpu_gdma_cpy_cw_trans_S2L(dst_addr: Local, src_addr: System, dst_shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_cw_trans_L2S(dst_addr: System, src_addr: Local, dst_shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_cw_trans_L2L(dst_addr: Local, src_addr: Local, dst_shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_gdma_cpy_cw_trans_S2S(dst_addr: System, src_addr: System, dst_shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_cw_trans(dst_addr: Local, src_addr: Local, shape: Shape, dtype: Dtype);
    core.tpu_bdc_wc_trans(dst_addr: Local, src_addr: Local, shape: Shape, dtype: Dtype);
    // BDC float arithmetic
    core.tpu_bdc_fp_add(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_sub(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_mul(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_div(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_max(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_min(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_add_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_sub_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_C_sub(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_mul_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_div_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_fp_C_div(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_max_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_min_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    // BDC bitwise
    core.tpu_bdc_and(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_or(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_xor(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dtype: Dtype);
    core.tpu_bdc_and_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_or_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_xor_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    // BDC compares
    core.tpu_bdc_equal(dst_addr: Local, src0_addr: Local, src1_addr: Local, true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    core.tpu_bdc_greater(dst_addr: Local, src0_addr: Local, src1_addr: Local, true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    core.tpu_bdc_less(dst_addr: Local, src0_addr: Local, src1_addr: Local, true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    core.tpu_bdc_equal_C(dst_addr: Local, src_addr: Local, C: Scalar(src_dtype), true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    core.tpu_bdc_greater_C(dst_addr: Local, src_addr: Local, C: Scalar(src_dtype), true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    core.tpu_bdc_less_C(dst_addr: Local, src_addr: Local, C: Scalar(src_dtype), true_val: Scalar(dst_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype);
    // BDC selects
    core.tpu_bdc_greater_select(dst_addr: Local, src0: Var(src0_src1_dtype), src1: Var(src0_src1_dtype), src2: Var(dst_dtype), src3: Var(dst_dtype), shape: Shape, src0_src1_dtype: Dtype, dst_dtype: Dtype);
    core.tpu_bdc_less_select(dst_addr: Local, src0: Var(src0_src1_dtype), src1: Var(src0_src1_dtype), src2: Var(dst_dtype), src3: Var(dst_dtype), shape: Shape, src0_src1_dtype: Dtype, dst_dtype: Dtype);
    core.tpu_bdc_equal_select(dst_addr: Local, src0: Var(src0_src1_dtype), src1: Var(src0_src1_dtype), src2: Var(dst_dtype), src3: Var(dst_dtype), shape: Shape, src0_src1_dtype: Dtype, dst_dtype: Dtype);
    core.tpu_bdc_maximum_greater_select(dst0_addr: Local, dst1_addr: Local, src0: Var(dst0_dtype), src1: Var(dst0_dtype), src2: Var(dst1_dtype), src3: Var(dst1_dtype), shape: Shape, dst0_dtype: Dtype, dst1_dtype: Dtype);
    core.tpu_bdc_minimum_less_select(dst0_addr: Local, dst1_addr: Local, src0: Var(dst0_dtype), src1: Var(dst0_dtype), src2: Var(dst1_dtype), src3: Var(dst1_dtype), shape: Shape, dst0_dtype: Dtype, dst1_dtype: Dtype);
    // BDC integer arithmetic
    core.tpu_bdc_int_add(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src0_dtype: Dtype, src1_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_sub(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src0_dtype: Dtype, src1_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_mul(dst_addr: Local, src0_addr: Local, src1_addr: Local, shape: Shape, dst_stride: Stride, src0_stride: Stride, src1_stride: Stride, dst_dtype: Dtype, src0_dtype: Dtype, src1_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_add_C(dst_addr: Local, src_addr: Local, C: Scalar(C_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype, C_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_sub_C(dst_addr: Local, src_addr: Local, C: Scalar(C_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype, C_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_C_sub(dst_addr: Local, src_addr: Local, C: Scalar(C_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype, C_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_mul_C(dst_addr: Local, src_addr: Local, C: Scalar(C_dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype, C_dtype: Dtype, shift: Shift, rounding_mode: Mode, saturation: Bool);
    core.tpu_bdc_int_max_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype, shift: Shift, rounding_mode: Mode);
    core.tpu_bdc_int_min_C(dst_addr: Local, src_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype, shift: Shift, rounding_mode: Mode);
    // BDC data movement and conversion
    core.tpu_bdc_cast(dst_addr: Local, src_addr: Local, shape: Shape, dst_stride: Stride, src_stride: Stride, dst_dtype: Dtype, src_dtype: Dtype, mode: Mode);
    core.tpu_bdc_set_C(dst_addr: Local, C: Scalar(dtype), shape: Shape, dst_stride: Stride, dtype: Dtype);
    core.tpu_bdc_cpy(dst_addr: Local, src_addr: Local, shape: Shape, dst_stride: Stride, src_stride: Stride, dtype: Dtype);
    core.tpu_bdc_npu_bcast(dst_addr: Local, src_addr: Local, shape: Shape, dtype: Dtype);
    // BDC pooling
    core.tpu_bdc_fp_max_pool2d(output_addr: Local, input_addr: Local, input_shape: Shape, kernel: Dim2, padding: Padding, stride: Dim2, dilation: Dim2, dtype: Dtype, pad_val: Scalar(dtype));
    core.tpu_bdc_fp_min_pool2d(output_addr: Local, input_addr: Local, input_shape: Shape, kernel: Dim2, padding: Padding, stride: Dim2, dilation: Dim2, dtype: Dtype, pad_val: Scalar(dtype));
    core.tpu_bdc_fp_avg_pool2d(output_addr: Local, input_addr: Local, input_shape: Shape, kernel: Dim2, padding: Padding, stride: Dim2, dilation: Dim2, dtype: Dtype, scale: Scalar(dtype));
    // BDC special functions
    core.tpu_bdc_load_fp32_exp_coeff(coeff_addr: Local);
    core.tpu_bdc_load_fp32_exp_table(table_addr: Local);
    core.tpu_bdc_fp32_exp(dst_addr: Local, src_addr: Local, work0_addr: Local, work1_addr: Local, coeff_addr: Local, table_addr: Local, shape: Shape);
    core.tpu_bdc_fp32_rsqrt(dst_addr: Local, src_addr: Local, shape: Shape);
    core.tpu_bdc_fp32_sqrt(dst_addr: Local, src_addr: Local, shape: Shape);
    // synchronisation
    core.tpu_poll();
    core.tpu_parallel_start();
    core.tpu_parallel_end();
    core.tpu_is_parallel_state();
    core.tpu_sync_all();
    core.tpu_core_index();
    core.tpu_core_num();
    // local memory and layouts ("UTILS FUNCTIONS"); strides come back as (n, c, h, w)
    local.tpu_npu_num();
    local.tpu_bank_num();
    local.tpu_local_mem_size_per_npu();
    local.tpu_npu_index(addr: Local);
    local.tpu_bank_index(addr: Local);
    local.tpu_gdma_shape_limit(dim: Int);
    local.tpu_gdma_move_max_wstride_byte_len();
    local.tpu_data_type_size(dtype: Dtype);
    local.tpu_eu_num(dtype: Dtype);
    local.tpu_channle_num_per_npu(start_idx: Int, c: Int);
    local.tpu_get_local_cstride(h: Int, w: Int, align: Bool, dtype: Dtype);
    local.tpu_get_local_nstride(c_stride: Int, c: Int, start_idx: Int);
    local.tpu_aligned_feature_size(h: Int, w: Int, dtype: Dtype);
    local.tpu_get_local_size(shape: Shape, dtype: Dtype, start_idx: Int, align: Bool);
    local.tpu_aligned_stride(start_idx: Int, shape: Shape, dtype: Dtype);
    local.tpu_compact_stride(start_idx: Int, shape: Shape);
    local.tpu_line_aligned_stride(start_idx: Int, shape: Shape, dtype: Dtype);
    local.tpu_continuous_stride(shape: Shape);
    // debug printing (TPU-Kernel common helpers; npusim_tpu::print): the text comes back,
    // npusim.tpu tags and prints it
    core.tpu_print_local_mem_data(local_offset: Local, start_idx: Int, shape: Shape, stride: Stride, dtype: Dtype);
    core.tpu_print_global_mem_data(addr: System, shape: Shape, stride: Stride, dtype: Dtype);
}
