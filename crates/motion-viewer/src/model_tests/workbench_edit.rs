//! Mirror, reverse, retime, concat and convert on the real AIBO corpus.
use crate::common;
use common::{data, test_data};

use crate::common::workbench as workbench_common;

use motion_viewer::anim::aibo::pose_from_mtn;
use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::aibo::{Joint, Leg, LegJoint, Model};
use motion_viewer::formats::mtn::{self, Mtn};
use motion_viewer::workbench::{self, EditError, Retime};
use workbench_common::{deg, motions};

fn load(path: &std::path::Path) -> Mtn {
    mtn::decode(&std::fs::read(path).unwrap()).unwrap()
}

fn archive_entry(archive: &str, name: &str) -> Mtn {
    let bytes = std::fs::read(test_data("oda").join(archive)).unwrap();
    let e = mtn::read_oda(&bytes)
        .unwrap()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap();
    mtn::decode(&bytes[e.data]).unwrap()
}

/// Times to sample: every keyframe, and points between them.
fn sample_times(m: &Mtn) -> Vec<f64> {
    let end = m.duration_s();
    let mut times = m.keyframe_times_s();
    times.extend((0..=40).map(|i| end * f64::from(i) / 40.0));
    times
}

fn assert_poses_match(a: &Mtn, ta: f64, b: &Mtn, tb: f64, tolerance_deg: f64, label: &str) {
    let (pa, pb) = (pose_at(a, ta), pose_at(b, tb));
    for (x, y) in pa.body_deg.iter().zip(&pb.body_deg) {
        assert!(
            (x - y).abs() <= tolerance_deg,
            "{label} body at {ta}/{tb}: {x} vs {y}"
        );
    }
    assert_eq!(pa.joints_deg.len(), pb.joints_deg.len(), "{label}");
    for (j, (x, y)) in pa.joints_deg.iter().zip(&pb.joints_deg).enumerate() {
        assert!(
            (x - y).abs() <= tolerance_deg,
            "{label} joint {j} at {ta}/{tb}: {x} vs {y}"
        );
    }
}

#[test]
fn mirror_twice_gives_back_the_original_bytes_of_every_real_motion() {
    let all = motions();
    assert_eq!(all.len(), 588 + 29);
    for (label, bytes, m) in &all {
        let once = workbench::mirror(m).unwrap_or_else(|e| panic!("{label}: {e}"));
        let twice = workbench::mirror(&once.motion).unwrap();
        // Files the decoder had to repair come back as the encoder writes them.
        let original = if m.warnings.is_empty() {
            bytes.clone()
        } else {
            mtn::encode(m)
        };
        assert_eq!(mtn::encode(&twice.motion), original, "{label}");
        assert_eq!(once.motion.name, m.name, "{label}");
    }
}

/// Reflection in the body's x-z plane: y → −y.
fn reflect(p: [f64; 3]) -> [f64; 3] {
    [p[0], -p[1], p[2]]
}

/// The rig point that mirrors `name`: left ↔ right, the midline to itself.
fn mirror_point(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("left_") {
        format!("right_{rest}")
    } else if let Some(rest) = name.strip_prefix("right_") {
        format!("left_{rest}")
    } else {
        name.to_string()
    }
}

#[test]
fn the_mirrored_robot_is_the_reflection_of_the_original_in_forward_kinematics() {
    // The rig (anim::aibo) is independent of the mirror table: every point of
    // the mirrored motion must be the original's mirror point reflected, in the
    // body frame and in the world (body roll and yaw negated), and the head's
    // axes S·R·S — which fails if a roll is not negated or a nod is.
    let s = glam::DMat3::from_diagonal(glam::DVec3::new(1.0, -1.0, 1.0));
    for (label, _, m) in motions() {
        let mirrored = workbench::mirror(&m).unwrap().motion;
        for t in sample_times(&m).into_iter().step_by(3) {
            let (_, a) = pose_from_mtn(&m, t);
            let (_, b) = pose_from_mtn(&mirrored, t);
            for (points_a, points_b) in [(&a.body, &b.body), (&a.world, &b.world)] {
                for (name, p) in points_b {
                    let twin = mirror_point(name);
                    let q = points_a.iter().find(|(n, _)| *n == twin).unwrap().1;
                    let want = reflect(q);
                    for i in 0..3 {
                        assert!(
                            (p[i] - want[i]).abs() < 1e-6,
                            "{label} {name} at {t}: {p:?} vs {want:?}"
                        );
                    }
                }
            }
            let ra = glam::DMat3::from_cols_array_2d(&a.head_rotation);
            let rb = glam::DMat3::from_cols_array_2d(&b.head_rotation);
            let want = s * ra * s;
            assert!(rb.abs_diff_eq(want, 1e-9), "{label} head axes at {t}");
        }
    }
}

