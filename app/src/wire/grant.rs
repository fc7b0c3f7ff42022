//! What the "Always allowed" page shows of a grant.

use serde::{Deserialize, Serialize};

/// An "always allow" grant, as people read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantItem {
    /// Its id, posted to revoke it.
    pub id: String,
    /// The tool it allows.
    pub tool: String,
    /// The tool's source.
    pub source: String,
    /// Which of its calls it covers, in words, when not all of them
    /// ("with `path` in `drafts/` or below").
    pub arguments_label: Option<String>,
    /// The conversation it is limited to; `None` when it applies everywhere.
    pub conversation_id: Option<String>,
    /// That conversation's title.
    pub conversation_title: Option<String>,
    /// Who granted it.
    pub created_by: String,
    /// When, RFC 3339.
    pub created_at: String,
    /// The same, for people ("3 min ago").
    pub created_label: String,
    /// When it ends by itself, for people ("2026-11-26 15:40 UTC"); `None`
    /// when it lasts until revoked.
    pub ends_label: Option<String>,
    /// Whether its end has passed: it no longer applies.
    pub ended: bool,
    /// When it was revoked, for people; `None` while it applies.
    pub revoked_label: Option<String>,
    /// Who revoked it, when a signed-in person did.
    pub revoked_by: Option<String>,
}

#[cfg(feature = "ssr")]
impl GrantItem {
    /// The page's entry for a grant, with ages relative to `now`.
    pub fn from_entry(
        entry: engine::domain::GrantEntry,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        use engine::domain::GrantScope;
        let g = entry.grant;
        let conversation_id = match g.scope {
            GrantScope::Conversation(id) => Some(id.to_string()),
            GrantScope::Global => None,
        };
        Self {
            id: g.id.to_string(),
            tool: g.tool,
            source: g.source,
            arguments_label: (g.arguments != engine::domain::GrantArguments::Any)
                .then(|| g.arguments.words()),
            conversation_title: conversation_id.as_ref().map(|_| {
                entry
                    .conversation_title
                    .unwrap_or_else(|| "a deleted conversation".to_owned())
            }),
            conversation_id,
            created_by: g.created_by,
            created_at: g.created_at.to_rfc3339(),
            created_label: super::ago((now - g.created_at).num_seconds()),
            ends_label: g.expires_at.map(|end| super::time_label(&end.to_rfc3339())),
            ended: g.expires_at.is_some_and(|end| end <= now),
            revoked_label: g.revoked_at.map(|at| super::ago((now - at).num_seconds())),
            revoked_by: g.revoked_by.map(|person| person.name),
        }
    }
}
