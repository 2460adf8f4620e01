//! The real AIBO motions the workbench tests run on: the 588 motions of the
//! four Sony ODA archives, the 27 loose corpus files and the two seeds.
#![allow(dead_code)] // each test file uses a different part

use crate::common::{data, test_data};
use motion_viewer::formats::mtn::{self, Mtn, read_oda};

/// The four archives, with the number of entries each holds.
pub const ARCHIVES: [(&str, usize); 4] = [
    ("ers110_Motion.ODA", 94),
    ("ers110_SYSMTN.ODA", 457),
    ("ers210_MOTION.ODA", 25),
    ("ers7_MOTION7.ODA", 12),
];

/// Every real motion: a label (`archive:entry` or the file) and its bytes.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (archive, _) in ARCHIVES {
        let bytes = std::fs::read(test_data("oda").join(archive)).unwrap();
        for e in read_oda(&bytes).unwrap() {
            out.push((format!("{archive}:{}", e.name), bytes[e.data].to_vec()));
        }
    }
    let mut loose = Vec::new();
    for dir in std::fs::read_dir(test_data("mtn")).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                loose.push(f.unwrap().path());
            }
        }
    }
    loose.push(data("sony_stand_sit.mtn"));
    loose.push(data("skitter_sleep_to_sit.mtn"));
    loose.sort();
    for path in loose {
        let bytes = std::fs::read(&path).unwrap();
        out.push((path.display().to_string(), bytes));
    }
    out
}

/// Every real motion decoded.
pub fn motions() -> Vec<(String, Vec<u8>, Mtn)> {
    corpus()
        .into_iter()
        .map(|(label, bytes)| {
            let m = mtn::decode(&bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
            (label, bytes, m)
        })
        .collect()
}

/// Micro-radians to degrees, written out here rather than taken from the library.
pub fn deg(urad: f64) -> f64 {
    urad * 180.0 / (1_000_000.0 * std::f64::consts::PI)
}
