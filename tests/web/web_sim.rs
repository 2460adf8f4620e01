//! The simulated dog in the page (X), in headless Chromium: with the seed's
//! stand–sit and a motion built to fall open, `#status` gives each verdict
//! — falls, fall time, peak tilt, lowest body height — equal to `viewer
//! simulate --json`'s to the last digit: the simulator is deterministic
//! across the desktop and wasm. Prints the page's simulated seconds per
//! wall second (BENCHMARKS.md).
//!
//! Needs what `web_page` needs; without it the test says so and passes,
//! unless `CI` is set.

use super::web_page::{ready, run_page_with};
use crate::common::repo;

#[test]
fn the_page_simulates_each_motion_as_the_cli_does_to_the_last_digit() {
    let Some(dist) = ready() else { return };
    let dir = tempfile::tempdir().unwrap();
    let motions = [
        repo("data/sony_stand_sit.mtn"),
        crate::app::built_to_fall(dir.path()),
    ];
    let files = std::env::join_paths(&motions).unwrap();
    let (result, _) = run_page_with(&dist, "sim", &[("SIM_FILES", files.as_os_str())]);
    let sim = &result["sim"];
    assert_eq!(sim["mode"], "beside", "{sim}");
    let tracks = sim["tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), 2, "{sim}");
    let mut simulated_s = 0.0;
    for (page, motion) in tracks.iter().zip(&motions) {
        let cli = crate::app::simulate_json(motion);
        assert_eq!(page["state"], "done", "{page}");
        for field in ["falls", "fall_time_s", "peak_tilt_deg", "min_body_height_m"] {
            assert_eq!(page[field], cli[field], "{field}: page {page}, CLI {cli}");
        }
        simulated_s += cli["simulated_s"].as_f64().unwrap();
        let text = page["text"].as_str().unwrap();
        let want = if cli["falls"] == true {
            "simulated: falls at "
        } else {
            "simulated: stands "
        };
        assert!(text.starts_with(want), "{text}");
    }
    assert_eq!(tracks[1]["falls"], true, "the table is built to fall");
    let wall = result["wall_s"].as_f64().unwrap();
    eprintln!(
        "page: {simulated_s:.2} simulated s in {wall:.2} wall s from X to the last verdict \
         ({:.1}x real time, {})",
        simulated_s / wall,
        result["backend"]
    );
}
