//! The web page in headless Chromium (driven by `tests/js/web_test.js` with
//! playwright-core): served by `viewer serve`'s server on a free port, given
//! the three samples through its file input. With WebGPU: all three play,
//! Space pauses, → steps one frame, the picture changes, MEMG positions
//! read back from the compute shader in the page match the f64 CPU
//! reference within the GPU tests' tolerance, and a truncated `.mtn`
//! dropped on the canvas shows its one-line error while the rest plays on;
//! the `.glb` the page offers passes Khronos' validator.
//! Without WebGPU: the page says WebGL2 and plays. An edit scripted in the
//! page (keyframe 2's first joint typed as 12.5°, saved, undone, saved
//! again) downloads the original with exactly that value changed, then the
//! original's bytes; the page's glTF of the edited motion is the CLI's glTF
//! of the saved file, and the flags' `.mtl` colours the page's glTF as it
//! colours the CLI's.
//!
//! Needs the built page (`web/build.sh`, which `.ci/run` runs first),
//! Chromium and `npm ci --prefix tests/js`. Where one is missing, or the
//! page is older than its sources, the test prints a notice and passes,
//! except on CI (`CI` set), where it fails.

use crate::common;
use crate::common::gltf as gltf_common;

use common::{repo, tool_present};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// One browser at a time: two software-rendering Chromiums on a small
/// machine make each other's timeouts.
static BROWSER: Mutex<()> = Mutex::new(());

/// How long one browser run may take.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// Positions agree within this fraction of the bounding-box diagonal
/// (`tests/gpu_pipeline.rs`'s tolerance).
const POSITION_TOLERANCE: f64 = 1e-4;

/// The newest modification time of the files under `dir`.
fn newest(dir: &Path) -> SystemTime {
    let mut latest = SystemTime::UNIX_EPOCH;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest(&path)
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(latest)
        };
        latest = latest.max(time);
    }
    latest
}

/// Everything the test needs, or `None` after a notice.
pub(crate) fn ready() -> Option<PathBuf> {
    let dist = repo("web/dist");
    let wasm = dist.join("pkg/motion_viewer_web_bg.wasm");
    if !tool_present(
        "the built web page (web/dist)",
        wasm.is_file(),
        "run web/build.sh",
    ) {
        return None;
    }
    let built = wasm.metadata().and_then(|m| m.modified()).ok()?;
    let sources = [repo("src"), repo("web/src"), repo("shaders")]
        .iter()
        .map(|d| newest(d))
        .max()?;
    let same_page = ["index.html", "index.js"]
        .iter()
        .all(|f| std::fs::read(repo("web").join(f)).ok() == std::fs::read(dist.join(f)).ok());
    if !tool_present(
        "an up-to-date web page (web/dist is older than its sources)",
        built >= sources && same_page,
        "run web/build.sh",
    ) {
        return None;
    }
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !tool_present(
        "Chromium",
        Path::new(&chromium).is_file(),
        "apt-get install chromium",
    ) {
        return None;
    }
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let playwright = repo("tests/js/node_modules/playwright-core").is_dir();
    if !tool_present(
        "node and playwright-core",
        node && playwright,
        "npm ci --prefix tests/js",
    ) {
        return None;
    }
    Some(dist)
}

/// Serves `dist`, runs the driver in `mode`, and returns its result object
/// with the folder holding what the page downloaded.
fn run_page(dist: &Path, mode: &str) -> (serde_json::Value, tempfile::TempDir) {
    run_page_with(dist, mode, &[])
}

/// [`run_page`] with `env` set for the driver.
pub(crate) fn run_page_with(
    dist: &Path,
    mode: &str,
    env: &[(&str, &std::ffi::OsStr)],
) -> (serde_json::Value, tempfile::TempDir) {
    let _one = BROWSER.lock().unwrap_or_else(|p| p.into_inner());
    let server = Served::start(dist);
    let url = server.url.clone();
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new("node")
        .arg(repo("tests/js/web_test.js"))
        .args([url.as_str(), mode])
        .arg(repo("data"))
        .arg(out.path())
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            panic!("the {mode} browser run took over {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{mode}:\n{text}");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| panic!("{mode}: no result\n{text}"));
    eprintln!("{mode}: {line}");
    (serde_json::from_str(line).unwrap(), out)
}

