//! Signing in with OpenID Connect against a real provider on loopback (the
//! `oidc-provider` package, through its own login pages): the first
//! sign-in adds the person, the next finds them, sign-out ends the session;
//! a tampered state, a sign-in started elsewhere, an expired code and a
//! disabled person are turned back to the sign-in page with a reason.

use std::collections::HashMap;
use std::io::BufRead;
use std::time::Duration;

use engine::domain::Access;
use reqwest::redirect::Policy;
use reqwest::{Client, Response};

use crate::support;

use support::people::{code, get_as, session_cookie};
use support::TestServer;

/// The provider, stopped when dropped.
struct Provider {
    child: std::process::Child,
    issuer: String,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn provider(redirect: &str, code_seconds: u32) -> Provider {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/support/oidc-provider.mjs");
    let mut child = std::process::Command::new("node")
        .arg(script)
        .arg(redirect)
        .arg(code_seconds.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("node runs the provider (make test installs end2end's packages)");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let issuer = loop {
        let line = lines
            .next()
            .expect("the provider says where it is")
            .unwrap();
        if let Some(issuer) = line.strip_prefix("issuer ") {
            break issuer.to_owned();
        }
    };
    // Whatever it says later is read too: a closed pipe would stop it.
    std::thread::spawn(move || lines.for_each(drop));
    Provider { child, issuer }
}

/// A server whose `auth:` block names `provider` (started for its callback).
async fn airlock(dir: &std::path::Path, code_seconds: u32) -> (TestServer, Provider) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let provider = provider(&format!("{base}/auth/oidc/callback"), code_seconds);
    let config = format!(
        "auth:\n  passwords: true\n  oidc:\n    issuer: {}\n    client_id: airlock\n    label: Sign in with Example\n",
        provider.issuer
    );
    let env = [("AIRLOCK_OIDC_CLIENT_SECRET", "airlock-test-secret")];
    let server = support::serve(listener, dir, &config, &env, Default::default()).await;
    (server, provider)
}

fn location(res: &Response) -> String {
    assert_eq!(res.status(), 303, "{res:?}");
    res.headers()["location"].to_str().unwrap().to_owned()
}

/// The cookies a response sets, as `name=value`.
fn set_cookies(res: &Response) -> Vec<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .map(str::to_owned)
        .collect()
}

