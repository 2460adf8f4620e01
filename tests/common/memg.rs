//! Test-side MEMG tools written independently of the library: a byte writer
//! with free-form shapes, a minimal `f64` reader, and the spec's formula.
#![allow(dead_code)] // each test file uses a different part

/// One group as the test writes it; the shapes are written as given, so they
/// can disagree with the data on purpose.
#[derive(Debug, Clone)]
pub struct RawGroup {
    pub name: String,
    pub mapping: Vec<i32>,
    pub mean: Vec<f64>,
    pub parent: i32,
    pub u_shape: (i32, i32),
    /// Column-major.
    pub u: Vec<f64>,
    pub q_shape: (i32, i32),
    /// Column-major.
    pub q: Vec<f64>,
}

/// A whole file as the test writes and reads it.
#[derive(Debug, Clone)]
pub struct RawFile {
    pub big_endian: bool,
    pub fps: i32,
    pub k: i32,
    pub n: i32,
    /// n·k row-major 3×4 matrices, timestep-major.
    pub frames: Vec<[f64; 12]>,
    pub groups: Vec<RawGroup>,
}

impl RawFile {
    /// The file's bytes, laid out as docs/formats.md §3 describes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let be = self.big_endian;
        let i = |out: &mut Vec<u8>, v: i32| {
            out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() })
        };
        let d = |out: &mut Vec<u8>, v: f64| {
            out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() })
        };
        i(&mut out, 1);
        i(&mut out, self.fps);
        i(&mut out, self.k);
        i(&mut out, self.n);
        for m in &self.frames {
            m.iter().for_each(|&x| d(&mut out, x));
        }
        for g in &self.groups {
            i(&mut out, g.name.len() as i32);
            out.extend_from_slice(g.name.as_bytes());
            i(&mut out, g.mapping.len() as i32);
            g.mapping.iter().for_each(|&m| i(&mut out, m));
            g.mean.iter().for_each(|&x| d(&mut out, x));
            i(&mut out, g.parent);
            i(&mut out, g.u_shape.0);
            i(&mut out, g.u_shape.1);
            g.u.iter().for_each(|&x| d(&mut out, x));
            i(&mut out, g.q_shape.0);
            i(&mut out, g.q_shape.1);
            g.q.iter().for_each(|&x| d(&mut out, x));
        }
        out
    }

    /// Byte offset where each group starts, and the end of the file.
    pub fn group_boundaries(&self) -> Vec<usize> {
        let mut at = 16 + 96 * self.frames.len();
        let mut out = vec![at];
        for g in &self.groups {
            at += 4 + g.name.len() + 4 + 4 * g.mapping.len() + 8 * g.mean.len() + 4;
            at += 8 + 8 * g.u.len() + 8 + 8 * g.q.len();
            out.push(at);
        }
        out
    }

    /// Reads a well-formed file (panics on anything else: test input only).
    pub fn parse(b: &[u8]) -> RawFile {
        let big_endian = b[0] == 0;
        let mut pos = 0usize;
        let mut i = || -> i32 {
            let a: [u8; 4] = b[pos..pos + 4].try_into().unwrap();
            pos += 4;
            if big_endian {
                i32::from_be_bytes(a)
            } else {
                i32::from_le_bytes(a)
            }
        };
        let _one = i();
        let fps = i();
        let k = i();
        let n = i();
        let mut pos = 16;
        let int = |pos: &mut usize| -> i32 {
            let a: [u8; 4] = b[*pos..*pos + 4].try_into().unwrap();
            *pos += 4;
            if big_endian {
                i32::from_be_bytes(a)
            } else {
                i32::from_le_bytes(a)
            }
        };
        let dbl = |pos: &mut usize| -> f64 {
            let a: [u8; 8] = b[*pos..*pos + 8].try_into().unwrap();
            *pos += 8;
            if big_endian {
                f64::from_be_bytes(a)
            } else {
                f64::from_le_bytes(a)
            }
        };
        let frames = (0..k * n)
            .map(|_| std::array::from_fn(|_| dbl(&mut pos)))
            .collect();
        let mut groups = Vec::new();
        while pos < b.len() {
            let len = int(&mut pos) as usize;
            let name = String::from_utf8(b[pos..pos + len].to_vec()).unwrap();
            pos += len;
            let v = int(&mut pos) as usize;
            let mapping = (0..v).map(|_| int(&mut pos)).collect();
            let mean = (0..3 * v).map(|_| dbl(&mut pos)).collect();
            let parent = int(&mut pos);
            let u_shape = (int(&mut pos), int(&mut pos));
            let u = (0..u_shape.0 * u_shape.1).map(|_| dbl(&mut pos)).collect();
            let q_shape = (int(&mut pos), int(&mut pos));
            let q = (0..q_shape.0 * q_shape.1).map(|_| dbl(&mut pos)).collect();
            groups.push(RawGroup {
                name,
                mapping,
                mean,
                parent,
                u_shape,
                u,
                q_shape,
                q,
            });
        }
        RawFile {
            big_endian,
            fps,
            k,
            n,
            frames,
            groups,
        }
    }

    /// Positions at timestep `t` by the spec's formula, starting from `base`
    /// (the .obj positions), moving only the groups named in `bound`.
    /// The spec's formula at `s` timesteps by the one MEMG rule
    /// (docs/formats.md §3): clamped, coefficients blended linearly between
    /// the timesteps around `s`, each frame interpolated by
    /// [`interpolate_frame`].
    pub fn evaluate_at(&self, base: &[[f64; 3]], bound: &[&str], s: f64) -> Vec<[f64; 3]> {
        let last = (self.n - 1) as f64;
        let s = s.clamp(0.0, last);
        let t0 = s.floor() as usize;
        let t1 = (t0 + 1).min(last as usize);
        let w = s - t0 as f64;
        let mut out = base.to_vec();
        for g in self
            .groups
            .iter()
            .filter(|g| bound.contains(&g.name.as_str()))
        {
            let rows = g.u_shape.0 as usize;
            let r = g.u_shape.1 as usize;
            let identity = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
            let m = if g.parent >= 0 && g.parent < self.k {
                let k = self.k as usize;
                let p = g.parent as usize;
                interpolate_frame(&self.frames[t0 * k + p], &self.frames[t1 * k + p], w)
            } else {
                identity
            };
            for (vi, &map) in g.mapping.iter().enumerate() {
                let mut p = [0.0; 3];
                for (a, x) in p.iter_mut().enumerate() {
                    let row = 3 * vi + a;
                    *x = g.mean[row];
                    for j in 0..r {
                        let q = g.q[t0 * r + j] + (g.q[t1 * r + j] - g.q[t0 * r + j]) * w;
                        *x += g.u[j * rows + row] * q;
                    }
                }
                out[map as usize - 1] = [
                    m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
                    m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
                    m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
                ];
            }
        }
        out
    }

    pub fn evaluate(&self, base: &[[f64; 3]], bound: &[&str], t: usize) -> Vec<[f64; 3]> {
        let mut out = base.to_vec();
        for g in self
            .groups
            .iter()
            .filter(|g| bound.contains(&g.name.as_str()))
        {
            let rows = g.u_shape.0 as usize;
            let r = g.u_shape.1 as usize;
            let identity = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
            let m = if g.parent >= 0 && g.parent < self.k {
                self.frames[t * self.k as usize + g.parent as usize]
            } else {
                identity
            };
            for (vi, &map) in g.mapping.iter().enumerate() {
                let mut p = [0.0; 3];
                for (a, x) in p.iter_mut().enumerate() {
                    let row = 3 * vi + a;
                    *x = g.mean[row];
                    for j in 0..r {
                        *x += g.u[j * rows + row] * g.q[t * r + j];
                    }
                }
                out[map as usize - 1] = [
                    m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
                    m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
                    m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
                ];
            }
        }
        out
    }
}

