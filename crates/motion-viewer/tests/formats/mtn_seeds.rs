//! The two spec examples decode to the values in their hex dumps, and every
//! docs/formats.md §1 ruling that they show is pinned here.

use motion_viewer::formats::aibo::{Joint, Model};
use motion_viewer::formats::mtn::{self, Keyframe, Mtn, ServoGroup};

fn seed(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/data/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap()
}

/// Micro-radians to degrees, written out independently of the crate.
fn deg(urad: f64) -> f64 {
    urad * 180.0 / (1_000_000.0 * std::f64::consts::PI)
}

#[test]
fn sony_seed_matches_the_spec_example() {
    let m = mtn::decode(&seed("sony_stand_sit.mtn")).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(m.name, "a_stand#sit_S");
    assert_eq!(m.creator, "Sony Corporation");
    assert_eq!(m.design, "DRX-910");
    assert_eq!(m.model(), Some(Model::Ers210));
    assert_eq!(m.version, [1, 2]);
    assert_eq!(m.frame_rate, 16);
    assert_eq!(m.section_count, 4);
    assert_eq!(m.reserved, 0);
    assert_eq!(m.data_type, 0);
    // Sizes from the dump: 0x18, 0x30, 0x1F8, 0x248.
    assert_eq!(m.declared_sizes, [24, 48, 504, 584]);
    assert_eq!(m.keyframes.len(), 6);
    assert_eq!(m.joints.len(), 20);
    assert_eq!(m.joints[0], "PRM:/r1/c1-Joint2:j1");
    assert_eq!(m.joints[19], "PRM:/r6/c2-Joint2:j2");
    // Interp words at 0x2AC, 0x30C, 0x36C, 0x3CC, 0x42C: 0x3C, 0x32, 0x28, 0x32, 0x64.
    let interps: Vec<u32> = m.keyframes.iter().map(|k| k.interp).collect();
    assert_eq!(interps, [0, 60, 50, 40, 50, 100]);
    assert_eq!(m.keyframe_frames(), [0, 61, 112, 153, 204, 305]);
    assert_eq!(m.total_frames(), 305);
    assert_eq!(m.frame_ms(), 16);
    assert!((m.duration_s() - 4.880).abs() < 1e-12);
    // Keyframe 0 (0x250): roll 0, pitch 0x885A, yaw 0, then the joints.
    let k0 = &m.keyframes[0];
    assert_eq!((k0.roll, k0.pitch, k0.yaw), (0, 0x885A, 0));
    assert_eq!(k0.joints[3], 0xFFFF3378u32 as i32); // mouth at 0x268
    assert_eq!(k0.joints[6], 0xFFFD563Bu32 as i32); // r2 J1 at 0x274
    assert_eq!(k0.joints[8], 0x0007FD50); // r2 knee at 0x27C
    assert!((deg(f64::from(k0.joints[3])) + 3.0).abs() < 0.001);
    assert!((deg(f64::from(k0.joints[8])) - 30.0).abs() < 0.001);
    // Body pitch runs from 2 degrees (0x885A) to 32 degrees (0x0885AA at 0x434).
    assert!((deg(f64::from(k0.pitch)) - 2.0).abs() < 0.001);
    assert_eq!(m.keyframes[5].pitch, 0x0885AA);
    assert!((deg(f64::from(m.keyframes[5].pitch)) - 32.0).abs() < 0.001);
    // Keyframe 1 (0x2B0): pitch 0xFFFE66F0, head tilt 0xFFF73628.
    assert_eq!(m.keyframes[1].pitch, 0xFFFE66F0u32 as i32);
    assert_eq!(m.keyframes[1].joints[0], 0xFFF73628u32 as i32);
    // Last joint of the last keyframe, at 0x488: 0.
    assert_eq!(*m.keyframes[5].joints.last().unwrap(), 0);
}

#[test]
fn skitter_seed_matches_the_spec_example() {
    let m = mtn::decode(&seed("skitter_sleep_to_sit.mtn")).unwrap();
    assert!(m.warnings.is_empty());
    assert_eq!(m.name, "a_sleep#sit_Sleep_To_Sit");
    assert_eq!(m.creator, "Skitter");
    assert_eq!(m.model(), Some(Model::Ers210));
    assert_eq!(m.keyframes.len(), 2);
    assert_eq!(m.joints.len(), 20);
    // Interp 0x27 = 39: keyframe 1 is 40 frames of 16 ms later.
    assert_eq!(m.keyframes[1].interp, 39);
    assert_eq!(m.total_frames(), 40);
    assert!((m.duration_s() - 0.640).abs() < 1e-12);
    // Dogsbody's "three dummy words" are body roll, pitch, yaw: all 0 here.
    assert_eq!(m.keyframes[0].roll, 0);
    assert_eq!(m.keyframes[0].joints[0], 0xFFFD563Cu32 as i32); // 0x260
    assert_eq!(m.keyframes[1].joints[0], 0xFFF95794u32 as i32); // 0x2C0
}

#[test]
fn seeds_round_trip_byte_for_byte() {
    for name in ["sony_stand_sit.mtn", "skitter_sleep_to_sit.mtn"] {
        let bytes = seed(name);
        assert_eq!(mtn::encode(&mtn::decode(&bytes).unwrap()), bytes, "{name}");
    }
}

