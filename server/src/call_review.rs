//! `POST /calls/{call_id}/review`: the review page of a waiting question,
//! opened from its card in the chat or the inbox. A fresh link is made for
//! the person looking (only one who may decide the call gets one) and the
//! browser is sent to it (303), with or without JavaScript.

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Redirect, Response};

use app::error::AppError;
use app::state::AppState;
use engine::domain::{Action, ToolCallId};

use crate::review_page::actor;

/// Makes a link to the call's review page and opens it.
pub async fn open(
    State(state): State<AppState>,
    Path(call_id): Path<String>,
    request: Request,
) -> Response {
    let (parts, _) = request.into_parts();
    let by = actor(&state, &parts);
    let allowed = match &by {
        Some(actor) => actor.access.may(Action::Decide),
        // Nobody signs in (no `auth:` block): the local person decides.
        None => state.engine.config().auth.is_none(),
    };
    if !allowed {
        return refused(AppError::NotAllowed);
    }
    let Ok(id) = ToolCallId::parse(&call_id) else {
        return refused(AppError::NotFound {
            what: "tool call".into(),
        });
    };
    match state.engine.review_link(&id, by.as_ref()).await {
        Ok((case, token)) => {
            Redirect::to(&format!("/review/{case}?token={}", token.as_str())).into_response()
        }
        Err(e) => refused(e.into()),
    }
}

use crate::fn_errors::refused;
