//! The fit on motions whose answer is known: a shape turning and moving
//! rigidly while it deforms along a few fixed directions has, in its own
//! frame, exactly that many components.

use super::*;
use crate::anim::memg::{Binding, deform_reference_f64};
use crate::formats;
use std::path::Path;

/// `frames` timesteps of a `w × h` sheet (z = 3 at rest) bending along
/// `modes` fixed shapes, turning about z by 0.05 rad a step and drifting.
fn sheet(w: usize, h: usize, frames: usize, modes: usize) -> Vec<f32> {
    sheet_moving(w, h, frames, modes, true)
}

/// [`sheet`], or bending in place when not `moving`.
fn sheet_moving(w: usize, h: usize, frames: usize, modes: usize, moving: bool) -> Vec<f32> {
    let mut out = Vec::with_capacity(3 * w * h * frames);
    for t in 0..frames {
        let tf = t as f64;
        let (s, c) = if moving {
            (0.05 * tf).sin_cos()
        } else {
            (0.0, 1.0)
        };
        let drift = if moving { tf } else { 0.0 };
        for j in 0..h {
            for i in 0..w {
                let (x, y) = (i as f64 / w as f64, j as f64 / h as f64);
                let mut z = 0.0;
                for m in 0..modes {
                    let shape = ((m + 1) as f64 * 2.0 * x).sin() * (1.0 + y * m as f64);
                    z += 0.1 * shape * (0.3 * tf * (m + 1) as f64 + m as f64).sin();
                }
                let p = [
                    c * x - s * y + 0.01 * drift,
                    s * x + c * y - 0.02 * drift,
                    z + 3.0,
                ];
                out.extend(p.map(|v| v as f32));
            }
        }
    }
    out
}

fn one_group(vertices: usize) -> Vec<FitGroup> {
    vec![FitGroup {
        name: "sheet".into(),
        vertices: (0..vertices as u32).collect(),
    }]
}

#[test]
fn a_fit_left_too_little_of_its_bound_names_a_tighter_one() {
    let positions = sheet_moving(12, 8, 60, 2, false);
    let anim = Animation::new(&positions, 96, 60).unwrap();
    for bound in [Bound::MaxError(0.05), Bound::RmsError(0.05), Bound::Rank(1)] {
        let options = FitOptions {
            bound,
            frames: FrameMode::World,
            ..FitOptions::default()
        };
        let report = fit_checked(&anim, &one_group(96), &options).unwrap().report;
        let measured = match bound {
            Bound::RmsError(_) => report.rms_error,
            _ => report.max_error,
        };
        let left = 0.05 - measured;
        let bounded = !matches!(bound, Bound::Rank(_));
        assert_eq!(report.left_of_bound(), bounded.then_some(left));
        assert_eq!(report.bound_less(0.0), None);
        assert_eq!(report.bound_less(0.9 * left), None);
        let extra = 1.1 * left;
        let want = match bound {
            Bound::MaxError(_) => Some(Bound::MaxError(0.05 - 1.5 * extra)),
            Bound::RmsError(_) => Some(Bound::RmsError(0.05 - 1.5 * extra)),
            _ => None,
        };
        assert_eq!(report.bound_less(extra), want, "{bound:?}");
    }
}

#[test]
fn a_sheet_bending_two_ways_has_rank_two() {
    let positions = sheet_moving(12, 8, 60, 2, false);
    let anim = Animation::new(&positions, 96, 60).unwrap();
    let options = FitOptions {
        bound: Bound::MaxError(1e-4),
        frames: FrameMode::World,
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &one_group(96), &options).unwrap();
    assert_eq!(checked.report.groups[0].rank, 2);
    assert!(checked.report.max_error <= 1e-4);
    assert_eq!(checked.motion.local_frames, 0);
    assert_eq!(checked.motion.groups[0].parent, -1);
    let one = FitOptions {
        bound: Bound::Rank(1),
        ..options
    };
    assert!(
        fit_checked(&anim, &one_group(96), &one)
            .unwrap()
            .report
            .max_error
            > 1e-3
    );
}

