//! Domain values from the rows the queries return. Columns hold plain
//! text and integers: ids as text, times as milliseconds, JSON as text.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::Row;
use crate::domain::{BatchId, ConversationId, GrantId, MessageId, PersonId, RunId, ToolCallId};
use crate::domain::{CallStatus, Channel, Decision, DecisionKind, Grant, GrantScope, ToolCall};
use crate::domain::{CaseEvent, CaseId, CaseStatus, CaseType, Requester, ReviewCase};
use crate::domain::{Conversation, Message, PersonRef, Role};
use crate::domain::{Event, EventKind, ExpiryAction, Run, RunStatus};
use crate::domain::{GrantArguments, Quorum};
use crate::store::{from_millis, StoreError};

pub(super) fn corrupt(table: &'static str, detail: impl ToString) -> StoreError {
    StoreError::Corrupt {
        table,
        detail: detail.to_string(),
    }
}

pub(super) fn json(table: &'static str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| corrupt(table, e))
}

pub(super) fn row_conversation(row: &Row) -> Result<Conversation, StoreError> {
    let id: String = row.try_get("conversation_id")?;
    Ok(Conversation {
        id: ConversationId::parse(&id).map_err(|e| corrupt("conversations", e))?,
        title: row.try_get("title")?,
        created_at: from_millis("conversations", row.try_get("created_at")?)?,
        updated_at: from_millis("conversations", row.try_get("updated_at")?)?,
    })
}

pub(super) fn row_message(row: &Row) -> Result<Message, StoreError> {
    let id: String = row.try_get("message_id")?;
    let conversation_id: String = row.try_get("conversation_id")?;
    let role: String = row.try_get("role")?;
    Ok(Message {
        id: MessageId::parse(&id).map_err(|e| corrupt("messages", e))?,
        conversation_id: ConversationId::parse(&conversation_id)
            .map_err(|e| corrupt("messages", e))?,
        seq: row.try_get("seq")?,
        role: Role::parse(&role).ok_or_else(|| corrupt("messages", format!("role {role}")))?,
        content: row.try_get("content")?,
        author: person_ref(row, "messages", "author_id", "author_name")?,
        created_at: from_millis("messages", row.try_get("created_at")?)?,
    })
}

/// A person a record names by the columns `id` and `name`, if it names one.
fn person_ref(
    row: &Row,
    table: &'static str,
    id: &str,
    name: &str,
) -> Result<Option<PersonRef>, StoreError> {
    let Some(id) = row.try_get::<Option<String>>(id)? else {
        return Ok(None);
    };
    Ok(Some(PersonRef {
        id: PersonId::parse(&id).map_err(|e| corrupt(table, e))?,
        name: row.try_get::<Option<String>>(name)?.unwrap_or_default(),
    }))
}

pub(super) fn row_call(row: &Row) -> Result<ToolCall, StoreError> {
    const T: &str = "tool_calls";
    let text = |name: &str| -> Result<String, StoreError> { row.try_get::<String>(name) };
    let opt_text =
        |name: &str| -> Result<Option<String>, StoreError> { row.try_get::<Option<String>>(name) };
    let opt_time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
        row.try_get::<Option<i64>>(name)?
            .map(|ms| from_millis(T, ms))
            .transpose()
    };
    let status = text("status")?;
    let decision = match opt_text("decision")? {
        None => None,
        Some(kind) => Some(Decision {
            kind: DecisionKind::parse(&kind)
                .ok_or_else(|| corrupt(T, format!("decision {kind}")))?,
            by: opt_text("decided_by")?.unwrap_or_default(),
            by_id: opt_text("decided_by_id")?
                .map(|p| PersonId::parse(&p).map_err(|e| corrupt(T, e)))
                .transpose()?,
            at: opt_time("decided_at")?.ok_or_else(|| corrupt(T, "decision without time"))?,
            reason: opt_text("decision_reason")?,
            channel: {
                let c = opt_text("decision_channel")?.unwrap_or_default();
                Channel::parse(&c).ok_or_else(|| corrupt(T, format!("channel {c}")))?
            },
        }),
    };
    let default_action = text("default_action")?;
    Ok(ToolCall {
        id: ToolCallId::parse(&text("tool_call_id")?).map_err(|e| corrupt(T, e))?,
        conversation_id: ConversationId::parse(&text("conversation_id")?)
            .map_err(|e| corrupt(T, e))?,
        batch_id: BatchId::parse(&text("batch_id")?).map_err(|e| corrupt(T, e))?,
        run_id: opt_text("run_id")?
            .map(|r| RunId::parse(&r).map_err(|e| corrupt(T, e)))
            .transpose()?,
        message_seq: row.try_get("message_seq")?,
        position: row.try_get("position")?,
        source: text("source")?,
        tool: text("tool")?,
        arguments: json(T, &text("arguments")?)?,
        original_arguments: opt_text("original_arguments")?
            .map(|a| json(T, &a))
            .transpose()?,
        status: CallStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
        policy_reason: text("policy_reason")?,
        approvers: read_groups(opt_text("approvers")?),
        not_by: opt_text("not_by")?
            .map(|p| PersonId::parse(&p).map_err(|e| corrupt(T, e)))
            .transpose()?,
        quorum: Quorum {
            required: u32::try_from(row.try_get::<i64>("approvals_required")?)
                .map_err(|e| corrupt(T, e))?,
            approvals: match opt_text("approvals")? {
                Some(text) => serde_json::from_str(&text).map_err(|e| corrupt(T, e))?,
                None => Vec::new(),
            },
        },
        step_up: row.try_get("step_up")?,
        expires_at: opt_time("expires_at")?,
        announced: match opt_text("announced")? {
            Some(text) => serde_json::from_str(&text).map_err(|e| corrupt(T, e))?,
            None => Vec::new(),
        },
        default_action: ExpiryAction::parse(&default_action)
            .ok_or_else(|| corrupt(T, format!("default_action {default_action}")))?,
        decision,
        result: opt_text("result")?.map(|r| json(T, &r)).transpose()?,
        error: opt_text("error")?,
        shadow: opt_text("shadow")?
            .map(|s| serde_json::from_str(&s).map_err(|e| corrupt(T, e)))
            .transpose()?,
        preview: opt_text("preview")?
            .map(|p| serde_json::from_str(&p).map_err(|e| corrupt(T, e)))
            .transpose()?,
        caller: opt_text("caller")?
            .map(|p| serde_json::from_str(&p).map_err(|e| corrupt(T, e)))
            .transpose()?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
        updated_at: from_millis(T, row.try_get("updated_at")?)?,
    })
}

