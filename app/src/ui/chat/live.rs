//! A conversation as the browser holds it, kept current by its event stream.

use leptos::prelude::*;

use crate::ui::chat::tool_card::notices::LiveNotices;
use crate::wire::{Author, MessageItem, ToolCallItem};

/// What a live conversation updates.
#[derive(Debug, Clone, Copy)]
pub struct LiveChat {
    /// Its title.
    pub title: RwSignal<String>,
    /// Its messages.
    pub messages: RwSignal<Vec<MessageItem>>,
    /// Its tool calls.
    pub calls: RwSignal<Vec<ToolCallItem>>,
    /// Whether the agent is working.
    pub working: RwSignal<bool>,
    /// Whether the stream is reconnecting.
    pub reconnecting: RwSignal<bool>,
    /// The reply the agent is writing right now, until it is stored.
    pub draft: RwSignal<Draft>,
    /// Messages sent while the agent worked, until they join the conversation.
    pub queued: RwSignal<Vec<MessageItem>>,
    /// When earlier messages exist: the position of the oldest shown.
    pub earlier: RwSignal<Option<i64>>,
    /// Where its calls were announced, which their cards follow.
    pub notices: LiveNotices,
}

/// A reply being written: its complete lines as the server rendered them,
/// the text after them as it streams, and the calls it is writing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    /// The complete lines, rendered (safe HTML).
    pub html: String,
    /// What was written after them.
    pub tail: String,
    /// The calls so far, in order.
    pub calls: Vec<CallDraft>,
}

/// A call being written: its tool, once named, and its arguments so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallDraft {
    pub name: String,
    pub arguments: String,
}

/// Calls a draft may show; a piece for a higher index is not kept.
const MAX_CALLS: usize = 1_000;

impl Draft {
    /// Whether nothing is written yet.
    pub fn is_empty(&self) -> bool {
        self.html.is_empty() && self.tail.is_empty() && self.calls.is_empty()
    }

    /// Whether it has text to show.
    pub fn has_text(&self) -> bool {
        !(self.html.is_empty() && self.tail.is_empty())
    }

    /// Adds a piece of call `index`.
    fn add_call(&mut self, index: usize, name: Option<&str>, arguments: &str) {
        if index >= MAX_CALLS {
            return;
        }
        if self.calls.len() <= index {
            self.calls.resize_with(index + 1, CallDraft::default);
        }
        let call = &mut self.calls[index];
        call.name.push_str(name.unwrap_or_default());
        call.arguments.push_str(arguments);
    }

    /// Adds a piece; `html` comes with a piece that ends a line: the reply
    /// rendered up to its last line break, or, with `keep`, what follows the
    /// first `keep` bytes of the rendering shown so far.
    fn add(&mut self, text: &str, html: Option<&str>, keep: Option<usize>) {
        match html {
            Some(html) => {
                match keep {
                    // The server tracks what it sent, so the kept part is
                    // always there; were it not, the piece stands alone.
                    Some(keep) if self.html.is_char_boundary(keep) => {
                        self.html.truncate(keep);
                        self.html.push_str(html);
                    }
                    _ => self.html = html.to_owned(),
                }
                self.tail = text.rsplit('\n').next().unwrap_or_default().to_owned();
            }
            None => self.tail.push_str(text),
        }
    }
}

/// The event kinds a conversation's stream carries.
pub const CHAT_EVENTS: &[&str] = &[
    "message.delta",
    "message.draft",
    "call.delta",
    "message.created",
    "tool_call.created",
    "tool_call.updated",
    "run.updated",
    "conversation.updated",
];

