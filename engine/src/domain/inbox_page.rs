//! One page of the approvals inbox: the waiting calls after a position in
//! its order (the one waiting longest first), narrowed by source, tool and
//! how long they have waited. Like the conversation list, pages are read by
//! position, not by number.

use chrono::{DateTime, Utc};

use super::{ToolCall, ToolCallId};

/// Where a page starts: just after this call, in the inbox's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxCursor {
    /// When the last listed call was proposed.
    pub created_at: DateTime<Utc>,
    /// Its id, which orders calls proposed in the same millisecond.
    pub id: ToolCallId,
}

impl InboxCursor {
    /// The cursor as it travels in a link: `<milliseconds>.<id>`.
    pub fn to_text(&self) -> String {
        format!("{}.{}", self.created_at.timestamp_millis(), self.id)
    }

    /// A cursor from a link; `None` for text no cursor makes.
    pub fn parse(text: &str) -> Option<Self> {
        let (millis, id) = text.split_once('.')?;
        Some(Self {
            created_at: DateTime::from_timestamp_millis(millis.parse().ok()?)?,
            id: ToolCallId::parse(id).ok()?,
        })
    }

    /// The cursor after `call`.
    pub fn after(call: &ToolCall) -> Self {
        Self {
            created_at: call.created_at,
            id: call.id.clone(),
        }
    }
}

/// Which waiting calls a page of the inbox lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InboxQuery {
    /// Start after this call; `None` from the one waiting longest.
    pub after: Option<InboxCursor>,
    /// Only calls of this source.
    pub source: Option<String>,
    /// Only calls of this tool.
    pub tool: Option<String>,
    /// Only calls proposed at or before this time (waiting at least so long).
    pub waiting_since: Option<DateTime<Utc>>,
}

impl InboxQuery {
    /// Whether this is the inbox's first page, unfiltered: the one that
    /// follows the stream live.
    pub fn is_first_page(&self) -> bool {
        *self == Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_travels_as_text_and_nothing_else_makes_one() {
        let cursor = InboxCursor {
            created_at: DateTime::from_timestamp_millis(1_790_000_000_123).unwrap(),
            id: ToolCallId::new(),
        };
        assert_eq!(InboxCursor::parse(&cursor.to_text()), Some(cursor));
        for bad in [
            "",
            "12",
            "x.call_1",
            "12.conv_0190f0f0f0f0f0f0f0f0f0f0f0f0f0f0",
        ] {
            assert_eq!(InboxCursor::parse(bad), None, "{bad}");
        }
    }
}
