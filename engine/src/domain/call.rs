//! Tool calls: what the model proposes, and each call's life as stored,
//! from proposed to finished (its decision is `decision.rs`'s).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{BatchId, ConversationId, Decision, PersonId, RunId, ToolCallId};

/// The source name of the agent's own tools.
pub const AGENT_SOURCE: &str = "agent";

/// The tool with which the agent asks the person a question.
pub const QUESTION_TOOL: &str = "request_human_input";

/// What happens to an approval nobody decided in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpiryAction {
    /// Reject it (fail closed).
    #[default]
    Reject,
    /// Approve it.
    Approve,
    /// Leave it (a question's agent goes on without an answer). Only a
    /// question's case says so; a tool call's policy cannot.
    #[serde(skip_deserializing)]
    Skip,
    /// Stop the agent's task. Only a question's case says so.
    #[serde(skip_deserializing)]
    Abort,
}

impl ExpiryAction {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpiryAction::Reject => "reject",
            ExpiryAction::Approve => "approve",
            ExpiryAction::Skip => "skip",
            ExpiryAction::Abort => "abort",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "reject" => Some(ExpiryAction::Reject),
            "approve" => Some(ExpiryAction::Approve),
            "skip" => Some(ExpiryAction::Skip),
            "abort" => Some(ExpiryAction::Abort),
            _ => None,
        }
    }
}

/// Where a tool call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Proposed by the model, not yet classified.
    Requested,
    /// Waiting for a person.
    PendingApproval,
    /// Allowed (by policy or a person), not yet started.
    Approved,
    /// Refused by a person or by policy; it never runs.
    Rejected,
    /// Running.
    Executing,
    /// Ran and returned a result.
    Completed,
    /// Ran and failed, or was interrupted.
    Failed,
    /// Nobody decided in time and the default action rejected it.
    Expired,
    /// Withdrawn before anyone decided.
    Cancelled,
}

impl CallStatus {
    /// Every status, for parsing and tests.
    pub const ALL: [CallStatus; 9] = [
        CallStatus::Requested,
        CallStatus::PendingApproval,
        CallStatus::Approved,
        CallStatus::Rejected,
        CallStatus::Executing,
        CallStatus::Completed,
        CallStatus::Failed,
        CallStatus::Expired,
        CallStatus::Cancelled,
    ];

    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Requested => "requested",
            CallStatus::PendingApproval => "pending_approval",
            CallStatus::Approved => "approved",
            CallStatus::Rejected => "rejected",
            CallStatus::Executing => "executing",
            CallStatus::Completed => "completed",
            CallStatus::Failed => "failed",
            CallStatus::Expired => "expired",
            CallStatus::Cancelled => "cancelled",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// Whether nothing more will happen to the call.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            CallStatus::Rejected
                | CallStatus::Completed
                | CallStatus::Failed
                | CallStatus::Expired
                | CallStatus::Cancelled
        )
    }
}

/// A tool call as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Its id.
    pub id: ToolCallId,
    /// The conversation it belongs to.
    pub conversation_id: ConversationId,
    /// The model turn that proposed it.
    pub batch_id: BatchId,
    /// The agent run that proposed it (none for gateway calls).
    pub run_id: Option<RunId>,
    /// The position of the assistant message whose turn proposed it.
    pub message_seq: Option<i64>,
    /// Its place in the batch, from 0.
    pub position: i64,
    /// The tool source (`demo`, an MCP server's name, …).
    pub source: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments it runs with (the edited ones, after an edit).
    pub arguments: Value,
    /// The arguments as proposed, kept when a reviewer edited them.
    pub original_arguments: Option<Value>,
    /// Where it is.
    pub status: CallStatus,
    /// Why the policy decided as it did.
    pub policy_reason: String,
    /// The groups whose members may decide it; empty: any approver.
    #[serde(default)]
    pub approvers: Vec<String>,
    /// Who may not approve it: the person who asked for it, when its
    /// policy separates duties.
    #[serde(default)]
    pub not_by: Option<PersonId>,
    /// How many people must approve it, and who has.
    #[serde(default)]
    pub quorum: super::Quorum,
    /// Whether approving it takes a fresh passkey assertion from the
    /// person who approves (`step_up: passkey`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub step_up: bool,
    /// When the pending approval lapses, if it does.
    pub expires_at: Option<DateTime<Utc>>,
    /// Where it was announced while it waited, and how that went.
    #[serde(default)]
    pub announced: Vec<super::Announcement>,
    /// What expiry does.
    pub default_action: ExpiryAction,
    /// The decision, once taken.
    pub decision: Option<Decision>,
    /// The tool's result, once completed.
    pub result: Option<Value>,
    /// The error, once failed.
    pub error: Option<String>,
    /// What the candidate policy (`shadow_policy`) would have done, when
    /// one is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<super::ShadowVerdict>,
    /// What it would do, shown while it waits (a diff, a dry run, a
    /// command read apart), when its policy previews its tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<super::Preview>,
    /// Who asked for it, when known (calls stored before callers were
    /// kept have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<super::Caller>,
    /// When it was proposed.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

impl ToolCall {
    /// Whether this is the agent asking a person a question, which takes an
    /// answer rather than an approval.
    pub fn is_question(&self) -> bool {
        self.source == AGENT_SOURCE && self.tool == QUESTION_TOOL
    }

    /// Its deadline, when it still waits at `now` past it: the expiry worker
    /// has not reached it yet, and nobody may approve it any more.
    pub fn lapsed_at(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let waiting = self.status == CallStatus::PendingApproval;
        self.expires_at.filter(|at| waiting && *at <= now)
    }

    /// A call of `tool` from `source` with `arguments`, waiting for any
    /// approver in a conversation of its own, for tests to change as they
    /// need.
    #[cfg(test)]
    pub(crate) fn waiting(source: &str, tool: &str, arguments: Value) -> Self {
        let now = Utc::now();
        Self {
            id: ToolCallId::new(),
            conversation_id: ConversationId::new(),
            batch_id: BatchId::new(),
            run_id: None,
            message_seq: None,
            position: 0,
            source: source.into(),
            tool: tool.into(),
            arguments,
            original_arguments: None,
            status: CallStatus::PendingApproval,
            policy_reason: format!("{tool} is listed in require_approval"),
            approvers: Vec::new(),
            not_by: None,
            quorum: Default::default(),
            step_up: false,
            expires_at: None,
            announced: Vec::new(),
            default_action: ExpiryAction::Reject,
            decision: None,
            result: None,
            error: None,
            shadow: None,
            preview: None,
            caller: None,
            created_at: now,
            updated_at: now,
        }
    }
}

/// A call the model proposes.
#[derive(Debug, Clone)]
pub struct ProposedCall {
    /// The tool source.
    pub source: String,
    pub tool: String,
    /// Its arguments.
    pub arguments: Value,
    /// Whether the tool says it only reads.
    pub read_only_hint: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in CallStatus::ALL {
            assert_eq!(CallStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
