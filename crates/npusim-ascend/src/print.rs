//! The print calls of the Ascend faces: TIK's `tik_instance.printf`, Ascend C's
//! `AscendC::printf` / `PRINTF` and `AscendC::DumpTensor`.
//!
//! Each call produces one text, recorded with the block that ran it and the source line of the
//! call ([`PrintRec`]); the faces collect them in execution order (blocks in order 0..N).
//! Formatting is the shared printf engine ([`npusim_core::cfmt`]) in the dialect of each face.
//!
//! **TIK** (the TIK API reference, `printf`, atlastikapi_07_0036): `printf(format_string,
//! *arg)`. The debugger formats with Python's `%` operator ([`Dialect::Python`]; the page's
//! "signed" `%o`/`%x` and its `#` flag adding `0o` are Python's rules). Checked restrictions:
//! the format is not empty and has at most 128 characters (at most `single_print_length - 32`
//! after `set_printf_params`); at most six arguments, one per conversion; the conversions are
//! `d o x f s c` and `%%`; the flags are `#` and `0`; a width and a precision lie in 1..=128
//! and a precision is given to `%f` only; `%o %x %c` do not print floats; `%c` prints a value in
//! [0, 255]; a tensor has one of the listed element types (int8 to uint64, float16, float32).
//! The page does not show how a tensor argument prints; npusim applies the conversion to every
//! element and writes them as a Python list, `[e0, e1, ...]` (a decision, see
//! `docs/observability-audit.md`).
//!
//! **Ascend C `printf`** (asc-devkit `docs/api/context/printf.md`): [`Dialect::AscendC`], the
//! conversions `d i u x f s p`; a format character other than the newline that is a control
//! character is refused (the page: no escape other than `\n` is supported); one call prints
//! at most 1 MiB.
//!
//! **`DumpTensor`** (asc-devkit `docs/api/context/DumpTensor.md`): a header
//! `DumpTensor: desc=D, addr=A, data_type=T, position=P, dump_size=N`, then the first `N`
//! elements as `[v0, v1, ...]`, floats as `%f` and integers in decimal. With a `ShapeInfo` the
//! elements are nested by the shape, `[[a,b],\n[c,d]]` (no space after a comma, one row per
//! line); a shape larger than `N` prints `-` for the missing elements after the line `shape is
//! [..], dumpSize is N, data is not enough.`, a smaller shape prints only its elements after
//! `shape is [..], dumpSize is N, dumpSize is greater than shapeSize.`. The page's example wraps
//! the flat list before its last element, an artefact of the page (both examples break after
//! element 31 of 32); npusim prints one line. `addr` is the tensor's byte address in its buffer,
//! in hexadecimal without a prefix (the page's second tensor sits at `addr=100`, which as a
//! decimal would break the 32-byte alignment every UB tensor has). Checked: the element types
//! of the page (bool, u8 to u64, float, half, bfloat16), the positions UB / L1 / L0C / GM, the
//! dumped bytes within the tensor and at most 1 MiB per call.

use npusim_core::cfmt::{self, Arg, ArgKind, Dialect};
use npusim_core::{ElemType, MemSpace};

/// One print of a kernel: its text and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintRec {
    /// The block (core) that printed.
    pub block: u32,
    /// The source line of the print call.
    pub line: u32,
    /// The text, as the device prints it.
    pub text: String,
}

impl PrintRec {
    /// The `[block B FILE:LINE]` tag of the print (the same tag `npusim run` gives PTO prints).
    pub fn tag(&self, file: &str) -> String {
        format!("[block {} {file}:{}]", self.block, self.line)
    }

    /// The text with the tag before each of its lines.
    pub fn tagged(&self, file: &str) -> String {
        let tag = self.tag(file);
        let mut out = String::new();
        for l in self.text.lines() {
            out.push_str(&tag);
            out.push(' ');
            out.push_str(l);
            out.push('\n');
        }
        if self.text.is_empty() {
            out.push_str(&tag);
            out.push('\n');
        }
        out
    }
}

/// A print call that breaks a documented rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{call}: {param} = {value}: {rule}")]
pub struct PrintError {
    /// The call (`printf`, `PRINTF`, `DumpTensor`).
    pub call: &'static str,
    /// The parameter (`format_string`, `arg 2`, `dumpSize`, ...).
    pub param: String,
    /// The broken rule.
    pub rule: String,
    /// The offending value.
    pub value: String,
}

