//! The decisions people take on waiting calls, as recorded: what, by whom,
//! when, why, and through which channel.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::PersonId;

/// What a person (or the expiry) decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Run it as proposed.
    Approve,
    /// Run it with edited arguments.
    Edit,
    /// Run it, and allow this tool from now on.
    AlwaysAllow,
    /// Do not run it.
    Reject,
    /// Nobody decided in time; the default action applied.
    Expire,
    /// Not run: the reviewer withdrew the review instead of deciding.
    Cancel,
}

impl DecisionKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Approve => "approve",
            DecisionKind::Edit => "edit",
            DecisionKind::AlwaysAllow => "always_allow",
            DecisionKind::Reject => "reject",
            DecisionKind::Expire => "expire",
            DecisionKind::Cancel => "cancel",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Approve,
            Self::Edit,
            Self::AlwaysAllow,
            Self::Reject,
            Self::Expire,
            Self::Cancel,
        ]
        .into_iter()
        .find(|k| k.as_str() == value)
    }
}

/// Where a decision came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// A card in the chat or the inbox.
    Chat,
    /// A deep-linked review page.
    ReviewPage,
    /// The HTTP API.
    Api,
    /// A button on a Slack message.
    Slack,
    /// A press in a chat app an agent relayed (HITL inline submit).
    Relayed,
    /// A person's own HTTP API (`/api/v1/calls`), as `airlock approve`
    /// and scripts use it.
    Cli,
    /// An MCP client of the proxy, withdrawing the calls it no longer
    /// waits for.
    Mcp,
    /// An A2A client of Airlock's agent, deciding by kagent's decision
    /// parts or in words.
    A2a,
    /// Airlock itself (expiry).
    System,
}

impl Channel {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Chat => "chat",
            Channel::ReviewPage => "review_page",
            Channel::Api => "api",
            Channel::Slack => "slack",
            Channel::Relayed => "relayed",
            Channel::Cli => "cli",
            Channel::Mcp => "mcp",
            Channel::A2a => "a2a",
            Channel::System => "system",
        }
    }

    /// Reads a stored name.
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Chat,
            Self::ReviewPage,
            Self::Api,
            Self::Slack,
            Self::Relayed,
            Self::Cli,
            Self::Mcp,
            Self::A2a,
            Self::System,
        ]
        .into_iter()
        .find(|c| c.as_str() == value)
    }
}

/// A recorded decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// What was decided.
    pub kind: DecisionKind,
    /// Who: a reviewer's name or identity, or `system:timeout`.
    pub by: String,
    /// The signed-in person who decided, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_id: Option<PersonId>,
    /// When.
    pub at: DateTime<Utc>,
    /// The reason given, if any.
    pub reason: Option<String>,
    /// Where it was taken.
    pub channel: Channel,
}

/// The name recorded for decisions the expiry takes.
pub const SYSTEM_TIMEOUT: &str = "system:timeout";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in [
            Channel::Chat,
            Channel::ReviewPage,
            Channel::Api,
            Channel::Slack,
            Channel::Relayed,
            Channel::Cli,
            Channel::Mcp,
            Channel::A2a,
            Channel::System,
        ] {
            assert_eq!(Channel::parse(c.as_str()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        for k in [
            DecisionKind::Approve,
            DecisionKind::Edit,
            DecisionKind::AlwaysAllow,
            DecisionKind::Reject,
            DecisionKind::Expire,
            DecisionKind::Cancel,
        ] {
            assert_eq!(DecisionKind::parse(k.as_str()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
    }
}
