//! The setup link of a fresh install, over HTTP: it needs no session, adds
//! one administrator who is signed in at once, refuses any other token,
//! and works once.

use engine::domain::Access;
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::json;

use crate::support;

use support::people::{code, get_as, session_cookie, CONFIG, PASSWORD};

#[tokio::test]
async fn the_setup_link_adds_the_first_administrator_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let token = server
        .engine
        .setup_token()
        .await
        .unwrap()
        .expect("nobody yet");
    let page = client.get(server.url("/setup")).send().await.unwrap();
    assert_eq!(page.status(), 200, "the setup page needs no session");

    let set_up = |token: String, again: &'static str| {
        let (client, server) = (&client, &server);
        async move {
            let fields = [
                ("token", token.as_str()),
                ("name", "ana"),
                ("display_name", "Ana Lima"),
                ("password", PASSWORD),
                ("password_again", again),
            ];
            client
                .post(server.url("/api/fn/set_up"))
                .header("accept", "application/json")
                .header("origin", &server.base)
                .form(&fields)
                .send()
                .await
                .unwrap()
        }
    };
    let wrong = set_up("not-the-token".into(), PASSWORD).await;
    assert_eq!(code(wrong).await, (403, json!("invalid_setup_link")));
    let differ = set_up(token.as_str().into(), "another password").await;
    assert_eq!(code(differ).await, (400, json!("invalid")));
    assert!(server.engine.people().await.unwrap().is_empty());

    let added = set_up(token.as_str().into(), PASSWORD).await;
    assert!(added.status().is_success(), "{}", added.status());
    let cookie = session_cookie(&added).expect("signed in at once");
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let people = server.engine.people().await.unwrap();
    assert_eq!((people.len(), people[0].access), (1, Access::Admin));
    let listed = get_as(&server, &client, &cookie, "/api/fn/list_people").await;
    assert_eq!(listed.status(), 200);

    let again = set_up(token.as_str().into(), PASSWORD).await;
    assert_eq!(code(again).await, (403, json!("invalid_setup_link")));
    assert!(server.engine.setup_token().await.unwrap().is_none());
}
