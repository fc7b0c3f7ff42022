//! Events: every state change is appended to the store with a
//! per-conversation sequence number (and a global id for the inbox), then
//! published here to live subscribers. Subscribers that fall behind read the
//! missed events back from the store, so nothing is lost.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::domain::{ConversationId, Draft, DraftPiece, Event, EventKind};
use drafts::Drafts;

mod drafts;

/// How many events a slow subscriber may fall behind before it must catch
/// up from the store.
const LIVE_BUFFER: usize = 4096;

/// The live side of events: a broadcast to every subscriber in this process,
/// and a signal that tells streams to end when the server shuts down.
#[derive(Debug, Clone)]
pub struct Events {
    sender: broadcast::Sender<Arc<Event>>,
    drafts: Drafts,
    cases: broadcast::Sender<Arc<str>>,
    /// Marked changed whenever this process grants or revokes an "always
    /// allow"; grants are not events of a conversation.
    grants: Arc<tokio::sync::watch::Sender<()>>,
    closing: Arc<tokio::sync::watch::Sender<bool>>,
    /// How many events have been published; sending and counting happen
    /// under this lock so the count matches every receiver's queue.
    published: Arc<std::sync::Mutex<u64>>,
    /// Signalled when this process has stored events, which on a shared
    /// database still wait for their places in the feed.
    stored: Arc<tokio::sync::Notify>,
}

impl Default for Events {
    fn default() -> Self {
        Self::new()
    }
}

impl Events {
    /// A hub with no subscribers.
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(LIVE_BUFFER);
        let (cases, _) = broadcast::channel(LIVE_BUFFER);
        let (closing, _) = tokio::sync::watch::channel(false);
        let (grants, _) = tokio::sync::watch::channel(());
        Self {
            sender,
            drafts: Drafts::new(),
            cases,
            grants: Arc::new(grants),
            closing: Arc::new(closing),
            published: Arc::default(),
            stored: Arc::default(),
        }
    }

    fn published(&self) -> std::sync::MutexGuard<'_, u64> {
        // The count is a plain number: a panic elsewhere cannot leave it torn.
        self.published
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells every stream to end, for a graceful shutdown.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Turns true when the server is shutting down.
    pub fn closing(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Sends stored events to live subscribers. Call only after the
    /// transaction that stored them has committed.
    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        self.publish_placed(events);
        self.stored.notify_one();
    }

    /// Signalled after [`publish`](Self::publish): the events may still need
    /// their places in a shared feed.
    pub fn stored(&self) -> Arc<tokio::sync::Notify> {
        self.stored.clone()
    }

    /// Sends events that already have their places in the feed: what other
    /// processes stored, and this process's inbox events once numbered.
    pub fn publish_placed(&self, events: impl IntoIterator<Item = Event>) {
        for event in events {
            // A decided call may have ended a review case: its streams look.
            if event.kind == EventKind::ToolCallUpdated && self.cases.receiver_count() > 0 {
                if let Some(id) = event.data.get("id").and_then(|v| v.as_str()) {
                    let _ = self.cases.send(Arc::from(id));
                }
            }
            let mut published = self.published();
            *published += 1;
            // No subscribers is not an error: the event is in the store.
            let _ = self.sender.send(Arc::new(event));
        }
    }

    /// Tells review case streams that the case (or call) `id` changed; they
    /// read what changed from the store.
    pub fn case_changed(&self, id: &str) {
        let _ = self.cases.send(Arc::from(id));
    }

    /// Tells the streams of the grants list that a grant was made or revoked.
    pub fn grants_changed(&self) {
        self.grants.send_replace(());
    }

    /// Changes whenever [`grants_changed`](Self::grants_changed) is called.
    pub fn subscribe_grants(&self) -> tokio::sync::watch::Receiver<()> {
        self.grants.subscribe()
    }

    /// A receiver of the ids of review cases, and of calls, that changed.
    pub fn subscribe_cases(&self) -> broadcast::Receiver<Arc<str>> {
        self.cases.subscribe()
    }

    /// Sends a piece of a reply being written to live subscribers.
    pub fn draft(&self, conversation_id: &ConversationId, piece: DraftPiece) {
        if let DraftPiece::Text { text, .. } = &piece {
            if text.is_empty() {
                return;
            }
        }
        let after = *self.published();
        self.drafts.send(conversation_id, piece, after);
    }

    /// Forgets the reply being written in the conversation: it is stored,
    /// or was given up.
    pub fn draft_ended(&self, conversation_id: &ConversationId) {
        self.drafts.end(conversation_id);
    }

    /// A receiver of draft pieces sent from now on.
    pub fn subscribe_drafts(&self) -> broadcast::Receiver<Arc<Draft>> {
        self.drafts.subscribe(None, 0).1
    }

    /// Like [`subscribe_drafts`](Self::subscribe_drafts), with the whole of
    /// the reply being written in `conversation_id` so far, if one is.
    pub fn join_drafts(
        &self,
        conversation_id: &ConversationId,
    ) -> (Option<Draft>, broadcast::Receiver<Arc<Draft>>) {
        let after = *self.published();
        self.drafts.subscribe(Some(conversation_id), after)
    }

    /// A receiver of events published from now on. Subscribe before reading
    /// the snapshot so nothing falls between the two.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }

    /// Like [`subscribe`](Self::subscribe), with how many events were
    /// published before it: add one per event received (and the count a lag
    /// reports) to know which drafts ([`Draft::after`]) are due.
    pub fn subscribe_counted(&self) -> (u64, broadcast::Receiver<Arc<Event>>) {
        let published = self.published();
        (*published, self.sender.subscribe())
    }
}

