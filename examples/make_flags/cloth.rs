//! The cloth simulation: 3-vectors, and a mass-spring grid stepped with
//! gravity, gusty wind and pinned particles.

pub type V3 = [f64; 3];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// A cloth: a W×H grid of particles joined by springs, some pinned.
pub struct Cloth {
    w: usize,
    h: usize,
    rest: Vec<V3>,
    pinned: Vec<bool>,
    /// (a, b, rest length, stiffness N/m)
    springs: Vec<(usize, usize, f64, f64)>,
    mass: f64,
    area: f64,
}

impl Cloth {
    /// A grid spanning `origin + i·du + j·dv`; `pin(i, j)` tells the fixed particles.
    pub fn new(
        w: usize,
        h: usize,
        origin: V3,
        du: V3,
        dv: V3,
        pin: impl Fn(usize, usize) -> bool,
    ) -> Cloth {
        let mut rest = Vec::with_capacity(w * h);
        let mut pinned = Vec::with_capacity(w * h);
        for j in 0..h {
            for i in 0..w {
                rest.push(add(origin, add(scale(du, i as f64), scale(dv, j as f64))));
                pinned.push(pin(i, j));
            }
        }
        let total_mass = 0.2 * (w - 1) as f64 * norm(du) * (h - 1) as f64 * norm(dv);
        let mass = total_mass / (w * h) as f64;
        let area = (w - 1) as f64 * norm(du) * (h - 1) as f64 * norm(dv) / (w * h) as f64;
        // Stiff enough that the wind stretches the cloth by a few per cent.
        let k = 300.0;
        let mut springs = Vec::new();
        let id = |i: usize, j: usize| j * w + i;
        let mut link = |a: usize, b: usize, k: f64| {
            springs.push((a, b, norm(sub(rest[a], rest[b])), k));
        };
        for j in 0..h {
            for i in 0..w {
                if i + 1 < w {
                    link(id(i, j), id(i + 1, j), k);
                }
                if j + 1 < h {
                    link(id(i, j), id(i, j + 1), k);
                }
                if i + 1 < w && j + 1 < h {
                    link(id(i, j), id(i + 1, j + 1), 0.5 * k);
                    link(id(i + 1, j), id(i, j + 1), 0.5 * k);
                }
                if i + 2 < w {
                    link(id(i, j), id(i + 2, j), 0.1 * k);
                }
                if j + 2 < h {
                    link(id(i, j), id(i, j + 2), 0.1 * k);
                }
            }
        }
        Cloth {
            w,
            h,
            rest,
            pinned,
            springs,
            mass,
            area,
        }
    }

    /// Simulates `frames` frames at `fps` after `warmup` seconds, with wind
    /// `wind(t, p)`; returns the particle positions of each frame and the
    /// largest spring stretch seen (as a fraction of rest length).
    pub fn simulate(
        &self,
        frames: usize,
        fps: f64,
        warmup: f64,
        wind: impl Fn(f64, V3) -> V3,
    ) -> (Vec<Vec<V3>>, f64) {
        let n = self.rest.len();
        let k_max = self.springs.iter().map(|s| s.3).fold(0.0, f64::max);
        // Semi-implicit Euler is stable for ω·dt < 2; ω here already overestimates
        // (every spring of a particle at full stiffness), so ω·dt ≤ 1 is safe.
        let omega = (12.0 * k_max / self.mass).sqrt();
        let frame_dt = 1.0 / fps;
        let substeps = (frame_dt * omega).ceil() as usize;
        let dt = frame_dt / substeps as f64;
        let damping = 2.0 * 0.1 * (k_max * self.mass).sqrt();
        let mut x = self.rest.clone();
        let mut v = vec![[0.0; 3]; n];
        let mut f = vec![[0.0; 3]; n];
        let mut out = Vec::with_capacity(frames);
        let mut stretch: f64 = 0.0;
        let warm_frames = (warmup * fps).round() as usize;
        let mut t = 0.0;
        for frame in 0..warm_frames + frames {
            for _ in 0..substeps {
                f.fill([0.0, -9.81 * self.mass, 0.0]);
                // Wind pushes along the cloth's normal, by the relative speed squared.
                for j in 0..self.h {
                    for i in 0..self.w {
                        let id = j * self.w + i;
                        let at = |i: usize, j: usize| x[j * self.w + i];
                        let tu = sub(at((i + 1).min(self.w - 1), j), at(i.saturating_sub(1), j));
                        let tv = sub(at(i, (j + 1).min(self.h - 1)), at(i, j.saturating_sub(1)));
                        let nrm = cross(tu, tv);
                        let len = norm(nrm);
                        if len < 1e-12 {
                            continue;
                        }
                        let nrm = scale(nrm, 1.0 / len);
                        let rel = sub(wind(t, x[id]), v[id]);
                        let vn = dot(nrm, rel);
                        let push = scale(nrm, 0.6 * self.area * vn * vn.abs());
                        let drag = scale(rel, 0.05 * self.area * norm(rel));
                        f[id] = add(f[id], add(push, drag));
                    }
                }
                for &(a, b, rest, k) in &self.springs {
                    let d = sub(x[b], x[a]);
                    let len = norm(d);
                    if len < 1e-12 {
                        continue;
                    }
                    let dir = scale(d, 1.0 / len);
                    let rel_v = dot(sub(v[b], v[a]), dir);
                    let force = scale(dir, k * (len - rest) + damping * rel_v);
                    f[a] = add(f[a], force);
                    f[b] = sub(f[b], force);
                }
                for id in 0..n {
                    if self.pinned[id] {
                        continue;
                    }
                    v[id] = add(scale(v[id], 1.0 - 0.2 * dt), scale(f[id], dt / self.mass));
                    x[id] = add(x[id], scale(v[id], dt));
                }
                t += dt;
            }
            if frame >= warm_frames {
                for &(a, b, rest, k) in &self.springs {
                    if k >= k_max {
                        stretch = stretch.max(norm(sub(x[b], x[a])) / rest - 1.0);
                    }
                }
                out.push(x.clone());
            }
        }
        (out, stretch)
    }

    /// Two triangles per grid cell, 0-based into this cloth's particles.
    pub fn triangles(&self) -> Vec<[usize; 3]> {
        let mut t = Vec::new();
        for j in 0..self.h - 1 {
            for i in 0..self.w - 1 {
                let a = j * self.w + i;
                t.push([a, a + 1, a + self.w]);
                t.push([a + 1, a + self.w + 1, a + self.w]);
            }
        }
        t
    }
}
