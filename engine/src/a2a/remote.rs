//! A remote A2A agent, as Airlock talks to it: its card read once, the
//! interface picked from it (v1.0 where it offers one, else v0.3), kagent's
//! HITL extension activated when the card declares it, and JSON-RPC calls
//! that give back the task as Airlock reads it: its state, what the agent
//! said, and the tool-approval interrupt it waits on.

use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::{json, Value};
use sse_stream::SseStream;

mod events;
mod reply;

pub use reply::read_task;
use reply::{answered, refusal, replied, request, unreachable};

use super::kagent::{self, Interrupt};
use super::wire::{unwrap_result, Message, Method, TaskState, Version};

/// How long connecting to an agent may take; a call's answer may take as
/// long as the agent works.
const CONNECT: Duration = Duration::from_secs(10);

/// Why talking to a remote agent failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    #[error("Airlock cannot reach the agent at {url}: {why}")]
    Unreachable { url: String, why: String },
    #[error("the agent at {url} refused Airlock's credentials ({status})")]
    Unauthorized { url: String, status: u16 },
    #[error("the agent at {url} answered {status}: {body}")]
    Http {
        url: String,
        status: u16,
        body: String,
    },
    #[error("the agent's card at {url} is not one Airlock reads: {why}")]
    BadCard { url: String, why: String },
    #[error("the agent refused the request ({code}): {message}")]
    Rpc { code: i64, message: String },
    #[error("the agent answered something Airlock cannot read: {0}")]
    BadReply(String),
}

/// A remote agent, its card read.
#[derive(Debug, Clone)]
pub struct Remote {
    http: reqwest::Client,
    /// Its JSON-RPC endpoint.
    pub endpoint: String,
    /// The version it is spoken to in.
    pub version: Version,
    /// Whether its card declares kagent's HITL extension, which Airlock
    /// then activates on every request.
    pub extension: bool,
    /// Whether it streams (`capabilities.streaming`).
    pub streaming: bool,
    headers: HeaderMap,
}

/// What a stream tells as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard<'a> {
    /// The task's id and context, once, as soon as the agent names them:
    /// from then on the task can be followed again after a restart.
    Task { id: &'a str, context_id: &'a str },
    /// A piece of the reply.
    Text(&'a str),
}

/// A remote task as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTask {
    pub id: String,
    pub context_id: String,
    pub state: TaskState,
    /// What the agent said with its status, when it said something.
    pub said: Option<Message>,
    /// The text of its artifacts, one after another.
    pub artifacts: String,
    /// The calls it waits on, when its status asks for approval.
    pub interrupt: Option<Interrupt>,
}

