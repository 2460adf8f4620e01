//! glTF export of MEMG scenes read back with the `gltf` crate and
//! evaluated as the glTF spec says (tests/gltf_common), against the CPU
//! reference: the f64 deformation, the extras, the baked and `.gltf`
//! forms, texture coordinates and colours. The AIBO rig and the MRTK
//! curves are `gltf_rigs.rs`'s.
use crate::common;
use common::data;

use crate::common::gltf as gltf_common;

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use gltf_common::{Asset, out_dir};
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform_reference_f64};
use motion_viewer::export::gltf::{GltfOptions, GltfReport, write};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use motion_viewer::scene::{Plan, Track};

/// MEMG: at most this fraction of the scene's bounding-box diagonal off.
pub(super) const MEMG_TOLERANCE: f64 = 1e-5;

pub(super) fn export(files: &[PathBuf], out: &Path, baked: bool) -> (Vec<Track>, Plan, GltfReport) {
    let tracks = motion_viewer::open_with(files, &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    let plan = Plan::new(&tracks).unwrap();
    let mut last = 0.0;
    let report = write(
        &tracks,
        &plan,
        &GltfOptions {
            baked,
            ..GltfOptions::default()
        },
        out,
        &mut |f| {
            assert!(f >= last && f <= 1.0, "progress {f} after {last}");
            last = f;
        },
    )
    .unwrap();
    assert_eq!(last, 1.0);
    (tracks, plan, report)
}

pub(super) fn flags() -> Vec<PathBuf> {
    vec![data("flags.obj"), data("flags.bin")]
}

/// The node named `name` under the node named `root`.
pub(super) fn under(asset: &Asset, root: &str, name: &str) -> usize {
    let found: Vec<usize> = asset
        .named(name)
        .into_iter()
        .filter(|&i| root_name(asset, i) == Some(root))
        .collect();
    assert_eq!(found.len(), 1, "{root}/{name}");
    found[0]
}

/// The name of the scene root above node `n` (`n`'s own, at the top).
pub(super) fn root_name(asset: &Asset, mut n: usize) -> Option<&str> {
    while let Some(p) = asset.parent(n) {
        n = p;
    }
    asset.node(n).name()
}

/// The mesh nodes under track root `root`, at any depth (a MEMG frame
/// several groups share is a node over theirs).
pub(super) fn mesh_children(asset: &Asset, root: &str) -> Vec<usize> {
    fn under(node: gltf::Node<'_>, found: &mut Vec<usize>) {
        for c in node.children() {
            if c.mesh().is_some() {
                found.push(c.index());
            }
            under(c, found);
        }
    }
    let mut found = Vec::new();
    under(asset.node(asset.named(root)[0]), &mut found);
    found
}

/// The MEMG track at `index` of `tracks`: scene, motion and binding.
pub(super) fn memg_of(
    tracks: &[Track],
    index: usize,
) -> (
    &motion_viewer::formats::obj::ObjScene,
    &memg::MemgMotion,
    Binding,
) {
    let Track::Memg { scene, motion, .. } = &tracks[index] else {
        panic!("track {index} is not MEMG");
    };
    let binding = Binding::new(scene, motion).unwrap();
    (scene, motion, binding)
}

/// The largest distance between the file's MEMG vertices (mesh nodes under
/// `root`, those visible when `visible_only`) and the f64 reference at
/// timestep position `step` (fractional between timesteps), as a fraction of
/// the bounding-box diagonal; also checks that every vertex on a triangle
/// is there once per texture coordinate and only where expected.
pub(super) fn memg_error(
    asset: &Asset,
    tracks: &[Track],
    plan: &Plan,
    index: usize,
    step: f64,
    only: Option<&[&str]>,
) -> f64 {
    let (scene, motion, binding) = memg_of(tracks, index);
    let (lo, hi) = bounding_box_over_time(scene, motion, &binding).unwrap();
    let diagonal = Vec3::from(hi).distance(Vec3::from(lo)) as f64;
    let offset = plan.placements[index].offset.as_dvec3();
    let reference = deform_reference_f64(scene, motion, &binding, step);
    let t = (step / f64::from(motion.fps)) as f32;
    let root = &plan.placements[index].name;
    let mut worst = 0f64;
    let mut seen = vec![false; scene.positions.len()];
    let mut visible_nodes = 0;
    for node in mesh_children(asset, root) {
        if let Some(only) = only
            && !only.contains(&asset.node(node).name().unwrap())
        {
            continue;
        }
        if asset.world(node, t).x_axis.length() == 0.0 {
            continue; // a hidden baked frame
        }
        visible_nodes += 1;
        for (vertices, objs) in asset
            .world_vertices(node, t)
            .iter()
            .zip(asset.obj_vertices(node))
        {
            assert_eq!(vertices.len(), objs.len());
            for (v, &o) in vertices.iter().zip(&objs) {
                seen[o] = true;
                worst = worst.max(v.distance(DVec3::from_array(reference[o]) + offset));
            }
        }
    }
    assert!(visible_nodes > 0);
    if only.is_none() {
        let on_triangles = scene.triangles.iter().flatten().map(|&v| v as usize);
        for v in on_triangles {
            assert!(seen[v], ".obj vertex {v} is missing");
        }
    }
    worst / diagonal
}

#[test]
fn memg_reduced_matches_the_reference_at_every_timestep() {
    let dir = out_dir();
    let out = dir.path().join("flags.glb");
    let (tracks, plan, report) = export(&flags(), &out, false);
    let asset = Asset::open(&out);
    let (_, motion, _) = memg_of(&tracks, 0);
    let mut worst = 0f64;
    for step in 0..motion.timesteps {
        worst = worst.max(memg_error(&asset, &tracks, &plan, 0, step as f64, None));
    }
    eprintln!(
        "flags.glb, reduced: worst {worst:.2e} of the diagonal over {} timesteps",
        motion.timesteps
    );
    assert!(worst < MEMG_TOLERANCE, "{worst:e}");
    // One mesh per group with triangles, plus the static ground and posts.
    assert_eq!(report.meshes, motion.groups.len() + 1);
    let targets: usize = motion.groups.iter().map(|g| g.basis_len).sum();
    assert_eq!(report.morph_targets, targets);
    // Every weight Blender would clamp stays in [0, 1].
    for node in mesh_children(&asset, "flags") {
        for k in 0..motion.timesteps {
            let w = asset.weights(node, (k as f64 / 30.0) as f32);
            assert!(w.iter().all(|w| (0.0..=1.0).contains(w)), "{w:?}");
        }
    }
}

#[test]
fn memg_world_space_group_blends_between_timesteps() {
    // The banner's parent is −1 (world space): no node transform, so the
    // glTF's linear weights between keys are the reference's blend of Q.
    let dir = out_dir();
    let out = dir.path().join("flags.glb");
    let (tracks, plan, _) = export(&flags(), &out, false);
    let asset = Asset::open(&out);
    let (_, motion, _) = memg_of(&tracks, 0);
    let banner = motion.groups.iter().find(|g| g.name == "banner").unwrap();
    assert_eq!(banner.parent, -1);
    let node = under(&asset, "flags", "banner");
    assert_eq!(asset.node(node).transform().decomposed().0, [0.0; 3]);
    for step in [0.5, 17.25, 100.9, 238.5] {
        let e = memg_error(&asset, &tracks, &plan, 0, step, Some(&["banner", "static"]));
        assert!(e < MEMG_TOLERANCE, "at {step}: {e:e}");
    }
}

#[test]
fn memg_recovers_p_and_q_from_extras() {
    let dir = out_dir();
    let out = dir.path().join("flags.glb");
    let (tracks, _, _) = export(&flags(), &out, false);
    let asset = Asset::open(&out);
    let (_, motion, _) = memg_of(&tracks, 0);
    let g = motion.groups.iter().find(|g| g.name == "flag2").unwrap();
    let node = under(&asset, "flags", "flag2");
    let mesh = asset.node(node).mesh().unwrap();
    let extras: serde_json::Value =
        serde_json::from_str(mesh.extras().as_ref().unwrap().get()).unwrap();
    let lo: Vec<f64> = serde_json::from_value(extras["memg"]["lo"].clone()).unwrap();
    let scale: Vec<f64> = serde_json::from_value(extras["memg"]["scale"].clone()).unwrap();
    assert_eq!(extras["targetNames"].as_array().unwrap().len(), g.basis_len);
    let r = g.basis_len;
    // q_j(t) = lo_j + scale_j · w_j(t).
    for t in [0, 57, 239] {
        let w = asset.weights(node, (t as f64 / 30.0) as f32);
        for j in 0..r {
            let q = lo[j] + scale[j] * w[j];
            assert!(
                (q - f64::from(g.coeffs[t * r + j])).abs() < 1e-6 * scale[j].max(1.0),
                "q{j}({t})"
            );
        }
    }
    // U_j = target_j / scale_j and p = base − Σ lo_j U_j, for the group's vertices.
    let primitive = mesh.primitives().next().unwrap();
    let reader = primitive.reader(|b| asset.buffers.get(b.index()).map(Vec::as_slice));
    let base: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    let targets: Vec<Vec<[f32; 3]>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.unwrap().collect())
        .collect();
    let objs = &asset.obj_vertices(node)[0];
    let v3 = 3 * g.vertex_count();
    for (k, &o) in objs.iter().enumerate().step_by(37) {
        let i = g.mapping.iter().position(|&m| m as usize == o + 1).unwrap();
        for a in 0..3 {
            let mut p = f64::from(base[k][a]);
            for j in 0..r {
                let u = f64::from(targets[j][k][a]) / scale[j];
                assert!(
                    (u - f64::from(g.basis[j * v3 + 3 * i + a])).abs() < 1e-6,
                    "U"
                );
                p -= lo[j] * u;
            }
            assert!((p - f64::from(g.mean[3 * i + a])).abs() < 1e-5, "p");
        }
    }
}

