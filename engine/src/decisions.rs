//! Proposing tool calls and deciding on them: the policy classifies each
//! proposed call; people approve, edit, reject or always-allow pending ones;
//! the expiry applies each lapsed approval's default action once.
//!
//! Every decision is a compare-and-set on the pending state in the store, so
//! of concurrent decisions on one call exactly one takes effect and the rest
//! get [`EngineError::AlreadyDecided`].

use chrono::Duration;
use serde_json::Value;

use crate::domain::{BatchId, ConversationId, GrantId, RunId, ToolCallId};
use crate::domain::{CallStatus, Decision, DecisionKind, Grant, GrantScope, ToolCall};
use crate::domain::{NewCase, ReviewCase};
use crate::domain::{Run, RunStatus};
use crate::domain::{AGENT_SOURCE, QUESTION_TOOL};
use crate::engine::{Engine, EngineError};
use crate::policy::{CallFacts, Outcome, Verdict as PolicyVerdict};
use crate::store::{Applied, Decided, DecisionChange, StoreError};

pub use crate::domain::{ProposedCall, Reviewer, Verdict};

/// Longest rejection reason, in characters.
pub const MAX_REASON_CHARS: usize = 2_000;

/// Longest reviewer name, in characters.
const MAX_NAME_CHARS: usize = 200;

/// How many lapsed approvals one expiry pass handles.
const EXPIRY_BATCH: i64 = 500;

impl Reviewer {
    fn checked_name(&self) -> Result<String, EngineError> {
        let name = self.name.trim();
        if name.is_empty() {
            return Err(EngineError::invalid("by", "say who decides"));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(EngineError::invalid(
                "by",
                format!("names are at most {MAX_NAME_CHARS} characters"),
            ));
        }
        EngineError::refuse_nul("by", "a name", name)?;
        Ok(name.to_owned())
    }
}

fn checked_reason(reason: Option<String>) -> Result<Option<String>, EngineError> {
    let reason = reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    if reason
        .as_ref()
        .is_some_and(|r| r.chars().count() > MAX_REASON_CHARS)
    {
        return Err(EngineError::invalid(
            "reason",
            format!("a reason is at most {MAX_REASON_CHARS} characters"),
        ));
    }
    if let Some(reason) = &reason {
        EngineError::refuse_nul("reason", "a reason", reason)?;
    }
    Ok(reason)
}

fn not_for_questions() -> EngineError {
    EngineError::invalid("call", "a question takes an answer, not an approval")
}

fn store_not_found(e: StoreError) -> EngineError {
    match e {
        StoreError::NotFound(what) => EngineError::NotFound(what),
        other => other.into(),
    }
}

impl Engine {
    /// Classifies a model turn's calls by policy and stores them as one
    /// batch: allowed calls are `approved`, denied or hidden ones `rejected`,
    /// the rest `pending_approval` with their expiry.
    pub async fn propose_calls(
        &self,
        conversation: &ConversationId,
        proposals: Vec<ProposedCall>,
    ) -> Result<Vec<ToolCall>, EngineError> {
        self.propose_in_run(conversation, None, proposals).await
    }

    /// Like [`Engine::propose_calls`], for the calls of an agent run's turn:
    /// `turn` names the run and the assistant message that proposed them.
    pub async fn propose_in_run(
        &self,
        conversation: &ConversationId,
        turn: Option<(&RunId, i64)>,
        proposals: Vec<ProposedCall>,
    ) -> Result<Vec<ToolCall>, EngineError> {
        let now = self.inner.clock.now();
        let batch_id = BatchId::new();
        let mut calls = Vec::with_capacity(proposals.len());
        for (position, p) in proposals.into_iter().enumerate() {
            let verdict = self.classify(conversation, &p).await?;
            calls.push(self.new_call(conversation, turn, &batch_id, position, p, verdict, now));
        }
        let cases: Vec<NewCase> = calls
            .iter()
            .filter(|c| c.status == CallStatus::PendingApproval)
            .map(|c| NewCase {
                case: crate::domain::case_for(c, Default::default()),
                token_hash: None,
            })
            .collect();
        let events = self
            .inner
            .store
            .insert_calls(&calls, &cases)
            .await
            .map_err(store_not_found)?;
        self.inner.events.publish(events);
        Ok(calls)
    }

