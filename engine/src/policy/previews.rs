//! `previews:`: how the calls of a block's tools are shown before anyone
//! approves them. Some tools are known by name (`write_file`, `edit_file`,
//! Claude Code's `Write` and `Bash`); a block maps any other, or says
//! `kind: none` to show one plainly.

use serde::{Deserialize, Serialize};

use super::rules::NameGlob;
use super::{Policy, PolicyError};

/// One entry of `previews:` as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewConfig {
    /// A glob over tool names.
    pub tool: String,
    /// How its calls are previewed.
    pub kind: PreviewKind,
    /// `file_write`: the arguments (JSON pointers) holding the file's path
    /// and its new content; `/path` and `/content` unless told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `dry_run`: the argument that asks the tool only to pretend
    /// (`/dryRun` unless told); it must be one of the tool's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg: Option<String>,
    /// `command`: the argument holding the command line (`/command`), the
    /// one holding the folder it runs in, and the folder when no argument
    /// says (an absolute path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

/// The kinds of preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewKind {
    FileWrite,
    DryRun,
    Command,
    None,
}

/// How one tool's calls are previewed, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewPlan {
    /// Diff the file at `path` against `content` (JSON pointers).
    FileWrite { path: String, content: String },
    /// Call the tool with the top-level argument `arg` set to true.
    DryRun { arg: String },
    /// Read the command line at `command`, run in the folder at `cwd` or
    /// in `folder`.
    Command {
        command: String,
        cwd: Option<String>,
        folder: Option<String>,
    },
}

/// A block's entry, compiled; `plan: None` is `kind: none`.
#[derive(Debug, Clone)]
pub(super) struct CompiledPreview {
    tool: NameGlob,
    plan: Option<PreviewPlan>,
}

impl Policy {
    /// How calls of `tool` are previewed: the block's first entry that
    /// names it, else the built-in plan of a tool known by name.
    pub fn preview_plan(&self, tool: &str) -> Option<PreviewPlan> {
        match self.previews.iter().find(|p| p.tool.is_match(tool)) {
            Some(entry) => entry.plan.clone(),
            None => built_in(tool),
        }
    }
}

/// The tools previewed without being named: the MCP filesystem server's
/// and the demo's writes and edits, and Claude Code's `Write` and `Bash`.
fn built_in(tool: &str) -> Option<PreviewPlan> {
    let file = |path: &str| PreviewPlan::FileWrite {
        path: path.into(),
        content: "/content".into(),
    };
    match tool {
        "write_file" => Some(file("/path")),
        "Write" => Some(file("/file_path")),
        "edit_file" => Some(PreviewPlan::DryRun {
            arg: "dryRun".into(),
        }),
        "Bash" => Some(PreviewPlan::Command {
            command: "/command".into(),
            cwd: None,
            folder: None,
        }),
        _ => None,
    }
}

/// Compiles `previews:`; `at` is the key's path for errors.
pub(super) fn compile(
    entries: &[PreviewConfig],
    file: &str,
    at: &str,
) -> Result<Vec<CompiledPreview>, PolicyError> {
    let mut compiled = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let key = format!("{at}[{i}]");
        let err =
            |name: &str, problem: String| PolicyError::new(file, format!("{key}.{name}"), problem);
        let tool = NameGlob::compile(&entry.tool)
            .map_err(|e| err("tool", format!("bad glob `{}`: {e}", entry.tool)))?;
        let given = [
            ("path", &entry.path),
            ("content", &entry.content),
            ("arg", &entry.arg),
            ("command", &entry.command),
            ("cwd", &entry.cwd),
            ("folder", &entry.folder),
        ];
        let takes: &[&str] = match entry.kind {
            PreviewKind::FileWrite => &["path", "content"],
            PreviewKind::DryRun => &["arg"],
            PreviewKind::Command => &["command", "cwd", "folder"],
            PreviewKind::None => &[],
        };
        for (name, value) in given {
            if value.is_some() && !takes.contains(&name) {
                let kind = serde_json::to_value(entry.kind).unwrap_or_default();
                let kind = kind.as_str().unwrap_or_default().to_owned();
                return Err(err(name, format!("a `{kind}` preview has no `{name}`")));
            }
        }
        let pointer = |name: &str, value: &Option<String>, or: &str| match value.as_deref() {
            None => Ok(or.to_owned()),
            Some(p) if p.starts_with('/') => Ok(p.to_owned()),
            Some(p) => Err(err(
                name,
                format!("`{p}` is not a JSON pointer (it starts with /)"),
            )),
        };
        let plan = match entry.kind {
            PreviewKind::FileWrite => Some(PreviewPlan::FileWrite {
                path: pointer("path", &entry.path, "/path")?,
                content: pointer("content", &entry.content, "/content")?,
            }),
            PreviewKind::DryRun => {
                let arg = pointer("arg", &entry.arg, "/dryRun")?;
                let name = &arg[1..];
                if name.is_empty() || name.contains('/') {
                    let problem = format!(
                        "`{arg}`: a dry run's switch is a top-level argument, like /dryRun"
                    );
                    return Err(err("arg", problem));
                }
                Some(PreviewPlan::DryRun {
                    arg: name.to_owned(),
                })
            }
            PreviewKind::Command => {
                if let Some(folder) = entry.folder.as_deref().filter(|f| !f.starts_with('/')) {
                    return Err(err("folder", format!("`{folder}` is not an absolute path")));
                }
                Some(PreviewPlan::Command {
                    command: pointer("command", &entry.command, "/command")?,
                    cwd: entry
                        .cwd
                        .as_ref()
                        .map(|_| pointer("cwd", &entry.cwd, ""))
                        .transpose()?,
                    folder: entry.folder.clone(),
                })
            }
            PreviewKind::None => None,
        };
        compiled.push(CompiledPreview { tool, plan });
    }
    Ok(compiled)
}

#[cfg(test)]
mod tests;
