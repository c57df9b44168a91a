//! `.npy` files in and out, for every element type, with atomic writes.
//!
//! Implements the NumPy format description (`numpy.lib.format`, versions 1.0–3.0): magic,
//! version, a little-endian header length, a Python-literal dict with `descr`, `fortran_order`
//! and `shape`, then the raw data in C order. bfloat16 arrays are written the way `ml_dtypes`
//! writes them, as the void type `<V2`, and a `<V2` file is read as bfloat16 (numpy has no
//! bfloat16 of its own). The narrow floats are written as `ml_dtypes` 0.6 writes them:
//! `float8_e5m2` as `<f1`, every other one (`float8_e4m3fn`, `float8_e4m3`, `float8_e8m0fnu`,
//! `float4_e2m1fn` one code per byte, and `hifloat8` as `en_dtypes` writes it) as `<V1`. A
//! `<V1` file does not say which of them it holds: it is read as `float8_e4m3fn` (the A5
//! `float8_e4m3_t`), and [`NpyArray::retag`] / [`same_descr`] let a reader that knows the
//! type (a kernel parameter) take it as any type of the same description. Outputs are written to a temporary file in the destination folder and
//! renamed into place, so a failed run never leaves a partial file.

use crate::dtype::ElemType;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The most dimensions numpy accepts (`NPY_MAXDIMS` of numpy 2.x); more is refused on write.
pub const MAX_DIMS: usize = 64;

/// A failure reading or writing a `.npy` file.
#[derive(Debug, Error)]
pub enum NpyError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("not a .npy file: {0}")]
    BadMagic(String),
    #[error("malformed .npy header: {0}")]
    BadHeader(String),
    #[error(
        "unsupported .npy dtype {descr:?} (npusim reads u1..u8, i1..i8, f2, f4, bf16 as <V2, \
         float8_e5m2 as <f1 and the other ml_dtypes 8- and 4-bit floats as <V1)"
    )]
    UnsupportedDtype { descr: String },
    #[error("Fortran-order .npy arrays are not supported; save with np.ascontiguousarray(a) first")]
    FortranOrder,
    #[error(
        "an array of {dims} dimensions cannot be written as .npy: numpy reads at most {MAX_DIMS}"
    )]
    TooManyDims { dims: usize },
    #[error(
        "a .npy array of {from} ({from_descr}) cannot be taken as {to} ({to_descr}): only types \
         with the same description can"
    )]
    Retag {
        from: ElemType,
        from_descr: &'static str,
        to: ElemType,
        to_descr: &'static str,
    },
    #[error("the .npy data holds {got} bytes but shape {shape:?} of {dtype} needs {want}")]
    SizeMismatch {
        shape: Vec<usize>,
        dtype: ElemType,
        want: usize,
        got: usize,
    },
}