#[cfg(test)]
mod tests {
    use crate::domain::CallDraft;
    use chrono::Utc;
    use serde_json::Value;

    use super::*;

    fn text(text: &str, html: Option<&str>) -> DraftPiece {
        DraftPiece::Text {
            text: text.into(),
            html: html.map(str::to_owned),
        }
    }

    #[tokio::test]
    async fn drafts_reach_subscribers_and_empty_pieces_are_skipped() {
        let events = Events::new();
        let mut drafts = events.subscribe_drafts();
        let c = ConversationId::new();
        events.draft(&c, text("", None));
        events.draft(&c, text("Hel", None));
        events.draft(&c, text("lo\n", Some("<p>Hello</p>\n")));
        let first = drafts.recv().await.unwrap();
        assert_eq!(
            (&first.conversation_id, &first.piece),
            (&c, &text("Hel", None))
        );
        let second = drafts.recv().await.unwrap();
        assert_eq!(second.piece, text("lo\n", Some("<p>Hello</p>\n")));
    }

    #[tokio::test]
    async fn a_subscriber_joining_mid_reply_gets_the_whole_of_it_then_the_rest() {
        let events = Events::new();
        let c = ConversationId::new();
        events.draft(&c, text("Deleting\n", Some("<p>Deleting</p>\n")));
        events.draft(&c, text("both", None));
        let call = |name: Option<&str>, arguments: &str| DraftPiece::Call {
            index: 0,
            name: name.map(str::to_owned),
            arguments: arguments.into(),
        };
        events.draft(&c, call(Some("delete_file"), "{\"pa"));
        let (whole, mut rest) = events.join_drafts(&c);
        events.draft(&c, call(None, "th\": \"a\"}"));
        assert_eq!(
            whole.unwrap().piece,
            DraftPiece::Whole {
                text: "Deleting\nboth".into(),
                html: "<p>Deleting</p>\n".into(),
                calls: vec![CallDraft {
                    name: "delete_file".into(),
                    arguments: "{\"pa".into()
                }],
            }
        );
        assert_eq!(rest.recv().await.unwrap().piece, call(None, "th\": \"a\"}"));
        // Once the reply is stored, nobody joins it any more.
        events.draft_ended(&c);
        assert!(events.join_drafts(&c).0.is_none());
        assert!(events.join_drafts(&ConversationId::new()).0.is_none());
    }

    #[tokio::test]
    async fn a_draft_knows_how_many_events_came_before_it() {
        let events = Events::new();
        let c = ConversationId::new();
        let event = |seq| Event {
            id: seq,
            conversation_id: c.clone(),
            seq,
            inbox_seq: None,
            kind: EventKind::MessageCreated,
            data: Value::Null,
            created_at: Utc::now(),
        };
        events.publish([event(1)]);
        let (heard, mut live) = events.subscribe_counted();
        let mut drafts = events.subscribe_drafts();
        assert_eq!(heard, 1, "one event before subscribing");
        events.publish([event(2), event(3)]);
        events.draft(&c, text("after three", None));
        assert_eq!(drafts.recv().await.unwrap().after, 3);
        assert_eq!(live.recv().await.unwrap().seq, 2);
    }
}
