//! How fast the simulator runs: simulated seconds per wall second, one
//! motion on one thread, then every motion given on the threads rayon has
//! (`RAYON_NUM_THREADS=2` for two cores). BENCHMARKS.md quotes it:
//!
//! ```sh
//! cargo run --release -p motion-viewer --features physics --example simulate_speed -- \
//!     data/sony_stand_sit.mtn tests/data/oda/*.ODA tests/data/mtn/*/*
//! ```

use motion_viewer::Track;
use motion_viewer::physics::simulate;
use rayon::prelude::*;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<std::path::PathBuf> = std::env::args_os().skip(1).map(Into::into).collect();
    let (tracks, _) =
        motion_viewer::scene::load_with(&paths, motion_viewer::scene::Archives::EveryMotion)?;
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
    Ok(())
}
