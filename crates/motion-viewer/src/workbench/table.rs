//! Reading a table of keyframes: CSV (with the `csv` crate) or a JSON array
//! of objects, into named columns and rows numbered as the user counts them.

use super::EditError;
use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

/// `text` cut to what an error message quotes.
fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::cut(text, QUOTED_CHARS)
}

/// The most rows a table may have: a 250 s motion sampled at 4 kHz.
pub(crate) const MAX_ROWS: usize = 1_000_000;

/// A table that does not make a motion: where and why, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", place(*.row, .column.as_deref()))]
pub struct CsvError {
    /// The row (the header is row 1); `None` when not about one row.
    pub row: Option<usize>,
    /// The column, when the error is about one.
    pub column: Option<String>,
    /// What is wrong.
    pub message: String,
}

fn place(row: Option<usize>, column: Option<&str>) -> String {
    match (row, column) {
        (Some(r), Some(c)) => format!("row {r}, column {:?}: ", cut(c)),
        (Some(r), None) => format!("row {r}: "),
        (None, Some(c)) => format!("column {:?}: ", cut(c)),
        (None, None) => String::new(),
    }
}

pub(super) fn error(row: usize, column: Option<&str>, message: impl Into<String>) -> CsvError {
    CsvError {
        row: Some(row),
        column: column.map(str::to_string),
        message: message.into(),
    }
}

impl From<EditError> for CsvError {
    fn from(e: EditError) -> Self {
        CsvError {
            row: None,
            column: None,
            message: e.to_string(),
        }
    }
}

/// One cell as read.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    /// A JSON number.
    Number(f64),
    /// Text to parse (every CSV cell).
    Text(String),
    /// No value in this row.
    Missing,
}

/// The longest line (a CSV record) read: a keyframe row of every channel
/// is a few hundred bytes.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;
/// The longest CSV field read: a number or a column name.
pub(crate) const MAX_FIELD_BYTES: usize = 1024;
/// The most bytes a table is read for: a million rows of every channel.
pub(crate) const MAX_TABLE_BYTES: u64 = 512 << 20;
/// How much of a value an error message quotes.
const QUOTED_CHARS: usize = crate::text::QUOTED_CHARS;

/// The rows of a table, read one at a time as they are asked for.
pub(super) type Rows<'a> = Box<dyn Iterator<Item = Result<(usize, Vec<Cell>), CsvError>> + 'a>;

/// A table being read: column names, and rows numbered as the user counts
/// them, read from the source one at a time.
pub(super) struct Table<'a> {
    /// Column names, as the header (or the first JSON object) gives them.
    pub columns: Vec<String>,
    /// The header's row number.
    pub header_row: usize,
    /// Each row's number and cells, one per column, as read.
    pub rows: Rows<'a>,
}

/// A cap passed while reading, at `line` (1-based).
#[derive(Debug)]
struct Refused {
    line: usize,
    message: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refused {}

/// A reader that checks the caps on the bytes as they pass, before the CSV
/// parser buffers them: [`MAX_TABLE_BYTES`] in all and, for CSV,
/// [`MAX_LINE_BYTES`] per record and [`MAX_FIELD_BYTES`] per field (quotes
/// followed as RFC 4180 has them, so a quoted comma or line break stays in
/// its field). A table past a cap ends in an error at once, so a 200 MB row
/// costs 64 KiB of memory, not 200 MB.
struct Capped<R> {
    inner: R,
    csv: bool,
    total: u64,
    line: usize,
    record_line: usize,
    record_bytes: usize,
    field: usize,
    field_bytes: usize,
    quoted: bool,
    /// JSON: nesting depth, a backslash just seen in a string, and the
    /// object of the top array being read (its row).
    depth: usize,
    escaped: bool,
    object: usize,
    /// The refusal, kept for a parser that does not hand the I/O error back whole.
    tripped: Rc<RefCell<Option<CsvError>>>,
}

impl<R> Capped<R> {
    fn new(inner: R, csv: bool) -> Capped<R> {
        Capped {
            inner,
            csv,
            total: 0,
            line: 1,
            record_line: 1,
            record_bytes: 0,
            field: 1,
            field_bytes: 0,
            quoted: false,
            depth: 0,
            escaped: false,
            object: 0,
            tripped: Rc::default(),
        }
    }

    fn refuse(&self, line: usize, message: String) -> std::io::Error {
        *self.tripped.borrow_mut() = Some(error(line, None, message.clone()));
        std::io::Error::other(Refused { line, message })
    }

