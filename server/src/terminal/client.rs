//! The terminal's one door to Airlock: `AIRLOCK_URL` (this machine's port
//! 3000 by default), with the personal API token in `AIRLOCK_TOKEN`. Every
//! answer is read, or becomes a [`Failure`] that says what to do next.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::{CONFLICT, NOT_ALLOWED, REFUSED, UNAVAILABLE};
use crate::hook::causes;

/// How long Airlock may take to accept a connection, and to send the next
/// part of an answer, before the terminal gives up on it. An event stream
/// sends a comment every 15 s, so one that stays open is not given up on.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// A running Airlock, and the token the terminal acts with.
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    token: Option<String>,
    http: reqwest::Client,
}

/// What went wrong, for a person, and the exit code that says what kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

/// An error answer's body: its code, message and, for a conflict, the
/// call's status now.
#[derive(Debug, Default, Deserialize)]
struct Refusal {
    #[serde(default)]
    message: String,
    #[serde(default)]
    status: Option<String>,
}

impl Client {
    /// The Airlock and token the environment names.
    pub fn from_env() -> Self {
        let base =
            std::env::var("AIRLOCK_URL").unwrap_or_else(|_| "http://127.0.0.1:3000".to_owned());
        let token = std::env::var("AIRLOCK_TOKEN")
            .ok()
            .filter(|t| !t.is_empty());
        Self::new(base, token)
    }

    /// The Airlock at `base`, asked with `token` when there is one.
    pub fn new(base: String, token: Option<String>) -> Self {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            base: base.trim_end_matches('/').to_owned(),
            token,
            http,
        }
    }

    /// Where it is, for messages.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Reads `path`'s JSON answer, with `query` in the address.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<T, Failure> {
        let url = format!("{}{path}", self.base);
        self.send(self.http.get(url).query(query)).await
    }

    /// Posts `body` to `path` and reads the JSON answer.
    pub async fn post<T: DeserializeOwned>(&self, path: &str, body: &Value) -> Result<T, Failure> {
        self.send(self.http.post(format!("{}{path}", self.base)).json(body))
            .await
    }

    /// Opens `path`'s event stream, to be read as its events come.
    pub async fn events(&self, path: &str) -> Result<reqwest::Response, Failure> {
        let url = format!("{}{path}", self.base);
        self.answer(self.http.get(url).header("accept", "text/event-stream"))
            .await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, Failure> {
        let response = self.answer(request).await?;
        response.json().await.map_err(|e| Failure {
            code: UNAVAILABLE,
            message: format!("Airlock's answer could not be read: {}", causes(&e)),
        })
    }

    /// Sends `request` with the token; a success comes back to be read, an
    /// error answer becomes what it means.
    async fn answer(
        &self,
        mut request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, Failure> {
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|e| Failure {
            code: UNAVAILABLE,
            message: format!(
                "cannot reach Airlock at {} ({}); is it running, and is AIRLOCK_URL its address?",
                self.base,
                causes(&e)
            ),
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let refusal: Refusal = response.json().await.unwrap_or_default();
        Err(self.failure(status, refusal))
    }

    /// What an error answer means for the person at the terminal.
    fn failure(&self, status: reqwest::StatusCode, refusal: Refusal) -> Failure {
        let said = match refusal.message.is_empty() {
            true => status.to_string(),
            false => refusal.message,
        };
        let (code, message) = match status.as_u16() {
            401 if self.token.is_none() => (
                NOT_ALLOWED,
                format!("Airlock at {} wants a personal API token: make one on your Account page and set AIRLOCK_TOKEN to it", self.base),
            ),
            401 => (
                NOT_ALLOWED,
                format!("Airlock at {} refused the token in AIRLOCK_TOKEN (revoked, or its person disabled): make a new one on your Account page", self.base),
            ),
            403 => (NOT_ALLOWED, said),
            409 => match refusal.status {
                Some(now) => (CONFLICT, format!("{said}; it is {} now", now.replace('_', " "))),
                None => (CONFLICT, said),
            },
            500.. => (
                UNAVAILABLE,
                format!("Airlock at {} failed ({status}): {said}", self.base),
            ),
            _ => (REFUSED, said),
        };
        Failure { code, message }
    }
}
