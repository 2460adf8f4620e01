//! The writer against what a careless user or an attacker puts at its
//! paths: old files, links, devices, pipes, long names, failures part way.

use super::*;
use std::io::Read;

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failed_body_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.csv");
    let e = write_atomic(&out, |w| {
        w.write_all(b"half")?;
        Err(io::Error::other("refused"))
    })
    .unwrap_err();
    assert!(e.to_string().contains("x.csv"), "{e}");
    assert!(names_in(dir.path()).is_empty());
}

#[test]
fn a_failed_body_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.csv");
    std::fs::write(&out, b"old").unwrap();
    assert!(write_atomic(&out, |_| Err(io::Error::other("no"))).is_err());
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    write_atomic(&out, |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    assert_eq!(names_in(dir.path()), ["x.csv"]);
}

#[test]
fn an_unwritable_folder_is_named() {
    let e = write_atomic(Path::new("/nonexistent-dir/x.json"), |w| w.write_all(b"{}")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent-dir/x.json"), "{e}");
}

#[test]
fn a_name_of_250_bytes_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.csv", "n".repeat(246));
    assert_eq!(name.len(), 250);
    let out = dir.path().join(&name);
    write_atomic(&out, |w| w.write_all(b"t\n")).unwrap();
    assert_eq!(names_in(dir.path()), [name]);
}

#[cfg(unix)]
#[test]
fn links_at_the_destination_and_at_the_old_temporary_names_are_not_followed() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.path().join("x.csv");
    // The name the writer used to take for its partial file, and a few more
    // a guesser might plant: none is opened.
    for planted in [
        format!(".x.csv.partial-{}", std::process::id()),
        ".mv-.partial".to_string(),
        ".x.csv.tmp".to_string(),
    ] {
        symlink(&victim, dir.path().join(planted)).unwrap();
    }
    // The destination itself is a link: the link is replaced by the new
    // file; what it pointed to is left alone.
    symlink(&victim, &out).unwrap();
    write_atomic(&out, |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    assert!(out.symlink_metadata().unwrap().file_type().is_file());
}

#[cfg(unix)]
#[test]
fn a_folder_or_a_socket_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_atomic(dir.path(), |w| w.write_all(b"x")).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NotWritable {
                what: "a folder",
                ..
            }
        ),
        "{e}"
    );
    let sock = dir.path().join("s.csv");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let e = write_atomic(&sock, |w| w.write_all(b"x")).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NotWritable {
                what: "a socket",
                ..
            }
        ),
        "{e}"
    );
}

