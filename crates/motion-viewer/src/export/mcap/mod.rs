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
//!   markers as `std_msgs/msg/String` on `/markers` at their times. Unity's
//!   left-handed y-up axes become REP 103's: `(x, y, z)` → `(z, −x, y)`,
//!   quaternions `(x, y, z, w)` → `(−z, x, −y, w)`.
//! - **MEMG**: `/tf` for the local frames (`memg_frame_0`…) under `world`,
//!   per timestep, in the `.obj`'s units and axes (the meshes go to glTF or USD).
//!
//! With several motions, each one's topics and frames go under `/track1`,
//! `/track2`… (`track1/base_link`). The file is built in memory (MCAP's
//! writer seeks back to index it) and then written through
//! [`crate::output`], all or nothing; its size is bounded as a CSV export's is.

pub mod cdr;
mod memg;
mod mrtk;
pub mod schemas;

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use self::cdr::Cdr;
use self::schemas::Schema;
use super::robot::{Robot, joint_positions, joint_transforms};
use super::table::{Sampling, check_size};
use super::{Options, finite};
use crate::anim::aibo::MtnRig;
use crate::error::{Error, Result};
use crate::scene::Track;

/// The QoS profile `ros2 bag record` stores for a latched (transient-local,
/// reliable) topic such as `/robot_description` or `/tf_static`.
pub const LATCHED_QOS: &str = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n  avoid_ros_namespace_conventions: false\n";

/// The QoS profile stored for an ordinary (volatile, reliable) topic.
pub const VOLATILE_QOS: &str = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n  avoid_ros_namespace_conventions: false\n";

/// One `geometry_msgs/TransformStamped`: parent frame, child frame,
/// translation and rotation `[x, y, z, w]`.
pub type Transform = (String, String, [f64; 3], [f64; 4]);

/// A bag being written, in memory.
pub(crate) struct Bag<'a> {
    writer: mcap::Writer<Cursor<Vec<u8>>>,
    channels: BTreeMap<String, u16>,
    sequence: u32,
    /// Messages written.
    pub messages: u64,
    out: &'a Path,
    start_ns: u64,
}

impl<'a> Bag<'a> {
    fn new(out: &'a Path, start_ns: u64) -> Result<Bag<'a>> {
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("motion-viewer ", env!("CARGO_PKG_VERSION")))
            .compression(None)
            .create(Cursor::new(Vec::new()))
            .map_err(|e| mcap_error(out, e))?;
        Ok(Bag {
            writer,
            channels: BTreeMap::new(),
            sequence: 0,
            messages: 0,
            out,
            start_ns,
        })
    }

    /// The time `t` seconds after the start, nanoseconds since the epoch.
    pub fn stamp(&self, t: f64) -> u64 {
        self.start_ns
            .saturating_add((t.max(0.0) * 1e9).round() as u64)
    }

