//! Writes a sample MEMG scene: flags on swaying poles, simulated as cloth and
//! compressed the way the MEMG format expects (mean + PCA basis per group).
//!
//! ```text
//! cargo run --release --example make_flags -- --out data --name flags \
//!     [--flags 4] [--res 32x20] [--frames 240] [--fps 30] [--big-endian] [--shuffle]
//! ```
//!
//! Output: `NAME.obj` (ground, banner posts, poles, flags, banner), `NAME.mtl`
//! and `NAME.bin`. Each flag is a mass-spring cloth (structural, shear and
//! bend springs, gravity, gusty wind, pinned along the pole) simulated in its
//! pole's local coordinates; the pole's sway is the animated local frame the
//! flag and the pole are parented to. The banner hangs between two fixed posts
//! and is stored in world space (parent -1). `--shuffle` stores each group's
//! vertices in a scrambled order, so the mapping is not the `.obj`'s order.

use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use std::f64::consts::TAU;
use std::fmt::Write as _;
use std::path::PathBuf;

mod cloth;
mod pca;

use cloth::{Cloth, V3, add};
use pca::{Reduced, reconstruction_error, reduce};

/// Share of the motion's variance each group's basis keeps.
const KEEP_ENERGY: f64 = 0.999;
/// Most basis vectors per group: caps the file size (3v × r doubles per group).
const MAX_BASIS: usize = 32;

/// Command-line settings.
struct Options {
    out: PathBuf,
    name: String,
    flags: usize,
    res: (usize, usize),
    frames: usize,
    fps: i32,
    big_endian: bool,
    shuffle: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        out: PathBuf::from("data"),
        name: "flags".into(),
        flags: 4,
        res: (32, 20),
        frames: 240,
        fps: 30,
        big_endian: false,
        shuffle: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--out" => o.out = value()?.into(),
            "--name" => o.name = value()?,
            "--flags" => o.flags = value()?.parse().map_err(|e| format!("--flags: {e}"))?,
            "--frames" => o.frames = value()?.parse().map_err(|e| format!("--frames: {e}"))?,
            "--fps" => o.fps = value()?.parse().map_err(|e| format!("--fps: {e}"))?,
            "--res" => {
                let v = value()?;
                let (w, h) = v.split_once('x').ok_or("--res takes WxH, e.g. 32x20")?;
                o.res = (
                    w.parse().map_err(|e| format!("--res: {e}"))?,
                    h.parse().map_err(|e| format!("--res: {e}"))?,
                );
            }
            "--big-endian" => o.big_endian = true,
            "--shuffle" => o.shuffle = true,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if o.flags == 0 || o.res.0 < 3 || o.res.1 < 3 || o.frames < 2 || o.fps <= 0 {
        return Err("need --flags ≥ 1, --res ≥ 3x3, --frames ≥ 2, --fps ≥ 1".into());
    }
    Ok(o)
}

/// A row-major 3×4 transform: translate to `base`, then tilt by `about_z`
/// (towards +x for negative angles) and `about_x`.
fn pole_frame(base: V3, about_z: f64, about_x: f64) -> [f64; 12] {
    let (sz, cz) = about_z.sin_cos();
    let (sx, cx) = about_x.sin_cos();
    // R = Rz · Rx
    let r = [
        [cz, -sz * cx, sz * sx],
        [sz, cz * cx, -cz * sx],
        [0.0, sx, cx],
    ];
    [
        r[0][0], r[0][1], r[0][2], base[0], r[1][0], r[1][1], r[1][2], base[1], r[2][0], r[2][1],
        r[2][2], base[2],
    ]
}

/// A thin hexagonal prism from y = 0 to `height` around the origin.
fn prism(radius: f64, height: f64) -> (Vec<V3>, Vec<[usize; 3]>) {
    let mut v = Vec::new();
    for y in [0.0, height] {
        for s in 0..6 {
            let a = TAU * s as f64 / 6.0;
            v.push([radius * a.cos(), y, radius * a.sin()]);
        }
    }
    let mut t = Vec::new();
    for s in 0..6 {
        let n = (s + 1) % 6;
        t.push([s, n, 6 + n]);
        t.push([s, 6 + n, 6 + s]);
    }
    for s in 1..5 {
        t.push([6, 6 + s + 1, 6 + s]);
    }
    (v, t)
}

/// The scene being written: `.obj` groups and motion groups.
struct Builder {
    positions: Vec<V3>,
    obj_groups: Vec<(String, String, Vec<[usize; 3]>)>,
}

impl Builder {
    /// Adds a group's vertices and triangles; returns its first global vertex.
    fn add(&mut self, name: &str, material: &str, verts: &[V3], tris: &[[usize; 3]]) -> usize {
        let first = self.positions.len();
        self.positions.extend_from_slice(verts);
        let tris = tris
            .iter()
            .map(|t| [t[0] + first, t[1] + first, t[2] + first])
            .collect();
        self.obj_groups.push((name.into(), material.into(), tris));
        first
    }
}

