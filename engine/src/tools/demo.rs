//! The demo toolset: files in a sandboxed workspace directory, and an outbox
//! for e-mail. Every path is resolved inside the workspace: absolute paths,
//! `..` and symlinks that lead outside are refused.

use std::path::{Component, Path, PathBuf};

use async_trait::async_trait;
use serde_json::{json, Value};

use super::{ToolError, ToolSource, ToolSpec};

/// The name policy blocks use for the demo toolset.
pub const SOURCE: &str = "demo";

/// Files the workspace is seeded with on first start.
const SEED: &[(&str, &str)] = &[
    ("notes.txt", "Quarterly planning notes\n- budget review on Friday\n- ship the approvals inbox\n"),
    ("todo.md", "# To do\n- [ ] answer the security review\n- [ ] rotate the staging keys\n- [x] book the team lunch\n"),
    ("drafts/plan.md", "# Launch plan\n1. Freeze features\n2. Write the release notes\n3. Announce\n"),
];

/// Largest file `read_file` returns, in bytes.
const MAX_READ: u64 = 256 * 1024;

/// The demo toolset over one workspace directory.
#[derive(Debug, Clone)]
pub struct DemoTools {
    root: PathBuf,
    outbox: PathBuf,
}

impl DemoTools {
    /// Opens the toolset over `data_dir/workspace`, seeding it the first time.
    pub fn open(data_dir: &Path) -> std::io::Result<Self> {
        let root = data_dir.join("workspace");
        if !root.exists() {
            for (path, text) in SEED {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().unwrap_or(&root))?;
                std::fs::write(file, text)?;
            }
        }
        std::fs::create_dir_all(&root)?;
        let root = root.canonicalize()?;
        Ok(Self {
            outbox: data_dir.join("outbox.jsonl"),
            root,
        })
    }

    /// The workspace directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path inside the workspace, refusing anything that leaves it.
    fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let relative = Path::new(path.trim());
        let mut resolved = self.root.clone();
        for part in relative.components() {
            match part {
                Component::Normal(p) => resolved.push(p),
                Component::CurDir => {}
                _ => {
                    return Err(ToolError::InvalidArguments(format!(
                        "`{path}` leaves the workspace: use a path relative to it, without `..`"
                    )))
                }
            }
        }
        // A symlink inside the workspace may still point outside it: check
        // the nearest existing ancestor's real location.
        let mut existing = resolved.as_path();
        while !existing.exists() {
            existing = existing.parent().unwrap_or(&self.root);
        }
        let real = existing
            .canonicalize()
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if !real.starts_with(&self.root) {
            return Err(ToolError::InvalidArguments(format!(
                "`{path}` leaves the workspace"
            )));
        }
        Ok(resolved)
    }

    fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

fn text_arg<'a>(arguments: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::InvalidArguments(format!("`{name}` (a string) is required")))
}

fn io(e: std::io::Error, path: &str) -> ToolError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ToolError::Failed(format!("{path} does not exist")),
        _ => ToolError::Failed(format!("{path}: {e}")),
    }
}

fn spec(
    name: &str,
    description: &str,
    read_only: bool,
    properties: Value,
    required: &[&str],
) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters: json!({ "type": "object", "properties": properties, "required": required }),
        read_only,
    }
}

#[async_trait]
impl ToolSource for DemoTools {
    fn name(&self) -> &str {
        SOURCE
    }

    fn tools(&self) -> Vec<ToolSpec> {
        let path = json!({ "type": "string", "description": "Path relative to the workspace" });
        vec![
            spec(
                "list_directory",
                "List the files in a workspace directory.",
                true,
                json!({ "path": path }),
                &[],
            ),
            spec(
                "read_file",
                "Read a text file from the workspace.",
                true,
                json!({ "path": path }),
                &["path"],
            ),
            spec(
                "write_file",
                "Write a text file in the workspace, replacing it if it exists.",
                false,
                json!({ "path": path, "content": { "type": "string" } }),
                &["path", "content"],
            ),
            spec(
                "delete_file",
                "Delete a file from the workspace.",
                false,
                json!({ "path": path }),
                &["path"],
            ),
            spec(
                "send_email",
                "Send an e-mail (it goes to the outbox).",
                false,
                json!({ "to": { "type": "string" }, "subject": { "type": "string" }, "body": { "type": "string" } }),
                &["to", "body"],
            ),
        ]
    }

