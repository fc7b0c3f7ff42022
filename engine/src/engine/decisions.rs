//! The façade's methods for proposing and deciding calls, answering the agent's
//! questions, and starting and stopping runs (`decisions.rs`).

use crate::decisions;
use crate::domain::{
    Actor, BatchId, Channel, ConversationId, ProposedCall, Reviewer, Run, RunId, ToolCall,
    ToolCallId, Verdict,
};
use crate::error::EngineError;
use crate::Engine;

impl Engine {
    /// Stops the agent in conversation `id`: the reply being written ends
    /// where it is, and calls that wait are rejected. False when it was not
    /// working. `author` must be someone who may reject the waiting calls.
    pub async fn stop_agent(
        &self,
        id: &ConversationId,
        author: Option<&Actor>,
    ) -> Result<bool, EngineError> {
        decisions::stop_agent(&self.core, id, author, Channel::Chat).await
    }

    /// [`Engine::stop_agent`] from elsewhere than the chat: the calls it
    /// rejects record `channel`.
    pub async fn stop_agent_on(
        &self,
        id: &ConversationId,
        author: Option<&Actor>,
        channel: Channel,
    ) -> Result<bool, EngineError> {
        decisions::stop_agent(&self.core, id, author, channel).await
    }

    /// Run `id`; [`EngineError::NotFound`] when there is none.
    pub async fn run(&self, id: &RunId) -> Result<Run, EngineError> {
        let run = self.core.runs().run(id).await?;
        run.ok_or(EngineError::NotFound("run"))
    }

    /// The run under way in `conversation`, running or waiting, if any.
    pub async fn active_run(
        &self,
        conversation: &ConversationId,
    ) -> Result<Option<Run>, EngineError> {
        Ok(self.core.runs().active_run(conversation).await?)
    }

    /// Whether `reviewer` may approve (`approving`) or reject `call`:
    /// their access, the call's approver groups and separation of duties.
    /// Lets a client deciding several calls at once be refused before any
    /// is decided.
    pub fn may_decide(
        &self,
        call: &ToolCall,
        reviewer: &Reviewer,
        approving: bool,
    ) -> Result<(), EngineError> {
        decisions::check(reviewer, call, approving)
    }

    /// Classifies a model turn's calls by policy and stores them as one
    /// batch: allowed calls are `approved`, denied or hidden ones `rejected`,
    /// the rest `pending_approval` with their expiry.
    pub async fn propose_calls(
        &self,
        conversation: &ConversationId,
        proposals: Vec<ProposedCall>,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::propose_calls(&self.core, conversation, proposals).await
    }

    /// Applies a person's decision to one pending call.
    pub async fn decide(
        &self,
        call_id: &ToolCallId,
        verdict: Verdict,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        let span =
            tracing::debug_span!("decide", call = %call_id, channel = reviewer.channel.as_str());
        let decided = decisions::decide(&self.core, call_id, verdict, reviewer);
        tracing::Instrument::instrument(decided, span).await
    }

    /// Approves or rejects every still-pending call of a batch at once.
    pub async fn decide_batch(
        &self,
        batch_id: &BatchId,
        approve: bool,
        reason: Option<String>,
        reviewer: &Reviewer,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::decide_batch(&self.core, batch_id, approve, reason, reviewer).await
    }

    /// Approves or rejects every call of a conversation that waits for a
    /// person ("Approve all" / "Reject all"), one atomic batch decision per
    /// model turn. Approving leaves the agent's questions alone: they take an
    /// answer. Calls decided meanwhile by someone else are skipped, not errors.
    pub async fn decide_pending(
        &self,
        conversation: &ConversationId,
        approve: bool,
        reason: Option<String>,
        reviewer: &Reviewer,
    ) -> Result<Vec<ToolCall>, EngineError> {
        decisions::decide_pending(&self.core, conversation, approve, reason, reviewer).await
    }

    /// Applies the default action of every lapsed approval, once; returns how
    /// many it applied. Safe to run from several processes at once.
    pub async fn expire_due(&self) -> Result<usize, EngineError> {
        decisions::expire_due(&self.core).await
    }

    /// Answers a question the agent asked (`request_human_input`).
    pub async fn answer(
        &self,
        call_id: &ToolCallId,
        answer: &str,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer(&self.core, call_id, answer, reviewer).await
    }

    /// Answers a typed question with one press in the chat: `choice`, an
    /// option of a selection; a confirmation confirms every item.
    pub async fn answer_pressed(
        &self,
        call_id: &ToolCallId,
        action: &str,
        choice: Option<&str>,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        decisions::answer_pressed(&self.core, call_id, action, choice, reviewer).await
    }

    /// Starts a run of the agent in a conversation.
    pub async fn start_run(&self, conversation: &ConversationId) -> Result<Run, EngineError> {
        decisions::start_run(&self.core, conversation, None).await
    }

    /// The call `id`, whatever its status; [`EngineError::NotFound`] when
    /// there is none.
    pub async fn tool_call(&self, id: &ToolCallId) -> Result<ToolCall, EngineError> {
        self.core.call(id).await
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
