//! Who talks to Airlock's agent over A2A: a person's API token (or a
//! browser's session), or a gateway key that names its person. Whoever it
//! is writes as that person and decides as them, so approver groups,
//! separation of duties and the audit see the person, never the key.

use http::request::Parts;

use app::state::SignedInPerson;
use engine::domain::{Action, Actor, Channel, Reviewer};
use engine::Engine;

use super::rpc::Refusal;
use crate::hitl::auth::bearer;

/// The person behind a request.
#[derive(Debug, Clone)]
pub struct Principal {
    /// Who writes; `None` when nobody signs in (no `auth:` block).
    pub author: Option<Actor>,
    /// Who decides, recorded on the A2A channel.
    pub reviewer: Reviewer,
}

/// The request's person, once they may talk to the agent. Without an
/// `auth:` block the one local person talks, unless the request presents
/// a key that is not one.
pub async fn principal(engine: &Engine, parts: &Parts) -> Result<Principal, Refusal> {
    let config = engine.config();
    if let Some(signed_in) = parts.extensions.get::<SignedInPerson>() {
        return person(config.actor_of(signed_in.person.clone()));
    }
    let presented = bearer(&parts.headers);
    let client = presented.and_then(|key| config.gateway.client_for(key));
    if config.auth.is_none() {
        return match (presented, client) {
            (Some(_), None) => Err(Refusal::Unauthenticated),
            _ => Ok(Principal {
                author: None,
                reviewer: Reviewer::named(config.local_person.as_str(), Channel::A2a),
            }),
        };
    }
    let client = client.ok_or(Refusal::Unauthenticated)?;
    let Some(name) = config.gateway.person_of(client) else {
        return Err(Refusal::Forbidden(format!(
            "the key `{client}` names no person: Airlock's agent writes and decides as one (`person:` in gateway.api_keys)"
        )));
    };
    let found = engine.key_holder(client).await.map_err(Refusal::Engine)?;
    let found = found.filter(|p| p.disabled_at.is_none());
    let found = found.ok_or_else(|| {
        Refusal::Forbidden(format!(
            "the key `{client}` names `{name}`, who has not signed in yet or is disabled"
        ))
    })?;
    person(config.actor_of(found))
}

fn person(actor: Actor) -> Result<Principal, Refusal> {
    if !actor.access.may(Action::Converse) {
        return Err(Refusal::Forbidden(format!(
            "{} may not talk to the agent",
            actor.display_name
        )));
    }
    Ok(Principal {
        reviewer: Reviewer::person(actor.clone(), Channel::A2a),
        author: Some(actor),
    })
}
