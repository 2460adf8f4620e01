//! Property round trips of MEMG motions (issue 15): random motions in both
//! byte orders (local frames, timesteps, groups of any size and basis, any
//! parent, names in UTF-8), written by the test's own writer in the layout of
//! docs/formats.md §3, decode to exactly what was written, encode back to the same
//! bytes in either order, and decode again to the same motion.

use crate::common::memg as memg_common;

use memg_common::{RawFile, RawGroup};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use proptest::prelude::*;

/// Any f32 value (the library keeps basis and coefficients as f32), widened:
/// the f64 the file stores narrows back to it exactly. NaN left out, as it
/// compares unequal to itself; the fuzz target checks NaN by bits.
fn f32_value() -> impl Strategy<Value = f64> {
    any::<f32>()
        .prop_filter("a number", |x| !x.is_nan())
        .prop_map(f64::from)
}

/// Any f64 but NaN (the frame transforms stay f64).
fn f64_value() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("a number", |x| !x.is_nan())
}

/// A group of `v` vertices with basis `r` over `n` timesteps, parent frame in
/// -2..k+2 (outside 0..k is world space).
fn group(k: i32, n: i32) -> impl Strategy<Value = RawGroup> {
    ("[a-zA-Z0-9_ é日]{0,12}", 0usize..=6, 0usize..=4, -2..k + 2)
        .prop_flat_map(move |(name, v, r, parent)| {
            (
                Just((name, parent)),
                prop::collection::vec(1..=i32::MAX, v),
                prop::collection::vec(f32_value(), 3 * v),
                prop::collection::vec(f32_value(), 3 * v * r),
                prop::collection::vec(f32_value(), r * n as usize),
                Just((v, r)),
            )
        })
        .prop_map(
            move |((name, parent), mapping, mean, u, q, (v, r))| RawGroup {
                name,
                mapping,
                mean,
                parent,
                u_shape: (3 * v as i32, r as i32),
                u,
                q_shape: (r as i32, n),
                q,
            },
        )
}

fn raw_file() -> impl Strategy<Value = RawFile> {
    (any::<bool>(), 1..=240i32, 0..=3i32, 0..=6i32)
        .prop_flat_map(|(big_endian, fps, k, n)| {
            let frame = prop::collection::vec(f64_value(), 12)
                .prop_map(|m| <[f64; 12]>::try_from(m).unwrap());
            (
                Just((big_endian, fps, k, n)),
                prop::collection::vec(frame, (k * n) as usize),
                prop::collection::vec(group(k, n), 0..=3),
            )
        })
        .prop_map(|((big_endian, fps, k, n), frames, groups)| RawFile {
            big_endian,
            fps,
            k,
            n,
            frames,
            groups,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonical_memg_decodes_to_what_was_written_and_encodes_back(raw in raw_file()) {
        let bytes = raw.bytes();
        let m = memg::decode(&bytes).expect("a canonical file decodes");
        let order = if raw.big_endian { ByteOrder::Big } else { ByteOrder::Little };
        prop_assert_eq!(m.byte_order, order);
        prop_assert_eq!(m.fps, raw.fps);
        prop_assert_eq!((m.local_frames, m.timesteps), (raw.k as usize, raw.n as usize));
        prop_assert_eq!(&m.frames, &raw.frames);
        prop_assert_eq!(m.groups.len(), raw.groups.len());
        let widen = |x: &[f32]| x.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>();
        for (g, r) in m.groups.iter().zip(&raw.groups) {
            prop_assert_eq!(&g.name, &r.name);
            prop_assert_eq!(g.mapping.iter().map(|&i| i as i32).collect::<Vec<_>>(), r.mapping.clone());
            prop_assert_eq!(widen(&g.mean), r.mean.clone());
            prop_assert_eq!(g.parent, r.parent);
            prop_assert_eq!(g.basis_len as i32, r.u_shape.1);
            prop_assert_eq!(widen(&g.basis), r.u.clone());
            prop_assert_eq!(widen(&g.coeffs), r.q.clone());
        }
        prop_assert!(memg::encode(&m, order) == bytes, "encode(decode(bytes)) != bytes");
        // The other byte order holds the same motion.
        let other = if raw.big_endian { ByteOrder::Little } else { ByteOrder::Big };
        let swapped = memg::decode(&memg::encode(&m, other)).expect("the other order decodes");
        prop_assert_eq!(swapped.byte_order, other);
        prop_assert_eq!(memg::decode(&memg::encode(&swapped, order)).unwrap(), m);
    }
}
