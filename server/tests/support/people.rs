//! Signing in over HTTP, for the tests of sign-in and access: people, their
//! session cookies, and posts as a page of the server makes them.

use engine::domain::{Access, ConversationId, ProposedCall, ToolCall};
use engine::people::NewPerson;
use reqwest::Client;
use serde_json::Value;

use super::TestServer;

/// The password every test person has.
pub const PASSWORD: &str = "correct horse battery";

/// The configuration that turns sign-in on, with a call that waits.
pub const CONFIG: &str =
    "auth:\n  passwords: true\nsources:\n  demo:\n    require_approval: [delete_file]\n";

/// The session cookie a sign-in answer set, as `name=value`.
pub fn session_cookie(res: &reqwest::Response) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("airlock_session=") && !v.starts_with("airlock_session=;"))
        .map(str::to_owned)
}

/// Adds `name` with `access` and signs them in; their cookie.
pub async fn signed_in_as(
    server: &TestServer,
    client: &Client,
    name: &str,
    access: Access,
) -> String {
    server
        .engine
        .add_person(NewPerson {
            name: name.into(),
            display_name: name.to_uppercase(),
            access,
            password: Some(PASSWORD.into()),
            email: None,
        })
        .await
        .unwrap();
    signed_in_as_existing(server, client, name).await
}

/// Posts `fields` to server function `name` as a page of this server does.
pub async fn post_as(
    server: &TestServer,
    client: &Client,
    cookie: &str,
    name: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    client
        .post(server.url(&format!("/api/fn/{name}")))
        .header("accept", "application/json")
        .header("origin", &server.base)
        .header("cookie", cookie)
        .form(fields)
        .send()
        .await
        .unwrap()
}

pub async fn code(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    (
        status,
        res.json::<Value>().await.unwrap_or(Value::Null)["code"].clone(),
    )
}

/// Signs in a person who exists already; their cookie.
pub async fn signed_in_as_existing(server: &TestServer, client: &Client, name: &str) -> String {
    let res = client
        .post(server.url("/api/fn/sign_in"))
        .header("accept", "text/html")
        .form(&[("name", name), ("password", PASSWORD), ("next", "/")])
        .send()
        .await
        .unwrap();
    let set = session_cookie(&res).expect("a session cookie");
    set.split(';').next().unwrap().to_owned()
}

/// Asks for `path` as the person with `cookie`: a page, or a server
/// function's answer in JSON.
pub async fn get_as(
    server: &TestServer,
    client: &Client,
    cookie: &str,
    path: &str,
) -> reqwest::Response {
    let mut request = client.get(server.url(path)).header("cookie", cookie);
    if path.starts_with("/api/") {
        request = request.header("accept", "application/json");
    }
    request.send().await.unwrap()
}

/// Posts to server function `name` as the person with `cookie`, as a
/// page's plain form does without JavaScript (no fields).
pub async fn post_form_as(
    server: &TestServer,
    client: &Client,
    cookie: &str,
    name: &str,
) -> reqwest::Response {
    client
        .post(server.url(&format!("/api/fn/{name}")))
        .header("accept", "text/html")
        .header("origin", &server.base)
        .header("cookie", cookie)
        .form(&[("", "")])
        .send()
        .await
        .unwrap()
}

/// Has the agent propose `n` calls of `delete_file` on `notes.txt` in
/// `conversation`, each waiting for a person under the tests' policy.
pub async fn waiting_deletes(
    server: &TestServer,
    conversation: &ConversationId,
    n: usize,
) -> Vec<ToolCall> {
    let proposal = || ProposedCall {
        source: "demo".into(),
        tool: "delete_file".into(),
        arguments: serde_json::json!({ "path": "notes.txt" }),
        read_only_hint: false,
    };
    let proposals = (0..n).map(|_| proposal()).collect();
    server
        .engine
        .propose_calls(conversation, proposals)
        .await
        .unwrap()
}

/// A client of `base` signed in as `name`, every request carrying the
/// session cookie and this site as its origin, as a page's do.
pub async fn session_client(base: &str, name: &str, password: &str) -> reqwest::Client {
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = plain
        .post(format!("{base}/api/fn/sign_in"))
        .header("accept", "text/html")
        .form(&[("name", name), ("password", password), ("next", "/")])
        .send()
        .await
        .unwrap();
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("airlock_session="))
        .and_then(|v| v.split(';').next())
        .expect("signed in")
        .to_owned();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    headers.insert("origin", base.parse().unwrap());
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}
