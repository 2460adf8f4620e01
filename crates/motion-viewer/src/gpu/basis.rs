//! How the deformation basis U is stored on the GPU: `f32`, or `f16` for half
//! the bytes read per frame.
//!
//! The `f16` basis is packed two values to a `u32` word and read with WGSL's
//! `unpack2x16float`, which every backend has (the `SHADER_F16` feature is not
//! on WebGPU or GL). Each column of a chunk is divided by a power of two at
//! least its largest magnitude before rounding, so its values lie in [-1, 1],
//! where `f16` keeps 11 significant bits, rather than near its smallest
//! normal numbers (bases of millions of vertices hold values around 1e-4);
//! the division is exact and the deformer multiplies the column's
//! coefficient by the same power of two. The worst error this leaves is
//! measured against the f64 reference in `tests/gpu_pipeline.rs` and
//! BENCHMARKS.md.

use half::slice::HalfFloatSliceExt;

/// Storage of the basis on the GPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BasisFormat {
    /// 32-bit floats, as decoded.
    #[default]
    F32,
    /// 16-bit floats, each column scaled into [-1, 1].
    F16,
}

impl std::str::FromStr for BasisFormat {
    type Err = crate::error::ParseValueError;

    /// `f32` or `f16`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "f32" => Ok(BasisFormat::F32),
            "f16" => Ok(BasisFormat::F16),
            _ => Err(crate::error::ParseValueError::new(
                "a basis format",
                s,
                "f32 or f16",
            )),
        }
    }
}

impl std::fmt::Display for BasisFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BasisFormat::F32 => "f32",
            BasisFormat::F16 => "f16",
        })
    }
}

impl BasisFormat {
    /// Bytes per stored value.
    fn value_bytes(self) -> u64 {
        match self {
            BasisFormat::F32 => 4,
            BasisFormat::F16 => 2,
        }
    }

    /// Values from one column of a chunk of `vertices` vertices to the next:
    /// `3 × vertices`, made even for `f16` so every column starts on a word.
    pub(crate) fn stride(self, vertices: u64) -> u64 {
        match self {
            BasisFormat::F32 => 3 * vertices,
            BasisFormat::F16 => (3 * vertices).next_multiple_of(2),
        }
    }

    /// Bytes of a chunk's basis: `columns` columns of `vertices` vertices.
    pub(crate) fn chunk_bytes(self, vertices: u64, columns: u64) -> u64 {
        self.value_bytes() * self.stride(vertices) * columns
    }

    /// The most vertices a chunk of `columns` columns holds within `limit`
    /// bytes (any number when there are no columns).
    pub(crate) fn max_vertices(self, columns: u64, limit: u64) -> u64 {
        if columns == 0 {
            return u64::MAX;
        }
        // stride ≤ 3v + 1 values per column.
        let per_column = limit / columns / self.value_bytes();
        per_column.saturating_sub(1) / 3
    }

    /// WGSL for binding 3, the chunk's basis, and `load_basis(e)`: the three
    /// values from element `e` as `vec3<f32>`.
    pub(crate) fn wgsl(self) -> &'static str {
        match self {
            BasisFormat::F32 => {
                "@group(0) @binding(3) var<storage, read> basis: array<f32>;\n\
                 fn load_basis(e: u32) -> vec3<f32> {\n\
                 \x20   return vec3<f32>(basis[e], basis[e + 1u], basis[e + 2u]);\n\
                 }\n"
            }
            BasisFormat::F16 => {
                "@group(0) @binding(3) var<storage, read> basis: array<u32>;\n\
                 fn basis_half(e: u32) -> f32 {\n\
                 \x20   let pair = unpack2x16float(basis[e >> 1u]);\n\
                 \x20   return select(pair.x, pair.y, (e & 1u) == 1u);\n\
                 }\n\
                 fn load_basis(e: u32) -> vec3<f32> {\n\
                 \x20   return vec3<f32>(basis_half(e), basis_half(e + 1u), basis_half(e + 2u));\n\
                 }\n"
            }
        }
    }

    /// Appends one column (`values`) as stored, padded to `stride` values, to
    /// `out`; returns the factor its coefficient takes (1 for `f32`).
    pub(crate) fn encode_column(self, values: &mut [f32], stride: u64, out: &mut Vec<u8>) -> f32 {
        match self {
            BasisFormat::F32 => {
                out.extend_from_slice(bytemuck::cast_slice(values));
                1.0
            }
            BasisFormat::F16 => {
                let largest = values.iter().fold(0f32, |m, x| m.max(x.abs()));
                let scale = power_of_two_at_least(largest);
                let inverse = 1.0 / scale;
                for x in values.iter_mut() {
                    *x *= inverse;
                }
                let mut halves = vec![half::f16::ZERO; stride as usize];
                halves[..values.len()].convert_from_f32_slice(values);
                out.extend_from_slice(bytemuck::cast_slice(&halves));
                scale
            }
        }
    }
}

/// The smallest power of two at least `x` (1 for zero, infinity or NaN), so
/// that dividing by it is exact and leaves every value within [-1, 1].
fn power_of_two_at_least(x: f32) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return 1.0;
    }
    let x = x.max(f32::MIN_POSITIVE);
    let bits = x.to_bits();
    let exponent = bits >> 23;
    if bits & 0x007f_ffff == 0 {
        x
    } else {
        // The next exponent up; 2^127 is the largest power of two an f32 holds.
        f32::from_bits((exponent + 1).min(254) << 23)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two() {
        assert_eq!(power_of_two_at_least(1.0), 1.0);
        assert_eq!(power_of_two_at_least(0.75), 1.0);
        assert_eq!(power_of_two_at_least(3e-4), 2f32.powi(-11));
        assert_eq!(power_of_two_at_least(5.0), 8.0);
        assert_eq!(power_of_two_at_least(0.0), 1.0);
        assert_eq!(power_of_two_at_least(f32::NAN), 1.0);
        assert_eq!(power_of_two_at_least(f32::MAX), 2f32.powi(127));
    }

    #[test]
    fn f16_columns_round_trip_within_half_an_ulp() {
        let mut values: Vec<f32> = (0..301).map(|i| (i as f32 * 0.37).sin() * 3e-4).collect();
        let original = values.clone();
        let mut out = Vec::new();
        let stride = BasisFormat::F16.stride(values.len() as u64 / 3 + 1);
        let scale = BasisFormat::F16.encode_column(&mut values, stride, &mut out);
        assert_eq!(out.len() as u64, 2 * stride);
        let halves: &[u16] = bytemuck::cast_slice(&out);
        for (h, x) in halves.iter().zip(&original) {
            let back = half::f16::from_bits(*h).to_f32() * scale;
            // 11 significant bits of a value at most `scale`.
            assert!((back - x).abs() <= scale * 2f32.powi(-11), "{x} → {back}");
        }
        assert!(halves[original.len()..].iter().all(|&h| h == 0), "padding");
    }

    #[test]
    fn chunk_sizes_stay_within_the_limit() {
        for format in [BasisFormat::F32, BasisFormat::F16] {
            for (columns, limit) in [(16u64, 1u64 << 27), (3, 1000), (1, 100)] {
                let v = format.max_vertices(columns, limit);
                assert!(
                    format.chunk_bytes(v, columns) <= limit,
                    "{format} {columns} {limit}"
                );
                assert!(format.chunk_bytes(v + 1, columns) > limit - 8 * columns);
            }
        }
    }
}