/// One vertex, still for nine timesteps and a unit away on the tenth:
/// PCA's rank 0 (the mean, 0.1) misses the tenth by 0.9, so under a bound
/// of 0.6 PCA needs rank 1. The constant with the smallest largest error,
/// the midpoint, misses every timestep by 0.5: the minimax refit keeps
/// rank 0, its largest error (on the decoded file) between the two.
#[test]
fn a_bound_pca_meets_at_rank_one_is_met_at_rank_zero() {
    let mut positions = vec![0f32; 30];
    positions[27] = 1.0;
    let anim = Animation::new(&positions, 1, 10).unwrap();
    let options = FitOptions {
        bound: Bound::MaxError(0.6),
        frames: FrameMode::World,
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &one_group(1), &options).unwrap();
    assert_eq!(checked.report.groups[0].rank, 0);
    let worst = checked.report.max_error;
    assert!((0.5..=0.6).contains(&worst), "largest error {worst}");
}

/// The same vertex fitted for a glTF (`memg fit --out x.glb`): the refit
/// goes on past the bound, towards the midpoint's 0.5, so that the
/// quantized file has more of the bound to spend; the MEMG file's fit
/// stops once within it.
#[test]
fn a_fit_for_a_gltf_goes_on_below_the_bound() {
    let mut positions = vec![0f32; 30];
    positions[27] = 1.0;
    let anim = Animation::new(&positions, 1, 10).unwrap();
    let fitted = |sized_for| {
        let options = FitOptions {
            bound: Bound::MaxError(0.6),
            frames: FrameMode::World,
            sized_for,
            ..FitOptions::default()
        };
        let report = fit_checked(&anim, &one_group(1), &options).unwrap().report;
        assert_eq!(report.groups[0].rank, 0);
        report.max_error
    };
    let (memg, gltf) = (fitted(SizedFor::Memg), fitted(SizedFor::Gltf));
    assert!(gltf < memg, "{gltf} against {memg}");
    assert!((0.5..0.52).contains(&gltf), "largest error {gltf}");
}

/// `p` turned about the axis (1, 2, 3) by 0.1 rad a step for `t` steps
/// (Rodrigues: p c + (k × p) s + k (k·p)(1 − c)) and carried along.
pub(in crate::fit) fn tumbled(p: [f64; 3], t: usize) -> [f64; 3] {
    let norm = 14f64.sqrt();
    let k = [1.0 / norm, 2.0 / norm, 3.0 / norm];
    let (s, c) = (0.1 * t as f64).sin_cos();
    let kp = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
    let cross = [
        k[1] * p[2] - k[2] * p[1],
        k[2] * p[0] - k[0] * p[2],
        k[0] * p[1] - k[1] * p[0],
    ];
    std::array::from_fn(|a| {
        p[a] * c + cross[a] * s + k[a] * kp * (1.0 - c) + 0.05 * t as f64 * (a + 1) as f64
    })
}

/// A 4 × 4 × 4 block of points [`tumbled`], and swelling in x by a small
/// pulse.
fn tumbling_block(frames: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for t in 0..frames {
        let swell = 1.0 + 0.02 * (0.4 * t as f64).sin();
        for i in 0..64 {
            let p = [
                swell * ((i % 4) as f64 - 1.5),
                ((i / 4 % 4) as f64 - 1.5),
                ((i / 16) as f64 - 1.5),
            ];
            out.extend(tumbled(p, t).map(|x| x as f32));
        }
    }
    out
}

#[test]
fn rigid_frames_take_the_tumble_out_of_the_basis() {
    let positions = tumbling_block(50);
    let anim = Animation::new(&positions, 64, 50).unwrap();
    let options = FitOptions {
        bound: Bound::MaxError(1e-4),
        ..FitOptions::default()
    };
    let local = fit_checked(&anim, &one_group(64), &options).unwrap();
    assert_eq!(local.motion.local_frames, 1);
    assert_eq!(local.motion.frames.len(), 50);
    assert!(local.report.max_error <= 1e-4);
    let world = FitOptions {
        frames: FrameMode::World,
        ..options
    };
    let world = fit_checked(&anim, &one_group(64), &world).unwrap();
    assert!(world.report.max_error <= 1e-4);
    // The swelling alone is one shape, all a rigid frame leaves; without
    // one, the turn (cos and sin of the angle), the drift and the swelling
    // turned take six.
    let (l, w) = (local.report.groups[0].rank, world.report.groups[0].rank);
    assert_eq!((l, w), (1, 6));
}

