//! What a waiting call would do, shown before anyone approves it: the
//! diff a file write would make, what the tool's own dry run said, or the
//! command a shell would run. It is part of what is approved: a file that
//! changed since it was taken refuses the approval (see `previews.rs`).

use serde::{Deserialize, Serialize};

/// A call's preview, taken when it began to wait and again when a person
/// approved it against a file that had changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    /// The diff a write would make to a file.
    FileWrite(FilePreview),
    /// What the tool said when asked to only pretend.
    DryRun(DryRunPreview),
    /// The command a shell would run, read apart.
    Command(CommandPreview),
}

impl Preview {
    /// Marks it as taken again over what changed since the last one shown.
    pub fn renewed(mut self) -> Self {
        match &mut self {
            Preview::FileWrite(file) => file.renewed = true,
            Preview::DryRun(run) => run.renewed = true,
            Preview::Command(_) => {}
        }
        self
    }

    /// What a later preview must match for an approval to stand: the
    /// file's content as read, or the dry run's answer. `None`: nothing
    /// can change under it (a command), or nothing could be read.
    pub fn seen(&self) -> Option<&str> {
        match self {
            Preview::FileWrite(file) => file.seen.as_deref(),
            Preview::DryRun(run) => run.seen.as_deref(),
            Preview::Command(_) => None,
        }
    }
}

/// The diff a file write would make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePreview {
    /// The file, as the call names it.
    pub path: String,
    /// What the diff is, or why there is none.
    pub change: FileChange,
    /// The SHA-256 of the file as it was read (hex), or `absent` when it
    /// did not exist; `None` when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
    /// Whether it was taken again because the file changed after an
    /// earlier preview was shown: the card says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub renewed: bool,
}

/// What the digest of a file that does not exist reads.
pub const ABSENT: &str = "absent";

/// What a write would change, or why it cannot be shown as lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FileChange {
    /// The file does not exist yet: every line is new.
    New(Diff),
    /// The file exists and these lines change.
    Changed(Diff),
    /// The file already holds exactly this content.
    Unchanged,
    /// The file, or the new content, is not text.
    Binary,
    /// The file is larger than a preview reads.
    TooLarge { bytes: u64 },
    /// The file could not be read; the words say why.
    Unreadable { why: String },
}

/// A unified diff, in hunks, with its totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diff {
    pub hunks: Vec<Hunk>,
    /// Lines added and removed in all (also those not shown).
    pub added: u32,
    pub removed: u32,
    /// Lines left out of the hunks to keep a preview readable.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One hunk: where it starts in the old and the new file, and its lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<DiffLine>,
}

/// A line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    pub tag: LineTag,
    /// The line without its end.
    pub text: String,
}

/// Whether a line stays, goes or comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineTag {
    Context,
    Removed,
    Added,
}

/// What a tool's dry run answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DryRunPreview {
    /// Its answer as text (shortened when long).
    pub output: String,
    /// The diff in its answer, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<Diff>,
    /// Whether the dry run failed (its words are the output).
    #[serde(default)]
    pub failed: bool,
    /// The SHA-256 of the whole answer (hex), which a second dry run
    /// must repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
    /// Whether it was made again because the answer changed after an
    /// earlier one was shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub renewed: bool,
}

/// A shell command, read apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandPreview {
    /// The command as given.
    pub command: String,
    /// The folder it runs in, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Each program it runs, in order.
    pub steps: Vec<CommandStep>,
    /// What a reader should know that the steps do not show: nested
    /// commands, expansions, what could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One program of a command line and how it joins the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandStep {
    pub program: String,
    pub arguments: Vec<CommandWord>,
    /// Files it reads from or writes to (`< in`, `> out`, `>> log`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<CommandWord>,
    /// `|`, `&&`, `||`, `;` or `&` after it; none for the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<String>,
}

/// A word of a command, with whether it names a path outside the folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandWord {
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
}

