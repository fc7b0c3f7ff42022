//! What the audit page shows of an entry, in words.

use serde::{Deserialize, Serialize};

/// An audit entry as people read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditItem {
    /// Its id, in the order entries were written.
    pub id: i64,
    /// Its place in the chain; `None` for the last second's entries, not
    /// sealed yet.
    pub seq: Option<i64>,
    /// When, RFC 3339.
    pub at: String,
    /// The same, for people ("2026-11-26 16:02 UTC").
    pub at_label: String,
    /// What happened, as stored (`approve`, `propose`, …), for styling.
    pub action: String,
    /// What happened, in words ("Approved", "Refused by policy").
    pub action_label: String,
    /// Who did it.
    pub actor: String,
    /// Where, in words ("chat", "review page", "API", "Airlock").
    pub channel_label: String,
    /// The tool, with its source ("delete_file · files").
    pub tool: Option<String>,
    /// The conversation it happened in.
    pub conversation_id: Option<String>,
    /// The call's arguments as decided (or run), compact JSON.
    pub arguments: Option<String>,
    /// Why: the person's reason, the policy's, or what a grant covers.
    pub reason: Option<String>,
}

/// One page of the audit, and the cursor of the next, older one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditListPage {
    pub items: Vec<AuditItem>,
    pub older: Option<String>,
}

/// The outcomes the audit can be narrowed to: stored action and words.
pub const AUDIT_ACTIONS: &[(&str, &str)] = &[
    ("propose", "Proposed"),
    ("step_up", "Passkey given"),
    ("approve", "Approved"),
    ("edit", "Approved with edits"),
    ("always_allow", "Always allowed"),
    ("reject", "Rejected"),
    ("expire", "Expired"),
    ("cancel", "Withdrawn"),
    ("execute", "Started"),
    ("completed", "Completed"),
    ("failed", "Failed"),
    ("grant", "Allowed from now on"),
    ("revoke", "Allowance revoked"),
];

#[cfg(feature = "ssr")]
impl AuditItem {
    /// The page's entry for a stored one.
    pub fn from_entry(entry: engine::domain::AuditEntry) -> Self {
        let detail: serde_json::Value =
            serde_json::from_str(&entry.detail).unwrap_or(serde_json::Value::Null);
        let status = detail["status"].as_str().unwrap_or_default();
        let action_label = match (entry.action.as_str(), status) {
            ("propose", "pending_approval") => "Asked for approval".to_owned(),
            ("propose", "approved") => "Ran without asking".to_owned(),
            ("propose", "rejected") => "Refused by policy".to_owned(),
            ("expire", "approved") => "Expired: approved by default".to_owned(),
            ("approve" | "edit", "pending_approval") => format!(
                "{} ({} of {})",
                if entry.action == "edit" {
                    "Edited and approved"
                } else {
                    "Approved"
                },
                detail["approvals"]["given"],
                detail["approvals"]["required"]
            ),
            (action, _) => AUDIT_ACTIONS
                .iter()
                .find(|(stored, _)| *stored == action)
                .map_or_else(|| action.to_owned(), |(_, words)| (*words).to_owned()),
        };
        let reason = match entry.action.as_str() {
            "grant" => grant_words(&detail),
            "step_up" => detail["passkey"]
                .as_str()
                .map(|name| format!("with the passkey \"{name}\"")),
            "propose" => detail["policy_reason"].as_str().map(str::to_owned),
            _ => detail["reason"].as_str().map(str::to_owned),
        };
        let arguments = match &detail["arguments"] {
            serde_json::Value::Null => None,
            _ if entry.action == "grant" => None,
            arguments => Some(arguments.to_string()),
        };
        let channel_label = match entry.channel.as_str() {
            "review_page" => "review page".to_owned(),
            "api" => "API".to_owned(),
            "slack" => "Slack".to_owned(),
            "relayed" => "relayed by the agent".to_owned(),
            "cli" => "terminal".to_owned(),
            "mcp" => "MCP client".to_owned(),
            "a2a" => "A2A client".to_owned(),
            "system" => "Airlock".to_owned(),
            "allowed_page" => "Allowed page".to_owned(),
            other => other.to_owned(),
        };
        let at = entry.at.to_rfc3339();
        Self {
            id: entry.id,
            seq: entry.seal.map(|s| s.seq),
            at_label: entry.at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            at,
            action: entry.action,
            action_label,
            actor: entry.actor,
            channel_label,
            tool: entry.tool.map(|tool| match entry.source {
                Some(source) => format!("{tool} · {source}"),
                None => tool,
            }),
            conversation_id: entry.conversation,
            arguments,
            reason,
        }
    }
}

/// What a grant entry covers, in words: its calls, where, and until when.
#[cfg(feature = "ssr")]
fn grant_words(detail: &serde_json::Value) -> Option<String> {
    let grant: engine::domain::Grant = serde_json::from_value(detail.clone()).ok()?;
    let calls = grant.arguments.words();
    let place = match grant.scope {
        engine::domain::GrantScope::Global => "everywhere",
        engine::domain::GrantScope::Conversation(_) => "in this conversation",
    };
    let until = match grant.expires_at {
        Some(end) => format!("until {}", end.format("%Y-%m-%d %H:%M UTC")),
        None => "until revoked".to_owned(),
    };
    Some(format!("Calls {calls}, {place}, {until}"))
}
