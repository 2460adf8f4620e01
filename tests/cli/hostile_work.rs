//! Work sized before it starts, tables read as they stream, and `serve`
//! under a flood of idle connections (issue 23, causes 2, 3 and 6). Each
//! case runs the viewer as a child process under an address-space limit
//! (`RLIMIT_AS`) and a timeout, on inputs crafted here, and checks it ends
//! in time with one line that says how to narrow the request — or, for
//! `serve`, that it still answers. Run with `--nocapture` for the time and
//! peak memory of each case.

use super::hostile::limit_memory;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgMotion};
use motion_viewer::formats::mtn;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;
pub(super) const GIB: u64 = 1 << 30;
/// Longest a refusal may take in a test (debug) build on a busy machine;
/// the work refused would take hours.
const TIMEOUT: Duration = Duration::from_secs(20);

/// How a run ended.
pub(super) struct Outcome {
    pub(super) code: Option<i32>,
    pub(super) seconds: f64,
    /// Peak resident memory from `/usr/bin/time`, where installed.
    pub(super) peak_mib: Option<f64>,
    pub(super) stderr: String,
}

/// Runs `viewer args…` under `limit` bytes of address space, killed after
/// [`TIMEOUT`] (which fails the test), measured by `/usr/bin/time` where
/// it is installed.
pub(super) fn run(dir: &Path, args: &[&str], limit: u64) -> Outcome {
    let time_path = dir.join("time.txt");
    let mut cmd = timed_viewer(&time_path);
    let stderr_path = dir.join("stderr.txt");
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap());
    limit_memory(&mut cmd, limit);
    let started = Instant::now();
    let mut child = cmd.spawn().expect("the viewer starts");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            kill_group(&mut child);
            panic!("viewer {args:?} ran past {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let peak_mib = peak_kib(&time_path).map(|kib| kib as f64 / 1024.0);
    let o = Outcome {
        code: status.code(),
        seconds: started.elapsed().as_secs_f64(),
        peak_mib,
        stderr: std::fs::read_to_string(&stderr_path).unwrap_or_default(),
    };
    eprintln!(
        "viewer {}: {:.2} s, peak {} MiB: {}",
        args.join(" "),
        o.seconds,
        o.peak_mib.map_or("?".into(), |m| format!("{m:.0}")),
        o.stderr.trim()
    );
    o
}

/// The viewer under `/usr/bin/time`, which writes its peak resident memory
/// to `time_path` (read by [`peak_kib`]); the viewer alone where
/// `/usr/bin/time` is not installed.
pub(super) fn timed_viewer(time_path: &Path) -> Command {
    let _ = std::fs::remove_file(time_path);
    if !Path::new("/usr/bin/time").exists() {
        return Command::new(crate::app::VIEWER);
    }
    let mut c = Command::new("/usr/bin/time");
    c.arg("-f").arg("%M").arg("-o").arg(time_path);
    c.arg(crate::app::VIEWER);
    c
}

/// The peak resident memory [`timed_viewer`] measured, KiB.
pub(super) fn peak_kib(time_path: &Path) -> Option<u64> {
    std::fs::read_to_string(time_path)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok())
}

fn kill_group(child: &mut Child) {
    // SAFETY: killing our own child's process group.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
    let _ = child.wait();
}