/// An n-dimensional array in C order, as raw little-endian element bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyArray {
    pub dtype: ElemType,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl NpyArray {
    /// An array of `T` values.
    pub fn from_elems<T: crate::dtype::Element>(shape: Vec<usize>, values: &[T]) -> NpyArray {
        NpyArray {
            dtype: T::TYPE,
            shape,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the array as `t`, which must have the same `.npy` description (a `<V1` file read
    /// as `float8_e4m3fn` retagged as `float8_e8m0fnu`, say). The bytes are unchanged.
    pub fn retag(&mut self, t: ElemType) -> Result<(), NpyError> {
        if !same_descr(self.dtype, t) {
            return Err(NpyError::Retag {
                from: self.dtype,
                from_descr: descr_of(self.dtype),
                to: t,
                to_descr: descr_of(t),
            });
        }
        self.dtype = t;
        Ok(())
    }

    /// The elements as `T` (None if `T` is not the array's type).
    pub fn to_elems<T: crate::dtype::Element>(&self) -> Option<Vec<T>> {
        (T::TYPE == self.dtype).then(|| crate::memory::typed::<T>(&self.data).into_owned())
    }
}

fn descr_of(t: ElemType) -> &'static str {
    match t {
        ElemType::U8 => "|u1",
        ElemType::I8 => "|i1",
        ElemType::U16 => "<u2",
        ElemType::I16 => "<i2",
        ElemType::U32 => "<u4",
        ElemType::I32 => "<i4",
        ElemType::U64 => "<u8",
        ElemType::I64 => "<i8",
        ElemType::F16 => "<f2",
        ElemType::Bf16 => "<V2",
        ElemType::F32 => "<f4",
        ElemType::F8E5M2 => "<f1",
        ElemType::F8E4M3FN
        | ElemType::F8E4M3
        | ElemType::HiF8
        | ElemType::F8E8M0
        | ElemType::F4E2M1
        // No ml_dtypes type: the packed bytes as they are (two codes a byte, low nibble first).
        | ElemType::F4E2M1X2
        | ElemType::F4E1M2X2 => "<V1",
    }
}

/// True if `a` and `b` have the same `.npy` description, so that a file written for one can be
/// taken as the other (`float8_e4m3fn`, `float8_e4m3`, `float8_e8m0fnu`, `float4_e2m1fn` and
/// `hifloat8` are all `<V1`).
pub fn same_descr(a: ElemType, b: ElemType) -> bool {
    descr_of(a) == descr_of(b)
}

/// Maps a `descr` to an element type and whether its bytes are big-endian.
fn parse_descr(descr: &str) -> Result<(ElemType, bool), NpyError> {
    let unsupported = || NpyError::UnsupportedDtype {
        descr: descr.to_string(),
    };
    if descr == "bfloat16" {
        return Ok((ElemType::Bf16, false));
    }
    let (order, code) = descr.split_at_checked(1).ok_or_else(unsupported)?;
    let big = match order {
        "<" | "|" | "=" => false,
        ">" => true,
        _ => return Err(unsupported()),
    };
    let t = match code {
        "u1" | "b1" => ElemType::U8,
        "i1" => ElemType::I8,
        "u2" => ElemType::U16,
        "i2" => ElemType::I16,
        "u4" => ElemType::U32,
        "i4" => ElemType::I32,
        "u8" => ElemType::U64,
        "i8" => ElemType::I64,
        "f2" => ElemType::F16,
        "f4" => ElemType::F32,
        "V2" => ElemType::Bf16,
        "V1" => ElemType::F8E4M3FN,
        "f1" => ElemType::F8E5M2,
        _ => return Err(unsupported()),
    };
    Ok((t, big))
}

/// Finds `'key':` in the header dict and returns the text after it.
fn header_value<'a>(header: &'a str, key: &str) -> Result<&'a str, NpyError> {
    let pat_single = format!("'{key}'");
    let pat_double = format!("\"{key}\"");
    let start = header
        .find(&pat_single)
        .map(|i| i + pat_single.len())
        .or_else(|| header.find(&pat_double).map(|i| i + pat_double.len()))
        .ok_or_else(|| NpyError::BadHeader(format!("no {key:?} key in {header:?}")))?;
    let rest = header[start..].trim_start();
    rest.strip_prefix(':')
        .map(str::trim_start)
        .ok_or_else(|| NpyError::BadHeader(format!("no ':' after {key:?}")))
}

/// The header of a `.npy` file: what its data holds and where the data starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: ElemType,
    pub shape: Vec<usize>,
    /// Bytes before the data.
    pub data_offset: u64,
    /// Data bytes (`dtype.size() * product(shape)`).
    pub data_len: u64,
    big_endian: bool,
}

/// The largest header this reader accepts (numpy itself refuses more than 10 000 bytes unless
/// told otherwise; a header this long is a damaged file).
const MAX_HEADER: usize = 1 << 24;

