//! MEMG decoding: round trips, byte orders, shapes, and hostile bytes.

use crate::common::memg as memg_common;

use memg_common::{RawFile, small_motion};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgMotion};

/// Checks a decoded motion against the test's own reading of the same file.
fn assert_matches(m: &MemgMotion, raw: &RawFile) {
    assert_eq!(m.fps, raw.fps);
    assert_eq!(m.local_frames, raw.k as usize);
    assert_eq!(m.timesteps, raw.n as usize);
    assert_eq!(m.frames, raw.frames);
    assert_eq!(m.groups.len(), raw.groups.len());
    for (g, r) in m.groups.iter().zip(&raw.groups) {
        assert_eq!(g.name, r.name);
        assert_eq!(g.parent, r.parent);
        assert_eq!(g.basis_len, r.u_shape.1 as usize);
        let as_u32: Vec<u32> = r.mapping.iter().map(|&x| x as u32).collect();
        assert_eq!(g.mapping, as_u32);
        let widen = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        assert_eq!(widen(&g.mean), r.mean);
        assert_eq!(widen(&g.basis), r.u);
        assert_eq!(widen(&g.coeffs), r.q);
    }
}

#[test]
fn decodes_and_encodes_byte_exact_in_both_orders() {
    for big in [false, true] {
        let raw = small_motion(big);
        let bytes = raw.bytes();
        let m = memg::decode(&bytes).unwrap();
        assert_eq!(
            m.byte_order,
            if big {
                ByteOrder::Big
            } else {
                ByteOrder::Little
            }
        );
        assert_matches(&m, &raw);
        assert_eq!(memg::encode(&m, m.byte_order), bytes);
        let other = if big {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        };
        let swapped = memg::encode(&m, other);
        assert_eq!(swapped, small_motion(!big).bytes());
    }
}

#[test]
fn big_endian_file_decodes_to_the_same_motion() {
    let le = memg::decode(&small_motion(false).bytes()).unwrap();
    let be = memg::decode(&small_motion(true).bytes()).unwrap();
    assert_eq!(be.byte_order, ByteOrder::Big);
    assert_eq!(
        MemgMotion {
            byte_order: ByteOrder::Little,
            ..be
        },
        le
    );
}

#[test]
fn parent_outside_the_frames_is_world_space_with_a_warning() {
    let m = memg::decode(&small_motion(false).bytes()).unwrap();
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("'b'") && w.contains("world space"))
    );
    assert_eq!(m.frame(0, -1), None);
    assert_eq!(m.frame(0, 2), None);
    assert_eq!(m.frame(3, 1), Some(&small_motion(false).frames[3 * 2 + 1]));
}

#[test]
fn load_maps_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.bin");
    let raw = small_motion(true);
    std::fs::write(&path, raw.bytes()).unwrap();
    assert_matches(&memg::load(&path).unwrap(), &raw);
    std::fs::write(&path, b"").unwrap();
    assert!(memg::load(&path).is_err());
    assert!(memg::load(&dir.path().join("missing.bin")).is_err());
}

/// The error for `raw` must name `group`, `field` and both shapes.
fn assert_shape_error(raw: &RawFile, group: &str, field: &str, found: &str, expected: &str) {
    let e = memg::decode(&raw.bytes()).unwrap_err();
    assert!(e.field.contains(&format!("'{group}'")), "{e}");
    assert!(e.field.contains(field), "{e}");
    assert_eq!(e.found, found, "{e}");
    assert!(e.expected.contains(expected), "{e}");
}

#[test]
fn shape_errors_name_group_field_and_both_shapes() {
    // U rows ≠ 3v ('a' has 4 vertices: 12 rows).
    let mut raw = small_motion(false);
    let g = &mut raw.groups[0];
    g.u_shape = (11, 3);
    g.u.truncate(33);
    assert_shape_error(&raw, "a", "U shape", "11 × 3", "12 × r");

    // Q rows ≠ U columns.
    let mut raw = small_motion(false);
    let g = &mut raw.groups[2];
    g.q_shape = (3, 5);
    g.q.extend([0.0; 5]);
    assert_shape_error(&raw, "b", "Q shape", "3 × 5", "2 × 5");

    // Q columns ≠ timesteps.
    let mut raw = small_motion(false);
    let g = &mut raw.groups[2];
    g.q_shape = (2, 4);
    g.q.truncate(8);
    assert_shape_error(&raw, "b", "Q shape", "2 × 4", "2 × 5");
    let e = memg::decode(&raw.bytes()).unwrap_err();
    let offset = raw.group_boundaries()[2] + 4 + 1 + 4 + 2 * 4 + 6 * 8 + 4 + 8 + 12 * 8;
    assert_eq!(e.offset, offset as u64);
}

