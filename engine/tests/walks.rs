//! `docs/architecture.md` tells the truth about where code lives: every
//! file it names from the workspace's root exists, and each walk (one
//! Approve click, one response on a review page) names a file once and does
//! not grow. The walks are between `<!-- walk: name -->` and `<!-- /walk -->`,
//! one numbered step per file.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// The most files each walk may pass through: what it takes now, within
/// the twelve a reader should need; a change that lengthens a walk fails here.
const LONGEST: &[(&str, usize)] = &[("approve", 12), ("respond", 11)];

#[test]
fn every_file_the_architecture_names_exists() {
    let doc = architecture();
    let missing: Vec<&str> = named_paths(&doc)
        .into_iter()
        .filter(|path| !root().join(path).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names {missing:#?}"
    );
}

#[test]
fn each_walk_names_a_file_once_and_does_not_grow() {
    let doc = architecture();
    for (name, longest) in LONGEST {
        let steps = walk(&doc, name);
        let unique: BTreeSet<&str> = steps.iter().map(String::as_str).collect();
        assert_eq!(
            unique.len(),
            steps.len(),
            "walk {name} names a file twice: {steps:#?}"
        );
        assert!(
            steps.len() <= *longest,
            "walk {name} passes through {} files, more than {longest}",
            steps.len()
        );
        assert!(steps.len() >= 2, "walk {name} is missing");
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("docs/architecture.md")).unwrap()
}

/// The file each numbered step of walk `name` begins with.
fn walk(doc: &str, name: &str) -> Vec<String> {
    let start = format!("<!-- walk: {name} -->");
    let body = doc
        .split_once(&start)
        .and_then(|(_, rest)| rest.split_once("<!-- /walk -->"))
        .map(|(body, _)| body)
        .unwrap_or_default();
    body.lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". `")?;
            number.trim().parse::<u32>().ok()?;
            Some(rest.split('`').next()?.to_owned())
        })
        .collect()
}

/// Every path in backticks that starts at one of the workspace's folders.
fn named_paths(doc: &str) -> Vec<&str> {
    const FOLDERS: &[&str] = &[
        "app/",
        "engine/",
        "server/",
        "frontend/",
        "clients/",
        "end2end/",
    ];
    doc.split('`')
        .skip(1)
        .step_by(2)
        .filter(|text| FOLDERS.iter().any(|f| text.starts_with(f)))
        .filter(|text| !text.contains(char::is_whitespace))
        .collect()
}

#[test]
fn a_walk_is_read_step_by_step() {
    let doc = "<!-- walk: w -->\n1. `a.rs`: one.\n   more\n2. `b/c.rs`: two.\n<!-- /walk -->";
    assert_eq!(walk(doc, "w"), ["a.rs", "b/c.rs"]);
    assert!(walk(doc, "other").is_empty());
}
