//! The server through its public HTTP surface, on a real socket: health,
//! pages, conversations over server functions, client mistakes, caching and
//! compression, and grants.

use crate::http_app;

use http_app::*;

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
    let res = app
        .client
        .get(format!("{}/nope", app.base))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(res.headers()["cache-control"], "no-store");
    assert!(res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("'nonce-"));
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
    use engine::domain::{Channel, Reviewer, Verdict};
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
