//! The 27 real motions and the 588 motions of the four Sony ODA archives.
use crate::common;
use common::test_data;

use motion_viewer::formats::aibo::{BodyPart, Joint, Leg, LegJoint, Model};
use motion_viewer::formats::mtn::{self, Scope, read_oda};

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(test_data("mtn").join(rel)).unwrap()
}

/// SOURCES.txt rows: (local file, keyframes, joints, design, frame_ms).
fn sources() -> Vec<(String, usize, usize, String, u32)> {
    let text = std::fs::read_to_string(test_data("mtn/SOURCES.txt")).unwrap();
    let field = |notes: &str, key: &str| -> Option<String> {
        let at = notes.find(&format!("{key}="))? + key.len() + 1;
        Some(notes[at..].split([' ', ';']).next()?.to_string())
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let notes = cols[5];
            (
                cols[4].to_string(),
                field(notes, "keyframes").map_or(0, |v| v.parse().unwrap()),
                field(notes, "joints").map_or(0, |v| v.parse().unwrap()),
                field(notes, "design").unwrap_or_default(),
                field(notes, "frame_ms").map_or(16, |v| v.parse().unwrap()),
            )
        })
        .collect()
}

#[test]
fn all_27_files_decode_with_the_counts_of_sources_txt() {
    let rows = sources();
    assert_eq!(rows.len(), 27);
    for (file, keyframes, joints, design, frame_ms) in rows {
        let bytes = corpus(&file);
        let m = mtn::decode(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let warned = file.ends_with("sit_lose01.mtn") || file.ends_with("KnownGoodERS7.mtn");
        assert_eq!(!m.warnings.is_empty(), warned, "{file}: {:?}", m.warnings);
        if keyframes > 0 {
            // Rows with counts (the ODA extracts) name them.
            assert_eq!(m.keyframes.len(), keyframes, "{file}");
            assert_eq!(m.joints.len(), joints, "{file}");
            assert_eq!(m.design, design, "{file}");
            assert_eq!(u32::from(m.frame_rate), frame_ms, "{file}");
        }
        assert!(m.model().is_some(), "{file}");
        assert!(m.joint_roles().iter().all(Option::is_some), "{file}");
        if !warned {
            assert_eq!(mtn::encode(&m), bytes, "{file} round trip");
        }
    }
}

#[test]
fn sit_lose01_section3_size_lies_and_the_counts_win() {
    let m = mtn::decode(&corpus("cartheur-aibo__aibo-lab/sit_lose01.mtn")).unwrap();
    assert_eq!(m.declared_sizes[3], 392);
    assert_eq!((m.keyframes.len(), m.joints.len()), (4, 15));
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].contains("392") && m.warnings[0].contains("312"));
    // Re-encoding writes the true size, 8 + 4 + 4 × 19 × 4 − 4 = 312.
    let fixed = mtn::decode(&mtn::encode(&m)).unwrap();
    assert!(fixed.warnings.is_empty());
    assert_eq!(fixed.declared_sizes[3], 312);
    assert_eq!(fixed.keyframes, m.keyframes);
}

#[test]
fn known_good_ers7_section1_is_recovered_with_a_warning() {
    let bytes = corpus("Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn");
    let m = mtn::decode(&bytes).unwrap();
    assert_eq!(m.name, "a_sleep#sit_Sleep_To_Sit");
    assert_eq!(m.creator, "Skitter");
    assert_eq!(m.design, "DRX-1000");
    assert_eq!(m.model(), Some(Model::Ers7));
    assert_eq!((m.keyframes.len(), m.joints.len()), (2, 20));
    assert_eq!(m.declared_sizes[1], 44);
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].contains("44") && m.warnings[0].contains("52"));
    // The section-1 fix gives the bytes of a consistent file: section 2 at 0x50.
    let fixed = mtn::encode(&m);
    assert_eq!(&fixed[0x50..], &bytes[0x50..]);
    assert_eq!(fixed[0x24], 24);
    assert!(mtn::decode(&fixed).unwrap().warnings.is_empty());
}

#[test]
fn known_good_ers7_without_a_clear_section_2_is_an_error() {
    let mut bytes = corpus("Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn");
    // Break the section 2 number at 0x50: nothing unambiguous to recover to.
    bytes[0x50] = 7;
    let e = mtn::decode(&bytes).unwrap_err();
    assert_eq!(e.field, "creator");
    assert_eq!(e.offset, 0x35);
}