#[test]
fn memg_big_endian_copy_writes_the_same_file() {
    let dir = out_dir();
    let motion = memg::decode(&std::fs::read(data("flags.bin")).unwrap()).unwrap();
    let big = dir.path().join("flags.bin");
    std::fs::write(&big, memg::encode(&motion, ByteOrder::Big)).unwrap();
    for name in ["flags.obj", "flags.mtl"] {
        std::fs::copy(data(name), dir.path().join(name)).unwrap();
    }
    let out_big = dir.path().join("big.glb");
    let (tracks, plan, _) = export(&[dir.path().join("flags.obj"), big], &out_big, false);
    let Track::Memg { motion, .. } = &tracks[0] else {
        panic!()
    };
    assert_eq!(motion.byte_order, ByteOrder::Big);
    let asset = Asset::open(&out_big);
    for step in [0, 91, 239] {
        let e = memg_error(&asset, &tracks, &plan, 0, step as f64, None);
        assert!(e < MEMG_TOLERANCE, "{e:e}");
    }
    let out_little = dir.path().join("little.glb");
    export(&flags(), &out_little, false);
    assert!(std::fs::read(&out_big).unwrap() == std::fs::read(&out_little).unwrap());
}

#[test]
fn memg_baked_shows_one_frame_at_a_time() {
    let dir = out_dir();
    let out = dir.path().join("baked.glb");
    let (tracks, plan, report) = export(&flags(), &out, true);
    let asset = Asset::open(&out);
    let (_, motion, _) = memg_of(&tracks, 0);
    assert_eq!(report.morph_targets, 0);
    assert_eq!(mesh_children(&asset, "flags").len(), motion.timesteps);
    let mut worst = 0f64;
    for step in (0..motion.timesteps)
        .step_by(7)
        .chain([motion.timesteps - 1])
    {
        let t = (step as f64 / 30.0) as f32;
        let shown: Vec<usize> = mesh_children(&asset, "flags")
            .into_iter()
            .filter(|&n| asset.world(n, t).x_axis.length() > 0.0)
            .collect();
        assert_eq!(
            shown,
            [under(&asset, "flags", &format!("frame {step}"))],
            "at {step}"
        );
        worst = worst.max(memg_error(&asset, &tracks, &plan, 0, step as f64, None));
    }
    eprintln!("flags.glb, baked: worst {worst:.2e} of the diagonal");
    assert!(worst < MEMG_TOLERANCE, "{worst:e}");
}

