//! The server through its public HTTP surface, on a real socket.

use std::net::SocketAddr;

use tokio::sync::oneshot;

/// A running server with its own data directory, stopped on drop.
struct TestApp {
    base: String,
    client: reqwest::Client,
    _stop: oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

impl TestApp {
    async fn spawn() -> Self {
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
        tokio::spawn(server::launch(settings, listener, async {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            base: format!("http://{addr}"),
            client,
            _stop: stop,
            _dir: dir,
        }
    }

    async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.base))
            .header("accept", "application/json")
            .form(form)
            .send()
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn healthz_reports_the_version_and_store() {
    let app = TestApp::spawn().await;
    let res = app
        .client
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["store"], "sqlite");
}

#[tokio::test]
async fn unknown_pages_are_404() {
    let app = TestApp::spawn().await;
    let res = app
        .client
        .get(format!("{}/nope", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    assert!(res.text().await.unwrap().contains("Page not found"));
}

#[tokio::test]
async fn a_conversation_is_created_and_messaged_over_http() {
    let app = TestApp::spawn().await;
    let res = app.post_form("/api/fn/create_conversation", &[]).await;
    assert_eq!(res.status(), 200);
    let id: String = res.json().await.unwrap();
    let res = app
        .post_form(
            "/api/fn/post_message",
            &[("conversation_id", &id), ("content", "list files")],
        )
        .await;
    assert_eq!(res.status(), 200);
    let page = app
        .client
        .get(format!("{}/c/{id}", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("list files"));
}

#[tokio::test]
async fn a_plain_form_post_is_redirected_back() {
    let app = TestApp::spawn().await;
    let res = app
        .client
        .post(format!("{}/api/fn/create_conversation", app.base))
        .header("accept", "text/html")
        .header("referer", format!("{}/", app.base))
        .form(&[("", "")])
        .send()
        .await
        .unwrap();
    assert!(res.status().is_redirection(), "got {}", res.status());
    let location = res.headers()["location"].to_str().unwrap();
    assert!(location.starts_with("/c/conv_"), "redirected to {location}");
}

#[tokio::test]
async fn client_mistakes_get_typed_4xx_errors() {
    let app = TestApp::spawn().await;
    type Case<'a> = (&'a [(&'a str, &'a str)], u16, &'a str);
    let cases: [Case; 3] = [
        (
            &[("conversation_id", "nope"), ("content", "hi")],
            400,
            "invalid",
        ),
        (
            &[
                ("conversation_id", "conv_0000000000000000000000000000dead"),
                ("content", "hi"),
            ],
            404,
            "not_found",
        ),
        (
            &[("conversation_id", "conv_0000000000000000000000000000dead")],
            400,
            "invalid",
        ),
    ];
    for (form, status, code) in cases {
        let res = app.post_form("/api/fn/post_message", form).await;
        assert_eq!(res.status(), status, "for {form:?}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], code, "for {form:?}: {body}");
        assert!(
            body["message"].is_string() || body["what"].is_string(),
            "{body}"
        );
    }
    // An empty message is refused with a message a person can read.
    let res = app.post_form("/api/fn/create_conversation", &[]).await;
    let id: String = res.json().await.unwrap();
    let res = app
        .post_form(
            "/api/fn/post_message",
            &[("conversation_id", &id), ("content", "  ")],
        )
        .await;
    assert_eq!(res.status(), 400);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["message"], "the message is empty");
}
