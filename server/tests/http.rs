//! The server through its public HTTP surface, on a real socket.

use std::net::SocketAddr;

use tokio::sync::oneshot;

/// The pages' routes, read once for every server of the process: reading
/// them while another test's server renders a page would stall that page
/// (see `server::page_routes`).
fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(server::page_routes).clone()
}

/// A running server with its own data directory, stopped on drop.
struct TestApp {
    base: String,
    /// The engine behind the server, for driving what has no HTTP surface yet.
    engine: engine::Engine,
    client: reqwest::Client,
    _stop: oneshot::Sender<()>,
    _stop_worker: tokio::sync::watch::Sender<bool>,
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

    async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
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

    /// Posts `form` to `path` as a browser without JavaScript does from
    /// `page`: a plain form that wants HTML back.
    async fn post_from_page(
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

#[tokio::test]
async fn healthz_reports_the_version_and_store() {
    let app = TestApp::spawn().await;
    let res = app.get("/healthz").await;
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["store"], "sqlite");
}

#[tokio::test]
async fn unknown_pages_are_404() {
    let app = TestApp::spawn().await;
    let res = app.get("/nope").await;
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
    let posted: serde_json::Value = res.json().await.unwrap();
    assert_eq!(posted["message"]["content"], "list files");
    assert_eq!(posted["conversation_title"], "list files");
    let page = app.get(&format!("/c/{id}")).await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("list files"));
}

#[tokio::test]
async fn a_plain_form_post_is_redirected_back() {
    let app = TestApp::spawn().await;
    let res = app
        .post_from_page("/", "/api/fn/create_conversation", &[("", "")])
        .await;
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
    // A stream position beyond 64 bits is a typed 400, not the framework's text.
    for path in [
        format!("/api/conversations/{id}/events?after=9223372036854775808"),
        "/api/approvals/events?after=soon".to_owned(),
    ] {
        let res = app.get(&path).await;
        assert_eq!(res.status(), 400, "for {path}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], "invalid_cursor", "for {path}: {body}");
    }
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

/// One parsed server-sent event.
#[derive(Debug, Clone)]
struct Sse {
    event: String,
    id: String,
    data: serde_json::Value,
}

/// Reads server-sent events from a streaming response.
struct SseReader {
    response: reqwest::Response,
    buffer: String,
    /// Draft pieces (`message.delta`), each with how many stored events came before it.
    drafts: Vec<(usize, String)>,
    /// The rendered reply so far, as pieces ending a line rebuild it.
    rendered: Vec<String>,
    /// The bytes of HTML those pieces carried.
    html_sent: usize,
}

impl SseReader {
    async fn open(app: &TestApp, path: &str, last_event_id: Option<&str>) -> Self {
        let mut request = app.client.get(format!("{}{path}", app.base));
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self {
            response,
            buffer: String::new(),
            drafts: Vec::new(),
            rendered: Vec::new(),
            html_sent: 0,
        }
    }

    async fn next(&mut self) -> Sse {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_owned()))
                        .unwrap_or_default()
                };
                if block.lines().all(|l| l.starts_with(':') || l.is_empty()) {
                    continue; // a keep-alive comment
                }
                return Sse {
                    event: field("event:"),
                    id: field("id:"),
                    data: serde_json::from_str(&field("data:")).unwrap(),
                };
            }
            let chunk =
                tokio::time::timeout(std::time::Duration::from_secs(5), self.response.chunk())
                    .await
                    .expect("an event within 5 s")
                    .unwrap()
                    .unwrap_or_else(|| panic!("the stream closed; unread: {:?}", self.buffer));
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

/// A new conversation's id.
async fn create_conversation(app: &TestApp) -> String {
    app.post_form("/api/fn/create_conversation", &[])
        .await
        .json()
        .await
        .unwrap()
}

async fn post_message(app: &TestApp, id: &str, content: &str) {
    let res = app
        .post_form(
            "/api/fn/post_message",
            &[("conversation_id", id), ("content", content)],
        )
        .await;
    assert_eq!(res.status(), 200);
}

