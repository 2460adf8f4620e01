//! What `viewer bench` and the criterion benches share: synthetic MEMG scenes
//! of any size, and the memory-read bound they are measured against.
//!
//! A synthetic scene is a square cloth-like grid in one group with a
//! deterministic pseudo-random basis and coefficients, so runs on different
//! machines measure the same data. [`write_scene`] puts one on disk as an
//! `.obj` and a MEMG motion, for the other commands to read.

use crate::error::Result as CrateResult;
use crate::formats::bytes::ByteOrder;
use crate::formats::memg::{self, MemgGroup, MemgMotion};
use crate::formats::obj::{self, ObjGroup, ObjScene};
use crate::output::OutputSet;
use std::path::{Path, PathBuf};

/// The size of a synthetic scene, parsed from `VERTICESxBASISxFRAMES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Motion vertices (all of them in one group).
    pub vertices: usize,
    /// Basis size r.
    pub basis: usize,
    /// Timesteps n.
    pub frames: usize,
}

impl Spec {
    /// Parses `VERTICESxBASISxFRAMES`, e.g. `1000000x32x300`; each part a
    /// positive integer, and the sizes within what a MEMG file can store.
    pub fn parse(text: &str) -> crate::Result<Spec> {
        let usage =
            "expected VERTICESxBASISxFRAMES with three positive integers, e.g. 1000000x32x300";
        let bad = |why: String| crate::Error::unsupported(format!("--synthetic {text:?}"), why);
        let parts: Vec<&str> = text.split(['x', 'X']).collect();
        let [v, r, n] = parts.as_slice() else {
            return Err(bad(usage.into()));
        };
        let number = |what: &str, s: &str| -> crate::Result<usize> {
            match s.trim().parse::<usize>() {
                Ok(x) if x > 0 => Ok(x),
                _ => Err(bad(format!(
                    "{what} {s:?} is not a positive integer; {usage}"
                ))),
            }
        };
        let spec = Spec {
            vertices: number("VERTICES", v)?,
            basis: number("BASIS", r)?,
            frames: number("FRAMES", n)?,
        };
        // The file stores U's and Q's row and column counts as int32, and the
        // GPU path indexes the basis with u32.
        let rows = spec.vertices.checked_mul(3);
        let basis_values = rows.and_then(|x| x.checked_mul(spec.basis));
        let fits_i32 = |x: Option<usize>| x.is_some_and(|x| x <= i32::MAX as usize);
        if !fits_i32(rows) || !fits_i32(Some(spec.frames)) || !fits_i32(Some(spec.basis)) {
            return Err(bad(
                "3 × VERTICES, BASIS and FRAMES must each fit an int32".into()
            ));
        }
        if basis_values.is_none_or(|x| x > u32::MAX as usize) {
            return Err(bad(
                "3 × VERTICES × BASIS must stay below 2^32 values".into()
            ));
        }
        // Sized before anything is allocated: past the cap, generating would
        // abort on an allocation (or swap for hours) instead of saying so.
        crate::budget::check_synthetic(
            spec.vertices as u64,
            spec.basis as u64,
            spec.frames as u64,
        )?;
        Ok(spec)
    }

    /// `synthetic-VERTICESxBASISxFRAMES`: the bench's row name and the stem of
    /// the files [`write_scene`] writes.
    pub fn name(&self) -> String {
        format!("synthetic-{}x{}x{}", self.vertices, self.basis, self.frames)
    }
}

/// Writes the scene of `spec` into `dir` as `NAME.obj` and `NAME.bin` (a
/// little-endian MEMG motion; `NAME` from [`Spec::name`]) and returns their
/// paths. Both appear whole or neither does; the motion is written a
/// block at a time, never encoded whole in memory.
pub fn write_scene(spec: Spec, dir: &Path) -> CrateResult<(PathBuf, PathBuf)> {
    let (scene, motion) = generate(spec);
    let obj_path = dir.join(format!("{}.obj", spec.name()));
    let motion_path = dir.join(format!("{}.bin", spec.name()));
    // Both files appear together or neither does.
    let mut set = OutputSet::new();
    let out = set.add(&motion_path)?;
    memg::write(&motion, ByteOrder::Little, out.writer())
        .map_err(|e| crate::Error::io(&motion_path, e))?;
    out.close()?;
    drop(motion);
    let out = set.add(&obj_path)?;
    obj::write_obj(&scene, &scene.positions, out.writer())
        .map_err(|e| crate::Error::io(&obj_path, e))?;
    set.commit()?;
    Ok((obj_path, motion_path))
}

