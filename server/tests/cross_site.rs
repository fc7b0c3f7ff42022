//! Other web pages cannot read or decide through a person's browser: a
//! foreign `Host` (DNS rebinding) and a change sent from another site's page
//! are refused before any handler runs, and nothing changes.

use crate::support;

use serde_json::{json, Value};

const KEY: &str = "cross-site-test-key";
const EVIL: &str = "https://evil.example";

/// A server with something to steal or decide in each place: a chat call
/// waiting, a grant, and a gateway case with its review link.
struct Fixture {
    server: support::TestServer,
    client: reqwest::Client,
    port: u16,
    conversation: String,
    call: String,
    grant: String,
    case: String,
    token: String,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn start(env: &[(&str, &str)]) -> Self {
        use engine::domain::{Channel, Reviewer, Verdict};
        let dir = tempfile::tempdir().unwrap();
        let config = support::gateway_config("agent", KEY);
        let server = support::start(dir.path(), &config, env, support::Workers::default()).await;
        let engine = &server.engine;
        let conversation = engine.create_conversation().await.unwrap().id;
        let mut calls = engine
            .propose_calls(&conversation, vec![delete("a.txt"), delete("b.txt")])
            .await
            .unwrap();
        let reviewer = Reviewer::named("ana", Channel::Chat);
        let granted = calls.remove(1);
        let verdict = Verdict::AlwaysAllow {
            everywhere: false,
            lasts: None,
            arguments: Default::default(),
        };
        engine
            .decide(&granted.id, verdict, &reviewer)
            .await
            .unwrap();
        let grant = engine.grants().await.unwrap().remove(0).id.to_string();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let call =
            json!({"tool": "delete_file", "arguments": {"path": "c.txt"}, "source": "filesystem"});
        let asked = support::ask_gateway(&client, &server.base, KEY, call).await;
        let (case, token) = support::review_link(&asked["hitl"]);
        let port = server.base.rsplit(':').next().unwrap().parse().unwrap();
        Self {
            server,
            client,
            port,
            conversation: conversation.to_string(),
            call: calls.remove(0).id.to_string(),
            grant,
            case,
            token,
            _dir: dir,
        }
    }

    fn get(&self, path: &str, host: &str) -> reqwest::RequestBuilder {
        let host = host.replace("PORT", &self.port.to_string());
        self.client.get(self.server.url(path)).header("host", host)
    }

    /// Everything a person could see or decide, read as the pages read it.
    async fn snapshot(&self) -> Vec<Value> {
        let mut seen = Vec::new();
        for path in [
            "/api/fn/list_conversations".to_owned(),
            "/api/fn/list_approvals".to_owned(),
            "/api/fn/list_grants".to_owned(),
            format!("/api/fn/get_conversation?id={}", self.conversation),
        ] {
            let res = self.get(&path, "127.0.0.1:PORT").send().await.unwrap();
            assert_eq!(res.status(), 200, "{path}");
            seen.push(res.json().await.unwrap());
        }
        let status = self
            .get(
                &format!("/api/v1/reviews/{}/status", self.case),
                "127.0.0.1:PORT",
            )
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        let mut status: Value = status.json().await.unwrap();
        status["hitl"]["poll_after"] = Value::Null;
        seen.push(status);
        seen
    }

