//! The reference pages stay current: the key table of `docs/window.md` is
//! the window's own binding table, and every command and option `viewer
//! --help` lists is in the synopsis of `docs/cli.md`.
use crate::common;
use common::repo;
use motion_viewer::app::help_rows;

/// A page of the documentation, by its path in the repository.
fn page(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The key table as `docs/window.md` writes it: one row per action, each key in
/// backticks.
fn key_table() -> String {
    help_rows()
        .into_iter()
        .map(|(action, keys)| {
            let keys: Vec<String> = keys.split("  ").map(|k| format!("`{k}`")).collect();
            format!("| {} | {action} |\n", keys.join(" "))
        })
        .collect()
}

#[test]
fn window_guide_key_table_is_the_binding_table() {
    let table = key_table();
    assert!(
        page("docs/window.md").contains(&format!("| Keys | Action |\n|---|---|\n{table}")),
        "docs/window.md's key table should read:\n{table}"
    );
}

fn help(args: &[&str]) -> String {
    let out = crate::app::viewer()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a `--help` text lists under `Commands:`.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The long options a `--help` text lists (`--out`, `--frames`…).
fn options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            let l = l.strip_prefix("-V, ").unwrap_or(l);
            l.starts_with("--")
                .then(|| l.split([' ', ',']).next().unwrap().to_string())
        })
        .filter(|o| o != "--help" && o != "--version")
        .collect()
}

#[test]
fn cli_reference_names_every_command_and_option() {
    let cli = page("docs/cli.md");
    // The synopsis: the first `sh` block of the page.
    let block_start = cli.find("## Synopsis\n\n```sh\n").unwrap();
    let block = &cli[block_start..];
    let block = &block[..block.find("\n```\n").unwrap()];
    let mut missing = Vec::new();
    let mut check = |path: &[&str]| {
        let text = help(path);
        let words = path.join(" ");
        if !path.is_empty() && !block.contains(&format!("viewer {words} ")) {
            missing.push(format!("viewer {words}"));
        }
        for option in options(&text) {
            if !block.contains(&option) && !cli.contains(&format!("`{option}")) {
                missing.push(format!("viewer {words} {option}"));
            }
        }
        commands(&text)
    };
    for command in check(&[]) {
        for sub in check(&[&command]) {
            check(&[&command, &sub]);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/cli.md does not mention: {missing:?}"
    );
}