#[test]
fn the_errors_reported_are_the_decoded_motions_against_the_input() {
    let positions = sheet(10, 6, 30, 3);
    let anim = Animation::new(&positions, 60, 30).unwrap();
    let options = FitOptions {
        bound: Bound::Rank(1),
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &one_group(60), &options).unwrap();
    let motion = formats::memg::decode(&checked.bytes).unwrap();
    assert_eq!(motion, checked.motion);
    // The f64 reference deformation of the decoded file, against the input.
    let scene = check::bare_scene(vec![[0.0; 3]; 60], &motion);
    let binding = Binding::new(&scene, &motion).unwrap();
    let mut worst = 0f64;
    let mut squared = 0f64;
    for t in 0..30 {
        let placed = deform_reference_f64(&scene, &motion, &binding, t as f64);
        for (i, p) in placed.iter().enumerate() {
            let x = anim.point(t, i);
            let d2: f64 = (0..3).map(|a| (p[a] - x[a]).powi(2)).sum();
            worst = worst.max(d2.sqrt());
            squared += d2;
        }
    }
    let r = &checked.report;
    assert!(
        (r.max_error - worst).abs() < 1e-6,
        "{} vs {worst}",
        r.max_error
    );
    assert!((r.rms_error - (squared / 1800.0).sqrt()).abs() < 1e-6);
    assert!(r.max_error > 1e-3, "rank 1 of 3 modes is off");
    assert_eq!(r.bytes.memg, checked.bytes.len() as u64);
    assert_eq!(r.bytes.raw_f32, 12 * 60 * 30);
}

#[test]
fn more_frames_than_rows_and_a_rank_past_the_full_one() {
    // 4 vertices (12 rows) over 50 frames: the Gram matrix of the rows.
    let positions = sheet(2, 2, 50, 2);
    let anim = Animation::new(&positions, 4, 50).unwrap();
    let options = FitOptions {
        bound: Bound::Rank(40),
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &one_group(4), &options).unwrap();
    assert_eq!(checked.report.groups[0].rank, 12, "at most 3 × 4 rows");
    assert!(checked.report.max_error < 1e-5);
    let bounded = FitOptions {
        bound: Bound::MaxErrorOfDiagonal(1e-4),
        ..options
    };
    let checked = fit_checked(&anim, &one_group(4), &bounded).unwrap();
    assert!(checked.report.groups[0].rank < 12);
    assert!(checked.report.max_error <= 1e-4 * anim.diagonal());
}

#[test]
fn groups_may_share_a_seam_and_each_copy_is_within_the_bound() {
    let positions = sheet(12, 8, 40, 3);
    let anim = Animation::new(&positions, 96, 40).unwrap();
    // Rows 0–4 and rows 4–7: row 4 in both.
    let groups = vec![
        FitGroup {
            name: "low".into(),
            vertices: (0..60).collect(),
        },
        FitGroup {
            name: "high".into(),
            vertices: (48..96).collect(),
        },
    ];
    let options = FitOptions {
        bound: Bound::MaxError(2e-4),
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &groups, &options).unwrap();
    assert_eq!(checked.motion.local_frames, 2);
    for g in &checked.report.groups {
        assert!(g.max_error <= 2e-4, "{g:?}");
    }
    assert_eq!(checked.motion.groups[1].mapping[0], 49, "1-based");
}

