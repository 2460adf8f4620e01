//! Test-side glTF tools, written from the glTF 2.0 specification and
//! independent of the exporter: a file read back with the `gltf` crate and
//! evaluated the way the spec says (§3.7.2 node transforms, §3.7.2.2 morph
//! targets, §3.11 animation sampling), plus the Khronos validator and
//! headless Blender runners.
#![allow(dead_code)] // each test file uses a different part

use crate::common::{repo, tool_present};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{DMat4, DQuat, DVec3};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};

/// A file read back: its document and buffers.
pub struct Asset {
    pub doc: gltf::Document,
    pub buffers: Vec<Vec<u8>>,
    parents: HashMap<usize, usize>,
    channels: Vec<Channel>,
}

/// One animation channel, its keys decoded.
struct Channel {
    node: usize,
    property: Property,
    interpolation: Interpolation,
    times: Vec<f32>,
    /// Output elements, each flattened (3 or 4 floats, or one per morph target).
    values: Vec<Vec<f32>>,
}

impl Asset {
    /// Reads a `.glb`, or a `.gltf` and its buffers beside it.
    pub fn open(path: &Path) -> Asset {
        let bytes = std::fs::read(path).unwrap();
        // The gltf crate knows no KHR_mesh_quantization and refuses a file
        // that requires it: such a file is read unchecked here (the Khronos
        // validator checks it where it is written).
        let gltf = match gltf::Gltf::from_slice(&bytes) {
            Err(e) if e.to_string().contains("\"KHR_mesh_quantization\"") => {
                gltf::Gltf::from_slice_without_validation(&bytes)
            }
            read => read,
        }
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let buffers: Vec<Vec<u8>> = gltf
            .document
            .buffers()
            .map(|b| match b.source() {
                gltf::buffer::Source::Bin => gltf.blob.clone().expect("GLB BIN chunk"),
                gltf::buffer::Source::Uri(uri) => {
                    std::fs::read(path.with_file_name(uri.replace("%20", " "))).unwrap()
                }
            })
            .collect();
        let doc = gltf.document;
        let mut parents = HashMap::new();
        for node in doc.nodes() {
            for child in node.children() {
                assert!(
                    parents.insert(child.index(), node.index()).is_none(),
                    "node with two parents"
                );
            }
        }
        let mut channels = Vec::new();
        for animation in doc.animations() {
            for channel in animation.channels() {
                let reader = channel.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
                let times: Vec<f32> = reader.read_inputs().unwrap().collect();
                let values: Vec<Vec<f32>> = match reader.read_outputs().unwrap() {
                    ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => {
                        v.map(|x| x.to_vec()).collect()
                    }
                    ReadOutputs::Rotations(v) => v.into_f32().map(|x| x.to_vec()).collect(),
                    ReadOutputs::MorphTargetWeights(w) => {
                        let all: Vec<f32> = w.into_f32().collect();
                        let per = all.len() / times.len().max(1);
                        all.chunks(per.max(1)).map(<[f32]>::to_vec).collect()
                    }
                };
                let interpolation = channel.sampler().interpolation();
                assert_ne!(
                    interpolation,
                    Interpolation::CubicSpline,
                    "the exporter writes none"
                );
                assert_eq!(values.len(), times.len(), "one output per key");
                channels.push(Channel {
                    node: channel.target().node().index(),
                    property: channel.target().property(),
                    interpolation,
                    times,
                    values,
                });
            }
        }
        Asset {
            doc,
            buffers,
            parents,
            channels,
        }
    }