/// A call's approver groups as stored: their names, which hold no spaces,
/// separated by one; `None` when any approver may decide.
pub(super) fn stored_groups(groups: &[String]) -> Option<String> {
    (!groups.is_empty()).then(|| groups.join(" "))
}

/// Approver groups as [`stored_groups`] stores them.
fn read_groups(stored: Option<String>) -> Vec<String> {
    stored
        .map(|text| text.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

pub(super) fn row_run(row: &Row) -> Result<Run, StoreError> {
    row_run_named(row, "")
}

/// A run from columns named with `prefix` (`run_id` as `{prefix}run_id`, …).
pub(super) fn row_run_named(row: &Row, prefix: &str) -> Result<Run, StoreError> {
    const T: &str = "runs";
    let column = |name: &str| format!("{prefix}{name}");
    let id: String = row.try_get(column("run_id").as_str())?;
    let conversation: String = row.try_get(column("conversation_id").as_str())?;
    let status: String = row.try_get(column("status").as_str())?;
    Ok(Run {
        id: RunId::parse(&id).map_err(|e| corrupt(T, e))?,
        conversation_id: ConversationId::parse(&conversation).map_err(|e| corrupt(T, e))?,
        status: RunStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
        started_by: row
            .try_get::<Option<String>>(column("started_by").as_str())?
            .map(|p| PersonId::parse(&p).map_err(|e| corrupt(T, e)))
            .transpose()?,
        error: row.try_get(column("error").as_str())?,
        stopping: row
            .try_get::<Option<i64>>(column("stop_requested_at").as_str())?
            .is_some(),
        created_at: from_millis(T, row.try_get(column("created_at").as_str())?)?,
        updated_at: from_millis(T, row.try_get(column("updated_at").as_str())?)?,
    })
}

pub(super) fn row_grant(row: &Row) -> Result<Grant, StoreError> {
    const T: &str = "grants";
    let id: String = row.try_get("grant_id")?;
    let conversation: Option<String> = row.try_get("conversation_id")?;
    let revoked: Option<i64> = row.try_get("revoked_at")?;
    let expires: Option<i64> = row.try_get("expires_at")?;
    let rule: Option<String> = row.try_get("arguments_rule")?;
    Ok(Grant {
        id: GrantId::parse(&id).map_err(|e| corrupt(T, e))?,
        source: row.try_get("source")?,
        tool: row.try_get("tool")?,
        scope: match conversation {
            Some(c) => {
                GrantScope::Conversation(ConversationId::parse(&c).map_err(|e| corrupt(T, e))?)
            }
            None => GrantScope::Global,
        },
        created_by: row.try_get("created_by")?,
        created_by_id: row
            .try_get::<Option<String>>("created_by_id")?
            .map(|p| PersonId::parse(&p).map_err(|e| corrupt(T, e)))
            .transpose()?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
        arguments: read_rule(rule.as_deref())?,
        expires_at: expires.map(|ms| from_millis(T, ms)).transpose()?,
        revoked_at: revoked.map(|ms| from_millis(T, ms)).transpose()?,
        revoked_by: person_ref(row, T, "revoked_by_id", "revoked_by")?,
    })
}

pub(crate) fn row_event(row: &Row) -> Result<Event, StoreError> {
    const T: &str = "events";
    let conversation: String = row.try_get("conversation_id")?;
    let kind: String = row.try_get("kind")?;
    let data: String = row.try_get("data")?;
    Ok(Event {
        id: row.try_get("event_id")?,
        conversation_id: ConversationId::parse(&conversation).map_err(|e| corrupt(T, e))?,
        seq: row.try_get("seq")?,
        inbox_seq: row.try_get("inbox_seq")?,
        kind: EventKind::parse(&kind).ok_or_else(|| corrupt(T, format!("kind {kind}")))?,
        data: json(T, &data)?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
    })
}

pub(super) fn row_case(row: &Row) -> Result<ReviewCase, StoreError> {
    const T: &str = "review_cases";
    let text = |name: &str| -> Result<String, StoreError> { row.try_get::<String>(name) };
    let opt_text =
        |name: &str| -> Result<Option<String>, StoreError> { row.try_get::<Option<String>>(name) };
    let opt_time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
        row.try_get::<Option<i64>>(name)?
            .map(|ms| from_millis(T, ms))
            .transpose()
    };
    let opt_case = |name: &str| -> Result<Option<CaseId>, StoreError> {
        opt_text(name)?
            .map(|id| CaseId::parse(&id).map_err(|e| corrupt(T, e)))
            .transpose()
    };
    let case_type = text("case_type")?;
    let status = text("status")?;
    let default_action = text("default_action")?;
    Ok(ReviewCase {
        id: CaseId::parse(&text("case_id")?).map_err(|e| corrupt(T, e))?,
        tool_call_id: ToolCallId::parse(&text("tool_call_id")?).map_err(|e| corrupt(T, e))?,
        conversation_id: ConversationId::parse(&text("conversation_id")?)
            .map_err(|e| corrupt(T, e))?,
        case_type: CaseType::parse(&case_type)
            .ok_or_else(|| corrupt(T, format!("type {case_type}")))?,
        asks: row.try_get("asks")?,
        status: CaseStatus::parse(&status).ok_or_else(|| corrupt(T, format!("status {status}")))?,
        prompt: text("prompt")?,
        default_action: ExpiryAction::parse(&default_action)
            .ok_or_else(|| corrupt(T, format!("default_action {default_action}")))?,
        requester: Requester {
            client: opt_text("client")?,
            agent_id: opt_text("agent_id")?,
            session_id: opt_text("session_id")?,
            callback_url: opt_text("callback_url")?,
        },
        result: opt_text("result")?.map(|r| json(T, &r)).transpose()?,
        responded_by: opt_text("responded_by")?,
        responded_by_email: opt_text("responded_by_email")?,
        submission_context: opt_text("submission_context")?
            .map(|c| json(T, &c))
            .transpose()?
            .map(|c| serde_json::from_value(c).map_err(|e| corrupt(T, e)))
            .transpose()?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
        expires_at: opt_time("expires_at")?,
        opened_at: opt_time("opened_at")?,
        completed_at: opt_time("completed_at")?,
        expired_at: opt_time("expired_at")?,
        cancelled_at: opt_time("cancelled_at")?,
        cancel_reason: opt_text("cancel_reason")?,
        reminder_at: opt_time("reminder_at")?,
        reminder_sent_at: opt_time("reminder_sent_at")?,
        inline_actions: opt_text("inline_actions")?
            .map(|a| json(T, &a))
            .transpose()?
            .map(|a| serde_json::from_value(a).map_err(|e| corrupt(T, e)))
            .transpose()?
            .unwrap_or_default(),
        previous_case_id: opt_case("previous_case_id")?,
        next_case_id: opt_case("next_case_id")?,
        version: row.try_get("version")?,
    })
}

pub(super) fn row_case_event(row: &Row) -> Result<CaseEvent, StoreError> {
    const T: &str = "review_events";
    let id: String = row.try_get("case_id")?;
    let data: String = row.try_get("data")?;
    Ok(CaseEvent {
        case_id: CaseId::parse(&id).map_err(|e| corrupt(T, e))?,
        seq: row.try_get("seq")?,
        kind: row.try_get("kind")?,
        data: json(T, &data)?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
    })
}

/// A grant's stored argument rule read back: null covers every call.
pub(super) fn read_rule(rule: Option<&str>) -> Result<GrantArguments, StoreError> {
    match rule {
        None => Ok(GrantArguments::Any),
        Some(text) => serde_json::from_str(text).map_err(|e| corrupt("grants", e)),
    }
}
