//! The people's HTTP API over tool calls: what waits, one call, and
//! deciding it, as the person of a personal API token (or of the browser's
//! session). `airlock pending`, `show`, `approve`, `reject` and `answer`
//! use it.
//! Decisions taken here are ordinary decisions, on channel `cli`.

pub mod answer;
pub mod approve;
mod body;
pub mod pending;
pub mod reject;
pub mod show;

use axum::response::Response;
use http::request::Parts;

use app::error::AppError;
use app::state::{AppState, SignedInPerson};
use engine::domain::{Action, Channel, Reviewer, ToolCallId};

pub use body::{ApprovalBody, CallBody, CallerBody, DecisionBody, PendingPage, ShadowBody};

/// The person deciding through the API: the one the request signed in as,
/// once their access lets them decide; without sign-in (no `auth:` block),
/// the one local person.
fn reviewer(state: &AppState, parts: &Parts) -> Result<Reviewer, AppError> {
    let config = state.engine.config();
    match parts.extensions.get::<SignedInPerson>() {
        Some(signed_in) if signed_in.person.access.may(Action::Decide) => Ok(Reviewer::person(
            config.actor_of(signed_in.person.clone()),
            Channel::Cli,
        )),
        Some(_) => Err(AppError::NotAllowed),
        None if config.auth.is_none() => {
            Ok(Reviewer::named(config.local_person.as_str(), Channel::Cli))
        }
        None => Err(AppError::Unauthenticated),
    }
}

/// The call id in a path, or `not_found`: no call has an id that is not one.
fn call_id(text: &str) -> Result<ToolCallId, AppError> {
    ToolCallId::parse(text).map_err(|_| AppError::NotFound {
        what: "tool call".into(),
    })
}

use crate::fn_errors::refused;

/// A JSON body that could not be read: 400 `invalid`, naming the body.
fn unreadable(why: impl std::fmt::Display) -> Response {
    refused(AppError::Invalid {
        field: "body".into(),
        message: format!("the body is not the JSON asked for: {why}"),
    })
}
