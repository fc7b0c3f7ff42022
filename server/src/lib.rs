//! Airlock's server: what startup builds, in a fixed order (`build`); the
//! HTTP routes that are not server functions (routes.rs); and `launch`
//! (launch.rs), which also lets tests run the real server on port 0.

pub mod a2a;
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
pub mod import_cli;
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
pub mod receipt_cli;
pub mod review_answer;
pub mod review_page;
pub mod review_stream;
mod routes;
mod secret_file;
pub mod security_headers;
pub mod settings;
pub mod sign_in_guard;
pub mod site;
pub mod slack;
pub mod source_stream;
pub mod streams;
pub mod telemetry;
pub mod terminal;
mod tool_sources;
pub mod workers;

use std::sync::Arc;

use anyhow::Context;
use leptos::prelude::*;

use app::state::{AppState, ModelReach, Shared};
use cross_site::AllowedHosts;
use engine::agent::demo_model::DemoModel;
use engine::agent::openai::OpenAiModel;
use engine::agent::{Agent, Model};
use engine::clock::SystemClock;
use engine::config::Config;
use engine::tools::demo;
use engine::Engine;
pub use launch::{launch, run, without_nagle, Ready};
pub use routes::{page_routes, router, router_with_pages, Doors};
pub use settings::{ModelSettings, Settings};

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
    let state = AppState::new(Shared {
        leptos_options,
        engine,
        public_url: settings.public_url.clone(),
        model_reach,
        demo_model: matches!(settings.model, ModelSettings::Demo),
    });
    let callback_secret = secret_file::callback_secret(settings)?;
    sign_receipts(&state.engine, settings)?;
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

/// Has `engine` sign receipts with the settings' receipt secret, naming
/// the public URL (or `airlock`) as their issuer.
pub(crate) fn sign_receipts(engine: &Engine, settings: &Settings) -> anyhow::Result<()> {
    let issuer = settings.public_url.clone();
    let secret = secret_file::receipt_secret(settings)?;
    engine.sign_receipts_with(secret, issuer.unwrap_or_else(|| "airlock".into()));
    Ok(())
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
