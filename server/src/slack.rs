//! `POST /slack/interactions`: where Slack sends a press of Approve or
//! Reject on a notice's message, and Reject's reason, when the Slack app is
//! set up. The body
//! goes to the engine byte for byte, as Slack's signature covers it: an
//! unsigned or stale request is refused (401) and changes nothing.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use engine::reviews::slack_app::{SlackApp, SlackRefusal, SlackRequest};
use engine::Engine;
use http::{HeaderMap, StatusCode};

use crate::streams::refused;

/// Where Slack's app posts presses (its "Request URL").
pub const INTERACTIONS: &str = "/slack/interactions";

#[derive(Clone)]
struct Slack {
    app: Arc<SlackApp>,
    engine: Engine,
}

/// The route, when the app is set up; none otherwise, so the path is 404.
pub fn routes<S: Clone + Send + Sync + 'static>(
    app: Option<Arc<SlackApp>>,
    engine: Engine,
) -> Router<S> {
    match app {
        Some(app) => Router::new()
            .route(INTERACTIONS, post(interaction))
            .with_state(Slack { app, engine }),
        None => Router::new(),
    }
}

async fn interaction(State(slack): State<Slack>, headers: HeaderMap, body: Bytes) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let request = SlackRequest {
        timestamp: header("x-slack-request-timestamp"),
        signature: header("x-slack-signature"),
        body: &body,
    };
    match slack.engine.slack_interaction(&slack.app, request).await {
        // Slack shows an error to the presser unless it hears 200. What
        // happened goes back through the press's `response_url`, but a
        // reason that decided nothing is shown in its dialog.
        Ok(pressed) => match pressed.reply() {
            Some(body) => Json(body).into_response(),
            None => StatusCode::OK.into_response(),
        },
        Err(SlackRefusal::Unsigned(e)) => {
            refused(StatusCode::UNAUTHORIZED, "slack_signature", e.to_string())
        }
        Err(SlackRefusal::Malformed(e)) => {
            refused(StatusCode::BAD_REQUEST, "slack_payload", e.to_string())
        }
    }
}