#[test]
fn ruling_padding_is_to_4_bytes_not_8() {
    // Skitter: 8 + (1+24) + (1+7) + (1+7) = 49 bytes of section 1, declared 0x34 = 52.
    let m = mtn::decode(&seed("skitter_sleep_to_sit.mtn")).unwrap();
    assert_eq!(m.declared_sizes[1], 52);
    assert_eq!(m.section1_padding, [0, 0, 0]);
    // Section 2: 10 + 20 names = 502 bytes, declared 0x1F8 = 504.
    assert_eq!(m.section2_padding, [0, 0]);
    let mut rebuilt = m.clone();
    rebuilt.section1_padding.clear();
    rebuilt.section2_padding.clear();
    rebuilt.pad_sections();
    assert_eq!(rebuilt, m);
}

#[test]
fn ruling_section3_is_data_type_then_keyframe_0_without_interp() {
    let bytes = seed("sony_stand_sit.mtn");
    // Section 3 header at 0x244, data type at 0x24C, roll/pitch/yaw at 0x250.
    assert_eq!(&bytes[0x244..0x248], &3u32.to_le_bytes());
    assert_eq!(&bytes[0x24C..0x250], &0u32.to_le_bytes());
    let m = mtn::decode(&bytes).unwrap();
    assert_eq!(m.keyframes[0].interp, 0);
    // 4 (data type) + 23 words for keyframe 0 + 5 × 24 words, + 8 header = 0x248.
    assert_eq!(8 + 4 + 23 * 4 + 5 * 24 * 4, 0x248);
}

#[test]
fn ruling_ers210_tail_is_pan_then_tilt() {
    let m = mtn::decode(&seed("sony_stand_sit.mtn")).unwrap();
    let roles = m.joint_roles();
    assert_eq!(roles[18], Some(Joint::TailPan)); // r6/c1
    assert_eq!(roles[19], Some(Joint::TailTilt)); // r6/c2
    assert_eq!(roles[0], Some(Joint::HeadTilt));
    assert_eq!(roles[3], Some(Joint::Mouth));
    assert_eq!(roles[4], Some(Joint::LeftEar));
}

#[test]
fn ruling_motion_names() {
    let m = mtn::decode(&seed("sony_stand_sit.mtn")).unwrap();
    let n = m.motion_name().unwrap();
    assert_eq!(n.group, ServoGroup::All);
    assert_eq!((n.start.as_str(), n.end.as_str()), ("stand", "sit"));
    assert_eq!(n.description, "S");
    let n = mtn::MotionName::parse("a_stand#walk_sox_sdk").unwrap();
    assert_eq!(n.description, "sox_sdk");
    let groups = [
        ("h_any#any_x", ServoGroup::Head),
        ("l_sit#sit_x", ServoGroup::Legs),
        ("m_a#b_x", ServoGroup::Mouth),
        ("e_a#b_x", ServoGroup::Ears),
        ("t_a#b_x", ServoGroup::Tail),
    ];
    for (name, g) in groups {
        assert_eq!(mtn::MotionName::parse(name).unwrap().group, g, "{name}");
    }
    let n = mtn::MotionName::parse("a_sit#stand").unwrap();
    assert_eq!((n.end.as_str(), n.description.as_str()), ("stand", ""));
    for odd in [
        "cd#1",
        "sitt001",
        "sit_lose01",
        "x_a#b_c",
        "a_#b",
        "sitb#sitb2.kfm",
    ] {
        assert_eq!(mtn::MotionName::parse(odd), None, "{odd}");
    }
}

#[test]
fn ruling_frame_rate_0_means_16_ms() {
    let mut m = mtn::decode(&seed("skitter_sleep_to_sit.mtn")).unwrap();
    m.frame_rate = 0;
    assert_eq!(m.frame_ms(), 16);
    assert!((m.duration_s() - 0.640).abs() < 1e-12);
    m.frame_rate = 32;
    assert!((m.duration_s() - 1.280).abs() < 1e-12);
}

#[test]
fn ruling_drx900_is_ers220_unless_it_drives_ers210_only_servos() {
    let mut m = mtn::decode(&seed("sony_stand_sit.mtn")).unwrap();
    m.design = "DRX-900".into();
    // Mouth, ears and tail exist only on the ERS-210.
    assert_eq!(m.model(), Some(Model::Ers210));
    m.joints.truncate(3);
    assert_eq!(m.model(), Some(Model::Ers220));
    m.design = "DRX-801".into();
    assert_eq!(m.model(), Some(Model::Ers310));
    m.design = "DRX-1000_Head".into();
    assert_eq!(m.model(), Some(Model::Ers7));
    m.design = "ABC".into();
    assert_eq!(m.model(), None);
    assert_eq!(m.joint_roles(), [None, None, None]);
}

#[test]
fn encoder_writes_motions_built_in_code() {
    let mut m = Mtn {
        version: [1, 2],
        section_count: 4,
        frame_rate: 16,
        name: "h_any#any_test".into(),
        creator: "me".into(),
        design: "DRX-1000_Head".into(),
        joints: vec!["PRM:/r1/c1-Joint2:11".into()],
        keyframes: vec![
            Keyframe {
                joints: vec![1],
                ..Keyframe::default()
            },
            Keyframe {
                interp: 9,
                pitch: -5,
                joints: vec![-2],
                ..Keyframe::default()
            },
        ],
        ..Mtn::default()
    };
    m.pad_sections();
    let bytes = mtn::encode(&m);
    // Sections 1 and 2 end on 4-byte boundaries from the start of each section.
    let mut back = mtn::decode(&bytes).unwrap();
    assert!(back.warnings.is_empty());
    assert_eq!(back.declared_sizes[1] % 4, 0);
    assert_eq!(back.declared_sizes[2] % 4, 0);
    back.declared_sizes = m.declared_sizes;
    assert_eq!(back, m);
    assert_eq!(back.total_frames(), 10);
}
