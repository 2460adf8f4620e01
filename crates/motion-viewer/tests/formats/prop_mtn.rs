//! Property round trips of `.mtn` motions (issue 15): random motions of
//! every AIBO model and partial-body scope, any joint set and keyframe
//! count, written here in the canonical layout of docs/formats.md §1 by a writer
//! independent of the library's, then decoded to exactly what was written,
//! encoded back to the same bytes, and decoded again to the same motion.

use motion_viewer::formats::mtn::{self, Mtn};
use proptest::prelude::*;

/// A motion as this test writes it: strings as the bytes stored.
#[derive(Debug, Clone)]
struct RawMtn {
    version: [u16; 2],
    frame_rate: u16,
    reserved: u32,
    name: Vec<u8>,
    creator: Vec<u8>,
    design: Vec<u8>,
    joints: Vec<Vec<u8>>,
    /// (interp, roll, pitch, yaw, joints); the first interp is not stored.
    keyframes: Vec<(u32, [i32; 3], Vec<i32>)>,
}

impl RawMtn {
    /// docs/formats.md §1: the design label's part before any `_` names the model;
    /// `DRX-700` is the ERS-110, whose section 3 size is a u16.
    fn ers110(&self) -> bool {
        self.design.split(|&b| b == b'_').next() == Some(b"DRX-700".as_slice())
    }

    /// The canonical bytes: sections 1 and 2 padded with zeros to a multiple
    /// of 4, except in ERS-110 version 1.0 files.
    fn bytes(&self) -> Vec<u8> {
        let padded = !(self.ers110() && self.version == [1, 0]);
        let pad = |section: &mut Vec<u8>| {
            while padded && !section.len().is_multiple_of(4) {
                section.push(0);
            }
        };
        let pascal = |out: &mut Vec<u8>, s: &[u8]| {
            out.push(s.len() as u8);
            out.extend_from_slice(s);
        };
        let mut out = b"OMTN".to_vec();
        for x in [0u32, 24, 4] {
            out.extend(x.to_le_bytes());
        }
        for x in [
            self.version[0],
            self.version[1],
            self.keyframes.len() as u16,
            self.frame_rate,
        ] {
            out.extend(x.to_le_bytes());
        }
        out.extend(self.reserved.to_le_bytes());

        let mut s1 = vec![1, 0, 0, 0, 0, 0, 0, 0];
        for s in [&self.name, &self.creator, &self.design] {
            pascal(&mut s1, s);
        }
        pad(&mut s1);
        let size = s1.len() as u32;
        s1[4..8].copy_from_slice(&size.to_le_bytes());
        out.extend(s1);

        let mut s2 = vec![2, 0, 0, 0, 0, 0, 0, 0];
        s2.extend((self.joints.len() as u16).to_le_bytes());
        for j in &self.joints {
            pascal(&mut s2, j);
        }
        pad(&mut s2);
        let size = s2.len() as u32;
        s2[4..8].copy_from_slice(&size.to_le_bytes());
        out.extend(s2);

        let mut data = 0u32.to_le_bytes().to_vec();
        for (i, (interp, rpy, joints)) in self.keyframes.iter().enumerate() {
            if i > 0 {
                data.extend(interp.to_le_bytes());
            }
            for x in rpy.iter().chain(joints) {
                data.extend(x.to_le_bytes());
            }
        }
        out.extend(3u32.to_le_bytes());
        if self.ers110() {
            out.extend(((6 + data.len()) as u16).to_le_bytes());
        } else {
            out.extend(((8 + data.len()) as u32).to_le_bytes());
        }
        out.extend(data);
        out
    }
}

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// Model labels with every partial-body suffix, and labels of no model.
fn design() -> impl Strategy<Value = Vec<u8>> {
    let known = (
        prop::sample::select(vec!["DRX-700", "DRX-910", "DRX-900", "DRX-801", "DRX-1000"]),
        prop::sample::select(vec!["", "_Head", "_Legs", "_Tail", "_Ear", "_Mouth"]),
    )
        .prop_map(|(base, suffix)| format!("{base}{suffix}").into_bytes());
    let unknown = prop::collection::vec(b'a'..=b'z', 0..12).prop_map(|mut b| {
        b.splice(0..0, *b"X-");
        b
    });
    prop_oneof![4 => known, 1 => unknown]
}