/// Reads only the header of the `.npy` file at `path` and checks the file's length against it.
pub fn read_npy_header(path: &Path) -> Result<NpyHeader, NpyError> {
    use std::io::Read;
    let io = |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let file_len = f.metadata().map_err(io)?.len();
    let mut pre = [0u8; 12];
    let mut got = 0;
    while got < 12 {
        let k = f.read(&mut pre[got..]).map_err(io)?;
        if k == 0 {
            break;
        }
        got += k;
    }
    if got < 10 || &pre[..6] != MAGIC {
        return Err(NpyError::BadMagic("missing \\x93NUMPY magic".into()));
    }
    let (hlen, hstart) = preamble(&pre[..got])?;
    if hlen > MAX_HEADER {
        return Err(NpyError::BadHeader(format!(
            "header of {hlen} bytes (more than {MAX_HEADER})"
        )));
    }
    let mut img = pre[..got].to_vec();
    let need = hstart + hlen;
    if img.len() < need {
        let want = (need - img.len()) as u64;
        Read::by_ref(&mut f)
            .take(want)
            .read_to_end(&mut img)
            .map_err(io)?;
    }
    if img.len() < need {
        return Err(NpyError::BadHeader(
            "header runs past the end of the file".into(),
        ));
    }
    img.truncate(need);
    let (dtype, shape, big) = parse_header(&img[hstart..need])?;
    let data_len = data_len(dtype, &shape)?;
    let got = file_len.saturating_sub(need as u64);
    if got != data_len as u64 {
        return Err(NpyError::SizeMismatch {
            shape,
            dtype,
            want: data_len,
            got: usize::try_from(got).unwrap_or(usize::MAX),
        });
    }
    Ok(NpyHeader {
        dtype,
        shape,
        data_offset: need as u64,
        data_len: data_len as u64,
        big_endian: big,
    })
}

impl NpyHeader {
    /// Reads the file's data straight into `dst` (exactly `data_len` bytes), converting
    /// big-endian elements to little-endian in place. One read, no intermediate buffer.
    pub fn read_data_into(&self, path: &Path, dst: &mut [u8]) -> Result<(), NpyError> {
        use std::io::{Read, Seek, SeekFrom};
        let io = |source| NpyError::Io {
            path: path.to_path_buf(),
            source,
        };
        if dst.len() as u64 != self.data_len {
            return Err(NpyError::BadHeader(format!(
                "destination of {} bytes for {} data bytes",
                dst.len(),
                self.data_len
            )));
        }
        let mut f = std::fs::File::open(path).map_err(io)?;
        f.seek(SeekFrom::Start(self.data_offset)).map_err(io)?;
        f.read_exact(dst).map_err(io)?;
        self.fix_endian(dst);
        Ok(())
    }

    /// Reads data bytes `[at, at + dst.len())` of the file straight into `dst` (little-endian
    /// elements, as [`NpyHeader::read_data_into`]): one part of the data, so that several
    /// threads can read one file into adjacent parts of a buffer. `at` and `dst.len()` must
    /// be whole elements inside the data.
    pub fn read_data_range_into(
        &self,
        path: &Path,
        at: u64,
        dst: &mut [u8],
    ) -> Result<(), NpyError> {
        let size = self.dtype.size() as u64;
        let end = at.checked_add(dst.len() as u64);
        if !at.is_multiple_of(size)
            || !(dst.len() as u64).is_multiple_of(size)
            || end.is_none_or(|e| e > self.data_len)
        {
            return Err(NpyError::BadHeader(format!(
                "data bytes {at}..+{} are not whole elements of the {} data bytes",
                dst.len(),
                self.data_len
            )));
        }
        let io = |source| NpyError::Io {
            path: path.to_path_buf(),
            source,
        };
        let f = std::fs::File::open(path).map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            f.read_exact_at(dst, self.data_offset + at).map_err(io)?;
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = f;
            f.seek(SeekFrom::Start(self.data_offset + at)).map_err(io)?;
            f.read_exact(dst).map_err(io)?;
        }
        self.fix_endian(dst);
        Ok(())
    }

    /// Converts big-endian elements to little-endian in place.
    fn fix_endian(&self, dst: &mut [u8]) {
        if self.big_endian && self.dtype.size() > 1 {
            for e in dst.chunks_exact_mut(self.dtype.size()) {
                e.reverse();
            }
        }
    }
}

fn data_len(dtype: ElemType, shape: &[usize]) -> Result<usize, NpyError> {
    shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
        .filter(|n| isize::try_from(*n).is_ok())
        .ok_or_else(|| NpyError::BadHeader("shape overflows".into()))
}