impl Remote {
    /// Reads the card at `card` (an agent card's URL, or the agent's base
    /// URL, under which its card is at `/.well-known/agent-card.json`),
    /// sending `headers` with it and every later request.
    pub async fn connect(card: &str, headers: HeaderMap) -> Result<Self, RemoteError> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT)
            .build()
            .map_err(|e| unreachable(card, &e))?;
        let url = match card.ends_with(".json") {
            true => card.to_owned(),
            false => format!("{}/.well-known/agent-card.json", card.trim_end_matches('/')),
        };
        let response = http.get(&url).headers(headers.clone()).send().await;
        let response = response.map_err(|e| unreachable(&url, &e))?;
        let json: Value = answered(&url, response).await?;
        let bad = |why: &str| RemoteError::BadCard {
            url: url.clone(),
            why: why.to_owned(),
        };
        let (endpoint, version) = interface(&json)
            .ok_or_else(|| bad("it offers no JSON-RPC interface in A2A v1.0 or v0.3"))?;
        let declared = json["capabilities"]["extensions"]
            .as_array()
            .into_iter()
            .flatten();
        let extension = declared
            .into_iter()
            .any(|e| e["uri"] == kagent::HITL_EXTENSION);
        Ok(Self {
            http,
            endpoint,
            version,
            extension,
            streaming: json["capabilities"]["streaming"] == true,
            headers,
        })
    }

    /// Sends `message` and waits until its task asks for input or ends.
    pub async fn send(&self, message: &Message) -> Result<RemoteTask, RemoteError> {
        let configuration = match self.version {
            Version::V03 => json!({"blocking": true, "acceptedOutputModes": []}),
            Version::V10 => json!({}),
        };
        let params =
            json!({"message": message.write(self.version), "configuration": configuration});
        let result = self.call(Method::Send, params).await?;
        // A task or a message; a v0.3 result that names no kind is a task.
        match unwrap_result(&result, self.version) {
            ("message", reply) => replied(reply, message),
            ("task", task) => read_task(task),
            (_, task) if self.version == Version::V03 => read_task(task),
            _ => Err(RemoteError::BadReply(result.to_string())),
        }
    }

    /// Sends `message` and follows its task as it streams, telling `heard`
    /// the task's id and each piece of text the agent writes, until the
    /// task asks for input or ends. An agent that does not stream is sent
    /// it and waited for.
    pub async fn stream(
        &self,
        message: &Message,
        heard: impl FnMut(Heard<'_>),
    ) -> Result<RemoteTask, RemoteError> {
        if !self.streaming {
            return self.send(message).await;
        }
        let params = json!({"message": message.write(self.version)});
        self.follow(Method::Stream, params, heard).await
    }

    /// Follows task `id` from where it stands, as [`Remote::stream`] does;
    /// a task that asks for input or is over is read as it is.
    pub async fn resubscribe(
        &self,
        id: &str,
        heard: impl FnMut(Heard<'_>),
    ) -> Result<RemoteTask, RemoteError> {
        let task = self.get(id).await?;
        if !self.streaming || task.state.is_final() || task.state == TaskState::InputRequired {
            return Ok(task);
        }
        self.follow(Method::Resubscribe, json!({"id": id}), heard)
            .await
    }

    /// A streaming call, its events folded into the task until the agent
    /// ends the stream.
    async fn follow(
        &self,
        method: Method,
        params: Value,
        mut heard: impl FnMut(Heard<'_>),
    ) -> Result<RemoteTask, RemoteError> {
        let mut headers = self.request_headers();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let response = self.post(method, params, headers).await?;
        let streamed = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !streamed {
            // An error before the stream began comes as plain JSON.
            let answer = answered(&self.endpoint, response).await?;
            return Err(refusal(&answer));
        }
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());
        let mut following = events::Following::default();
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| RemoteError::Unreachable {
                url: self.endpoint.clone(),
                why: e.to_string(),
            })?;
            let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                continue;
            };
            let answer: Value = serde_json::from_str(&data)
                .map_err(|e| RemoteError::BadReply(format!("{e}: {data}")))?;
            if answer.get("error").is_some() {
                return Err(refusal(&answer));
            }
            let piece = following.apply(&answer["result"], self.version)?;
            if let Some((id, context_id)) = following.started() {
                heard(Heard::Task {
                    id: &id,
                    context_id: &context_id,
                });
            }
            if let Some(piece) = piece {
                heard(Heard::Text(&piece));
            }
        }
        following.task()
    }

    /// Task `id` as it stands.
    pub async fn get(&self, id: &str) -> Result<RemoteTask, RemoteError> {
        read_task(&self.call(Method::Get, json!({"id": id})).await?)
    }

    /// Cancels task `id`.
    pub async fn cancel(&self, id: &str) -> Result<RemoteTask, RemoteError> {
        read_task(&self.call(Method::Cancel, json!({"id": id})).await?)
    }

    /// One JSON-RPC call; its result.
    async fn call(&self, method: Method, params: Value) -> Result<Value, RemoteError> {
        let response = self.post(method, params, self.request_headers()).await?;
        let mut answer: Value = answered(&self.endpoint, response).await?;
        if answer.get("error").is_some() {
            return Err(refusal(&answer));
        }
        match answer.get_mut("result") {
            Some(result) => Ok(result.take()),
            None => Err(RemoteError::BadReply(answer.to_string())),
        }
    }

    /// Sends one JSON-RPC request with `headers`.
    async fn post(
        &self,
        method: Method,
        params: Value,
        headers: HeaderMap,
    ) -> Result<reqwest::Response, RemoteError> {
        let body = request(method.name(self.version), params);
        let sent = self.http.post(&self.endpoint).headers(headers).json(&body);
        sent.send()
            .await
            .map_err(|e| unreachable(&self.endpoint, &e))
    }

    /// The headers of a call: the configured ones, the version's, and the
    /// extension's when the card declares it.
    fn request_headers(&self) -> HeaderMap {
        let mut headers = self.headers.clone();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.version == Version::V10 {
            headers.insert("A2A-Version", HeaderValue::from_static("1.0"));
        }
        if self.extension {
            let name = match self.version {
                Version::V03 => "x-a2a-extensions",
                Version::V10 => "a2a-extensions",
            };
            let value = HeaderValue::from_static(kagent::HITL_EXTENSION);
            headers.insert(HeaderName::from_static(name), value);
        }
        headers
    }
}

/// The JSON-RPC interface a card offers that Airlock speaks: v1.0's
/// first, else v0.3's (`supportedInterfaces`, or the card's own `url`).
fn interface(card: &Value) -> Option<(String, Version)> {
    let offered = card["supportedInterfaces"].as_array().into_iter().flatten();
    let jsonrpc: Vec<&Value> = offered
        .filter(|i| i["protocolBinding"] == "JSONRPC")
        .collect();
    for (prefix, version) in [("1.", Version::V10), ("0.3", Version::V03)] {
        let found = jsonrpc.iter().find(|i| {
            let spoken = i["protocolVersion"].as_str().unwrap_or_default();
            spoken.starts_with(prefix)
        });
        if let Some(url) = found.and_then(|i| i["url"].as_str()) {
            return Some((url.to_owned(), version));
        }
    }
    let transport = card["preferredTransport"].as_str().unwrap_or("JSONRPC");
    let url = card["url"].as_str().filter(|_| transport == "JSONRPC")?;
    Some((url.to_owned(), Version::V03))
}

#[cfg(test)]
mod tests;