impl SseReader {
    /// Reads events until the agent's run is over, and returns them.
    async fn until_run_done(&mut self) -> Vec<Sse> {
        let mut seen = Vec::new();
        loop {
            let event = self.next().await;
            if event.event == "message.delta" {
                assert!(event.id.is_empty(), "drafts carry no id");
                let text = event.data["text"].as_str().unwrap().to_owned();
                let ends_line = text.contains('\n');
                self.drafts.push((seen.len(), text));
                match event.data["html"].as_str() {
                    Some(html) => {
                        // What follows the part of the last rendering it keeps.
                        let keep = event.data["keep"].as_u64().unwrap() as usize;
                        let last = self.rendered.last().map_or("", String::as_str);
                        self.rendered.push(format!("{}{html}", &last[..keep]));
                        self.html_sent += html.len();
                    }
                    None => assert!(!ends_line, "a piece that ends a line carries html"),
                }
                continue;
            }
            // Pieces of calls being written: shown, never stored.
            if event.event == "call.delta" {
                assert!(event.id.is_empty(), "drafts carry no id");
                continue;
            }
            let done = event.event == "run.updated" && event.data["status"] == "done";
            seen.push(event);
            if done {
                return seen;
            }
        }
    }
}

fn kinds(events: &[Sse]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e.event.as_str() {
            "run.updated" => format!("run {}", e.data["status"].as_str().unwrap()),
            "tool_call.created" | "tool_call.updated" => {
                format!(
                    "{} {}",
                    e.data["tool"].as_str().unwrap(),
                    e.data["status"].as_str().unwrap()
                )
            }
            "message.created" => format!("{} message", e.data["role"].as_str().unwrap()),
            "conversation.updated" => format!("title {}", e.data["title"].as_str().unwrap()),
            other => other.to_owned(),
        })
        .collect()
}

fn assert_contiguous(events: &[Sse], first: i64) {
    let ids: Vec<i64> = events.iter().map(|e| e.id.parse().unwrap()).collect();
    let expected: Vec<i64> = (first..first + ids.len() as i64).collect();
    assert_eq!(ids, expected, "event ids run without gaps");
}