/// The header length and where the header starts, from the preamble.
fn preamble(bytes: &[u8]) -> Result<(usize, usize), NpyError> {
    match bytes.get(6) {
        Some(1) if bytes.len() >= 10 => {
            Ok((u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize))
        }
        Some(2 | 3) => {
            if bytes.len() < 12 {
                return Err(NpyError::BadHeader("truncated header length".into()));
            }
            Ok((
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            ))
        }
        Some(v) => Err(NpyError::BadMagic(format!("unknown format version {v}"))),
        None => Err(NpyError::BadMagic("missing \\x93NUMPY magic".into())),
    }
}

/// Parses a `.npy` image held in memory.
pub fn parse_npy(bytes: &[u8]) -> Result<NpyArray, NpyError> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(NpyError::BadMagic("missing \\x93NUMPY magic".into()));
    }
    let (hlen, hstart) = preamble(bytes)?;
    let hend = hstart
        .checked_add(hlen)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| NpyError::BadHeader("header runs past the end of the file".into()))?;
    let (dtype, shape, big) = parse_header(&bytes[hstart..hend])?;
    let want = data_len(dtype, &shape)?;
    let data = &bytes[hend..];
    if data.len() != want {
        return Err(NpyError::SizeMismatch {
            shape,
            dtype,
            want,
            got: data.len(),
        });
    }
    let mut data = data.to_vec();
    if big && dtype.size() > 1 {
        for e in data.chunks_exact_mut(dtype.size()) {
            e.reverse();
        }
    }
    Ok(NpyArray { dtype, shape, data })
}

/// Parses the header dict: element type, shape, big-endian.
fn parse_header(header: &[u8]) -> Result<(ElemType, Vec<usize>, bool), NpyError> {
    // Format 3.0 headers are UTF-8; 1.0 and 2.0 latin-1, which only matters outside ASCII,
    // where no key or value this reader accepts lies.
    let header = std::str::from_utf8(header)
        .map_err(|_| NpyError::BadHeader("header is not text".into()))?;

    let d = header_value(header, "descr")?;
    let quote = d
        .chars()
        .next()
        .filter(|c| *c == '\'' || *c == '"')
        .ok_or_else(|| NpyError::UnsupportedDtype {
            descr: d.chars().take(40).collect(),
        })?;
    let d = &d[1..];
    let descr = &d[..d
        .find(quote)
        .ok_or_else(|| NpyError::BadHeader("unterminated descr".into()))?];
    let (dtype, big) = parse_descr(descr)?;

    let f = header_value(header, "fortran_order")?;
    if f.starts_with("True") {
        return Err(NpyError::FortranOrder);
    } else if !f.starts_with("False") {
        return Err(NpyError::BadHeader(
            "fortran_order is neither True nor False".into(),
        ));
    }

    let s = header_value(header, "shape")?;
    let s = s
        .strip_prefix('(')
        .ok_or_else(|| NpyError::BadHeader("shape is not a tuple".into()))?;
    let s = &s[..s
        .find(')')
        .ok_or_else(|| NpyError::BadHeader("unterminated shape".into()))?];
    let mut shape = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let part = part.trim_end_matches('L');
        shape.push(
            part.parse::<usize>().map_err(|_| {
                NpyError::BadHeader(format!("bad dimension {:?}", truncate(part, 40)))
            })?,
        );
    }
    Ok((dtype, shape, big))
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The `.npy` preamble and header for `dtype` and `shape`: format 1.0 when the header length
/// fits 16 bits, else 2.0 (our headers are ASCII, so 3.0 is never needed); the preamble plus
/// header is padded to a multiple of 64 bytes. More than [`MAX_DIMS`] dimensions is refused.
pub fn npy_header_bytes(dtype: ElemType, shape: &[usize]) -> Result<Vec<u8>, NpyError> {
    if shape.len() > MAX_DIMS {
        return Err(NpyError::TooManyDims { dims: shape.len() });
    }
    let shape_text = match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(encode_header(format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr_of(dtype),
        shape_text
    )))
}

