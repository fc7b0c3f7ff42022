//! The façade's methods for one call by its id, for the people's HTTP API
//! (`/api/v1/calls`) and the terminal that uses it.

use crate::decisions;
use crate::domain::{Reviewer, ToolCall, ToolCallId};
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

    /// Answers the typed question `id` with `action` and `data`, checked
    /// against what it asks as an answer through its case is;
    /// [`EngineError::InvalidFields`] names what does not fit.
    pub async fn answer_given(
        &self,
        id: &ToolCallId,
        action: &str,
        data: serde_json::Value,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer_given(&self.core, id, action, data, reviewer).await
    }

    /// Answers the typed question `id` with `action` and its form's inputs
    /// as a browser posts them (`f.` and a field's key, `selected`, …),
    /// checked as on its review page.
    pub async fn answer_posted(
        &self,
        id: &ToolCallId,
        action: &str,
        posted: &[(String, String)],
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer_posted(&self.core, id, action, posted, reviewer).await
    }
}
