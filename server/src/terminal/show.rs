//! `airlock show ID`: one call, told in full.

use chrono::{DateTime, Utc};

use super::pending::{asked, waited};
use super::{Client, Failure};
use crate::calls_api::{CallBody, CallerBody};

/// Prints the call `id`.
pub async fn show(client: &Client, id: &str, json: bool) -> Result<(), Failure> {
    let call: CallBody = client.get(&format!("/api/v1/calls/{id}"), &[]).await?;
    match json {
        true => println!(
            "{}",
            serde_json::to_string_pretty(&call).unwrap_or_default()
        ),
        false => print!("{}", told(&call, client.base(), Utc::now())),
    }
    Ok(())
}

/// The call in lines a person reads: what it is, where it stands, who
/// decided, and its arguments and outcome in full; its conversation is at
/// `base`.
pub(super) fn told(call: &CallBody, base: &str, now: DateTime<Utc>) -> String {
    let mut lines = vec![match asked(call) {
        Some(question) => format!("The agent asks: {question}"),
        None => format!(
            "{} from {}: {}",
            call.tool,
            call.source,
            standing(&call.status)
        ),
    }];
    let mut line = |label: &str, value: String| lines.push(format!("  {label:<14}{value}"));
    line("Call", call.id.clone());
    line("Open", format!("{base}/c/{}", call.conversation_id));
    if asked(call).is_some() {
        let status = match call.status.as_str() {
            "pending_approval" => "waiting for an answer",
            other => standing(other),
        };
        line("Status", status.to_owned());
        if call.status == "pending_approval" {
            let how = match call.arguments.get("type") {
                Some(_) => format!("airlock answer {} --action ACTION --data JSON", call.id),
                None => format!("airlock answer {} \"…\"", call.id),
            };
            line("Answer with", how);
        }
    }
    if let Some(title) = &call.conversation_title {
        line("Conversation", title.clone());
    }
    line(
        "Asked",
        format!(
            "{} ({} ago)",
            when(&call.created_at),
            waited(&call.created_at, now)
        ),
    );
    if let (Some(at), "pending_approval") = (&call.expires_at, call.status.as_str()) {
        line("Lapses", when(at));
    }
    if let Some(caller) = &call.caller {
        line("Asked by", asked_by(caller));
    }
    line("Policy", call.policy_reason.clone());
    if call.step_up && call.status == "pending_approval" {
        line(
            "Approve with",
            "your passkey, in Airlock's pages".to_owned(),
        );
    }
    if !call.approvers.is_empty() {
        line("Approvers", call.approvers.join(" or "));
    }
    if call.approvals_required > 1 {
        let given: Vec<String> = call
            .approvals
            .iter()
            .map(|a| format!("{} at {}", a.by, when(&a.at)))
            .collect();
        let mut count = format!("{} of {}", call.approvals.len(), call.approvals_required);
        if !given.is_empty() {
            count = format!("{count}: {}", given.join(", "));
        }
        line("Approvals", count);
    }
    if let Some(decision) = &call.decision {
        let mut said = format!(
            "{} by {} at {}, {}",
            decided(&decision.kind),
            decision.by,
            when(&decision.at),
            place(&decision.channel)
        );
        if let Some(reason) = &decision.reason {
            said.push_str(&format!(": {reason}"));
        }
        line("Decision", said);
    }
    if let Some(error) = &call.error {
        line("Error", error.clone());
    }
    if let Some(shadow) = call.shadow.as_ref().filter(|s| s.differs) {
        line(
            "Shadow",
            format!("would {}: {}", shadow.verdict, shadow.reason),
        );
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if let Some(original) = &call.original_arguments {
        out.push_str(&format!("\nProposed arguments:\n{}\n", pretty(original)));
        out.push_str(&format!(
            "\nArguments as approved:\n{}\n",
            pretty(&call.arguments)
        ));
    } else {
        out.push_str(&format!("\nArguments:\n{}\n", pretty(&call.arguments)));
    }
    if let Some(preview) = call
        .preview
        .as_ref()
        .filter(|_| call.status == "pending_approval")
    {
        out.push_str(&format!("\nPreview:\n{preview}\n"));
    }
    if let Some(result) = &call.result {
        out.push_str(&format!("\nResult:\n{}\n", pretty(result)));
    }
    out
}

/// Where a call stands, in words.
/// The agent that asked, the person it acts for and their groups.
fn asked_by(caller: &CallerBody) -> String {
    let agent = match caller.kind.as_str() {
        "key" => format!("the key {}", caller.name),
        "chat" => "Airlock's agent".to_owned(),
        "agent" => format!("the remote agent {}", caller.name),
        _ => "an agent without a key".to_owned(),
    };
    match (&caller.person, caller.groups.as_slice()) {
        (None, _) => agent,
        (Some(person), []) => format!("{agent}, for {person}"),
        (Some(person), groups) => format!("{agent}, for {person} ({})", groups.join(", ")),
    }
}

fn standing(status: &str) -> &str {
    match status {
        "pending_approval" => "waiting for a decision",
        "approved" => "approved, about to run",
        "rejected" => "rejected",
        "executing" => "running",
        "completed" => "ran",
        "failed" => "failed",
        "expired" => "expired: nobody decided in time",
        "cancelled" => "withdrawn",
        other => other,
    }
}

/// What a decision did, in words.
fn decided(kind: &str) -> &str {
    match kind {
        "approve" => "Approved",
        "edit" => "Approved with changes",
        "always_allow" => "Always allowed",
        "reject" => "Rejected",
        "expire" => "Expired",
        "cancel" => "Withdrawn",
        other => other,
    }
}

/// Where a decision was taken, in words.
fn place(channel: &str) -> String {
    match channel {
        "chat" => "in the chat".to_owned(),
        "review_page" => "on a review page".to_owned(),
        "api" => "through the API".to_owned(),
        "slack" => "in Slack".to_owned(),
        "relayed" => "relayed by the agent".to_owned(),
        "cli" => "from the terminal".to_owned(),
        "mcp" => "by the MCP client".to_owned(),
        "a2a" => "by an A2A client".to_owned(),
        "system" => "by Airlock".to_owned(),
        other => format!("through {other}"),
    }
}

/// An RFC 3339 time as a person reads it, in UTC.
fn when(at: &str) -> String {
    DateTime::parse_from_rfc3339(at).map_or_else(
        |_| at.to_owned(),
        |t| {
            t.with_timezone(&Utc)
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string()
        },
    )
}

fn pretty(value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.lines()
        .map(|l| format!("  {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}
