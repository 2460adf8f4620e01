//! ROS 2 bags as MCAP files (profile `ros2`, CDR messages with `ros2msg`
//! schemas): what Foxglove, Rerun, PlotJuggler and `ros2 bag play` read.
//!
//! One message per frame at each motion's own frame period (or `--fps`, the
//! rows of the CSV export), timestamps counted from the motion's start plus
//! [`Options::start_time_ns`](super::Options::start_time_ns):
//! - **AIBO**: `/joint_states` (`sensor_msgs/msg/JointState`, radians, the
//!   URDF's joint names), `/tf` (`tf2_msgs/msg/TFMessage`: `world` →
//!   `base_link` for the body's attitude, and every servo's link as
//!   `robot_state_publisher` would broadcast it), `/tf_static` (the fixed
//!   links, once) and `/robot_description` (`std_msgs/msg/String`, the URDF,
//!   once); the last two with the transient-local QoS that `ros2 bag` records
//!   for latched topics, so a player shows the dog from the bag alone.
//! - **MRTK**: `/tf` for the head camera (`camera`) and every hand joint
//!   (`left_hand/IndexTip`…) under `world`, the eye gaze as
//!   `geometry_msgs/msg/PoseStamped` on `/eye_gaze` (x along the ray),
//!   `/left_hand/tracked`, `/left_hand/pinching`… as `std_msgs/msg/Bool`, the
//!   markers as `std_msgs/msg/String` on `/markers` at their times (a marker
//!   whose time cannot be stamped is left out, with a warning). Unity's
//!   left-handed y-up axes become REP 103's: `(x, y, z)` → `(z, −x, y)`,
//!   quaternions `(x, y, z, w)` → `(−z, x, −y, w)`.
//! - **MEMG**: `/tf` for the local frames (`memg_frame_0`…) under `world`,
//!   per timestep, in the `.obj`'s units and axes (the meshes go to glTF or USD).
//!
//! With several motions, each one's topics and frames go under `/track1`,
//! `/track2`… (`track1/base_link`).
//!
//! The bag is written as it is made, straight into [`crate::output`] (all
//! or nothing; MCAP's writer in its non-seeking mode, which holds one
//! chunk of about a megabyte before writing it, so a device or a pipe works
//! too). Before anything is written it is sized ([`size`]): its values as a
//! CSV export's are, its bytes by encoding each track's once-only messages
//! and one frame's (a message's size does not depend on its values), and
//! the memory held while writing (the chunk, the largest message, the
//! index); past a cap, or with a frame whose stamp `builtin_interfaces/Time`
//! cannot hold, it is refused in one line.

mod aibo;
pub mod cdr;
mod memg;
mod mrtk;
pub mod schemas;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use mcap::write::NoSeek;

use self::cdr::Cdr;
use self::schemas::Schema;
use super::table::{Sampling, check_size};
use super::{Counted, Options};
use crate::error::{Error, Result};
use crate::scene::Track;

/// The QoS profile `ros2 bag record` stores for a latched (transient-local,
/// reliable) topic such as `/robot_description` or `/tf_static`.
pub(crate) const LATCHED_QOS: &str = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n  avoid_ros_namespace_conventions: false\n";

/// The QoS profile stored for an ordinary (volatile, reliable) topic.
pub(crate) const VOLATILE_QOS: &str = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n  avoid_ros_namespace_conventions: false\n";

/// One `geometry_msgs/TransformStamped`: parent frame, child frame,
/// translation and rotation `[x, y, z, w]`.
pub type Transform = (String, String, [f64; 3], [f64; 4]);

/// The bytes a message adds to a bag beyond its data: its record (opcode,
/// length, channel, sequence, two stamps) and its entry in the chunk's
/// message index.
const MESSAGE_OVERHEAD: u64 = 1 + 8 + 2 + 4 + 8 + 8 + 16;

/// The uncompressed size of one chunk: the writer holds one chunk (and at
/// least the message that closes it) before writing it.
const CHUNK_BYTES: u64 = 1 << 20;

/// Bytes of the bag's own records beyond its messages: header, schemas,
/// channels, summary and footer (a few kilobytes for our dozens of
/// topics), and per chunk its header, index and message-index headers.
const FIXED_BYTES: u64 = 256 << 10;
const PER_CHUNK_BYTES: u64 = 1024;