#[tokio::test]
async fn a_conversation_stream_starts_with_a_snapshot_then_follows_the_agent_live() {
    let app = TestApp::spawn().await;
    let id = create_conversation(&app).await;
    let mut stream = SseReader::open(&app, &format!("/api/conversations/{id}/events"), None).await;
    let snapshot = stream.next().await;
    assert_eq!(
        (snapshot.event.as_str(), snapshot.id.as_str()),
        ("snapshot", "0")
    );
    assert_eq!(snapshot.data["messages"], serde_json::json!([]));

    post_message(&app, &id, "list files").await;
    let events = stream.until_run_done().await;
    assert_contiguous(&events, 1);
    assert_eq!(
        kinds(&events),
        [
            "user message",
            "title list files",
            "run running",
            "assistant message",
            "list_directory approved",
            "list_directory executing",
            "list_directory completed",
            "assistant message",
            "run done",
        ]
    );
    let reply = &events[7].data["content"];
    assert_eq!(
        reply,
        "The workspace has 3 file(s): drafts/plan.md, notes.txt, todo.md."
    );
    // The agent's Markdown arrives rendered, live and in a later snapshot;
    // the person's words arrive as typed.
    let html = "<p>The workspace has 3 file(s): drafts/plan.md, notes.txt, todo.md.</p>\n";
    assert_eq!(events[7].data["html"], html);
    assert!(events[0].data.get("html").is_none(), "{}", events[0].data);
    let path = format!("/api/conversations/{id}/events");
    let snapshot = SseReader::open(&app, &path, None).await.next().await;
    let messages = snapshot.data["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["html"], html);
    assert!(messages[0].get("html").is_none(), "{}", messages[0]);
    // Each reply streamed in pieces before it was stored (a turn that only
    // calls tools writes nothing).
    let mut streamed = 0;
    for (at, event) in events.iter().enumerate() {
        if event.event != "message.created" || event.data["role"] != "assistant" {
            continue;
        }
        let pieces: Vec<&str> = stream
            .drafts
            .iter()
            .filter(|(before, _)| *before == at)
            .map(|(_, text)| text.as_str())
            .collect();
        assert_eq!(pieces.concat(), event.data["content"].as_str().unwrap());
        streamed += usize::from(pieces.len() > 1);
    }
    assert_eq!(streamed, 1, "the answer streamed in pieces");
    assert!(
        stream.rendered.is_empty(),
        "a one-line reply renders once stored"
    );
}

#[tokio::test]
async fn a_reply_streams_rendered_a_line_behind_its_text() {
    let app = TestApp::spawn().await;
    let id = create_conversation(&app).await;
    let mut stream = SseReader::open(&app, &format!("/api/conversations/{id}/events"), None).await;
    stream.next().await;
    post_message(&app, &id, "read notes.txt").await;
    let events = stream.until_run_done().await;
    let reply = events
        .iter()
        .rfind(|e| e.event == "message.created" && e.data["role"] == "assistant")
        .unwrap();
    let content = reply.data["content"].as_str().unwrap();
    assert!(
        content.ends_with("- ship the approvals inbox\n"),
        "{content}"
    );
    // Each line, once complete, arrives rendered, while the text after it
    // streams as it is written; the last rendering is the stored reply's.
    assert_eq!(stream.rendered[0], "<p>Here is notes.txt:</p>\n");
    assert!(stream
        .rendered
        .iter()
        .any(|html| html.contains("<li>budget review on Friday</li>")
            && !html.contains("ship the approvals inbox")));
    assert_eq!(
        stream.rendered.last().unwrap(),
        reply.data["html"].as_str().unwrap()
    );
    // Each line sends only what changed: the reply's HTML crosses about
    // once, not once per line.
    let whole: usize = stream.rendered.iter().map(String::len).sum();
    assert!(stream.rendered.len() > 3, "{:?}", stream.rendered);
    assert!(
        stream.html_sent < 2 * stream.rendered.last().unwrap().len()
            && stream.html_sent < whole / 2,
        "{} bytes of HTML sent for {} rendered",
        stream.html_sent,
        whole
    );
}

#[tokio::test]
async fn a_reconnect_with_last_event_id_receives_every_missed_event_in_order() {
    let app = TestApp::spawn().await;
    let id = create_conversation(&app).await;
    let path = format!("/api/conversations/{id}/events");
    let mut stream = SseReader::open(&app, &path, None).await;
    stream.next().await; // the snapshot
    post_message(&app, &id, "hello").await;
    let seen = stream.until_run_done().await;
    let last_seen = seen.last().unwrap().id.clone();
    drop(stream); // the subscriber goes away

    post_message(&app, &id, "read notes.txt").await;
    // Wait, without a stream, until the agent has answered.
    let conversation = engine::ConversationId::parse(&id).unwrap();
    for _ in 0..100 {
        if app
            .engine
            .store()
            .active_run(&conversation)
            .await
            .unwrap()
            .is_none()
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut stream = SseReader::open(&app, &path, Some(&last_seen)).await;
    let missed = stream.until_run_done().await;
    assert_contiguous(&missed, last_seen.parse::<i64>().unwrap() + 1);
    assert_eq!(missed[0].data["content"], "read notes.txt");
    assert_eq!(kinds(&missed).last().unwrap(), "run done");
    assert!(missed.iter().any(|e| e.data["content"]
        .as_str()
        .is_some_and(|t| t.starts_with("Here is notes.txt"))));

    // And it stays live.
    post_message(&app, &id, "list files").await;
    let live = stream.until_run_done().await;
    assert_contiguous(&live, missed.last().unwrap().id.parse::<i64>().unwrap() + 1);
}

#[tokio::test]
async fn streams_of_unknown_conversations_are_404() {
    let app = TestApp::spawn().await;
    for id in ["nope", "conv_0000000000000000000000000000dead"] {
        let res = app.get(&format!("/api/conversations/{id}/events")).await;
        assert_eq!(res.status(), 404, "{id}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], "not_found");
    }
}

fn delete(path: &str) -> engine::decisions::ProposedCall {
    engine::decisions::ProposedCall {
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: serde_json::json!({ "path": path }),
        read_only_hint: false,
    }
}

#[tokio::test]
async fn the_inbox_stream_follows_approvals_of_every_conversation() {
    use engine::decisions::{Reviewer, Verdict};
    use engine::domain::Channel;
    let app = TestApp::spawn().await;
    let a = app.engine.create_conversation().await.unwrap().id;
    let b = app.engine.create_conversation().await.unwrap().id;
    let first = app
        .engine
        .propose_calls(&a, vec![delete("old.txt")])
        .await
        .unwrap();

    let mut inbox = SseReader::open(&app, "/api/approvals/events", None).await;
    let snapshot = inbox.next().await;
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.data["pending"][0]["id"], first[0].id.as_str());
    assert_eq!(snapshot.data["pending"][0]["status"], "pending_approval");

    let second = app
        .engine
        .propose_calls(&b, vec![delete("other.txt")])
        .await
        .unwrap();
    let created = inbox.next().await;
    assert_eq!(
        (created.event.as_str(), created.data["id"].as_str()),
        ("tool_call.created", Some(second[0].id.as_str()))
    );
    drop(inbox);

    // Decided while nobody watched: a reconnect replays it.
    let reviewer = Reviewer::named("ana", Channel::Chat);
    app.engine
        .decide(&first[0].id, Verdict::Approve, &reviewer)
        .await
        .unwrap();
    let mut inbox = SseReader::open(&app, "/api/approvals/events", Some(&created.id)).await;
    let updated = inbox.next().await;
    assert_eq!(updated.event, "tool_call.updated");
    assert_eq!(updated.data["status"], "approved");
    assert_eq!(updated.data["decision"]["by"], "ana");
    assert!(updated.id.parse::<i64>().unwrap() > created.id.parse::<i64>().unwrap());

    // The conversation's own stream carries the same change.
    let mut stream =
        SseReader::open(&app, &format!("/api/conversations/{a}/events"), Some("1")).await;
    let event = stream.next().await;
    assert_eq!(
        (event.event.as_str(), event.id.as_str()),
        ("tool_call.updated", "2")
    );
}

/// Reads the list stream until its list has an entry for `id` that `wanted` accepts.
async fn until_listed(
    list: &mut SseReader,
    id: &str,
    wanted: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    loop {
        let event = list.next().await;
        assert_eq!(event.event, "conversations");
        let items = event.data["conversations"].as_array().unwrap();
        if let Some(item) = items.iter().find(|i| i["id"] == id).filter(|i| wanted(i)) {
            // The page's rendering of the same list comes with it.
            let html = event.data["html"].as_str().unwrap();
            assert!(html.contains(&format!("href=\"/c/{id}\"")), "{html}");
            return item.clone();
        }
    }
}

#[tokio::test]
async fn the_list_stream_follows_names_messages_and_waiting_calls() {
    use engine::decisions::{Reviewer, Verdict};
    use engine::domain::Channel;
    let app = TestApp::spawn().await;
    let a = create_conversation(&app).await;
    let mut list = SseReader::open(&app, "/api/conversations/events", None).await;
    let first = list.next().await;
    assert_eq!(first.event, "conversations");
    let listed = &first.data["conversations"][0];
    assert_eq!(listed["id"], a.as_str());
    assert_eq!(listed["title"], "New conversation");
    assert_eq!(listed["message_count"], 0);
    let html = first.data["html"].as_str().unwrap();
    assert!(
        html.starts_with("<ul aria-label=\"Conversations\""),
        "{html}"
    );
    assert!(html.contains("New conversation"), "{html}");

    // Its first message names it; the reply counts too.
    post_message(&app, &a, "list files").await;
    let named = until_listed(&mut list, &a, |i| i["message_count"] == 2).await;
    assert_eq!(named["title"], "list files");
    assert_eq!(named["updated_label"], "just now");
    assert_eq!(named["pending_count"], 0);

    // An external agent's call waits in another conversation, then is decided.
    let b = app.engine.create_conversation().await.unwrap().id;
    let calls = app
        .engine
        .propose_calls(&b, vec![delete("old.txt")])
        .await
        .unwrap();
    until_listed(&mut list, b.as_str(), |i| i["pending_count"] == 1).await;
    let reviewer = Reviewer::named("ana", Channel::Chat);
    app.engine
        .decide(&calls[0].id, Verdict::Reject { reason: None }, &reviewer)
        .await
        .unwrap();
    until_listed(&mut list, b.as_str(), |i| i["pending_count"] == 0).await;

    // The page puts the rendered list in place as it is: a name's markup is text.
    let c = create_conversation(&app).await;
    post_message(&app, &c, "<img src=x onerror=alert(1)> hi").await;
    loop {
        let event = list.next().await;
        let html = event.data["html"].as_str().unwrap();
        if html.contains(&c) && html.contains("onerror") {
            assert!(
                html.contains("&lt;img src=x onerror=alert(1)&gt; hi"),
                "{html}"
            );
            assert!(!html.contains("<img"), "{html}");
            break;
        }
    }
}

/// Reads the grants stream until `wanted` accepts its list; the event's data.
async fn until_grants(
    stream: &mut SseReader,
    wanted: impl Fn(&[serde_json::Value]) -> bool,
) -> serde_json::Value {
    loop {
        let event = stream.next().await;
        assert_eq!(event.event, "grants");
        if wanted(event.data["grants"].as_array().unwrap()) {
            return event.data;
        }
    }
}

#[tokio::test]
async fn the_grants_stream_follows_grants_made_and_revoked() {
    use engine::decisions::{Reviewer, Verdict};
    use engine::domain::Channel;
    let app = TestApp::spawn().await;
    let mut stream = SseReader::open(&app, "/api/grants/events", None).await;
    let first = stream.next().await;
    assert_eq!(first.event, "grants");
    assert_eq!(first.data["grants"], serde_json::json!([]));
    let html = first.data["html"].as_str().unwrap();
    assert!(html.contains("Nothing is always allowed"), "{html}");

    let c = app.engine.create_conversation().await.unwrap().id;
    let calls = app
        .engine
        .propose_calls(&c, vec![delete("old.txt")])
        .await
        .unwrap();
    let reviewer = Reviewer::named("ana", Channel::Chat);
    app.engine
        .decide(
            &calls[0].id,
            Verdict::AlwaysAllow {
                everywhere: true,
                lasts: None,
                arguments: Default::default(),
            },
            &reviewer,
        )
        .await
        .unwrap();
    let made = until_grants(&mut stream, |items| items.len() == 1).await;
    let grant = &made["grants"][0];
    assert_eq!(grant["tool"], "delete_file");
    assert_eq!(grant["created_by"], "ana");
    assert_eq!(grant["revoked_label"], serde_json::Value::Null);
    let html = made["html"].as_str().unwrap();
    assert!(
        html.contains("aria-label=\"Always allowed tools\""),
        "{html}"
    );

    let id = engine::domain::GrantId::parse(grant["id"].as_str().unwrap()).unwrap();
    app.engine.revoke_grant(&id, None).await.unwrap();
    let revoked = until_grants(&mut stream, |items| items[0]["revoked_label"].is_string()).await;
    assert_eq!(revoked["grants"][0]["revoked_label"], "just now");
    let html = revoked["html"].as_str().unwrap();
    assert!(html.contains("Nothing is always allowed now."), "{html}");
}

#[tokio::test]
async fn pages_go_out_gzipped_and_small_answers_and_event_streams_never_do() {
    let app = TestApp::spawn().await;
    let id = create_conversation(&app).await;
    let get = |path: String| {
        app.client
            .get(format!("{}{path}", app.base))
            .header("accept-encoding", "gzip")
            .send()
    };
    let page = get(format!("/c/{id}")).await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-encoding"], "gzip");
    let gzipped = page.bytes().await.unwrap();
    assert_eq!(&gzipped[..2], [0x1f, 0x8b], "a gzip stream");

    // A small answer is not worth compressing.
    let health = get("/healthz".to_owned()).await.unwrap();
    assert_eq!(health.status(), 200);
    assert!(health.headers().get("content-encoding").is_none());

    let mut stream = get(format!("/api/conversations/{id}/events"))
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    assert!(stream.headers().get("content-encoding").is_none());
    // The snapshot arrives at once, as plain text, not held in a buffer.
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), stream.chunk())
        .await
        .expect("the first event within 5 s")
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&first).contains("event: snapshot"));
}

