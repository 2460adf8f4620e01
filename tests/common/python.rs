//! The Python readers that judge our robot and VFX outputs (`yourdfpy`,
//! `mcap` + `mcap-ros2-support`, Pixar's `usd-core`): `.ci/run` installs the
//! versions pinned in `tests/requirements.txt` into `.venv-readers/` at the
//! repository's root. A test asks for that interpreter with [`readers`] and
//! runs a short script with [`run`]; without the environment it is skipped
//! with a notice (and fails on CI).

use std::path::PathBuf;
use std::process::Command;

/// The readers' Python interpreter, or `None` (test skipped) when
/// `.venv-readers` has not been made.
pub fn readers() -> Option<PathBuf> {
    let python = super::repo(".venv-readers/bin/python");
    super::tool_present(
        "the Python readers (.venv-readers)",
        python.is_file(),
        "python3 -m venv .venv-readers && .venv-readers/bin/pip install -r tests/requirements.txt",
    )
    .then_some(python)
}

/// Runs `script` (Python source) with `args` on `python`; returns its
/// standard output, and panics with its standard error when it fails.
pub fn run(python: &PathBuf, script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("starting the readers' Python");
    assert!(
        out.status.success(),
        "python reader failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("reader's output is UTF-8")
}
