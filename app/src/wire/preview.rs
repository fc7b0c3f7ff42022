//! A waiting call's preview as its card shows it: the engine's preview
//! JSON (`domain/preview.rs`), read the same way from page data and live
//! events, with the words a card says about it.

use serde::{Deserialize, Serialize};

/// What a call would do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PreviewItem {
    FileWrite(FilePreviewItem),
    DryRun(DryRunItem),
    Command(CommandItem),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilePreviewItem {
    pub path: String,
    pub change: FileChangeItem,
    /// The digest of the file as it was read: a new one redraws the card.
    #[serde(default)]
    pub seen: Option<String>,
    /// Taken again: the file changed after an earlier preview was shown.
    #[serde(default)]
    pub renewed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FileChangeItem {
    New(DiffItem),
    Changed(DiffItem),
    Unchanged,
    Binary,
    TooLarge { bytes: u64 },
    Unreadable { why: String },
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DiffItem {
    pub hunks: Vec<HunkItem>,
    pub added: u32,
    pub removed: u32,
    #[serde(default)]
    pub omitted: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HunkItem {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<DiffLineItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffLineItem {
    /// `context`, `removed` or `added`.
    pub tag: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DryRunItem {
    pub output: String,
    #[serde(default)]
    pub diff: Option<DiffItem>,
    #[serde(default)]
    pub failed: bool,
    #[serde(default)]
    pub seen: Option<String>,
    #[serde(default)]
    pub renewed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandItem {
    pub command: String,
    #[serde(default)]
    pub folder: Option<String>,
    pub steps: Vec<CommandStepItem>,
    #[serde(default)]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandStepItem {
    pub program: String,
    pub arguments: Vec<CommandWordItem>,
    #[serde(default)]
    pub redirects: Vec<CommandWordItem>,
    #[serde(default)]
    pub then: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandWordItem {
    pub text: String,
    #[serde(default)]
    pub outside: bool,
}

impl DiffItem {
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

impl PreviewItem {
    /// What the preview saw (a file's digest, a dry run's), which changes
    /// when it is taken again over a changed file.
    pub fn seen(&self) -> Option<&str> {
        match self {
            PreviewItem::FileWrite(file) => file.seen.as_deref(),
            PreviewItem::DryRun(run) => run.seen.as_deref(),
            PreviewItem::Command(_) => None,
        }
    }
}

impl HunkItem {
    /// Where the hunk is, in words: "Lines 3–5 become lines 3–6".
    pub fn place(&self) -> String {
        let span = |start: u32, n: u32| match n {
            1 => format!("line {start}"),
            _ => format!("lines {start}–{}", start + n - 1),
        };
        match (self.old_lines, self.new_lines) {
            (0, n) => format!("New {}", span(self.new_start, n)),
            (o, 0) => format!("Removed {}", span(self.old_start, o)),
            (o, n) => capitalised(&format!(
                "{} {} {}",
                span(self.old_start, o),
                if o == 1 { "becomes" } else { "become" },
                span(self.new_start, n)
            )),
        }
    }
}

impl FileChangeItem {
    /// What a card says of the change before (or instead of) its lines.
    pub fn words(&self) -> String {
        match self {
            FileChangeItem::New(diff) => format!("New file: {}.", diff.totals()),
            FileChangeItem::Changed(diff) => format!("{}.", capitalised(&diff.totals())),
            FileChangeItem::Unchanged => {
                "The file already holds exactly this content: writing it changes nothing.".into()
            }
            FileChangeItem::Binary => "Not text: the change cannot be shown as lines.".into(),
            FileChangeItem::TooLarge { bytes } => format!(
                "The file is larger than {} KB, more than a preview reads: no diff is shown.",
                bytes / 1024
            ),
            FileChangeItem::Unreadable { why } => format!(
                "The file as it is now could not be read ({why}): no diff is shown; the new content is in the arguments."
            ),
        }
    }

    /// The diff to draw, when there is one.
    pub fn diff(&self) -> Option<&DiffItem> {
        match self {
            FileChangeItem::New(diff) | FileChangeItem::Changed(diff) => Some(diff),
            _ => None,
        }
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

impl CommandStepItem {
    /// How it joins the next step, in words with its operator.
    pub fn then_words(&self) -> Option<String> {
        let then = self.then.as_deref()?;
        let words = match then {
            "|" => "and passes its output to the next",
            "&&" => "then, if it succeeds,",
            "||" => "then, if it fails,",
            "&" => "in the background, and at once",
            _ => "then",
        };
        Some(format!(" {words} ({then})"))
    }
}

impl CommandItem {
    /// Whether any word it names lies outside its folder.
    pub fn reaches_outside(&self) -> bool {
        let words = self
            .steps
            .iter()
            .flat_map(|s| s.arguments.iter().chain(&s.redirects));
        words.clone().any(|w| w.outside)
    }

    /// What "outside" is measured against, for the card.
    pub fn folder_words(&self) -> String {
        match &self.folder {
            Some(folder) => format!("Runs in {folder}."),
            None => "The folder it runs in is not known: every absolute path is marked.".into(),
        }
    }
}
