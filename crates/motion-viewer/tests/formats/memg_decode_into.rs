//! `memg::decode_into`: decoding over a motion decoded before (its arrays
//! reused) gives exactly what `decode` gives, whatever the earlier shapes.

use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};

/// A motion of `groups` groups named from `names`, `v` vertices each, basis
/// `r`, `n` timesteps, with values derived from `seed`.
fn motion(fps: i32, names: &[&str], v: usize, r: usize, n: usize, seed: u32) -> MemgMotion {
    let val = |i: usize| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 * 1e-9 - 2.0;
    let k = 2;
    MemgMotion {
        byte_order: ByteOrder::Little,
        fps,
        local_frames: k,
        timesteps: n,
        frames: (0..k * n)
            .map(|i| std::array::from_fn(|j| (i * 12 + j) as f64 * 0.25 + f64::from(seed)))
            .collect(),
        groups: names
            .iter()
            .enumerate()
            .map(|(gi, name)| MemgGroup {
                name: (*name).to_string(),
                mapping: (1..=v as u32).map(|m| m + (gi * v) as u32).collect(),
                mean: (0..3 * v).map(|i| val(i + gi)).collect(),
                parent: gi as i32 - 1,
                basis_len: r,
                basis: (0..3 * v * r).map(|i| val(7 * i + gi)).collect(),
                coeffs: (0..r * n).map(|i| val(13 * i + gi)).collect(),
            })
            .collect(),
        warnings: Vec::new(),
    }
}

#[test]
fn decode_into_a_used_motion_equals_decode() {
    // Big enough that U takes the parallel path (over 4 × 65 536 values).
    let big = motion(30, &["cloth", "flag", "cloth"], 20_000, 8, 12, 1);
    let small = motion(24, &["hand"], 300, 3, 40, 2);
    let empty = motion(120, &[], 0, 0, 0, 3);
    let bigger_basis = motion(30, &["a", "b"], 1_000, 40, 5, 4);
    let files = [
        memg::encode(&big, ByteOrder::Little),
        memg::encode(&small, ByteOrder::Big),
        memg::encode(&big, ByteOrder::Big),
        memg::encode(&empty, ByteOrder::Little),
        memg::encode(&bigger_basis, ByteOrder::Little),
        memg::encode(&small, ByteOrder::Little),
        memg::encode(&big, ByteOrder::Little),
    ];
    let mut out = MemgMotion::default();
    for (i, bytes) in files.iter().enumerate() {
        let fresh = memg::decode(bytes).unwrap();
        memg::decode_into(bytes, &mut out).unwrap();
        assert_eq!(out, fresh, "file {i}");
    }
    // Warnings come back too (a frame rate of 24, a repeated name, world-space groups).
    let fresh = memg::decode(&files[0]).unwrap();
    assert!(!fresh.warnings.is_empty());
    memg::decode_into(&files[1], &mut out).unwrap();
    assert!(out.warnings.iter().any(|w| w.contains("24 fps")));
    memg::decode_into(&files[0], &mut out).unwrap();
    assert_eq!(out.warnings, fresh.warnings);
}

#[test]
fn decode_into_keeps_the_arrays_it_can() {
    let big = memg::encode(&motion(30, &["cloth"], 20_000, 8, 12, 5), ByteOrder::Little);
    let small = memg::encode(&motion(30, &["cloth"], 500, 4, 12, 6), ByteOrder::Big);
    let mut out = memg::decode(&big).unwrap();
    let basis = out.groups[0].basis.as_ptr();
    let mapping = out.groups[0].mapping.as_ptr();
    memg::decode_into(&small, &mut out).unwrap();
    assert_eq!(out, memg::decode(&small).unwrap());
    assert_eq!(out.groups[0].basis.as_ptr(), basis, "U reuses its buffer");
    assert_eq!(out.groups[0].mapping.as_ptr(), mapping);
    memg::decode_into(&big, &mut out).unwrap();
    assert_eq!(out, memg::decode(&big).unwrap());
    assert_eq!(out.groups[0].basis.as_ptr(), basis);
}

#[test]
fn decode_into_fails_as_decode_does_and_recovers() {
    let good = memg::encode(
        &motion(30, &["cloth", "flag"], 2_000, 6, 10, 7),
        ByteOrder::Little,
    );
    let mut out = memg::decode(&good).unwrap();
    // Cut inside the second group's U, then inside the header, then a bad indicator.
    let mut bad_order = good.clone();
    bad_order[0] = 7;
    for bytes in [&good[..good.len() - 100], &good[..10], &bad_order[..]] {
        let want = memg::decode(bytes).unwrap_err();
        let got = memg::decode_into(bytes, &mut out).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
    }
    // Whatever the failure left in `out`, the next decode is whole.
    memg::decode_into(&good, &mut out).unwrap();
    assert_eq!(out, memg::decode(&good).unwrap());
}
