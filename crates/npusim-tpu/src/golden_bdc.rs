//! Replay of the BDC cases of the TPU golden files (`bdc_bin`, `bdc_const`, `bdc_unary`,
//! `bdc_cmp`, `bdc_int`, ... as `scripts/gen_tpu_golden.py` documents them): one driver for
//! every BDC case and one dispatch row per vendor function ([`call`]).
//!
//! The driver writes each local source operand (listed lane by lane over the lanes its
//! channels use), fills the destination with `out_fill_byte`, calls the function, checks a
//! C-model rejection (`expect_error`) against a typed error, and compares the destination
//! region bit for bit.

use serde_json::{Map, Value};

use crate::bdc_data::RoundingMode;
use crate::bdc_logic::Variable;
use crate::bdc_pool::{Dim2, Padding};
use crate::chip::TpuChip;
use crate::device::{Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::golden::{FailureKind, both_refused, check_len, dtype_of, first_diff, lanes, refused};
use crate::local::Dim4;

/// A BDC case: its fields by name (the generator's documented names).
#[derive(Debug, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct BdcCase(Map<String, Value>);

/// The source operands a case may list, in the order they are written.
const SOURCES: [&str; 5] = ["src", "src0", "src1", "src2", "src3"];

fn malformed(msg: String) -> FailureKind {
    FailureKind::Malformed(msg)
}

impl BdcCase {
    fn get(&self, k: &str) -> Option<&Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }
    fn i64_or(&self, k: &str, default: i64) -> Result<i64, FailureKind> {
        match self.get(k) {
            None => Ok(default),
            Some(v) => v
                .as_i64()
                .ok_or_else(|| malformed(format!("{k} is not an integer"))),
        }
    }
    fn i32(&self, k: &str) -> Result<i32, FailureKind> {
        let v = self.i64_or(k, 0)?;
        i32::try_from(v).map_err(|_| malformed(format!("{k} = {v} is not an int")))
    }
    fn u32(&self, k: &str) -> Result<u32, FailureKind> {
        let v = self.i64_or(k, 0)?;
        u32::try_from(v).map_err(|_| malformed(format!("{k} = {v} is not a u32")))
    }
    fn flag(&self, k: &str) -> bool {
        self.get(k).and_then(Value::as_bool).unwrap_or(false)
    }
    fn str(&self, k: &str) -> Result<&str, FailureKind> {
        self.get(k)
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(format!("missing string {k}")))
    }
    fn func(&self) -> Result<&str, FailureKind> {
        self.str("func")
    }
    fn dim4(&self, k: &str) -> Result<Option<Dim4>, FailureKind> {
        let Some(v) = self.get(k) else {
            return Ok(None);
        };
        let a = v
            .as_array()
            .filter(|a| a.len() == 4)
            .ok_or_else(|| malformed(format!("{k} is not [n, c, h, w]")))?;
        let mut d = [0i32; 4];
        for (o, x) in d.iter_mut().zip(a) {
            *o = x
                .as_i64()
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(|| malformed(format!("{k} holds a non-int")))?;
        }
        Ok(Some(Dim4::new(d[0], d[1], d[2], d[3])))
    }
    fn ints(&self, k: &str, n: usize) -> Result<Vec<i32>, FailureKind> {
        let a = self
            .get(k)
            .and_then(Value::as_array)
            .filter(|a| a.len() == n)
            .ok_or_else(|| malformed(format!("{k} is not an array of {n} ints")))?;
        a.iter()
            .map(|x| {
                x.as_i64()
                    .and_then(|x| i32::try_from(x).ok())
                    .ok_or_else(|| malformed(format!("{k} holds a non-int")))
            })
            .collect()
    }
    fn shape(&self) -> Result<Dim4, FailureKind> {
        self.dim4("shape")?
            .ok_or_else(|| malformed("missing shape".into()))
    }
    fn words(&self, k: &str) -> Result<Option<Vec<u32>>, FailureKind> {
        let Some(v) = self.get(k) else {
            return Ok(None);
        };
        let a = v
            .as_array()
            .ok_or_else(|| malformed(format!("{k} is not an array")))?;
        a.iter()
            .map(|x| {
                x.as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .ok_or_else(|| malformed(format!("{k} holds a non-u32")))
            })
            .collect::<Result<Vec<u32>, _>>()
            .map(Some)
    }
    /// The dtype named by the first of `keys` present.
    fn dtype(&self, keys: &[&str]) -> Result<DataType, FailureKind> {
        for k in keys {
            if let Some(v) = self.get(k) {
                let s = v
                    .as_str()
                    .ok_or_else(|| malformed(format!("{k} is not a string")))?;
                return dtype_of(s);
            }
        }
        Err(malformed(format!("missing {}", keys.join(" / "))))
    }
    fn dst_dtype(&self) -> Result<DataType, FailureKind> {
        self.dtype(&["dst_dtype", "dtype"])
    }
    fn src_dtype_of(&self, name: &str) -> Result<DataType, FailureKind> {
        self.dtype(&[&format!("{name}_dtype"), "src_dtype", "dtype"])
    }
    fn src_dtype(&self) -> Result<DataType, FailureKind> {
        self.dtype(&["src_dtype", "src0_dtype", "dtype"])
    }
    fn addr(&self, name: &str) -> Result<u32, FailureKind> {
        self.u32(&format!("{name}_addr"))
    }
    fn stride(&self, name: &str) -> Result<Option<Dim4>, FailureKind> {
        self.dim4(&format!("{name}_stride"))
    }
    fn scalar(&self, k: &str) -> Result<Scalar, FailureKind> {
        Ok(Scalar::from_bits(self.u32(k)?))
    }
    fn shift(&self) -> Result<i8, FailureKind> {
        let v = self.i64_or("shift", 0)?;
        i8::try_from(v).map_err(|_| malformed(format!("shift = {v} is not a char")))
    }
    fn mode(&self) -> Result<Result<RoundingMode, TpuError>, FailureKind> {
        let code = self.i32("mode")?;
        Ok(
            RoundingMode::from_code(code).ok_or(TpuError::UnsupportedRoundingMode {
                op: "rounding_mode",
                mode: "an unknown code",
            }),
        )
    }
}

