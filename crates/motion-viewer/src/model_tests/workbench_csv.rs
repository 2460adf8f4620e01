//! Keyframes from CSV and JSON tables, and what bad tables say.

use motion_viewer::formats::aibo::Model;
use motion_viewer::formats::mtn::{self, Scope};
use motion_viewer::workbench::{CsvError, FromTable, from_csv, from_json, from_table_reader};
use std::io::Read;

fn options(model: Model) -> FromTable {
    FromTable {
        model,
        name: "a_stand#stand_test".into(),
        creator: "tests".into(),
        frame_ms: 16,
        every_row: false,
    }
}

fn urad(deg: f64) -> i32 {
    (deg * 1_000_000.0 * std::f64::consts::PI / 180.0).round() as i32
}

const LEGS_7: [&str; 12] = [
    "left_front_j1",
    "left_front_j2",
    "left_front_j3",
    "left_hind_j1",
    "left_hind_j2",
    "left_hind_j3",
    "right_front_j1",
    "right_front_j2",
    "right_front_j3",
    "right_hind_j1",
    "right_hind_j2",
    "right_hind_j3",
];

/// A legs-only table by label: a stand, then the left front knee bent to 60°
/// over 10 frames and back over 10 more (the middle row lies on the line).
fn legs_table() -> String {
    let mut text = format!("time_s,pitch_deg,{}\n", LEGS_7.join(","));
    let stand = "-5,3,30,-5,3,30,-5,3,30,-5,3,30";
    let bent = "-5,3,60,-5,3,30,-5,3,30,-5,3,30";
    let half = "-5,3,45,-5,3,30,-5,3,30,-5,3,30";
    text += &format!("0,0,{stand}\n0.08,1,{half}\n0.16,2,{bent}\n0.32,0,{stand}\n");
    text
}

#[test]
fn a_table_by_label_makes_a_legs_motion_with_rows_on_a_line_merged() {
    let made = from_csv(legs_table().as_bytes(), &options(Model::Ers7)).unwrap();
    assert!(made.warnings.is_empty(), "{:?}", made.warnings);
    let m = made.motion;
    assert_eq!(m.design, "DRX-1000_Legs");
    assert_eq!(m.scope(), Some(Scope::Legs));
    assert_eq!(m.joints[2], "PRM:/r2/c1/c2/c3-Joint2:23");
    assert_eq!((m.frame_rate, m.version), (16, [1, 2]));
    // The row at 0.08 s lies halfway on the line from 0 to 0.16 s.
    assert_eq!(m.keyframe_frames(), [0, 10, 20]);
    assert_eq!(m.keyframes[1].joints[2], urad(60.0));
    assert_eq!(m.keyframes[1].pitch, urad(2.0));
    assert_eq!(m.keyframes[0].joints[0], urad(-5.0));
    // The file reads back to the same motion.
    assert_eq!(mtn::decode(&mtn::encode(&m)).unwrap(), m);

    let every = FromTable {
        every_row: true,
        ..options(Model::Ers7)
    };
    let m = from_csv(legs_table().as_bytes(), &every).unwrap().motion;
    assert_eq!(m.keyframe_frames(), [0, 5, 10, 20]);
}

#[test]
fn json_tables_and_frame_columns() {
    let rows: Vec<serde_json::Value> = (0..3)
        .map(|i| {
            let mut o = serde_json::json!({"frame": i * 8, "PRM:/r6/c1-Joint2:61": 5 + 10 * i});
            o["PRM:/r6/c2-Joint2:62"] = serde_json::json!(if i == 1 { 20.0 } else { -20.0 });
            o
        })
        .collect();
    let text = serde_json::to_vec(&rows).unwrap();
    let m = from_json(&text, &options(Model::Ers7)).unwrap().motion;
    assert_eq!(m.design, "DRX-1000_Tail");
    assert_eq!(m.joints, ["PRM:/r6/c1-Joint2:61", "PRM:/r6/c2-Joint2:62"]);
    assert_eq!(m.keyframe_frames(), [0, 8, 16]);
    assert_eq!(m.keyframes[2].joints, [urad(25.0), urad(-20.0)]);
}