    /// A proposal as a stored call, with the status its verdict gives it and,
    /// when it waits, the expiry the configuration sets.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_call(
        &self,
        conversation: &ConversationId,
        turn: Option<(&RunId, i64)>,
        batch_id: &BatchId,
        position: usize,
        p: ProposedCall,
        verdict: PolicyVerdict,
        now: chrono::DateTime<chrono::Utc>,
    ) -> ToolCall {
        let approvals = &self.inner.config.approvals;
        let status = match verdict.outcome {
            Outcome::Allow => CallStatus::Approved,
            Outcome::Deny => CallStatus::Rejected,
            Outcome::RequireApproval => CallStatus::PendingApproval,
        };
        let expires_at = approvals
            .expires_after
            .map(|d| now + Duration::from_std(d).unwrap_or(Duration::days(365)));
        ToolCall {
            id: ToolCallId::new(),
            conversation_id: conversation.clone(),
            batch_id: batch_id.clone(),
            run_id: turn.map(|(run, _)| run.clone()),
            message_seq: turn.map(|(_, seq)| seq),
            position: position as i64,
            source: p.source,
            tool: p.tool,
            arguments: p.arguments,
            original_arguments: None,
            status,
            policy_reason: verdict.reason,
            expires_at: (status == CallStatus::PendingApproval)
                .then_some(expires_at)
                .flatten(),
            default_action: approvals.default_action,
            decision: None,
            result: None,
            error: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// What the policy says about one proposal. Unknown tools are refused,
    /// and the agent's questions always wait for a person.
    pub(crate) async fn classify(
        &self,
        conversation: &ConversationId,
        p: &ProposedCall,
    ) -> Result<PolicyVerdict, EngineError> {
        if p.source.is_empty() {
            return Ok(PolicyVerdict {
                outcome: Outcome::Deny,
                hidden: true,
                reason: format!("there is no tool named {}", p.tool),
            });
        }
        if p.source == AGENT_SOURCE && p.tool == QUESTION_TOOL {
            return Ok(PolicyVerdict {
                outcome: Outcome::RequireApproval,
                hidden: false,
                reason: "the agent asks you a question".into(),
            });
        }
        let granted = self
            .inner
            .store
            .has_grant(&p.source, &p.tool, conversation)
            .await?;
        Ok(self.inner.config.policy_for(&p.source).decide(CallFacts {
            tool: &p.tool,
            arguments: &p.arguments,
            read_only_hint: p.read_only_hint,
            granted,
        }))
    }

    /// Applies a person's decision to one pending call.
    pub async fn decide(
        &self,
        call_id: &ToolCallId,
        verdict: Verdict,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        let (call, _closed) = self.decide_known(call_id, verdict, reviewer, None).await?;
        Ok(call)
    }

    /// Like [`decide`](Self::decide), for a caller that knows whether the
    /// call is one of the agent's questions (`question`), as a review case
    /// does by its type: then the call is not read first to find out. Also
    /// returns the review case the decision closed, as it was stored.
    pub(crate) async fn decide_known(
        &self,
        call_id: &ToolCallId,
        verdict: Verdict,
        reviewer: &Reviewer,
        question: Option<bool>,
    ) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
        let by = reviewer.checked_name()?;
        let now = self.inner.clock.now();
        let (kind, status, reason, arguments) = match verdict.clone() {
            Verdict::Approve => (DecisionKind::Approve, CallStatus::Approved, None, None),
            Verdict::Reject { reason } => (
                DecisionKind::Reject,
                CallStatus::Rejected,
                checked_reason(reason)?,
                None,
            ),
            Verdict::AlwaysAllow { .. } => {
                (DecisionKind::AlwaysAllow, CallStatus::Approved, None, None)
            }
            Verdict::Cancel { reason } => (
                DecisionKind::Cancel,
                CallStatus::Cancelled,
                checked_reason(reason)?,
                None,
            ),
            Verdict::Edit { arguments } => {
                if !arguments.is_object() {
                    return Err(EngineError::invalid(
                        "arguments",
                        "arguments must be a JSON object",
                    ));
                }
                (
                    DecisionKind::Edit,
                    CallStatus::Approved,
                    None,
                    Some(arguments),
                )
            }
        };
        if let Some(edited) = &arguments {
            self.check_edit(call_id, edited).await?;
        }
        // Only refusing or withdrawing fits a question. When the caller does
        // not know whether the call is one, the store's compare-and-set
        // leaves a question alone, so finding out costs no extra read.
        let refuse_questions = !matches!(verdict, Verdict::Reject { .. } | Verdict::Cancel { .. });
        if refuse_questions && question == Some(true) {
            return Err(not_for_questions());
        }
        let change = DecisionChange {
            call_id: call_id.clone(),
            decision: Decision {
                kind,
                by: by.clone(),
                at: now,
                reason,
                channel: reviewer.channel,
            },
            status,
            arguments,
            result: None,
            refuse_questions: refuse_questions && question.is_none(),
        };
        let decided = self.decide_and_publish(&change).await?;
        match decided {
            Decided::Applied(applied) => {
                let Applied {
                    call, closed_case, ..
                } = *applied;
                if let Verdict::AlwaysAllow { everywhere } = verdict {
                    let grant = Grant {
                        id: GrantId::new(),
                        source: call.source.clone(),
                        tool: call.tool.clone(),
                        scope: if everywhere {
                            GrantScope::Global
                        } else {
                            GrantScope::Conversation(call.conversation_id.clone())
                        },
                        created_by: by,
                        created_at: now,
                        revoked_at: None,
                    };
                    self.inner.store.insert_grant(&grant).await?;
                    self.grants_changed().await;
                }
                Ok((call, closed_case))
            }
            // The compare-and-set left a question alone.
            Decided::AlreadyDecided(call) if change.refuse_questions && call.is_question() => {
                Err(not_for_questions())
            }
            Decided::AlreadyDecided(call) => Err(EngineError::already_decided(*call)),
            Decided::NotFound => Err(EngineError::NotFound("tool call")),
        }
    }

    /// Applies `change` and publishes its events: the call's, and its run's
    /// when the decision woke the run (the worker steps it from there).
    async fn decide_and_publish(&self, change: &DecisionChange) -> Result<Decided, StoreError> {
        let mut decided = self.inner.store.decide(change).await?;
        if let Decided::Applied(applied) = &mut decided {
            self.inner
                .events
                .publish(std::iter::once(applied.event.clone()).chain(applied.woken_run.take()));
        }
        Ok(decided)
    }

    /// The policy re-checks an edited call; an edit the policy denies is refused.
    async fn check_edit(&self, call_id: &ToolCallId, edited: &Value) -> Result<(), EngineError> {
        let call = self
            .inner
            .store
            .tool_call(call_id)
            .await?
            .ok_or(EngineError::NotFound("tool call"))?;
        if call.status != CallStatus::PendingApproval {
            return Err(EngineError::already_decided(call));
        }
        let verdict = self
            .inner
            .config
            .policy_for(&call.source)
            .decide(CallFacts {
                tool: &call.tool,
                arguments: edited,
                read_only_hint: false,
                granted: false,
            });
        if verdict.outcome == Outcome::Deny {
            return Err(EngineError::invalid(
                "arguments",
                format!("the policy denies the edited call ({})", verdict.reason),
            ));
        }
        Ok(())
    }

    /// Approves or rejects every still-pending call of a batch at once.
    pub async fn decide_batch(
        &self,
        batch_id: &BatchId,
        approve: bool,
        reason: Option<String>,
        reviewer: &Reviewer,
    ) -> Result<Vec<ToolCall>, EngineError> {
        let by = reviewer.checked_name()?;
        let (kind, status, reason) = if approve {
            (DecisionKind::Approve, CallStatus::Approved, None)
        } else {
            (
                DecisionKind::Reject,
                CallStatus::Rejected,
                checked_reason(reason)?,
            )
        };
        let decision = Decision {
            kind,
            by,
            at: self.inner.clock.now(),
            reason,
            channel: reviewer.channel,
        };
        let (changed, woken) = self
            .inner
            .store
            .decide_batch(batch_id, &decision, status)
            .await?;
        let (calls, events): (Vec<_>, Vec<_>) = changed.into_iter().unzip();
        self.inner.events.publish(events.into_iter().chain(woken));
        Ok(calls)
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
        if self.inner.store.conversation(conversation).await?.is_none() {
            return Err(EngineError::NotFound("conversation"));
        }
        let mut batches: Vec<BatchId> = Vec::new();
        for call in self.inner.store.tool_calls(conversation).await? {
            if call.status == CallStatus::PendingApproval && !batches.contains(&call.batch_id) {
                batches.push(call.batch_id);
            }
        }
        let mut decided = Vec::new();
        for batch in &batches {
            decided.extend(
                self.decide_batch(batch, approve, reason.clone(), reviewer)
                    .await?,
            );
        }
        Ok(decided)
    }

    /// Applies the default action of every lapsed approval, once; returns how
    /// many it applied. Safe to run from several processes at once.
    pub async fn expire_due(&self) -> Result<usize, EngineError> {
        let mut total = 0;
        loop {
            let changed = self
                .inner
                .store
                .expire_due(self.inner.clock.now(), EXPIRY_BATCH)
                .await?;
            let n = changed.len();
            total += n;
            let calls: Vec<ToolCall> = changed.iter().map(|(c, _)| c.clone()).collect();
            self.inner
                .events
                .publish(changed.into_iter().map(|(_, e)| e));
            // The agent goes on once nothing of its turn waits any more.
            self.wake_runs(&calls).await?;
            if (n as i64) < EXPIRY_BATCH {
                return Ok(total);
            }
        }
    }

    /// Answers a question the agent asked (`request_human_input`).
    pub async fn answer(
        &self,
        call_id: &ToolCallId,
        answer: &str,
        reviewer: &Reviewer,
    ) -> Result<ToolCall, EngineError> {
        let (call, _closed) = self.answer_closing(call_id, answer, reviewer).await?;
        Ok(call)
    }

    /// Like [`answer`](Self::answer); also returns the review case the
    /// answer closed, as it was stored.
    pub(crate) async fn answer_closing(
        &self,
        call_id: &ToolCallId,
        answer: &str,
        reviewer: &Reviewer,
    ) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
        let by = reviewer.checked_name()?;
        let answer = answer.trim();
        if answer.is_empty() {
            return Err(EngineError::invalid("answer", "the answer is empty"));
        }
        if answer.chars().count() > MAX_REASON_CHARS {
            return Err(EngineError::invalid(
                "answer",
                format!("an answer is at most {MAX_REASON_CHARS} characters"),
            ));
        }
        let call = self
            .inner
            .store
            .tool_call(call_id)
            .await?
            .ok_or(EngineError::NotFound("tool call"))?;
        if call.tool != QUESTION_TOOL {
            return Err(EngineError::invalid(
                "call",
                "only questions take an answer",
            ));
        }
        let change = DecisionChange {
            call_id: call_id.clone(),
            decision: Decision {
                kind: DecisionKind::Approve,
                by,
                at: self.inner.clock.now(),
                reason: None,
                channel: reviewer.channel,
            },
            status: CallStatus::Completed,
            arguments: None,
            result: Some(serde_json::json!({ "answer": answer })),
            refuse_questions: false,
        };
        match self.decide_and_publish(&change).await? {
            Decided::Applied(applied) => Ok((applied.call, applied.closed_case)),
            Decided::AlreadyDecided(call) => Err(EngineError::already_decided(*call)),
            Decided::NotFound => Err(EngineError::NotFound("tool call")),
        }
    }

    /// Starts a run of the agent in a conversation.
    pub async fn start_run(&self, conversation: &ConversationId) -> Result<Run, EngineError> {
        let now = self.inner.clock.now();
        let run = Run {
            id: RunId::new(),
            conversation_id: conversation.clone(),
            status: RunStatus::Running,
            error: None,
            created_at: now,
            updated_at: now,
        };
        let event = self
            .inner
            .store
            .insert_run(&run)
            .await
            .map_err(store_not_found)?;
        self.inner.events.publish([event]);
        Ok(run)
    }

    /// Resumes the runs of calls the expiry decided once none of their calls
    /// waits for a person. (A person's decision wakes its run in its own
    /// commit; the expiry's locks come in an order that cannot.)
    async fn wake_runs<'a>(
        &self,
        calls: impl IntoIterator<Item = &'a ToolCall>,
    ) -> Result<(), EngineError> {
        let mut runs: Vec<&RunId> = calls
            .into_iter()
            .filter_map(|c| c.run_id.as_ref())
            .collect();
        runs.sort();
        runs.dedup();
        for run in runs {
            if let Some(event) = self
                .inner
                .store
                .wake_run(run, self.inner.clock.now())
                .await?
            {
                self.inner.events.publish([event]);
            }
        }
        Ok(())
    }

    /// The calls of a conversation, in order.
    pub async fn tool_calls(
        &self,
        conversation: &ConversationId,
    ) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self.inner.store.tool_calls(conversation).await?)
    }

    /// Every call waiting for a person, oldest first.
    pub async fn pending_approvals(&self, limit: i64) -> Result<Vec<ToolCall>, EngineError> {
        Ok(self.inner.store.pending_calls(limit).await?)
    }
}

#[cfg(test)]
mod tests;
