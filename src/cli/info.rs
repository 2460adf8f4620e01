//! `viewer info`: one description per motion, as JSON or readable text.

use super::InfoArgs;
use anyhow::Result;
use motion_viewer::summary::{Summary, summarize_paths};

pub fn run(args: &InfoArgs) -> Result<()> {
    let (summaries, warnings) = summarize_paths(&args.files)?;
    super::warn_all(&warnings);
    let text = if args.json {
        serde_json::to_string_pretty(&summaries)? + "\n"
    } else {
        summaries
            .iter()
            .map(Summary::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    // to_text escapes names from files itself; JSON keeps its own escaping.
    super::print_stdout(&text)
}
