//! Tool sources: what the agent can call. Each source lists its tools and
//! runs a call; the policy decides, per source, which calls may run.

pub mod agent_calls;
pub mod demo;
pub mod mcp;
pub mod offer;
pub mod report;
pub mod status;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use status::SourceStatus;

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name, unique within its source.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: Value,
    /// Whether it only reads (MCP `readOnlyHint`).
    pub read_only: bool,
}

/// Why a tool call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// The source has no such tool.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
}

/// A source of tools.
#[async_trait]
pub trait ToolSource: Send + Sync + std::fmt::Debug {
    /// The source's name, as policy blocks refer to it.
    fn name(&self) -> &str;

    /// The tools it offers now: none while it is not up.
    fn tools(&self) -> Vec<ToolSpec>;

    /// How it is doing; a built-in source is always up.
    fn status(&self) -> SourceStatus {
        SourceStatus::always_up()
    }

    /// What rings when its status changes; none for a source that never
    /// changes.
    fn changes(&self) -> Option<tokio::sync::watch::Receiver<()>> {
        None
    }

    /// Runs one call: its result as Airlock stores it and shows it (the
    /// text joined as `content`, `structured_content` when given); a result
    /// the tool marked as an error is `ToolError::Failed`.
    async fn call(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError>;

    /// Runs one call and returns its result as an MCP client reads it
    /// (`content` blocks, `structuredContent`, `isError`), for a client that
    /// called through Airlock and must get what the server said unchanged.
    /// A built-in source's result is put in that shape.
    async fn call_raw(&self, tool: &str, arguments: &Value) -> Result<Value, ToolError> {
        let (text, is_error) = match self.call(tool, arguments).await {
            Ok(value) => (
                value["content"]
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned),
                false,
            ),
            Err(ToolError::Failed(words)) => (words, true),
            Err(other) => return Err(other),
        };
        Ok(serde_json::json!({
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
        }))
    }
}
