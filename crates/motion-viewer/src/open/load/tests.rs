//! Loading from bytes, pairing, and the rules for files from strangers.

use super::*;
use crate::open::materials::{DiskMaterials, InputMaterials, MAX_MATERIAL_BYTES};

/// Materials handed over as a fixed map, for tests.
struct Fixed;
impl Materials for Fixed {
    fn read(&self, _: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        match lib {
            "a.mtl" => Ok(b"newmtl red\nKd 1 0 0\n".to_vec()),
            _ => Err(std::io::Error::other("missing")),
        }
    }
}

fn memg_bytes() -> Vec<u8> {
    let motion = memg::MemgMotion {
        fps: 30,
        timesteps: 1,
        ..Default::default()
    };
    memg::encode(&motion, crate::formats::bytes::ByteOrder::Little)
}

#[test]
fn pairs_by_stem_then_nearest() {
    let obj = b"mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n".to_vec();
    let inputs = vec![
        Input::from_bytes("one.obj", obj.clone()),
        Input::from_bytes("two.obj", obj),
        Input::from_bytes("two.bin", memg_bytes()),
        Input::from_bytes("x.bin", memg_bytes()),
    ];
    let (tracks, warnings) = load_inputs(&inputs, &Fixed).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let objs: Vec<_> = tracks
        .iter()
        .map(|t| match t {
            Track::Memg {
                obj_path, scene, ..
            } => {
                assert_eq!(scene.materials[0].diffuse, [1.0, 0.0, 0.0]);
                obj_path.display().to_string()
            }
            _ => panic!("not MEMG"),
        })
        .collect();
    // two.bin takes two.obj by its stem; x.bin the nearest free one before it.
    assert_eq!(objs, ["two.obj", "one.obj"]);
}

#[test]
fn unread_material_is_a_warning_naming_the_obj() {
    let obj = b"mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec();
    let inputs = vec![
        Input::from_bytes("s.obj", obj),
        Input::from_bytes("s.bin", memg_bytes()),
    ];
    let (_, warnings) = load_inputs(&inputs, &Fixed).unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("s.obj: material library gone.mtl: missing"));
}

#[test]
fn lone_obj_and_lone_motion_are_errors() {
    let obj = b"v 0 0 0\n".to_vec();
    let e = load_inputs(&[Input::from_bytes("s.obj", obj)], &Fixed).unwrap_err();
    assert!(e.to_string().contains("s.obj"), "{e}");
    let e = load_inputs(&[Input::from_bytes("m.bin", memg_bytes())], &Fixed).unwrap_err();
    assert!(e.to_string().contains("needs its .obj"), "{e}");
}

#[test]
fn materials_among_inputs_by_file_name() {
    let inputs = vec![Input::from_bytes(
        "dir/a.mtl",
        b"newmtl m\nKd 0 1 0\n".to_vec(),
    )];
    let found = InputMaterials(&inputs).read(Path::new("x.obj"), "sub/a.mtl");
    assert_eq!(found.unwrap(), b"newmtl m\nKd 0 1 0\n");
    assert!(
        InputMaterials(&inputs)
            .read(Path::new("x.obj"), "b.mtl")
            .is_err()
    );
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn disk_materials_follow_only_plain_relative_files() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("s.obj");
    std::fs::write(dir.path().join("a.mtl"), b"newmtl m\n").unwrap();
    assert_eq!(DiskMaterials.read(&obj, "a.mtl").unwrap(), b"newmtl m\n");
    assert_eq!(DiskMaterials.read(&obj, "./a.mtl").unwrap(), b"newmtl m\n");
    for bad in ["/dev/zero", "../a.mtl", "sub/../../a.mtl"] {
        let e = DiskMaterials.read(&obj, bad).unwrap_err().to_string();
        assert!(e.contains("relative"), "{bad}: {e}");
    }
    // A folder (like a device or a pipe) is not a regular file.
    std::fs::create_dir(dir.path().join("d.mtl")).unwrap();
    assert!(
        DiskMaterials
            .read(&obj, "d.mtl")
            .unwrap_err()
            .to_string()
            .contains("not a regular file")
    );
    // Over the size cap.
    let big = std::fs::File::create(dir.path().join("big.mtl")).unwrap();
    big.set_len(MAX_MATERIAL_BYTES + 1).unwrap();
    assert!(
        DiskMaterials
            .read(&obj, "big.mtl")
            .unwrap_err()
            .to_string()
            .contains("more than")
    );
}

