//! The desktop's side of the window ([`Host`]): files read from disk, a
//! watcher thread for `--watch`, screenshots written beside the first input,
//! status lines on stdout.

use motion_viewer::app::{Host, HostEvent};
use motion_viewer::error::Result;
use motion_viewer::open::archive::{disk_file, split_entry};
use motion_viewer::open::{DiskMaterials, Input, Materials};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};
use winit::event_loop::EventLoopProxy;

/// How often the watcher looks at the files' size and modification time.
const POLL: Duration = Duration::from_millis(250);

/// The desktop host; see the module docs.
#[derive(Debug)]
pub struct DesktopHost {
    status: bool,
    watcher: Option<Watcher>,
}

impl DesktopHost {
    /// A host printing status lines when `status` is set, and watching the
    /// tracks' files when given a proxy to send their new content through.
    pub fn new(status: bool, watch: Option<EventLoopProxy<HostEvent>>) -> DesktopHost {
        DesktopHost {
            status,
            watcher: watch.map(Watcher::start),
        }
    }
}

impl Host for DesktopHost {
    fn read_dropped(&mut self, path: &Path) -> Result<Input> {
        read_owned(path)
    }

    fn materials(&self) -> &dyn Materials {
        &DiskMaterials
    }

    fn watch(&mut self, sets: Vec<Vec<PathBuf>>) {
        if let Some(w) = &self.watcher
            && let Ok(mut watched) = w.sets.lock()
        {
            *watched = sets;
        }
    }

    fn save_picture(
        &mut self,
        picture: &image::RgbaImage,
        first_input: Option<&Path>,
    ) -> Result<String> {
        let path = next_free_path(first_input.unwrap_or(Path::new("viewer")), "png");
        motion_viewer::export::png::write(&path, picture)?;
        // Whoever pressed F12 wants to know where it went, status lines or not.
        println!("screenshot {}", path.display());
        let _ = std::io::stdout().flush();
        Ok(path.display().to_string())
    }

    fn save_scene(&mut self, glb: &[u8], first_input: Option<&Path>) -> Result<String> {
        let path = next_free_path(first_input.unwrap_or(Path::new("viewer")), "glb");
        motion_viewer::output::write_atomic(&path, |w| w.write_all(glb))?;
        // Whoever pressed E wants to know where it went, status lines or not.
        println!("exported {}", path.display());
        let _ = std::io::stdout().flush();
        Ok(path.display().to_string())
    }

    fn save_motion(
        &mut self,
        path: &Path,
        original: &Path,
        bytes: &[u8],
        overwrite: bool,
    ) -> Result<String> {
        save_motion(path, original, bytes, overwrite)?;
        // Whoever saved wants to know where it went, status lines or not.
        println!("saved {}", path.display());
        let _ = std::io::stdout().flush();
        Ok(path.display().to_string())
    }

    fn status(&mut self, line: &str) {
        if self.status {
            println!("{line}");
            let _ = std::io::stdout().flush();
        }
    }

    fn log(&mut self, line: &str) {
        eprintln!("viewer: {line}");
    }

    fn run(&mut self, task: motion_viewer::app::Task) -> Option<HostEvent> {
        Some(pollster::block_on(task))
    }
}

/// Writes an edited motion's `bytes` as `path`, all or nothing; refuses the
/// file it came from unless `overwrite`, and always an archive it came out
/// of (a `.mtn` written over an `.ODA` would lose every other entry).
pub fn save_motion(path: &Path, original: &Path, bytes: &[u8], overwrite: bool) -> Result<()> {
    let inputs = [original.to_path_buf()];
    let archived = split_entry(original).is_some();
    motion_viewer::open::check_not_input(path, &inputs, overwrite && !archived)?;
    motion_viewer::output::write_atomic(path, |w| w.write_all(bytes))
}

/// The first free `<stem>_NNNN.<ext>` beside `input`, counting from 1.
pub fn next_free_path(input: &Path, ext: &str) -> PathBuf {
    let dir = input.parent().unwrap_or(Path::new(""));
    let stem = input
        .file_stem()
        .map_or_else(|| "viewer".into(), |s| s.to_string_lossy());
    (1..)
        .map(|n| dir.join(format!("{stem}_{n:04}.{ext}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.{ext}")))
}

/// Reads a regular file into memory (`ARCHIVE.ODA:NAME`: the archive, with
/// the entry named) through the library's one rule for inputs
/// ([`Input::read_owned`]: a pipe or device is refused at once, never
/// waited on). Unlike [`Input::read`], never maps it: a dropped or watched
/// file may be rewritten while the viewer holds it.
pub fn read_owned(path: &Path) -> Result<Input> {
    Input::read_owned(path)
}

/// Size and modification time of each file of a set (`None`: missing).
type Signature = Vec<Option<(SystemTime, u64)>>;