    /// The node by index.
    pub fn node(&self, i: usize) -> gltf::Node<'_> {
        self.doc.nodes().nth(i).unwrap()
    }

    /// The parent of node `i`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parents.get(&i).copied()
    }

    /// Node indices whose name is `name`.
    pub fn named(&self, name: &str) -> Vec<usize> {
        self.doc
            .nodes()
            .filter(|n| n.name() == Some(name))
            .map(|n| n.index())
            .collect()
    }

    /// The channel's value at `t` (spec §3.11): clamped outside the keys,
    /// STEP holds the earlier key, LINEAR interpolates linearly, and slerps
    /// rotations.
    fn sample(c: &Channel, t: f32) -> Vec<f64> {
        let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        let n = c.times.len();
        if t <= c.times[0] {
            return wide(&c.values[0]);
        }
        if t >= c.times[n - 1] {
            return wide(&c.values[n - 1]);
        }
        let k = c.times.partition_point(|&x| x <= t) - 1;
        let (a, b) = (wide(&c.values[k]), wide(&c.values[k + 1]));
        if c.interpolation == Interpolation::Step {
            return a;
        }
        let u = f64::from(t - c.times[k]) / f64::from(c.times[k + 1] - c.times[k]);
        if c.property == Property::Rotation {
            let qa = DQuat::from_xyzw(a[0], a[1], a[2], a[3]);
            let qb = DQuat::from_xyzw(b[0], b[1], b[2], b[3]);
            return slerp(qa, qb, u).to_array().to_vec();
        }
        a.iter().zip(&b).map(|(x, y)| x + (y - x) * u).collect()
    }

    /// The animated value of `property` of node `i` at `t`, if animated.
    fn animated(&self, i: usize, property: Property, t: f32) -> Option<Vec<f64>> {
        self.channels
            .iter()
            .find(|c| c.node == i && c.property == property)
            .map(|c| Self::sample(c, t))
    }

    /// Node `i`'s local matrix at `t`: its TRS with animated parts replaced.
    pub fn local(&self, i: usize, t: f32) -> DMat4 {
        let node = self.node(i);
        let (t0, r0, s0) = node.transform().decomposed();
        let translation = self
            .animated(i, Property::Translation, t)
            .unwrap_or_else(|| wide(&t0));
        let rotation = self
            .animated(i, Property::Rotation, t)
            .unwrap_or_else(|| wide(&r0));
        let scale = self
            .animated(i, Property::Scale, t)
            .unwrap_or_else(|| wide(&s0));
        DMat4::from_scale_rotation_translation(
            DVec3::from_slice(&scale),
            DQuat::from_slice(&rotation).normalize(),
            DVec3::from_slice(&translation),
        )
    }

    /// Node `i`'s world matrix at `t`: the product of the local matrices from the root.
    pub fn world(&self, i: usize, t: f32) -> DMat4 {
        let mut m = self.local(i, t);
        let mut node = i;
        while let Some(p) = self.parent(node) {
            m = self.local(p, t) * m;
            node = p;
        }
        m
    }

    /// The morph weights of node `i` at `t`: animated, else the node's, else the mesh's.
    pub fn weights(&self, i: usize, t: f32) -> Vec<f64> {
        let node = self.node(i);
        self.animated(i, Property::MorphTargetWeights, t)
            .or_else(|| node.weights().map(wide))
            .or_else(|| node.mesh().and_then(|m| m.weights()).map(wide))
            .unwrap_or_default()
    }

    /// Node `i`'s mesh at `t` in world space, primitive by primitive: each
    /// vertex `world · (base + Σ w_k target_k)`.
    pub fn world_vertices(&self, i: usize, t: f32) -> Vec<Vec<DVec3>> {
        let node = self.node(i);
        let Some(mesh) = node.mesh() else {
            return Vec::new();
        };
        let world = self.world(i, t);
        let weights = self.weights(i, t);
        mesh.primitives()
            .map(|p| {
                let mut positions = self.vec3s(&p.get(&gltf::Semantic::Positions).unwrap());
                for (k, target) in p.morph_targets().enumerate() {
                    let w = weights[k];
                    let deltas = self.vec3s(&target.positions().expect("position target"));
                    for (p, d) in positions.iter_mut().zip(deltas) {
                        *p += d * w;
                    }
                }
                positions
                    .iter()
                    .map(|&p| world.transform_point3(p))
                    .collect()
            })
            .collect()
    }

    /// A vertex accessor's 3-vectors: `f32`, or integers read back as the
    /// spec says (§3.11, "Animations"; `KHR_mesh_quantization`): normalized
    /// `i8` as `max(c / 127, −1)`, `u8` `c / 255`, `i16` `max(c / 32767, −1)`,
    /// `u16` `c / 65535`; the view's stride where it has one.
    pub fn vec3s(&self, accessor: &gltf::Accessor<'_>) -> Vec<DVec3> {
        use gltf::accessor::DataType;
        assert_eq!(accessor.dimensions(), gltf::accessor::Dimensions::Vec3);
        let view = accessor.view().expect("an accessor with a view");
        let buffer = &self.buffers[view.buffer().index()];
        let size = accessor.data_type().size();
        let stride = view.stride().unwrap_or(3 * size);
        let start = view.offset() + accessor.offset();
        let normalized = accessor.normalized();
        let component = |at: usize| -> f64 {
            let b = &buffer[at..at + size];
            let (x, most) = match accessor.data_type() {
                DataType::F32 => (f64::from(f32::from_le_bytes(b.try_into().unwrap())), 1.0),
                DataType::I8 => (f64::from(b[0] as i8), 127.0),
                DataType::U8 => (f64::from(b[0]), 255.0),
                DataType::I16 => (
                    f64::from(i16::from_le_bytes(b.try_into().unwrap())),
                    32767.0,
                ),
                DataType::U16 => (
                    f64::from(u16::from_le_bytes(b.try_into().unwrap())),
                    65535.0,
                ),
                DataType::U32 => panic!("no u32 vertex attribute"),
            };
            match normalized {
                true => (x / most).max(-1.0),
                false => x,
            }
        };
        (0..accessor.count())
            .map(|i| {
                let at = start + i * stride;
                DVec3::new(
                    component(at),
                    component(at + size),
                    component(at + 2 * size),
                )
            })
            .collect()
    }

    /// The `.obj` vertex of each vertex of each primitive of node `i`'s mesh,
    /// from the primitives' `extras.objVertices` runs.
    pub fn obj_vertices(&self, i: usize) -> Vec<Vec<usize>> {
        let Some(mesh) = self.node(i).mesh() else {
            return Vec::new();
        };
        mesh.primitives()
            .map(|p| {
                let extras: serde_json::Value =
                    serde_json::from_str(p.extras().as_ref().expect("primitive extras").get())
                        .unwrap();
                extras["objVertices"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|run| {
                        let first = run[0].as_u64().unwrap() as usize;
                        first..first + run[1].as_u64().unwrap() as usize
                    })
                    .collect()
            })
            .collect()
    }

    /// A node's `extras` as JSON (null without any).
    pub fn extras(&self, i: usize) -> serde_json::Value {
        match self.node(i).extras() {
            Some(raw) => serde_json::from_str(raw.get()).unwrap(),
            None => serde_json::Value::Null,
        }
    }

    /// Every key time of every channel.
    pub fn key_times(&self) -> Vec<f32> {
        let mut all: Vec<f32> = self
            .channels
            .iter()
            .flat_map(|c| c.times.iter().copied())
            .collect();
        all.sort_by(f32::total_cmp);
        all.dedup();
        all
    }
}

