//! Unified diffs as hunks of lines: made from two texts, or read from the
//! text a tool's dry run answered (a `diff` block, as MCP filesystem
//! servers give). Pure.

use similar::{ChangeTag, TextDiff};

use crate::domain::{Diff, DiffLine, Hunk, LineTag};

/// Lines of context around each change, as `diff -u` keeps.
const CONTEXT: usize = 3;

/// Most lines a preview's hunks hold; the rest are counted, not shown.
pub(crate) const MAX_LINES: usize = 400;

/// The diff that turns `old` into `new`.
pub(crate) fn between(old: &str, new: &str) -> Diff {
    let diff = TextDiff::from_lines(old, new);
    let mut out = Diff::default();
    let mut shown = 0;
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        let mut hunk = Hunk {
            old_start: start(old.start, old.len()),
            old_lines: count(old.len()),
            new_start: start(new.start, new.len()),
            new_lines: count(new.len()),
            lines: Vec::new(),
        };
        for op in &group {
            for change in diff.iter_changes(op) {
                let tag = match change.tag() {
                    ChangeTag::Equal => LineTag::Context,
                    ChangeTag::Delete => LineTag::Removed,
                    ChangeTag::Insert => LineTag::Added,
                };
                out.add(&mut hunk, &mut shown, tag, change.value());
            }
        }
        if !hunk.lines.is_empty() {
            out.hunks.push(hunk);
        }
    }
    out
}

/// The diff in a dry run's answer, when it holds one: hunks that start
/// with `@@ -a,b +c,d @@`; file headers, fences and other words are left.
pub(crate) fn read_unified(text: &str) -> Option<Diff> {
    let mut out = Diff::default();
    let mut shown = 0;
    let mut hunk: Option<Hunk> = None;
    for line in text.lines() {
        if let Some(header) = hunk_header(line) {
            if let Some(done) = hunk.replace(header) {
                out.hunks.push(done);
            }
            continue;
        }
        let Some(current) = hunk.as_mut() else {
            continue;
        };
        let tag = match line.chars().next() {
            Some(' ') => LineTag::Context,
            Some('-') if !line.starts_with("--- ") => LineTag::Removed,
            Some('+') if !line.starts_with("+++ ") => LineTag::Added,
            Some('\\') => continue,
            // An empty line inside a hunk is an empty context line.
            None => LineTag::Context,
            _ => {
                out.hunks.extend(hunk.take());
                continue;
            }
        };
        out.add(current, &mut shown, tag, line.get(1..).unwrap_or(""));
    }
    out.hunks.extend(hunk);
    out.hunks.retain(|h| !h.lines.is_empty());
    (!out.hunks.is_empty()).then_some(out)
}

impl Diff {
    /// Counts a line, and keeps it while the preview has room.
    fn add(&mut self, hunk: &mut Hunk, shown: &mut usize, tag: LineTag, text: &str) {
        match tag {
            LineTag::Added => self.added += 1,
            LineTag::Removed => self.removed += 1,
            LineTag::Context => {}
        }
        if *shown >= MAX_LINES {
            self.omitted += 1;
            return;
        }
        *shown += 1;
        let text = text.strip_suffix('\n').unwrap_or(text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        hunk.lines.push(DiffLine {
            tag,
            text: text.to_owned(),
        });
    }
}

/// `@@ -12,3 +12,4 @@ …` as an empty hunk.
fn hunk_header(line: &str) -> Option<Hunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some(Hunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines: Vec::new(),
    })
}

/// `12,3` or `12` (one line).
fn range(text: &str) -> Option<(u32, u32)> {
    match text.split_once(',') {
        Some((start, lines)) => Some((start.parse().ok()?, lines.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

/// A hunk's first line, counted from 1, as `diff -u` writes it: an empty
/// range names the line before it.
fn start(index: usize, len: usize) -> u32 {
    count(if len == 0 { index } else { index + 1 })
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
