//! The façade's methods for notices (see `reviews/notices.rs`): delivering
//! a channel at a time from a worker of its own (or, in tests, all at once).

use crate::domain::Notice;
use crate::error::EngineError;
use crate::reviews::notices::{self, NoticeSender};
use crate::Engine;

impl Engine {
    /// Delivers every notice of a waiting call that is due, the channels
    /// at once; returns how many were delivered. The server's worker
    /// delivers a channel at a time instead, so tests do whole passes.
    #[cfg(test)]
    pub(crate) async fn deliver_notices(
        &self,
        sender: NoticeSender<'_>,
    ) -> Result<usize, EngineError> {
        notices::deliver_notices(&self.core, sender).await
    }

    /// The notices due now, for a worker that delivers each channel on a
    /// task of its own ([`Engine::deliver_in_order`]).
    pub async fn due_notices(&self) -> Result<Vec<Notice>, EngineError> {
        notices::due_notices(&self.core).await
    }

    /// Delivers one channel's notices, one after another; how many were
    /// delivered.
    pub async fn deliver_in_order(
        &self,
        sender: NoticeSender<'_>,
        notices: Vec<Notice>,
    ) -> Result<usize, EngineError> {
        notices::deliver_in_order(&self.core, sender, notices).await
    }
}
