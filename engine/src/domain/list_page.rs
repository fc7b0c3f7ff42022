//! One page of the conversation list: where it starts (after the last one
//! of the page before) and what the titles must contain. Pages are read by
//! position in the list's order, not by number, so a conversation that
//! moves to the top while someone pages down is neither missed twice nor
//! shown twice on the same page.

use chrono::{DateTime, Utc};

use super::{ConversationId, ConversationSummary};

/// Where a page starts: just after this conversation, in the list's order
/// (most recently active first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListCursor {
    /// The last listed conversation's last activity.
    pub updated_at: DateTime<Utc>,
    /// Its id, which orders conversations active in the same millisecond.
    pub id: ConversationId,
}

impl ListCursor {
    /// The cursor as it travels in a link: `<milliseconds>.<id>`.
    pub fn to_text(&self) -> String {
        format!("{}.{}", self.updated_at.timestamp_millis(), self.id)
    }

    /// A cursor from a link; `None` for text no cursor makes.
    pub fn parse(text: &str) -> Option<Self> {
        let (millis, id) = text.split_once('.')?;
        Some(Self {
            updated_at: DateTime::from_timestamp_millis(millis.parse().ok()?)?,
            id: ConversationId::parse(id).ok()?,
        })
    }

    /// The cursor after `summary`.
    pub fn after(summary: &ConversationSummary) -> Self {
        Self {
            updated_at: summary.conversation.updated_at,
            id: summary.conversation.id.clone(),
        }
    }
}

/// Which conversations a page lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListPage {
    /// Start after this one; `None` from the top.
    pub after: Option<ListCursor>,
    /// Only titles containing this, ignoring case.
    pub title_contains: Option<String>,
    /// Leave out external agents' sessions: only people's chats.
    pub people_only: bool,
}

/// A page of the list, and where the next one starts when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationPage {
    /// The conversations, most recently active first.
    pub items: Vec<ConversationSummary>,
    /// Where the next (older) page starts; `None` on the last page.
    pub older: Option<ListCursor>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_travels_as_text_and_back() {
        let cursor = ListCursor {
            updated_at: DateTime::from_timestamp_millis(1_764_000_000_123).unwrap(),
            id: ConversationId::new(),
        };
        assert_eq!(ListCursor::parse(&cursor.to_text()), Some(cursor));
        for bad in [
            "",
            "12",
            "x.conv_1",
            "12.not-an-id",
            "9999999999999999999.conv_1",
        ] {
            assert_eq!(ListCursor::parse(bad), None, "{bad}");
        }
    }
}
