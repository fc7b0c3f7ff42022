//! Identifiers. Each is a prefixed, time-ordered UUID (v7) so ids sort by
//! creation and say what they name when they show up in a log or a URL.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An id string that does not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a valid {kind} id")]
pub struct IdError {
    /// What kind of id was expected.
    pub kind: &'static str,
    /// The rejected input, cut to a readable length.
    pub value: String,
}

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// A fresh id.
            pub fn new() -> Self {
                Self(format!("{}{}", $prefix, uuid::Uuid::now_v7().simple()))
            }

            /// Checks that `value` has this id's shape: the prefix and 32 lowercase hex digits.
            pub fn parse(value: &str) -> Result<Self, IdError> {
                let ok = value
                    .strip_prefix($prefix)
                    .is_some_and(|hex| {
                        hex.len() == 32
                            && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                    });
                if ok {
                    Ok(Self(value.to_owned()))
                } else {
                    Err(IdError { kind: $kind, value: value.chars().take(80).collect() })
                }
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

prefixed_id!(
    /// Names a conversation.
    ConversationId, "conv_", "conversation"
);
prefixed_id!(
    /// Names a message within a conversation.
    MessageId, "msg_", "message"
);

prefixed_id!(
    /// Names one proposed tool call.
    ToolCallId, "call_", "tool call"
);
impl ToolCallId {
    /// An id below that of every call made at `at` or later: ids are UUIDv7,
    /// whose first 48 bits are the milliseconds they were made at, so a
    /// window of calls is a range of the table's key.
    pub fn lowest_at(at: chrono::DateTime<chrono::Utc>) -> Self {
        let millis = u64::try_from(at.timestamp_millis()).unwrap_or(0);
        Self(format!(
            "call_{:012x}{}",
            millis & 0xffff_ffff_ffff,
            "0".repeat(20)
        ))
    }
}

prefixed_id!(
    /// Names the batch of calls one model turn proposed.
    BatchId, "batch_", "batch"
);
prefixed_id!(
    /// Names one run of the agent: from a person's message to its answer.
    RunId, "run_", "run"
);
prefixed_id!(
    /// Names an "always allow" grant.
    GrantId, "grant_", "grant"
);
prefixed_id!(
    /// Names a person who signs in.
    PersonId, "person_", "person"
);
prefixed_id!(
    /// Names a personal API token in its person's list (its secret is never
    /// shown again).
    ApiTokenId, "tok_", "API token"
);
prefixed_id!(
    /// Names one signed-in session, so a person can end it from the list
    /// of their sessions (its token is never shown again).
    SessionId, "ses_", "session"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_id_of_a_time_is_below_every_call_made_then_or_later() {
        let now = chrono::Utc::now();
        let made = ToolCallId::new();
        assert!(ToolCallId::lowest_at(now - chrono::Duration::milliseconds(1)) < made);
        assert!(ToolCallId::lowest_at(now + chrono::Duration::seconds(1)) > made);
        assert!(ToolCallId::parse(ToolCallId::lowest_at(now).as_str()).is_ok());
    }

    #[test]
    fn fresh_ids_parse_and_sort_by_creation() {
        let a = ConversationId::new();
        let b = ConversationId::new();
        assert_eq!(ConversationId::parse(a.as_str()).unwrap(), a);
        assert!(a < b);
    }

    #[test]
    fn malformed_ids_are_rejected() {
        for bad in [
            "",
            "conv_",
            "conv_xyz",
            "msg_0190f0f0f0f0f0f0f0f0f0f0f0f0f0f0",
            "conv_0190F0F0F0F0F0F0F0F0F0F0F0F0F0F0",
        ] {
            assert!(
                ConversationId::parse(bad).is_err(),
                "{bad} should be rejected"
            );
        }
    }
}
