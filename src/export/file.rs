//! Writing an output file safely: all or nothing, and never over an input.
//!
//! [`write_atomic`] writes beside the target under a temporary name and
//! renames it into place only when every byte is written, so a failure (a
//! full disk, a refused export, an interrupted run) leaves no partial file
//! and the old file, if any, untouched.

use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Refuses `out` if it names one of `inputs` (the same file, by path or
/// through a link; for an archive entry `ARCHIVE.ODA:NAME`, the archive),
/// unless `force`.
pub fn check_not_input(out: &Path, inputs: &[PathBuf], force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let Some(target) = canon(out) else {
        // An output that does not exist yet can't be an input.
        return Ok(());
    };
    if inputs
        .iter()
        .any(|i| canon(&crate::scene::archive::disk_file(i)).as_ref() == Some(&target))
    {
        return Err(Error::Invalid {
            file: out.display().to_string(),
            message: "is one of the input files; choose another output (or --force to replace it)"
                .into(),
        });
    }
    Ok(())
}

/// Writes `path` through `body` on a buffered writer; the file appears only
/// once `body` and the final flush succeed. An error names `path`.
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::Invalid {
            file: path.display().to_string(),
            message: "is not a file name".into(),
        })?
        .to_string_lossy();
    let temp = dir.join(format!(".{name}.partial-{}", std::process::id()));
    let fail = |e: std::io::Error| {
        let _ = std::fs::remove_file(&temp);
        Error::io(path.display(), e)
    };
    let file = std::fs::File::create(&temp).map_err(|e| Error::io(path.display(), e))?;
    let mut w = BufWriter::new(file);
    body(&mut w).map_err(fail)?;
    // The file is closed at the end of this statement, before the rename
    // (Windows refuses to rename an open file).
    w.into_inner()
        .map_err(|e| fail(e.into_error()))?
        .sync_all()
        .map_err(fail)?;
    std::fs::rename(&temp, path).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_body_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.csv");
        let e = write_atomic(&out, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("refused"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("x.csv"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_body_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.csv");
        std::fs::write(&out, b"old").unwrap();
        assert!(write_atomic(&out, |_| Err(std::io::Error::other("no"))).is_err());
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        write_atomic(&out, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_unwritable_folder_is_named() {
        let e =
            write_atomic(Path::new("/nonexistent-dir/x.json"), |w| w.write_all(b"{}")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent-dir/x.json"), "{e}");
    }

    #[test]
    fn inputs_are_not_overwritten_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.mtn");
        std::fs::write(&input, b"OMTN").unwrap();
        let same = dir.path().join(".").join("a.mtn");
        assert!(check_not_input(&same, std::slice::from_ref(&input), false).is_err());
        assert!(check_not_input(&same, std::slice::from_ref(&input), true).is_ok());
        let other = dir.path().join("b.mtn");
        assert!(check_not_input(&other, std::slice::from_ref(&input), false).is_ok());
    }
}