/// A small deterministic generator of values exactly representable in f32
/// (multiples of 1/256 in -2..2), so f64 → f32 → f64 is lossless.
pub struct Values(u64);

impl Values {
    pub fn new(seed: u64) -> Self {
        Values(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) % 1024) as f64 / 256.0 - 2.0
    }
}

/// Two row-major 3×4 frames `a`, `b` (rotations times a positive scale per
/// axis) blended by `w` as glTF blends a node, computed without
/// quaternions: the scales and translations linearly, the rotation as
/// `Ra · exp(w · log(Raᵀ Rb))` (Rodrigues' formula about the relative
/// rotation's axis), which is the shorter-arc slerp.
pub fn interpolate_frame(a: &[f64; 12], b: &[f64; 12], w: f64) -> [f64; 12] {
    type M = [[f64; 3]; 3];
    let split = |m: &[f64; 12]| -> (M, [f64; 3]) {
        let s: [f64; 3] =
            std::array::from_fn(|c| (0..3).map(|r| m[4 * r + c].powi(2)).sum::<f64>().sqrt());
        (
            std::array::from_fn(|r| std::array::from_fn(|c| m[4 * r + c] / s[c])),
            s,
        )
    };
    let mul = |x: &M, y: &M| -> M {
        std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| x[r][k] * y[k][c]).sum()))
    };
    let (ra, sa) = split(a);
    let (rb, sb) = split(b);
    let rat: M = std::array::from_fn(|r| std::array::from_fn(|c| ra[c][r]));
    let rel = mul(&rat, &rb);
    let cos = ((rel[0][0] + rel[1][1] + rel[2][2] - 1.0) / 2.0).clamp(-1.0, 1.0);
    let angle = cos.acos();
    let axis = [
        rel[2][1] - rel[1][2],
        rel[0][2] - rel[2][0],
        rel[1][0] - rel[0][1],
    ];
    let norm = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
    let turn: M = if norm < 1e-15 {
        [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]]
    } else {
        let [x, y, z] = axis.map(|v| v / norm);
        let th = w * angle;
        let (s, c) = th.sin_cos();
        let k: M = [[0., -z, y], [z, 0., -x], [-y, x, 0.]];
        let k2 = mul(&k, &k);
        std::array::from_fn(|r| {
            std::array::from_fn(|col| {
                f64::from(u8::from(r == col)) + s * k[r][col] + (1.0 - c) * k2[r][col]
            })
        })
    };
    let rot = mul(&ra, &turn);
    let scale: [f64; 3] = std::array::from_fn(|i| sa[i] + (sb[i] - sa[i]) * w);
    let mut out = [0.0; 12];
    for r in 0..3 {
        for c in 0..3 {
            out[4 * r + c] = rot[r][c] * scale[c];
        }
        out[4 * r + 3] = a[4 * r + 3] + (b[4 * r + 3] - a[4 * r + 3]) * w;
    }
    out
}