/// Makes a named pipe at `path`.
#[cfg(unix)]
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string; the call only creates a file system node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[cfg(unix)]
#[test]
fn a_pipe_is_written_as_a_stream_and_stays_a_pipe() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("rows.csv");
    mkfifo(&fifo);
    // No reader: refused at once, not waited on.
    let e = write_atomic(&fifo, |w| w.write_all(b"x")).unwrap_err();
    assert!(e.to_string().contains("no reader"), "{e}");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    // Wait for the reader to open its end.
    let mut out = loop {
        match Output::create(&fifo) {
            Ok(out) => break out,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    };
    assert!(out.is_stream());
    out.writer().write_all(b"t,x\n0,1\n").unwrap();
    out.commit().unwrap();
    assert_eq!(reader.join().unwrap(), "t,x\n0,1\n");
    assert!(fifo.metadata().unwrap().file_type().is_fifo());
    assert_eq!(names_in(dir.path()), ["rows.csv"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_device_is_written_in_place_and_a_full_one_reports_it() {
    use std::os::unix::fs::FileTypeExt;
    // /dev/null swallows the bytes and stays a device.
    let mut out = Output::create(Path::new("/dev/null")).unwrap();
    assert!(out.is_stream());
    out.writer().write_all(&[0; 100_000]).unwrap();
    out.commit().unwrap();
    assert!(
        Path::new("/dev/null")
            .metadata()
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // /dev/full fails every write: the error comes back, naming it.
    if Path::new("/dev/full").exists() {
        let e = write_atomic(Path::new("/dev/full"), |w| w.write_all(&[0; 100_000])).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("/dev/full: "), "{text}");
        assert!(text.to_lowercase().contains("space"), "{text}");
    }
}

/// As root, a device node made in a temporary folder with a name an export
/// picks (`x.csv`) stays a device after being written to.
#[cfg(target_os = "linux")]
#[test]
fn a_device_node_named_like_an_output_is_not_replaced() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::FileTypeExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("notice: not root; the FIFO test covers a non-regular output");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("x.csv");
    let c = std::ffi::CString::new(node.as_os_str().as_bytes()).unwrap();
    // The same device as /dev/null (1, 3).
    // SAFETY: a valid C string; the call only creates a file system node.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made != 0 {
        eprintln!("notice: mknod refused here (a container without CAP_MKNOD); skipped");
        return;
    }
    write_atomic(&node, |w| w.write_all(b"t,x\n")).unwrap();
    assert!(node.metadata().unwrap().file_type().is_char_device());
    assert_eq!(names_in(dir.path()), ["x.csv"]);
}

#[test]
fn a_set_writes_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("b.csv");
    std::fs::write(&keep, b"old b").unwrap();
    // One member fails while being written: nothing appears, the old file stays.
    let mut set = OutputSet::new();
    set.add(&dir.path().join("a.csv"))
        .unwrap()
        .writer()
        .write_all(b"a")
        .unwrap();
    set.add(&keep)
        .unwrap()
        .writer()
        .write_all(b"new b")
        .unwrap();
    let third = set.add(&dir.path().join("c.csv"));
    assert!(third.is_ok());
    drop(set); // the caller gave up at its third file
    assert_eq!(names_in(dir.path()), ["b.csv"]);
    assert_eq!(std::fs::read(&keep).unwrap(), b"old b");

    // Committed: all three appear.
    let mut set = OutputSet::new();
    for name in ["a.csv", "b.csv", "c.csv"] {
        set.add(&dir.path().join(name))
            .unwrap()
            .writer()
            .write_all(name.as_bytes())
            .unwrap();
    }
    assert!(set.add(&dir.path().join("a.csv")).is_err(), "a name twice");
    assert_eq!(set.commit().unwrap().len(), 3);
    assert_eq!(names_in(dir.path()), ["a.csv", "b.csv", "c.csv"]);
    assert_eq!(std::fs::read(&keep).unwrap(), b"b.csv");
}

#[cfg(unix)]
#[test]
fn a_new_file_has_a_plain_creates_mode_and_a_replaced_one_keeps_its_own() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &Path| p.metadata().unwrap().permissions().mode() & 0o7777;
    // What a plain create gives here: 0666 less this process's umask.
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let out = dir.path().join("x.csv");
    write_atomic(&out, |w| w.write_all(b"t\n")).unwrap();
    assert_eq!(mode(&out), mode(&plain));
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&out, |w| w.write_all(b"u\n")).unwrap();
    assert_eq!(mode(&out), 0o640);
}

#[test]
fn a_set_failing_while_placing_undoes_what_it_did_and_only_that() {
    let dir = tempfile::tempdir().unwrap();
    let (new, old, blocked) = (
        dir.path().join("x.csv"),
        dir.path().join("y.csv"),
        dir.path().join("z.csv"),
    );
    std::fs::write(&old, b"old y").unwrap();
    let mut set = OutputSet::new();
    for (path, text) in [(&new, "x"), (&old, "y"), (&blocked, "z")] {
        set.add(path)
            .unwrap()
            .writer()
            .write_all(text.as_bytes())
            .unwrap();
    }
    // The last name is taken by a folder holding a file, after the set
    // checked it: its rename fails once the first two are in place.
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("keep"), b"k").unwrap();
    let e = set.commit().unwrap_err();
    assert!(e.to_string().contains("z.csv"), "{e}");
    // The file the set created is gone again, the one it replaced is back
    // as it was, the folder is untouched, and no temporary file is left.
    assert_eq!(names_in(dir.path()), ["y.csv", "z.csv"]);
    assert_eq!(std::fs::read(&old).unwrap(), b"old y");
    assert_eq!(std::fs::read(blocked.join("keep")).unwrap(), b"k");
}