#[test]
fn the_page_plays_the_samples_on_webgpu() {
    let Some(dist) = ready() else { return };
    let (result, downloads) = run_page(&dist, "webgpu");
    // The driver checked the rest; the figures that matter most, again here.
    let check = &result["memg_check"];
    assert_eq!(check["backend"], "WebGPU");
    assert_eq!(check["vertices"], 3116, "flags.obj's vertices");
    let error = check["max_error"].as_f64().unwrap();
    assert!(
        error <= POSITION_TOLERANCE,
        "GPU vs CPU: {error:e} of the diagonal"
    );
    assert!(check["moved"].as_f64().unwrap() > 0.01, "{check}");
    assert_eq!(
        result["stepped_frame"].as_u64().unwrap(),
        result["paused_frame"].as_u64().unwrap() + 1
    );
    let message = result["error"].as_str().unwrap();
    assert!(message.starts_with("cut.mtn: "), "{message}");
    let glb_path = downloads
        .path()
        .join(result["gltf"]["name"].as_str().unwrap());
    // The flags coloured by the flags.mtl the page was given, as the CLI
    // colours them from the same files.
    let page = glb(&glb_path);
    // Three formats: the viewer fits them to a common size.
    let files = [
        "flags.obj",
        "flags.mtl",
        "flags.bin",
        "sony_stand_sit.mtn",
        "hands.mrtk",
    ];
    let cli = cli_glb(&files.map(|f| repo("data").join(f)), "fit");
    assert!(
        page.0["materials"].as_array().is_some_and(|m| m.len() > 1),
        "the page's glTF has the .mtl's materials: {}",
        page.0["materials"]
    );
    // The same colours (the page's wasm converts sRGB to linear with its own
    // `powf`, which may differ from the native one in the last digit).
    let colours = |json: &serde_json::Value| -> Vec<f64> {
        json["materials"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| {
                m["pbrMetallicRoughness"]["baseColorFactor"]
                    .as_array()
                    .unwrap()
                    .clone()
            })
            .map(|c| c.as_f64().unwrap())
            .collect()
    };
    let (page_colours, cli_colours) = (colours(&page.0), colours(&cli.0));
    assert_eq!(page_colours.len(), cli_colours.len());
    for (p, c) in page_colours.iter().zip(&cli_colours) {
        assert!((p - c).abs() <= 1e-6, "{page_colours:?}\n{cli_colours:?}");
    }
    assert_eq!(
        first_difference(&page.0, &cli.0, "$"),
        None,
        "the page's glTF JSON against the CLI's"
    );
    if let Some(reports) = gltf_common::validate(&[glb_path]) {
        let report = &reports[0];
        assert_eq!(report["errors"], 0, "{report}");
        assert_eq!(report["warnings"], 0, "{report}");
    }
}

#[test]
fn an_edit_in_the_page_downloads_the_edited_motion_then_the_original() {
    let Some(dist) = ready() else { return };
    let (result, downloads) = run_page(&dist, "edit");
    let original = std::fs::read(repo("data/sony_stand_sit.mtn")).unwrap();
    let file = |key: &str| {
        let saved = &result[key];
        assert_eq!(saved["name"], "sony_stand_sit-edited.mtn", "{saved}");
        std::fs::read(downloads.path().join(saved["file"].as_str().unwrap())).unwrap()
    };
    let before = motion_viewer::formats::mtn::decode(&original).unwrap();
    let after = motion_viewer::formats::mtn::decode(&file("edited")).unwrap();
    assert!(after.warnings.is_empty(), "{:?}", after.warnings);
    let mut expected = before.keyframes.clone();
    // 12.5° = 12.5 · π/180 · 10⁶ µrad = 218 166.156.
    expected[2].joints[0] = 218_166;
    assert_eq!(after.keyframes, expected);
    assert_eq!((&after.name, &after.joints), (&before.name, &before.joints));
    assert_eq!(file("undone"), original, "undone: the original's bytes");
    let title = result["dirty_title"].as_str().unwrap();
    assert!(
        title.starts_with("* "),
        "unsaved edits in the title: {title}"
    );
    let title = result["saved_title"].as_str().unwrap();
    assert!(!title.starts_with('*'), "saved: {title}");

    // The page's glTF of the edited motion is the CLI's glTF of the .mtn
    // the page saved: made from the session's tracks, never from the bytes
    // the page was given (which hold the motion before the edit).
    let page = glb(&downloads
        .path()
        .join(result["edited_gltf"].as_str().unwrap()));
    let saved = downloads.path().join("sony_stand_sit.mtn");
    std::fs::copy(downloads.path().join("edited_1.mtn"), &saved).unwrap();
    // One AIBO motion: the viewer stands it at its true scale.
    let cli = cli_glb(&[saved], "true-scale");
    assert_eq!(page.1, cli.1, "the page's glTF buffer against the CLI's");
    assert_eq!(
        first_difference(&page.0, &cli.0, "$"),
        None,
        "the page's glTF JSON against the CLI's"
    );
    let before = cli_glb(&[repo("data/sony_stand_sit.mtn")], "true-scale");
    assert_ne!(page.1, before.1, "the page's glTF holds the edit");
}