/// Checks `o` failed with exactly one `viewer:` line (warnings aside), and returns it.
pub(super) fn one_line_refusal(o: &Outcome) -> &str {
    assert_eq!(o.code, Some(1), "expected a refusal: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    let lines: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| !l.starts_with("viewer: warning"))
        .collect();
    assert_eq!(lines.len(), 1, "one line: {}", o.stderr);
    assert!(lines[0].starts_with("viewer: "), "{}", lines[0]);
    lines[0]
}

// ---- cause 2: work sized before it starts ----------------------------------

/// Sony's stand-to-sit whose last keyframe comes 2³² − 1 frames after the
/// one before: a timeline the viewer plays for its first 24 h, 5.4 million
/// 16 ms frames.
fn endless_mtn(dir: &Path) -> PathBuf {
    let bytes = std::fs::read(crate::common::data("sony_stand_sit.mtn")).unwrap();
    let mut m = mtn::decode(&bytes).unwrap();
    m.keyframes.last_mut().unwrap().interp = u32::MAX;
    let path = dir.join("endless.mtn");
    std::fs::write(&path, mtn::encode(&m)).unwrap();
    path
}

#[test]
fn a_gif_of_a_timeline_of_four_billion_frames_is_refused_before_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let mtn = endless_mtn(dir.path());
    let mtn = mtn.to_str().unwrap();
    // The whole timeline: 86 400 s at 16 ms a frame.
    let o = run(
        dir.path(),
        &["render", mtn, "--out", "x.gif", "--size", "64x48"],
        GIB,
    );
    let line = one_line_refusal(&o);
    assert_eq!(
        line,
        "viewer: x.gif: 5400001 frames is more than the 100000 frames per render allowed; \
         narrow it with --frames A..B (fewer frames), --fps F (fewer frames per second) or \
         --size WxH"
    );
    assert!(!dir.path().join("x.gif").exists());
    // A range of 2^64 − 1 frames is never listed: refused as fast.
    let o = run(
        dir.path(),
        &[
            "render",
            mtn,
            "--frames",
            "0..18446744073709551615",
            "--out",
            "seq/f_{:04}.png",
        ],
        GIB,
    );
    let line = one_line_refusal(&o);
    assert!(
        line.contains("18446744073709551615 frames is more than the 100000 frames per render"),
        "{line}"
    );
    assert!(!dir.path().join("seq").exists());
    // Fewer frames, but each 16384 × 16384: refused by pixels.
    let o = run(
        dir.path(),
        &[
            "render",
            mtn,
            "--frames",
            "0..1000",
            "--size",
            "16384x16384",
            "--out",
            "big.gif",
        ],
        GIB,
    );
    let line = one_line_refusal(&o);
    assert!(
        line.contains("1000 frames × 16384x16384 = 2.684e11 pixels"),
        "{line}"
    );
}

#[test]
fn a_frame_of_a_million_stacked_triangles_is_refused_before_drawing() {
    let dir = tempfile::tempdir().unwrap();
    // 7 MB: one triangle, a million times, all on the same pixels.
    let mut obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\ng g\n".to_vec();
    for _ in 0..1_000_000 {
        obj.extend_from_slice(b"f 1 2 3\n");
    }
    std::fs::write(dir.path().join("stack.obj"), &obj).unwrap();
    let still = MemgMotion {
        fps: 30,
        timesteps: 1,
        ..MemgMotion::default()
    };
    std::fs::write(
        dir.path().join("stack.bin"),
        memg::encode(&still, ByteOrder::Little),
    )
    .unwrap();
    let o = run(
        dir.path(),
        &["render", "stack.obj", "stack.bin", "--out", "x.png"],
        GIB,
    );
    let line = one_line_refusal(&o);
    // Each triangle: area 1/2 on a diagonal of √2 across 720 pixels, so
    // 720² / 4 = 129 600 pixels; a million of them, plus their setup.
    let fragments = 1e6 * (720.0 * 720.0 / 4.0 + 1.0);
    assert!(
        line.starts_with(&format!(
            "viewer: stack.obj: one frame of its 1000000 triangles, about {fragments:.2e} pixels drawn"
        )),
        "{line}"
    );
    assert!(line.contains("--size"), "{line}");
    assert!(!dir.path().join("x.png").exists());
}

#[test]
fn a_synthetic_scene_of_terabytes_is_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["bench", "--synthetic", "1000x1000x2147483647"][..],
        &[
            "bench",
            "--synthetic",
            "1000x1000x2147483647",
            "--write-scene",
            ".",
        ],
    ] {
        // Under 1 GiB: an attempt to allocate 8.6 TB of coefficients would abort.
        let o = run(dir.path(), args, GIB);
        let line = one_line_refusal(&o);
        assert!(
            line.contains("1000x1000x2147483647\": 8796.1 GB to generate is more than"),
            "{line}"
        );
        assert!(line.contains("lower VERTICES, BASIS or FRAMES"), "{line}");
    }
}

