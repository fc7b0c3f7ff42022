//! Airlock's server: startup in a fixed order, and the HTTP routes that are
//! not server functions. `launch` (in launch.rs) lets tests run the real server on port 0.

mod at_start;
pub mod audit_cli;
pub mod audit_export;
pub mod call_review;
pub mod calls_api;
pub mod client_address;
pub mod cross_site;
mod draft_delta;
pub mod fn_errors;
pub mod freshness;
pub mod grant_stream;
pub mod health;
pub mod hitl;
pub mod hook;
mod launch;
pub mod list_stream;
pub mod listing;
pub mod mcp;
pub mod mcp_stdio;
pub mod mcp_waiting;
pub mod metrics_endpoint;
pub mod model_check;
pub mod oidc;
pub mod openapi;
pub mod panics;
pub mod people_cli;
pub mod policy_cli;
mod policy_replay;
pub mod probes;
pub mod review_answer;
pub mod review_page;
pub mod review_stream;
mod secret_file;
pub mod security_headers;
pub mod settings;
pub mod sign_in_guard;
pub mod slack;
pub mod source_stream;
pub mod streams;
pub mod telemetry;
pub mod terminal;
mod tool_sources;
pub mod workers;

use std::sync::Arc;

use anyhow::Context;
use axum::routing::{get, post};
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::compression::predicate::{DefaultPredicate, Predicate, SizeAbove};

use app::state::{AppState, ModelReach};
use app::{shell, App};
use cross_site::AllowedHosts;
use engine::agent::demo_model::DemoModel;
use engine::agent::openai::OpenAiModel;
use engine::agent::Agent;
use engine::agent::Model;
use engine::clock::SystemClock;
use engine::config::Config;
use engine::tools::demo;
use engine::Engine;
pub use launch::{launch, run, Ready};
pub use settings::{ModelSettings, Settings};

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
    Router::new()
        .merge(own)
        .merge(hitl)
        .merge(sso.map(oidc::routes).unwrap_or_default())
        .merge(slack::routes(slack, state.engine.clone()))
        .merge(mcp::routes(state.engine.clone(), state.public_url.clone()))
        .route(
            "/review/{case_id}",
            get(review_page::review_page).post(review_answer::answer),
        )
        .route("/calls/{call_id}/review", post(call_review::open))
        .merge(probes::routes(
            &state.leptos_options.site_root,
            state.leptos_options.hash_files,
        ))
        .route(
            "/metrics",
            get(move |axum::extract::State(state), person, headers| {
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
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
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

/// What startup builds: the state the router serves and the agent the
/// worker steps.
#[derive(Debug, Clone)]
pub struct Services {
    /// The router's state.
    pub state: AppState,
    /// The agent, with its model and tool sources.
    pub agent: Agent,
    /// The secret review callbacks are signed with.
    pub callback_secret: Vec<u8>,
    /// Who may come in, and how.
    pub doors: Doors,
    /// The model's server, asked now and again for the chat's banner; none
    /// for the demo model.
    pub model_server: Option<OpenAiModel>,
    /// The SMTP server e-mail notices go through, when one is set.
    pub mailer: Option<Arc<engine::reviews::notices::Mailer>>,
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
    pub metrics_token: Option<settings::Secret>,
}

/// Opens the store `settings` name, creating the data directory first.
pub async fn open_store(settings: &Settings) -> anyhow::Result<Arc<dyn engine::store::Store>> {
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {}",
            settings.data_dir.display()
        )
    })?;
    engine::store::connect(&settings.database_url)
        .await
        .with_context(|| {
            format!(
                "cannot open the store at {}",
                redact(&settings.database_url)
            )
        })
}

