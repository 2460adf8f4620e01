//! Several output files that appear together or not at all.

use super::Output;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Several [`Output`]s committed as one: nothing is placed until every one
/// is written, flushed and synced; if one then fails to be placed, the files
/// this set has already created are removed again and the ones it replaced
/// are put back (each kept under a second name, a hard link, until all are
/// placed). It never removes a file it did not create.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// use motion_viewer::output::OutputSet;
/// use std::io::Write;
///
/// let mut set = OutputSet::new();
/// set.add(&dir.path().join("a.csv"))?.writer().write_all(b"t,x\n")?;
/// set.add(&dir.path().join("b.csv"))?.writer().write_all(b"t,y\n")?;
/// // Neither file exists until the set is committed.
/// assert!(!dir.path().join("a.csv").exists());
/// let written = set.commit()?;
/// assert_eq!(written.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct OutputSet {
    outputs: Vec<Output>,
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> OutputSet {
        OutputSet::default()
    }

    /// Starts writing `path` as part of the set; the same path twice is refused.
    pub fn add(&mut self, path: &Path) -> Result<&mut Output> {
        if self.outputs.iter().any(|o| o.path() == path) {
            return Err(Error::unsupported(path, "is named twice among the outputs"));
        }
        self.outputs.push(Output::create(path)?);
        Ok(self.outputs.last_mut().expect("just pushed"))
    }

    /// How many outputs the set holds.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    /// Whether the set holds no output.
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// Places every output, or none; returns their paths in order.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let mut finished = Vec::with_capacity(self.outputs.len());
        for out in &mut self.outputs {
            match out.finish() {
                Ok(temp) => finished.push(temp),
                Err(e) => {
                    // The rest drop with `self`, removing their temporary
                    // files; these are removed here.
                    forget_all(finished);
                    return Err(e);
                }
            }
        }
        // Every regular file about to be replaced keeps a second name until
        // all are placed, so that a failure part way can put it back.
        let backups: Vec<Option<tempfile::TempPath>> = self
            .outputs
            .iter()
            .zip(&finished)
            .map(|(out, temp)| temp.as_ref().and_then(|_| backup(out.path())))
            .collect();
        let mut created: Vec<PathBuf> = Vec::new();
        let mut written = Vec::with_capacity(self.outputs.len());
        let mut finished = finished.into_iter();
        for out in &self.outputs {
            let Some(temp) = finished.next() else { break };
            let existed = out.path().symlink_metadata().is_ok();
            if let Some(temp) = temp
                && let Err(e) = out.place(temp)
            {
                // Undo what this set did: remove the files it created, put
                // back the ones it replaced.
                for path in &created {
                    let _ = std::fs::remove_file(path);
                }
                for (out, old) in self.outputs.iter().zip(backups) {
                    if let Some(old) = old {
                        let _ = old.persist(out.path());
                    }
                }
                forget_all(finished.collect());
                return Err(e);
            }
            if !existed {
                created.push(out.path().to_path_buf());
            }
            written.push(out.path().to_path_buf());
        }
        // Placed: the second names go (dropping a backup removes it).
        drop(backups);
        Ok(written)
    }
}

/// A second name (a hard link beside it) for the regular file at `path`,
/// removed when dropped; none where there is no such file or the file
/// system makes no links.
fn backup(path: &Path) -> Option<tempfile::TempPath> {
    if !path.symlink_metadata().ok()?.is_file() {
        return None;
    }
    tempfile::Builder::new()
        .prefix(".mv-")
        .suffix(".old")
        .rand_bytes(8)
        .make_in(super::folder_of(path), |name| {
            std::fs::hard_link(path, name)
        })
        .ok()
        .map(tempfile::NamedTempFile::into_temp_path)
}

/// Removes finished temporary files that will not be placed.
fn forget_all(temps: Vec<Option<tempfile::TempPath>>) {
    for temp in temps.into_iter().flatten() {
        super::partial::forget(&temp);
        // Dropping the path removes the file.
    }
}