#[test]
fn a_point_cache_of_120_gb_from_17_mb_of_files_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    // 100 000 vertices in one group, moved over 100 000 timesteps by one
    // basis column: 120 GB of positions from 17 MB of files.
    let (v, n) = (100_000usize, 100_000usize);
    let mut obj = String::from("g cloth\n");
    for i in 0..v {
        obj += &format!("v {} 0 {}\n", i % 300, i / 300);
    }
    obj += "f 1 2 3\n";
    std::fs::write(dir.path().join("wide.obj"), obj).unwrap();
    let motion = MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: n,
        frames: vec![[1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]; n],
        groups: vec![memg::MemgGroup {
            name: "cloth".into(),
            mapping: (1..=v as u32).collect(),
            mean: vec![0.0; 3 * v],
            parent: 0,
            basis_len: 1,
            basis: vec![0.001; 3 * v],
            coeffs: vec![1.0; n],
        }],
        ..MemgMotion::default()
    };
    std::fs::write(
        dir.path().join("wide.bin"),
        memg::encode(&motion, ByteOrder::Little),
    )
    .unwrap();
    let o = run(
        dir.path(),
        &["export", "wide.obj", "wide.bin", "--out", "x.pc2"],
        GIB,
    );
    let line = one_line_refusal(&o);
    assert!(
        line.starts_with(
            "viewer: x.pc2: 100000 vertices × 100000 frames × 12 bytes = 120.0 GB is more than \
             the 4.3 GB"
        ),
        "{line}"
    );
    assert!(line.contains("--frame N"), "{line}");
    assert!(!dir.path().join("x.pc2").exists());
}

// ---- cause 3: from-csv streams ---------------------------------------------

/// Writes a 200 MB row into the FIFO `path` from a thread, and returns how
/// many bytes the reader took before it went away.
fn feed_long_row(path: PathBuf) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut fifo = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let mut written = 0u64;
        let header = b"frame,tail_pan,tail_tilt\n0,";
        if fifo.write_all(header).is_err() {
            return written;
        }
        written += header.len() as u64;
        let chunk = vec![b'7'; 1 << 20];
        for _ in 0..200 {
            if fifo.write_all(&chunk).is_err() {
                break;
            }
            written += chunk.len() as u64;
        }
        written
    })
}

#[test]
fn a_200_mb_row_is_refused_early_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("table.csv");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the path given.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let feeder = feed_long_row(fifo.clone());
    let args = [
        "mtn",
        "from-csv",
        "table.csv",
        "--model",
        "ERS-7",
        "--name",
        "a_x#x",
        "--out",
        "x.mtn",
    ];
    let o = run(dir.path(), &args, GIB);
    let fed = feeder.join().unwrap();
    let line = one_line_refusal(&o);
    assert_eq!(
        line,
        "viewer: table.csv: row 2: cell 2 is longer than 1024 bytes (a number or a column \
         name); refused without reading the rest"
    );
    // Stopped within the first megabytes of the 200 (the pipe and the
    // reader's buffers hold a few), far below the row.
    assert!(fed < 8 * MIB, "{fed} bytes read");
    if let Some(peak) = o.peak_mib {
        assert!(peak < 200.0, "peak {peak} MiB");
    }
    assert!(!dir.path().join("x.mtn").exists());
}