/// A tiny xorshift32 generator: deterministic, dependency-free, and fast
/// enough that filling a billion-value basis is not what the bench waits on.
struct XorShift(u32);

impl XorShift {
    /// A value uniform in [-0.5, 0.5].
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0 as f32 / u32::MAX as f32 - 0.5
    }
}

/// The scene and motion of `spec`: a grid of `spec.vertices` vertices, one
/// unit across, in group `cloth`, swaying about y over `spec.frames` timesteps.
pub fn generate(spec: Spec) -> (ObjScene, MemgMotion) {
    let (v, r, n) = (spec.vertices, spec.basis, spec.frames);
    let columns = (v as f64).sqrt().ceil().max(1.0) as usize;
    let step = 1.0 / columns as f32;
    let positions: Vec<[f32; 3]> = (0..v)
        .map(|i| {
            [
                (i % columns) as f32 * step,
                0.0,
                (i / columns) as f32 * step,
            ]
        })
        .collect();
    // Two triangles per grid cell whose four corners exist (the last row may be short).
    let mut triangles = Vec::with_capacity(2 * v);
    for i in 0..v {
        let (c, below) = (i % columns, i + columns);
        if c + 1 < columns && below + 1 < v {
            let [a, b, d, e] = [i, i + 1, below, below + 1].map(|x| x as u32);
            triangles.push([a, d, b]);
            triangles.push([b, d, e]);
        }
    }
    let scene = ObjScene {
        groups: vec![ObjGroup {
            name: "cloth".into(),
            triangles: 0..triangles.len(),
            material: None,
        }],
        positions,
        triangles,
        materials: Vec::new(),
        ..ObjScene::default()
    };
    let mut random = XorShift(0x2545_f491);
    // A slow sway about y keeps the transforms realistic (not the identity)
    // without changing the work per frame.
    let frames = (0..n)
        .map(|t| {
            let (s, c) = (t as f64 * 0.01).sin_cos();
            [c, 0., s, 0., 0., 1., 0., 0., -s, 0., c, 0.]
        })
        .collect();
    let motion = MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: n,
        frames,
        groups: vec![MemgGroup {
            name: "cloth".into(),
            mapping: (1..=v as u32).collect(),
            mean: scene.positions.iter().flatten().copied().collect(),
            parent: 0,
            basis_len: r,
            basis: (0..3 * v * r).map(|_| random.next() * 0.01).collect(),
            coeffs: (0..r * n).map(|_| random.next()).collect(),
        }],
        ..MemgMotion::default()
    };
    (scene, motion)
}

/// Sums `data` with 16 independent lanes per thread, so the loop vectorises
/// and is bound by memory, not by one floating-point add chain: the time of
/// reading `data` once, the floor under anything that must read it.
pub fn streaming_sum(data: &[f32]) -> f32 {
    use rayon::prelude::*;
    data.par_chunks(1 << 16)
        .map(|chunk| {
            let mut lanes = [0f32; 16];
            let blocks = chunk.chunks_exact(16);
            let tail: f32 = blocks.remainder().iter().sum();
            for block in blocks {
                for (l, &x) in lanes.iter_mut().zip(block) {
                    *l += x;
                }
            }
            lanes.iter().sum::<f32>() + tail
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::memg::Binding;

    #[test]
    fn streaming_sum_adds_everything() {
        let data: Vec<f32> = (0..100_003).map(|i| (i % 7) as f32).collect();
        let expected: f64 = data.iter().map(|&x| f64::from(x)).sum();
        assert_eq!(f64::from(streaming_sum(&data)), expected);
    }

    #[test]
    fn parses_and_rejects_specs() {
        let spec = Spec::parse("1000000x32x300").unwrap();
        assert_eq!(
            (spec.vertices, spec.basis, spec.frames),
            (1_000_000, 32, 300)
        );
        for bad in [
            "12x",
            "12x4",
            "0x4x10",
            "ax4x10",
            "1x2x3x4",
            "",
            "900000000x32x10",
            // 8.6 TB of coefficients (4 × 1000 × (2^31 − 1) bytes).
            "1000x1000x2147483647",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn generated_scene_binds() {
        let (scene, motion) = generate(Spec::parse("50x3x4").unwrap());
        assert_eq!(scene.positions.len(), 50);
        assert!(!scene.triangles.is_empty());
        let binding = Binding::new(&scene, &motion).unwrap();
        assert_eq!(binding.groups, vec![Some(0)]);
        assert!(binding.warnings.is_empty());
    }
}