/// Signs in as `login` at the provider's pages from Airlock's start, up to
/// the provider sending the browser back: the callback URL, and Airlock's
/// flow cookie.
async fn through_the_provider(
    server: &TestServer,
    client: &Client,
    login: &str,
) -> (String, String) {
    let started = client
        .get(server.url("/auth/oidc/start?next=/approvals"))
        .send()
        .await
        .unwrap();
    let flow = set_cookies(&started).remove(0);
    assert!(flow.starts_with("airlock_oidc="), "{flow}");
    let mut at = location(&started);
    let mut jar: HashMap<String, String> = HashMap::new();
    loop {
        if at.starts_with(&server.base) {
            return (at, flow);
        }
        let cookies: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let get = client
            .get(&at)
            .header("cookie", cookies.join("; "))
            .send()
            .await
            .unwrap();
        remember(&mut jar, &get);
        if get.status() == 303 {
            at = absolute(&at, &location(&get));
            continue;
        }
        // A login or consent page: its one form, posted.
        let page = get.text().await.unwrap();
        let action = page
            .split("action=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_owned();
        let fields: Vec<(&str, &str)> = if page.contains("name=\"login\"") {
            vec![("prompt", "login"), ("login", login), ("password", "any")]
        } else {
            vec![("prompt", "consent")]
        };
        let cookies: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let posted = client
            .post(absolute(&at, &action))
            .header("cookie", cookies.join("; "))
            .form(&fields)
            .send()
            .await
            .unwrap();
        remember(&mut jar, &posted);
        at = absolute(&at, &location(&posted));
    }
}

fn remember(jar: &mut HashMap<String, String>, res: &Response) {
    for cookie in set_cookies(res) {
        if let Some((name, value)) = cookie.split_once('=') {
            jar.insert(name.to_owned(), value.to_owned());
        }
    }
}

fn absolute(from: &str, to: &str) -> String {
    if to.starts_with("http") {
        return to.to_owned();
    }
    let origin: String = from.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    format!("{origin}{to}")
}

async fn back_at_airlock(client: &Client, callback: &str, flow: Option<&str>) -> Response {
    let mut request = client.get(callback);
    if let Some(flow) = flow {
        request = request.header("cookie", flow);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn people_sign_in_with_the_provider_and_are_added_once() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _provider) = airlock(dir.path(), 60).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let page = client.get(server.url("/sign-in")).send().await.unwrap();
    assert!(page.text().await.unwrap().contains("Sign in with Example"));

    let (callback, flow) = through_the_provider(&server, &client, "ana").await;
    let back = back_at_airlock(&client, &callback, Some(&flow)).await;
    assert_eq!(location(&back), "/approvals");
    let session = session_cookie(&back).expect("signed in");
    let session = session.split(';').next().unwrap().to_owned();
    let people = server.engine.people().await.unwrap();
    assert_eq!(people.len(), 1);
    let ana = &people[0];
    assert_eq!(
        (ana.name.as_str(), ana.display_name.as_str()),
        ("ana", "Ana Sso")
    );
    assert_eq!(ana.access, Access::Viewer);
    assert_eq!(ana.email.as_deref(), Some("ana@example.com"));
    let listed = get_as(&server, &client, &session, "/api/fn/list_sessions").await;
    assert_eq!(listed.status(), 200);

    // Signing out ends the session here.
    let out = client
        .post(server.url("/api/fn/sign_out"))
        .header("cookie", &session)
        .header("origin", &server.base)
        .header("accept", "application/json")
        .form(&[("", "")])
        .send()
        .await
        .unwrap();
    assert!(
        out.status().is_success() || out.status().is_redirection(),
        "{}",
        out.status()
    );
    let after = get_as(&server, &client, &session, "/api/fn/list_sessions").await;
    assert_eq!(code(after).await.0, 401);

    // The next sign-in finds the same person.
    let (callback, flow) = through_the_provider(&server, &client, "ana").await;
    let back = back_at_airlock(&client, &callback, Some(&flow)).await;
    assert_eq!(location(&back), "/approvals");
    assert_eq!(server.engine.people().await.unwrap().len(), 1);

    // An address the provider did not verify is not taken.
    let (callback, flow) = through_the_provider(&server, &client, "unverified-bo").await;
    back_at_airlock(&client, &callback, Some(&flow)).await;
    let people = server.engine.people().await.unwrap();
    let bo = people.iter().find(|p| p.name == "unverified-bo").unwrap();
    assert_eq!(bo.email, None);

    // A disabled person is turned back.
    server.engine.disable_person(&ana.id).await.unwrap();
    let (callback, flow) = through_the_provider(&server, &client, "ana").await;
    let back = back_at_airlock(&client, &callback, Some(&flow)).await;
    assert_eq!(location(&back), "/sign-in?sso_failed=refused");
    assert!(session_cookie(&back).is_none());
}

#[tokio::test]
async fn a_tampered_or_foreign_sign_in_is_turned_back() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _provider) = airlock(dir.path(), 60).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let (callback, flow) = through_the_provider(&server, &client, "bo").await;
    let tampered = callback.replace("state=", "state=x");
    let back = back_at_airlock(&client, &tampered, Some(&flow)).await;
    assert_eq!(location(&back), "/sign-in?sso_failed=flow");
    assert!(session_cookie(&back).is_none());
    // The same callback in a browser that did not start the sign-in.
    let back = back_at_airlock(&client, &callback, None).await;
    assert_eq!(location(&back), "/sign-in?sso_failed=flow");
    // A flow cookie another key signed.
    let forged = flow.replacen('.', ".x", 1);
    let back = back_at_airlock(&client, &callback, Some(&forged)).await;
    assert_eq!(location(&back), "/sign-in?sso_failed=flow");
    assert!(server.engine.people().await.unwrap().is_empty());
}

#[tokio::test]
async fn an_expired_code_is_turned_back() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _provider) = airlock(dir.path(), 1).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let (callback, flow) = through_the_provider(&server, &client, "cy").await;
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let back = back_at_airlock(&client, &callback, Some(&flow)).await;
    assert_eq!(location(&back), "/sign-in?sso_failed=provider");
    assert!(server.engine.people().await.unwrap().is_empty());
}
