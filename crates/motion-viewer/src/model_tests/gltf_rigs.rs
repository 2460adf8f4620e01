//! glTF export of the AIBO rig and the MRTK recording read back with the
//! `gltf` crate and evaluated as the glTF spec says (tests/gltf_common):
//! the rig's named points and the curves' joints against the CPU
//! reference; and a scene of all three kinds placed as the viewer places
//! them. The MEMG exports are `gltf_spec.rs`'s.

use crate::common::data;
use crate::common::gltf::{Asset, aibo_world, out_dir, unity_world};

use glam::Vec3;
use motion_viewer::anim::aibo::pose_from_mtn;
use motion_viewer::anim::input_animation::{JOINT_NAMES, state_at};
use motion_viewer::scene::rig::ground_lift;
use motion_viewer::scene::{Plan, Track};

use super::gltf_spec::{MEMG_TOLERANCE, export, flags, memg_error, root_name, under};

/// AIBO points: 0.01 mm.
const AIBO_TOLERANCE_M: f64 = 1e-5;
/// MRTK joints: 1e-5 m.
const MRTK_TOLERANCE_M: f64 = 1e-5;

/// World position of the node carrying AIBO point `name` under `root`.
fn point_node(asset: &Asset, root: &str, name: &str) -> usize {
    let found: Vec<usize> = (0..asset.doc.nodes().len())
        .filter(|&i| asset.extras(i)["point"] == name)
        .filter(|&i| root_name(asset, i) == Some(root))
        .collect();
    assert_eq!(found.len(), 1, "{name}");
    found[0]
}

/// Largest distance (m) between the file's AIBO points and the rig's at
/// the motion's frame ticks `ticks`.
fn aibo_error(asset: &Asset, tracks: &[Track], plan: &Plan, index: usize, ticks: &[u64]) -> f64 {
    let Track::Mtn { motion, .. } = &tracks[index] else {
        panic!()
    };
    let root = &plan.placements[index].name;
    let offset = plan.placements[index].offset;
    let mut worst = 0f64;
    for &f in ticks {
        let t = motion.frame_s(f);
        let (model, pose) = pose_from_mtn(motion, t);
        let origin = offset + Vec3::Y * ground_lift(model, &pose);
        for &(name, p) in &pose.world {
            let expected = (origin + aibo_world(p)).as_dvec3();
            let node = point_node(asset, root, name);
            let found = asset.world(node, t as f32).w_axis.truncate();
            worst = worst.max(found.distance(expected));
        }
    }
    worst
}

#[test]
fn aibo_points_match_the_rig() {
    let dir = out_dir();
    for file in ["sony_stand_sit.mtn", "skitter_sleep_to_sit.mtn"] {
        let out = dir.path().join("dog.glb");
        let (tracks, plan, _) = export(&[data(file)], &out, false);
        let asset = Asset::open(&out);
        let Track::Mtn { motion, .. } = &tracks[0] else {
            panic!()
        };
        let total = motion.total_frames();
        let ticks: Vec<u64> = (0..=total).collect();
        let worst = aibo_error(&asset, &tracks, &plan, 0, &ticks);
        eprintln!(
            "{file}: worst point {:.2e} mm over {} frame ticks",
            worst * 1000.0,
            ticks.len()
        );
        assert!(worst < AIBO_TOLERANCE_M, "{file}: {worst:e} m");

        // Between ticks, servo rotations slerp about their fixed axes, which is
        // the motion's linear angle: points in the body's frame still match.
        let body = under(&asset, &plan.placements[0].name, "body");
        for f in (0..total).step_by(3) {
            let t = motion.frame_s(f) + 0.37 * motion.frame_s(1);
            let (_, pose) = pose_from_mtn(motion, t);
            let to_body = asset.world(body, t as f32).inverse();
            for &(name, p) in &pose.body {
                let node = point_node(&asset, &plan.placements[0].name, name);
                let found = to_body.transform_point3(asset.world(node, t as f32).w_axis.truncate());
                let e = found.distance(aibo_world(p).as_dvec3());
                assert!(e < AIBO_TOLERANCE_M, "{file} {name} at {t}: {e:e} m");
            }
        }
    }
}

