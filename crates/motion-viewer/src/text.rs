//! Text that came from a file, made safe to show: control characters
//! escaped (an ODA entry name, a `.mtn` name, an MRTK marker or a MEMG group
//! name may hold ESC sequences that would drive a terminal), and long values
//! cut to a readable length. JSON output keeps its own escaping; everything
//! printed as text goes through here.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// Shows a string with every control character (C0, DEL, C1) and every
/// bidirectional-override character written as an escape (`\x1b`,
/// `\u{202e}`), and backslashes as they are; everything else unchanged.
#[derive(Clone, Copy)]
pub struct Escaped<'a>(pub &'a str);

impl<'a> Escaped<'a> {
    /// A path, shown as [`Path::display`] would, escaped.
    pub fn path(path: &'a Path) -> EscapedPath<'a> {
        EscapedPath(path)
    }
}

/// A path shown escaped; see [`Escaped::path`].
#[derive(Clone, Copy)]
pub struct EscapedPath<'a>(&'a Path);

impl fmt::Display for EscapedPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Escaped(&self.0.to_string_lossy()), f)
    }
}

/// Whether `c` must not reach a terminal as it is.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(unsafe_char) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            match c as u32 {
                n @ 0..=0xff => write!(f, "\\x{n:02x}")?,
                n => write!(f, "\\u{{{n:x}}}")?,
            }
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// `text` escaped as [`Escaped`] shows it; borrowed when nothing needed it.
pub fn escape(text: &str) -> Cow<'_, str> {
    if text.contains(unsafe_char) {
        Cow::Owned(Escaped(text).to_string())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` of several lines escaped line by line, as [`Escaped`] shows each:
/// its line breaks kept, every other control character escaped.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    if !text.split('\n').any(|line| line.contains(unsafe_char)) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(escape).collect();
    Cow::Owned(lines.join("\n"))
}

/// How much of a value from the command line or a file an error message
/// quotes (a pattern, an entry's name, a table's cell).
pub const QUOTED_CHARS: usize = 80;

/// `text` cut to at most `max_chars` characters (on a character boundary),
/// with `… (N bytes)` saying how long it was when cut.
pub fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!("{}… ({} bytes)", &text[..at], text.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(escape("plain name"), "plain name");
        assert_eq!(escape("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escape("tab\there\r\n"), "tab\\x09here\\x0d\\x0a");
        assert_eq!(escape("\u{9b}31m"), "\\x9b31m");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("é ü 日本"), "é ü 日本");
        assert_eq!(
            Escaped::path(Path::new("x\x07.mtn")).to_string(),
            "x\\x07.mtn"
        );
    }

    #[test]
    fn lines_keep_their_breaks_and_lose_their_escapes() {
        assert_eq!(escape_lines("a\nb\n"), "a\nb\n");
        assert_eq!(
            escape_lines("name \x1b]0;pwned\x07\n  next\r\n"),
            "name \\x1b]0;pwned\\x07\n  next\\x0d\n"
        );
    }

    #[test]
    fn long_values_are_cut_on_a_character() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("ééééé", 2), "éé… (10 bytes)");
        let long = "x".repeat(200_000_000 / 1000);
        assert_eq!(cut(&long, 8), "xxxxxxxx… (200000 bytes)");
    }
}