#[test]
fn ruling_ers110_unpadded_v1_0_u16_section3_and_16_ms() {
    let bytes = corpus("cartheur-aibo__r-code/cd#1.mtn");
    let m = mtn::decode(&bytes).unwrap();
    assert_eq!(m.version, [1, 0]);
    assert_eq!(m.model(), Some(Model::Ers110));
    // Section 1: 8 + (1+4) + (1+16) + (1+7) = 38 bytes, not padded.
    assert_eq!(m.declared_sizes[1], 38);
    assert!(m.section1_padding.is_empty() && m.section2_padding.is_empty());
    // Section 3 starts 446 bytes before the end: u32 3, then a u16 size of 446.
    let s3 = bytes.len() - 446;
    assert_eq!(&bytes[s3..s3 + 4], &3u32.to_le_bytes());
    assert_eq!(&bytes[s3 + 4..s3 + 6], &446u16.to_le_bytes());
    assert_eq!(&bytes[s3 + 6..s3 + 10], &0u32.to_le_bytes()); // data type
    assert_eq!(m.declared_sizes[3], 446);
    // 6 + 4 + 5 keyframes × 22 words − 4 = 446.
    assert_eq!(6 + 4 + 5 * 22 * 4 - 4, 446);
    assert_eq!(m.frame_rate, 0);
    assert_eq!(m.frame_ms(), 16);
    assert!((m.duration_s() - m.total_frames() as f64 * 0.016).abs() < 1e-12);
    let mut repadded = m.clone();
    repadded.pad_sections();
    assert_eq!(mtn::encode(&repadded), bytes);
    // A version 1.1 ERS-110 file is padded to 4.
    let m = mtn::decode(&corpus("cartheur-aibo__r-code/sitbl001.mtn")).unwrap();
    assert_eq!(m.version, [1, 1]);
    assert_eq!((m.declared_sizes[1], m.section1_padding.len()), (56, 3));
    assert_eq!((m.declared_sizes[2], m.section2_padding.len()), (288, 2));
}

#[test]
fn ruling_ers110_joints_by_position_with_r2_right_front() {
    use Joint::Leg as L;
    let expected = [
        Joint::HeadTilt,
        Joint::HeadPan,
        Joint::HeadRoll,
        Joint::Mouth,
        L(Leg::RightFront, LegJoint::Rotator),
        L(Leg::RightFront, LegJoint::Elevator),
        L(Leg::RightFront, LegJoint::Knee),
        L(Leg::LeftFront, LegJoint::Rotator),
        L(Leg::LeftFront, LegJoint::Elevator),
        L(Leg::LeftFront, LegJoint::Knee),
        L(Leg::RightHind, LegJoint::Rotator),
        L(Leg::RightHind, LegJoint::Elevator),
        L(Leg::RightHind, LegJoint::Knee),
        L(Leg::LeftHind, LegJoint::Rotator),
        L(Leg::LeftHind, LegJoint::Elevator),
        L(Leg::LeftHind, LegJoint::Knee),
        Joint::TailTilt,
        Joint::TailPan,
    ];
    // cd#14 and cd#319 carry garbled names at joints 14 and 17, dt#49 at 14.
    for file in [
        "cd#1",
        "cd#14",
        "cd#319",
        "dt#49",
        "rd#3625",
        "Kick_B_LR_setp",
    ] {
        let m = mtn::decode(&corpus(&format!("cartheur-aibo__r-code/{file}.mtn"))).unwrap();
        let roles: Vec<Joint> = m.joint_roles().into_iter().map(Option::unwrap).collect();
        assert_eq!(roles, expected, "{file}");
    }
    let m = mtn::decode(&corpus("cartheur-aibo__r-code/cd#14.mtn")).unwrap();
    assert_eq!(m.joints[14], "PRM:/r5/c0/c1/c2-Joint");
    assert_eq!(m.joints[17], "PRM:/r1/c0-Joint:j1");
    assert_eq!(m.joint_part(4), Some(BodyPart::RightFrontLeg));
    assert_eq!(m.joint_part(7), Some(BodyPart::LeftFrontLeg));
    assert_eq!(m.joint_part(10), Some(BodyPart::RightHindLeg));
    assert_eq!(m.joint_part(13), Some(BodyPart::LeftHindLeg));
    assert_eq!(m.joint_part(16), Some(BodyPart::Tail));
    // Partial ERS-110 motions map by position within their scope.
    let m = mtn::decode(&corpus("cartheur-aibo__r-code/sitt001.mtn")).unwrap();
    assert_eq!(m.scope(), Some(Scope::Tail));
    assert_eq!(
        m.joint_roles(),
        [Some(Joint::TailTilt), Some(Joint::TailPan)]
    );
    let m = mtn::decode(&corpus("cartheur-aibo__r-code/stdgl001.mtn")).unwrap();
    assert_eq!(
        m.joint_roles()[0],
        Some(L(Leg::RightFront, LegJoint::Rotator))
    );
    assert_eq!(m.joint_roles()[11], Some(L(Leg::LeftHind, LegJoint::Knee)));
}