    /// The channel of `topic`, added with `schema` on first use.
    fn channel(&mut self, topic: &str, schema: Schema, latched: bool) -> Result<u16> {
        if let Some(&id) = self.channels.get(topic) {
            return Ok(id);
        }
        let out = self.out;
        let schema_id = self
            .writer
            .add_schema(schema.name, "ros2msg", schema.text.as_bytes())
            .map_err(|e| mcap_error(out, e))?;
        let qos = if latched { LATCHED_QOS } else { VOLATILE_QOS };
        let metadata = BTreeMap::from([("offered_qos_profiles".to_string(), qos.to_string())]);
        let id = self
            .writer
            .add_channel(schema_id, topic, "cdr", &metadata)
            .map_err(|e| mcap_error(out, e))?;
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
        self.writer
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
        self.messages += 1;
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

    fn finish(mut self) -> Result<Vec<u8>> {
        let out = self.out;
        self.writer.finish().map_err(|e| mcap_error(out, e))?;
        Ok(self.writer.into_inner().into_inner())
    }
}

fn mcap_error(out: &Path, e: mcap::McapError) -> Error {
    Error::unsupported(out, format!("MCAP writer: {e}"))
}

/// What [`write`] wrote.
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

/// Writes every track of `tracks` into one ROS 2 bag at `out`.
pub fn write(tracks: &[Track], out: &Path, options: &Options) -> Result<McapReport> {
    let mut bag = Bag::new(out, options.start_time_ns.unwrap_or(0))?;
    let mut warnings = Vec::new();
    let window = super::window(tracks, options);
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
        check_size(out, sampling.rows, per_frame, super::input_bytes(track))?;
        match track {
            Track::Mtn { motion, path, .. } => {
                aibo(&mut bag, &ns, motion, path, &sampling, &mut warnings)?;
            }
            Track::InputAnimation { recording, path } => {
                mrtk::write(&mut bag, &ns, recording, path, &sampling, &mut warnings)?;
            }
            Track::Memg {
                motion,
                motion_path,
                ..
            } => memg::write(&mut bag, &ns, motion, motion_path, &sampling, &mut warnings)?,
        }
        if let Some(p) = options.progress {
            p((i + 1) as f32 / tracks.len() as f32);
        }
    }
    let topics = bag.channels.keys().cloned().collect();
    let messages = bag.messages;
    let bytes = bag.finish()?;
    crate::output::write_atomic(out, |w| w.write_all(&bytes))?;
    Ok(McapReport {
        bytes: bytes.len() as u64,
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

/// An AIBO motion: its description once, then joint states and transforms per frame.
fn aibo(
    bag: &mut Bag,
    ns: &Namespace,
    motion: &crate::formats::mtn::Mtn,
    path: &Path,
    sampling: &Sampling,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let rig = MtnRig::new(motion);
    let robot = Robot::new(rig.drawn_as());
    warnings.extend(super::robot::unknown_model(motion, &rig, path));
    let start = bag.stamp(sampling.start_s);
    // The description names its links as the transforms below name their
    // frames (`track2/base_link` in a bag of several files), so a reader that
    // builds the robot from it (Rerun, RViz) moves it by this track's `/tf`.
    let urdf = super::urdf::document(&robot.framed(&ns.frame));
    bag.string(&ns.topic("/robot_description"), true, start, &urdf)?;
    let fixed: Vec<Transform> = robot
        .joints
        .iter()
        .filter(|j| !j.moves())
        .map(|j| {
            (
                ns.frame(&j.parent),
                ns.frame(&j.child),
                j.origin,
                [0.0, 0.0, 0.0, 1.0],
            )
        })
        .collect();
    bag.tf(&ns.topic("/tf_static"), true, start, &fixed)?;
    let names: Vec<&str> = robot.moving_joints().map(|j| j.name.as_str()).collect();
    for row in 0..sampling.rows {
        let t = sampling.time(row);
        let stamp = bag.stamp(t);
        let (_, pose) = rig.pose(t);
        let positions = joint_positions(&robot, &pose.angles_deg);
        let attitude =
            glam::DQuat::from_mat3(&glam::DMat3::from_cols_array_2d(&pose.body_rotation));
        for (k, v) in attitude.to_array().iter().enumerate() {
            finite::check(*v, path, t, || format!("body attitude quaternion [{k}]"))?;
        }
        let mut m = Cdr::new();
        m.header(stamp, "")
            .strings(&names)
            .f64s(&positions)
            .f64s(&[])
            .f64s(&[]);
        bag.write(
            &ns.topic("/joint_states"),
            schemas::JOINT_STATE,
            false,
            stamp,
            m.finish(),
        )?;
        let mut transforms: Vec<Transform> = vec![(
            ns.frame("world"),
            ns.frame(super::robot::BASE_LINK),
            [0.0; 3],
            attitude.to_array(),
        )];
        for (j, (origin, q)) in robot
            .joints
            .iter()
            .zip(joint_transforms(&robot, &positions))
        {
            if j.moves() {
                transforms.push((ns.frame(&j.parent), ns.frame(&j.child), origin, q));
            }
        }
        bag.tf(&ns.topic("/tf"), false, stamp, &transforms)?;
    }
    Ok(())
}
