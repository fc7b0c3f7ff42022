//! A tool call as its card shows it: status, decision, arguments and what
//! an edit changed, with the labels worked out on the server.

use serde::{Deserialize, Serialize};

/// A recorded decision on a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionItem {
    /// approve, edit, always_allow, reject or expire.
    pub kind: String,
    /// Who decided.
    pub by: String,
    /// When, RFC 3339.
    pub at: String,
    /// The reason given.
    pub reason: Option<String>,
    /// Where it was taken: `chat`, `review_page`, `api`, `slack`, …
    #[serde(default)]
    pub channel: String,
}

/// One person's approval of a call that needs several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalItem {
    /// Their name.
    pub by: String,
    /// The signed-in person, when one approved.
    #[serde(default)]
    pub by_id: Option<String>,
    /// When, RFC 3339.
    pub at: String,
}

/// How many people must approve a call, and who has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuorumItem {
    pub required: u32,
    #[serde(default)]
    pub approvals: Vec<ApprovalItem>,
}

impl Default for QuorumItem {
    fn default() -> Self {
        Self {
            required: 1,
            approvals: Vec::new(),
        }
    }
}

/// The agent that asked for a call: its kind (`chat`, `key`, `agent`,
/// `local`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallerRef {
    pub kind: String,
}

/// A tool call. Its JSON is the engine's tool call, so the same type reads
/// page data and live `tool_call.*` events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallItem {
    /// Its id.
    pub id: String,
    /// The conversation it belongs to.
    pub conversation_id: String,
    /// The batch (model turn) it belongs to.
    pub batch_id: String,
    /// The assistant message whose turn proposed it.
    pub message_seq: Option<i64>,
    /// Its tool source.
    pub source: String,
    pub tool: String,
    /// The arguments it runs with.
    pub arguments: serde_json::Value,
    /// The arguments as proposed, when a reviewer edited them.
    pub original_arguments: Option<serde_json::Value>,
    /// The machine status (`pending_approval`, `completed`, …).
    pub status: String,
    /// Why the policy decided as it did.
    pub policy_reason: String,
    /// The groups whose members may decide it; empty: any approver.
    #[serde(default)]
    pub approvers: Vec<String>,
    /// The person who may not approve it (they asked for it).
    #[serde(default)]
    pub not_by: Option<String>,
    /// How many people must approve it, and who has.
    #[serde(default)]
    pub quorum: QuorumItem,
    /// Whether approving it takes the approver's passkey.
    #[serde(default)]
    pub step_up: bool,
    /// Who asked for it, as far as the card needs to know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<CallerRef>,
    /// When a pending approval lapses, RFC 3339.
    pub expires_at: Option<String>,
    /// Where it was announced while it waited, and how that went.
    #[serde(default)]
    pub announced: Vec<super::AnnouncementItem>,
    /// The decision, once taken.
    pub decision: Option<DecisionItem>,
    /// The result, once completed.
    pub result: Option<serde_json::Value>,
    /// The error, once failed.
    pub error: Option<String>,
    /// What it would do, shown while it waits.
    #[serde(default)]
    pub preview: Option<super::PreviewItem>,
    /// When the agent proposed it, RFC 3339.
    pub created_at: String,
}

/// One argument a reviewer changed, for the card of an edited call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentChange {
    /// The argument's name.
    pub name: String,
    /// Its value as proposed, as JSON; `None` when the reviewer added it.
    pub before: Option<String>,
    /// Its value as run, as JSON; `None` when the reviewer removed it.
    pub after: Option<String>,
}

/// The name of the agent's question tool and the source of the agent's tools.
pub const QUESTION_TOOL: &str = "request_human_input";
const AGENT_SOURCE: &str = "agent";

/// Reads the arguments a reviewer typed: a JSON object, or a message saying
/// what is wrong with it.
pub fn parse_arguments(text: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err("arguments must be a JSON object, like {\"path\": \"notes.txt\"}".into()),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

/// "2026-11-23 10:12 UTC" from an RFC 3339 time in UTC, without a clock or
/// a date library in the browser.
pub fn time_label(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => rfc3339.to_owned(),
    }
}

impl ToolCallItem {
    /// The rule "Always allow" makes of this call for its folder, in words
    /// ("with `path` in `drafts/` or below"); `None` without a path. The
    /// engine makes the rule itself (`GrantArguments::chosen`); a test
    /// checks that the two agree.
    pub fn folder_rule(&self) -> Option<String> {
        let object = self.arguments.as_object()?;
        let (name, path) = match object.get("path").and_then(|v| v.as_str()) {
            Some(path) => ("path", path),
            None => object.iter().find_map(|(name, v)| {
                v.as_str()
                    .filter(|s| s.contains('/'))
                    .map(|s| (name.as_str(), s))
            })?,
        };
        Some(match path.rfind('/') {
            Some(at) => format!("with `{name}` in `{}` or below", &path[..=at]),
            None => format!("with `{name}` at the top of the workspace"),
        })
    }

    /// Whether a person can still decide it.
    pub fn can_decide(&self) -> bool {
        self.status == "pending_approval"
    }

