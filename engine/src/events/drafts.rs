//! Replies being written: each piece goes to live subscribers as it comes,
//! and is added to what the conversation's reply holds so far, so that a
//! subscriber who joins mid-reply (a reload, a reconnect) first gets the
//! whole of it. The two happen under one lock, so such a subscriber misses
//! no piece and gets none twice.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;

use crate::domain::{CallDraft, ConversationId, Draft, DraftPiece};

/// How many draft pieces a slow subscriber may fall behind; older ones are
/// dropped for it (the stored message follows anyway).
const DRAFT_BUFFER: usize = 1024;

/// A reply as written so far.
#[derive(Debug, Default)]
struct Written {
    text: String,
    html: String,
    calls: Vec<CallDraft>,
}

/// Replies being written, and their pieces' channel.
#[derive(Debug, Clone)]
pub(super) struct Drafts {
    sender: broadcast::Sender<Arc<Draft>>,
    writing: Arc<Mutex<HashMap<ConversationId, Written>>>,
}

/// Calls a reply may have in the making; a piece for a higher index is a
/// model's nonsense and is not kept.
const MAX_CALLS: usize = 1_000;

impl Drafts {
    pub(super) fn new() -> Self {
        let (sender, _) = broadcast::channel(DRAFT_BUFFER);
        Self {
            sender,
            writing: Arc::default(),
        }
    }

    fn writing(&self) -> MutexGuard<'_, HashMap<ConversationId, Written>> {
        self.writing.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `piece` to the conversation's reply and sends it on.
    pub(super) fn send(&self, conversation_id: &ConversationId, piece: DraftPiece, after: u64) {
        let mut writing = self.writing();
        let so_far = writing.entry(conversation_id.clone()).or_default();
        match &piece {
            DraftPiece::Text { text, html } => {
                so_far.text.push_str(text);
                if let Some(html) = html {
                    so_far.html.clone_from(html);
                }
            }
            DraftPiece::Call {
                index,
                name,
                arguments,
            } if *index < MAX_CALLS => {
                if so_far.calls.len() <= *index {
                    so_far.calls.resize_with(index + 1, CallDraft::default);
                }
                let call = &mut so_far.calls[*index];
                call.name.push_str(name.as_deref().unwrap_or_default());
                call.arguments.push_str(arguments);
            }
            DraftPiece::Call { .. } | DraftPiece::Whole { .. } => return,
        }
        let _ = self.sender.send(Arc::new(Draft {
            conversation_id: conversation_id.clone(),
            piece,
            after,
        }));
    }

    /// Forgets the conversation's reply: it is stored, or given up.
    pub(super) fn end(&self, conversation_id: &ConversationId) {
        self.writing().remove(conversation_id);
    }

    /// A receiver of pieces sent from now on, and for `joining`, the
    /// whole of the reply it is writing, if it is writing one.
    pub(super) fn subscribe(
        &self,
        joining: Option<&ConversationId>,
        after: u64,
    ) -> (Option<Draft>, broadcast::Receiver<Arc<Draft>>) {
        let writing = self.writing();
        let whole = joining.and_then(|id| {
            writing.get(id).map(|so_far| Draft {
                conversation_id: id.clone(),
                piece: DraftPiece::Whole {
                    text: so_far.text.clone(),
                    html: so_far.html.clone(),
                    calls: so_far.calls.clone(),
                },
                after,
            })
        });
        (whole, self.sender.subscribe())
    }
}