fn perr(
    call: &'static str,
    param: impl Into<String>,
    rule: impl Into<String>,
    value: impl Into<String>,
) -> PrintError {
    PrintError {
        call,
        param: param.into(),
        rule: rule.into(),
        value: value.into(),
    }
}

/// Most bytes one print call may produce (both faces: 1 MiB per call).
pub const MAX_PRINT_BYTES: usize = 1 << 20;

/// One element of `dtype` from its little-endian bytes, as a print argument.
pub fn elem_arg(dtype: ElemType, e: &[u8]) -> Option<Arg<'static>> {
    let b = |n: usize| e.get(n).copied().unwrap_or(0);
    let u = |n: usize| (0..n).fold(0u64, |acc, i| acc | (u64::from(b(i)) << (8 * i)));
    Some(match dtype {
        ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => Arg::UInt(u(dtype.size())),
        ElemType::I8 => Arg::Int(i64::from(b(0) as i8)),
        ElemType::I16 => Arg::Int(i64::from(u(2) as u16 as i16)),
        ElemType::I32 => Arg::Int(i64::from(u(4) as u32 as i32)),
        ElemType::I64 => Arg::Int(u(8) as i64),
        ElemType::F16 => Arg::Float(f64::from(half::f16::from_bits(u(2) as u16).to_f32())),
        ElemType::Bf16 => Arg::Float(f64::from(half::bf16::from_bits(u(2) as u16).to_f32())),
        ElemType::F32 => Arg::Float(f64::from(f32::from_bits(u(4) as u32))),
        _ => return None,
    })
}

/// An argument of TIK's `printf`.
#[derive(Clone, Debug, PartialEq)]
pub enum TikArg {
    /// A `Scalar` or `Expr` value (its TIK type decides integer or float).
    Value(Arg<'static>),
    /// A `Tensor` (from its start element to its end): element type and bytes.
    Tensor {
        /// The tensor's element type.
        dtype: ElemType,
        /// Its bytes, little-endian.
        bytes: Vec<u8>,
    },
}

/// TIK's `printf` limits: the format length (`set_printf_params` changes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TikPrintParams {
    /// Most characters of `format_string` (128, or `single_print_length - 32`).
    pub max_format_chars: usize,
}

impl Default for TikPrintParams {
    fn default() -> Self {
        TikPrintParams {
            max_format_chars: 128,
        }
    }
}

const TIK_TYPES: [ElemType; 10] = [
    ElemType::I8,
    ElemType::U8,
    ElemType::I16,
    ElemType::U16,
    ElemType::F16,
    ElemType::I32,
    ElemType::U32,
    ElemType::F32,
    ElemType::I64,
    ElemType::U64,
];

