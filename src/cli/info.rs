//! `viewer info`: one description per motion, as JSON or readable text.

use super::InfoArgs;
use anyhow::Result;
use motion_viewer::scene;
use motion_viewer::summary::{Summary, summarize};

pub fn run(args: &InfoArgs) -> Result<()> {
    let tracks = scene::load(&args.files)?;
    let summaries: Vec<Summary> = tracks.iter().map(summarize).collect();
    let text = if args.json {
        serde_json::to_string_pretty(&summaries)? + "\n"
    } else {
        summaries
            .iter()
            .map(Summary::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    super::print_stdout(&text)
}
