//! The shared affine frame on bodies whose answer is known: one that
//! turns, stretches and shears as a whole, in blocks that each wave along
//! a field of their own.

use super::file_bytes;
use crate::fit::tests::{block_groups, fit_within, tumbled, worst_by_reference};
use crate::fit::{Animation, FrameMode};
use crate::formats;

/// Two blocks of 64 points side by side, one body that turns
/// ([`tumbled`]), stretches and shears as a whole (`S_t`, not a rotation),
/// while each block waves along one fixed field of its own:
/// `R_t·S_t·(p + u·q_b(t))`.
fn stretched_body(frames: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for t in 0..frames {
        let tf = t as f64;
        let (sx, sz, shear) = (
            1.0 + 0.2 * (0.3 * tf).sin(),
            1.0 - 0.1 * (0.2 * tf).sin(),
            0.15 * (0.25 * tf).sin(),
        );
        for b in 0..2 {
            let q = (0.5 * tf + b as f64).sin();
            for i in 0..64 {
                let p = [
                    (i % 4) as f64 - 1.5 + 5.0 * b as f64,
                    (i / 4 % 4) as f64 - 1.5,
                    (i / 16) as f64 - 1.5,
                ];
                let u = [0.0, 0.02 * p[0].sin(), 0.04 * (p[1] + b as f64).cos()];
                let y: [f64; 3] = std::array::from_fn(|a| p[a] + u[a] * q);
                let s = [sx * y[0] + shear * y[1], y[1], sz * y[2]];
                out.extend(tumbled(s, t).map(|x| x as f32));
            }
        }
    }
    out
}

#[test]
fn a_body_that_stretches_takes_one_affine_frame_under_auto() {
    // In rigid frames the stretch and the shear each cost every block
    // columns of basis; in one affine frame, shared, each block is one
    // column: the wave.
    let frames = 60;
    let positions = stretched_body(frames);
    let anim = Animation::new(&positions, 128, frames).unwrap();
    let groups = block_groups(2);
    let fit = |frames| fit_within(&anim, &groups, 1e-3, frames);
    let (auto, local) = (fit(FrameMode::Auto), fit(FrameMode::Local));
    let r = &auto.report;
    assert!(r.affine_frame);
    assert!(!local.report.affine_frame);
    assert!(r.groups.iter().all(|g| g.rank == 1 && g.frame), "{r:?}");
    assert!(local.report.groups.iter().all(|g| g.rank > 1));
    assert!(auto.bytes.len() < local.bytes.len());
    assert_eq!(
        file_bytes(&groups, &[true, true], &[1, 1], frames),
        auto.bytes.len() as u64
    );
    assert!(r.text("x.bin", "x.pc2").contains("one affine frame"));
    // The frames written are no rotations, nor rotations times a scale:
    // `AᵀA` is far from a multiple of the identity at some timestep.
    let decoded = formats::memg::decode(&auto.bytes).unwrap();
    assert_eq!(decoded.local_frames, 1);
    assert!(decoded.groups.iter().all(|g| g.parent == 0));
    let stretched = decoded.frames.iter().any(|m| {
        let gram = |a: usize, b: usize| (0..3).map(|i| m[4 * i + a] * m[4 * i + b]).sum::<f64>();
        let mean = (gram(0, 0) + gram(1, 1) + gram(2, 2)) / 3.0;
        (0..3).any(|a| {
            (0..3).any(|b| {
                let identity = if a == b { mean } else { 0.0 };
                (gram(a, b) - identity).abs() > 0.05 * mean
            })
        })
    });
    assert!(stretched);
    // Decoded and deformed by the f64 reference, against the input.
    let worst = worst_by_reference(&anim, &decoded);
    assert!(worst <= 1e-3 + 1e-6, "worst {worst:e}");
}

#[test]
fn a_vertex_on_a_seam_is_fitted_once_in_the_lower_rank_group() {
    // The stretched body's blocks, the first holding also the second's
    // first 16 vertices (a seam). The rigid fit needs more columns for the
    // first block, which then follows both waves; in the affine frame the
    // seam's vertices are fitted in the second block alone, as the viewer
    // draws them, each block one column.
    let frames = 60;
    let positions = stretched_body(frames);
    let anim = Animation::new(&positions, 128, frames).unwrap();
    let mut groups = block_groups(2);
    groups[0].vertices.extend(64..80);
    let fit = |frames| fit_within(&anim, &groups, 1e-3, frames);
    let (auto, local) = (fit(FrameMode::Auto), fit(FrameMode::Local));
    assert!(auto.report.affine_frame);
    // Rigid frames keep both copies, each within the bound.
    let mapped =
        |m: &formats::memg::MemgMotion| m.groups.iter().map(|g| g.mapping.len()).sum::<usize>();
    assert_eq!(mapped(&local.motion), 144);
    let (r0, r1) = (local.report.groups[0].rank, local.report.groups[1].rank);
    assert!(r0 > r1, "{r0} {r1}");
    // The affine fit maps every vertex once, the seam in the second block.
    let decoded = formats::memg::decode(&auto.bytes).unwrap();
    assert_eq!(mapped(&decoded), 128);
    let second: Vec<u32> = decoded.groups[1].mapping.clone();
    assert_eq!(second, (65..=128).collect::<Vec<u32>>(), "1-based");
    assert_eq!(
        auto.report
            .groups
            .iter()
            .map(|g| (g.vertices, g.rank))
            .collect::<Vec<_>>(),
        [(64, 1), (64, 1)]
    );
    // The file of the blocks without the seam, to the byte.
    assert_eq!(
        file_bytes(&block_groups(2), &[true, true], &[1, 1], frames),
        auto.bytes.len() as u64
    );
    let worst = worst_by_reference(&anim, &decoded);
    assert!(worst <= 1e-3 + 1e-6, "worst {worst:e}");
}
