//! "Always allow" grants as people manage them: every grant with where it
//! applies, and revoking one, after which its tool asks again.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::domain::{ConversationId, GrantId};
use crate::domain::{Grant, GrantEntry, GrantScope};
use crate::engine::{Engine, EngineError};

impl Engine {
    /// Every grant, newest first, revoked ones included.
    pub async fn grants(&self) -> Result<Vec<Grant>, EngineError> {
        Ok(self.inner.store.grants().await?)
    }

    /// Every grant, newest first, with its conversation's title.
    pub async fn grant_entries(&self) -> Result<Vec<GrantEntry>, EngineError> {
        let grants = self.grants().await?;
        // People grant a handful of tools: one read per conversation is cheap.
        let mut titles: HashMap<ConversationId, Option<String>> = HashMap::new();
        let mut entries = Vec::with_capacity(grants.len());
        for grant in grants {
            let conversation_title = match &grant.scope {
                GrantScope::Global => None,
                GrantScope::Conversation(id) => match titles.get(id) {
                    Some(title) => title.clone(),
                    None => {
                        let title = self.inner.store.conversation(id).await?.map(|c| c.title);
                        titles.insert(id.clone(), title.clone());
                        title
                    }
                },
            };
            entries.push(GrantEntry {
                grant,
                conversation_title,
            });
        }
        Ok(entries)
    }

    /// Revokes a grant: its tool asks again from the next call on. Returns
    /// when it was revoked. Revoking one already revoked (in another tab,
    /// say) is what the person wants, so it succeeds and keeps the first
    /// time; an unknown grant is `NotFound`.
    pub async fn revoke_grant(&self, id: &GrantId) -> Result<DateTime<Utc>, EngineError> {
        let revoked = self
            .inner
            .store
            .revoke_grant(id, self.inner.clock.now())
            .await?
            .ok_or(EngineError::NotFound("grant"))?;
        self.grants_changed().await;
        Ok(revoked)
    }

    /// Tells the grants list's streams here, and through the database those
    /// of other replicas, that a grant was made or revoked. The grant is
    /// stored by then: an announcement that fails is only logged, and other
    /// replicas' pages catch up on their next periodic read.
    pub(crate) async fn grants_changed(&self) {
        self.inner.events.grants_changed();
        if let Err(e) = self.inner.store.announce_grants().await {
            tracing::warn!(error = %e, "could not announce a change of grants to other replicas");
        }
    }
}
