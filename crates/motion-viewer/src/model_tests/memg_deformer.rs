//! `anim::memg::Deformer`: scratch kept across frames, contiguous groups
//! written straight into the output, rest positions only where no group writes.
//! It must give the same positions, bit for bit, as the plain per-column sum.

use motion_viewer::anim::memg::{Between, Binding, Deformer, deform, deform_reference_f64};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{MemgGroup, MemgMotion};
use motion_viewer::formats::obj::{ObjGroup, ObjScene};

const N: usize = 5;

fn scene(count: usize) -> ObjScene {
    ObjScene {
        positions: (0..count)
            .map(|i| [i as f32, -(i as f32) * 0.5, 1.0 + (i % 7) as f32])
            .collect(),
        groups: ["a", "b", "c"]
            .iter()
            .map(|n| ObjGroup {
                name: (*n).to_string(),
                ..ObjGroup::default()
            })
            .collect(),
        ..ObjScene::default()
    }
}

fn group(name: &str, mapping: Vec<u32>, r: usize, parent: i32, seed: usize) -> MemgGroup {
    let v = mapping.len();
    let val = |i: usize| (((i * 7919 + seed * 104_729) % 2001) as f32 - 1000.0) * 1e-3;
    MemgGroup {
        name: name.to_string(),
        mapping,
        mean: (0..3 * v).map(|i| val(i) * 10.0).collect(),
        parent,
        basis_len: r,
        basis: (0..3 * v * r).map(|i| val(i + 1)).collect(),
        coeffs: (0..r * N).map(|i| val(3 * i + 2) * 5.0).collect(),
    }
}

/// Groups over 10 000 `.obj` vertices: `a` contiguous (several chunks, basis 6
/// so the last columns are not a multiple of four), `b` reversed and
/// overlapping `a` (it wins the shared vertices), `c` contiguous with an empty
/// basis, `ghost` not in the scene; 6001..=7000 and 8001.. keep their rest pose.
fn motion() -> MemgMotion {
    let frame = |t: usize| {
        let c = (t as f64 * 0.3).cos();
        let s = (t as f64 * 0.3).sin();
        [c, -s, 0.0, 1.5, s, c, 0.0, -2.0, 0.0, 0.0, 1.0, t as f64]
    };
    MemgMotion {
        byte_order: ByteOrder::Little,
        fps: 30,
        local_frames: 1,
        timesteps: N,
        frames: (0..N).map(frame).collect(),
        groups: vec![
            group("a", (1..=5000).collect(), 6, 0, 1),
            group("b", (4001..=6000).rev().collect(), 3, -1, 2),
            group("c", (7001..=8000).collect(), 0, 0, 3),
            group("ghost", (1..=100).collect(), 2, 0, 4),
        ],
        warnings: Vec::new(),
    }
}

/// The deformation as one column per pass, f32 sums in column order and the
/// transform in f64: what the fast path must reproduce exactly.
fn per_column(scene: &ObjScene, m: &MemgMotion, b: &Binding, t: f64) -> Vec<[f32; 3]> {
    let mut out = scene.positions.clone();
    let last = m.timesteps - 1;
    let t = t.clamp(0.0, last as f64);
    let t0 = t.floor() as usize;
    let t1 = (t0 + 1).min(last);
    let w = t - t0 as f64;
    for (g, bound) in m.groups.iter().zip(&b.groups) {
        if bound.is_none() {
            continue;
        }
        let (v, r) = (g.vertex_count(), g.basis_len);
        let q: Vec<f32> = (0..r)
            .map(|j| {
                let a = f64::from(g.coeffs[t0 * r + j]);
                let c = f64::from(g.coeffs[t1 * r + j]);
                (a + (c - a) * w) as f32
            })
            .collect();
        let mut acc = g.mean.clone();
        for (j, &qj) in q.iter().enumerate() {
            for (a, &u) in acc.iter_mut().zip(&g.basis[j * 3 * v..(j + 1) * 3 * v]) {
                *a += u * qj;
            }
        }
        // The frame by the library's rule (checked on its own in
        // memg_deform.rs): this test is about the sums' order.
        let f = Between::at_steps(m, t).unwrap().transform(m, g.parent);
        for (i, &idx) in g.mapping.iter().enumerate() {
            let p = [0, 1, 2].map(|k| f64::from(acc[3 * i + k]));
            let x = [0, 4, 8].map(|o| f[o] * p[0] + f[o + 1] * p[1] + f[o + 2] * p[2] + f[o + 3]);
            out[idx as usize - 1] = x.map(|x| x as f32);
        }
    }
    out
}

