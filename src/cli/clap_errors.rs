//! clap's refusals of a value (`--frames bogus`, `--view sideways`,
//! `--size` with nothing after it) as the one line every other error of
//! `viewer` is: the option, what it expects, what was found. clap's own
//! rendering of them takes three or four lines (the message, a blank, a
//! pointer to `--help`); the other usage errors (an unknown option, a
//! missing argument) keep it, their usage lines being the help they need.
//!
//! A negative number after an option (`--tolerance -1`) is taken as its
//! value, and refused by its parser in that one line, rather than read as
//! an unknown option `-1`.

use super::values;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// `command` and every subcommand under it taking `-1` after an option
/// as the option's value (no option of `viewer` is a short one that a
/// number could be mistaken for).
pub fn negative_numbers_as_values(command: clap::Command) -> clap::Command {
    command
        .allow_negative_numbers(true)
        .mut_subcommands(negative_numbers_as_values)
}

/// The one line (without the `viewer: ` prefix) for a clap error that
/// refuses a value, or `None` for any other kind of error.
pub fn value_error(error: &clap::Error) -> Option<String> {
    if !matches!(
        error.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    ) {
        return None;
    }
    let text = |kind| match error.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    // `--frames <A..B>`: the option, without clap's placeholder for its value.
    let arg = text(ContextKind::InvalidArg)?;
    let option = arg.split(' ').next().unwrap_or(arg);
    let value = text(ContextKind::InvalidValue)?;
    if value.is_empty() && error.kind() == ErrorKind::InvalidValue {
        return Some(format!("{option} needs a value ({arg})"));
    }
    let expected = match error.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(valid)) => format!("expected one of {}", valid.join(", ")),
        _ => std::error::Error::source(error)
            .map(expected_of)
            .unwrap_or_else(|| "expected another value".into()),
    };
    // The parsers of `values` and the library's choices quote what they
    // were given; clap's own number parsers do not.
    let found = format!("\"{}\"", values::shown(value));
    if expected.contains(&found) {
        return Some(format!("{option}: {expected}"));
    }
    Some(format!("{option}: {expected}, found {found}"))
}

/// What a value parser's `error` says was expected: the standard number
/// parsers' terse words ("invalid float literal", "12 is not in 1..=65535")
/// in a user's terms, any other parser's message as it is.
fn expected_of(error: &(dyn std::error::Error + 'static)) -> String {
    use std::num::IntErrorKind;
    if error.is::<std::num::ParseFloatError>() {
        return "expected a number".into();
    }
    if let Some(e) = error.downcast_ref::<std::num::ParseIntError>() {
        return match e.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
                "expected a smaller whole number".into()
            }
            _ => "expected a whole number".into(),
        };
    }
    let message = error.to_string();
    // clap's ranged integer parsers: "0 is not in 1..=65535".
    if let Some((_, range)) = message.split_once(" is not in ") {
        let range = match range.split_once("..=") {
            Some((low, high)) => format!("from {low} to {high}"),
            None => format!("in {range}"),
        };
        return format!("expected a whole number {range}");
    }
    message
}
