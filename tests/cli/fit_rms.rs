//! `viewer memg fit --rms-error` (issue 47): a bound on each group's
//! root-mean-square error over its vertices and frames, checked on the
//! file written by the tests' own readers (the cache read by
//! tests/common/fit.rs, the motion evaluated in `f64` by the spec's formula,
//! tests/common/memg.rs, through fit_cli.rs's `group_errors`), not taken
//! from the fitter's report.

use super::fit_cli::{fit, group_errors, s};
use crate::common::fit::{obj_vertices, read_pc2};
use crate::common::memg::RawFile;
use crate::common::test_data;

#[test]
fn an_rms_bound_holds_in_every_group_and_makes_a_smaller_file_than_a_max_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (obj, pc2) = (test_data("fit/flag.obj"), test_data("fit/flag.pc2"));
    let cache = read_pc2(&pc2);
    let base = obj_vertices(&obj);
    let bound = 1e-3 * cache.diagonal();
    let bound_text = bound.to_string();
    let mut bytes = Vec::new();
    for option in ["--rms-error", "--max-error"] {
        let bin = dir.path().join(format!("flag{option}.bin"));
        let report = fit(&[s(&obj), s(&pc2), option, &bound_text, "--out", s(&bin)]);
        let raw = RawFile::parse(&std::fs::read(&bin).unwrap());
        for (g, (worst, rms)) in raw.groups.iter().zip(group_errors(&bin, &base, &cache)) {
            eprintln!(
                "{option} {bound:.3e}: group {} rank {}, RMS {rms:.3e}, max {worst:.3e}",
                g.name, g.u_shape.1
            );
            match option {
                "--rms-error" => {
                    assert!(rms <= bound, "{}: RMS {rms:e} over {bound:e}", g.name);
                    // An average budget: single vertices stray past it here.
                    assert!(worst > bound, "{}: max {worst:e}", g.name);
                    assert_eq!(report["rms_error_bound"].as_f64(), Some(bound));
                    assert!(report["max_error_bound"].is_null());
                }
                _ => assert!(worst <= bound, "{}: max {worst:e} over {bound:e}", g.name),
            }
        }
        bytes.push(std::fs::metadata(&bin).unwrap().len());
    }
    assert!(
        bytes[0] < bytes[1],
        "RMS bound {} bytes, max bound {}",
        bytes[0],
        bytes[1]
    );
}