    /// Every request that changes something, with arguments that would work.
    fn changes(&self) -> Vec<(String, reqwest::RequestBuilder)> {
        let call = self.call.as_str();
        let conversation = self.conversation.as_str();
        let (case, token) = (self.case.as_str(), self.token.as_str());
        let forms: Vec<(&str, Vec<(&str, &str)>)> = vec![
            ("create_conversation", vec![]),
            (
                "post_message",
                vec![("conversation_id", conversation), ("content", "hi")],
            ),
            ("approve_call", vec![("call_id", call)]),
            ("reject_call", vec![("call_id", call), ("reason", "no")]),
            (
                "edit_call",
                vec![("call_id", call), ("arguments", r#"{"path":"x"}"#)],
            ),
            (
                "always_allow_call",
                vec![("call_id", call), ("everywhere", "true")],
            ),
            (
                "answer_question",
                vec![("call_id", call), ("answer", "yes")],
            ),
            ("approve_all", vec![("conversation_id", conversation)]),
            ("reject_all", vec![("conversation_id", conversation)]),
            ("revoke_grant", vec![("grant_id", self.grant.as_str())]),
            ("review_link", vec![("call_id", call)]),
            ("touch_review", vec![("case_id", case), ("token", token)]),
            (
                "respond_review",
                vec![("case_id", case), ("token", token), ("action", "approve")],
            ),
        ];
        let mut changes: Vec<(String, reqwest::RequestBuilder)> = forms
            .into_iter()
            .map(|(name, form)| {
                let url = self.server.url(&format!("/api/fn/{name}"));
                (name.to_owned(), self.client.post(url).form(&form))
            })
            .collect();
        let respond = format!("/api/v1/reviews/{case}/respond?token={token}");
        changes.push((
            "HITL respond".into(),
            self.client
                .post(self.server.url(&respond))
                .json(&json!({"action": "approve"})),
        ));
        changes.push((
            "HITL gateway".into(),
            self.client
                .post(self.server.url("/api/v1/tool-calls"))
                .bearer_auth(KEY)
                .json(&json!({"tool": "delete_file", "arguments": {"path": "d.txt"}, "source": "filesystem"})),
        ));
        changes
    }
}

fn delete(path: &str) -> engine::domain::ProposedCall {
    engine::domain::ProposedCall {
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: json!({ "path": path }),
        read_only_hint: false,
    }
}

#[tokio::test]
async fn a_foreign_host_is_refused_everywhere() {
    let app = Fixture::start(&[]).await;
    let before = app.snapshot().await;
    let review = format!("/review/{}?token={}", app.case, app.token);
    let review_events = format!("/api/reviews/{}/events?token={}", app.case, app.token);
    let chat_events = format!("/api/conversations/{}/events", app.conversation);
    let status = format!("/api/v1/reviews/{}/status", app.case);
    let reads = [
        "/",
        "/api/fn/list_approvals",
        "/api/approvals/events",
        &chat_events,
        &review,
        &review_events,
        &status,
        "/.well-known/hitl.json",
        "/healthz",
    ];
    for path in reads {
        let res = app
            .get(path, "rebind.evil.example:PORT")
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 421, "{path}");
        assert!(res.headers().get("access-control-allow-origin").is_none());
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], "unknown_host", "{path}: {body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("rebind.evil.example"), "{message}");
    }
    for (name, change) in app.changes() {
        let res = change
            .header("host", "rebind.evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 421, "{name}");
    }
    assert_eq!(app.snapshot().await, before);
    // The same requests through a name the server answers to are served.
    for path in reads {
        let res = app.get(path, "localhost:PORT").bearer_auth(KEY);
        let res = res
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{path}: {}", res.status());
    }
}

#[tokio::test]
async fn a_change_sent_from_another_site_is_refused_and_changes_nothing() {
    let app = Fixture::start(&[]).await;
    let before = app.snapshot().await;
    let own = format!("http://127.0.0.1:{}", app.port);
    let sources = [
        ("origin", EVIL.to_owned()),
        ("origin", "null".to_owned()),
        ("referer", format!("{EVIL}/attack.html")),
        // The same host on another port is another site.
        ("origin", format!("http://127.0.0.1:{}", app.port + 1)),
        ("origin", format!("http://localhost:{}", app.port)),
    ];
    for (header, source) in &sources {
        for (name, change) in app.changes() {
            let res = change.header(*header, source).send().await.unwrap();
            assert_eq!(res.status(), 403, "{name} with {header} {source}");
            assert!(res.headers().get("access-control-allow-origin").is_none());
            let body: serde_json::Value = res.json().await.unwrap();
            assert_eq!(body["code"], "cross_site_request", "{name}: {body}");
            assert!(body["message"]
                .as_str()
                .unwrap()
                .contains("Nothing was changed"));
        }
    }
    assert_eq!(
        app.snapshot().await,
        before,
        "a refused change changed something"
    );

    // The same requests from the server's own pages, or with no page at all
    // (an agent, curl), reach their handlers.
    let res = app.client.post(app.server.url("/api/fn/approve_call"));
    let res = res.header("origin", &own).form(&[("call_id", &app.call)]);
    let approved: Value = res.send().await.unwrap().json().await.unwrap();
    assert_eq!(approved["status"], "approved", "{approved}");
    let res = app.client.post(app.server.url("/api/fn/revoke_grant"));
    let res = res.header("referer", format!("{own}/allowed"));
    let res = res.form(&[("grant_id", &app.grant)]).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = app
        .client
        .post(app.server.url("/api/fn/create_conversation"));
    let res = res.header("accept", "application/json").form(&[("", "")]);
    assert_eq!(res.send().await.unwrap().status(), 200);
    assert_ne!(app.snapshot().await, before);
}

#[tokio::test]
async fn configured_hosts_and_the_public_url_are_served() {
    let app = Fixture::start(&[
        ("AIRLOCK_ALLOWED_HOSTS", "airlock.internal, box:8080"),
        ("AIRLOCK_PUBLIC_URL", "https://airlock.example.com"),
    ])
    .await;
    for (host, status) in [
        ("airlock.internal:PORT", 200),
        ("airlock.internal", 200),
        ("airlock.example.com", 200),
        ("box:8080", 200),
        ("box:PORT", 421),
        ("other.internal:PORT", 421),
        ("[::1]:PORT", 200),
    ] {
        let res = app
            .get("/api/fn/list_approvals", host)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), status, "{host}");
    }
    // Behind a proxy that does not pass `Host` on, the public URL's pages
    // are still the server's own.
    let res = app.client.post(app.server.url("/api/fn/touch_review"));
    let res = res.header("origin", "https://airlock.example.com");
    let form = [("case_id", &app.case), ("token", &app.token)];
    assert_eq!(res.form(&form).send().await.unwrap().status(), 200);
    let res = app.client.post(app.server.url("/api/fn/touch_review"));
    let res = res.header("host", "airlock.internal:8443");
    let res = res.header("origin", "https://airlock.internal:8443");
    assert_eq!(res.form(&form).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn every_host_can_be_allowed_on_purpose() {
    let app = Fixture::start(&[("AIRLOCK_ALLOWED_HOSTS", "*")]).await;
    let res = app
        .get("/healthz", "anything.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Changes from another site are still refused.
    let res = app
        .client
        .post(app.server.url("/api/fn/create_conversation"));
    let res = res
        .header("host", "anything.example")
        .header("origin", EVIL);
    assert_eq!(res.send().await.unwrap().status(), 403);
}

#[tokio::test]
async fn pages_forbid_framing_sniffing_and_scripts_without_their_nonce() {
    let app = Fixture::start(&[]).await;
    let review = format!("/review/{}?token={}", app.case, app.token);
    for path in ["/", "/approvals", review.as_str(), "/nope"] {
        // As a browser asks for a page.
        let res = app
            .get(path, "127.0.0.1:PORT")
            .header("accept", "text/html");
        let res = res.send().await.unwrap();
        let headers = res.headers().clone();
        let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
        assert_eq!(header("referrer-policy").as_deref(), Some("same-origin"));
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
        assert_eq!(header("access-control-allow-origin"), None);
        let policy = header("content-security-policy").expect("a policy on {path}");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(policy.contains("default-src 'self'"), "{policy}");
        let nonce = policy
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .expect("a nonce in the policy");
        assert!(nonce.len() >= 16, "{nonce}");
        // Every inline script the page has carries the policy's nonce.
        let html = res.text().await.unwrap();
        let tags: Vec<&str> = html
            .split("<script")
            .skip(1)
            .map(|rest| rest.split('>').next().unwrap_or_default())
            .collect();
        assert!(!tags.is_empty(), "{path}");
        for tag in tags {
            let inline = !tag.contains(" src=");
            let signed = tag.contains(&format!(" nonce=\"{nonce}\""));
            assert!(
                !inline || signed,
                "{path}: <script{tag}> runs without the nonce"
            );
        }
    }
    // Another render has another nonce.
    let policy = |res: reqwest::Response| res.headers()["content-security-policy"].clone();
    let first = policy(app.get("/", "127.0.0.1:PORT").send().await.unwrap());
    let second = policy(app.get("/", "127.0.0.1:PORT").send().await.unwrap());
    assert_ne!(first, second);
    // A browser's preflight for another site's request is not granted.
    let res = app
        .client
        .request(
            reqwest::Method::OPTIONS,
            app.server.url("/api/fn/approve_call"),
        )
        .header("origin", EVIL)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
}
