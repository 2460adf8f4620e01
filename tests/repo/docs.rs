//! The format rulings live in the repository (`docs/formats.md`), and every
//! reference to them in the code names a section that exists.

use crate::common::repo;
use std::path::Path;

/// Every `.rs` and `.md` file under `dir`, but build output and node modules.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | "dist" | ".git") {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            out.push(path);
        }
    }
}

#[test]
fn every_ruling_reference_points_at_a_section_of_docs_formats_md() {
    let doc = std::fs::read_to_string(repo("docs/formats.md")).unwrap();
    let sections: Vec<u32> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("## ")?.split('.').next()?.parse().ok())
        .collect();
    assert_eq!(sections, [1, 2, 3, 4, 5], "the sections of docs/formats.md");
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests", "web/src", "fuzz/src", "docs"] {
        sources(&repo(dir), &mut files);
    }
    files.push(repo("README.md"));
    let mut references = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(repo("")).unwrap().display();
        // The rulings no longer live outside the repository.
        assert!(
            !text.contains(&["NOTES", ".md"].concat()) && !text.contains(&["NOTES", " §"].concat()),
            "{shown} still cites the old notes outside the repository"
        );
        let cite = ["docs/formats.md", " §"].concat();
        for (at, _) in text.match_indices(&cite) {
            let number: String = text[at + cite.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: u32 = number
                .parse()
                .unwrap_or_else(|_| panic!("{shown}: a § without a number"));
            assert!(
                sections.contains(&n),
                "{shown}: section {n} of docs/formats.md does not exist"
            );
            references += 1;
        }
    }
    assert!(
        references >= 18,
        "the code cites the rulings ({references} references)"
    );
}
