//! What the HTTP tests share: a server with its own data directory and
//! the agent's worker, and ways to start conversations and write in them.

pub mod sse;

use std::net::SocketAddr;

use tokio::sync::oneshot;

/// The pages' routes, read once for every server of the process: reading
/// them while another test's server renders a page would stall that page
/// (see `server::page_routes`).
pub fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(server::page_routes).clone()
}

/// A running server with its own data directory, stopped on drop.
pub struct TestApp {
    pub base: String,
    /// The engine behind the server, for driving what has no HTTP surface yet.
    pub engine: engine::Engine,
    pub client: reqwest::Client,
    pub _stop: oneshot::Sender<()>,
    pub _stop_worker: tokio::sync::watch::Sender<bool>,
    pub _dir: tempfile::TempDir,
}

impl TestApp {
    pub async fn spawn() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_string_lossy().into_owned();
        let settings = server::Settings::from_lookup(|name| match name {
            "AIRLOCK_ADDR" => Some("127.0.0.1:0".into()),
            "AIRLOCK_DATA_DIR" => Some(data.clone()),
            _ => None,
        })
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let server::Services {
            state,
            agent,
            doors,
            ..
        } = server::build(&settings).await.unwrap();
        let (stop_worker, worker_stop) = tokio::sync::watch::channel(false);
        tokio::spawn(engine::agent::run_worker(agent, worker_stop));
        let engine = state.engine.clone();
        let app = server::router_with_pages(state, doors, page_routes());
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            base: format!("http://{addr}"),
            engine,
            client,
            _stop: stop,
            _stop_worker: stop_worker,
            _dir: dir,
        }
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
    }

    pub async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.base))
            .header("accept", "application/json")
            .form(form)
            .send()
            .await
            .unwrap()
    }

    /// Posts `form` to `path` as a browser without JavaScript does from
    /// `page`: a plain form that wants HTML back.
    pub async fn post_from_page(
        &self,
        page: &str,
        path: &str,
        form: &[(&str, &str)],
    ) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.base))
            .header("accept", "text/html")
            .header("referer", format!("{}{page}", self.base))
            .form(form)
            .send()
            .await
            .unwrap()
    }
}

/// A new conversation's id.
pub async fn create_conversation(app: &TestApp) -> String {
    app.post_form("/api/fn/create_conversation", &[])
        .await
        .json()
        .await
        .unwrap()
}

pub async fn post_message(app: &TestApp, id: &str, content: &str) {
    let res = app
        .post_form(
            "/api/fn/post_message",
            &[("conversation_id", id), ("content", content)],
        )
        .await;
    assert_eq!(res.status(), 200);
}

pub fn delete(path: &str) -> engine::domain::ProposedCall {
    engine::domain::ProposedCall {
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: serde_json::json!({ "path": path }),
        read_only_hint: false,
    }
}