fn err(text: &str, model: Model) -> CsvError {
    from_csv(text.as_bytes(), &options(model)).unwrap_err()
}

#[test]
fn bad_tables_name_the_row_and_the_column() {
    let header = format!("time_s,{}", LEGS_7.join(","));
    let row = "-5,3,30,-5,3,30,-5,3,30,-5,3,30";

    // A missing column: the hind knee of the right leg.
    let short = header.trim_end_matches(",right_hind_j3");
    let e = err(
        &format!("{short}\n0,{}\n", &row[..row.len() - 3]),
        Model::Ers7,
    );
    assert_eq!(
        e.to_string(),
        "row 1, column \"PRM:/r5/c1/c2/c3-Joint2:53 (right_hind_j3)\": missing: the joint columns \
         must be all of the ERS-7's joints or exactly one body part (legs, head, tail, ears, mouth)"
    );

    // A non-number on the third line.
    let e = err(
        &format!("{header}\n0,{row}\n0.016,-5,3,abc,-5,3,30,-5,3,30,-5,3,30\n"),
        Model::Ers7,
    );
    assert_eq!(
        e.to_string(),
        "row 3, column \"left_front_j3\": \"abc\" is not a number"
    );
    assert_eq!(
        (e.row, e.column.as_deref()),
        (Some(3), Some("left_front_j3"))
    );

    // A joint the model lacks: an ERS-7 PRM name in an ERS-210 table.
    let e = err("time_s,PRM:/r6/c1-Joint2:61\n0,1\n", Model::Ers210);
    assert_eq!(
        e.to_string(),
        "row 1, column \"PRM:/r6/c1-Joint2:61\": a joint of the ERS-7, not of the ERS-210"
    );
    let e = err("time_s,tail_pan\n0,1\n", Model::Ers310);
    assert!(
        e.to_string()
            .starts_with("row 1, column \"tail_pan\": not a joint of the ERS-310"),
        "{e}"
    );

    // A short row, times going backwards, no time, a value the file can't hold.
    let e = err(&format!("{header}\n0,{row}\n0.016,-5,3\n"), Model::Ers7);
    assert_eq!(e.to_string(), "row 3, column \"left_front_j3\": missing");
    let e = err(
        &format!("{header}\n0.032,{row}\n0.016,{row}\n"),
        Model::Ers7,
    );
    assert_eq!(
        e.to_string(),
        "row 3, column \"time_s\": 0.016 lands on frame 1, not after the row before (frame 2)"
    );
    let e = err(&format!("{}\n{row}\n", LEGS_7.join(",")), Model::Ers7);
    assert_eq!(e.to_string(), "row 1: no time_s or frame column");
    let e = err(
        &format!("{header}\n0,-5,3,200000,-5,3,30,-5,3,30,-5,3,30\n"),
        Model::Ers7,
    );
    assert!(
        e.to_string()
            .starts_with("row 2, column \"left_front_j3\": 200000° is beyond"),
        "{e}"
    );
    let e = err(
        &format!("{header}\n0,-5,3,NaN,-5,3,30,-5,3,30,-5,3,30\n"),
        Model::Ers7,
    );
    assert_eq!(
        e.to_string(),
        "row 2, column \"left_front_j3\": NaN is not a finite number"
    );
    let e = err(&format!("{header}\n"), Model::Ers7);
    assert_eq!(e.to_string(), "row 1: no rows after the header");
    // Every message is one line.
    assert!(!e.to_string().contains('\n'));

    // JSON: the n-th object is row n.
    let e = from_json(
        br#"[{"frame":0,"tail_pan":1,"tail_tilt":2},{"frame":1,"tail_pan":"x","tail_tilt":2}]"#,
        &options(Model::Ers7),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "row 2, column \"tail_pan\": \"x\" is not a number"
    );
    let e = from_json(b"{\"a\": 1}", &options(Model::Ers7)).unwrap_err();
    assert!(
        e.to_string().starts_with("not a JSON array of objects"),
        "{e}"
    );
}