#[tokio::test]
async fn pages_are_never_stored_and_other_answers_keep_their_caching() {
    let app = TestApp::spawn().await;
    let id = create_conversation(&app).await;
    for path in ["/".to_owned(), format!("/c/{id}"), "/approvals".to_owned()] {
        let page = app.get(&path).await;
        assert_eq!(page.status(), 200, "{path}");
        assert_eq!(page.headers()["cache-control"], "no-store", "{path}");
    }
    // An unknown page is HTML too: a stored 404 would hide the page once it exists.
    let missing = app.get("/c/conv_00000000000000000000000000000000").await;
    assert_eq!(missing.headers()["cache-control"], "no-store");

    let health = app.get("/healthz").await;
    assert!(health.headers().get("cache-control").is_none());
    let api = app.get("/api/openapi.json").await;
    assert!(api.headers().get("cache-control").is_none());
}

#[tokio::test]
async fn grants_are_listed_with_their_conversation_and_revoked() {
    use engine::decisions::{Reviewer, Verdict};
    use engine::domain::Channel;
    let app = TestApp::spawn().await;
    let list = || async {
        let res = app.get("/api/fn/list_grants").await;
        assert_eq!(res.status(), 200);
        res.json::<serde_json::Value>().await.unwrap()
    };
    assert_eq!(list().await, serde_json::json!([]));

    let id = create_conversation(&app).await;
    post_message(&app, &id, "tidy <b>up</b>").await;
    let conversation = engine::domain::ConversationId::parse(&id).unwrap();
    let call = app
        .engine
        .propose_calls(&conversation, vec![delete("old.txt")])
        .await
        .unwrap()
        .remove(0);
    let reviewer = Reviewer::named("ana", Channel::Chat);
    app.engine
        .decide(
            &call.id,
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: None,
                arguments: Default::default(),
            },
            &reviewer,
        )
        .await
        .unwrap();
    let grants = list().await;
    let grant = &grants[0];
    assert_eq!(grant["tool"], "delete_file");
    assert_eq!(grant["conversation_id"], id.as_str());
    assert_eq!(grant["conversation_title"], "tidy <b>up</b>");
    assert_eq!(grant["created_by"], "ana");
    assert_eq!(grant["revoked_label"], serde_json::Value::Null);
    let page = app.get("/allowed").await.text().await.unwrap();
    assert!(page.contains("tidy &lt;b&gt;up&lt;/b&gt;"), "{page}");
    assert!(page.contains(r#"aria-label="Always allowed tools""#));

    // A mistyped id is a 400, an unknown one a 404; neither touches the grant.
    for (grant_id, status, code) in [
        ("nope", 400, "invalid"),
        ("grant_0000000000000000000000000000dead", 404, "not_found"),
    ] {
        let res = app
            .post_form("/api/fn/revoke_grant", &[("grant_id", grant_id)])
            .await;
        assert_eq!(res.status(), status, "for {grant_id}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], code, "for {grant_id}: {body}");
    }
    // A plain form's post that fails comes back to the page, which says why.
    let res = app
        .post_from_page(
            "/allowed",
            "/api/fn/revoke_grant",
            &[("grant_id", "grant_0000000000000000000000000000dead")],
        )
        .await;
    assert!(res.status().is_redirection(), "got {}", res.status());
    let back = res.headers()["location"].to_str().unwrap().to_owned();
    let back = back.strip_prefix(&app.base).unwrap_or(&back).to_owned();
    assert!(back.starts_with("/allowed?"), "sent back to {back}");
    let page = app.get(&back).await.text().await.unwrap();
    assert!(
        page.contains(r#"<p role="alert" class="form-error">grant not found<"#),
        "{page}"
    );
    let grant_id = grant["id"].as_str().unwrap();
    // Revoking twice (two tabs, say) succeeds both times.
    for _ in 0..2 {
        let res = app
            .post_form("/api/fn/revoke_grant", &[("grant_id", grant_id)])
            .await;
        assert_eq!(res.status(), 200);
    }
    assert_eq!(list().await[0]["revoked_label"], "just now");
    let next = app
        .engine
        .propose_calls(&conversation, vec![delete("new.txt")])
        .await
        .unwrap()
        .remove(0);
    assert_eq!(next.status, engine::domain::CallStatus::PendingApproval);
}

#[tokio::test]
async fn a_grant_whose_end_has_passed_is_listed_as_ended_not_in_force() {
    use engine::domain::{Grant, GrantId, GrantScope};
    let app = TestApp::spawn().await;
    let made = chrono::Utc::now() - chrono::Duration::hours(2);
    let grant = |tool: &str, hours: i64| Grant {
        id: GrantId::new(),
        source: "demo".into(),
        tool: tool.into(),
        scope: GrantScope::Global,
        arguments: Default::default(),
        created_by: "ana".into(),
        created_by_id: None,
        created_at: made,
        expires_at: Some(made + chrono::Duration::hours(hours)),
        revoked_at: None,
        revoked_by: None,
    };
    let store = app.engine.store();
    let audit = engine::store::GrantAudit {
        actor: "ana",
        channel: "chat",
        call: None,
    };
    store
        .insert_grant(&grant("delete_file", 1), audit)
        .await
        .unwrap();
    store
        .insert_grant(&grant("send_email", 8), audit)
        .await
        .unwrap();
    let page = app.get("/allowed").await.text().await.unwrap();
    let (in_force, record) = page
        .split_once(r#"aria-label="Revoked or ended""#)
        .expect("an ended grant is in the record");
    assert!(in_force.contains("send_email"), "{in_force}");
    assert!(!in_force.contains("delete_file"), "{in_force}");
    assert!(
        record.contains("delete_file") && record.contains("ended "),
        "{record}"
    );
    let listed = app.get("/api/fn/list_grants").await;
    let items: serde_json::Value = listed.json().await.unwrap();
    let ended: Vec<bool> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["ended"].as_bool().unwrap())
        .collect();
    assert_eq!(ended.iter().filter(|e| **e).count(), 1);
}
