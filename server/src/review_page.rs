//! `GET /review/{case_id}?token=…`: the page a review link opens. It checks
//! the token, marks the case opened and renders the case in one pass (see
//! `app/src/render.rs`): the page reviewers open for every case, so it
//! skips the routed pages' machinery.

use std::collections::HashMap;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::response::Response;
use leptos::prelude::*;

use app::error::AppError;
use app::state::{AppState, SignedInPerson};
use app::ui::pages::review::ReviewPage;
use app::ui::review::ReviewAccess;
use app::wire::{AnswerDraft, ReviewItem};

/// Opens the case the link names, and renders it, or why it did not open.
pub async fn review_page(
    State(state): State<AppState>,
    Path(case_id): Path<String>,
    // An unreadable query is a link without its token: refused on the page.
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
    request: Request,
) -> Response {
    let token = query
        .ok()
        .and_then(|Query(mut query)| query.remove("token"))
        .unwrap_or_default();
    let access = ReviewAccess { case_id, token };
    let (parts, _) = request.into_parts();
    // A form in steps opens where it was left, with what was entered.
    let (opened, draft) = match open(&state, &parts, &access).await {
        Ok((item, kept)) => (Ok(item), kept),
        Err(e) => (Err(e), None),
    };
    app::render::page(
        state,
        parts,
        move || view! { <ReviewPage opened access draft/> },
    )
    .await
}

/// The case as its page shows it, marked opened, and what was kept of its
/// form in steps.
pub(crate) async fn open(
    state: &AppState,
    parts: &http::request::Parts,
    access: &ReviewAccess,
) -> Result<(ReviewItem, Option<AnswerDraft>), AppError> {
    let id = app::server_fns::reviews::case_id(&access.case_id)?;
    let by = actor(state, parts);
    let mut view = state
        .engine
        .open_review(&id, &access.token, by.as_ref())
        .await?;
    let kept = view.draft.take().map(AnswerDraft::kept);
    Ok((ReviewItem::from_view(view), kept))
}

/// The person signed in, as the engine knows them; `None` for a link's holder.
pub(crate) fn actor(
    state: &AppState,
    parts: &http::request::Parts,
) -> Option<engine::domain::Actor> {
    parts
        .extensions
        .get::<SignedInPerson>()
        .map(|signed_in| state.engine.config().actor_of(signed_in.person.clone()))
}
