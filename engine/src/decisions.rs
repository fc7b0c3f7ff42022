//! Proposing tool calls and deciding on them: the policy classifies each
//! proposed call; people approve, edit, reject or always-allow pending ones;
//! the expiry applies each lapsed approval's default action once.
//!
//! Every decision is a compare-and-set on the pending state in the store, so
//! of concurrent decisions on one call exactly one takes effect and the rest
//! get [`EngineError::AlreadyDecided`].

use crate::core::Core;
use crate::domain::{
    CallStatus, ConversationId, Decision, DecisionKind, GrantArgumentChoice, PersonId, ReviewCase,
    Run, RunId, RunStatus, ToolCall, ToolCallId,
};
use crate::error::EngineError;
use crate::grants;
use crate::people::passkeys;
use crate::previews;
use crate::store::{Applied, Decided, DecisionChange, StoreError};

use crate::domain::{ProposedCall, Reviewer, Verdict};

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
    EngineError::invalid(
        "call",
        "a question takes an answer, not an approval: answer it in the chat, on its review page or with `airlock answer`",
    )
}

pub(crate) async fn decide(
    core: &Core,
    call_id: &ToolCallId,
    verdict: Verdict,
    reviewer: &Reviewer,
) -> Result<ToolCall, EngineError> {
    let (call, _closed) =
        decide_closing(core, call_id, verdict, reviewer, CallKind::Unknown).await?;
    Ok(call)
}

/// What a caller knows of the call it decides: a review case knows by its
/// type whether the call is one of the agent's questions, and then the call
/// is not read first to find out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    Unknown,
    Question,
    Action,
}