    /// Follows `bytes` through the CSV grammar, checking each cap.
    fn scan(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.total += bytes.len() as u64;
        if self.total > MAX_TABLE_BYTES {
            return Err(self.refuse(
                self.line,
                format!("the table goes on past {MAX_TABLE_BYTES} bytes; refused"),
            ));
        }
        if !self.csv {
            return self.scan_json(bytes);
        }
        for &b in bytes {
            match b {
                b'"' => self.quoted = !self.quoted,
                b'\n' if !self.quoted => {
                    self.line += 1;
                    self.record_line = self.line;
                    self.record_bytes = 0;
                    self.field = 1;
                    self.field_bytes = 0;
                    continue;
                }
                b'\n' => self.line += 1,
                b',' if !self.quoted => {
                    self.field += 1;
                    self.field_bytes = 0;
                    self.record_bytes += 1;
                    continue;
                }
                _ => {}
            }
            self.record_bytes += 1;
            self.field_bytes += 1;
            if self.record_bytes > MAX_LINE_BYTES {
                return Err(self.refuse(
                    self.record_line,
                    format!(
                        "longer than {MAX_LINE_BYTES} bytes (a row of keyframes takes a few \
                         hundred); refused without reading the rest"
                    ),
                ));
            }
            if self.field_bytes > MAX_FIELD_BYTES {
                return Err(self.refuse(
                    self.record_line,
                    format!(
                        "cell {} is longer than {MAX_FIELD_BYTES} bytes (a number or a \
                         column name); refused without reading the rest",
                        self.field
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<R> Capped<R> {
    /// Follows `bytes` through JSON's strings and tokens, checking that no
    /// string, number or word is longer than [`MAX_FIELD_BYTES`].
    fn scan_json(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        for &b in bytes {
            if self.quoted {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => {
                        self.quoted = false;
                        self.field_bytes = 0;
                        continue;
                    }
                    _ => {}
                }
            } else {
                match b {
                    b'"' => {
                        self.quoted = true;
                        self.field_bytes = 0;
                        continue;
                    }
                    b'[' | b'{' => {
                        self.depth += 1;
                        if self.depth == 2 {
                            self.object += 1;
                        }
                    }
                    b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
                if b"[]{},: \t\r\n".contains(&b) {
                    self.field_bytes = 0;
                    continue;
                }
            }
            self.field_bytes += 1;
            if self.field_bytes > MAX_FIELD_BYTES {
                return Err(self.refuse(
                    self.object.max(1),
                    format!(
                        "a value longer than {MAX_FIELD_BYTES} bytes (a number or a column \
                         name); refused without reading the rest"
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.scan(&buf[..n])?;
        Ok(n)
    }
}

/// A cap's refusal inside an I/O error, if that is what it is.
fn refused(io: &std::io::Error) -> Option<&Refused> {
    io.get_ref()?.downcast_ref::<Refused>()
}

/// A csv crate's error as a [`CsvError`] at its row.
fn from_csv_error(e: &csv::Error) -> CsvError {
    if let csv::ErrorKind::Io(io) = e.kind()
        && let Some(r) = refused(io)
    {
        return error(r.line, None, r.message.clone());
    }
    let row = e.position().map_or(1, |p| p.line() as usize);
    error(row, None, csv_message(e))
}

/// Reads CSV text with a header row from `source`, a record at a time:
/// the header at once, then each row when [`Table::rows`] is asked for it.
pub(super) fn read_csv<'a>(source: impl Read + 'a) -> Result<Table<'a>, CsvError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(Capped::new(source, true));
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| from_csv_error(&e))?
        .iter()
        .map(str::to_string)
        .collect();
    let header_row = reader.position().line().max(1) as usize - 1;
    let width = columns.len();
    let mut kept = 0;
    let mut record = csv::StringRecord::new();
    let mut done = false;
    let rows = std::iter::from_fn(move || {
        while !done {
            match reader.read_record(&mut record) {
                Err(e) => {
                    done = true;
                    return Some(Err(from_csv_error(&e)));
                }
                Ok(false) => done = true,
                Ok(true) => {
                    let row = record.position().map_or(0, |p| p.line() as usize);
                    if kept == MAX_ROWS {
                        done = true;
                        return Some(Err(error(row, None, format!("more than {MAX_ROWS} rows"))));
                    }
                    if record.iter().all(str::is_empty) {
                        continue;
                    }
                    if record.len() > width {
                        done = true;
                        let message = format!(
                            "{} cells, but the header names {width} columns",
                            record.len()
                        );
                        return Some(Err(error(row, None, message)));
                    }
                    let mut cells: Vec<Cell> =
                        record.iter().map(|c| Cell::Text(c.to_string())).collect();
                    cells.resize(width, Cell::Missing);
                    kept += 1;
                    return Some(Ok((row, cells)));
                }
            }
        }
        None
    });
    Ok(Table {
        columns,
        header_row: header_row.max(1),
        rows: Box::new(rows),
    })
}

/// The csv crate's error without its own position (the caller names the row).
fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        csv::ErrorKind::Io(io) => io.to_string(),
        _ => e.to_string(),
    }
}

/// Rows collected from a JSON array as its objects stream past, each
/// turned into cells at once (never held as a whole document).
#[derive(Default)]
struct JsonRows {
    columns: Option<Vec<String>>,
    rows: Vec<(usize, Vec<Cell>)>,
    problem: Option<CsvError>,
}

impl JsonRows {
    /// Takes the `row`-th object; the first one names the columns.
    fn push(
        &mut self,
        row: usize,
        object: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), CsvError> {
        if row > MAX_ROWS {
            return Err(error(row, None, format!("more than {MAX_ROWS} rows")));
        }
        let columns = self
            .columns
            .get_or_insert_with(|| object.keys().cloned().collect());
        if let Some(extra) = object.keys().find(|k| !columns.contains(k)) {
            return Err(error(row, Some(extra), "not among the first row's columns"));
        }
        let cells = columns
            .iter()
            .map(|c| match object.get(c) {
                None | Some(serde_json::Value::Null) => Cell::Missing,
                Some(serde_json::Value::Number(n)) => {
                    n.as_f64().map_or(Cell::Missing, Cell::Number)
                }
                Some(serde_json::Value::String(s)) => Cell::Text(s.clone()),
                Some(other) => Cell::Text(other.to_string()),
            })
            .collect();
        self.rows.push((row, cells));
        Ok(())
    }
}

impl<'de> serde::de::Visitor<'de> for &mut JsonRows {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of objects")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut row = 0;
        while let Some(object) = seq.next_element()? {
            row += 1;
            if let Err(e) = self.push(row, object) {
                self.problem = Some(e);
                return Err(serde::de::Error::custom("refused"));
            }
        }
        Ok(())
    }
}

/// Reads a JSON array of objects from `source` (at most [`MAX_TABLE_BYTES`],
/// no value longer than [`MAX_FIELD_BYTES`]), an object at a time; the first
/// object's keys are the columns.
pub(super) fn read_json<'a>(source: impl Read + 'a) -> Result<Table<'a>, CsvError> {
    use serde::Deserializer as _;
    let mut found = JsonRows::default();
    let capped = Capped::new(source, false);
    let tripped = Rc::clone(&capped.tripped);
    let mut reader = serde_json::Deserializer::from_reader(capped);
    let read = reader
        .deserialize_seq(&mut found)
        .and_then(|()| reader.end());
    if let Some(problem) = found.problem.take() {
        return Err(problem);
    }
    if let Err(e) = read {
        if let Some(refusal) = tripped.borrow_mut().take() {
            return Err(refusal);
        }
        return Err(CsvError {
            row: None,
            column: None,
            message: format!(
                "not a JSON array of objects (line {}, column {}: {e})",
                e.line(),
                e.column()
            ),
        });
    }
    Ok(Table {
        columns: found.columns.unwrap_or_default(),
        header_row: 1,
        rows: Box::new(found.rows.into_iter().map(Ok)),
    })
}

/// A cell as a finite number, or an error naming it.
pub(super) fn number(cell: &Cell, row: usize, column: &str) -> Result<f64, CsvError> {
    let value = match cell {
        Cell::Number(x) => *x,
        Cell::Text(t) if t.is_empty() => return Err(error(row, Some(column), "empty")),
        Cell::Text(t) => t
            .parse::<f64>()
            .map_err(|_| error(row, Some(column), format!("{:?} is not a number", cut(t))))?,
        Cell::Missing => return Err(error(row, Some(column), "missing")),
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(error(
            row,
            Some(column),
            format!("{value} is not a finite number"),
        ))
    }
}
