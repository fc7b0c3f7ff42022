//! A call as the people's API shows it: what it is, where it stands, who
//! decided and what came of it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use engine::domain::ToolCall;

/// One tool call.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CallBody {
    /// Its id, for `show`, `approve` and `reject`.
    pub id: String,
    /// The conversation it belongs to.
    pub conversation_id: String,
    /// That conversation's title, in lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_title: Option<String>,
    /// The tool source: `demo`, an MCP server's name, a gateway source.
    pub source: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments it runs with (the edited ones, after an edit).
    #[schema(value_type = Object)]
    pub arguments: Value,
    /// The arguments as proposed, when a person edited them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub original_arguments: Option<Value>,
    /// `pending_approval`, `approved`, `rejected`, `executing`,
    /// `completed`, `failed`, `expired` or `cancelled`.
    #[schema(example = "pending_approval")]
    pub status: String,
    /// Why the policy decided as it did.
    pub policy_reason: String,
    /// The groups whose members may decide it; empty: any approver.
    #[serde(default)]
    pub approvers: Vec<String>,
    /// How many people must approve it.
    pub approvals_required: u32,
    /// The approvals given so far, while it waits for more.
    #[serde(default)]
    pub approvals: Vec<ApprovalBody>,
    /// When it was asked for, RFC 3339.
    pub created_at: String,
    /// When a pending call lapses, RFC 3339, if it does.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// The decision, once taken.
    #[serde(default)]
    pub decision: Option<DecisionBody>,
    /// The tool's result, once it completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    /// The error, once it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the shadow policy would have done, when one is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<ShadowBody>,
    /// What it would do, as plain text: a summary, then a diff's hunks
    /// (`diff -u`), a dry run's answer or a command's warnings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Whether approving it takes the approver's passkey, in Airlock's
    /// pages (`step_up: passkey`); the API refuses to approve it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub step_up: bool,
    /// Who asked for it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<CallerBody>,
}

/// The agent that asked for a call, as the policy saw it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CallerBody {
    /// `key` (an API key), `chat` (Airlock's own agent) or `local`.
    pub kind: String,
    /// The key's name; `airlock` for the chat's agent.
    pub name: String,
    /// The person it acts for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// That person's approver groups when it asked.
    #[serde(default)]
    pub groups: Vec<String>,
}

/// The shadow policy's verdict on a call, never enforced.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShadowBody {
    /// `allow`, `ask`, `deny` or `hidden`.
    pub verdict: String,
    /// Why, under the shadow policy.
    pub reason: String,
    /// Whether the real policy decided otherwise.
    pub differs: bool,
}

/// One person's approval of a call that needs several.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ApprovalBody {
    /// Who approved.
    pub by: String,
    /// When, RFC 3339.
    pub at: String,
}

/// A decision on a call.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DecisionBody {
    /// `approve`, `edit`, `always_allow`, `reject`, `expire` or `cancel`.
    pub kind: String,
    /// Who decided: a person's name, or `system:timeout`.
    pub by: String,
    /// When, RFC 3339.
    pub at: String,
    /// The reason given, if any.
    #[serde(default)]
    pub reason: Option<String>,
    /// Where: `chat`, `review_page`, `api`, `slack`, `relayed`, `cli` or
    /// `system`.
    pub channel: String,
}

impl CallBody {
    /// `call` as the API shows it, with its conversation's title if known.
    pub fn of(call: ToolCall, conversation_title: Option<String>) -> Self {
        let preview = call.preview.as_ref().map(|p| p.as_text());
        let caller = call.caller.map(|c| CallerBody {
            kind: c.kind.as_str().to_owned(),
            name: c.name,
            person: c.person,
            groups: c.groups,
        });
        Self {
            preview,
            caller,
            step_up: call.step_up,
            id: call.id.to_string(),
            conversation_id: call.conversation_id.to_string(),
            conversation_title,
            source: call.source,
            tool: call.tool,
            arguments: call.arguments,
            original_arguments: call.original_arguments,
            status: call.status.as_str().to_owned(),
            policy_reason: call.policy_reason,
            approvers: call.approvers,
            approvals_required: call.quorum.required,
            approvals: call
                .quorum
                .approvals
                .into_iter()
                .map(|a| ApprovalBody {
                    by: a.by,
                    at: a.at.to_rfc3339(),
                })
                .collect(),
            created_at: call.created_at.to_rfc3339(),
            expires_at: call.expires_at.map(|at| at.to_rfc3339()),
            decision: call.decision.map(|d| DecisionBody {
                kind: d.kind.as_str().to_owned(),
                by: d.by,
                at: d.at.to_rfc3339(),
                reason: d.reason,
                channel: d.channel.as_str().to_owned(),
            }),
            result: call.result,
            error: call.error,
            shadow: call.shadow.map(|s| ShadowBody {
                verdict: s.verdict,
                reason: s.reason,
                differs: s.differs,
            }),
        }
    }
}

/// A page of the calls waiting for a person.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PendingPage {
    /// The calls, the one waiting longest first.
    pub calls: Vec<CallBody>,
    /// Where the next page starts (`?after=`); none on the last page.
    #[serde(default)]
    pub next: Option<String>,
}
