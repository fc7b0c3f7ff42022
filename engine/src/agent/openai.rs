//! An OpenAI-compatible chat-completions provider: OpenAI itself, Ollama,
//! vLLM, llama.cpp's server, LM Studio and anything else that speaks
//! `POST {base}/chat/completions` with tools. Replies are streamed; text is
//! handed on as it arrives and tool call arguments are assembled from their
//! pieces. Rate limits and server errors are retried with backoff before any
//! text has been shown; a refused key or an unknown model fails at once
//! with an error that says what to fix.

#[cfg(test)]
pub(crate) mod aimock;
mod probe;
mod request;
mod stream;

use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use rand::Rng;
use serde_json::Value;

use super::model::{Model, ModelError, ModelReply, ModelRequest, OnProgress};
use stream::{Accumulator, Lines, Step};

pub use probe::Probe;
pub use request::SYSTEM_PROMPT;

/// The longest reply, in tokens, unless configured: room for a long answer
/// or a whole file written by a tool call, and a cap on a model that never
/// ends its turn.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Where the provider is and how patient to be with it.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model name, e.g. `gpt-4o-mini` or `llama3.1`.
    pub model: String,
    /// The bearer token, when the provider wants one.
    pub api_key: Option<String>,
    /// How long to wait for the response to start.
    pub response_timeout: Duration,
    /// How long a started stream may stay silent.
    pub idle_timeout: Duration,
    /// How many times a rate limit or server error is retried.
    pub max_retries: u32,
    /// The first retry's delay; each later one doubles it (with jitter).
    pub initial_backoff: Duration,
    /// Whether to ask for a streamed reply (some servers stream tool calls
    /// badly; a whole reply works everywhere, only later).
    pub stream: bool,
    /// The most tokens one reply may take (`max_tokens`); `None` leaves
    /// it to the server, which for a local model may be "until the context
    /// is full".
    pub max_tokens: Option<u32>,
}

// The key never reaches a log line.
impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("response_timeout", &self.response_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("stream", &self.stream)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl OpenAiConfig {
    /// A provider at `base_url` serving `model`, with default patience.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            response_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            stream: true,
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// The provider.
#[derive(Debug, Clone)]
pub struct OpenAiModel {
    http: reqwest::Client,
    config: OpenAiConfig,
}

/// Why one attempt failed, and whether another may succeed.
enum Failure {
    Retry {
        error: ModelError,
        after: Option<Duration>,
    },
    Final(ModelError),
}

impl From<ModelError> for Failure {
    fn from(e: ModelError) -> Self {
        Failure::Final(e)
    }
}

/// The provider's own words from an error body, or the body itself.
fn provider_message(body: &str) -> String {
    let parsed = serde_json::from_str::<Value>(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .or(v["error"].as_str())
                .or(v["message"].as_str())
        })
        .map(str::to_owned)
        .unwrap_or_else(|| body.trim().chars().take(300).collect());
    if message.is_empty() {
        "no details given".to_owned()
    } else {
        message
    }
}

/// A refusal because the conversation does not fit, with the context's
/// size where the server says it: llama.cpp gives `n_ctx`; OpenAI, vLLM
/// and newer llama.cpp write "maximum context length is 4096 tokens" or
/// "context size (4096 tokens)".
fn context_full(body: &str) -> Option<ModelError> {
    let parsed = serde_json::from_str::<Value>(body).unwrap_or_default();
    let error = &parsed["error"];
    let message = provider_message(body).to_lowercase();
    let kind = format!("{} {}", error["type"], error["code"]).to_lowercase();
    let full = kind.contains("context")
        || (message.contains("context")
            && ["exceed", "maximum", "too long", "too large"]
                .iter()
                .any(|w| message.contains(w)));
    if !full {
        return None;
    }
    let said = message.split_once("context").and_then(|(_, after)| {
        let digits: String = after
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    });
    Some(ModelError::ContextFull {
        context: error["n_ctx"].as_u64().or(said),
    })
}

/// Why a request failed, in the words of its deepest cause ("Connection
/// refused") rather than reqwest's outer "error sending request for url".
fn cause(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "it did not answer in time".to_owned();
    }
    let mut inner: &dyn std::error::Error = e;
    while let Some(source) = inner.source() {
        inner = source;
    }
    let said = inner.to_string();
    let plain = match said.find(" (os error") {
        Some(at) => &said[..at],
        None => &said,
    };
    plain.to_lowercase()
}