/// Preamble plus padded header for a header dict: version 1.0 when its length fits 16 bits,
/// else 2.0. (With at most 64 dimensions the dict stays far below 64 KiB, so 2.0 is a guard.)
fn encode_header(mut header: String) -> Vec<u8> {
    // Padded length (header + newline + up to 63 spaces) must fit the 16-bit field.
    let v1 = header.len() + 64 < u16::MAX as usize;
    let pre = if v1 { 10 } else { 12 };
    let unpadded = pre + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(pre + header.len());
    out.extend_from_slice(MAGIC);
    if v1 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out
}

/// Serialises an array as a `.npy` image (see [`npy_header_bytes`] for the version).
pub fn to_npy_bytes(a: &NpyArray) -> Result<Vec<u8>, NpyError> {
    let mut out = npy_header_bytes(a.dtype, &a.shape)?;
    out.extend_from_slice(&a.data);
    Ok(out)
}

/// Reads a `.npy` file.
pub fn read_npy(path: &Path) -> Result<NpyArray, NpyError> {
    let h = read_npy_header(path)?;
    let mut data = vec![0u8; h.data_len as usize];
    h.read_data_into(path, &mut data)?;
    Ok(NpyArray {
        dtype: h.dtype,
        shape: h.shape,
        data,
    })
}