/// Deterministic scramble of `0..n` (an LCG-driven Fisher–Yates shuffle).
fn scramble(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..n).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = ((s >> 33) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// A motion group from a reduction, its vertices starting at `.obj` vertex `first`.
fn motion_group(
    name: &str,
    first: usize,
    red: &Reduced,
    parent: i32,
    shuffle: Option<u64>,
) -> MemgGroup {
    let v = red.mean.len() / 3;
    let order: Vec<usize> = match shuffle {
        Some(seed) => scramble(v, seed),
        None => (0..v).collect(),
    };
    let dim = 3 * v;
    let mut basis = vec![0f32; dim * red.r];
    for j in 0..red.r {
        for (new, &old) in order.iter().enumerate() {
            for a in 0..3 {
                basis[j * dim + 3 * new + a] = red.basis[j * dim + 3 * old + a] as f32;
            }
        }
    }
    MemgGroup {
        name: name.into(),
        mapping: order.iter().map(|&i| (first + i + 1) as u32).collect(),
        mean: order
            .iter()
            .flat_map(|&i| (0..3).map(move |a| red.mean[3 * i + a] as f32))
            .collect(),
        parent,
        basis_len: red.r,
        basis,
        coeffs: red.coeffs.iter().map(|&x| x as f32).collect(),
    }
}

fn main() {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("make_flags: {e}");
            std::process::exit(2);
        }
    };
    let (w, h) = o.res;
    let fps = f64::from(o.fps);
    let (flag_w, flag_h, pole_h) = (1.6, 1.0, 4.0);
    let spacing = 3.0;
    let mut b = Builder {
        positions: Vec::new(),
        obj_groups: Vec::new(),
    };

    let extent = spacing * o.flags as f64 + 4.0;
    let ground = [
        [-4.0, 0.0, -8.0],
        [extent, 0.0, -8.0],
        [extent, 0.0, 5.0],
        [-4.0, 0.0, 5.0],
    ];
    b.add("ground", "grass", &ground, &[[0, 2, 1], [0, 3, 2]]);
    let banner_z = -5.0;
    let banner_x = (0.5, spacing * (o.flags as f64 - 1.0).max(1.0) + 0.5);
    let (post_v, post_t) = prism(0.06, 3.2);
    let mut posts_v = Vec::new();
    let mut posts_t = Vec::new();
    for x in [banner_x.0, banner_x.1] {
        let off = posts_v.len();
        posts_v.extend(post_v.iter().map(|p| add(*p, [x, 0.0, banner_z])));
        posts_t.extend(post_t.iter().map(|t| [t[0] + off, t[1] + off, t[2] + off]));
    }
    b.add("banner_posts", "wood", &posts_v, &posts_t);

    // Wind: mostly +x with a little +z, gusting, with ripples travelling downwind.
    let wind = |t: f64, p: V3, phase: f64| -> V3 {
        let gust = 1.0
            + 0.35 * (TAU * 0.13 * t + phase).sin()
            + 0.2 * (TAU * 0.41 * t + 2.0 * phase).sin();
        let ripple = 0.08 * (3.0 * p[0] - TAU * 1.1 * t + phase).sin();
        let speed = 5.0 * gust * (1.0 + ripple);
        [speed, 0.4 * (TAU * 0.23 * t + phase).sin(), 0.3 * speed]
    };

    let shuffle_seed = |i: usize| o.shuffle.then_some(17 + i as u64);
    let colours = ["red", "blue", "yellow", "white"];
    let mut motion_groups = Vec::new();
    let mut frames_block = vec![[0.0; 12]; o.frames * o.flags];
    for f in 0..o.flags {
        let phase = 1.7 * f as f64;
        let base = [spacing * f as f64, 0.0, 0.0];
        // Pole sway: the pole leans downwind with the gusts and nods sideways.
        for t in 0..o.frames {
            let s = t as f64 / fps;
            let lean = -0.025 * (1.0 + 0.35 * (TAU * 0.13 * s + phase).sin())
                - 0.006 * (TAU * 0.9 * s + phase).sin();
            let nod = 0.01 * (TAU * 0.6 * s + 0.5 * phase).sin();
            frames_block[t * o.flags + f] = pole_frame(base, lean, nod);
        }
        let (pv, pt) = prism(0.05, pole_h);
        let pole_first = b.add(&format!("pole{f}"), "metal", &pv, &pt);
        let du = [flag_w / (w - 1) as f64, 0.0, 0.0];
        let dv = [0.0, -flag_h / (h - 1) as f64, 0.0];
        let cloth = Cloth::new(w, h, [0.05, pole_h - 0.1, 0.0], du, dv, |i, _| i == 0);
        let (frames, stretch) = cloth.simulate(o.frames, fps, 3.0, |t, p| wind(t, p, phase));
        let flag_first = b.add(
            &format!("flag{f}"),
            colours[f % colours.len()],
            &frames[0],
            &cloth.triangles(),
        );
        let red = reduce(&frames, KEEP_ENERGY, MAX_BASIS);
        let group = motion_group(
            &format!("flag{f}"),
            flag_first,
            &red,
            f as i32,
            shuffle_seed(f),
        );
        let from: Vec<usize> = group
            .mapping
            .iter()
            .map(|&m| m as usize - 1 - flag_first)
            .collect();
        let (max_err, rms_err) = reconstruction_error(&frames, &group, &from);
        println!(
            "flag{f}: {} vertices, basis {} ({:.3}% energy), reconstruction error max {:.4} m ({:.2}% of the flag's width), rms {:.4} m; max stretch {:.1}%",
            w * h,
            red.r,
            100.0 * red.energy,
            max_err,
            100.0 * max_err / flag_w,
            rms_err,
            100.0 * stretch
        );
        // The pole rides its frame rigidly: a mean pose and no basis.
        let pole = Reduced {
            mean: pv.iter().flatten().copied().collect(),
            basis: Vec::new(),
            coeffs: Vec::new(),
            r: 0,
            energy: 1.0,
        };
        motion_groups.push(motion_group(
            &format!("pole{f}"),
            pole_first,
            &pole,
            f as i32,
            shuffle_seed(100 + f),
        ));
        motion_groups.push(group);
    }

    // The banner hangs by its top edge between the posts, simulated in world space.
    let bw = (w * 3 / 2).max(3);
    let bh = (h / 2).max(3);
    let width = banner_x.1 - banner_x.0 - 0.2;
    let cloth = Cloth::new(
        bw,
        bh,
        [banner_x.0 + 0.1, 3.1, banner_z],
        [width / (bw - 1) as f64, 0.0, 0.0],
        [0.0, -0.8 / (bh - 1) as f64, 0.0],
        |_, j| j == 0,
    );
    let (frames, stretch) = cloth.simulate(o.frames, fps, 3.0, |t, p| wind(t, p, 0.4));
    let banner_first = b.add("banner", "orange", &frames[0], &cloth.triangles());
    let red = reduce(&frames, KEEP_ENERGY, MAX_BASIS);
    let banner = motion_group("banner", banner_first, &red, -1, shuffle_seed(999));
    let from: Vec<usize> = banner
        .mapping
        .iter()
        .map(|&m| m as usize - 1 - banner_first)
        .collect();
    let (max_err, _) = reconstruction_error(&frames, &banner, &from);
    println!(
        "banner: {} vertices, basis {} ({:.3}% energy), reconstruction error max {:.4} m ({:.2}% of its width); max stretch {:.1}%",
        bw * bh,
        red.r,
        100.0 * red.energy,
        max_err,
        100.0 * max_err / width,
        100.0 * stretch
    );
    motion_groups.push(banner);
    // The binary lists groups in reverse scene order: binding goes by name.
    motion_groups.reverse();

    let motion = MemgMotion {
        byte_order: if o.big_endian {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        },
        fps: o.fps,
        local_frames: o.flags,
        timesteps: o.frames,
        frames: frames_block,
        groups: motion_groups,
        warnings: Vec::new(),
    };
    let bin = memg::encode(&motion, motion.byte_order);

    let mut obj = format!(
        "# {} flags on poles, written by examples/make_flags.rs\nmtllib {}.mtl\n",
        o.flags, o.name
    );
    for p in &b.positions {
        // The .obj holds the f32 values the motion works in.
        let _ = writeln!(obj, "v {} {} {}", p[0] as f32, p[1] as f32, p[2] as f32);
    }
    for (name, material, tris) in &b.obj_groups {
        let _ = writeln!(obj, "g {name}\nusemtl {material}");
        for t in tris {
            let _ = writeln!(obj, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
        }
    }
    let mtl = [
        ("grass", [0.30, 0.55, 0.25]),
        ("wood", [0.45, 0.30, 0.15]),
        ("metal", [0.70, 0.70, 0.72]),
        ("red", [0.80, 0.10, 0.10]),
        ("blue", [0.10, 0.25, 0.80]),
        ("yellow", [0.95, 0.80, 0.10]),
        ("white", [0.95, 0.95, 0.95]),
        ("orange", [0.95, 0.50, 0.10]),
    ]
    .iter()
    .fold(String::new(), |mut s, (n, c)| {
        let _ = writeln!(s, "newmtl {n}\nKd {} {} {}\n", c[0], c[1], c[2]);
        s
    });

    let write = |ext: &str, bytes: &[u8]| {
        let path = o.out.join(format!("{}.{ext}", o.name));
        if let Err(e) = std::fs::create_dir_all(&o.out).and_then(|_| std::fs::write(&path, bytes)) {
            eprintln!("make_flags: {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    };
    write("obj", obj.as_bytes());
    write("mtl", mtl.as_bytes());
    write("bin", &bin);
    println!(
        "{} vertices, {} triangles, {} timesteps at {} fps, {} local frames",
        b.positions.len(),
        b.obj_groups.iter().map(|g| g.2.len()).sum::<usize>(),
        o.frames,
        o.fps,
        o.flags
    );
}