/// The largest stamp `builtin_interfaces/Time` holds: `sec` is an `int32`
/// ("valid over all int32 values", ROS 2's
/// `rcl_interfaces/builtin_interfaces/msg/Time.msg`: `int32 sec`, `uint32
/// nanosec`), so 2147483647.999999999 s after the epoch (2038-01-19
/// 03:14:07 UTC). MCAP's own log time (`u64` nanoseconds) holds more, so
/// this one check covers both.
pub const MAX_STAMP_NS: u64 = i32::MAX as u64 * 1_000_000_000 + 999_999_999;

/// Where a bag's messages go: an MCAP writer on the output, or nowhere,
/// their sizes counted (to size a bag before writing it).
enum Sink<'w> {
    Mcap(Box<mcap::Writer<NoSeek<Counted<'w>>>>),
    Sizing,
}

/// A bag being written (or sized).
pub(crate) struct Bag<'a, 'w> {
    sink: Sink<'w>,
    channels: BTreeMap<String, u16>,
    sequence: u32,
    /// Messages written.
    pub messages: u64,
    /// Bytes of the messages written, with their records and index entries.
    pub message_bytes: u64,
    /// The largest message's data, bytes.
    pub largest: u64,
    out: &'a Path,
    start_ns: u64,
}

impl<'a, 'w> Bag<'a, 'w> {
    /// A bag written into `w` (the file `out`, for errors) as it is made.
    fn new(out: &'a Path, start_ns: u64, w: &'w mut dyn Write) -> Result<Bag<'a, 'w>> {
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("motion-viewer ", env!("CARGO_PKG_VERSION")))
            .compression(None)
            .chunk_size(Some(CHUNK_BYTES))
            // One chunk is held and written whole: no seeking back, so the
            // output may be a device or a pipe.
            .disable_seeking(true)
            .create(NoSeek::new(Counted::new(w)))
            .map_err(|e| mcap_error(out, e))?;
        Ok(Bag {
            sink: Sink::Mcap(Box::new(writer)),
            ..Bag::sizing(out, start_ns)
        })
    }

    /// A bag that writes nothing and counts what it would write.
    fn sizing(out: &'a Path, start_ns: u64) -> Bag<'a, 'w> {
        Bag {
            sink: Sink::Sizing,
            channels: BTreeMap::new(),
            sequence: 0,
            messages: 0,
            message_bytes: 0,
            largest: 0,
            out,
            start_ns,
        }
    }

    /// The time `t` seconds after the start, nanoseconds since the epoch
    /// ([`plan`] has checked that every frame's stamp fits).
    pub fn stamp(&self, t: f64) -> u64 {
        stamp_ns(self.start_ns, t).unwrap_or(MAX_STAMP_NS)
    }

    /// The time `t` seconds after the start, if it is a stamp the bag can
    /// hold: none for a time that is not finite or is past [`MAX_STAMP_NS`].
    pub fn try_stamp(&self, t: f64) -> Option<u64> {
        stamp_ns(self.start_ns, t).filter(|_| t.is_finite())
    }

    /// The start time as a user gives it, seconds since the epoch
    /// (`1700000000.25`, `0`).
    pub fn start_s(&self) -> String {
        seconds_of_ns(self.start_ns)
    }

    /// The channel of `topic`, added with `schema` on first use.
    fn channel(&mut self, topic: &str, schema: Schema, latched: bool) -> Result<u16> {
        if let Some(&id) = self.channels.get(topic) {
            return Ok(id);
        }
        let id = match &mut self.sink {
            Sink::Sizing => self.channels.len() as u16,
            Sink::Mcap(writer) => {
                let out = self.out;
                let schema_id = writer
                    .add_schema(schema.name, "ros2msg", schema.text.as_bytes())
                    .map_err(|e| mcap_error(out, e))?;
                let qos = if latched { LATCHED_QOS } else { VOLATILE_QOS };
                let metadata =
                    BTreeMap::from([("offered_qos_profiles".to_string(), qos.to_string())]);
                writer
                    .add_channel(schema_id, topic, "cdr", &metadata)
                    .map_err(|e| mcap_error(out, e))?
            }
        };
        self.channels.insert(topic.to_string(), id);
        Ok(id)
    }

    /// Writes one message on `topic` at `stamp_ns`.
    pub fn write(
        &mut self,
        topic: &str,
        schema: Schema,
        latched: bool,
        stamp_ns: u64,
        data: Vec<u8>,
    ) -> Result<()> {
        let channel_id = self.channel(topic, schema, latched)?;
        self.sequence = self.sequence.wrapping_add(1);
        let out = self.out;
        if let Sink::Mcap(writer) = &mut self.sink {
            writer
                .write_to_known_channel(
                    &mcap::records::MessageHeader {
                        channel_id,
                        sequence: self.sequence,
                        log_time: stamp_ns,
                        publish_time: stamp_ns,
                    },
                    &data,
                )
                .map_err(|e| mcap_error(out, e))?;
        }
        self.messages += 1;
        self.message_bytes += MESSAGE_OVERHEAD + data.len() as u64;
        self.largest = self.largest.max(data.len() as u64);
        Ok(())
    }

    /// A `tf2_msgs/msg/TFMessage` of `transforms` at `stamp_ns` on `topic`.
    pub fn tf(
        &mut self,
        topic: &str,
        latched: bool,
        stamp_ns: u64,
        transforms: &[Transform],
    ) -> Result<()> {
        let mut m = Cdr::new();
        m.count(transforms.len());
        for (parent, child, t, q) in transforms {
            m.header(stamp_ns, parent).string(child).vec3(*t).quat(*q);
        }
        self.write(topic, schemas::TF_MESSAGE, latched, stamp_ns, m.finish())
    }

    /// A `std_msgs/msg/String`.
    pub fn string(&mut self, topic: &str, latched: bool, stamp_ns: u64, text: &str) -> Result<()> {
        let mut m = Cdr::new();
        m.string(text);
        self.write(topic, schemas::STRING, latched, stamp_ns, m.finish())
    }

    /// A `std_msgs/msg/Bool`.
    pub fn bool(&mut self, topic: &str, stamp_ns: u64, value: bool) -> Result<()> {
        let mut m = Cdr::new();
        m.bool(value);
        self.write(topic, schemas::BOOL, false, stamp_ns, m.finish())
    }

    /// Writes the summary and footer; returns the bytes written in all.
    fn finish(self) -> Result<u64> {
        let out = self.out;
        match self.sink {
            Sink::Mcap(mut writer) => {
                writer.finish().map_err(|e| mcap_error(out, e))?;
                Ok((*writer).into_inner().into_inner().bytes())
            }
            Sink::Sizing => Ok(0),
        }
    }
}