#[test]
fn mirror_swaps_the_legs_of_the_sony_seed_and_negates_pan_and_tail_pan() {
    let m = load(&data("sony_stand_sit.mtn"));
    let out = workbench::mirror(&m).unwrap().motion;
    let idx = |name: &str| m.joints.iter().position(|j| j == name).unwrap();
    let (lf1, rf1) = (idx("PRM:/r2/c1-Joint2:j1"), idx("PRM:/r4/c1-Joint2:j1"));
    let (pan, tail_pan) = (idx("PRM:/r1/c1/c2-Joint2:j2"), idx("PRM:/r6/c1-Joint2:j1"));
    for (a, b) in m.keyframes.iter().zip(&out.keyframes) {
        assert_eq!(b.joints[lf1], a.joints[rf1]);
        assert_eq!(b.joints[rf1], a.joints[lf1]);
        assert_eq!(b.joints[pan], -a.joints[pan]);
        assert_eq!(b.joints[tail_pan], -a.joints[tail_pan]);
        assert_eq!((b.roll, b.pitch, b.yaw), (-a.roll, a.pitch, -a.yaw));
    }
    // Keyframe 5 of the seed: right front J1 is −0.6° (0xFFFFD719 at byte 0x46C).
    assert_eq!(m.keyframes[5].joints[rf1], -10471);
    assert_eq!(out.keyframes[5].joints[lf1], -10471);
}

#[test]
fn reverse_at_t_is_the_original_at_the_end_minus_t() {
    for (label, _, m) in motions() {
        let r = workbench::reverse(&m).unwrap().motion;
        let end = m.duration_s();
        assert_eq!(r.duration_s(), end, "{label}");
        for t in sample_times(&m) {
            assert_poses_match(&r, t, &m, end - t, 1e-6, &label);
        }
        if let Some(n) = m.motion_name() {
            let rn = r.motion_name().unwrap();
            assert_eq!((rn.start, rn.end), (n.end, n.start), "{label}");
        }
    }
    let r = workbench::reverse(&load(&data("sony_stand_sit.mtn"))).unwrap();
    assert_eq!(r.motion.name, "a_sit#stand_S");
}

#[test]
fn retime_speed_2_at_t_is_the_original_at_2t() {
    let mut exact = 0;
    for (label, _, m) in motions() {
        let r = workbench::retime(&m, Retime::Speed(2.0)).unwrap();
        let frames = m.keyframe_frames();
        let new_frames = r.motion.keyframe_frames();
        // Every keyframe keeps its angles and lands on the whole frame nearest
        // half its old one, unless it had to be pushed off the one before.
        for (k, (a, b)) in m.keyframes.iter().zip(&r.motion.keyframes).enumerate() {
            assert_eq!(
                (a.roll, a.pitch, a.yaw, &a.joints),
                (b.roll, b.pitch, b.yaw, &b.joints)
            );
            let half = (frames[k] as f64 / 2.0).round() as u64;
            assert!(
                new_frames[k] == half || !r.warnings.is_empty(),
                "{label} keyframe {k}"
            );
        }
        if frames.iter().all(|f| f % 2 == 0) {
            // Whole frames at half speed: the motion is exactly the original at 2t.
            exact += 1;
            assert!(r.warnings.is_empty(), "{label}");
            for t in sample_times(&r.motion) {
                assert_poses_match(&r.motion, t, &m, 2.0 * t, 1e-9, &label);
            }
        }
    }
    assert!(
        exact >= 20,
        "only {exact} motions with keyframes on even frames"
    );
}

