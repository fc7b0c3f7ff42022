//! The agent: a model that proposes tool calls, and the loop that runs them
//! under the policy, pausing durably while calls wait for a person.

mod catalog;
pub mod demo_model;
pub mod model;
pub mod openai;
pub mod runner;
mod stepping;
pub mod transcript;

use serde_json::json;

pub use model::{
    CallOutcome, DroppedCall, Model, ModelError, ModelReply, ModelRequest, OnProgress, Progress,
    ProposedToolCall, TranscriptCall, Turn,
};
pub use runner::{run_worker, Agent, StepOutcome};

use crate::tools::ToolSpec;

use crate::domain::{AGENT_SOURCE, QUESTION_TOOL};

/// The question tool as offered to the model.
pub fn question_tool() -> ToolSpec {
    ToolSpec {
        name: QUESTION_TOOL.into(),
        description: "Ask the user a question and wait for the answer. For a choice, a \
            confirmation or a small form, give `type` and `context` (HITL Protocol review types): \
            selection with context.options [{id, label}] and context.max_selected; confirmation \
            with context.items_to_confirm [{id, label}]; input with context.form.fields [{key, \
            label, type: text|number|date|boolean|select, required, options}]."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "question": { "type": "string" },
                "choices": { "type": "array", "items": { "type": "string" } },
                "type": { "type": "string", "enum": ["input", "selection", "confirmation"] },
                "context": { "type": "object" }
            },
            "required": ["question"]
        }),
        read_only: false,
    }
}
