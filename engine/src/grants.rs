//! "Always allow" grants as people manage them: every grant with where it
//! applies, and revoking one, after which its tool asks again.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::core::Core;
use crate::domain::{Actor, ConversationId, GrantId};
use crate::domain::{Grant, GrantEntry, GrantScope};
use crate::error::EngineError;

pub(crate) async fn grants(core: &Core) -> Result<Vec<Grant>, EngineError> {
    Ok(core.store.grants().await?)
}

pub(crate) async fn grant_entries(core: &Core) -> Result<Vec<GrantEntry>, EngineError> {
    let grants = grants(core).await?;
    // People grant a handful of tools: one read per conversation is cheap.
    let mut titles: HashMap<ConversationId, Option<String>> = HashMap::new();
    let mut entries = Vec::with_capacity(grants.len());
    for grant in grants {
        let conversation_title = match &grant.scope {
            GrantScope::Global => None,
            GrantScope::Conversation(id) => match titles.get(id) {
                Some(title) => title.clone(),
                None => {
                    let title = core.store.conversation(id).await?.map(|c| c.title);
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

pub(crate) async fn revoke_grant(
    core: &Core,
    id: &GrantId,
    by: Option<&Actor>,
) -> Result<DateTime<Utc>, EngineError> {
    let by = by.map(Actor::byline);
    let revoked = core
        .store
        .revoke_grant(id, core.clock.now(), by.as_ref())
        .await?
        .ok_or(EngineError::NotFound("grant"))?;
    grants_changed(core).await;
    Ok(revoked)
}

/// Tells the grants list's streams here, and through the database those
/// of other replicas, that a grant was made or revoked. The grant is
/// stored by then: an announcement that fails is only logged, and other
/// replicas' pages catch up on their next periodic read.
pub(crate) async fn grants_changed(core: &Core) {
    core.events.grants_changed();
    if let Err(e) = core.store.announce_grants().await {
        tracing::warn!(error = %e, "could not announce a change of grants to other replicas");
    }
}
