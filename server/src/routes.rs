//! The HTTP surface: every route that is not a server function, the
//! pages' routes, and the layers in front of them all, outermost last.

use std::sync::Arc;

use axum::extract::State;
use axum::routing::{get, post};
use axum::Router;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::compression::predicate::{DefaultPredicate, Predicate, SizeAbove};

use app::state::AppState;
use app::{shell, App};

use crate::cross_site::{self, AllowedHosts};
use crate::{
    a2a, audit_export, call_review, calls_api, client_address, fn_errors, freshness, grant_stream,
    health, hitl, list_stream, mcp, metrics_endpoint, oidc, openapi, panics, probes, review_answer,
    review_page, review_stream, security_headers, sign_in_guard, site, slack, source_stream,
    streams,
};

/// Builds the router over `state`: health, pages, server functions, and the
/// compiled site's static files, for requests to the `allowed` hosts.
pub fn router(state: AppState, doors: Doors) -> Router {
    router_with_pages(state, doors, page_routes())
}

/// The pages' routes, read from the app. Reading them runs the app with
/// resource loading held back in the whole process (a flag of leptos's
/// own), so a page being rendered meanwhile would wait forever: read them
/// once, before serving. Tests that serve several times in one process
/// read them once for all.
pub fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    generate_route_list(App)
}

/// [`router`] over page routes read before (see [`page_routes`]).
pub fn router_with_pages(
    state: AppState,
    doors: Doors,
    routes: Vec<leptos_axum::AxumRouteListing>,
) -> Router {
    let Doors {
        allowed_hosts: allowed,
        sso,
        proxies,
        slack,
        metrics_token,
    } = doors;
    let (own, own_api) = utoipa_axum::router::OpenApiRouter::<AppState>::new()
        .routes(utoipa_axum::routes!(health::healthz))
        .routes(utoipa_axum::routes!(list_stream::list_events))
        .routes(utoipa_axum::routes!(grant_stream::grant_events))
        .routes(utoipa_axum::routes!(source_stream::source_events))
        .routes(utoipa_axum::routes!(source_stream::list_sources))
        .routes(utoipa_axum::routes!(audit_export::export_audit))
        .routes(utoipa_axum::routes!(calls_api::pending::pending_calls))
        .routes(utoipa_axum::routes!(calls_api::show::show_call))
        .routes(utoipa_axum::routes!(calls_api::approve::approve_call))
        .routes(utoipa_axum::routes!(calls_api::reject::reject_call))
        .routes(utoipa_axum::routes!(calls_api::answer::answer_call))
        .routes(utoipa_axum::routes!(streams::conversation_events))
        .routes(utoipa_axum::routes!(streams::inbox_events))
        .routes(utoipa_axum::routes!(review_stream::review_events))
        .split_for_parts();
    let (hitl, hitl_api) = hitl::routes(hitl::Hitl {
        engine: state.engine.clone(),
        public_url: state.public_url.clone(),
        limiter: Arc::new(hitl::PollLimiter::default()),
    });
    let document = openapi::document([own_api, hitl_api]);
    let options = &state.leptos_options;
    let site = Arc::new(site::Site::load(&options.site_root, options.hash_files));
    Router::new()
        .merge(own)
        .merge(hitl)
        .merge(sso.map(oidc::routes).unwrap_or_default())
        .merge(slack::routes(slack, state.engine.clone()))
        .merge(mcp::routes(state.engine.clone(), state.public_url.clone()))
        .merge(a2a::routes(a2a::A2a {
            engine: state.engine.clone(),
            public_url: state.public_url.clone(),
        }))
        .route(
            "/review/{case_id}",
            get(review_page::review_page).post(review_answer::answer),
        )
        .route("/calls/{call_id}/review", post(call_review::open))
        .merge(probes::routes(&state.leptos_options.site_root))
        .route(
            "/metrics",
            get(move |State(state), person, headers| {
                metrics_endpoint::serve(state, person, headers, metrics_token.clone())
            }),
        )
        .route(
            "/api/openapi.json",
            get(move || openapi::serve(document.clone())),
        )
        .leptos_routes(&state, routes, {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        .fallback(move |State(state), request| {
            let site = site.clone();
            async move { site::fallback(&site, state, request).await }
        })
        .route_layer(axum::middleware::from_fn_with_state(
            state.engine.metrics().clone(),
            metrics_endpoint::count_requests,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            sign_in_guard::require_sign_in,
        ))
        .layer(axum::middleware::from_fn_with_state(
            proxies,
            client_address::note,
        ))
        .layer(axum::middleware::from_fn(fn_errors::set_error_status))
        .layer(axum::middleware::map_response(freshness::no_store_pages))
        // Pages, larger answers and the site's JS, WASM and CSS go out
        // gzipped to clients that accept it (the WASM shrinks to about a
        // third). Answers under 1 KB — most API replies — go out as they
        // are: compressing them costs more than it saves. Event streams are
        // never compressed, so events are not held back in a buffer.
        .layer(
            tower_http::compression::CompressionLayer::new()
                .gzip(true)
                .compress_when(DefaultPredicate::new().and(SizeAbove::new(1024))),
        )
        // A handler's panic is a 500 that still goes through the layers
        // above: the client hears why, and the log has it.
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            panics::answer_panic,
        ))
        .layer(axum::middleware::map_response(
            security_headers::add_security_headers,
        ))
        // Outermost, so a foreign request reaches no handler at all.
        .layer(axum::middleware::from_fn_with_state(
            allowed,
            cross_site::refuse_foreign,
        ))
        .with_state(state)
}

/// What the router needs besides its state: the hosts requests may name,
/// the OpenID provider people sign in with (when `auth.oidc` names one),
/// and the reverse proxies that say who the client is.
#[derive(Debug, Clone)]
pub struct Doors {
    pub allowed_hosts: Arc<AllowedHosts>,
    pub sso: Option<Arc<oidc::Sso>>,
    pub proxies: Arc<client_address::TrustedProxies>,
    /// The Slack app whose buttons decide, when it is set up.
    pub slack: Option<Arc<engine::reviews::slack_app::SlackApp>>,
    /// What a scraper of `/metrics` sends with sign-in on
    /// (`AIRLOCK_METRICS_TOKEN`).
    pub metrics_token: Option<crate::settings::Secret>,
}
