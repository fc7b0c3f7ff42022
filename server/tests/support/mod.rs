//! Shared by the HTTP tests and the in-process benchmarks: a real server on
//! a free loopback port, over a data directory and a configuration file,
//! with the background workers a test asks for. Dropping it stops it.
#![allow(dead_code)] // the tests and each benchmark use their own parts

pub mod a2a;
pub mod mcp;
pub mod people;
pub mod receiver;
pub mod schemas;

mod gateway;
#[allow(unused_imports)] // as above
pub use gateway::*;

use tokio::sync::{oneshot, watch};

/// The smallest configuration with a gateway: one API key (`name`, `key`)
/// and a `filesystem` source whose `delete_file` waits for a person.
pub fn gateway_config(name: &str, key: &str) -> String {
    format!(
        "gateway:\n  api_keys:\n    - name: {name}\n      sha256: {}\nsources:\n  filesystem:\n    policy_only: true\n    require_approval: [delete_file]\n",
        engine::domain::token::hash_text(key)
    )
}

/// Which background workers run next to the router.
#[derive(Debug, Clone, Copy, Default)]
pub struct Workers {
    /// Callback delivery from the outbox.
    pub callbacks: bool,
    /// Applying lapsed approvals' default actions.
    pub expiry: bool,
    /// Placing events in the shared feed (PostgreSQL) and relaying other replicas' events.
    pub relay: bool,
    /// The agent, stepping runs with the demo model.
    pub agent: bool,
    /// Sealing new audit entries into the chain every second.
    pub audit_seal: bool,
    /// Announcing waiting calls on their channels (`notify:`).
    pub notices: bool,
}

