//! `/api/openapi.json`: an OpenAPI 3.1 document of Airlock's REST endpoints,
//! generated from the handlers' annotations and the body types they use, so
//! it changes with the code. (The `/api/fn/*` server functions are the
//! pages' own calls, not a public API, and are left out.)

use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::OpenApi as Document;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Airlock",
        description = "A self-hosted human approval layer for AI agents' tool calls. External agents ask before running a tool call and follow the review case over the HITL Protocol v0.8; browsers follow conversations and the approvals inbox as server-sent events.",
        license(name = "Apache-2.0"),
    ),
    paths(serve),
    modifiers(&BearerKeys),
    tags(
        (name = "HITL Protocol", description = "The gateway and review cases (HITL Protocol v0.8)."),
        (name = "People", description = "What waits for a person, and deciding it, as the person of a personal API token (`airlock pending`, `approve`, `reject`)."),
        (name = "Streams", description = "Live changes as server-sent events."),
        (name = "Operations", description = "Health and this document."),
    )
)]
struct Airlock;

/// Declares the bearer API keys of `gateway.api_keys`, and the submit
/// tokens of inline submit.
struct BearerKeys;

impl utoipa::Modify for BearerKeys {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        components.add_security_scheme(
            "submit_token",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The whole document: Airlock's own part and the routers' parts.
pub fn document(parts: impl IntoIterator<Item = Document>) -> Arc<String> {
    let mut doc = Airlock::openapi();
    for part in parts {
        doc.merge(part);
    }
    doc.info.version = engine::VERSION.to_owned();
    Arc::new(
        doc.to_pretty_json()
            .expect("the OpenAPI document serialises"),
    )
}

/// This document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "Operations",
    responses((status = 200, description = "This OpenAPI 3.1 document.", content_type = "application/json", body = Object)),
)]
pub async fn serve(document: Arc<String>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        document.as_str().to_owned(),
    )
}