    /// The status as people read it.
    pub fn status_label(&self) -> &'static str {
        match self.status.as_str() {
            "requested" => "Requested",
            "pending_approval" => "Pending approval",
            "approved" => "Approved",
            "rejected" => "Rejected",
            "executing" => "Executing…",
            // Airlock ran nothing: the agent was told it may.
            "completed" if self.runs_remotely() => "Approved · the agent runs it",
            "completed" => "Completed",
            "failed" => "Failed",
            "expired" => "Expired",
            // Only a withdrawn review cancels a call.
            "cancelled" => "Withdrawn",
            _ => "Unknown",
        }
    }

    /// The arguments as indented JSON.
    pub fn arguments_text(&self) -> String {
        serde_json::to_string_pretty(&self.arguments).unwrap_or_default()
    }

    /// The result as people read it: text fields as text, the rest as JSON.
    pub fn result_text(&self) -> Option<String> {
        let result = self.result.as_ref()?;
        Some(match result.get("content").and_then(|c| c.as_str()) {
            Some(text) => text.to_owned(),
            None => serde_json::to_string_pretty(result).unwrap_or_default(),
        })
    }

    /// Who decided and why, for a decided card.
    pub fn decision_text(&self) -> Option<String> {
        let d = self.decision.as_ref()?;
        let verb = match d.kind.as_str() {
            "approve" => "Approved",
            "edit" => "Approved with changes",
            "always_allow" => "Always allowed",
            "reject" => "Rejected",
            "expire" => "Expired",
            "cancel" => "Withdrawn",
            _ => "Decided",
        };
        // A press in Slack or the terminal says so: the person may not
        // have seen the card.
        let place = match d.channel.as_str() {
            "slack" => " in Slack",
            "cli" => " from the terminal",
            "mcp" => " (the MCP client)",
            "a2a" => " over A2A",
            _ => "",
        };
        Some(match &d.reason {
            Some(reason) => format!("{verb} by {}{place}: {reason}", d.by),
            None => format!("{verb} by {}{place}", d.by),
        })
    }

    /// Whether a remote agent asked for it and runs it itself once
    /// decided: its arguments are the agent's, and cannot be edited here.
    pub fn runs_remotely(&self) -> bool {
        self.caller.as_ref().is_some_and(|c| c.kind == "agent")
    }

    /// Whether this is the agent asking the person a question.
    pub fn is_question(&self) -> bool {
        self.tool == QUESTION_TOOL && self.source == AGENT_SOURCE
    }

    /// What a reviewer changed, argument by argument, in name order.
    pub fn argument_changes(&self) -> Vec<ArgumentChange> {
        let (Some(before), Some(after)) = (
            self.original_arguments.as_ref().and_then(|v| v.as_object()),
            self.arguments.as_object(),
        ) else {
            return Vec::new();
        };
        let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter(|name| before.get(*name) != after.get(*name))
            .map(|name| ArgumentChange {
                name: name.clone(),
                before: before.get(name).map(|v| v.to_string()),
                after: after.get(name).map(|v| v.to_string()),
            })
            .collect()
    }

    /// When it was decided, for people.
    pub fn decided_at_label(&self) -> Option<String> {
        Some(time_label(&self.decision.as_ref()?.at))
    }

    /// When a pending call lapses, for people.
    pub fn expires_label(&self) -> Option<String> {
        Some(format!("expires {}", time_label(self.expires_at.as_ref()?)))
    }

    /// For a call that needs several approvals: "1 of 2 approvals: Rita
    /// 10:02" ("… approvals since the edit" once its arguments were
    /// edited), and while it waits, who may still give the rest ("needs 1
    /// more, from ops or sec, not Rita").
    pub fn quorum_label(&self) -> Option<String> {
        let quorum = &self.quorum;
        if quorum.required <= 1 {
            return None;
        }
        let given = quorum.approvals.len();
        let who: Vec<String> = quorum
            .approvals
            .iter()
            .map(|a| match time_label(&a.at).get(11..16) {
                Some(time) => format!("{} {time}", a.by),
                None => a.by.clone(),
            })
            .collect();
        // After an edit the count starts again: say so, since the
        // approvals given before were of other arguments.
        let since = if self.original_arguments.is_some() {
            " since the edit"
        } else {
            ""
        };
        let mut text = format!("{given} of {} approvals{since}", quorum.required);
        if !who.is_empty() {
            text = format!("{text}: {}", who.join(", "));
        }
        let missing = (quorum.required as usize).saturating_sub(given);
        if self.can_decide() && missing > 0 {
            let from = if self.approvers.is_empty() {
                "any approver".to_owned()
            } else {
                self.approvers.join(" or ")
            };
            let not: Vec<&str> = quorum.approvals.iter().map(|a| a.by.as_str()).collect();
            let not = if not.is_empty() {
                String::new()
            } else {
                format!(", not {}", not.join(" or "))
            };
            text = format!("{text} · needs {missing} more, from {from}{not}");
        }
        Some(text)
    }

    /// What a list keys this call's card by: it is drawn again when any of
    /// it changes (its status, its decision, an approval of several).
    pub fn card_key(&self) -> String {
        let approvals: Vec<&str> = self
            .quorum
            .approvals
            .iter()
            .map(|a| a.at.as_str())
            .collect();
        // A preview taken again over a changed file is a new card too.
        let seen = self.preview.as_ref().and_then(|p| p.seen()).unwrap_or("");
        format!(
            "{}:{}:{}:{}:{seen}",
            self.id,
            self.status,
            self.decision.is_some(),
            approvals.join(",")
        )
    }

    /// Replaces this call with a newer copy of itself, never an older one.
    pub fn is_newer_than(&self, other: &ToolCallItem) -> bool {
        status_rank(&self.status) >= status_rank(&other.status)
    }
}

/// Orders statuses along a call's life, so a late event never moves a card back.
fn status_rank(status: &str) -> u8 {
    match status {
        "requested" => 0,
        "pending_approval" => 1,
        "approved" => 2,
        "executing" => 3,
        _ => 4,
    }
}
