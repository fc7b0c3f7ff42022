//! What a person decides about a pending call, and who decides.

use serde_json::Value;

use super::Channel;

/// What a person decides about one pending call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it as proposed.
    Approve,
    /// Do not run it, optionally saying why.
    Reject {
        /// The reason, shown to the model.
        reason: Option<String>,
    },
    /// Run it with these arguments instead.
    Edit {
        /// The new arguments (a JSON object).
        arguments: Value,
    },
    /// Run it and allow this tool from now on, here or everywhere.
    AlwaysAllow {
        /// Whether the grant covers every conversation.
        everywhere: bool,
    },
    /// Withdraw the review without deciding: the call does not run, its
    /// case ends `cancelled`, and the model reads it as a rejection.
    Cancel {
        /// Why, shown to the model and to whoever asked.
        reason: Option<String>,
    },
}

/// Who decides, and through which channel.
#[derive(Debug, Clone)]
pub struct Reviewer {
    /// A name or identity, recorded as `decided_by`.
    pub name: String,
    /// Where the decision is taken.
    pub channel: Channel,
}
