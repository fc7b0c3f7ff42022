//! Slack's side, played on loopback for the Slack app's tests: its
//! incoming webhook, its Web API (`auth.test`, `users.info`, `views.open`)
//! and `response_url`s, keeping what Airlock sends them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query};
use axum::routing::{get, post};
use axum::Json;
use serde_json::{json, Value};

/// The bot token Slack's side takes.
pub const TOKEN: &str = "xoxb-airlock-test";

/// Slack, as far as Airlock sees it: what it was sent, by path.
#[derive(Clone, Default)]
pub struct Slack {
    got: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Slack {
    pub async fn start() -> (String, Self) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let slack = Self::default();
        let (hook, answers, views) = (slack.clone(), slack.clone(), slack.clone());
        let app = axum::Router::new()
            .route(
                "/services/T1/B2/c3",
                post(move |Json(m): Json<Value>| async move { hook.keep("hook", m) }),
            )
            .route(
                "/actions/{n}",
                post(
                    move |Path(n): Path<String>, Json(m): Json<Value>| async move {
                        answers.keep(&format!("answer {n}"), m)
                    },
                ),
            )
            .route(
                "/api/auth.test",
                get(|h: http::HeaderMap| async move { Json(auth_test(&h)) }),
            )
            .route("/api/users.info", get(users_info))
            .route(
                "/api/views.open",
                post(move |h: http::HeaderMap, Json(m): Json<Value>| async move {
                    views.keep("views.open", m);
                    Json(auth_test(&h))
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        (base, slack)
    }

    fn keep(&self, path: &str, message: Value) -> &'static str {
        self.got.lock().unwrap().push((path.to_owned(), message));
        "ok"
    }

    /// The first message sent to `path`, waited for.
    pub async fn first(&self, path: &str) -> Value {
        for _ in 0..200 {
            let found = {
                let got = self.got.lock().unwrap();
                got.iter().find(|(p, _)| p == path).map(|(_, m)| m.clone())
            };
            if let Some(message) = found {
                return message;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("nothing was sent to {path}");
    }

    pub fn sent_to(&self, path: &str) -> usize {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .count()
    }
}

fn authorized(headers: &http::HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

fn auth_test(headers: &http::HeaderMap) -> Value {
    match authorized(headers) {
        true => json!({ "ok": true, "team_id": "T1", "user_id": "UBOT" }),
        false => json!({ "ok": false, "error": "invalid_auth" }),
    }
}

/// Ana and Viv of workspace T1, and Mallory of T9, who claims Ana's address.
async fn users_info(
    headers: http::HeaderMap,
    Query(q): Query<Vec<(String, String)>>,
) -> Json<Value> {
    if !authorized(&headers) {
        return Json(json!({ "ok": false, "error": "invalid_auth" }));
    }
    let user = |team: &str, email: &str| {
        json!({ "ok": true, "user": {
            "team_id": team, "deleted": false, "is_bot": false, "is_email_confirmed": true,
            "profile": { "email": email },
        } })
    };
    Json(match q.first().map(|(_, v)| v.as_str()) {
        Some("UANA") => user("T1", "Ana.Lima@example.com"),
        Some("UVIV") => user("T1", "viv@example.com"),
        Some("UNEW") => user("T1", "new@example.com"),
        Some("UMAL") => user("T9", "ana.lima@example.com"),
        _ => json!({ "ok": false, "error": "user_not_found" }),
    })
}
