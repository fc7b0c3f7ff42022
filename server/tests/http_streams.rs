//! The server's event streams through its public HTTP surface, on a real
//! socket: a conversation's, the inbox's, the list's and the grants'.

use crate::http_app;

use http_app::sse::{assert_contiguous, kinds, SseReader};
use http_app::*;

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
    let conversation = engine::domain::ConversationId::parse(&id).unwrap();
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

#[tokio::test]
async fn the_inbox_stream_follows_approvals_of_every_conversation() {
    use engine::domain::{Channel, Reviewer, Verdict};
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
    use engine::domain::{Channel, Reviewer, Verdict};
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
    use engine::domain::{Channel, Reviewer, Verdict};
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