#[test]
fn gltf_with_bin_beside_it() {
    let dir = out_dir();
    let out = dir.path().join("scene.gltf");
    let (tracks, plan, report) = export(&flags(), &out, false);
    let bin = dir.path().join("scene.bin");
    assert_eq!(
        report.files.iter().map(|f| f.0.clone()).collect::<Vec<_>>(),
        [out.clone(), bin.clone()]
    );
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), report.files[1].1);
    let asset = Asset::open(&out);
    let e = memg_error(&asset, &tracks, &plan, 0, 120.0, None);
    assert!(e < MEMG_TOLERANCE, "{e:e}");
}

#[test]
fn memg_texture_coordinates_and_colours_come_from_the_obj() {
    let dir = out_dir();
    let obj = dir.path().join("quad.obj");
    std::fs::write(
        &obj,
        "mtllib quad.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.25\n\
         g sheet\nusemtl red\nf 1/1 2/2 3/3\nf 1/5 3/3 4/4\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("quad.mtl"), "newmtl red\nKd 0.5 0.25 0\n").unwrap();
    let motion = memg::MemgMotion {
        fps: 30,
        timesteps: 2,
        groups: vec![memg::MemgGroup {
            name: "sheet".into(),
            mapping: vec![1, 2, 3, 4],
            mean: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
            parent: -1,
            basis_len: 1,
            basis: vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            coeffs: vec![-0.5, 0.5],
        }],
        ..Default::default()
    };
    let bin = dir.path().join("quad.bin");
    std::fs::write(&bin, memg::encode(&motion, ByteOrder::Little)).unwrap();
    let out = dir.path().join("quad.glb");
    export(&[obj, bin], &out, false);
    let asset = Asset::open(&out);
    let node = under(&asset, "quad", "sheet");
    let primitive = asset
        .node(node)
        .mesh()
        .unwrap()
        .primitives()
        .next()
        .unwrap();
    let reader = primitive.reader(|b| asset.buffers.get(b.index()).map(Vec::as_slice));
    let uv: Vec<[f32; 2]> = reader.read_tex_coords(0).unwrap().into_f32().collect();
    // Vertex 1 is used with two texture coordinates: written twice; v flips.
    assert_eq!(asset.obj_vertices(node)[0], [0, 0, 1, 2, 3]);
    assert_eq!(
        uv,
        [[0.0, 1.0], [0.5, 0.75], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
    );
    let colour = primitive
        .material()
        .pbr_metallic_roughness()
        .base_color_factor();
    // sRGB's transfer function inverted (IEC 61966-2-1).
    let linear = |c: f32| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    assert_eq!(colour, [linear(0.5), linear(0.25), 0.0, 1.0]);
    // Weights stay in [0, 1] though q runs from −0.5 to 0.5.
    assert_eq!(asset.weights(node, 0.0), [0.0]);
    assert_eq!(asset.weights(node, 1.0 / 30.0), [1.0]);
}