/// Writes a `.npy` file atomically.
pub fn write_npy(path: &Path, a: &NpyArray) -> Result<(), NpyError> {
    let bytes = to_npy_bytes(a)?;
    write_atomic(path, &bytes).map_err(|source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// readers see either the old file or the whole new one (durability across a power loss is left
/// to the file system, as with numpy's `np.save`).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        // No fsync: the rename is what readers rely on (see `npusim run`'s outputs).
        replace_file(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Moves the finished temporary file `tmp` to `path`: removes an existing `path` first, then
/// renames.
///
/// Readers see the old file, no file, or the whole new one, never a partial one. Removing
/// first is deliberate: on ext4 a rename *over* an existing file makes the kernel allocate and
/// start writing back the new file's blocks at once (its `auto_da_alloc` heuristic), and on a
/// file system mounted with `discard` the old file's blocks are then discarded synchronously.
/// Measured on this project's CI machine for a 128 KiB output: 200-230 µs a file that way,
/// 50 µs removing first. A run that rewrites its outputs in a loop (a benchmark, a test
/// sweep) then never sends them to disk at all.
pub fn replace_file(tmp: &Path, path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        // Only a regular file is removed; anything else (a folder, a symbolic link someone
        // pointed at a shared location) is left for the rename to replace or refuse.
        Ok(m) if m.file_type().is_file() => match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        },
        _ => {}
    }
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn round_trip_every_type() {
        for t in ElemType::ALL {
            let a = NpyArray {
                dtype: t,
                shape: vec![2, 3],
                data: (0..6 * t.size()).map(|i| i as u8).collect(),
            };
            let mut b = parse_npy(&to_npy_bytes(&a).unwrap()).unwrap();
            b.retag(t).unwrap();
            assert_eq!(a, b);
            // Header + preamble is a multiple of 64 bytes.
            let hlen =
                u16::from_le_bytes([to_npy_bytes(&a).unwrap()[8], to_npy_bytes(&a).unwrap()[9]])
                    as usize;
            assert_eq!((10 + hlen) % 64, 0);
        }
    }

    #[test]
    fn reads_numpy_style_headers() {
        // Exactly what numpy 2.x writes for np.arange(3, dtype='>i2') and a 0-d array.
        let mut img = b"\x93NUMPY\x01\x00".to_vec();
        let h = "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }";
        let h = format!("{h}{}\n", " ".repeat(128 - 10 - h.len() - 1));
        img.extend_from_slice(&(h.len() as u16).to_le_bytes());
        img.extend_from_slice(h.as_bytes());
        img.extend_from_slice(&[0, 0, 0, 1, 0, 2]);
        let a = parse_npy(&img).unwrap();
        assert_eq!(a.dtype, ElemType::I16);
        assert_eq!(a.to_elems::<i16>().unwrap(), vec![0, 1, 2]);

        let bf = NpyArray::from_elems(vec![2], &[bf16::from_f32(1.5), bf16::from_f32(-2.0)]);
        let img = to_npy_bytes(&bf).unwrap();
        assert!(String::from_utf8_lossy(&img).contains("'<V2'"));
        assert_eq!(parse_npy(&img).unwrap(), bf);
    }

    #[test]
    fn narrow_floats_as_ml_dtypes_writes_them() {
        // np.save of np.array([1.0, 2.0, -0.5], dtype=ml_dtypes.<t>) with ml_dtypes 0.6 and
        // numpy 2.5: the header dict and the three data bytes.
        let case = |descr: &str, data: [u8; 3]| {
            let mut img = b"\x93NUMPY\x01\x00".to_vec();
            let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (3,), }}");
            let h = format!("{h}{}\n", " ".repeat(128 - 10 - h.len() - 1));
            img.extend_from_slice(&(h.len() as u16).to_le_bytes());
            img.extend_from_slice(h.as_bytes());
            img.extend_from_slice(&data);
            img
        };
        let cases = [
            (ElemType::F8E4M3FN, "<V1", [0x38, 0x40, 0xb0]),
            (ElemType::F8E5M2, "<f1", [0x3c, 0x40, 0xb8]),
            (ElemType::F8E4M3, "<V1", [0x38, 0x40, 0xb0]),
            (ElemType::F8E8M0, "<V1", [0x7f, 0x80, 0xff]),
            (ElemType::F4E2M1, "<V1", [0x02, 0x04, 0x09]),
            // en_dtypes 0.0.4 writes hifloat8 the same way.
            (ElemType::HiF8, "<V1", [0x08, 0x10, 0x98]),
        ];
        for (t, descr, data) in cases {
            let img = case(descr, data);
            let mut a = parse_npy(&img).unwrap();
            a.retag(t).unwrap();
            assert_eq!(a.dtype, t);
            let f = crate::f8::F8Format::of(t).unwrap();
            let vals: Vec<f32> = a.data.iter().map(|&c| f.to_f32(c)).collect();
            if t == ElemType::F8E8M0 {
                assert_eq!(&vals[..2], &[1.0, 2.0]);
                assert!(vals[2].is_nan(), "e8m0 has no negatives");
            } else {
                assert_eq!(vals, vec![1.0, 2.0, -0.5], "{t}");
            }
            // Written back byte for byte as ml_dtypes wrote it.
            assert_eq!(to_npy_bytes(&a).unwrap(), img, "{t}");
        }
        let mut a = parse_npy(&case("<f1", [0; 3])).unwrap();
        assert!(matches!(
            a.retag(ElemType::F8E4M3FN),
            Err(NpyError::Retag { .. })
        ));
        assert!(same_descr(ElemType::HiF8, ElemType::F8E8M0));
        assert!(!same_descr(ElemType::F8E5M2, ElemType::F8E4M3FN));
    }

    #[test]
    fn rejects_bad_files() {
        assert!(matches!(
            parse_npy(b"hello world"),
            Err(NpyError::BadMagic(_))
        ));
        let mut a = to_npy_bytes(&NpyArray::from_elems(vec![4], &[1.0f32; 4])).unwrap();
        a.pop();
        assert!(matches!(parse_npy(&a), Err(NpyError::SizeMismatch { .. })));
        let img = to_npy_bytes(&NpyArray::from_elems(vec![1], &[1.0f32])).unwrap();
        let at = img.windows(4).position(|w| w == b"<f4'").unwrap();
        let mut img = img.clone();
        img[at..at + 3].copy_from_slice(b"<c8");
        assert!(matches!(
            parse_npy(&img),
            Err(NpyError::UnsupportedDtype { .. })
        ));
    }

    #[test]
    fn long_headers_use_format_2_and_too_many_dims_are_refused() {
        // Row 4 of issue 12: a 30,000-dimension array was written with a wrapped 16-bit length.
        let a = NpyArray {
            dtype: ElemType::U8,
            shape: vec![1; 30_000],
            data: vec![7],
        };
        assert!(matches!(
            to_npy_bytes(&a),
            Err(NpyError::TooManyDims { dims: 30_000 })
        ));
        let dict = format!(
            "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}), }}",
            vec!["1"; 30_000].join(", ")
        );
        let mut img = encode_header(dict);
        assert_eq!(img[6], 2);
        let hlen = u32::from_le_bytes([img[8], img[9], img[10], img[11]]) as usize;
        assert_eq!((12 + hlen) % 64, 0);
        assert!(hlen > 65_535);
        img.push(7);
        assert_eq!(parse_npy(&img).unwrap(), a);
        let b = NpyArray {
            shape: vec![1; 64],
            ..a.clone()
        };
        assert_eq!(to_npy_bytes(&b).unwrap()[6], 1);
        let c = NpyArray {
            shape: vec![1; 65],
            ..a
        };
        assert!(matches!(
            to_npy_bytes(&c),
            Err(NpyError::TooManyDims { dims: 65 })
        ));
    }

    #[test]
    fn header_only_read_and_direct_data_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        let a = NpyArray::from_elems(vec![2, 3], &[1i32, 2, 3, 4, 5, 6]);
        write_npy(&p, &a).unwrap();
        let h = read_npy_header(&p).unwrap();
        assert_eq!(
            (h.dtype, h.shape.clone(), h.data_len),
            (ElemType::I32, vec![2, 3], 24)
        );
        let mut d = vec![0u8; 24];
        h.read_data_into(&p, &mut d).unwrap();
        assert_eq!(d, a.data);
        // Parts of the data: whole elements only, inside the data.
        let mut part = vec![0u8; 8];
        h.read_data_range_into(&p, 12, &mut part).unwrap();
        assert_eq!(part, a.data[12..20]);
        assert!(h.read_data_range_into(&p, 2, &mut part).is_err());
        assert!(h.read_data_range_into(&p, 20, &mut part).is_err());
        assert!(h.read_data_range_into(&p, 0, &mut [0u8; 3]).is_err());
        // A big-endian file's part comes out little-endian, as the whole does.
        let mut be = std::fs::read(&p).unwrap();
        let at = be.windows(3).position(|w| w == b"<i4").unwrap();
        be[at] = b'>';
        let off = h.data_offset as usize;
        for e in be[off..].chunks_exact_mut(4) {
            e.reverse();
        }
        let pb = dir.path().join("be.npy");
        std::fs::write(&pb, &be).unwrap();
        let hb = read_npy_header(&pb).unwrap();
        hb.read_data_range_into(&pb, 4, &mut part).unwrap();
        assert_eq!(part, a.data[4..12]);
        let mut img = std::fs::read(&p).unwrap();
        img.push(0);
        std::fs::write(&p, &img).unwrap();
        assert!(matches!(
            read_npy_header(&p),
            Err(NpyError::SizeMismatch { .. })
        ));
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.npy");
        let a = NpyArray::from_elems(vec![3], &[1u32, 2, 3]);
        write_npy(&p, &a).unwrap();
        assert_eq!(read_npy(&p).unwrap(), a);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
        assert!(write_npy(&dir.path().join("missing/out.npy"), &a).is_err());
    }

    #[test]
    fn atomic_write_over_existing_file_folder_and_link() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        std::fs::write(&p, b"old contents, longer than the new ones").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        // A folder in the way is refused, left as it was, and no temporary file stays behind.
        let d = dir.path().join("folder");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("inside"), b"x").unwrap();
        assert!(write_atomic(&d, b"new").is_err());
        assert_eq!(std::fs::read(d.join("inside")).unwrap(), b"x");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A symbolic link at the destination is replaced by the file; its target is untouched.
        #[cfg(unix)]
        {
            let target = dir.path().join("target.bin");
            std::fs::write(&target, b"target").unwrap();
            let l = dir.path().join("link.bin");
            std::os::unix::fs::symlink(&target, &l).unwrap();
            write_atomic(&l, b"via link").unwrap();
            assert_eq!(std::fs::read(&target).unwrap(), b"target");
            assert_eq!(std::fs::read(&l).unwrap(), b"via link");
            assert!(
                !std::fs::symlink_metadata(&l)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
    }
}
