//! How fast the simulator runs: simulated seconds per wall second, one
//! motion on one thread, then every motion given on the threads rayon has
//! (`RAYON_NUM_THREADS=2` for two cores). BENCHMARKS.md quotes it:
//!
//! ```sh
//! cargo run --release -p motion-viewer --features physics --example simulate_speed -- \
//!     data/sony_stand_sit.mtn tests/data/oda/*.ODA tests/data/mtn/*/*
//! ```
//!
//! With `--mjcf DIR` first, it also writes each motion's MJCF (`DIR/m0000.xml`…)
//! and one JSON line per motion to `DIR/ours.jsonl` (its verdict, its kind and
//! its body's position every 80 ms of the first second), for
//! `tests/readers/compare_corpus.py` to set beside MuJoCo's.

use motion_viewer::Track;
use motion_viewer::physics::simulate;
use rayon::prelude::*;
use std::io::Write as _;
use std::time::Instant;

/// What a motion does (the rule of tests/readers/mjcf.rs): `walk` or `kick`
/// by name, else by where its last keyframe leaves the paws.
fn kind(label: &str, m: &motion_viewer::formats::mtn::Mtn) -> &'static str {
    let name = format!("{label} {}", m.name).to_ascii_lowercase();
    if name.contains("walk") {
        return "walk";
    }
    if name.contains("kick") {
        return "kick";
    }
    let rig = motion_viewer::anim::aibo::MtnRig::new(m);
    let end = rig.keyframe_times_s().last().copied().unwrap_or(0.0);
    let (_, pose) = rig.pose(end);
    let z = |p: &str| pose.world_point(p).map_or(0.0, |q| q[2]);
    let front = -(z("left_front_paw") + z("right_front_paw")) / 2.0;
    let hind = -(z("left_hind_paw") + z("right_hind_paw")) / 2.0;
    if front.min(hind) < 60.0 {
        "lie"
    } else if front - hind >= 40.0 {
        "sit"
    } else {
        "stand"
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let mjcf = if args.first().is_some_and(|a| a == "--mjcf") {
        args.remove(0);
        Some(std::path::PathBuf::from(args.remove(0)))
    } else {
        None
    };
    let paths: Vec<std::path::PathBuf> = args.into_iter().map(Into::into).collect();
    // Bare archives open every motion entry (the front door's default).
    let tracks = motion_viewer::open_with(&paths, &motion_viewer::OpenOptions::default())?.tracks;
    let motions: Vec<(String, &motion_viewer::formats::mtn::Mtn)> = tracks
        .iter()
        .filter_map(|t| match t {
            Track::Mtn { path, motion, .. } => Some((path.display().to_string(), motion)),
            _ => None,
        })
        .collect();
    let (name, first) = &motions[0];
    let started = Instant::now();
    let sim = simulate(first, name)?;
    let wall = started.elapsed().as_secs_f64();
    println!(
        "one motion ({name}): {:.2} simulated s in {wall:.3} wall s: {:.1}x real time",
        sim.verdict.simulated_s,
        sim.verdict.simulated_s / wall
    );
    let started = Instant::now();
    let all: Vec<_> = motions
        .par_iter()
        .map(|(name, m)| simulate(m, name))
        .collect();
    let wall = started.elapsed().as_secs_f64();
    let ok: Vec<_> = all.iter().filter_map(|r| r.as_ref().ok()).collect();
    let simulated: f64 = ok.iter().map(|s| s.verdict.simulated_s).sum();
    println!(
        "{} motions ({} simulated, {} refused) on {} threads: {simulated:.1} simulated s in {wall:.2} wall s: {:.1}x real time",
        motions.len(),
        ok.len(),
        all.len() - ok.len(),
        rayon::current_num_threads(),
        simulated / wall
    );
    if let Some(dir) = mjcf {
        std::fs::create_dir_all(&dir)?;
        let mut out = std::fs::File::create(dir.join("ours.jsonl"))?;
        for (i, ((label, m), sim)) in motions.iter().zip(&all).enumerate() {
            let Ok(sim) = sim else { continue };
            let file = dir.join(format!("m{i:04}.xml"));
            motion_viewer::export::mjcf::write(sim.verdict.model, Some(m), &file)?;
            let trajectory: Vec<[f64; 4]> = sim
                .frames
                .iter()
                .filter(|f| f.t <= 1.0 + 1e-9)
                .map(|f| [f.t, f.position[0], f.position[1], f.position[2]])
                .collect();
            let line = serde_json::json!({
                "label": label,
                "file": file,
                "kind": kind(label, m),
                "verdict": sim.verdict,
                "trajectory": trajectory,
            });
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