/// The JSON and the binary chunk of a `.glb` (glTF 2.0 §4.4: a 12-byte
/// header, then chunks of length, type and data).
fn glb(path: &Path) -> (serde_json::Value, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&bytes[0..4], b"glTF", "{}", path.display());
    let (mut json, mut bin) = (serde_json::Value::Null, Vec::new());
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let (len, kind) = (word(at), &bytes[at + 4..at + 8]);
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"JSON" => json = serde_json::from_slice(data).unwrap(),
            b"BIN\0" => bin = data.to_vec(),
            _ => {}
        }
        at += 8 + len;
    }
    (json, bin)
}

/// Where `a` and `b` first differ, as a JSON path with both values; numbers
/// agree within 1e-6 of their size (the page's wasm computes sines and
/// powers with its own maths library, which may differ in the last digit).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys()
                .chain(y.keys())
                .find_map(|k| match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => first_difference(p, q, &format!("{at}.{k}")),
                    (p, q) => Some(format!("{at}.{k}: {p:?} against {q:?}")),
                })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]"))),
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            ((x - y).abs() > 1e-6 * x.abs().max(1.0)).then(|| format!("{at}: {x} against {y}"))
        }
        _ => (a != b).then(|| format!("{at}: {a} against {b}")),
    }
}

/// `viewer export FILES --layout LAYOUT --out x.glb`, read back.
fn cli_glb(files: &[PathBuf], layout: &str) -> (serde_json::Value, Vec<u8>) {
    let out = tempfile::tempdir().unwrap();
    let to = out.path().join("cli.glb");
    let status = crate::app::viewer()
        .arg("export")
        .args(files)
        .args(["--layout", layout, "--out"])
        .arg(&to)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "viewer export {files:?}");
    glb(&to)
}

#[test]
fn without_webgpu_the_page_falls_back_to_webgl2() {
    let Some(dist) = ready() else { return };
    let (result, _) = run_page(&dist, "webgl2");
    assert_eq!(result["mode"], "webgl2");
    assert!(result["raf_frame_ms"].as_f64().unwrap() > 0.0);
    // A browser without WebAssembly SIMD cannot compile the viewer: told in one line.
    let no_simd = result["no_simd"].as_str().unwrap_or_default();
    assert!(
        no_simd.contains("lacks WebAssembly SIMD") && !no_simd.contains('\n'),
        "without SIMD the page shows {no_simd:?}"
    );
}

#[test]
fn the_curves_panel_opens_and_a_click_seeks_in_the_page() {
    let Some(dist) = ready() else { return };
    let (result, _) = run_page(&dist, "curves");
    let curves = &result["curves"];
    assert_eq!(curves["open"], true);
    // The first six joints with limits, as the library lists them.
    let path = repo("data/sony_stand_sit.mtn");
    let track = motion_viewer::scene::Track::Mtn {
        motion: motion_viewer::formats::mtn::decode(&std::fs::read(&path).unwrap()).unwrap(),
        path,
        entry: None,
    };
    let want: Vec<String> = motion_viewer::curves::channels(&track)
        .into_iter()
        .filter(|c| c.limits.is_some())
        .take(6)
        .map(|c| c.name)
        .collect();
    let got: Vec<&str> = curves["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(got, want);
    let clicked = result["clicked_s"].as_f64().unwrap();
    let time = result["time_s"].as_f64().unwrap();
    let period = result["frame_period_s"].as_f64().unwrap();
    assert!(
        (time - clicked).abs() <= period,
        "clicked at {clicked} s, the page is at {time} s"
    );
}

/// `viewer serve --port 0` on a folder, stopped when dropped.
struct Served {
    child: std::process::Child,
    /// Kept open until the server is stopped: it must not write to a closed pipe.
    _stdout: std::io::BufReader<std::process::ChildStdout>,
    url: String,
}

impl Served {
    fn start(dir: &Path) -> Served {
        use std::io::BufRead;
        let mut child = crate::app::viewer()
            .args(["serve", "--port", "0", "--dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut first).unwrap();
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_string();
        Served {
            child,
            _stdout: stdout,
            url,
        }
    }

    /// `127.0.0.1:PORT`.
    fn address(&self) -> &str {
        self.url.trim_start_matches("http://").trim_end_matches('/')
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn viewer_serve_prints_its_url_and_serves_the_page() {
    use std::io::{Read, Write};
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("index.html"), "<title>page</title>").unwrap();
    let server = Served::start(site.path());
    let mut stream = std::net::TcpStream::connect(server.address()).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    drop(server);
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(
        reply.contains("text/html") && reply.ends_with("<title>page</title>"),
        "{reply}"
    );
}

#[test]
fn viewer_serve_without_a_page_says_how_to_build_it() {
    let empty = tempfile::tempdir().unwrap();
    let out = crate::app::viewer()
        .args(["serve", "--dir"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("web/build.sh"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
}
