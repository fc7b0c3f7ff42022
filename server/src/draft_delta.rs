//! The HTML of a reply being written, sent to a subscriber by difference.
//!
//! Each piece that ends a line comes with the rendering of every complete
//! line so far (`engine::domain::markdown::Drafting`): sent whole, a reply of n lines
//! would cross the wire n times over. A subscriber is sent only what follows
//! the part of the rendering it already has (`keep` bytes), so a long reply's
//! HTML crosses about once.

use engine::events::Draft;
use serde_json::{json, Value};

/// The rendering one subscriber has of the reply being written.
#[derive(Debug, Default)]
pub(crate) struct ShownDraft {
    html: String,
    /// The stream position when it was sent.
    at: i64,
}

impl ShownDraft {
    /// The `message.delta` data for `draft`, sent at stream position
    /// `cursor`: its text and, for a piece that ends a line, `html` to put
    /// after the first `keep` bytes of what the subscriber has. An event
    /// between two pieces may have ended the draft in the browser (a stored
    /// reply, a run's end), so after one the rendering is sent whole.
    pub(crate) fn delta(&mut self, draft: &Draft, cursor: i64) -> Value {
        let Some(html) = &draft.html else {
            return json!({ "text": draft.text });
        };
        if cursor != self.at {
            self.html.clear();
            self.at = cursor;
        }
        let keep = shared_prefix(&self.html, html);
        let data = json!({ "text": draft.text, "html": &html[keep..], "keep": keep });
        self.html.clone_from(html);
        data
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
            text: text.into(),
            html: html.map(str::to_owned),
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
        assert_eq!(sent.delta(&piece("Hel", None), 3), json!({ "text": "Hel" }));
        let first = sent.delta(&piece("lo\n", Some("<p>Hello</p>\n")), 3);
        assert_eq!(first["keep"], 0);
        apply(&mut browser, &first);
        // A list item after it: the paragraph is kept.
        let html = "<p>Hello</p>\n<ul>\n<li>a</li>\n</ul>\n";
        let second = sent.delta(&piece("- a\n", Some(html)), 3);
        assert_eq!(second["keep"], "<p>Hello</p>\n".len());
        apply(&mut browser, &second);
        assert_eq!(browser, html);
        // A second item rewrites only the end of the list.
        let html = "<p>Hello</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n";
        let third = sent.delta(&piece("- b\n", Some(html)), 3);
        assert_eq!(third["html"], "li>b</li>\n</ul>\n");
        apply(&mut browser, &third);
        assert_eq!(browser, html);
    }

    #[test]
    fn after_an_event_the_rendering_is_sent_whole() {
        let mut sent = ShownDraft::default();
        sent.delta(&piece("a\n", Some("<p>a</p>\n")), 3);
        let next = sent.delta(&piece("a\n", Some("<p>a</p>\n")), 4);
        assert_eq!(
            (next["keep"].as_u64(), next["html"].as_str()),
            (Some(0), Some("<p>a</p>\n"))
        );
    }

    #[test]
    fn the_kept_part_ends_between_characters() {
        // "é" and "è" share their first byte.
        assert_eq!(shared_prefix("<p>é</p>", "<p>è</p>"), 3);
        assert_eq!(shared_prefix("", "<p>"), 0);
        assert_eq!(shared_prefix("<p>ab", "<p>a"), 4);
    }
}
