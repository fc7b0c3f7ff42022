//! Claude Code's side of the hook: what its `PreToolUse` event sends on
//! standard input, and the answer it reads from standard output
//! (`hookSpecificOutput` with `permissionDecision` `allow`, `deny` or `ask`,
//! and `updatedInput` for arguments a reviewer edited). The fields are
//! those of Claude Code's hooks reference; nothing else is read or written.

use serde::Deserialize;
use serde_json::{json, Value};

/// The event's fields Airlock reads.
#[derive(Debug, Clone, Deserialize)]
pub struct HookInput {
    /// `PreToolUse`; any other event gets no decision.
    pub hook_event_name: String,
    /// The Claude Code session: the conversation its calls are shown in.
    #[serde(default)]
    pub session_id: Option<String>,
    /// `Bash`, `Write`, `mcp__github__create_issue`…
    pub tool_name: String,
    /// The call's arguments, as the tool takes them.
    #[serde(default)]
    pub tool_input: Value,
}

/// What the hook tells Claude Code about one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it, with `arguments` instead of the model's when a reviewer
    /// edited them. The reason only reaches Claude Code's debug log.
    Allow {
        reason: String,
        arguments: Option<Value>,
    },
    /// Do not run it; the reason is shown to the model.
    Deny { reason: String },
    /// Let Claude Code ask the person at the terminal; the reason is shown
    /// in its prompt.
    Ask { reason: String },
}

impl Verdict {
    /// The JSON Claude Code reads from the hook's standard output.
    pub fn output(&self) -> Value {
        let (decision, reason, arguments) = match self {
            Verdict::Allow { reason, arguments } => ("allow", reason, arguments.as_ref()),
            Verdict::Deny { reason } => ("deny", reason, None),
            Verdict::Ask { reason } => ("ask", reason, None),
        };
        let mut output = json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        });
        if let Some(arguments) = arguments {
            output["updatedInput"] = arguments.clone();
        }
        json!({ "hookSpecificOutput": output })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_claude_code_documents_is_read() {
        let input: HookInput = serde_json::from_value(json!({
            "session_id": "abc123",
            "transcript_path": "/home/ana/.claude/projects/x/abc123.jsonl",
            "cwd": "/home/ana/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build", "description": "Clean"},
            "tool_use_id": "toolu_01ABC"
        }))
        .unwrap();
        assert_eq!(input.hook_event_name, "PreToolUse");
        assert_eq!(input.session_id.as_deref(), Some("abc123"));
        assert_eq!(input.tool_name, "Bash");
        assert_eq!(input.tool_input["command"], "rm -rf build");
    }

    #[test]
    fn each_verdict_is_written_as_claude_code_reads_it() {
        let allow = Verdict::Allow {
            reason: "approved by Rita".into(),
            arguments: None,
        };
        assert_eq!(
            allow.output(),
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "approved by Rita"
            }})
        );
        let edited = Verdict::Allow {
            reason: "edited by Rita".into(),
            arguments: Some(json!({"command": "ls"})),
        };
        assert_eq!(
            edited.output()["hookSpecificOutput"]["updatedInput"],
            json!({"command": "ls"})
        );
        let deny = Verdict::Deny {
            reason: "Rejected by Rita: not on main".into(),
        };
        assert_eq!(
            deny.output()["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
        let ask = Verdict::Ask {
            reason: "Airlock is down".into(),
        };
        assert_eq!(
            ask.output()["hookSpecificOutput"]["permissionDecision"],
            "ask"
        );
    }
}