#[test]
fn retime_frame_ms_keeps_the_duration_and_rejects_nonsense() {
    let m = load(&data("sony_stand_sit.mtn"));
    let r = workbench::retime(&m, Retime::FrameMs(8)).unwrap().motion;
    assert_eq!((r.frame_rate, r.total_frames()), (8, 610));
    assert_eq!(r.duration_s(), m.duration_s());
    let r = workbench::retime(&m, Retime::FrameMs(32)).unwrap().motion;
    // Frames 0, 61, 112, 153, 204, 305 at 16 ms → 0, 30.5→31 (round half away), 56, 76.5→77, 102, 152.5→153.
    assert_eq!(r.keyframe_frames(), [0, 31, 56, 77, 102, 153]);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            workbench::retime(&m, Retime::Speed(bad)),
            Err(EditError::Timing(_))
        ));
    }
    assert!(workbench::retime(&m, Retime::FrameMs(0)).is_err());
    // A speed so slow no segment fits its 32-bit frame count.
    assert!(matches!(
        workbench::retime(&m, Retime::Speed(1e-9)),
        Err(EditError::Timing(_))
    ));
}

#[test]
fn concat_lasts_the_sum_and_renames_the_postures() {
    let a = archive_entry("ers210_MOTION.ODA", "a_stand#sit_standard");
    let b = archive_entry("ers210_MOTION.ODA", "a_sit#stand_standard");
    let c = archive_entry("ers210_MOTION.ODA", "a_stand#sleep_standard");
    let joined = workbench::concat(&[a.clone(), b.clone(), c.clone()]).unwrap();
    let m = &joined.motion;
    assert_eq!(
        m.total_frames(),
        a.total_frames() + b.total_frames() + c.total_frames()
    );
    assert!((m.duration_s() - (a.duration_s() + b.duration_s() + c.duration_s())).abs() < 1e-12);
    assert_eq!(m.name, "a_stand#sleep_standard");
    assert_eq!(
        m.keyframes.len(),
        a.keyframes.len() + b.keyframes.len() + c.keyframes.len() - 2
    );
    assert!(joined.warnings.is_empty(), "{:?}", joined.warnings);
    // Each part plays as itself, one after the other; only the second's first
    // segment starts from where the first ended, which Sony's files put 1 µrad
    // away from the second's own start.
    let (end, start) = (a.keyframes.last().unwrap(), &b.keyframes[0]);
    let gap = end
        .joints
        .iter()
        .zip(&start.joints)
        .map(|(x, y)| deg(f64::from(x - y).abs()))
        .fold(0.0, f64::max);
    assert!(gap < 1e-4, "{gap}");
    for t in sample_times(&b) {
        assert_poses_match(m, a.duration_s() + t, &b, t, gap + 1e-9, "second part");
    }
    // The seed twice: it ends sitting and starts standing, so both warnings.
    let s = load(&data("sony_stand_sit.mtn"));
    let twice = workbench::concat(&[s.clone(), s.clone()]).unwrap();
    assert!((twice.motion.duration_s() - 2.0 * s.duration_s()).abs() < 1e-12);
    assert_eq!(twice.motion.name, "a_stand#sit_S");
    assert_eq!(twice.warnings.len(), 2, "{:?}", twice.warnings);
    assert!(
        twice.warnings[0].contains("ends in \"sit\""),
        "{}",
        twice.warnings[0]
    );
    // Other joints or another model: refused.
    let ers7 = archive_entry("ers7_MOTION7.ODA", "a_stand#sit_standard");
    assert!(matches!(
        workbench::concat(&[s, ers7]),
        Err(EditError::Mismatch(_))
    ));
}

