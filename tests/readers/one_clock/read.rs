//! Plain readers of what the writers wrote, written from the formats
//! themselves, not from our writers: a CSV or JSON table, the polylines of a
//! plot's SVG through the mapping on its root element, and the ROS 2
//! messages of a bag (OMG CDR, decoded by hand).

use std::collections::BTreeMap;
use std::path::Path;

/// A table `export` wrote: its header and its rows of numbers.
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Table {
    /// A CSV table: a header line of names, then lines of numbers. Every
    /// number is parsed as Rust parses an `f64`, which reads the shortest
    /// text the writer prints back to the very same number.
    pub fn csv(path: &Path) -> Table {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        let columns: Vec<String> = lines
            .next()
            .expect("a header line")
            .split(',')
            .map(String::from)
            .collect();
        let rows: Vec<Vec<f64>> = lines
            .map(|line| {
                let row: Vec<f64> = line
                    .split(',')
                    .map(|x| x.parse().unwrap_or_else(|e| panic!("{x:?}: {e}")))
                    .collect();
                assert_eq!(row.len(), columns.len(), "{}: {line}", path.display());
                row
            })
            .collect();
        Table { columns, rows }
    }

    /// A JSON table (an array of objects keyed by column), in the order of
    /// `columns`; every object must have exactly those keys.
    pub fn json(path: &Path, columns: &[String]) -> Table {
        let rows: Vec<serde_json::Map<String, serde_json::Value>> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let rows = rows
            .iter()
            .map(|object| {
                assert_eq!(object.len(), columns.len(), "{}", path.display());
                columns
                    .iter()
                    .map(|c| object[c].as_f64().unwrap_or_else(|| panic!("{c}")))
                    .collect()
            })
            .collect();
        Table {
            columns: columns.to_vec(),
            rows,
        }
    }

    /// The index of column `name`.
    pub fn index(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    /// Column `name`, top to bottom.
    pub fn column(&self, name: &str) -> Vec<f64> {
        let i = self.index(name);
        self.rows.iter().map(|r| r[i]).collect()
    }

    /// Row `k`'s value of column `name`.
    pub fn at(&self, k: usize, name: &str) -> f64 {
        self.rows[k][self.index(name)]
    }
}

/// A plot's SVG: the mapping its root element carries (docs/cli.md "Curves:
/// plot and diff") and each channel's polyline as `(t, v)` pairs.
pub struct Plot {
    /// Seconds per pixel along x: how far a time read back may be off
    /// (points are written to 0.001 px).
    pub t_per_px: f64,
    /// Value units per pixel along y.
    pub v_per_px: f64,
    /// Each polyline's `data-channel` and points, in the file's order.
    pub curves: Vec<(String, Vec<(f64, f64)>)>,
}

/// The value of attribute `name` in the tag text `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let start = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    let len = tag[start..].find('"').unwrap();
    &tag[start..start + len]
}

impl Plot {
    /// Reads `path`, mapping every point back to a time and a value:
    /// `t = t0 + (x − x0)/(x1 − x0)·(t1 − t0)`, `v = v0 + (y − y0)/(y1 − y0)·(v1 − v0)`.
    pub fn read(path: &Path) -> Plot {
        let text = std::fs::read_to_string(path).unwrap();
        let root_start = text.find("<svg").expect("an <svg> root");
        let root = &text[root_start..root_start + text[root_start..].find('>').unwrap()];
        let num = |name: &str| -> f64 { attribute(root, name).parse().unwrap() };
        let (t0, t1, v0, v1) = (
            num("data-t0"),
            num("data-t1"),
            num("data-v0"),
            num("data-v1"),
        );
        let (x0, x1, y0, y1) = (
            num("data-x0"),
            num("data-x1"),
            num("data-y0"),
            num("data-y1"),
        );
        let mut curves = Vec::new();
        for piece in text.split("<polyline").skip(1) {
            let tag = &piece[..piece.find('>').unwrap()];
            let channel = attribute(tag, "data-channel").to_string();
            let points = attribute(tag, "points")
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                    (
                        t0 + (x - x0) / (x1 - x0) * (t1 - t0),
                        v0 + (y - y0) / (y1 - y0) * (v1 - v0),
                    )
                })
                .collect();
            curves.push((channel, points));
        }
        Plot {
            t_per_px: ((t1 - t0) / (x1 - x0)).abs(),
            v_per_px: ((v1 - v0) / (y1 - y0)).abs(),
            curves,
        }
    }
}

/// One `geometry_msgs/TransformStamped`: its stamp (ns), parent and child
/// frames, translation and rotation `[x, y, z, w]`.
#[derive(Debug, Clone)]
pub struct Tf {
    pub stamp_ns: u64,
    pub parent: String,
    pub child: String,
    pub translation: [f64; 3],
    pub rotation: [f64; 4],
}

