//! "Always allow" grants as people manage them: made by an always-allow
//! decision, listed with where they apply, and revoked, after which their
//! tool asks again.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::core::Core;
use crate::domain::{Actor, Channel, ConversationId, GrantId, PersonId, ToolCall};
use crate::domain::{Grant, GrantArgumentChoice, GrantArguments, GrantEntry, GrantScope};
use crate::error::EngineError;
use crate::store::GrantAudit;

/// What an "always allow" decision asks to grant, and who decided it.
pub(crate) struct NewGrant {
    /// Every conversation, or only the call's.
    pub(crate) everywhere: bool,
    /// How long it lasts; `None` until it is revoked.
    pub(crate) lasts: Option<chrono::Duration>,
    /// Which of the tool's calls it covers.
    pub(crate) arguments: GrantArgumentChoice,
    pub(crate) by: String,
    pub(crate) by_id: Option<PersonId>,
    /// Where the person said so.
    pub(crate) channel: Channel,
    pub(crate) at: DateTime<Utc>,
}

/// Refuses a grant that would last no time at all.
pub(crate) fn check_length(lasts: Option<chrono::Duration>) -> Result<(), EngineError> {
    if lasts.is_some_and(|span| span <= chrono::Duration::zero()) {
        return Err(EngineError::Invalid {
            field: "lasts",
            message: "a grant lasts longer than no time at all".into(),
        });
    }
    Ok(())
}

/// The rule `choice` makes of a call's arguments: a folder needs a path to
/// be taken from.
pub(crate) fn rule_for(
    choice: GrantArgumentChoice,
    arguments: &serde_json::Value,
) -> Result<GrantArguments, EngineError> {
    GrantArguments::chosen(choice, arguments).ok_or_else(|| {
        EngineError::invalid("arguments", "this call has no path to allow the folder of")
    })
}

/// Stores the grant an "always allow" of `call` made, and says so to the
/// grants' lists.
pub(crate) async fn allow(core: &Core, call: &ToolCall, new: NewGrant) -> Result<(), EngineError> {
    let grant = Grant {
        id: GrantId::new(),
        source: call.source.clone(),
        tool: call.tool.clone(),
        arguments: rule_for(new.arguments, &call.arguments)?,
        scope: if new.everywhere {
            GrantScope::Global
        } else {
            GrantScope::Conversation(call.conversation_id.clone())
        },
        created_by: new.by,
        created_by_id: new.by_id,
        created_at: new.at,
        expires_at: new.lasts.map(|span| new.at + span),
        revoked_at: None,
        revoked_by: None,
    };
    let audit = GrantAudit {
        actor: &grant.created_by,
        channel: new.channel.as_str(),
        call: Some(&call.id),
    };
    core.grants().insert_grant(&grant, audit).await?;
    grants_changed(core).await;
    Ok(())
}

pub(crate) async fn grants(core: &Core) -> Result<Vec<Grant>, EngineError> {
    Ok(core.grants().grants().await?)
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
                    let title = core
                        .conversations()
                        .conversation(id)
                        .await?
                        .map(|c| c.title);
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
    let audit = GrantAudit {
        actor: by
            .as_ref()
            .map_or(core.config.local_person.as_str(), |p| &p.name),
        channel: "allowed_page",
        call: None,
    };
    let revoked = core
        .grants()
        .revoke_grant(id, core.clock.now(), by.as_ref(), audit)
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
    if let Err(e) = core.event_log().announce_grants().await {
        tracing::warn!(error = %e, "could not announce a change of grants to other replicas");
    }
}
