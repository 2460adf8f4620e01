//! Sony ODA archives as inputs of every `viewer` subcommand.
use crate::common;
use common::test_data;

use crate::common::workbench as workbench_common;

use motion_viewer::formats::mtn::{self, read_oda};
use serde_json::Value;
use std::process::Output;
use workbench_common::ARCHIVES;

fn viewer<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(args: I) -> Output {
    crate::app::viewer().args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_motion_of_the_four_archives_opens_by_archive_and_name() {
    let mut total = 0;
    for (archive, count) in ARCHIVES {
        let path = test_data("oda").join(archive);
        let bytes = std::fs::read(&path).unwrap();
        let entries = read_oda(&bytes).unwrap();
        assert_eq!(entries.len(), count);
        let named: Vec<String> = entries
            .iter()
            .map(|e| format!("{}:{}", path.display(), e.name))
            .collect();
        let mut args = vec!["info".to_string(), "--json".to_string()];
        args.extend(named.iter().cloned());
        let v = json(&viewer(&args));
        let infos = v.as_array().unwrap();
        assert_eq!(infos.len(), count, "{archive}");
        for ((info, e), name) in infos.iter().zip(&entries).zip(&named) {
            let m = mtn::decode(&bytes[e.data.clone()]).unwrap();
            assert_eq!(info["file"], name.as_str());
            assert_eq!(info["name"], m.name.as_str(), "{name}");
            assert_eq!(info["keyframes"], m.keyframes.len(), "{name}");
            assert_eq!(info["frames"], m.total_frames(), "{name}");
        }
        // The bare archive: one object per entry, in table order, with its
        // name, kind and size, and for a motion the object `info` gives it.
        let bare = json(&viewer(["info", "--json", path.to_str().unwrap()]));
        let listed = bare.as_array().unwrap();
        assert_eq!(listed.len(), count, "{archive}");
        for ((entry, e), info) in listed.iter().zip(&entries).zip(infos) {
            assert_eq!(entry["format"], "oda-entry");
            assert_eq!(entry["name"], e.name.as_str());
            assert_eq!(entry["kind"], "OMTN");
            assert_eq!(entry["bytes"], e.data.len());
            assert_eq!(&entry["mtn"], info, "{archive}:{}", e.name);
        }
        total += count;
    }
    assert_eq!(total, 588);
}

#[test]
fn entry_flag_names_the_entry_for_info_export_and_bench() {
    let archive = test_data("oda/ers210_MOTION.ODA");
    let a = archive.to_str().unwrap();
    let v = json(&viewer(["info", "--json", "--entry", "sit_lose01", a]));
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["name"], "a_sit#sit_so4_lose2");
    assert_eq!(v[0]["file"], format!("{a}:sit_lose01"));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.json");
    let status = viewer(
        [
            "export",
            a,
            "--entry",
            "a_stand#sit_standard",
            "--time",
            "0",
            "--out",
        ]
        .iter()
        .map(std::ffi::OsStr::new)
        .chain([out.as_os_str()]),
    );
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let state: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(state.as_array().unwrap().len(), 1);
    assert_eq!(state[0]["joints"].as_array().unwrap().len(), 15);

    // The bench names the entry and measures its own bytes, not the archive's.
    let bytes = std::fs::read(&archive).unwrap();
    let e = read_oda(&bytes)
        .unwrap()
        .into_iter()
        .find(|e| e.name == "sit_lose01")
        .unwrap();
    let v = json(&viewer([
        "bench",
        "--json",
        "--runs",
        "1",
        &format!("{a}:sit_lose01"),
    ]));
    assert_eq!(v[0]["name"], "sit_lose01");
    assert_eq!(v[0]["bytes"], e.data.len());
}

#[test]
fn a_bare_archive_exports_every_motion_and_refuses_where_one_is_needed() {
    let archive = test_data("oda/ers7_MOTION7.ODA");
    let a = archive.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.csv");
    let done = viewer(["export", a, "--out", out.to_str().unwrap()]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 12);
    assert!(dir.path().join("all-12.csv").exists());

    // An entry's archive is an input: not overwritten by an export.
    let copy = dir.path().join("b.json");
    std::fs::copy(&archive, &copy).unwrap();
    let entry = format!("{}:a_sit#sit_so0_greet", copy.display());
    let out = viewer([
        "export",
        &entry,
        "--time",
        "0",
        "--out",
        copy.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("is one of the input files")
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&archive).unwrap()
    );

    // mtn verbs that read one motion need the entry named.
    let out = viewer(["mtn", "mirror", a, "--out", "x.mtn"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("an ODA archive: name one entry as"), "{err}");
    assert!(err.contains("12 entries: a_sit#sit_so0_greet, "), "{err}");
}

#[test]
fn unknown_entries_and_entries_of_non_archives_fail_in_one_line() {
    let archive = test_data("oda/ers7_MOTION7.ODA");
    let out = viewer(["info", &format!("{}:a_sit#nope", archive.display())]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "viewer: {}: no entry \"a_sit#nope\"; 12 entries: ",
            archive.display()
        )),
        "{err}"
    );
    // Names match ignoring case when only one entry fits.
    let v = json(&viewer([
        "info",
        "--json",
        &format!("{}:A_SIT#SIT_SO0_GREET", archive.display()),
    ]));
    assert_eq!(v[0]["name"], "a_sit#sit_so0_greet");

    let seed = common::data("sony_stand_sit.mtn");
    let err = String::from_utf8(viewer(["info", &format!("{}:x", seed.display())]).stderr).unwrap();
    assert!(
        err.contains("not an ODA archive, so it has no entry \"x\""),
        "{err}"
    );
    let err =
        String::from_utf8(viewer(["info", "--entry", "x", seed.to_str().unwrap()]).stderr).unwrap();
    assert_eq!(
        err,
        "viewer: --entry x: none of the files given is an ODA archive\n"
    );
}
