//! What a model sees and says. A conversation reaches the model as turns:
//! the person's messages, and the agent's replies with the calls each reply
//! proposed and how each ended. Every proposed call carries an outcome, so a
//! provider never sends the model an orphan tool call.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tools::ToolSpec;

/// How a call the model proposed ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum CallOutcome {
    /// It ran and returned this result.
    Completed {
        /// The tool's result.
        result: Value,
        /// The arguments as the model proposed them, when a person edited them.
        edited_from: Option<Value>,
    },
    /// A person rejected it.
    Rejected {
        /// Their reason, if they gave one.
        reason: Option<String>,
    },
    /// The policy refused it.
    Denied {
        /// The policy's reason.
        reason: String,
    },
    /// Nobody decided in time.
    Expired,
    /// The reviewer withdrew the review instead of deciding; it did not run.
    Withdrawn {
        /// Why, if they said.
        reason: Option<String>,
    },
    /// It ran and failed, or was interrupted.
    Failed {
        /// What went wrong.
        error: String,
    },
    /// A person answered the agent's question.
    Answered { answer: String },
}

impl CallOutcome {
    /// The text the model reads as the call's result.
    pub fn to_model_text(&self, arguments: &Value) -> String {
        match self {
            CallOutcome::Completed { result, edited_from: None } => result.to_string(),
            CallOutcome::Completed { result, edited_from: Some(original) } => format!(
                "The user changed the arguments from {original} to {arguments} before approving. Result: {result}"
            ),
            CallOutcome::Rejected { reason: Some(reason) } => {
                format!("The user rejected this call. Reason: {reason}")
            }
            CallOutcome::Rejected { reason: None } => "The user rejected this call.".to_owned(),
            CallOutcome::Denied { reason } => format!("Airlock's policy does not allow this call ({reason})."),
            CallOutcome::Expired => "Nobody approved this call in time, so it did not run.".to_owned(),
            CallOutcome::Withdrawn { reason: Some(reason) } => format!(
                "The reviewer withdrew the review without deciding, so the call did not run. Reason: {reason}"
            ),
            CallOutcome::Withdrawn { reason: None } => {
                "The reviewer withdrew the review without deciding, so the call did not run.".to_owned()
            }
            CallOutcome::Failed { error } => format!("The call failed: {error}"),
            CallOutcome::Answered { answer } => format!("The user answered: {answer}"),
        }
    }
}

/// A call as the model proposed it, with how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptCall {
    /// The call's id, used as the provider's tool call id.
    pub id: String,
    pub tool: String,
    /// The arguments it ran (or would have run) with.
    pub arguments: Value,
    /// How it ended.
    pub outcome: CallOutcome,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Turn {
    /// The person wrote.
    User {
        /// Their text.
        text: String,
    },
    /// The agent replied, possibly proposing calls.
    Assistant {
        /// Its text.
        text: String,
        /// The calls it proposed, each with its outcome.
        calls: Vec<TranscriptCall>,
    },
}

/// What the model is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The conversation so far.
    pub turns: Vec<Turn>,
    /// The tools it may call.
    pub tools: Vec<ToolSpec>,
}

/// A call the model proposes.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedToolCall {
    pub tool: String,
    /// Its arguments.
    pub arguments: Value,
}

/// What the model answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelReply {
    /// Its text (may be empty when it only calls tools).
    pub text: String,
    /// The calls it proposes, as one batch.
    pub calls: Vec<ProposedToolCall>,
    /// Whether the reply stopped at the length limit (`max_tokens`).
    pub cut_off: bool,
    /// Calls it began that cannot run: cut off, or with unreadable arguments.
    pub dropped: Vec<DroppedCall>,
}

/// A call the model began but that cannot run.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedCall {
    /// The tool it named, if it got that far.
    pub tool: String,
    /// Why it cannot run, e.g. "cut off at the length limit".
    pub why: String,
}

/// Why the model could not answer. Each says what happened; [`advice`]
/// says what to do about it.
///
/// [`advice`]: ModelError::advice
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The provider refused the credentials.
    #[error("the model's server refused Airlock's API key (401)")]
    Unauthorized,
    /// The model or endpoint does not exist.
    #[error("the model's server does not know this model or address (404): {0}")]
    NotFound(String),
    /// Nothing answered at the model's address.
    #[error("Airlock cannot reach the model's server at {url}: {why}")]
    Unreachable { url: String, why: String },
    /// The provider failed, after retries.
    #[error("the model's server failed: {0}")]
    Unavailable(String),
    /// The conversation does not fit the model's context.
    #[error("{}", match context {
        Some(tokens) => format!("the model's context ({tokens} tokens) is too small for this conversation"),
        None => "the model's context is too small for this conversation".to_owned(),
    })]
    ContextFull {
        /// The context's size in tokens, when the provider said.
        context: Option<u64>,
    },
    /// The provider refused the request for another reason.
    #[error("the model's server refused the request: {0}")]
    Refused(String),
    /// The reply started but broke off.
    #[error("the model's reply broke off: {0}")]
    Broken(String),
    /// The provider answered something we cannot read.
    #[error("the model answered something Airlock cannot read: {0}")]
    BadReply(String),
}

impl ModelError {
    /// What the person can do about it, in a sentence.
    pub fn advice(&self) -> &'static str {
        match self {
            ModelError::Unauthorized => "Check the model's API key in Airlock's settings.",
            ModelError::NotFound(_) => {
                "Check the model's name and address in Airlock's settings."
            }
            ModelError::Unreachable { .. } => {
                "Check that the model's server is running and that Airlock's settings point at it, then send your message again."
            }
            ModelError::Unavailable(_) | ModelError::Broken(_) => {
                "Send your message again in a moment."
            }
            ModelError::ContextFull { .. } => {
                "Start a new conversation, or raise the model's context."
            }
            ModelError::Refused(_) => "The model's server log may say more.",
            ModelError::BadReply(_) => {
                "The model may not support tool calls; try another model."
            }
        }
    }
}

/// A piece of a reply as it streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress<'a> {
    /// More of its text.
    Text(&'a str),
    /// More of call number `index`: its tool's name once known, and the
    /// next piece of its arguments (JSON text, unfinished until the end).
    Call {
        index: usize,
        name: Option<&'a str>,
        arguments: &'a str,
    },
}

/// What receives a reply's pieces as they stream.
pub type OnProgress<'a> = &'a (dyn for<'p> Fn(Progress<'p>) + Send + Sync);

/// A language model that can propose tool calls.
#[async_trait]
pub trait Model: Send + Sync + std::fmt::Debug {
    /// Answers the conversation. `progress` receives the reply's text and
    /// its calls as they stream, piece by piece; the full reply is
    /// returned at the end.
    async fn reply(
        &self,
        request: &ModelRequest,
        progress: OnProgress<'_>,
    ) -> Result<ModelReply, ModelError>;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::CallOutcome;

    #[test]
    fn a_withdrawn_review_reads_apart_from_a_rejection() {
        let args = json!({"path": "notes.txt"});
        let withdrawn = CallOutcome::Withdrawn {
            reason: Some("ask Grace".into()),
        };
        let rejected = CallOutcome::Rejected {
            reason: Some("ask Grace".into()),
        };
        assert_eq!(
            withdrawn.to_model_text(&args),
            "The reviewer withdrew the review without deciding, so the call did not run. Reason: ask Grace"
        );
        assert_ne!(
            withdrawn.to_model_text(&args),
            rejected.to_model_text(&args)
        );
    }
}