/// A rotation about z by `a` radians (cos/sin rounded to f32) then a translation.
pub fn frame(a: f64, t: [f64; 3]) -> [f64; 12] {
    let (s, c) = (a.sin() as f32 as f64, a.cos() as f32 as f64);
    [c, -s, 0., t[0], s, c, 0., t[1], 0., 0., 1., t[2]]
}

/// A well-formed group of `v` vertices and basis `r` for `n` timesteps.
pub fn group(
    name: &str,
    mapping: Vec<i32>,
    parent: i32,
    r: usize,
    n: usize,
    vals: &mut Values,
) -> RawGroup {
    let v = mapping.len();
    RawGroup {
        name: name.into(),
        mean: (0..3 * v).map(|_| vals.next()).collect(),
        parent,
        u_shape: (3 * v as i32, r as i32),
        u: (0..3 * v * r).map(|_| vals.next() / 8.0).collect(),
        q_shape: (r as i32, n as i32),
        q: (0..r * n).map(|_| vals.next()).collect(),
        mapping,
    }
}

/// The small scene most tests use: 9 `.obj` vertices, the 9th unreferenced by
/// any face; faces before any `g` (group `default`), then groups `b` and `a`.
pub const SMALL_OBJ: &str = "\
# test scene
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 2 1 0
v 3 0 0
v 3 1 0
v 9 9 9
f 1 2 3 4
g b
f 7 8 6
g a
f 5/1/1 6/2/2 2/3/3
f -9 -8 -7
";

/// The `.obj` positions of [`SMALL_OBJ`] in f64.
pub fn small_obj_positions() -> Vec<[f64; 3]> {
    SMALL_OBJ
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// A motion for [`SMALL_OBJ`]: groups in the order `a`, `ghost` (not in the
/// scene), `b`; `a` maps its vertices out of first-use order and sits in frame
/// 1; `b` is in world space (parent -1); 2 local frames, 5 timesteps.
pub fn small_motion(big_endian: bool) -> RawFile {
    let (k, n) = (2, 5);
    let mut vals = Values::new(7);
    let frames = (0..n)
        .flat_map(|t| {
            (0..k).map(move |f| frame(0.1 * (t + f) as f64, [t as f64, 0.5 * f as f64, 0.25]))
        })
        .collect();
    RawFile {
        big_endian,
        fps: 30,
        k,
        n,
        frames,
        groups: vec![
            group("a", vec![6, 2, 5, 1], 1, 3, n as usize, &mut vals),
            group("ghost", vec![3], 0, 1, n as usize, &mut vals),
            group("b", vec![8, 7], -1, 2, n as usize, &mut vals),
        ],
    }
}
