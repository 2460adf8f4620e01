//! Several output files that appear together or not at all.

use super::Output;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Several [`Output`]s committed as one: nothing is placed until every one
/// is written, flushed and synced; if one then fails to be placed, the files
/// this set has already created are removed again. A file the set replaced
/// cannot be brought back, so the set checks every destination before
/// writing anything, and never removes a file it did not create.
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
        let mut created: Vec<PathBuf> = Vec::new();
        let mut written = Vec::with_capacity(self.outputs.len());
        let mut finished = finished.into_iter();
        for out in &self.outputs {
            let Some(temp) = finished.next() else { break };
            let existed = out.path().symlink_metadata().is_ok();
            if let Some(temp) = temp
                && let Err(e) = out.place(temp)
            {
                // Undo what this set made; a file it replaced stays replaced.
                for path in &created {
                    let _ = std::fs::remove_file(path);
                }
                forget_all(finished.collect());
                return Err(e);
            }
            if !existed {
                created.push(out.path().to_path_buf());
            }
            written.push(out.path().to_path_buf());
        }
        Ok(written)
    }
}

/// Removes finished temporary files that will not be placed.
fn forget_all(temps: Vec<Option<tempfile::TempPath>>) {
    for temp in temps.into_iter().flatten() {
        super::partial::forget(&temp);
        // Dropping the path removes the file.
    }
}