#[test]
fn long_lines_and_quoted_values_are_cut() {
    let dir = tempfile::tempdir().unwrap();
    let args = |table: &'static str| {
        [
            "mtn", "from-csv", table, "--model", "ERS-7", "--name", "a_x#x", "--out", "x.mtn",
        ]
    };
    // Many short cells: the line cap, not the cell cap.
    let mut long = String::from("frame,tail_pan,tail_tilt\n0");
    while long.len() < 100_000 {
        long.push_str(",1");
    }
    std::fs::write(dir.path().join("wide.csv"), long + "\n").unwrap();
    let o = run(dir.path(), &args("wide.csv"), GIB);
    assert_eq!(
        one_line_refusal(&o),
        "viewer: wide.csv: row 2: longer than 65536 bytes (a row of keyframes takes a few \
         hundred); refused without reading the rest"
    );
    // A 1000-byte value that is not a number is quoted cut to 80 characters.
    let cell = "y".repeat(1000);
    std::fs::write(
        dir.path().join("text.csv"),
        format!("frame,tail_pan,tail_tilt\n0,{cell},2\n"),
    )
    .unwrap();
    let o = run(dir.path(), &args("text.csv"), GIB);
    let line = one_line_refusal(&o);
    assert_eq!(
        line,
        format!(
            "viewer: text.csv: row 2, column \"tail_pan\": \"{}… (1000 bytes)\" is not a number",
            "y".repeat(80)
        )
    );
    // A column named by 1000 bytes: its name is cut in the message too.
    std::fs::write(dir.path().join("name.csv"), format!("frame,{cell}\n0,1\n")).unwrap();
    let o = run(dir.path(), &args("name.csv"), GIB);
    let line = one_line_refusal(&o);
    assert!(line.len() < 400, "{line}");
    assert!(
        line.contains(&format!("\"{}… (1000 bytes)\"", "y".repeat(80))),
        "{line}"
    );
}

// ---- cause 6: serve under thousands of idle connections ----------------------

/// A GET of `target` on `port`, its whole reply.
fn get(port: u16, target: &str) -> std::io::Result<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(stream, "GET {target} HTTP/1.1\r\nHost: x\r\n\r\n")?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    Ok(reply)
}

/// Raises this process's soft limit on open files to `want` (at most the
/// hard limit), and returns what it is.
fn open_files(want: u64) -> u64 {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only touch the struct given.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl);
        if rl.rlim_cur < want {
            rl.rlim_cur = want.min(rl.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
        }
    }
    rl.rlim_cur
}

#[test]
fn serve_answers_beside_two_thousand_idle_connections() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("index.html"), "<p>hi</p>").unwrap();
    let mut cmd = Command::new(crate::app::VIEWER);
    cmd.args(["serve", "--port", "0", "--dir"])
        .arg(site.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The address space that once ran out of threads at about a thousand.
    limit_memory(&mut cmd, 3 * GIB);
    let mut child = cmd.spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port: u16 = first
        .rsplit_once("127.0.0.1:")
        .and_then(|(_, rest)| rest.split('/').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));

    let wanted = 2000;
    let available = open_files(wanted + 200).saturating_sub(100);
    let count = wanted.min(available) as usize;
    if count < wanted as usize {
        eprintln!("only {count} descriptors for idle connections here");
    }
    let started = Instant::now();
    let mut idle = Vec::with_capacity(count);
    for i in 0..count {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        if let Ok(mut s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
            // Half of them start a request head and never finish it.
            if i % 2 == 0 {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n");
            }
            idle.push(s);
        }
    }
    assert!(
        idle.len() >= count * 9 / 10,
        "{} of {count} connected",
        idle.len()
    );
    let asked = Instant::now();
    let reply = get(port, "/index.html");
    let answered = asked.elapsed();
    eprintln!(
        "serve: {} idle connections opened in {:.2} s; a GET answered in {:.3} s",
        idle.len(),
        (asked - started).as_secs_f64(),
        answered.as_secs_f64()
    );
    let still_running = child.try_wait().unwrap().is_none();
    let escape = get(port, "/../../etc/passwd");
    // Idle connections, silent or with half a request head, are closed
    // once they have held on for the head's 10 s.
    let mut closed_after = Vec::new();
    for s in idle.iter_mut().take(2) {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut byte = [0u8; 1];
        let closed = match s.read(&mut byte) {
            Ok(n) => n == 0,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        closed_after.push((closed, started.elapsed()));
    }
    drop(idle);
    kill_group(&mut child);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(still_running, "serve ended: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let reply = reply.unwrap();
    assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"), "{reply}");
    assert!(reply.ends_with("\r\n\r\n<p>hi</p>"), "{reply}");
    assert!(answered < Duration::from_secs(5), "{answered:?}");
    assert!(escape.unwrap().starts_with("HTTP/1.1 404"));
    for (closed, after) in closed_after {
        assert!(
            closed && after < Duration::from_secs(25),
            "{closed} after {after:?}"
        );
    }
}
