//! A reply being written, as a subscriber is sent it: its text, its calls'
//! pieces, and, to one who joins mid-reply, the whole of it so far.
//!
//! Each piece of text that ends a line comes with the rendering of every
//! complete line so far (`engine::domain::markdown::Drafting`): sent whole, a
//! reply of n lines would cross the wire n times over. A subscriber is sent
//! only what follows the part of the rendering it already has (`keep`
//! bytes), so a long reply's HTML crosses about once.

use engine::domain::{Draft, DraftPiece};
use serde_json::{json, Value};

/// The rendering one subscriber has of the reply being written.
#[derive(Debug, Default)]
pub(crate) struct ShownDraft {
    html: String,
    /// The stream position when it was sent.
    at: i64,
}

impl ShownDraft {
    /// The event for `draft`, sent at stream position `cursor`, and its data.
    ///
    /// `message.delta`: the text and, for a piece that ends a line, `html`
    /// to put after the first `keep` bytes of what the subscriber has. An
    /// event between two pieces may have ended the draft in the browser (a
    /// stored reply, a run's end), so after one the rendering is sent whole.
    /// `call.delta`: a piece of a call. `message.draft`: everything so far.
    pub(crate) fn delta(&mut self, draft: &Draft, cursor: i64) -> (&'static str, Value) {
        let (text, html) = match &draft.piece {
            DraftPiece::Text { text, html } => (text, html),
            DraftPiece::Call {
                index,
                name,
                arguments,
            } => {
                let data = json!({ "index": index, "name": name, "arguments": arguments });
                return ("call.delta", data);
            }
            DraftPiece::Whole { text, html, calls } => {
                self.html.clone_from(html);
                self.at = cursor;
                let data = json!({ "text": text, "html": html, "calls": calls });
                return ("message.draft", data);
            }
        };
        let Some(html) = html else {
            return ("message.delta", json!({ "text": text }));
        };
        if cursor != self.at {
            self.html.clear();
            self.at = cursor;
        }
        let keep = shared_prefix(&self.html, html);
        let data = json!({ "text": text, "html": &html[keep..], "keep": keep });
        self.html.clone_from(html);
        ("message.delta", data)
    }
}

/// The length of the longest common prefix of `a` and `b` that ends
/// between characters (of both: their bytes agree up to it).
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::domain::ConversationId;

    fn piece(text: &str, html: Option<&str>) -> Draft {
        Draft {
            conversation_id: ConversationId::new(),
            piece: DraftPiece::Text {
                text: text.into(),
                html: html.map(str::to_owned),
            },
            after: 0,
        }
    }

    /// What a browser rebuilds from the deltas, as `Draft::add` in the app does.
    fn apply(shown: &mut String, data: &Value) {
        let keep = data["keep"].as_u64().unwrap() as usize;
        shown.truncate(keep);
        shown.push_str(data["html"].as_str().unwrap());
    }

    #[test]
    fn each_line_sends_only_what_follows_the_shared_part() {
        let mut sent = ShownDraft::default();
        let mut browser = String::new();
        assert_eq!(
            sent.delta(&piece("Hel", None), 3).1,
            json!({ "text": "Hel" })
        );
        let first = sent.delta(&piece("lo\n", Some("<p>Hello</p>\n")), 3).1;
        assert_eq!(first["keep"], 0);
        apply(&mut browser, &first);
        // A list item after it: the paragraph is kept.
        let html = "<p>Hello</p>\n<ul>\n<li>a</li>\n</ul>\n";
        let second = sent.delta(&piece("- a\n", Some(html)), 3).1;
        assert_eq!(second["keep"], "<p>Hello</p>\n".len());
        apply(&mut browser, &second);
        assert_eq!(browser, html);
        // A second item rewrites only the end of the list.
        let html = "<p>Hello</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n";
        let third = sent.delta(&piece("- b\n", Some(html)), 3).1;
        assert_eq!(third["html"], "li>b</li>\n</ul>\n");
        apply(&mut browser, &third);
        assert_eq!(browser, html);
    }

    #[test]
    fn after_an_event_the_rendering_is_sent_whole() {
        let mut sent = ShownDraft::default();
        sent.delta(&piece("a\n", Some("<p>a</p>\n")), 3);
        let next = sent.delta(&piece("a\n", Some("<p>a</p>\n")), 4).1;
        assert_eq!(
            (next["keep"].as_u64(), next["html"].as_str()),
            (Some(0), Some("<p>a</p>\n"))
        );
    }

    #[test]
    fn one_who_joins_mid_reply_gets_it_whole_then_differences() {
        let mut sent = ShownDraft::default();
        let whole = Draft {
            conversation_id: ConversationId::new(),
            piece: DraftPiece::Whole {
                text: "a\nb".into(),
                html: "<p>a</p>\n".into(),
                calls: Vec::new(),
            },
            after: 0,
        };
        let (kind, data) = sent.delta(&whole, 5);
        assert_eq!(kind, "message.draft");
        assert_eq!(data["text"], "a\nb");
        let (_, next) = sent.delta(&piece("\n", Some("<p>a</p>\n<p>b</p>\n")), 5);
        assert_eq!(next["keep"], "<p>a</p>\n".len());
    }

    #[test]
    fn the_kept_part_ends_between_characters() {
        // "é" and "è" share their first byte.
        assert_eq!(shared_prefix("<p>é</p>", "<p>è</p>"), 3);
        assert_eq!(shared_prefix("", "<p>"), 0);
        assert_eq!(shared_prefix("<p>ab", "<p>a"), 4);
    }
}