pub(crate) fn esize_of(dtype: DataType) -> Result<usize, FailureKind> {
    match dtype.bits() {
        8 => Ok(1),
        16 => Ok(2),
        32 => Ok(4),
        b => Err(malformed(format!("{b}-bit dtype"))),
    }
}

/// Checks that a local region listed lane by lane stays inside its lanes.
fn region_ok(addr: u32, extent: u64, esize: usize) -> Result<(), FailureKind> {
    let p = TpuChip::Bm1684x.local();
    let lmem = u64::from(p.local_mem_per_npu);
    if u64::from(addr) >= p.local_space() || u64::from(addr) % lmem + extent * esize as u64 > lmem {
        return Err(malformed("local region outside its lane".into()));
    }
    Ok(())
}

fn lane_addr(lane: u64, addr: u32) -> u32 {
    let lmem = u64::from(TpuChip::Bm1684x.local().local_mem_per_npu);
    (lane * lmem + u64::from(addr) % lmem) as u32
}

/// Writes a local region listed lane by lane (`extent` elements per lane over the lanes `c`
/// channels at `addr` use).
pub(crate) fn put_region(
    core: &mut TpuCore,
    addr: u32,
    extent: u64,
    esize: usize,
    c: i32,
    data: &[u32],
) -> Result<(), FailureKind> {
    region_ok(addr, extent, esize)?;
    let p = TpuChip::Bm1684x.local();
    let n = lanes(&p, u64::from(addr), c).count();
    check_len("src", data, extent as usize * n)?;
    let per = extent as usize;
    for (i, lane) in lanes(&p, u64::from(addr), c).enumerate() {
        let bytes: Vec<u8> = data[i * per..(i + 1) * per]
            .iter()
            .flat_map(|x| x.to_le_bytes().into_iter().take(esize))
            .collect();
        core.write_local(lane_addr(lane, addr), &bytes)
            .map_err(refused)?;
    }
    Ok(())
}

