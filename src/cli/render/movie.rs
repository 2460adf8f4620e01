//! Animated output for `viewer render`: an animated GIF written with the
//! `gif` crate, or a video encoded by `ffmpeg` from raw frames piped to it.
//! Either way the file appears only once every frame is in (written through
//! [`motion_viewer::output`]: a temporary file beside it, then renamed), so a
//! failure or Ctrl+C leaves no partial file; a device or pipe is written in place.

use anyhow::{Context, Result, bail};
use motion_viewer::output::write_atomic;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Video containers handed to ffmpeg, by file extension: its muxer name.
pub const VIDEO_FORMATS: [(&str, &str); 4] = [
    ("mp4", "mp4"),
    ("mov", "mov"),
    ("mkv", "matroska"),
    ("webm", "webm"),
];

/// Colour-quantisation effort of the GIF encoder: 1 is the slowest and
/// best, 30 the fastest; 10 is the gif crate's own middle ground.
const GIF_SPEED: i32 = 10;

/// The shortest frame delay GIF players honour, centiseconds: browsers slow
/// a delay of 0 or 1 to 10.
const MIN_GIF_DELAY_CS: u16 = 2;

/// ffmpeg's muxer for `path`'s extension, if it names a video.
pub fn video_format(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    VIDEO_FORMATS
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|&(_, muxer)| muxer)
}

/// The delay between GIF frames for `fps`, in whole centiseconds (at least
/// [`MIN_GIF_DELAY_CS`]), and the rate it really plays at.
pub fn gif_delay(fps: f64) -> (u16, f64) {
    let cs = (100.0 / fps)
        .round()
        .clamp(f64::from(MIN_GIF_DELAY_CS), f64::from(u16::MAX)) as u16;
    (cs, 100.0 / f64::from(cs))
}

/// Writes `count` frames of `size` pixels as an animated GIF at `fps`
/// (looping forever); `frame(i)` draws frame `i`.
pub fn write_gif(
    path: &Path,
    size: [u32; 2],
    fps: f64,
    count: usize,
    mut frame: impl FnMut(usize) -> Result<image::RgbaImage>,
) -> Result<()> {
    let (Ok(width), Ok(height)) = (u16::try_from(size[0]), u16::try_from(size[1])) else {
        bail!(
            "a GIF is at most 65535 pixels a side; asked for {}x{}",
            size[0],
            size[1]
        );
    };
    let (delay, _) = gif_delay(fps);
    // The body's errors travel as io::Error through write_atomic; keep the
    // first one whole to report it with its context.
    let mut failure = None;
    let written = write_atomic(path, |w| {
        let mut encoder =
            gif::Encoder::new(w, width, height, &[]).map_err(std::io::Error::other)?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(std::io::Error::other)?;
        for i in 0..count {
            let mut picture = match frame(i) {
                Ok(p) => p,
                Err(e) => {
                    failure = Some(e);
                    return Err(std::io::Error::other("drawing a frame failed"));
                }
            };
            let mut gif_frame = gif::Frame::from_rgba_speed(width, height, &mut picture, GIF_SPEED);
            gif_frame.delay = delay;
            encoder
                .write_frame(&gif_frame)
                .map_err(std::io::Error::other)?;
        }
        Ok(())
    });
    match (failure, written) {
        (Some(e), _) => Err(e),
        (None, result) => Ok(result?),
    }
}

/// ffmpeg's path if it is on `PATH`.
pub fn find_ffmpeg() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join("ffmpeg"))
        .find(|p| p.is_file())
}

/// The error for a video asked for without ffmpeg.
pub fn no_ffmpeg(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "writing {} needs ffmpeg, which is not on PATH (install it, e.g. apt-get install ffmpeg); \
         or write an animated GIF (--out x.gif) or PNG frames (--out dir/frame_{{:04}}.png)",
        path.display()
    )
}

/// Encodes `count` frames of `size` pixels at `fps` into the video `path`
/// (container `muxer`) with `ffmpeg`, H.264 in yuv420p where the container
/// takes it; `frame(i)` draws frame `i`.
pub fn write_video(
    ffmpeg: &Path,
    path: &Path,
    muxer: &str,
    size: [u32; 2],
    fps: f64,
    count: usize,
    mut frame: impl FnMut(usize) -> Result<image::RgbaImage>,
) -> Result<()> {
    // ffmpeg writes the file the safe writer made for it (created here,
    // exclusively, beside the destination, removed on Ctrl+C); a device or
    // pipe is written in place, as a stream ffmpeg need not seek in.
    let out = motion_viewer::output::Output::create(path)?;
    let target = out.partial_path().unwrap_or(path).to_path_buf();
    let streaming = out.is_stream();
    let mut args: Vec<String> = [
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgba",
        "-s",
        &format!("{}x{}", size[0], size[1]),
        "-framerate",
        &format!("{fps}"),
        "-i",
        "-",
        // yuv420p (what players expect) needs even sides.
        "-vf",
        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
        "-pix_fmt",
        "yuv420p",
    ]
    .map(String::from)
    .to_vec();
    if muxer != "webm" {
        args.extend(["-c:v", "libx264"].map(String::from));
    }
    if streaming && matches!(muxer, "mp4" | "mov") {
        // Without seeking back to write its index at the start.
        args.extend(["-movflags", "frag_keyframe+empty_moov"].map(String::from));
    }
    args.extend(["-f", muxer].map(String::from));
    // `file:` so that a name starting with a protocol (`http:…`) stays a file.
    let mut file_arg = std::ffi::OsString::from("file:");
    file_arg.push(&target);
    let mut child = Command::new(ffmpeg)
        .args(&args)
        .arg(file_arg)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", ffmpeg.display()))?;
    let fed = (|| -> Result<()> {
        let mut stdin = child.stdin.take().context("ffmpeg's standard input")?;
        for i in 0..count {
            let picture = frame(i)?;
            stdin
                .write_all(picture.as_raw())
                .context("ffmpeg stopped reading frames")?;
        }
        Ok(())
    })();
    if fed.is_err() {
        let _ = child.kill();
    }
    let ended = child.wait_with_output().context("waiting for ffmpeg")?;
    match (fed, ended.status.success()) {
        (Err(e), _) if ended.stderr.is_empty() => Err(e),
        (_, false) | (Err(_), _) => Err(anyhow::anyhow!(
            "ffmpeg failed ({}): {}",
            ended.status,
            String::from_utf8_lossy(&ended.stderr).trim()
        )),
        // Dropped on an error above, the temporary file goes with `out`.
        (Ok(()), true) => Ok(out.commit()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gif_delays_are_whole_centiseconds_of_two_or_more() {
        assert_eq!(gif_delay(25.0), (4, 25.0));
        assert_eq!(gif_delay(50.0), (2, 50.0));
        // 62.5 fps (16 ms .mtn frames) cannot be shown: 2 cs is the floor.
        assert_eq!(gif_delay(62.5), (2, 50.0));
        assert_eq!(gif_delay(30.0).0, 3);
        assert_eq!(gif_delay(0.001).0, u16::MAX);
    }

    #[test]
    fn videos_by_extension() {
        assert_eq!(video_format(Path::new("a/x.MP4")), Some("mp4"));
        assert_eq!(video_format(Path::new("x.mkv")), Some("matroska"));
        assert_eq!(video_format(Path::new("x.gif")), None);
        assert_eq!(video_format(Path::new("x")), None);
    }
}