    async fn call(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        match tool {
            "list_directory" => {
                let path = arguments.get("path").and_then(Value::as_str).unwrap_or(".");
                let dir = self.resolve(path)?;
                let mut entries = Vec::new();
                let mut pending = vec![dir.clone()];
                // Recursive, so "clean up" sees files in subdirectories too.
                while let Some(current) = pending.pop() {
                    for entry in std::fs::read_dir(&current).map_err(|e| io(e, path))? {
                        let entry = entry.map_err(|e| io(e, path))?;
                        let kind = entry.file_type().map_err(|e| io(e, path))?;
                        if kind.is_dir() {
                            pending.push(entry.path());
                        } else if kind.is_file() {
                            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                            entries.push(
                                json!({ "path": self.display(&entry.path()), "bytes": size }),
                            );
                        }
                    }
                }
                entries.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
                Ok(json!({ "path": self.display(&dir), "files": entries }))
            }
            "read_file" => {
                let path = text_arg(arguments, "path")?;
                let file = self.resolve(path)?;
                let size = std::fs::metadata(&file).map_err(|e| io(e, path))?.len();
                if size > MAX_READ {
                    return Err(ToolError::Failed(format!(
                        "{path} is larger than {MAX_READ} bytes"
                    )));
                }
                let content = std::fs::read_to_string(&file).map_err(|e| io(e, path))?;
                Ok(json!({ "path": path, "content": content }))
            }
            "write_file" => {
                let path = text_arg(arguments, "path")?;
                let content = text_arg(arguments, "content")?;
                let file = self.resolve(path)?;
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io(e, path))?;
                }
                std::fs::write(&file, content).map_err(|e| io(e, path))?;
                Ok(json!({ "path": path, "bytes": content.len() }))
            }
            "delete_file" => {
                let path = text_arg(arguments, "path")?;
                let file = self.resolve(path)?;
                if file == self.root || file.is_dir() {
                    return Err(ToolError::Failed(format!(
                        "{path} is a directory; only files can be deleted"
                    )));
                }
                std::fs::remove_file(&file).map_err(|e| io(e, path))?;
                Ok(json!({ "path": path, "deleted": true }))
            }
            "send_email" => {
                let to = text_arg(arguments, "to")?;
                let body = text_arg(arguments, "body")?;
                let subject = arguments
                    .get("subject")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                // One write of the whole line: `writeln!` writes the text and
                // the newline separately, and a process killed between the two
                // left a line without its end, which the next e-mail joined.
                let line = format!(
                    "{}\n",
                    json!({ "to": to, "subject": subject, "body": body })
                );
                use std::io::Write;
                let mut outbox = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.outbox)
                    .map_err(|e| ToolError::Failed(e.to_string()))?;
                outbox
                    .write_all(line.as_bytes())
                    .map_err(|e| ToolError::Failed(e.to_string()))?;
                Ok(json!({ "to": to, "queued": true }))
            }
            other => Err(ToolError::UnknownTool(other.to_owned())),
        }
    }
}

/// Adds the demo toolset to `config` as a built-in source under its default
/// policy, unless the configuration already says how to treat it.
pub fn configure(config: &mut crate::config::Config) -> Result<(), crate::policy::PolicyError> {
    if !config.sources.contains_key(SOURCE) {
        let policy = default_policy();
        let compiled = policy.compile("(built-in)", "sources.demo")?;
        let compiled = compiled.with_code(config.code.clone());
        config.sources.insert(
            SOURCE.to_owned(),
            crate::config::SourceConfig {
                connection: crate::config::Connection::BuiltIn,
                timeouts: crate::config::SourceTimeouts::default(),
                policy_config: policy,
                policy: compiled,
                built_in: true,
            },
        );
    }
    Ok(())
}

/// The demo toolset's default policy: reads run, writes, deletes and e-mail ask.
pub fn default_policy() -> crate::policy::PolicyConfig {
    crate::policy::PolicyConfig {
        auto_approved_tools: vec!["list_directory".into(), "read_file".into()],
        require_approval: vec![
            "write_file".into(),
            "delete_file".into(),
            "send_email".into(),
        ],
        // Paths that climb out of the workspace or start at the root are
        // refused outright, before the sandbox would have to catch them, so
        // a reviewer's edit cannot point a call elsewhere either.
        rules: vec![crate::policy::RuleConfig {
            when: vec![crate::policy::ConditionConfig {
                arg: "/path".into(),
                regex: Some(r"(^|/)\.\.(/|$)|^/".into()),
                ..Default::default()
            }],
            ..crate::policy::RuleConfig::new("*_file", crate::policy::RuleAction::Deny)
        }],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests;