/// Opens the store, the tool sources and the model, and builds the services.
pub async fn build(settings: &Settings) -> anyhow::Result<Services> {
    let store = open_store(settings).await?;
    let mut config = load_config(settings)?;
    config.local_person = settings.local_person.clone();
    let tools = tool_sources::open(settings, &config)?;
    let model_reach = ModelReach::default();
    let (model, asker): (Arc<dyn Model>, _) = match &settings.model {
        ModelSettings::Demo => (Arc::new(DemoModel), None),
        ModelSettings::OpenAi(openai) => {
            tracing::info!(base_url = %openai.base_url, model = %openai.model, "using an OpenAI-compatible model");
            let client =
                OpenAiModel::new(openai.config()).context("cannot set up the model client")?;
            let (probe, problem) = model_check::first_look(&client, &openai.base_url).await;
            config.model_context = Some(model_check::context(openai, probe.as_ref()));
            model_reach.set(problem);
            (Arc::new(client.clone()), Some(client))
        }
    };
    let engine = Engine::new(store, Arc::new(SystemClock), config);
    let owner = format!("{}:{}", std::process::id(), uuid_suffix());
    let agent = engine.agent(model, tools, owner);
    let names = probes::bundle_names(&settings.site_root);
    let leptos_options = LeptosOptions::builder()
        .output_name("airlock")
        .site_root(settings.site_root.as_str())
        .site_pkg_dir("pkg")
        .hash_files(names.is_some())
        .hash_file(names.unwrap_or_else(|| "hash.txt".into()))
        .site_addr(settings.addr)
        .build();
    let state = AppState {
        leptos_options,
        engine,
        public_url: settings.public_url.clone(),
        model_reach,
        demo_model: matches!(settings.model, ModelSettings::Demo),
    };
    let callback_secret = secret_file::callback_secret(settings)?;
    let mailer =
        crate::settings::mailer(settings.smtp.as_ref(), state.engine.config())?.map(Arc::new);
    let slack = crate::settings::slack_app(settings.slack.as_ref(), state.engine.config())?;
    let oidc = state
        .engine
        .config()
        .auth
        .as_ref()
        .and_then(|a| a.oidc.as_ref());
    let client_secret = settings.oidc_client_secret.clone().map(|s| s.0);
    let sso = oidc::connect(oidc, client_secret, &callback_secret).await?;
    let allowed_hosts = Arc::new(AllowedHosts::new(
        settings.public_url.as_deref(),
        &settings.allowed_hosts,
    ));
    Ok(Services {
        state,
        agent,
        callback_secret,
        model_server: asker,
        mailer,
        doors: Doors {
            allowed_hosts,
            sso,
            proxies: Arc::new(settings.trusted_proxies.clone()),
            slack: slack.map(Arc::new),
            metrics_token: settings.metrics_token.clone(),
        },
    })
}

/// A short random suffix, so two processes with the same pid (in two
/// containers) never share run leases.
fn uuid_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:08x}", h.finish() as u32)
}

/// Reads the configuration file, if one is set. An invalid file stops startup
/// with a message naming the file, the key and the problem.
fn load_config(settings: &Settings) -> anyhow::Result<Config> {
    read_config(settings.config_file.as_deref())
}

/// The configuration the server enforces: the file at `path` (without one,
/// the embedded defaults) with the built-in sources' blocks it does not
/// replace. Serving, `airlock policy` and the shadow policy all read it
/// here, so an offline check says what the server does.
pub(crate) fn read_config(path: Option<&std::path::Path>) -> anyhow::Result<Config> {
    let Some(path) = path else {
        return Ok(effective(Config::default())?);
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    let file = path.display().to_string();
    let config = effective(Config::parse(&file, &text)?)?;
    let Some(shadow) = config.shadow_file.clone() else {
        return Ok(config);
    };
    let text = std::fs::read_to_string(&shadow).with_context(|| {
        format!(
            "cannot read the shadow policy {} (`shadow_policy` in {file})",
            shadow.display()
        )
    })?;
    let candidate = effective(Config::parse(&shadow.display().to_string(), &text)?)?;
    Ok(config.with_shadow(&file, candidate)?)
}

/// `config` with the built-in sources it leaves to their defaults.
fn effective(mut config: Config) -> Result<Config, engine::policy::PolicyError> {
    demo::configure(&mut config)?;
    Ok(config)
}

/// A database URL with any password replaced, safe to log.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &url[scheme + 3..at];
            match creds.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &creds[..colon],
                    &url[at..]
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_never_reach_the_log() {
        assert_eq!(
            super::redact("postgres://a:secret@db/x"),
            "postgres://a:***@db/x"
        );
        assert_eq!(super::redact("data/airlock.db"), "data/airlock.db");
    }
}