fn signature(set: &[PathBuf]) -> Signature {
    set.iter()
        .map(|p| {
            let meta = std::fs::metadata(disk_file(p)).ok()?;
            Some((meta.modified().ok()?, meta.len()))
        })
        .collect()
}

/// A thread polling the watched files; stopped and joined when dropped.
#[derive(Debug)]
struct Watcher {
    sets: Arc<Mutex<Vec<Vec<PathBuf>>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    fn start(proxy: EventLoopProxy<HostEvent>) -> Watcher {
        let sets = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (sets, stop) = (Arc::clone(&sets), Arc::clone(&stop));
            std::thread::spawn(move || poll_loop(&sets, &stop, &proxy))
        };
        Watcher {
            sets,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Polls every set's [`Signature`]. A set whose signature changed is read
/// once the change has held for one poll with every file present (so a
/// file is not read halfway through being written), and its new content
/// sent as [`HostEvent::Changed`]. Polling rather than change notification
/// survives editors that save by replacing the file.
fn poll_loop(
    sets: &Mutex<Vec<Vec<PathBuf>>>,
    stop: &AtomicBool,
    proxy: &EventLoopProxy<HostEvent>,
) {
    let mut known: HashMap<Vec<PathBuf>, Signature> = HashMap::new();
    let mut changing: HashMap<Vec<PathBuf>, Signature> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let current = match sets.lock() {
            Ok(s) => s.clone(),
            Err(_) => return,
        };
        for set in current {
            let now = signature(&set);
            let Some(before) = known.get(&set) else {
                known.insert(set, now);
                continue;
            };
            if *before == now {
                changing.remove(&set);
                continue;
            }
            let settled = changing.get(&set) == Some(&now) && now.iter().all(Option::is_some);
            if !settled {
                changing.insert(set, now);
                continue;
            }
            changing.remove(&set);
            known.insert(set.clone(), now);
            // A file that can't be read now (replaced again meanwhile) is
            // picked up by the next change.
            if let Ok(inputs) = set
                .iter()
                .map(|p| read_owned(p))
                .collect::<Result<Vec<_>>>()
                && proxy.send_event(HostEvent::Changed(inputs)).is_err()
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{next_free_path, read_owned, signature};
    use motion_viewer::formats::mtn::read_oda;
    use motion_viewer::open::archive::entry_path;

    #[test]
    fn an_archive_entry_is_read_and_watched_through_its_archive() {
        let real = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/oda/ers210_MOTION.ODA"
        );
        let bytes = std::fs::read(real).unwrap();
        let name = read_oda(&bytes).unwrap()[0].name.clone();
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("pack.ODA");
        std::fs::write(&pack, &bytes).unwrap();
        let named = entry_path(&pack, &name);
        let input = read_owned(&named).unwrap();
        assert_eq!(input.path, pack);
        assert_eq!(input.entry.as_deref(), Some(name.as_str()));
        assert_eq!(&*input.data, bytes.as_slice());
        let size = bytes.len() as u64;
        assert!(matches!(signature(&[named])[..], [Some((_, s))] if s == size));
        assert!(read_owned(&entry_path(&pack, "no_such")).is_ok_and(|i| i.entry.is_some()));
    }

    #[test]
    fn an_edited_motion_never_replaces_its_original_unless_confirmed() {
        use super::save_motion;
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("walk.mtn");
        std::fs::write(&original, b"old").unwrap();
        let edited = dir.path().join("walk-edited.mtn");
        save_motion(&edited, &original, b"new", false).unwrap();
        assert_eq!(std::fs::read(&edited).unwrap(), b"new");
        // Saved again: the edited file is replaced, not the original.
        save_motion(&edited, &original, b"newer", false).unwrap();
        assert_eq!(std::fs::read(&edited).unwrap(), b"newer");
        let refused = save_motion(&original, &original, b"new", false).unwrap_err();
        assert!(refused.to_string().contains("walk.mtn"), "{refused}");
        assert_eq!(std::fs::read(&original).unwrap(), b"old");
        save_motion(&original, &original, b"new", true).unwrap();
        assert_eq!(std::fs::read(&original).unwrap(), b"new");
        // Never over an archive, confirmed or not.
        let pack = dir.path().join("pack.ODA");
        std::fs::write(&pack, b"archive").unwrap();
        let entry = entry_path(&pack, "a_sit#sit");
        assert!(save_motion(&pack, &entry, b"new", true).is_err());
        assert_eq!(std::fs::read(&pack).unwrap(), b"archive");
    }

    #[test]
    fn screenshots_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("flags.obj");
        let first = next_free_path(&input, "png");
        assert_eq!(first, dir.path().join("flags_0001.png"));
        std::fs::write(&first, b"png").unwrap();
        assert_eq!(
            next_free_path(&input, "png"),
            dir.path().join("flags_0002.png")
        );
    }
}