/// Fills a local region (lane by lane) with one byte.
pub(crate) fn fill_region(
    core: &mut TpuCore,
    addr: u32,
    extent: u64,
    esize: usize,
    c: i32,
    byte: u8,
) -> Result<(), FailureKind> {
    region_ok(addr, extent, esize)?;
    let p = TpuChip::Bm1684x.local();
    let fill = vec![byte; extent as usize * esize];
    for lane in lanes(&p, u64::from(addr), c) {
        core.write_local(lane_addr(lane, addr), &fill)
            .map_err(refused)?;
    }
    Ok(())
}

/// Reads a local region lane by lane as bit patterns.
pub(crate) fn get_region(
    core: &TpuCore,
    addr: u32,
    extent: u64,
    esize: usize,
    c: i32,
) -> Result<Vec<u32>, FailureKind> {
    let p = TpuChip::Bm1684x.local();
    let mut raw = Vec::new();
    for lane in lanes(&p, u64::from(addr), c) {
        raw.extend(
            core.read_local(lane_addr(lane, addr), extent as usize * esize)
                .map_err(refused)?,
        );
    }
    Ok(raw
        .chunks_exact(esize)
        .map(|ch| {
            let mut a = [0u8; 4];
            a[..esize].copy_from_slice(ch);
            u32::from_le_bytes(a)
        })
        .collect())
}

/// Runs one BDC case of any kind.
pub(crate) fn run_bdc_case(core: &mut TpuCore, c: &BdcCase) -> Result<(), FailureKind> {
    let shape = c.shape()?;
    let expect_error = c.flag("expect_error");
    let ddt = c.dst_dtype()?;
    let des = esize_of(ddt)?;
    let dst_addr = c.addr("dst")?;
    let dst_extent = c.i64_or("dst_extent", 0)? as u64;
    let fill = u8::try_from(c.i64_or("out_fill_byte", 0)?)
        .map_err(|_| malformed("out_fill_byte is not a byte".into()))?;
    if !expect_error {
        for name in SOURCES {
            let Some(data) = c.words(name)? else {
                continue;
            };
            let es = esize_of(c.src_dtype_of(name)?)?;
            let ch = if name == "src" && c.get("src_channels").is_some() {
                c.i32("src_channels")?
            } else {
                shape.c
            };
            let ext = c.i64_or(&format!("{name}_extent"), 0)? as u64;
            put_region(core, c.addr(name)?, ext, es, ch, &data)?;
        }
        fill_region(core, dst_addr, dst_extent, des, shape.c, fill)?;
        if let Some((a, ext, es)) = second_dst(c)? {
            fill_region(core, a, ext, es, shape.c, fill)?;
        }
    }
    let result = call(core, c, &shape)?;
    if both_refused(result, expect_error)? {
        return Ok(());
    }
    core.tpu_poll();
    let got = get_region(core, dst_addr, dst_extent, des, shape.c)?;
    let out = c
        .words("out")?
        .ok_or_else(|| malformed("missing out".into()))?;
    first_diff("out", &out, &got)?;
    if let Some((a, ext, es)) = second_dst(c)? {
        let got = get_region(core, a, ext, es, shape.c)?;
        let out = c
            .words("out1")?
            .ok_or_else(|| malformed("missing out1".into()))?;
        first_diff("out1", &out, &got)?;
    }
    Ok(())
}

/// The second destination of a two-output function (`dst1_addr`, `dst1_extent`,
/// `dst1_dtype`), if the case has one.
fn second_dst(c: &BdcCase) -> Result<Option<(u32, u64, usize)>, FailureKind> {
    if c.get("dst1_addr").is_none() {
        return Ok(None);
    }
    let es = esize_of(c.dtype(&["dst1_dtype"])?)?;
    Ok(Some((
        c.addr("dst1")?,
        c.i64_or("dst1_extent", 0)? as u64,
        es,
    )))
}

