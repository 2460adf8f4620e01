//! `viewer info` and `viewer export` on the committed sample scene, checked
//! against the test's own reading of the files and the spec's formula.
use crate::common;
use common::data;

use crate::common::memg as memg_common;

use memg_common::RawFile;
use std::path::Path;

fn viewer(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let out = crate::app::viewer().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `v` lines and the group names (in order) of an `.obj` text.
fn obj_vertices_and_groups(text: &str) -> (Vec<[f64; 3]>, Vec<String>, Vec<String>) {
    let mut v = Vec::new();
    let mut groups = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        match w.next() {
            Some("v") => {
                let p: Vec<f64> = w.map(|x| x.parse().unwrap()).collect();
                v.push([p[0], p[1], p[2]]);
            }
            Some("g") => groups.push(w.collect::<Vec<_>>().join(" ")),
            Some("f") => faces.push(line.to_string()),
            _ => {}
        }
    }
    (v, groups, faces)
}

#[test]
fn export_frame_matches_the_formula() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame10.obj");
    viewer(&[
        "export".as_ref(),
        data("flags.obj").as_os_str(),
        data("flags.bin").as_os_str(),
        "--frame".as_ref(),
        "10".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let input = std::fs::read_to_string(data("flags.obj")).unwrap();
    let (base, groups, faces) = obj_vertices_and_groups(&input);
    let raw = RawFile::parse(&std::fs::read(data("flags.bin")).unwrap());
    let bound: Vec<&str> = raw
        .groups
        .iter()
        .map(|g| g.name.as_str())
        .filter(|n| groups.iter().any(|g| g == n))
        .collect();
    assert!(bound.len() >= 4, "{bound:?}");
    let expected = raw.evaluate(&base, &bound, 10);
    let (got, out_groups, out_faces) =
        obj_vertices_and_groups(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(out_groups, groups);
    assert_eq!(out_faces, faces);
    assert_eq!(got.len(), expected.len());
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in &expected {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let diag = (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt();
    let mut moved = 0;
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        for a in 0..3 {
            assert!(
                (g[a] - e[a]).abs() <= 1e-5 * diag,
                "vertex {i}: {g:?} vs {e:?}"
            );
        }
        moved += usize::from(base[i] != *e);
    }
    assert!(moved > 1000, "only {moved} vertices moved");

    // --time 1/3 s at 30 fps is timestep 10 too.
    let out2 = dir.path().join("time.obj");
    viewer(&[
        "export".as_ref(),
        data("flags.obj").as_os_str(),
        data("flags.bin").as_os_str(),
        "--time".as_ref(),
        (1.0f64 / 3.0).to_string().as_ref(),
        "--out".as_ref(),
        out2.as_os_str(),
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());

    // Past the end is a clear error.
    let err = crate::app::viewer()
        .args([
            "export".as_ref(),
            data("flags.obj").as_os_str(),
            data("flags.bin").as_os_str(),
        ])
        .args(["--frame", "100000", "--out"])
        .arg(dir.path().join("x.obj"))
        .output()
        .unwrap();
    assert!(!err.status.success());
    assert!(String::from_utf8_lossy(&err.stderr).contains("timestep 100000"));
}

#[test]
fn info_on_a_big_endian_copy_reports_the_same_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut raw = RawFile::parse(&std::fs::read(data("flags.bin")).unwrap());
    assert!(!raw.big_endian);
    raw.big_endian = true;
    let be_bin = dir.path().join("flags_be.bin");
    std::fs::write(&be_bin, raw.bytes()).unwrap();
    let info = |bin: &Path| -> serde_json::Value {
        let out = viewer(&[
            "info".as_ref(),
            "--json".as_ref(),
            data("flags.obj").as_os_str(),
            bin.as_os_str(),
        ]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v[0].clone()
    };
    let le = info(&data("flags.bin"));
    let be = info(&be_bin);
    assert_eq!(le["byte_order"], "little");
    assert_eq!(be["byte_order"], "big");
    assert_eq!(le["groups"], be["groups"]);
    assert_eq!(be["format"], "memg");
    assert_eq!(be["timesteps"], raw.n);
    assert_eq!(be["local_frames"], raw.k);
    assert_eq!(be["fps"], raw.fps);
    assert_eq!(be["duration_s"], f64::from(raw.n - 1) / f64::from(raw.fps));
    let groups = be["groups"].as_array().unwrap();
    assert_eq!(groups.len(), raw.groups.len());
    for (g, r) in groups.iter().zip(&raw.groups) {
        assert_eq!(g["name"], r.name.as_str());
        assert_eq!(g["vertices"], r.mapping.len());
        assert_eq!(g["basis"], r.u_shape.1);
        assert_eq!(g["parent"], r.parent);
        assert_eq!(g["in_scene"], true);
    }
    assert!(raw.groups.iter().any(|g| g.parent == -1));
    let text = std::fs::read_to_string(data("flags.obj")).unwrap();
    assert_eq!(
        be["vertices"],
        text.lines().filter(|l| l.starts_with("v ")).count()
    );
}
