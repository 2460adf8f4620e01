//! Reading a table of keyframes: CSV (with the `csv` crate) or a JSON array
//! of objects, into named columns and rows numbered as the user counts them.

use super::EditError;

/// The most rows a table may have: a 250 s motion sampled at 4 kHz.
pub const MAX_ROWS: usize = 1_000_000;

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
        (Some(r), Some(c)) => format!("row {r}, column {c:?}: "),
        (Some(r), None) => format!("row {r}: "),
        (None, Some(c)) => format!("column {c:?}: "),
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

/// A table as read: column names, and rows numbered as the user counts them.
pub(super) struct Table {
    /// Column names, as the header (or the first JSON object) gives them.
    pub columns: Vec<String>,
    /// The header's row number.
    pub header_row: usize,
    /// Each row's number and cells, one per column.
    pub rows: Vec<(usize, Vec<Cell>)>,
}

/// Reads CSV text with a header row.
pub(super) fn read_csv(bytes: &[u8]) -> Result<Table, CsvError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let row_of = |e: &csv::Error| e.position().map_or(1, |p| p.line() as usize);
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| error(row_of(&e), None, csv_message(&e)))?
        .iter()
        .map(str::to_string)
        .collect();
    let header_row = reader.position().line().max(1) as usize - 1;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| error(row_of(&e), None, csv_message(&e)))?;
        let row = record.position().map_or(0, |p| p.line() as usize);
        if rows.len() == MAX_ROWS {
            return Err(error(row, None, format!("more than {MAX_ROWS} rows")));
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        let mut cells: Vec<Cell> = record.iter().map(|c| Cell::Text(c.to_string())).collect();
        if cells.len() > columns.len() {
            return Err(error(
                row,
                None,
                format!(
                    "{} cells, but the header names {} columns",
                    cells.len(),
                    columns.len()
                ),
            ));
        }
        cells.resize(columns.len(), Cell::Missing);
        rows.push((row, cells));
    }
    Ok(Table {
        columns,
        header_row: header_row.max(1),
        rows,
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

/// Reads a JSON array of objects; the first object's keys are the columns.
pub(super) fn read_json(bytes: &[u8]) -> Result<Table, CsvError> {
    let objects: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_slice(bytes)
        .map_err(|e| CsvError {
            row: None,
            column: None,
            message: format!(
                "not a JSON array of objects (line {}, column {}: {e})",
                e.line(),
                e.column()
            ),
        })?;
    if objects.len() > MAX_ROWS {
        return Err(error(
            MAX_ROWS + 1,
            None,
            format!("more than {MAX_ROWS} rows"),
        ));
    }
    let columns: Vec<String> = objects
        .first()
        .map_or_else(Vec::new, |o| o.keys().cloned().collect());
    let mut rows = Vec::with_capacity(objects.len());
    for (i, object) in objects.into_iter().enumerate() {
        let row = i + 1;
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
        rows.push((row, cells));
    }
    Ok(Table {
        columns,
        header_row: 1,
        rows,
    })
}

/// A cell as a finite number, or an error naming it.
pub(super) fn number(cell: &Cell, row: usize, column: &str) -> Result<f64, CsvError> {
    let value = match cell {
        Cell::Number(x) => *x,
        Cell::Text(t) if t.is_empty() => return Err(error(row, Some(column), "empty")),
        Cell::Text(t) => t
            .parse::<f64>()
            .map_err(|_| error(row, Some(column), format!("{t:?} is not a number")))?,
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
