//! `GET /metrics`: Airlock's metrics in Prometheus' text format, and the
//! middleware that counts every routed request for them.
//!
//! Without sign-in Airlock listens on loopback only, and anyone there may
//! read them. With sign-in on they are an operator's: a scraper sends the
//! token of `AIRLOCK_METRICS_TOKEN`, or a personal API token of an
//! administrator or a viewer.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use http::{header, HeaderMap, StatusCode};
use subtle::ConstantTimeEq;
use tracing::Instrument;

use app::state::{AppState, SignedInPerson};
use engine::domain::Action;
use engine::metrics::{Metrics, CONTENT_TYPE};

use crate::settings::Secret;
use crate::streams::refused;

/// The metrics, for whoever may read them.
pub async fn serve(
    state: AppState,
    person: Option<Extension<SignedInPerson>>,
    headers: HeaderMap,
    token: Option<Secret>,
) -> Response {
    let open = state.engine.config().auth.is_none();
    let by_token = token.is_some_and(|token| {
        let sent = bearer(&headers).unwrap_or_default();
        bool::from(sent.as_bytes().ct_eq(token.0.as_bytes()))
    });
    let person = person.map(|Extension(signed_in)| signed_in.person);
    let by_person = person
        .as_ref()
        .is_some_and(|p| p.access.may(Action::ReadAudit));
    if !(open || by_token || by_person) {
        return match person {
            Some(_) => refused(
                StatusCode::FORBIDDEN,
                "not_allowed",
                "your access does not include the metrics: administrators and viewers read them",
            ),
            None => {
                let mut answer = refused(
                    StatusCode::UNAUTHORIZED,
                    "unauthenticated",
                    "send Authorization: Bearer with the token of AIRLOCK_METRICS_TOKEN, or a personal API token of an administrator or viewer",
                );
                let challenge = http::HeaderValue::from_static("Bearer");
                answer
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, challenge);
                answer
            }
        };
    }
    match state.engine.metrics_text().await {
        Ok(text) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot read what waits for the metrics");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "the store cannot be read now; try again",
            )
        }
    }
}

/// Middleware: counts the request by its route (the matched path, never
/// the raw one, so ids do not make a series each) and its time to headers.
/// Parameters read `:name`, as most dashboards and parsers expect, rather
/// than the router's `{name}`.
pub async fn count_requests(
    State(metrics): State<Metrics>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let template = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let route = template
        .as_deref()
        .map(|path| path.replace('{', ":").replace('}', ""));
    let method = request.method().clone();
    // At debug level: only a collector (AIRLOCK_OTLP_ENDPOINT) asks for it.
    // Named and attributed as OpenTelemetry's HTTP server conventions say.
    let template = template.unwrap_or_default();
    let span = tracing::debug_span!(
        "request",
        otel.kind = "server",
        otel.name = %format!("{method} {template}").trim_end(),
        http.request.method = %method,
        http.route = template.as_str(),
        http.response.status_code = tracing::field::Empty,
    );
    let response = next.run(request).instrument(span.clone()).await;
    span.record("http.response.status_code", response.status().as_u16());
    if let Some(route) = route {
        let took = started.elapsed().as_secs_f64();
        metrics.request(&route, method.as_str(), response.status().as_u16(), took);
    }
    response
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    Some(value.strip_prefix("Bearer ")?.trim())
}