/// The call waiting for a person, once there is one: the newest, when
/// several wait.
pub async fn waiting_call(server: &TestServer) -> engine::domain::ToolCall {
    for _ in 0..200 {
        if let Some(call) = server.engine.pending_approvals(10).await.unwrap().pop() {
            return call;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no call waits");
}

/// Posts `fields` to the chat's server function `endpoint`, as a person's
/// browser does, and returns its answer whatever it is.
pub async fn post_fn(
    server: &TestServer,
    endpoint: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    reqwest::Client::new()
        .post(server.url(&format!("/api/fn/{endpoint}")))
        .header("accept", "application/json")
        .header("origin", &server.base)
        .form(fields)
        .send()
        .await
        .unwrap()
}

/// Decides through the chat's server function `endpoint` (`approve_call`,
/// `reject_call`, `edit_call`), as a person's browser does.
pub async fn decide(server: &TestServer, endpoint: &str, fields: &[(&str, &str)]) {
    let res = post_fn(server, endpoint, fields).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

/// The pages' routes, read once for every server of the process: reading
/// them while another test's server renders a page would stall that page
/// (see `server::page_routes`).
pub fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(server::page_routes).clone()
}

/// A running server.
pub struct TestServer {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The engine behind it.
    pub engine: engine::Engine,
    /// The router's state, for what a test renders or asks without HTTP.
    pub state: app::state::AppState,
    _stop: oneshot::Sender<()>,
    _stop_workers: watch::Sender<bool>,
}

impl TestServer {
    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// Starts a server over `data` with `config` (YAML) and extra settings `env`.
pub async fn start(
    data: &std::path::Path,
    config: &str,
    env: &[(&str, &str)],
    workers: Workers,
) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve(listener, data, config, env, workers).await
}

/// [`start`] on `listener`, bound already (so its address can go into
/// `config`, or to a provider, first).
pub async fn serve(
    listener: tokio::net::TcpListener,
    data: &std::path::Path,
    config: &str,
    env: &[(&str, &str)],
    workers: Workers,
) -> TestServer {
    let config_path = data.join("airlock.yaml");
    std::fs::write(&config_path, config).unwrap();
    let mut settings: Vec<(String, String)> = vec![
        ("AIRLOCK_ADDR".into(), "127.0.0.1:0".into()),
        (
            "AIRLOCK_DATA_DIR".into(),
            data.to_string_lossy().into_owned(),
        ),
        (
            "AIRLOCK_CONFIG".into(),
            config_path.to_string_lossy().into_owned(),
        ),
    ];
    settings.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let settings = server::Settings::from_lookup(|name| {
        settings
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    })
    .unwrap();
    let services = server::build(&settings).await.unwrap();
    let engine = services.state.engine.clone();
    let (stop_workers, stop) = watch::channel(false);
    if workers.callbacks {
        tokio::spawn(server::workers::run_callbacks(
            engine.clone(),
            services.callback_secret.clone(),
            stop.clone(),
        ));
    }
    if workers.expiry {
        tokio::spawn(server::workers::run_expiry(engine.clone(), stop.clone()));
    }
    if workers.notices {
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(server::workers::run_notices(
            engine.clone(),
            services.callback_secret.clone(),
            base,
            services.mailer.clone(),
            services.doors.slack.is_some(),
            stop.clone(),
        ));
    }
    if workers.audit_seal {
        tokio::spawn(server::workers::run_audit_seal(
            engine.clone(),
            stop.clone(),
        ));
    }
    if workers.agent {
        tokio::spawn(engine::agent::run_worker(services.agent, stop.clone()));
    }
    if workers.relay {
        let engine = engine.clone();
        let stop = stop.clone();
        tokio::spawn(async move { engine.follow_feed(stop).await });
    }
    let state = services.state.clone();
    let app = server::router_with_pages(services.state, services.doors, page_routes());
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    // With each request's peer address, and without Nagle, as `launch` serves.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    let listener = server::without_nagle(listener);
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    TestServer {
        base: format!("http://{addr}"),
        engine,
        state,
        _stop: stop,
        _stop_workers: stop_workers,
    }
}

/// [`start`] on a SQLite file in `data`, or on `database` (a PostgreSQL URL).
pub async fn start_on(
    data: &std::path::Path,
    config: &str,
    database: Option<&str>,
    workers: Workers,
) -> TestServer {
    let env: Vec<(&str, &str)> = database
        .map(|url| ("AIRLOCK_DATABASE_URL", url))
        .into_iter()
        .collect();
    start(data, config, &env, workers).await
}

/// A fresh schema in the PostgreSQL test database (`AIRLOCK_TEST_DATABASE_URL`),
/// as a URL that uses it; `None` when no test database is configured.
pub async fn fresh_schema() -> Option<String> {
    fresh_schema_in("AIRLOCK_TEST_DATABASE_URL").await
}

/// A fresh schema in the database the variable `var` names, as a URL that
/// uses it; `None` when the variable is not set.
pub async fn fresh_schema_in(var: &str) -> Option<String> {
    let url = std::env::var(var).ok()?;
    let schema = format!("r_{}", uuid::Uuid::new_v4().simple());
    Some(
        engine::store::postgres::create_schema(&url, &schema)
            .await
            .unwrap(),
    )
}

/// A conversation as the chat page reads it (`get_conversation`).
pub async fn conversation_view(
    client: &reqwest::Client,
    base: &str,
    id: &str,
) -> serde_json::Value {
    client
        .get(format!("{base}/api/fn/get_conversation"))
        .query(&[("id", id)])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Starts a conversation through the server function, as the New button does.
pub async fn create_conversation(client: &reqwest::Client, base: &str) -> String {
    client
        .post(format!("{base}/api/fn/create_conversation"))
        .header("accept", "application/json")
        .form(&[("", "")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The release or debug `airlock` binary as its own process, killed on drop.
pub struct Spawned {
    pub child: std::process::Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary` over the data directory `dir` with extra settings `env`
/// on a free port, and waits for its ready line.
pub fn spawn(binary: &str, dir: &std::path::Path, env: &[(&str, &str)]) -> Spawned {
    use std::io::BufRead;
    let mut child = std::process::Command::new(binary)
        .env("AIRLOCK_ADDR", "127.0.0.1:0")
        .env("AIRLOCK_DATA_DIR", dir)
        .env("AIRLOCK_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("the server prints its address")
            .unwrap();
        if let Some(url) = line.strip_prefix("Airlock is ready at ") {
            break url.trim().to_owned();
        }
    };
    Spawned { child, base }
}

/// Runs the `airlock` binary with `args` in `dir`, with no configuration
/// from the environment: what a person typing the command gets.
pub fn airlock(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .args(args)
        .current_dir(dir)
        .env_remove("AIRLOCK_CONFIG")
        .output()
        .unwrap()
}
