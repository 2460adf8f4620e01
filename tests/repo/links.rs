//! Every relative link in the documentation resolves: to a file or folder of
//! the repository and, with a `#fragment`, to a heading of that Markdown
//! file as GitHub names its anchor. And the README stays a front page.
//!
//! Links inside code (fenced blocks and inline code spans) are not links,
//! and neither are absolute URLs (`https:`, `mailto:`): what is checked is
//! what a reader can follow inside a clone.

use crate::common::repo;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The documentation a reader follows links through: the front page, every
/// page under `docs/`, the Python guide and the benchmarks.
fn documentation() -> Vec<PathBuf> {
    let mut files = vec![
        repo("README.md"),
        repo("BENCHMARKS.md"),
        repo("python/README.md"),
    ];
    markdown_under(&repo("docs"), &mut files);
    files
}

/// Every `.md` file under `dir`, in every subfolder.
fn markdown_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The text with every fenced code block and inline code span blanked out
/// (newlines kept, so that line numbers still count), leaving the prose in
/// which links live.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => {
                out.push_str(line);
                continue;
            }
            _ => {}
        }
        out.push_str(if line.ends_with('\n') { "\n" } else { "" });
    }
    blank_code_spans(&out)
}

/// Blanks inline code: a run of n backticks up to the next run of exactly n
/// (a span may cross a line break, as Markdown allows).
fn blank_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let close = (i + n..chars.len())
            .find(|&j| chars[j] == '`' && (j == 0 || chars[j - 1] != '`') && run_at(j) == n);
        let end = close.map_or(i + n, |j| j + n);
        // Unclosed backticks are plain text, as Markdown reads them.
        let blank = close.is_some();
        for &c in &chars[i..end] {
            out.push(if c == '\n' || !blank { c } else { ' ' });
        }
        i = end;
    }
    out
}

/// The links of a Markdown text, as (line, target): inline links and images
/// `[text](target "title")`, and reference definitions `[name]: target`.
fn links(text: &str) -> Vec<(usize, String)> {
    let text = prose(text);
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    for (at, _) in text.match_indices("](") {
        let start = at + 2;
        let mut depth = 0;
        let end = text[start..].char_indices().find_map(|(i, c)| match c {
            '(' => {
                depth += 1;
                None
            }
            ')' if depth == 0 => Some(start + i),
            ')' => {
                depth -= 1;
                None
            }
            _ => None,
        });
        if let Some(end) = end {
            found.push((line_of(at), target(&text[start..end])));
        }
    }
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix('[')
            && let Some((_, definition)) = rest.split_once("]: ")
        {
            found.push((n + 1, target(definition)));
        }
    }
    found
}

/// A link's destination without its title and angle brackets.
fn target(destination: &str) -> String {
    let destination = destination.trim();
    if let Some(inner) = destination.strip_prefix('<') {
        return inner.split('>').next().unwrap_or("").to_string();
    }
    destination
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

/// GitHub's anchor for a heading's text: lower case, every character but
/// letters, digits, `_`, `-` and spaces dropped, each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The heading text as GitHub renders it: inline code and emphasis marks
/// gone, a link's text kept without its target.
fn rendered(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](") else {
            break;
        };
        let Some(end) = rest[open + close..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + close]);
        rest = &rest[open + close + end + 1..];
    }
    text.push_str(rest);
    text.replace(['`', '*'], "")
}

/// The anchors of a Markdown file's headings, numbered as GitHub numbers
/// repeats.
fn anchors(text: &str) -> Vec<String> {
    let mut slugger = Slugger::default();
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(m) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = match fence {
                None => Some(m),
                Some(open) if open == m => None,
                open => open,
            };
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fence.is_some() || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim_end();
        out.push(slugger.slug(&rendered(title)));
    }
    out
}

/// GitHub's anchors for the headings of one page, in order: a heading whose
/// anchor is taken already gets `-1`, `-2`… after it, the first number that
/// makes it new (so after `echo` and `echo` comes `echo 1` as `echo-1-1`).
#[derive(Default)]
struct Slugger {
    /// Every anchor given so far, with how many repeats its base had.
    taken: BTreeMap<String, usize>,
}

impl Slugger {
    fn slug(&mut self, heading: &str) -> String {
        let base = slug(heading);
        let mut anchor = base.clone();
        while self.taken.contains_key(&anchor) {
            let repeats = self.taken.get_mut(&base).unwrap();
            *repeats += 1;
            anchor = format!("{base}-{repeats}");
        }
        self.taken.insert(anchor.clone(), 0);
        anchor
    }
}