#[cfg(unix)]
fn fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_at_once_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("motion.bin");
    fifo(&pipe);
    let e = Input::read(&pipe).unwrap_err().to_string();
    assert!(
        e.ends_with("motion.bin: a named pipe, not a regular file; not read"),
        "{e}"
    );
    let e = Input::read(Path::new("/dev/zero")).unwrap_err().to_string();
    assert_eq!(e, "/dev/zero: a device, not a regular file; not read");
    let obj = dir.path().join("s.obj");
    fifo(&dir.path().join("p.mtl"));
    let e = DiskMaterials.read(&obj, "p.mtl").unwrap_err().to_string();
    assert!(
        e.ends_with("p.mtl: a named pipe, not a regular file; not read"),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn disk_materials_follow_links_only_inside_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("s.obj");
    std::fs::write(dir.path().join("a.mtl"), b"newmtl m\n").unwrap();
    std::os::unix::fs::symlink("a.mtl", dir.path().join("in.mtl")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.mtl")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("b.mtl"), b"newmtl m\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("b.mtl"), dir.path().join("out.mtl")).unwrap();
    assert_eq!(DiskMaterials.read(&obj, "in.mtl").unwrap(), b"newmtl m\n");
    for bad in ["zero.mtl", "out.mtl"] {
        let e = DiskMaterials.read(&obj, bad).unwrap_err().to_string();
        assert!(e.contains("leads out of the .obj's folder"), "{bad}: {e}");
    }
    // An .obj named without a folder reads from the current one.
    assert!(
        DiskMaterials
            .read(Path::new("s.obj"), "no-such-library.mtl")
            .unwrap_err()
            .to_string()
            .contains("no-such-library.mtl")
    );
}

#[test]
fn a_library_named_many_times_is_read_once_and_few_are_read() {
    use std::cell::Cell;
    struct Counting(Cell<usize>);
    impl Materials for Counting {
        fn read(&self, _: &Path, _: &str) -> std::io::Result<Vec<u8>> {
            self.0.set(self.0.get() + 1);
            Ok(b"newmtl red\nKd 1 0 0\n".to_vec())
        }
    }
    let many = "a.mtl ".repeat(10_000);
    let obj = format!("mtllib {many}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
    let inputs = vec![
        Input::from_bytes("s.obj", obj.into_bytes()),
        Input::from_bytes("s.bin", memg_bytes()),
    ];
    let counting = Counting(Cell::new(0));
    let (_, warnings) = load_inputs(&inputs, &counting).unwrap();
    assert_eq!(counting.0.get(), 1);
    assert!(warnings.is_empty(), "{warnings:?}");

    let libs: String = (0..40).map(|i| format!("l{i}.mtl ")).collect();
    let obj = format!("mtllib {libs}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    let inputs = vec![
        Input::from_bytes("s.obj", obj.into_bytes()),
        Input::from_bytes("s.bin", memg_bytes()),
    ];
    let counting = Counting(Cell::new(0));
    let (_, warnings) = load_inputs(&inputs, &counting).unwrap();
    assert_eq!(
        counting.0.get(),
        crate::formats::obj::MAX_MATERIAL_LIBRARIES
    );
    assert_eq!(
        warnings,
        ["s.obj: 40 material libraries named; only the first 16 are read"]
    );
}

#[test]
fn a_material_library_over_the_cap_among_inputs_is_refused() {
    let inputs = vec![Input::from_bytes(
        "big.mtl",
        vec![b' '; MAX_MATERIAL_BYTES as usize + 1],
    )];
    let e = InputMaterials(&inputs)
        .read(Path::new("x.obj"), "big.mtl")
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than the 1048576"), "{e}");
}

fn names(tracks: &[Track]) -> Vec<String> {
    tracks.iter().map(Track::name).collect()
}

#[test]
fn archives_in_memory_load_as_asked() {
    let input = || Input::from_bytes("pack.ODA", crate::open::archive::test_archive());
    let load = |input: Input, archives| {
        let rules = Rules {
            archives,
            ..Rules::default()
        };
        load_inputs_as(&[input], &DiskMaterials, rules).map(|decoded| decoded.tracks)
    };
    let tracks = load(input(), Archives::EveryMotion).unwrap();
    assert_eq!(names(&tracks), ["stand_sit", "sleep_sit"]);
    assert_eq!(tracks[0].path(), Path::new("pack.ODA:stand_sit"));
    assert_eq!(tracks[0].duration_s(), 4.88);
    let tracks = load(input(), Archives::FirstMotion).unwrap();
    assert_eq!(names(&tracks), ["stand_sit"]);
    let tracks = load(input().with_entry("sleep_sit"), Archives::Ask).unwrap();
    assert_eq!(names(&tracks), ["sleep_sit"]);

    let e = load(input(), Archives::Ask).unwrap_err().to_string();
    assert_eq!(
        e,
        "pack.ODA: an ODA archive: name one entry as pack.ODA:NAME or with --entry NAME; \
         3 entries: bark, stand_sit, sleep_sit"
    );
    let e = load(input().with_entry("bark"), Archives::Ask)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "pack.ODA:bark: a WAVE entry, not a motion");
}

#[test]
fn an_entry_path_reads_the_entry_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("pack.ODA");
    std::fs::write(&pack, crate::open::archive::test_archive()).unwrap();
    let named = archive::entry_path(&pack, "stand_sit");
    assert_eq!(
        Input::read(&named).unwrap().named_bytes().unwrap(),
        crate::open::archive::test_archive()[64 + 3 * 144 + 8..][..1164]
    );
}
