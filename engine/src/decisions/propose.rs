//! Proposing tool calls: the policy classifies each call a model turn (or a
//! gateway request) proposes, and the calls are stored as one batch.

use chrono::Duration;

use super::ProposedCall;
use crate::config::policy_cases::Expect;
use crate::core::Core;
use crate::domain::{
    BatchId, CallStatus, Caller, CallerKind, ConversationId, NewCase, Run, ShadowVerdict, ToolCall,
    ToolCallId, AGENT_SOURCE, QUESTION_TOOL,
};
use crate::error::EngineError;
use crate::policy::{CallFacts, Outcome, PolicyVerdict};

pub(crate) async fn propose_calls(
    core: &Core,
    conversation: &ConversationId,
    proposals: Vec<ProposedCall>,
) -> Result<Vec<ToolCall>, EngineError> {
    propose_in_run(core, conversation, None, proposals).await
}

/// The model turn of a run that proposes calls: its run and the assistant
/// message it wrote.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turn<'a> {
    pub run: &'a Run,
    pub message_seq: i64,
}

pub(crate) async fn propose_in_run(
    core: &Core,
    conversation: &ConversationId,
    turn: Option<Turn<'_>>,
    proposals: Vec<ProposedCall>,
) -> Result<Vec<ToolCall>, EngineError> {
    let now = core.clock.now();
    let batch_id = BatchId::new();
    let caller = chat_caller(core, conversation, turn).await?;
    let mut calls = Vec::with_capacity(proposals.len());
    let mut cases = Vec::new();
    for (position, p) in proposals.into_iter().enumerate() {
        let Classified { verdict, shadow } = classify(core, conversation, &p, &caller).await?;
        let announce = core.config.notices(&verdict, now);
        let mut call = new_call(
            core,
            conversation,
            turn,
            &batch_id,
            position,
            p,
            verdict,
            now,
        );
        call.shadow = shadow;
        call.caller = Some(caller.clone());
        if call.status == CallStatus::PendingApproval {
            let case = crate::domain::case_for(&call, Default::default());
            cases.push(NewCase::announced(case, announce));
        }
        calls.push(call);
    }
    crate::previews::take_for(core, &mut calls).await;
    let events = core
        .calls()
        .insert_calls(&calls, &cases)
        .await
        .map_err(EngineError::missing)?;
    core.events.publish(events);
    Ok(calls)
}

/// Who asks for a chat's calls: Airlock's own agent, acting for the
/// person whose message started the run, in their groups.
async fn chat_caller(
    core: &Core,
    conversation: &ConversationId,
    turn: Option<Turn<'_>>,
) -> Result<Caller, EngineError> {
    let session = conversation.as_str().to_owned();
    let person = match turn.and_then(|t| t.run.started_by.as_ref()) {
        Some(id) => core.people().person(id).await?.map(|p| p.name),
        None => None,
    };
    let groups = match (&core.config.auth, &person) {
        (Some(auth), Some(name)) => auth.groups_of(name),
        _ => Vec::new(),
    };
    let chat = Caller::chat(person, groups, session);
    // A remote agent's calls are its own, for the person who wrote to it.
    Ok(match core.remote().remote_thread(conversation).await? {
        Some(thread) => Caller {
            kind: CallerKind::Agent,
            name: thread.agent,
            ..chat
        },
        None => chat,
    })
}

/// A proposal as a stored call, with the status its verdict gives it and,
/// when it waits, the expiry the configuration sets.
#[allow(clippy::too_many_arguments)]
pub(crate) fn new_call(
    core: &Core,
    conversation: &ConversationId,
    turn: Option<Turn<'_>>,
    batch_id: &BatchId,
    position: usize,
    p: ProposedCall,
    verdict: PolicyVerdict,
    now: chrono::DateTime<chrono::Utc>,
) -> ToolCall {
    let approvals = &core.config.approvals;
    let status = match verdict.outcome {
        Outcome::Allow => CallStatus::Approved,
        Outcome::Deny => CallStatus::Rejected,
        Outcome::RequireApproval => CallStatus::PendingApproval,
    };
    let mut expires_at = approvals
        .expires_after
        .map(|d| now + Duration::from_std(d).unwrap_or(Duration::days(365)));
    let mut default_action = approvals.default_action;
    // `then: reject`: unanswered after its escalation, it fails closed.
    if let Some(at) = verdict.follow_up.rejected_at(now) {
        expires_at = Some(expires_at.map_or(at, |e| e.min(at)));
        default_action = crate::domain::ExpiryAction::Reject;
    }
    ToolCall {
        id: ToolCallId::new(),
        conversation_id: conversation.clone(),
        batch_id: batch_id.clone(),
        run_id: turn.map(|t| t.run.id.clone()),
        message_seq: turn.map(|t| t.message_seq),
        position: position as i64,
        source: p.source,
        tool: p.tool,
        arguments: p.arguments,
        original_arguments: None,
        status,
        policy_reason: verdict.reason,
        not_by: turn
            .and_then(|t| t.run.started_by.clone())
            .filter(|_| verdict.separation_of_duties),
        approvers: verdict.approvers,
        quorum: crate::domain::Quorum {
            required: verdict.approvals_required,
            approvals: Vec::new(),
        },
        step_up: verdict.step_up && status == CallStatus::PendingApproval,
        expires_at: (status == CallStatus::PendingApproval)
            .then_some(expires_at)
            .flatten(),
        announced: Vec::new(),
        default_action,
        decision: None,
        result: None,
        error: None,
        shadow: None,
        preview: None,
        caller: None,
        created_at: now,
        updated_at: now,
    }
}

