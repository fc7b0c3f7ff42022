//! `POST /review/{case_id}`: a typed question's answer form, posted as a
//! plain HTML form (it works without JavaScript), taken by the engine
//! (`Engine::answer_on_page`). Settled, the link is shown again (303);
//! otherwise the form is drawn again with what was entered and each problem
//! beside its field (422), or at the step a form in steps moved to (200).

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Redirect, Response};
use http::StatusCode;
use leptos::prelude::*;

use app::state::AppState;
use app::ui::pages::review::ReviewPage;
use app::ui::review::ReviewAccess;
use app::wire::AnswerDraft;
use engine::domain::CaseId;
use engine::reviews::AnswerPage;

use crate::review_page::{actor, open};

/// Largest answer form read, in bytes.
const MAX_FORM_BYTES: usize = 256 * 1024;

/// Takes a posted answer, a step of a form, or a withdrawal.
pub async fn answer(
    State(state): State<AppState>,
    Path(case_id): Path<String>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "the answer is too large").into_response();
    };
    let posted: Vec<(String, String)> = form_urlencoded::parse(&bytes).into_owned().collect();
    let token = posted
        .iter()
        .find(|(name, _)| name == "token")
        .map(|(_, token)| token.clone())
        .unwrap_or_default();
    let access = ReviewAccess { case_id, token };
    let by = actor(&state, &parts);
    // A malformed id is a wrong link: the link's page says so.
    let page = match CaseId::parse(&access.case_id) {
        Ok(id) => {
            let engine = &state.engine;
            engine
                .answer_on_page(&id, &access.token, &posted, by.as_ref())
                .await
        }
        Err(_) => AnswerPage::Settled,
    };
    let AnswerPage::Again {
        values,
        problems,
        step,
    } = page
    else {
        let token: String = form_urlencoded::byte_serialize(access.token.as_bytes()).collect();
        return Redirect::to(&format!("/review/{}?token={token}", access.case_id)).into_response();
    };
    let status = match problems.is_empty() {
        true => StatusCode::OK,
        false => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let problems = problems.into_iter().map(|p| (p.field, p.message)).collect();
    let draft = Some(AnswerDraft {
        values,
        problems,
        step,
    });
    let opened = open(&state, &parts, &access).await.map(|(item, _)| item);
    let mut response = app::render::page(state, parts, move || {
        view! { <ReviewPage opened access draft/> }
    })
    .await;
    if response.status().is_success() {
        *response.status_mut() = status;
    }
    response
}