/// The dispatch table: one row per vendor function, its arguments read from the case.
fn call(
    core: &mut TpuCore,
    c: &BdcCase,
    shape: &Dim4,
) -> Result<Result<(), TpuError>, FailureKind> {
    let func = c.func()?;
    let (ds, s0, s1, ss) = (
        c.stride("dst")?,
        c.stride("src0")?,
        c.stride("src1")?,
        c.stride("src")?,
    );
    let (ds, s0, s1, ss) = (ds.as_ref(), s0.as_ref(), s1.as_ref(), ss.as_ref());
    let (d, a0, a1, a) = (
        c.addr("dst")?,
        c.addr("src0")?,
        c.addr("src1")?,
        c.addr("src")?,
    );
    let k = c.scalar("c_bits")?;
    let dt = || c.dst_dtype();
    let st = || c.src_dtype();
    Ok(match func {
        // float arithmetic (bdc_bin / bdc_const)
        "fp_add" => core.tpu_bdc_fp_add(d, a0, a1, shape, ds, s0, s1, dt()?),
        "fp_sub" => core.tpu_bdc_fp_sub(d, a0, a1, shape, ds, s0, s1, dt()?),
        "fp_mul" => core.tpu_bdc_fp_mul(d, a0, a1, shape, ds, s0, s1, dt()?),
        "fp_div" => core.tpu_bdc_fp_div(d, a0, a1, shape, ds, s0, s1, dt()?),
        "max" => core.tpu_bdc_max(d, a0, a1, shape, ds, s0, s1, dt()?),
        "min" => core.tpu_bdc_min(d, a0, a1, shape, ds, s0, s1, dt()?),
        "fp_add_C" => core.tpu_bdc_fp_add_C(d, a, k, shape, ds, ss, dt()?),
        "fp_sub_C" => core.tpu_bdc_fp_sub_C(d, a, k, shape, ds, ss, dt()?),
        "fp_C_sub" => core.tpu_bdc_fp_C_sub(d, a, k, shape, ds, ss, dt()?),
        "fp_mul_C" => core.tpu_bdc_fp_mul_C(d, a, k, shape, ds, ss, dt()?),
        "fp_div_C" => core.tpu_bdc_fp_div_C(d, a, k, shape, ds, ss, dt()?),
        "fp_C_div" => core.tpu_bdc_fp_C_div(d, a, k, shape, ds, ss, dt()?),
        "max_C" => core.tpu_bdc_max_C(d, a, k, shape, ds, ss, dt()?),
        "min_C" => core.tpu_bdc_min_C(d, a, k, shape, ds, ss, dt()?),
        // bitwise
        "and" => core.tpu_bdc_and(d, a0, a1, shape, ds, s0, s1, dt()?),
        "or" => core.tpu_bdc_or(d, a0, a1, shape, ds, s0, s1, dt()?),
        "xor" => core.tpu_bdc_xor(d, a0, a1, shape, ds, s0, s1, dt()?),
        "and_C" => core.tpu_bdc_and_C(d, a, k, shape, ds, ss, dt()?),
        "or_C" => core.tpu_bdc_or_C(d, a, k, shape, ds, ss, dt()?),
        "xor_C" => core.tpu_bdc_xor_C(d, a, k, shape, ds, ss, dt()?),
        // compares (bdc_cmp)
        "equal" | "greater" | "less" => {
            let tv = c.scalar("true_bits")?;
            let (ddt, sdt) = (dt()?, st()?);
            match func {
                "equal" => core.tpu_bdc_equal(d, a0, a1, tv, shape, ds, s0, s1, ddt, sdt),
                "greater" => core.tpu_bdc_greater(d, a0, a1, tv, shape, ds, s0, s1, ddt, sdt),
                _ => core.tpu_bdc_less(d, a0, a1, tv, shape, ds, s0, s1, ddt, sdt),
            }
        }
        "equal_C" | "greater_C" | "less_C" => {
            let tv = c.scalar("true_bits")?;
            let (ddt, sdt) = (dt()?, st()?);
            match func {
                "equal_C" => core.tpu_bdc_equal_C(d, a, k, tv, shape, ds, ss, ddt, sdt),
                "greater_C" => core.tpu_bdc_greater_C(d, a, k, tv, shape, ds, ss, ddt, sdt),
                _ => core.tpu_bdc_less_C(d, a, k, tv, shape, ds, ss, ddt, sdt),
            }
        }
        // moves and casts (bdc_unary)
        "cast" => match c.mode()? {
            Ok(mode) => core.tpu_bdc_cast(d, a, shape, ds, ss, dt()?, st()?, mode),
            Err(e) => Err(e),
        },
        "set_C" => core.tpu_bdc_set_C(d, k, shape, ds, dt()?),
        "cpy" => core.tpu_bdc_cpy(d, a, shape, ds, ss, dt()?),
        "npu_bcast" => core.tpu_bdc_npu_bcast(d, a, shape, dt()?),
        // integer arithmetic (bdc_int)
        "int_add" | "int_sub" | "int_mul" => {
            let dts = (dt()?, c.src_dtype_of("src0")?, c.src_dtype_of("src1")?);
            let (sh, sat) = (c.shift()?, c.flag("saturation"));
            let m = match c.mode()? {
                Ok(m) => m,
                Err(e) => return Ok(Err(e)),
            };
            let f = match func {
                "int_add" => TpuCore::tpu_bdc_int_add,
                "int_sub" => TpuCore::tpu_bdc_int_sub,
                _ => TpuCore::tpu_bdc_int_mul,
            };
            f(
                core, d, a0, a1, shape, ds, s0, s1, dts.0, dts.1, dts.2, sh, m, sat,
            )
        }
        "int_add_C" | "int_sub_C" | "int_C_sub" | "int_mul_C" => {
            let dts = (dt()?, c.src_dtype_of("src")?, c.dtype(&["C_dtype"])?);
            let (sh, sat) = (c.shift()?, c.flag("saturation"));
            let m = match c.mode()? {
                Ok(m) => m,
                Err(e) => return Ok(Err(e)),
            };
            let f = match func {
                "int_add_C" => TpuCore::tpu_bdc_int_add_C,
                "int_sub_C" => TpuCore::tpu_bdc_int_sub_C,
                "int_C_sub" => TpuCore::tpu_bdc_int_C_sub,
                _ => TpuCore::tpu_bdc_int_mul_C,
            };
            f(
                core, d, a, k, shape, ds, ss, dts.0, dts.1, dts.2, sh, m, sat,
            )
        }
        "int_max_C" | "int_min_C" => {
            let sh = c.shift()?;
            let m = match c.mode()? {
                Ok(m) => m,
                Err(e) => return Ok(Err(e)),
            };
            let f = if func == "int_max_C" {
                TpuCore::tpu_bdc_int_max_C
            } else {
                TpuCore::tpu_bdc_int_min_C
            };
            f(core, d, a, k, shape, ds, ss, dt()?, sh, m)
        }
        // selects (bdc_sel): each source a tensor or a scalar
        "greater_select" | "less_select" | "equal_select" => {
            let v = |nm: &str| -> Result<Variable, FailureKind> {
                Ok(if c.get(&format!("{nm}_addr")).is_some() {
                    Variable::Tensor(c.addr(nm)?)
                } else {
                    Variable::Scalar(c.scalar(&format!("{nm}_scalar"))?)
                })
            };
            let (v0, v1, v2, v3) = (v("src0")?, v("src1")?, v("src2")?, v("src3")?);
            let f = match func {
                "greater_select" => TpuCore::tpu_bdc_greater_select,
                "less_select" => TpuCore::tpu_bdc_less_select,
                _ => TpuCore::tpu_bdc_equal_select,
            };
            f(core, d, &v0, &v1, &v2, &v3, shape, st()?, dt()?)
        }
        // pooling (bdc_pool): `shape` is the input shape
        "max_pool2d" | "avg_pool2d" | "min_pool2d" => {
            let d2 = |k: &str| -> Result<Dim2, FailureKind> {
                let v = c.ints(k, 2)?;
                Ok(Dim2::new(v[0], v[1]))
            };
            let p = c.ints("padding", 4)?;
            let pad = Padding {
                top: p[0],
                bottom: p[1],
                left: p[2],
                right: p[3],
            };
            let (kr, st_, dl) = (d2("kernel")?, d2("stride")?, d2("dilation")?);
            let f = match func {
                "max_pool2d" => TpuCore::tpu_bdc_fp_max_pool2d,
                "min_pool2d" => TpuCore::tpu_bdc_fp_min_pool2d,
                _ => TpuCore::tpu_bdc_fp_avg_pool2d,
            };
            f(core, d, a, shape, &kr, &pad, &st_, &dl, dt()?, k)
        }
        "maximum_greater_select" | "minimum_less_select" => {
            let v = |nm: &str| -> Result<Variable, FailureKind> {
                Ok(if c.get(&format!("{nm}_addr")).is_some() {
                    Variable::Tensor(c.addr(nm)?)
                } else {
                    Variable::Scalar(c.scalar(&format!("{nm}_scalar"))?)
                })
            };
            let (v0, v1, v2, v3) = (v("src0")?, v("src1")?, v("src2")?, v("src3")?);
            let f = if func == "maximum_greater_select" {
                TpuCore::tpu_bdc_maximum_greater_select
            } else {
                TpuCore::tpu_bdc_minimum_less_select
            };
            let d1 = c.addr("dst1")?;
            f(
                core,
                d,
                d1,
                &v0,
                &v1,
                &v2,
                &v3,
                shape,
                dt()?,
                c.dtype(&["dst1_dtype"])?,
            )
        }
        other => return Err(malformed(format!("unknown BDC func {other:?}"))),
    })
}

