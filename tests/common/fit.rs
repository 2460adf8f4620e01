//! Point caches and `.obj` frames as the fit tests read them, from their
//! layouts and independent of the library's readers.

use std::path::{Path, PathBuf};

/// A `.pc2` or an `.obj` sequence: `frames × vertices` points.
pub struct Cache {
    pub vertices: usize,
    pub frames: usize,
    pub points: Vec<[f64; 3]>,
}

impl Cache {
    /// Vertex `i` at frame `t`.
    pub fn at(&self, t: usize, i: usize) -> [f64; 3] {
        self.points[t * self.vertices + i]
    }

    /// The diagonal of the box around every vertex at every frame.
    pub fn diagonal(&self) -> f64 {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in &self.points {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt()
    }
}

/// A `.pc2` by its layout: a 32-byte header (vertex count at byte 16,
/// sample count at 28), then f32 x, y, z per vertex per sample.
pub fn read_pc2(path: &Path) -> Cache {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..12], b"POINTCACHE2\0");
    let int = |at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let (vertices, frames) = (int(16), int(28));
    assert_eq!(b.len(), 32 + 12 * vertices * frames);
    let points = b[32..]
        .chunks_exact(12)
        .map(|c| {
            std::array::from_fn(|a| {
                f64::from(f32::from_le_bytes(c[4 * a..4 * a + 4].try_into().unwrap()))
            })
        })
        .collect();
    Cache {
        vertices,
        frames,
        points,
    }
}

/// The `v` lines of an `.obj`.
pub fn obj_vertices(path: &Path) -> Vec<[f64; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let x: Vec<f64> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            [x[0], x[1], x[2]]
        })
        .collect()
}

/// `.obj` frames, in the order given, as one cache.
pub fn read_objs(files: &[PathBuf]) -> Cache {
    let frames: Vec<Vec<[f64; 3]>> = files.iter().map(|f| obj_vertices(f)).collect();
    Cache {
        vertices: frames[0].len(),
        frames: frames.len(),
        points: frames.concat(),
    }
}
