//! "Always allow" grants: a tool of one source that runs without asking,
//! in one conversation or everywhere, with any arguments or some, until
//! revoked or for a while.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ConversationId, GrantArguments, GrantId, PersonId, PersonRef};

/// Where an "always allow" grant applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "scope", content = "conversation_id")]
pub enum GrantScope {
    /// Only in one conversation.
    Conversation(ConversationId),
    /// Everywhere.
    Global,
}

/// An "always allow" grant for one tool of one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grant {
    /// Its id.
    pub id: GrantId,
    /// The tool source.
    pub source: String,
    pub tool: String,
    /// Where it applies.
    pub scope: GrantScope,
    /// Which of the tool's calls it covers.
    #[serde(default)]
    pub arguments: GrantArguments,
    /// Who created it.
    pub created_by: String,
    /// The signed-in person who created it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by_id: Option<PersonId>,
    /// When.
    pub created_at: DateTime<Utc>,
    /// When it ends by itself; `None` lasts until it is revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
    /// The signed-in person who revoked it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_by: Option<PersonRef>,
}

impl Grant {
    /// Whether it lets calls run at `now`: not revoked, and not ended.
    pub fn in_force(&self, now: DateTime<Utc>) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|end| end > now)
    }
}

/// A grant, with the title of the conversation it is limited to.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantEntry {
    pub grant: Grant,
    /// The title of its conversation; `None` for a grant that applies
    /// everywhere, or whose conversation is gone.
    pub conversation_title: Option<String>,
}
