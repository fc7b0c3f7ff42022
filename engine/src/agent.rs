//! The agent: a model that proposes tool calls, and the loop that runs them
//! under the policy, pausing durably while calls wait for a person.

pub mod demo_model;
pub mod model;

pub use model::{
    CallOutcome, Model, ModelError, ModelReply, ModelRequest, ProposedToolCall, TranscriptCall,
    Turn,
};