/// One `sensor_msgs/JointState`: its stamp (ns), names and positions.
#[derive(Debug, Clone)]
pub struct JointState {
    pub stamp_ns: u64,
    pub names: Vec<String>,
    pub positions: Vec<f64>,
}

/// A bag's messages by topic: each message's log time and payload.
pub struct Bag {
    pub topics: BTreeMap<String, Vec<(u64, Vec<u8>)>>,
}

impl Bag {
    /// Reads every message of the MCAP file at `path` with the `mcap` crate.
    pub fn read(path: &Path) -> Bag {
        let bytes = std::fs::read(path).unwrap();
        let mut topics: BTreeMap<String, Vec<(u64, Vec<u8>)>> = BTreeMap::new();
        for message in mcap::MessageStream::new(&bytes).unwrap() {
            let message = message.unwrap();
            assert_eq!(message.channel.message_encoding, "cdr");
            topics
                .entry(message.channel.topic.clone())
                .or_default()
                .push((message.log_time, message.data.into_owned()));
        }
        Bag { topics }
    }

    /// The messages on `topic` (none if it is absent).
    fn on(&self, topic: &str) -> &[(u64, Vec<u8>)] {
        self.topics.get(topic).map_or(&[], Vec::as_slice)
    }

    /// Every `tf2_msgs/TFMessage` on `topic`: its log time and transforms.
    pub fn tf(&self, topic: &str) -> Vec<(u64, Vec<Tf>)> {
        self.on(topic)
            .iter()
            .map(|(log, data)| {
                let mut c = Cdr::new(data);
                let n = c.u32();
                let transforms = (0..n)
                    .map(|_| {
                        let (stamp_ns, parent) = c.header();
                        let child = c.string();
                        Tf {
                            stamp_ns,
                            parent,
                            child,
                            translation: [c.f64(), c.f64(), c.f64()],
                            rotation: [c.f64(), c.f64(), c.f64(), c.f64()],
                        }
                    })
                    .collect();
                c.end();
                (*log, transforms)
            })
            .collect()
    }

    /// Every `std_msgs/Bool` on `topic`, with its log time.
    pub fn bools(&self, topic: &str) -> Vec<(u64, bool)> {
        self.on(topic)
            .iter()
            .map(|(log, data)| {
                assert!((5..8).contains(&data.len()), "a Bool is one byte");
                assert!(data[4] <= 1);
                (*log, data[4] == 1)
            })
            .collect()
    }

    /// Every `sensor_msgs/JointState` on `topic`, with its log time.
    pub fn joint_states(&self, topic: &str) -> Vec<(u64, JointState)> {
        self.on(topic)
            .iter()
            .map(|(log, data)| {
                let mut c = Cdr::new(data);
                let (stamp_ns, _) = c.header();
                let names = (0..c.u32()).map(|_| c.string()).collect();
                let positions = c.f64s();
                let (velocities, efforts) = (c.f64s(), c.f64s());
                assert!(velocities.is_empty() && efforts.is_empty());
                c.end();
                (
                    *log,
                    JointState {
                        stamp_ns,
                        names,
                        positions,
                    },
                )
            })
            .collect()
    }
}

/// A CDR message being read (XCDR1 little-endian, as ROS 2 writes it): a
/// 4-byte encapsulation header `00 01 00 00`, then each primitive aligned
/// to its size counted from the end of that header; a string is a `u32`
/// length that counts its closing NUL; a sequence a `u32` count, then its
/// elements.
struct Cdr<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Cdr<'a> {
    fn new(data: &'a [u8]) -> Cdr<'a> {
        assert_eq!(data[..4], [0, 1, 0, 0], "CDR_LE encapsulation");
        Cdr {
            body: &data[4..],
            at: 0,
        }
    }

    fn take<const N: usize>(&mut self) -> [u8; N] {
        self.at = self.at.next_multiple_of(N);
        let bytes = self.body[self.at..self.at + N].try_into().unwrap();
        self.at += N;
        bytes
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }

    fn f64s(&mut self) -> Vec<f64> {
        (0..self.u32()).map(|_| self.f64()).collect()
    }

    fn string(&mut self) -> String {
        let len = self.u32() as usize;
        let bytes = &self.body[self.at..self.at + len];
        self.at += len;
        assert_eq!(bytes.last(), Some(&0), "a string ends with NUL");
        String::from_utf8(bytes[..len - 1].to_vec()).unwrap()
    }

    /// A `std_msgs/Header`: its stamp in nanoseconds and its frame.
    fn header(&mut self) -> (u64, String) {
        let sec = i32::from_le_bytes(self.take());
        let nanosec = self.u32();
        assert!(sec >= 0 && nanosec < 1_000_000_000);
        let stamp = sec as u64 * 1_000_000_000 + u64::from(nanosec);
        (stamp, self.string())
    }

    /// The whole message was read (up to padding).
    fn end(&self) {
        assert!(
            self.body.len() - self.at < 8,
            "bytes left over in a message"
        );
    }
}
