//! A small encoder for the ROS 2 messages our bags carry, in OMG CDR as
//! ROS 2's default middleware writes it (XCDR1, little-endian):
//!
//! - a 4-byte encapsulation header `00 01 00 00` (CDR_LE, no options);
//! - each primitive aligned to its own size (1, 2, 4 or 8 bytes), counted
//!   from the end of that header, and written little-endian;
//! - a `string` as a `u32` byte count that includes a closing NUL, the UTF-8
//!   bytes, then the NUL;
//! - a sequence (`T[]`) as a `u32` element count, then the elements;
//! - a nested message as its fields in order, with no header of its own.
//!
//! No well-kept Rust crate writes ROS 2 CDR without pulling in a ROS
//! installation or a serde data model that does not know ROS's string rule,
//! so this is ours; `tests/readers/mcap.rs` decodes every message we write
//! with `mcap-ros2-support`, the reader Foxglove's own tools use.

/// The CDR little-endian encapsulation header.
pub(crate) const HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// One message being encoded.
#[derive(Debug, Clone)]
pub struct Cdr {
    bytes: Vec<u8>,
}

impl Default for Cdr {
    fn default() -> Self {
        Self::new()
    }
}

impl Cdr {
    /// An empty message (the encapsulation header only).
    pub fn new() -> Cdr {
        Cdr {
            bytes: HEADER.to_vec(),
        }
    }

    /// Pads with zeros to a multiple of `n` bytes past the header.
    fn align(&mut self, n: usize) {
        while !(self.bytes.len() - HEADER.len()).is_multiple_of(n) {
            self.bytes.push(0);
        }
    }

    /// A `bool` (one byte, 0 or 1).
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.bytes.push(u8::from(v));
        self
    }

    /// An `int32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.align(4);
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A `uint32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.align(4);
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A `float64`.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.align(8);
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A `string`. Lengths past `u32` cannot be encoded; the callers' strings
    /// are names and a URDF, far below that.
    pub fn string(&mut self, s: &str) -> &mut Self {
        let count = u32::try_from(s.len() + 1).unwrap_or(u32::MAX);
        self.u32(count);
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self
    }

    /// A sequence's element count (the elements follow).
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// A `float64[]`.
    pub fn f64s(&mut self, v: &[f64]) -> &mut Self {
        self.count(v.len());
        for &x in v {
            self.f64(x);
        }
        self
    }

    /// A `string[]`.
    pub fn strings<S: AsRef<str>>(&mut self, v: &[S]) -> &mut Self {
        self.count(v.len());
        for s in v {
            self.string(s.as_ref());
        }
        self
    }

    /// `builtin_interfaces/Time` for `ns` nanoseconds since the epoch.
    /// Its `sec` is an `int32`: a bag refuses a stamp past
    /// [`super::MAX_STAMP_NS`] before writing anything, so the saturation
    /// here (kept so that no input can make this panic) never shows.
    pub fn time(&mut self, ns: u64) -> &mut Self {
        let sec = i32::try_from(ns / 1_000_000_000).unwrap_or(i32::MAX);
        self.i32(sec).u32((ns % 1_000_000_000) as u32)
    }

    /// `std_msgs/Header`.
    pub fn header(&mut self, ns: u64, frame_id: &str) -> &mut Self {
        self.time(ns).string(frame_id)
    }

    /// `geometry_msgs/Vector3` or `Point`.
    pub fn vec3(&mut self, v: [f64; 3]) -> &mut Self {
        self.f64(v[0]).f64(v[1]).f64(v[2])
    }

    /// `geometry_msgs/Quaternion`, `[x, y, z, w]`.
    pub(crate) fn quat(&mut self, q: [f64; 4]) -> &mut Self {
        self.f64(q[0]).f64(q[1]).f64(q[2]).f64(q[3])
    }

    /// The encoded message.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_doubles_follow_the_cdr_rules() {
        // std_msgs/String "hi": header, length 3 (with the NUL), "hi\0".
        let mut m = Cdr::new();
        m.string("hi");
        assert_eq!(m.finish(), [0, 1, 0, 0, 3, 0, 0, 0, b'h', b'i', 0]);
        // A float64 after a 3-byte string is aligned to 8 past the header.
        let mut m = Cdr::new();
        m.string("ab").f64(1.0);
        let b = m.finish();
        assert_eq!(b.len(), 4 + 8 + 8);
        assert_eq!(&b[12..], &1.0f64.to_le_bytes());
        // Time 1.5 s: sec 1, nanosec 500 000 000.
        let mut m = Cdr::new();
        m.time(1_500_000_000);
        assert_eq!(m.finish()[4..], [1, 0, 0, 0, 0x00, 0x65, 0xcd, 0x1d]);
    }
}