/// A Pascal string's bytes: any byte, up to `max` of them.
fn text(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=max)
}

fn raw_mtn() -> impl Strategy<Value = RawMtn> {
    let header = (
        prop::sample::select(vec![[1u16, 0], [1, 1], [1, 2]]),
        prop_oneof![Just(0u16), Just(16), any::<u16>()],
        any::<u32>(),
        text(255),
        text(40),
        design(),
    );
    let joints = prop::collection::vec(text(40), 0..=20);
    (header, joints)
        .prop_flat_map(|(header, joints)| {
            let count = joints.len();
            let keyframe = (
                any::<u32>(),
                any::<[i32; 3]>(),
                prop::collection::vec(any::<i32>(), count),
            );
            let keyframes = prop::collection::vec(keyframe, 1..=24);
            (Just(header), Just(joints), keyframes)
        })
        .prop_map(
            |((version, frame_rate, reserved, name, creator, design), joints, mut keyframes)| {
                keyframes[0].0 = 0;
                RawMtn {
                    version,
                    frame_rate,
                    reserved,
                    name,
                    creator,
                    design,
                    joints,
                    keyframes,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonical_mtn_decodes_to_what_was_written_and_encodes_back(raw in raw_mtn()) {
        let bytes = raw.bytes();
        let m = mtn::decode(&bytes).expect("a canonical file decodes");
        prop_assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        prop_assert_eq!(m.version, raw.version);
        prop_assert_eq!(m.frame_rate, raw.frame_rate);
        prop_assert_eq!(m.reserved, raw.reserved);
        prop_assert_eq!(&m.name, &latin1(&raw.name));
        prop_assert_eq!(&m.creator, &latin1(&raw.creator));
        prop_assert_eq!(&m.design, &latin1(&raw.design));
        let joints: Vec<String> = raw.joints.iter().map(|j| latin1(j)).collect();
        prop_assert_eq!(&m.joints, &joints);
        prop_assert_eq!(m.keyframes.len(), raw.keyframes.len());
        for (k, (interp, rpy, joints)) in m.keyframes.iter().zip(&raw.keyframes) {
            prop_assert_eq!(k.interp, *interp);
            prop_assert_eq!([k.roll, k.pitch, k.yaw], *rpy);
            prop_assert_eq!(&k.joints, joints);
        }
        prop_assert!(mtn::encode(&m) == bytes, "encode(decode(bytes)) != bytes");
        prop_assert_eq!(mtn::decode(&mtn::encode(&m)).unwrap(), m);
    }

    #[test]
    fn built_mtn_survives_encode_then_decode(raw in raw_mtn()) {
        // A motion built in code (the editor's case): padding as Sony writes it.
        let joints: Vec<String> = raw.joints.iter().map(|j| latin1(j)).collect();
        let mut m = Mtn {
            version: raw.version,
            section_count: 4,
            frame_rate: raw.frame_rate,
            reserved: raw.reserved,
            name: latin1(&raw.name),
            creator: latin1(&raw.creator),
            design: latin1(&raw.design),
            joints,
            keyframes: raw
                .keyframes
                .iter()
                .map(|(interp, [roll, pitch, yaw], joints)| mtn::Keyframe {
                    interp: *interp,
                    roll: *roll,
                    pitch: *pitch,
                    yaw: *yaw,
                    joints: joints.clone(),
                })
                .collect(),
            ..Mtn::default()
        };
        m.pad_sections();
        let bytes = mtn::encode(&m);
        prop_assert!(bytes == raw.bytes(), "the library writes another layout");
        let back = mtn::decode(&bytes).expect("an encoded motion decodes");
        // What decoding adds: the section sizes as declared.
        m.declared_sizes = back.declared_sizes;
        prop_assert_eq!(back, m);
    }
}
