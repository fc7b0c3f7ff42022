//! With the `auth:` block, every request needs a signed-in person, except
//! what must work before signing in (the sign-in page and its post, the
//! site's files, health) and what carries credentials of its own: the HITL
//! API (API keys), review links (their tokens) and presses in Slack (its
//! signature). A page asked for without
//! a session goes to the sign-in page, which comes back to it; anything else
//! is refused with 401 `unauthenticated`. The person found goes into the
//! request's extensions for the pages and server functions. A change the
//! cookie authenticates must also say which page it came from.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, Method, StatusCode};

use app::error::AppError;
use app::server_fns::people::{SESSION_COOKIE, SIGN_IN_PAGE};
use app::state::{cookie, AppState, SignedInPerson};
use app::ui::common::query::query_value;
use engine::domain::API_TOKEN_PREFIX;

use crate::cross_site;

/// Paths that answer without a session, by prefix.
const OPEN: &[&str] = &[
    "/sign-in",
    "/api/fn/sign_in",
    // The first administrator's one-time link: its token.
    "/setup",
    "/api/fn/set_up",
    // Signing in with the OpenID provider: the flow's own cookie.
    "/auth/oidc/",
    "/pkg/",
    "/favicon.svg",
    // What browsers probe for on their own (see `probes.rs`).
    "/favicon.ico",
    "/robots.txt",
    "/apple-touch-icon",
    "/healthz",
    // Prometheus: its own token, or a person's, checked by the handler.
    "/metrics",
    "/.well-known/",
    "/api/openapi.json",
    // The HITL API, the MCP proxy and the A2A endpoint: API keys.
    "/api/v1/",
    "/mcp",
    "/a2a",
    // Presses in Slack: Slack's signature.
    "/slack/",
    // Review links: the token in the address.
    "/review/",
    "/api/reviews/",
    "/api/fn/touch_review",
    "/api/fn/respond_review",
];

/// Paths under an open prefix that people use, and so need sign-in: the
/// tool sources' state, the audit and deciding calls are no business of an
/// agent's API key.
const GUARDED: &[&str] = &["/api/v1/sources", "/api/v1/audit", "/api/v1/calls"];

/// Middleware: lets a request through with its person, or sends it to sign in.
pub async fn require_sign_in(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if state.engine.config().auth.is_none() {
        return next.run(request).await;
    }
    // A personal API token authenticates on its own, without a cookie, so
    // no other site can make a browser send it.
    if let Some(secret) = personal_token(&request) {
        return match state.engine.person_with_token(&secret).await {
            Ok(Some(person)) => {
                request.extensions_mut().insert(SignedInPerson {
                    person,
                    session: None,
                });
                next.run(request).await
            }
            Ok(None) => unauthenticated(),
            Err(e) => {
                tracing::error!(error = %e, "cannot check an API token");
                internal()
            }
        };
    }
    let token = cookie(request.headers(), SESSION_COOKIE).map(str::to_owned);
    if let Some(token) = token {
        match state.engine.signed_in(&token).await {
            Ok(Some(found)) => {
                if !says_where_it_came_from(&request) {
                    return crate::fn_errors::refused(AppError::CrossSite);
                }
                request.extensions_mut().insert(SignedInPerson {
                    person: found.person,
                    session: Some(found.session.id),
                });
                return next.run(request).await;
            }
            Ok(None) => {}
            Err(e) => {
                tracing::error!(error = %e, "cannot check a session");
                return internal();
            }
        }
    }
    let path = request.uri().path();
    let open = OPEN.iter().any(|open| path.starts_with(open));
    if open && !GUARDED.iter().any(|guarded| path.starts_with(guarded)) {
        return next.run(request).await;
    }
    let is_page =
        matches!(*request.method(), Method::GET | Method::HEAD) && !path.starts_with("/api/");
    if is_page {
        let wanted = request.uri().path_and_query().map_or("/", |p| p.as_str());
        let location = format!("{SIGN_IN_PAGE}?next={}", query_value(wanted));
        return (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response();
    }
    unauthenticated()
}

/// The personal API token a request carries as `Authorization: Bearer`
/// (a gateway key there is the HITL API's business, not this one's).
fn personal_token(request: &Request) -> Option<String> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let secret = value.strip_prefix("Bearer ")?.trim();
    secret
        .starts_with(API_TOKEN_PREFIX)
        .then(|| secret.to_owned())
}

fn unauthenticated() -> Response {
    crate::fn_errors::refused(AppError::Unauthenticated)
}

fn internal() -> Response {
    crate::fn_errors::refused(AppError::Internal)
}

/// Whether a change a cookie authenticates names the page it came from.
/// Browsers send `Origin` (or `Referer`) with every form post and `fetch`,
/// and `cross_site.rs` has already refused one from another site; a change
/// with neither did not come from one of our pages, so the cookie alone
/// does not authorize it (cross-site request forgery).
fn says_where_it_came_from(request: &Request) -> bool {
    cross_site::is_safe(request.method()) || cross_site::source_of(request).is_some()
}

#[cfg(test)]
mod tests {
    use super::query_value;

    #[test]
    fn the_page_asked_for_survives_the_trip_through_sign_in() {
        assert_eq!(
            query_value("/c/conv_1?a=1&b=2"),
            "/c/conv_1%3Fa%3D1%26b%3D2"
        );
        assert_eq!(query_value("/"), "/");
    }
}