/// Every relative link of `file` that does not resolve, as one line each:
/// `FILE:LINE: TARGET: why`.
fn broken_links(root: &Path, file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let mut broken = Vec::new();
    for (line, link) in links(&text) {
        let external = link.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+')
        });
        if external || link.is_empty() {
            continue;
        }
        let (path, fragment) = match link.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (link.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else if let Some(from_root) = path.strip_prefix('/') {
            root.join(from_root)
        } else {
            file.parent().unwrap().join(path)
        };
        let Ok(resolved) = resolved.canonicalize() else {
            broken.push(format!("{shown}:{line}: {link}: no such file"));
            continue;
        };
        if !resolved.starts_with(root) {
            broken.push(format!("{shown}:{line}: {link}: outside the repository"));
            continue;
        }
        let Some(fragment) = fragment else { continue };
        if resolved.extension().is_none_or(|e| e != "md") {
            broken.push(format!(
                "{shown}:{line}: {link}: an anchor into a file that is not Markdown"
            ));
            continue;
        }
        let target_text = std::fs::read_to_string(&resolved).unwrap();
        if !anchors(&target_text).iter().any(|a| a == fragment) {
            broken.push(format!(
                "{shown}:{line}: {link}: no heading with that anchor"
            ));
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let root = repo("").canonicalize().unwrap();
    let files = documentation();
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        broken.extend(broken_links(&root, file));
        checked += links(&std::fs::read_to_string(file).unwrap()).len();
    }
    assert!(
        broken.is_empty(),
        "links that do not resolve:\n{}",
        broken.join("\n")
    );
    // The front page links its pages, and they each other.
    assert!(checked >= 40, "only {checked} links found in {files:?}");
}

#[test]
fn the_readme_is_a_front_page_with_the_two_commands() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 200,
        "README.md has {lines} lines; a front page has fewer than 200"
    );

    // The command that plays the bundled sample names files that are there.
    let play = "cargo run --release -- data/flags.obj data/flags.bin";
    assert!(
        readme.contains(&format!("```sh\n{play}\n```")),
        "README: {play}"
    );
    for file in play.split(" -- ").nth(1).unwrap().split_whitespace() {
        assert!(
            repo(file).is_file(),
            "README plays {file}, which is missing"
        );
    }
    // The test command is the one `.ci/run` runs as "the README's test
    // command".
    let test = "cargo test --locked";
    assert!(
        readme.contains(&format!("```sh\n{test}\n```")),
        "README: {test}"
    );
    let ci = std::fs::read_to_string(repo(".ci/run")).unwrap();
    let body = ci
        .split("test_command() {\n")
        .nth(1)
        .expect(".ci/run defines test_command");
    assert!(
        body.trim_start().starts_with(&format!("{test} ")),
        ".ci/run's test_command should run the README's `{test}`"
    );
}

/// GitHub's anchors, as its slugger names them: cases from github-slugger's
/// own fixtures (`test/fixtures.json`), which it checks against GitHub.
#[test]
fn anchors_are_named_as_github_names_them() {
    for (heading, anchor) in [
        ("bravoCharlieDelta", "bravocharliedelta"),
        ("heading with a - dash", "heading-with-a---dash"),
        (
            "heading with an _ underscore",
            "heading-with-an-_-underscore",
        ),
        ("heading with a period.txt", "heading-with-a-periodtxt"),
        (
            "exchange.bind_headers(exchange, routing [, bindCallback])",
            "exchangebind_headersexchange-routing--bindcallback",
        ),
        (
            "apostrophe\u{2019}s should be trimmed",
            "apostrophes-should-be-trimmed",
        ),
        ("I \u{2665} unicode", "i--unicode"),
        ("en\u{2013}dash", "endash"),
        ("Привет non-latin 你好", "привет-non-latin-你好"),
    ] {
        assert_eq!(slug(heading), anchor, "{heading:?}");
    }
    // Repeats, in one page, in this order.
    let mut slugger = Slugger::default();
    let repeats: Vec<String> = ["echo", "echo", "echo 1", "echo-1", "echo"]
        .into_iter()
        .map(|h| slugger.slug(h))
        .collect();
    assert_eq!(
        repeats,
        ["echo", "echo-1", "echo-1-1", "echo-1-2", "echo-2"]
    );
    // Headings as pages write them: code and links rendered, fences skipped.
    let text = "# Foo\n\n```sh\n# not a heading\n```\n\n## Foo\n\n\
                ## Will it fall? (`viewer simulate`)\n### [Linked](x.md) *text*\n";
    assert_eq!(
        anchors(text),
        [
            "foo",
            "foo-1",
            "will-it-fall-viewer-simulate",
            "linked-text"
        ]
    );
}

/// The check finds what it is for: a missing file, a missing anchor, a
/// link out of the repository; and leaves code and URLs alone.
#[test]
fn a_broken_link_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.md"), "# Beside the repository\n").unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    let root = root.canonicalize().unwrap();
    std::fs::write(root.join("docs/b.md"), "# B\n\n## Here it is\n").unwrap();
    let a = root.join("docs/a.md");
    std::fs::write(
        &a,
        "# A\n\nSee [b](b.md#here-it-is), [top](#a), [gone](missing.md),\n\
         [wrong](b.md#not-there) and [out](../../x.md).\n\n\
         `[code](nowhere.md)` and [web](https://example.com/x.md).\n\n\
         ```sh\n[also code](nowhere.md)\n```\n\n[ref]: ./b.md#nope\n",
    )
    .unwrap();
    let broken = broken_links(&root, &a);
    assert_eq!(
        broken,
        [
            "docs/a.md:3: missing.md: no such file",
            "docs/a.md:4: b.md#not-there: no heading with that anchor",
            "docs/a.md:4: ../../x.md: outside the repository",
            "docs/a.md:12: ./b.md#nope: no heading with that anchor",
        ]
    );
}
