//! Bad input never panics, never hangs, and never allocates by an unchecked count.

use motion_viewer::formats::mtn;
use std::path::PathBuf;

/// Every `.mtn` the tests carry: the two seeds and the 27 corpus files.
fn all_files() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut out = Vec::new();
    let mut dirs = vec![root.join("data"), root.join("tests/data/mtn")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "mtn") {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    assert_eq!(out.len(), 29);
    out
}

/// A decode that succeeds must re-encode; a clean one to the very same bytes.
fn check(name: &str, bytes: &[u8]) {
    match mtn::decode(bytes) {
        Ok(m) => {
            let again = mtn::encode(&m);
            if m.warnings.is_empty() {
                assert_eq!(again, bytes, "{name}: clean decode must round trip");
            }
        }
        Err(e) => {
            assert!(e.offset as usize <= bytes.len(), "{name}: {e}");
            assert!(!e.field.is_empty() && !e.expected.is_empty());
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (name, bytes) in all_files() {
        for len in 0..bytes.len() {
            let e = mtn::decode(&bytes[..len]);
            assert!(e.is_err(), "{name} cut to {len} bytes decoded");
            let e = e.unwrap_err();
            assert!(e.offset as usize <= len, "{name} cut to {len}: {e}");
        }
    }
}

#[test]
fn byte_flips_error_or_decode_consistently() {
    for (name, bytes) in all_files() {
        // Every header byte and joint name byte, then a stride through the
        // keyframes (where a flip only changes an angle).
        let header_end = bytes.len().min(0x260);
        let positions = (0..header_end).chain((header_end..bytes.len()).step_by(37));
        let mut flipped = bytes.clone();
        for i in positions {
            for x in [0x01, 0x80, 0xFF] {
                flipped[i] ^= x;
                check(&name, &flipped);
                flipped[i] ^= x;
            }
        }
    }
}

#[test]
fn huge_counts_error_before_allocating() {
    let seed = std::fs::read(format!(
        "{}/data/sony_stand_sit.mtn",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap();
    // Keyframe count (u16 at byte 20) = 65535.
    let mut bytes = seed.clone();
    bytes[20..22].copy_from_slice(&u16::MAX.to_le_bytes());
    let e = mtn::decode(&bytes).unwrap_err();
    assert_eq!(e.field, "section 3 keyframes");
    assert_eq!(e.offset, 0x250);
    assert!(e.expected.contains("65535 keyframes"), "{e}");
    // Keyframe count 0: nothing to play.
    bytes[20..22].copy_from_slice(&0u16.to_le_bytes());
    assert_eq!(mtn::decode(&bytes).unwrap_err().field, "keyframe count");
    // Joint count (u16 at 0x54) = 65535: more names than bytes.
    let mut bytes = seed.clone();
    bytes[0x54..0x56].copy_from_slice(&u16::MAX.to_le_bytes());
    let e = mtn::decode(&bytes).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("joint count", 0x54));
    // Section sizes past the end of the file.
    let mut bytes = seed.clone();
    bytes[0x50..0x54].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = mtn::decode(&bytes).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("section 2 size", 0x50));
}

#[test]
fn ruling_sections_must_run_0_1_2_3() {
    let seed = std::fs::read(format!(
        "{}/data/sony_stand_sit.mtn",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap();
    for (at, field) in [
        (4, "section 0 number"),
        (0x1C, "section 1 number"),
        (0x4C, "section 2 number"),
        (0x244, "section 3 number"),
    ] {
        let mut bytes = seed.clone();
        bytes[at] = 9;
        let e = mtn::decode(&bytes).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), (field, at as u64));
        assert_eq!(e.found, "9");
    }
    let e = mtn::decode(b"MTNO").unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("magic", 0));
}

#[test]
fn trailing_bytes_and_odd_data_types_warn() {
    let seed = std::fs::read(format!(
        "{}/data/skitter_sleep_to_sit.mtn",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap();
    let mut bytes = seed.clone();
    bytes.extend_from_slice(&[0; 4]);
    let m = mtn::decode(&bytes).unwrap();
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].contains("4 bytes after the last keyframe"));
    assert_eq!(mtn::encode(&m), seed);
    let mut bytes = seed.clone();
    bytes[0x250] = 1; // data type: section 3 starts at 0x248 here
    let m = mtn::decode(&bytes).unwrap();
    assert_eq!(m.data_type, 1);
    assert_eq!(m.warnings.len(), 1);
}