/// The text of TIK's `printf(format_string, *args)` (see the module docs for the rules).
pub fn tik_printf(
    format_string: &str,
    args: &[TikArg],
    params: TikPrintParams,
) -> Result<String, PrintError> {
    const CALL: &str = "printf";
    let fs = "format_string";
    let n = format_string.chars().count();
    if n == 0 {
        return Err(perr(CALL, fs, "must not be empty", "\"\""));
    }
    if n > params.max_format_chars {
        return Err(perr(
            CALL,
            fs,
            format!("has at most {} characters", params.max_format_chars),
            format!("{n} characters"),
        ));
    }
    let fmt_err = |e: cfmt::CFormatError| {
        perr(
            CALL,
            fs,
            e.rule,
            format!("{format_string:?} (byte {})", e.pos),
        )
    };
    let convs = cfmt::conversions(format_string, Dialect::Python).map_err(fmt_err)?;
    if args.len() > 6 {
        return Err(perr(
            CALL,
            "*arg",
            "takes at most 6 arguments",
            args.len().to_string(),
        ));
    }
    if convs.len() != args.len() {
        return Err(perr(
            CALL,
            "*arg",
            format!(
                "needs one argument per conversion ({} in the format)",
                convs.len()
            ),
            format!("{} arguments", args.len()),
        ));
    }
    for (i, (c, a)) in convs.iter().zip(args).enumerate() {
        let at = format!("%{} at byte {}", c.conv, c.pos);
        if !"doxfsc".contains(c.conv) {
            return Err(perr(
                CALL,
                fs,
                "TIK's conversions are d o x f s c and %%",
                at,
            ));
        }
        // flags: [-, +, space, #, 0]
        if c.flags[0] || c.flags[1] || c.flags[2] {
            return Err(perr(CALL, fs, "TIK's flags are `#` and `0`", at));
        }
        if c.width.is_some_and(|w| !(1..=128).contains(&w)) {
            return Err(perr(CALL, fs, "a width lies in 1..=128", at));
        }
        if let Some(p) = c.precision {
            if c.conv != 'f' {
                return Err(perr(CALL, fs, "a precision is given to %f only", at));
            }
            if !(1..=128).contains(&p) {
                return Err(perr(CALL, fs, "a precision lies in 1..=128", at));
            }
        }
        let param = format!("arg {}", i + 1);
        let float = match a {
            TikArg::Value(v) => matches!(v, Arg::Float(_)),
            TikArg::Tensor { dtype, .. } => {
                if !TIK_TYPES.contains(dtype) {
                    return Err(perr(
                        CALL,
                        param,
                        "a tensor has type int8, uint8, int16, uint16, float16, int32, uint32, float32, int64 or uint64",
                        dtype.to_string(),
                    ));
                }
                dtype.is_float()
            }
        };
        if float && "oxc".contains(c.conv) {
            return Err(perr(
                CALL,
                param,
                format!("%{} does not print float data", c.conv),
                at,
            ));
        }
        if c.conv == 'c' {
            let check = |v: &Arg<'_>| match v {
                Arg::Int(x) if (0..=255).contains(x) => Ok(()),
                Arg::UInt(x) if *x <= 255 => Ok(()),
                other => Err(perr(
                    CALL,
                    param.clone(),
                    "%c prints a value in [0, 255]",
                    other.describe(),
                )),
            };
            match a {
                TikArg::Value(v) => check(v)?,
                TikArg::Tensor { dtype, bytes } => {
                    for e in bytes.chunks_exact(dtype.size()) {
                        if let Some(v) = elem_arg(*dtype, e) {
                            check(&v)?;
                        }
                    }
                }
            }
        }
    }
    // Each argument is formatted by its own conversion; a tensor by its elements.
    let pieces = split_conversions(format_string, &convs);
    let mut out = String::new();
    for (i, text) in pieces.iter().enumerate() {
        if i == 0 {
            out.push_str(&unpercent(&text.0));
            continue;
        }
        let conv_text = text.0.as_str();
        let one = |v: Arg<'_>| cfmt::format_in(Dialect::Python, conv_text, &[v]).map_err(fmt_err);
        match &args[i - 1] {
            TikArg::Value(v) => out.push_str(&one(*v)?),
            TikArg::Tensor { dtype, bytes } => {
                out.push('[');
                for (k, e) in bytes.chunks_exact(dtype.size()).enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    let v = elem_arg(*dtype, e).ok_or_else(|| {
                        perr(
                            CALL,
                            format!("arg {i}"),
                            "an element type TIK prints",
                            dtype.to_string(),
                        )
                    })?;
                    out.push_str(&one(v)?);
                }
                out.push(']');
            }
        }
        out.push_str(&unpercent(&text.1));
        if out.len() > MAX_PRINT_BYTES {
            return Err(perr(
                CALL,
                "*arg",
                "one print produces at most 1 MiB",
                format!("{} bytes", out.len()),
            ));
        }
    }
    Ok(out)
}

/// Literal text with `%%` turned into `%`.
fn unpercent(t: &str) -> String {
    t.replace("%%", "%")
}

/// Splits a format into the text before the first conversion and, per conversion, (the
/// conversion's own text, the literal text after it).
fn split_conversions(fmt: &str, convs: &[cfmt::Conversion]) -> Vec<Pieces> {
    let mut out = Vec::with_capacity(convs.len() + 1);
    let first = convs.first().map_or(fmt.len(), |c| c.pos);
    out.push(Pieces(fmt[..first].to_string(), String::new()));
    for (k, c) in convs.iter().enumerate() {
        // The conversion ends at its conversion character (the first one after `%` that is
        // the conversion: flags, digits, '.', and length letters come before it).
        let rest = &fmt[c.pos + 1..];
        let end = rest
            .char_indices()
            .find(|&(_, ch)| ch == c.conv)
            .map_or(rest.len(), |(i, ch)| i + ch.len_utf8());
        let conv_end = c.pos + 1 + end;
        let next = convs.get(k + 1).map_or(fmt.len(), |n| n.pos);
        out.push(Pieces(
            fmt[c.pos..conv_end].to_string(),
            fmt[conv_end..next].to_string(),
        ));
    }
    out
}

