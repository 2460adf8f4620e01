//! [`super::index`] and [`super::MappedMemg::offsets`]: the offsets point at
//! the stored doubles (placed by the spec's layout, docs/formats.md §3), and
//! every bad file fails exactly as [`super::decode`] fails.

use super::{MemgGroup, MemgMotion, decode, encode, index};
use crate::formats::bytes::ByteOrder;

/// Two groups; the first's name has an odd length, so the arrays after it
/// are not 8-byte aligned in the file.
fn motion() -> MemgMotion {
    let frame = |x: f64| [1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5];
    let group = |name: &str, v: usize, r: usize, seed: f32| MemgGroup {
        name: name.into(),
        mapping: (1..=v as u32).collect(),
        mean: (0..3 * v).map(|i| seed + i as f32 * 0.25).collect(),
        parent: 0,
        basis_len: r,
        basis: (0..3 * v * r).map(|i| -seed - i as f32 * 0.5).collect(),
        coeffs: (0..r * 3).map(|i| seed * 2.0 + i as f32).collect(),
    };
    MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: 3,
        frames: vec![frame(0.0), frame(1.0), frame(2.0)],
        groups: vec![group("odd", 4, 2, 1.0), group("even", 2, 3, 7.0)],
        ..MemgMotion::default()
    }
}

/// The `count` doubles at byte `at` of `bytes`, in `order`.
fn doubles(bytes: &[u8], at: usize, count: usize, order: ByteOrder) -> Vec<f64> {
    bytes[at..at + 8 * count]
        .chunks_exact(8)
        .map(|c| {
            let c: [u8; 8] = c.try_into().unwrap();
            match order {
                ByteOrder::Little => f64::from_le_bytes(c),
                ByteOrder::Big => f64::from_be_bytes(c),
            }
        })
        .collect()
}

fn widen(values: &[f32]) -> Vec<f64> {
    values.iter().map(|&x| f64::from(x)).collect()
}

#[test]
fn offsets_point_at_the_stored_doubles_in_both_orders() {
    let m = motion();
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let bytes = encode(&m, order);
        let (skeleton, offsets) = index(&bytes).unwrap();
        // By the spec's layout: a 16-byte header, k × n transforms of 96
        // bytes, then the group's name length, name, vertex count, mapping.
        let first_mean = 16 + 96 * 3 + 4 + 3 + 4 + 4 * 4;
        assert_eq!(offsets.len(), 2);
        assert_eq!(offsets[0].mean, first_mean);
        assert_eq!(offsets[0].basis, first_mean + 8 * 12 + 4 + 8);
        assert_eq!(offsets[0].coeffs, offsets[0].basis + 8 * 24 + 8);
        for ((g, at), want) in skeleton.groups.iter().zip(&offsets).zip(&m.groups) {
            let v = want.vertex_count();
            let r = want.basis_len;
            assert_eq!(doubles(&bytes, at.mean, 3 * v, order), widen(&want.mean));
            assert_eq!(
                doubles(&bytes, at.basis, 3 * v * r, order),
                widen(&want.basis)
            );
            assert_eq!(
                doubles(&bytes, at.coeffs, r * 3, order),
                widen(&want.coeffs)
            );
            // The large arrays stay in the bytes; the rest is decoded.
            assert!(g.mean.is_empty() && g.basis.is_empty());
            assert_eq!(
                (&g.name, &g.mapping, g.basis_len),
                (&want.name, &want.mapping, r)
            );
            assert_eq!(g.coeffs, want.coeffs);
        }
        assert_eq!(skeleton.frames, m.frames);
        assert_eq!(skeleton.byte_order, order);
    }
}

#[test]
fn every_bad_file_fails_as_decode_fails() {
    let bytes = encode(&motion(), ByteOrder::Little);
    let mut tried = 0;
    for cut in 0..bytes.len() {
        let short = &bytes[..cut];
        assert_eq!(index(short).err(), decode(short).err(), "cut at {cut}");
        tried += 1;
    }
    // Each header byte set to 0x7f, then 0xff: counts, shapes and mappings.
    for at in 0..bytes.len().min(600) {
        for b in [0x7f, 0xff] {
            let mut bad = bytes.clone();
            bad[at] = b;
            assert_eq!(index(&bad).err(), decode(&bad).err(), "byte {at} = {b:#x}");
            tried += 1;
        }
    }
    // The loops ran, and some of those files are refused.
    assert!(tried > 1000);
    assert!(index(&bytes[..100]).is_err());
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_mapped_file_has_the_same_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.bin");
    let bytes = encode(&motion(), ByteOrder::Big);
    std::fs::write(&path, &bytes).unwrap();
    let mapped = super::MappedMemg::open(&path).unwrap();
    assert_eq!(mapped.offsets(), index(&bytes).unwrap().1.as_slice());
}