#[test]
fn ruling_ers7_tail_is_tilt_then_pan_and_partial_bodies_have_a_model() {
    let m = mtn::decode(&corpus("cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn")).unwrap();
    assert_eq!(m.model(), Some(Model::Ers7));
    let roles = m.joint_roles();
    assert_eq!(roles[18], Some(Joint::TailTilt)); // r6/c1
    assert_eq!(roles[19], Some(Joint::TailPan)); // r6/c2
    assert_eq!(
        roles[6],
        Some(Joint::Leg(Leg::LeftFront, LegJoint::Rotator))
    ); // r2
    assert_eq!(roles[9], Some(Joint::Leg(Leg::LeftHind, LegJoint::Rotator))); // r3
    assert_eq!(
        roles[12],
        Some(Joint::Leg(Leg::RightFront, LegJoint::Rotator))
    ); // r4
    assert_eq!(
        roles[15],
        Some(Joint::Leg(Leg::RightHind, LegJoint::Rotator))
    ); // r5
    let legs = mtn::decode(&corpus(
        "cartheur-aibo__aibo-lab/l_sit#sit_soc_message1.mtn",
    ))
    .unwrap();
    assert_eq!(legs.design, "DRX-1000_Legs");
    assert_eq!(legs.model(), Some(Model::Ers7));
    assert_eq!(legs.scope(), Some(Scope::Legs));
    assert_eq!(legs.joint_part(0), Some(BodyPart::LeftFrontLeg));
    for (file, scope, part) in [
        ("h_any#any_soc_clock1", Scope::Head, BodyPart::Head),
        ("e_any#any_soc_clock1", Scope::Ears, BodyPart::Ears),
        ("m_any#any_soc_clock1", Scope::Mouth, BodyPart::Mouth),
        ("t_any#any_soc_clock1", Scope::Tail, BodyPart::Tail),
    ] {
        let m = mtn::decode(&corpus(&format!("cartheur-aibo__aibo-lab/{file}.mtn"))).unwrap();
        assert_eq!(m.model(), Some(Model::Ers7), "{file}");
        assert_eq!(m.scope(), Some(scope), "{file}");
        assert!(
            (0..m.joints.len()).all(|i| m.joint_part(i) == Some(part)),
            "{file}"
        );
    }
    // Sony's ERS-210 samples say DRX-900 with 15 joints: ERS-220 by our ruling.
    let m = mtn::decode(&corpus("cartheur-aibo__aibo-lab/a_sit#sleep_standard.mtn")).unwrap();
    assert_eq!((m.design.as_str(), m.joints.len()), ("DRX-900", 15));
    assert_eq!(m.model(), Some(Model::Ers220));
    // A non-zero body pitch: keyframe 0's pitch word lies 312 − 8 − 4 − 4 bytes
    // before the end (section 3 is the last 312 bytes; roll comes first).
    let bytes = corpus("cartheur-aibo__aibo-lab/a_sit#sleep_standard.mtn");
    let at = bytes.len() - 312 + 16;
    let pitch = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(m.keyframes[0].pitch, pitch);
    assert!(pitch > 400_000, "{pitch}");
}

#[test]
fn every_oda_entry_parses_to_its_end_and_round_trips() {
    let mut total = 0;
    for (archive, count, model) in [
        ("ers110_Motion.ODA", 94, Model::Ers110),
        ("ers110_SYSMTN.ODA", 457, Model::Ers110),
        ("ers210_MOTION.ODA", 25, Model::Ers220),
        ("ers7_MOTION7.ODA", 12, Model::Ers7),
    ] {
        let bytes = std::fs::read(test_data("oda").join(archive)).unwrap();
        let entries = read_oda(&bytes).unwrap();
        assert_eq!(entries.len(), count, "{archive}");
        for e in &entries {
            assert_eq!(&e.kind, b"OMTN");
            let file = &bytes[e.data.clone()];
            let m = mtn::decode(file).unwrap_or_else(|err| panic!("{archive}/{}: {err}", e.name));
            assert_eq!(m.model(), Some(model), "{}", e.name);
            if e.name == "sit_lose01" {
                assert_eq!(m.warnings.len(), 1);
                continue;
            }
            assert!(m.warnings.is_empty(), "{}: {:?}", e.name, m.warnings);
            assert_eq!(mtn::encode(&m), file, "{archive}/{} round trip", e.name);
        }
        total += entries.len();
    }
    assert_eq!(total, 588);
}

#[test]
fn oda_reader_rejects_bad_archives() {
    let bytes = std::fs::read(test_data("oda/ers7_MOTION7.ODA")).unwrap();
    let entries = read_oda(&bytes).unwrap();
    // Entry names and the first offset from the header: 64 + 12 × 144 = 1792.
    assert_eq!(entries[0].data.start, 1792);
    assert!(entries.iter().any(|e| e.name == "a_sit#sit_so0_greet"));
    assert_eq!(read_oda(b"OMTN").unwrap_err().field, "ODA magic");
    let e = read_oda(&bytes[..1000]).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("ODA file count", 8));
    let mut huge = bytes[..64].to_vec();
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(read_oda(&huge).unwrap_err().field, "ODA file count");
    let e = read_oda(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(e.field.contains("offset and size"), "{e}");
    for len in 0..2000 {
        let _ = read_oda(&bytes[..len]);
    }
}
