//! `POST /review/{case_id}`: a typed question's answer form, posted as a
//! plain HTML form (it works without JavaScript). An answer that fits is
//! recorded and the link shown again (303); one that does not is drawn
//! again with what was entered and each problem beside its field (422). A
//! form in steps moves with Back and Next, each step checked before the
//! next, everything entered carried along and kept with the case (but a
//! sensitive field's value), so the page can be closed and taken up again.

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Redirect, Response};
use http::StatusCode;
use leptos::prelude::*;
use serde_json::Value;

use app::state::AppState;
use app::ui::pages::review::ReviewPage;
use app::ui::review::ReviewAccess;
use app::wire::AnswerDraft;
use engine::domain::form::check::input_name;
use engine::domain::{Actor, CaseId, Channel, FieldProblem, ReviewShape};
use engine::reviews::Submission;
use engine::EngineError;

use crate::review_page::{actor, open};

/// Largest answer form read, in bytes.
const MAX_FORM_BYTES: usize = 256 * 1024;

/// What a post comes to: the link shown again, or the form drawn again.
enum Settled {
    Done,
    Again {
        draft: AnswerDraft,
        status: StatusCode,
    },
}

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
    let token = first(&posted, "token").unwrap_or_default();
    let access = ReviewAccess { case_id, token };
    let by = actor(&state, &parts);
    match settle(&state, &access, &posted, by.as_ref()).await {
        Settled::Done => {
            let token: String = form_urlencoded::byte_serialize(access.token.as_bytes()).collect();
            Redirect::to(&format!("/review/{}?token={token}", access.case_id)).into_response()
        }
        Settled::Again { draft, status } => {
            let opened = open(&state, &parts, &access).await.map(|(item, _)| item);
            let draft = Some(draft);
            let mut response = app::render::page(state, parts, move || {
                view! { <ReviewPage opened access draft/> }
            })
            .await;
            if response.status().is_success() {
                *response.status_mut() = status;
            }
            response
        }
    }
}

fn first(posted: &[(String, String)], name: &str) -> Option<String> {
    posted
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

fn said(posted: &[(String, String)], name: &str) -> Option<String> {
    first(posted, name).filter(|v| !v.trim().is_empty())
}

async fn settle(
    state: &AppState,
    access: &ReviewAccess,
    posted: &[(String, String)],
    by: Option<&Actor>,
) -> Settled {
    // A wrong link, a case over or not a typed question: the link's page says which.
    let Ok(id) = CaseId::parse(&access.case_id) else {
        return Settled::Done;
    };
    let engine = &state.engine;
    let token = &access.token;
    let name = said(posted, "name");
    if first(posted, "withdraw").is_some() {
        let reason = said(posted, "withdraw_reason");
        let channel = Channel::ReviewPage;
        let withdrawn = engine.cancel_review(&id, token, reason, name.as_deref(), channel, by);
        return match withdrawn.await {
            Err(EngineError::Invalid { field, message }) => {
                again(posted, vec![(field.into(), message)], 0, None)
            }
            _ => Settled::Done,
        };
    }
    let Ok(view) = engine.review_view(&id, token, by).await else {
        return Settled::Done;
    };
    let Some(Ok(shape)) = ReviewShape::asked_by(&view.call) else {
        return Settled::Done;
    };
    let step: usize = first(posted, "step")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if let (ReviewShape::Input { form }, Some(go)) = (&shape, first(posted, "go")) {
        let last = form.steps.len().saturating_sub(1);
        let step = step.min(last);
        // This step's fields must fit before the next one shows.
        let here = match go.as_str() {
            "back" => Vec::new(),
            _ => problems_of_step(form, posted, step),
        };
        let to = match (go.as_str(), here.is_empty()) {
            ("back", _) => step.saturating_sub(1),
            (_, true) => (step + 1).min(last),
            (_, false) => step,
        };
        // What was entered is kept with the case, for the page to be taken
        // up again later through the same link.
        let kept = engine.save_review_draft(&id, token, posted, to, by).await;
        return match kept {
            Err(EngineError::Expired { .. } | EngineError::AlreadyDecided { .. }) => Settled::Done,
            Err(e) => {
                tracing::warn!(case = %id, error = %e, "cannot keep a form's draft");
                again(posted, pairs(here), to, Some(&shape))
            }
            Ok(_) => again(posted, pairs(here), to, Some(&shape)),
        };
    }
    let submission = Submission {
        action: first(posted, "action").unwrap_or_default(),
        data: shape.read_posted(posted),
        responded_by: name,
    };
    let channel = Channel::ReviewPage;
    match engine
        .respond_review(&id, token, submission, channel, by)
        .await
    {
        Err(EngineError::InvalidFields(problems)) => {
            // The form opens at the first step with a problem.
            let step = match &shape {
                ReviewShape::Input { form } => form
                    .steps
                    .iter()
                    .position(|s| {
                        s.fields.iter().any(|f| {
                            problems
                                .iter()
                                .any(|p| p.field == format!("data.{}", f.key))
                        })
                    })
                    .unwrap_or(step),
                _ => 0,
            };
            again(posted, pairs(problems), step, Some(&shape))
        }
        Err(EngineError::Invalid { field, message }) => {
            again(posted, vec![(field.into(), message)], step, Some(&shape))
        }
        _ => Settled::Done,
    }
}

/// The problems of what was posted for the fields of `step`.
fn problems_of_step(
    form: &engine::domain::Form,
    posted: &[(String, String)],
    step: usize,
) -> Vec<FieldProblem> {
    let data = Value::Object(form.read_posted(posted));
    form.check(&data)
        .err()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            form.steps[step]
                .fields
                .iter()
                .any(|f| p.field == format!("data.{}", f.key))
        })
        .collect()
}

fn pairs(problems: Vec<FieldProblem>) -> Vec<(String, String)> {
    problems.into_iter().map(|p| (p.field, p.message)).collect()
}

/// The form drawn again at `step`: 422 with problems, else 200. The
/// sensitive fields of the step shown are left empty, to be typed again;
/// other steps' values travel along, hidden, to the last one.
fn again(
    posted: &[(String, String)],
    problems: Vec<(String, String)>,
    step: usize,
    shape: Option<&ReviewShape>,
) -> Settled {
    let typed_again: Vec<String> = match shape {
        Some(ReviewShape::Input { form }) => form.steps.get(step).map_or_else(Vec::new, |s| {
            s.fields
                .iter()
                .filter(|f| f.sensitive)
                .map(|f| input_name(&f.key))
                .collect()
        }),
        _ => Vec::new(),
    };
    let values = posted
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "token" | "step" | "go" | "action"))
        .filter(|(n, _)| !typed_again.contains(n))
        .cloned()
        .collect();
    let status = match problems.is_empty() {
        true => StatusCode::OK,
        false => StatusCode::UNPROCESSABLE_ENTITY,
    };
    Settled::Again {
        draft: AnswerDraft {
            values,
            problems,
            step,
        },
        status,
    }
}
