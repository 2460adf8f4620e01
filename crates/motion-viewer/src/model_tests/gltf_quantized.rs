//! The reduced MEMG glTF in integers (`GltfOptions::quantized`), read back
//! as the spec and `KHR_mesh_quantization` say (tests/common/gltf.rs) and
//! compared with the f64 reference at every timestep: within the error the
//! exporter reports, which is within the tolerance given; the extras still
//! give back `p`, `U` and `Q`.
use super::gltf_spec::{flags, memg_error, memg_of, mesh_children, under};
use crate::common::gltf::{Asset, out_dir};

use glam::Vec3;
use motion_viewer::anim::memg::bounding_box_over_time;
use motion_viewer::export::gltf::{GltfOptions, GltfReport, write};
use motion_viewer::scene::{Plan, Track};
use std::path::Path;

/// The flags scene written to `out` with `options`.
fn export(out: &Path, options: &GltfOptions) -> (Vec<Track>, Plan, GltfReport) {
    let tracks = motion_viewer::open_with(flags(), &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    let plan = Plan::new(&tracks).unwrap();
    let report = write(&tracks, &plan, options, out, &mut |_| {}).unwrap();
    (tracks, plan, report)
}

/// The scene's bounding-box diagonal over the motion.
fn diagonal(tracks: &[Track]) -> f64 {
    let (scene, motion, binding) = memg_of(tracks, 0);
    let (lo, hi) = bounding_box_over_time(scene, motion, &binding).unwrap();
    Vec3::from(hi).distance(Vec3::from(lo)) as f64
}

/// The largest distance, any vertex at any timestep, from the reference,
/// as a fraction of the diagonal.
fn worst(asset: &Asset, tracks: &[Track], plan: &Plan) -> f64 {
    let (_, motion, _) = memg_of(tracks, 0);
    (0..motion.timesteps)
        .map(|step| memg_error(asset, tracks, plan, 0, step as f64, None))
        .fold(0.0, f64::max)
}

#[test]
fn memg_in_16_bits_is_within_the_error_it_reports_at_every_timestep() {
    let dir = out_dir();
    let (floats, ints) = (dir.path().join("f32.glb"), dir.path().join("i16.glb"));
    export(&floats, &GltfOptions::default());
    let options = GltfOptions {
        quantized: true,
        ..GltfOptions::default()
    };
    let (tracks, plan, report) = export(&ints, &options);
    let diagonal = diagonal(&tracks);
    let reported = report.quantization_error / diagonal;
    let worst = worst(&Asset::open(&ints), &tracks, &plan);
    eprintln!("flags in 16 bits: worst {worst:.2e} of the diagonal, reported {reported:.2e}");
    // 16 bits of each group's extent: about 1e-5 of the diagonal.
    assert!(reported > 0.0 && reported < 1e-4, "{reported:e}");
    // The readers' f32 arithmetic on top: as the float file's (gltf_spec).
    assert!(worst <= reported + 1e-5, "{worst:e} against {reported:e}");
    let size = |p: &Path| std::fs::metadata(p).unwrap().len() as f64;
    assert!(
        size(&ints) < 0.75 * size(&floats),
        "{} bytes against {}",
        size(&ints),
        size(&floats)
    );
}

#[test]
fn a_tolerance_puts_the_smaller_targets_in_8_bits_and_holds() {
    let dir = out_dir();
    let (wide, narrow) = (dir.path().join("i16.glb"), dir.path().join("i8.glb"));
    let (tracks, _, _) = export(
        &wide,
        &GltfOptions {
            quantized: true,
            ..GltfOptions::default()
        },
    );
    let tolerance = 1e-3 * diagonal(&tracks);
    let (tracks, plan, report) = export(
        &narrow,
        &GltfOptions {
            quantized: true,
            tolerance: Some(tolerance),
            ..GltfOptions::default()
        },
    );
    assert!(report.quantization_error <= tolerance);
    let asset = Asset::open(&narrow);
    let bytes = asset
        .doc
        .accessors()
        .filter(|a| a.data_type() == gltf::accessor::DataType::I8)
        .count();
    let primitives: usize = asset.doc.meshes().map(|m| m.primitives().len()).sum();
    assert!(
        bytes > primitives,
        "{bytes} 8-bit accessors: no target in 8 bits"
    );
    let worst = worst(&asset, &tracks, &plan);
    assert!(worst <= 1e-3 + 1e-5, "{worst:e}");
    assert!(std::fs::metadata(&narrow).unwrap().len() < std::fs::metadata(&wide).unwrap().len());
}

#[test]
fn the_extras_give_back_p_u_and_q_in_16_bits() {
    let dir = out_dir();
    let out = dir.path().join("flags.glb");
    let options = GltfOptions {
        quantized: true,
        ..GltfOptions::default()
    };
    let (tracks, _, _) = export(&out, &options);
    let asset = Asset::open(&out);
    let (_, motion, _) = memg_of(&tracks, 0);
    let g = motion.groups.iter().find(|g| g.name == "flag2").unwrap();
    // The mesh on its own node under the group's, which places its integers.
    let group = under(&asset, "flags", "flag2");
    let node = under(&asset, "flags", "flag2 (16-bit)");
    assert_eq!(asset.parent(node), Some(group));
    assert!(mesh_children(&asset, "flags").contains(&node));
    let mesh = asset.node(node).mesh().unwrap();
    let extras: serde_json::Value =
        serde_json::from_str(mesh.extras().as_ref().unwrap().get()).unwrap();
    let lo: Vec<f64> = serde_json::from_value(extras["memg"]["lo"].clone()).unwrap();
    let scale: Vec<f64> = serde_json::from_value(extras["memg"]["scale"].clone()).unwrap();
    let r = g.basis_len;
    // q_j(t) = lo_j + scale_j · w_j(t), within a step of the 16-bit weight.
    for t in [0, 57, 239] {
        let w = asset.weights(node, (t as f64 / 30.0) as f32);
        for j in 0..r {
            let q = lo[j] + scale[j] * w[j];
            let step = scale[j] / 65535.0;
            assert!(
                (q - f64::from(g.coeffs[t * r + j])).abs() <= step + 1e-6,
                "q{j}({t}): {q} against {}",
                g.coeffs[t * r + j]
            );
        }
    }
    // U_j = target_j / scale_j and p = base − Σ lo_j U_j, base and targets
    // as the node places them: within half a 16-bit step of its scale.
    let (t0, _, s0) = asset.node(node).transform().decomposed();
    let unit = f64::from(s0[0]);
    let primitive = mesh.primitives().next().unwrap();
    let base = asset.vec3s(&primitive.get(&gltf::Semantic::Positions).unwrap());
    let targets: Vec<_> = primitive
        .morph_targets()
        .map(|t| asset.vec3s(&t.positions().unwrap()))
        .collect();
    let objs = &asset.obj_vertices(node)[0];
    let v3 = 3 * g.vertex_count();
    let half_step = unit / 32767.0;
    for (k, &o) in objs.iter().enumerate().step_by(37) {
        let i = g.mapping.iter().position(|&m| m as usize == o + 1).unwrap();
        for a in 0..3 {
            let mut p = f64::from(t0[a]) + unit * base[k][a];
            for j in 0..r {
                let u = unit * targets[j][k][a] / scale[j];
                let exact = f64::from(g.basis[j * v3 + 3 * i + a]);
                assert!(
                    (u - exact).abs() <= half_step / scale[j] + 1e-7,
                    "U{j}: {u} against {exact}"
                );
                p -= lo[j] * u;
            }
            let mean = f64::from(g.mean[3 * i + a]);
            let slack = half_step
                * (1.0
                    + lo.iter()
                        .zip(&scale)
                        .map(|(l, s)| (l / s).abs())
                        .sum::<f64>());
            assert!((p - mean).abs() <= slack + 1e-6, "p: {p} against {mean}");
        }
    }
}