/// `start_ns` plus `t` seconds (negative: none), if the sum is a stamp
/// `builtin_interfaces/Time` can hold (at most [`MAX_STAMP_NS`]).
pub fn stamp_ns(start_ns: u64, t: f64) -> Option<u64> {
    let after = (t.max(0.0) * 1e9).round();
    // Not `after >= MAX`: a NaN (no stamp) is refused too.
    if after.partial_cmp(&(MAX_STAMP_NS as f64)) != Some(std::cmp::Ordering::Less) {
        return None;
    }
    start_ns
        .checked_add(after as u64)
        .filter(|&ns| ns <= MAX_STAMP_NS)
}

fn mcap_error(out: &Path, e: mcap::McapError) -> Error {
    // The writer's I/O errors are the output's (a full disk, a closed pipe).
    match e {
        mcap::McapError::Io(e) => Error::io(out, e),
        e => Error::unsupported(out, format!("MCAP writer: {e}")),
    }
}

/// What [`write()`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct McapReport {
    /// Bytes written.
    pub bytes: u64,
    /// Messages written.
    pub messages: u64,
    /// Topics written.
    pub topics: Vec<String>,
    /// What went less well, each naming its file.
    pub warnings: Vec<String>,
}

/// One track's part of a bag, sized before anything is written.
struct Planned<'t> {
    track: &'t Track,
    ns: Namespace,
    sampling: Sampling,
}

/// What a whole bag will take, from [`size`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BagSize {
    /// Messages.
    pub messages: u64,
    /// Bytes written (an upper bound: the messages exactly, the bag's own
    /// records generously).
    pub bytes: u64,
    /// Bytes held in memory while writing (beyond the tracks themselves).
    pub held: u64,
}