#[test]
fn names_the_format_cannot_hold_are_refused() {
    let mut o = options(Model::Ers7);
    o.name = "a_stand#stand_λ".into();
    let e = from_csv(legs_table().as_bytes(), &o).unwrap_err();
    assert!(
        e.to_string().contains("at most 255 Latin-1 characters"),
        "{e}"
    );
    assert_eq!(e.row, None);
}

/// A header, then a row whose second cell is `len` bytes of '7', made as it
/// is read; counts the bytes taken.
struct LongRow {
    head: &'static [u8],
    left: u64,
    taken: std::rc::Rc<std::cell::Cell<u64>>,
}

impl Read for LongRow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if !self.head.is_empty() {
            let n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head = &self.head[n..];
            n
        } else {
            let n = (buf.len() as u64).min(self.left) as usize;
            buf[..n].fill(b'7');
            self.left -= n as u64;
            n
        };
        self.taken.set(self.taken.get() + n as u64);
        Ok(n)
    }
}

#[test]
fn a_200_mb_cell_is_refused_after_reading_a_sliver_of_it() {
    let taken = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = LongRow {
        head: b"frame,tail_pan,tail_tilt\n0,",
        left: 200_000_000,
        taken: taken.clone(),
    };
    let e = from_table_reader(source, &options(Model::Ers7)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "row 2: cell 2 is longer than 1024 bytes (a number or a column name); refused without \
         reading the rest"
    );
    // The reader's buffers: 64 KiB read ahead, and the CSV parser's own.
    assert!(taken.get() < 1 << 20, "{} bytes read", taken.get());
}

#[test]
fn a_200_mb_json_value_is_refused_after_reading_a_sliver_of_it() {
    // A string in the second object, then a bare number in the first.
    for head in [
        &b"[{\"frame\":0,\"tail_pan\":1,\"tail_tilt\":2},\n {\"frame\":1,\"tail_pan\":\""[..],
        &b"[{\"frame\":0,\"tail_pan\":"[..],
    ] {
        let taken = std::rc::Rc::new(std::cell::Cell::new(0));
        let source = LongRow {
            head,
            left: 200_000_000,
            taken: taken.clone(),
        };
        let e = from_table_reader(source, &options(Model::Ers7)).unwrap_err();
        let row = if head.len() > 30 { 2 } else { 1 };
        assert_eq!(
            e.to_string(),
            format!(
                "row {row}: a value longer than 1024 bytes (a number or a column name); refused \
                 without reading the rest"
            )
        );
        assert!(taken.get() < 1 << 20, "{} bytes read", taken.get());
    }
}

#[test]
fn a_table_streams_row_by_row_and_json_is_told_by_content() {
    // The same table as CSV and as JSON, through the one reader.
    let csv = from_table_reader(legs_table().as_bytes(), &options(Model::Ers7)).unwrap();
    assert_eq!(csv.motion.keyframe_frames(), [0, 10, 20]);
    let json = from_table_reader(
        &b"  [{\"frame\":0,\"tail_pan\":1,\"tail_tilt\":2},{\"frame\":5,\"tail_pan\":3,\"tail_tilt\":2}]"[..],
        &options(Model::Ers7),
    )
    .unwrap();
    assert_eq!(json.motion.keyframe_frames(), [0, 5]);
    assert_eq!(json.motion.keyframes[1].joints.len(), 2);
    // Quoted commas and line breaks stay in their cell (and count toward it).
    let e = from_table_reader(
        &b"frame,tail_pan,tail_tilt\n0,\"1,\n2\",3\n"[..],
        &options(Model::Ers7),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "row 2, column \"tail_pan\": \"1,\\n2\" is not a number"
    );
}