impl LiveChat {
    /// What the agent is doing, while it works. A model that has not begun
    /// to answer may be busy with another conversation (a local server
    /// answers one request at a time), which the person should know.
    pub fn doing(&self) -> &'static str {
        let writing = !self.draft.read().is_empty();
        let running = self
            .calls
            .read()
            .iter()
            .any(|c| c.status == "approved" || c.status == "executing");
        if writing || running {
            "Agent is working…"
        } else {
            "Waiting for the model to answer…"
        }
    }

    /// Adds a message unless it is already shown; a message that waited
    /// leaves the queue as it joins the conversation.
    pub fn add_message(&self, message: MessageItem) {
        if self
            .queued
            .read_untracked()
            .iter()
            .any(|m| m.id == message.id)
        {
            self.queued.update(|q| q.retain(|m| m.id != message.id));
        }
        self.messages.update(|list| {
            if !list.iter().any(|m| m.id == message.id) {
                let at = list.partition_point(|m| m.seq < message.seq);
                list.insert(at, message);
            }
        });
    }

    /// Adds an earlier part of the conversation, read on demand, before
    /// what is shown.
    pub fn add_earlier(
        &self,
        messages: Vec<MessageItem>,
        calls: Vec<ToolCallItem>,
        earlier: Option<i64>,
    ) {
        for message in messages {
            self.add_message(message);
        }
        for call in calls {
            self.put_call(call);
        }
        self.earlier.set(earlier);
    }

    /// Adds or replaces a call, never with an older copy of itself.
    pub fn put_call(&self, call: ToolCallItem) {
        self.notices.note(&call);
        self.calls
            .update(|list| match list.iter_mut().find(|c| c.id == call.id) {
                Some(existing) if call.is_newer_than(existing) => *existing = call,
                Some(_) => {}
                None => list.push(call),
            });
    }

    /// Applies one stream event.
    pub fn apply(&self, kind: &str, data: &str) {
        match kind {
            "message.delta" => {
                if let Ok(piece) = serde_json::from_str::<serde_json::Value>(data) {
                    // A piece after the run ended belongs to a reply already shown.
                    match piece["text"].as_str() {
                        Some(text) if self.working.get_untracked() => self.draft.update(|d| {
                            let keep = piece["keep"].as_u64().map(|k| k as usize);
                            d.add(text, piece["html"].as_str(), keep)
                        }),
                        _ => {}
                    }
                }
            }
            "call.delta" if self.working.get_untracked() => {
                if let Ok(piece) = serde_json::from_str::<serde_json::Value>(data) {
                    let index = piece["index"].as_u64().unwrap_or(u64::MAX) as usize;
                    let arguments = piece["arguments"].as_str().unwrap_or_default();
                    self.draft
                        .update(|d| d.add_call(index, piece["name"].as_str(), arguments));
                }
            }
            // What was written before this browser joined: it replaces
            // whatever the browser had.
            "message.draft" => {
                // Read as a `Value`, as the other pieces are: a derived
                // reader of its own would add to the browser's bundle.
                if let Ok(whole) = serde_json::from_str::<serde_json::Value>(data) {
                    let text = whole["text"].as_str().unwrap_or_default();
                    let mut draft = Draft {
                        html: whole["html"].as_str().unwrap_or_default().to_owned(),
                        tail: text.rsplit('\n').next().unwrap_or_default().to_owned(),
                        calls: Vec::new(),
                    };
                    let calls = whole["calls"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default();
                    for (index, call) in calls.iter().enumerate() {
                        let arguments = call["arguments"].as_str().unwrap_or_default();
                        draft.add_call(index, call["name"].as_str(), arguments);
                    }
                    self.draft.set(draft);
                }
            }
            "message.created" => {
                if let Ok(m) = serde_json::from_str::<MessageItem>(data) {
                    // The stored reply replaces the draft it was written as.
                    if m.author == Author::Assistant {
                        self.draft.set(Draft::default());
                    }
                    self.add_message(m);
                }
            }
            "tool_call.created" | "tool_call.updated" => {
                if let Ok(c) = serde_json::from_str::<ToolCallItem>(data) {
                    self.put_call(c);
                }
            }
            "run.updated" => {
                if let Ok(run) = serde_json::from_str::<serde_json::Value>(data) {
                    let running = run["status"] == "running";
                    self.working.set(running);
                    if !running {
                        self.draft.set(Draft::default());
                    }
                }
            }
            "conversation.updated" => {
                if let Ok(update) = serde_json::from_str::<serde_json::Value>(data) {
                    if let Some(title) = update["title"].as_str() {
                        self.title.set(title.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live() -> LiveChat {
        LiveChat {
            title: RwSignal::new("New conversation".into()),
            messages: RwSignal::new(Vec::new()),
            calls: RwSignal::new(Vec::new()),
            working: RwSignal::new(true),
            reconnecting: RwSignal::new(false),
            draft: RwSignal::new(Draft::default()),
            queued: RwSignal::new(Vec::new()),
            earlier: RwSignal::new(None),
            notices: LiveNotices::unseen(),
        }
    }

    fn message(id: &str, seq: i64, role: &str, content: &str) -> String {
        serde_json::json!({
            "id": id, "seq": seq, "role": role, "content": content,
            "created_at": "2026-11-23T10:00:00Z"
        })
        .to_string()
    }

    #[test]
    fn a_draft_grows_until_the_stored_reply_replaces_it() {
        Owner::new_root(None).with(a_draft_grows);
    }

    fn a_draft_grows() {
        let live = live();
        live.apply("message.created", &message("m1", 1, "user", "hi"));
        live.apply("message.delta", r#"{"text": "Hel"}"#);
        live.apply("message.delta", r#"{"text": "lo **you**"}"#);
        assert_eq!(live.draft.get_untracked().tail, "Hello **you**");
        // A piece that ends a line brings the reply so far rendered.
        live.apply(
            "message.delta",
            r#"{"text": "!\n- a", "html": "<p>Hello <strong>you</strong>!</p>\n"}"#,
        );
        let draft = live.draft.get_untracked();
        assert_eq!(draft.html, "<p>Hello <strong>you</strong>!</p>\n");
        assert_eq!(draft.tail, "- a");
        live.apply("message.delta", r#"{"text": "nd b"}"#);
        assert_eq!(live.draft.get_untracked().tail, "- and b");
        // Later lines send what follows the part of the rendering they keep.
        live.apply(
            "message.delta",
            r#"{"text": "\n", "html": "<ul>\n<li>and b</li>\n</ul>\n", "keep": 35}"#,
        );
        assert_eq!(
            live.draft.get_untracked().html,
            "<p>Hello <strong>you</strong>!</p>\n<ul>\n<li>and b</li>\n</ul>\n"
        );
        assert_eq!(live.draft.get_untracked().tail, "");
        live.apply(
            "message.created",
            &message("m2", 2, "assistant", "Hello **you**"),
        );
        assert!(live.draft.get_untracked().is_empty());
        let seqs: Vec<i64> = live
            .messages
            .get_untracked()
            .iter()
            .map(|m| m.seq)
            .collect();
        assert_eq!(seqs, [1, 2]);
        // A repeated event changes nothing; a failed run drops a dangling draft.
        live.apply(
            "message.created",
            &message("m2", 2, "assistant", "Hello **you**"),
        );
        assert_eq!(live.messages.get_untracked().len(), 2);
        live.apply("message.delta", r#"{"text": "half a"}"#);
        live.apply("run.updated", r#"{"status": "failed"}"#);
        assert!(live.draft.get_untracked().is_empty());
        assert!(!live.working.get_untracked());
    }

    #[test]
    fn the_chat_says_when_the_model_has_not_begun_to_answer() {
        Owner::new_root(None).with(|| {
            let live = live();
            assert_eq!(live.doing(), "Waiting for the model to answer…");
            live.apply("message.delta", r#"{"text": "Hel"}"#);
            assert_eq!(live.doing(), "Agent is working…");
        });
    }

    #[test]
    fn calls_fill_in_and_one_who_joins_gets_the_whole_draft() {
        Owner::new_root(None).with(|| {
            let live = live();
            live.apply("message.delta", r#"{"text": "old"}"#);
            live.apply(
                "message.draft",
                r#"{"text": "Deleting\nbo", "html": "<p>Deleting</p>\n", "calls": [{"name": "delete_file", "arguments": "{\"pa"}]}"#,
            );
            live.apply("call.delta", r#"{"index": 0, "arguments": "th\": \"a\"}"}"#);
            live.apply("call.delta", r#"{"index": 1, "name": "write_file", "arguments": ""}"#);
            let draft = live.draft.get_untracked();
            assert_eq!(draft.html, "<p>Deleting</p>\n");
            assert_eq!(draft.tail, "bo", "the whole replaced what was there");
            assert_eq!(draft.calls[0].arguments, r#"{"path": "a"}"#);
            assert_eq!(draft.calls[1].name, "write_file");
            // The stored reply takes the draft's place, calls and all.
            live.apply("message.created", &message("m2", 2, "assistant", "Deleting both"));
            assert!(live.draft.get_untracked().is_empty());
        });
    }

    #[test]
    fn a_rename_from_the_stream_names_the_chat() {
        Owner::new_root(None).with(|| {
            let live = live();
            live.apply("conversation.updated", r#"{"title": "list files"}"#);
            assert_eq!(live.title.get_untracked(), "list files");
            // Something else under that name leaves the title alone.
            live.apply("conversation.updated", r#"{"name": "x"}"#);
            live.apply("conversation.updated", "not json");
            assert_eq!(live.title.get_untracked(), "list files");
        });
    }
}