/// [`decide`], returning the review case the decision closed as it was
/// stored, for a caller that may know what kind of call it decides.
pub(crate) async fn decide_closing(
    core: &Core,
    call_id: &ToolCallId,
    verdict: Verdict,
    reviewer: &Reviewer,
    call_kind: CallKind,
) -> Result<(ToolCall, Option<ReviewCase>), EngineError> {
    let by = reviewer.checked_name()?;
    let now = core.clock.now();
    let (kind, status, reason, arguments) = match verdict.clone() {
        Verdict::Approve => (DecisionKind::Approve, CallStatus::Approved, None, None),
        Verdict::Reject { reason } => (
            DecisionKind::Reject,
            CallStatus::Rejected,
            checked_reason(reason)?,
            None,
        ),
        Verdict::AlwaysAllow { lasts, .. } => {
            grants::check_length(lasts)?;
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
    // Only refusing or withdrawing fits a question. When the caller does
    // not know whether the call is one, the store's compare-and-set
    // leaves a question alone, so finding out costs no extra read.
    let refuse_questions = !matches!(verdict, Verdict::Reject { .. } | Verdict::Cancel { .. });
    // A grant's rule is made from the call's arguments; the one that may
    // not be made (a folder, of a call with no path) is refused first.
    let rule = match verdict {
        Verdict::AlwaysAllow { arguments, .. } if arguments == GrantArgumentChoice::SameFolder => {
            Some(arguments)
        }
        _ => None,
    };
    if refuse_questions && call_kind == CallKind::Question {
        return Err(not_for_questions());
    }
    // A signed-in person, an edit or a rule is checked against the call
    // first, and an approval against what the call's preview showed.
    let mut read = None;
    if reviewer.actor.is_some() || arguments.is_some() || rule.is_some() || refuse_questions {
        let call = access::pending_call(core, call_id).await?;
        access::check(reviewer, &call, refuse_questions)?;
        if let Some(edited) = &arguments {
            access::check_edit(core, &call, edited)?;
        }
        if let Some(choice) = rule {
            grants::rule_for(choice, &call.arguments)?;
        }
        if refuse_questions {
            let runs_with = arguments.as_ref().unwrap_or(&call.arguments);
            previews::recheck(core, &call, runs_with).await?;
            if call.step_up {
                passkeys::check_step_up(core, reviewer, &call).await?;
            }
        }
        read = Some(call);
    }
    let change = DecisionChange {
        call_id: call_id.clone(),
        decision: Decision {
            kind,
            by: by.clone(),
            by_id: reviewer.person_id(),
            at: now,
            reason,
            channel: reviewer.channel,
        },
        status,
        arguments,
        result: None,
        refuse_questions: refuse_questions && call_kind == CallKind::Unknown,
        submission: reviewer.relayed.clone(),
    };
    // A call that needs several approvals counts this one (see `quorum.rs`).
    let counted = |call: &ToolCall| call.quorum.is_needed() && quorum::counts(kind);
    if let Some(call) = read.filter(counted) {
        return quorum::approve(core, call, change).await;
    }
    let decided = decide_and_publish(core, &change).await?;
    match decided {
        Decided::Applied(applied) => {
            let Applied {
                call, closed_case, ..
            } = *applied;
            if let Verdict::AlwaysAllow {
                everywhere,
                lasts,
                arguments,
            } = verdict
            {
                let new = grants::NewGrant {
                    everywhere,
                    lasts,
                    arguments,
                    by,
                    by_id: reviewer.person_id(),
                    channel: reviewer.channel,
                    at: now,
                };
                grants::allow(core, &call, new).await?;
            }
            Ok((call, closed_case))
        }
        // The compare-and-set left a call past its deadline alone.
        Decided::AlreadyDecided(call) if call.lapsed_at(now).is_some() => {
            Err(EngineError::not_decided(*call, now))
        }
        // The compare-and-set left a question alone.
        Decided::AlreadyDecided(call) if change.refuse_questions && call.is_question() => {
            Err(not_for_questions())
        }
        // The compare-and-set left a call that needs several approvals.
        Decided::AlreadyDecided(call) if counted(&call) => {
            quorum::approve(core, *call, change).await
        }
        Decided::AlreadyDecided(call) => Err(EngineError::already_decided(*call)),
        Decided::NotFound => Err(EngineError::NotFound("tool call")),
    }
}

/// Applies `change` and publishes its events: the call's, and its run's
/// when the decision woke the run (the worker steps it from there).
async fn decide_and_publish(core: &Core, change: &DecisionChange) -> Result<Decided, StoreError> {
    let mut decided = core.decisions().decide(change).await?;
    if let Decided::Applied(applied) = &mut decided {
        core.metrics.decided(&applied.call);
        core.events
            .publish(std::iter::once(applied.event.clone()).chain(applied.woken_run.take()));
    }
    Ok(decided)
}

pub(crate) async fn expire_due(core: &Core) -> Result<usize, EngineError> {
    let mut total = 0;
    loop {
        let changed = core
            .decisions()
            .expire_due(core.clock.now(), EXPIRY_BATCH)
            .await?;
        let n = changed.len();
        total += n;
        let calls: Vec<ToolCall> = changed.iter().map(|(c, _)| c.clone()).collect();
        calls.iter().for_each(|call| core.metrics.decided(call));
        core.events.publish(changed.into_iter().map(|(_, e)| e));
        // The agent goes on once nothing of its turn waits any more.
        wake_runs(core, &calls).await?;
        if (n as i64) < EXPIRY_BATCH {
            return Ok(total);
        }
    }
}

pub(crate) async fn start_run(
    core: &Core,
    conversation: &ConversationId,
    started_by: Option<PersonId>,
) -> Result<Run, EngineError> {
    let now = core.clock.now();
    let run = Run {
        id: RunId::new(),
        conversation_id: conversation.clone(),
        status: RunStatus::Running,
        started_by,
        error: None,
        stopping: false,
        created_at: now,
        updated_at: now,
    };
    let event = core
        .runs()
        .insert_run(&run)
        .await
        .map_err(EngineError::missing)?;
    core.events.publish([event]);
    Ok(run)
}

/// Resumes the runs of calls the expiry decided once none of their calls
/// waits for a person. (A person's decision wakes its run in its own
/// commit; the expiry's locks come in an order that cannot.)
async fn wake_runs<'a>(
    core: &Core,
    calls: impl IntoIterator<Item = &'a ToolCall>,
) -> Result<(), EngineError> {
    let mut runs: Vec<&RunId> = calls
        .into_iter()
        .filter_map(|c| c.run_id.as_ref())
        .collect();
    runs.sort();
    runs.dedup();
    for run in runs {
        if let Some(event) = core.runs().wake_run(run, core.clock.now()).await? {
            core.events.publish([event]);
        }
    }
    Ok(())
}

mod access;
mod answer;
mod batch;
mod chat;
mod propose;
mod queue;
mod quorum;
mod receipt;
mod stop;

pub(crate) use access::{check, check_message, pending_call};
pub(crate) use answer::{
    answer, answer_closing, answer_given, answer_posted, answer_pressed, answer_typed,
};
use batch::apply_batch;
pub(crate) use batch::{decide_batch, decide_pending};
pub(crate) use chat::hand_to_agent;
pub(crate) use propose::{classify, new_call, propose_calls, propose_in_run, Classified, Turn};
pub(crate) use queue::answer_held_messages;
pub use receipt::RECEIPT_VALID_FOR;
pub(crate) use receipt::{key_set, new_key, receipt};
pub(crate) use stop::stop_agent;
pub use stop::STOPPED;

#[cfg(test)]
mod tests;