#[test]
fn convert_maps_joints_by_role_and_says_what_it_drops() {
    let seed210 = load(&data("sony_stand_sit.mtn"));
    let to7 = workbench::convert(&seed210, Model::Ers7).unwrap();
    let m7 = &to7.motion;
    assert_eq!(
        (m7.design.as_str(), m7.model()),
        ("DRX-1000", Some(Model::Ers7))
    );
    assert_eq!(m7.joints.len(), 20);
    let value = |m: &Mtn, name: &str, k: usize| {
        m.keyframes[k].joints[m.joints.iter().position(|j| j == name).unwrap()]
    };
    for k in 0..seed210.keyframes.len() {
        // Left hind knee: r3 on both, named j3 on the ERS-210 and 33 on the ERS-7.
        assert_eq!(
            value(m7, "PRM:/r3/c1/c2/c3-Joint2:33", k),
            value(&seed210, "PRM:/r3/c1/c2/c3-Joint2:j3", k)
        );
        // Tail pan: r6/c1 on the ERS-210, r6/c2 on the ERS-7.
        assert_eq!(
            value(m7, "PRM:/r6/c2-Joint2:62", k),
            value(&seed210, "PRM:/r6/c1-Joint2:j1", k)
        );
        assert_eq!(
            value(m7, "PRM:/r6/c1-Joint2:61", k),
            value(&seed210, "PRM:/r6/c2-Joint2:j2", k)
        );
        // The ERS-7 nod is not the ERS-210 roll: held at the neutral 0.
        assert_eq!(value(m7, "PRM:/r1/c1/c2/c3-Joint2:13", k), 0);
        assert_eq!(m7.keyframes[k].pitch, seed210.keyframes[k].pitch);
    }
    assert!(
        to7.warnings
            .iter()
            .any(|w| w.contains("dropped ERS-210 head_roll (its roll)")),
        "{:?}",
        to7.warnings
    );
    assert!(
        to7.warnings
            .iter()
            .any(|w| w.contains("no ERS-7 head_roll (its nod)")),
        "{:?}",
        to7.warnings
    );

    // ERS-7 → ERS-220: mouth, ears, tail and nod are dropped; 15 joints remain.
    let greet = archive_entry("ers7_MOTION7.ODA", "a_sit#sit_so0_greet");
    let to220 = workbench::convert(&greet, Model::Ers220).unwrap();
    assert_eq!(to220.motion.model(), Some(Model::Ers220));
    assert_eq!(to220.motion.joints.len(), 15);
    assert_eq!(
        to220
            .warnings
            .iter()
            .filter(|w| w.starts_with("dropped"))
            .count(),
        6
    );

    // ERS-110 → ERS-210: its r2 is the right front leg, the ERS-210's r4.
    let cd1 = load(&test_data("mtn/cartheur-aibo__r-code/cd#1.mtn"));
    let to210 = workbench::convert(&cd1, Model::Ers210).unwrap().motion;
    assert_eq!((to210.frame_rate, to210.version), (16, [1, 2]));
    let roles = to210.joint_roles();
    let rf1 = roles
        .iter()
        .position(|r| *r == Some(Joint::Leg(Leg::RightFront, LegJoint::Rotator)))
        .unwrap();
    assert_eq!(to210.joints[rf1], "PRM:/r4/c1-Joint2:j1");
    for (a, b) in cd1.keyframes.iter().zip(&to210.keyframes) {
        assert_eq!(b.joints[rf1], a.joints[4]);
    }
    // A tail-only motion has nothing an ERS-220 can play.
    let tail = archive_entry("ers110_SYSMTN.ODA", "sitt001");
    assert!(matches!(
        workbench::convert(&tail, Model::Ers220),
        Err(EditError::Mismatch(_))
    ));
}

#[test]
fn every_edit_of_every_real_motion_reads_back_as_written() {
    for (label, _, m) in motions() {
        let edits = [
            workbench::mirror(&m),
            workbench::reverse(&m),
            workbench::retime(&m, Retime::Speed(0.5)),
            workbench::concat(&[m.clone(), m.clone()]),
        ];
        for edit in edits {
            let made = edit.unwrap_or_else(|e| panic!("{label}: {e}")).motion;
            let bytes = mtn::encode(&made);
            let back = mtn::decode(&bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(back.warnings.is_empty(), "{label}: {:?}", back.warnings);
            assert_eq!(back, made, "{label}");
        }
        for model in Model::ALL {
            if let Ok(made) = workbench::convert(&m, model) {
                let back = mtn::decode(&mtn::encode(&made.motion)).unwrap();
                assert_eq!(back.model(), Some(model), "{label} → {model}");
            }
        }
    }
    // The deg helper agrees with the library's constant.
    assert!((deg(1e6) - 1e6 * mtn::URAD_TO_DEG).abs() < 1e-12);
}