#[test]
fn inputs_that_do_not_fit_are_refused() {
    let positions = sheet(3, 2, 4, 1);
    let anim = Animation::new(&positions, 6, 4).unwrap();
    let err = |groups: Vec<FitGroup>, options: FitOptions| {
        fit(&anim, &groups, &options).unwrap_err().to_string()
    };
    let g = |name: &str, v: &[u32]| FitGroup {
        name: name.into(),
        vertices: v.to_vec(),
    };
    let all = || vec![g("a", &[0, 1, 2, 3, 4, 5])];
    let ok = FitOptions::default();
    assert!(err(vec![g("a", &[0, 1, 2])], ok).contains("vertex 3 is in no group"));
    assert!(err(vec![g("a", &[0, 1, 2, 3, 4, 9])], ok).contains("names vertex 9"));
    assert!(err(vec![g("a", &[0, 2, 1, 3, 4, 5])], ok).contains("increasing order"));
    assert!(err(vec![g("a", &[0, 1, 2, 3, 4, 5]), g("a", &[0])], ok).contains("given twice"));
    assert!(err(vec![g("a", &[0, 1, 2, 3, 4, 5]), g("b", &[])], ok).contains("no vertices"));
    assert!(err(vec![], ok).contains("no groups"));
    let zero = FitOptions { fps: 0, ..ok };
    assert!(err(all(), zero).contains("frame rate 0"));
    let negative = FitOptions {
        bound: Bound::MaxError(-1.0),
        ..ok
    };
    assert!(err(all(), negative).contains("expected a positive number"));
    let tight = FitOptions {
        bound: Bound::MaxError(1e-12),
        ..ok
    };
    assert!(matches!(
        fit(&anim, &all(), &tight),
        Err(FitError::Unreachable { .. })
    ));
    // The positions themselves.
    let e = Animation::new(&positions[..10], 6, 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "positions: expected 6 vertices × 4 frames × 3 values, found 10 values"
    );
    let mut nan = positions.clone();
    nan[3 * (2 * 6 + 5) + 1] = f32::NAN;
    let e = Animation::new(&nan, 6, 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "frame 2 vertex 5 y: expected a finite number, found NaN"
    );
    // As the library's one error: the inputs named for what is wrong with
    // them, the output for a request no fit meets.
    let (scene, out) = (Path::new("scene.obj"), Path::new("out.bin"));
    let e = fit(&anim, &[g("a", &[0, 1, 2])], &ok)
        .unwrap_err()
        .into_error(scene, out);
    assert!(matches!(e, crate::Error::Mismatch { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "scene.obj: vertex 3 is in no group: every vertex must be in one"
    );
    let e = fit(&anim, &all(), &zero)
        .unwrap_err()
        .into_error(scene, out);
    assert!(matches!(e, crate::Error::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().starts_with("out.bin: frame rate 0"), "{e}");
    let e = FitError::Stopped.into_error(scene, out);
    assert!(matches!(e, crate::Error::Interrupted { .. }), "{e:?}");
}

#[test]
fn auto_frames_keep_a_frame_only_where_it_saves_bytes() {
    // A tumbling block (vertices 0..64) beside a sheet bending in place
    // (64..160), 50 frames.
    let block = tumbling_block(50);
    let sheet = sheet_moving(12, 8, 50, 2, false);
    let mut positions = Vec::new();
    for t in 0..50 {
        positions.extend_from_slice(&block[t * 192..(t + 1) * 192]);
        positions.extend_from_slice(&sheet[t * 288..(t + 1) * 288]);
    }
    let anim = Animation::new(&positions, 160, 50).unwrap();
    let groups = vec![
        FitGroup {
            name: "block".into(),
            vertices: (0..64).collect(),
        },
        FitGroup {
            name: "sheet".into(),
            vertices: (64..160).collect(),
        },
    ];
    let options = FitOptions {
        bound: Bound::MaxError(1e-4),
        frames: FrameMode::Auto,
        ..FitOptions::default()
    };
    let checked = fit_checked(&anim, &groups, &options).unwrap();
    let r = &checked.report;
    assert_eq!((r.groups[0].frame, r.groups[0].rank), (true, 1));
    assert_eq!((r.groups[1].frame, r.groups[1].rank), (false, 2));
    assert!(r.max_error <= 1e-4);
    let m = &checked.motion;
    assert_eq!(m.local_frames, 1);
    assert_eq!((m.groups[0].parent, m.groups[1].parent), (0, -1));
    assert!(
        r.text("x.bin", "x.pc2")
            .contains("(1 of 2 groups, 1 frame written)")
    );
}

/// `blocks` blocks of 64 points side by side along y (each centred on
/// x = 0), [`tumbled`] as one body, each swelling in x about its own
/// centre with its own phase.
fn one_body_of_blocks(blocks: usize, frames: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for t in 0..frames {
        for b in 0..blocks {
            let swell = 1.0 + 0.05 * (0.4 * t as f64 + b as f64).sin();
            for i in 0..64 {
                let p = [
                    swell * ((i % 4) as f64 - 1.5),
                    (i / 4 % 4) as f64 - 1.5 + 5.0 * b as f64,
                    (i / 16) as f64 - 1.5,
                ];
                out.extend(tumbled(p, t).map(|x| x as f32));
            }
        }
    }
    out
}

/// One group of each block of [`one_body_of_blocks`]: `block0`, `block1`…
pub(in crate::fit) fn block_groups(blocks: usize) -> Vec<FitGroup> {
    (0..blocks as u32)
        .map(|b| FitGroup {
            name: format!("block{b}"),
            vertices: (64 * b..64 * (b + 1)).collect(),
        })
        .collect()
}

/// `groups` of `anim` fitted within `max_error` at every vertex and
/// timestep, in frames as `frames` says.
pub(in crate::fit) fn fit_within(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    max_error: f64,
    frames: FrameMode,
) -> Checked {
    let options = FitOptions {
        bound: Bound::MaxError(max_error),
        frames,
        ..FitOptions::default()
    };
    fit_checked(anim, groups, &options).unwrap()
}

#[test]
fn parts_of_one_body_share_its_frame_under_auto() {
    // Four blocks turning as one body, each swelling on its own: in the
    // body's frame each is one shape. One shared frame costs 96 bytes a
    // timestep once; a frame each, four times; none, five more shapes each.
    let (blocks, frames) = (4, 60);
    let positions = one_body_of_blocks(blocks, frames);
    let anim = Animation::new(&positions, 64 * blocks, frames).unwrap();
    let groups = block_groups(blocks);
    let fit = |frames| fit_within(&anim, &groups, 1e-4, frames);
    let (auto, local) = (fit(FrameMode::Auto), fit(FrameMode::Local));
    let m = &auto.motion;
    assert_eq!(m.local_frames, 1, "one frame, shared");
    assert!(m.groups.iter().all(|g| g.parent == 0));
    assert!(auto.report.groups.iter().all(|g| g.rank == 1 && g.frame));
    assert!(auto.report.max_error <= 1e-4);
    assert_eq!(auto.report.local_frames, 1);
    assert!(
        auto.report
            .text("x.bin", "x.pc2")
            .contains("(4 of 4 groups, 1 frame written)")
    );
    assert_eq!(local.motion.local_frames, blocks);
    // The same ranks, three frames fewer.
    assert_eq!(
        local.bytes.len() - auto.bytes.len(),
        (blocks - 1) * frames * 96
    );
    // Decoded and deformed by the f64 reference, against the input.
    let decoded = formats::memg::decode(&auto.bytes).unwrap();
    let worst = worst_by_reference(&anim, &decoded);
    assert!(worst <= 1e-4 + 1e-6, "worst {worst:e}");
}

/// The largest distance between `anim` and `motion` deformed by the
/// tests' own `f64` reference, at every vertex and timestep.
pub(in crate::fit) fn worst_by_reference(
    anim: &Animation<'_>,
    motion: &formats::memg::MemgMotion,
) -> f64 {
    let scene = check::bare_scene(vec![[0.0; 3]; anim.vertices], motion);
    let binding = Binding::new(&scene, motion).unwrap();
    let mut worst = 0f64;
    for t in 0..anim.frames {
        let placed = deform_reference_f64(&scene, motion, &binding, t as f64);
        for (i, p) in placed.iter().enumerate() {
            let x = anim.point(t, i);
            worst = worst.max((0..3).map(|a| (p[a] - x[a]).powi(2)).sum::<f64>().sqrt());
        }
    }
    worst
}

#[test]
fn many_groups_share_the_whole_mesh_s_frame() {
    // Past 64 groups only the whole mesh's frames are offered to share (a
    // fit more per group, not seventeen): 80 blocks of one turning body
    // take them, one frame written for all.
    let (blocks, frames) = (80, 20);
    let positions = one_body_of_blocks(blocks, frames);
    let anim = Animation::new(&positions, 64 * blocks, frames).unwrap();
    let groups = block_groups(blocks);
    // The body reaches 400 units out, where an f32 is 3e-5 apart: a bound
    // the deformer's f32 arithmetic can hold there.
    let options = FitOptions {
        bound: Bound::MaxError(2e-3),
        frames: FrameMode::Auto,
        ..FitOptions::default()
    };
    let auto = fit_checked(&anim, &groups, &options).unwrap();
    assert_eq!(auto.motion.local_frames, 1);
    assert!(auto.motion.groups.iter().all(|g| g.parent == 0));
    assert!(auto.report.groups.iter().all(|g| g.rank == 1));
    assert!(auto.report.max_error <= 2e-3);
}