impl OpenAiModel {
    /// The model's name, as configured.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// A client for the provider.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| ModelError::Unavailable(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { http, config })
    }

    fn url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        )
    }

    /// The delay before retry number `attempt` (from 0).
    fn backoff(&self, attempt: u32, after: Option<Duration>) -> Duration {
        if let Some(after) = after {
            return after.min(Duration::from_secs(30));
        }
        let base = self
            .config
            .initial_backoff
            .saturating_mul(1 << attempt.min(6));
        let jitter = rand::thread_rng().gen_range(0.8..1.2);
        base.mul_f64(jitter).min(Duration::from_secs(20))
    }

    async fn attempt(&self, body: &Value, progress: OnProgress<'_>) -> Result<ModelReply, Failure> {
        let mut request = self.http.post(self.url()).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let unreachable = |e: String| Failure::Retry {
            error: ModelError::Unavailable(e),
            after: None,
        };
        let response = tokio::time::timeout(self.config.response_timeout, request.send())
            .await
            .map_err(|_| {
                unreachable(format!(
                    "no response from {} within {} s",
                    self.url(),
                    self.config.response_timeout.as_secs()
                ))
            })?
            .map_err(|e| Failure::Retry {
                error: ModelError::Unreachable {
                    url: self.config.base_url.clone(),
                    why: cause(&e),
                },
                after: None,
            })?;
        let status = response.status();
        if !status.is_success() {
            let after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = response.text().await.unwrap_or_default();
            if let Some(full) = context_full(&body) {
                return Err(Failure::Final(full));
            }
            let message = provider_message(&body);
            return Err(match status.as_u16() {
                401 | 403 => Failure::Final(ModelError::Unauthorized),
                404 => Failure::Final(ModelError::NotFound(format!(
                    "model {} at {}: {message}",
                    self.config.model,
                    self.url()
                ))),
                408 | 409 | 429 | 500..=599 => Failure::Retry {
                    error: ModelError::Unavailable(format!("{status}: {message}")),
                    after,
                },
                _ => Failure::Final(ModelError::Refused(format!("{status}: {message}"))),
            });
        }
        let streamed = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !streamed {
            // A server that ignores `stream` answers with one whole completion.
            let whole: Value = response
                .json()
                .await
                .map_err(|e| ModelError::BadReply(format!("the reply is not JSON: {e}")))?;
            let mut acc = Accumulator::default();
            acc.chunk(&whole, progress)?;
            return Ok(acc.finish());
        }
        self.read_stream(response, progress).await
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, Failure> {
        let mut bytes = response.bytes_stream();
        let mut lines = Lines::default();
        let mut acc = Accumulator::default();
        let mut shown = false;
        // Once a piece is on screen a retry would repeat it, so later failures are final.
        let failed = |shown: bool, e: String| {
            let error = ModelError::Broken(e);
            if shown {
                Failure::Final(error)
            } else {
                Failure::Retry { error, after: None }
            }
        };
        'read: loop {
            let next = tokio::time::timeout(self.config.idle_timeout, bytes.next())
                .await
                .map_err(|_| {
                    failed(
                        shown,
                        format!(
                            "the stream was silent for {} s",
                            self.config.idle_timeout.as_secs()
                        ),
                    )
                })?;
            let chunk = match next {
                None => break,
                Some(Ok(chunk)) => chunk,
                Some(Err(e)) => return Err(failed(shown, cause(&e))),
            };
            for line in lines.push(&chunk) {
                match acc.line(&line, progress)? {
                    Step::Shown => shown = true,
                    Step::Done => break 'read,
                    Step::Nothing => {}
                }
            }
        }
        if let Some(rest) = lines.finish() {
            acc.line(&rest, progress)?;
        }
        if !acc.is_done() {
            return Err(failed(
                shown,
                "the stream ended before the reply was complete".into(),
            ));
        }
        Ok(acc.finish())
    }
}

#[async_trait]
impl Model for OpenAiModel {
    async fn reply(
        &self,
        request: &ModelRequest,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError> {
        let body = request::body(&self.config, request);
        let mut attempt = 0;
        loop {
            match self.attempt(&body, progress).await {
                Ok(reply) => return Ok(reply),
                Err(Failure::Retry { error, after }) if attempt < self.config.max_retries => {
                    let delay = self.backoff(attempt, after);
                    tracing::warn!(%error, attempt, ?delay, "model provider failed; retrying");
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                Err(Failure::Retry { error, .. }) | Err(Failure::Final(error)) => {
                    return Err(error)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