#[test]
fn aibo_joint_nodes_carry_prm_names() {
    let dir = out_dir();
    let out = dir.path().join("dog.glb");
    let (tracks, _, _) = export(&[data("sony_stand_sit.mtn")], &out, false);
    let asset = Asset::open(&out);
    let Track::Mtn { motion, .. } = &tracks[0] else {
        panic!()
    };
    for (name, role) in motion.joints.iter().zip(motion.joint_roles()) {
        let drawn = role.is_some_and(|r| {
            !matches!(
                r,
                motion_viewer::formats::aibo::Joint::Mouth
                    | motion_viewer::formats::aibo::Joint::LeftEar
                    | motion_viewer::formats::aibo::Joint::RightEar
            )
        });
        if drawn {
            assert_eq!(asset.named(name).len(), 1, "{name}");
        }
    }
}

/// Largest distance (m) between the file's MRTK joints and the curves at
/// every 60 Hz sample; untracked hands must be scaled to nothing.
fn mrtk_error(asset: &Asset, tracks: &[Track], plan: &Plan, index: usize) -> f64 {
    let Track::InputAnimation { recording, .. } = &tracks[index] else {
        panic!()
    };
    let root = &plan.placements[index].name;
    let offset = plan.placements[index].offset.as_dvec3();
    let duration = tracks[index].duration_s();
    let mut worst = 0f64;
    let mut untracked = 0;
    for i in 0..=(duration * 60.0).floor() as usize {
        let t = i as f64 / 60.0;
        let state = state_at(recording, t);
        let hands = state.hands.unwrap();
        for (side, hand) in [("Left", hands.left), ("Right", hands.right)] {
            let hand_node = under(asset, root, &format!("{side} hand"));
            if !hand.tracked {
                untracked += 1;
                assert_eq!(
                    asset.world(hand_node, t as f32).x_axis.length(),
                    0.0,
                    "{side} at {t}"
                );
                continue;
            }
            for (j, joint) in JOINT_NAMES.iter().enumerate() {
                let node = under(asset, root, &format!("{side}_{joint}"));
                let found = asset.world(node, t as f32).w_axis.truncate();
                let expected = unity_world(hand.joints[j].position).as_dvec3() + offset;
                worst = worst.max(found.distance(expected));
            }
        }
        let camera = under(asset, root, "camera");
        let found = asset.world(camera, t as f32).w_axis.truncate();
        let expected = unity_world(state.camera.unwrap().position).as_dvec3() + offset;
        worst = worst.max(found.distance(expected));
    }
    assert!(
        untracked > 0,
        "the sample's left hand is untracked 1.2–1.8 s"
    );
    worst
}

#[test]
fn mrtk_joints_match_the_curves() {
    let dir = out_dir();
    let out = dir.path().join("hands.glb");
    let (tracks, plan, _) = export(&[data("hands.mrtk")], &out, false);
    let asset = Asset::open(&out);
    let worst = mrtk_error(&asset, &tracks, &plan, 0);
    eprintln!("hands.mrtk: worst joint {worst:.2e} m");
    assert!(worst < MRTK_TOLERANCE_M, "{worst:e} m");
    let root = asset.extras(asset.named("hands")[0]);
    let markers: Vec<&str> = root["markers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(markers, ["wave", "pinch"]);
    // The right hand pinches 2.6–3.1 s.
    let pinch = &root["pinching"]["right"][0];
    assert!(
        (pinch[0].as_f64().unwrap() - 2.6).abs() < 0.02
            && (pinch[1].as_f64().unwrap() - 3.1).abs() < 0.02,
        "{pinch}"
    );
}

#[test]
fn mixed_scene_places_tracks_as_the_viewer_does() {
    let dir = out_dir();
    let out = dir.path().join("all.glb");
    let files = [
        flags(),
        vec![data("sony_stand_sit.mtn"), data("hands.mrtk")],
    ]
    .concat();
    let (tracks, plan, _) = export(&files, &out, false);
    let asset = Asset::open(&out);
    for p in &plan.placements {
        let root = asset.named(&p.name)[0];
        assert_eq!(
            asset.node(root).transform().decomposed().0,
            p.offset.to_array()
        );
        assert!(asset.parent(root).is_none());
    }
    for step in [0, 150] {
        assert!(memg_error(&asset, &tracks, &plan, 0, step as f64, None) < MEMG_TOLERANCE);
    }
    assert!(aibo_error(&asset, &tracks, &plan, 1, &[0, 10, 40]) < AIBO_TOLERANCE_M);
    assert!(mrtk_error(&asset, &tracks, &plan, 2) < MRTK_TOLERANCE_M);
    // One animation holds every channel; the scene runs as long as the longest track.
    assert_eq!(asset.doc.animations().count(), 1);
    let last = *asset.key_times().last().unwrap();
    assert!(
        (f64::from(last) - plan.duration_s).abs() < 1e-6,
        "{last} vs {}",
        plan.duration_s
    );
}