impl Preview {
    /// The preview in one line, for a message too short for its lines:
    /// "Changes notes.txt: 2 lines added, 1 removed".
    pub fn summary(&self) -> String {
        match self {
            Preview::FileWrite(file) => {
                let path = &file.path;
                match &file.change {
                    FileChange::New(diff) => format!("Creates {path}: {}", diff.totals()),
                    FileChange::Changed(diff) => format!("Changes {path}: {}", diff.totals()),
                    FileChange::Unchanged => format!("Writes {path} as it already is"),
                    FileChange::Binary => format!("Writes {path}, which is not text"),
                    FileChange::TooLarge { .. } => format!("Writes {path}, too large to preview"),
                    FileChange::Unreadable { why } => {
                        format!("Writes {path}, which could not be read ({why})")
                    }
                }
            }
            Preview::DryRun(run) => match (&run.diff, run.failed) {
                (_, true) => "Its dry run failed".to_owned(),
                (Some(diff), false) => format!("Its dry run: {}", diff.totals()),
                (None, false) => "Its dry run answered".to_owned(),
            },
            Preview::Command(command) => {
                let outside: Vec<&str> = command
                    .steps
                    .iter()
                    .flat_map(|s| s.arguments.iter().chain(&s.redirects))
                    .filter(|w| w.outside)
                    .map(|w| w.text.as_str())
                    .collect();
                match outside.is_empty() {
                    true => format!("Runs {}", command.command),
                    false => format!(
                        "Runs {}; outside its folder: {}",
                        command.command,
                        outside.join(", ")
                    ),
                }
            }
        }
    }

    /// The preview as plain text: its summary, then a diff's hunks as
    /// `diff -u` writes them, or a dry run's answer, or a command's
    /// warnings; for a terminal or a mail.
    pub fn as_text(&self) -> String {
        let mut out = self.summary();
        if let Some(diff) = self.diff() {
            for line in diff.unified_lines() {
                out.push('\n');
                out.push_str(&line);
            }
            if diff.omitted > 0 {
                out.push_str(&format!("\n… {} more lines not shown", diff.omitted));
            }
        }
        match self {
            Preview::DryRun(run) if run.diff.is_none() => {
                out.push_str(&format!("\n{}", run.output))
            }
            Preview::Command(command) => {
                command
                    .warnings
                    .iter()
                    .for_each(|w| out.push_str(&format!("\n! {w}")));
            }
            _ => {}
        }
        out
    }

    /// The diff it shows, when it has one.
    pub fn diff(&self) -> Option<&Diff> {
        match self {
            Preview::FileWrite(FilePreview {
                change: FileChange::New(diff) | FileChange::Changed(diff),
                ..
            }) => Some(diff),
            Preview::DryRun(run) => run.diff.as_ref(),
            _ => None,
        }
    }
}

impl Diff {
    /// Its hunks as `diff -u` writes them: a `@@ -a,b +c,d @@` header,
    /// then each line after its sign.
    pub fn unified_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for hunk in &self.hunks {
            lines.push(format!(
                "@@ -{},{} +{},{} @@",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ));
            for line in &hunk.lines {
                let sign = match line.tag {
                    LineTag::Context => ' ',
                    LineTag::Removed => '-',
                    LineTag::Added => '+',
                };
                lines.push(format!("{sign}{}", line.text));
            }
        }
        lines
    }

    /// "2 lines added, 1 removed".
    pub fn totals(&self) -> String {
        let lines = |n: u32| if n == 1 { "line" } else { "lines" };
        match (self.added, self.removed) {
            (a, 0) => format!("{a} {} added", lines(a)),
            (0, r) => format!("{r} {} removed", lines(r)),
            (a, r) => format!("{a} {} added, {r} removed", lines(a)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_reads_as_text_for_a_terminal_or_a_mail() {
        let diff = Diff {
            hunks: vec![Hunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
                lines: vec![
                    DiffLine {
                        tag: LineTag::Removed,
                        text: "old".into(),
                    },
                    DiffLine {
                        tag: LineTag::Added,
                        text: "new".into(),
                    },
                ],
            }],
            added: 1,
            removed: 1,
            omitted: 0,
        };
        let file = Preview::FileWrite(FilePreview {
            path: "notes.txt".into(),
            change: FileChange::Changed(diff),
            seen: None,
            renewed: false,
        });
        assert_eq!(
            file.as_text(),
            "Changes notes.txt: 1 line added, 1 removed\n@@ -1,1 +1,1 @@\n-old\n+new"
        );
        let command = Preview::Command(CommandPreview {
            command: "rm -rf /".into(),
            folder: None,
            steps: vec![CommandStep {
                program: "rm".into(),
                arguments: vec![CommandWord {
                    text: "/".into(),
                    outside: true,
                }],
                redirects: Vec::new(),
                then: None,
            }],
            warnings: vec!["runs with another user's rights (sudo)".into()],
        });
        assert_eq!(
            command.as_text(),
            "Runs rm -rf /; outside its folder: /\n! runs with another user's rights (sudo)"
        );
    }
}