#[test]
fn zero_and_negative_mappings_are_errors() {
    let mut raw = small_motion(false);
    raw.groups[1].mapping[0] = 0;
    let e = memg::decode(&raw.bytes()).unwrap_err();
    assert!(e.field.contains("'ghost' vertex mapping"), "{e}");
    assert_eq!(e.found, "0");
}

#[test]
fn every_truncation_is_an_error_except_at_group_boundaries() {
    for big in [false, true] {
        let raw = small_motion(big);
        let bytes = raw.bytes();
        let bounds = raw.group_boundaries();
        for len in 0..bytes.len() {
            match memg::decode(&bytes[..len]) {
                Ok(m) => {
                    let groups = bounds.iter().position(|&b| b == len);
                    assert_eq!(
                        Some(m.groups.len()),
                        groups,
                        "prefix of {len} bytes decoded"
                    );
                }
                Err(e) => {
                    assert!(!bounds.contains(&len), "prefix of {len}: {e}");
                    assert!(e.offset <= len as u64, "{e}");
                }
            }
        }
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let bytes = small_motion(false).bytes();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            // Ok or Err both fine; reaching here without a panic or a hang is the test.
            if let Ok(m) = memg::decode(&b) {
                for g in &m.groups {
                    assert_eq!(g.mean.len(), 3 * g.vertex_count());
                    assert_eq!(g.basis.len(), 3 * g.vertex_count() * g.basis_len);
                    assert_eq!(g.coeffs.len(), g.basis_len * m.timesteps);
                }
            }
        }
    }
}

#[test]
fn huge_counts_fail_before_allocating() {
    let raw = small_motion(false);
    let bytes = raw.bytes();
    let g0 = raw.group_boundaries()[0];
    let put = |at: usize, v: i32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let cases = [
        (8, -3, "local frame count"),
        (12, -1, "timestep count"),
        (g0, i32::MAX, "name length"),
        (g0 + 4 + 1, i32::MAX, "'a' vertex count"),
        (g0 + 4 + 1, -7, "'a' vertex count"),
    ];
    for (at, v, field) in cases {
        let e = memg::decode(&put(at, v)).unwrap_err();
        assert!(e.field.contains(field), "{field}: {e}");
        assert_eq!(e.found, v.to_string(), "{e}");
    }
    // Huge k or n, k·n overflowing 32 bits, U and Q sizes beyond the file.
    for at in [8, 12] {
        let e = memg::decode(&put(at, i32::MAX)).unwrap_err();
        assert_eq!(e.field, "local frames × timesteps", "{e}");
    }
    let mut b = put(8, 70_000);
    b[12..16].copy_from_slice(&70_000i32.to_le_bytes());
    assert!(
        memg::decode(&b)
            .unwrap_err()
            .field
            .contains("local frames × timesteps")
    );
    let u_at = g0 + 4 + 1 + 4 + 4 * 4 + 12 * 8 + 4;
    let mut b = put(u_at, 12);
    b[u_at + 4..u_at + 8].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(memg::decode(&b).unwrap_err().field.contains("'a' U size"));
}

#[test]
fn bad_headers_are_errors() {
    let mut b = small_motion(false).bytes();
    b[0] = 2;
    assert_eq!(memg::decode(&b).unwrap_err().field, "endian indicator");
    let mut b = small_motion(false).bytes();
    b[4..8].copy_from_slice(&0i32.to_le_bytes());
    assert_eq!(memg::decode(&b).unwrap_err().field, "frame rate");
    let mut b = small_motion(false).bytes();
    b[4..8].copy_from_slice(&25i32.to_le_bytes());
    assert!(
        memg::decode(&b)
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.contains("25 fps"))
    );
}