#[test]
fn a_reused_deformer_matches_the_per_column_sum_bit_for_bit() {
    let s = scene(10_000);
    let m = motion();
    let b = Binding::new(&s, &m).unwrap();
    let mut deformer = Deformer::new();
    // Stale contents of the right length must not leak into the result.
    let mut out = vec![[f32::NAN; 3]; s.positions.len()];
    for t in [0.0, 1.37, 2.5, 3.99, 4.0, -1.0, 9.0, 0.37] {
        deformer.deform(&s, &m, &b, t, &mut out);
        let want = per_column(&s, &m, &b, t);
        assert_eq!(out.len(), want.len());
        for (i, (o, w)) in out.iter().zip(&want).enumerate() {
            assert_eq!(o.map(f32::to_bits), w.map(f32::to_bits), "t {t} vertex {i}");
        }
        let mut plain = Vec::new();
        deform(&s, &m, &b, t, &mut plain);
        assert_eq!(plain, out, "t {t}");
        let reference = deform_reference_f64(&s, &m, &b, t);
        for (o, r) in out.iter().zip(&reference) {
            for a in 0..3 {
                assert!((f64::from(o[a]) - r[a]).abs() < 1e-3, "t {t}");
            }
        }
    }
    // Rest positions where no bound group writes; `b` wins over `a`.
    assert_eq!(out[6500], s.positions[6500]);
    assert_eq!(out[9999], s.positions[9999]);
    assert_ne!(out[4500], s.positions[4500]);
}

#[test]
fn one_deformer_serves_other_scenes_and_motions() {
    let big = scene(10_000);
    let m = motion();
    let b = Binding::new(&big, &m).unwrap();
    let mut small_motion = motion();
    small_motion.groups.truncate(1);
    small_motion.groups[0] = group("b", vec![3, 1, 2], 2, 0, 9);
    let small = scene(4);
    let sb = Binding::new(&small, &small_motion).unwrap();
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    for (scene, motion, binding) in [(&big, &m, &b), (&small, &small_motion, &sb), (&big, &m, &b)] {
        for t in [0.5, 3.0] {
            deformer.deform(scene, motion, binding, t, &mut out);
            assert_eq!(out, per_column(scene, motion, binding, t));
        }
    }
    // No timesteps: the `.obj` pose.
    let mut still = motion();
    still.timesteps = 0;
    still.frames.clear();
    for g in &mut still.groups {
        g.coeffs.clear();
    }
    let sb = Binding::new(&big, &still).unwrap();
    deformer.deform(&big, &still, &sb, 1.0, &mut out);
    assert_eq!(out, big.positions);
}

#[test]
fn deform_into_a_caller_slice_matches_the_per_column_sum() {
    let (s, m) = (scene(10_000), motion());
    let b = Binding::new(&s, &m).unwrap();
    let mut deformer = Deformer::new();
    // Two frames of one block, as the Python package fills a numpy array;
    // the slice starts dirty, so every entry must be written.
    let mut block = vec![[f32::NAN; 3]; 2 * s.positions.len()];
    let (first, second) = block.split_at_mut(s.positions.len());
    deformer.deform_into(&s, &m, &b, 1.25, first);
    deformer.deform_into(&s, &m, &b, 3.0, second);
    assert!(first == per_column(&s, &m, &b, 1.25).as_slice());
    assert!(second == per_column(&s, &m, &b, 3.0).as_slice());
}

#[test]
#[should_panic(expected = "one output entry per .obj vertex")]
fn deform_into_a_slice_of_the_wrong_length_panics() {
    let (s, m) = (scene(10_000), motion());
    let b = Binding::new(&s, &m).unwrap();
    Deformer::new().deform_into(&s, &m, &b, 0.0, &mut [[0.0; 3]; 3]);
}
