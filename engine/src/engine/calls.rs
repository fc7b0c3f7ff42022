//! The façade's methods for one call read by its id, for the people's HTTP
//! API (`/api/v1/calls`) and the terminal that uses it.

use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;
use crate::Engine;

impl Engine {
    /// The call `id`, whatever its status; [`EngineError::NotFound`] when
    /// there is none.
    pub async fn tool_call(&self, id: &ToolCallId) -> Result<ToolCall, EngineError> {
        self.core
            .store
            .tool_call(id)
            .await?
            .ok_or(EngineError::NotFound("tool call"))
    }
}