/// Samples, checks and sizes every track's part of the bag at `out`,
/// refusing (in one line) a bag of more values than its inputs warrant, a
/// stamp past [`MAX_STAMP_NS`], more bytes than
/// [`crate::budget::check_output_bytes`] allows or more memory held than
/// [`crate::budget::MAX_HELD_BYTES`].
fn plan<'t>(
    tracks: &'t [Track],
    out: &Path,
    options: &Options,
) -> Result<(Vec<Planned<'t>>, BagSize)> {
    let start_ns = options.start_time_ns.unwrap_or(0);
    let window = super::window(tracks, options);
    let mut planned = Vec::with_capacity(tracks.len());
    let mut size = BagSize {
        messages: 0,
        bytes: FIXED_BYTES,
        held: 0,
    };
    let mut largest = 0;
    let mut input_bytes = 0u64;
    for (i, track) in tracks.iter().enumerate() {
        let ns = if tracks.len() == 1 {
            Namespace::default()
        } else {
            Namespace {
                topic: format!("/track{}", i + 1),
                frame: format!("track{}/", i + 1),
            }
        };
        let sampling = match track {
            Track::Memg { motion, .. } => {
                let fps = options.fps.or(Some(f64::from(motion.fps.max(1))));
                Sampling::new(track, fps, window)?
            }
            _ => Sampling::new(track, options.fps, window)?,
        };
        // Numbers per frame: a transform (7) per link, joint or frame.
        let per_frame = match track {
            Track::Mtn { .. } => 8 * 40,
            Track::InputAnimation { .. } => 7 * 56,
            Track::Memg { motion, .. } => 7 * motion.local_frames.max(1),
        };
        input_bytes = input_bytes.saturating_add(super::input_bytes(track));
        check_size(out, sampling.rows, per_frame, super::input_bytes(track))?;
        check_stamps(&sampling, start_ns, track.path(), out)?;
        // Before encoding a frame to size it: a frame of millions of local
        // frames is one message of hundreds of megabytes.
        check_held(
            out,
            message_bound(track),
            CHUNK_BYTES + 3 * message_bound(track),
        )?;
        // A message's size depends on its names and counts, not its
        // values: the once-only messages, then one frame's.
        let mut once = Bag::sizing(out, start_ns);
        let mut none = Vec::new();
        let no_rows = Sampling {
            rows: 0,
            ..sampling
        };
        write_track(&mut once, &ns, track, &no_rows, &mut none)?;
        let mut one = Bag::sizing(out, start_ns);
        let one_row = Sampling {
            rows: 1,
            ..sampling
        };
        write_track(&mut one, &ns, track, &one_row, &mut none)?;
        let frame_bytes = one.message_bytes - once.message_bytes;
        let frame_messages = one.messages - once.messages;
        size.bytes = size
            .bytes
            .saturating_add(once.message_bytes)
            .saturating_add(sampling.rows.saturating_mul(frame_bytes));
        size.messages = size
            .messages
            .saturating_add(once.messages)
            .saturating_add(sampling.rows.saturating_mul(frame_messages));
        largest = largest.max(one.largest);
        planned.push(Planned {
            track,
            ns,
            sampling,
        });
    }
    let chunks = size.bytes / CHUNK_BYTES + 1;
    size.bytes = size
        .bytes
        .saturating_add(chunks.saturating_mul(PER_CHUNK_BYTES));
    size.held = CHUNK_BYTES
        .saturating_add(largest.saturating_mul(3))
        .saturating_add(chunks.saturating_mul(PER_CHUNK_BYTES));
    crate::budget::check_output_bytes(
        out,
        &format!("a bag of {} messages", size.messages),
        size.bytes,
        input_bytes,
        "narrow it with --fps (fewer frames per second) or --frames A..B (a range)",
    )?;
    check_held(out, largest, size.held)?;
    Ok((planned, size))
}