fn wide(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

/// Spherical linear interpolation, written out (spec §3.11, Appendix:
/// the shorter arc).
pub fn slerp(a: DQuat, b: DQuat, u: f64) -> DQuat {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    if d > 1.0 - 1e-12 {
        return (a * (1.0 - u) + b * u).normalize();
    }
    let theta = d.acos();
    let s = theta.sin();
    a * (((1.0 - u) * theta).sin() / s) + b * ((u * theta).sin() / s)
}

/// `--out` paths under a fresh folder.
pub fn out_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The validator runner's folder.
fn js_dir() -> PathBuf {
    repo("tests/js")
}

/// Runs the Khronos glTF-Validator over `files`; returns one JSON report per
/// file, or `None` (after a notice) where the validator is not installed.
pub fn validate(files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let installed = js_dir().join("node_modules/gltf-validator").is_dir()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !tool_present("the glTF validator", installed, "npm ci --prefix tests/js") {
        return None;
    }
    let out = Command::new("node")
        .arg(js_dir().join("validate.js"))
        .args(files)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(reports)
}

/// Headless Blender with `/usr/bin` first in PATH (it finds its Python
/// through PATH), or `None` (after a notice) where Blender is not installed.
pub fn blender() -> Option<Command> {
    let path = format!("/usr/bin:{}", std::env::var("PATH").unwrap_or_default());
    let present = Command::new("blender")
        .env("PATH", &path)
        .args(["-b", "--factory-startup", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !tool_present("Blender", present, "apt-get install blender python3-numpy") {
        return None;
    }
    let mut command = Command::new("blender");
    command
        .env("PATH", path)
        .args(["-b", "--factory-startup", "--python"]);
    Some(command)
}

/// Runs `tests/blender/dump.py` over `jobs` in headless Blender (`command`,
/// from [`blender`]), its files in `dir`; returns one result per job.
pub fn blender_dump(
    mut command: Command,
    jobs: &serde_json::Value,
    dir: &Path,
) -> Vec<serde_json::Value> {
    let jobs_path = dir.join("jobs.json");
    let results_path = dir.join("results.json");
    std::fs::write(&jobs_path, jobs.to_string()).unwrap();
    let output = command
        .arg(repo("tests/blender/dump.py"))
        .arg("--")
        .arg(&jobs_path)
        .arg(&results_path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&std::fs::read(&results_path).unwrap()).unwrap()
}

/// A point of an AIBO rig (millimetres; x forward, y left, z up) in the
/// scene's world (metres, y up, right-handed, the dog facing +x), converted
/// by hand: x → x, z → y, y → −z.
pub fn aibo_world(p: [f64; 3]) -> glam::Vec3 {
    glam::DVec3::new(p[0], p[2], -p[1]).as_vec3() / 1000.0
}

/// A Unity point (metres, y up, left-handed) in the scene's right-handed
/// world: z mirrored.
pub fn unity_world(p: [f32; 3]) -> glam::Vec3 {
    glam::Vec3::new(p[0], p[1], -p[2])
}