/// Runs one `bdc_sfu` case of `tpu_bdc_fp32_rsqrt` or `_sqrt(dst, src, shape)`: `dst` is
/// filled, the source written, and the tensor's elements of `dst` compared.
fn run_sqrt_case(core: &mut TpuCore, c: &BdcCase) -> Result<(), FailureKind> {
    let shape = c.shape()?;
    let expect_error = c.flag("expect_error");
    let fill = u8::try_from(c.i64_or("out_fill_byte", 0)?)
        .map_err(|_| malformed("out_fill_byte is not a byte".into()))?;
    let ext = |nm: &str| -> Result<u64, FailureKind> {
        Ok(c.i64_or(&format!("{nm}_extent"), 0)?.max(0) as u64)
    };
    let (d, s) = (c.addr("dst")?, c.addr("src")?);
    if !expect_error {
        fill_region(core, d, ext("dst")?, 4, shape.c, fill)?;
        let src = c
            .words("src")?
            .ok_or_else(|| malformed("missing src".into()))?;
        put_region(core, s, ext("src")?, 4, shape.c, &src)?;
    }
    let result = match c.func()? {
        "fp32_rsqrt" => core.tpu_bdc_fp32_rsqrt(d, s, &shape),
        _ => core.tpu_bdc_fp32_sqrt(d, s, &shape),
    };
    if both_refused(result, expect_error)? {
        return Ok(());
    }
    let got = get_region(core, d, ext("dst")?, 4, shape.c)?;
    let want = c
        .words("out")?
        .ok_or_else(|| malformed("missing out".into()))?;
    check_len("out", &want, got.len())?;
    let keep = element_mask(d, &shape, ext("dst")? as usize)?;
    let pick = |v: &[u32]| -> Vec<u32> {
        v.iter()
            .zip(&keep)
            .map(|(&x, &k)| if k { x } else { 0 })
            .collect()
    };
    first_diff("out", &pick(&want), &pick(&got))
}

