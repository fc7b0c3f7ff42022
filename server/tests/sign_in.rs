//! With the `auth:` block, pages and server functions need a signed-in
//! person: a page goes to the sign-in page and back, a function answers
//! 401, a session rides in an HttpOnly cookie, a decision is recorded with
//! the person's name, signing out ends it, and failed sign-ins are held back.

use engine::domain::Access;
use engine::people::NewPerson;
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::Value;

use crate::support;

use support::people::{
    get_as, post_form_as, session_cookie, signed_in_as, signed_in_as_existing, waiting_deletes,
    CONFIG, PASSWORD,
};

#[tokio::test]
async fn with_sign_in_on_everything_but_the_way_in_needs_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    server
        .engine
        .add_person(NewPerson {
            name: "ana".into(),
            display_name: "Ana Lima".into(),
            access: Access::Approver,
            password: Some(PASSWORD.into()),
            email: None,
        })
        .await
        .unwrap();
    let client = Client::builder().redirect(Policy::none()).build().unwrap();

    // Without a session: a page goes to sign in and will come back; a
    // function is refused; the way in and health stay open.
    let page = client
        .get(server.url("/approvals?x=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 303);
    assert_eq!(
        page.headers()["location"],
        "/sign-in?next=/approvals%3Fx%3D1"
    );
    let refused = client
        .post(server.url("/api/fn/create_conversation"))
        .header("accept", "application/json")
        .form(&[("", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["code"],
        "unauthenticated"
    );
    let way_in = client
        .get(server.url("/sign-in?next=/approvals"))
        .send()
        .await
        .unwrap();
    assert_eq!(way_in.status(), 200);
    let html = way_in.text().await.unwrap();
    assert!(html.contains("autocomplete=\"current-password\""), "{html}");
    assert!(html.contains("value=\"/approvals\""), "{html}");
    assert_eq!(
        client
            .get(server.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    // A wrong password: refused, the same answer as for nobody, no cookie.
    for name in ["ana", "nobody"] {
        let wrong = client
            .post(server.url("/api/fn/sign_in"))
            .header("accept", "application/json")
            .form(&[
                ("name", name),
                ("password", "not the password"),
                ("next", "/"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), 401);
        assert!(session_cookie(&wrong).is_none());
        assert_eq!(
            wrong.json::<Value>().await.unwrap()["code"],
            "sign_in_failed"
        );
    }

    // The right one, as the plain form posts it: the cookie, then on to
    // the page asked for (never to another site).
    let signed_in = client
        .post(server.url("/api/fn/sign_in"))
        .header("accept", "text/html")
        .form(&[
            ("name", "ana"),
            ("password", PASSWORD),
            ("next", "/approvals"),
        ])
        .send()
        .await
        .unwrap();
    assert!(
        signed_in.status().is_redirection(),
        "{}",
        signed_in.status()
    );
    assert_eq!(signed_in.headers()["location"], "/approvals");
    let set = session_cookie(&signed_in).expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(set.contains(attribute), "{set}");
    }
    let cookie = set.split(';').next().unwrap().to_owned();

    // Signed in: pages and functions answer, the header names the person,
    // and a decision is recorded with their name.
    let page = get_as(&server, &client, &cookie, "/approvals").await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Ana Lima"));
    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 1).await;
    // A change the cookie authenticates must say which page it came from:
    // without, it could be another site's forgery, and nothing changes.
    let forged = client
        .post(server.url("/api/fn/approve_call"))
        .header("accept", "application/json")
        .header("cookie", &cookie)
        .form(&[("call_id", calls[0].id.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    assert_eq!(
        forged.json::<Value>().await.unwrap()["code"],
        "cross_site_request"
    );
    let still = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert_eq!(still[0].decision, None);
    let approved: Value = client
        .post(server.url("/api/fn/approve_call"))
        .header("accept", "application/json")
        .header("origin", &server.base)
        .header("cookie", &cookie)
        .form(&[("call_id", calls[0].id.as_str())])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(approved["decision"]["by"], "Ana Lima", "{approved}");

    // Signing out ends the session and clears the cookie.
    let out = post_form_as(&server, &client, &cookie, "sign_out").await;
    assert!(out.status().is_redirection(), "{:?}", out.headers());
    let cleared = out.headers()["set-cookie"].to_str().unwrap();
    assert!(
        cleared.starts_with("airlock_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    let after = get_as(&server, &client, &cookie, "/approvals").await;
    assert_eq!(after.status(), 303);
}

#[tokio::test]
async fn failed_sign_ins_are_held_back_with_how_long_to_wait() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let attempt = || {
        client
            .post(server.url("/api/fn/sign_in"))
            .header("accept", "application/json")
            .form(&[
                ("name", "ana"),
                ("password", "not the password"),
                ("next", "/"),
            ])
            .send()
    };
    for _ in 0..5 {
        assert_eq!(attempt().await.unwrap().status(), 401);
    }
    let held = attempt().await.unwrap();
    assert_eq!(held.status(), 429);
    let retry_after: u64 = held.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body: Value = held.json().await.unwrap();
    assert_eq!(body["code"], "too_many_attempts");
    assert_eq!(
        body["retry_after_secs"].as_u64(),
        Some(retry_after),
        "{body}"
    );
    assert!(retry_after > 0);
}

#[tokio::test]
async fn a_next_that_is_no_plain_path_goes_home_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    signed_in_as(&server, &client, "ana", Access::Approver).await;
    // Each would panic in building the redirect's `Location` if followed.
    for next in ["/\u{b}x", "/\tx", "/\\evil.example", "/caf\u{e9}"] {
        let answer = client
            .post(server.url("/api/fn/sign_in"))
            .header("accept", "text/html")
            .form(&[("name", "ana"), ("password", PASSWORD), ("next", next)])
            .send()
            .await
            .unwrap();
        assert!(
            answer.status().is_redirection(),
            "{next:?}: {}",
            answer.status()
        );
        assert_eq!(answer.headers()["location"], "/", "{next:?}");
        assert!(session_cookie(&answer).is_some(), "{next:?}");
    }
}

#[test]
fn without_sign_in_it_refuses_to_listen_beyond_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_ADDR", "0.0.0.0:0")
        .env("AIRLOCK_DATA_DIR", dir.path())
        .env_remove("AIRLOCK_CONFIG")
        .env_remove("AIRLOCK_DATABASE_URL")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("add an `auth:` block"), "{said}");
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session_of_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let laptop = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let phone = signed_in_as_existing(&server, &client, "ana").await;
    let bo = signed_in_as(&server, &client, "bo", Access::Approver).await;

    let listed: Value = get_as(&server, &client, &laptop, "/api/fn/list_sessions")
        .await
        .json()
        .await
        .unwrap();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2, "ana's two, not bo's: {listed:?}");
    assert_eq!(listed.iter().filter(|s| s["current"] == true).count(), 1);
    let page = get_as(&server, &client, &laptop, "/account").await;
    assert!(page.text().await.unwrap().contains("This browser"));

    let out = post_form_as(&server, &client, &laptop, "sign_out_everywhere").await;
    assert!(out.status().is_redirection(), "{}", out.status());
    for (cookie, still) in [(&laptop, false), (&phone, false), (&bo, true)] {
        let page = get_as(&server, &client, cookie, "/approvals").await;
        assert_eq!(page.status() == 200, still, "{cookie}");
    }
}

/// Behind a trusted proxy, failed sign-ins are held back per client as the
/// proxy names it; a header from anyone else names nobody.
#[tokio::test]
async fn behind_a_trusted_proxy_each_client_is_held_back_alone() {
    let attempts_from =
        |server: &support::TestServer, client: &Client, from: &'static str, n: usize| {
            let (server, client) = (server.url("/api/fn/sign_in"), client.clone());
            async move {
                let mut last = 0;
                for i in 0..n {
                    let name = format!("nobody{i}");
                    let res = client
                        .post(&server)
                        .header("accept", "application/json")
                        .header("x-forwarded-for", from)
                        .form(&[
                            ("name", name.as_str()),
                            ("password", "not the password"),
                            ("next", "/"),
                        ])
                        .send()
                        .await
                        .unwrap();
                    last = res.status().as_u16();
                }
                last
            }
        };
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    for (trusted, other_client) in [("127.0.0.1", 401), ("", 429)] {
        let dir = tempfile::tempdir().unwrap();
        let env = [("AIRLOCK_TRUSTED_PROXIES", trusted)];
        let server = support::start(dir.path(), CONFIG, &env, support::Workers::default()).await;
        // 20 failures from one client, under 20 names: the 21st is held back.
        assert_eq!(
            attempts_from(&server, &client, "203.0.113.1", 20).await,
            401
        );
        assert_eq!(attempts_from(&server, &client, "203.0.113.1", 1).await, 429);
        // Another client behind the same proxy is not, unless the proxy is not trusted.
        let other = attempts_from(&server, &client, "203.0.113.2", 1).await;
        assert_eq!(other, other_client, "trusted proxies: {trusted:?}");
    }
}

#[tokio::test]
async fn a_password_is_refused_where_passwords_are_off() {
    // Passwords off (people sign in with a provider), and no sign-in at all.
    let provider = discovery_only().await;
    let off = format!(
        "auth:\n  passwords: false\n  oidc:\n    issuer: {provider}\n    client_id: airlock\n"
    );
    for (config, says) in [
        (off.as_str(), "takes no passwords"),
        ("", "nobody signs in"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let server = support::start(dir.path(), config, &[], support::Workers::default()).await;
        server
            .engine
            .add_person(NewPerson {
                name: "ana".into(),
                display_name: "Ana Lima".into(),
                access: Access::Admin,
                password: Some(PASSWORD.into()),
                email: None,
            })
            .await
            .unwrap();
        let client = Client::builder().redirect(Policy::none()).build().unwrap();
        let refused = client
            .post(server.url("/api/fn/sign_in"))
            .header("accept", "application/json")
            .header("origin", &server.base)
            .form(&[("name", "ana"), ("password", PASSWORD), ("next", "/")])
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{config}");
        assert!(refused.headers().get("set-cookie").is_none(), "{config}");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["code"], "invalid", "{body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{body}");
    }
}

/// An OpenID provider's discovery document and empty key set, all that
/// Airlock reads at start-up; nobody signs in through it here.
async fn discovery_only() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let document = serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    });
    let app = axum::Router::new()
        .route(
            "/.well-known/openid-configuration",
            axum::routing::get(move || async move { axum::Json(document) }),
        )
        .route(
            "/jwks",
            axum::routing::get(|| async { axum::Json(serde_json::json!({"keys": []})) }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    issuer
}
