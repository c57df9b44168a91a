//! `.npy` files in and out, for every element type, with atomic writes.
//!
//! Implements the NumPy format description (`numpy.lib.format`, versions 1.0–3.0): magic,
//! version, a little-endian header length, a Python-literal dict with `descr`, `fortran_order`
//! and `shape`, then the raw data in C order. bfloat16 arrays are written the way `ml_dtypes`
//! writes them, as the void type `<V2`, and a `<V2` file is read as bfloat16 (numpy has no
//! bfloat16 of its own). Outputs are written to a temporary file in the destination folder and
//! renamed into place, so a failed run never leaves a partial file.

use crate::dtype::ElemType;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

const MAGIC: &[u8] = b"\x93NUMPY";

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
        "unsupported .npy dtype {descr:?} (npusim reads u1..u8, i1..i8, f2, f4, and bf16 as <V2)"
    )]
    UnsupportedDtype { descr: String },
    #[error("Fortran-order .npy arrays are not supported; save with np.ascontiguousarray(a) first")]
    FortranOrder,
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
    }
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

/// Parses a `.npy` image held in memory.
pub fn parse_npy(bytes: &[u8]) -> Result<NpyArray, NpyError> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(NpyError::BadMagic("missing \\x93NUMPY magic".into()));
    }
    let major = bytes[6];
    let (hlen, hstart) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(NpyError::BadHeader("truncated header length".into()));
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
        v => return Err(NpyError::BadMagic(format!("unknown format version {v}"))),
    };
    let hend = hstart
        .checked_add(hlen)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| NpyError::BadHeader("header runs past the end of the file".into()))?;
    let header = std::str::from_utf8(&bytes[hstart..hend])
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
            part.parse::<usize>()
                .map_err(|_| NpyError::BadHeader(format!("bad dimension {part:?}")))?,
        );
    }

    let want = shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| NpyError::BadHeader("shape overflows".into()))?;
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

/// Serialises an array as a version 1.0 `.npy` image (header padded to 64 bytes).
pub fn to_npy_bytes(a: &NpyArray) -> Vec<u8> {
    let shape = match a.shape.len() {
        1 => format!("({},)", a.shape[0]),
        _ => format!(
            "({})",
            a.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr_of(a.dtype),
        shape
    );
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + a.data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&a.data);
    out
}

/// Reads a `.npy` file.
pub fn read_npy(path: &Path) -> Result<NpyArray, NpyError> {
    let bytes = std::fs::read(path).map_err(|source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_npy(&bytes)
}

/// Writes a `.npy` file atomically.
pub fn write_npy(path: &Path, a: &NpyArray) -> Result<(), NpyError> {
    write_atomic(path, &to_npy_bytes(a)).map_err(|source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// readers see either the old file or the whole new one.
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
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
            let b = parse_npy(&to_npy_bytes(&a)).unwrap();
            assert_eq!(a, b);
            // Header + preamble is a multiple of 64 bytes.
            let hlen = u16::from_le_bytes([to_npy_bytes(&a)[8], to_npy_bytes(&a)[9]]) as usize;
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
        let img = to_npy_bytes(&bf);
        assert!(String::from_utf8_lossy(&img).contains("'<V2'"));
        assert_eq!(parse_npy(&img).unwrap(), bf);
    }

    #[test]
    fn rejects_bad_files() {
        assert!(matches!(
            parse_npy(b"hello world"),
            Err(NpyError::BadMagic(_))
        ));
        let mut a = to_npy_bytes(&NpyArray::from_elems(vec![4], &[1.0f32; 4]));
        a.pop();
        assert!(matches!(parse_npy(&a), Err(NpyError::SizeMismatch { .. })));
        let img = to_npy_bytes(&NpyArray::from_elems(vec![1], &[1.0f32]));
        let at = img.windows(4).position(|w| w == b"<f4'").unwrap();
        let mut img = img.clone();
        img[at..at + 3].copy_from_slice(b"<c8");
        assert!(matches!(
            parse_npy(&img),
            Err(NpyError::UnsupportedDtype { .. })
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
}
