use super::*;

#[test]
fn a_changed_line_is_one_removed_and_one_added_with_context() {
    let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
    let diff = between(old, new);
    assert_eq!((diff.added, diff.removed, diff.omitted), (1, 1, 0));
    assert_eq!(
        diff.unified_lines(),
        [
            "@@ -2,7 +2,7 @@",
            " b",
            " c",
            " d",
            "-e",
            "+E",
            " f",
            " g",
            " h"
        ]
    );
}

#[test]
fn a_new_file_is_all_added_from_line_one() {
    let diff = between("", "one\ntwo");
    assert_eq!(diff.unified_lines(), ["@@ -0,0 +1,2 @@", "+one", "+two"]);
    assert_eq!((diff.added, diff.removed), (2, 0));
}

#[test]
fn equal_texts_have_no_hunks() {
    assert_eq!(between("same\n", "same\n"), Diff::default());
}

#[test]
fn changes_far_apart_are_separate_hunks() {
    let mut lines: Vec<String> = (1..=30).map(|n| format!("{n}\n")).collect();
    let old = lines.concat();
    lines[1] = "two\n".into();
    lines[27] = "twenty-eight\n".into();
    let new = lines.concat();
    let diff = between(&old, &new);
    assert_eq!(diff.hunks.len(), 2);
    assert_eq!(diff.hunks[1].old_start, 25);
}

#[test]
fn a_long_diff_keeps_its_totals_and_counts_what_it_leaves_out() {
    let new: String = (0..1000).map(|n| format!("line {n}\n")).collect();
    let diff = between("", &new);
    assert_eq!(diff.added, 1000);
    assert_eq!(diff.hunks[0].lines.len(), MAX_LINES);
    assert_eq!(diff.omitted, 1000 - MAX_LINES as u32);
}

#[test]
fn a_dry_runs_fenced_diff_is_read_as_hunks() {
    let answer = "```diff\nIndex: /srv/notes.txt\n===================================================================\n--- /srv/notes.txt\toriginal\n+++ /srv/notes.txt\tmodified\n@@ -1,3 +1,3 @@\n Quarterly planning notes\n-- budget review on Friday\n+- budget review on Monday\n - ship the approvals inbox\n```\n\n";
    let diff = read_unified(answer).unwrap();
    assert_eq!(
        diff.unified_lines(),
        [
            "@@ -1,3 +1,3 @@",
            " Quarterly planning notes",
            "-- budget review on Friday",
            "+- budget review on Monday",
            " - ship the approvals inbox",
        ]
    );
    assert_eq!((diff.added, diff.removed), (1, 1));
}

#[test]
fn words_without_hunks_hold_no_diff() {
    assert_eq!(read_unified("Successfully wrote to notes.txt"), None);
    assert_eq!(read_unified("@@ -x +y @@\n+a"), None);
}