/// What the policy says about one proposal, and what the shadow policy
/// would say (never enforced).
#[derive(Debug)]
pub(crate) struct Classified {
    pub verdict: PolicyVerdict,
    pub shadow: Option<ShadowVerdict>,
}

impl From<PolicyVerdict> for Classified {
    fn from(verdict: PolicyVerdict) -> Self {
        Self {
            verdict,
            shadow: None,
        }
    }
}

/// What the policy says about one proposal. Unknown tools are refused,
/// and the agent's questions always wait for a person; neither is a
/// policy's to decide, so neither has a shadow verdict.
pub(crate) async fn classify(
    core: &Core,
    conversation: &ConversationId,
    p: &ProposedCall,
    caller: &Caller,
) -> Result<Classified, EngineError> {
    if p.source.is_empty() {
        let reason = format!("there is no tool named {}", p.tool);
        return Ok(PolicyVerdict {
            hidden: true,
            ..PolicyVerdict::new(Outcome::Deny, reason)
        }
        .into());
    }
    if p.source == AGENT_SOURCE && p.tool == QUESTION_TOOL {
        // A typed question Airlock cannot draw is refused, saying why, so
        // the agent can ask again.
        if let Some(problems) = unaskable(&p.arguments) {
            let reason = format!("this question cannot be asked: {problems}");
            return Ok(PolicyVerdict::new(Outcome::Deny, reason).into());
        }
        let reason = "the agent asks you a question";
        return Ok(PolicyVerdict::new(Outcome::RequireApproval, reason).into());
    }
    let granted = core
        .grants()
        .covering_grants(&p.source, &p.tool, conversation, core.clock.now())
        .await?
        .iter()
        .any(|rule| rule.covers(&p.arguments));
    let facts = CallFacts {
        read_only_hint: p.read_only_hint,
        granted,
        caller: Some(caller),
        at: core.clock.now(),
        ..CallFacts::new(&p.source, &p.tool, &p.arguments)
    };
    let verdict = core.config.policy_for(&p.source).decide(facts);
    let shadow = core.config.shadow_verdict(&p.source, facts, &verdict);
    if let Some(shadow) = shadow.as_ref().filter(|s| s.differs) {
        core.metrics
            .shadow_differs(Expect::of(&verdict).as_str(), &shadow.verdict);
    }
    Ok(Classified { verdict, shadow })
}

/// What is wrong with a typed question's definition, in words; `None` for
/// a plain question or one that can be asked.
fn unaskable(arguments: &serde_json::Value) -> Option<String> {
    let asked = arguments.get("type")?;
    let Some(case_type) = asked.as_str().and_then(crate::domain::CaseType::parse) else {
        return Some(format!("`{asked}` is not a review type"));
    };
    let context = arguments.get("context").unwrap_or(&serde_json::Value::Null);
    let problems = crate::domain::ReviewShape::parse(&case_type, context).err()?;
    let words: Vec<String> = problems
        .iter()
        .map(|p| format!("{}: {}", p.field, p.message))
        .collect();
    Some(words.join("; "))
}

#[cfg(test)]
mod asked_tests {
    use super::unaskable;
    use serde_json::json;

    #[test]
    fn a_typed_question_airlock_cannot_draw_is_refused_saying_why() {
        assert_eq!(unaskable(&json!({"question": "Which?"})), None);
        let options = json!({"options": [{"id": "a", "label": "A"}]});
        assert_eq!(
            unaskable(&json!({"question": "Which?", "type": "selection", "context": options})),
            None
        );
        let refused = unaskable(&json!({"question": "Which?", "type": "selection"})).unwrap();
        assert!(
            refused.starts_with("context.options: a selection needs its options"),
            "{refused}"
        );
        assert_eq!(
            unaskable(&json!({"question": "Which?", "type": "poll"})).unwrap(),
            "`\"poll\"` is not a review type"
        );
    }
}