/// Refuses a bag that would hold `held` bytes while written, its largest
/// message `largest` bytes, more than [`crate::budget::MAX_HELD_BYTES`].
fn check_held(out: &Path, largest: u64, held: u64) -> Result<()> {
    crate::budget::check_held(
        out,
        &format!(
            "writing a bag whose largest message is {:.1} MB",
            largest as f64 / 1e6
        ),
        held,
        "a bag holds each frame in one message; export the motion as a .glb or .pc2 instead",
    )
}

/// An upper bound of the bytes of `track`'s largest message: a MEMG
/// frame's `/tf` of every local frame (a transform is at most 128 bytes
/// with its frame names), a few kilobytes for the others (the URDF, 55
/// hand and head transforms).
fn message_bound(track: &Track) -> u64 {
    match track {
        Track::Memg { motion, .. } => 64 + 128 * motion.local_frames as u64,
        _ => 64 << 10,
    }
}

/// `ns` nanoseconds as seconds with no trailing zeros (`1700000000.25`).
fn seconds_of_ns(ns: u64) -> String {
    let s = format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Refuses a bag whose frames `builtin_interfaces/Time` cannot hold: the
/// last frame of `sampling` after `start_ns`. (An MRTK marker that cannot
/// be stamped is left out with a warning instead, by [`mrtk::write`]: it is
/// one message, not the motion.)
fn check_stamps(sampling: &Sampling, start_ns: u64, path: &Path, out: &Path) -> Result<()> {
    if sampling.rows == 0 {
        return Ok(());
    }
    let last = sampling.time(sampling.rows - 1);
    if stamp_ns(start_ns, last).is_some() {
        return Ok(());
    }
    Err(Error::unsupported(
        out,
        format!(
            "the last frame of {} at {last} s, after a start time of {} s, would be stamped \
             past {}.999999999 s since the epoch (2038-01-19 03:14:07 UTC), the latest \
             builtin_interfaces/Time holds (its sec is an int32); give an earlier \
             --start-time or fewer frames (--frames A..B)",
            crate::text::Escaped::path(path),
            seconds_of_ns(start_ns),
            i32::MAX
        ),
    ))
}

/// One track's messages into `bag`.
fn write_track(
    bag: &mut Bag,
    ns: &Namespace,
    track: &Track,
    sampling: &Sampling,
    warnings: &mut Vec<String>,
) -> Result<()> {
    match track {
        Track::Mtn { motion, path, .. } => aibo::write(bag, ns, motion, path, sampling, warnings),
        Track::InputAnimation { recording, path } => {
            mrtk::write(bag, ns, recording, path, sampling, warnings)
        }
        Track::Memg {
            motion,
            motion_path,
            ..
        } => memg::write(bag, ns, motion, motion_path, sampling, warnings),
    }
}

/// Writes every track of `tracks` into one ROS 2 bag at `out`, as it is
/// made, after sizing it (see the module docs).
pub fn write(tracks: &[Track], out: &Path, options: &Options) -> Result<McapReport> {
    let (planned, _) = plan(tracks, out, options)?;
    let mut output = crate::output::Output::create(out)?;
    let mut bag = Bag::new(out, options.start_time_ns.unwrap_or(0), output.writer())?;
    let mut warnings = Vec::new();
    for (i, p) in planned.iter().enumerate() {
        write_track(&mut bag, &p.ns, p.track, &p.sampling, &mut warnings)?;
        if let Some(progress) = options.progress {
            progress((i + 1) as f32 / planned.len() as f32);
        }
    }
    let topics = bag.channels.keys().cloned().collect();
    let messages = bag.messages;
    let bytes = bag.finish()?;
    output.commit()?;
    Ok(McapReport {
        bytes,
        messages,
        topics,
        warnings,
    })
}

/// Where one track's topics and frames go.
#[derive(Debug, Clone, Default)]
pub(crate) struct Namespace {
    /// Prefix of topic names (`/track1`, or empty).
    pub topic: String,
    /// Prefix of frame ids (`track1/`, or empty).
    pub frame: String,
}

impl Namespace {
    /// The topic `name` (`/joint_states`) of this track.
    pub fn topic(&self, name: &str) -> String {
        format!("{}{name}", self.topic)
    }

    /// The frame `name` of this track; `world` is shared by all.
    pub fn frame(&self, name: &str) -> String {
        if name == "world" {
            name.into()
        } else {
            format!("{}{name}", self.frame)
        }
    }
}