#[derive(Debug)]
struct Pieces(String, String);

/// The text of Ascend C's `printf(fmt, args...)` / `PRINTF` (see the module docs).
pub fn ascendc_printf(
    call: &'static str,
    fmt: &str,
    args: &[Arg<'_>],
) -> Result<String, PrintError> {
    if let Some((i, c)) = fmt
        .char_indices()
        .find(|&(_, c)| c.is_control() && c != '\n')
    {
        return Err(perr(
            call,
            "fmt",
            "no escape character other than the newline is supported",
            format!("{:?} at byte {i}", c),
        ));
    }
    let convs = cfmt::conversions(fmt, Dialect::AscendC)
        .map_err(|e| perr(call, "fmt", e.rule, format!("{fmt:?} (byte {})", e.pos)))?;
    if convs.len() != args.len() {
        return Err(perr(
            call,
            "args",
            format!(
                "needs one argument per conversion ({} in the format)",
                convs.len()
            ),
            format!("{} arguments", args.len()),
        ));
    }
    for (i, (c, a)) in convs.iter().zip(args).enumerate() {
        let ok = match c.kind {
            ArgKind::Int => matches!(a, Arg::Int(_) | Arg::UInt(_)),
            ArgKind::Float => matches!(a, Arg::Float(_)),
            ArgKind::Str => matches!(a, Arg::Str(_)),
            ArgKind::Ptr => matches!(a, Arg::Ptr(_)),
        };
        if !ok {
            let want = match c.kind {
                ArgKind::Int => "an integer (bool, int8_t .. uint64_t)",
                ArgKind::Float => "a float, half or bfloat16_t",
                ArgKind::Str => "a string",
                ArgKind::Ptr => "a pointer",
            };
            return Err(perr(
                call,
                format!("args[{i}]"),
                format!("%{} (byte {}) takes {want}", c.conv, c.pos),
                a.describe(),
            ));
        }
    }
    let text = cfmt::format_in(Dialect::AscendC, fmt, args)
        .map_err(|e| perr(call, "fmt", e.rule, format!("{fmt:?} (byte {})", e.pos)))?;
    if text.len() > MAX_PRINT_BYTES {
        return Err(perr(
            call,
            "args",
            "one print produces at most 1 MiB",
            format!("{} bytes", text.len()),
        ));
    }
    Ok(text)
}

/// The element types `DumpTensor` prints (the page's list; `bool` is stored as `u8`).
pub const DUMP_TYPES: [ElemType; 11] = [
    ElemType::U8,
    ElemType::I8,
    ElemType::I16,
    ElemType::U16,
    ElemType::I32,
    ElemType::U32,
    ElemType::I64,
    ElemType::U64,
    ElemType::F32,
    ElemType::F16,
    ElemType::Bf16,
];

/// The `position=` name of a memory space (`UB`, `L1`, `L0C`, `GM`), or `None` for a space
/// `DumpTensor` does not print.
pub fn position_name(space: MemSpace) -> Option<&'static str> {
    match space {
        MemSpace::Ub => Some("UB"),
        MemSpace::L1 => Some("L1"),
        MemSpace::L0c => Some("L0C"),
        MemSpace::Gm => Some("GM"),
        _ => None,
    }
}

/// One `DumpTensor` call: the tensor's place and the call's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Dump<'a> {
    /// `desc`: the user's number (often `__LINE__`).
    pub desc: u32,
    /// The tensor's byte address in its space.
    pub addr: u64,
    /// Its element type.
    pub dtype: ElemType,
    /// Its space.
    pub space: MemSpace,
    /// `dumpSize`: elements to dump.
    pub dump_size: u32,
    /// The tensor's bytes from its first element (at least `dump_size` elements).
    pub data: &'a [u8],
    /// `ShapeInfo`'s shape, when given.
    pub shape: Option<&'a [u32]>,
}