/// Runs one `bdc_sfu` case (`tpu_bdc_load_fp32_exp_coeff`, `_table`, then `tpu_bdc_fp32_exp`;
/// or `tpu_bdc_load_fp32_log_coeff`, then `tpu_bdc_fp32_log`): the outputs are filled first and
/// the source written after (as the generator does, so an output placed on the source starts
/// with it); the outputs (`dst`, `work0`, `work1`, or `dst`, `work`) and the loaded
/// coefficients (lane 0) are compared.
pub(crate) fn run_sfu_case(core: &mut TpuCore, c: &BdcCase) -> Result<(), FailureKind> {
    if matches!(c.func()?, "fp32_rsqrt" | "fp32_sqrt") {
        return run_sqrt_case(core, c);
    }
    let shape = c.shape()?;
    let expect_error = c.flag("expect_error");
    let fill = u8::try_from(c.i64_or("out_fill_byte", 0)?)
        .map_err(|_| malformed("out_fill_byte is not a byte".into()))?;
    let is_log = c.func()? == "fp32_log";
    let outs: &[(&str, &str)] = if is_log {
        &[("dst", "out"), ("work", "work_out")]
    } else {
        &[
            ("dst", "out"),
            ("work0", "work0_out"),
            ("work1", "work1_out"),
        ]
    };
    let ext = |nm: &str| -> Result<u64, FailureKind> {
        Ok(c.i64_or(&format!("{nm}_extent"), 0)?.max(0) as u64)
    };
    if !expect_error {
        for &(nm, _) in outs {
            fill_region(core, c.addr(nm)?, ext(nm)?, 4, shape.c, fill)?;
        }
        let src = c
            .words("src")?
            .ok_or_else(|| malformed("missing src".into()))?;
        put_region(core, c.addr("src")?, ext("src")?, 4, shape.c, &src)?;
    }
    let coeff = c.u32("coeff_addr")?;
    let (d, s) = (c.addr("dst")?, c.addr("src")?);
    let result = match c.func()? {
        "fp32_exp" => {
            let table = c.u32("table_addr")?;
            let (w0, w1) = (c.addr("work0")?, c.addr("work1")?);
            core.tpu_bdc_load_fp32_exp_coeff(coeff)
                .and_then(|()| core.tpu_bdc_load_fp32_exp_table(table))
                .and_then(|()| core.tpu_bdc_fp32_exp(d, s, w0, w1, coeff, table, &shape))
        }
        "fp32_log" => {
            let w = c.addr("work")?;
            core.tpu_bdc_load_fp32_log_coeff(coeff)
                .and_then(|()| core.tpu_bdc_fp32_log(d, s, w, coeff, &shape))
        }
        other => return Err(malformed(format!("unknown SFU func {other:?}"))),
    };
    if both_refused(result, expect_error)? {
        return Ok(());
    }
    for &(nm, key) in outs {
        let addr = c.addr(nm)?;
        let got = get_region(core, addr, ext(nm)?, 4, shape.c)?;
        let want = c
            .words(key)?
            .ok_or_else(|| malformed(format!("missing {key}")))?;
        check_len(key, &want, got.len())?;
        // Only the tensor's elements: the C-model uses the alignment padding as scratch.
        let keep = element_mask(addr, &shape, ext(nm)? as usize)?;
        let pick = |v: &[u32]| -> Vec<u32> {
            v.iter()
                .zip(&keep)
                .map(|(&x, &k)| if k { x } else { 0 })
                .collect()
        };
        first_diff(key, &pick(&want), &pick(&got))?;
    }
    if let Some(want) = c.words("coeff_words")? {
        let got = get_region(core, coeff, want.len() as u64, 4, 1)?;
        first_diff("coeff_words", &want, &got)?;
    }
    Ok(())
}

/// Which words of a lane-by-lane listing of an aligned f32 tensor at `addr` are elements of
/// the tensor (the rest is alignment padding or other channels' slots).
fn element_mask(addr: u32, shape: &Dim4, extent: usize) -> Result<Vec<bool>, FailureKind> {
    let p = TpuChip::Bm1684x.local();
    let start = p.tpu_npu_index(addr);
    let st = p
        .layout_stride(
            crate::local::Layout::Aligned,
            start as i32,
            shape,
            DataType::Fp32,
        )
        .map_err(refused)?;
    let npu = p.npu_num as usize;
    let lanes_used = (shape.c.max(0) as usize).min(npu);
    let mut keep = vec![false; extent * lanes_used];
    let hw = (shape.h.max(0) * shape.w.max(0)) as usize;
    for n in 0..shape.n.max(0) as usize {
        for ch in 0..shape.c.max(0) as usize {
            let slot = (start as usize + ch) / npu;
            let base = n * st.n as usize + slot * st.c as usize;
            for i in 0..hw {
                if let Some(k) = keep.get_mut((ch % npu) * extent + base + i) {
                    *k = true;
                }
            }
        }
    }
    Ok(keep)
}