/// The text of `DumpTensor` (see the module docs).
pub fn dump_tensor(d: &Dump<'_>) -> Result<String, PrintError> {
    const CALL: &str = "DumpTensor";
    if !DUMP_TYPES.contains(&d.dtype) {
        return Err(perr(
            CALL,
            "T",
            "DumpTensor prints bool, uint8_t .. uint64_t, float, half and bfloat16_t",
            d.dtype.to_string(),
        ));
    }
    let pos = position_name(d.space).ok_or_else(|| {
        perr(
            CALL,
            "tensor",
            "the tensor lies in UB, L1, L0C or GM",
            format!("{:?}", d.space),
        )
    })?;
    let size = d.dtype.size();
    let need = d.dump_size as usize * size;
    if need > MAX_PRINT_BYTES {
        return Err(perr(
            CALL,
            "dumpSize",
            "one dump holds at most 1 MiB",
            format!("{} ({need} bytes)", d.dump_size),
        ));
    }
    if d.data.len() < need {
        return Err(perr(
            CALL,
            "dumpSize",
            format!(
                "lies within the tensor ({} elements from its start)",
                d.data.len() / size
            ),
            d.dump_size.to_string(),
        ));
    }
    let vals: Vec<String> = d.data[..need]
        .chunks_exact(size)
        .map(|e| match elem_arg(d.dtype, e) {
            Some(Arg::Float(v)) => {
                cfmt::format_in(Dialect::C, "%f", &[Arg::Float(v)]).unwrap_or_default()
            }
            Some(Arg::Int(v)) => v.to_string(),
            Some(Arg::UInt(v)) => v.to_string(),
            _ => String::new(),
        })
        .collect();
    let mut out = format!(
        "DumpTensor: desc={}, addr={:x}, data_type={}, position={pos}, dump_size={}\n",
        d.desc, d.addr, d.dtype, d.dump_size
    );
    match d.shape {
        None => {
            out.push('[');
            out.push_str(&vals.join(", "));
            out.push_str("]\n");
        }
        Some(shape) => {
            if shape.is_empty() || shape.len() > 8 || shape.contains(&0) {
                return Err(perr(
                    CALL,
                    "shapeInfo",
                    "a shape has 1 to 8 dimensions, each at least 1",
                    format!("{shape:?}"),
                ));
            }
            let total: u64 = shape.iter().map(|&s| u64::from(s)).product();
            let shape_text = format!("{shape:?}");
            if total < u64::from(d.dump_size) {
                out.push_str(&format!(
                    "shape is {shape_text}, dumpSize is {}, dumpSize is greater than shapeSize.\n",
                    d.dump_size
                ));
            } else if total > u64::from(d.dump_size) {
                out.push_str(&format!(
                    "shape is {shape_text}, dumpSize is {}, data is not enough.\n",
                    d.dump_size
                ));
            }
            if total as usize > MAX_PRINT_BYTES {
                return Err(perr(
                    CALL,
                    "shapeInfo",
                    "one dump holds at most 1 MiB",
                    shape_text,
                ));
            }
            let mut next = 0usize;
            nest(&mut out, shape, &vals, &mut next);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Writes `[..]` for one level of `shape`: elements `,`-separated at the last level, sub-lists
/// `,\n`-separated above it.
fn nest(out: &mut String, shape: &[u32], vals: &[String], next: &mut usize) {
    out.push('[');
    for i in 0..shape[0] {
        if i > 0 {
            out.push(',');
            if shape.len() > 1 {
                out.push('\n');
            }
        }
        if shape.len() > 1 {
            nest(out, &shape[1..], vals, next);
        } else {
            match vals.get(*next) {
                Some(v) => out.push_str(v),
                None => out.push('-'),
            }
            *next += 1;
        }
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16s(v: &[f32]) -> Vec<u8> {
        v.iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect()
    }

    #[test]
    fn dump_tensor_header_and_values_as_the_page_shows() {
        // DumpTensor.md: `DumpTensor: desc=5, addr=0, data_type=float16, position=UB,
        // dump_size=32` and `[19.000000, 4.000000, ...]`.
        let vals: Vec<f32> = (0..32).map(|i| i as f32 * 2.0 + 1.0).collect();
        let data = f16s(&vals);
        let t = dump_tensor(&Dump {
            desc: 5,
            addr: 0x100,
            dtype: ElemType::F16,
            space: MemSpace::Ub,
            dump_size: 32,
            data: &data,
            shape: None,
        })
        .unwrap();
        let want_vals: Vec<String> = vals.iter().map(|v| format!("{v:.6}")).collect();
        assert_eq!(
            t,
            format!(
                "DumpTensor: desc=5, addr=100, data_type=float16, position=UB, dump_size=32\n[{}]\n",
                want_vals.join(", ")
            )
        );
    }

    #[test]
    fn dump_tensor_with_a_shape_nests_and_marks_missing_data() {
        let vals: Vec<f32> = (0..6).map(|i| i as f32).collect();
        let data = f16s(&vals);
        let d = |shape: &'static [u32], n: u32| Dump {
            desc: 2,
            addr: 0,
            dtype: ElemType::F16,
            space: MemSpace::Ub,
            dump_size: n,
            data: &data,
            shape: Some(shape),
        };
        let t = dump_tensor(&d(&[2, 3], 6)).unwrap();
        assert_eq!(
            t.lines().skip(1).collect::<Vec<_>>(),
            [
                "[[0.000000,1.000000,2.000000],",
                "[3.000000,4.000000,5.000000]]"
            ]
        );
        let t = dump_tensor(&d(&[3, 2], 4)).unwrap();
        assert_eq!(
            t.lines().skip(1).collect::<Vec<_>>(),
            [
                "shape is [3, 2], dumpSize is 4, data is not enough.",
                "[[0.000000,1.000000],",
                "[2.000000,3.000000],",
                "[-,-]]"
            ]
        );
        let t = dump_tensor(&d(&[1, 2], 6)).unwrap();
        assert!(t.contains("shape is [1, 2], dumpSize is 6, dumpSize is greater than shapeSize.\n[[0.000000,1.000000]]\n"));
        let e = dump_tensor(&d(&[2, 3], 7)).unwrap_err();
        assert_eq!(
            (e.call, e.param.as_str(), e.value.as_str()),
            ("DumpTensor", "dumpSize", "7")
        );
    }

    #[test]
    fn tik_printf_rules_are_named() {
        let p = TikPrintParams::default();
        let v = |x: i64| TikArg::Value(Arg::Int(x));
        assert_eq!(
            tik_printf("scalar is: %d\n", &[v(-128)], p).unwrap(),
            "scalar is: -128\n"
        );
        assert_eq!(tik_printf("%03d", &[v(10)], p).unwrap(), "010");
        let t = TikArg::Tensor {
            dtype: ElemType::I32,
            bytes: [1i32, -2, 3].iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        assert_eq!(tik_printf("t = %d;", &[t], p).unwrap(), "t = [1, -2, 3];");
        let e = tik_printf("%-5d", &[v(1)], p).unwrap_err();
        assert_eq!((e.call, e.param.as_str()), ("printf", "format_string"));
        assert!(e.rule.contains("flags"), "{e}");
        assert!(tik_printf("%x", &[TikArg::Value(Arg::Float(1.5))], p).is_err());
        assert!(tik_printf("%c", &[v(256)], p).is_err());
        assert!(tik_printf("%.2d", &[v(1)], p).is_err());
        assert!(tik_printf("%d %d", &[v(1)], p).is_err());
        assert!(tik_printf("", &[], p).is_err());
        assert!(tik_printf(&"a".repeat(129), &[], p).is_err());
        assert!(
            tik_printf(
                "%d%d%d%d%d%d%d",
                &[v(1), v(1), v(1), v(1), v(1), v(1), v(1)],
                p
            )
            .is_err()
        );
        assert_eq!(tik_printf("100%% %d%%", &[v(5)], p).unwrap(), "100% 5%");
    }

    #[test]
    fn ascendc_printf_names_the_call_and_argument() {
        assert_eq!(
            ascendc_printf("printf", "fmt string %d\n", &[Arg::Int(0x123)]).unwrap(),
            "fmt string 291\n"
        );
        let e = ascendc_printf("PRINTF", "%d", &[Arg::Float(1.0)]).unwrap_err();
        assert_eq!((e.call, e.param.as_str()), ("PRINTF", "args[0]"));
        let e = ascendc_printf("printf", "a\tb", &[]).unwrap_err();
        assert_eq!(e.param, "fmt");
        let e = ascendc_printf("printf", "%e", &[Arg::Float(1.0)]).unwrap_err();
        assert!(e.rule.contains("not supported"), "{e}");
    }
}
